"""The strict check backend (ember/_backend/strict_backend.py): its own behaviour, and a
representative subset of the op database run on it, so that an op body that calls numpy
directly on tensor data (instead of its inputs' ``xp``) fails in CI without a GPU.

The whole op database runs on it with ``pytest tests/_ops/test_opdb.py --strict-backend``.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import _backend
from ember._backend import strict_backend as sb

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)

# Op-database entries whose bodies still compute with numpy around ``xp`` (remove an entry
# when its op is fixed: the xfail is strict).
KNOWN_BYPASS = set()   # op bodies that still go around xp (none known)


# ------------------------------------------------------------------ the backend itself
def test_numpy_functions_are_refused():
    a = sb.to_strict(np.arange(4.))
    with pytest.raises(sb.StrictBackendError, match='numpy.exp called directly'):
        np.exp(a)
    with pytest.raises(sb.StrictBackendError, match='numpy.*sum'):
        np.sum(a)
    with pytest.raises(sb.StrictBackendError):
        np.add.reduce(a)
    with pytest.raises(sb.StrictBackendError):
        np.concatenate([a, a])


def test_the_strict_module_computes_and_stays_strict():
    xp = sb.STRICT
    a = sb.to_strict(np.arange(6.).reshape(2, 3))
    for r in (xp.exp(a), xp.concatenate([a, a]), xp.add.reduce(a, axis=0), xp.zeros(3),
              xp.linalg.svd(a)[0], xp.where(a > 2, a, 0), a.sum(axis=1), a + 1, 2 * a, -a,
              a.T, a[0], a.astype(np.float32), xp.lib.stride_tricks.as_strided(a, (3,), (8,))):
        assert type(r) is sb.StrictArray, r
    np.testing.assert_array_equal(xp.exp(a).get(), np.exp(np.arange(6.).reshape(2, 3)))
    assert type(a.get()) is np.ndarray
    assert xp.float32 is np.float32 and xp.ndarray is sb.StrictArray and xp.pi == np.pi
    b = a.copy()
    b += 1
    assert type(b) is sb.StrictArray and b.get()[0, 0] == 1
    z = xp.zeros(3)
    xp.add.at(z, xp.asarray([0, 0, 2]), 1.)
    assert z.get().tolist() == [2., 0., 1.]
    assert type(np.float32(2) * a) is sb.StrictArray   # a numpy scalar's operator
    assert float(a[1, 1]) == 4.0 and '4.' in repr(a) and '4.' in str(a)


def test_host_arrays_do_not_mix_with_strict_ones():
    xp = sb.STRICT
    a = sb.to_strict(np.arange(3.))
    with pytest.raises(sb.StrictBackendError, match='host numpy.ndarray'):
        a + np.ones(3)
    with pytest.raises(sb.StrictBackendError, match='host numpy.ndarray'):
        xp.maximum(a, np.ones(3))
    assert type(xp.asarray(np.ones(3))) is sb.StrictArray   # conversions take host data
    assert (a + np.float64(1)).get().tolist() == [1., 2., 3.]


def test_array_module_and_devices():
    a = sb.to_strict(np.ones(2))
    assert _backend.array_module(a) is sb.STRICT
    assert _backend.array_module(np.ones(2)) is np
    assert _backend.device_of(a) == ember.device('cpu')
    t = ember._tensor._new_tensor(a)
    assert t.device.type == 'cpu' and t.tolist() == [1., 1.]
    assert type(t.exp()._data) is sb.StrictArray


def test_enable_makes_cpu_tensors_strict():
    was = sb.enabled()
    sb.enable()
    try:
        assert type(ember.zeros(2)._data) is sb.StrictArray
        assert type(ember.tensor([1., 2.])._data) is sb.StrictArray
    finally:
        if not was:
            sb.disable()
    if not was:
        assert type(ember.zeros(2)._data) is np.ndarray


def test_backend_all_lists_what_exists():
    assert all(hasattr(_backend, n) for n in _backend.__all__)
    assert all(hasattr(sb, n) for n in sb.__all__)


# ------------------------------------------------------------------ the op database on it
def _strict_params():
    from _ops import opdb
    from _ops.test_opdb import _samples
    out = []
    for op in opdb.OPS:
        dt = op.dtypes[0]
        for i, s in enumerate(_samples(op, dt)[:2]):
            marks = ()
            if op.name in KNOWN_BYPASS or op.name.split(':')[0] in KNOWN_BYPASS:
                marks = pytest.mark.xfail(raises=(sb.StrictBackendError, AssertionError),
                                          strict=False, reason='op body bypasses xp')
            out.append(pytest.param(op, dt, s, id=f'{op.name}-{dt}-{i}:{s.desc}', marks=marks))
    return out


@pytest.mark.strict_backend_only       # runs in the child of the test below (conftest.py)
@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('op,dtype,s', _strict_params() if sb.enabled() else [])
def test_op_on_strict_backend(op, dtype, s):
    from _ops import test_opdb
    test_opdb.test_op(op, dtype, s)


def test_opdb_subset_on_strict_backend():
    """Run ``test_op_on_strict_backend`` in a fresh process with the strict backend on (it
    is process-wide state: the CPU device's array module)."""
    if sb.enabled():
        pytest.skip('already on the strict backend: the parametrized test runs directly')
    env = dict(os.environ, EMBER_STRICT_BACKEND='1', OMP_NUM_THREADS='1')
    r = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-x', '-p', 'no:cacheprovider',
                        '-p', 'no:randomly', '--tb=short',
                        f'{__file__}::test_op_on_strict_backend'],
                       cwd=TESTS, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert ' passed' in r.stdout
