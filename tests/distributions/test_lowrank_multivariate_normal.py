"""ember.distributions.LowRankMultivariateNormal against torch's."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_common, check_expand, check_rsample_grad,
                          check_sample_equal, check_validation, errors_like_torch, same,
                          compare_grads)

rng = np.random.RandomState(1)
LOC = rng.randn(2, 4)
W = rng.randn(2, 4, 2)
D = rng.rand(2, 4) + 0.5
VALUES = [rng.randn(2, 4), rng.randn(3, 2, 4)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_grads(dtype):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-10)
    ed, td, ep, tp = build("lowrank_multivariate_normal", "LowRankMultivariateNormal",
                           (LOC, W, D), dtype=dtype, requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, **tol)
    for a in ("scale_tril", "covariance_matrix", "precision_matrix"):
        same(getattr(ed, a), getattr(td, a), path=a, **tol)
        compare_grads(getattr(ed, a), getattr(td, a), ep, tp, **tol)
    check_expand(ed, td, (3, 2), VALUES[:1], **tol)
    check_rsample_grad(ed, td, ep, tp, shape=(2,), **tol)
    check_sample_equal(ed, td, **tol)


def test_broadcast_parameters():
    ed, td, ep, tp = build("lowrank_multivariate_normal", "LowRankMultivariateNormal",
                           (LOC[0], W, D[0]), requires_grad=True)
    assert tuple(ed.batch_shape) == (2,)
    check_common(ed, td, ep, tp, VALUES, rtol=1e-9, atol=1e-10)


def test_errors():
    E = ember.distributions.LowRankMultivariateNormal
    T = torch.distributions.LowRankMultivariateNormal
    cases = [((np.array(0.), W[0], D[0]), "loc must be at least one-dimensional"),
             ((LOC[0], D[0], D[0]), "cov_factor must be at least two-dimensional"),
             ((LOC[0], rng.randn(3, 2), D[0]), "cov_factor must be a batch of matrices"),
             ((LOC[0], W[0], rng.rand(3)), "cov_diag must be a batch of vectors"),
             ((rng.randn(3, 4), W, D), "Incompatible batch shapes")]
    for args, msg in cases:
        errors_like_torch(lambda: E(*map(ember.tensor, args)),
                          lambda: T(*map(torch.tensor, args)), msg)
    check_validation("lowrank_multivariate_normal", "LowRankMultivariateNormal",
                     (LOC[0], np.zeros((4, 2)), -D[0]))
