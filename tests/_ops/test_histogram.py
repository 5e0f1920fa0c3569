"""Histograms against torch on data that lands on bin edges (rational grids, float32 and
float64): bin edges bit-equal (they are ``linspace``, which torch rounds once per value, as a
fused multiply-add), counts equal for histc, histogram (int and tensor bins, range, weight,
density) and histogramdd."""
import numpy as np
import torch

import ember


def _data(rng, trial, dt):
    n = int(rng.integers(1, 200))
    kind = trial % 4
    if kind == 0:
        x = rng.standard_normal(n)
    elif kind == 1:
        x = rng.integers(-5, 6, n) / rng.integers(1, 8)
    elif kind == 2:
        x = np.arange(n) / rng.integers(1, 13)
    else:
        x = rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-3, 4)
    return x.astype(dt)


def test_random_data_on_edges():
    rng = np.random.default_rng(0)
    for trial in range(120):
        dt = np.float32 if trial % 2 else np.float64
        x = _data(rng, trial, dt)
        bins = int(rng.integers(1, 40))
        kw = {}
        if trial % 3 == 0:
            lo = float(rng.uniform(-2, 0))
            kw['range'] = (lo, lo + float(rng.uniform(0.1, 3)))
        w = rng.uniform(0, 1, x.shape[0]).astype(dt) if trial % 5 == 0 else None
        dens = trial % 7 == 0
        t = torch.histogram(torch.from_numpy(x), bins, weight=None if w is None else
                            torch.from_numpy(w), density=dens, **kw)
        e = ember.histogram(ember.from_numpy(x), bins, weight=None if w is None else
                            ember.from_numpy(w), density=dens, **kw)
        np.testing.assert_array_equal(e.bin_edges.numpy(), t.bin_edges.numpy())
        np.testing.assert_allclose(e.hist.numpy(), t.hist.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(ember.histc(ember.from_numpy(x), bins).numpy(),
                                      torch.histc(torch.from_numpy(x), bins).numpy())
        X = x[:(x.shape[0] // 2) * 2].reshape(-1, 2)
        if X.size:
            td = torch.histogramdd(torch.from_numpy(X), [bins, bins + 1])
            ed = ember.histogramdd(ember.from_numpy(X), [bins, bins + 1])
            np.testing.assert_array_equal(ed.hist.numpy(), td.hist.numpy())
            for a, b in zip(ed.bin_edges, td.bin_edges):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
            tb = torch.linspace(-1, 1, bins + 1, dtype=td.hist.dtype)
            eb = ember.from_numpy(tb.numpy())
            np.testing.assert_array_equal(
                ember.histogramdd(ember.from_numpy(X), [eb, eb]).hist.numpy(),
                torch.histogramdd(torch.from_numpy(X), [tb, tb]).hist.numpy())


def test_linspace_rounds_like_torch():
    rng = np.random.default_rng(1)
    for t in range(300):
        s = float(rng.standard_normal() * 10)
        e = s + float(rng.uniform(-20, 20))
        n = int(rng.integers(0, 300))
        for tdt, edt in ((torch.float32, ember.float32), (torch.float64, ember.float64)):
            np.testing.assert_array_equal(ember.linspace(s, e, n, dtype=edt).numpy(),
                                          torch.linspace(s, e, n, dtype=tdt).numpy())
