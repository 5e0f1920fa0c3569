"""Two ranks started independently (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT) initialise the
default group through ember's PMI rendezvous and run all_reduce (every ReduceOp, several
dtypes, a non-contiguous tensor) and broadcast, checked against NumPy. Bounded by timeouts."""
import os
import socket
import subprocess
import sys

import pytest

import ember.distributed as edist

RANK = r'''
import numpy as np
import ember
import ember.distributed as dist
dist.init_process_group('gloo')
r, n = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.get_backend() == 'gloo' and n == 2
base = [np.array([1, 5, -3, 7, 2, 9]), np.array([4, 2, 6, -1, 3, 8])]
for dt in ['float32', 'float64', 'int32', 'int64', 'int16', 'uint8', 'float16']:
    for op in ['SUM', 'PRODUCT', 'MIN', 'MAX', 'AVG', 'BAND', 'BOR', 'BXOR']:
        if op in ('BAND', 'BOR', 'BXOR') and dt.startswith('float'):
            continue
        if dt == 'uint8' and op in ('SUM', 'PRODUCT', 'AVG'):
            arrs = [np.abs(b) for b in base]
        else:
            arrs = base
        arrs = [a.astype(dt) for a in arrs]
        t = ember.tensor(arrs[r])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        fn = {'SUM': np.add, 'PRODUCT': np.multiply, 'MIN': np.minimum, 'MAX': np.maximum,
              'AVG': np.add, 'BAND': np.bitwise_and, 'BOR': np.bitwise_or,
              'BXOR': np.bitwise_xor}[op]
        ref = fn(arrs[0], arrs[1])
        if op == 'AVG':
            ref = (ref / 2).astype(dt)
        assert t.numpy().dtype == np.dtype(dt), (dt, op)
        assert np.array_equal(t.numpy(), ref.astype(dt)), (dt, op, t, ref)
m = ember.arange(12.).reshape(3, 4) * (r + 1)
v = m.t()
dist.all_reduce(v)
assert np.array_equal(m.numpy(), (np.arange(12.).reshape(3, 4) * 3)), m
b = ember.full((5,), float(r))
dist.broadcast(b, src=1)
assert np.array_equal(b.numpy(), np.ones(5))
x = ember.arange(6, dtype=ember.int16).reshape(2, 3) + 10 * r
outs = [ember.zeros(2, 3, dtype=ember.int16) for _ in range(2)]
dist.all_gather(outs, x.t().t())
assert all(np.array_equal(outs[k].numpy(), np.arange(6).reshape(2, 3) + 10 * k) for k in range(2))
big = ember.zeros(4, 3, dtype=ember.int16)
dist.all_gather_into_tensor(big, x)
assert np.array_equal(big.numpy(), np.concatenate([np.arange(6).reshape(2, 3) + 10 * k for k in range(2)]))
dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
print('ok', r, flush=True)
'''


def _free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_env_rendezvous_all_reduce_broadcast():
    port, n = _free_port(), 2
    procs = []
    for r in range(n):
        env = dict(os.environ, OMP_NUM_THREADS='1', RANK=str(r), WORLD_SIZE=str(n),
                   MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, '-c', RANK], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))
    try:
        outs = [p.communicate(timeout=90) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for r, (p, (o, e)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, e[-3000:]
        assert o.strip() == f'ok {r}'


def test_uninitialised_collective_raises():
    import ember
    with pytest.raises(ValueError, match='Default process group has not been initialized'):
        edist.all_reduce(ember.ones(2))


def test_missing_master_times_out(monkeypatch):
    import datetime
    import time
    import torch.distributed as tdist
    monkeypatch.setenv('MASTER_ADDR', '127.0.0.1')
    monkeypatch.setenv('MASTER_PORT', str(_free_port()))
    t0 = time.monotonic()
    with pytest.raises(edist.DistNetworkError, match='timed out after 500ms'):
        edist.init_process_group('gloo', rank=1, world_size=2,
                                 timeout=datetime.timedelta(seconds=0.5))
    assert time.monotonic() - t0 < 5 and not edist.is_initialized()
    assert issubclass(edist.DistNetworkError, RuntimeError)
    assert tdist.DistNetworkError.__name__ == edist.DistNetworkError.__name__


def test_env_errors(monkeypatch):
    import torch.distributed as tdist
    for k in ('RANK', 'MASTER_ADDR', 'MASTER_PORT', 'WORLD_SIZE'):
        monkeypatch.delenv(k, raising=False)
    msgs = []
    for D in (tdist, edist):
        with pytest.raises(ValueError) as e:
            D.init_process_group('gloo')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
