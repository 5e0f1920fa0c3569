"""FlopCounterMode overhead and the cost of an empty Timer measurement, ember vs torch:
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_flop_counter.py`.

- a LeNet5 training step inside a running ``FlopCounterMode``: reported as the ratio to the
  same step uncounted, for ember and torch side by side;
- ``Timer('x + y').timeit(1000)`` on small tensors, ember vs torch.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.utils.benchmark as TB  # noqa: E402
import torch.utils.flop_counter as TFC  # noqa: E402

import ember  # noqa: E402
import ember.utils.benchmark as EB  # noqa: E402
import ember.utils.flop_counter as EFC  # noqa: E402
from _runner import compare, best as _best  # noqa: E402
from bench_layers import _pair, _step_fns, _labels, lenet  # noqa: E402

torch.set_num_threads(1)


def counter_overhead():
    e, t = _pair(lenet)
    x = np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(64, 10), lambda m: m.nn.CrossEntropyLoss())
    for name, step, M in (('ember', se, EFC.FlopCounterMode), ('torch', st, TFC.FlopCounterMode)):
        step()
        plain = _best(step)
        with M(display=False) as fc:
            step()
            inside = _best(step)
        print(f"{name + ': LeNet5 step in a FlopCounterMode':<44} plain={plain * 1e6:9.1f}us"
              f"  counted={inside * 1e6:9.1f}us  ratio={inside / plain:5.2f}x"
              f"  flops/step={fc.get_total_flops() // 26}", flush=True)


def timer_cost():
    xe, ye = ember.ones(8), ember.ones(8)
    xt, yt = torch.ones(8), torch.ones(8)
    compare('Timer("x + y").timeit(1000)', {
        'ember': lambda: EB.Timer('x + y', globals={'x': xe, 'y': ye}).timeit(1000),
        'torch': lambda: TB.Timer('x + y', globals={'x': xt, 'y': yt}).timeit(1000)},
        number=3, rounds=5)


if __name__ == '__main__':
    counter_overhead()
    timer_cost()
