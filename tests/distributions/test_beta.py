"""ember.distributions.beta against torch.distributions.beta."""
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
    'Beta', lambda R, dt: [pos(R, dt, 2, 3, lo=1.1), pos(R, dt, 3, lo=1.1)],
    values=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, -1.0], np.float32), np.ones(2, np.float32)],
    bad_value=lambda R: np.full((2, 3), 1.5, np.float32),
    methods=('log_prob',), attrs=('mean', 'mode', 'variance', 'stddev', 'entropy'),
    tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_scalar_params():
    ed, td = check_dist('Beta', [0.5, 2.0], np.array([0.2, 0.7], np.float32), grad=False,
                        methods=('log_prob',))
    assert tuple(ed.batch_shape) == tuple(td.batch_shape) == ()
    assert_same(ed.concentration1, td.concentration1)
