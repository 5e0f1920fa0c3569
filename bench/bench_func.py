"""torch.func speed (issue: nn.utils, torch.func): run `python bench/bench_func.py`.

Workloads and targets (issue: nn.utils, torch.func):
- a pruned LeNet5 training step (l1_unstructured 30 % on every conv/linear weight, then
  forward, CrossEntropyLoss, backward, SGD step on 64x1x28x28): <= 1.5x torch
- per-sample gradients of a 2-layer MLP over a batch of 64 with
  ``vmap(grad(loss), in_dims=(None, None, 0, 0))`` as in PyTorch's func docs: <= 2x torch
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.utils.prune  # noqa: E402,F401

import ember  # noqa: E402
import ember.nn.utils.prune  # noqa: E402,F401
from _runner import compare  # noqa: E402

torch.set_num_threads(1)


def _setup(m):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(32, 64), m.nn.ReLU(), m.nn.Linear(64, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def loss(p, b, x, y):
        out = m.func.functional_call(model, (p, b), (x.unsqueeze(0),))
        return m.nn.functional.cross_entropy(out, y.unsqueeze(0))

    per_sample = m.func.vmap(m.func.grad(loss), in_dims=(None, None, 0, 0))
    rng = np.random.default_rng(0)
    x = m.tensor(rng.standard_normal((64, 32)).astype(np.float32))
    y = m.tensor(rng.integers(0, 10, 64))
    return lambda: per_sample(params, buffers, x, y)


def per_sample_grads():
    fe, ft = _setup(ember), _setup(torch)
    ge, gt = fe(), ft()
    for k in gt:
        np.testing.assert_allclose(ge[k].numpy(), gt[k].numpy(), rtol=1e-4, atol=1e-5)
    compare('per-sample grads, vmap(grad) MLP 32-64-10, batch 64', {'ember': fe, 'torch': ft},
            number=20, target=2.0)


def pruned_lenet():
    from bench_layers import _pair, _step_fns, _labels, lenet
    e, t = _pair(lenet)
    for m, model in ((ember, e), (torch, t)):
        for layer in model:
            if isinstance(layer, (m.nn.Conv2d, m.nn.Linear)):
                m.nn.utils.prune.l1_unstructured(layer, 'weight', amount=0.3)
    x = np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(64, 10), lambda m: m.nn.CrossEntropyLoss())
    compare('pruned LeNet5 train step 64x1x28x28', {'ember': se, 'torch': st}, number=5,
            rounds=5, target=1.5)


if __name__ == '__main__':
    pruned_lenet()
    per_sample_grads()
