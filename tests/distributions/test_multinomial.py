"""ember.distributions.Multinomial against torch.distributions.Multinomial."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                         check_sample_equal, check_validation, errors_like_torch, same)

P = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
VALUES = [np.array([[2., 3., 5.], [0., 0., 10.]]), np.array([4., 4., 2.])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = P if param == "probs" else np.log(P) - 0.7
    ed, td, ep, tp = build("multinomial", "Multinomial", (10,), {param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, attrs=("mean", "variance", "stddev", "entropy"),
                 rtol=1e-5 if dtype == np.float32 else None)
    same(ed.logits, td.logits)
    check_expand(ed, td, (4, 2), VALUES[:1])


def test_zero_probability_log_prob():
    ed, td, _, _ = build("multinomial", "Multinomial", (4,), {"logits": np.array(
        [0.0, -np.inf, 1.0])})
    same(ed.log_prob(ember.tensor([2., 0., 2.])), td.log_prob(torch.tensor([2., 0., 2.])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("multinomial", "Multinomial", (10, P), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (4,), (2, 3)))


def test_errors():
    errors_like_torch(
        lambda: ember.distributions.Multinomial(ember.tensor(3), ember.tensor(P)),
        lambda: torch.distributions.Multinomial(torch.tensor(3), torch.tensor(P)),
        "inhomogeneous total_count is not supported")
    check_validation("multinomial", "Multinomial", (3, np.array([0.5, -0.5])))
    ed, td, _, _ = build("multinomial", "Multinomial", (3, P), validate_args=True)
    check_bad_value(ed, td, np.array([4., 0., 0.]))
    check_bad_value(ed, td, np.array([-1., 2., 1.]))
