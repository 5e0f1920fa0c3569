"""ember.nn.parallel vs torch on a CPU-only machine (DataParallel runs the module unchanged;
the functional forms refuse CPU devices with torch's errors), and the scatter / gather /
replicate / parallel_apply machinery itself, driven over CPU devices through its internal
entry points (what DataParallel uses on accelerators)."""
import collections
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.nn import parallel as P
from ember.nn.parallel import scatter_gather as SG
R = sys.modules['ember.nn.parallel.replicate']          # the package's names are functions
PA = sys.modules['ember.nn.parallel.parallel_apply']
from oracle import errors_both, rand
from _util import sync


def _net(nn):
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def test_data_parallel_cpu_runs_module_unchanged():
    for m in (torch, ember):
        m.manual_seed(0)
    t = torch.nn.DataParallel(_net(torch.nn), device_ids=[0, 1], output_device=1, dim=1)
    e = ember.nn.DataParallel(_net(ember.nn), device_ids=[0, 1], output_device=1, dim=1)
    sync(e, t)
    assert list(e.state_dict()) == list(t.state_dict()) == \
        ['module.0.weight', 'module.0.bias', 'module.2.weight', 'module.2.bias']
    assert e.device_ids == t.device_ids == []
    assert not hasattr(e, 'dim') and not hasattr(t, 'dim')
    assert repr(e) == repr(t)
    assert isinstance(e.module, ember.nn.Sequential)
    x = rand(5, 3, seed=1)
    xe, xt = ember.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    ye, yt = e(xe), t(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=1e-6)
    g = np.random.default_rng(0).standard_normal((5, 2)).astype(np.float32)
    ye.backward(ember.from_numpy(g))
    yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=n)
    # keyword arguments pass through, state dicts load back into the bare module
    assert e.module.load_state_dict({k[len('module.'):]: v for k, v in e.state_dict().items()})
    assert P.DataParallel.__module__ == 'ember.nn.parallel.data_parallel'
    assert ember.nn.DataParallel is P.DataParallel


def test_functional_forms_refuse_cpu_like_torch():
    x = lambda m: m.arange(8.).view(4, 2)  # noqa: E731
    pm = lambda m: m.nn.parallel  # noqa: E731
    errors_both(lambda m: pm(m).scatter(x(m), ['cpu']), 'Expected a non cpu device, but got: cpu')
    errors_both(lambda m: pm(m).gather([x(m), x(m)], -1), 'not implemented for CPU tensors')
    errors_both(lambda m: pm(m).replicate(m.nn.Linear(2, 2), [0]),
                'Broadcast function not implemented for CPU tensors')
    errors_both(lambda m: pm(m).replicate(m.nn.Linear(2, 2), ['cpu']), 'non cpu device')
    errors_both(lambda m: pm(m).parallel_apply([m.nn.Linear(2, 2)] * 2, [x(m)]),
                'The number of modules 2 is not equal to the number of inputs 1')
    errors_both(lambda m: pm(m).parallel_apply([m.nn.Linear(2, 2)] * 2, [x(m), x(m)]),
                'Cannot access accelerator device when none is available.')
    errors_both(lambda m: pm(m).parallel_apply([m.nn.Linear(2, 2)] * 2, [(x(m),), (x(m),)],
                                               None, ['cpu', 'cpu']),
                'Expected a cuda device, but got: cpu')
    errors_both(lambda m: pm(m).data_parallel(m.nn.Linear(2, 2), x(m)),
                'device type could not be determined')
    for m in (torch, ember):
        assert pm(m).scatter('abc', [0, 1]) == ['abc', 'abc']
        assert pm(m).gather([None, None], -1) is None
        assert pm(m).replicate(m.nn.Linear(2, 2), []) == []
    assert sorted(P.__all__) == sorted(torch.nn.parallel.__all__ + []) or \
        set(torch.nn.parallel.__all__) - set(P.__all__) == {'DistributedDataParallel'}


