"""nn.Module speed (issue: Module, state_dict, save/load): `python bench/bench_nn.py`.

- module call overhead: 20-layer Sequential of Linear(16, 16), batch 1, forward: <= 2x torch
- state_dict() + load_state_dict() of a 100-parameter model: <= 2x torch
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)


def seq20(m):
    return m.nn.Sequential(*[m.nn.Linear(16, 16) for _ in range(20)])


def call_overhead():
    e, t = seq20(ember), seq20(torch)
    xe, xt = ember.randn(1, 16), torch.randn(1, 16)
    with ember.no_grad(), torch.no_grad():
        compare('Sequential(20 x Linear(16,16)) fwd, no_grad', {'ember': lambda: e(xe), 'torch': lambda: t(xt)},
                number=500, target=2.0)
    compare('Sequential(20 x Linear(16,16)) fwd, grad on', {'ember': lambda: e(xe), 'torch': lambda: t(xt)},
            number=500, target=2.0)


def state_dict():
    def model(m):
        return m.nn.Sequential(*[m.nn.Linear(8, 8) for _ in range(50)])   # 100 parameters
    e, t = model(ember), model(torch)
    sde, sdt = e.state_dict(), t.state_dict()

    def re():
        e.load_state_dict(e.state_dict())

    def rt():
        t.load_state_dict(t.state_dict())
    compare('state_dict()+load_state_dict(), 100 params', {'ember': re, 'torch': rt}, number=50, target=2.0)


if __name__ == '__main__':
    for w in (sys.argv[1:] or ['call_overhead', 'state_dict']):
        globals()[w]()
