"""Op-database entries of the activation family (ember/_ops/activation.py): softmax,
log_softmax, softmin and the elementwise activation functions of ``nn.functional``."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, FLOAT, INF, NAN

OPS = []


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


def _F(name, **kw):
    return lambda m, x, *a: getattr(m.nn.functional, name)(x, *a, **kw)


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
