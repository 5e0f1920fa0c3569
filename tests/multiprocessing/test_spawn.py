"""ember.multiprocessing.spawn / start_processes: joining, and a child's failure re-raised
with its traceback (ProcessRaisedException) or exit status (ProcessExitedException)."""
import pickle
import warnings

import pytest
import torch.multiprocessing as tmp

import ember
import ember.multiprocessing as mp
import _mp_targets as targets


def test_spawn_runs_every_rank(tmp_path):
    mp.spawn(targets.write_rank, args=(str(tmp_path), 's'), nprocs=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ['s0', 's1']


def test_start_processes_fork_and_context(tmp_path):
    ctx = mp.start_processes(targets.write_rank, args=(str(tmp_path), 'f'), nprocs=2,
                             join=False, start_method='fork')
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    while not ctx.join(timeout=30):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ['f0', 'f1']
    assert ctx.join() is True


def test_child_exception_is_reraised_with_traceback():
    with pytest.raises(mp.ProcessRaisedException) as ei:
        mp.start_processes(targets.raise_on_one, nprocs=2, start_method='fork')
    e = ei.value
    msg = str(e)
    assert msg.startswith('\n\n-- Process 1 terminated with the following error:\n')
    assert 'Traceback (most recent call last):' in msg
    assert "raise ValueError(f'bad rank {i}')" in msg and 'ValueError: bad rank 1' in msg
    assert e.error_index == 1 and isinstance(e.error_pid, int)
    assert isinstance(e, mp.ProcessException)


def test_child_exit_code_and_signal():
    with pytest.raises(mp.ProcessExitedException) as ei:
        mp.start_processes(targets.exit_code, args=(3,), nprocs=1, start_method='fork')
    assert str(ei.value) == 'process 0 terminated with exit code 3'
    assert ei.value.exit_code == 3 and ei.value.signal_name is None
    with pytest.raises(mp.ProcessExitedException) as ei:
        mp.start_processes(targets.kill_self, nprocs=1, start_method='fork')
    assert str(ei.value) == 'process 0 terminated with signal SIGKILL'
    assert ei.value.exit_code == -9 and ei.value.signal_name == 'SIGKILL'


def test_exceptions_pickle_like_torch():
    for mod in (mp, tmp):
        e = mod.ProcessExitedException('m', 1, 2, -9, 'SIGKILL')
        r = pickle.loads(pickle.dumps(e))
        assert (r.msg, r.error_index, r.error_pid, r.exit_code, r.signal_name) == \
            ('m', 1, 2, -9, 'SIGKILL')
        r = pickle.loads(pickle.dumps(mod.ProcessRaisedException('x', 0, 5)))
        assert (str(r), r.error_index, r.error_pid) == ('x', 0, 5)


def test_spawn_warns_for_other_start_methods_like_torch():
    got = []
    for mod in (mp, tmp):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            mod.spawn(targets.write_rank, nprocs=0, start_method='fork')
        got.append([(x.category, str(x.message)) for x in w])
    assert got[0] == got[1] and got[0][0][0] is FutureWarning
    with pytest.warns(UserWarning, match='SpawnContext is renamed to ProcessContext'):
        mp.SpawnContext([], [])


def test_namespace_matches_torch():
    assert set(mp.__all__) == set(tmp.__all__)
    for name in tmp.__all__:
        assert hasattr(mp, name), name
    import multiprocessing
    assert mp.Process is multiprocessing.Process and mp.get_context is multiprocessing.get_context
    assert ember.multiprocessing is mp


def test_importing_the_submodule_keeps_the_function():
    import subprocess
    import sys
    code = ("import sys, ember.multiprocessing.spawn, torch.multiprocessing.spawn; "
            "import ember.multiprocessing as mp, torch.multiprocessing as tmp; "
            "sub, tsub = (sys.modules[m + '.multiprocessing.spawn'] for m in ('ember', 'torch')); "
            "assert callable(mp.spawn) and mp.spawn is sub.spawn; "
            "assert callable(tmp.spawn) and tmp.spawn is tsub.spawn; print('ok')")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.strip() == 'ok', r.stderr
