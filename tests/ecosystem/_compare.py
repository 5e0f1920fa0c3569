"""Run one program of ``programs/`` on real torch and on ember (``python -m ember run``) and
compare every number it prints."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_NUM = re.compile(r'-?\d+(?:\.\d+)?(?:e[-+]?\d+)?')


def run(program, timeout=600):
    path = os.path.join(HERE, 'programs', program)
    env = dict(os.environ, OMP_NUM_THREADS='1', TOKENIZERS_PARALLELISM='false',
               HF_HUB_OFFLINE='1', TRANSFORMERS_VERBOSITY='error', PYTHONWARNINGS='ignore')
    # the two runs are independent processes: run them side by side (each is one thread)
    procs = {}
    try:
        for name, cmd in (('torch', [sys.executable, path]),
                          ('ember', [sys.executable, '-m', 'ember', 'run', path])):
            procs[name] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True, env=env, cwd=ROOT)
        done = {name: p.communicate(timeout=timeout) for name, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    out = {}
    for name in ('torch', 'ember'):
        stdout, stderr = done[name]
        assert procs[name].returncode == 0, f"{program} failed on {name}:\n{stderr[-4000:]}"
        out[name] = [ln for ln in stdout.splitlines() if ln.startswith('@')]
    return out['torch'], out['ember']


def compare(program, rtol=1e-4, atol=1e-5):
    """Every ``@``-line must name the same things, and its numbers agree within tolerance
    (integers, such as token ids, exactly)."""
    t, e = run(program)
    assert len(t) == len(e) and t, (t, e)
    for lt, le in zip(t, e):
        assert _NUM.sub('#', lt) == _NUM.sub('#', le), (lt, le)
        for a, b in zip(_NUM.findall(lt), _NUM.findall(le)):
            if re.fullmatch(r'-?\d+', a):
                assert a == b, (lt, le)
            else:
                fa, fb = float(a), float(b)
                assert abs(fa - fb) <= atol + rtol * abs(fa), (lt, le)
    return t, e
