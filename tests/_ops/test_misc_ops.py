"""ember/_ops/misc_ops.py against torch: what the op database cannot express."""
import numpy as np

import ember
from oracle import check, rand


def test_sum_to_size_empty_size_sums_everything():
    # torch: an empty size sums every element, a 0-d input too (bool -> int64) (issue 21)
    check(lambda m, x: (x.sum_to_size(()), x.sum_to_size([])), [rand(2, 3, dtype=np.float64)],
          grad=True)
    check(lambda m, x: x.sum_to_size(()), [np.array(True)])
    check(lambda m, x: x.sum_to_size(()), [np.array(3, dtype=np.int16)])
    x = ember.ones(2, 3)
    assert x.sum_to_size(2, 3) is x       # same size: the tensor itself, as torch


def test_alias_copy_is_differentiable():
    check(lambda m, x: m.alias_copy(x), [rand(5, dtype=np.float64)], grad=True)
    check(lambda m, x: m.alias_copy(x), [np.array(1.5)], grad=True)
    x = ember.ones(3)
    assert ember.alias_copy(x).data_ptr() != x.data_ptr()


def test_gcd_lcm_need_tensors_and_gradient_repeated_dims():
    from oracle import check_error
    check_error(lambda m: m.gcd(m.ones(3, dtype=m.int64), 2),
                match="gcd(): argument 'other' (position 2) must be Tensor, not int")
    check_error(lambda m: m.lcm(m.ones(3, dtype=m.int64), 2),
                match="lcm(): argument 'other' (position 2) must be Tensor, not int")
    check_error(lambda m: m.gradient(m.ones(3, 3), spacing=0.1, dim=(1, 1)),
                match='dim 1 appears multiple times in the list of dims')


def test_gradient_spacing_none_is_unit():
    check(lambda m, x: m.gradient(x, spacing=None), [rand(5, 4, dtype=np.float64)])
