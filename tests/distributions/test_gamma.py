"""ember.distributions.gamma against torch.distributions.gamma."""
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
    'Gamma', lambda R, dt: [pos(R, dt, 2, 3, k=2), pos(R, dt, 3)],
    values=lambda R, dt: pos(R, dt, 2, 3), probs=lambda R, dt: unit(R, dt, 2, 3),
    bad=lambda R: [np.array([1.0, -1.0], np.float32), np.ones(2, np.float32)],
    bad_value=lambda R: np.full((2, 3), -1.0, np.float32),
    tol={'float32': (2e-5, 1e-5), 'float64': (1e-6, 1e-9)}))


def test_rsample_moments():
    # the samples equal torch's; here, also a statistical check that does not lean on torch
    ember.manual_seed(0)
    d = ember.distributions.Gamma(ember.tensor([0.5, 3.0]), ember.tensor([2.0, 1.0]))
    x = d.sample((4000,)).double()
    m, v = x.mean(0), x.var(0)
    np.testing.assert_allclose(m.numpy(), [0.25, 3.0], rtol=0.06)
    np.testing.assert_allclose(v.numpy(), [0.125, 3.0], rtol=0.15)


def test_rsample_grad_matches_torch_implicit_gradient():
    a = np.array([0.3, 1.0, 4.0, 20.0])
    ea = ember.tensor(a, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    ember.manual_seed(2)
    torch.manual_seed(2)
    e = ember.distributions.Gamma(ea, 1.5).rsample((3,))
    t = torch.distributions.Gamma(ta, 1.5).rsample((3,))
    assert_same(e, t, rtol=1e-9)
    e.sum().backward()
    t.sum().backward()
    assert_same(ea.grad, ta.grad, rtol=1e-6)
