"""Run one program of ``programs/`` on real torch and on ember (``python -m ember run``) and
compare every number it prints."""
import os
import re
import sys

from _side_by_side import run_side_by_side

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_NUM = re.compile(r'-?\d+(?:\.\d+)?(?:e[-+]?\d+)?')


def run(program, timeout=600):
    path = os.path.join(HERE, 'programs', program)
    env = dict(os.environ, OMP_NUM_THREADS='1', TOKENIZERS_PARALLELISM='false',
               HF_HUB_OFFLINE='1', TRANSFORMERS_VERBOSITY='error', PYTHONWARNINGS='ignore')
    runs = run_side_by_side([[sys.executable, path],
                             [sys.executable, '-m', 'ember', 'run', path]],
                            timeout=timeout, env=env, cwd=ROOT)
    out = {}
    for name, r in zip(('torch', 'ember'), runs):
        assert r.returncode == 0, f"{program} failed on {name}:\n{r.stderr[-4000:]}"
        out[name] = [ln for ln in r.stdout.splitlines() if ln.startswith('@')]
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
