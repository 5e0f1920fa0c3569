"""ember.ao.quantization.{qconfig, qconfig_mapping, quant_type, utils} against torch: every
default qconfig builds the same observers; per-backend defaults, versions and their errors;
deprecation warnings; qconfig_equals; QConfigMapping (setters, dict round trip, repr,
defaults per backend); the utils helpers."""
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as TQ
import torch.ao.quantization.utils as TU

import ember
import ember.ao.quantization as EQ
import ember.ao.quantization.utils as EU
from tests.oracle import errors_both

pytestmark = pytest.mark.filterwarnings("ignore:Please use quant_min")

ATTRS = ('dtype', 'qscheme', 'quant_min', 'quant_max', 'reduce_range', 'ch_axis', 'is_dynamic',
         'averaging_constant', 'bins', 'has_customized_qrange', 'is_per_channel',
         'is_symmetric_quant')


def _describe(obj):
    """A library-neutral description of an observer / fake-quantize instance."""
    if obj is None:
        return None
    d = [type(obj).__name__]
    for a in ATTRS:
        if hasattr(obj, a):
            d.append((a, str(getattr(obj, a))))
    eps = getattr(obj, 'eps', None)
    if eps is not None:
        d.append(('eps', float(eps.item()) if hasattr(eps, 'item') else eps))
    app = getattr(obj, 'activation_post_process', None)
    if app is not None:
        d.append(('app', _describe(app)))
    return d


def _qc(qc):
    if qc is None:
        return None
    return (_describe(qc.activation()) if qc.activation is not None else None,
            _describe(qc.weight()) if qc.weight is not None else None)


QCONFIGS = [n for n in TQ.qconfig.__all__ if n not in (
    'QConfig', 'QConfigDynamic', 'QConfigAny', 'qconfig_equals', 'get_default_qconfig',
    'get_default_qat_qconfig', 'get_default_qconfig_dict', 'get_default_qat_qconfig_dict')]


@pytest.mark.parametrize('name', QCONFIGS)
def test_default_qconfigs(name):
    assert _qc(getattr(EQ, name)) == _qc(getattr(TQ, name))


@pytest.mark.parametrize('backend', ['x86', 'fbgemm', 'qnnpack', 'onednn'])
def test_get_default_qconfigs(backend):
    assert _qc(EQ.get_default_qconfig(backend)) == _qc(TQ.get_default_qconfig(backend))
    for v in (0, 1):
        assert _qc(EQ.get_default_qat_qconfig(backend, v)) == \
            _qc(TQ.get_default_qat_qconfig(backend, v))
    e, t = EQ.get_default_qconfig_mapping(backend), TQ.get_default_qconfig_mapping(backend)
    _same_mapping(e, t)
    e, t = EQ.get_default_qat_qconfig_mapping(backend), \
        TQ.get_default_qat_qconfig_mapping(backend)
    _same_mapping(e, t)


def _key(k):
    if isinstance(k, str):
        return k
    if isinstance(k, tuple):
        return tuple(_key(x) for x in k)
    if isinstance(k, int):
        return k
    return getattr(k, '__name__', str(k))


def _same_mapping(e, t):
    assert _qc(e.global_qconfig) == _qc(t.global_qconfig)
    for style in ('object_type_qconfigs', 'module_name_regex_qconfigs', 'module_name_qconfigs',
                  'module_name_object_type_order_qconfigs'):
        ed, td = getattr(e, style), getattr(t, style)
        assert [_key(k) for k in ed] == [_key(k) for k in td], style
        for (ek, ev), (tk, tv) in zip(ed.items(), td.items()):
            assert _qc(ev) == _qc(tv), (style, tk)


def test_backend_and_version_errors():
    Q = lambda m: TQ if m is torch else EQ  # noqa: E731
    for fn, match in [
            (lambda m: Q(m).get_default_qconfig('foo'),
             "backend: foo not supported. backend must be one of ['fbgemm', 'x86', 'qnnpack', "
             "'onednn']"),
            (lambda m: Q(m).get_default_qat_qconfig('foo'), 'backend: foo not supported'),
            (lambda m: Q(m).get_default_qconfig('x86', 1),
             'Version number: 1 in get_default_qconfig is not supported. Version number must '
             'be 0'),
            (lambda m: Q(m).get_default_qat_qconfig('x86', 2),
             'Version number: 2in get_default_qat_qconfig is not supported. Version number '
             'must be 0 or 1'),
            (lambda m: Q(m).get_default_qconfig_mapping('foo'), 'backend: foo not supported'),
            (lambda m: Q(m).QConfig(Q(m).MinMaxObserver(), Q(m).MinMaxObserver),
             'QConfig received observer instance, please pass observer class instead.')]:
        e, t = errors_both(fn, match)
        assert str(e) == str(t)


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        r = fn()
    return r, [(x.category.__name__, str(x.message)) for x in w]


