"""ember.fft vs torch.fft side by side (issue 7 target: rfft of 2**20 float32 <= 1.5x).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_fft.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _runner import compare  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402

torch.set_num_threads(1)


def main():
    a = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    te, tt = ember.from_numpy(a), torch.from_numpy(a)
    compare('rfft 2^20 float32', {'ember': lambda: ember.fft.rfft(te),
                                  'torch': lambda: torch.fft.rfft(tt)},
            number=5, rounds=5, target=1.5)
    b = np.random.default_rng(1).standard_normal((64, 256)).astype(np.float32)
    be, bt = ember.from_numpy(b), torch.from_numpy(b)
    compare('fft2 64x256 float32', {'ember': lambda: ember.fft.fft2(be),
                                    'torch': lambda: torch.fft.fft2(bt)}, number=20, rounds=5)
    s = np.random.default_rng(2).standard_normal(16000).astype(np.float32)
    se, st = ember.from_numpy(s), torch.from_numpy(s)
    we, wt = ember.hann_window(400), torch.hann_window(400)
    compare('stft 16000 n_fft=400 hop=160', {
        'ember': lambda: ember.stft(se, 400, 160, window=we, return_complex=True),
        'torch': lambda: torch.stft(st, 400, 160, window=wt, return_complex=True)},
        number=20, rounds=5)


if __name__ == '__main__':
    main()
