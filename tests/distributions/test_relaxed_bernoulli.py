"""RelaxedBernoulli and LogitRelaxedBernoulli against torch's."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_rsample_grad, check_sample_equal, check_validation)

P = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.25]])
T = np.array(0.7)


@pytest.mark.parametrize("name", ["RelaxedBernoulli", "LogitRelaxedBernoulli"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(name, dtype, param):
    a = P if param == "probs" else np.log(P / (1 - P))
    vals = [np.array([[0.2, 0.5, 0.99], [0.01, 0.4, 0.6]])] if name == "RelaxedBernoulli" \
        else [np.array([[-1.0, 0.5, 2.0], [0.1, -3.0, 0.6]])]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    ed, td, ep, tp = build("relaxed_bernoulli", name, (T,), {param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, vals, attrs=(), **tol)
    assert float(ed.temperature) == float(td.temperature)
    check_expand(ed, td, (4, 2, 3), vals, **tol)
    check_rsample_grad(ed, td, ep, tp, shape=(3,), **tol)
    check_sample_equal(ed, td, **tol)


def test_scalar_and_errors():
    ed, td, _, _ = build("relaxed_bernoulli", "RelaxedBernoulli", (T, 0.3))
    assert tuple(ed.batch_shape) == () == tuple(td.batch_shape)
    check_sample_equal(ed, td, rtol=1e-6)
    check_validation("relaxed_bernoulli", "RelaxedBernoulli", (T, np.array([0.5, 1.5])))
    ed, td, _, _ = build("relaxed_bernoulli", "RelaxedBernoulli", (T, np.array([0.3, 0.6])),
                         validate_args=True)
    check_bad_value(ed, td, np.array([1.5, 0.5]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        ember.distributions.RelaxedBernoulli(ember.tensor(1.))
