"""ember.distributions.Geometric against torch.distributions.Geometric."""
import numpy as np
import pytest

from ._part2_util import (build, check_bad_value, check_common, check_expand,
                         check_sample_equal, check_validation)

P = np.array([[0.1, 0.5, 0.9], [0.3, 1.0, 0.25]])
LOGITS = np.array([[-2.0, 0.0, 1.5], [3.0, -0.5, 0.25]])
VALUES = [np.array([[1., 0., 4.], [2., 0., 3.]]), np.array([5., 0., 2.]), np.array(3.)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = np.clip(P, 0, 0.95) if param == "probs" else LOGITS
    ed, td, ep, tp = build("geometric", "Geometric", kwargs={param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES)
    check_expand(ed, td, (4, 2, 3), VALUES[:1])


def test_probability_one():
    ed, td, _, _ = build("geometric", "Geometric", (P,))
    check_common(ed, td, [], [], VALUES, grad=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("geometric", "Geometric", (np.clip(P, 0.01, 0.99),), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (5,)))
    ed, td, _, _ = build("geometric", "Geometric", (0.3,))
    check_sample_equal(ed, td)


def test_errors():
    check_validation("geometric", "Geometric", (np.array([0.5, 1.5]),))
    check_validation("geometric", "Geometric", (np.array([0.5, 0.0]),),
                     match="to be positive but found invalid values")
    ed, td, _, _ = build("geometric", "Geometric", (np.array([0.3, 0.6]),), validate_args=True)
    check_bad_value(ed, td, np.array([-1., 1.]))
    check_bad_value(ed, td, np.array([0.5, 1.]))
