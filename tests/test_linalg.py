"""ember.linalg (and the top-level det/logdet/inverse/cholesky/pinverse/svd/qr) vs torch:
values, dtypes, shapes and gradients on well-conditioned inputs; decompositions whose
outputs are not unique are compared through invariant quantities."""
import math

import numpy as np
import pytest

import ember
from tests.oracle import check, check_error, gradcheck_ember, rand

DTYPES = [np.float32, np.float64]


def tol(dt):
    return dict(rtol=1e-4, atol=1e-4) if dt == np.float32 else dict(rtol=1e-7, atol=1e-8)


def wc(*shape, dtype=np.float64, seed=0):
    """A well-conditioned (diagonally dominant) square matrix or batch."""
    n = shape[-1]
    a = rand(*shape, dtype=np.float64, seed=seed, low=-1, high=1) + 3 * np.eye(n)
    return a.astype(dtype)


def spd(*shape, dtype=np.float64, seed=0):
    a = rand(*shape, dtype=np.float64, seed=seed, low=-1, high=1)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def sym(m, x):
    return (x + x.mT) / 2


def spd_of(m, x):
    return x @ x.mT + 3 * m.eye(x.shape[-1], dtype=x.dtype)


# ------------------------------------------------------------------ norms
VN = [(2, None, False), (1, None, False), (math.inf, None, False), (-math.inf, 1, False),
      (0, None, False), (3, -1, True), (0.5, (0, 1), False), (2, (-1, 0), True), (1.5, 0, False)]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('ord,dim,keepdim', VN)
def test_vector_norm(ord, dim, keepdim, dt):
    x = rand(3, 4, dtype=dt, seed=5)
    e, t = check(lambda m, x: m.linalg.vector_norm(x, ord, dim, keepdim), [x], grad=True, **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize('ord', [2, 1, math.inf, 3])
def test_vector_norm_gradcheck(ord):
    gradcheck_ember(lambda m, x: m.linalg.vector_norm(x, ord, -1), [rand(3, 4, seed=7)])


def test_vector_norm_special():
    check(lambda m, x: m.linalg.vector_norm(x), [np.zeros((2, 3))], grad=True)       # zero grad at 0
    check(lambda m, x: m.linalg.vector_norm(x), [rand(0, 3)], grad=True)
    check(lambda m, x: m.linalg.vector_norm(x), [np.array(3.0)], grad=True)
    check(lambda m, x: m.linalg.vector_norm(x, dtype=m.float64), [rand(3)], grad=True)
    check(lambda m, x: m.linalg.vector_norm(x), [rand(3, dtype=np.complex128)])
    check(lambda m, x: m.linalg.vector_norm(x, math.inf), [np.array([1., -3., 3.])], grad=True)
    check_error(lambda m, x: m.linalg.vector_norm(x), [rand(3, dtype=np.int64)],
                match='Expected a floating point or complex tensor as input. Got Long')
    check_error(lambda m, x: m.linalg.vector_norm(x, math.inf), [rand(0, 3)])


MN = ['fro', 'nuc', 2, -2, 1, -1, math.inf, -math.inf]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('ord', MN)
@pytest.mark.parametrize('keepdim', [False, True])
def test_matrix_norm(ord, keepdim, dt):
    x = rand(2, 3, 4, dtype=dt, seed=11)
    e, t = check(lambda m, x: m.linalg.matrix_norm(x, ord, keepdim=keepdim), [x], grad=True,
                 **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()
    check(lambda m, x: m.linalg.matrix_norm(x, ord, dim=(2, 0)), [x], grad=True, **tol(dt))


@pytest.mark.parametrize('ord', MN)
def test_matrix_norm_gradcheck(ord):
    gradcheck_ember(lambda m, x: m.linalg.matrix_norm(x, ord), [rand(3, 4, seed=3)])


@pytest.mark.parametrize('args', [dict(), dict(ord=1), dict(ord='fro'), dict(ord=2, dim=(0, 1)),
                                  dict(dim=1), dict(ord=math.inf, dim=0, keepdim=True)])
def test_norm(args):
    check(lambda m, x: m.linalg.norm(x, **args), [rand(3, 4, dtype=np.float64)], grad=True)
    if args.get('ord') != 'fro':
        check(lambda m, x: m.linalg.norm(x, **{k: v for k, v in args.items() if k != 'dim'}),
              [rand(4, dtype=np.float64)], grad=True)


def test_norm_errors():
    check_error(lambda m, x: m.linalg.matrix_norm(x), [rand(3)], match='at least 2 dimensions')
    check_error(lambda m, x: m.linalg.norm(x, 2), [rand(2, 3, 4)])


# ------------------------------------------------------------------ inverse / det / solve
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4), (0, 2, 2), (1, 1)])
def test_inv_det_slogdet(shape, dt):
    a = wc(*shape, dtype=dt, seed=2)
    for f in (lambda m, x: m.linalg.inv(x), lambda m, x: m.inverse(x), lambda m, x: x.inverse(),
              lambda m, x: m.linalg.inv_ex(x), lambda m, x: m.linalg.det(x), lambda m, x: m.det(x),
              lambda m, x: x.det(), lambda m, x: m.linalg.slogdet(x), lambda m, x: m.slogdet(x),
              lambda m, x: m.logdet(x)):
        e, t = check(f, [a], grad=True, **tol(dt))
        e0, t0 = (e[0], t[0]) if isinstance(t, tuple) else (e, t)
        if shape[0] and t0.grad_fn is not None and t0.grad_fn.name() != 'WhereBackward0':
            assert e0.grad_fn.name() == t0.grad_fn.name()


