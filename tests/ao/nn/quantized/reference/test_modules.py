"""ember.ao.nn.quantized.reference vs torch.ao.nn.quantized.reference: from_float with
per-tensor / per-channel / float16 weight parameters, the quantized-dequantized weights
(bit-equal), outputs, state dicts (keys, values, load round trip), repr, errors, and the
reference mapping table."""
import numpy as np
import pytest
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

import ember
from tests.ao._quant_util import both, to_np, e_tensor

pytestmark = pytest.mark.filterwarnings('ignore::DeprecationWarning',
                                        'ignore::UserWarning')

R = np.random.RandomState(0)


def qparams(lib, kind, w):
    """Weight qparams dict of ``kind`` for a float weight ``w`` (a torch tensor)."""
    if kind == 'per_tensor':
        return {'qscheme': lib.per_tensor_affine, 'dtype': lib.qint8, 'scale': 0.02,
                'zero_point': 3}
    if kind == 'per_channel':
        n = w.shape[0]
        s = np.linspace(0.01, 0.03, n).astype(np.float32)
        z = np.arange(n) % 3
        T = (lambda a, **k: lib.tensor(a, **k))
        return {'qscheme': lib.per_channel_affine, 'dtype': lib.qint8,
                'scale': T(s), 'zero_point': T(z, dtype=lib.int64), 'axis': 0}
    if kind == 'float16':
        return {'qscheme': None, 'dtype': lib.float16}
    return {'qscheme': lib.per_tensor_affine, 'dtype': lib.quint8, 'scale': 0.02,
            'zero_point': 128, 'is_decomposed': True}


def check_state(me, mt):
    se, st = me.state_dict(), mt.state_dict()
    assert list(se) == list(st)
    for k in st:
        if isinstance(st[k], torch.Tensor):
            assert se[k].dtype == ember.dtype if False else str(se[k].dtype) == str(st[k].dtype)
            np.testing.assert_array_equal(se[k].numpy(), st[k].numpy())
        else:
            assert str(se[k]) == str(st[k]), k


FLOAT = {
    'Linear': (lambda lib: lib.nn.Linear(5, 4), (3, 5)),
    'Conv1d': (lambda lib: lib.nn.Conv1d(2, 4, 3, padding=1), (2, 2, 7)),
    'Conv2d': (lambda lib: lib.nn.Conv2d(2, 4, 3, stride=2, groups=2), (2, 2, 7, 7)),
    'Conv3d': (lambda lib: lib.nn.Conv3d(2, 4, 2, bias=False), (1, 2, 4, 4, 4)),
    'ConvTranspose1d': (lambda lib: lib.nn.ConvTranspose1d(4, 2, 3, stride=2), (2, 4, 5)),
    'ConvTranspose2d': (lambda lib: lib.nn.ConvTranspose2d(4, 2, 3, output_padding=0),
                        (1, 4, 4, 4)),
    'ConvTranspose3d': (lambda lib: lib.nn.ConvTranspose3d(4, 2, 2), (1, 4, 3, 3, 3)),
}


