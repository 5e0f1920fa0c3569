"""Profiler overhead (issue: FX, profiler, ONNX): run `python bench/bench_profiler.py`.

Workloads and targets:
- a LeNet5 training step inside a running ``torch.profiler.profile``: <= 1.5x the same
  step unprofiled (ember vs ember; torch's own ratio printed beside it)
- a profiler opened and closed around every step: reported (the op seam switches its
  bindings twice per step)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare, best as _best  # noqa: E402
from bench_layers import _pair, _step_fns, _labels, lenet  # noqa: E402

torch.set_num_threads(1)


def overhead():
    e, t = _pair(lenet)
    x = np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(64, 10), lambda m: m.nn.CrossEntropyLoss())
    for m, step in ((ember, se), (torch, st)):
        step()
        plain = _best(step)
        with m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU]):
            step()
            inside = _best(step)
        tgt = '  (target <= 1.5x)' if m is ember else ''
        print(f"{m.__name__ + ': LeNet5 step in a running profiler':<44} plain={plain * 1e6:9.1f}us"
              f"  profiled={inside * 1e6:9.1f}us  ratio = {inside / plain:5.2f}x{tgt}", flush=True)

    def per_step(m, step):
        def run():
            with m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU]):
                step()
        return run
    compare('LeNet5 step, a profiler opened per step (ember)',
            {'ember': per_step(ember, se), 'plain': se}, ref='plain', number=5, rounds=3)
    compare('LeNet5 step, a profiler opened per step (torch)',
            {'ember': per_step(torch, st), 'plain': st}, ref='plain', number=5, rounds=3)


if __name__ == '__main__':
    overhead()
