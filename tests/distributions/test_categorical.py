"""ember.distributions.Categorical against torch.distributions.Categorical."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_enumerate,
                         check_expand, check_sample_equal, check_validation, errors_like_torch,
                         same)

P = np.array([[0.2, 0.3, 0.5, 0.0], [0.1, 0.1, 0.1, 0.7]])
LOGITS = np.array([[-2.0, 0.0, 1.5, 0.3], [3.0, -0.5, 0.25, -1.0]])
VALUES = [np.array([[0, 1], [3, 2]]).T.copy(), np.array([3, 0]), np.array(1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = np.clip(P, 0.05, 1) if param == "probs" else LOGITS
    ed, td, ep, tp = build("categorical", "Categorical", kwargs={param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES)
    same(ed.logits, td.logits)
    same(ed.probs, td.probs)
    check_enumerate(ed, td)
    check_expand(ed, td, (3, 2), VALUES[1:])


def test_zero_probability_entropy():
    ed, td, _, _ = build("categorical", "Categorical", (P * 3,))
    check_common(ed, td, [], [], VALUES, grad=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("categorical", "Categorical", (P,), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (5,), (2, 3)))
    ed, td, _, _ = build("categorical", "Categorical", (np.array([1., 2., 3.]),), dtype=dtype)
    check_sample_equal(ed, td)
    assert ed.sample().dtype == ember.int64


def test_one_dim_and_3d():
    ed, td, ep, tp = build("categorical", "Categorical", (np.array([0.3, 0.2, 0.5]),),
                           requires_grad=True)
    check_common(ed, td, ep, tp, [np.array([0, 2, 1])])
    check_enumerate(ed, td)
    a = np.random.RandomState(0).rand(2, 3, 4) + 0.1
    ed, td, ep, tp = build("categorical", "Categorical", (a,), requires_grad=True)
    check_common(ed, td, ep, tp, [np.array([[0, 1, 2], [3, 3, 0]])])
    check_expand(ed, td, (5, 2, 3))
    check_sample_equal(ed, td, shapes=((2,),))


def test_errors():
    check_validation("categorical", "Categorical", (np.array([0.5, -0.5]),))
    errors_like_torch(lambda: ember.distributions.Categorical(ember.tensor(0.5)),
                      lambda: torch.distributions.Categorical(torch.tensor(0.5)),
                      "must be at least one-dimensional")
    errors_like_torch(lambda: ember.distributions.Categorical(logits=ember.tensor(0.5)),
                      lambda: torch.distributions.Categorical(logits=torch.tensor(0.5)),
                      "must be at least one-dimensional")
    ed, td, _, _ = build("categorical", "Categorical", (P,), validate_args=True)
    check_bad_value(ed, td, np.array([4, 0]))
    check_bad_value(ed, td, np.array([0.5, 1.]))