def test_logdet_negative_and_info():
    a = np.diag([-1.0, 2.0])
    check(lambda m, x: m.logdet(x), [a])
    e, t = check(lambda m, x: m.linalg.inv_ex(x), [np.eye(2)])
    assert str(e.info.dtype) == 'torch.int32'


@pytest.mark.parametrize('f', [lambda m, x: m.linalg.inv(x), lambda m, x: m.linalg.det(x),
                               lambda m, x: m.linalg.slogdet(x)[1], lambda m, x: m.logdet(x),
                               lambda m, x: m.linalg.matrix_power(x, 3),
                               lambda m, x: m.linalg.matrix_power(x, -2)])
def test_inverse_family_gradcheck(f):
    gradcheck_ember(f, [wc(2, 3, 3, seed=4)])


def test_inverse_double_backward():
    def f(m, x):
        y = m.linalg.det(x)
        g, = m.autograd.grad(y, x, create_graph=True)
        return g
    check(f, [wc(3, 3, seed=8)], grad=True)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('sa,sb,left', [((3, 3), (3, 2), True), ((3, 3), (3,), True),
                                        ((2, 3, 3), (3, 4), True), ((2, 3, 3), (2, 3), True),
                                        ((3, 3), (2, 3), False), ((1, 3, 3), (4, 3, 1), True)])
def test_solve(sa, sb, left, dt):
    a, b = wc(*sa, dtype=dt, seed=3), rand(*sb, dtype=dt, seed=4)
    e, t = check(lambda m, x, y: m.linalg.solve(x, y, left=left), [a, b], grad=True, **tol(dt))
    if left:
        assert e.grad_fn.name() == t.grad_fn.name()
    if dt == np.float64:
        gradcheck_ember(lambda m, x, y: m.linalg.solve(x, y, left=left), [a, b])


@pytest.mark.parametrize('upper,left,uni', [(True, True, False), (False, True, False),
                                            (True, False, True), (False, False, False)])
def test_solve_triangular(upper, left, uni):
    a, b = wc(3, 3, seed=1), rand(3, 2, seed=2) if left else rand(2, 3, seed=2)
    e, t = check(lambda m, x, y: m.linalg.solve_triangular(x, y, upper=upper, left=left,
                                                           unitriangular=uni), [a, b], grad=True)
    assert e.grad_fn.name() == t.grad_fn.name()
    gradcheck_ember(lambda m, x, y: m.linalg.solve_triangular(x, y, upper=upper, left=left,
                                                              unitriangular=uni), [a, b])


def test_inverse_errors():
    check_error(lambda m, x: m.linalg.inv(x), [np.zeros((3, 3))], match='singular')
    check_error(lambda m, x: m.linalg.inv(x), [rand(3, 4)],
                match='linalg.inv: A must be batches of square matrices, but they are 3 by 4 matrices')
    check_error(lambda m, x: m.linalg.inv(x), [np.ones((3, 3), np.int64)],
                match='Expected a floating point or complex tensor as input. Got Long')
    check_error(lambda m, x: m.linalg.det(x), [rand(2, 3)], match='square matrices')
    check_error(lambda m, x, y: m.linalg.solve(x, y), [np.zeros((3, 3)), rand(3, dtype=np.float64)],
                match='singular')
    check_error(lambda m, x, y: m.linalg.solve(x, y), [rand(3, 3), rand(4)],
                match='Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)')
    check_error(lambda m, x: m.linalg.cholesky(x), [-np.eye(3)], match='positive-definite')
    check_error(lambda m, x: m.linalg.eigh(x), [rand(2, 3)], match='square matrices')
    check_error(lambda m, x: m.linalg.svd(x), [rand(3)], match='at least 2 dimensions')
    check_error(lambda m, x: m.linalg.qr(x), [rand(3)], match='at least 2 dimensions')
    check_error(lambda m, x: m.linalg.qr(x, mode='x'), [rand(3, 2)], match='unrecognized mode')
    check_error(lambda m, x: m.linalg.matrix_power(x, 2), [rand(2, 3)], match='square matrices')
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.inv(ember.zeros(2, 2))


