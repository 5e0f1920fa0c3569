"""Two independently started processes form one MPI COMM_WORLD through ember's PMI-1
server and all-reduce 1M float32 (checked against NumPy). Bounded by timeouts."""
import os
import socket
import subprocess
import sys

import pytest

import ember.distributed as edist

SERVER = os.path.join(os.path.dirname(edist.__file__), '_pmi_server.py')

RANK = r'''
import os, socket, sys
import numpy as np
r, n, port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
fd = socket.create_connection(('127.0.0.1', port)).detach()
os.environ.update(PMI_FD=str(fd), PMI_RANK=str(r), PMI_SIZE=str(n))
from mpi4py import MPI
c = MPI.COMM_WORLD
assert (c.Get_rank(), c.Get_size()) == (r, n)
a = np.arange(1 << 20, dtype=np.float32) * (r + 1)
b = np.empty_like(a)
c.Allreduce(a, b)
ref = sum(np.arange(1 << 20, dtype=np.float32) * (k + 1) for k in range(n))
assert np.array_equal(b, ref)
print('ok', r, flush=True)
'''


def _free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_pmi_two_singletons_form_world():
    port, n = _free_port(), 2
    srv = subprocess.Popen([sys.executable, SERVER, str(port), str(n)], stdout=subprocess.PIPE,
                           text=True)
    try:
        assert srv.stdout.readline().strip() == 'ready'
        env = dict(os.environ, OMP_NUM_THREADS='1')
        procs = [subprocess.Popen([sys.executable, '-c', RANK, str(r), str(n), str(port)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env) for r in range(n)]
        outs = [p.communicate(timeout=60) for p in procs]
        for r, (p, (o, e)) in enumerate(zip(procs, outs)):
            assert p.returncode == 0, e
            assert o.strip() == f'ok {r}'
        srv.wait(timeout=20)
    finally:
        if srv.poll() is None:
            srv.kill()


MPIEXEC_SCRIPT = r'''
import ember, ember.distributed as dist
dist.init_process_group('mpi')       # ranks started by mpiexec: no MASTER_ADDR needed
r, n = dist.get_rank(), dist.get_world_size()
assert n == 2 and dist.get_backend() == 'mpi'
t = ember.ones(3) * (r + 1)
dist.all_reduce(t)
assert t.tolist() == [3.] * 3
g = dist.new_group([1])
objs = [None, None]
dist.all_gather_object(objs, {'r': r})
assert objs == [{'r': 0}, {'r': 1}]
assert (dist.get_rank(g) == 0) if r == 1 else (g == dist.GroupMember.NON_GROUP_MEMBER)
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_ranks_started_by_mpiexec():
    mpiexec = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if not os.path.exists(mpiexec):
        pytest.skip('the mpich wheel provides no mpiexec here')
    env = {k: v for k, v in os.environ.items()
           if k not in ('MASTER_ADDR', 'MASTER_PORT', 'RANK', 'WORLD_SIZE')}
    env['OMP_NUM_THREADS'] = '1'
    p = subprocess.run([mpiexec, '-n', '2', sys.executable, '-c', MPIEXEC_SCRIPT],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.count('ok') == 2, p.stdout      # (the two ranks' lines may interleave)
