"""ember.distributions.MultivariateNormal against torch.distributions.MultivariateNormal."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_rsample_grad, check_sample_equal, check_validation,
                          errors_like_torch, same, compare_grads)

rng = np.random.RandomState(0)
A = rng.randn(2, 3, 3)
COV = A @ A.transpose(0, 2, 1) + np.eye(3)
LOC = rng.randn(4, 2, 3)
VALUES = [rng.randn(4, 2, 3), rng.randn(5, 1, 2, 3), rng.randn(3)]


def _param(kind):
    if kind == "scale_tril":
        return np.linalg.cholesky(COV)
    if kind == "precision_matrix":
        return np.linalg.inv(COV)
    return COV


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_values_and_grads(dtype, kind):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-10)
    ed, td, ep, tp = build("multivariate_normal", "MultivariateNormal", (LOC,),
                           {kind: _param(kind)}, dtype=dtype, requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, **tol)
    for a in ("scale_tril", "covariance_matrix", "precision_matrix"):
        same(getattr(ed, a), getattr(td, a), path=a, **tol)
        compare_grads(getattr(ed, a), getattr(td, a), ep, tp, **tol)
    check_expand(ed, td, (3, 4, 2), VALUES[:1], **tol)
    check_rsample_grad(ed, td, ep, tp, shape=(2,), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("multivariate_normal", "MultivariateNormal", (LOC[0, 0],),
                         {"scale_tril": np.linalg.cholesky(COV[0])}, dtype=dtype)
    check_sample_equal(ed, td, rtol=1e-6 if dtype == np.float32 else 1e-12,
                       atol=1e-6 if dtype == np.float32 else 1e-12)


def test_broadcast_batch_shapes():
    # loc with a larger batch than the covariance, and vice versa
    ed, td, ep, tp = build("multivariate_normal", "MultivariateNormal", (rng.randn(3),),
                           {"covariance_matrix": COV}, requires_grad=True)
    check_common(ed, td, ep, tp, [rng.randn(6, 2, 3)], rtol=1e-9, atol=1e-10)


def test_errors():
    E, T = ember.distributions.MultivariateNormal, torch.distributions.MultivariateNormal
    e, t = ember.zeros(3), torch.zeros(3)
    errors_like_torch(lambda: E(e), lambda: T(t), "Exactly one of")
    errors_like_torch(lambda: E(e, ember.eye(3), scale_tril=ember.eye(3)),
                      lambda: T(t, torch.eye(3), scale_tril=torch.eye(3)), "Exactly one of")
    errors_like_torch(lambda: E(ember.tensor(0.), ember.eye(3)),
                      lambda: T(torch.tensor(0.), torch.eye(3)), "loc must be at least")
    for kw in ("covariance_matrix", "precision_matrix", "scale_tril"):
        errors_like_torch(lambda: E(e, **{kw: ember.ones(3)}),
                          lambda: T(t, **{kw: torch.ones(3)}), "two-dimensional")
    bad = np.array([[1., 2.], [2., 1.]])
    check_validation("multivariate_normal", "MultivariateNormal", (np.zeros(2),),
                     {"covariance_matrix": bad})
    check_validation("multivariate_normal", "MultivariateNormal", (np.zeros(2),),
                     {"scale_tril": np.array([[1., 1.], [0., 1.]])})
    ed, td, _, _ = build("multivariate_normal", "MultivariateNormal", (np.zeros(3),),
                         {"covariance_matrix": COV[0]}, validate_args=True)
    check_bad_value(ed, td, np.array([0., np.nan, 1.]))