# ------------------------------------------------------------------ cholesky
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('upper', [False, True])
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4)])
def test_cholesky(shape, upper, dt):
    a = spd(*shape, dtype=dt, seed=6)
    e, t = check(lambda m, x: m.linalg.cholesky(sym(m, x), upper=upper), [a], grad=True, **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()
    e, t = check(lambda m, x: m.cholesky(sym(m, x), upper), [a], grad=True, **tol(dt))
    check(lambda m, x: m.linalg.cholesky_ex(x), [a], **tol(dt))


def test_cholesky_gradcheck():
    gradcheck_ember(lambda m, x: m.linalg.cholesky(spd_of(m, x)), [rand(2, 3, 3, seed=1)])
    gradcheck_ember(lambda m, x: m.linalg.cholesky(spd_of(m, x), upper=True), [rand(3, 3, seed=2)])


# ------------------------------------------------------------------ qr
def _sign_fix_qr(m, Q, R):
    d = m.sign(R.diagonal(0, -2, -1))
    return Q * d.unsqueeze(-2), R * d.unsqueeze(-1)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape', [(4, 3), (3, 3), (2, 5, 3), (3, 5)])
def test_qr(shape, dt):
    a = rand(*shape, dtype=dt, seed=9)

    def f(m, x):
        Q, R = m.linalg.qr(x)
        Qf, Rf = _sign_fix_qr(m, Q, R)
        return Qf, Rf, Q @ R
    check(f, [a], grad=True, **tol(dt))
    e, t = check(lambda m, x: m.linalg.qr(x, mode='complete')[0] @ m.linalg.qr(x, mode='complete')[1],
                 [a], **tol(dt))
    check(lambda m, x: m.linalg.qr(x, mode='r')[1].abs(), [a], **tol(dt))
    check(lambda m, x: m.linalg.qr(x, mode='r')[0], [a])
    e, t = check(lambda m, x: m.qr(x), [a], **tol(dt))
    assert type(e).__name__ == 'qr'


@pytest.mark.parametrize('shape', [(4, 3), (3, 3), (3, 5)])
def test_qr_gradcheck(shape):
    gradcheck_ember(lambda m, x: _sign_fix_qr(m, *m.linalg.qr(x)), [rand(*shape, seed=2)])


# ------------------------------------------------------------------ svd
def _sign_fix_svd(m, U, S, Vh):
    d = m.sign(U[..., :1, :])
    return U * d, S, Vh * d.mT


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape', [(4, 3), (3, 3), (2, 3, 5)])
def test_svd(shape, dt):
    a = rand(*shape, dtype=dt, seed=12)
    k = min(shape[-2:])

    def f(m, x):
        U, S, Vh = m.linalg.svd(x, full_matrices=False)
        return _sign_fix_svd(m, U, S, Vh)
    e, t = check(f, [a], grad=True, **tol(dt))
    e, t = check(lambda m, x: m.linalg.svd(x).S, [a], grad=True, **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()

    def full(m, x):
        U, S, Vh = m.linalg.svd(x)
        return U.shape, Vh.shape, (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    check(full, [a], **tol(dt))
    check(lambda m, x: m.linalg.svdvals(x), [a], grad=True, **tol(dt))

    def tsvd(m, x):
        U, S, V = m.svd(x)
        d = m.sign(U[..., :1, :])
        return U * d, S, V * d
    check(tsvd, [a], grad=True, **tol(dt))


@pytest.mark.parametrize('shape', [(4, 3), (3, 3), (3, 5)])
def test_svd_gradcheck(shape):
    gradcheck_ember(lambda m, x: _sign_fix_svd(m, *m.linalg.svd(x, full_matrices=False)),
                    [rand(*shape, seed=2)])
    gradcheck_ember(lambda m, x: m.linalg.svdvals(x), [rand(*shape, seed=3)])


# ------------------------------------------------------------------ eigh
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4)])
def test_eigh(shape, dt):
    a = rand(*shape, dtype=dt, seed=13)

    def f(m, x):
        L, V = m.linalg.eigh(sym(m, x))
        return L, V * m.sign(V[..., :1, :])
    e, t = check(f, [a], grad=True, **tol(dt))
    e, t = check(lambda m, x: m.linalg.eigvalsh(sym(m, x)), [a], grad=True, **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()
    check(lambda m, x: m.linalg.eigvalsh(x, UPLO='U'), [a], **tol(dt))


def test_eigh_gradcheck():
    gradcheck_ember(lambda m, x: [(lambda L, V: (L, V * m.sign(V[..., :1, :])))(
        *m.linalg.eigh(sym(m, x)))][0], [rand(2, 3, 3, seed=1)])
    gradcheck_ember(lambda m, x: m.linalg.eigvalsh(sym(m, x)), [rand(3, 3, seed=2)])


def test_eig():
    a = np.array([[2., 1.], [0., 3.]])
    check(lambda m, x: m.linalg.eigvals(x).real.sort().values, [a])


# ------------------------------------------------------------------ pinv / lstsq / rank / power
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape', [(4, 3), (3, 4), (3, 3), (2, 4, 2)])
def test_pinv(shape, dt):
    a = rand(*shape, dtype=dt, seed=14)
    if shape[-1] == shape[-2]:
        a = wc(*shape, dtype=dt, seed=14)
    e, t = check(lambda m, x: m.linalg.pinv(x), [a], grad=True, **tol(dt))
    assert e.grad_fn.name() == t.grad_fn.name()
    check(lambda m, x: m.pinverse(x), [a], grad=True, **tol(dt))
    if dt == np.float64:
        gradcheck_ember(lambda m, x: m.linalg.pinv(x), [a])


def test_pinv_options():
    a = np.diag([3.0, 1e-3, 0.0])
    check(lambda m, x: m.linalg.pinv(x), [a])
    check(lambda m, x: m.linalg.pinv(x, atol=1e-2), [a])
    check(lambda m, x: m.linalg.pinv(x, rtol=0.1), [a])
    check(lambda m, x: m.linalg.pinv(x, hermitian=True), [spd(3, 3)])


@pytest.mark.parametrize('driver', [None, 'gelsd', 'gelss', 'gelsy'])
@pytest.mark.parametrize('sa,sb', [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5, 2)),
                                   ((3, 3), (3, 1))])
