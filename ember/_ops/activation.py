"""Activation functions (beyond ``relu``, which lives with the pointwise ops)."""
from . import _args
import numpy as np

from .._tensor import Tensor, _Mode, inplace
from ._util import wrap, Node, register, grad_needed, record
from .._backend import array_module

__all__ = ['leaky_relu', 'leaky_relu_']


class LeakyReluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _slope_mask(x, self.slope)


def _slope_mask(x, slope):
    a = x._data
    xp = array_module(a)
    return wrap(xp.where(a > 0, xp.asarray(1, a.dtype), xp.asarray(slope, a.dtype)).astype(a.dtype))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``max(0, x) + negative_slope * min(0, x)``, elementwise.

    Example::

        >>> F.leaky_relu(ember.tensor([-1., 2.]), 0.1)
        tensor([-0.1000,  2.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'leaky_relu')
    if inplace:
        return leaky_relu_(input, negative_slope)
    a = input._data
    xp = array_module(a)
    r = xp.where(a > 0, a, a * a.dtype.type(negative_slope))
    out = wrap(r)
    if grad_needed(input):
        node = LeakyReluBackward0()
        node.slope = negative_slope
        record(out, node, (input,), save=(input,))
    return out


class LeakyReluBackward1(LeakyReluBackward0):
    """The in-place form's node (PyTorch names it apart)."""


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.leaky_relu_(x, 0.5); x
        tensor([-0.5000,  2.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'leaky_relu_')
    r = inplace(input, leaky_relu, negative_slope)
    fn = input._grad_fn
    if fn is not None and type(fn) is LeakyReluBackward0:
        fn.__class__ = LeakyReluBackward1
    return r

