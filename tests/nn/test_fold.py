"""Fold / Unfold vs torch: repr, outputs and input gradients (float32/float64, batched and
unbatched, kernel/dilation/padding/stride variants), fold(unfold(x)) overlap counts,
grad_fn names, double backward, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both, rand
from _util import pair, run_both

UNFOLD = [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=(2, 1)),
          dict(kernel_size=3, dilation=2, padding=1, stride=2),
          dict(kernel_size=(1, 2), dilation=(2, 1), padding=(0, 2))]


@pytest.mark.parametrize('kw', UNFOLD)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_unfold_vs_torch(kw, dtype):
    e, t = pair(lambda nn: nn.Unfold(**kw))
    assert repr(e) == repr(t)
    x = rand(2, 3, 7, 8, dtype=dtype, seed=1)
    ye, yt = run_both(e, t, x)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == 'Im2ColBackward0'
    run_both(e, t, x[0])


@pytest.mark.parametrize('kw', UNFOLD)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_fold_vs_torch(kw, dtype):
    size = (7, 8)
    cols = torch.nn.functional.unfold(torch.zeros(2, 3, *size), **kw).shape
    e, t = pair(lambda nn: nn.Fold(size, **kw))
    assert repr(e) == repr(t)
    x = rand(*cols, dtype=dtype, seed=2)
    ye, yt = run_both(e, t, x)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == 'Col2ImBackward0'
    run_both(e, t, x[0])


def test_fold_of_unfold_counts_overlaps():
    x = ember.ones(1, 2, 5, 5)
    y = ember.nn.Fold((5, 5), 3, padding=1)(ember.nn.Unfold(3, padding=1)(x))
    yt = torch.nn.Fold((5, 5), 3, padding=1)(torch.nn.Unfold(3, padding=1)(torch.ones(1, 2, 5, 5)))
    np.testing.assert_array_equal(y.numpy(), yt.numpy())


def test_double_backward_and_module():
    x = ember.randn(1, 2, 4, 5, dtype=ember.float64, requires_grad=True)
    f = lambda x: ember.nn.functional.fold(  # noqa: E731
        ember.nn.functional.unfold(x, 2, stride=1) ** 2, (4, 5), 2)
    assert ember.autograd.gradgradcheck(f, (x,))
    assert ember.nn.Fold.__module__ == ember.nn.Unfold.__module__ == 'ember.nn.modules.fold'


@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.Unfold(7), (2, 3, 5, 6)),
    (lambda nn: nn.Unfold(2, stride=0), (2, 3, 5, 6)),
    (lambda nn: nn.Unfold(2), (2, 3, 4, 5, 6)),
    (lambda nn: nn.Fold((5, 7), 2), (2, 12, 20)),
    (lambda nn: nn.Fold((5, 6), 2), (2, 13, 20)),
    (lambda nn: nn.Fold((5, 6), 2), (2, 3, 4, 5)),
])
def test_errors(make, shape):
    x = rand(*shape, seed=0)
    errors_both(lambda m: make(m.nn)(m.from_numpy(x)))
