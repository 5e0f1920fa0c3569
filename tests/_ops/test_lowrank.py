"""``ember.svd_lowrank`` / ``ember.pca_lowrank`` against torch's: after the same seed both draw
the same Gaussian sketch, so the singular values and the sign-invariant products of the
factors (``U diag(S) V^H``, ``U V^H``) agree; gradients through those products under a
random upstream gradient, float64 gradcheck, and the argument errors."""
import numpy as np
import pytest
import torch

import ember


@pytest.fixture(autouse=True)
def _keep_rng():
    ts, es = torch.get_rng_state(), ember.get_rng_state()
    yield
    torch.set_rng_state(ts)
    ember.set_rng_state(es)


def _lowrank_input(rng, shape, rank, cplx=False):
    *b, m, n = shape
    a = rng.standard_normal((*b, m, rank))
    c = rng.standard_normal((*b, n, rank))
    if cplx:
        a = a + 1j * rng.standard_normal(a.shape)
        c = c + 1j * rng.standard_normal(c.shape)
    return a @ np.swapaxes(c, -1, -2)


def _np(x):
    return x.detach().resolve_conj().numpy()


def _run(mod, name, a, kw, m_arr=None, grad=False, w=None):
    mod.manual_seed(7)
    A = mod.tensor(a, requires_grad=grad)
    if m_arr is not None:
        kw = dict(kw, M=mod.tensor(m_arr))
    U, S, V = getattr(mod, name)(A, **kw)
    rec = U @ V.mH
    out = [U, S, V, (U * S.unsqueeze(-2)) @ V.mH, rec]
    if grad:
        loss = (rec * mod.tensor(w[0])).real.sum() + (S * mod.tensor(w[1])).sum()
        loss.backward()
        out.append(A.grad)
    return out


CASES = [  # name, shape, rank, kwargs, with M
    ('svd_lowrank', (8, 6), 3, dict(q=3), False),
    ('svd_lowrank', (5, 9), 2, dict(q=2, niter=1), False),
    ('svd_lowrank', (2, 7, 5), 2, dict(q=2), True),
    ('svd_lowrank', (6, 4), 2, dict(q=2, niter=0), True),
    ('pca_lowrank', (9, 5), 2, dict(q=2), False),
    ('pca_lowrank', (4, 8), 3, dict(q=3, center=False), False),
    ('pca_lowrank', (3, 6, 4), 2, dict(q=2, niter=3), False),
]


@pytest.mark.parametrize('cplx', [False, True])
@pytest.mark.parametrize('name,shape,rank,kw,with_m', CASES,
                         ids=[f'{c[0]}-{i}' for i, c in enumerate(CASES)])
def test_matches_torch(name, shape, rank, kw, with_m, cplx):
    rng = np.random.default_rng(len(shape) * 10 + rank)
    a = _lowrank_input(rng, shape, rank, cplx)
    m_arr = (rng.standard_normal(shape[-1:]) * 0.1).astype(a.dtype) if with_m else None  # broadcast
    q = kw['q']
    w = (rng.standard_normal(shape), rng.standard_normal(shape[:-2] + (q,)))
    t = _run(torch, name, a, kw, m_arr, grad=True, w=w)
    e = _run(ember, name, a, kw, m_arr, grad=True, w=w)
    for i, (x, y) in enumerate(zip(e, t)):
        assert tuple(x.shape) == tuple(y.shape), i
        assert str(x.dtype) == str(y.dtype), i
    for i in (1, 3, 4, 5):      # S, U S V^H, U V^H, the gradient
        np.testing.assert_allclose(_np(e[i]), _np(t[i]),
                                   rtol=1e-7, atol=1e-9, err_msg=str(i))
    # |U| and |V| are sign-free
    for i in (0, 2):
        np.testing.assert_allclose(np.abs(_np(e[i])), np.abs(_np(t[i])), rtol=1e-7, atol=1e-9)


def test_float32_default_q_and_reconstruction():
    rng = np.random.default_rng(3)
    a = _lowrank_input(rng, (10, 7), 4).astype(np.float32)
    for mod in (torch, ember):
        mod.manual_seed(0)
    t = torch.svd_lowrank(torch.tensor(a))
    e = ember.svd_lowrank(ember.tensor(a))
    assert e[0].dtype == ember.float32 and tuple(e[0].shape) == (10, 6)
    np.testing.assert_allclose(e[1].numpy(), t[1].numpy(), rtol=1e-4, atol=1e-4)
    rec = (e[0] * e[1]) @ e[2].mT
    np.testing.assert_allclose(rec.numpy(), a, atol=1e-4)
    pt, pe = torch.pca_lowrank(torch.tensor(a)), ember.pca_lowrank(ember.tensor(a))
    assert tuple(pe[0].shape) == tuple(pt[0].shape) == (10, 6)
    np.testing.assert_allclose(pe[1].numpy(), pt[1].numpy(), rtol=1e-4, atol=1e-4)


def test_gradcheck():
    rng = np.random.default_rng(1)
    a = ember.tensor(_lowrank_input(rng, (5, 4), 2), requires_grad=True)

    def f(A):
        ember.manual_seed(3)
        U, S, V = ember.svd_lowrank(A, q=2)
        return U @ V.mT, S

    def g(A):
        ember.manual_seed(3)
        U, S, V = ember.pca_lowrank(A, q=2)
        return U @ V.mT, S

    assert ember.autograd.gradcheck(f, (a,))
    assert ember.autograd.gradcheck(g, (a,))


@pytest.mark.parametrize('kw,match', [
    (dict(q=5), 'q(=5) must be non-negative integer and not greater than min(m, n)=3'),
    (dict(q=-1), 'q(=-1) must be non-negative integer'),
    (dict(niter=-1), 'niter(=-1) must be non-negative integer'),
])
def test_pca_errors(kw, match):
    for mod in (torch, ember):
        with pytest.raises(ValueError) as ei:
            mod.pca_lowrank(mod.zeros(3, 4), **kw)
        assert match in str(ei.value)
