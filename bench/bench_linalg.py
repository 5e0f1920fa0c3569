"""linalg speed (issue 7): run
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_linalg.py`.

Workloads and targets:
- ``torch.cdist`` of 1000x64 vs 1000x64 float32, forward: <= 1.5x torch
- the same, forward + backward (reported)
- ``torch.linalg.matrix_exp`` of a 16x64x64 float64 batch (reported)
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
    a = rng.standard_normal((1000, 64)).astype(np.float32)
    b = rng.standard_normal((1000, 64)).astype(np.float32)
    g = rng.standard_normal((1000, 1000)).astype(np.float32)
    fns = {m.__name__: (lambda m=m: m.cdist(m.tensor(a), m.tensor(b))) for m in (ember, torch)}
    compare('cdist 1000x64 vs 1000x64 f32 fwd', fns, number=10, rounds=5, target=1.5)

    def fb(m):
        x = m.tensor(a, requires_grad=True)
        y = m.tensor(b, requires_grad=True)
        m.cdist(x, y).backward(m.tensor(g))
    compare('cdist 1000x64 f32 fwd+bwd', {'ember': lambda: fb(ember), 'torch': lambda: fb(torch)},
            number=5, rounds=5)
    c = rng.standard_normal((16, 64, 64)) * 0.3
    compare('matrix_exp 16x64x64 f64',
            {m.__name__: (lambda m=m: m.linalg.matrix_exp(m.tensor(c))) for m in (ember, torch)},
            number=5, rounds=5)


if __name__ == '__main__':
    main()
