"""Op-database entries of ``torch.linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``
(ember/_ops/ldl.py). PyTorch defines no derivative for them: where an input
requires grad both backwards must raise (the harness checks it). Pivots and ``LD`` are
compared element-wise with torch's (LAPACK ``?sytrf``)."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, FLOAT

C128 = 'complex128'
OPS = []


def _sym(mk, n, batch=(), zero_diag=False, herm=False):
    a = np.asarray(mk.rng.uniform(-2, 2, batch + (n, n)), mk.np)
    if mk.np.kind == 'c':
        a = a + 1j * np.asarray(mk.rng.uniform(-1, 1, batch + (n, n)))
        a = a.astype(mk.np)
    if zero_diag:
        a = a * (1 - np.eye(n, dtype=a.real.dtype))
    return a + (np.conj(np.swapaxes(a, -1, -2)) if herm else np.swapaxes(a, -1, -2))


def _factor_samples(mk, ex=False):
    yield S(_sym(mk, 4))
    yield S(_sym(mk, 5, zero_diag=True), desc='zero diagonal (2x2 pivots)')
    yield S(_sym(mk, 3, (2,)), desc='batched')
    yield S(np.asarray(mk.rng.uniform(-1, 1, (4, 4)), mk.np), desc='only the lower triangle')
    yield S(np.array([[0., 1.], [1., 0.]], mk.np), desc='2x2 block')
    yield S(np.zeros((0, 0), mk.np))
    yield S(np.zeros((2, 0, 0), mk.np))
    yield S(np.ones((1, 1), mk.np))
    if mk.np.kind == 'c':
        yield S(_sym(mk, 4, herm=True), hermitian=True, desc='hermitian')
    if ex:
        yield S(np.zeros((3, 3), mk.np), desc='singular: info 1')
        yield S(np.stack([_sym(mk, 3), np.zeros((3, 3), mk.np)]), desc='batch with info')
        yield S(np.zeros((3, 3), mk.np), check_errors=True, desc='check_errors')
    else:
        yield S(np.zeros((3, 3), mk.np), desc='singular')
    yield S(np.zeros((2, 3), mk.np), desc='not square')
    yield S(np.zeros((3,), mk.np), desc='1-D')


def _solve(m, A, B, **kw):
    LD, piv = m.linalg.ldl_factor(A.detach(), hermitian=kw.get('hermitian', False))
    LD = LD.requires_grad_(A.requires_grad)
    return m.linalg.ldl_solve(LD, piv, B, **kw)


def _solve_samples(mk):
    yield S(_sym(mk, 4), np.asarray(mk.rng.uniform(-1, 1, (4, 2)), mk.np))
    yield S(_sym(mk, 5, zero_diag=True), np.asarray(mk.rng.uniform(-1, 1, (5, 3)), mk.np))
    yield S(_sym(mk, 3, (2,)), np.asarray(mk.rng.uniform(-1, 1, (2, 3, 1)), mk.np))
    yield S(_sym(mk, 3), np.asarray(mk.rng.uniform(-1, 1, (4, 3, 2)), mk.np),
            desc='broadcast batch of B')
    yield S(_sym(mk, 3), np.zeros((3, 0), mk.np))
    if mk.np.kind == 'c':
        yield S(_sym(mk, 4, herm=True), np.asarray(mk.rng.uniform(-1, 1, (4, 2)), mk.np),
                hermitian=True)
    yield S(_sym(mk, 3), np.zeros((3,), mk.np), desc='1-D B')
    yield S(_sym(mk, 3), np.zeros((2, 2), mk.np), desc='size mismatch')


def _solve_err(m, A, B, which):
    LD, piv = m.linalg.ldl_factor(A)
    if which == 'piv':
        return m.linalg.ldl_solve(LD, piv[:2], B)
    if which == 'dtype':
        return m.linalg.ldl_solve(LD, piv, B.double() if B.dtype == m.float32 else B.float())
    return m.linalg.ldl_solve(LD, piv.long(), B)


def _solve_err_samples(mk):
    for w in ('piv', 'dtype', 'long'):
        yield S(_sym(mk, 3), np.ones((3, 2), mk.np), w, desc=w)


_NODERIV = "torch has no derivative for these ops: both backwards must raise"
OPS += [
    OpInfo('linalg.ldl_factor', lambda m, A, **kw: tuple(m.linalg.ldl_factor(A, **kw)),
           _factor_samples, dtypes=FLOAT + (C128,), gradcheck=False, note=_NODERIV),
    OpInfo('linalg.ldl_factor_ex', lambda m, A, **kw: tuple(m.linalg.ldl_factor_ex(A, **kw)),
           lambda mk: _factor_samples(mk, True), dtypes=FLOAT + (C128,), gradcheck=False,
           note=_NODERIV),
    OpInfo('linalg.ldl_solve', _solve, _solve_samples, dtypes=FLOAT + (C128,),
           gradcheck=False, note=_NODERIV),
    OpInfo('linalg.ldl_solve:errors', _solve_err, _solve_err_samples, dtypes=(F32,),
           gradcheck=False),
]
