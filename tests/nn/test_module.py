"""nn.Module semantics vs torch: registration, traversal, state_dict, hooks, repr, to()."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember import nn as enn
from torch import nn as tnn


def build(m):
    nn = m.nn

    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)
            self.register_buffer('running', m.zeros(2))
            self.register_buffer('tmp', m.ones(1), persistent=False)

        def forward(self, x):
            return self.lin(x) + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(m.zeros(3))
            self.register_parameter('none_p', None)
            self.register_buffer('none_b', None)
            self.a = Sub()
            self.seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
            self.shared = self.seq[0]
            self.ml = nn.ModuleList([nn.ReLU(), nn.LeakyReLU(0.2)])
            self.md = nn.ModuleDict({'z': nn.ReLU(), 'a': nn.Identity()})

        def forward(self, x):
            return self.seq(self.a(x) + self.p[:2])
    return Net()


def test_traversal_orders_match_torch():
    e, t = build(ember), build(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in e.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert [n for n, _ in e.named_parameters(prefix='model', recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix='model', recurse=False)]
    assert len(list(e.parameters())) == len(list(t.parameters()))
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    assert isinstance(e.state_dict(), OrderedDict)


def test_repr_matches_torch():
    assert repr(build(ember)) == repr(build(torch))


def test_state_dict_roundtrip_and_detach():
    e = build(ember)
    sd = e.state_dict()
    assert all(not v.requires_grad for v in sd.values())
    sdk = e.state_dict(keep_vars=True)
    assert sdk['p'] is e.p
    sd2 = OrderedDict((k, v + 1) for k, v in sd.items())
    r = e.load_state_dict(sd2)
    assert repr(r) == '<All keys matched successfully>'
    assert e.p.tolist() == [1.0, 1.0, 1.0]
    assert isinstance(e.p, enn.Parameter)


def test_load_state_dict_errors_leave_module_unchanged():
    e, t = build(ember), build(torch)
    before = {k: v.clone() for k, v in e.state_dict().items()}
    sd_e = {k: v + 1 for k, v in e.state_dict().items()}
    sd_t = {k: v + 1 for k, v in t.state_dict().items()}
    del sd_e['a.running'], sd_t['a.running']
    sd_e['bogus'] = ember.zeros(1)
    sd_t['bogus'] = torch.zeros(1)
    sd_e['seq.2.weight'] = ember.zeros(5, 5)
    sd_t['seq.2.weight'] = torch.zeros(5, 5)
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict(sd_e)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(sd_t)
    assert str(ee.value) == str(te.value)
    for k, v in e.state_dict().items():
        assert v.tolist() == before[k].tolist(), k
    # strict=False reports but loads what matches
    del sd_e['seq.2.weight'], sd_t['seq.2.weight']
    re_ = e.load_state_dict(sd_e, strict=False)
    rt = t.load_state_dict(sd_t, strict=False)
    assert re_.missing_keys == rt.missing_keys and re_.unexpected_keys == rt.unexpected_keys
    assert repr(re_) == repr(rt)


def test_setattr_rules():
    for m in (ember, torch):
        net = m.nn.Linear(2, 2)
        with pytest.raises(TypeError) as ex:
            net.weight = m.zeros(2, 2)
        msg = str(ex.value)
        assert "cannot assign" in msg and "as parameter 'weight'" in msg
        net.register_buffer('buf', m.zeros(2))
        net.buf = m.ones(2)
        assert 'buf' in dict(net.named_buffers())
        with pytest.raises(TypeError):
            net.buf = 3
        seq = m.nn.Sequential(m.nn.ReLU())
        with pytest.raises(TypeError):
            seq._modules  # noqa: B018
            setattr(seq, '0', 5)
        with pytest.raises(AttributeError):
            net.nonexistent  # noqa: B018
        del net.buf
        assert 'buf' not in dict(net.named_buffers())
    class Early(enn.Module):
        def __init__(self):
            self.p = enn.Parameter(ember.zeros(1))
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Early()


def test_buffer_class_and_persistence():
    m = enn.Module()
    m.x = enn.Buffer(ember.ones(2))
    m.y = enn.Buffer(ember.ones(3), persistent=False)
    assert list(m.state_dict()) == ['x']
    assert [n for n, _ in m.named_buffers()] == ['x', 'y']


def test_get_submodule_parameter_buffer():
    for m in (ember, torch):
        net = build(m)
        assert net.get_submodule('a.lin') is net.a.lin
        assert net.get_parameter('a.lin.weight') is net.a.lin.weight
        assert net.get_buffer('a.running') is net.a.running
        with pytest.raises(AttributeError):
            net.get_submodule('a.nope')
        net.set_submodule('a.lin', m.nn.Linear(3, 2, bias=False))
        assert net.a.lin.bias is None


def test_train_eval_zero_grad_requires_grad():
    e = build(ember)
    e.eval()
    assert all(not mod.training for mod in e.modules())
    e.train()
    assert all(mod.training for mod in e.modules())
    out = e(ember.ones(4, 3)).sum()
    out.backward()
    assert e.p.grad is not None
    e.zero_grad()
    assert e.p.grad is None
    e(ember.ones(4, 3)).sum().backward()
    e.zero_grad(set_to_none=False)
    assert e.p.grad.tolist() == [0.0, 0.0, 0.0]
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())


def test_to_keeps_parameter_objects():
    e = build(ember)
    w = e.a.lin.weight
    e.to(ember.float64)
    assert e.a.lin.weight is w and w.dtype is ember.float64
    assert e.a.running.dtype is ember.float64
    e.half()
    assert w.dtype is ember.float16
    e.float()
    assert w.dtype is ember.float32
    m = enn.Module()
    m.register_buffer('idx', ember.tensor([1, 2]))
    m.to(ember.float64)
    assert m.idx.dtype is ember.int64
    with pytest.raises(TypeError):
        m.to(ember.int32)


def test_apply_and_children_order():
    calls_e, calls_t = [], []
    build(ember).apply(lambda mod: calls_e.append(type(mod).__name__))
    build(torch).apply(lambda mod: calls_t.append(type(mod).__name__))
    assert calls_e == calls_t


def test_deepcopy_and_pickle():
    e = build(ember)
    c = copy.deepcopy(e)
    assert c.seq[0] is c.shared
    c.p.data.add_(5)
    assert e.p.tolist() == [0.0, 0.0, 0.0]
    assert isinstance(c.p, enn.Parameter)
    pickle.loads(pickle.dumps(enn.Linear(2, 2)))


def test_sequential_ops():
    for m in (ember, torch):
        nn = m.nn
        s = nn.Sequential(nn.ReLU(), nn.Identity(), nn.LeakyReLU())
        assert isinstance(s[-1], nn.LeakyReLU)
        assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 2
        s.append(nn.ReLU())
        s.insert(0, nn.Identity())
        assert [type(x).__name__ for x in s] == ['Identity', 'ReLU', 'Identity', 'LeakyReLU', 'ReLU']
        del s[1]
        assert [k for k, _ in s.named_children()] == ['0', '1', '2', '3']
        s2 = s + nn.Sequential(nn.ReLU())
        assert len(s2) == 5
        s.extend([nn.Identity()])
        assert len(s) == 5
        s.pop(0)
        assert len(s) == 4
        od = nn.Sequential(OrderedDict([('c1', nn.ReLU()), ('c2', nn.Identity())]))
        assert [k for k, _ in od.named_children()] == ['c1', 'c2']
    assert repr(ember.nn.Sequential(ember.nn.ReLU())) == repr(torch.nn.Sequential(torch.nn.ReLU()))


def test_module_list_dict_param_containers():
    for m in (ember, torch):
        nn = m.nn
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Identity())
        ml.extend([nn.ReLU()])
        ml.insert(1, nn.LeakyReLU())
        assert [type(x).__name__ for x in ml] == ['ReLU', 'LeakyReLU', 'Identity', 'ReLU']
        assert len(ml[1:]) == 3
        md = nn.ModuleDict({'b': nn.ReLU(), 'a': nn.Identity()})
        assert list(md.keys()) == ['b', 'a']
        md['c'] = nn.ReLU()
        assert 'c' in md and len(md) == 3
        md.pop('b')
        assert list(md) == ['a', 'c']
    def mk(m):
        mod = m.nn.Module()
        mod.pl = m.nn.ParameterList([m.nn.Parameter(m.zeros(2)), m.zeros(3)])
        mod.pd = m.nn.ParameterDict({'foo': m.nn.Parameter(m.zeros(3)), 'bar': m.zeros(1)})
        return mod
    e, t = mk(ember), mk(torch)
    assert list(e.state_dict()) == list(t.state_dict()) == ['pl.0', 'pl.1', 'pd.bar', 'pd.foo']
    assert isinstance(e.pl[1], enn.Parameter)
    assert repr(e) == repr(t)


def test_forward_hooks_order_and_return_values():
    for m in (ember, torch):
        log = []
        lin = m.nn.Linear(2, 2)
        h1 = lin.register_forward_pre_hook(lambda mod, args: log.append('pre1'))
        h2 = lin.register_forward_pre_hook(lambda mod, args: log.append('pre0'), prepend=True)
        h3 = lin.register_forward_hook(lambda mod, args, out: log.append('post'))
        h4 = lin.register_forward_pre_hook(lambda mod, args, kwargs: (args, kwargs), with_kwargs=True)
        h5 = lin.register_forward_hook(lambda mod, args, kwargs, out: out * 0, with_kwargs=True)
        out = lin(m.ones(1, 2))
        assert out.tolist() == [[0.0, 0.0]]
        assert log == ['pre0', 'pre1', 'post']
        for h in (h1, h2, h3, h4, h5):
            h.remove()
        log.clear()
        lin(m.ones(1, 2))
        assert log == []


def test_forward_hook_always_call():
    for m in (ember, torch):
        log = []

        class Bad(m.nn.Module):
            def forward(self, x):
                raise ValueError('boom')
        b = Bad()
        b.register_forward_hook(lambda mod, a, o: log.append('x'), always_call=True)
        with pytest.raises(ValueError):
            b(m.ones(1))
        assert log == ['x']


def test_global_hooks():
    from ember.nn.modules import module as em
    from torch.nn.modules import module as tm
    for mm, m in ((em, ember), (tm, torch)):
        log = []
        h1 = mm.register_module_forward_pre_hook(lambda mod, args: log.append(('pre', type(mod).__name__)))
        h2 = mm.register_module_forward_hook(lambda mod, args, out: log.append(('post', type(mod).__name__)))
        try:
            m.nn.Sequential(m.nn.ReLU())(m.ones(1))
        finally:
            h1.remove()
            h2.remove()
        assert log == [('pre', 'Sequential'), ('pre', 'ReLU'), ('post', 'ReLU'), ('post', 'Sequential')]
    for mm, m in ((em, ember), (tm, torch)):
        seen = []
        hs = [mm.register_module_buffer_registration_hook(lambda mod, n, b: seen.append(('b', n))),
              mm.register_module_module_registration_hook(lambda mod, n, s: seen.append(('m', n))),
              mm.register_module_parameter_registration_hook(lambda mod, n, p: seen.append(('p', n)))]
        try:
            mod = m.nn.Module()
            mod.register_buffer('bb', m.zeros(1))
            mod.sub = m.nn.ReLU()
            mod.pp = m.nn.Parameter(m.zeros(1))
        finally:
            for h in hs:
                h.remove()
        assert seen == [('b', 'bb'), ('m', 'sub'), ('p', 'pp')]


def test_full_backward_hook_seed_42():
    # seed 000: a full backward hook replacing grad_input with 42s
    res = {}
    for m in (ember, torch):
        m.manual_seed(1)
        lin = m.nn.Linear(3, 3)
        x = m.randn(2, 3, requires_grad=True)
        seen = {}

        def hook(mod, gi, go):
            seen['gi'] = [None if g is None else tuple(g.shape) for g in gi]
            seen['go'] = [tuple(g.shape) for g in go]
            return [m.ones_like(g) * 42. for g in gi]
        lin.register_full_backward_hook(hook)
        lin(x).sum().backward()
        res[m.__name__] = (x.grad.tolist(), seen)
    assert res['ember'][0] == [[42.0] * 3] * 2
    assert res['ember'][1] == res['torch'][1]


def test_full_backward_hooks_values_vs_torch():
    w = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    xs = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    out = {}
    for m in (ember, torch):
        lin = m.nn.Linear(2, 3)
        with m.no_grad():
            lin.weight.copy_(m.from_numpy(w.copy()))
        log = []
        lin.register_full_backward_pre_hook(lambda mod, go: log.append(('pre', go[0].sum().item())))
        lin.register_full_backward_hook(lambda mod, gi, go: log.append(('full', None if gi[0] is None else gi[0].sum().item(), go[0].sum().item())))
        x = m.from_numpy(xs.copy()).requires_grad_()
        (lin(x) * 2).sum().backward()
        # inputs not requiring grad: hook still sees grad_output, grad_input (None,)
        lin(m.from_numpy(xs.copy())).sum().backward()
        out[m.__name__] = log
    e, t = out['ember'], out['torch']
    assert len(e) == len(t) and [x[0] for x in e] == [x[0] for x in t]
    for a, b in zip(e, t):
        for u, v in zip(a[1:], b[1:]):
            assert (u is None and v is None) or abs(u - v) < 1e-4


def test_state_dict_hooks_and_extra_state():
    class WithExtra(enn.Module):
        def __init__(self):
            super().__init__()
            self.v = 1

        def get_extra_state(self):
            return {'v': self.v}

        def set_extra_state(self, s):
            self.v = s['v']
    m = WithExtra()
    m.v = 7
    sd = m.state_dict()
    assert sd['_extra_state'] == {'v': 7}
    m2 = WithExtra()
    m2.load_state_dict(sd)
    assert m2.v == 7
    log = []
    lin = enn.Linear(1, 1)
    lin.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append('pre'))
    lin.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append('post'))
    lin.register_load_state_dict_pre_hook(lambda mod, sd, *a: log.append('lpre'))
    lin.register_load_state_dict_post_hook(lambda mod, keys: log.append('lpost'))
    lin.load_state_dict(lin.state_dict())
    assert log == ['pre', 'post', 'lpre', 'lpost']


def test_load_state_dict_assign():
    lin = enn.Linear(2, 2)
    new_w = ember.ones(2, 2)
    lin.load_state_dict({'weight': new_w, 'bias': ember.zeros(2)}, assign=True)
    assert isinstance(lin.weight, enn.Parameter) and lin.weight.requires_grad
    assert lin.weight.data_ptr() == new_w.data_ptr()


def test_lazy_modules():
    m = enn.LazyLinear(4)
    assert isinstance(m.weight, enn.UninitializedParameter)
    y = m(ember.ones(2, 7))
    assert type(m) is enn.Linear and m.weight.shape == (4, 7) and y.shape == (2, 4)
    c = enn.LazyConv2d(5, 3)
    c(ember.ones(1, 2, 6, 6))
    assert type(c) is enn.Conv2d and c.weight.shape == (5, 2, 3, 3) and c.in_channels == 2


def test_skip_init_and_factory_kwargs():
    m = enn.utils.skip_init(enn.Linear, 5, 3)
    assert m.weight.shape == (3, 5)
    h = enn.Linear(5, 3, dtype=ember.half)
    assert h.weight.dtype is ember.float16
    c = enn.Conv2d(1, 2, 3, device='cpu', dtype=ember.float64)
    assert c.weight.dtype is ember.float64


def test_dir_and_get_name():
    lin = enn.Linear(1, 1)
    assert 'weight' in dir(lin) and 'forward' in dir(lin)
    assert lin._get_name() == 'Linear'


def test_user_module_any_signature():
    class Multi(enn.Module):
        def forward(self, a, b=1, *rest, scale=2.0, **kw):
            return {'sum': a + b, 'rest': rest, 'scaled': a * scale, 'kw': kw}
    out = Multi()(ember.ones(1), ember.ones(1), 5, scale=3.0, z=1)
    assert out['sum'].tolist() == [2.0] and out['rest'] == (5,) and out['kw'] == {'z': 1}
    assert out['scaled'].tolist() == [3.0]


# ------------------------------------------------------------------ factory kwargs, to_empty
def _module_classes():
    out = []
    for n in dir(enn):
        c = getattr(enn, n)
        if isinstance(c, type) and issubclass(c, enn.Module) and hasattr(tnn, n):
            out.append(n)
    return out


@pytest.mark.parametrize('name', _module_classes())
def test_every_builtin_module_accepts_factory_kwargs(name):
    import inspect
    tsig = inspect.signature(getattr(tnn, name)).parameters
    esig = inspect.signature(getattr(enn, name)).parameters
    for kw in ('device', 'dtype'):
        assert (kw in esig) == (kw in tsig), (name, kw)


_CTOR_ARGS = {'Linear': (3, 2), 'LazyLinear': (2,), 'Bilinear': (2, 3, 4), 'Embedding': (5, 3)}


def _ctor_args(name):
    if name in _CTOR_ARGS:
        return _CTOR_ARGS[name]
    if name.startswith('LazyConv'):
        return (4, 3)
    if name.startswith('Conv'):
        return (2, 4, 3)
    if 'Norm' in name and name.startswith('Lazy'):
        return ()
    if 'BatchNorm' in name or 'InstanceNorm' in name:
        return (3,)
    return None


@pytest.mark.parametrize('name', [n for n in _module_classes() if _ctor_args(n) is not None])
@pytest.mark.parametrize('dtype', ['float64', 'float16'])
def test_factory_kwargs_build_like_torch(name, dtype):
    args = _ctor_args(name)
    e = getattr(enn, name)(*args, device='cpu', dtype=getattr(ember, dtype))
    t = getattr(tnn, name)(*args, device='cpu', dtype=getattr(torch, dtype))
    es = {k: (str(v.dtype), str(v.device)) for k, v in e.state_dict().items()}
    ts = {k: (str(v.dtype), str(v.device)) for k, v in t.state_dict().items()}
    assert es == ts
    assert type(e).__name__ == type(t).__name__
    e2 = getattr(enn, name)(*args, device=ember.device('meta'))
    assert all(p.is_meta for p in e2.parameters())


def test_to_empty_keeps_parameters_and_allocates():
    lin = enn.Linear(3, 2, device='meta')
    w = lin.weight
    lin.to_empty(device='cpu')
    assert lin.weight is w            # NOTE: torch makes a new Parameter here; ember keeps it
    assert lin.weight.device == ember.device('cpu') and lin.weight.shape == (3 - 1, 3)
    assert isinstance(lin.weight, enn.Parameter) and lin.weight.requires_grad
    lin.reset_parameters()
    assert lin(ember.ones(1, 3)).shape == (1, 2)
    bn = enn.BatchNorm1d(3, device='meta').to_empty(device='cpu', recurse=True)
    assert bn.running_mean.device.type == 'cpu' and bn.num_batches_tracked.dtype is ember.int64


def test_load_errors_leave_module_unchanged_unless_post_hooks():
    lin = enn.Linear(2, 2)
    before = lin.weight.clone()
    with pytest.raises(RuntimeError, match='Missing key'):
        lin.load_state_dict({'weight': ember.ones(2, 2)})
    assert lin.weight.tolist() == before.tolist()
    # a post hook may forgive missing keys: then the load goes through
    lin.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    assert repr(lin.load_state_dict({'weight': ember.ones(2, 2)})) == '<All keys matched successfully>'
    assert lin.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    # size mismatches are always checked before anything is copied
    with pytest.raises(RuntimeError, match='size mismatch'):
        lin.load_state_dict({'weight': ember.zeros(2, 2), 'bias': ember.zeros(3)})
    assert lin.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_load_post_hooks_see_loaded_values():
    seen = []
    lin = enn.Linear(1, 1)
    lin.register_load_state_dict_post_hook(lambda mod, keys: seen.append(mod.weight.item()))
    lin.load_state_dict({'weight': ember.full((1, 1), 3.0), 'bias': ember.zeros(1)})
    assert seen == [3.0]


def test_extra_state_key_suffix_as_torch():
    """``nn.modules.module._EXTRA_STATE_KEY_SUFFIX`` names the extra-state key, as torch's
    (transformers and accelerate build keys from it)."""
    import torch.nn.modules.module as tm
    import ember.nn.modules.module as em
    assert em._EXTRA_STATE_KEY_SUFFIX == tm._EXTRA_STATE_KEY_SUFFIX

    def keys(m):
        class M(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = m.nn.Linear(1, 1)

            def get_extra_state(self):
                return {'step': 3}

            def set_extra_state(self, state):
                self.step = state['step']
        net = m.nn.Sequential(M())
        sd = net.state_dict()
        net.load_state_dict(sd)
        return [k for k in sd if k.endswith(m.nn.modules.module._EXTRA_STATE_KEY_SUFFIX)], \
            net[0].step
    assert keys(ember) == keys(torch)
