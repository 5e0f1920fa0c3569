"""ember.ao.nn.intrinsic.qat.LinearBn1d and LinearReLU against torch."""
import pytest
import torch

import ember
import ember.ao.nn.intrinsic.modules as e_nni
import ember.ao.nn.intrinsic.qat as e_nniqat
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, compare_state, qat_qconfig, quiet, train_steps


def _nni(T):
    return torch.ao.nn.intrinsic if T is torch else e_nni


def _nniqat(T):
    return torch.ao.nn.intrinsic.qat if T is torch else e_nniqat


def test_linear_bn_qat_matches_torch():
    e_f, t_f = both(lambda T: _nni(T).LinearBn1d(T.nn.Linear(5, 3), T.nn.BatchNorm1d(3)))
    t_f.qconfig, e_f.qconfig = qat_qconfig(torch), qat_qconfig(ember)
    e = quiet(e_nniqat.LinearBn1d.from_float, e_f)
    t = quiet(torch.ao.nn.intrinsic.qat.LinearBn1d.from_float, t_f)
    assert repr(e) == repr(t)
    train_steps(e, t, (6, 5), steps=2)
    compare_state(e, t)
    e.freeze_bn_stats(), t.freeze_bn_stats()
    e.train(), t.train()
    assert not e.bn.training
    train_steps(e, t, (6, 5), steps=1, seed=1)
    compare_state(e, t)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf)
    compare_state(ef, tf)


def test_linear_relu_qat_matches_torch():
    e_f, t_f = both(lambda T: _nni(T).LinearReLU(T.nn.Linear(5, 3), T.nn.ReLU()))
    t_f.qconfig, e_f.qconfig = qat_qconfig(torch), qat_qconfig(ember)
    for T, f in ((torch, t_f), (ember, e_f)):      # prepare_qat propagates qconfigs down
        f[0].qconfig = f.qconfig
    e = quiet(e_nniqat.LinearReLU.from_float, e_f)
    t = quiet(torch.ao.nn.intrinsic.qat.LinearReLU.from_float, t_f)
    assert repr(e) == repr(t)
    assert isinstance(e, e_nni._FusedModule)
    train_steps(e, t, (6, 5), steps=2)
    compare_state(e, t)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf)
    compare_state(ef, tf)


def test_construction_draws_and_errors():
    for name, args in (('LinearBn1d', (4, 3)), ('LinearReLU', (4, 3))):
        torch.manual_seed(2)
        t = getattr(torch.ao.nn.intrinsic.qat, name)(*args, qconfig=qat_qconfig(torch))
        ember.manual_seed(2)
        e = getattr(e_nniqat, name)(*args, qconfig=qat_qconfig(ember))
        if name == 'LinearBn1d':
            # torch leaves LinearBn1d's bias uninitialized (torch.empty): not compared
            e.bias, t.bias = None, None
        compare_state(e, t)
    msgs = []
    for T in (torch, ember):
        with pytest.raises(AssertionError, match='qconfig must be provided'):
            _nniqat(T).LinearBn1d(2, 2)
        lin = T.nn.Linear(2, 2)
        lin.qconfig = qat_qconfig(T)
        with pytest.raises(AssertionError) as ex:
            _nniqat(T).LinearBn1d.from_float(lin)
        msgs.append(str(ex.value))
    assert msgs[0] == msgs[1]
