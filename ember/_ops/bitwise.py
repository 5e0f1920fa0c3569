"""Logical and bitwise ops: logical_and/or/xor/not, bitwise_and/or/xor/not, shifts.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion and has ``out=`` where PyTorch has it; its in-place
``op_`` form and dunders are bound in ``pointwise.py``. Each op's backward class stands
right above its forward."""
from . import _args

import numpy as np

from .._tensor import Tensor
from ._inplace import inplace
from ._util import register, check_broadcast
from .._backend import array_module
from ._pointwise_common import (_bin, _w, _req2, _tname, _not_impl, _out)
from .arithmetic import (float_power)


# ------------------------------------------------------------------ logical / bitwise
def _logical(name, f):
    def op(input, other, *, out=None):
        _req2(name, input, other)
        x = input._data
        y = other._data
        if x.shape != y.shape:
            check_broadcast(x.shape, y.shape)
        xp = array_module(x)
        res = _w(getattr(xp, f)(x.astype(bool) if x.dtype != np.bool_ else x,
                                y.astype(bool) if getattr(y, 'dtype', None) != np.bool_ else y), xp)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Element-wise logical {name[8:].upper()} (non-zero is True), as a bool "
                  f"tensor.\n\n    Example::\n\n        >>> ember.{name}(ember.tensor([1, 0]), "
                  "ember.tensor([1, 1]))\n    ")
    return register(name)(op)


logical_and = _logical('logical_and', 'logical_and')
logical_or = _logical('logical_or', 'logical_or')
logical_xor = _logical('logical_xor', 'logical_xor')


@register()
def logical_not(input, *, out=None):
    """Element-wise logical NOT (zero is True), as a bool tensor.

    Example::

        >>> ember.logical_not(ember.tensor([1., 0.]))
        tensor([False,  True])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'logical_not')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'logical_not', 'out', None)
    x = input._data
    res = _w(x == 0, array_module(x), x)
    return _out(res, out, 'logical_not')


def _int_arrays(name, input, other):
    x, y, xp = _bin(input, other)
    if x.dtype.kind not in 'biu':
        _not_impl(f'{name}_cpu', x)
    return x, y, xp


def _bitwise(name, f, kname, summary, dunders):
    shift = kname in ('lshift', 'rshift')
    def op(input, other, *, out=None):
        x, y, xp = _int_arrays(kname, input, other)
        if shift and x.dtype == np.bool_:
            _not_impl(f'{kname}_cpu', x)
        res = _w(getattr(xp, f)(x, y) if f.__class__ is str else f(xp, x, y), xp, x, y)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}, element-wise, of integer or bool tensors.\n\n    Example::\n\n"
                  f"        >>> ember.{name}(ember.tensor([12]), ember.tensor([10]))\n    ")
    return register(name, dunder=dunders)(op)


def _lshift(xp, x, y):
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    r = xp.left_shift(x, y)
    return xp.where(y >= x.dtype.itemsize * 8, 0, r).astype(r.dtype) if x.dtype.kind in 'iu' \
        else r


def _rshift(xp, x, y):
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    big = y >= x.dtype.itemsize * 8
    r = xp.right_shift(x, xp.where(big, x.dtype.itemsize * 8 - 1, y).astype(
        getattr(y, 'dtype', x.dtype)))
    return r


bitwise_and = _bitwise('bitwise_and', 'bitwise_and', 'bitwise_and', 'Bitwise AND',
                       ('__and__', '__rand__'))
bitwise_or = _bitwise('bitwise_or', 'bitwise_or', 'bitwise_or', 'Bitwise OR',
                      ('__or__', '__ror__'))
bitwise_xor = _bitwise('bitwise_xor', 'bitwise_xor', 'bitwise_xor', 'Bitwise XOR',
                       ('__xor__', '__rxor__'))
bitwise_left_shift = _bitwise('bitwise_left_shift', _lshift, 'lshift', 'Left shift',
                              ('__lshift__',))
bitwise_right_shift = _bitwise('bitwise_right_shift', _rshift, 'rshift', 'Arithmetic right shift',
                               ('__rshift__',))


def _invert(self):
    if self._data.dtype.kind not in 'biu':
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


@register()
def bitwise_not(input, *, out=None):
    """Bitwise NOT (logical NOT for bool tensors).

    Example::

        >>> ember.bitwise_not(ember.tensor([0, 5]))
        tensor([-1, -6])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'bitwise_not')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'bitwise_not', 'out', None)
    x = input._data
    if x.dtype.kind not in 'biu':
        _not_impl('bitwise_not_cpu', x)
    xp = array_module(x)
    return _out(_w(xp.invert(x), xp, x), out, 'bitwise_not')


def _float_power_(self, exponent):
    """In-place version of :func:`float_power` (``self`` must be float64 or complex128)."""
    want = 'complex128' if (self.is_complex() or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent.is_complex())) else 'float64'
    if self.dtype._name != want:
        raise RuntimeError(f"the base given to float_power_ has dtype {_tname(self._data)} but "
                           f"the operation's result requires dtype "
                           f"{'Double' if want == 'float64' else 'ComplexDouble'}")
    return inplace(self, float_power, exponent)


register('float_power_', function=False)(_float_power_)


def _rlshift(self, other):
    return bitwise_left_shift(other, self)


def _rrshift(self, other):
    return bitwise_right_shift(other, self)
