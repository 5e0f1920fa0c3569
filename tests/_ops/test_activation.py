"""ember/_ops/activation.py against torch: what the op database does not cover."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, errors_both, gradcheck_ember


def test_silu_complex():
    # torch computes silu of complex inputs, without autograd (issue 21)
    rng = np.random.default_rng(2)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    check(lambda m, x: (m.nn.functional.silu(x), m.nn.functional.silu(x.clone(), inplace=True)),
          [z])
    check_error(lambda m: m.nn.functional.silu(m.tensor(z, requires_grad=True)),
                match='silu does not support automatic differentiation for outputs with complex')


# ------------------------------------------------------------------ _safe_softmax / _softmax_backward_data
def test_safe_softmax():
    x = np.array([[-np.inf] * 3, [1., 2, 3], [-np.inf, 0., -np.inf]])
    check(lambda m, t: (m._safe_softmax(t, 1), m._safe_softmax(t, 0),
                        m._safe_softmax(t.float(), -1, dtype=m.float64)), [x], grad=True)
    for m in (torch, ember):
        t = m.tensor(x, requires_grad=True)
        assert m._safe_softmax(t, 1).grad_fn.name() == 'SafeSoftmaxBackward0'
    gradcheck_ember(lambda m, t: m._safe_softmax(t, 1), [x])
    check_error(lambda m, t: m._safe_softmax(t, 0), [np.array([1, 2])], 'not implemented for')


@pytest.mark.parametrize('shape,dim', [((5,), 0), ((4, 3), 0), ((2, 3, 4), -1), ((), 0)])
def test_softmax_backward_data(shape, dim):
    rng = np.random.default_rng(1)
    g = rng.standard_normal(shape)
    y = np.asarray(torch.softmax(torch.tensor(rng.standard_normal(shape)), dim).numpy())
    check(lambda m, g, y: m._softmax_backward_data(g, y, dim, m.float64), [g, y], grad=True)
    check(lambda m, g, y: m._softmax_backward_data(g.float(), y.float(), dim, m.float64), [g, y])
    gradcheck_ember(lambda m, g, y: m._softmax_backward_data(g, y, dim, m.float64), [g, y])
    t = ember.tensor(g, requires_grad=True)
    r = ember._softmax_backward_data(t, ember.tensor(y), dim, ember.float64)
    assert r.grad_fn.name() == 'SoftmaxBackwardDataBackward0'


@pytest.mark.parametrize('fn,match', [
    (lambda m: m._softmax_backward_data(m.zeros(3, 4), m.zeros(3, 4), 2, m.float32),
     'Dimension out of range'),
    (lambda m: m._softmax_backward_data(m.zeros(3, 4, dtype=m.float64), m.zeros(3, 4), 1,
                                        m.float64), 'expected scalar type Double but found Float'),
    (lambda m: m._softmax_backward_data(m.zeros(2, 4), m.zeros(3, 4), 1, m.float32),
     "Expected tensor for argument #1 'grad' to have same size as tensor for argument #2"),
    (lambda m: m._softmax_backward_data(m.zeros(3), m.zeros(3), 0, m.float16),
     'expected scalar type Float but found Half'),
    (lambda m: m._softmax_backward_data(m.zeros(3).long(), m.zeros(3).long(), 0, m.int64),
     '"softmax_backward_lastdim_kernel_impl" not implemented for \'Long\''),
    (lambda m: m._softmax_backward_data(m.zeros(3, 2).long(), m.zeros(3, 2).long(), 0, m.int64),
     '"softmax_backward_kernel_impl" not implemented for \'Long\''),
])
def test_softmax_backward_data_errors(fn, match):
    errors_both(fn, match)
