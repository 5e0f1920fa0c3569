"""Quantized tensors in PyTorch's checkpoint format, against PyTorch: files written by
``torch.save`` load in ember (``weights_only`` True and False, zip and legacy formats) and
files written by ``ember.save`` load in ``torch.load(weights_only=True)`` with the same
integers, quantizers, strides and sharing; quantized models' state_dicts go both ways; crafted
``_rebuild_qtensor`` calls are refused with an ``UnpicklingError`` before anything is made;
pickle, ``copy`` and ``deepcopy`` in process."""
import copy
import gc
import io
import pickle
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
import torch

import ember
from ember._ops import _dispatch

# the pickle assembler of the serialization attack corpus (tests/test_serialization_attacks.py)
import test_serialization_attacks as A
from test_serialization_attacks import FALSE, TRUE, call, f, g, hooks, i, lst, tup, u

warnings.filterwarnings('ignore', message='.*deprecated.*')
pytestmark = pytest.mark.filterwarnings('ignore::DeprecationWarning', 'ignore::UserWarning')


# ------------------------------------------------------------------ helpers
def _torch_tensors():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g)
    pt = torch.quantize_per_tensor(x, 0.05, -3, torch.qint8)
    return {
        'quint8': torch.quantize_per_tensor(x, 0.1, 7, torch.quint8),
        'qint8': pt,
        'qint32': torch.quantize_per_tensor(x, 1e-3, -5, torch.qint32),
        'transposed': pt.t(),
        'offset-view': pt[1:, 2],
        'empty': torch.quantize_per_tensor(torch.zeros(0, 3), 0.5, 1, torch.quint8),
        'scalar': torch.quantize_per_tensor(torch.tensor(1.5), 0.5, 1, torch.quint8),
        'per-channel-0': torch.quantize_per_channel(x, torch.tensor([0.1, 0.02, 0.3]),
                                                    torch.tensor([1, -2, 0]), 0, torch.qint8),
        'per-channel-1': torch.quantize_per_channel(x, torch.tensor([0.1, 0.2, 0.05, 0.4]),
                                                    torch.tensor([10, 0, 255, 3]), 1, torch.quint8),
        'float-qparams': torch.quantize_per_channel(x, torch.tensor([0.1, 0.2, 0.3]),
                                                    torch.tensor([1.5, 2.0, -1.0]), 0, torch.quint8),
    }


def _check_same(e, t):
    """ember quantized tensor ``e`` equals torch's ``t``: integers, quantizer, layout, repr."""
    assert e.is_quantized and str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(e.int_repr().numpy(force=True), t.int_repr().numpy())
    assert str(e.qscheme()) == str(t.qscheme())
    if t.qscheme() == torch.per_tensor_affine:
        assert e.q_scale() == t.q_scale() and e.q_zero_point() == t.q_zero_point()
    else:
        for ea, ta in ((e.q_per_channel_scales(), t.q_per_channel_scales()),
                       (e.q_per_channel_zero_points(), t.q_per_channel_zero_points())):
            assert str(ea.dtype) == str(ta.dtype)
            np.testing.assert_array_equal(ea.numpy(force=True), ta.numpy())
        assert e.q_per_channel_axis() == t.q_per_channel_axis()
    np.testing.assert_array_equal(e.dequantize().numpy(force=True), t.dequantize().numpy())
    assert repr(e) == repr(t)


def _torch_bytes(obj, legacy=False):
    b = io.BytesIO()
    torch.save(obj, b, _use_new_zipfile_serialization=not legacy)
    return b.getvalue()


def _ember_bytes(obj, legacy=False):
    b = io.BytesIO()
    ember.save(obj, b, _use_new_zipfile_serialization=not legacy)
    return b.getvalue()


