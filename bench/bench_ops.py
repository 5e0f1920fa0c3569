"""Op-library speed (issue: the rest of the op library): run `python bench/bench_ops.py`.

Workloads and targets (the others of the issue have their own scripts:
bench_fft.py for rfft, bench_linalg.py for cdist, bench_distributions.py for
Normal.log_prob):
- softmax over the last dim of 256x1000 float32, forward + backward: <= 1.5x torch
- log_softmax, the same: <= 1.5x torch
- torch.special.ndtri of 1M probabilities (float32 and float64): reported, no target
  (was ~34x torch before the rational approximation)
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


def softmaxes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 1000)).astype(np.float32)
    g = rng.standard_normal((256, 1000)).astype(np.float32)
    for name in ('softmax', 'log_softmax'):
        ins = {}
        for m in (ember, torch):
            xi = m.tensor(x, requires_grad=True)
            gi = m.tensor(g)
            f = getattr(m, name)

            def step(m=m, xi=xi, gi=gi, f=f):
                xi.grad = None
                f(xi, -1).backward(gi)
            ins[m.__name__] = step
        compare(f'{name} 256x1000 float32, fwd + bwd', ins, number=20, rounds=15, target=1.5)


def ndtri():
    rng = np.random.default_rng(1)
    for dt in (np.float32, np.float64):
        p = rng.random(1 << 20).astype(dt)
        pe, pt = ember.from_numpy(p), torch.from_numpy(p)
        compare(f'special.ndtri 1M {np.dtype(dt).name}',
                {'ember': lambda: ember.special.ndtri(pe),
                 'torch': lambda: torch.special.ndtri(pt)}, number=5, rounds=5)


if __name__ == '__main__':
    softmaxes()
    ndtri()
