import itertools

import numpy as np
import pytest
import torch

import ember

NAMES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32',
         'float64', 'complex64', 'complex128']


@pytest.mark.parametrize('a,b', list(itertools.product(NAMES, NAMES)))
def test_promote_types_matches_torch(a, b):
    e = ember.promote_types(getattr(ember, a), getattr(ember, b))
    t = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert repr(e) == repr(t)


@pytest.mark.parametrize('name', NAMES)
def test_dtype_properties(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert e.is_floating_point == t.is_floating_point
    assert e.is_complex == t.is_complex
    assert e.itemsize == t.itemsize
    assert e.is_signed == t.is_signed
    assert repr(e) == repr(t)


def test_aliases():
    for al in ['float', 'double', 'half', 'long', 'int', 'short', 'cfloat', 'cdouble']:
        assert repr(getattr(ember, al)) == repr(getattr(torch, al))


@pytest.mark.parametrize('name', ['float16', 'bfloat16', 'float32', 'float64'])
def test_finfo(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for attr in ['bits', 'eps', 'max', 'min', 'tiny', 'resolution']:
        assert getattr(e, attr) == getattr(t, attr), attr


@pytest.mark.parametrize('name', ['uint8', 'int8', 'int16', 'int32', 'int64'])
def test_iinfo(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    assert (e.bits, e.max, e.min) == (t.bits, t.max, t.min)


def test_finfo_iinfo_errors():
    with pytest.raises(TypeError):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError):
        ember.iinfo(ember.float32)


def test_default_dtype():
    assert ember.get_default_dtype() is ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.zeros(2).dtype is ember.float64
        assert (ember.tensor([1, 2]) / 2).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError):
        ember.set_default_dtype(ember.int64)


CASES = [
    ([1, 2], 1.5), ([1, 2], True), ([True], 2), ([1.], 2 + 1j), (np.float64(2.0), [1, 2]),
]


def _mk(m, v, dt=None):
    if isinstance(v, list):
        return m.tensor(v, dtype=dt)
    if isinstance(v, np.generic):
        return m.tensor(v.item(), dtype=dt)
    return v


@pytest.mark.parametrize('a,b', CASES)
def test_result_type_scalars(a, b):
    e = ember.result_type(_mk(ember, a), _mk(ember, b))
    t = torch.result_type(_mk(torch, a), _mk(torch, b))
    assert repr(e) == repr(t)


@pytest.mark.parametrize('da,db', [('int32', 'float16'), ('uint8', 'int8'), ('float64', 'complex64'),
                                   ('int64', 'float32'), ('bool', 'int16')])
def test_result_type_zero_dim_vs_dimensioned(da, db):
    # a zero-dim tensor only promotes across categories
    for m in (ember, torch):
        pass
    e = ember.result_type(ember.zeros(2, dtype=getattr(ember, da)), ember.tensor(1, dtype=getattr(ember, db)))
    t = torch.result_type(torch.zeros(2, dtype=getattr(torch, da)), torch.tensor(1, dtype=getattr(torch, db)))
    assert repr(e) == repr(t)
    e = (ember.zeros(2, dtype=getattr(ember, da)) + ember.tensor(1, dtype=getattr(ember, db))).dtype
    t = (torch.zeros(2, dtype=getattr(torch, da)) + torch.tensor(1, dtype=getattr(torch, db))).dtype
    assert repr(e) == repr(t)


def test_can_cast():
    for a, b in itertools.product(NAMES, NAMES):
        assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
