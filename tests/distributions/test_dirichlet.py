"""ember.distributions.Dirichlet against torch.distributions.Dirichlet."""
import numpy as np
import pytest
import torch

import ember
from oracle import to_np
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_rsample_grad, check_sample_equal, check_validation,
                          errors_like_torch, same)

C = np.array([[0.5, 2.0, 3.0], [1.0, 1.0, 1.0], [0.3, 0.2, 0.9]])
VALUES = [np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]]),
          np.array([0.25, 0.25, 0.5])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_grads(dtype):
    ed, td, ep, tp = build("dirichlet", "Dirichlet", (C,), dtype=dtype, requires_grad=True)
    check_common(ed, td, ep, tp, VALUES, rtol=1e-5 if dtype == np.float32 else None)
    check_expand(ed, td, (4, 3), VALUES[1:], rtol=1e-5 if dtype == np.float32 else None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsample_equals_torch_with_gradient(dtype):
    # K <= 4: torch's float64 sum of the gamma draws is reproduced exactly
    ed, td, ep, tp = build("dirichlet", "Dirichlet", (C,), dtype=dtype, requires_grad=True)
    check_rsample_grad(ed, td, ep, tp, shape=(4,), rtol=1e-4 if dtype == np.float32 else 1e-9)
    check_sample_equal(ed, td, rtol=1e-6 if dtype == np.float32 else 1e-12)
    e = ed.rsample()
    assert type(e.grad_fn).__name__ == "_DirichletBackward"


def test_large_event_close_to_torch():
    # more than 4 categories: the normalising sum may differ from torch's in the last bit
    c = np.linspace(0.2, 5, 9)
    ed, td, ep, tp = build("dirichlet", "Dirichlet", (c,), requires_grad=True)
    check_rsample_grad(ed, td, ep, tp, shape=(5,), rtol=1e-9, atol=1e-12)


def test_sample_moments():
    d = ember.distributions.Dirichlet(ember.tensor([2.0, 3.0, 5.0], dtype=ember.float64))
    ember.manual_seed(0)
    s = to_np(d.sample((4000,)))
    assert np.allclose(s.sum(-1), 1)
    assert np.all(np.abs(s.mean(0) - to_np(d.mean)) < 6 * np.sqrt(to_np(d.variance) / 4000))


def test_errors():
    check_validation("dirichlet", "Dirichlet", (np.array([0.5, -0.5]),))
    errors_like_torch(lambda: ember.distributions.Dirichlet(ember.tensor(2.)),
                      lambda: torch.distributions.Dirichlet(torch.tensor(2.)),
                      "must be at least one-dimensional")
    ed, td, _, _ = build("dirichlet", "Dirichlet", (C,), validate_args=True)
    check_bad_value(ed, td, np.array([0.5, 0.6, 0.1]))
