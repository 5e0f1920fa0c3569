"""swa_utils vs torch: AveragedModel (SWA default, EMA avg_fn / multi_avg_fn, use_buffers,
n_averaged), SWALR sequences, update_bn, the averaging-function factories."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import to_np


def _net(m):
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                            torch.nn.Linear(4, 2))
    if m is torch:
        return t
    e = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4), ember.nn.ReLU(),
                            ember.nn.Linear(4, 2))
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    return e


def _data(m, n=6):
    rng = np.random.default_rng(0)
    return [m.from_numpy(rng.standard_normal((5, 3)).astype(np.float32)) for _ in range(n)]


def _train_and_average(m, make_avg, steps=6):
    net = _net(m)
    avg = make_avg(m, net)
    opt = m.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for x in _data(m, steps):
        opt.zero_grad()
        (net(x) ** 2).mean().backward()
        opt.step()
        avg.update_parameters(net)
    return net, avg


def _compare(make_avg, rtol=1e-5, atol=1e-6):
    ne, ae = _train_and_average(ember, make_avg)
    nt, at = _train_and_average(torch, make_avg)
    se, st = ae.state_dict(), at.state_dict()
    assert list(se) == list(st)
    for k in st:
        assert str(se[k].dtype) == str(st[k].dtype), k
        np.testing.assert_allclose(to_np(se[k]), to_np(st[k]), rtol=rtol, atol=atol, err_msg=k)
    x = _data(ember, 1)[0]
    ae.eval(); at.eval()
    np.testing.assert_allclose(to_np(ae(x)), to_np(at(torch.from_numpy(x.numpy()))),
                               rtol=rtol, atol=atol)
    return ae, at


def test_swa_default():
    ae, at = _compare(lambda m, net: m.optim.swa_utils.AveragedModel(net))
    assert int(ae.n_averaged) == 6 and ae.n_averaged.dtype is ember.int64


def test_ema_avg_fn():
    _compare(lambda m, net: m.optim.swa_utils.AveragedModel(
        net, avg_fn=m.optim.swa_utils.get_ema_avg_fn(0.9)))


def test_ema_multi_avg_fn_with_buffers():
    _compare(lambda m, net: m.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=m.optim.swa_utils.get_ema_multi_avg_fn(0.8), use_buffers=True))


def test_swa_fns():
    _compare(lambda m, net: m.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=m.optim.swa_utils.get_swa_multi_avg_fn()))
    _compare(lambda m, net: m.optim.swa_utils.AveragedModel(
        net, avg_fn=m.optim.swa_utils.get_swa_avg_fn(), use_buffers=True))


def test_custom_avg_fn():
    _compare(lambda m, net: m.optim.swa_utils.AveragedModel(
        net, avg_fn=lambda a, p, n: 0.5 * a + 0.5 * p))


def test_averaged_model_is_a_copy():
    net = _net(ember)
    avg = ember.optim.swa_utils.AveragedModel(net)
    assert avg.module is not net and avg.module[0].weight is not net[0].weight
    tnet = _net(torch)
    assert list(avg.state_dict()) == list(torch.optim.swa_utils.AveragedModel(tnet).state_dict())


def test_update_bn():
    res = []
    for m in (torch, ember):
        net = _net(m)
        loader = [(x, 0) for x in _data(m, 4)]
        with m.no_grad():
            net[1].running_mean.fill_(5.0)
        net.eval()
        m.optim.swa_utils.update_bn(loader, net)
        assert not net.training and net[1].momentum == 0.1
        res.append((to_np(net[1].running_mean).copy(), to_np(net[1].running_var).copy(),
                    int(net[1].num_batches_tracked)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5, atol=1e-6)
    assert res[0][2] == res[1][2] == 4
    # a plain iterable of tensors works; a model without BatchNorm is left alone
    ember.optim.swa_utils.update_bn(iter(_data(ember, 2)), _net(ember))
    lin = ember.nn.Linear(3, 2)
    ember.optim.swa_utils.update_bn(_data(ember, 2), lin)


def _swalr_sequence(m, n=100, **kw):
    ps = [m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.ones(2))]
    opt = m.optim.SGD([{'params': ps[:1], 'lr': 0.5}, {'params': ps[1:], 'lr': 0.2}], lr=0.1)
    s = m.optim.swa_utils.SWALR(opt, **kw)
    out = [list(s.get_last_lr())]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for _ in range(n):
            opt.step()
            s.step()
            out.append(list(s.get_last_lr()))
    return out, s


@pytest.mark.parametrize('kw', [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=5),
                                dict(swa_lr=0.05, anneal_strategy='linear', anneal_epochs=3),
                                dict(swa_lr=0.05, anneal_epochs=0),
                                dict(swa_lr=0.05, anneal_epochs=1, anneal_strategy='linear')])
def test_swalr_matches_torch(kw):
    e, se = _swalr_sequence(ember, **kw)
    t, st = _swalr_sequence(torch, **kw)
    assert e == t
    assert sorted(se.state_dict()) == sorted(st.state_dict())


def test_swalr_state_dict():
    _, s = _swalr_sequence(ember, n=3, swa_lr=0.05, anneal_strategy='linear')
    sd = s.state_dict()
    assert 'anneal_func' not in sd and sd['_anneal_strategy'] == 'linear'
    _, s2 = _swalr_sequence(ember, n=0, swa_lr=0.05)
    s2.load_state_dict(sd)
    assert s2.anneal_func(0.25) == 0.25


def test_errors():
    U = lambda m: m.optim.swa_utils  # noqa: E731
    check_error(lambda m: U(m).get_ema_avg_fn(1.5), match='Invalid decay value 1.5 provided')
    check_error(lambda m: U(m).get_ema_multi_avg_fn(-0.1), match='Invalid decay value -0.1 provided')
    check_error(lambda m: U(m).AveragedModel(m.nn.Linear(1, 1), avg_fn=U(m).get_swa_avg_fn(),
                                             multi_avg_fn=U(m).get_swa_multi_avg_fn()),
                match='Only one of avg_fn and multi_avg_fn should be provided')

    def opt(m):
        return m.optim.SGD([m.nn.Parameter(m.ones(1))], lr=0.1)
    check_error(lambda m: U(m).SWALR(opt(m), 0.1, anneal_strategy='exp'),
                match="anneal_strategy must be one of 'cos' or 'linear', instead got exp")
    check_error(lambda m: U(m).SWALR(opt(m), 0.1, anneal_epochs=-1),
                match='anneal_epochs must be equal or greater than 0, got -1')
    check_error(lambda m: U(m).SWALR(opt(m), [0.1, 0.2]),
                match='swa_lr must have the same length as optimizer.param_groups')
