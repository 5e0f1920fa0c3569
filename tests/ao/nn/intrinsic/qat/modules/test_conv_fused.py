"""ember.ao.nn.intrinsic.qat's conv + bn (+ relu) and conv + relu QAT modules against
torch: BN folding in training and frozen, the slow path, freeze/update of the batch-norm
statistics, to_float, construction draws and errors."""
import collections

import pytest
import torch

import ember
import ember.ao.nn.intrinsic.modules as e_nni
import ember.ao.nn.intrinsic.qat as e_nniqat
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, compare_state, qat_qconfig, quiet, train_steps


def _fused(T, name, nd, relu, bn=True, bias=True):
    nn = T.nn
    conv = getattr(nn, f'Conv{nd}d')(2, 3, 3, padding=1, bias=bias)
    mods = [conv]
    if bn:
        mods.append(getattr(nn, f'BatchNorm{nd}d')(3))
    if relu:
        mods.append(nn.ReLU())
    nni = torch.ao.nn.intrinsic if T is torch else e_nni
    return getattr(nni, name)(*mods)


def _pair(name, nd, relu, bn=True, bias=True):
    e_f, t_f = both(lambda T: _fused(T, name, nd, relu, bn, bias))
    t_f.qconfig, e_f.qconfig = qat_qconfig(torch), qat_qconfig(ember)
    for f in (t_f, e_f):      # prepare_qat propagates the qconfig to the children too
        f[0].qconfig = f.qconfig
    e = quiet(getattr(e_nniqat, name).from_float, e_f)
    t = quiet(getattr(torch.ao.nn.intrinsic.qat, name).from_float, t_f)
    return e, t


CASES = [('ConvBn1d', 1, False, True), ('ConvBn2d', 2, False, True),
         ('ConvBn3d', 3, False, False), ('ConvBnReLU1d', 1, True, True),
         ('ConvBnReLU2d', 2, True, False), ('ConvBnReLU3d', 3, True, True)]


@pytest.mark.parametrize('name,nd,relu,bias', CASES, ids=[c[0] for c in CASES])
def test_conv_bn_qat_matches_torch(name, nd, relu, bias):
    e, t = _pair(name, nd, relu, bias=bias)
    assert repr(e) == repr(t)
    assert isinstance(e, e_nni._FusedModule) and isinstance(e, getattr(ember.nn, f'Conv{nd}d'))
    shape = (2, 2) + (5,) * nd
    train_steps(e, t, shape, steps=2)          # batch statistics, running stats updated
    compare_state(e, t)
    e.apply(e_nniqat.freeze_bn_stats), t.apply(torch.ao.nn.intrinsic.qat.freeze_bn_stats)
    assert e.freeze_bn and not e.bn.training
    train_steps(e, t, shape, steps=1, seed=1)  # frozen: running stats
    compare_state(e, t)
    e.train(), t.train()
    assert not e.bn.training                   # a frozen bn stays in eval mode
    e.apply(e_nniqat.update_bn_stats), t.apply(torch.ao.nn.intrinsic.qat.update_bn_stats)
    assert e.bn.training
    e.eval(), t.eval()
    train_steps(e, t, shape, steps=1, seed=2)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf)
    compare_state(ef, tf)


def test_slow_path_matches_torch():
    e, t = _pair('ConvBn2d', 2, False, bias=True)
    e._enable_slow_path_for_better_numerical_stability = True
    t._enable_slow_path_for_better_numerical_stability = True
    train_steps(e, t, (2, 2, 5, 5), steps=2)
    compare_state(e, t)
    e.eval(), t.eval()
    e.freeze_bn_stats(), t.freeze_bn_stats()
    train_steps(e, t, (2, 2, 5, 5), steps=1, seed=3)


@pytest.mark.parametrize('name,nd', [('ConvReLU1d', 1), ('ConvReLU2d', 2), ('ConvReLU3d', 3)])
def test_conv_relu_qat_matches_torch(name, nd):
    e, t = _pair(name, nd, True, bn=False)
    assert repr(e) == repr(t)
    train_steps(e, t, (2, 2) + (5,) * nd, steps=2)
    compare_state(e, t)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf)
    compare_state(ef, tf)


def test_construction_draws_as_torch():
    torch.manual_seed(7)
    t = torch.ao.nn.intrinsic.qat.ConvBnReLU2d(3, 4, 3, bias=True, qconfig=qat_qconfig(torch))
    ember.manual_seed(7)
    e = e_nniqat.ConvBnReLU2d(3, 4, 3, bias=True, qconfig=qat_qconfig(ember))
    compare_state(e, t)
    assert e.freeze_bn is False and e.bn.training
    torch.manual_seed(7)
    t = torch.ao.nn.intrinsic.qat.ConvBn2d(3, 4, 3, freeze_bn=True, qconfig=qat_qconfig(torch))
    ember.manual_seed(7)
    e = e_nniqat.ConvBn2d(3, 4, 3, freeze_bn=True, qconfig=qat_qconfig(ember))
    compare_state(e, t)
    assert e.freeze_bn is True and not e.bn.training


def test_errors_as_torch():
    for mod in (torch.ao.nn.intrinsic.qat, e_nniqat):
        with pytest.raises(AssertionError, match='qconfig must be provided for QAT module'):
            mod.ConvBn2d(2, 2, 1)
    msgs = []
    for T, mod in ((torch, torch.ao.nn.intrinsic.qat), (ember, e_nniqat)):
        f = _fused(T, 'ConvBnReLU2d', 2, True)
        f.qconfig = qat_qconfig(T)
        with pytest.raises(AssertionError) as ex:
            mod.ConvBn2d.from_float(f)
        msgs.append(str(ex.value))
        f = _fused(T, 'ConvBn2d', 2, False)
        with pytest.raises(AssertionError, match='must have qconfig defined'):
            mod.ConvBn2d.from_float(f)
    assert msgs[0] == msgs[1]


def test_load_version1_state_dict_names():
    e, t = _pair('ConvBn2d', 2, False)
    sd = t.state_dict()
    old = {}
    for k, v in sd.items():
        k = {'bn.weight': 'gamma', 'bn.bias': 'beta', 'bn.running_mean': 'running_mean',
             'bn.running_var': 'running_var',
             'bn.num_batches_tracked': 'num_batches_tracked'}.get(k, k)
        old[k] = ember.from_numpy(v.detach().numpy().copy())
    old = collections.OrderedDict(old)
    old._metadata = {'': {'version': 1}}
    e2, _ = _pair('ConvBn2d', 2, False)
    e2.load_state_dict(old)
    compare_state(e2, t)
