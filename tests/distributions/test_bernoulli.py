"""ember.distributions.Bernoulli against torch.distributions.Bernoulli."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_enumerate,
                         check_expand, check_sample_equal, check_validation, same, tensors)

P = np.array([[0.1, 0.5, 0.9], [0.0, 1.0, 0.3]])
LOGITS = np.array([[-2.0, 0.0, 1.5], [3.0, -0.5, 0.25]])
VALUES = [np.array([[1., 0., 1.], [0., 1., 1.]]), np.array([1., 0., 0.]), np.array(1.)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(dtype, param):
    a = P if param == "probs" else LOGITS
    if param == "probs":
        a = np.clip(a, 0.05, 0.95)       # finite logits for gradients
    ed, td, ep, tp = build("bernoulli", "Bernoulli", kwargs={param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, VALUES)
    same(ed.logits, td.logits)
    same(ed.probs, td.probs)
    assert tuple(ed.param_shape) == tuple(td.param_shape)
    check_enumerate(ed, td)
    check_expand(ed, td, (4, 2, 3), VALUES[:1])


def test_edge_probabilities():
    # probs 0 and 1 (infinite logits), mode nan at 0.5
    ed, td, _, _ = build("bernoulli", "Bernoulli", kwargs={"probs": P})
    check_common(ed, td, [], [], VALUES, grad=False)


def test_scalar_parameter():
    ed, td, _, _ = build("bernoulli", "Bernoulli", (0.3,))
    assert tuple(ed.batch_shape) == () == tuple(td.batch_shape)
    check_common(ed, td, [], [], [np.array([0., 1.])], grad=False)
    check_sample_equal(ed, td)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sample_equals_torch(dtype):
    ed, td, _, _ = build("bernoulli", "Bernoulli", (P,), dtype=dtype)
    check_sample_equal(ed, td)
    ed, td, _, _ = build("bernoulli", "Bernoulli", kwargs={"logits": LOGITS}, dtype=dtype)
    check_sample_equal(ed, td)
    assert not ed.sample().requires_grad


def test_enumerate_scalar_batch():
    ed, td, _, _ = build("bernoulli", "Bernoulli", (np.array(0.3),))
    check_enumerate(ed, td)


def test_errors():
    check_validation("bernoulli", "Bernoulli", (np.array([0.5, 1.5]),))
    check_validation("bernoulli", "Bernoulli", (), {"logits": np.array([0.5, np.nan])})
    ed, td, _, _ = build("bernoulli", "Bernoulli", (np.array([0.3, 0.6]),),
                         validate_args=True)
    check_bad_value(ed, td, np.array([0.5, 1.0]))
    check_bad_value(ed, td, np.array([[1., 0., 1.]]),
                    match="Value is not broadcastable")
    E, T = ember.distributions.Bernoulli, torch.distributions.Bernoulli
    for kw in ({}, {"probs": 0.3, "logits": 0.1}):
        with pytest.raises(ValueError, match="Either `probs` or `logits`"):
            T(**kw)
        with pytest.raises(ValueError, match="Either `probs` or `logits`"):
            E(**kw)


def test_exp_family_entropy_matches():
    # the Bregman-divergence entropy of ExponentialFamily agrees with the closed form
    ed, td, _, _ = build("bernoulli", "Bernoulli", (np.array([0.2, 0.7]),))
    same(ember.distributions.ExponentialFamily.entropy(ed), td.entropy(), rtol=1e-5)
