"""ember.distributions.NegativeBinomial against torch.distributions.NegativeBinomial."""
import numpy as np
import pytest

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_sample_equal, check_validation)

N = np.array([[3.0, 5.5, 0.5], [10.0, 1.0, 2.0]])
P = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.25]])
VALUES = [np.array([[1., 0., 4.], [2., 5., 3.]]), np.array([5., 0., 2.])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = P if param == "probs" else np.log(P / (1 - P))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    ed, td, ep, tp = build("negative_binomial", "NegativeBinomial", (N,), {param: a},
                           dtype=dtype, requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, attrs=("mean", "mode", "variance", "stddev"), **tol)
    check_expand(ed, td, (4, 2, 3), VALUES[:1], **tol)


def test_zero_total_count():
    ed, td, _, _ = build("negative_binomial", "NegativeBinomial", (np.array([0., 2.]),
                                                                   np.array([0.3, 0.4])))
    check_common(ed, td, [], [], [np.array([0., 1.])], attrs=("mean",), grad=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    # Gamma (Marsaglia-Tsang) then Poisson draws: torch's streams, draw for draw
    ed, td, _, _ = build("negative_binomial", "NegativeBinomial", (N, P), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (4,)))


def test_errors():
    check_validation("negative_binomial", "NegativeBinomial", (np.array([-1., 2.]),
                                                               np.array([0.3, 0.4])))
    check_validation("negative_binomial", "NegativeBinomial", (np.array([1., 2.]),
                                                               np.array([0.3, 1.0])))
    ed, td, _, _ = build("negative_binomial", "NegativeBinomial", (N, P), validate_args=True)
    check_bad_value(ed, td, np.array([0.5, 1., 2.]))
