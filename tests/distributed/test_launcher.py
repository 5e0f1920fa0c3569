"""``python -m ember.distributed.run`` (torchrun's flags): the environment of each worker,
one MPI world across two launchers standing for two nodes, restarts, failures reported as
ChildFailedError, ``torch`` resolving to ember in the workers; ``mp.spawn`` errors raised in
the parent with the failing rank's traceback, as torch.multiprocessing does. Every run is
bounded by a timeout."""
import os
import subprocess
import sys

import pytest

import ember.distributed as edist

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import free_port  # noqa: E402
from _side_by_side import run_side_by_side  # noqa: E402

pytestmark = pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')

WORKER = r'''
import os, sys
import torch
import torch.distributed as dist
assert torch.__name__ == 'ember', torch.__name__     # torch resolves to ember
keys = ['OMP_NUM_THREADS', 'RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'MASTER_ADDR',
        'MASTER_PORT', 'TORCHELASTIC_RESTART_COUNT', 'TORCHELASTIC_MAX_RESTARTS',
        'TORCHELASTIC_RUN_ID', 'ROLE_RANK', 'ROLE_WORLD_SIZE']
env = {k: os.environ.get(k) for k in keys}
if sys.argv[1:] == ['fail-once'] and env['RANK'] == '1' and env['TORCHELASTIC_RESTART_COUNT'] == '0':
    sys.exit(3)
if sys.argv[1:] == ['fail-always'] and env['RANK'] == '1':
    raise SystemExit(5)
if sys.argv[1:] == ['sleep']:
    sys.stdout.write(f'PID {os.getpid()}\n'); sys.stdout.flush()
    import time; time.sleep(60)
dist.init_process_group('gloo')
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
assert dist.is_torchelastic_launched()
line = ' '.join(f'{k}={v}' for k, v in env.items())
sys.stdout.write(f'ENV {line} SUM {t.item()} ARGS {sys.argv[1:]}\n')   # one write: no interleaving
sys.stdout.flush()
dist.destroy_process_group()
'''


