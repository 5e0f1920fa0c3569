"""ember.distributions.Binomial against torch.distributions.Binomial."""
import numpy as np
import pytest
import torch

import ember
from oracle import to_np
from ._part2_util import (build, check_bad_value, check_common, check_enumerate,
                         check_expand, check_sample_equal, check_validation, errors_like_torch,
                         same)

P = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.25]])
LOGITS = np.array([[-2.0, 0.0, 1.5], [3.0, -0.5, 0.25]])
VALUES = [np.array([[1., 0., 4.], [2., 5., 3.]]), np.array([5., 0., 2.]), np.array(3.)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = P if param == "probs" else LOGITS
    ed, td, ep, tp = build("binomial", "Binomial", (5,), {param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, rtol=2e-5 if dtype == np.float32 else None)
    check_enumerate(ed, td)
    check_expand(ed, td, (4, 2, 3), VALUES[:1])


def test_tensor_total_count():
    n = np.array([[3.], [10.]])
    ed, td, ep, tp = build("binomial", "Binomial", (n, P), requires_grad=True)
    check_common(ed, td, ep, tp, [np.array([[1., 2., 3.], [7., 0., 10.]])],
                 attrs=("mean", "mode", "variance", "stddev"))
    # entropy / enumerate_support need a homogeneous count
    for f in ("entropy", "enumerate_support"):
        e, t = errors_like_torch(getattr(ed, f), getattr(td, f), "Inhomogeneous total count")
    check_expand(ed, td, (5, 2, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    # small counts (inversion), large counts (BTRS), p > 1/2 (mirrored), edge probabilities
    n = np.array([0., 1., 5., 10., 20., 40., 100., 1000., 7., 30., 50., 3.])
    p = np.array([.1, .5, .9, .3, .7, .01, .99, .5, .4, .6, 0., 1.])
    ed, td, _, _ = build("binomial", "Binomial", (n, p), dtype=dtype)
    check_sample_equal(ed, td, shapes=((), (4,)))
    ed, td, _, _ = build("binomial", "Binomial", (7,), {"logits": LOGITS}, dtype=dtype)
    check_sample_equal(ed, td)


def test_sample_moments():
    ed = ember.distributions.Binomial(ember.tensor([20., 500.]), ember.tensor([0.3, 0.8]))
    ember.manual_seed(0)
    s = to_np(ed.sample((4000,)))
    mean, var = np.array([6., 400.]), np.array([4.2, 80.])
    assert np.all(np.abs(s.mean(0) - mean) < 6 * np.sqrt(var / 4000))
    assert np.all(np.abs(s.var(0) / var - 1) < 0.15)


def test_errors():
    check_validation("binomial", "Binomial", (5, np.array([0.5, 1.5])))
    check_validation("binomial", "Binomial", (np.array([2.5, 3.]), np.array([0.5, 0.5])))
    check_validation("binomial", "Binomial", (np.array([-1., 3.]), np.array([0.5, 0.5])))
    ed, td, _, _ = build("binomial", "Binomial", (4, np.array([0.3, 0.6])), validate_args=True)
    check_bad_value(ed, td, np.array([5., 1.]))
    check_bad_value(ed, td, np.array([0.5, 1.]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        ember.distributions.Binomial(3)
