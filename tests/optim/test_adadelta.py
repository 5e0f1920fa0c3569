"""Adadelta vs torch: parameter trajectories over 20 steps for each option set, state dicts
(format, values, loading either way), tensor lr, defaults/repr, validation errors."""
import pytest

from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, one_param)

OPTIONS = [dict(), dict(lr=0.5), dict(lr=1.0, rho=0.5), dict(lr=1.0, weight_decay=0.1), dict(lr=1.0, maximize=True, eps=1e-4)]


@pytest.mark.parametrize('kw', OPTIONS)
def test_matches_torch(kw):
    check_against_torch('Adadelta', kw)


def test_param_groups():
    check_against_torch('Adadelta', dict(lr=1.0, weight_decay=0.1), groups=dict(lr=0.02))


def test_float64():
    check_against_torch('Adadelta', dict(lr=1.0, weight_decay=0.1), dtype='float64', rtol=1e-11, atol=1e-12)


def test_tensor_lr():
    check_tensor_lr('Adadelta', dict(lr=1.0, weight_decay=0.1))


def test_state_dict_loads_either_way():
    check_resume_across('Adadelta', dict(lr=1.0, weight_decay=0.1))


def test_defaults_and_repr():
    check_defaults_and_repr('Adadelta')
    check_defaults_and_repr('Adadelta', **dict(lr=1.0, weight_decay=0.1))


@pytest.mark.parametrize('kw, match', [(dict(lr=-1.0), 'Invalid learning rate: -1.0'), (dict(rho=1.5), 'Invalid rho value: 1.5'), (dict(eps=-1.0), 'Invalid epsilon value: -1.0'), (dict(weight_decay=-1.0), 'Invalid weight_decay value: -1.0')])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.Adadelta(one_param(m), **kw), match=match)
