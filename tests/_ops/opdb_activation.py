"""Op-database entries of the activation family (ember/_ops/activation.py): softmax,
log_softmax, softmin and the elementwise activation functions of ``nn.functional``."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, FLOAT, INF, NAN

OPS = []


def _F(name, *pa, **kw):
    """``F.<name>(x, *sample_args, *pa, **kw)``."""
    return lambda m, x, *a: getattr(m.nn.functional, name)(x, *a, *pa, **kw)


def _Fi(name, *pa, **kw):
    """An in-place form on a clone (in-place on a leaf that requires grad raises)."""
    return lambda m, x, *a: getattr(m.nn.functional, name)(x.clone(), *a, *pa, **kw)


def _T(name, *pa, **kw):
    return lambda m, x, *a: getattr(m, name)(x, *a, *pa, **kw)


def _Ti(name, *pa, **kw):
    return lambda m, x, *a: getattr(m, name)(x.clone(), *a, *pa, **kw)




# ----------------------------------------------------------------------------- softmax
def _softmax_samples(mk):
    for sh, dim in (((2, 3), 1), ((2, 3), 0), ((2, 3), -1), ((4,), 0), ((), 0), ((), -1),
                    ((2, 3, 4), 1), ((0, 3), 1), ((2, 0), 1), ((3, 0), 0)):
        yield S(mk(sh), dim)
    yield S(mk((3, 4)), 0, pre='t')
    yield S(mk((3, 4)), 1, pre='t')
    if mk.is_float:
        big = np.array([[1000., 0., -1000.], [88., 89., 90.], [-1e4, -1e4 + 1, -1e4 + 2]],
                       mk.np)
        yield S(big, 1, desc='large logits')
        yield S(big * 100 if mk.dtype == F64 else big, 0, desc='large logits dim0')
        yield S(np.array([[INF, 0., 1.], [-INF, 0., 1.], [NAN, 0., 1.], [-INF, -INF, 0.]],
                         mk.np), 1, grad=False, gc=False, desc='inf/nan rows',
                note="non-finite rows: values compared (nan where torch has nan); gradients "
                     "there are nan in both, not compared")
    # errors
    yield S(mk((2, 3)), 2)
    yield S(mk((2, 3)), -3)
    yield S(mk(()), 1)


def _sm(name, dtype=None):
    if dtype is None:
        return lambda m, x, d: getattr(m, name)(x, d)
    return lambda m, x, d: getattr(m, name)(x, d, dtype=getattr(m, dtype))


for _n in ('softmax', 'log_softmax'):
    OPS += [
        OpInfo(_n, _sm(_n), _softmax_samples, dtypes=(F32, F64, I64)),
        OpInfo(_n + '.method', lambda m, x, d, _n=_n: getattr(x, _n)(d), _softmax_samples,
               dtypes=(F32,), gradcheck=False),
        OpInfo(_n + ':dtype64', _sm(_n, dtype='float64'), _softmax_samples,
               dtypes=(F32, I64), gradcheck=False),
        OpInfo('F.' + _n, _F(_n), _softmax_samples, dtypes=(F32, F64)),
    ]
OPS.append(OpInfo('F.softmin', _F('softmin'), _softmax_samples, dtypes=(F32, F64, I64)))


# ----------------------------------------------------------------------------- elementwise
_GELU_INF = ("torch's float32 gelu gives nan at +inf in its vectorised kernel (inputs of 16+ "
             "elements) and inf in its scalar one: +inf is left out of the special values "
             "(ember gives inf, the limit)")


def _unary(dom='real', special=True, no_posinf=False):
    """Samples of an elementwise activation: shapes incl. 0-dim and empty, a transposed
    (non-contiguous) input, PyTorch's special values (kinks at 0, +-0.5, +-1, inf, nan:
    values and gradients compared) and, for the integer dtype, the error (or int result)."""
    def gen(mk):
        for sh in ((), (0,), (3,), (2, 3), (2, 1, 4)):
            yield S(mk(sh, dom))
        yield S(mk((3, 2), dom), pre='t')
        if special and mk.is_float:
            sp = mk.special()
            if no_posinf:
                yield S(sp[sp != INF], gc=False, note=_GELU_INF)
            else:
                yield S(sp, gc=False)
            yield S(np.array([-3., 3., -6., 6., 20., -20., 1e3, -1e3, 90., -90., 2., -2.],
                             mk.np), gc=False, desc='boundaries')
    return gen


_ALLD = (F32, F64, I64, 'bool')
_ACT = [  # name, fn, dtypes
    ('F.elu', _F('elu'), _ALLD), ('F.elu:a0.5', _F('elu', alpha=0.5), FLOAT),
    ('F.elu:aneg', _F('elu', alpha=-0.3), FLOAT),
    ('F.elu:inplace', _Fi('elu', alpha=0.7, inplace=True), FLOAT + (I64,)),
    ('F.elu_', _Fi('elu_'), FLOAT + (I64,)),
    ('F.celu', _F('celu'), _ALLD), ('F.celu:a2', _F('celu', alpha=2.), FLOAT),
    ('F.celu:a0', _F('celu', alpha=0.), (F32,)),
    ('F.celu:inplace', _Fi('celu', alpha=1.5, inplace=True), FLOAT),
    ('celu', _T('celu'), FLOAT), ('celu_', _Ti('celu_', alpha=0.5), FLOAT),
    ('F.celu_', _Fi('celu_'), FLOAT),
    ('F.selu', _F('selu'), _ALLD), ('F.selu:inplace', _Fi('selu', inplace=True), FLOAT),
    ('selu', _T('selu'), FLOAT), ('selu_', _Ti('selu_'), FLOAT), ('F.selu_', _Fi('selu_'), FLOAT),
    ('F.gelu', _F('gelu'), _ALLD), ('F.gelu:tanh', _F('gelu', approximate='tanh'), FLOAT),
    ('F.gelu:bad', _F('gelu', approximate='foo'), (F32,)),
    ('F.hardshrink', _F('hardshrink'), _ALLD),
    ('F.hardshrink:1', _F('hardshrink', lambd=1.), FLOAT),
    ('F.hardshrink:neg', _F('hardshrink', lambd=-1.), (F32,)),
    ('hardshrink', _T('hardshrink', lambd=0.3), FLOAT),
    ('hardshrink.method', lambda m, x: x.hardshrink(0.7), FLOAT),
    ('F.softshrink', _F('softshrink'), _ALLD),
    ('F.softshrink:1', _F('softshrink', lambd=1.), FLOAT),
    ('F.softshrink:neg', _F('softshrink', lambd=-0.5), FLOAT),
    ('F.hardsigmoid', _F('hardsigmoid'), _ALLD),
    ('F.hardsigmoid:inplace', _Fi('hardsigmoid', inplace=True), FLOAT),
    ('F.hardswish', _F('hardswish'), _ALLD),
    ('F.hardswish:inplace', _Fi('hardswish', inplace=True), FLOAT),
    ('F.hardtanh', _F('hardtanh'), _ALLD),
    ('F.hardtanh:range', _F('hardtanh', -0.5, 2.), FLOAT + (I64,)),
    ('F.hardtanh:bad', _F('hardtanh', 1., -1.), (F32,)),
    ('F.hardtanh:inplace', _Fi('hardtanh', -2., 0.5, inplace=True), FLOAT + (I64,)),
    ('F.hardtanh_', _Fi('hardtanh_'), FLOAT + (I64,)),
    ('F.relu6', _F('relu6'), _ALLD),
    ('F.relu6:inplace', _Fi('relu6', inplace=True), FLOAT + (I64,)),
    ('F.logsigmoid', _F('logsigmoid'), _ALLD),
    ('F.mish', _F('mish'), _ALLD), ('F.mish:inplace', _Fi('mish', inplace=True), FLOAT),
    ('F.silu', _F('silu'), _ALLD), ('F.silu:inplace', _Fi('silu', inplace=True), FLOAT),
    ('F.sigmoid', _F('sigmoid'), _ALLD), ('F.tanh', _F('tanh'), _ALLD),
    ('F.softplus', _F('softplus'), _ALLD),
    ('F.softplus:beta', _F('softplus', beta=2., threshold=1.5), FLOAT),
    ('F.softplus:neg', _F('softplus', beta=-1., threshold=5.), FLOAT),
    ('F.softsign', _F('softsign'), _ALLD), ('F.tanhshrink', _F('tanhshrink'), _ALLD),
    ('F.threshold', _F('threshold', 0.3, -2.), _ALLD),
    ('F.threshold:int', _F('threshold', 1, 5), (I64,)),
    ('F.threshold:inplace', _Fi('threshold', -0.5, 4., inplace=True), FLOAT + (I64,)),
    ('threshold', _T('threshold', 0.5, 0.), FLOAT + (I64,)),
    ('threshold_', _Ti('threshold_', 0.5, 0.), FLOAT + (I64,)),
    ('F.threshold_', _Fi('threshold_', 0., 1.5), FLOAT),
    ('F.rrelu', _F('rrelu'), _ALLD), ('F.rrelu:range', _F('rrelu', 0.2, 0.6), FLOAT),
    ('F.rrelu:bad', _F('rrelu', 0.6, 0.2), (F32,)),
    ('F.rrelu:inplace', _Fi('rrelu', 0.1, 0.4, inplace=True), FLOAT),
    ('rrelu', _T('rrelu'), FLOAT), ('rrelu_', _Ti('rrelu_'), FLOAT),
    ('F.rrelu_', _Fi('rrelu_', 0.3, 0.5), FLOAT),
    ('F.leaky_relu', _F('leaky_relu'), _ALLD), ('F.leaky_relu:0.2', _F('leaky_relu', 0.2), FLOAT),
    ('F.leaky_relu_', _Fi('leaky_relu_', 0.3), FLOAT),
    ('F.relu', _F('relu'), _ALLD), ('F.relu:inplace', _Fi('relu', inplace=True), FLOAT + (I64,)),
    ('F.relu_', _Fi('relu_'), FLOAT + (I64,)),
]
for _n, _fn, _dts in _ACT:
    OPS.append(OpInfo(_n, _fn, _unary(no_posinf=_n.startswith('F.gelu')), dtypes=_dts))


# ----------------------------------------------------------------------------- glu / prelu
def _glu_samples(mk):
    for sh, dim in (((2, 4), -1), ((4, 3), 0), ((2, 6, 2), 1), ((0, 4), 1), ((2,), 0),
                    ((2, 4, 2), -1)):
        yield S(mk(sh), dim)
    yield S(mk((4, 2)), 0, pre='t')
    yield S(mk((2, 3)), 1)           # odd size: error
    yield S(mk(()), 0)               # 0-dim: error
    yield S(mk((2, 4)), 2)           # dim out of range


def _prelu_samples(mk):
    for sx, sw in (((2, 3), (1,)), ((2, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 2, 2), (3,)),
                   ((3,), (1,)), ((), (1,)), ((), ()), ((2, 3), ()), ((0, 3), (3,)),
                   ((4,), ()), ((1,), (1,))):
        yield S(mk(sx), mk(sw, 'pos'))
    yield S(mk((3, 2)), mk((2,), 'pos'), pre='t')
    yield S(mk((2, 3)), mk((2,)))          # channel mismatch
    yield S(mk((3,)), mk((3,)))            # a 1-d input has one channel
    yield S(mk(()), mk((2,)))              # zero-dim input, several slopes
    yield S(mk((2, 3)), mk((3, 1)))        # 2-d weight


def _prelu_mixed(mk):
    yield S(mk((2, 3)), mk((3,)).astype(np.float64))


OPS += [
    OpInfo('F.glu', _F('glu'), _glu_samples, dtypes=(F32, F64, I64)),
    OpInfo('F.prelu', _F('prelu'), _prelu_samples, dtypes=(F32, F64, I64)),
    OpInfo('prelu', _T('prelu'), _prelu_samples, dtypes=FLOAT),
    OpInfo('prelu.method', lambda m, x, w: x.prelu(w), _prelu_samples, dtypes=(F32,),
           gradcheck=False),
    OpInfo('prelu:mixed', _T('prelu'), _prelu_mixed, dtypes=(F32,)),
]
