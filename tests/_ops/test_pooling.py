"""ember/_ops/pooling.py against torch: integer average pooling."""
import numpy as np
import pytest

from oracle import check


@pytest.mark.parametrize('divisor', [-3, -2, 3, None])
def test_avg_pool_int64_truncates_toward_zero(divisor):
    # integer windows are divided as C++ does (toward zero), a negative divisor too (issue 21)
    x = np.arange(-40, 40, dtype=np.int64).reshape(1, 1, 2, 5, 8)
    check(lambda m, a: (m.nn.functional.avg_pool2d(a[0], 2, divisor_override=divisor),
                        m.nn.functional.avg_pool3d(a, (1, 2, 3), stride=(1, 2, 1),
                                                   divisor_override=divisor)), [x])


@pytest.mark.parametrize('name,shape,size', [
    ('adaptive_avg_pool2d', (2, 2), (2, 2)), ('adaptive_max_pool2d', (2, 2), (2, 2)),
    ('adaptive_avg_pool3d', (2, 2, 2), (2, 2, 2)), ('adaptive_max_pool3d', (2, 2, 2), (2, 2, 2))])
def test_adaptive_pool_tuple_size_needs_more_dims(name, shape, size):
    from oracle import check_error
    check_error(lambda m: getattr(m.nn.functional, name)(m.zeros(shape), size), match=(
        f'Input dimension should be at least {len(size) + 1}'))
