"""Comparisons: eq, ne, lt, le, gt, ge (and aliases), isclose-style helpers; results
are bool.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion and has ``out=`` where PyTorch has it; its in-place
``op_`` form and dunders are bound in ``pointwise.py``. Each op's backward class stands
right above its forward."""
from . import _args

import numpy as np

from .._tensor import Tensor
from ._util import register, check_broadcast
from .._backend import array_module
from ._pointwise_common import (_bin, _w, _call, _req, _req2, _tname, _not_impl, _out)


# ------------------------------------------------------------------ comparisons
def _cmp_op(name, ufunc, ordered, summary):
    """A comparison op; ``ufunc`` names the array module's function (``'equal'``...),
    looked up on the operands' ``xp`` so that every backend computes it."""
    def op(input, other, *, out=None):
        _req(name, input, 'input', 1)
        x, y, xp = _bin(input, other)
        if ordered and x.dtype.kind == 'c':
            _not_impl(f'{name}_cpu', x)
        res = _w(getattr(xp, ufunc)(x, y), xp, x, y)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}, element-wise, as a bool tensor.\n\n    Example::\n\n"
                  f"        >>> ember.{name}(ember.tensor([1, 2, 3]), 2)\n    ")
    return op


eq = _cmp_op('eq', 'equal', False, '``input == other``')
ne = _cmp_op('ne', 'not_equal', False, '``input != other``')
lt = _cmp_op('lt', 'less', True, '``input < other``')
le = _cmp_op('le', 'less_equal', True, '``input <= other``')
gt = _cmp_op('gt', 'greater', True, '``input > other``')
ge = _cmp_op('ge', 'greater_equal', True, '``input >= other``')
register('eq')(eq)
register('ne', aliases=('not_equal',))(ne)
register('lt', aliases=('less',), dunder=('__lt__',))(lt)
register('le', aliases=('less_equal',), dunder=('__le__',))(le)
register('gt', aliases=('greater',), dunder=('__gt__',))(gt)
register('ge', aliases=('greater_equal',), dunder=('__ge__',))(ge)

_OPERAND_TYPES = (Tensor, int, float, complex, bool, np.generic)


def _dunder_eq(self, other):
    if not isinstance(other, _OPERAND_TYPES):
        return NotImplemented
    return eq(self, other)


def _dunder_ne(self, other):
    if not isinstance(other, _OPERAND_TYPES):
        return NotImplemented
    return ne(self, other)


register('__eq__', function=False)(_dunder_eq)
register('__ne__', function=False)(_dunder_ne)


def _test_op(name, f, summary, cplx_error=False):
    def op(input):
        x = input._data
        if cplx_error and x.dtype.kind == 'c':
            raise RuntimeError(f"{name} does not support complex inputs.")
        xp = array_module(x)
        if x.dtype.kind in 'biu':
            r = xp.full(x.shape, name in ('isfinite', 'isreal'), dtype=bool)
        elif x.dtype.kind == 'V':
            r = f(x.astype(np.float32), xp)
        else:
            r = f(x, xp)
        return _w(r, xp)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}, element-wise, as a bool tensor.\n\n    Example::\n\n"
                  f"        >>> ember.{name}(ember.tensor([1., float('inf'), float('nan')]))\n    ")
    return register(name)(op)


isnan = _test_op('isnan', lambda x, xp: xp.isnan(x), 'Whether each element is NaN')
isinf = _test_op('isinf', lambda x, xp: xp.isinf(x), 'Whether each element is +/-inf')
isposinf = _test_op('isposinf', lambda x, xp: xp.isposinf(x), 'Whether each element is +inf',
                    True)
isneginf = _test_op('isneginf', lambda x, xp: xp.isneginf(x), 'Whether each element is -inf',
                    True)
isfinite = _test_op('isfinite', lambda x, xp: xp.isfinite(x), 'Whether each element is finite')
isreal = _test_op('isreal', lambda x, xp: (x.imag == 0) if x.dtype.kind == 'c' else
                  xp.ones(x.shape, bool), 'Whether each element has a zero imaginary part')


@register()
def signbit(input, *, out=None):
    """Whether the sign bit of each element is set (True for -0.0).

    Example::

        >>> ember.signbit(ember.tensor([-1., 0., -0.]))
        tensor([ True, False,  True])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'signbit')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'signbit', 'out', None)
    x = input._data
    xp = array_module(x)
    if x.dtype.kind == 'c':
        _not_impl('signbit_cpu', x)
    res = _w(xp.signbit(x.astype(np.float32) if x.dtype.kind == 'V' else x), xp, x)
    return _out(res, out, 'signbit')


@register()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``|input - other| <= atol + rtol * |other|``, element-wise (equal infinities
    are close; NaNs are close to each other only with ``equal_nan``).

    Example::

        >>> ember.isclose(ember.tensor([1., 2.]), ember.tensor([1. + 1e-9, 2.1]))
        tensor([ True, False])
    """
    _req2('isclose', input, other)
    if not rtol >= 0:       # (a NaN tolerance too)
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if not atol >= 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    x, y = input._data, other._data
    if x.shape != y.shape:
        check_broadcast(x.shape, y.shape)
    if x.dtype != y.dtype:
        raise RuntimeError(f"{_tname(x)} did not match {_tname(y)}")
    if x.dtype == np.bool_ or x.dtype.kind == 'V':
        x, y = x.astype(np.float32), y.astype(np.float32)
    xp = array_module(x)
    return _w(_call(xp.isclose, x, y, rtol, atol, equal_nan), xp, x, y)


@register()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when :func:`isclose` holds for every element.

    Example::

        >>> ember.allclose(ember.tensor([1., 2.]), ember.tensor([1., 2.]))
        True
    """
    _req2('allclose', input, other)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@register()
def equal(input, other):
    """True when both tensors have the same shape and the same values.

    Example::

        >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
        True
    """
    _req2('equal', input, other)
    if input._data.shape != other._data.shape:
        return False
    x, y, xp = _bin(input, other)
    return bool(xp.array_equal(x, y))
