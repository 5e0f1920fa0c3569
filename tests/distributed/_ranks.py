"""Run a script in N independently started ranks (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT,
as PyTorch's tutorials start them), each bounded by a timeout; fail with every rank's
output if one fails."""
import os
import socket
import subprocess
import sys


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def run_ranks(code, n=2, timeout=60, env_extra=None, args=()):
    # a rank still running near the timeout prints every thread's stack and exits
    code = (f"import faulthandler; faulthandler.dump_traceback_later({max(1, timeout - 3)}, "
            f"exit=True)\n" + code)
    port = free_port()
    procs = []
    for r in range(n):
        env = dict(os.environ, OMP_NUM_THREADS='1', RANK=str(r), WORLD_SIZE=str(n),
                   LOCAL_RANK=str(r), MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port))
        env.update(env_extra or {})
        procs.append(subprocess.Popen([sys.executable, '-c', code, *args], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))
    outs = []
    try:
        for p in procs:
            try:
                outs.append(p.communicate(timeout=timeout))
            except subprocess.TimeoutExpired:
                p.kill()
                outs.append(p.communicate())
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    msg = '\n'.join(f'--- rank {r} rc={p.returncode}\n{o}\n{e}' for r, (p, (o, e)) in
                    enumerate(zip(procs, outs)))
    assert all(p.returncode == 0 for p in procs), msg
    return [o for o, e in outs]
