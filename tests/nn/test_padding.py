"""Padding layers (Reflection/Replication/Zero/Constant/Circular, 1-3d) vs torch: repr,
outputs and input gradients (float32/float64, batched/unbatched, asymmetric and negative
padding), constructor forms, and torch's errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both, rand
from _util import pair, run_both

KINDS = ['Reflection', 'Replication', 'Zero', 'Constant', 'Circular']


def _make(nn, kind, nd, padding):
    cls = getattr(nn, f'{kind}Pad{nd}d')
    return cls(padding, 1.5) if kind == 'Constant' else cls(padding)


PADS = {1: [1, (2, 0), [1, 3]], 2: [1, (1, 2, 0, 1), [2, 1, 1, 0]],
        3: [1, (1, 0, 2, 1, 0, 1)]}


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_pad_layers_vs_torch(kind, nd, dtype):
    for padding in PADS[nd]:
        e, t = pair(lambda nn: _make(nn, kind, nd, padding))
        assert repr(e) == repr(t)
        assert e.padding == t.padding
        assert list(e.state_dict()) == list(t.state_dict()) == []
        x = rand(*((2, 3) + (4, 5, 3)[:nd]), dtype=dtype, seed=nd)
        run_both(e, t, x)                       # batched
        run_both(e, t, x[0])                    # unbatched


@pytest.mark.parametrize('kind', ['Zero', 'Constant', 'Circular', 'Replication'])
def test_negative_padding(kind):
    e, t = pair(lambda nn: _make(nn, kind, 2, (-1, 2, 1, -2)))
    run_both(e, t, rand(2, 3, 5, 6, seed=3))


def test_constants_and_value():
    for nn in (torch.nn, ember.nn):
        assert nn.ConstantPad2d.__constants__ == ['padding', 'value']
        assert nn.ReflectionPad1d.__constants__ == ['padding']
    e, t = pair(lambda nn: nn.ConstantPad3d(1, -2))
    assert repr(e) == repr(t) and e.value == t.value == -2
    e, t = pair(lambda nn: nn.ZeroPad2d((1, 2, 3, 4)))
    assert repr(e) == repr(t) == 'ZeroPad2d((1, 2, 3, 4))'
    assert ember.nn.ZeroPad1d.__module__ == 'ember.nn.modules.padding'


def test_grad_fn_names():
    # Circular is left out: torch builds it from slices, its grad_fn is CopySlices, while
    # ember's F.pad gives one CircularPadBackward0 node.
    x = ember.randn(1, 2, 4, 4, requires_grad=True)
    y = torch.randn(1, 2, 4, 4, requires_grad=True)
    for kind in ['Reflection', 'Replication', 'Zero', 'Constant']:
        ge = type(_make(ember.nn, kind, 2, 1)(x).grad_fn).__name__
        gt = type(_make(torch.nn, kind, 2, 1)(y).grad_fn).__name__
        assert ge == gt, kind


@pytest.mark.parametrize('case', [
    ('Reflection', 1, 4, (2, 3, 4)),       # padding >= input size
    ('Reflection', 2, (1, 1, 3, 0), (1, 2, 3, 4)),
    ('Circular', 1, 5, (2, 3, 4)),         # wraps more than once
    ('Circular', 2, 1, (2, 3, 4, 5, 6)),   # wrong input dims: ValueError
    ('Circular', 1, 1, (3,)),
    ('Reflection', 2, 1, (3,)),
    ('Replication', 3, 1, (2, 3)),
    ('Reflection', 3, 1, (2, 4)),          # padding longer than the input's dims
    ('Reflection', 2, 1, (0, 3, 4)),       # unbatched: no dim may be empty
    ('Replication', 2, 1, (2, 0, 4, 5)),   # batched: only the batch dim may be empty
    ('Replication', 1, 1, (2, 3, 0)),
])
def test_pad_errors(case):
    kind, nd, padding, shape = case
    x = rand(*shape, seed=0)
    errors_both(lambda m: _make(m.nn, kind, nd, padding)(m.from_numpy(x.copy())))


def test_empty_batch():
    for kind in KINDS:
        e, t = pair(lambda nn: _make(nn, kind, 2, 1))
        run_both(e, t, rand(0, 3, 4, 5, seed=1))


def test_double_backward():
    x = ember.randn(1, 2, 4, 4, dtype=ember.float64, requires_grad=True)
    for kind in KINDS:
        m = _make(ember.nn, kind, 2, (1, 2, 2, 1))
        assert ember.autograd.gradgradcheck(m, (x,)), kind
