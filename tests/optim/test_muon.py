"""Muon vs torch: momentum, Nesterov, weight decay, lr adjustment; the bfloat16
Newton-Schulz orthogonalization rounds where torch's does (bit-equal on equal inputs)."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import to_np


def _run(m, steps=5, **kw):
    torch.manual_seed(0)
    w = torch.randn(6, 4).numpy() * 0.5
    p = m.nn.Parameter(m.from_numpy(w.copy()))
    opt = m.optim.Muon([p], **kw)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        x = m.from_numpy(rng.standard_normal((8, 4)).astype(np.float32))
        opt.zero_grad()
        ((x @ p.T) ** 2).mean().backward()
        opt.step()
    return w, p, opt


@pytest.mark.parametrize('kw', [dict(lr=0.02), dict(lr=0.02, nesterov=False, momentum=0.9),
                                dict(lr=0.02, weight_decay=0.0, adjust_lr_fn='match_rms_adamw'),
                                dict(lr=0.02, ns_steps=3, adjust_lr_fn='original')])
def test_matches_torch(kw):
    w, pe, oe = _run(ember, **kw)
    _, pt, ot = _run(torch, **kw)
    de, dt = to_np(pe) - w, to_np(pt) - w
    # the bfloat16 Newton-Schulz rounding points are torch's: the updates agree closely
    np.testing.assert_allclose(de, dt, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(oe.state[pe]['momentum_buffer'].numpy(),
                               ot.state[pt]["momentum_buffer"].numpy(), rtol=1e-5, atol=1e-6)
    assert oe.state_dict()['param_groups'] == ot.state_dict()['param_groups']
    assert repr(oe) == repr(ot)


def test_newton_schulz_bit_equal():
    from ember.optim._muon import _orthogonalize
    from torch.optim._muon import _zeropower_via_newtonschulz
    for seed, shape in [(0, (6, 4)), (1, (3, 7)), (2, (5, 5))]:
        a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        c = (3.4445, -4.775, 2.0315)
        ot = _zeropower_via_newtonschulz(torch.from_numpy(a), c, 5, 1e-7).float().numpy()
        assert np.array_equal(_orthogonalize(a, c, 5, 1e-7), ot)


def test_orthogonalizes():
    w, p, opt = _run(ember, steps=1, lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False)
    d = (w - to_np(p)) / np.sqrt(6 / 4)
    s = np.linalg.svd(d, compute_uv=False)
    assert np.all(np.abs(s - 1) < 0.35)   # quintic Newton-Schulz: singular values near 1


def test_errors():
    P = lambda m: [m.nn.Parameter(m.ones(2, 2))]  # noqa: E731
    check_error(lambda m: m.optim.Muon(P(m), lr=-1.0), match='Learning rate should be >= 0 but is: -1.0')
    check_error(lambda m: m.optim.Muon(P(m), momentum=-1.0), match='momentum should be >= 0 but is: -1.0')
    check_error(lambda m: m.optim.Muon(P(m), weight_decay=-1.0),
                match='weight decay should be >= 0 but is: -1.0')
    check_error(lambda m: m.optim.Muon(P(m), adjust_lr_fn='x'),
                match='Adjust learning rate function x is not supported')
    check_error(lambda m: m.optim.Muon([m.nn.Parameter(m.ones(3))]),
                match='Muon only supports 2D parameters whereas we found a parameter with size: torch.Size([3])')
