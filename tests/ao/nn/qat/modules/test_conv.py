"""ember.ao.nn.qat.Conv1d/2d/3d against torch."""
import pytest
import torch

import ember
import ember.ao.nn.qat as e_nnqat
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, compare_state, qat_qconfig, quiet, train_steps

CASES = [
    ('Conv1d', lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding=1), (2, 2, 9)),
    ('Conv2d', lambda nn: nn.Conv2d(2, 4, 3, padding=1, groups=2), (2, 2, 6, 6)),
    ('Conv2d', lambda nn: nn.Conv2d(2, 3, 2, bias=False, padding_mode='reflect', padding=1),
     (1, 2, 5, 5)),
    ('Conv3d', lambda nn: nn.Conv3d(2, 3, 2, dilation=2), (1, 2, 5, 5, 5)),
]


@pytest.mark.parametrize('name,make,shape', CASES)
def test_from_float_forward_backward_to_float(name, make, shape):
    e_f, t_f = both(lambda T: make(T.nn))
    t_f.qconfig, e_f.qconfig = qat_qconfig(torch), qat_qconfig(ember)
    e = quiet(getattr(e_nnqat, name).from_float, e_f)
    t = quiet(getattr(torch.ao.nn.qat, name).from_float, t_f)
    assert e.weight is e_f.weight
    assert repr(e) == repr(t)
    train_steps(e, t, shape, steps=2)
    compare_state(e, t)
    ef, tf = e.to_float(), t.to_float()
    assert repr(ef) == repr(tf)
    compare_state(ef, tf)


def test_construction_draws_as_torch_and_errors():
    torch.manual_seed(5)
    t = torch.ao.nn.qat.Conv2d(3, 2, 3, qconfig=qat_qconfig(torch))
    ember.manual_seed(5)
    e = e_nnqat.Conv2d(3, 2, 3, qconfig=qat_qconfig(ember))
    compare_state(e, t)
    assert isinstance(e, ember.nn.Conv2d)
    msgs = []
    for T, mod in ((torch, torch.ao.nn.qat), (ember, e_nnqat)):
        with pytest.raises(AssertionError, match='qconfig must be provided for QAT module'):
            mod.Conv2d(2, 2, 1)
        lin = T.nn.Linear(2, 2)
        lin.qconfig = qat_qconfig(T)
        with pytest.raises(AssertionError) as ex:
            mod.Conv2d.from_float(lin)
        msgs.append(str(ex.value))
    assert msgs[0] == msgs[1]
