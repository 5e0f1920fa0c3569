"""ember.distributions.OneHotCategorical(StraightThrough) against torch's."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_enumerate,
                         check_expand, check_rsample_grad, check_sample_equal, check_validation,
                         same)

P = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
VALUES = [np.array([[1., 0., 0.], [0., 0., 1.]]), np.array([0., 1., 0.])]


@pytest.mark.parametrize("name", ["OneHotCategorical", "OneHotCategoricalStraightThrough"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(name, dtype, param):
    a = P if param == "probs" else np.log(P) + 0.3
    ed, td, ep, tp = build("one_hot_categorical", name, kwargs={param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES)
    same(ed.logits, td.logits)
    same(ed.probs, td.probs)
    check_enumerate(ed, td)
    ee, te = check_expand(ed, td, (4, 2), VALUES[:1])
    check_sample_equal(ed, td)
    assert type(ee).__name__ == name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_straight_through_rsample(dtype):
    ed, td, ep, tp = build("one_hot_categorical", "OneHotCategoricalStraightThrough", (P,),
                           dtype=dtype, requires_grad=True)
    check_rsample_grad(ed, td, ep, tp, shape=(3,))
    check_sample_equal(ed, td, method="rsample")


def test_errors():
    check_validation("one_hot_categorical", "OneHotCategorical", (np.array([0.5, -0.5]),))
    ed, td, _, _ = build("one_hot_categorical", "OneHotCategorical", (P,), validate_args=True)
    check_bad_value(ed, td, np.array([1., 1., 0.]))
    check_bad_value(ed, td, np.array([1., 0.]), match="The right-most size of value")
