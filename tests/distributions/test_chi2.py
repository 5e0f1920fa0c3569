"""ember.distributions.chi2 against torch.distributions.chi2."""
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
    'Chi2', lambda R, dt: [pos(R, dt, 2, 3, k=3)],
    values=lambda R, dt: pos(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, 0.0], np.float32)],
    tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_df_property():
    ed, td, _, _ = build('Chi2', [np.array([1.0, 3.0])])
    assert_same(ed.df, td.df)
    assert isinstance(ed, ember.distributions.Gamma)