@pytest.mark.parametrize('name', list(FLOAT))
@pytest.mark.parametrize('kind', ['per_tensor', 'per_channel', 'float16', 'decomposed'])
def test_linear_conv_from_float(name, kind):
    factory, shape = FLOAT[name]
    fe, ft = both(factory[0] if False else factory)
    if kind == 'per_channel' and name.startswith('ConvTranspose'):
        kind = 'per_tensor'
    me = getattr(ember.ao.nn.quantized.reference, name).from_float(
        fe, qparams(ember, kind, ft.weight))
    mt = getattr(torch.ao.nn.quantized.reference, name).from_float(
        ft, qparams(torch, kind, ft.weight))
    assert repr(me) == repr(mt)
    np.testing.assert_array_equal(to_np(me.get_weight()), to_np(mt.get_weight()))
    qe, qt = me.get_quantized_weight(), mt.get_quantized_weight()
    assert str(qe.dtype) == str(qt.dtype)
    np.testing.assert_array_equal(
        (qe.int_repr() if qe.is_quantized else qe.detach()).numpy(),
        (qt.int_repr() if qt.is_quantized else qt.detach()).numpy())
    x = R.randn(*shape).astype(np.float32)
    np.testing.assert_allclose(to_np(me(e_tensor(x))), to_np(mt(torch.from_numpy(x))),
                               rtol=1e-5, atol=1e-6)
    check_state(me, mt)
    # the state dict loads back (qparams included) into a fresh module of each library
    fresh = getattr(ember.ao.nn.quantized.reference, name).from_float(
        both(factory)[0], None)
    fresh.load_state_dict(me.state_dict())
    check_state(fresh, mt)
    np.testing.assert_array_equal(to_np(fresh.get_weight()), to_np(mt.get_weight()))


def test_transposed_output_size_fails_as_torch():
    fe, ft = both(FLOAT['ConvTranspose2d'][0])
    me = ember.ao.nn.quantized.reference.ConvTranspose2d.from_float(fe, None)
    mt = torch.ao.nn.quantized.reference.ConvTranspose2d.from_float(ft, None)
    with pytest.raises(AttributeError) as te:
        mt(torch.ones(1, 4, 4, 4), output_size=[6, 6])
    with pytest.raises(AttributeError) as ee:
        me(ember.ones(1, 4, 4, 4), output_size=[6, 6])
    assert str(ee.value) == str(te.value)


def test_bad_qscheme_as_torch():
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match='is not supported in reference quantized '
                                                 'QuantizedLinear'):
            lib.ao.nn.quantized.reference.Linear(
                2, 2, weight_qparams={'qscheme': lib.per_tensor_symmetric,
                                      'dtype': lib.qint8})


@pytest.mark.parametrize('name', ['Embedding', 'EmbeddingBag'])
def test_embeddings(name):
    fe, ft = both(lambda lib: getattr(lib.nn, name)(10, 4))
    def qp(lib):
        return {'qscheme': lib.per_channel_affine_float_qparams, 'dtype': lib.quint8,
                'scale': lib.tensor(np.linspace(0.01, 0.02, 10).astype(np.float32)),
                'zero_point': lib.tensor(np.linspace(-1, 1, 10).astype(np.float32)),
                'axis': 0}
    me = getattr(ember.ao.nn.quantized.reference, name).from_float(fe, qp(ember))
    mt = getattr(torch.ao.nn.quantized.reference, name).from_float(ft, qp(torch))
    assert repr(me) == repr(mt)
    # shares the float module's table, as torch
    assert me.weight.data_ptr() == fe.weight.data_ptr()
    assert (mt.weight is ft.weight) == (me.weight is fe.weight)
    idx = np.array([[1, 2, 9], [0, 0, 3]])
    np.testing.assert_array_equal(to_np(me(ember.tensor(idx))),
                                  to_np(mt(torch.tensor(idx))))
    check_state(me, mt)


def _rnn_qparams(lib, names, per_channel):
    d = {'is_decomposed': False}
    for n in names:
        if per_channel:
            d[n] = {'qscheme': lib.per_channel_affine, 'dtype': lib.qint8,
                    'scale': np.linspace(0.01, 0.02, 12).astype(np.float32).tolist(),
                    'zero_point': [0] * 12, 'axis': 0}
        else:
            d[n] = {'qscheme': lib.per_tensor_affine, 'dtype': lib.qint8, 'scale': 0.01,
                    'zero_point': 0}
    return d


