"""Rprop vs torch: parameter trajectories over 20 steps for each option set, state dicts
(format, values, loading either way), tensor lr, defaults/repr, validation errors."""
import pytest

from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, one_param)

OPTIONS = [dict(), dict(lr=0.05), dict(lr=0.01, etas=(0.3, 1.5)), dict(lr=0.01, step_sizes=(1e-3, 0.02)), dict(lr=0.01, maximize=True)]


@pytest.mark.parametrize('kw', OPTIONS)
def test_matches_torch(kw):
    check_against_torch('Rprop', kw)


def test_param_groups():
    check_against_torch('Rprop', dict(lr=0.01, etas=(0.4, 1.3)), groups=dict(lr=0.02))


def test_float64():
    check_against_torch('Rprop', dict(lr=0.01, etas=(0.4, 1.3)), dtype='float64', rtol=1e-11, atol=1e-12)


def test_tensor_lr():
    check_tensor_lr('Rprop', dict(lr=0.01, etas=(0.4, 1.3)))


def test_state_dict_loads_either_way():
    check_resume_across('Rprop', dict(lr=0.01, etas=(0.4, 1.3)))


def test_defaults_and_repr():
    check_defaults_and_repr('Rprop')
    check_defaults_and_repr('Rprop', **dict(lr=0.01, etas=(0.4, 1.3)))


@pytest.mark.parametrize('kw, match', [(dict(lr=-1.0), 'Invalid learning rate: -1.0'), (dict(etas=(1.2, 0.5)), 'Invalid eta values: 1.2, 0.5'), (dict(etas=(0.5, 0.9)), 'Invalid eta values: 0.5, 0.9')])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.Rprop(one_param(m), **kw), match=match)
