"""Process targets for the ember.multiprocessing tests, importable without torch (spawned
children import this module)."""
import os
import signal
import sys


def write_rank(i, folder, tag):
    with open(os.path.join(folder, f'{tag}{i}'), 'w') as f:
        f.write(str(i))


def raise_on_one(i):
    if i == 1:
        raise ValueError(f'bad rank {i}')


def exit_code(i, code):
    sys.exit(code)


def kill_self(i):
    os.kill(os.getpid(), signal.SIGKILL)


def add_one_inplace(q_in, q_out):
    t = q_in.get()
    t.add_(1)
    q_out.put('done')
    q_in.get()                # wait until the parent wrote
    q_out.put(t.tolist())


def sum_of(i, t, q):
    q.put(t.sum().item() + i)
