"""ember.distributions.half_normal against torch.distributions.half_normal."""
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
    'HalfNormal', lambda R, dt: [pos(R, dt, 2, 3)],
    values=lambda R, dt: pos(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([0.0], np.float32)],
    bad_value=lambda R: np.full((2, 3), -1.0, np.float32)))


def test_log_prob_negative_without_validation():
    ed, td, _, _ = build('HalfNormal', [np.ones(3, np.float32)], validate_args=False)
    ev, tv = tensors([np.array([-1.0, 0.0, 2.0], np.float32)])
    assert_same(ed.log_prob(ev[0]), td.log_prob(tv[0]))
