"""DistributedDataParallel on 2 independently started ranks: training on shards gives the
weights of one process (torch, the oracle) training on the whole batch, with several bucket
sizes, gradient_as_bucket_view, the default comm hooks and PowerSGD; no_sync, buffers,
find_unused_parameters, Join with uneven inputs, state_dict keys, errors. One multi-rank
run (bounded by a timeout) does all of it; the checks against torch run here."""
import os
import sys

import numpy as np
import pytest

import ember.distributed as edist

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

torch = pytest.importorskip('torch')

RANK = r'''
import sys, warnings
import numpy as np
import ember
import ember.nn as nn
import ember.distributed as dist
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook as psgd
out = sys.argv[1]
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
rs = np.random.RandomState(0)
X = rs.randn(16, 8).astype('float32'); Y = rs.randn(16, 4).astype('float32')
xs, ys = ember.tensor(X[r * 8:(r + 1) * 8]), ember.tensor(Y[r * 8:(r + 1) * 8])
res = {}

def mlp(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

def gather_equal(t):
    outs = [ember.zeros_like(t) for _ in range(n)]
    dist.all_gather(outs, t.detach().contiguous())
    return all(np.array_equal(outs[0].numpy(), o.numpy()) for o in outs)

# construction broadcasts rank 0's parameters (ranks start different)
m = mlp(100 + r)
if r == 0:
    for k, v in m.state_dict().items():
        res['init.' + k] = v.numpy().copy()
ddp = DDP(m)
assert all(gather_equal(p) for p in ddp.parameters())
assert list(ddp.state_dict()) == ['module.' + k for k in m.state_dict()], list(ddp.state_dict())
# a backward through the wrapped module alone (not the wrapper) stays local
ddp.module(xs).sum().backward()
assert not gather_equal(m[0].weight.grad)
m.zero_grad()

configs = {'default': {}, 'small': dict(bucket_cap_mb=1e-4, gradient_as_bucket_view=True),
           'hook': dict(bucket_cap_mb=1e-4), 'fp16': {}, 'bf16': {}, 'psgd': {}, 'bpsgd': {}, 'psgd1': {},
           'static': dict(static_graph=True, broadcast_buffers=False)}
for name, kw in configs.items():
    d = DDP(mlp(100 + r), **kw)
    if name == 'small':
        assert len(d._buckets) == 4, len(d._buckets)
    if name == 'hook':
        d.register_comm_hook(None, default_hooks.allreduce_hook)
    if name == 'fp16':
        d.register_comm_hook(None, default_hooks.fp16_compress_hook)
    if name == 'bf16':
        d.register_comm_hook(None, default_hooks.bf16_compress_hook)
    if name == 'psgd':
        st = psgd.PowerSGDState(None, matrix_approximation_rank=16, start_powerSGD_iter=2,
                                min_compression_rate=0)
        d.register_comm_hook(st, psgd.powerSGD_hook)
    if name == 'psgd1':   # rank 1 with error feedback: really compressed
        st = psgd.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2,
                                min_compression_rate=0)
        d.register_comm_hook(st, psgd.powerSGD_hook)
    if name == 'bpsgd':   # the whole bucket as one 15x15 matrix, rank 15: exact
        st = psgd.PowerSGDState(None, matrix_approximation_rank=16, start_powerSGD_iter=2)
        d.register_comm_hook(st, psgd.batched_powerSGD_hook)
    opt = ember.optim.SGD(d.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(d(xs), ys)
        loss.backward()
        assert all(gather_equal(p.grad) for p in d.parameters()), name
        opt.step()
    if name in ('psgd', 'bpsgd', 'psgd1'):
        assert st.iter == 3, st.iter
    for k, v in d.module.state_dict().items():
        res[f'{name}.{k}'] = v.numpy().copy()
    if name == 'small':
        assert all(p.grad.data_ptr() == v.data_ptr() for b in d._buckets
                   for p, v in zip(b.params, b.views))

# buckets are launched during backward, last layer first: when bucket 0 (the last layer's
# parameters) goes out, the first layer's gradient does not exist yet
d = DDP(mlp(100 + r), bucket_cap_mb=1e-4)
seen = []
def spy(state, bucket):
    seen.append((bucket.index(), d.module[0].weight.grad is None, len(bucket.parameters()),
                 bucket.is_last()))
    return default_hooks.allreduce_hook(state, bucket)
d.register_comm_hook(None, spy)
nn.functional.mse_loss(d(xs), ys).backward()
assert [x[0] for x in seen] == [0, 1, 2, 3] and seen[0][1] and not seen[-1][1], seen
assert [x[3] for x in seen] == [False, False, False, True]
try:
    d.register_comm_hook(None, spy); raise SystemExit('no error')
except RuntimeError as e:
    assert 'can only be called once' in str(e)

# a deep copy (and a pickled copy) of a DDP module is a working DDP module of its own
import copy, pickle
d = DDP(mlp(100 + r))
for dc in (copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
    assert dc.module[0].weight is not d.module[0].weight
    nn.functional.mse_loss(dc(xs), ys).backward()
    assert gather_equal(dc.module[0].weight.grad) and d.module[0].weight.grad is None
    assert dc.process_group is dist.group.WORLD and dc._comm_hook is None

# no_sync: local accumulation, then one averaging backward
d = DDP(mlp(100 + r))
with d.no_sync():
    nn.functional.mse_loss(d(xs[:4]), ys[:4]).backward()
res['nosync.local'] = d.module[0].weight.grad.numpy().copy()
nn.functional.mse_loss(d(xs[4:]), ys[4:]).backward()
for i, p in enumerate(d.parameters()):
    res[f'nosync.grad{i}'] = p.grad.numpy().copy()

# buffers of rank 0 broadcast at each forward; eval-mode forward under no_grad works
ember.manual_seed(0)
bn = nn.Sequential(nn.Linear(8, 6), nn.BatchNorm1d(6))
d = DDP(bn)
d(xs + r)
res['bn.rm1'] = bn[1].running_mean.numpy().copy()
d(xs + r)   # the second forward starts from rank 0's running stats
res['bn.rm2'] = bn[1].running_mean.numpy().copy()
d.eval()
with ember.no_grad():
    d(xs)

# find_unused_parameters: an unused branch on rank 1 only, one unused on every rank
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 4); self.b = nn.Linear(8, 4); self.c = nn.Linear(8, 4)
    def forward(self, x, use_b):
        y = self.a(x)
        return y + self.b(x) if use_b else y
ember.manual_seed(1)
d = DDP(Branchy(), find_unused_parameters=True)
for _ in range(2):
    d.zero_grad()
    d(xs, r == 0).sum().backward()
    assert d.module.c.weight.grad is None
    res['unused.b.weight.grad'] = d.module.b.weight.grad.numpy().copy()
    res['unused.a.weight.grad'] = d.module.a.weight.grad.numpy().copy()

# without find_unused_parameters the next forward raises PyTorch's error
ember.manual_seed(1)
br = Branchy()
del br.c
d = DDP(br)
d(xs, True).sum().backward()
d(xs, False).sum().backward()
try:
    d(xs, True)
    raise SystemExit('no error')
except RuntimeError as e:
    assert 'Expected to have finished reduction in the prior iteration' in str(e), e

# Join: rank 0 has 3 batches, rank 1 has 2
d = DDP(mlp(100 + r))
opt = ember.optim.SGD(d.parameters(), lr=0.1)
with d.join():
    for i in range(3 if r == 0 else 2):
        opt.zero_grad()
        nn.functional.mse_loss(d(xs[i * 2:i * 2 + 2]), ys[i * 2:i * 2 + 2]).backward()
        opt.step()
for k, v in d.module.state_dict().items():
    res[f'join.{k}'] = v.numpy().copy()
# divide_by_initial_world_size=False: the last step averages over the one rank left
d = DDP(mlp(100 + r))
opt = ember.optim.SGD(d.parameters(), lr=0.1)
with d.join(divide_by_initial_world_size=False):
    for i in range(3 if r == 0 else 2):
        opt.zero_grad()
        nn.functional.mse_loss(d(xs[i * 2:i * 2 + 2]), ys[i * 2:i * 2 + 2]).backward()
        opt.step()
for k, v in d.module.state_dict().items():
    res[f'join2.{k}'] = v.numpy().copy()
# throw_on_early_termination: every rank raises once one runs out
d = DDP(mlp(100 + r))
try:
    with d.join(throw_on_early_termination=True):
        for i in range(3 if r == 0 else 2):
            d(xs[:2]).sum().backward()
    raise SystemExit('no error')
except RuntimeError as e:
    assert ('exhausted' in str(e)), e

# device_ids with a CPU module: warns (NOTE in the docstring) and runs
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    DDP(mlp(0), device_ids=[r])
assert any('device_ids' in str(x.message) for x in w)
# bad arguments
try:
    DDP(nn.ReLU()); raise SystemExit('no error')
except RuntimeError as e:
    assert "doesn't have any parameter that requires a gradient" in str(e)
# mismatched models raise on every rank
try:
    DDP(nn.Linear(4, 4 + r)); raise SystemExit('no error')
except RuntimeError as e:
    assert 'DDP expects same model across all ranks' in str(e), e
np.savez(f'{out}/rank{r}.npz', **res)
dist.destroy_process_group()
print('ok', r)
'''


