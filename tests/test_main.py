"""Tests for ``python -m ember run``: the torch -> ember import hook."""
import os
import subprocess
import sys

from _side_by_side import run_side_by_side

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
    for name, r in zip(('ember', 'torch'), run_side_by_side(
            [[sys.executable, '-m', 'ember', 'run', script, '3'], [sys.executable, script, '3']],
            timeout=300, env=env)):
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


def test_run_answers_as_torch():
    """Under ``run``, torch.__version__ is a TorchVersion 2.13.0 with ember's version as the
    local tag, importlib.metadata finds a torch distribution of that version (in children
    too, before they import torch), torch.version agrees; ember's own version stays plain
    outside that mode."""
    import ember
    r = _run("run", os.path.join(HERE, "scripts", "torch_identity_script.py"))
    assert r.returncode == 0, r.stderr
    tv = f"2.13.0+ember{ember.version._EMBER_VERSION}"
    assert r.stdout.splitlines() == [
        f"TorchVersion {tv} True True False", f"{tv} str None True", f"{tv} torch torch",
        tv, f"{tv} TorchVersion ember"]
    out = subprocess.run([sys.executable, "-c", "import ember; print(repr(ember.__version__), "
                          "ember.version.__version__)"], capture_output=True, text=True)
    assert out.stdout.split() == ["'0.1.0'", "0.1.0"]


def _tree(root):
    """Every path under ``root`` with its content digest (directories as None)."""
    import hashlib
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs:
            out[os.path.relpath(os.path.join(d, n), root)] = None
        for n in files:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def test_install_torch_in_a_plain_venv(tmp_path):
    """install-torch makes ``import torch`` ember in a venv that has no torch (pip then sees
    torch installed), reinstalls idempotently, refuses where a real torch is installed, and
    uninstall-torch (or pip uninstall torch) leaves the venv exactly as it was."""
    import numpy
    import ml_dtypes
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # ember's dependencies come from a side folder (the venv has neither them nor torch)
    deps = tmp_path / "deps"
    deps.mkdir()
    for mod in (numpy, ml_dtypes):
        pkg = os.path.dirname(mod.__file__)
        os.symlink(pkg, deps / os.path.basename(pkg))
        if os.path.isdir(pkg + ".libs"):
            os.symlink(pkg + ".libs", deps / (os.path.basename(pkg) + ".libs"))
    # a package that requires torch, for pip's view of the venv
    needs = os.path.join(site, "needs_torch-1.0.dist-info")
    os.makedirs(needs)
    with open(os.path.join(needs, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: needs-torch\nVersion: 1.0\n"
                "Requires-Dist: torch>=2.1\n")
    before = _tree(str(venv))
    root = os.path.dirname(HERE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, str(deps)]))
    env_plain = dict(os.environ, PYTHONPATH=str(deps))   # ember only through the .pth

    def ember_cmd(*args, e=env):
        return subprocess.run([py, "-m", "ember", *args], capture_output=True, text=True,
                              env=e, cwd=str(tmp_path), timeout=120)

    def pip(*args):
        return subprocess.run([sys.executable, "-m", "pip", "--python", py, *args],
                              capture_output=True, text=True, timeout=120)

    assert "needs-torch 1.0 requires torch, which is not installed" in pip("check").stdout
    r = ember_cmd("install-torch")
    assert r.returncode == 0 and "2.13.0+ember" in r.stdout, r.stderr
    assert ember_cmd("install-torch").returncode == 0        # again: replaces its own shim
    probe = ("import torch, torch.nn.functional as F, importlib.metadata as md\n"
             "x = torch.ones(2, requires_grad=True); F.relu(x * 2).sum().backward()\n"
             "print(torch.__name__, type(torch.__version__).__name__, md.version('torch'), "
             "x.grad.tolist())")
    r = subprocess.run([py, "-c", probe], capture_output=True, text=True, env=env_plain,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    name, kind, ver, grad = r.stdout.split(" ", 3)
    assert (name, kind, grad.strip()) == ("ember", "TorchVersion", "[2.0, 2.0]")
    assert ver.startswith("2.13.0+ember")
    assert "needs-torch" not in pip("check").stdout           # torch>=2.1 is satisfied
    r = ember_cmd("uninstall-torch")
    assert r.returncode == 0 and "removed" in r.stdout, r.stderr
    assert _tree(str(venv)) == before
    assert "nothing to do" in ember_cmd("uninstall-torch").stdout
    # pip removes it too (its RECORD lists every file)
    assert ember_cmd("install-torch").returncode == 0
    assert pip("uninstall", "-y", "torch").returncode == 0
    assert _tree(str(venv)) == before
    # a real torch: both commands refuse and change nothing
    real = os.path.join(site, "torch-2.13.0+cpu.dist-info")
    os.makedirs(real)
    with open(os.path.join(real, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0+cpu\n")
    with open(os.path.join(real, "INSTALLER"), "w") as f:
        f.write("pip\n")
    before = _tree(str(venv))
    for cmd, phrase in (("install-torch", "refusing to shadow it"),
                        ("uninstall-torch", "is not ember's shim")):
        r = ember_cmd(cmd)
        assert r.returncode == 1 and phrase in r.stderr, (r.stdout, r.stderr)
    assert _tree(str(venv)) == before
