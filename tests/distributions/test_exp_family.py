"""ExponentialFamily: entropy via the Bregman divergence of the log normalizer."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same

R = np.random.RandomState(0)
CASES = {
    'Normal': [R.randn(3), R.rand(3) + 0.5],
    'Exponential': [R.rand(3) + 0.5],
    'Gamma': [R.rand(3) + 1.0, R.rand(3) + 0.5],
    'ContinuousBernoulli': [np.array([0.2, 0.4, 0.7])],
}


@pytest.mark.parametrize('name', list(CASES))
def test_bregman_entropy_matches_closed_form_and_torch(name):
    de = getattr(ember.distributions, name)(*[ember.tensor(p) for p in CASES[name]])
    dt = getattr(torch.distributions, name)(*[torch.tensor(p) for p in CASES[name]])
    from ember.distributions.exp_family import ExponentialFamily
    from torch.distributions.exp_family import ExponentialFamily as TEF
    e = ExponentialFamily.entropy(de)
    t = TEF.entropy(dt)
    assert_same(e.detach(), t.detach(), rtol=1e-7, atol=1e-9)
    assert_same(e.detach(), dt.entropy(), rtol=1e-6, atol=1e-8)
    assert isinstance(de, ExponentialFamily)


def test_abstract():
    from ember.distributions.exp_family import ExponentialFamily
    d = ExponentialFamily(validate_args=False)
    with pytest.raises(NotImplementedError):
        d._natural_params
    with pytest.raises(NotImplementedError):
        d._log_normalizer()
    with pytest.raises(NotImplementedError):
        d._mean_carrier_measure
