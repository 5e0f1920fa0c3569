"""PyTorch's own test databases as a test source for ember.

``torch.testing._internal.common_methods_invocations.op_db`` (with the
``opinfo.definitions`` databases) and ``common_modules.module_db`` are walked by
``tests/_torch_opdb_walk.py`` in a subprocess (importing ``torch.testing._internal`` freezes
``torch.backends`` flags, patches TorchScript's call paths and sets environment variables
and warning filters, which would leak into the rest of the suite): every sample converted
to ember tensors, called as function, method and in-place variant, compared with torch
(values, dtype, shape with torch's per-op tolerances; float64 gradients under a random
upstream gradient), every ``error_input`` raising torch's exception class, every module
input run on both modules with torch's parameters copied into ember's.

CI walks a deterministic slice (ops and modules whose name hashes into one bucket of
``SLICE_MOD``; float64 plus one integer or bool dtype); ``EMBER_OPDB_FULL=1`` (or
``pytest --opdb-full``) walks every op, module and CPU dtype.

Every reported difference must be listed in ``KNOWN`` with its reason, and a reasoned
difference that no longer shows fails the test until it is removed (an op listed as missing
that arrives is reported with a warning): ``KNOWN`` is kept as short as it is honest.
"""
import json
import os
import sys
import warnings

import pytest

from _side_by_side import run_side_by_side

HERE = os.path.dirname(os.path.abspath(__file__))
WALK = os.path.join(HERE, '_torch_opdb_walk.py')

MISSING = 'missing: tracked by issue 21'
_UNBOUND_DUNDER = ("the unbound dunder called with a number as self: ember's Tensor.__r*__ "
                   "is the op itself (one definition per op), which takes a number first")

_SVD_SIGN = ("singular vectors are unique only up to sign; for a wide real matrix the LAPACK "
             "build (NumPy's OpenBLAS vs torch's MKL) picks a different one (the gradients, "
             "through sign-invariant functions, agree)")

# op / module key -> (pattern, reason): every failure the walk reports for that key must
# contain ``pattern`` (other failures of the same op still fail), and a key that no longer
# fails at all must be removed. Ops ember lacks are ('missing:', MISSING).
KNOWN = {
    # ops ember does not have yet
    'jiterator_binary': ('missing:', MISSING),
    'sparse.sampled_addmm': ('missing:', MISSING),
    # reasoned differences
    '__radd__': ('error_input: ember did not raise', _UNBOUND_DUNDER),
    '__rand__': ('error_input: ember did not raise', _UNBOUND_DUNDER),
    '__ror__': ('error_input: ember did not raise', _UNBOUND_DUNDER),
    '__rxor__': ('error_input: ember did not raise', _UNBOUND_DUNDER),
    'linalg.eigh': ('out[1]: values differ',
                    'eigenvectors are unique only up to sign; the LAPACK build (NumPy\'s '
                    'OpenBLAS vs torch\'s MKL) picks the sign'),
    'topk': ('int64: out[1]: values differ',
             'indices of tied integer values: torch leaves their order unspecified'),
    'linalg.svd': ('out[0]: values differ', _SVD_SIGN),
    'svd': ('out[0]: values differ', _SVD_SIGN),
    'svd_lowrank': ('out[0]: values differ', _SVD_SIGN),
    'pca_lowrank': ('out[0]: values differ', _SVD_SIGN),
    'linalg.eig': ('out[1]: values differ',
                   'eigenvectors are unique only up to phase; the LAPACK build picks it '
                   '(the gradients, through phase-invariant functions, agree)'),
}


def _full(config):
    return bool(os.environ.get('EMBER_OPDB_FULL')) or config.getoption('--opdb-full',
                                                                       default=False)


@pytest.fixture(scope='module')
def walk(request, tmp_path_factory):
    full = _full(request.config)
    d = tmp_path_factory.mktemp('opdb')
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONWARNINGS='ignore')
    # the op walk and the module walk: two independent one-thread processes, side by side
    parts = {'ops': [], 'modules': ['--modules', '--no-ops']}
    runs = run_side_by_side(
        [[sys.executable, WALK, *args, '--json', str(d / f'{part}.json')] +
         (['--full'] if full else []) for part, args in parts.items()],
        timeout=None if full else 600, env=env)
    rep = {}
    for part, r in zip(parts, runs):
        assert r.returncode == 0, r.stderr[-4000:]
        with open(d / f'{part}.json') as f:
            rep[part] = json.load(f)[part]
    return rep, full


def _report(fails):
    lines = []
    for k in sorted(fails):
        lines.append(f'{k}:')
        lines.extend(f'    {m}' for m in fails[k][:4])
    return '\n'.join(lines)


def _unexpected(key, fails):
    """The failures of ``key`` that KNOWN does not account for."""
    if key not in KNOWN:
        return fails
    pattern = KNOWN[key][0]
    return [m for m in fails if pattern not in m]


def _check(section, walk):
    rep, full = walk
    got = rep[section]
    assert got, f'the walk covered no {section}'
    unexpected = {}
    for k, v in got.items():
        u = _unexpected(k, v)
        if u:
            unexpected[k] = u
    fixed = [k for k, v in got.items() if not v and k in KNOWN]
    assert not unexpected, (f'{len(unexpected)} of {len(got)} {section} differ from torch '
                            f'(fix them, or list them in KNOWN with the reason):\n'
                            + _report(unexpected))
    # an op that arrived (work on it lands separately) is reported; a reasoned difference
    # that no longer shows fails, so KNOWN stays honest
    arrived = [k for k in fixed if KNOWN[k][1] == MISSING]
    if arrived:
        warnings.warn(f'these {section} are no longer missing; remove them from KNOWN: '
                      f'{arrived}')
    stale = [k for k in fixed if KNOWN[k][1] != MISSING]
    if not full:    # the full walk reports; the slice also keeps KNOWN honest
        assert not stale, f'these {section} now agree with torch; remove them from KNOWN: {stale}'


def test_op_db(walk):
    """Every op of torch's op_db in the slice agrees with torch on every sample."""
    _check('ops', walk)


def test_module_db(walk):
    """Every module of torch's module_db in the slice agrees with torch on every input."""
    _check('modules', walk)


def test_known_entries_have_reasons():
    for k, (pattern, reason) in KNOWN.items():
        assert isinstance(pattern, str) and isinstance(reason, str) and len(reason) > 10, k
        if pattern.startswith('missing:') or 'no attribute' in pattern:
            assert reason == MISSING, k
