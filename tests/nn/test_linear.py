"""Identity, Linear, LazyLinear vs torch: forward/backward on copied weights, grad_fn
names, repr, factory kwargs, init bounds, errors."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check, check_error, errors_both, rand
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


# ----------------------------------------------------------------------------- Bilinear
def _bilinear_both(e, t, x1, x2, rtol=1e-5, atol=1e-5):
    ins = {}
    outs = {}
    for m, mod in ((torch, t), (ember, e)):
        a = m.from_numpy(x1.copy()).requires_grad_(True)
        b = m.from_numpy(x2.copy()).requires_grad_(True)
        y = mod(a, b)
        g = np.random.default_rng(0).standard_normal(tuple(y.shape)).astype(x1.dtype)
        y.backward(m.from_numpy(g))
        ins[m], outs[m] = (a, b), y
    ye, yt = outs[ember], outs[torch]
    assert tuple(ye.shape) == tuple(yt.shape) and str(ye.dtype) == str(yt.dtype)
    assert ye.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    for a, b in zip(ins[ember], ins[torch]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=n)


@pytest.mark.parametrize('lead', [(4,), (), (2, 3), (0,)])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_bilinear_forward_backward(lead, bias, dtype):
    e, t = pair(lambda n: n.Bilinear(3, 5, 4, bias=bias))
    if dtype == np.float64:
        e, t = e.double(), t.double()
    _bilinear_both(e, t, rand(*lead, 3, dtype=dtype, seed=1), rand(*lead, 5, dtype=dtype, seed=2))


def test_bilinear_init_repr_state():
    for kw in (dict(), dict(bias=False)):
        ws = []
        for m in (torch, ember):
            m.manual_seed(5)
            mod = m.nn.Bilinear(4, 6, 3, **kw)
            ws.append([p.detach().numpy() for p in mod.parameters()])
            if m is ember:
                e = mod
            else:
                t = mod
        for a, b in zip(*ws):
            np.testing.assert_array_equal(a, b)
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())
    assert nn.Bilinear.__constants__ == torch.nn.Bilinear.__constants__
    assert nn.Bilinear.__module__ == 'ember.nn.modules.linear'
    b = nn.Bilinear(2, 3, 4, dtype=ember.float64)
    assert b.weight.dtype == ember.float64 and b.weight.shape == (4, 2, 3)
    errors_both(lambda m: m.nn.Bilinear(0, 3, 4), 'in1_features must be > 0')


def test_bilinear_functional_and_errors():
    x1, x2, w, b = rand(4, 3, seed=1), rand(4, 5, seed=2), rand(6, 3, 5, seed=3), rand(6, seed=4)
    check(lambda m, a, c, ww, bb: m.bilinear(a, c, ww, bb), [x1, x2, w, b], grad=True)
    check(lambda m, a, c, ww: m.nn.functional.bilinear(a, c, ww), [x1, x2, w], grad=True)
    assert ember.autograd.gradcheck(
        lambda a, c, ww, bb: ember.nn.functional.bilinear(a, c, ww, bb),
        tuple(ember.from_numpy(v.astype(np.float64)).requires_grad_(True)
              for v in (x1[:2], x2[:2], w[:2], b[:2])))
    assert ember.autograd.gradgradcheck(
        lambda a, c, ww: ember.nn.functional.bilinear(a, c, ww),
        tuple(ember.from_numpy(v.astype(np.float64)).requires_grad_(True)
              for v in (x1[:2], x2[:2], w[:2])))
    for args, match in (((x1, x2[:3], w, b), 'input batch dimensions do not match at dim 0'),
                        ((x1, x2[:, :4], w, b), 'input2 size does not match weight size'),
                        ((x1[:, :2], x2, w, b), 'input1 size does not match weight size'),
                        ((x1, x2, w, b[:3]), 'bias size does not match weight size'),
                        ((x1, x2[None], w, b), 'input dimensions do not match: got 2 and 3'),
                        ((x1, x2.astype(np.float64), w, b), 'All tensors must have the same')):
        check_error(lambda m, *a: m.nn.functional.bilinear(*a), list(args), match=match)
