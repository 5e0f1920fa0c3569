"""Identity, Linear, LazyLinear vs torch: forward/backward on copied weights, grad_fn
names, repr, factory kwargs, init bounds, errors."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check_error, rand
from _util import pair, run_both


@pytest.mark.parametrize('shape', [(4, 3), (3,), (2, 5, 3), (0, 3)])
@pytest.mark.parametrize('bias', [True, False])
def test_linear_forward_backward(shape, bias):
    e, t = pair(lambda n: n.Linear(3, 2, bias=bias))
    ye, yt = run_both(e, t, rand(*shape, seed=1))
    assert ye.grad_fn.name() == yt.grad_fn.name()


def test_linear_float64_kwargs():
    e = nn.Linear(3, 2, dtype=ember.float64, device='cpu')
    t = torch.nn.Linear(3, 2, dtype=torch.float64)
    assert e.weight.dtype == ember.float64 and e.bias.dtype == ember.float64
    assert e.weight.device == ember.device('cpu')
    from _util import sync
    sync(e, t)
    run_both(e, t, rand(4, 3, dtype=np.float64), rtol=1e-12, atol=1e-12)
    h = nn.Linear(3, 2, dtype=ember.half)
    assert h.weight.dtype == ember.float16
    assert h(ember.ones(1, 3, dtype=ember.half)).dtype == ember.float16


def test_repr_and_attributes():
    for kw in [dict(), dict(bias=False)]:
        e, t = nn.Linear(20, 30, **kw), torch.nn.Linear(20, 30, **kw)
        assert repr(e) == repr(t)
        assert (e.in_features, e.out_features) == (t.in_features, t.out_features)
        assert list(e.state_dict()) == list(t.state_dict())
        assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(nn.Identity(54, unused_argument1=0.1)) == repr(torch.nn.Identity(54)) == 'Identity()'
    assert repr(nn.LazyLinear(3)) == repr(torch.nn.LazyLinear(3))


def test_identity():
    m = nn.Identity(54, unused_argument1=0.1, unused_argument2=False)
    x = ember.randn(128, 20)
    assert m(x) is x
    assert list(m.parameters()) == []


def test_init_bounds_and_statistics():
    ember.manual_seed(0)
    m = nn.Linear(400, 300)
    bound = 1 / np.sqrt(400)
    w = m.weight.detach().numpy().copy()
    assert np.abs(w).max() <= bound + 1e-7
    assert abs(w.std() - bound / np.sqrt(3)) < 0.02 * bound
    assert abs(w.mean()) < 0.01 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound + 1e-7
    ember.manual_seed(3)
    a = nn.Linear(4, 4).weight.detach().clone()
    ember.manual_seed(3)
    assert ember.equal(a, nn.Linear(4, 4).weight)
    m.reset_parameters()
    assert not np.array_equal(w, m.weight.detach().numpy())


def test_grad_fn_names():
    m = nn.Linear(3, 2)
    assert m(ember.randn(4, 3)).grad_fn.name() == 'AddmmBackward0'
    assert m(ember.randn(3)).grad_fn.name() == 'ViewBackward0'
    assert nn.Linear(3, 2, bias=False)(ember.randn(4, 3)).grad_fn.name() == 'MmBackward0'
    with ember.no_grad():
        assert m(ember.randn(4, 3)).grad_fn is None
    m.requires_grad_(False)
    assert m(ember.randn(4, 3)).grad_fn is None
    assert m(ember.randn(4, 3, requires_grad=True)).grad_fn.name() == 'AddmmBackward0'


def test_training_step_matches_torch():
    e, t = pair(lambda n: n.Sequential(n.Linear(3, 4), n.ReLU(), n.Linear(4, 1)))
    x = rand(8, 3, seed=4)
    for _ in range(3):
        le = (e(ember.from_numpy(x)) ** 2).mean()
        lt = (t(torch.from_numpy(x)) ** 2).mean()
        le.backward()
        lt.backward()
        with ember.no_grad(), torch.no_grad():
            for pe, pt in zip(e.parameters(), t.parameters()):
                pe -= 0.1 * pe.grad
                pt -= 0.1 * pt.grad
                pe.grad = None
                pt.grad = None
    for pe, pt in zip(e.parameters(), t.parameters()):
        np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_errors():
    check_error(lambda m, x: m.nn.Linear(3, 2)(x), [rand(2, 4)],
                match='mat1 and mat2 shapes cannot be multiplied (2x4 and 3x2)')
    check_error(lambda m, x: m.nn.Linear(3, 2)(x), [rand(2, 3, dtype=np.float64)])


def test_lazy_linear():
    m = nn.LazyLinear(10)
    assert isinstance(m.weight, nn.UninitializedParameter)
    assert isinstance(m.bias, nn.UninitializedParameter)
    assert m.in_features == 0 and m.has_uninitialized_params()
    y = m(ember.ones(3, 7))
    assert type(m) is nn.Linear and m.in_features == 7
    assert m.weight.shape == (10, 7) and m.bias.shape == (10,) and y.shape == (3, 10)
    assert type(m.weight) is nn.Parameter
    bound = 1 / np.sqrt(7)
    assert m.weight.abs().max().item() <= bound + 1e-7
    assert repr(m) == repr(torch.nn.Linear(7, 10))
    m2 = nn.LazyLinear(4, bias=False, dtype=ember.float64)
    m2(ember.ones(2, 3, dtype=ember.float64))
    assert m2.bias is None and m2.weight.dtype == ember.float64