CPU = [ember.device('cpu')] * 3
Pt = collections.namedtuple('Pt', 'x y')


def test_scatter_machinery():
    x = ember.arange(14.).view(7, 2)
    parts = SG._scatter(x, CPU, 0)
    assert [tuple(p.shape) for p in parts] == [(3, 2), (3, 2), (1, 2)]
    assert [p.tolist() for p in parts] == [c.tolist() for c in torch.arange(14.).view(7, 2).chunk(3)]
    nested = SG._scatter((x, [x, 'k'], {'a': x}, Pt(x, 5)), CPU[:2], 1)
    assert len(nested) == 2
    a, b = nested
    assert a[0].shape == (7, 1) and a[1][1] == 'k' and a[2]['a'].shape == (7, 1)
    assert isinstance(a[3], Pt) and a[3].y == 5 and b[3].x.tolist() == x[:, 1:].tolist()
    ins, kws = SG._scatter_kwargs((x,), {'w': x}, CPU[:2], 0)
    assert len(ins) == len(kws) == 2 and kws[1]['w'].shape == (3, 2)
    ins, kws = SG._scatter_kwargs((x[:1],), {}, CPU[:2], 0)   # one slice: one replica
    assert len(ins) == 1 and kws == ({},)
    ins, kws = SG._scatter_kwargs((), {'w': x}, CPU[:2], 0)
    assert ins == ((), ()) and len(kws) == 2
    # differentiable: the pieces' gradients reach the input
    w = ember.randn(6, 2, requires_grad=True)
    sum(p.sum() * (i + 1) for i, p in enumerate(SG._scatter(w, CPU, 0))).backward()
    assert w.grad.tolist() == [[1., 1.]] * 2 + [[2., 2.]] * 2 + [[3., 3.]] * 2


def test_gather_machinery():
    a, b = ember.ones(2, 3), ember.zeros(1, 3)
    out = SG._gather([a, b], ember.device('cpu'), 0)
    assert out.shape == (3, 3) and out.sum().item() == 6
    d = SG._gather([{'o': a, 'n': None}, {'o': b, 'n': None}], ember.device('cpu'), 0)
    assert d['o'].shape == (3, 3) and d['n'] is None
    p = SG._gather([Pt(a, a), Pt(b, b)], ember.device('cpu'), 0)
    assert isinstance(p, Pt) and p.y.shape == (3, 3)
    lst = SG._gather([[a, a], [b, b]], ember.device('cpu'), 0)
    assert isinstance(lst, list) and lst[1].shape == (3, 3)
    with pytest.warns(UserWarning, match='all input tensors were scalars'):
        v = SG._gather([ember.tensor(1.), ember.tensor(2.)], ember.device('cpu'), 0)
    assert v.tolist() == [1., 2.]
    with pytest.raises(ValueError, match='same number of keys'):
        SG._gather([{'a': a}, {'a': a, 'b': b}], ember.device('cpu'), 0)


def test_replicate_and_parallel_apply_machinery():
    ember.manual_seed(0)
    net = _net(ember.nn)
    net.register_buffer('steps', ember.zeros(1))
    reps = R._replicate(net, CPU[:2])
    assert len(reps) == 2 and list(reps[0].parameters()) == []
    assert reps[0][0].weight is not net[0].weight and not reps[0][0].weight.is_leaf
    x = ember.randn(6, 3)
    ins, kws = SG._scatter_kwargs((x,), {}, CPU[:2], 0)
    outs = PA._apply(reps, list(ins), list(kws), [None, None])
    y = SG._gather(outs, ember.device('cpu'), 0)
    ref = net(x)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    y.sum().backward()
    g1 = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    ref.sum().backward()
    for a, b in zip(g1, net.parameters()):
        np.testing.assert_allclose(a.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)
    det = R._replicate(net, CPU[:1], detach=True)[0]
    assert det[0].weight.is_leaf and not det[0].weight.requires_grad
    # the caller's grad mode reaches the threads; errors come back with the replica's trace
    with ember.no_grad():
        outs = PA._apply(reps, [(x,), (x,)], [{}, {}], [None, None])
    assert not outs[0].requires_grad

    class Boom(ember.nn.Module):
        def forward(self, x):
            raise KeyError('bad key')
    with pytest.raises(KeyError, match='Caught KeyError in replica 1 on device None'):
        PA._apply([net, Boom()], [(x,), (x,)], [{}, {}], [None, None])


