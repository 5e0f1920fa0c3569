"""Gradients of the complex singular value and Hermitian eigen decompositions against
torch's: ``linalg.svd`` (reduced and full, tall, wide, batched), ``svdvals``, ``linalg.eigh``
and ``eigvalsh`` under phase-invariant losses with random weights, float64 gradcheck, and
torch's error for a loss that depends on the phase of a singular vector / eigenvector."""
import numpy as np
import pytest
import torch

import ember


def _c(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _grad(mod, a, loss_fn):
    A = mod.tensor(a, requires_grad=True)
    loss_fn(mod, A).backward()
    return A.grad.detach().resolve_conj().numpy()


def _svd_loss(full):
    def f(mod, A):
        U, S, Vh = mod.linalg.svd(A, full_matrices=full)
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        w = mod.tensor(np.cos(np.arange(np.prod(A.shape))).reshape(tuple(A.shape)))
        return ((U @ Vh) * w).abs().sum() + (S * S).sum() + (U.abs() ** 3).sum() \
            + (Vh.abs() ** 2 * 0.5).sum() + mod.linalg.svdvals(A).sin().sum()
    return f


@pytest.mark.parametrize('shape,full', [((4, 3), False), ((3, 5), False), ((4, 4), True),
                                        ((2, 4, 3), True), ((3, 5), True)])
def test_svd_complex_grad(shape, full):
    a = _c(np.random.default_rng(len(shape) + shape[-1]), shape)
    g_t = _grad(torch, a, _svd_loss(full))
    g_e = _grad(ember, a, _svd_loss(full))
    np.testing.assert_allclose(g_e, g_t, rtol=1e-9, atol=1e-10)


def _eigh_loss(mod, A):
    L, V = mod.linalg.eigh(A)
    w = mod.tensor(np.sin(np.arange(np.prod(A.shape))).reshape(tuple(A.shape)))
    return (V.abs() ** 3 * w).sum() + (L * L).sum() + mod.linalg.eigvalsh(A).cos().sum()


@pytest.mark.parametrize('shape', [(4, 4), (2, 3, 3)])
def test_eigh_complex_grad(shape):
    a = _c(np.random.default_rng(shape[-1]), shape)
    a = a + np.conj(np.swapaxes(a, -1, -2))
    np.testing.assert_allclose(_grad(ember, a, _eigh_loss), _grad(torch, a, _eigh_loss),
                               rtol=1e-9, atol=1e-10)


def test_complex_gradcheck():
    rng = np.random.default_rng(0)
    A = ember.tensor(_c(rng, (3, 4)), requires_grad=True)

    def svd_f(A):
        U, S, Vh = ember.linalg.svd(A, full_matrices=False)
        return U @ Vh, S

    assert ember.autograd.gradcheck(svd_f, (A,))
    assert ember.autograd.gradcheck(ember.linalg.svdvals, (A,))
    H = ember.tensor(_c(rng, (3, 3)), requires_grad=True)

    def eigh_f(H):
        L, V = ember.linalg.eigh(H + H.mH)
        return L, V.abs()

    assert ember.autograd.gradcheck(eigh_f, (H,))


@pytest.mark.parametrize('which,match', [
    ('svd', 'svd_backward: The singular vectors in the complex case are specified up to '
            'multiplication by e^{i phi}'),
    ('eigh', 'linalg_eigh_backward: The eigenvectors in the complex case are specified up '
             'to multiplication by e^{i phi}'),
])
def test_phase_dependent_loss_raises(which, match):
    a = _c(np.random.default_rng(4), (3, 3))
    a = a + np.conj(a.T)
    for mod in (torch, ember):
        A = mod.tensor(a, requires_grad=True)
        vec = mod.linalg.svd(A)[0] if which == 'svd' else mod.linalg.eigh(A)[1]
        with pytest.raises(RuntimeError) as ei:
            vec.real.sum().backward()
        assert match in str(ei.value)


def test_matrix_exp_half_dtype():
    # the result keeps the input's half dtype (torch 2.13's CPU kernel returns such dtypes
    # but wrong values for them, so the values are held to the float64 result, rounded)
    a = np.array([[0.1, 0.2], [0.3, 0.4]])
    ref = torch.linalg.matrix_exp(torch.tensor(a)).numpy()
    for dt, tol in ((ember.bfloat16, 8e-3), (ember.float16, 1e-3)):
        e = ember.linalg.matrix_exp(ember.tensor(a).to(dt))
        assert e.dtype == dt and torch.linalg.matrix_exp(
            torch.tensor(a).to(getattr(torch, str(dt).split('.')[-1]))).dtype == \
            getattr(torch, str(dt).split('.')[-1])
        np.testing.assert_allclose(e.float().numpy(), ref, rtol=tol)


def test_slogdet_logdet_complex_grad():
    rng = np.random.default_rng(0)
    a = _c(rng, (2, 3, 3))
    w = _c(rng, (2,))

    def loss(m, A):
        s, l = m.linalg.slogdet(A)
        return (s * m.tensor(w)).real.sum() + (l * l).sum() + m.logdet(A).abs().sum() \
            + m.slogdet(A)[1].sum()
    np.testing.assert_allclose(_grad(ember, a, loss), _grad(torch, a, loss), rtol=1e-9,
                               atol=1e-10)
    A = ember.tensor(a[0], requires_grad=True)
    assert ember.autograd.gradcheck(ember.linalg.slogdet, (A,))
    assert ember.autograd.gradcheck(ember.logdet, (A,))


@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_complex_grad(shape, upper):
    # torch's complex gradient: the Hermitian part of L^-H Phi(L^H gL) L^-1 plus the
    # anti-Hermitian term of Phi's imaginary diagonal
    rng = np.random.default_rng(len(shape))
    x = _c(rng, shape)
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + np.eye(shape[-1])
    w = _c(rng, shape)

    def loss(m, A):
        return (m.linalg.cholesky(A, upper=upper) * m.tensor(w)).real.sum()
    np.testing.assert_allclose(_grad(ember, a, loss), _grad(torch, a, loss), rtol=1e-9,
                               atol=1e-10)


@pytest.mark.parametrize('shape', [(5, 5), (5, 3), (3, 5), (2, 4, 3)])
def test_qr_complex_grad(shape):
    # R's diagonal is real: only the real part of copyltu's diagonal moves
    rng = np.random.default_rng(shape[-1])
    a = _c(rng, shape)
    k = min(shape[-2:])
    wq, wr = _c(rng, shape[:-1] + (k,)), _c(rng, shape[:-2] + (k, shape[-1]))

    def loss(m, A):
        Q, R = m.linalg.qr(A)
        return (Q * m.tensor(wq)).real.sum() + (R * m.tensor(wr)).real.sum()
    np.testing.assert_allclose(_grad(ember, a, loss), _grad(torch, a, loss), rtol=1e-9,
                               atol=1e-10)
    A = ember.tensor(a, requires_grad=True)
    assert ember.autograd.gradcheck(lambda A: ember.linalg.qr(A), (A,))


@pytest.mark.parametrize('cplx', [False, True])
@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_solve_inverse_grad(cplx, upper):
    # torch's formulas (the factor's gradient is a full matrix: -c L or -L c); gradcheck of
    # the triangle the ops read
    rng = np.random.default_rng(int(cplx) * 2 + int(upper))
    L = np.tril(rng.standard_normal((2, 3, 3))) + 3 * np.eye(3)
    if cplx:
        L = L + 1j * np.tril(rng.standard_normal((2, 3, 3)), -1)
    if upper:
        L = np.conj(np.swapaxes(L, -1, -2))
    B = rng.standard_normal((2, 3, 2)) + (1j * rng.standard_normal((2, 3, 2)) if cplx else 0)
    W = rng.standard_normal((2, 3, 3))

    def loss(m, t, b):
        i, x = m.cholesky_inverse(t, upper), m.cholesky_solve(b, t, upper)
        assert i.grad_fn.name() == 'CholeskyInverseBackward0'
        assert x.grad_fn.name() == 'CholeskySolveBackward0'
        return (i * m.tensor(W)).abs().sum() + (x.abs() ** 2).sum()
    res = []
    for m in (torch, ember):
        t, b = m.tensor(L, requires_grad=True), m.tensor(B, requires_grad=True)
        res.append([g.resolve_conj().numpy() for g in m.autograd.grad(loss(m, t, b), [t, b])])
    for e, t in zip(res[1], res[0]):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-10)
    tri = (lambda t: t.triu()) if upper else (lambda t: t.tril())
    T = ember.tensor(L[0], requires_grad=True)
    Bt = ember.tensor(B[0], requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.cholesky_inverse(tri(t), upper), (T,))
    assert ember.autograd.gradcheck(lambda t, b: ember.cholesky_solve(b, tri(t), upper), (T, Bt))
