"""RAdam vs torch: parameter trajectories over 20 steps for each option set, state dicts
(format, values, loading either way), tensor lr, defaults/repr, validation errors."""
import pytest

from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, one_param)

OPTIONS = [dict(), dict(lr=0.01), dict(lr=0.01, weight_decay=0.1), dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), dict(lr=0.01, maximize=True), dict(lr=0.01, betas=(0.9, 0.9))]


@pytest.mark.parametrize('kw', OPTIONS)
def test_matches_torch(kw):
    check_against_torch('RAdam', kw)


def test_param_groups():
    check_against_torch('RAdam', dict(lr=0.01, weight_decay=0.1), groups=dict(lr=0.02))


def test_float64():
    check_against_torch('RAdam', dict(lr=0.01, weight_decay=0.1), dtype='float64', rtol=1e-11, atol=1e-12)


def test_tensor_lr():
    check_tensor_lr('RAdam', dict(lr=0.01, weight_decay=0.1))


def test_state_dict_loads_either_way():
    check_resume_across('RAdam', dict(lr=0.01, weight_decay=0.1))


def test_defaults_and_repr():
    check_defaults_and_repr('RAdam')
    check_defaults_and_repr('RAdam', **dict(lr=0.01, weight_decay=0.1))


@pytest.mark.parametrize('kw, match', [(dict(lr=-1.0), 'Invalid learning rate: -1.0'), (dict(eps=-1.0), 'Invalid epsilon value: -1.0'), (dict(betas=(0.9, 1.0)), 'Invalid beta parameter at index 1: 1.0'), (dict(weight_decay=-1.0), 'Invalid weight_decay value: -1.0')])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.RAdam(one_param(m), **kw), match=match)
