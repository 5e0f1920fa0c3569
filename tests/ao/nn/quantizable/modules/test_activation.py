"""ember.ao.nn.quantizable.MultiheadAttention and nn.quantized.MultiheadAttention vs torch:
the float forward of the observable form, prepare + convert of a model with
nn.MultiheadAttention (structure, state dict, outputs and weights), errors."""
import re

import numpy as np
import pytest
import torch

import ember
from tests.ao._quant_util import both

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning', 'ignore::DeprecationWarning')


def _net(M, **kw):
    class Net(M.nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = M.ao.quantization.QuantStub()
            self.mha = M.nn.MultiheadAttention(8, 2, **kw)
            self.dequant = M.ao.quantization.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            y, w = self.mha(x, x, x)
            return self.dequant(y), self.dequant(w)
    return Net()


def _round_floats(s):
    return re.sub(r'\d+\.\d+(e-?\d+)?', lambda m: f'{float(m.group(0)):.5g}', s)


@pytest.mark.parametrize('kw', [{}, {'add_bias_kv': True}, {'add_zero_attn': True,
                                                            'batch_first': True}])
def test_prepare_convert_mha_as_torch(kw):
    e, t = both(lambda M: _net(M, **kw))
    x = np.random.RandomState(0).randn(5, 2, 8).astype(np.float32)
    prepared = {}
    for M, m in ((torch, t), (ember, e)):
        m.eval()
        m.qconfig = M.ao.quantization.default_per_channel_qconfig
        prepared[M] = p = M.ao.quantization.prepare(m)
        p(M.tensor(x))
    # the observers' ranges from the float path agree to float32 rounding; give ember
    # torch's exactly, so that the same scales give the same integers
    tmods = dict(prepared[torch].named_modules())
    for name, mod in prepared[ember].named_modules():
        if hasattr(mod, 'min_val') and hasattr(mod, 'max_val'):
            mod.min_val = ember.tensor(tmods[name].min_val.numpy())
            mod.max_val = ember.tensor(tmods[name].max_val.numpy())
    out = {}
    for M in (torch, ember):
        q = M.ao.quantization.convert(prepared[M])
        out[M] = (prepared[M], q, q(M.tensor(x)))
    (pt, qt, yt), (pe, qe, ye) = out[torch], out[ember]
    assert _round_floats(repr(pe)) == _round_floats(repr(pt))
    assert _round_floats(repr(qe)) == _round_floats(repr(qt))
    assert list(qe.state_dict()) == list(qt.state_dict())
    assert type(qe.mha) is ember.ao.nn.quantized.MultiheadAttention
    if kw.get('add_bias_kv'):
        assert qe.mha.bias_k.is_quantized and qe.mha.bias_v.dtype is ember.quint8
        np.testing.assert_array_equal(qe.mha.bias_v.int_repr().numpy(),
                                      qt.mha.bias_v.int_repr().numpy())
    assert repr(qe) == repr(qt)
    for a, b in zip(ye, yt):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_float_forward_and_errors():
    e, t = both(lambda M: M.nn.MultiheadAttention(8, 2, kdim=6, vdim=4))
    for M, m in ((torch, t), (ember, e)):
        m.qconfig = M.ao.quantization.default_qconfig
    me = ember.ao.nn.quantizable.MultiheadAttention.from_float(e)
    mt = torch.ao.nn.quantizable.MultiheadAttention.from_float(t)
    assert repr(me) == repr(mt)
    rng = np.random.RandomState(1)
    q, k, v = (rng.randn(3, 2, d).astype(np.float32) for d in (8, 6, 4))
    mask = np.array([[False, True, False]] * 3)
    ye, we = me(*(ember.tensor(a) for a in (q, k, v)), attn_mask=ember.tensor(mask))
    yt, wt = mt(*(torch.tensor(a) for a in (q, k, v)), attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(we.detach().numpy(), wt.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    for M in (torch, ember):
        with pytest.raises(NotImplementedError, match='non-observed MHA'):
            M.ao.nn.quantized.MultiheadAttention.from_float(M.nn.MultiheadAttention(4, 2))
        with pytest.raises(NotImplementedError, match='prepare an MHA'):
            M.ao.nn.quantizable.MultiheadAttention.from_observed(None)
        with pytest.raises(AssertionError, match='Expected type'):
            M.ao.nn.quantizable.MultiheadAttention.from_float(M.nn.Linear(2, 2))
        m = M.ao.nn.quantizable.MultiheadAttention(4, 2)
        x = M.ones(2, 1, 4)
        with pytest.raises(AssertionError, match='causal mask not supported'):
            m(x, x, x, is_causal=True)
    de = ember.ao.quantization.get_default_custom_config_dict()
    dt = torch.ao.quantization.get_default_custom_config_dict()
    assert {k: sorted((a.__name__, b.__module__.replace('torch', 'ember'))
                      for a, b in v.items()) for k, v in de.items()} == \
        {k: sorted((a.__name__, b.__module__.replace('torch', 'ember'))
                   for a, b in v.items()) for k, v in dt.items()}