def test_container_and_factory_kwargs():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        c = ember.nn.Container(fc=ember.nn.Linear(2, 3))
        ct = torch.nn.Container(fc=torch.nn.Linear(2, 3))
    assert [x.category for x in w] == [FutureWarning, FutureWarning]
    assert str(w[0].message) == str(w[1].message)
    assert repr(c) == repr(ct) and list(c.state_dict()) == list(ct.state_dict())
    for kw in (None, {}, {'dtype': 1}, {'device': 'cpu', 'factory_kwargs': {'dtype': 2}},
               {'memory_format': 3}):
        assert ember.nn.factory_kwargs(kw) == torch.nn.factory_kwargs(kw)
    for kw in ({'foo': 1}, {'dtype': 1, 'factory_kwargs': {'dtype': 2}}):
        errors_both(lambda m: m.nn.factory_kwargs(kw))


@pytest.fixture
def fake_accelerators(monkeypatch):
    """Two 'accelerator' devices that are the CPU: DataParallel's multi-device path
    (scatter, replicate, threads, gather) runs end to end."""
    from ember.nn.parallel import _devices
    dp = sys.modules['ember.nn.parallel.data_parallel']
    monkeypatch.setattr(_devices, 'accelerator_available', lambda: True)
    monkeypatch.setattr(_devices, 'check_accelerator', lambda: None)
    monkeypatch.setattr(_devices, 'to_device', lambda i: ember.device('cpu'))
    monkeypatch.setattr(dp, '_all_device_indices', lambda: [0, 1])


def test_data_parallel_multi_device_path(fake_accelerators):
    ember.manual_seed(0)
    net = _net(ember.nn)
    dp = ember.nn.DataParallel(net)
    assert dp.device_ids == [0, 1] and dp.output_device == 0 and dp.dim == 0
    x = ember.randn(7, 3, requires_grad=True)
    y = dp(x)
    ref = net(x)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    g = ember.randn(7, 2)
    y.backward(g)
    gx, gp = x.grad.clone(), [p.grad.clone() for p in net.parameters()]
    x.grad = None
    net.zero_grad()
    ref.backward(g)
    np.testing.assert_allclose(gx.numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-6)
    for a, p in zip(gp, net.parameters()):
        np.testing.assert_allclose(a.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
    # split along another dim, keyword inputs, the functional form, one device
    dp1 = ember.nn.DataParallel(ember.nn.Softmax(dim=0), device_ids=[0, 1], dim=1)
    xt = ember.randn(4, 5)
    np.testing.assert_allclose(dp1(xt).numpy(), xt.softmax(0).numpy(), rtol=1e-6)
    y2 = P.data_parallel(net, x, device_ids=[0, 1])
    np.testing.assert_allclose(y2.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    one = ember.nn.DataParallel(net, device_ids=[1])
    np.testing.assert_allclose(one(x).detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    with ember.no_grad():
        assert not dp(x).requires_grad


def test_data_parallel_kwargs_and_small_batches(fake_accelerators):
    class Add(ember.nn.Module):
        def forward(self, a, b=None):
            return a if b is None else a + b
    dp = ember.nn.DataParallel(Add())
    a, b = ember.arange(6.).view(3, 2), ember.ones(3, 2)
    assert dp(a, b=b).tolist() == (a + b).tolist()
    assert dp(a[:1]).tolist() == a[:1].tolist()       # one slice: one replica