def _torch_mlp(init):
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    m.load_state_dict({k[5:]: torch.tensor(v) for k, v in init.items() if k.startswith('init.')})
    return m


def _data():
    rs = np.random.RandomState(0)
    return torch.tensor(rs.randn(16, 8).astype('float32')), torch.tensor(rs.randn(16, 4).astype('float32'))


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    if not edist.is_mpi_available():
        pytest.skip('mpi4py not installed')
    d = tmp_path_factory.mktemp('ddp')
    run_ranks(RANK, 2, timeout=90, args=(str(d),))
    return [dict(np.load(d / f'rank{r}.npz')) for r in range(2)]


def test_ddp_matches_single_process_training(ranks):
    X, Y = _data()
    m = _torch_mlp(ranks[0])
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(X), Y).backward()
        opt.step()
    ref = {k: v.detach().numpy() for k, v in m.state_dict().items()}
    for cfg, tol in [('default', 1e-6), ('small', 1e-6), ('hook', 1e-6), ('static', 1e-6),
                     ('psgd', 1e-5), ('bpsgd', 1e-5), ('fp16', 2e-3), ('bf16', 2e-2)]:
        for r in range(2):
            for k, v in ref.items():
                np.testing.assert_allclose(ranks[r][f'{cfg}.{k}'], v, atol=tol, rtol=0,
                                           err_msg=f'{cfg} rank {r} {k}')
    # the compressed hooks really compress (not bit-equal to the exact result)
    assert not np.array_equal(ranks[0]['bf16.0.weight'], ranks[0]['default.0.weight'])
    assert not np.allclose(ranks[0]['psgd1.0.weight'], ranks[0]['default.0.weight'], atol=1e-5)
    np.testing.assert_array_equal(ranks[0]['psgd1.0.weight'], ranks[1]['psgd1.0.weight'])


