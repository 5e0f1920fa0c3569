"""Tensor parallelism on 2 ranks: ``parallelize_module`` with ColwiseParallel /
RowwiseParallel (an MLP, and a transformer block whose attention heads are split across
ranks), SequenceParallel and PrepareModuleInput/Output. Three SGD steps on 2 ranks give the
losses and parameters of the same training in one process (ember's own, checked in each
rank) and in one torch process (the same seeded initial weights, checked here)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

MODEL = r'''
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Attention(nn.Module):
    def __init__(self, d=8, heads=4):
        super().__init__()
        self.hd = d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        B, S, _ = x.shape
        q, k, v = (f(x).view(B, S, -1, self.hd).transpose(1, 2) for f in (self.q, self.k, self.v))
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(B, S, -1))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(8)
        self.attn = Attention()
        self.norm2 = nn.LayerNorm(8)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def train(model, x, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def build(kind):
    torch.manual_seed(0)
    model = MLP() if kind == 'mlp' else Block()
    x = torch.randn(2, 6, 8)
    return model, x
'''

PROG = r'''
import copy, json
import numpy as np
import ember as torch, ember.nn as nn, ember.distributed as dist
from ember.distributed.tensor import DTensor, Shard, Replicate
from ember.distributed.tensor.parallel import (parallelize_module, ColwiseParallel,
    RowwiseParallel, SequenceParallel, PrepareModuleInput, PrepareModuleOutput)
''' + MODEL + r'''
dist.init_process_group('gloo')
mesh = dist.init_device_mesh('cpu', (2,))
R = {}
for kind in ('mlp', 'block'):
    model, x = build(kind)
    ref = copy.deepcopy(model)
    if kind == 'mlp':
        plan = {'fc1': ColwiseParallel(), 'fc2': RowwiseParallel()}
    else:
        plan = {'attn.q': ColwiseParallel(), 'attn.k': ColwiseParallel(),
                'attn.v': ColwiseParallel(), 'attn.o': RowwiseParallel(),
                'mlp.fc1': ColwiseParallel(), 'mlp.fc2': RowwiseParallel()}
    parallelize_module(model, mesh, plan)
    w = model.fc1.weight if kind == 'mlp' else model.mlp.fc1.weight
    assert isinstance(w, DTensor) and w.placements == (Shard(0),)
    assert w.to_local().shape == (8, 8)        # half of the 16 output features
    losses = train(model, x)
    ref_losses = train(ref, x)
    assert np.allclose(losses, ref_losses, rtol=1e-5, atol=1e-6), (losses, ref_losses)
    params = {}
    for (n, p), (n2, q) in zip(model.named_parameters(), ref.named_parameters()):
        assert n == n2
        full = p.full_tensor() if isinstance(p, DTensor) else p
        assert np.allclose(full.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6), n
        params[n] = full.detach().tolist()
    R[kind] = {'losses': losses, 'params': params}

# SequenceParallel + PrepareModuleInput/Output: a LayerNorm on sequence shards, its output
# gathered back; gradients of the replicated LayerNorm parameters are summed over shards
torch.manual_seed(1)
seq = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 8))
ref = copy.deepcopy(seq)
parallelize_module(seq, mesh, {'0': SequenceParallel(),
                               '1': PrepareModuleInput(input_layouts=Shard(1),
                                                       desired_input_layouts=Replicate(),
                                                       use_local_output=True)})
x = torch.randn(2, 6, 8)
r = dist.get_rank()
out = seq(x[:, 3 * r:3 * r + 3])          # each rank passes its sequence shard
assert type(out) is torch.Tensor and out.shape == (2, 6, 8)
out.pow(2).sum().backward()
yref = ref(x)
yref.pow(2).sum().backward()
assert np.allclose(out.detach().numpy(), yref.detach().numpy(), atol=1e-6)
g = seq[0].weight.grad
assert isinstance(g, DTensor) and g.placements == (Replicate(),)
assert np.allclose(g.to_local().numpy(), ref[0].weight.grad.numpy(), atol=1e-5)
pm = PrepareModuleOutput(output_layouts=Replicate(), desired_output_layouts=Shard(0))
m2 = parallelize_module(nn.Identity(), mesh, pm)
o2 = m2(torch.arange(8.).reshape(4, 2))
assert o2.tolist() == torch.arange(8.).reshape(4, 2)[2 * r:2 * r + 2].tolist()
print('RESULT ' + json.dumps(R), flush=True)
'''


def _torch_single_process(kind):
    import torch
    from torch import nn
    ns = {'torch': torch, 'nn': nn}
    exec(MODEL, ns)
    model, x = ns['build'](kind)
    losses = ns['train'](model, x)
    return losses, {n: p.detach().tolist() for n, p in model.named_parameters()}


def test_tensor_parallel_equals_single_process_and_torch():
    outs = run_ranks(PROG, n=2, timeout=90)
    res = [json.loads([ln for ln in o.splitlines() if ln.startswith('RESULT ')][0][7:])
           for o in outs]
    for kind in ('mlp', 'block'):
        losses, params = _torch_single_process(kind)
        for r in res:
            np.testing.assert_allclose(r[kind]['losses'], losses, rtol=1e-5, atol=1e-6)
            assert list(r[kind]['params']) == list(params)
            for n, v in params.items():
                np.testing.assert_allclose(r[kind]['params'][n], v, rtol=1e-4, atol=1e-5,
                                           err_msg=f'{kind} {n}')
