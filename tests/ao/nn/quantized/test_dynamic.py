"""nn.quantized.dynamic against torch.ao.nn.quantized.dynamic: modules made by from_float
(each library's own default dynamic qconfig, whose observers give the same qparams) hold the
same int8 weights and give torch's float outputs; repr; Linear's state dict both ways."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized.dynamic as tnnqd

import ember
import ember.ao.nn.quantized.dynamic as ennqd

from .test_modules import same_state, check_state_both_ways, same_values

# torch's and ember's once-per-process deprecation warning for quantized tensors
pytestmark = pytest.mark.filterwarnings('ignore:.*deprecated.*:UserWarning')


def float_pair(make, seed=0):
    """The same float module in torch and ember (torch's initial weights copied)."""
    with torch.random.fork_rng():           # the global generator is given back after
        torch.manual_seed(seed)
        t = make(torch)
    e = make(ember)
    with ember.no_grad():
        tp = dict(t.named_parameters())
        for n, p in e.named_parameters():
            p.copy_(ember.tensor(tp[n].detach().numpy()))
    return e, t


def with_qconfig(e, t, name='default_dynamic_qconfig'):
    t.qconfig = getattr(torch.ao.quantization, name)
    e.qconfig = getattr(ember.ao.quantization, name)
    return e, t


@pytest.mark.parametrize('qconfig', ['default_dynamic_qconfig', 'per_channel_dynamic_qconfig'])
def test_linear_from_float(qconfig):
    e, t = with_qconfig(*float_pair(lambda M: M.nn.Linear(20, 7)), qconfig)
    qe, qt = ennqd.Linear.from_float(e), tnnqd.Linear.from_float(t)
    assert repr(qe) == repr(qt)
    same_values(qe.weight(), qt.weight())
    x = np.random.default_rng(0).standard_normal((3, 5, 20)).astype(np.float32)
    np.testing.assert_array_equal(qe(ember.tensor(x)).numpy(), qt(torch.from_numpy(x)).numpy())
    same_state(qe, qt)
    check_state_both_ways(qe, qt, ennqd.Linear(20, 7), tnnqd.Linear(20, 7))
    np.testing.assert_array_equal(ennqd.Linear(20, 7)(ember.tensor(x)).shape,
                                  tnnqd.Linear(20, 7)(torch.from_numpy(x)).shape)


def test_linear_errors_and_defaults():
    t, e = tnnqd.Linear(4, 3), ennqd.Linear(4, 3)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    with pytest.raises(AssertionError, match='from_float only works for one of'):
        ennqd.Linear.from_float(ember.nn.Conv1d(1, 1, 1))
    f = ember.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match='must have qconfig defined'):
        ennqd.Linear.from_float(f)


def _rnn_close(e_out, t_out):
    # the int8 arithmetic is exact; sigmoid/tanh may differ from torch's vectorised ones
    # in the last bits of float32
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=0,
                               atol=2e-6)


RNNS = [
    ('LSTM', dict(num_layers=1)),
    ('LSTM', dict(num_layers=2, bidirectional=True, batch_first=True)),
    ('GRU', dict(num_layers=2)),
    ('GRU', dict(bidirectional=True)),
]


@pytest.mark.parametrize('name,kwargs', RNNS)
def test_rnn_from_float(name, kwargs):
    e, t = with_qconfig(*float_pair(lambda M: getattr(M.nn, name)(5, 4, **kwargs)))
    qe = getattr(ennqd, name).from_float(e)
    qt = getattr(tnnqd, name).from_float(t)
    assert repr(qe) == repr(qt)
    for kind in ('weight', 'bias'):
        for k, v in qt._weight_bias()[kind].items():
            same_values(qe._weight_bias()[kind][k], v, k)
    shape = (2, 7, 5) if kwargs.get('batch_first') else (7, 2, 5)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ye, he = qe(ember.tensor(x))
    yt, ht = qt(torch.from_numpy(x))
    _rnn_close(ye, yt)
    for a, b in zip(he if isinstance(he, tuple) else (he,), ht if isinstance(ht, tuple) else (ht,)):
        _rnn_close(a, b)
    # a given initial state, and an unbatched input
    n = 2 * kwargs.get('num_layers', 1) if kwargs.get('bidirectional') else kwargs.get(
        'num_layers', 1)
    h0 = np.random.default_rng(2).standard_normal((n, 2, 4)).astype(np.float32)
    hx_e = (ember.tensor(h0), ember.tensor(h0)) if name == 'LSTM' else ember.tensor(h0)
    hx_t = (torch.from_numpy(h0), torch.from_numpy(h0)) if name == 'LSTM' else torch.from_numpy(h0)
    _rnn_close(qe(ember.tensor(x), hx_e)[0], qt(torch.from_numpy(x), hx_t)[0])
    for q, M in ((qe, ember), (qt, torch)):
        with pytest.raises(RuntimeError, match='input must have 3 dimensions, got 2'):
            q(M.tensor(x[0]))


@pytest.mark.parametrize('name,kwargs', [('LSTMCell', {}), ('GRUCell', {}),
                                         ('RNNCell', {'nonlinearity': 'relu'}),
                                         ('RNNCell', {})])
