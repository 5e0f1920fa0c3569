"""ember.distributions.continuous_bernoulli against torch.distributions.continuous_bernoulli."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import standard, build, check_dist, tensors, assert_same, errors_same, ks_stat

def pos(R, dt, *s, lo=0.5, k=1.0):
    return ((R.rand(*s) + lo) * k).astype(dt)


def unit(R, dt, *s):
    return (R.rand(*s) * 0.9 + 0.05).astype(dt)


def nrm(R, dt, *s):
    return R.randn(*s).astype(dt)

globals().update(standard(
    'ContinuousBernoulli', lambda R, dt: [np.array([0.1, 0.4995, 0.8], dt)],
    values=lambda R, dt: unit(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([0.5, 1.5], np.float32)],
    bad_value=lambda R: np.full(3, 1.5, np.float32),
    tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_logits_parametrization(dt):
    R = np.random.RandomState(5)
    check_dist('ContinuousBernoulli', [], unit(R, dt, 2, 3), kwargs={'logits': nrm(R, dt, 3)},
               probs=unit(R, dt, 2, 3), rtol=2e-5 if dt == 'float32' else 1e-6,
               atol=5e-4 if dt == 'float32' else 1e-9)  # float32 cancellation near p=0.5


def test_both_or_neither_raises():
    em, tm = errors_same(lambda: ember.distributions.ContinuousBernoulli(),
                         lambda: torch.distributions.ContinuousBernoulli())
    assert em == tm