def test_no_sync_accumulates_then_averages(ranks):
    X, Y = _data()
    m = _torch_mlp(ranks[0])
    for r in range(2):
        xs, ys = X[r * 8:(r + 1) * 8], Y[r * 8:(r + 1) * 8]
        torch.nn.functional.mse_loss(m(xs[:4]), ys[:4]).backward()
        if r == 0:
            loc = m[0].weight.grad.clone()
        torch.nn.functional.mse_loss(m(xs[4:]), ys[4:]).backward()
    np.testing.assert_allclose(ranks[0]['nosync.local'], loc.numpy(), atol=1e-6)
    assert not np.allclose(ranks[0]['nosync.local'], ranks[1]['nosync.local'])
    for i, p in enumerate(m.parameters()):
        for r in range(2):
            np.testing.assert_allclose(ranks[r][f'nosync.grad{i}'], p.grad.numpy() / 2, atol=1e-6)


def test_buffers_broadcast_from_rank0(ranks):
    # first forward from zeros: rm1 = 0.1 * local mean; the second starts from rank 0's rm1
    rm1 = [ranks[r]['bn.rm1'] for r in range(2)]
    assert not np.allclose(rm1[0], rm1[1])
    for r in range(2):
        np.testing.assert_allclose(ranks[r]['bn.rm2'], 0.9 * rm1[0] + rm1[r], atol=1e-6)


def test_find_unused_parameters(ranks):
    X, Y = _data()
    a0, a1 = ranks[0]['unused.a.weight.grad'], ranks[1]['unused.a.weight.grad']
    np.testing.assert_array_equal(a0, a1)
    # b is used on rank 0 only: its gradient is rank 0's halved; identical on both ranks
    xs0 = X[:8]
    ref_b = np.broadcast_to(xs0.numpy().sum(0), (4, 8)) / 2
    np.testing.assert_allclose(ranks[0]['unused.b.weight.grad'], ref_b, atol=1e-5)
    np.testing.assert_allclose(ranks[1]['unused.b.weight.grad'], ref_b, atol=1e-5)
    ref_a = np.broadcast_to(X.numpy().sum(0), (4, 8)) / 2
    np.testing.assert_allclose(a0, ref_a, atol=1e-5)


