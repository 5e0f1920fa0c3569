"""``ember.masked.MaskedTensor`` vs ``torch.masked.MaskedTensor``: construction, data and
mask, printing, pointwise ops and reductions propagating masks, gradients."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, errors_both, run_both

warnings.filterwarnings('ignore', message='.*prototype.*')

D = np.array([[1., 2., 3.], [4., 5., 6.]], dtype=np.float32)
M = np.array([[True, False, True], [False, False, True]])
D3 = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
M3 = np.random.default_rng(3).random((2, 3, 4)) > 0.5


def _mt(m, d=D, mask=M, **kw):
    return m.masked.masked_tensor(m.tensor(d), m.tensor(mask), **kw)


def _both(mt, m):
    """What a MaskedTensor shows: its type name, repr, and kept values."""
    if not isinstance(mt, (torch.Tensor, ember.Tensor)):
        return mt
    return (type(mt).__name__, repr(mt), mt.get_mask(),
            mt.get_data().masked_fill(~mt.get_mask(), 0).detach())


OPS = {
    'repr': lambda m, x: x,
    'sum': lambda m, x: x.sum(),
    'sum_dim': lambda m, x: x.sum(1),
    'sum_keepdim': lambda m, x: x.sum(1, keepdim=True),
    'mean': lambda m, x: x.mean(),
    'mean_dim': lambda m, x: x.mean(0),
    'amax': lambda m, x: x.amax(1),
    'amin': lambda m, x: x.amin(),
    'prod': lambda m, x: x.prod(1),
    'argmax': lambda m, x: x.argmax(1),
    'var': lambda m, x: x.var(),
    'std': lambda m, x: x.std(1),
    'softmax': lambda m, x: x.softmax(1),
    'add_scalar': lambda m, x: x + 1,
    'radd_mul': lambda m, x: 2 * x + x * x,
    'div': lambda m, x: x / 2,
    'exp': lambda m, x: m.exp(x),
    'neg': lambda m, x: x.neg(),
    'compare': lambda m, x: x > 2,
    'clone_float': lambda m, x: x.clone().float(),
    'plain_operand': lambda m, x: x + m.ones(2, 3),
}


@pytest.mark.parametrize('name', sorted(OPS))
def test_ops_and_printing(name):
    run_both(lambda m: _both(OPS[name](m, _mt(m)), m))


def test_printing_shapes_and_dtypes():
    def f(m):
        return [repr(_mt(m, D3, M3)), repr(m.masked.masked_tensor(m.tensor(3.), m.tensor(True))),
                repr(m.masked.masked_tensor(m.tensor([1, 2]), m.tensor([True, False]))),
                repr(_mt(m, D3, M3).sum((0, 2)))]
    run_both(f)


def test_data_mask_to_tensor():
    run_both(lambda m: (_mt(m).get_data(), _mt(m).get_mask(), _mt(m).to_tensor(-1),
                        _mt(m).shape, _mt(m).dtype, _mt(m).is_sparse,
                        m.masked.is_masked_tensor(_mt(m)), m.masked.is_masked_tensor(m.ones(1))))


@pytest.mark.parametrize('call, match', [
    (lambda m: m.masked.masked_tensor(m.tensor(D), m.tensor(M).float()), 'dtype bool'),
    (lambda m: m.masked.masked_tensor(m.tensor(D), m.tensor(M[0])), 'must equal mask.dim()'),
    (lambda m: m.masked.masked_tensor([1.], m.tensor(M)), 'data must be a Tensor'),
    (lambda m: m.masked.masked_tensor(m.tensor(D), [True]), 'mask must be a Tensor'),
    (lambda m: _mt(m) + _mt(m, mask=~M), 'Input masks must match'),
    (lambda m: _mt(m).cumsum(0), 'Multiple dispatch failed'),
])
def test_errors(call, match):
    errors_both(call, match)


@pytest.mark.parametrize('loss', [lambda x: x.sum(), lambda x: (x * x).sum(1).sum(),
                                  lambda x: x.exp().mean()])
def test_grad_is_masked(loss):
    def f(m):
        x = _mt(m, requires_grad=True)
        loss(x).backward()
        return _both(x.grad, m), x.requires_grad
    run_both(f)


def test_as_masked_tensor_differentiable():
    grads = []
    for m in (torch, ember):
        z = m.tensor(D, requires_grad=True)
        m.masked.as_masked_tensor(z, m.tensor(M)).mean().backward()
        g = z.grad
        grads.append(g.get_data().masked_fill(~g.get_mask(), 0) if hasattr(g, 'get_mask') else g)
    assert_same(grads[1], grads[0])