def _globals(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    import pickletools
    pk = z.read([n for n in z.namelist() if n.endswith('data.pkl')][0])
    return sorted({a for op, a, _ in pickletools.genops(pk) if op.name == 'GLOBAL'})


# ------------------------------------------------------------------ torch -> ember -> torch
@pytest.mark.parametrize('legacy', [False, True])
@pytest.mark.parametrize('weights_only', [True, False])
def test_torch_saved_tensors_load_in_ember_and_back(weights_only, legacy):
    tts = _torch_tensors()
    data = _torch_bytes(tts, legacy)
    got = ember.load(io.BytesIO(data), weights_only=weights_only)
    for k, t in tts.items():
        _check_same(got[k], t)
    # views saved together share their storage, as in torch
    assert got['transposed'].untyped_storage().data_ptr() == \
        got['qint8'].untyped_storage().data_ptr() == got['offset-view'].untyped_storage().data_ptr()
    back = _ember_bytes(got, legacy)
    again = torch.load(io.BytesIO(back), weights_only=True)
    for k, t in tts.items():
        assert repr(again[k]) == repr(t) and again[k].stride() == t.stride()
        assert torch.equal(again[k].int_repr(), t.int_repr())
        assert again[k].storage_offset() == t.storage_offset()
    assert again['transposed'].untyped_storage().data_ptr() == again['qint8'].untyped_storage().data_ptr()
    if not legacy:
        assert torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(back)) == []
        assert ember.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == []


def test_ember_writes_what_torch_writes():
    """The same globals as torch's file: _rebuild_qtensor, the quantized storage classes, the
    qscheme objects (a float-qparams tensor is written under per_channel_affine, as torch
    does)."""
    tts = _torch_tensors()
    ets = ember.load(io.BytesIO(_torch_bytes(tts)))
    for k in tts:
        assert _globals(_ember_bytes(ets[k])) == _globals(_torch_bytes(tts[k])), k


def test_ember_quantized_tensors_load_in_torch():
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    e = {'a': ember.quantize_per_tensor(ember.tensor(x), 0.02, 4, ember.quint8),
         'c': ember.quantize_per_channel(ember.tensor(x), ember.tensor([0.1, 0.2, 0.3, 0.05]),
                                         ember.tensor([0, 1, -1, 2]), 0, ember.qint8)}
    e['v'] = e['a'][1:3, ::2]
    e['i32'] = ember.quantize_per_tensor(ember.tensor(x), 1e-4, -7, ember.qint32)
    e['fq'] = ember.quantize_per_channel(ember.tensor(x), ember.tensor([0.1, 0.2, 0.3, 0.05, 0.5]),
                                         ember.tensor([0.5, 1., -1., 2., 0.]), 1, ember.quint8)
    tx = torch.from_numpy(x)
    t = {'a': torch.quantize_per_tensor(tx, 0.02, 4, torch.quint8),
         'c': torch.quantize_per_channel(tx, torch.tensor([0.1, 0.2, 0.3, 0.05]),
                                         torch.tensor([0, 1, -1, 2]), 0, torch.qint8),
         'i32': torch.quantize_per_tensor(tx, 1e-4, -7, torch.qint32),
         'fq': torch.quantize_per_channel(tx, torch.tensor([0.1, 0.2, 0.3, 0.05, 0.5]),
                                          torch.tensor([0.5, 1., -1., 2., 0.]), 1, torch.quint8)}
    t['v'] = t['a'][1:3, ::2]
    got = torch.load(io.BytesIO(_ember_bytes(e)), weights_only=True)
    for k in t:
        assert repr(got[k]) == repr(t[k]) and got[k].stride() == t[k].stride()
        assert torch.equal(got[k].int_repr(), t[k].int_repr())
    assert got['v'].untyped_storage().data_ptr() == got['a'].untyped_storage().data_ptr()


def test_attributes_on_a_quantized_tensor():
    t = torch.quantize_per_tensor(torch.ones(2), 0.5, 1, torch.quint8)
    t.tag = 'w'
    e = ember.load(io.BytesIO(_torch_bytes(t)))
    assert e.tag == 'w' and e.is_quantized and e.q_scale() == 0.5
    back = torch.load(io.BytesIO(_ember_bytes(e)), weights_only=True)
    assert back.tag == 'w' and back.q_zero_point() == 1


# ------------------------------------------------------------------ quantized models
def _dynamic_model():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    return torch.ao.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)


