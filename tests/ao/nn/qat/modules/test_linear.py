"""ember.ao.nn.qat.Linear (and qat.dynamic.Linear) against torch."""
import pytest
import torch

import ember
import ember.ao.nn.qat as e_nnqat
import ember.ao.nn.qat.dynamic as e_nnqatd
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, compare_state, qat_qconfig, quiet, train_steps


def _from_float(make):
    e_f, t_f = both(make)
    t_f.qconfig, e_f.qconfig = qat_qconfig(torch), qat_qconfig(ember)
    return (quiet(e_nnqat.Linear.from_float, e_f),
            quiet(torch.ao.nn.qat.Linear.from_float, t_f), e_f, t_f)


def test_from_float_forward_backward_to_float():
    e, t, e_f, t_f = _from_float(lambda T: T.nn.Linear(6, 4))
    assert e.weight is e_f.weight and e.bias is e_f.bias      # shared, as torch
    assert repr(e) == repr(t)
    train_steps(e, t, (5, 6), steps=3)
    compare_state(e, t)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf) and type(ef) is ember.nn.Linear
    compare_state(ef, tf)
    assert ef.weight is not e.weight


def test_no_bias_and_eval():
    e, t, _, _ = _from_float(lambda T: T.nn.Linear(3, 2, bias=False))
    e.eval(), t.eval()
    train_steps(e, t, (4, 3), steps=1)
    compare_state(e, t)


def test_construction_draws_as_torch():
    torch.manual_seed(3)
    t = torch.ao.nn.qat.Linear(5, 3, qconfig=qat_qconfig(torch))
    ember.manual_seed(3)
    e = e_nnqat.Linear(5, 3, qconfig=qat_qconfig(ember))
    compare_state(e, t)


def test_errors_as_torch():
    for T, mod in ((torch, torch.ao.nn.qat), (ember, e_nnqat)):
        with pytest.raises(AssertionError, match='qconfig must be provided for QAT module'):
            mod.Linear(2, 2)
    msgs = []
    for T, mod in ((torch, torch.ao.nn.qat), (ember, e_nnqat)):
        conv = T.nn.Conv2d(1, 1, 1)
        with pytest.raises(AssertionError) as ex:
            mod.Linear.from_float(conv)
        msgs.append(str(ex.value))
        lin = T.nn.Linear(2, 2)
        with pytest.raises(AssertionError, match='must have qconfig defined'):
            mod.Linear.from_float(lin)
        lin.qconfig = None
        with pytest.raises(AssertionError, match='must have a valid qconfig'):
            mod.Linear.from_float(lin)
    assert msgs[0] == msgs[1]


def test_dynamic_linear_needs_memoryless_activation():
    for T, mod in ((torch, torch.ao.nn.qat.dynamic), (ember, e_nnqatd)):
        with pytest.raises(ValueError, match='Dynamic QAT requires a memoryless observer'):
            quiet(mod.Linear, 2, 2, qconfig=qat_qconfig(T))
    for T, mod in ((torch, torch.ao.nn.qat.dynamic), (ember, e_nnqatd)):
        aq = T.ao.quantization
        qc = aq.QConfig(activation=aq.MovingAverageMinMaxObserver.with_args(averaging_constant=1),
                        weight=aq.default_weight_fake_quant)
        m = quiet(mod.Linear, 3, 2, qconfig=qc)
        assert isinstance(m, e_nnqat.Linear if T is ember else torch.ao.nn.qat.Linear)