def test_deprecation_warnings():
    _, wt = _warned(lambda: TQ.QConfigDynamic(weight=TQ.default_weight_observer))
    _, we = _warned(lambda: EQ.QConfigDynamic(weight=EQ.default_weight_observer))
    assert we == wt and wt[0][0] == 'FutureWarning'
    for name in ('get_default_qconfig_dict', 'get_default_qat_qconfig_dict'):
        rt, wt = _warned(getattr(TQ, name))
        re_, we = _warned(getattr(EQ, name))
        assert we == wt and len(wt) == 1 and wt[0][0] == 'FutureWarning'
        assert list(re_) == list(rt)
        assert _qc(re_['']) == _qc(rt[''])
        assert [_key(k) for k, _ in re_['object_type']] == [_key(k) for k, _ in rt['object_type']]
    _, we = _warned(lambda: EQ.get_default_qconfig('onednn'))
    _, wt = _warned(lambda: TQ.get_default_qconfig('onednn'))
    assert we == wt


def test_qconfig_dynamic_defaults_and_error():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e, t = EQ.QConfigDynamic(), TQ.QConfigDynamic()
        assert e.activation.__name__ == t.activation.__name__ == 'Identity'
        errors_both(lambda m: (TQ if m is torch else EQ).QConfigDynamic(
            weight=(TQ if m is torch else EQ).MinMaxObserver()),
            'QConfigDynamic received observer instance')


def test_qconfig_equals():
    for Q in (TQ, EQ):
        assert Q.qconfig_equals(Q.get_default_qconfig('fbgemm'), Q.get_default_qconfig('x86'))
        assert not Q.qconfig_equals(Q.get_default_qconfig('qnnpack'),
                                    Q.get_default_qconfig('x86'))
        assert Q.qconfig_equals(Q.get_default_qat_qconfig('x86'),
                                Q.get_default_qat_qconfig('fbgemm'))
        assert Q.qconfig_equals(None, None) and not Q.qconfig_equals(None, Q.default_qconfig)
        assert Q.qconfig_equals(Q.QConfig(Q.MinMaxObserver, Q.MinMaxObserver),
                                Q.QConfig(Q.MinMaxObserver, Q.MinMaxObserver))


def test_add_module_to_qconfig_obs_ctr():
    from ember.ao.quantization.qconfig import _add_module_to_qconfig_obs_ctr as e_add
    from torch.ao.quantization.qconfig import _add_module_to_qconfig_obs_ctr as t_add
    for add, m, Q in ((t_add, torch, TQ), (e_add, ember, EQ)):
        lin = m.nn.Linear(2, 2)
        qc = add(Q.default_qconfig, lin)
        assert 'factory_kwargs' in qc.activation.callable_args
        assert qc.activation().min_val.device == lin.weight.device
        qc2 = add(Q.QConfig(activation=Q.NoopObserver, weight=Q.NoopObserver), lin)
        assert qc2.activation is Q.NoopObserver   # no factory_kwargs: kept as it is
        assert add(None, lin) is None and add(Q.default_qconfig, None) is Q.default_qconfig


def test_qconfig_mapping_setters_dict_repr():
    def build(m, Q):
        return (Q.QConfigMapping().set_global(Q.default_qconfig)
                .set_object_type(m.nn.Linear, Q.default_dynamic_qconfig)
                .set_object_type('reshape', None)
                .set_module_name_regex('foo.*bar', Q.default_qconfig)
                .set_module_name_regex('foo.*', None)
                .set_module_name_regex('foo.*bar', None)
                .set_module_name('sub.conv', Q.default_per_channel_qconfig)
                .set_module_name_object_type_order('sub', m.nn.functional.linear, 1,
                                                   Q.default_qconfig))
    e, t = build(ember, EQ), build(torch, TQ)
    _same_mapping(e, t)
    assert list(e.module_name_regex_qconfigs) == ['foo.*bar', 'foo.*']
    ed, td = e.to_dict(), t.to_dict()
    assert list(ed) == list(td)
    for k in td:
        if k:
            assert len(ed[k]) == len(td[k])
    _same_mapping(EQ.QConfigMapping.from_dict(ed), TQ.QConfigMapping.from_dict(td))
    er, tr = repr(EQ.QConfigMapping()), repr(TQ.QConfigMapping())
    assert er == tr
    assert repr(EQ.QConfigMapping().set_module_name('a', None)) == \
        repr(TQ.QConfigMapping().set_module_name('a', None))


def test_quant_type():
    from torch.ao.quantization.quant_type import _quant_type_from_str as t_from
    from ember.ao.quantization.quant_type import _quant_type_from_str as e_from
    assert [(q.name, int(q)) for q in EQ.QuantType] == [(q.name, int(q)) for q in TQ.QuantType]
    assert e_from('qat') == EQ.QuantType.QAT
    errors_both(lambda m: (t_from if m is torch else e_from)('x'), "Unknown QuantType name 'x'")


