"""Adam vs torch: parameter trajectories over 20 steps for every option, state dicts
(format, values, loading either way), tensor lr, validation errors."""
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import (check_against_torch, check_resume_across, check_defaults_and_repr,
                         check_tensor_lr, check_save_load_file, one_param, train,
                         assert_params_close)

OPTIONS = [
    dict(), dict(lr=0.01), dict(lr=0.01, amsgrad=True), dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, maximize=True), dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True),
    dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    dict(lr=0.01, foreach=False), dict(lr=0.01, capturable=False, differentiable=False),
]


@pytest.mark.parametrize('kw', OPTIONS)
def test_matches_torch(kw):
    check_against_torch('Adam', kw)


def test_param_groups():
    check_against_torch('Adam', dict(lr=0.01), groups=dict(lr=0.05, amsgrad=True, betas=(0.5, 0.9)))


def test_float64():
    check_against_torch('Adam', dict(lr=0.01, amsgrad=True), dtype='float64', rtol=1e-12, atol=1e-13)


def test_tensor_lr():
    check_tensor_lr('Adam', dict(lr=0.01, amsgrad=True))


def test_state_dict_loads_either_way():
    check_resume_across('Adam', dict(lr=0.01, amsgrad=True, weight_decay=0.1))


def test_torch_save_file_loads(tmp_path):
    check_save_load_file('Adam', dict(lr=0.01), tmp_path)


def test_state_names_and_step_dtype():
    _, oe = train(ember, 'Adam', 2, None, dict(amsgrad=True))
    st = oe.state_dict()['state'][0]
    assert list(st) == ['step', 'exp_avg', 'exp_avg_sq', 'max_exp_avg_sq']
    assert st['step'].dtype is ember.float32 and st['step'].dim() == 0 and st['step'].item() == 2


def test_defaults_and_repr():
    check_defaults_and_repr('Adam')
    check_defaults_and_repr('Adam', lr=0.1, amsgrad=True, weight_decay=0.5)


def test_skips_params_without_grad_and_returns_closure_loss():
    p, q = ember.nn.Parameter(ember.ones(2)), ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.Adam([p, q], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * 3).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 6.0
    assert q.tolist() == [1.0, 1.0] and q not in opt.state
    assert p.tolist() == pytest.approx([0.9, 0.9])


def test_version_bumped():
    p = ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.Adam([p])
    p.grad = ember.ones(2)
    v = p._version
    opt.step()
    assert p._version > v


@pytest.mark.parametrize('kw, match', [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(eps=-1.0), 'Invalid epsilon value: -1.0'),
    (dict(betas=(1.0, 0.999)), 'Invalid beta parameter at index 0: 1.0'),
    (dict(betas=(0.9, -0.1)), 'Invalid beta parameter at index 1: -0.1'),
    (dict(weight_decay=-0.5), 'Invalid weight_decay value: -0.5'),
    (dict(betas=(0.9, 0)), 'betas must be either both floats or both Tensors'),
    (dict(fused=True, differentiable=True), '`fused` does not support `differentiable`'),
])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.Adam(one_param(m), **kw), match=match)


def test_tensor_lr_errors():
    check_error(lambda m: m.optim.Adam(one_param(m), lr=m.tensor([0.1, 0.2])),
                match='Tensor lr must be 1-element')
    check_error(lambda m: m.optim.Adam(one_param(m), lr=m.tensor(0.1), foreach=True),
                match='lr as a Tensor is not supported for capturable=False and foreach=True')


def test_tensor_betas():
    ne, oe = train(ember, 'Adam', 10, None, dict(lr=0.01, betas=(ember.tensor(0.8), ember.tensor(0.99))))
    nt, ot = train(torch, 'Adam', 10, None, dict(lr=0.01, betas=(torch.tensor(0.8), torch.tensor(0.99))))
    assert_params_close(ne, nt)
    check_error(lambda m: m.optim.Adam(one_param(m), betas=(m.tensor([0.9, 0.9]), m.tensor(0.9))),
                match='Boolean value of Tensor with more than one value is ambiguous')