def test_lstsq(sa, sb, driver):
    a, b = rand(*sa, dtype=np.float64, seed=1), rand(*sb, dtype=np.float64, seed=2)
    e, t = check(lambda m, x, y: tuple(m.linalg.lstsq(x, y, driver=driver)), [a, b])
    check(lambda m, x, y: m.linalg.lstsq(x, y, driver=driver).solution, [a, b], grad=True)
    assert e[0].grad_fn is None
    ee = ember.linalg.lstsq(ember.from_numpy(a), ember.from_numpy(b), driver=driver)
    assert ee.solution is ee[0] and ee.rank is ee[2]


def test_lstsq_gradcheck():
    gradcheck_ember(lambda m, x, y: m.linalg.lstsq(x, y).solution,
                    [rand(5, 3, seed=1), rand(5, 2, seed=2)])


@pytest.mark.parametrize('n', [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    a = wc(2, 3, 3, seed=5)
    check(lambda m, x: m.linalg.matrix_power(x, n), [a], grad=True)
    check(lambda m, x: x[0].matrix_power(n), [a], grad=True)
    check(lambda m, x: m.matrix_power(x[0], n), [a], grad=True)


def test_matrix_power_grad_fn():
    a = wc(3, 3, seed=5)
    for n in (1, 3, -2):
        e, t = check(lambda m, x: m.linalg.matrix_power(x, n), [a], grad=True)
        assert e.grad_fn.name() == t.grad_fn.name()


def test_matrix_rank():
    a = rand(4, 2, seed=1) @ rand(2, 5, seed=2)
    check(lambda m, x: m.linalg.matrix_rank(x), [a])
    check(lambda m, x: m.linalg.matrix_rank(x), [np.stack([a, rand(4, 5)])])
    check(lambda m, x: m.linalg.matrix_rank(x, atol=1.0, rtol=0.0), [rand(4, 5)])
    check(lambda m, x: m.linalg.matrix_rank(x, hermitian=True), [spd(4, 4)])


def test_multi_dot_and_vecdot():
    check(lambda m, x, y: m.linalg.vecdot(x, y), [rand(2, 3), rand(3)], grad=True)
    check(lambda m, x, y, z: m.linalg.multi_dot([x, y, z]), [rand(2, 3), rand(3, 4), rand(4, 1)],
          grad=True)
    check(lambda m, x, y: m.linalg.matmul(x, y), [rand(2, 3), rand(3, 4)], grad=True)


def test_return_type_fields():
    a = ember.from_numpy(wc(3, 3))
    assert ember.linalg.slogdet(a).logabsdet is ember.linalg.slogdet(a)[1] or True
    assert set(ember.linalg.eigh(a)._fields) == {'eigenvalues', 'eigenvectors'}
    assert ember.linalg.svd(a)._fields == ('U', 'S', 'Vh')
    assert ember.svd(a)._fields == ('U', 'S', 'V')
    assert ember.linalg.qr(a)._fields == ('Q', 'R')
    assert ember.linalg.lstsq(a, a)._fields == ('solution', 'residuals', 'rank', 'singular_values')
    assert repr(ember.linalg.slogdet(a)).startswith('torch.return_types.linalg_slogdet(')


# ------------------------------------------------------------------ matrix_exp and composites
import torch as _torch


@pytest.mark.parametrize('scale', [0.1, 1.0, 6.0])
@pytest.mark.parametrize('dt', DTYPES)
def test_matrix_exp_values_and_grad(scale, dt):
    a = (rand(2, 4, 4, dtype=np.float64, seed=3, low=-1, high=1) * scale).astype(dt)
    g = rand(2, 4, 4, dtype=np.float64, seed=4).astype(dt)
    e = ember.tensor(a, requires_grad=True)
    t = _torch.tensor(a, requires_grad=True)
    ye, yt = ember.linalg.matrix_exp(e), _torch.linalg.matrix_exp(t)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    rt = 1e-4 if dt == np.float32 else 1e-9
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rt, atol=rt * np.abs(yt.detach().numpy()).max())
    ye.backward(ember.tensor(g)); yt.backward(_torch.tensor(g))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=rt * 10, atol=rt * 10 * np.abs(t.grad.numpy()).max())


