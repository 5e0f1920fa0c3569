"""ember.distributions.cauchy against torch.distributions.cauchy."""
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
    'Cauchy', lambda R, dt: [nrm(R, dt, 2, 3), pos(R, dt, 3)],
    values=lambda R, dt: nrm(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.zeros(2, np.float32), np.array([0.0, 1.0], np.float32)]))
