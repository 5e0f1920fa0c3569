"""SummaryWriter.add_scalar overhead, ember vs torch: run
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_tensorboard.py`.

Workloads (each 2000 ``add_scalar`` calls into a fresh writer with default settings, the
writer closed at the end so every event reaches the disk); target <= 1.5x torch:
- a Python float (``loss.item()``)
- a 0-d float32 tensor (``loss`` itself, detached, as training loops pass it)
- a loss tensor that has a ``grad_fn``
- a 0-d tensor with ``new_style=True``
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import torch  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402

import ember  # noqa: E402
from ember.utils.tensorboard import SummaryWriter as EmberWriter  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)
N = 2000


def _loop(writer_cls, value, **kw):
    def run():
        d = tempfile.mkdtemp()
        try:
            w = writer_cls(d)
            for step in range(N):
                w.add_scalar('loss', value, step, **kw)
            w.close()
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return run


def main():
    ratios = []
    for name, tv, ev, kw in (
            ('2000 x add_scalar(python float)', 0.25, 0.25, {}),
            ('2000 x add_scalar(0-d tensor)', torch.tensor(0.25), ember.tensor(0.25), {}),
            ('2000 x add_scalar(loss with grad_fn)',
             (torch.ones(4, requires_grad=True) * 0.25).mean(),
             (ember.ones(4, requires_grad=True) * 0.25).mean(), {}),
            ('2000 x add_scalar(0-d tensor, new_style)', torch.tensor(0.25),
             ember.tensor(0.25), {'new_style': True})):
        ratios.append(compare(name, {'ember': _loop(EmberWriter, ev, **kw),
                                     'torch': _loop(TorchWriter, tv, **kw)},
                              number=1, rounds=5, target=1.5))
    print(f"worst ratio: {max(ratios):.2f}x (target <= 1.5x)")


if __name__ == '__main__':
    main()