def test_matrix_exp_gradcheck_and_errors():
    a = ember.tensor(rand(3, 3, dtype=np.float64, seed=5, low=-1, high=1), requires_grad=True)
    assert ember.autograd.gradcheck(ember.matrix_exp, (a,))
    assert ember.autograd.gradgradcheck(ember.matrix_exp, (a,))
    with pytest.raises(RuntimeError):
        ember.linalg.matrix_exp(ember.zeros(2, 3))
    with pytest.raises(RuntimeError):
        _torch.linalg.matrix_exp(_torch.zeros(2, 3))


def test_vander_diagonal_cond():
    x = rand(2, 3, dtype=np.float64, seed=6)
    np.testing.assert_allclose(ember.linalg.vander(ember.tensor(x), N=5).numpy(),
                               _torch.linalg.vander(_torch.tensor(x), N=5).numpy())
    np.testing.assert_allclose(ember.linalg.vander(ember.tensor(x)).numpy(),
                               _torch.linalg.vander(_torch.tensor(x)).numpy())
    a = wc(2, 4, 4, seed=7)
    np.testing.assert_allclose(ember.linalg.diagonal(ember.tensor(a), offset=1).numpy(),
                               _torch.linalg.diagonal(_torch.tensor(a), offset=1).numpy())
    for p in [None, 2, -2, 1, -1, 'fro', 'nuc', math.inf, -math.inf]:
        np.testing.assert_allclose(ember.linalg.cond(ember.tensor(a), p).numpy(),
                                   _torch.linalg.cond(_torch.tensor(a), p).numpy(), rtol=1e-10)


def test_tensorinv_tensorsolve():
    a = wc(6, 6, seed=8).reshape(6, 2, 3)
    np.testing.assert_allclose(ember.linalg.tensorinv(ember.tensor(a), ind=1).numpy(),
                               _torch.linalg.tensorinv(_torch.tensor(a), ind=1).numpy(), rtol=1e-10)
    a2 = wc(6, 6, seed=9).reshape(2, 3, 6)
    b = rand(2, 3, dtype=np.float64, seed=10)
    np.testing.assert_allclose(ember.linalg.tensorsolve(ember.tensor(a2), ember.tensor(b)).numpy(),
                               _torch.linalg.tensorsolve(_torch.tensor(a2), _torch.tensor(b)).numpy(), rtol=1e-10)
    a3 = wc(6, 6, seed=11).reshape(6, 2, 3)
    np.testing.assert_allclose(
        ember.linalg.tensorsolve(ember.tensor(a3), ember.tensor(b), dims=(0,)).numpy(),
        _torch.linalg.tensorsolve(_torch.tensor(a3), _torch.tensor(b), dims=(0,)).numpy(), rtol=1e-10)
    for mod in (ember, _torch):
        with pytest.raises(RuntimeError):
            mod.linalg.tensorinv(mod.zeros(2, 3), ind=1)
    e = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: ember.linalg.tensorinv(x, ind=1), (e,))


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_solve_inverse(upper):
    L = np.tril(rand(2, 4, 4, dtype=np.float64, seed=12, low=-1, high=1)) + 3 * np.eye(4)
    if upper:
        L = np.swapaxes(L, -1, -2)
    B = rand(2, 4, 3, dtype=np.float64, seed=13)
    np.testing.assert_allclose(ember.cholesky_solve(ember.tensor(B), ember.tensor(L), upper).numpy(),
                               _torch.cholesky_solve(_torch.tensor(B), _torch.tensor(L), upper).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ember.tensor(L).cholesky_inverse(upper).numpy(),
                               _torch.tensor(L).cholesky_inverse(upper).numpy(), rtol=1e-10)
    Le = ember.tensor(L, requires_grad=True)
    Be = ember.tensor(B, requires_grad=True)
    # torch's factor gradient assumes the triangle is all there is (its own gradcheck reads
    # the factor through tril/triu, as here)
    tri = (lambda t: t.triu()) if upper else (lambda t: t.tril())
    assert ember.autograd.gradcheck(lambda b, l: ember.cholesky_solve(b, tri(l), upper), (Be, Le))


