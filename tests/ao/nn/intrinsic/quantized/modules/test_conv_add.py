"""nn.intrinsic.quantized ConvAdd2d/ConvAddReLU2d and LinearLeakyReLU/LinearTanh vs torch:
structure (repr, mapping, from_float/from_reference weights), torch's errors on the engines
that do not run them (x86, fbgemm, qnnpack), ember's NotImplementedError on onednn."""
import numpy as np
import pytest
import torch

import ember
from tests.ao._quant_util import both

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning', 'ignore::DeprecationWarning')


@pytest.fixture
def engines():
    te, ee = torch.backends.quantized.engine, ember.backends.quantized.engine
    yield
    torch.backends.quantized.engine, ember.backends.quantized.engine = te, ee


def _x(M, shape):
    return M.quantize_per_tensor(M.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(
        shape).astype(np.float32)), 0.02, 100, M.quint8)


CALLS = {
    'ConvAdd2d': lambda M: M.ao.nn.intrinsic.quantized.ConvAdd2d(2, 2, 1)(
        _x(M, (1, 2, 3, 3)), _x(M, (1, 2, 3, 3))),
    'ConvAddReLU2d': lambda M: M.ao.nn.intrinsic.quantized.ConvAddReLU2d(2, 2, 1)(
        _x(M, (1, 2, 3, 3)), _x(M, (1, 2, 3, 3))),
    'ConvAdd2d_3d_input': lambda M: M.ao.nn.intrinsic.quantized.ConvAdd2d(2, 2, 1)(
        _x(M, (2, 3, 3)), _x(M, (2, 3, 3))),
    'LinearLeakyReLU': lambda M: M.ao.nn.intrinsic.quantized.LinearLeakyReLU(3, 2, 0.01)(
        _x(M, (2, 3))),
    'LinearTanh': lambda M: M.ao.nn.intrinsic.quantized.LinearTanh(3, 2)(_x(M, (2, 3))),
    'op_float_input': lambda M: M.ops.quantized.linear_tanh(
        M.ones(2, 3), M.ao.nn.intrinsic.quantized.LinearTanh(3, 2)._packed_params
        ._packed_params, 0.1, 0),
}


@pytest.mark.parametrize('engine', ['x86', 'fbgemm', 'qnnpack'])
@pytest.mark.parametrize('name', list(CALLS))
def test_errors_as_torch(engines, engine, name):
    errs = []
    for M in (torch, ember):
        M.backends.quantized.engine = engine
        with pytest.raises(Exception) as err:
            CALLS[name](M)
        errs.append(err.value)
    assert type(errs[1]) is type(errs[0])
    assert str(errs[1]).split(' This could')[0] == str(errs[0]).split(' This could')[0]


@pytest.mark.parametrize('name', ['ConvAdd2d', 'ConvAddReLU2d', 'LinearLeakyReLU',
                                  'LinearTanh'])
def test_onednn_refused_clearly(engines, name):
    ember.backends.quantized.engine = 'onednn'
    with pytest.raises(NotImplementedError, match='NOTE: unlike PyTorch'):
        CALLS[name](ember)


def test_structure_from_float_and_reference():
    def fused(M, kind):
        nni = M.ao.nn.intrinsic
        lin = M.nn.Linear(4, 3)
        m = nni.LinearLeakyReLU(lin, M.nn.LeakyReLU(0.2)) if kind == 'leaky' else \
            nni.LinearTanh(lin, M.nn.Tanh())
        m.qconfig = m[0].qconfig = M.ao.quantization.default_qconfig
        m.activation_post_process = M.ao.quantization.MinMaxObserver()
        m.activation_post_process(M.tensor(np.linspace(-2, 3, 8).astype(np.float32)))
        return m
    for kind, cls in (('leaky', 'LinearLeakyReLU'), ('tanh', 'LinearTanh')):
        e, t = both(lambda M: fused(M, kind))
        qe = getattr(ember.ao.nn.intrinsic.quantized, cls).from_float(e)
        qt = getattr(torch.ao.nn.intrinsic.quantized, cls).from_float(t)
        assert repr(qe) == repr(qt)
        np.testing.assert_array_equal(qe.weight().int_repr().numpy(),
                                      qt.weight().int_repr().numpy())
        assert list(qe.state_dict()) == list(qt.state_dict())
        for M, m in ((torch, t), (ember, e)):
            m.qconfig = m[0].qconfig = M.ao.quantization.QConfig(
                activation=M.ao.quantization.MinMaxObserver,
                weight=M.ao.quantization.MinMaxObserver.with_args(dtype=M.quint8))
        msgs = []
        for M, m in ((torch, t), (ember, e)):
            with pytest.raises(AssertionError) as err:
                getattr(M.ao.nn.intrinsic.quantized, cls).from_float(m)
            msgs.append(str(err.value).replace('torch.', 'ember.'))
        assert msgs[0].replace('ember.', '') == msgs[1].replace('ember.', '')
    tm = torch.ao.quantization.get_default_static_quant_module_mappings()
    em = ember.ao.quantization.get_default_static_quant_module_mappings()
    assert len(em) == len(tm) == 49
    for name in ('ConvAdd2d', 'ConvAddReLU2d', 'LinearLeakyReLU', 'LinearTanh'):
        assert em[getattr(ember.ao.nn.intrinsic, name)] is \
            getattr(ember.ao.nn.intrinsic.quantized, name)
        assert repr(getattr(ember.ao.nn.intrinsic.quantized, name)(
            *((2, 3, 1) if name.startswith('Conv') else (2, 3) + ((0.1,) if 'Leaky' in name
                                                                  else ())))) == \
            repr(getattr(torch.ao.nn.intrinsic.quantized, name)(
                *((2, 3, 1) if name.startswith('Conv') else (2, 3) + (
                    (0.1,) if 'Leaky' in name else ()))))