def test_join_uneven_inputs(ranks):
    X, Y = _data()
    m = _torch_mlp(ranks[0])
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    for i in range(3):
        opt.zero_grad()
        tot = 0
        for r in range(2 if i < 2 else 1):
            xs, ys = X[r * 8:(r + 1) * 8], Y[r * 8:(r + 1) * 8]
            tot = tot + torch.nn.functional.mse_loss(m(xs[i * 2:i * 2 + 2]), ys[i * 2:i * 2 + 2])
        (tot / 2).backward()
        opt.step()
    for k, v in m.state_dict().items():
        for r in range(2):
            np.testing.assert_allclose(ranks[r][f'join.{k}'], v.detach().numpy(), atol=1e-6,
                                       err_msg=f'rank {r} {k}')
    m = _torch_mlp(ranks[0])
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    for i in range(3):
        opt.zero_grad()
        nr = 2 if i < 2 else 1
        tot = sum(torch.nn.functional.mse_loss(m(X[r * 8 + i * 2:r * 8 + i * 2 + 2]),
                                               Y[r * 8 + i * 2:r * 8 + i * 2 + 2]) for r in range(nr))
        (tot / nr).backward()
        opt.step()
    for k, v in m.state_dict().items():
        for r in range(2):
            np.testing.assert_allclose(ranks[r][f'join2.{k}'], v.detach().numpy(), atol=1e-6,
                                       err_msg=f'rank {r} {k}')


RANK4 = r'''
import sys
import numpy as np
import ember, ember.nn as nn, ember.distributed as dist
from ember.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
rs = np.random.RandomState(0)
X = rs.randn(16, 8).astype('float32'); Y = rs.randn(16, 4).astype('float32')
ember.manual_seed(100 + r)
m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
init = {k: v.numpy().copy() for k, v in m.state_dict().items()}
d = DDP(m, bucket_cap_mb=1e-4)
opt = ember.optim.SGD(d.parameters(), lr=0.1, momentum=0.9)
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(d(ember.tensor(X[4 * r:4 * r + 4])), ember.tensor(Y[4 * r:4 * r + 4])).backward()
    opt.step()
res = {'init.' + k: v for k, v in init.items()}
res.update({'final.' + k: v.numpy() for k, v in m.state_dict().items()})
# DDP over sub-groups {0, 1} and {2, 3}: each pair averages on its own, from its first rank
g01, g23 = dist.new_group([0, 1]), dist.new_group([2, 3])
ember.manual_seed(r)
sm = nn.Linear(3, 2)
sd = DDP(sm, process_group=g01 if r < 2 else g23)
sd(ember.full((2, 3), float(r + 1))).sum().backward()
res['sub.w'] = sm.weight.detach().numpy().copy(); res['sub.g'] = sm.weight.grad.numpy().copy()
np.savez(f'{sys.argv[1]}/rank{r}.npz', **res)
'''


def test_ddp_four_ranks(tmp_path):
    if not edist.is_mpi_available():
        pytest.skip('mpi4py not installed')
    run_ranks(RANK4, 4, timeout=90, args=(str(tmp_path),))
    rk = [dict(np.load(tmp_path / f'rank{r}.npz')) for r in range(4)]
    X, Y = _data()
    m = _torch_mlp(rk[0])
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(X), Y).backward()
        opt.step()
    for r in range(4):
        for k, v in m.state_dict().items():
            np.testing.assert_allclose(rk[r]['final.' + k], v.detach().numpy(), atol=1e-6)
    # sub-groups: weights of the group's first rank (seeded 0 and 2), gradient = mean input
    for r, first in ((0, 0), (1, 0), (2, 2), (3, 2)):
        torch.manual_seed(first)
        np.testing.assert_array_equal(rk[r]['sub.w'], torch.nn.Linear(3, 2).weight.detach().numpy())
        np.testing.assert_allclose(rk[r]['sub.g'], np.full((2, 3), 2 * (first + 1.5)), atol=1e-6)
