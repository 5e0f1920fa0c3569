"""SyncBatchNorm on 2 ranks: outputs, input and parameter gradients and running statistics
match torch's BatchNorm on the whole batch in one process; convert_sync_batchnorm; eval and
single-process behaviour as BatchNorm's. One bounded multi-rank run."""
import os
import sys

import numpy as np
import pytest

import ember
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
out = sys.argv[1]
dist.init_process_group('gloo')
r = dist.get_rank()
rs = np.random.RandomState(0)
X = rs.randn(6, 3, 4, 5); G = rs.randn(6, 3, 4, 5); W = rs.rand(3) + 0.5; B = rs.randn(3)
sl = slice(0, 2) if r == 0 else slice(2, 6)       # uneven shards: 2 and 4 samples
res = {}
bn = nn.SyncBatchNorm(3, momentum=0.3).double()
with ember.no_grad():
    bn.weight.copy_(ember.tensor(W)); bn.bias.copy_(ember.tensor(B))
for step in range(2):
    x = ember.tensor(X[sl] * (step + 1), requires_grad=True)
    y = bn(x)
    (y * ember.tensor(G[sl])).sum().backward()
    res[f'y{step}'] = y.detach().numpy(); res[f'gx{step}'] = x.grad.numpy()
res['gw'] = bn.weight.grad.numpy(); res['gb'] = bn.bias.grad.numpy()
res['rm'] = bn.running_mean.numpy(); res['rv'] = bn.running_var.numpy()
res['nbt'] = bn.num_batches_tracked.numpy()
bn.eval()
res['yeval'] = bn(ember.tensor(X[sl])).detach().numpy()
# cumulative average (momentum=None), no affine; no running stats: batch stats in eval too
bn2 = nn.SyncBatchNorm(3, momentum=None, affine=False).double()
for step in range(3):
    bn2(ember.tensor(X[sl] + step))
res['rm_cum'] = bn2.running_mean.numpy(); res['rv_cum'] = bn2.running_var.numpy()
bn3 = nn.SyncBatchNorm(3, track_running_stats=False).double().eval()
res['y_nostats'] = bn3(ember.tensor(X[sl])).detach().numpy()
# convert_sync_batchnorm inside a DDP model trains on both ranks
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
assert type(sync[1]) is nn.SyncBatchNorm and sync[1].weight is net[1].weight
ddp = nn.parallel.DistributedDataParallel(sync.double())
ddp(ember.tensor(X[sl])).sum().backward()
np.savez(f'{out}/rank{r}.npz', **res)
print('ok', r)
'''


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    if not edist.is_mpi_available():
        pytest.skip('mpi4py not installed')
    d = tmp_path_factory.mktemp('syncbn')
    run_ranks(RANK, 2, timeout=60, args=(str(d),))
    return [dict(np.load(d / f'rank{r}.npz')) for r in range(2)]


def test_syncbn_matches_whole_batch_batchnorm(ranks):
    rs = np.random.RandomState(0)
    X = rs.randn(6, 3, 4, 5); G = rs.randn(6, 3, 4, 5); W = rs.rand(3) + 0.5; B = rs.randn(3)
    bn = torch.nn.BatchNorm2d(3, momentum=0.3).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(W)); bn.bias.copy_(torch.tensor(B))
    for step in range(2):
        x = torch.tensor(X * (step + 1), requires_grad=True)
        y = bn(x)
        (y * torch.tensor(G)).sum().backward()
        for r, sl in ((0, slice(0, 2)), (1, slice(2, 6))):
            np.testing.assert_allclose(ranks[r][f'y{step}'], y.detach().numpy()[sl], atol=1e-10)
            np.testing.assert_allclose(ranks[r][f'gx{step}'], x.grad.numpy()[sl], atol=1e-10)
    np.testing.assert_allclose(ranks[0]['gw'] + ranks[1]['gw'], bn.weight.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(ranks[0]['gb'] + ranks[1]['gb'], bn.bias.grad.numpy(), atol=1e-10)
    for r in range(2):
        np.testing.assert_allclose(ranks[r]['rm'], bn.running_mean.numpy(), atol=1e-12)
        np.testing.assert_allclose(ranks[r]['rv'], bn.running_var.numpy(), atol=1e-12)
        assert int(ranks[r]['nbt']) == 2
    bn.eval()
    ye = bn(torch.tensor(X)).detach().numpy()
    np.testing.assert_allclose(ranks[0]['yeval'], ye[:2], atol=1e-12)
    np.testing.assert_allclose(ranks[1]['yeval'], ye[2:], atol=1e-12)
    bn2 = torch.nn.BatchNorm2d(3, momentum=None, affine=False).double()
    for step in range(3):
        bn2(torch.tensor(X + step))
    bn3 = torch.nn.BatchNorm2d(3, track_running_stats=False).double().eval()
    y3 = bn3(torch.tensor(X)).detach().numpy()
    for r, sl in ((0, slice(0, 2)), (1, slice(2, 6))):
        np.testing.assert_allclose(ranks[r]['rm_cum'], bn2.running_mean.numpy(), atol=1e-12)
        np.testing.assert_allclose(ranks[r]['rv_cum'], bn2.running_var.numpy(), atol=1e-12)
        # eval without running stats: each rank's own batch statistics (no sync in eval)
        ref = torch.nn.functional.batch_norm(torch.tensor(X[sl]), None, None, training=True).numpy()
        np.testing.assert_allclose(ranks[r]['y_nostats'], ref, atol=1e-10)
    assert not np.allclose(ranks[0]['y_nostats'], y3[:2])


def test_syncbn_single_process_is_batchnorm():
    x = np.random.RandomState(1).randn(4, 3, 5).astype('float32')
    e = ember.nn.SyncBatchNorm(3)
    t = torch.nn.SyncBatchNorm(3)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                               torch.nn.BatchNorm1d(3)(torch.tensor(x)).detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(e.running_var.numpy(), (t.running_var * 0.9 + 0.1 * torch.tensor(x).var((0, 2))).numpy(), atol=1e-6)
    with pytest.raises(ValueError, match=r'expected at least 2D input \(got 1D input\)'):
        e(ember.ones(3))
