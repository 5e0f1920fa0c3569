"""Optimizer base class vs torch: param groups, add_param_group, zero_grad, state_dict /
load_state_dict format and resumption, hooks, errors."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def _params(m, n=3):
    m.manual_seed(0)
    return [m.nn.Parameter(m.ones(i + 1) * (i + 1)) for i in range(n)]


def _grads(ps, m, k=1.0):
    for i, p in enumerate(ps):
        p.grad = m.ones(p.shape) * (i + k)


def test_construction_errors():
    check_error(lambda m: m.optim.SGD(m.nn.Parameter(m.ones(2)), lr=0.1),
                match='params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor')
    check_error(lambda m: m.optim.SGD([], lr=0.1), match='optimizer got an empty parameter list')
    check_error(lambda m: m.optim.SGD([m.ones(2, requires_grad=True) * 1], lr=0.1),
                match="can't optimize a non-leaf Tensor")
    check_error(lambda m: m.optim.SGD([1.0], lr=0.1),
                match='optimizer can only optimize Tensors, but one of the params is float')
    check_error(lambda m: m.optim.SGD([{'params': {m.nn.Parameter(m.ones(1))}}], lr=0.1),
                match='optimizer parameters need to be organized in ordered collections')

    def dup(m):
        p = m.nn.Parameter(m.ones(1))
        return m.optim.SGD([{'params': [p]}, {'params': [p]}], lr=0.1)
    check_error(dup, match='some parameters appear in more than one parameter group')


def test_duplicate_in_group_warns():
    p = ember.nn.Parameter(ember.ones(1))
    with pytest.warns(UserWarning, match='duplicate parameters'):
        ember.optim.SGD([p, p], lr=0.1)


def test_add_param_group():
    for m in (ember, torch):
        ps = _params(m)
        opt = m.optim.SGD(ps[:1], lr=0.1, momentum=0.9)
        opt.add_param_group({'params': ps[1], 'lr': 0.01})
        opt.add_param_group({'params': ps[2:], 'weight_decay': 0.5})
        groups = [{k: v for k, v in g.items() if k != 'params'} for g in opt.param_groups]
        if m is ember:
            ge = groups
            assert all(isinstance(g['params'], list) for g in opt.param_groups)
        else:
            assert ge == groups
    with pytest.raises(ValueError, match='some parameters appear in more than one parameter group'):
        opt2 = ember.optim.SGD(_params(ember)[:1], lr=0.1)
        opt2.add_param_group({'params': opt2.param_groups[0]['params']})


def test_required_default():
    from ember.optim.optimizer import required

    class MyOpt(ember.optim.Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, dict(lr=lr))

        def step(self, closure=None):
            for g in self.param_groups:
                for p in g['params']:
                    p.data.add_(p.grad, alpha=-g['lr'])
    with pytest.raises(ValueError, match="parameter group didn't specify a value of required optimization parameter lr"):
        MyOpt(_params(ember))
    ps = _params(ember)
    o = MyOpt([{'params': ps, 'lr': 0.5}])
    _grads(ps, ember)
    o.step()
    assert ps[0].tolist() == [0.5]


def test_zero_grad():
    ps = _params(ember)
    opt = ember.optim.SGD(ps, lr=0.1)
    _grads(ps, ember)
    opt.zero_grad()
    assert all(p.grad is None for p in ps)
    _grads(ps, ember)
    g0 = ps[0].grad
    opt.zero_grad(set_to_none=False)
    assert ps[0].grad is g0 and all(bool((p.grad == 0).all()) for p in ps)


def _state_dicts(m):
    ps = _params(m)
    opt = m.optim.SGD([{'params': ps[:2]}, {'params': ps[2:], 'lr': 0.01}], lr=0.1, momentum=0.9)
    for k in range(3):
        _grads(ps, m, k + 1)
        opt.step()
    return ps, opt


def test_state_dict_format_matches_torch():
    _, oe = _state_dicts(ember)
    _, ot = _state_dicts(torch)
    se, st = oe.state_dict(), ot.state_dict()
    assert list(se) == list(st) == ['state', 'param_groups']
    assert se['param_groups'] == st['param_groups']
    assert [list(g) for g in se['param_groups']] == [list(g) for g in st['param_groups']]
    assert list(se['state']) == list(st['state']) == [0, 1, 2]
    for k in st['state']:
        np.testing.assert_allclose(se['state'][k]['momentum_buffer'].numpy(),
                                   st['state'][k]['momentum_buffer'].numpy(), rtol=1e-6)
    # the state dict does not alias the optimizer's group dicts
    se['param_groups'][0]['lr'] = 123
    assert oe.param_groups[0]['lr'] == 0.1


def test_load_state_dict_resumes():
    ps, opt = _state_dicts(ember)
    sd = copy.deepcopy(opt.state_dict())
    # continue the original for 2 steps
    for k in range(2):
        _grads(ps, ember, 5 + k)
        opt.step()
    # a fresh optimizer over copies of the earlier parameters resumes identically
    ps2 = _params(ember)
    opt_ref, _ = None, None
    ps_ref, o_ref = _state_dicts(ember)
    with ember.no_grad():
        for a, b in zip(ps2, ps_ref):
            a.copy_(b)
    opt2 = ember.optim.SGD([{'params': ps2[:2]}, {'params': ps2[2:]}], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]['lr'] == 0.01 and opt2.param_groups[0]['momentum'] == 0.9
    assert opt2.param_groups[0]['params'][0] is ps2[0]
    assert ember.equal(opt2.state[ps2[0]]['momentum_buffer'], sd['state'][0]['momentum_buffer'])
    for k in range(2):
        _grads(ps2, ember, 5 + k)
        opt2.step()
    for a, b in zip(ps, ps2):
        assert ember.allclose(a, b)


def test_load_torch_state_dict_and_cast():
    _, ot = _state_dicts(torch)
    st = ot.state_dict()
    ps = [ember.nn.Parameter(ember.ones(i + 1, dtype=ember.float64)) for i in range(3)]
    opt = ember.optim.SGD([{'params': ps[:2]}, {'params': ps[2:]}], lr=0.1)
    sd = {'state': {k: {n: ember.from_numpy(v.numpy().copy()) for n, v in s.items()}
                    for k, s in st['state'].items()},
          'param_groups': st['param_groups']}
    opt.load_state_dict(sd)
    assert opt.state[ps[1]]['momentum_buffer'].dtype == ember.float64   # cast to the param


def test_load_state_dict_errors():
    ps, opt = _state_dicts(ember)
    sd = opt.state_dict()
    o1 = ember.optim.SGD(_params(ember), lr=0.1)
    with pytest.raises(ValueError, match='loaded state dict has a different number of parameter groups'):
        o1.load_state_dict(sd)
    p = _params(ember)
    o2 = ember.optim.SGD([{'params': p[:1]}, {'params': p[1:]}], lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that doesn't match the size of optimizer's group"):
        o2.load_state_dict(sd)


def test_step_hooks():
    calls = []
    ps = _params(ember)
    opt = ember.optim.SGD(ps, lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(('pre', o is opt)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(('post', o is opt)))
    from ember.optim.optimizer import register_optimizer_step_pre_hook
    h3 = register_optimizer_step_pre_hook(lambda o, a, k: calls.append(('global',)))
    _grads(ps, ember)
    opt.step()
    assert calls == [('global',), ('pre', True), ('post', True)]
    for h in (h1, h2, h3):
        h.remove()
    opt.step()
    assert len(calls) == 3


def test_state_dict_and_load_hooks():
    ps, opt = _state_dicts(ember)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append('pre'))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    sd = opt.state_dict()
    assert seen == ['pre'] and sd['extra'] == 1
    opt.register_load_state_dict_pre_hook(lambda o, sd: {k: v for k, v in sd.items() if k != 'extra'})
    opt.register_load_state_dict_post_hook(lambda o: seen.append('loaded'))
    opt.load_state_dict(sd)
    assert seen[-1] == 'loaded'


def test_named_params():
    for m in (ember, torch):
        lin = m.nn.Linear(2, 1)
        opt = m.optim.SGD(lin.named_parameters(), lr=0.1)
        g = opt.state_dict()['param_groups'][0]
        if m is ember:
            ge = g
        else:
            assert ge == g
    assert ge['param_names'] == ['weight', 'bias']


def test_pickle_and_deepcopy():
    ps, opt = _state_dicts(ember)
    o2 = copy.deepcopy(opt)
    assert o2.param_groups[0]['lr'] == 0.1 and len(o2.state) == 3
    o3 = pickle.loads(pickle.dumps(opt))
    assert o3.state_dict()['param_groups'] == opt.state_dict()['param_groups']


# --- seed 004 (customising PyTorch): a user's optimizer subclass runs unchanged ----------

SIMPLE_SGD_SRC = '''
from {lib}.optim import Optimizer
class SimpleSGD(Optimizer):
    def __init__(self, params, lr='required'):
        if lr is not 'required' and lr < 0.0:
            raise ValueError(
                "Invalid learning rate: {{}}".format(lr))
        defaults = dict(lr=lr)
        super(SimpleSGD, self).__init__(
            params, defaults)
    def step(self):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                d_p = p.grad
                p.add_(d_p, alpha=-group['lr'])
        return
'''


def _simple_sgd(m):
    ns = {}
    with warnings.catch_warnings():   # the book's `lr is not 'required'` (SyntaxWarning)
        warnings.simplefilter('ignore', SyntaxWarning)
        exec(SIMPLE_SGD_SRC.format(lib=m.__name__), ns)
    cls = ns['SimpleSGD']
    if m is torch:   # torch runs a subclass's step with grad enabled: the book code raises
        cls.step = torch.no_grad()(cls.step)
    return cls


def test_seed_004_simple_sgd_raises_in_torch_runs_in_ember():
    ns = {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', SyntaxWarning)
        exec(SIMPLE_SGD_SRC.format(lib='torch'), ns)
    p = torch.nn.Parameter(torch.ones(2))
    opt = ns['SimpleSGD']([p], lr=0.5)
    p.grad = torch.ones(2)
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'):
        opt.step()
    pe = ember.nn.Parameter(ember.ones(2))
    opt = _simple_sgd(ember)([pe], lr=0.5)
    pe.grad = ember.ones(2)
    opt.step()
    assert pe.tolist() == [0.5, 0.5] and pe.grad_fn is None and ember.is_grad_enabled()


def _alexnet_like(m):
    torch.manual_seed(0)
    tnet = torch.nn.Module()
    tnet.features = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU())
    tnet.classifier = torch.nn.Linear(6, 2)
    if m is torch:
        return tnet
    enet = ember.nn.Module()
    enet.features = ember.nn.Sequential(ember.nn.Linear(4, 6), ember.nn.ReLU())
    enet.classifier = ember.nn.Linear(6, 2)
    enet.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in tnet.state_dict().items()})
    return enet


def _fit(m, make_opt, steps=5):
    model = _alexnet_like(m)
    optimizer = make_opt(m, model)
    criterion = m.nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        x = m.from_numpy(rng.standard_normal((8, 4)).astype(np.float32))
        y = m.from_numpy(rng.integers(0, 2, 8).astype(np.int64))
        optimizer.zero_grad()
        loss = criterion(model.classifier(model.features(x)), y)
        loss.backward()
        optimizer.step()
    return model, optimizer


SEED_004_OPTIMIZERS = {
    'simple_sgd': lambda m, model: _simple_sgd(m)(model.parameters(), lr=0.001),
    'simple_sgd_groups': lambda m, model: _simple_sgd(m)([
        {'params': model.features.parameters()},
        {'params': model.classifier.parameters(), 'lr': 1e-3}], lr=1e-2),
    'sgd_momentum': lambda m, model: m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
    'sgd_groups': lambda m, model: m.optim.SGD([
        {'params': model.features.parameters()},
        {'params': model.classifier.parameters(), 'lr': 1e-3}], lr=1e-2, momentum=0.9),
}


@pytest.mark.parametrize('name', list(SEED_004_OPTIMIZERS))
def test_seed_004_optimizers(name):
    me, oe = _fit(ember, SEED_004_OPTIMIZERS[name])
    mt, ot = _fit(torch, SEED_004_OPTIMIZERS[name])
    for (k, a), (k2, b) in zip(me.state_dict().items(), mt.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    assert oe.state_dict()['param_groups'] == ot.state_dict()['param_groups']
    assert repr(oe) == repr(ot)


def test_seed_004_simple_sgd_checks_and_hooks():
    SimpleSGD = _simple_sgd(ember)
    with pytest.raises(ValueError, match='Invalid learning rate: -1'):
        SimpleSGD([ember.nn.Parameter(ember.ones(1))], lr=-1)
    p = ember.nn.Parameter(ember.ones(2))
    opt = SimpleSGD([p], lr=0.5)
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    p.grad = ember.ones(2)
    assert opt.step() is None
    assert p.tolist() == [0.5, 0.5] and seen == [1]
    assert opt.state_dict() == {'state': {}, 'param_groups': [{'lr': 0.5, 'params': [0]}]}


def test_adam_state_dict_via_torch_save_and_back(tmp_path):
    """A torch checkpoint of an Adam state loads with ember.load; ember's saved state
    loads with torch.load."""
    tp = [torch.nn.Parameter(torch.ones(3))]
    to = torch.optim.Adam(tp, lr=0.1, amsgrad=True)
    for _ in range(3):
        tp[0].grad = torch.arange(3.0)
        to.step()
    torch.save(to.state_dict(), str(tmp_path / 't.pt'))
    ep = [ember.nn.Parameter(ember.from_numpy(tp[0].detach().numpy().copy()))]
    eo = ember.optim.Adam(ep, lr=0.5)
    eo.load_state_dict(ember.load(str(tmp_path / 't.pt')))
    assert eo.param_groups[0]['lr'] == 0.1 and eo.param_groups[0]['amsgrad'] is True
    assert eo.state[ep[0]]['step'].item() == 3.0
    ember.save(eo.state_dict(), str(tmp_path / 'e.pt'))
    back = torch.load(str(tmp_path / 'e.pt'))
    assert back['param_groups'] == to.state_dict()['param_groups']
    for k, v in to.state_dict()['state'][0].items():
        assert torch.equal(back['state'][0][k], v), k


@pytest.mark.parametrize('cls, kw', [
    ('Adam', dict(lr=0.05, amsgrad=True, weight_decay=0.1)), ('AdamW', {}), ('Adamax', {}),
    ('NAdam', {}), ('RAdam', {}), ('Adagrad', {}), ('Adadelta', {}), ('ASGD', {}), ('Rprop', {}),
    ('RMSprop', dict(centered=True, momentum=0.9)), ('SGD', dict(lr=0.1, momentum=0.9)),
])
def test_complex_parameters_as_torch(cls, kw):
    """Complex parameters are updated as torch does (as pairs of reals)."""
    a = (np.arange(4) + 1j * np.arange(4)[::-1]).astype(np.complex64)
    res = []
    for m in (ember, torch):
        p = m.nn.Parameter(m.from_numpy(a.copy()))
        o = getattr(m.optim, cls)([p], **kw)
        for _ in range(5):
            o.zero_grad()
            (p * p.conj()).real.sum().backward()
            o.step()
        res.append(p.detach().numpy().copy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-5, atol=1e-6)


def test_public_names_and_modules_mirror_torch():
    names = [n for n in torch.optim.__all__ if n not in ('lr_scheduler', 'swa_utils')]
    for n in names:
        e, t = getattr(ember.optim, n), getattr(torch.optim, n)
        assert e.__module__.replace('ember', 'torch') == t.__module__, n
        if isinstance(t, type) and n != 'Optimizer':
            assert issubclass(e, ember.optim.Optimizer)
    for mod in ('lr_scheduler', 'swa_utils'):
        for n in getattr(torch.optim, mod).__all__:
            e = getattr(getattr(ember.optim, mod), n)
            t = getattr(getattr(torch.optim, mod), n)
            assert e.__module__.replace('ember', 'torch') == t.__module__, n


@pytest.mark.parametrize('name', ['SGD', 'Adam', 'AdamW', 'Adamax', 'NAdam', 'RAdam', 'Adagrad',
                                  'Adadelta', 'RMSprop', 'Rprop', 'ASGD', 'SparseAdam',
                                  'Adafactor', 'Muon', 'LBFGS'])
def test_steps_stay_on_the_strict_backend(name):
    """Every optimizer computes with its parameters' array module (never numpy functions
    on tensor data): parameters and state stay strict arrays."""
    from ember._backend import strict_backend as sb
    was = sb.enabled()
    sb.enable()
    try:
        ember.manual_seed(0)
        ps = [ember.nn.Parameter(ember.randn(3, 4)), ember.nn.Parameter(ember.randn(3, 4))]
        kw = {'SGD': dict(momentum=0.9), 'RMSprop': dict(centered=True, momentum=0.9),
              'LBFGS': dict(line_search_fn='strong_wolfe', max_iter=3)}.get(name, {})
        opt = getattr(ember.optim, name)(ps, lr=0.1, **kw)

        def closure():
            opt.zero_grad()
            loss = sum((p * p).sum() for p in ps)
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        assert all(isinstance(p._data, sb.StrictArray) for p in ps)
        for v in opt.state[ps[0]].values():
            if isinstance(v, ember.Tensor) and v.dim() > 0:
                assert isinstance(v._data, sb.StrictArray)
    finally:
        if not was:
            sb.disable()


def test_wrapper_optimizer_without_init_steps_as_torch():
    """A subclass that wraps another optimizer and never calls ``Optimizer.__init__``
    (accelerate's AcceleratedOptimizer) steps as in torch: its own ``step`` is not wrapped
    by the hook machinery (hooks patch a class's step when an instance is initialised), the
    inner optimizer's hooks run once per step."""
    def run(m):
        class Wrapped(m.optim.Optimizer):
            def __init__(self, inner):
                self.optimizer = inner

            @property
            def param_groups(self):
                return self.optimizer.param_groups

            @property
            def defaults(self):
                return self.optimizer.defaults

            def step(self, closure=None):
                return self.optimizer.step(closure)

            def zero_grad(self, set_to_none=True):
                self.optimizer.zero_grad(set_to_none)

        w = m.nn.Parameter(m.tensor([1.0, -2.0]))
        inner = m.optim.SGD([w], lr=0.1, momentum=0.9)
        calls = []
        inner.register_step_pre_hook(lambda o, a, k: calls.append('pre'))
        inner.register_step_post_hook(lambda o, a, k: calls.append('post'))
        opt = Wrapped(inner)
        for _ in range(3):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
        return w.tolist(), calls, getattr(Wrapped.step, '_hooked', False) or getattr(
            Wrapped.step, 'hooked', False)
    (we, ce, he), (wt, ct, ht) = run(ember), run(torch)
    assert ce == ct == ['pre', 'post'] * 3 and he is ht is False
    assert np.allclose(we, wt, rtol=1e-6, atol=0)


def test_step_is_hooked_at_first_instance_as_torch():
    def run(m):
        class Mine(m.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {'lr': 0.1})

            def step(self, closure=None):
                for p in self.param_groups[0]['params']:
                    p.add_(p.grad, alpha=-0.1)

        before = getattr(Mine.step, '_hooked', False) or getattr(Mine.step, 'hooked', False)
        w = m.nn.Parameter(m.ones(2))
        opt = Mine([w])
        after = getattr(Mine.step, '_hooked', False) or getattr(Mine.step, 'hooked', False)
        seen = []
        opt.register_step_post_hook(lambda o, a, k: seen.append(1))
        (w * 3).sum().backward()
        with m.no_grad():
            opt.step()
        return before, after, seen, w.tolist()
    assert run(ember) == run(torch)