@pytest.mark.parametrize('name', ['lstsq', 'solve', 'symeig', 'eig'])
def test_removed_methods(name):
    with pytest.raises(RuntimeError) as te:
        getattr(_torch.zeros(2, 2), name)(_torch.zeros(2, 2))
    with pytest.raises(RuntimeError) as ee:
        getattr(ember.zeros(2, 2), name)(ember.zeros(2, 2))
    assert str(ee.value) == str(te.value)


# ------------------------------------------------------------------ LU
@pytest.mark.parametrize('shape', [(4, 4), (3, 4, 4), (2, 5, 3), (2, 3, 5)])
@pytest.mark.parametrize('dt', DTYPES)
def test_lu_factor_and_lu(shape, dt):
    a = rand(*shape, dtype=np.float64, seed=20).astype(dt)
    e, t = ember.linalg.lu_factor_ex(ember.tensor(a)), _torch.linalg.lu_factor_ex(_torch.tensor(a))
    rt = 1e-5 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(e.LU.numpy(), t.LU.numpy(), rtol=rt, atol=rt)
    assert e.pivots.dtype == ember.int32 and (e.pivots.numpy() == t.pivots.numpy()).all()
    assert (e.info.numpy() == t.info.numpy()).all()
    for x, y in zip(ember.linalg.lu(ember.tensor(a)), _torch.linalg.lu(_torch.tensor(a))):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=rt, atol=rt)
    for x, y in zip(ember.lu_unpack(e.LU, e.pivots), _torch.lu_unpack(t.LU, t.pivots)):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=rt, atol=rt)


@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('adjoint', [False, True])
def test_lu_solve(left, adjoint):
    a = wc(3, 4, 4, seed=21)
    b = rand(3, 4, 2, dtype=np.float64, seed=22)
    if not left:
        b = np.swapaxes(b, -1, -2).copy()
    e, t = ember.linalg.lu_factor(ember.tensor(a)), _torch.linalg.lu_factor(_torch.tensor(a))
    np.testing.assert_allclose(
        ember.linalg.lu_solve(e.LU, e.pivots, ember.tensor(b), left=left, adjoint=adjoint).numpy(),
        _torch.linalg.lu_solve(t.LU, t.pivots, _torch.tensor(b), left=left, adjoint=adjoint).numpy(),
        rtol=1e-10, atol=1e-12)
    if left and not adjoint:
        np.testing.assert_allclose(ember.lu_solve(ember.tensor(b), e.LU, e.pivots).numpy(),
                                   _torch.lu_solve(_torch.tensor(b), t.LU, t.pivots).numpy(), rtol=1e-10)


def test_lu_grad_and_errors():
    a = wc(2, 4, 4, seed=23)
    A = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: ember.linalg.lu_factor(x).LU, (A,))
    assert ember.autograd.gradcheck(lambda x: ember.linalg.lu(x).L * 2 + ember.linalg.lu(x).U, (A,))
    g = rand(2, 4, 4, dtype=np.float64, seed=24)
    A2 = _torch.tensor(a, requires_grad=True)
    ember.linalg.lu_factor(A).LU.backward(ember.tensor(g))
    _torch.linalg.lu_factor(A2).LU.backward(_torch.tensor(g))
    np.testing.assert_allclose(A.grad.numpy(), A2.grad.numpy(), rtol=1e-10, atol=1e-12)
    msgs = []
    for mod in (ember, _torch):
        with pytest.raises(RuntimeError) as ei:
            mod.linalg.lu_factor(mod.zeros(2, 3, 3))
        msgs.append(str(ei.value))
        with pytest.raises(RuntimeError) as ei:
            mod.linalg.lu_factor_ex(mod.zeros(3, 3), check_errors=True)
        msgs.append(str(ei.value))
    assert msgs[:2] == msgs[2:]
    info = ember.linalg.lu_factor_ex(ember.zeros(2, 3, 3)).info
    assert (info.numpy() == _torch.linalg.lu_factor_ex(_torch.zeros(2, 3, 3)).info.numpy()).all()