class _Static(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(2, 4, 3)
        self.fc = torch.nn.Linear(4 * 4 * 4, 5)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.conv(self.quant(x))
        return self.dequant(self.fc(x.reshape(x.shape[0], -1)))


def _static_model():
    torch.manual_seed(0)
    m = _Static().eval()
    m.qconfig = torch.ao.quantization.get_default_qconfig('x86')
    p = torch.ao.quantization.prepare(m)
    p(torch.randn(8, 2, 6, 6))
    return torch.ao.quantization.convert(p)


def _same_entry(e, t):
    if isinstance(t, torch.Tensor):
        if t.is_quantized:
            _check_same(e, t)
        else:
            assert str(e.dtype) == str(t.dtype)
            np.testing.assert_array_equal(e.detach().numpy(force=True), t.detach().numpy())
            assert type(e).__name__ == type(t).__name__
    elif isinstance(t, tuple):
        assert type(e) is tuple and len(e) == len(t)
        for a, b in zip(e, t):
            _same_entry(a, b)
    else:
        assert str(e) == str(t)


@pytest.mark.parametrize('make', [_dynamic_model, _static_model], ids=['dynamic', 'static'])
def test_quantized_state_dict_both_ways(make):
    model = make()
    sd = model.state_dict()
    assert ember.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(_torch_bytes(sd))) == []
    got = ember.load(io.BytesIO(_torch_bytes(sd)))
    assert list(got) == list(sd)
    for k in sd:
        _same_entry(got[k], sd[k])
    back = _ember_bytes(got)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(back)) == []
    sd2 = torch.load(io.BytesIO(back), weights_only=True)
    fresh = make()      # the same architecture; load ember's file into it
    fresh.load_state_dict(sd2)
    x = torch.randn(2, 2, 6, 6) if make is _static_model else torch.randn(2, 6)
    assert torch.equal(fresh(x), model(x))


def test_quantized_model_pickled_whole_loads_with_weights_only_false():
    """torch.save of the quantized tensors in lists and tuples (the packed-params form)."""
    model = _dynamic_model()
    packed = [model[0]._packed_params._weight_bias(), model[2]._packed_params._weight_bias()]
    got = ember.load(io.BytesIO(_torch_bytes(packed)), weights_only=False)
    for (ew, eb), (tw, tb) in zip(got, packed):
        _check_same(ew, tw)
        np.testing.assert_array_equal(eb.detach().numpy(force=True), tb.detach().numpy())


# ------------------------------------------------------------------ crafted files
def storage(key='0', numel=4, sty='QUInt8Storage'):
    return A.storage(key, numel, sty)


def plain(key, n, sty, size=None, stride=None):
    return call(g('torch._utils', '_rebuild_tensor_v2'), storage(key, n, sty),
                i(0), size or tup(i(n)), stride or tup(i(1)), FALSE, hooks())


PT = tup(g('torch', 'per_tensor_affine'), f(0.5), i(3))


def qt(st=None, off=i(0), size=None, stride=None, qp=PT, rg=FALSE, hk=None, extra=b''):
    return call(g('torch._utils', '_rebuild_qtensor'), st or storage(), off,
                size or tup(i(4)), stride or tup(i(1)), qp, rg, hk or hooks(), extra)


def pc(scales=None, zps=None, axis=i(0), scheme='per_channel_affine', size=None, stride=None):
    scales = scales or plain('1', 2, 'DoubleStorage')
    zps = zps or plain('2', 2, 'LongStorage')
    return qt(size=size or tup(i(2), i(2)), stride=stride or tup(i(2), i(1)),
              qp=tup(g('torch', scheme), scales, zps, axis))


U8 = bytes([1, 2, 3, 4])
S2 = {'data/1': np.float64([0.5, 0.25]).tobytes(), 'data/2': np.int64([1, 2]).tobytes()}


def ckpt(body, records=None):
    """A zip checkpoint of pickle ``body`` with the quantized storage '0' (4 bytes)."""
    return A.zip_ckpt(A.pkl(body), {'data/0': U8, **(records or {})})


