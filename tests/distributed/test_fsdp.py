"""FSDP2 ``fully_shard`` on 2 and 4 ranks: each rank trains on its share of every batch; after three
Adam steps with gradient-norm clipping (norms of sharded gradients) the gathered parameters
equal single-process training (ember's, checked in each
rank, and torch's, checked here), with and without ``reshard_after_forward``; each rank holds
about 1/world of the parameters and of the optimizer state; gradient accumulation with
``set_requires_gradient_sync(False)`` gives the single-process accumulated gradients."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

MODEL = r'''
def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 7), nn.GELU(),
                          nn.Linear(7, 3))
    x = torch.randn(8, 6)
    y = torch.randn(8, 3)
    return model, x, y


def train(model, x, y, steps=3):
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        losses.append(loss.item())
    return losses, opt
'''

PROG = r'''
import copy, json
import numpy as np
import ember as torch, ember.nn as nn, ember.distributed as dist
from ember.distributed.fsdp import fully_shard, FSDPModule
from ember.distributed.tensor import DTensor, Shard
''' + MODEL + r'''
import warnings
warnings.filterwarnings('error', message='DTensor: no sharding rule')   # no op falls back
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
R = {}
for reshard in (True, False):
    model, x, y = build()
    ref = copy.deepcopy(model)
    total = sum(p.numel() for p in model.parameters())
    for layer in (model[0], model[2], model[4]):
        fully_shard(layer, reshard_after_forward=reshard)
    fully_shard(model, reshard_after_forward=reshard)
    assert isinstance(model, FSDPModule) and type(model[0]).__name__ == 'FSDPLinear'
    assert all(isinstance(p, DTensor) and p.placements == (Shard(0),)
               for p in model.parameters())
    b = x.shape[0] // n
    losses, opt = train(model, x[r * b:(r + 1) * b], y[r * b:(r + 1) * b])
    ref_losses, _ = train(ref, x, y)
    full = {k: p.full_tensor().detach() for k, p in model.named_parameters()}
    for k, q in ref.named_parameters():
        assert np.allclose(full[k].numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6), k
    mine = sum(p.to_local().numel() for p in model.parameters())
    state = sum(v.numel() for s in opt.state.values() for v in s.values()
                if isinstance(v, torch.Tensor) and v.dim())
    R[str(reshard)] = {'params': {k: v.tolist() for k, v in full.items()},
                       'local_fraction': mine / total, 'state_fraction': state / (2 * total),
                       'grad_is_dtensor': isinstance(model[0].weight.grad, DTensor)}
print(f'rank {r}: holds {mine} of {total} parameter elements, {state} of {2 * total} Adam '
      'state elements', flush=True)

# gradient accumulation: micro-batch 1 without gradient sync, micro-batch 2 with it
model, x, y = build()
ref = copy.deepcopy(model)
for layer in (model[0], model[2], model[4]):
    fully_shard(layer)
fully_shard(model)
h = x.shape[0] // 2           # micro-batch k is rows [k*h, (k+1)*h); rank r takes its half
b = h // n
for k, sync in ((0, False), (1, True)):
    model.set_requires_gradient_sync(sync)
    rows = slice(k * h + r * b, k * h + (r + 1) * b)
    nn.functional.mse_loss(model(x[rows]), y[rows]).backward()
    if not sync:
        assert all(p.grad is None for p in model.parameters())
    nn.functional.mse_loss(ref(x[k * h:(k + 1) * h]), y[k * h:(k + 1) * h]).backward()
for (k_, p), q in zip(model.named_parameters(), ref.parameters()):
    assert np.allclose(p.grad.full_tensor().numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7), k_
print('RESULT ' + json.dumps(R), flush=True)
'''


def _torch_reference():
    import torch
    from torch import nn
    ns = {'torch': torch, 'nn': nn}
    exec(MODEL, ns)
    model, x, y = ns['build']()
    ns['train'](model, x, y)
    return {k: p.detach().tolist() for k, p in model.named_parameters()}


@pytest.mark.parametrize('n', [2, 4])
def test_fully_shard_training_equals_single_process(n):
    outs = run_ranks(PROG, n=n, timeout=120)
    ref = _torch_reference()
    fractions = []
    for o in outs:
        res = json.loads([ln for ln in o.splitlines() if ln.startswith('RESULT ')][0][7:])
        for reshard, d in res.items():
            assert list(d['params']) == list(ref)
            for k, v in ref.items():
                np.testing.assert_allclose(d['params'][k], v, rtol=1e-5, atol=1e-6,
                                           err_msg=f'reshard={reshard} {k}')
            assert d['grad_is_dtensor']
            fractions.append((d['local_fraction'], d['state_fraction']))
    # rows split as torch.chunk splits them (5/5, 4/3, 2/1 on 2 ranks): about 1/n each, and
    # the Adam state alike
    for f, s in fractions:
        assert abs(f - 1 / n) < 0.6 / n and abs(f - s) < 1e-12, fractions
    assert abs(sum(f for f, _ in fractions) - 2) < 1e-9      # both reshard settings


FORWARD_METHOD = r'''
import copy
import ember as torch, ember.nn as nn, ember.distributed as dist
import ember.nn.functional as F
from ember.distributed.fsdp import fully_shard, register_fsdp_forward_method
from ember.distributed._composable.fsdp import fully_shard as old_fully_shard
assert old_fully_shard is fully_shard
dist.init_process_group('gloo')
torch.manual_seed(0)
lin = nn.Linear(4, 4, dtype=torch.float64)
ref = copy.deepcopy(lin)
x = torch.randn(3, 4, dtype=torch.float64)
register_fsdp_forward_method(lin, 'missing')       # not an FSDPModule yet: nothing happens
fully_shard(lin)


def twice(v):          # uses the parameters without going through forward
    return F.linear(F.linear(v, lin.weight, lin.bias), lin.weight, lin.bias)


lin.twice = twice
try:
    lin.twice(x)                # the sharded parameters cannot meet a plain tensor
    raise AssertionError('no error')
except RuntimeError as e:
    assert 'mixed' in str(e), e
register_fsdp_forward_method(lin, 'twice')
out = lin.twice(x)
out.square().sum().backward()
exp = F.linear(F.linear(x, ref.weight, ref.bias), ref.weight, ref.bias)
exp.square().sum().backward()
assert torch.allclose(out, exp), (out, exp)
assert torch.allclose(lin.weight.grad.full_tensor(), ref.weight.grad)
assert type(lin.weight).__name__ == 'DTensor'     # resharded after the method
try:
    register_fsdp_forward_method(lin, 'nope')
    raise AssertionError('no error')
except ValueError as e:
    assert 'does not have a method nope' in str(e), e
print('ok', flush=True)
'''


def test_register_fsdp_forward_method():
    """A method other than forward gathers the parameters when registered (gradients
    reduce-scattered as for forward), as torch's register_fsdp_forward_method."""
    outs = run_ranks(FORWARD_METHOD, n=2, timeout=60)
    for o in outs:
        assert o.strip().splitlines()[-1] == 'ok', o