def _launch(tmp_path, flags, args=(), timeout=60):
    script = tmp_path / 'worker.py'
    script.write_text(WORKER)
    env = dict(os.environ)
    env.pop('OMP_NUM_THREADS', None)
    return subprocess.Popen([sys.executable, '-m', 'ember.distributed.run', *flags, str(script),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def _done(p, timeout=60):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError(f'launcher timed out\n{out}\n{err}')
    return p.returncode, out, err


def _envs(out):
    rows = []
    for line in out.splitlines():
        if line.startswith('ENV '):
            kv = line.split('SUM')[0].split()[1:]
            d = dict(x.split('=', 1) for x in kv)
            d['SUM'] = float(line.split('SUM')[1].split()[0])
            rows.append(d)
    return sorted(rows, key=lambda d: int(d['RANK']))


def test_standalone_two_workers(tmp_path):
    rc, out, err = _done(_launch(tmp_path, ['--standalone', '--nproc-per-node=2'], ['--lr', '1']))
    assert rc == 0, out + err
    rows = _envs(out)
    assert [r['RANK'] for r in rows] == ['0', '1'], out + err
    assert [r['LOCAL_RANK'] for r in rows] == ['0', '1']
    for r in rows:
        assert r['WORLD_SIZE'] == '2' and r['LOCAL_WORLD_SIZE'] == '2' and r['GROUP_RANK'] == '0'
        assert r['MASTER_ADDR'] == 'localhost' and int(r['MASTER_PORT']) > 0
        assert r['TORCHELASTIC_RESTART_COUNT'] == '0' and r['SUM'] == 3.0
        assert r['OMP_NUM_THREADS'] == '1'
        assert r['ROLE_WORLD_SIZE'] == '2' and r['TORCHELASTIC_RUN_ID'] == rows[0]['TORCHELASTIC_RUN_ID']
    assert "ARGS ['--lr', '1']" in out
    assert 'Setting OMP_NUM_THREADS environment variable for each process to be 1' in err


def test_two_nodes_on_one_machine(tmp_path):
    port = free_port()
    common = ['--nnodes=2', '--nproc_per_node=2', '--master_addr=127.0.0.1', f'--master_port={port}']
    p1 = _launch(tmp_path, common + ['--node_rank=1'])    # node 1 first: it waits for node 0
    p0 = _launch(tmp_path, common + ['--node-rank=0'])
    rc0, out0, err0 = _done(p0)
    rc1, out1, err1 = _done(p1)
    assert rc0 == 0 and rc1 == 0, out0 + err0 + out1 + err1
    rows = _envs(out0 + out1)
    assert [r['RANK'] for r in rows] == ['0', '1', '2', '3']
    assert [r['LOCAL_RANK'] for r in rows] == ['0', '1', '0', '1']
    assert [r['GROUP_RANK'] for r in rows] == ['0', '0', '1', '1']
    assert all(r['WORLD_SIZE'] == '4' and r['LOCAL_WORLD_SIZE'] == '2' and r['SUM'] == 10.0
               and r['MASTER_PORT'] == str(port) for r in rows)
    # the rendezvous endpoint form
    port = free_port()
    common = ['--nnodes=2', '--nproc-per-node=1', f'--rdzv-endpoint=127.0.0.1:{port}',
              '--rdzv-backend=c10d']
    p0 = _launch(tmp_path, common + ['--node-rank=0'])
    p1 = _launch(tmp_path, common + ['--node-rank=1'])
    rc0, out0, err0 = _done(p0)
    rc1, out1, err1 = _done(p1)
    assert rc0 == 0 and rc1 == 0, out0 + err0 + out1 + err1
    assert [r['SUM'] for r in _envs(out0 + out1)] == [3.0, 3.0]


def test_restart_and_failure(tmp_path):
    rc, out, err = _done(_launch(tmp_path, ['--standalone', '--nproc-per-node=2',
                                            '--max-restarts=1'], ['fail-once']))
    assert rc == 0, out + err
    rows = _envs(out)
    assert [r['TORCHELASTIC_RESTART_COUNT'] for r in rows] == ['1', '1']
    assert all(r['TORCHELASTIC_MAX_RESTARTS'] == '1' for r in rows)
    rc, out, err = _done(_launch(tmp_path, ['--standalone', '--nproc-per-node=2'], ['fail-always']))
    assert rc == 1
    assert 'ChildFailedError' in err and 'rank      : 1 (local_rank: 1)' in err
    assert 'exitcode  : 5' in err


def test_bad_flags(tmp_path):
    rc, out, err = _done(_launch(tmp_path, ['--nnodes=1:2', '--nproc-per-node=1']))
    assert rc != 0 and 'elastic node ranges' in err
    rc, out, err = _done(_launch(tmp_path, ['--nproc-per-node=gpu']))
    assert rc != 0 and 'Cuda is not available' in err


SPAWN = r'''
import sys
mp = __import__(sys.argv[1] + '.multiprocessing', fromlist=['x'])

def fn(i, msg):
    if i == 1:
        raise ValueError(msg + str(i))

if __name__ == '__main__':
    try:
        mp.spawn(fn, args=('bad rank ',), nprocs=2)
    except mp.ProcessRaisedException as e:
        print(type(e).__name__, e.error_index, repr(str(e).split('Traceback')[0]))
        print('HAS', 'ValueError: bad rank 1' in str(e), 'in fn' in str(e))
'''


def test_spawn_error_carries_rank_traceback(tmp_path):
    torch = pytest.importorskip('torch')  # noqa: F841
    script = tmp_path / 'sp.py'
    script.write_text(SPAWN)
    outs = []
    for p in run_side_by_side([[sys.executable, str(script), mod] for mod in ('torch', 'ember')],
                              timeout=60, env=dict(os.environ, OMP_NUM_THREADS='1')):
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout)
    assert outs[0] == outs[1], outs
    assert 'HAS True True' in outs[1]


def test_deprecated_launch_passes_local_rank(tmp_path):
    script = tmp_path / 'worker.py'
    script.write_text(WORKER)
    p = subprocess.Popen([sys.executable, '-m', 'ember.distributed.launch', '--nproc_per_node=2',
                          f'--master_port={free_port()}', str(script), 'x'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rc, out, err = _done(p)
    assert rc == 0, out + err
    assert 'torch.distributed.launch is deprecated' in err
    rows = {r['RANK']: r for r in _envs(out)}
    assert len(rows) == 2
    lines = sorted(line for line in out.splitlines() if line.startswith('ENV'))
    assert "ARGS ['x', '--local-rank=0']" in lines[0] and "ARGS ['x', '--local-rank=1']" in lines[1]


def test_record_writes_error_file(tmp_path, monkeypatch):
    import json
    from ember.distributed.elastic.multiprocessing.errors import record
    f = tmp_path / 'err.json'
    monkeypatch.setenv('TORCHELASTIC_ERROR_FILE', str(f))

    @record
    def main():
        raise KeyError('boom')
    with pytest.raises(KeyError):
        main()
    msg = json.loads(f.read_text())['message']
    assert msg['message'] == "KeyError: 'boom'" and 'raise KeyError' in msg['extraInfo']['py_callstack']


def test_sigterm_stops_workers_and_redirects(tmp_path):
    import signal
    import time
    p = _launch(tmp_path, ['--standalone', '--nproc-per-node=2'], ['sleep'])
    pids = []
    end = time.monotonic() + 30
    while len(pids) < 2 and time.monotonic() < end:
        line = p.stdout.readline()
        if line.startswith('PID '):
            pids.append(int(line.split()[1]))
    assert len(pids) == 2
    p.send_signal(signal.SIGTERM)
    rc, out, err = _done(p, timeout=20)
    assert rc != 0 and 'SignalException' in err
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    # --redirects with --log-dir: each worker's output lands in its own files
    logs = tmp_path / 'logs'
    rc, out, err = _done(_launch(tmp_path, [f'--master-port={free_port()}', '--nproc-per-node=2',
                                            '--redirects=1', f'--log-dir={logs}',
                                            '--rdzv-id=job7']))
    assert rc == 0, out + err
    assert 'ENV' not in out
    for lr in range(2):
        text = (logs / 'job7' / 'attempt_0' / str(lr) / 'stdout.log').read_text()
        assert f'LOCAL_RANK={lr}' in text


ELASTIC = r'''
import os, sys
from ember.distributed.launcher import LaunchConfig, elastic_launch

def work(x):
    import ember, ember.distributed as dist
    dist.init_process_group('gloo')
    t = ember.tensor([float(dist.get_rank())]); dist.all_reduce(t)
    return (int(os.environ['RANK']), os.environ['LOCAL_WORLD_SIZE'], x, t.item())

if __name__ == '__main__':
    cfg = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
                       rdzv_endpoint='127.0.0.1:' + sys.argv[1], max_restarts=0)
    print(elastic_launch(cfg, work)('hi'))
'''


def test_elastic_launch_of_a_function(tmp_path):
    script = tmp_path / 'el.py'
    script.write_text(ELASTIC)
    p = subprocess.run([sys.executable, str(script), str(free_port())], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "{0: (0, '2', 'hi', 1.0), 1: (1, '2', 'hi', 1.0)}"