# name -> (file, phrase of ember's error, whether torch refuses it too)
CRAFTED = {
    'view-past-storage': (ckpt(qt(size=tup(i(5)))), 'out of bounds for storage', True),
    'offset-past-storage': (ckpt(qt(off=i(3), size=tup(i(2)))), 'out of bounds', True),
    'huge-stride': (ckpt(qt(size=tup(i(2)), stride=tup(i(2 ** 40)))), 'out of bounds', True),
    'negative-size': (ckpt(qt(size=tup(b'J\xff\xff\xff\xff'))), 'size must be a tuple of ints', True),
    'float-storage': (ckpt(qt(st=storage(sty='FloatStorage', numel=1))),
                      'requires quantized dtype', True),
    'untyped-storage': (ckpt(qt(st=tup(u('storage'), g('torch.storage', 'UntypedStorage'), u('0'),
                                       u('cpu'), i(4)) + b'Q')), 'requires quantized dtype', True),
    'symmetric-scheme': (ckpt(qt(qp=tup(g('torch', 'per_tensor_symmetric'), f(.5), i(3)))),
                         "Can't deserialize quantized tensor with qscheme torch.per_tensor_symmetric", True),
    'per-channel-symmetric': (ckpt(pc(scheme='per_channel_symmetric'), S2),
                              "Can't deserialize quantized tensor with qscheme", True),
    'scheme-as-string': (ckpt(qt(qp=tup(u('per_tensor_affine'), f(.5), i(3)))),
                         "Can't deserialize quantized tensor with qscheme", True),
    'qparams-not-tuple': (ckpt(qt(qp=i(3))), 'quantizer_params must be a tuple', True),
    'qparams-short': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5)))),
                      'quantizer_params are', True),
    'qparams-long': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), i(3), i(4)))),
                     'quantizer_params are', True),
    'scale-string': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), u('x'), i(3)))),
                     'scale must be a float', True),
    'zero-point-float': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), f(1.)))),
                         'zero_point must be an int', True),
    'zero-point-bool': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), TRUE))),
                        'zero_point must be an int', True),
    'zero-point-huge': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), i(2 ** 70)))),
                        'is above upper bound', True),
    # torch loads these two and raises when the tensor is dequantized (ember: on load)
    'zero-point-above': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), i(300)))),
                         'zero_point 300 is above upper bound', False),
    'zero-point-below': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(.5), b'J\xff\xff\xff\xff'))),
                         'zero_point -1 is below lower bound', False),
    'requires-grad': (ckpt(qt(rg=TRUE)), 'can require gradients', True),
    'hooks': (ckpt(qt(hk=b'}' + u('h') + i(1) + b's')), 'backward_hooks must be an empty dict', False),
    'too-few-args': (ckpt(call(g('torch._utils', '_rebuild_qtensor'), storage(), i(0))), 'arguments', True),
    'axis-out-of-range': (ckpt(pc(axis=i(2)), S2), 'per_channel axis 2 out of range', True),
    'axis-negative': (ckpt(pc(axis=b'J\xff\xff\xff\xff'), S2), 'per_channel axis -1 out of range', True),
    'axis-float': (ckpt(pc(axis=f(0.)), S2), 'per_channel axis 0.0 out of range', True),
    'scales-length': (ckpt(pc(scales=plain('1', 3, 'DoubleStorage'), zps=plain('2', 3, 'LongStorage')),
                           {'data/1': np.float64([1, 2, 3]).tobytes(), 'data/2': np.int64([1, 2, 3]).tobytes()}),
                      'length must equal size', True),
    'zero-points-0d': (ckpt(pc(zps=plain('2', 1, 'LongStorage', tup(), tup())),
                            {**S2, 'data/2': np.int64([1]).tobytes()}), 'length must equal size', True),
    'scales-2d': (ckpt(pc(scales=plain('1', 2, 'DoubleStorage', tup(i(1), i(2)), tup(i(2), i(1)))), S2),
                  'scale tensor must have dimension 1', True),
    'scales-int': (ckpt(pc(scales=plain('1', 2, 'LongStorage')),
                        {**S2, 'data/1': np.int64([1, 2]).tobytes()}), 'scale tensor must be floating point', True),
    'scales-complex': (ckpt(pc(scales=plain('1', 2, 'ComplexFloatStorage')),
                            {**S2, 'data/1': np.complex64([1, 2]).tobytes()}), 'must be a real tensor', True),
    'scales-quantized': (ckpt(pc(scales=qt(size=tup(i(2)))), S2), 'must be a real tensor', False),
    'scale-tensor': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), plain('1', 1, 'DoubleStorage', tup(), tup()), i(3))),
                          {'data/1': np.float64([.5]).tobytes()}), 'scale must be a float', False),
    'per-channel-zero-point-range': (ckpt(pc(), {**S2, 'data/2': np.int64([1, 999]).tobytes()}),
                                     'zero_point 999 is above upper bound', False),
    'mixed-list-and-tensor': (ckpt(pc(scales=lst(f(.5), f(.25))), S2), 'must both be tensors or both lists', True),
    'list-of-strings': (ckpt(pc(scales=lst(f(.5), u('a')), zps=lst(i(1), i(2)))), 'must be numbers', True),
    'list-zero-point-nan': (ckpt(pc(scales=lst(f(.5), f(.25)), zps=lst(f(1.), f(float('nan'))))),
                            "can't be held as int64", True),
    'tuple-scales': (ckpt(pc(scales=tup(f(.5), f(.25)), zps=tup(i(1), i(2)))), 'must be a real tensor or a list', True),
    'quint4x2': (ckpt(qt(st=storage(sty='QUInt4x2Storage', numel=2), size=tup(i(3)))),
                 "can't load torch.quint4x2 tensors", False),
    # a quantized storage is read by _rebuild_qtensor only
    'plain-tensor-over-quantized-storage': (ckpt(plain('0', 4, 'QUInt8Storage')), 'expected a dtype', False),
    'v3-with-quantized-dtype': (ckpt(call(g('torch._utils', '_rebuild_tensor_v3'),
                                          tup(u('storage'), g('torch.storage', 'UntypedStorage'), u('0'),
                                              u('cpu'), i(4)) + b'Q', i(0), tup(i(4)), tup(i(1)), FALSE,
                                          hooks(), g('torch', 'quint8'))), 'expected a dtype', False),
    'as-parameter': (ckpt(call(g('torch._tensor', '_rebuild_from_type_v2'), g('torch._utils', '_rebuild_qtensor'),
                               g('torch.nn.parameter', 'Parameter'),
                               tup(storage(), i(0), tup(i(4)), tup(i(1)), PT, FALSE, hooks()), b'}')),
                     "can't make a quantized tensor a <class 'ember.nn.parameter.Parameter'>", False),
    'set-is-quantized': (ckpt(call(g('torch._tensor', '_rebuild_from_type_v2'), g('torch._utils', '_rebuild_qtensor'),
                                   g('torch', 'Tensor'),
                                   tup(storage(), i(0), tup(i(4)), tup(i(1)), PT, FALSE, hooks()),
                                   b'}' + u('is_quantized') + FALSE + b's')), 'is_quantized', True),
    'unknown-storage-class': (ckpt(qt(st=storage(sty='QUInt9Storage'))), 'Unsupported global', True),
    'storage-longer-than-record': (ckpt(qt(st=storage(numel=64), size=tup(i(64)))), '', True),
    # 2**40 channels over a few bytes (stride 0): the per-channel arrays would take 16 TiB
    'channel-bomb': (ckpt(pc(scales=plain('1', 1, 'DoubleStorage', tup(i(2 ** 40)), tup(i(0))),
                             zps=plain('2', 1, 'LongStorage', tup(i(2 ** 40)), tup(i(0))),
                             size=tup(i(2 ** 40)), stride=tup(i(0))),
                          {'data/1': np.float64([.5]).tobytes(), 'data/2': np.int64([1]).tobytes()}),
                     "more data than its file's size allows", False),
}