def test_utils_qmin_qmax_and_validation():
    for args in [(None, None, False, 'qint8', False), (None, None, False, 'qint8', True),
                 (None, None, False, 'quint8', True), (None, None, False, 'qint32', False),
                 (None, None, False, 'uint16', False), (None, None, False, 'int16', False),
                 (None, None, False, 'quint4x2', False), (0, 15, True, 'quint8', True),
                 (-8, 7, True, 'qint8', False), (0, 2 ** 20, True, 'qint32', False)]:
        t = TU.calculate_qmin_qmax(*args[:3], getattr(torch, args[3]), args[4])
        e = EU.calculate_qmin_qmax(*args[:3], getattr(ember, args[3]), args[4])
        assert e == t
    errors_both(lambda m: (TU if m is torch else EU).calculate_qmin_qmax(
        -200, 200, True, m.qint8, False), 'maximum bit range (=256)')
    errors_both(lambda m: (TU if m is torch else EU).validate_qmin_qmax(1, 5),
                'must include 0')
    for m, U in ((torch, TU), (ember, EU)):
        assert U.to_underlying_dtype(m.quint8) == m.uint8
        assert U.is_per_tensor(m.per_tensor_symmetric) and U.is_per_channel(
            m.per_channel_affine_float_qparams)
    errors_both(lambda m: (TU if m is torch else EU).to_underlying_dtype(m.float32),
                'Unsupported dtype')


@pytest.mark.parametrize('qscheme', ['per_tensor_affine', 'per_tensor_symmetric',
                                     'per_channel_affine_float_qparams'])
def test_determine_qparams(qscheme):
    mn = np.array([-1.5, -0.2, 0.3], np.float32)
    mx = np.array([2.0, 0.1, 0.9], np.float32)
    for mnv, mxv in ((mn[0], mx[0]), (mn, mx)):
        out = []
        for m, U in ((torch, TU), (ember, EU)):
            s, z = U.determine_qparams(m.tensor(mnv), m.tensor(mxv), 0, 255, m.quint8,
                                       m.tensor([1e-7]), False, getattr(m, qscheme))
            out.append((s.numpy(), z.numpy(), str(s.dtype).split('.')[-1],
                        str(z.dtype).split('.')[-1]))
        for a, b in zip(out[1], out[0]):
            np.testing.assert_array_equal(a, b)


def test_utils_qconfig_predicates():
    names = ['default_qconfig', 'default_dynamic_qconfig', 'float16_dynamic_qconfig',
             'float16_static_qconfig', 'float_qparams_weight_only_qconfig',
             'default_per_channel_qconfig', 'per_channel_dynamic_qconfig']
    fns = ['activation_is_statically_quantized', 'activation_is_dynamically_quantized',
           'activation_is_int8_quantized', 'activation_is_int32_quantized',
           'weight_is_quantized', 'weight_is_statically_quantized',
           'op_is_int8_dynamically_quantized', 'get_quant_type']
    for n in names:
        for f in fns:
            t = getattr(TU, f)(getattr(TQ, n))
            e = getattr(EU, f)(getattr(EQ, n))
            assert str(e) == str(t), (n, f)
        assert [str(x) for x in EU.get_qconfig_dtypes(getattr(EQ, n))] == \
            [str(x) for x in TU.get_qconfig_dtypes(getattr(TQ, n))]
    errors_both(lambda m: (TU if m is torch else EU).get_quant_type(
        (TQ if m is torch else EQ).QConfig(activation=(TQ if m is torch else EQ).NoopObserver,
                                           weight=(TQ if m is torch else EQ).NoopObserver.with_args(
                                               dtype=m.float32))),
        'Unrecognized dtype combination in get_quant_type')


def test_utils_misc():
    for m, U, Q in ((torch, TU, TQ), (ember, EU, EQ)):
        obs = Q.PerChannelMinMaxObserver(ch_axis=1)
        obs(m.tensor([[1.0, -2.0], [3.0, 4.0]]))
        d = U.get_qparam_dict(obs)
        assert sorted(d) == ['axis', 'dtype', 'qscheme', 'quant_max', 'quant_min', 'scale',
                             'zero_point']
        assert d['qscheme'] == m.per_channel_affine and d['axis'] == 1
        assert U.get_qparam_dict(Q.PlaceholderObserver(dtype=m.float16)) == \
            {'qscheme': None, 'dtype': m.float16}
        net = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.Sequential(m.nn.ReLU()))
        assert U.getattr_from_fqn(net, '1.0') is net[1][0]
        assert U.has_no_children_ignoring_parametrizations(net[0])
        assert not U.has_no_children_ignoring_parametrizations(net)
        ex = U.get_fqn_to_example_inputs(net, (m.ones(1, 2),))
        assert sorted(ex) == ['', '0', '1', '1.0']
        assert U.get_combined_dict({'a': 1}, {'a': 2, 'b': 3}) == {'a': 2, 'b': 3}
    assert EU.DEPRECATION_WARNING == TU.DEPRECATION_WARNING
