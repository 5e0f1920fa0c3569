"""Helpers for the nn tests: build the same module in ember and torch with equal weights."""
import numpy as np
import torch

import ember


def sync(e, t):
    """Copy torch module ``t``'s parameters and buffers into ember module ``e``."""
    with ember.no_grad():
        for (n1, a), (n2, b) in zip(e.named_parameters(), t.named_parameters()):
            assert n1 == n2
            bb = b.detach()
            bb = bb.float() if bb.dtype == torch.bfloat16 else bb
            a.copy_(ember.from_numpy(bb.numpy().copy()).to(a.dtype))
        for (n1, a), (n2, b) in zip(e.named_buffers(), t.named_buffers()):
            assert n1 == n2
            a.copy_(ember.from_numpy(b.detach().numpy().copy()))
    return e


def pair(factory):
    """``factory(nn)`` under both libraries, with torch's initial weights copied to ember."""
    t = factory(torch.nn)
    e = factory(ember.nn)
    return sync(e, t), t


def run_both(e, t, x, grad=True, rtol=1e-5, atol=1e-5, seed=0):
    """Forward (and backward under a random upstream gradient) of both modules on ``x``
    (a numpy array); compares outputs, input grads and parameter grads."""
    xe = ember.from_numpy(x.copy()).requires_grad_(grad)
    xt = torch.from_numpy(x.copy()).requires_grad_(grad)
    ye, yt = e(xe), t(xt)
    assert tuple(ye.shape) == tuple(yt.shape)
    assert str(ye.dtype) == str(yt.dtype)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    if grad:
        g = np.random.default_rng(seed).standard_normal(tuple(yt.shape)).astype(x.dtype)
        ye.backward(ember.from_numpy(g.copy()))
        yt.backward(torch.from_numpy(g.copy()))
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=atol)
        for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
            if pt.grad is None:
                assert pe.grad is None, n
            else:
                np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=rtol,
                                           atol=atol, err_msg=n)
    return ye, yt
