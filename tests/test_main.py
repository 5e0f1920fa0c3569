"""Tests for ``python -m ember run``: the torch -> ember import hook."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(*args):
    return subprocess.run([sys.executable, "-m", "ember", *args], capture_output=True,
                          text=True, timeout=120, cwd=os.path.dirname(HERE))


def test_hook_argv_name_and_missing_module():
    r = _run("run", os.path.join(HERE, "scripts", "hook_check_script.py"), "a", "b")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ember True [") and lines[0].endswith("'a', 'b'] __main__")
    assert lines[1] == "No module named 'torch._inductor'"


def test_help():
    for args in (("--help",), ("run", "--help")):
        r = _run(*args)
        assert r.returncode == 0 and "usage: python -m ember run" in r.stdout


def test_dataloader_spawn_workers_keep_mapping():
    r = _run("run", os.path.join(HERE, "scripts", "spawn_loader_script.py"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]"


def test_torch_script_prints_torch_numbers():
    """An unmodified torch training script prints the same losses under ``python -m ember
    run`` as under real PyTorch (the seeded data, shuffles, dropout masks and initial
    weights come from the same random streams)."""
    script = os.path.join(os.path.dirname(__file__), 'scripts', 'torch_train_script.py')
    env = dict(os.environ, OMP_NUM_THREADS='1')
    runs = {}
    for name, cmd in (('ember', [sys.executable, '-m', 'ember', 'run', script, '3']),
                      ('torch', [sys.executable, script, '3'])):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        assert r.returncode == 0, r.stderr
        runs[name] = r.stdout.split('\n')
    assert runs['ember'][-2] == 'backend ember' and runs['torch'][-2] == 'backend torch'
    le = [float(l.split()[-1]) for l in runs['ember'] if l.startswith('epoch')]
    lt = [float(l.split()[-1]) for l in runs['torch'] if l.startswith('epoch')]
    assert len(le) == len(lt) == 4
    assert all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for a, b in zip(le, lt)), (le, lt)


def test_children_keep_the_mapping():
    script = os.path.join(os.path.dirname(__file__), 'scripts', 'children_script.py')
    r = subprocess.run([sys.executable, '-m', 'ember', 'run', script], capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, OMP_NUM_THREADS='1'))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split('\n')
    assert "spawn [(0, 'ember'), (1, 'ember')]" in lines
    assert "forkserver [(0, 'ember'), (1, 'ember')]" in lines
    assert 'subprocess ember' in r.stdout