@pytest.mark.parametrize('name,chunks', [('RNNCell', 1), ('LSTMCell', 4), ('GRUCell', 3)])
def test_cells(name, chunks):
    fe, ft = both(lambda lib: getattr(lib.nn, name)(5, 12 // chunks))
    me = getattr(ember.ao.nn.quantized.reference, name).from_float(
        fe, _rnn_qparams(ember, ['weight_ih', 'weight_hh'], True))
    mt = getattr(torch.ao.nn.quantized.reference, name).from_float(
        ft, _rnn_qparams(torch, ['weight_ih', 'weight_hh'], True))
    assert repr(me) == repr(mt)
    check_state(me, mt)
    np.testing.assert_array_equal(to_np(me.get_weight_ih()), to_np(mt.get_weight_ih()))
    np.testing.assert_array_equal(me.get_quantized_weight_hh().int_repr().numpy(),
                                  mt.get_quantized_weight_hh().int_repr().numpy())
    x = R.randn(3, 5).astype(np.float32)
    ye, yt = me(e_tensor(x)), mt(torch.from_numpy(x))
    for a, b in zip(ye if isinstance(ye, tuple) else [ye], yt if isinstance(yt, tuple)
                    else [yt]):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-5, atol=1e-6)
    ye = me(e_tensor(x[0]))                             # unbatched
    assert (ye[0] if isinstance(ye, tuple) else ye).shape == (12 // chunks,)
    for lib, m in ((torch, mt), (ember, me)):
        with pytest.raises(AssertionError, match='Expected input to be 1-D or 2-D but '
                                                 'received 3-D tensor'):
            m(lib.ones(1, 1, 5))
    with pytest.raises(AssertionError, match='Expected length for weight_qparams_dict to '
                                             'be 3'):
        ember.ao.nn.quantized.reference.GRUCell(2, 2, weight_qparams_dict={
            'is_decomposed': False})


@pytest.mark.parametrize('name', ['LSTM', 'GRU'])
def test_lstm_gru(name):
    fe, ft = both(lambda lib: getattr(lib.nn, name)(5, 3, num_layers=2, bidirectional=True))
    names = [n for n in ft._flat_weights_names if n.startswith('weight')]
    me = getattr(ember.ao.nn.quantized.reference, name).from_float(
        fe, _rnn_qparams(ember, names, False))
    mt = getattr(torch.ao.nn.quantized.reference, name).from_float(
        ft, _rnn_qparams(torch, names, False))
    assert repr(me) == repr(mt)
    check_state(me, mt)
    x = R.randn(4, 2, 5).astype(np.float32)
    (oe, he), (ot, ht) = me(e_tensor(x)), mt(torch.from_numpy(x))
    np.testing.assert_allclose(to_np(oe), to_np(ot), rtol=1e-5, atol=1e-6)
    for a, b in zip(he if isinstance(he, tuple) else [he], ht if isinstance(ht, tuple)
                    else [ht]):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-5, atol=1e-6)
    de, dt = me.get_quantized_weight_bias_dict(), mt.get_quantized_weight_bias_dict()
    assert list(de) == list(dt)
    np.testing.assert_array_equal(de['weight_hh_l1_reverse'].int_repr().numpy(),
                                  dt['weight_hh_l1_reverse'].int_repr().numpy())
    oe = me(e_tensor(x[:, 0]))[0]                         # unbatched
    assert tuple(oe.shape) == tuple(mt(torch.from_numpy(x[:, 0]))[0].shape)


def test_reference_mapping_table():
    from ember.ao.quantization import get_default_static_quant_reference_module_mappings as ge
    from torch.ao.quantization import get_default_static_quant_reference_module_mappings as gt
    me, mt = ge(), gt()
    assert len(me) == len(mt) == 15
    assert sorted((k.__name__, v.__name__, v.__module__.replace('torch', 'ember'))
                  for k, v in me.items()) == \
        sorted((k.__name__, v.__name__, v.__module__.replace('torch', 'ember'))
               for k, v in mt.items())
    assert ember.ao.quantization.get_static_quant_module_class(
        ember.nn.LSTM, is_reference=True) is ember.ao.nn.quantized.reference.LSTM
