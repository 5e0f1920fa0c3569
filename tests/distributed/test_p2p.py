"""Point-to-point on 2 independently started ranks: send/recv (any source, tags, every
dtype, non-contiguous targets), isend/irecv Work, batch_isend_irecv/P2POp, monitored_barrier
(a late rank is named), and torch's errors. One spawn, bounded by a timeout."""
import pytest

import ember.distributed as edist
from tests.distributed.test_collectives import COMMON, check_ok, spawn

SCRIPT = COMMON + r'''
import datetime
peer = 1 - r
# blocking send/recv, every dtype; recv returns the sender's rank
for dt in [ember.float32, ember.int64, ember.bool, ember.bfloat16, ember.complex128, ember.uint8]:
    ref = (ember.arange(6) % 3 == 0) if dt == ember.bool else (ember.arange(6) * 3).to(dt)
    if r == 0:
        assert dist.send(ref, dst=1) is None
    else:
        t = ember.zeros(6, dtype=dt)
        assert dist.recv(t, src=0) == 0
        assert ember.equal(t, ref), dt
# recv from any source, non-contiguous target, tags keep messages apart
if r == 1:
    dist.send(ember.full((2,), 5.), dst=0, tag=7)
    dist.send(ember.arange(6.), dst=0, tag=3)
else:
    m = ember.zeros(2, 3)
    assert dist.recv(m.t(), tag=3) == 1              # any source
    assert np.array_equal(m.numpy(), np.arange(6.).reshape(3, 2).T)
    x = ember.zeros(2)
    assert dist.recv(x, src=1, tag=7) == 1 and x.tolist() == [5., 5.]
# isend/irecv return Work; irecv's future holds the tensor
a = ember.ones(4) * (r + 1)
b = ember.zeros(4)
if r == 0:
    ws = dist.isend(a, dst=1)
    wr = dist.irecv(b, src=1)
else:
    wr = dist.irecv(b, src=0)
    ws = dist.isend(a, dst=0)
assert isinstance(ws, dist.Work) and isinstance(wr, dist.Work)
assert wr.get_future().wait()[0] is b and ws.wait()
assert b.tolist() == [float(peer + 1)] * 4 and wr.is_completed()
# irecv from any source: source_rank()
if r == 0:
    w = dist.irecv(b); w.wait(); assert w.source_rank() == 1
else:
    dist.send(b, 0)
# batch_isend_irecv: a ring exchange in both directions at once
s1, s2 = ember.full((3,), float(r)), ember.full((2,), 10. + r)
r1, r2 = ember.zeros(3), ember.zeros(2)
ops = [dist.P2POp(dist.isend, s1, peer), dist.P2POp(dist.irecv, r1, peer),
       dist.P2POp(dist.isend, s2, peer, tag=1), dist.P2POp(dist.irecv, r2, peer, tag=1)]
works = dist.batch_isend_irecv(ops)
assert len(works) == 4
for w in works:
    w.wait()
assert r1.tolist() == [float(peer)] * 3 and r2.tolist() == [10. + peer] * 2
# errors (raised before anything is sent)
assert err(lambda: dist.send(ember.ones(1), dst=r)) == ('ValueError', 'Invalid destination rank: '
    'destination rank should not be the same as the rank of the current process.')
assert err(lambda: dist.recv(ember.ones(1), src=r)) == ('ValueError', 'Invalid source rank: '
    'source rank should not be the same as the rank of the current process.')
assert err(lambda: dist.P2POp(dist.send, ember.ones(1), peer)) == ('ValueError', 'Invalid ``op``. '
    'Expected ``op`` to be of type ``torch.distributed.isend`` or ``torch.distributed.irecv``.')
assert err(lambda: dist.batch_isend_irecv([1])) == ('ValueError', 'Invalid ``p2p_op_list``. Each op '
    'is expected to to be of type ``torch.distributed.P2POp``.')
assert err(lambda: dist.send(ember.ones(1), dst=None)) == ('ValueError', 'Must specify global_rank or group_rank')
# monitored_barrier: passes when all arrive; a late rank is named within the timeout
dist.monitored_barrier(timeout=datetime.timedelta(seconds=20))
import time
if r == 1:
    time.sleep(1.0)
t0 = time.monotonic()
e = err(lambda: dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.3)))
if r == 0:
    assert e == ('RuntimeError', '[Rank 0]: Rank 1 failed to pass monitoredBarrier in 300 ms'), e
    assert time.monotonic() - t0 < 2
else:
    assert e == ('RuntimeError', '[Rank 1]: Rank 1 timed out in monitoredBarrier after 300 ms'), e
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_point_to_point():
    check_ok(spawn(SCRIPT, 2))
