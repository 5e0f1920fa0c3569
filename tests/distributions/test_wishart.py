"""ember.distributions.Wishart against torch.distributions.Wishart."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import to_np
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_rsample_grad, check_sample_equal, check_validation,
                          errors_like_torch, same, compare_grads)

rng = np.random.RandomState(3)
A = rng.randn(2, 3, 3)
COV = A @ A.transpose(0, 2, 1) + np.eye(3)
DF = np.array([4.0, 6.5])


def _param(kind):
    if kind == "scale_tril":
        return np.linalg.cholesky(COV)
    if kind == "precision_matrix":
        return np.linalg.inv(COV)
    return COV


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_values_and_grads(dtype, kind):
    tol = dict(rtol=2e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-8, atol=1e-9)
    ed, td, ep, tp = build("wishart", "Wishart", (DF,), {kind: _param(kind)}, dtype=dtype,
                           requires_grad=True)
    v = np.stack([COV, COV + np.eye(3)])
    check_common(ed, td, ep, tp, [v], **tol)
    for a in ("scale_tril", "covariance_matrix", "precision_matrix"):
        same(getattr(ed, a), getattr(td, a), path=a, **tol)
        compare_grads(getattr(ed, a), getattr(td, a), ep, tp, **tol)
    check_expand(ed, td, (3, 2), [v[0]], **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsample_equals_torch(dtype):
    # Bartlett: Chi2 (reparameterised Gamma) and normal draws, torch's streams; torch
    # 2.13 redraws every valid first sample once (with its warning): so does ember
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    # (batched: values only; torch 2.13's backward through its redraw fails there)
    ed, td, ep, tp = build("wishart", "Wishart", (DF,), {"covariance_matrix": COV},
                           dtype=dtype)
    check_rsample_grad(ed, td, ep, tp, shape=(2,), **tol)
    check_sample_equal(ed, td, shapes=((), (3,)), **tol)
    with pytest.warns(UserWarning, match="Singular sample detected"):
        ed.rsample()
    ed, td, ep, tp = build("wishart", "Wishart", (5.0,), {"scale_tril": np.linalg.cholesky(
        COV[0])}, dtype=dtype)
    check_rsample_grad(ed, td, ep, tp, shape=(2,), **tol)


def test_rsample_gradient():
    # torch 2.13 cannot backpropagate through its own redraw (its boolean mask is
    # modified in place after being saved); ember can: d sample / d L by the chain rule
    # of the Bartlett construction, checked against the same construction's noise
    L = ember.tensor(np.linalg.cholesky(COV[0]), requires_grad=True)
    d = ember.distributions.Wishart(ember.tensor(5.0, dtype=ember.float64), scale_tril=L)
    ember.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = d.rsample()
    s.trace().backward()
    # trace(L N N^T L^T) = |L N|_F^2: gradient 2 L N N^T, with N = L^{-1} S L^{-T} chol.
    Ln = np.linalg.cholesky(to_np(s))
    N = np.linalg.solve(to_np(L), Ln)
    np.testing.assert_allclose(to_np(L.grad), np.tril(2 * Ln @ N.T) + np.triu(
        2 * Ln @ N.T, 1), rtol=1e-6, atol=1e-8)


def test_kl_and_expfamily_entropy():
    ed1, td1, _, _ = build("wishart", "Wishart", (DF,), {"covariance_matrix": COV})
    ed2, td2, _, _ = build("wishart", "Wishart", (np.array(7.0),),
                           {"covariance_matrix": COV[0] + np.eye(3)})
    same(ember.distributions.kl_divergence(ed1, ed2),
         torch.distributions.kl_divergence(td1, td2), rtol=1e-7, atol=1e-8)


def test_errors():
    E, T = ember.distributions.Wishart, torch.distributions.Wishart
    errors_like_torch(lambda: E(ember.tensor(4.)), lambda: T(torch.tensor(4.)),
                      "Exactly one of")
    errors_like_torch(lambda: E(ember.tensor(4.), ember.ones(3)),
                      lambda: T(torch.tensor(4.), torch.ones(3)), "two-dimensional")
    errors_like_torch(lambda: E(ember.tensor(1.5), ember.eye(3)),
                      lambda: T(torch.tensor(1.5), torch.eye(3)),
                      "expected to be greater than ndim - 1 = 2")
    for m in (ember, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            getattr(m.distributions, "Wishart")(m.tensor(2.5), m.eye(3))
    check_validation("wishart", "Wishart", (4.0, np.array([[1., 2.], [2., 1.]])))
    ed, td, _, _ = build("wishart", "Wishart", (4.0, np.eye(2)), validate_args=True)
    check_bad_value(ed, td, np.array([[1., 2.], [2., 1.]]))
