"""ember.distributions.logistic_normal against torch.distributions.logistic_normal."""
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
    'LogisticNormal', lambda R, dt: [nrm(R, dt, 2, 3), pos(R, dt, 3)],
    values=lambda R, dt: np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]], dt),
    expand_to=(5, 2),
    bad=lambda R: [np.zeros(2, np.float32), np.array([1.0, -1.0], np.float32)],
    bad_value=lambda R: np.array([0.5, 0.6, 0.1, 0.1], np.float32),
    attrs=(), methods=('log_prob',)))


def test_scalar_params_event_shape():
    ed, td, _, _ = build('LogisticNormal', [0.0, 1.0])
    assert tuple(ed.event_shape) == tuple(td.event_shape) == (2,)
    assert tuple(ed.batch_shape) == tuple(td.batch_shape)
