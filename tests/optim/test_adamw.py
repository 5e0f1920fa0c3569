"""AdamW vs torch."""
import pytest

import ember
from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, one_param)


@pytest.mark.parametrize('kw', [
    dict(), dict(lr=0.01), dict(lr=0.01, amsgrad=True), dict(lr=0.01, weight_decay=0.5),
    dict(lr=0.01, maximize=True, amsgrad=True), dict(lr=0.02, betas=(0.7, 0.9), weight_decay=0),
])
def test_matches_torch(kw):
    check_against_torch('AdamW', kw)


def test_groups_tensor_lr_resume():
    check_against_torch('AdamW', dict(lr=0.01), groups=dict(weight_decay=0.3))
    check_tensor_lr('AdamW', dict(lr=0.01))
    check_resume_across('AdamW', dict(lr=0.01, amsgrad=True))


def test_defaults_and_repr():
    check_defaults_and_repr('AdamW')
    assert ember.optim.AdamW(one_param(ember)).defaults['decoupled_weight_decay'] is True
    assert issubclass(ember.optim.AdamW, ember.optim.Adam)


def test_invalid():
    check_error(lambda m: m.optim.AdamW(one_param(m), lr=-0.1), match='Invalid learning rate')
    check_error(lambda m: m.optim.AdamW(one_param(m), weight_decay=-0.1),
                match='Invalid weight_decay value: -0.1')
