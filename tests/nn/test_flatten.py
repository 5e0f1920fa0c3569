"""Flatten and Unflatten vs torch: shapes, values, gradients (and their grad_fn names),
views, repr, constructor and call errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both, rand
from _util import pair, run_both


@pytest.mark.parametrize('args,shape', [((), (3, 2, 4)), ((0, -1), (3, 2, 4)), ((1, 2), (2, 3, 4, 5)),
                                        ((), (3, 4)), ((0, -1), ()), ((-2, -1), (2, 3, 4)),
                                        ((), (0, 3, 2)), ((1, 1), (2, 3))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_flatten(args, shape, dtype):
    e, t = pair(lambda nn: nn.Flatten(*args))
    ye, yt = run_both(e, t, rand(*shape, dtype=dtype, seed=0))
    assert (ye.grad_fn is None) == (yt.grad_fn is None)
    if yt.grad_fn is not None:
        assert ye.grad_fn.name() == yt.grad_fn.name()
    assert repr(e) == repr(t)


@pytest.mark.parametrize('dim,size,shape', [(1, (2, 5), (3, 10)), (1, [2, -1], (3, 10)),
                                            (-1, (2, 2, 2), (4, 8)), (0, (1, 3), (3,)),
                                            (1, (2, 3), (2, 6, 2))])
def test_unflatten(dim, size, shape):
    e, t = pair(lambda nn: nn.Unflatten(dim, size))
    ye, yt = run_both(e, t, rand(*shape, seed=1))
    assert ye.grad_fn.name() == yt.grad_fn.name()
    assert repr(e) == repr(t)
    assert ye._base is not None       # a view of the input


def test_roundtrip_and_attributes():
    x = ember.randn(2, 3, 4)
    y = ember.nn.Unflatten(1, (3, 4))(ember.nn.Flatten()(x))
    assert bool((y == x).all())
    for n in ('Flatten', 'Unflatten'):
        assert getattr(ember.nn, n).__constants__ == getattr(torch.nn, n).__constants__
        assert getattr(ember.nn, n).__module__ == 'ember.nn.modules.flatten'
    f = ember.nn.Flatten(2, 3)
    assert (f.start_dim, f.end_dim) == (2, 3) and list(f.state_dict()) == []


def test_errors():
    for size, match in ((10, 'found type int'), ((2., 5), 'element of type float at pos 0'),
                        ((('C', 2), ('H', 5)), 'element of type tuple at pos 0'),
                        ('ab', 'found type str')):
        ee, et = errors_both(lambda m: m.nn.Unflatten(1, size), match)
        assert str(ee) == str(et)
    errors_both(lambda m: m.nn.Unflatten(1, (3, 5))(m.ones(3, 10)), "don't multiply up")
    errors_both(lambda m: m.nn.Flatten(2, 1)(m.ones(3, 2, 2)), 'start_dim cannot come after')
    errors_both(lambda m: m.nn.Flatten()(m.ones(3)), 'Dimension out of range')
