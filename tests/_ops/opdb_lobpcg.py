"""Op-database entries of ``torch.lobpcg`` (ember/_ops/lobpcg.py) with a given start ``X``
(deterministic): eigenvalues, eigenvectors (each with its sign fixed: float32 rounding in
the small eigenproblems can flip it), the gradient with respect to ``A`` under a random
upstream gradient, float64 gradcheck, and the shape errors. More cases (random start, B, iK, methods, batches) are in
tests/_ops/test_lobpcg.py."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, FLOAT

OPS = []


def _spd(mk, m):
    q = np.linalg.qr(mk.rng.standard_normal((m, m)))[0]
    return np.asarray((q * np.linspace(1., 8., m)) @ q.T, mk.np)


def _x(mk, m, n):
    return np.asarray(mk.rng.standard_normal((m, n)), mk.np)


_F32_GRAD = (
    "float32: values compared, gradients only in float64 (tol 1e-10). At float32's default "
    "tol (3.5e-4) the pairs are converged only to ~1e-4, and the gradient (the same formula "
    "as torch's: on identical pairs the two agree to 1e-5) is so sensitive there that the "
    "rounding-level differences of the two iterations move it by ~1e-2 relative")


def _samples(mk):
    tol = 1e-10 if mk.dtype == F64 else None
    g = dict(grad=False, note=_F32_GRAD) if mk.dtype == F32 else {}
    yield S(_spd(mk, 9), 2, X=_x(mk, 9, 2), tol=tol, **g)
    yield S(_spd(mk, 9), 1, X=_x(mk, 9, 2), tol=tol, largest=False, **g)
    yield S(_spd(mk, 10), 2, X=_x(mk, 10, 3), tol=tol, method='basic', **g)
    yield S(_spd(mk, 6), 3, X=_x(mk, 6, 3), desc='m < 3n')
    yield S(np.zeros((3, 4), mk.np), 1, X=_x(mk, 3, 1), desc='not square')


def _lobpcg(m, A, *a, **kw):
    E, U = m.lobpcg(A, *a, **kw)
    s = m.sign((U ** 3).sum(0)).detach()      # eigenvectors up to sign: fix each one's sign
    return E, U * s


OPS.append(OpInfo('lobpcg', _lobpcg, _samples,
                  dtypes=FLOAT, rtol=1e-4, atol=1e-6, note=(
                      "the start X is a keyword array and becomes a tensor that requires grad "
                      "in both libraries; neither differentiates with respect to it")))
