"""Histograms, LDL and LOBPCG side by side with torch (no targets in the issue; reported):
run `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_hist_ldl.py`.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1_000_000).astype(np.float32)
    tx, ex = torch.from_numpy(x), ember.from_numpy(x)
    compare('histogram 1M float32, 100 bins', {
        'torch': lambda: torch.histogram(tx, 100), 'ember': lambda: ember.histogram(ex, 100)},
        number=3, rounds=3)
    tb, eb = torch.linspace(-3, 3, 101), ember.linspace(-3, 3, 101)
    compare('histogram 1M float32, tensor bins', {
        'torch': lambda: torch.histogram(tx, tb), 'ember': lambda: ember.histogram(ex, eb)},
        number=3, rounds=3)
    compare('histc 1M float32, 100 bins', {
        'torch': lambda: torch.histc(tx, 100), 'ember': lambda: ember.histc(ex, 100)},
        number=3, rounds=3)
    t2, e2 = tx.reshape(-1, 2), ex.reshape(-1, 2)
    compare('histogramdd 500k x 2, 20x20 bins', {
        'torch': lambda: torch.histogramdd(t2, [20, 20]),
        'ember': lambda: ember.histogramdd(e2, [20, 20])}, number=3, rounds=3)
    for n in (32, 128):
        a = rng.standard_normal((n, n))
        a = a + a.T
        ta, ea = torch.from_numpy(a), ember.from_numpy(a)
        compare(f'linalg.ldl_factor {n}x{n} float64', {
            'torch': lambda: torch.linalg.ldl_factor(ta),
            'ember': lambda: ember.linalg.ldl_factor(ea)}, number=5, rounds=3)
    m = 200
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    A = (q * np.linspace(1, 10, m)) @ q.T
    X = rng.standard_normal((m, 3))
    tA, eA, tX, eX = torch.tensor(A), ember.tensor(A), torch.tensor(X), ember.tensor(X)
    compare('lobpcg 200x200 float64, k=3', {
        'torch': lambda: torch.lobpcg(tA, k=3, X=tX),
        'ember': lambda: ember.lobpcg(eA, k=3, X=eX)}, number=2, rounds=3)


if __name__ == '__main__':
    main()
