"""ember.distributions.Poisson against torch.distributions.Poisson."""
import numpy as np
import pytest

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                         check_sample_equal, check_validation, same)

RATE = np.array([[0.5, 2.0, 12.0], [0.0, 30.0, 4.5]])
VALUES = [np.array([[1., 0., 14.], [0., 25., 3.]]), np.array([5., 0., 2.]), np.array(3.)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_grads(dtype):
    ed, td, ep, tp = build("poisson", "Poisson", (RATE + 0.1,), dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, attrs=("mean", "mode", "variance", "stddev"))
    check_expand(ed, td, (4, 2, 3), VALUES[:1])


def test_zero_rate_and_entropy():
    ed, td, _, _ = build("poisson", "Poisson", (RATE,))
    check_common(ed, td, [], [], VALUES, attrs=("mean", "mode", "variance"), grad=False)
    # no closed form, and no carrier measure for the exponential-family fallback
    ed, td, _, _ = build("poisson", "Poisson", (np.array([0.5, 3.0]),))
    with pytest.raises(NotImplementedError):
        td.entropy()
    with pytest.raises(NotImplementedError):
        ed.entropy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("poisson", "Poisson", (RATE,), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (5,)))
    ed, td, _, _ = build("poisson", "Poisson", (4.0,))
    check_sample_equal(ed, td)


def test_errors():
    check_validation("poisson", "Poisson", (np.array([0.5, -1.5]),))
    ed, td, _, _ = build("poisson", "Poisson", (np.array([0.3, 6.]),), validate_args=True)
    check_bad_value(ed, td, np.array([-1., 1.]))
    check_bad_value(ed, td, np.array([0.5, 1.]))