def _load_peak(data):
    """(what ember.load gives or the exception it raises, its peak of traced memory)."""
    tracemalloc.start()
    try:
        try:
            out = ember.load(io.BytesIO(data))
        except Exception as e:
            out = e
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize('name', sorted(CRAFTED))
def test_crafted_quantized_file_is_refused(name):
    data, phrase, torch_refuses = CRAFTED[name]
    err, peak = _load_peak(data)
    assert isinstance(err, pickle.UnpicklingError) and phrase in str(err), repr(err)
    assert peak < 4 << 20, f"{name}: peak {peak >> 10} KiB"
    # weights_only=False trusts the file: it has no budget, sets attributes and calls
    # functions as pickle does (a wrong argument count is Python's TypeError, as in torch)
    if name not in ('channel-bomb', 'set-is-quantized', 'too-few-args'):
        with pytest.raises(pickle.UnpicklingError) as ei:
            ember.load(io.BytesIO(data), weights_only=False)
        assert phrase in str(ei.value) or phrase == 'Unsupported global'
    if torch_refuses:       # (torch raises UnpicklingError, or the error of its own checks)
        with pytest.raises(Exception):
            torch.load(io.BytesIO(data), weights_only=True)


LOADS = {    # crafted yet valid: they load as torch loads them
    'stride-0-view': (ckpt(qt(size=tup(i(2 ** 12)), stride=tup(i(0)))), None),
    'lists-per-channel': (ckpt(pc(scales=lst(f(.5), f(.25)), zps=lst(i(1), i(2)))), None),
    'float-list-zero-points': (ckpt(pc(scales=lst(f(.5), f(.25)), zps=lst(f(1.), f(2.)))), None),
    'float-qparams-lists': (ckpt(pc(scales=lst(f(.5), f(.25)), zps=lst(f(1.5), f(2.)),
                                    scheme='per_channel_affine_float_qparams')), None),
    'float-zero-point-tensor': (ckpt(pc(zps=plain('2', 2, 'HalfStorage')),
                                     {**S2, 'data/2': np.float16([1.5, 2]).tobytes()}), None),
    'int32-zero-points-float32-scales': (ckpt(pc(scales=plain('1', 2, 'FloatStorage'), zps=plain('2', 2, 'IntStorage')),
                                              {'data/1': np.float32([.5, .25]).tobytes(),
                                               'data/2': np.int32([1, 2]).tobytes()}), None),
    'axis-1': (ckpt(pc(axis=i(1)), S2), None),
    'scale-int-and-list-qparams': (ckpt(qt(qp=lst(g('torch', 'per_tensor_affine'), i(2), i(3)))), None),
    'negative-scale': (ckpt(qt(qp=tup(g('torch', 'per_tensor_affine'), f(-0.5), i(3)))), None),
    'stride-0-scales': (ckpt(pc(scales=plain('1', 1, 'DoubleStorage', tup(i(2)), tup(i(0))))), None),
}
LOADS['stride-0-scales'] = (ckpt(pc(scales=plain('1', 1, 'DoubleStorage', tup(i(2)), tup(i(0)))),
                                 {'data/1': np.float64([.5]).tobytes(), 'data/2': S2['data/2']}), None)


