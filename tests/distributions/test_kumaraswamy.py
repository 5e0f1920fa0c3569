"""ember.distributions.kumaraswamy against torch.distributions.kumaraswamy."""
import numpy as np
import pytest

import ember
from ._part1_util import standard, build, check_dist, tensors, assert_same, errors_same

def pos(R, dt, *s, lo=0.5, k=1.0):
    return ((R.rand(*s) + lo) * k).astype(dt)


def unit(R, dt, *s):
    return (R.rand(*s) * 0.9 + 0.05).astype(dt)


def nrm(R, dt, *s):
    return R.randn(*s).astype(dt)

globals().update(standard(
    'Kumaraswamy', lambda R, dt: [pos(R, dt, 2, 3, k=2), pos(R, dt, 3, k=2)],
    values=lambda R, dt: unit(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, -1.0], np.float32), np.ones(2, np.float32)],
    bad_value=lambda R: np.full((2, 3), 1.5, np.float32),
    tol={'float32': (1e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_mode_nan_below_one():
    ed, td, _, _ = build('Kumaraswamy', [np.array([0.5, 2.0, 3.0]), np.array([2.0, 0.7, 3.0])])
    assert_same(ed.mode, td.mode)
