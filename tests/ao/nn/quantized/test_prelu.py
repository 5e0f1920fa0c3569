"""quantized::prelu, nn.quantized.PReLU and quantized::dropout vs torch: integers over
every 8-bit value (per-channel and single slopes, quint8 and qint8), channels_last layout,
errors, from_float through prepare/convert, the mapping tables."""
import numpy as np
import pytest
import torch

import ember
from tests.ao._quant_util import both, e_tensor, record

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning')


def _q(M, a, scale, zp, dt):
    return M.quantize_per_tensor(M.tensor(a), scale, zp, getattr(M, dt))


@pytest.mark.parametrize('dt,wvals,wqp', [
    ('quint8', [0.25, -0.5, 2.0], (0.01, 60)), ('quint8', [0.3], (0.004, 0)),
    ('qint8', [0.25, -0.5, 2.0], (0.02, -3)), ('quint8', [0.25, -0.5, 2.0], (0.001, 0))])
@pytest.mark.parametrize('cl', [False, True])
def test_prelu_integers(dt, wvals, wqp, cl):
    lo, hi = (0, 255) if dt == 'quint8' else (-128, 127)
    n = 2 * 3 * 8 * 8
    ints = np.resize(np.arange(lo, hi + 1), n).reshape(2, 3, 8, 8)
    outs = []
    for M in (torch, ember):
        x = M._make_per_tensor_quantized_tensor(
            M.tensor(ints.astype(np.uint8 if dt == 'quint8' else np.int8)), 0.05,
            128 if dt == 'quint8' else 3)
        if cl:
            x = x.contiguous(memory_format=M.channels_last)
        w = _q(M, np.array(wvals, np.float32), *wqp, dt)
        outs.append(M.ops.quantized.prelu(x, w, 0.037, 100 if dt == 'quint8' else -7))
    t, e = outs
    assert str(e.dtype) == str(t.dtype) and e.q_scale() == t.q_scale()
    assert e.q_zero_point() == t.q_zero_point() and tuple(e.stride()) == tuple(t.stride())
    np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())


def test_prelu_errors_as_torch():
    def x(M):
        return _q(M, np.linspace(-1, 1, 24).reshape(2, 3, 4).astype(np.float32), 0.1, 128,
                  'quint8')

    def w(M, n=3, dt='quint8'):
        return _q(M, np.linspace(-1, 1, n).astype(np.float32), 0.01, 10 if dt == 'quint8'
                  else 0, dt)
    calls = [lambda M: M.ops.quantized.prelu(x(M), w(M, 2), 0.1, 0),
             lambda M: M.ops.quantized.prelu(M.ones(2, 3), w(M), 0.1, 0),
             lambda M: M.ops.quantized.prelu(x(M), M.ones(3), 0.1, 0),
             lambda M: M.ops.quantized.prelu(x(M), w(M, 3, 'qint8'), 0.1, 0)]
    for call in calls:
        errs = []
        for M in (torch, ember):
            with pytest.raises((RuntimeError, NotImplementedError)) as err:
                call(M)
            errs.append(err.value)
        assert type(errs[0]) is type(errs[1])
        assert str(errs[1]).split(' This could')[0] == str(errs[0]).split(' This could')[0]
    # 1-d input with as many slopes as elements: no reshape, as torch
    r = [M.ops.quantized.prelu(_q(M, np.array([-1.0, 0.5, -2.0], np.float32), 0.1, 128,
                                  'quint8'), w(M), 0.1, 100).int_repr().numpy()
         for M in (torch, ember)]
    np.testing.assert_array_equal(r[1], r[0])


def test_prelu_module_through_prepare_convert():
    def make(M):
        class Net(M.nn.Module):
            def __init__(self):
                super().__init__()
                self.quant = M.ao.quantization.QuantStub()
                self.conv = M.nn.Conv2d(2, 3, 1)
                self.prelu = M.nn.PReLU(3)
                self.prelu1 = M.nn.PReLU()
                self.dequant = M.ao.quantization.DeQuantStub()

            def forward(self, x):
                return self.dequant(self.prelu1(self.prelu(self.conv(self.quant(x)))))
        return Net()
    e, t = both(make)
    rng = np.random.RandomState(0)
    x = rng.randn(2, 2, 5, 5).astype(np.float32)
    res = {}
    for M, m in ((torch, t), (ember, e)):
        m.eval()
        m.qconfig = M.ao.quantization.default_qconfig   # qint8 weights: torch warns
        M.ao.quantization.prepare(m, inplace=True)
        m(M.tensor(x))
        q, warns = record(M.ao.quantization.convert, m)
        res[M] = (q, warns, q(M.tensor(x)))
    (qt, wt, yt), (qe, we, ye) = res[torch], res[ember]
    assert repr(qe) == repr(qt)
    assert [w for w in we if 'PReLU' in w[1]] == [w for w in wt if 'PReLU' in w[1]] != []
    assert type(qe.prelu).__name__ == 'PReLU' and qe.prelu.weight.dtype is ember.quint8
    np.testing.assert_array_equal(qe.prelu.weight.int_repr().numpy(),
                                  qt.prelu.weight.int_repr().numpy())
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())


def test_prelu_module_and_mappings():
    for M in (torch, ember):
        m = M.ao.nn.quantized.PReLU(0.1, 3, 3)
        assert repr(m) == 'QuantizedPReLU()' and m.num_parameters == 3
        assert m.weight.dtype is M.quint8 and m.weight.q_scale() == 1.0
    te = torch.ao.quantization.get_default_static_quant_module_mappings()[torch.nn.PReLU]
    ee = ember.ao.quantization.get_default_static_quant_module_mappings()[ember.nn.PReLU]
    assert ee is ember.ao.nn.quantized.PReLU and te.__name__ == ee.__name__
    t = torch.ao.quantization.get_default_float_to_quantized_operator_mappings()
    e = ember.ao.quantization.get_default_float_to_quantized_operator_mappings()
    assert sorted(k.__name__ for k in e) == sorted(k.__name__ for k in t)
    q = ember.quantize_per_tensor(ember.tensor([1.0]), 0.1, 0, ember.quint8)
    assert e[ember.nn.functional.dropout](q, 0.2, 3) is q


def test_quantized_dropout_as_torch():
    for M in (torch, ember):
        q = M.quantize_per_tensor(M.tensor([1.0, -0.5]), 0.1, 10, M.quint8)
        assert M.ops.quantized.dropout(q, 0.2, 3, 0.5, True) is q
        assert M.ops.quantized.dropout(q, 0.2, 3) is q
    errs = []
    for M in (torch, ember):
        with pytest.raises(NotImplementedError) as err:
            M.ops.quantized.dropout(M.ones(2), 0.2, 3)
        errs.append(str(err.value).split(' This could')[0])
    assert errs[0] == errs[1]
