"""Core speed (issue: Tensor, ops, autograd): run `python bench/bench_core.py`.

Workloads and targets:
- tiny-tensor op dispatch (add/mul of 10 elements, grad off): <= 1.5x torch
- a chain of 8x8 add/mul/matmul: grad off <= 1.0x torch; grad on, forward + sum().backward()
  <= 1.5x torch
- forward + backward of a 1000-op chain (grad on): <= 2x torch
- large pointwise ops (4M elements) and 1024x1024 matmul: within 1.1x of plain NumPy
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


def tiny():
    a, b = ember.ones(10), ember.ones(10)
    ta, tb = torch.ones(10), torch.ones(10)
    compare('add, 10 elements, grad off', {'ember': lambda: a + b, 'torch': lambda: ta + tb},
            number=20000, target=1.5)
    compare('mul, 10 elements, grad off', {'ember': lambda: a * b, 'torch': lambda: ta * tb},
            number=20000, target=1.5)
    compare('add_ in place, 10 elements', {'ember': lambda: a.add_(b), 'torch': lambda: ta.add_(tb)},
            number=20000)


def _chain8(m, a, b, w):
    y = a
    for _ in range(10):
        y = y + b
        y = y * 0.5
        y = y @ w
    return y


def dispatch():
    ea, eb, ew = (ember.rand(8, 8) for _ in range(3))
    ta, tb, tw = (torch.from_numpy(t.numpy()) for t in (ea, eb, ew))
    compare('8x8 add/mul/matmul chain (30 ops), grad off',
            {'ember': lambda: _chain8(ember, ea, eb, ew),
             'torch': lambda: _chain8(torch, ta, tb, tw)}, number=500, target=1.0)
    ga, gw = ea.clone().requires_grad_(), ew.clone().requires_grad_()
    tga, tgw = ta.clone().requires_grad_(), tw.clone().requires_grad_()

    def run(m, a, b, w):
        _chain8(m, a, b, w).sum().backward()
    compare('8x8 chain grad on, fwd + sum().backward()',
            {'ember': lambda: run(ember, ga, eb, gw), 'torch': lambda: run(torch, tga, tb, tgw)},
            number=100, target=1.5)


def chain():
    def run(m):
        x = m.ones(10, requires_grad=True)
        y = x
        for i in range(500):
            y = y * 1.0001
            y = y + 0.5
        y.sum().backward()
    compare('1000-op chain fwd+bwd, grad on', {'ember': lambda: run(ember), 'torch': lambda: run(torch)},
            number=5, rounds=5, target=2.0)


def large():
    n = 4 * 1024 * 1024
    xa = np.random.rand(n).astype(np.float32)
    ya = np.random.rand(n).astype(np.float32)
    ex, ey = ember.from_numpy(xa), ember.from_numpy(ya)
    compare('add, 4M float32 vs numpy', {'ember': lambda: ex + ey, 'numpy': lambda: xa + ya},
            ref='numpy', number=20, target=1.1)
    compare('mul, 4M float32 vs numpy', {'ember': lambda: ex * ey, 'numpy': lambda: xa * ya},
            ref='numpy', number=20, target=1.1)
    compare('exp, 4M float32 vs numpy', {'ember': lambda: ex.exp(), 'numpy': lambda: np.exp(xa)},
            ref='numpy', number=10, target=1.1)
    ma = np.random.rand(1024, 1024).astype(np.float32)
    mb = np.random.rand(1024, 1024).astype(np.float32)
    ea, eb = ember.from_numpy(ma), ember.from_numpy(mb)
    compare('matmul 1024x1024 float32 vs numpy', {'ember': lambda: ea @ eb, 'numpy': lambda: ma @ mb},
            ref='numpy', number=3, rounds=5, target=1.1)


if __name__ == '__main__':
    which = sys.argv[1:] or ['tiny', 'dispatch', 'chain', 'large']
    for w in which:
        globals()[w]()
