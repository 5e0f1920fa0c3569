"""ZeroRedundancyOptimizer on 2 ranks (with DDP): the weights and the consolidated Adam state
match torch's Adam on the whole batch in one process; the state is sharded (each parameter's
state on exactly one rank); state_dict before consolidation raises torch's error;
load_state_dict resumes training as torch's optimizer does. One bounded multi-rank run."""
import os
import sys

import numpy as np
import pytest

import ember.distributed as edist

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

torch = pytest.importorskip('torch')

RANK = r'''
import sys
import numpy as np
import ember
import ember.nn as nn
import ember.distributed as dist
from ember.distributed.optim import ZeroRedundancyOptimizer as ZeRO
from ember.nn.parallel import DistributedDataParallel as DDP
out = sys.argv[1]
dist.init_process_group('gloo')
r = dist.get_rank()
rs = np.random.RandomState(0)
X = rs.randn(8, 6).astype('float32'); Y = rs.randn(8, 3).astype('float32')
xs, ys = ember.tensor(X[r * 4:(r + 1) * 4]), ember.tensor(Y[r * 4:(r + 1) * 4])
ember.manual_seed(0)
m = nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 3))
res = {'init.' + k: v.numpy().copy() for k, v in m.state_dict().items()}
ddp = DDP(m)
opt = ZeRO(ddp.parameters(), ember.optim.Adam, lr=0.05, betas=(0.8, 0.9))
assert opt.param_groups[0]['lr'] == 0.05 and len(opt.param_groups[0]['params']) == 4
mine = {id(p) for p in opt.optim.param_groups[0]['params']}
owners = [0] * 4
def step():
    opt.zero_grad()
    nn.functional.mse_loss(ddp(xs), ys).backward()
    opt.step()
for _ in range(3):
    step()
# sharded: the local state holds only this rank's parameters; together they cover all
assert set(id(p) for p in opt.optim.state) == mine
flags = ember.tensor([1 if id(p) in mine else 0 for p in m.parameters()])
dist.all_reduce(flags)
assert flags.tolist() == [1, 1, 1, 1], flags
try:
    opt.state_dict(); raise SystemExit('no error')
except RuntimeError as e:
    assert 'Optimizer state has not been consolidated on this rank' in str(e)
opt.consolidate_state_dict(to=0)
if r == 0:
    sd = opt.state_dict()
    assert sorted(sd['state']) == [0, 1, 2, 3] and sd['param_groups'][0]['params'] == [0, 1, 2, 3]
    for i, st in sd['state'].items():
        res[f'exp_avg{i}'] = st['exp_avg'].numpy().copy(); res[f'exp_avg_sq{i}'] = st['exp_avg_sq'].numpy().copy()
        res[f'step{i}'] = np.array(float(st['step']))
else:
    try:
        opt.state_dict(); raise SystemExit('no error')
    except RuntimeError:
        pass
for k, v in m.state_dict().items():
    res['w3.' + k] = v.numpy().copy()
# a fresh ZeRO loads the consolidated state (handed around as an object) and takes a step
objs = [opt.state_dict() if r == 0 else None]
dist.broadcast_object_list(objs, src=0)
opt2 = ZeRO(ddp.parameters(), ember.optim.Adam, lr=0.01)
opt2.load_state_dict(objs[0])
assert opt2.param_groups[0]['lr'] == 0.05
opt = opt2
step()
for k, v in m.state_dict().items():
    res['w4.' + k] = v.numpy().copy()
# Join with DDP and ZeRO: uneven inputs (rank 0: 3 batches, rank 1: 1) end without a hang,
# with the replicas equal (the final model of the last rank to join is broadcast)
from ember.distributed.algorithms import Join
d2 = DDP(nn.Linear(6, 3))
z2 = ZeRO(d2.parameters(), ember.optim.SGD, lr=0.1)
with Join([d2, z2]):
    for i in range(3 if r == 0 else 1):
        z2.zero_grad(); d2(xs * (i + 1)).sum().backward(); z2.step()
flat = ember.cat([p.detach().reshape(-1) for p in d2.parameters()])
outs = [ember.zeros_like(flat) for _ in range(2)]
dist.all_gather(outs, flat)
assert ember.equal(outs[0], outs[1])
np.savez(f'{out}/rank{r}.npz', **res)
print('ok', r)
'''


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    if not edist.is_mpi_available():
        pytest.skip('mpi4py not installed')
    d = tmp_path_factory.mktemp('zero')
    run_ranks(RANK, 2, timeout=60, args=(str(d),))
    return [dict(np.load(d / f'rank{r}.npz')) for r in range(2)]


def test_zero_matches_torch_adam(ranks):
    rs = np.random.RandomState(0)
    X = torch.tensor(rs.randn(8, 6).astype('float32')); Y = torch.tensor(rs.randn(8, 3).astype('float32'))
    m = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    m.load_state_dict({k[5:]: torch.tensor(v) for k, v in ranks[0].items() if k.startswith('init.')})
    opt = torch.optim.Adam(m.parameters(), lr=0.05, betas=(0.8, 0.9))

    def step():
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(X), Y).backward()
        opt.step()
    for _ in range(3):
        step()
    for r in range(2):
        for k, v in m.state_dict().items():
            np.testing.assert_allclose(ranks[r]['w3.' + k], v.numpy(), atol=1e-6, err_msg=k)
    sd = opt.state_dict()
    for i in range(4):
        np.testing.assert_allclose(ranks[0][f'exp_avg{i}'], sd['state'][i]['exp_avg'].numpy(), atol=1e-7)
        np.testing.assert_allclose(ranks[0][f'exp_avg_sq{i}'], sd['state'][i]['exp_avg_sq'].numpy(), atol=1e-7)
        assert float(ranks[0][f'step{i}']) == float(sd['state'][i]['step']) == 3
    step()
    for r in range(2):
        for k, v in m.state_dict().items():
            np.testing.assert_allclose(ranks[r]['w4.' + k], v.numpy(), atol=1e-6, err_msg=k)
