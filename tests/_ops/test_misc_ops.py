"""ember/_ops/misc_ops.py against torch: what the op database cannot express."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, errors_both, gradcheck_ember, rand


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


# ------------------------------------------------------------------ aten::slice
@pytest.mark.parametrize('args', [(1, 1, None, 2), (0,), (-1, -3, 100), (1, 4, 2), (0, None, 1, 3),
                                  (1, -100, -1, 1)])
def test_aten_slice(args):
    # ember.ops.aten.slice (and its .Tensor overload) is a view, as torch's
    x = np.arange(10.).reshape(2, 5)
    check(lambda m, t: (m.ops.aten.slice(t, *args), m.ops.aten.slice.Tensor(t * 1, *args)),
          [x], grad=True)
    for m in (torch, ember):
        t = m.tensor(x)
        v = m.ops.aten.slice(t, *args)
        if v.numel():
            v.fill_(-1.)
            assert (t == -1).sum().item() == v.numel()
        assert m.ops.aten.slice(t.requires_grad_(), *args).grad_fn.name() == 'SliceBackward0'
    gradcheck_ember(lambda m, t: m.ops.aten.slice(t, *args), [x])


@pytest.mark.parametrize('fn,match', [
    (lambda m: m.ops.aten.slice(m.zeros(2, 3), 1, 0, 3, 0), 'slice step must be positive'),
    (lambda m: m.ops.aten.slice(m.zeros(2, 3), 2), 'Dimension out of range'),
    (lambda m: m.ops.aten.slice(m.tensor(1.), 0), 'slice() cannot be applied to a 0-dim tensor'),
])
def test_aten_slice_errors(fn, match):
    errors_both(fn, match)


# ------------------------------------------------------------------ bfloat16 paths
_BF16 = np.array([0., -0., 1., -1., 3.14, -2.5, np.inf, -np.inf, np.nan, 1e-40, 65504., 1e38])


def test_nextafter_frexp_isin_bfloat16():
    check(lambda m, x, y: (m.nextafter(x.bfloat16(), y.bfloat16()),
                           m.nextafter(x.bfloat16(), x.bfloat16()),
                           m.nextafter(x.bfloat16(), m.tensor(5.).bfloat16()),
                           m.frexp(x[:8].bfloat16()),
                           m.isin(x.bfloat16(), y.bfloat16())),
          [_BF16, np.roll(_BF16, 3)], rtol=0, atol=0)


@pytest.mark.parametrize('dim,match', [
    (3, 'Expected dim < static_cast<int64_t>(self_sizes.size()) to be true'),
    (-4, 'Dimension out of range'),
])
def test_narrow_copy_dim_errors(dim, match):
    errors_both(lambda m: m.narrow_copy(m.zeros(10, 5, 20), dim, 0, 0), match)


@pytest.mark.parametrize('dt', [np.int8, np.int16, np.float32, np.float64])
def test_cumulative_trapezoid_with_x(dt):
    # (dx * (y[1:] + y[:-1])) / 2 in the operands' dtype (int8 wraps) until the halving
    rng = np.random.default_rng(4)
    y = (rng.integers(-9, 10, (3, 3)) * 9).astype(dt)
    x = (rng.integers(-9, 10, (3, 3)) * 9).astype(dt)
    check(lambda m, a, b: (m.cumulative_trapezoid(a, b, dim=-2),
                           m.cumulative_trapezoid(a, b[:, 0], dim=0)), [y, x])
