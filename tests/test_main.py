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
    assert lines[1] == "No module named 'torch.fx'"


def test_help():
    for args in (("--help",), ("run", "--help")):
        r = _run(*args)
        assert r.returncode == 0 and "usage: python -m ember run" in r.stdout


def test_dataloader_spawn_workers_keep_mapping():
    r = _run("run", os.path.join(HERE, "scripts", "spawn_loader_script.py"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]"
