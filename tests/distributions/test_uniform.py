"""ember.distributions.uniform against torch.distributions.uniform."""
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
    'Uniform', lambda R, dt: [-pos(R, dt, 2, 3) - 1.5, pos(R, dt, 3) + 1.5],
    values=lambda R, dt: (R.rand(2, 3) * 3.8 - 1.9).astype(dt), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, 2.0], np.float32), np.array([0.0, 3.0], np.float32)],
    bad_value=lambda R: np.array([9.0, 0.0, 0.0], np.float32)))


def test_log_prob_outside_is_minus_inf():
    ed, td, _, _ = build('Uniform', [0.0, 1.0], validate_args=False)
    ev, tv = tensors([np.array([-1.0, 0.0, 0.5, 1.0], np.float32)])
    assert_same(ed.log_prob(ev[0]), td.log_prob(tv[0]))
