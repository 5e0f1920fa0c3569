"""ember.ao.nn.quantizable.LSTM / LSTMCell and nn.quantized.LSTM vs torch: the float
forward of the observable form, prepare + convert of a model with nn.LSTM through the
default custom-module configuration (structure, state-dict keys, outputs), errors."""
import re

import numpy as np
import pytest
import torch

import ember
from tests.ao._quant_util import both, record

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning', 'ignore::DeprecationWarning')


def _net(M, batch_first):
    class Net(M.nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = M.ao.quantization.QuantStub()
            self.lstm = M.nn.LSTM(4, 3, num_layers=2, bidirectional=True,
                                  batch_first=batch_first)
            self.dequant = M.ao.quantization.DeQuantStub()

        def forward(self, x):
            y, (h, c) = self.lstm(self.quant(x))
            return self.dequant(y), self.dequant(h), self.dequant(c)
    return Net()


def _round_floats(s):
    # scales from the float calibration path agree to float32 rounding (BLAS sums)
    return re.sub(r'\d+\.\d+(e-?\d+)?', lambda m: f'{float(m.group(0)):.5g}', s)


@pytest.mark.parametrize('batch_first', [False, True])
def test_prepare_convert_lstm_as_torch(batch_first):
    e, t = both(lambda M: _net(M, batch_first))
    x = np.random.RandomState(0).randn(5, 2, 4).astype(np.float32)
    out = {}
    for M, m in ((torch, t), (ember, e)):
        m.eval()
        m.qconfig = M.ao.quantization.get_default_qconfig('x86')
        p = M.ao.quantization.prepare(m)
        assert type(p.lstm).__name__ == 'LSTM' and p.lstm._get_name() == 'QuantizableLSTM'
        p(M.tensor(x))
        q = M.ao.quantization.convert(p)
        out[M] = (p, q, q(M.tensor(x)))
    (pt, qt, yt), (pe, qe, ye) = out[torch], out[ember]
    assert _round_floats(repr(pe)) == _round_floats(repr(pt))
    assert _round_floats(repr(qe)) == _round_floats(repr(qt))
    assert list(qe.state_dict()) == list(qt.state_dict())
    assert type(qe.lstm) is ember.ao.nn.quantized.LSTM
    # the same integers; the scales (from the float calibration) agree to float32 rounding,
    # far below one quantization step
    for a, b in zip(ye, yt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_quantizable_float_forward_and_cell():
    e, t = both(lambda M: M.nn.LSTM(3, 5, num_layers=2))
    for M, m in ((torch, t), (ember, e)):
        m.qconfig = M.ao.quantization.default_qconfig
    qe = ember.ao.nn.quantizable.LSTM.from_float(e.eval())
    qt = torch.ao.nn.quantizable.LSTM.from_float(t.eval())
    x = np.random.RandomState(1).randn(4, 2, 3).astype(np.float32)
    (ye, (he, ce)), (yt, (ht, ct)) = qe(ember.tensor(x)), qt(torch.tensor(x))
    for a, b in ((ye, yt), (he, ht), (ce, ct)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    ec, tc = both(lambda M: M.nn.LSTMCell(3, 4))
    for M, c in ((torch, tc), (ember, ec)):
        c.qconfig = M.ao.quantization.default_qconfig
    for split in (False, True):
        ce_ = ember.ao.nn.quantizable.LSTMCell.from_float(ec, split_gates=split)
        ct_ = torch.ao.nn.quantizable.LSTMCell.from_float(tc, split_gates=split)
        assert repr(ce_) == repr(ct_)
        assert list(ce_.state_dict()) == list(ct_.state_dict())
        h1, c1 = ce_(ember.tensor(x[0]))
        h2, c2 = ct_(torch.tensor(x[0]))
        np.testing.assert_allclose(h1.detach().numpy(), h2.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_errors_and_config_as_torch():
    for M in (torch, ember):
        with pytest.raises(NotImplementedError, match='non-observed LSTM'):
            M.ao.nn.quantized.LSTM.from_float(M.nn.LSTM(2, 2))
        with pytest.raises(NotImplementedError, match='non-quantizable LSTM'):
            M.ao.nn.quantizable.LSTM.from_observed(M.nn.LSTM(2, 2))
        with pytest.raises(AssertionError, match='Expected module type'):
            M.ao.nn.quantizable.LSTM.from_float(M.nn.GRU(2, 2))
        with pytest.raises(ValueError, match='dropout should be a number'):
            M.ao.nn.quantizable.LSTM(2, 2, dropout=2)
    _, we = record(ember.ao.nn.quantizable.LSTM, 2, 2, dropout=0.5)
    _, wt = record(torch.ao.nn.quantizable.LSTM, 2, 2, dropout=0.5)
    assert we == wt
    de = ember.ao.quantization.get_default_custom_config_dict()
    dt = torch.ao.quantization.get_default_custom_config_dict()
    name = {k: {a.__name__: b.__name__ for a, b in v.items()} for k, v in dt.items()}
    assert {k: {a.__name__: b.__name__ for a, b in v.items()} for k, v in de.items()} == name
    assert ember.ao.quantization.no_observer_set() == {
        ember.ao.nn.quantizable.LSTM, ember.ao.nn.quantizable.MultiheadAttention}