def test_cells_from_float(name, kwargs):
    e, t = with_qconfig(*float_pair(lambda M: getattr(M.nn, name)(5, 4, **kwargs)))
    qe = getattr(ennqd, name).from_float(e)
    qt = getattr(tnnqd, name).from_float(t)
    assert repr(qe) == repr(qt)
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    h = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    ye, yt = qe(ember.tensor(x)), qt(torch.from_numpy(x))
    for a, b in zip(ye if isinstance(ye, tuple) else (ye,), yt if isinstance(yt, tuple) else (yt,)):
        _rnn_close(a, b)
    hx_e = (ember.tensor(h),) * 2 if name == 'LSTMCell' else ember.tensor(h)
    hx_t = (torch.from_numpy(h),) * 2 if name == 'LSTMCell' else torch.from_numpy(h)
    ye, yt = qe(ember.tensor(x), hx_e), qt(torch.from_numpy(x), hx_t)
    for a, b in zip(ye if isinstance(ye, tuple) else (ye,), yt if isinstance(yt, tuple) else (yt,)):
        _rnn_close(a, b)


def test_rnn_errors():
    with pytest.raises(AssertionError, match='only works for nn.LSTM and nn.GRU'):
        ennqd.LSTM.from_float(ember.nn.RNN(2, 2))
    with pytest.raises(AssertionError, match='must have qconfig defined'):
        ennqd.LSTM.from_float(ember.nn.LSTM(2, 2))
    for M, mod in ((torch, tnnqd), (ember, ennqd)):
        f = M.nn.GRU(2, 2, bias=False)
        f.qconfig = M.ao.quantization.default_dynamic_qconfig
        with pytest.raises(AssertionError, match='mod.bias must be True'):
            mod.GRU.from_float(f)


def test_linear_relu_dynamic():
    import torch.ao.nn.intrinsic.quantized.dynamic as tniqd
    import ember.ao.nn.intrinsic.quantized.dynamic as eniqd
    e, t = float_pair(lambda M: M.ao.nn.intrinsic.LinearReLU(M.nn.Linear(20, 7), M.nn.ReLU()))
    for m, M in ((e, ember), (t, torch)):
        m.qconfig = M.ao.quantization.default_dynamic_qconfig
        m[0].qconfig = m.qconfig
    qe, qt = eniqd.LinearReLU.from_float(e), tniqd.LinearReLU.from_float(t)
    assert repr(qe) == repr(qt)
    x = np.random.default_rng(0).standard_normal((3, 20)).astype(np.float32)
    np.testing.assert_array_equal(qe(ember.tensor(x)).numpy(), qt(torch.from_numpy(x)).numpy())


def test_linear_float16():
    e, t = with_qconfig(*float_pair(lambda M: M.nn.Linear(20, 7)), 'float16_dynamic_qconfig')
    qe, qt = ennqd.Linear.from_float(e), tnnqd.Linear.from_float(t)
    assert repr(qe) == repr(qt)
    same_state(qe, qt)
    x = np.random.default_rng(0).standard_normal((3, 20)).astype(np.float32)
    # fbgemm's float16 GEMM sums in its own order: the float32 results agree to rounding
    np.testing.assert_allclose(qe(ember.tensor(x)).detach().numpy(),
                               qt(torch.from_numpy(x)).detach().numpy(), rtol=0, atol=1e-6)


@pytest.mark.parametrize('name,kwargs', [('LSTM', dict(num_layers=2, bidirectional=True)),
                                         ('GRU', dict(batch_first=True))])
def test_rnn_packed_sequence(name, kwargs):
    e, t = with_qconfig(*float_pair(lambda M: getattr(M.nn, name)(5, 4, **kwargs)))
    qe = getattr(ennqd, name).from_float(e)
    qt = getattr(tnnqd, name).from_float(t)
    bf = kwargs.get('batch_first', False)
    x = np.random.default_rng(1).standard_normal((3, 6, 5) if bf else (6, 3, 5)).astype(
        np.float32)
    lengths = [4, 6, 2]
    pe = ember.nn.utils.rnn.pack_padded_sequence(ember.tensor(x), ember.tensor(lengths), bf,
                                                 enforce_sorted=False)
    pt = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), torch.tensor(lengths),
                                                 bf, enforce_sorted=False)
    ye, he = qe(pe)
    yt, ht = qt(pt)
    _rnn_close(ye.data, yt.data)
    np.testing.assert_array_equal(ye.batch_sizes.numpy(), yt.batch_sizes.numpy())
    for a, b in zip(he if isinstance(he, tuple) else (he,), ht if isinstance(ht, tuple) else (ht,)):
        _rnn_close(a, b)


def test_rnn_argument_errors():
    for M, mod in ((torch, tnnqd), (ember, ennqd)):
        m, g = mod.LSTM(3, 4), mod.GRU(3, 4)
        with pytest.raises(RuntimeError, match='input.size.-1. must be equal to input_size. '
                                               'Expected 3, got 7'):
            m(M.ones(5, 2, 7))
        with pytest.raises(RuntimeError, match=r'Expected hidden\[0\] size \(1, 2, 4\), got '
                                               r'\[1, 3, 4\]'):
            m(M.ones(5, 2, 3), (M.zeros(1, 3, 4), M.zeros(1, 2, 4)))
        with pytest.raises(RuntimeError, match=r'Expected hidden size \(1, 2, 4\), got '
                                               r'\[1, 2, 5\]'):
            g(M.ones(5, 2, 3), M.zeros(1, 2, 5))
