"""all_reduce of 4M float32 on 2 ranks: ember.distributed (PMI rendezvous, 2 independently
started processes) vs plain ``mpiexec -n 2`` + mpi4py ``Allreduce`` on NumPy buffers.

Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 python bench/bench_distributed.py
Prints the median time per all_reduce of each and the ratio ember / mpi4py.
"""
import os
import socket
import subprocess
import sys

REPS = 30
N = 4 << 20

EMBER = f'''
import time, ember, ember.distributed as dist
dist.init_process_group('gloo')
t = ember.ones({N})
ts = []
for i in range({REPS}):
    dist.barrier(); s = time.perf_counter(); dist.all_reduce(t); ts.append(time.perf_counter() - s)
if dist.get_rank() == 0:
    print(sorted(ts)[len(ts) // 2])
'''

MPI = f'''
import time, numpy as np
from mpi4py import MPI
c = MPI.COMM_WORLD
a = np.ones({N}, np.float32); b = np.empty_like(a)
ts = []
for i in range({REPS}):
    c.Barrier(); s = time.perf_counter(); c.Allreduce(a, b); ts.append(time.perf_counter() - s)
if c.Get_rank() == 0:
    print(sorted(ts)[len(ts) // 2])
'''


def _port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def run_ember():
    port = _port()
    ps = [subprocess.Popen([sys.executable, '-c', EMBER], stdout=subprocess.PIPE, text=True,
                           env=dict(os.environ, RANK=str(r), WORLD_SIZE='2',
                                    MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port)))
          for r in range(2)]
    out = [p.communicate(timeout=120)[0] for p in ps]
    return float(out[0])


def run_mpi():
    mpiexec = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    out = subprocess.run([mpiexec, '-n', '2', sys.executable, '-c', MPI], capture_output=True,
                         text=True, timeout=120).stdout
    return float(out.split()[0])


if __name__ == '__main__':
    e, m = run_ember(), run_mpi()
    print(f"all_reduce 4M float32, 2 ranks: ember {e * 1e3:.2f} ms, mpiexec+mpi4py {m * 1e3:.2f} ms, "
          f"ratio {e / m:.2f}x")