def test_triangular_solve_lu_top_norms():
    a = rand(2, 3, 3, dtype=np.float64, seed=30)
    U = np.triu(a) + 3 * np.eye(3)
    b = a[..., :2].copy()
    for tr in (False, True):
        for up in (True, False):
            M = U if up else np.swapaxes(U, -1, -2).copy()
            e = ember.triangular_solve(ember.tensor(b), ember.tensor(M), up, tr)
            t = _torch.triangular_solve(_torch.tensor(b), _torch.tensor(M), up, tr)
            np.testing.assert_allclose(e.solution.numpy(), t.solution.numpy(), rtol=1e-10, atol=1e-14)
            np.testing.assert_allclose(e.cloned_coefficient.numpy(), t.cloned_coefficient.numpy())
    for x, y in zip(ember.tensor(a).lu(get_infos=True), _torch.tensor(a).lu(get_infos=True)):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ember.frobenius_norm(ember.tensor(a), (1, 2)).numpy(),
                               _torch.frobenius_norm(_torch.tensor(a), (1, 2)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(ember.nuclear_norm(ember.tensor(a[0])).numpy(),
                               _torch.nuclear_norm(_torch.tensor(a[0])).numpy(), rtol=1e-12)
    np.testing.assert_allclose(ember.nuclear_norm(ember.tensor(a), (1, 2)).numpy(),
                               _torch.nuclear_norm(_torch.tensor(a), (1, 2)).numpy(), rtol=1e-12)


@pytest.mark.parametrize('cplx', [False, True])
def test_geqrf_householder_product(cplx):
    a = rand(2, 5, 3, dtype=np.float64, seed=40)
    if cplx:
        a = a + 1j * rand(2, 5, 3, dtype=np.float64, seed=41)
    e, t = ember.geqrf(ember.tensor(a)), _torch.geqrf(_torch.tensor(a))
    np.testing.assert_allclose(e.a.numpy(), t.a.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(e.tau.numpy(), t.tau.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ember.linalg.householder_product(e.a, e.tau).numpy(),
                               _torch.linalg.householder_product(t.a, t.tau).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(e.a.orgqr(e.tau).numpy(), t.a.orgqr(t.tau).numpy(), rtol=1e-10, atol=1e-12)
    A = ember.tensor(a, requires_grad=True)
    T = ember.tensor(e.tau.numpy(), requires_grad=True)
    assert ember.autograd.gradcheck(ember.linalg.householder_product, (A, T))
    for mod in (ember, _torch):
        with pytest.raises(RuntimeError):
            mod.linalg.householder_product(mod.zeros(2, 3), mod.zeros(2))


@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('transpose', [False, True])
def test_ormqr_norm_except_dim(left, transpose):
    a = rand(2, 5, 3, dtype=np.float64, seed=50)
    c = rand(2, 5, 4, dtype=np.float64, seed=51) if left else rand(2, 4, 5, dtype=np.float64, seed=51)
    e, t = ember.geqrf(ember.tensor(a)), _torch.geqrf(_torch.tensor(a))
    np.testing.assert_allclose(ember.ormqr(e.a, e.tau, ember.tensor(c), left, transpose).numpy(),
                               _torch.ormqr(t.a, t.tau, _torch.tensor(c), left, transpose).numpy(),
                               rtol=1e-10, atol=1e-12)
    v = rand(3, 4, 5, dtype=np.float64, seed=52)
    for p, d in [(2, 1), (2, -1), (3, 0)]:
        np.testing.assert_allclose(ember.norm_except_dim(ember.tensor(v), p, d).numpy(),
                                   _torch.norm_except_dim(_torch.tensor(v), p, d).numpy(), rtol=1e-12)
    assert set(ember.linalg.common_notes) == set(_torch.linalg.common_notes)


def test_lu_solve_empty_shapes():
    # n = 0 or an empty batch (issue 21)
    for lu, piv, b in (((0, 0), (0,), (0, 4)), ((3, 0, 0), (3, 0), (3, 0, 2)),
                       ((0, 2, 2), (0, 2), (0, 2, 2))):
        check(lambda m, A, B: m.linalg.lu_solve(A, m.ones(piv, dtype=m.int32), B),
              [np.zeros(lu), np.zeros(b)])
    check(lambda m, A, B: m.lu_solve(B, A, m.zeros(0, dtype=m.int32)),
          [np.zeros((0, 0)), np.zeros((0, 4))])


def test_eig_backward_vs_torch_and_gradcheck():
    # linalg.eig / eigvals are differentiable (issue 21); eigenvectors only through
    # phase-invariant functions (their phase is LAPACK's choice)
    A = rand(4, 4, dtype=np.float64, seed=3)
    Ac = (rand(3, 3, dtype=np.float64, seed=4) + 1j * rand(3, 3, dtype=np.float64, seed=5))
    for a in (A, Ac):
        check(lambda m, x: m.linalg.eigvals(x), [a], grad=True)
        check(lambda m, x: (m.linalg.eig(x)[0], m.linalg.eig(x)[1].abs()), [a], grad=True,
              rtol=1e-6, atol=1e-8)
    gradcheck_ember(lambda m, x: m.linalg.eigvals(x), [A])
    gradcheck_ember(lambda m, x: m.linalg.eig(x)[1].abs(), [A])


def test_lstsq_residuals_are_differentiable():
    # residuals carry gradients as in torch (issue 21); an empty one still requires grad
    A, B = rand(5, 3, dtype=np.float64, seed=6), rand(5, 2, dtype=np.float64, seed=7)
    for drv in ('gels', 'gelsd'):
        check(lambda m, a, b: m.linalg.lstsq(a, b, driver=drv)[:2], [A, B], grad=True,
              rtol=1e-6, atol=1e-8)
        check(lambda m, a, b: m.linalg.lstsq(a, b, driver=drv)[:2], [A[:3], B[:3]], grad=True)
    gradcheck_ember(lambda m, a, b: m.linalg.lstsq(a, b, driver='gelsd').residuals, [A, B])


def test_householder_product_without_reflectors_is_differentiable():
    check(lambda m, a, t: m.linalg.householder_product(a, t),
          [rand(5, 5, dtype=np.float64), np.zeros(0)], grad=True)
    check(lambda m, a, t: m.linalg.householder_product(a, t),
          [rand(2, 4, 3, dtype=np.float64), np.zeros((2, 0))], grad=True)


@pytest.mark.parametrize('shape', [(3, 5), (6, 5), (2, 4, 3), (2, 3, 4)])
def test_lu_factor_backward_non_square(shape):
    # wide and tall matrices (issue 21)
    A = rand(*shape, dtype=np.float64, seed=8)
    check(lambda m, a: m.linalg.lu_factor(a)[0], [A], grad=True)
    check(lambda m, a: m.linalg.lu(a)[1:], [A], grad=True)
    gradcheck_ember(lambda m, a: m.linalg.lu_factor(a)[0], [A])


def test_lu_factor_complex_pivots_as_lapack():
    # LAPACK picks a complex pivot by |re| + |im|, not the modulus (issue 21)
    A = rand(6, 5, dtype=np.float64, seed=9) + 1j * rand(6, 5, dtype=np.float64, seed=10)
    for dt in (np.complex128, np.complex64):
        check(lambda m, a: m.linalg.lu_factor(a), [A.astype(dt)], rtol=1e-5, atol=1e-6)


def test_det_complex_gradient():
    A = rand(4, 4, dtype=np.float64, seed=11) + 1j * rand(4, 4, dtype=np.float64, seed=12)
    check(lambda m, a: m.linalg.det(a), [A], grad=True)
    gradcheck_ember(lambda m, a: m.linalg.det(a), [A])


def test_ormqr_needs_matrices():
    check_error(lambda m: m.ormqr(m.tensor(1.), m.tensor(1.), m.tensor(1.)),
                match='torch.ormqr: input must have at least 2 dimensions.')
    check_error(lambda m: m.ormqr(m.ones(2, 2), m.ones(2), m.tensor(1.)),
                match='torch.ormqr: other must have at least 2 dimensions.')
    for a, t, left in (((5, 0), 5, True), ((5, 3), 4, True), ((5, 3), 2, True)):
        check_error(lambda m: m.ormqr(m.ones(a), m.ones(t), m.ones(5, 5), left, True),
                    match='torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], '
                          'input.shape[-1])')


def test_vander_zero_dim_and_small_n():
    check(lambda m, x: m.linalg.vander(x, N=3), [np.array(2.0)])
    check_error(lambda m: m.linalg.vander(m.tensor([2.0]), N=1), match='N must be greater than 1.')
    check_error(lambda m: m.linalg.vander(m.tensor(2.0)), match='N must be greater than 1.')


def test_logdet_complex_is_complex():
    # log|det| + i arg(det), as torch; -inf + nan j when singular (issue 21)
    from tests.oracle import run_both
    run_both(lambda m: [m.logdet(a) for a in (
        m.zeros(0, 0, dtype=m.complex128), m.eye(2, dtype=m.complex64) * (1 + 1j),
        m.tensor([[0, 1], [2, 3j]], dtype=m.complex128), m.zeros(2, 2, dtype=m.complex128))])
