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


# ------------------------------------------------------------------ max_pool2d_with_indices_backward
@pytest.mark.parametrize('shape,args', [((1, 2, 4, 5), ([2, 2], [2, 2], [0, 0], [1, 1], False)),
                                        ((2, 5, 6), ([3, 3], [1, 2], [1, 1], [1, 1], True)),
                                        ((1, 1, 5, 5), ([2, 2], [1, 1], [0, 0], [2, 2], False))])
def test_max_pool2d_with_indices_backward(shape, args):
    import torch

    import ember
    from oracle import check, gradcheck_ember
    x = np.random.default_rng(0).standard_normal(shape)

    def f(m, x, g):
        k, s, p, d, c = args
        _, idx = m.nn.functional.max_pool2d_with_indices(x, k, s, p, d, c, return_indices=True)
        return m.ops.aten.max_pool2d_with_indices_backward(g, x, k, s, p, d, c, idx)

    k, s, p, d, c = args
    out = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, d, c)
    g = np.random.default_rng(1).standard_normal(tuple(out.shape))
    re, rt = check(f, [x, g], grad=True)
    assert re.grad_fn.name() == rt.grad_fn.name() == 'MaxPool2DWithIndicesBackwardBackward0'
    gradcheck_ember(lambda m, g: f(m, m.tensor(x), g), [g])
    for bad in (tuple(out.shape[:-1]) + (out.shape[-1] + 1,), 'float32'):
        errs = []
        for m in (torch, ember):
            g = m.ones(tuple(out.shape), dtype=m.float32) if bad == 'float32' else \
                m.ones(bad, dtype=m.float64)
            with pytest.raises(RuntimeError) as ei:
                f(m, m.tensor(x), g)
            errs.append(str(ei.value))
        assert errs[0] == errs[1]