def test_fsdp_module_paths_and_enums_match_torch():
    """The FSDP names libraries import: the older ``_composable.fsdp`` path gives the same
    objects; the FSDP1 option enums have torch's members and values; the FSDP1 class exists
    for ``isinstance`` checks and needs a process group to build."""
    import torch.distributed.fsdp as tf
    import ember
    import ember.distributed.fsdp as ef
    from ember.distributed._composable import fsdp as old
    from ember.distributed._composable.fsdp import fully_shard as old_mod
    from ember.distributed.fsdp import fully_sharded_data_parallel as fsdp1
    for name in old.__all__:
        assert getattr(old, name) is getattr(ef, name)
    assert old_mod is ef.fully_shard
    for name in ('ShardingStrategy', 'BackwardPrefetch', 'StateDictType'):
        assert ([(m.name, m.value) for m in getattr(ef, name)] ==
                [(m.name, m.value) for m in getattr(tf, name)]), name
    assert fsdp1.FullyShardedDataParallel is ef.FullyShardedDataParallel
    assert not isinstance(ember.nn.Linear(2, 2), ef.FullyShardedDataParallel)
    with pytest.raises(ValueError, match='Default process group has not been initialized'):
        ef.FullyShardedDataParallel(ember.nn.Linear(2, 2))      # (FSDP1: tests/distributed/fsdp)
