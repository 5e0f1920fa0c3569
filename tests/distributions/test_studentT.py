"""ember.distributions.studentT against torch.distributions.studentT."""
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
    'StudentT', lambda R, dt: [pos(R, dt, 2, 3, k=3), nrm(R, dt, 3), pos(R, dt, 3)],
    values=lambda R, dt: nrm(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, -1.0], np.float32)],
    methods=('log_prob',), tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_mean_variance_regimes():
    ed, td, _, _ = build('StudentT', [np.array([0.5, 1.5, 3.0]), 0.0, 2.0])
    assert_same(ed.mean, td.mean)
    assert_same(ed.variance, td.variance)
