"""``distributed.checkpoint.state_dict`` on 2 ranks, one launch, for a plain model, DDP, FSDP1
and FSDP2: two training steps, ``get_state_dict`` (sharded models: DTensor pieces; with
``full_state_dict`` whole tensors equal to single-process training; with ``cpu_offload`` too
only on rank 0), ``dcp.save``; a fresh model of the next wrapping (plain -> DDP -> FSDP1 ->
FSDP2 -> plain) loads the checkpoint with ``dcp.load`` + ``set_state_dict`` and its next step
equals single-process training (ember's in each rank, torch's here); so does resuming FSDP1
and FSDP2 from rank 0's full state dicts with ``broadcast_from_rank0``."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from _ranks import run_ranks  # noqa: E402

MODEL = r'''
def build(seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    torch.manual_seed(1)
    return model, torch.randn(3, 8, 5), torch.randn(3, 8, 3)


def step(model, opt, x, y):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
'''

PROG = r'''
import copy, json, sys
import numpy as np
import ember as torch, ember.nn as nn, ember.distributed as dist
import ember.distributed.checkpoint as dcp
from ember.distributed.checkpoint.state_dict import (get_state_dict, set_state_dict,
    get_model_state_dict, get_optimizer_state_dict, StateDictOptions)
from ember.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard
from ember.distributed.fsdp.wrap import ModuleWrapPolicy
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.distributed.tensor import DTensor
''' + MODEL + r'''
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
ref, X, Y = build()
ropt = torch.optim.Adam(ref.parameters(), lr=0.05)
refs = []
for s in range(3):
    step(ref, ropt, X[s], Y[s])
    refs.append({k: v.clone() for k, v in ref.state_dict().items()})
KINDS = ['plain', 'ddp', 'fsdp1', 'fsdp2']


def make(kind, seed):
    m, _, _ = build(seed)
    if kind == 'ddp':
        m = DDP(m)
    elif kind == 'fsdp1':
        m = FSDP(m, auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
    elif kind == 'fsdp2':
        fully_shard(m[0]); fully_shard(m[2]); fully_shard(m)
    return m, torch.optim.Adam(m.parameters(), lr=0.05)


def rows(kind, t):
    return t if kind == 'plain' else t[r * 4:(r + 1) * 4]


def close(sd, want, what):
    assert list(sd) == list(want), (what, list(sd))
    for k, v in want.items():
        assert np.allclose(sd[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6), (what, k)


R = {}
for i, kind in enumerate(KINDS):
    m, opt = make(kind, 0)
    for s in range(2):
        step(m, opt, rows(kind, X[s]), rows(kind, Y[s]))
    msd, osd = get_state_dict(m, opt)
    assert list(msd) == list(refs[0]) and list(osd['state']) == list(refs[0]), (kind, list(msd))
    sharded = kind.startswith('fsdp')
    assert all(isinstance(v, DTensor) == sharded for v in msd.values()), kind
    assert all(isinstance(st['exp_avg'], DTensor) == sharded for st in osd['state'].values())
    close(get_model_state_dict(m, options=StateDictOptions(full_state_dict=True)), refs[1],
          kind)
    off = get_model_state_dict(m, options=StateDictOptions(full_state_dict=True,
                                                           cpu_offload=True))
    assert (off == {}) if r else list(off) == list(refs[1]), kind
    fo = get_optimizer_state_dict(m, opt, options=StateDictOptions(full_state_dict=True))
    assert all(not isinstance(st['exp_avg'], DTensor) and
               tuple(st['exp_avg'].shape) == tuple(refs[0][k].shape)
               for k, st in fo['state'].items()), kind
    dcp.save({'model': msd, 'optim': osd}, checkpoint_id=f'{sys.argv[1]}/{kind}')
    # resumed by the next wrapping
    nxt = KINDS[(i + 1) % len(KINDS)]
    m2, opt2 = make(nxt, 7)
    opt2.param_groups[0]['lr'] = 0.9
    msd2, osd2 = get_state_dict(m2, opt2)
    sd = {'model': msd2, 'optim': osd2}
    dcp.load(sd, checkpoint_id=f'{sys.argv[1]}/{kind}')
    set_state_dict(m2, opt2, model_state_dict=sd['model'], optim_state_dict=sd['optim'])
    assert opt2.param_groups[0]['lr'] == 0.05, (kind, nxt)
    step(m2, opt2, rows(nxt, X[2]), rows(nxt, Y[2]))
    full = get_model_state_dict(m2, options=StateDictOptions(full_state_dict=True))
    close(full, refs[2], f'{kind}->{nxt}')
    R[f'{kind}->{nxt}'] = {k: v.tolist() for k, v in full.items()}
# broadcast_from_rank0: rank 0's full state dicts; the other ranks pass empty ones
for kind in ('fsdp1', 'fsdp2'):
    m, opt = make(kind, 0)
    for s in range(2):
        step(m, opt, rows(kind, X[s]), rows(kind, Y[s]))
    full = StateDictOptions(full_state_dict=True, cpu_offload=True)
    msd, osd = get_model_state_dict(m, options=full), get_optimizer_state_dict(m, opt, options=full)
    assert (msd == {} and osd == {}) if r else list(msd) == list(refs[0])
    m2, opt2 = make(kind, 7)
    set_state_dict(m2, opt2, model_state_dict=msd, optim_state_dict=osd,
                   options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
    step(m2, opt2, rows(kind, X[2]), rows(kind, Y[2]))
    close(get_model_state_dict(m2, options=StateDictOptions(full_state_dict=True)), refs[2],
          f'{kind} broadcast_from_rank0')
try:
    set_state_dict(m2, opt2, model_state_dict={}, optim_state_dict={},
                   options=StateDictOptions(broadcast_from_rank0=True))
    raise AssertionError('no error')
except ValueError as e:
    assert str(e) == 'full_state_dict must be True when broadcast_from_rank0 is True.', e
print('RESULT ' + json.dumps(R), flush=True)
'''


def _torch_reference():
    import torch
    from torch import nn
    ns = {'torch': torch, 'nn': nn}
    exec(MODEL, ns)
    model, X, Y = ns['build']()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for s in range(3):
        ns['step'](model, opt, X[s], Y[s])
    return {k: v.tolist() for k, v in model.state_dict().items()}


def test_state_dict_helpers_across_wrappings(tmp_path):
    outs = run_ranks(PROG, n=2, timeout=150, args=(str(tmp_path),))
    want = _torch_reference()
    for o in outs:
        res = json.loads([ln for ln in o.splitlines() if ln.startswith('RESULT ')][0][7:])
        assert list(res) == ['plain->ddp', 'ddp->fsdp1', 'fsdp1->fsdp2', 'fsdp2->plain']
        for what, sd in res.items():
            assert list(sd) == list(want)
            for k, v in want.items():
                np.testing.assert_allclose(sd[k], v, rtol=1e-5, atol=1e-6, err_msg=f'{what} {k}')
