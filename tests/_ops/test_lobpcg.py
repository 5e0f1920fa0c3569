"""``ember.lobpcg`` against ``torch.lobpcg`` on SPD matrices: eigenvalues and eigenvectors (up
to sign) for both methods, largest/smallest, ``B``, ``n``, ``iK``, batches and the default
random start (the same draws after the same seed); the gradient with respect to ``A`` under
random upstream gradients, float64 gradcheck, and the errors."""
import numpy as np
import pytest
import torch

import ember


def _spd(rng, m, batch=(), lo=1., hi=10.):
    q = np.linalg.qr(rng.standard_normal(batch + (m, m)))[0]
    ev = np.linspace(lo, hi, m) + rng.uniform(0, 0.1, m)
    return (q * ev[..., None, :]) @ np.swapaxes(q, -1, -2)


def _cmp(Et, Xt, Ee, Xe, tol):
    assert Ee.dtype == {torch.float32: ember.float32, torch.float64: ember.float64}[Et.dtype]
    assert tuple(Ee.shape) == tuple(Et.shape) and tuple(Xe.shape) == tuple(Xt.shape)
    np.testing.assert_allclose(Ee.numpy(), Et.numpy(), rtol=tol, atol=tol)
    xt, xe = Xt.numpy(), Xe.numpy()
    s = np.sign((xt * xe).sum(-2, keepdims=True))
    np.testing.assert_allclose(xe * s, xt, rtol=0, atol=tol * 10)


CASES = [
    (12, 1, {}), (12, 2, {}), (15, 3, dict(largest=False)), (12, 2, dict(method='basic')),
    (12, 2, dict(method='basic', largest=False)), (20, 2, dict(n=4)), (12, 2, dict(B=True)),
    (12, 1, dict(iK=True, method='basic')), (12, 2, dict(niter=3)),
    (12, 2, dict(ortho_bparams={'ortho_use_drop': True}, tol=1e-6)),
]


@pytest.mark.parametrize('dt', [np.float64, np.float32])
@pytest.mark.parametrize('m,k,kw', CASES, ids=[str(c) for c in range(len(CASES))])
def test_matches_torch(m, k, kw, dt):
    rng = np.random.default_rng(m * 10 + k)
    A = _spd(rng, m).astype(dt)
    Bm = (_spd(rng, m) * 0.1 + np.eye(m)).astype(dt)
    out = []
    for mod in (torch, ember):
        kk = dict(kw)
        if kk.pop('B', None):
            kk['B'] = mod.tensor(Bm)
        if kk.pop('iK', None):
            kk['iK'] = mod.tensor((np.eye(m) * 0.5).astype(dt))
        mod.manual_seed(3)             # the random start: the same draws in both
        out.append(mod.lobpcg(mod.tensor(A), k=k, **kk))
    _cmp(*out[0], *out[1], 1e-8 if dt == np.float64 else 2e-4)


def test_given_X_and_batches():
    rng = np.random.default_rng(5)
    A = _spd(rng, 9, (2, 3))
    X = rng.standard_normal((2, 3, 9, 2))
    t = torch.lobpcg(torch.tensor(A), k=2, X=torch.tensor(X))
    e = ember.lobpcg(ember.tensor(A), k=2, X=ember.tensor(X))
    _cmp(*t, *e, 1e-8)
    torch.manual_seed(0)
    ember.manual_seed(0)
    _cmp(*torch.lobpcg(torch.tensor(A), k=1, largest=False),
         *ember.lobpcg(ember.tensor(A), k=1, largest=False), 1e-8)


@pytest.mark.parametrize('largest', [True, False])
def test_gradient_matches_torch(largest):
    rng = np.random.default_rng(1 + largest)
    m = 9
    A = _spd(rng, m) + 0.01 * rng.standard_normal((m, m))   # symmetrized inside
    X0 = rng.standard_normal((m, 2))
    gE, gU = rng.standard_normal(2), rng.standard_normal((m, 2))
    grads = []
    for mod in (torch, ember):
        a = mod.tensor(A, requires_grad=True)
        E, U = mod.lobpcg(a, k=2, X=mod.tensor(X0), tol=1e-10, largest=largest)
        assert type(E.grad_fn).__name__ == 'LOBPCGAutogradFunctionBackward'
        s = mod.sign(U[0]).detach()          # eigenvectors up to sign
        ((E * mod.tensor(gE)).sum() + (U * s * mod.tensor(gU)).sum()).backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-8)


def test_gradcheck():
    rng = np.random.default_rng(3)
    m = 9
    X0 = ember.tensor(rng.standard_normal((m, 2)))
    a = ember.tensor(_spd(rng, m), requires_grad=True)

    def f(a):
        E, U = ember.lobpcg(a, k=2, X=X0, tol=1e-10)
        return E, U @ U.mT                   # sign-free function of the eigenvectors
    assert ember.autograd.gradcheck(f, (a,), eps=1e-6, atol=1e-4, rtol=1e-3)


def _err(fn):
    res = []
    for mod in (torch, ember):
        with pytest.raises(Exception) as ei:
            fn(mod)
        res.append(ei.value)
    assert type(res[1]) is type(res[0]), res
    return res


def test_errors():
    A = _spd(np.random.default_rng(0), 6)
    _err(lambda m: m.lobpcg(m.zeros(3, 4)))
    e = _err(lambda m: m.lobpcg(m.tensor(A), k=3))
    assert 'smaller than 3 x the number of requested eigenpairs (=3)' in str(e[1])
    _err(lambda m: m.lobpcg(m.tensor(A), B=m.eye(5, dtype=m.float64)))
    _err(lambda m: m.lobpcg(m.tensor(A), k=1, X=m.ones(2, 6, 1, dtype=m.float64)))
    _err(lambda m: m.lobpcg(m.tensor(A), n=1, X=m.ones(5, 1, dtype=m.float64)))

    def with_B(m):
        a = m.tensor(A, requires_grad=True)
        E, _ = m.lobpcg(a, k=1, B=m.eye(6, dtype=m.float64), X=m.ones(6, 1, dtype=m.float64))
        E.sum().backward()
    e = _err(with_B)
    assert 'B != I' in str(e[1])


def test_backward_formula_is_torchs_on_the_same_pairs():
    """float32, pairs converged only to the default tol: ember's backward on ember's pairs
    equals torch's formula evaluated on the same pairs."""
    from torch._lobpcg import _symeig_backward
    rng = np.random.default_rng(0)
    m = 9
    A = _spd(rng, m).astype(np.float32)
    X0 = rng.standard_normal((m, 2)).astype(np.float32)
    gE = rng.standard_normal(2).astype(np.float32)
    gU = rng.standard_normal((m, 2)).astype(np.float32)
    a = ember.tensor(A, requires_grad=True)
    E, U = ember.lobpcg(a, k=2, X=ember.tensor(X0))
    ((E * ember.tensor(gE)).sum() + (U * ember.tensor(gU)).sum()).backward()
    ref = _symeig_backward(torch.tensor(gE), torch.tensor(gU), torch.tensor(A),
                           torch.tensor(E.detach().numpy()), torch.tensor(U.detach().numpy()),
                           True)
    ref = (ref + ref.mT) / 2          # through the symmetrization (A + A^T) / 2
    np.testing.assert_allclose(a.grad.numpy(), ref.numpy(), rtol=1e-4, atol=5e-5)
