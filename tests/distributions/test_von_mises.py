"""ember.distributions.von_mises against torch.distributions.von_mises."""
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
    'VonMises', lambda R, dt: [nrm(R, dt, 2, 3), pos(R, dt, 3, k=4)],
    values=lambda R, dt: nrm(R, dt, 2, 3),
    bad=lambda R: [np.zeros(2, np.float32), np.array([1.0, -1.0], np.float32)],
    methods=('log_prob',), attrs=('mean', 'mode', 'variance'),
    tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_sample_range_and_ks():
    ember.manual_seed(0)
    d = ember.distributions.VonMises(ember.tensor(0.5), ember.tensor(2.0))
    x = d.sample((3000,)).numpy()
    assert x.min() >= -np.pi and x.max() < np.pi
    # CDF on a fine grid from ember's own density
    grid = np.linspace(-np.pi, np.pi, 20001)
    pdf = np.exp(d.log_prob(ember.tensor(grid, dtype=ember.float32)).double().numpy())
    cdf = np.concatenate([[0], np.cumsum((pdf[1:] + pdf[:-1]) / 2 * np.diff(grid))])
    assert ks_stat(x, lambda v: np.interp(v, grid, cdf)) < 0.03
