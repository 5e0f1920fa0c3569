"""Helpers for the optimizer tests: identical small models in ember and torch, trained
side by side, and state-dict conversion between the two libraries."""
import numpy as np
import torch

import ember


def model(m, dtype='float32'):
    """A small MLP with torch's weights (same seed in both libraries, then copied)."""
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    if m is torch:
        return t.to(getattr(torch, dtype))
    e = ember.nn.Sequential(ember.nn.Linear(4, 5), ember.nn.Tanh(), ember.nn.Linear(5, 3))
    e = e.to(getattr(ember, dtype))
    with ember.no_grad():
        for pe, pt in zip(e.parameters(), t.parameters()):
            pe.copy_(ember.from_numpy(pt.detach().numpy().astype(dtype)))
    return e


def batches(m, n, dtype='float32'):
    rng = np.random.default_rng(1)
    return [(m.from_numpy(rng.standard_normal((6, 4)).astype(dtype)),
             m.from_numpy(rng.standard_normal((6, 3)).astype(dtype))) for _ in range(n)]


def params_of(net, groups):
    if not groups:
        return net.parameters()
    return [{'params': net[0].parameters()}, dict(groups, params=net[2].parameters())]


def train(m, cls_name, steps=20, groups=None, kw=None, net=None, opt=None, start=0,
          dtype='float32', closure=False):
    """Train ``steps`` steps (batches ``start`` ..) and return (net, optimizer)."""
    kw = dict(kw or {})
    if 'lr' in kw and isinstance(kw['lr'], tuple):   # ('tensor', value): a 0-dim tensor lr
        kw['lr'] = m.tensor(kw['lr'][1])
    net = net if net is not None else model(m, dtype)
    opt = opt if opt is not None else getattr(m.optim, cls_name)(params_of(net, groups), **kw)
    data = batches(m, start + steps, dtype)[start:]
    for x, y in data:
        def loss_fn():
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            return loss
        if closure:
            opt.step(loss_fn)
        else:
            loss_fn()
            opt.step()
    return net, opt


def to_np(v):
    if isinstance(v, (torch.Tensor, ember.Tensor)):
        return v.detach().numpy()
    return v


def assert_params_close(ne, nt, rtol=2e-5, atol=2e-6):
    for pe, pt in zip(ne.parameters(), nt.parameters()):
        np.testing.assert_allclose(to_np(pe), to_np(pt), rtol=rtol, atol=atol)


def assert_state_close(se, st, rtol=2e-5, atol=2e-6):
    """Optimizer state dicts equal: groups, keys, value types, dtypes and values."""
    assert se['param_groups'] == st['param_groups']
    assert list(se['state']) == list(st['state'])
    for k in st['state']:
        a, b = se['state'][k], st['state'][k]
        assert list(a) == list(b), (list(a), list(b))
        for n in b:
            _assert_value_close(a[n], b[n], rtol, atol)


def _assert_value_close(a, b, rtol, atol):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, ember.Tensor), (type(a), type(b))
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        bn = b.numpy()
        scale = max(1.0, float(np.abs(bn).max())) if bn.size else 1.0   # round-off of big terms
        np.testing.assert_allclose(a.numpy(), bn, rtol=rtol, atol=atol * scale)
    elif isinstance(b, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_value_close(x, y, rtol, atol)
    elif isinstance(b, float):
        assert abs(a - b) <= atol + rtol * abs(b)
    else:
        assert a == b and type(a) is type(b), (a, b)


def convert(sd, to):
    """Convert a state dict's tensors to library ``to`` (ember or torch) through NumPy."""
    def conv(v):
        if isinstance(v, (torch.Tensor, ember.Tensor)):
            return to.from_numpy(v.detach().numpy().copy())
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        return v
    return conv(sd)


def check_against_torch(cls_name, kw, steps=20, groups=None, rtol=2e-5, atol=2e-6,
                        dtype='float32', closure=False):
    ne, oe = train(ember, cls_name, steps, groups, kw, dtype=dtype, closure=closure)
    nt, ot = train(torch, cls_name, steps, groups, kw, dtype=dtype, closure=closure)
    assert_params_close(ne, nt, rtol, atol)
    assert_state_close(oe.state_dict(), ot.state_dict(), rtol, atol)
    return oe, ot


def check_resume_across(cls_name, kw, groups=None, rtol=2e-5, atol=2e-6, first=8, then=8):
    """A torch state dict after ``first`` steps loads into ember, which continues like
    torch; and an ember state dict loads into torch the same way."""
    nt, ot = train(torch, cls_name, first, groups, kw)
    nt_full, ot_full = train(torch, cls_name, then, groups, kw, net=nt, opt=ot, start=first)
    for src, dst in ((torch, ember), (ember, torch)):
        n0, o0 = train(src, cls_name, first, groups, kw)
        n1 = model(dst)
        with dst.no_grad():
            for p1, p0 in zip(n1.parameters(), n0.parameters()):
                p1.copy_(dst.from_numpy(to_np(p0).copy()))
        o1 = getattr(dst.optim, cls_name)(params_of(n1, groups), **(kw or {}))
        o1.load_state_dict(convert(o0.state_dict(), dst))
        n1, o1 = train(dst, cls_name, then, groups, kw, net=n1, opt=o1, start=first)
        assert_params_close(n1, nt_full, rtol, atol)


def one_param(m, dtype=None):
    return [m.nn.Parameter(m.ones(2) if dtype is None else m.ones(2, dtype=dtype))]


def check_defaults_and_repr(cls_name, **kw):
    """Defaults dict, param group contents and repr equal torch's."""
    e = getattr(ember.optim, cls_name)(one_param(ember), **kw)
    t = getattr(torch.optim, cls_name)(one_param(torch), **kw)
    assert e.defaults == t.defaults
    assert e.state_dict()['param_groups'] == t.state_dict()['param_groups']
    assert repr(e) == repr(t)


def check_tensor_lr(cls_name, kw, steps=10, rtol=2e-5, atol=2e-6):
    """``lr`` as a 0-dim tensor gives the same trajectory as a float."""
    kw = dict(kw)
    lr = kw.pop('lr', 0.01)
    ne, _ = train(ember, cls_name, steps, None, dict(kw, lr=('tensor', lr)))
    nt, _ = train(torch, cls_name, steps, None, dict(kw, lr=('tensor', lr)))
    assert_params_close(ne, nt, rtol, atol)


def check_save_load_file(cls_name, kw, tmp_path):
    """A state dict saved by torch.save loads with ember.load into ember's optimizer."""
    nt, ot = train(torch, cls_name, 5, None, kw)
    path = str(tmp_path / 'opt.pt')
    torch.save(ot.state_dict(), path)
    sd = ember.load(path)
    ne = model(ember)
    with ember.no_grad():
        for p1, p0 in zip(ne.parameters(), nt.parameters()):
            p1.copy_(ember.from_numpy(to_np(p0).copy()))
    oe = getattr(ember.optim, cls_name)(ne.parameters(), **kw)
    oe.load_state_dict(sd)
    assert_state_close(oe.state_dict(), ot.state_dict(), 0, 0)
    train(ember, cls_name, 5, None, kw, net=ne, opt=oe, start=5)
    train(torch, cls_name, 5, None, kw, net=nt, opt=ot, start=5)
    assert_params_close(ne, nt)
