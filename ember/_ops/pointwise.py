"""Pointwise ops: arithmetic, math functions, comparisons, logical and bitwise ops.
Each op's backward class stands right above its forward."""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, inplace
from ..autograd.graph import _named
from ._util import wrap, Node, register, binary_arrays, binary, grad_needed, record, _Upcast
from .._backend import array_module


def _bin(a, b):
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)


# ------------------------------------------------------------------ add / sub
class AddBackward0(Node):
    def backward(self, g):
        alpha = self.alpha
        return g, (g if alpha == 1 else g * alpha)


class AddBackwardScalar(Node):   # tensor + scalar (PyTorch wraps the scalar: AddBackward0)
    def backward(self, g):
        return (g,)


class SubBackward0(Node):
    def backward(self, g):
        alpha = self.alpha
        return g, (-g if alpha == 1 else g * -alpha)


class SubBackwardScalar(Node):
    def backward(self, g):
        return (g,)


class RsubBackward1(Node):
    def backward(self, g):
        return (-g,) if self.alpha == 1 else (g * -self.alpha,)


def _record_binary(out, a, b, cls_tt, cls_ts, **attrs):
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta and tb:
        node = cls_tt()
        node.__dict__.update(attrs)
        record(out, node, (a, b))
    else:
        node = cls_ts()
        node.__dict__.update(attrs)
        record(out, node, (a if ta else b,))


@register(dunder=('__add__', '__radd__'))
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other``, broadcasting, with PyTorch's type promotion.

    Args:
        input (Tensor or Number): the first operand.
        other (Tensor or Number): the second operand.
        alpha (Number): multiplier for ``other``.

    Example::

        >>> ember.add(ember.tensor([1, 2]), 10)
        tensor([11, 12])
    """
    x, y, xp = _bin(input, other)
    if alpha != 1:
        y = y * alpha
        if isinstance(y, np.ndarray) and x.dtype != y.dtype and not isinstance(other, Tensor):
            y = y.astype(x.dtype)
    res = wrap(xp.add(x, y))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        _record_binary(res, input, other, AddBackward0, AddBackwardScalar, alpha=alpha)
    return _out(res, out)


def _radd(self, other):
    return add(other, self)


@register(dunder=('__sub__',))
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``, broadcasting.

    Example::

        >>> ember.sub(ember.tensor([1., 2.]), 1)
        tensor([0., 1.])
    """
    if (isinstance(input, Tensor) and input._data.dtype == np.bool_) and \
            (not isinstance(other, Tensor) or other._data.dtype == np.bool_):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    x, y, xp = _bin(input, other)
    if alpha != 1:
        y = y * alpha
    res = wrap(xp.subtract(x, y))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        if isinstance(input, Tensor):
            _record_binary(res, input, other, SubBackward0, SubBackwardScalar, alpha=alpha)
        else:
            node = RsubBackward1()
            node.alpha = alpha
            record(res, node, (other,))
    return _out(res, out)


def _rsub(self, other):
    return sub(other, self)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


# ------------------------------------------------------------------ mul / div
class MulBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g * (b.conj() if b is not None and b.is_complex() else b) if b is not None else None
        gb = g * (a.conj() if a.is_complex() else a) if a is not None else None
        return ga, gb


class MulBackwardScalar(Node):
    def backward(self, g):
        s = self.scalar
        return (g * (s.conjugate() if isinstance(s, complex) else s),)


@register(dunder=('__mul__', '__rmul__'), aliases=('multiply',))
def mul(input, other, *, out=None):
    """``input * other``, broadcasting.

    Example::

        >>> ember.mul(ember.tensor([1, 2]), 3)
        tensor([3, 6])
    """
    x, y, xp = _bin(input, other)
    res = wrap(xp.multiply(x, y))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
        if ta and tb:
            node = MulBackward0()
            # save only what the formula needs (so in-place changes of the rest are fine)
            record(res, node, (input, other),
                   save=(input if other._rg else None, other if input._rg else None))
        else:
            node = MulBackwardScalar()
            node.scalar = other if ta else input
            record(res, node, (input if ta else other,))
    return _out(res, out)


class DivBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g / (b.conj() if b.is_complex() else b) if self.needs[0] else None
        gb = None
        if self.needs[1]:
            q = a / b
            gb = -g * (q / b).conj() if q.is_complex() else -g * q / b
        return ga, gb


class DivBackwardScalar(Node):
    def backward(self, g):
        return (g / self.scalar,)


class DivBackwardRScalar(Node):   # scalar / tensor
    def backward(self, g):
        (b,) = self.saved_tensors
        return (-g * self.scalar / (b * b),)




def _true_div_arrays(x, y, xp):
    if x.dtype.kind in 'biu' if hasattr(x, 'dtype') else False:
        pass
    return xp.true_divide(x, y)


