"""ember.distributed.nn.functional on 2 ranks: values and gradients of every differentiable
collective against a NumPy reference of the whole computation (the loss of rank r is
sum(output * C[r]), the gradient of an input is the sum over ranks of what flows to it)."""
import os
import sys

import pytest

import ember.distributed as edist

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

RANK = r'''
import numpy as np
import ember
import ember.distributed as dist
import ember.distributed.nn.functional as F
from ember.distributed.nn import all_reduce as _ar   # the package exports the same names
assert _ar is F.all_reduce
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
rs = np.random.RandomState(0)
X = rs.randn(n, 4)                    # rank k's input is X[k]
C = rs.randn(n, n, 4)                 # weights of the losses
def leaf(k=None):
    return ember.tensor(X[r if k is None else k], requires_grad=True)
def close(a, b):
    assert np.allclose(a, b, atol=1e-12), (a, b)

# all_reduce SUM: y = sum_k X[k] on every rank; loss_r = sum(y * C[r, 0])
x = leaf(); y = F.all_reduce(x * 2)
close(y.detach().numpy(), 2 * X.sum(0)); close(x.detach().numpy(), X[r])   # input untouched
(y * ember.tensor(C[r, 0])).sum().backward()
close(x.grad.numpy(), 2 * C[:, 0].sum(0))
# all_gather: outs[k] = X[k]; loss_r = sum_k outs[k] * C[r, k]
x = leaf(); outs = F.all_gather(x)
assert len(outs) == n and all(np.allclose(outs[k].detach().numpy(), X[k]) for k in range(n))
sum((o * ember.tensor(C[r, k])).sum() for k, o in enumerate(outs)).backward()
close(x.grad.numpy(), C[:, r].sum(0))
# broadcast from 1: gradient summed onto rank 1, zero on rank 0
x = leaf(); y = F.broadcast(x, src=1)
close(y.detach().numpy(), X[1])
(y * ember.tensor(C[r, 0])).sum().backward()
close(x.grad.numpy(), C[:, 0].sum(0) if r == 1 else np.zeros(4))
# reduce onto 0: rank 0 gets the sum; the gradient of rank 0's loss flows to every input
x = leaf(); y = F.reduce(x, dst=0)
close(y.detach().numpy(), X.sum(0) if r == 0 else X[r])
(y * ember.tensor(C[r, 0])).sum().backward()
close(x.grad.numpy(), C[0, 0])
# scatter from 0: rank k gets piece k; gradients gathered on 0
x = [ember.tensor(X[k] * (r + 1), requires_grad=True) for k in range(n)]
y = F.scatter(x, src=0)
close(y.detach().numpy(), X[r])
(y * ember.tensor(C[r, 0])).sum().backward()
for k in range(n):
    close(x[k].grad.numpy(), C[k, 0] if r == 0 else np.zeros(4))
# gather onto 1
x = leaf(); outs = F.gather(x, dst=1)
if r == 1:
    assert all(np.allclose(outs[k].detach().numpy(), X[k]) for k in range(n))
sum((o * ember.tensor(C[r, k])).sum() for k, o in enumerate(outs)).backward()
close(x.grad.numpy(), C[1, r])
# reduce_scatter: rank k gets sum_j in_j[k], in_j[k] = X[j] * (k + 1)
x = leaf(); ins = [x * (k + 1) for k in range(n)]
y = F.reduce_scatter(ember.zeros(4, dtype=ember.float64), ins)
close(y.detach().numpy(), X.sum(0) * (r + 1))
(y * ember.tensor(C[r, 0])).sum().backward()
close(x.grad.numpy(), sum((k + 1) * C[k, 0] for k in range(n)))
# all_to_all: rank j sends X[j] * (k + 1) to rank k
x = leaf(); ins = [x * (k + 1) for k in range(n)]
outs = F.all_to_all([ember.zeros(4, dtype=ember.float64) for _ in range(n)], ins)
assert all(np.allclose(outs[j].detach().numpy(), X[j] * (r + 1)) for j in range(n))
sum((o * ember.tensor(C[r, j])).sum() for j, o in enumerate(outs)).backward()
close(x.grad.numpy(), sum((k + 1) * C[k, r] for k in range(n)))
# all_to_all_single with equal splits: rows 2k:2k+2 of rank j go to rank k
x = ember.tensor(np.arange(4.) + 10 * r, requires_grad=True)
y = F.all_to_all_single(ember.zeros(4, dtype=ember.float64), x.view(4, 1) * 1.0)
exp = np.concatenate([np.arange(4.)[2 * r:2 * r + 2] + 10 * j for j in range(n)])
close(y.detach().numpy().ravel(), exp)
(y.view(-1) * ember.tensor(C[r, 0])).sum().backward()
close(x.grad.numpy(), np.concatenate([C[k, 0][2 * r:2 * r + 2] for k in range(n)]))
# gradcheck-style finite differences through all_reduce (float64)
x = leaf()
y = F.all_reduce(x * x)
(y * ember.tensor(C[r, 1])).sum().backward()
close(x.grad.numpy(), 2 * X[r] * C[:, 1].sum(0))
print('ok', r)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_differentiable_collectives():
    run_ranks(RANK, 2, timeout=60)
