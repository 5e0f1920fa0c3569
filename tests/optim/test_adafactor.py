"""Adafactor vs torch: trajectories over 20 steps (factored moments for matrices, full
for vectors), options, state dicts either way, errors."""
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, one_param)


@pytest.mark.parametrize('kw', [
    dict(), dict(lr=0.05), dict(lr=0.05, beta2_decay=-0.5), dict(lr=0.05, eps=(1e-6, 1e-2)),
    dict(lr=0.05, d=2.0, weight_decay=0.1), dict(lr=0.05, maximize=True),
])
def test_matches_torch(kw):
    check_against_torch('Adafactor', kw, rtol=5e-5, atol=5e-6)


def test_groups_float64_tensor_lr_resume():
    check_against_torch('Adafactor', dict(lr=0.05), groups=dict(lr=0.02, weight_decay=0.1),
                        rtol=5e-5, atol=5e-6)
    check_against_torch('Adafactor', dict(lr=0.05, weight_decay=0.1), dtype='float64',
                        rtol=1e-11, atol=1e-12)
    check_tensor_lr('Adafactor', dict(lr=0.05), rtol=5e-5, atol=5e-6)
    check_resume_across('Adafactor', dict(lr=0.05), rtol=5e-5, atol=5e-6)


def test_module_defaults_repr():
    assert ember.optim.Adafactor.__module__ == 'ember.optim'
    check_defaults_and_repr('Adafactor')
    check_defaults_and_repr('Adafactor', lr=0.1, eps=(1e-5, 1e-3), d=1.5)


@pytest.mark.parametrize('kw, match', [
    (dict(lr=-1.0), 'Learning rate should be >= 0 but is: -1.0'),
    (dict(beta2_decay=0.5), 'beta2_decay should be <= 0 but is: 0.5'),
    (dict(eps=(-1.0, 1e-3)), 'epsilon1 should be >= 0 but is: -1.0'),
    (dict(eps=(None, -1.0)), 'epsilon2 should be >= 0 but is: -1.0'),
    (dict(d=0.5), 'Clipping threshold d should be >= 1 but is: 0.5'),
    (dict(weight_decay=-1.0), 'weight_decay should be >= 0 but is: -1.0'),
])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.Adafactor(one_param(m), **kw), match=match)