@register(dunder=('__truediv__',), aliases=('divide', 'true_divide'))
def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``. Integer inputs give a float result unless ``rounding_mode`` is
    ``'trunc'`` or ``'floor'``.

    Example::

        >>> ember.div(ember.tensor([5, 3]), 2)
        tensor([2.5000, 1.5000])
    """
    x, y, xp = _bin(input, other)
    dt = x.dtype if hasattr(x, 'dtype') and not np.isscalar(x) else y.dtype
    if rounding_mode is None:
        if dt.kind in 'biu':
            fd = D._default_dtype._np
            x = x.astype(fd) if isinstance(x, np.ndarray) or hasattr(x, 'astype') else x
            y = y.astype(fd) if isinstance(y, np.ndarray) or hasattr(y, 'astype') else y
        with np.errstate(divide='ignore', invalid='ignore'):
            r = xp.true_divide(x, y)
        if hasattr(x, 'dtype') and r.dtype != np.result_type(x, y) and dt.kind not in 'biu':
            r = r.astype(dt)
    elif rounding_mode == 'trunc':
        if dt.kind in 'iu':
            _check_zero_div(y, xp)
            r = xp.trunc(xp.true_divide(x, y)).astype(dt) if False else _int_trunc_div(x, y, xp)
        else:
            with np.errstate(divide='ignore', invalid='ignore'):
                r = xp.trunc(xp.true_divide(x, y))
    elif rounding_mode == 'floor':
        if dt.kind in 'iu':
            _check_zero_div(y, xp)
            r = xp.floor_divide(x, y)
        else:
            with np.errstate(divide='ignore', invalid='ignore'):
                r = xp.floor(xp.true_divide(x, y))
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    res = wrap(r if isinstance(r, np.ndarray) or not np.isscalar(r) else xp.asarray(r))
    if rounding_mode is None and _Mode.grad and (
            (isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
        if ta and tb:
            node = DivBackward0()
            node.needs = (input._rg, other._rg)
            record(res, node, (input, other), save=(input if other._rg else None, other))
            if not other._rg:
                node._saved = (None, other)
        elif ta:
            node = DivBackwardScalar()
            node.scalar = other
            record(res, node, (input,))
        else:
            node = DivBackwardRScalar()
            node.scalar = input
            record(res, node, (other,), save=(other,))
    elif rounding_mode is not None and _Mode.grad and (
            (isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        node = _ZeroGrad()
        node.__class__ = DivBackward0 if False else _ZeroGrad
        ins = tuple(t for t in (input, other) if isinstance(t, Tensor))
        node.n = len(ins)
        record(res, node, ins)
    return _out(res, out)


class _ZeroGrad(Node):
    """Backward of piecewise-constant ops: zero gradients."""

    def backward(self, g):
        z = g * 0
        return tuple(z for _ in range(self.n)) if self.n > 1 else z


def _check_zero_div(y, xp):
    if (y == 0).any() if hasattr(y, 'any') else y == 0:
        raise RuntimeError("ZeroDivisionError")


def _int_trunc_div(x, y, xp):
    q = xp.floor_divide(x, y)
    r = x - q * y
    fix = (r != 0) & ((r < 0) != (y < 0))
    return (q + fix).astype(q.dtype)


def _rdiv(self, other):
    return div(other, self)


class NegBackward0(Node):
    def backward(self, g):
        return -g


@register(dunder=('__neg__',), aliases=('negative',))
def neg(input, *, out=None):
    """``-input``."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    res = wrap(array_module(input._data).negative(input._data))
    if _Mode.grad and input._rg:
        record(res, NegBackward0(), (input,))
    return _out(res, out)


def _out(res, out):
    """Implements the ``out=`` argument: write ``res`` into ``out`` (resizing it)."""
    if out is None:
        return res
    if out._rg and _Mode.grad:
        raise RuntimeError(f"{'add'}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, out._data.dtype)
        out._st = None
    out._data[...] = res._data
    out._storage_obj()._version += 1
    return out


# in-place forms and reflected operators
def _make_inplace(fn, name):
    def f(self, *args, **kwargs):
        return inplace(self, fn, *args, **kwargs)
    f.__name__ = name
    f.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    return f


for _fn, _names in ((add, ('add_', '__iadd__')), (sub, ('sub_', '__isub__', 'subtract_')),
                    (mul, ('mul_', '__imul__', 'multiply_')),
                    (div, ('div_', '__itruediv__', 'divide_', 'true_divide_')),
                    (neg, ('neg_', 'negative_'))):
    _f = _make_inplace(_fn, _names[0])
    for _n in _names:
        register(_n, function=False)(_f)

for _c, _n in ((AddBackwardScalar, 'AddBackward0'), (SubBackwardScalar, 'SubBackward0'),
               (MulBackwardScalar, 'MulBackward0'), (DivBackwardScalar, 'DivBackward0'),
               (DivBackwardRScalar, 'DivBackward0'), (RsubBackward1, 'RsubBackward1'),
               (_ZeroGrad, 'DivBackward0')):
    _named(_c, _n)

register('__radd__', function=False)(_radd)
register('__rsub__', function=False)(_rsub)
register('__rtruediv__', function=False)(_rdiv)
register('rsub', method=False)(rsub)
register('subtract')(sub)
