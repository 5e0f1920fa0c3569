"""``ember.linalg.ldl_factor(_ex)`` / ``ldl_solve`` against torch on many random symmetric,
complex symmetric and Hermitian matrices (incl. zero diagonals, tiny rows and zero
columns, which force 2x2 and interchanged pivots): pivots and info equal, LD equal
element-wise to round-off (the unblocked algorithm, n <= 64, performs the same operations
as LAPACK's ?sytf2, but the last bits depend on which BLAS kernels NumPy's and torch's
libraries pick for the CPU, so the tolerance is a few ulps of the matrix's scale), solutions
equal."""
import numpy as np
import pytest
import torch

import ember


def _mat(rng, n, kind, trial):
    a = rng.standard_normal((n, n))
    if kind != 'real':
        a = a + 1j * rng.standard_normal((n, n))
    if trial % 5 == 0:
        a[rng.integers(0, n)] *= 1e-3
    if trial % 4 == 0:
        np.fill_diagonal(a, 0)
    a = a + (a.conj().T if kind == 'herm' else a.T)
    if trial % 7 == 0 and n > 2:
        a[:, 1] = 0
        a[1, :] = 0
    return a


@pytest.mark.parametrize('kind', ['real', 'sym', 'herm'])
def test_random_matrices_match_torch(kind):
    rng = np.random.default_rng({'real': 0, 'sym': 1, 'herm': 2}[kind])
    herm = kind == 'herm'
    twos = 0
    for trial in range(40):
        n = int(rng.integers(1, 10))
        a = _mat(rng, n, kind, trial)
        t = torch.linalg.ldl_factor_ex(torch.from_numpy(a), hermitian=herm)
        e = ember.linalg.ldl_factor_ex(ember.from_numpy(a), hermitian=herm)
        np.testing.assert_array_equal(e.pivots.numpy(), t.pivots.numpy())
        assert e.pivots.dtype == ember.int32 and e.info.dtype == ember.int32
        assert int(e.info) == int(t.info)
        np.testing.assert_allclose(e.LD.numpy(), t.LD.numpy(), rtol=0, atol=1e-12)
        twos += int((t.pivots < 0).any())
        if int(t.info) == 0:
            b = rng.standard_normal((n, 2)) + (1j if kind != 'real' else 0)
            xt = torch.linalg.ldl_solve(t.LD, t.pivots, torch.from_numpy(b), hermitian=herm)
            xe = ember.linalg.ldl_solve(e.LD, e.pivots, ember.from_numpy(b), hermitian=herm)
            np.testing.assert_allclose(xe.numpy(), xt.numpy(), rtol=1e-9, atol=1e-9)
    assert twos >= 5        # the samples do exercise 2x2 blocks


@pytest.mark.parametrize('n,dt', [(64, np.float64), (30, np.float32)])
def test_unblocked_matches_to_round_off(n, dt):
    a = np.random.default_rng(n).standard_normal((n, n)).astype(dt)
    a = a + a.T
    t = torch.linalg.ldl_factor(torch.from_numpy(a))
    e = ember.linalg.ldl_factor(ember.from_numpy(a))
    np.testing.assert_array_equal(e.pivots.numpy(), t.pivots.numpy())
    assert str(e.LD.dtype) == str(t.LD.dtype) and tuple(e.LD.shape) == tuple(t.LD.shape)
    # a few ulps, relative to the factor's scale: the same algorithm, but NumPy's BLAS may
    # pick other (FMA / SIMD) kernels than torch's for the rank-1 and rank-2 updates
    ld_t = t.LD.numpy()
    scale = np.abs(ld_t).max()
    np.testing.assert_allclose(e.LD.numpy(), ld_t, rtol=0, atol=64 * np.finfo(dt).eps * scale)


def test_larger_than_block_size():
    a = np.random.default_rng(7).standard_normal((100, 100))
    a = a + a.T
    t = torch.linalg.ldl_factor(torch.from_numpy(a))
    e = ember.linalg.ldl_factor(ember.from_numpy(a))
    np.testing.assert_array_equal(e.pivots.numpy(), t.pivots.numpy())
    np.testing.assert_allclose(e.LD.numpy(), t.LD.numpy(), rtol=1e-9, atol=1e-9)


def test_info_and_errors():
    z = np.zeros((2, 3, 3))
    z[0] = np.eye(3)
    t = torch.linalg.ldl_factor_ex(torch.from_numpy(z))
    e = ember.linalg.ldl_factor_ex(ember.from_numpy(z))
    np.testing.assert_array_equal(e.info.numpy(), t.info.numpy())
    for fn in (lambda m, x: m.linalg.ldl_factor(x),
               lambda m, x: m.linalg.ldl_factor_ex(x, check_errors=True)):
        with pytest.raises(RuntimeError) as te:
            fn(torch, torch.from_numpy(z))
        with pytest.raises(RuntimeError) as ee:
            fn(ember, ember.from_numpy(z))
        assert 'Unknown error code: 1' in str(te.value) and 'Unknown error code: 1' in str(
            ee.value)
        assert 'Batch element 1' in str(ee.value)


def test_out_and_no_grad_fn_when_not_needed():
    a = ember.tensor([[4., 2.], [2., 3.]])
    LD, piv = ember.empty(0), ember.empty(0, dtype=ember.int32)
    r = ember.linalg.ldl_factor(a, out=(LD, piv))
    assert r.LD is LD and LD.grad_fn is None
    np.testing.assert_allclose(LD.numpy(), torch.linalg.ldl_factor(torch.tensor(
        [[4., 2.], [2., 3.]])).LD.numpy())
