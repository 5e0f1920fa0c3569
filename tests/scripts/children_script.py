"""Under ``python -m ember run``, child processes map torch to ember too: torch.multiprocessing
children under the spawn and forkserver start methods, and a ``sys.executable`` subprocess of
the same script (tests/test_main.py runs it)."""
import subprocess, sys
import torch
import torch.multiprocessing as mp


def work(rank, q):
    import torch as t2
    q.put((rank, type(t2.ones(1)).__module__.split('.')[0]))


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'child':
        print('subprocess', type(torch.ones(1)).__module__.split('.')[0]); sys.exit(0)
    for method in ('spawn', 'forkserver'):
        ctx = mp.get_context(method)
        q = ctx.SimpleQueue()
        mp.start_processes(work, args=(q,), nprocs=2, start_method=method)
        print(method, sorted(q.get() for _ in range(2)))
    r = subprocess.run([sys.executable, __file__, 'child'], capture_output=True, text=True)
    print(r.stdout.strip(), r.stderr[-300:])
