"""special.ndtri's kernel (Wichura's AS 241 rational approximations, evaluated block by
block: ember/_ops/_special.py) vs torch on inputs spanning several blocks: centre and
both tails, the edges 0/1, values outside [0, 1], nan, non-contiguous and 0-size inputs,
float32 and float64; the branch boundaries |p - 1/2| = 0.425 and r = 5."""
import math

import numpy as np
import pytest
import torch

import ember
from ember._ops import _special


def _probs(n, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    k = n // 4
    p[:k] = 10.0 ** -rng.uniform(1, 300, k)                 # lower tail, to 1e-300
    p[k:2 * k] = 1 - 10.0 ** -rng.uniform(1, 16, k)         # upper tail
    special = [0.0, 1.0, 0.5, -0.25, 1.5, np.nan, np.inf, -np.inf, 5e-324,
               0.075, 0.925, 0.075 + 1e-12, 0.925 - 1e-12, math.exp(-25), 1 - 1e-16]
    idx = rng.choice(n, len(special), replace=False)
    p[idx] = special
    return p


def _rel(a, b):
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(invalid='ignore'):
            return np.where(same, 0.0, np.abs(a - b) / np.maximum(np.abs(b), 1.0))


def test_several_blocks_float64_match_torch():
    n = 3 * _special._NDTRI_BLOCK + 17
    p = _probs(n)
    e = ember.special.ndtri(ember.tensor(p)).numpy(force=True)
    t = torch.special.ndtri(torch.tensor(p)).numpy()
    assert e.dtype == t.dtype == np.float64
    assert _rel(e, t).max() < 1e-13
    assert np.array_equal(np.isnan(e), np.isnan(t))
    assert np.array_equal(np.isinf(e), np.isinf(t))


def test_float32_match_torch():
    p = _probs(50000, seed=1).astype(np.float32)
    e = ember.special.ndtri(ember.tensor(p)).numpy(force=True)
    t = torch.special.ndtri(torch.tensor(p)).numpy()
    assert e.dtype == t.dtype == np.float32
    np.testing.assert_allclose(e, t, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize('make', [lambda a: a.T, lambda a: a[:, ::3], lambda a: a[:0]])
def test_layouts(make):
    a = _probs(4 * 9000, seed=2).reshape(4, 9000)
    te, tt = make(ember.tensor(a)), make(torch.tensor(a))
    e, t = ember.special.ndtri(te), torch.special.ndtri(tt)
    assert tuple(e.shape) == tuple(t.shape)
    assert _rel(e.numpy(force=True), t.numpy()).max() < 1e-13 if t.numel() else True


def test_branch_boundaries_are_continuous():
    # both sides of |p - 1/2| = 0.425 and of r = sqrt(-log p) = 5 (p = e^-25)
    for b in (0.075, 0.925, math.exp(-25)):
        p = np.array([np.nextafter(b, 0), b, np.nextafter(b, 1)])
        e = ember.special.ndtri(ember.tensor(p)).numpy(force=True)
        t = torch.special.ndtri(torch.tensor(p)).numpy()
        assert _rel(e, t).max() < 1e-14
        assert np.all(np.diff(e) >= -4 * np.finfo(float).eps * np.abs(e[1:]))  # no jump
