"""Op-database entries of ``torch.constant_pad_nd`` (ember/_ops/padding.py) and the in-place
``torch.addmv_`` (ember/_ops/products.py)."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, BOOL, FLOAT

OPS = []


def _pad_samples(mk):
    yield S(mk((2, 3)), [1, 2])
    yield S(mk((2, 3)), [1, -1, 2, 0], 1.5)
    yield S(mk((2, 3, 4)), (0, 1, 1, 0, 2, 2), -2.)
    yield S(mk((3,)), [-1, -1])
    yield S(mk((2, 3)), [-3, 0], desc='crop to empty')
    yield S(mk((0, 2)), [1, 1, 1, 0], 3.)
    yield S(mk((3, 2)), [1, 1], pre='t')
    yield S(mk((2, 3)), [], desc='no padding')
    if mk.dtype == I64:
        yield S(mk((2,)), [1, 1], 2.7, desc='fill value truncated to int')
    # errors
    yield S(mk((2, 3)), [1], desc='odd pad length')
    yield S(mk((2, 3)), [1, 1, 1, 1, 1, 1], desc='pad too long')
    yield S(mk(()), [1, 1], desc='0-dim input')
    yield S(mk((2,)), [-2, -1], desc='negative size')
    yield S(mk((2,)), [1.5, 1], desc='float pad')


def _addmv_samples(mk):
    yield S(mk((2,)), mk((2, 3)), mk((3,)))
    yield S(mk((2,)), mk((2, 3)), mk((3,)), beta=0.5, alpha=2)
    yield S(mk((4,)), mk((4, 0)), mk((0,)), desc='empty inner dim')
    yield S(mk((3,)), mk((2, 3)), mk((2,)), pre='t')
    yield S(mk((1,)), mk((2, 3)), mk((3,)), desc='input of broadcast shape: error for in-place')
    yield S(mk((2,)), mk((2, 3)), mk((2,)), desc='size mismatch')


OPS += [
    OpInfo('constant_pad_nd', lambda m, *a, **kw: m.constant_pad_nd(*a, **kw), _pad_samples,
           dtypes=(F32, F64, I64, BOOL)),
    # clone first: in-place on a leaf that requires grad raises in both libraries
    OpInfo('addmv_.function', lambda m, x, *a, **kw: m.addmv_(x.clone(), *a, **kw),
           _addmv_samples, dtypes=(F32, F64, I64)),
]
