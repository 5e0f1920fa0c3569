"""SGD vs torch: identical parameters after N steps on identical models, for every option."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error
sys_path_helper = None


def _model(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(4, 5), m.nn.ReLU(), m.nn.Linear(5, 2))
    rng = np.random.default_rng(0)
    with m.no_grad():
        for p in net.parameters():
            p.copy_(m.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return net


def _train(m, steps, groups=False, closure=False, **kw):
    net = _model(m)
    params = net.parameters() if not groups else [
        {'params': net[0].parameters()}, {'params': net[2].parameters(), 'lr': 0.05, 'momentum': 0.5}]
    opt = m.optim.SGD(params, **kw)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        x = m.from_numpy(rng.standard_normal((6, 4)).astype(np.float32))

        def loss_fn():
            opt.zero_grad()
            loss = (net(x) ** 2).mean()
            loss.backward()
            return loss
        if closure:
            opt.step(loss_fn)
        else:
            loss_fn()
            opt.step()
    return net, opt


@pytest.mark.parametrize('kw', [
    dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.05, momentum=0.8, dampening=0.3), dict(lr=0.1, weight_decay=0.01),
    dict(lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True), dict(lr=0.01, maximize=True),
    dict(lr=0.01, momentum=0.5, maximize=True, weight_decay=0.05), dict(),
])
def test_sgd_matches_torch(kw):
    ne, oe = _train(ember, 6, **kw)
    nt, ot = _train(torch, 6, **kw)
    for pe, pt in zip(ne.parameters(), nt.parameters()):
        np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=1e-5, atol=1e-6)
    se, st = oe.state_dict(), ot.state_dict()
    assert se['param_groups'] == st['param_groups']
    assert list(se['state']) == list(st['state'])
    for k in st['state']:
        assert list(se['state'][k]) == list(st['state'][k])
        for n in st['state'][k]:
            np.testing.assert_allclose(se['state'][k][n].numpy(), st['state'][k][n].numpy(), rtol=1e-5, atol=1e-6)


def test_param_groups_and_closure():
    ne, oe = _train(ember, 4, groups=True, closure=True, lr=0.1, momentum=0.9)
    nt, ot = _train(torch, 4, groups=True, closure=True, lr=0.1, momentum=0.9)
    for pe, pt in zip(ne.parameters(), nt.parameters()):
        np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert oe.state_dict()['param_groups'] == ot.state_dict()['param_groups']
    assert repr(oe) == repr(ot)


def test_step_returns_closure_loss_and_skips_none_grads():
    p = ember.nn.Parameter(ember.ones(2))
    q = ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.SGD([p, q], lr=0.5, momentum=0.9)

    def closure():
        opt.zero_grad()
        loss = (p * 2).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert loss.item() == 4.0
    assert p.tolist() == [0.0, 0.0] and q.tolist() == [1.0, 1.0]
    assert q not in opt.state and 'momentum_buffer' in opt.state[p]
    assert opt.step() is None


def test_momentum_zero_keeps_no_state():
    ne, oe = _train(ember, 2, lr=0.1)
    assert oe.state_dict()['state'] == {}


def test_defaults_and_repr():
    e = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))])
    t = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))])
    assert e.defaults == t.defaults
    assert repr(e) == repr(t)


def test_invalid_values():
    P = lambda m: [m.nn.Parameter(m.ones(1))]  # noqa: E731
    check_error(lambda m: m.optim.SGD(P(m), lr=-1), match='Invalid learning rate: -1')
    check_error(lambda m: m.optim.SGD(P(m), lr=0.1, momentum=-1), match='Invalid momentum value: -1')
    check_error(lambda m: m.optim.SGD(P(m), lr=0.1, weight_decay=-1), match='Invalid weight_decay value: -1')
    check_error(lambda m: m.optim.SGD(P(m), lr=0.1, nesterov=True),
                match='Nesterov momentum requires a momentum and zero dampening')
    check_error(lambda m: m.optim.SGD(P(m), lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
                match='Nesterov momentum requires a momentum and zero dampening')


def test_float64_params_and_tensor_lr():
    for m in (ember, torch):
        p = m.nn.Parameter(m.ones(3, dtype=m.float64))
        opt = m.optim.SGD([p], lr=m.tensor(0.25), momentum=0.5)
        for _ in range(3):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        if m is ember:
            pe = p.detach().numpy()
        else:
            np.testing.assert_allclose(pe, p.detach().numpy())
            assert str(p.dtype) == 'torch.float64'


# --- 20-step trajectories through the shared optimizer harness ---------------------------
from _optim_util import check_against_torch, check_resume_across, check_tensor_lr  # noqa: E402


@pytest.mark.parametrize('kw', [
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
    dict(lr=0.05, momentum=0.9, dampening=0.3, maximize=True), dict(lr=1.0), dict(lr=0.05),
])
def test_20_steps_float32_and_float64(kw):
    check_against_torch('SGD', kw)
    check_against_torch('SGD', kw, dtype='float64', rtol=1e-12, atol=1e-13)


def test_groups_tensor_lr_and_resume_across():
    check_against_torch('SGD', dict(lr=0.05, momentum=0.9), groups=dict(lr=0.01, nesterov=True))
    check_tensor_lr('SGD', dict(lr=0.05, momentum=0.5))
    check_resume_across('SGD', dict(lr=0.05, momentum=0.9, weight_decay=0.01))