@pytest.mark.parametrize('name', sorted(LOADS))
def test_crafted_but_valid_files_load_as_in_torch(name):
    data, _ = LOADS[name]
    t = torch.load(io.BytesIO(data), weights_only=True)
    e, peak = _load_peak(data)
    assert peak < 1 << 20
    _check_same(e, t)


def test_huge_stride_0_view_loads_without_allocating():
    """A 1 TiB stride-0 view of 4 bytes loads as a view (torch allocates the whole tensor
    first and fails)."""
    e, peak = _load_peak(ckpt(qt(size=tup(i(2 ** 40)), stride=tup(i(0)))))
    assert peak < 1 << 20 and e.stride() == (0,) and tuple(e.shape) == (2 ** 40,)
    assert e[:3].int_repr().tolist() == [1, 1, 1] and e.q_zero_point() == 3


# ------------------------------------------------------------------ pickle, copy, deepcopy
def _qtensors():
    x = ember.tensor(np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32))
    return [ember.quantize_per_tensor(x, 0.05, 3, ember.quint8),
            ember.quantize_per_channel(x, ember.tensor([0.1, 0.2, 0.3]), ember.tensor([1, 2, 0]),
                                       0, ember.qint8),
            ember.quantize_per_channel(x, ember.tensor([0.1, 0.2, 0.3]),
                                       ember.tensor([1.5, 2., 0.]), 0, ember.quint8)]


def _same_q(a, b):
    assert type(a) is type(b) and repr(a) == repr(b)
    np.testing.assert_array_equal(a.int_repr().numpy(force=True), b.int_repr().numpy(force=True))
    assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset()


def test_pickle_and_copy_keep_views_and_attributes():
    q, pcq, fq = _qtensors()
    v = q.t()
    q.tag = 'x'
    a, b, c, d = pickle.loads(pickle.dumps([q, v, pcq, fq]))
    for x, y in ((a, q), (b, v), (c, pcq), (d, fq)):
        _same_q(x, y)
    assert a.tag == 'x' and b.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    s = copy.copy(q)
    assert s.untyped_storage().data_ptr() == q.untyped_storage().data_ptr() and s.tag == 'x'
    _same_q(s, q)


