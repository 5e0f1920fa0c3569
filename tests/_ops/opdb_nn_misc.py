"""Op-database entries of ember/_ops/nn_misc.py: bilinear, conv_tbc, grouped_mm and the
always-failing scaled_mm / scaled_grouped_mm (ember has no float8 dtypes; PyTorch's CPU
errors)."""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT, F32


def _F(name):
    return lambda m, *a, **kw: getattr(m.nn.functional, name)(*a, **kw)


def _bilinear(mk):
    yield S(mk((4, 3)), mk((4, 5)), mk((2, 3, 5)), mk((2,)))
    yield S(mk((4, 3)), mk((4, 5)), mk((2, 3, 5)))
    yield S(mk((3,)), mk((2,)), mk((2, 3, 2)), mk((2,)))
    yield S(mk((2, 3, 3)), mk((2, 3, 2)), mk((4, 3, 2)), mk((4,)), gc=False)
    yield S(mk((0, 3)), mk((0, 5)), mk((2, 3, 5)), mk((2,)))
    yield S(mk((4, 3)), mk((3, 5)), mk((2, 3, 5)), mk((2,)), grad=False)   # batch mismatch
    yield S(mk((4, 3)), mk((4, 4)), mk((2, 3, 5)), mk((2,)), grad=False)   # in2 mismatch
    yield S(mk((4, 3)), mk((4, 5)), mk((2, 3, 5)), mk((3,)), grad=False)   # bias mismatch
    yield S(mk((4, 3)), mk((1, 4, 5)), mk((2, 3, 5)), grad=False)          # dims differ
    yield S(mk((4, 3)), mk((4, 5)), mk((3, 5)), grad=False)                # 2-D weight
    yield S(mk((4, 3)), mk((4, 5)), mk((2, 3, 5)), mk((2,), dtype='float64') if
            mk.dtype == 'float32' else mk((2,), dtype='float32'), grad=False)  # dtypes


def _conv_tbc(mk):
    yield S(mk((5, 1, 2)), mk((2, 2, 2)), mk((2,)), -1)      # small (gradcheck): cropping
    yield S(mk((3, 1, 2)), mk((2, 2, 2)), mk((2,)), 2)
    for pad in (0, 1, 2, -1):
        yield S(mk((6, 2, 3)), mk((3, 3, 2)), mk((2,)), pad)
    yield S(mk((4, 1, 2)), mk((2, 2, 3)), mk((3,)), pad=1)
    yield S(mk((2, 2, 3)), mk((3, 3, 2)), mk((2,)))          # empty output
    yield S(mk((1, 2, 3)), mk((3, 3, 2)), mk((2,)), grad=False)   # negative length
    yield S(mk((6, 3)), mk((3, 3, 2)), mk((2,)), grad=False)
    yield S(mk((6, 2, 3)), mk((3, 2)), mk((2,)), grad=False)
    yield S(mk((6, 2, 3)), mk((3, 3, 2)), mk((3,)), grad=False)
    yield S(mk((6, 2, 3)), mk((3, 3, 2)), mk((1, 2)), grad=False)
    yield S(mk((6, 2, 4)), mk((3, 3, 2)), mk((2,)), grad=False)


def _i32(*v):
    return np.array(v, dtype=np.int32)


def _gmm(mk):
    yield S(mk((3, 4, 8)), mk((3, 8, 4)))
    yield S(mk((6, 8)), mk((3, 8, 4)), offs=_i32(2, 4, 6))
    yield S(mk((6, 8)), mk((3, 8, 4)), offs=_i32(0, 5, 6))     # an empty group
    yield S(mk((2, 5, 8)), mk((8, 8)), offs=_i32(4, 8))
    yield S(mk((5, 8)), mk((8, 4)), offs=_i32(4, 8))
    yield S(mk((3, 4, 8)), mk((3, 8, 4)), offs=_i32(1, 2, 3), grad=False)    # offs with 3-D
    yield S(mk((6, 8)), mk((3, 8, 4)), grad=False)                           # offs missing
    yield S(mk((6, 8)), mk((3, 8, 4)), offs=np.array([2, 4, 6]), grad=False)  # int64 offs
    yield S(mk((6, 8)), mk((3, 8, 4)), offs=_i32(2, 6), grad=False)          # group count
    yield S(mk((6, 4)), mk((3, 8, 4)), offs=_i32(2, 4, 6), grad=False)       # K mismatch
    yield S(mk((3, 4, 8)), mk((2, 8, 4)), grad=False)                        # batch mismatch
    yield S(mk((3, 4, 6)), mk((3, 6, 8)), grad=False)                        # 24-byte rows
    yield S(mk((8,)), mk((3, 8, 4)), offs=_i32(2, 4, 6), grad=False)         # 1-D
    yield S(mk((3, 4, 8)), mk((3, 8, 4)), bias=mk((3, 4)), grad=False)       # bias


def _scaled(mk):
    yield S(mk((4, 4)), mk((4, 4)), np.array(1.0, np.float32), np.array(0.5, np.float32))


def _scaled_call(name):
    def f(m, a, b, sa, sb):
        T = m.nn.functional.ScalingType.TensorWise
        return getattr(m.nn.functional, name)(a, b, sa, T, sb, T)
    return f


OPS = [
    OpInfo('nn.functional.bilinear', _F('bilinear'), _bilinear, rtol=1e-5, atol=1e-5),
    OpInfo('bilinear', lambda m, *a: m.bilinear(*a), lambda mk: list(_bilinear(mk))[:3],
           rtol=1e-5, atol=1e-5),
    OpInfo('conv_tbc', lambda m, *a, **kw: m.conv_tbc(*a, **kw), _conv_tbc, rtol=1e-5,
           atol=1e-5, gc_max=3),
    OpInfo('nn.functional.conv_tbc', _F('conv_tbc'), lambda mk: list(_conv_tbc(mk))[:2],
           rtol=1e-5, atol=1e-5),
    OpInfo('nn.functional.grouped_mm', _F('grouped_mm'), _gmm, rtol=1e-5, atol=1e-5,
           note='float64 operands are refused by both (RuntimeError), so no gradcheck; the '
                'float32 gradients are compared with torch'),
    OpInfo('nn.functional.scaled_mm', _scaled_call('scaled_mm'), _scaled, dtypes=(F32,),
           grad=False),
    OpInfo('nn.functional.scaled_grouped_mm', _scaled_call('scaled_grouped_mm'), _scaled,
           dtypes=(F32,), grad=False),
]
del FLOAT