def test_deepcopy_and_copies_hold_the_quantized_bindings():
    q, pcq, fq = _qtensors()
    q.tag = ['x']
    before = _dispatch._reasons.get('quantized', 0)
    d = copy.deepcopy([q, pcq, fq, q])
    p = pickle.loads(pickle.dumps(pcq))
    assert _dispatch._reasons.get('quantized', 0) == before + 4     # 3 deep copies + 1 pickled
    assert d[0] is d[3] and d[0].tag == ['x'] and d[0].tag is not q.tag
    assert d[0].untyped_storage().data_ptr() != q.untyped_storage().data_ptr()
    for x, y in zip(d, (q, pcq, fq)):
        _same_q(x, y)
    assert d[1].q_per_channel_scales() is not pcq._qp[1]
    del q, pcq, fq
    gc.collect()
    # the copies still reach the quantized ops (cat requantizes into the first's quantizer)
    r = ember.cat([d[0], d[0]])
    assert r.is_quantized and r.q_scale() == 0.05 and p.is_quantized


def test_deepcopy_of_a_module_holding_quantized_tensors():
    q, pcq, _ = _qtensors()
    m = ember.nn.Module()
    m.register_buffer('w', pcq)
    m._packed = (q, ember.nn.Parameter(ember.ones(2)))
    m2 = copy.deepcopy(m)
    _same_q(m2.w, pcq)
    _same_q(m2._packed[0], q)
    assert m2.w is not pcq
    sd = torch.load(io.BytesIO(_ember_bytes(m2.state_dict())), weights_only=True)
    assert torch.equal(sd['w'].int_repr(), torch.from_numpy(pcq.int_repr().numpy(force=True)))


@pytest.mark.parametrize('legacy', [False, True])
def test_per_channel_zero_point_out_of_range_is_refused_in_both_formats(legacy):
    """In the legacy format the storages follow the pickle: the check runs once they are read."""
    q = ember._make_per_channel_quantized_tensor(ember.tensor([[1, 2], [3, 4]], dtype=ember.int8),
                                                 ember.tensor([0.5, 0.25]), ember.tensor([1, 999]), 0)
    data = _ember_bytes(q, legacy)
    for wo in (True, False):
        with pytest.raises(pickle.UnpicklingError, match='zero_point 999 is above upper bound'):
            ember.load(io.BytesIO(data), weights_only=wo)
    ok = ember._make_per_channel_quantized_tensor(ember.tensor([[1, 2], [3, 4]], dtype=ember.int8),
                                                  ember.tensor([0.5, 0.25]), ember.tensor([1, -9]), 0)
    got = ember.load(io.BytesIO(_ember_bytes(ok, legacy)))
    _same_q(got, ok)


@pytest.mark.parametrize('name,args', [('Linear', (6, 5)), ('Conv2d', (2, 4, 3))])
def test_quantized_module_state_dict_between_torch_and_ember(name, args):
    """torch's quantized Linear / Conv2d state_dict (packed params, per-tensor weight) loads
    into ember's module through ember.load, and ember's back into torch's; deepcopy keeps it."""
    import torch.ao.nn.quantized as tnq
    import ember.ao.nn.quantized as enq
    torch.manual_seed(0)
    t = getattr(tnq, name)(*args)
    t.set_weight_bias(torch.quantize_per_tensor(torch.randn(t.weight().shape), 0.02, 0, torch.qint8),
                      torch.randn(args[1]))
    e = getattr(enq, name)(*args)
    e.load_state_dict(ember.load(io.BytesIO(_torch_bytes(t.state_dict()))))
    _check_same(e.weight(), t.weight())
    c = copy.deepcopy(e)
    _check_same(c.weight(), t.weight())
    t2 = getattr(tnq, name)(*args)
    t2.load_state_dict(torch.load(io.BytesIO(_ember_bytes(c.state_dict())), weights_only=True))
    assert torch.equal(t2.weight().int_repr(), t.weight().int_repr())
    assert torch.equal(t2.bias(), t.bias()) and t2.scale == t.scale
