"""Pointwise ops: arithmetic, math functions, comparisons, logical and bitwise ops.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion (``int / int`` is float, ``exp`` of an int tensor is the
default float dtype, comparisons give bool) and has its in-place ``op_`` form and
``out=`` where PyTorch has them. Each op's backward class stands right above its forward.
Backward formulas use the conjugate-Wirtinger convention for complex inputs
(``grad * conj(f'(z))`` for holomorphic ``f``)."""
from . import _args
import cmath
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, inplace, _check_partial_overlap, _legacy_name
from ..autograd.graph import _named
from ._util import (wrap, Node, register, binary_arrays, binary, record, _Upcast, check_broadcast,
                    write_out, grad_needed)
from .._backend import array_module
from . import _special

_nd = np.ndarray
_ign = np.errstate(all='ignore')     # decorator: PyTorch never warns on inf/nan results


def _bin(a, b):
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)
    except (TypeError, ValueError):   # #ARGCHK slow path: ndarray operands become tensors
        a2, b2 = _nd_operand(a), _nd_operand(b)
        if a2 is a and b2 is b:
            raise
        return _bin(a2, b2)


def _bin_n(a, b):
    """``_bin`` for add/sub/mul/div, which (as in PyTorch) also take two numbers: the first
    is then read as a 0-dim tensor."""
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)
    except (TypeError, ValueError):   # #ARGCHK slow path
        if isinstance(a, (int, float, complex)) and isinstance(b, (int, float, complex)):
            from .creation import tensor
            return _bin(tensor(a), b)
        return _bin(a, b)


def _nd_operand(v):   # #ARGCHK
    """A NumPy array operand as a tensor of its dtype (``tensor + ndarray`` as in PyTorch)."""
    if isinstance(v, np.ndarray):
        from .creation import tensor
        return tensor(v)
    return v


def _w(r, xp=np):
    """Wrap a ufunc result (numpy gives scalars for 0-d inputs) as a fresh tensor."""
    return wrap(r if r.__class__ is _nd else xp.asanyarray(r))


@_ign
def _call(f, *args):
    return f(*args)


_needs = grad_needed   # the one grad check (see _util.grad_needed)


def _req(name, v, arg='other', pos=2):
    """PyTorch's TypeError for a non-tensor where the op takes only tensors."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


def _req2(name, input, other, arg='other'):
    _req(name, input, 'input', 1)
    _req(name, other, arg, 2)


def _tname(a):
    return _legacy_name(D._NP2DT[a.dtype])


def _not_impl(name, a):
    raise NotImplementedError(f'"{name}" not implemented for \'{_tname(a)}\'')


def _float_arr(x):
    """Integer/bool arrays (and numpy scalars) as the default float dtype."""
    if x.dtype.kind in 'biu':
        return x.astype(D._default_dtype._np)
    return x


def _rg_complex(name, *ts):
    for t in ts:
        if isinstance(t, Tensor) and t._rg and t._data.dtype.kind == 'c':
            raise NotImplementedError(f"the derivative for '{name}' is not implemented for "
                                      "complex inputs")


def _cj(t):
    return t.conj() if t._data.dtype.kind == 'c' else t


def _zeros(g):
    return wrap(array_module(g._data).zeros_like(g._data))


def _const(arr, like):
    """A constant tensor (no graph) from array ``arr`` in the dtype of tensor ``like``."""
    dt = like._data.dtype
    return wrap(arr if arr.__class__ is _nd and arr.dtype == dt else
                array_module(like._data).asarray(arr, dtype=dt))


class MaskedFillBackward0(Node):
    def backward(self, g):
        return _mask_zero(g, self.mask)


def _mask_zero(t, mask):
    """``t`` with zeros where the constant boolean array ``mask`` is True (differentiable
    in ``t``; unlike ``t * ~mask`` it also clears infinities and NaNs)."""
    xp = array_module(t._data)
    a = xp.array(xp.broadcast_to(t._data, np.broadcast_shapes(t._data.shape, mask.shape)))
    a[xp.broadcast_to(mask, a.shape)] = 0
    res = wrap(a)
    if _Mode.grad and t._rg:
        node = MaskedFillBackward0()
        node.mask = mask
        record(res, node, (t,))
    return res


class _NotImplementedBackward(Node):
    def backward(self, *g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


_named(_NotImplementedBackward, 'torch::autograd::NotImplemented')


def _record_not_impl(res, name, *ins):
    ts = tuple(t for t in ins if isinstance(t, Tensor))
    node = _NotImplementedBackward()
    node.op = name
    record(res, node, ts)


def _out(res, out, name='add'):
    """``out=`` of the pointwise ops (see ``_util.write_out``)."""
    return res if out is None else write_out(res, out, name)


# ------------------------------------------------------------------ add / sub
class AddBackward0(Node):
    def backward(self, g):
        alpha = self.alpha
        return g, (g if alpha == 1 else g * alpha)


class AddBackwardScalar(Node):   # tensor + scalar (PyTorch wraps the scalar: AddBackward0)
    def backward(self, g):
        return g, None


class SubBackward0(Node):
    def backward(self, g):
        alpha = self.alpha
        return g, (-g if alpha == 1 else g * -alpha)


class SubBackwardScalar(Node):
    def backward(self, g):
        return g, None


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
        # the scalar is an input without an edge, as in PyTorch: (node, 0), (None, 0)
        node = cls_ts()
        node.__dict__.update(attrs)
        record(out, node, (a, None) if ta else (b, None))


def _scale_alpha(y, x, alpha):
    if alpha.__class__ is bool and x.dtype.kind != 'b':
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if x.dtype.kind in 'biu' and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    r = y * alpha
    return r.astype(x.dtype) if r.dtype != x.dtype else r


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
    x, y, xp = _bin_n(input, other)
    if alpha != 1 or alpha.__class__ is bool:
        y = _scale_alpha(y, x, alpha)
    r = xp.add(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asanyarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        _record_binary(res, input, other, AddBackward0, AddBackwardScalar, alpha=alpha)
    return res if out is None else _out(res, _args.tensor(out, 'add', 'out', None), 'add')


def _radd(self, other):
    return add(self, other)


@register(dunder=('__sub__',), aliases=('subtract',))
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``, broadcasting.

    Example::

        >>> ember.sub(ember.tensor([1., 2.]), 1)
        tensor([0., 1.])
    """
    x, y, xp = _bin_n(input, other)
    if x.dtype.kind == 'b' or (input.__class__ is bool or other.__class__ is bool) or \
            (isinstance(input, Tensor) and input._data.dtype == np.bool_) or \
            (isinstance(other, Tensor) and other._data.dtype == np.bool_):
        _sub_bool_error(input, other)
    if alpha != 1 or alpha.__class__ is bool:
        y = _scale_alpha(y, x, alpha)
    r = xp.subtract(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asanyarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        if isinstance(input, Tensor):
            _record_binary(res, input, other, SubBackward0, SubBackwardScalar, alpha=alpha)
        else:
            node = RsubBackward1()
            node.alpha = alpha
            record(res, node, (other,))
    return res if out is None else _out(res, _args.tensor(out, 'sub', 'out', None), 'sub')


def _sub_bool_error(input, other):
    def isb(v):
        return v.__class__ is bool or (isinstance(v, Tensor) and v._data.dtype == np.bool_)
    if isb(input) and isb(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` "
                       "operator instead.")


def _rsub(self, other):
    return sub(other, self)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``.

    Example::

        >>> ember.rsub(ember.tensor([1., 2.]), 10)
        tensor([9., 8.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'rsub')
    return sub(other, input, alpha=alpha)


# ------------------------------------------------------------------ mul / div
class MulBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g * _cj(b) if b is not None else None
        gb = g * _cj(a) if a is not None else None
        return ga, gb


class MulBackwardScalar(Node):
    def backward(self, g):
        s = self.scalar
        return g * (s.conjugate() if isinstance(s, complex) else s), None


@register(dunder=('__mul__', '__rmul__'), aliases=('multiply',))
def mul(input, other, *, out=None):
    """``input * other``, broadcasting.

    Example::

        >>> ember.mul(ember.tensor([1, 2]), 3)
        tensor([3, 6])
    """
    x, y, xp = _bin_n(input, other)
    r = xp.multiply(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asanyarray(r))
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
            record(res, node, (input if ta else other, None))
    return res if out is None else _out(res, _args.tensor(out, 'mul', 'out', None), 'mul')


class DivBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g / _cj(b) if self.needs[0] else None
        gb = None
        if self.needs[1]:
            gb = -g * _cj(a / (b * b))
        return ga, gb


class DivBackwardScalar(Node):
    def backward(self, g):
        s = self.scalar
        return g / (s.conjugate() if isinstance(s, complex) else s), None


class DivBackwardRScalar(Node):   # ember.div(scalar, tensor)
    def backward(self, g):
        (b,) = self.saved_tensors
        s = self.scalar
        return (-g * _cj(s / (b * b)),)


class DivBackward2(Node):          # rounding division: piecewise constant
    def backward(self, g):
        z = _zeros(g)
        return z, (z if self.n == 2 else None)


def _check_zero_div(y):
    if (y == 0).any():
        raise RuntimeError("ZeroDivisionError")


def _int_trunc_div(x, y, xp):
    q = xp.floor_divide(x, y)
    r = x - q * y
    fix = (r != 0) & ((x < 0) != (y < 0))
    return (q + fix).astype(q.dtype)


@_ign
def _div_arrays(x, y, xp, rounding_mode):
    k = x.dtype.kind
    if rounding_mode is None:
        if k in 'biu':
            fd = D._default_dtype._np
            x = x.astype(fd)
            y = y.astype(fd)
        return xp.true_divide(x, y)
    if rounding_mode == 'trunc':
        if k in 'biu':
            if k == 'b':
                _not_impl('div_trunc_cpu', x)
            _check_zero_div(y)
            return _int_trunc_div(x, y, xp)
        return xp.trunc(xp.true_divide(x, y))
    if rounding_mode == 'floor':
        if k in 'biu':
            if k == 'b':
                _not_impl('div_floor_cpu', x)
            _check_zero_div(y)
        return _floor_div_arrays(x, y, xp)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                       f"but found '{rounding_mode}'")


def _floor_div_arrays(x, y, xp):
    if x.dtype.kind == 'V':
        f = np.float32
        return xp.floor_divide(x.astype(f), y.astype(f)).astype(x.dtype)
    return xp.floor_divide(x, y)


@register(dunder=('__truediv__',), aliases=('divide', 'true_divide'))
def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``. Integer inputs give a float result unless ``rounding_mode`` is
    ``'trunc'`` or ``'floor'``.

    Args:
        rounding_mode (str, optional): ``None`` (true division), ``'trunc'`` (round toward
            zero) or ``'floor'`` (round down).

    Example::

        >>> ember.div(ember.tensor([5, 3]), 2)
        tensor([2.5000, 1.5000])
        >>> ember.div(ember.tensor([-5, 3]), 2, rounding_mode='floor')
        tensor([-3,  1])
    """
    x, y, xp = _bin_n(input, other)
    r = _div_arrays(x, y, xp, rounding_mode)
    res = wrap(r if r.__class__ is _nd else xp.asanyarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
        if rounding_mode is not None:
            node = DivBackward2()
            node.n = 2 if ta and tb else 1
            record(res, node, (input, other) if ta and tb else (input, None) if ta else
                   (other, None))
        elif ta and tb:
            node = DivBackward0()
            record(res, node, (input, other), save=(input if other._rg else None, other))
        elif ta:
            node = DivBackwardScalar()
            node.scalar = other
            record(res, node, (input, None))
        else:
            node = DivBackwardRScalar()
            node.scalar = input
            record(res, node, (other,), save=(other,))
    return res if out is None else _out(res, _args.tensor(out, 'div', 'out', None), 'div')


def _rdiv(self, other):
    if isinstance(other, Tensor):
        return div(other, self)
    return mul(reciprocal(self), other)   # as PyTorch: MulBackward0 <- ReciprocalBackward0


@register(dunder=('__floordiv__',))
def floor_divide(input, other, *, out=None):
    """``input / other`` rounded down (integer inputs stay integer).

    Example::

        >>> ember.floor_divide(ember.tensor([-5., 7.]), 2)
        tensor([-3.,  3.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'floor_divide', 'out', None)
    x, y, xp = _bin(input, other)
    r = _div_arrays(x, y, xp, 'floor')
    res = _w(r, xp)
    if _needs(input, other):
        _record_not_impl(res, 'floor_divide', input, other)
    return _out(res, out, 'floor_divide')


def _rfloordiv(self, other):
    return floor_divide(other, self)


class RemainderBackward0(Node):    # tensor % scalar
    def backward(self, g):
        return g


class RemainderBackward1(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g, (-g * floor_divide(a, b) if b is not None else None)


@_ign
def _mod_arrays(x, y, xp, f):
    if x.dtype.kind in 'biu':
        if x.dtype.kind == 'b':
            _not_impl('fmod_cpu' if f is xp.fmod else 'remainder_cpu', x)
        _check_zero_div(y)
    if x.dtype.kind == 'V':
        return f(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype)
    return f(x, y)


@register(dunder=('__mod__',))
def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of ``other``.

    Example::

        >>> ember.remainder(ember.tensor([-3., 5.]), 2)
        tensor([1., 1.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'remainder', 'out', None)
    x, y, xp = _bin(input, other)
    res = _w(_mod_arrays(x, y, xp, xp.remainder), xp)
    if _needs(input, other):
        if not isinstance(input, Tensor):
            _record_not_impl(res, 'remainder', input, other)
        elif isinstance(other, Tensor):
            node = RemainderBackward1()
            record(res, node, (input, other), save=(input if other._rg else None,
                                                    other if other._rg else None))
        else:
            record(res, RemainderBackward0(), (input,))
    return _out(res, out, 'remainder')


def _rmod(self, other):
    return remainder(other, self)


class FmodBackward0(Node):
    def backward(self, g):
        return g


class FmodBackward1(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g, (-g * div(a, b, rounding_mode='trunc') if b is not None else None)


@register()
def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of ``input``.

    Example::

        >>> ember.fmod(ember.tensor([-3., 5.]), 2)
        tensor([-1.,  1.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'fmod', 'out', None)
    _req('fmod', input, 'input', 1)
    x, y, xp = _bin(input, other)
    res = _w(_mod_arrays(x, y, xp, xp.fmod), xp)
    if _needs(input, other):
        if isinstance(other, Tensor):
            record(res, FmodBackward1(), (input, other),
                   save=(input if other._rg else None, other if other._rg else None))
        else:
            record(res, FmodBackward0(), (input,))
    return _out(res, out, 'fmod')


# ------------------------------------------------------------------ pow
class PowBackward0(Node):          # tensor ** scalar
    def backward(self, g):
        (x,) = self.saved_tensors
        e = self.exponent
        if e == 0:
            return _zeros(g)
        return g * _cj(x.pow(e - 1) * e)


class PowBackward1(Node):          # tensor ** tensor
    def backward(self, g):
        x, e, r = self.saved_tensors
        gx = ge = None
        if self.needs[0]:
            d = _mask_zero(e * x.pow(e - 1), _np_of(e) == 0)
            gx = g * _cj(d)
        if self.needs[1]:
            xa, ea = _np_of(x), _np_of(e)
            ge = _mask_zero(g * _cj(r * x.log()), (xa == 0) & (ea.real >= 0))
        return gx, ge


class PowBackward2(Node):          # scalar ** tensor
    def backward(self, g):
        (r,) = self.saved_tensors
        b = self.base
        if isinstance(b, complex):
            lb = cmath.log(b)
        else:
            lb = math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)
        d = g * _cj(r * lb)
        return _mask_zero(d, _np_of(self.exp_t) >= 0) if b == 0 else d


def _np_of(t):
    return t._data


@_ign
def _pow_arrays(x, y, xp, input, exponent):
    if x.dtype == np.bool_:
        if isinstance(exponent, Tensor):
            _not_impl('pow', x)
        return xp.power(x, y).astype(np.bool_)      # numpy gives int8
    if x.dtype.kind in 'iu':
        if isinstance(exponent, Tensor):
            if (y < 0).any():
                r = xp.power(x, xp.abs(y))
                neg = xp.broadcast_to(y < 0, r.shape)
                odd = xp.broadcast_to((y % 2) != 0, r.shape)
                xb = xp.broadcast_to(x, r.shape)
                alt = xp.where(xb == 1, 1, xp.where(xb == -1, xp.where(odd, -1, 1), 0))
                return xp.where(neg, alt, r).astype(r.dtype)
        elif not isinstance(input, Tensor):
            pass
        elif y < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.power(x, y)


@register(dunder=('__pow__',))
def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a Python number.

    Example::

        >>> ember.pow(ember.tensor([1., 2., 3.]), 2)
        tensor([1., 4., 9.])
        >>> 2 ** ember.tensor([1, 2, 3])
        tensor([2, 4, 8])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'pow', 'out', None)
    x, y, xp = _bin(input, exponent)
    res = _w(_pow_arrays(x, y, xp, input, exponent), xp)
    if _needs(input, exponent):
        te = isinstance(exponent, Tensor)
        if not isinstance(input, Tensor):
            node = PowBackward2()
            node.base = input
            node.exp_t = exponent.detach()
            record(res, node, (exponent,), save=(res,))
        elif te:
            node = PowBackward1()
            record(res, node, (input, exponent), save=(input, exponent, res))
        else:
            node = PowBackward0()
            node.exponent = exponent
            record(res, node, (input,), save=(input,))
    return _out(res, out, 'pow')


def _rpow(self, other):
    return pow(other, self)


@register()
def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in double precision (complex128 for complex inputs).

    Example::

        >>> ember.float_power(ember.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=torch.float64)
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'float_power', 'out', None)
    cplx = any((isinstance(v, Tensor) and v._data.dtype.kind == 'c') or isinstance(v, complex)
               for v in (input, exponent))
    dt = D.complex128 if cplx else D.float64

    def up(v):
        if isinstance(v, Tensor):
            return v.to(dt)
        return complex(v) if cplx else float(v)
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected a Tensor")
    return _out(pow(up(input), up(exponent)), out, 'float_power')


@register()
def square(input, *, out=None):
    """``input * input`` (bool inputs give int64).

    Example::

        >>> ember.square(ember.tensor([-2., 3.]))
        tensor([4., 9.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'square')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'square', 'out', None)
    if input._data.dtype == np.bool_:
        input = input.to(D.int64)
    return _out(pow(input, 2), out, 'square')


# ------------------------------------------------------------------ unary math
# Each entry of _UNARY below binds a forward kernel to its backward class.
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class NegBackward0(Node):
    def backward(self, g):
        return -g


@register(dunder=('__neg__',), aliases=('negative',))
def neg(input, *, out=None):
    """``-input``.

    Example::

        >>> ember.neg(ember.tensor([1., -2.]))
        tensor([-1.,  2.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'neg')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'neg', 'out', None)
    if input._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    xp = array_module(input._data)
    res = _w(xp.negative(input._data), xp)
    if _Mode.grad and input._rg:
        record(res, NegBackward0(), (input,))
    return res if out is None else _out(res, out, 'neg')


@register(function=True, dunder=('__pos__',))
def positive(input):
    """Returns ``input`` itself (errors for bool tensors, like PyTorch).

    Example::

        >>> ember.positive(ember.tensor([1., -2.]))
        tensor([ 1., -2.])
    """
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


class AbsBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * x.sgn()


class SgnBackward0(Node):
    def backward(self, g):
        x, r = self.saved_tensors
        if x._data.dtype.kind != 'c':
            return _zeros(g)
        # d sgn(z): (g - conj(g) * sgn(z)^2) / (2|z|), zero at z = 0
        a = x.abs()
        d = (g - g.conj() * r * r) / (a * 2)
        return _mask_zero(d, a._data == 0)


class SignBackward0(Node):
    def backward(self, g):
        return _zeros(g)


class SqrtBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g / (_cj(r) * 2)


class RsqrtBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r * r * r) * -0.5


class ReciprocalBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return -g * _cj(r * r)


class ExpBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r)


class Exp2Backward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r * _LN2)


class Expm1Backward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r + 1)


class LogBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(x)


class Log2Backward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(x * _LN2)


class Log10Backward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(x * _LN10)


class Log1PBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(x + 1)


class SinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj(x.cos())


class CosBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * -_cj(x.sin())


class TanBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r * r + 1)


class AsinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj((-x * x + 1).rsqrt())


class AcosBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * -_cj((-x * x + 1).rsqrt())


class AtanBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(x * x + 1)


class SinhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj(x.cosh())


class CoshBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj(x.sinh())


class TanhBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(-r * r + 1)


class AsinhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj((x * x + 1).rsqrt())


class AcoshBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _cj(((x - 1).sqrt() * (x + 1).sqrt()).reciprocal())


class AtanhBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g / _cj(-x * x + 1)


class SigmoidBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _cj(r * (-r + 1))


class ErfBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * (-x * x).exp() * (2 / math.sqrt(math.pi))


class ErfcBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * (-x * x).exp() * (-2 / math.sqrt(math.pi))


class ErfinvBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * (r * r).exp() * (math.sqrt(math.pi) / 2)


class LgammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * x.digamma()


class DigammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * polygamma(1, x)


class FloorBackward0(SignBackward0):
    pass


class CeilBackward0(SignBackward0):
    pass


class TruncBackward0(SignBackward0):
    pass


class RoundBackward0(SignBackward0):
    pass


class RoundBackward1(SignBackward0):
    pass


class FracBackward0(Node):
    def backward(self, g):
        return g


class Deg2RadBackward0(Node):
    def backward(self, g):
        return g * (math.pi / 180)


class Rad2DegBackward0(Node):
    def backward(self, g):
        return g * (180 / math.pi)


class ReluBackward0(Node):
    def backward(self, g):
        (r,) = self.saved_tensors
        return g * _const(~(r._data <= 0), g)     # NaN passes the gradient, as in PyTorch


for _c in (FloorBackward0, CeilBackward0, TruncBackward0, RoundBackward0, RoundBackward1):
    _named(_c, _c.__name__)


def _special_kernel(f):
    """Kernel computing ``f`` (a float64 routine of ``_special``) for any float dtype."""
    def k(x, xp):
        if x.dtype.kind == 'c':
            raise NotImplementedError(f'"{f.__name__}_vml_cpu" not implemented for '
                                      f"'{_tname(x)}'")
        r = f(x.astype(np.float64))
        return r.astype(x.dtype) if x.dtype != np.float64 else r
    return k


def _lowp(f):
    """numpy kernel ``f``; float16/bfloat16 go through float32 (ml_dtypes lacks some)."""
    def k(x, xp):
        if x.dtype.kind == 'V':
            return f(x.astype(np.float32), xp).astype(x.dtype)
        return f(x, xp)
    return k


def _sigmoid_k(x, xp):
    if x.dtype.kind == 'c':
        return 1 / (1 + xp.exp(-x))
    # stable for large |x|
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _sign_k(x, xp):
    if x.dtype.kind == 'c':
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    if x.dtype == np.bool_:
        return x.copy()
    if x.dtype.kind in 'iu':
        return xp.sign(x)
    return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype))   # sign(nan) is 0


def _sgn_k(x, xp):
    if x.dtype.kind == 'c':
        a = xp.abs(x)
        return xp.where(a == 0, 0, x / xp.where(a == 0, 1, a)).astype(x.dtype)
    return _sign_k(x, xp)


def _abs_k(x, xp):
    if x.dtype == np.bool_:
        raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
    return xp.abs(x)


def _frac_k(x, xp):
    if x.dtype.kind in 'biu':
        _not_impl('frac_cpu', x)
    return x - xp.trunc(x)


def _rounding(fname):
    def k(x, xp):
        if x.dtype.kind == 'c':
            raise NotImplementedError(f"{fname} is not supported for complex inputs")
        if x.dtype == np.bool_:
            _not_impl(f'{fname}_vml_cpu', x)
        if x.dtype.kind in 'iu':
            return x.copy()
        return getattr(xp, fname if fname != 'round' else 'rint')(x)
    return k


def _relu_k(x, xp):
    if x.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return xp.maximum(x, 0).astype(x.dtype)


def _rad_k(scale):
    def k(x, xp):
        return x * x.dtype.type(scale) if x.dtype.kind != 'V' else \
            (x.astype(np.float32) * np.float32(scale)).astype(x.dtype)
    return k


# 'f': int/bool inputs compute in the default float dtype; 'k': dtype kept
_UNARY = [
    # name, kernel, backward, save ('x' input, 'r' result, 'xr' both), kind,
    # complex backward, aliases, summary
    ('abs', _abs_k, AbsBackward0, 'x', 'k', True, ('absolute',), 'Absolute value.'),
    ('sign', _sign_k, SignBackward0, None, 'k', False, (), 'Sign (-1, 0 or 1) of each element.'),
    ('sgn', _sgn_k, SgnBackward0, 'xr', 'k', True, (),
     'Sign of real elements; ``z / |z|`` for complex ones (0 at 0).'),
    ('sqrt', lambda x, xp: xp.sqrt(x), SqrtBackward0, 'r', 'f', True, (), 'Square root.'),
    ('rsqrt', lambda x, xp: 1 / xp.sqrt(x), RsqrtBackward0, 'r', 'f', True, (),
     'Reciprocal of the square root.'),
    ('reciprocal', lambda x, xp: xp.reciprocal(x), ReciprocalBackward0, 'r', 'f', True, (),
     '``1 / input``.'),
    ('exp', lambda x, xp: xp.exp(x), ExpBackward0, 'r', 'f', True, (), 'Exponential ``e ** x``.'),
    ('exp2', lambda x, xp: xp.exp2(x), Exp2Backward0, 'r', 'f', True, (), '``2 ** x``.'),
    ('expm1', lambda x, xp: xp.expm1(x), Expm1Backward0, 'r', 'f', True, (),
     '``exp(x) - 1``, accurate for small ``x``.'),
    ('log', lambda x, xp: xp.log(x), LogBackward0, 'x', 'f', True, (), 'Natural logarithm.'),
    ('log2', lambda x, xp: xp.log2(x), Log2Backward0, 'x', 'f', True, (), 'Base-2 logarithm.'),
    ('log10', lambda x, xp: xp.log10(x), Log10Backward0, 'x', 'f', True, (),
     'Base-10 logarithm.'),
    ('log1p', lambda x, xp: xp.log1p(x), Log1PBackward0, 'x', 'f', True, (),
     '``log(1 + x)``, accurate for small ``x``.'),
    ('sin', lambda x, xp: xp.sin(x), SinBackward0, 'x', 'f', True, (), 'Sine.'),
    ('cos', lambda x, xp: xp.cos(x), CosBackward0, 'x', 'f', True, (), 'Cosine.'),
    ('tan', lambda x, xp: xp.tan(x), TanBackward0, 'r', 'f', True, (), 'Tangent.'),
    ('asin', lambda x, xp: xp.arcsin(x), AsinBackward0, 'x', 'f', True, ('arcsin',),
     'Inverse sine.'),
    ('acos', lambda x, xp: xp.arccos(x), AcosBackward0, 'x', 'f', True, ('arccos',),
     'Inverse cosine.'),
    ('atan', lambda x, xp: xp.arctan(x), AtanBackward0, 'x', 'f', True, ('arctan',),
     'Inverse tangent.'),
    ('sinh', lambda x, xp: xp.sinh(x), SinhBackward0, 'x', 'f', True, (), 'Hyperbolic sine.'),
    ('cosh', lambda x, xp: xp.cosh(x), CoshBackward0, 'x', 'f', True, (), 'Hyperbolic cosine.'),
    ('tanh', lambda x, xp: xp.tanh(x), TanhBackward0, 'r', 'f', True, (), 'Hyperbolic tangent.'),
    ('asinh', lambda x, xp: xp.arcsinh(x), AsinhBackward0, 'x', 'f', True, ('arcsinh',),
     'Inverse hyperbolic sine.'),
    ('acosh', lambda x, xp: xp.arccosh(x), AcoshBackward0, 'x', 'f', True, ('arccosh',),
     'Inverse hyperbolic cosine.'),
    ('atanh', lambda x, xp: xp.arctanh(x), AtanhBackward0, 'x', 'f', True, ('arctanh',),
     'Inverse hyperbolic tangent.'),
    ('sigmoid', _lowp(_sigmoid_k), SigmoidBackward0, 'r', 'f', True, (),
     'Logistic sigmoid ``1 / (1 + exp(-x))``.'),
    ('erf', _special_kernel(_special.erf), ErfBackward0, 'x', 'f', False, (), 'Error function.'),
    ('erfc', _special_kernel(_special.erfc), ErfcBackward0, 'x', 'f', False, (),
     'Complementary error function ``1 - erf(x)``.'),
    ('erfinv', _special_kernel(_special.erfinv), ErfinvBackward0, 'r', 'f', False, (),
     'Inverse error function.'),
    ('lgamma', _special_kernel(_special.lgamma), LgammaBackward0, 'x', 'f', False, (),
     'Log of the absolute value of the gamma function.'),
    ('digamma', _special_kernel(_special.digamma), DigammaBackward0, 'x', 'f', False, (),
     'Logarithmic derivative of the gamma function.'),
    ('floor', _rounding('floor'), FloorBackward0, None, 'k', False, (),
     'Largest integer not above each element.'),
    ('ceil', _rounding('ceil'), CeilBackward0, None, 'k', False, (),
     'Smallest integer not below each element.'),
    ('trunc', _rounding('trunc'), TruncBackward0, None, 'k', False, ('fix',),
     'Integer part (rounds toward zero).'),
    ('frac', _frac_k, FracBackward0, None, 'k', False, (), 'Fractional part ``x - trunc(x)``.'),
    ('deg2rad', _rad_k(math.pi / 180), Deg2RadBackward0, None, 'f', False, (),
     'Degrees to radians.'),
    ('rad2deg', _rad_k(180 / math.pi), Rad2DegBackward0, None, 'f', False, (),
     'Radians to degrees.'),
    ('relu', _relu_k, ReluBackward0, 'r', 'k', False, (), 'Rectified linear unit ``max(x, 0)``.'),
]


def _unary(input, name, kern, cls, save, kind, cgrad):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    x = input._data
    k = x.dtype.kind
    if kind == 'f' and k in 'biu':
        x = x.astype(D._default_dtype._np)
    xp = array_module(x)
    res = _w(_call(kern, x, xp), xp)
    if _Mode.grad and input._rg:
        if k == 'c' and not cgrad:
            _rg_complex(name, input)
        node = cls()
        record(res, node, (input,), save=None if save is None else (input,) if save == 'x'
               else (res,) if save == 'r' else (input, res))
    return res


def _make_unary(name, kern, cls, save, kind, cgrad, summary):
    def op(input, *, out=None):
        res = _unary(input, name, kern, cls, save, kind, cgrad)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}\n\n    Example::\n\n        >>> ember.{name}(ember.tensor([0.5, "
                  f"1.5]))\n    ")
    return op


_UNARY_FNS = {}
for _e in _UNARY:
    _fn = _make_unary(*_e[:6], _e[7])
    _UNARY_FNS[_e[0]] = _fn
    register(_e[0], aliases=_e[6])(_fn)
abs, sign, sgn, sqrt, exp, log, reciprocal = (
    _UNARY_FNS[n] for n in ('abs', 'sign', 'sgn', 'sqrt', 'exp', 'log', 'reciprocal'))
register('__abs__', function=False)(abs)


class LogitBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        d = g / (x * (-x + 1))
        eps = self.eps
        if eps is None:
            return d
        xa = x._data
        return _mask_zero(d, (xa < eps) | (xa > 1 - eps))


@register()
def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps`` the input is first clamped to ``[eps, 1 - eps]``.

    Example::

        >>> ember.logit(ember.tensor([0.25, 0.5]))
        tensor([-1.0986,  0.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'logit')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'logit', 'out', None)
    x = _float_arr(input._data)
    xp = array_module(x)
    if x.dtype.kind == 'c':
        _not_impl('logit_cpu', x)
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps).astype(x.dtype)
    res = _w(_call(lambda v: xp.log(v / (1 - v)), x), xp)
    if _needs(input):
        node = LogitBackward0()
        node.eps = eps
        record(res, node, (input,), save=(input,))
    return _out(res, out, 'logit')


class PolygammaBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * polygamma(self.n + 1, x)


@register(method=False)
def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function.

    Example::

        >>> ember.polygamma(1, ember.tensor([1., 2.]))
        tensor([1.6449, 0.6449])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'polygamma', 'out', None)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float_arr(input._data)
    if x.dtype.kind == 'c':
        _not_impl('polygamma', x)
    xp = array_module(x)
    r = _call(_special.polygamma, n, x.astype(np.float64))
    res = _w(_call(r.astype, x.dtype), xp)
    if _needs(input):
        node = PolygammaBackward0() if n else DigammaBackward0()
        node.n = n
        record(res, node, (input,), save=(input,))
    return _out(res, out, 'polygamma')


def _polygamma_method(self, n):
    """``polygamma(n, self)``: the ``n``-th derivative of the digamma function.

    Example::

        >>> ember.tensor([1., 2.]).polygamma(1)
        tensor([1.6449, 0.6449])
    """
    return polygamma(n, self)


register('polygamma', function=False)(_polygamma_method)


@register()
def round(input, *, decimals=0, out=None):
    """Rounds to the nearest integer (halves to even), or to ``decimals`` decimal places.

    Example::

        >>> ember.round(ember.tensor([0.5, 1.5, 1.26]), decimals=1)
        tensor([0.5000, 1.5000, 1.3000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'round')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'round', 'out', None)
    if decimals == 0:
        res = _unary(input, 'round', _rounding('round'), RoundBackward0, None, 'k', False)
        return _out(res, out, 'round')
    x = input._data
    if x.dtype.kind in 'biuc':
        _not_impl('round_cpu', x)
    xp = array_module(x)
    f = x.dtype.type(10.0 ** decimals) if x.dtype.kind != 'V' else np.float32(10.0 ** decimals)
    if decimals > 0:
        r = xp.rint(x * f) / f
    else:
        f = x.dtype.type(10.0 ** -decimals)
        r = xp.rint(x / f) * f
    res = _w(_call(lambda v: v, r).astype(x.dtype), xp)
    if _needs(input):
        record(res, RoundBackward1(), (input,))
    return _out(res, out, 'round')


class NanToNumBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return _mask_zero(g, ~array_module(x._data).isfinite(x._data))


@register()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replaces NaN with ``nan``, +inf with ``posinf`` and -inf with ``neginf`` (default: the
    dtype's largest and lowest finite values).

    Example::

        >>> ember.nan_to_num(ember.tensor([float('nan'), 1.]))
        tensor([0., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nan_to_num')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'nan_to_num', 'out', None)
    x = input._data
    xp = array_module(x)
    if x.dtype.kind in 'biu':
        res = wrap(x.copy())
    elif x.dtype.kind == 'c':
        res = wrap(xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf))
    else:
        fi = D.finfo(D._NP2DT[x.dtype])
        r = x.copy()
        r[xp.isnan(x)] = nan
        r[xp.isposinf(x)] = fi.max if posinf is None else posinf
        r[xp.isneginf(x)] = fi.min if neginf is None else neginf
        res = wrap(r)
    if _needs(input):
        record(res, NanToNumBackward0(), (input,), save=(input,))
    return _out(res, out, 'nan_to_num')


# ------------------------------------------------------------------ binary math
def _bin_float(name, input, other, allow_int=True):
    """Promoted arrays of a floating binary op (integers give the default float dtype)."""
    x, y, xp = _bin(input, other)
    if x.dtype.kind in 'biu':
        if not allow_int:
            _not_impl(f'{name}_cpu', x)
        x, y = _float_arr(x), _float_arr(y)
    elif x.dtype.kind == 'c':
        _not_impl(f'{name}_cpu', x)
    return x, y, xp


def _bin_record(res, cls, input, other, save):
    if _needs(input, other):
        node = cls()
        # per operand, scalars included (``needs`` counts only the tensor inputs)
        node.needs_xy = (isinstance(input, Tensor) and input._rg,
                         isinstance(other, Tensor) and other._rg)
        ins = tuple(v for v in (input, other) if isinstance(v, Tensor))
        node.keep = None if len(ins) == 2 else 0 if isinstance(input, Tensor) else 1
        node.scalars = (input, other)
        record(res, node, ins, save=tuple(v if isinstance(v, Tensor) else None for v in save))


def _pick(node, gx, gy):
    """The gradients for the tensor inputs of a binary node (scalars have no edge)."""
    k = node.keep
    return (gx, gy) if k is None else (gx if k == 0 else gy)


def _both(node):
    """Saved (x, y) of a binary node, with Python scalars standing in for non-tensors."""
    x, y = node.saved_tensors[:2]
    s = node.scalars
    return (x if isinstance(s[0], Tensor) else s[0]), (y if isinstance(s[1], Tensor) else s[1])


class Atan2Backward0(Node):
    def backward(self, g):
        x, y = _both(self)
        d = x * x + y * y
        return _pick(self, g * y / d if self.needs_xy[0] else None,
                     g * -x / d if self.needs_xy[1] else None)


@register(aliases=('arctan2',))
def atan2(input, other, *, out=None):
    """Element-wise ``atan(input / other)`` choosing the quadrant by both signs.

    Example::

        >>> ember.atan2(ember.tensor([1., -1.]), ember.tensor([1., 1.]))
        tensor([ 0.7854, -0.7854])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'atan2', 'out', None)
    _req2('atan2', input, other)
    x, y, xp = _bin_float('atan2', input, other)
    res = _w(_call(xp.arctan2, x, y), xp)
    _bin_record(res, Atan2Backward0, input, other, (input, other))
    return _out(res, out, 'atan2')


class HypotBackward0(Node):
    def backward(self, g):
        x, y, r = self.saved_tensors
        return _pick(self, g * x / r if self.needs_xy[0] else None,
                     g * y / r if self.needs_xy[1] else None)


@register()
def hypot(input, other, *, out=None):
    """``sqrt(input ** 2 + other ** 2)`` without overflow.

    Example::

        >>> ember.hypot(ember.tensor([3.]), ember.tensor([4.]))
        tensor([5.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'hypot', 'out', None)
    _req2('hypot', input, other)
    x, y, xp = _bin_float('hypot', input, other, allow_int=False)
    res = _w(_call(xp.hypot, x, y), xp)
    _bin_record(res, HypotBackward0, input, other, (input, other, res))
    return _out(res, out, 'hypot')


class LogaddexpBackward0(Node):
    def backward(self, g):
        x, y = _both(self)
        return _pick(self, (g / ((y - x).exp() + 1)) if self.needs_xy[0] else None,
                     (g / ((x - y).exp() + 1)) if self.needs_xy[1] else None)


class Logaddexp2Backward0(Node):
    def backward(self, g):
        x, y = _both(self)
        return _pick(self, (g / ((y - x).exp2() + 1)) if self.needs_xy[0] else None,
                     (g / ((x - y).exp2() + 1)) if self.needs_xy[1] else None)


@register()
def logaddexp(input, other, *, out=None):
    """``log(exp(input) + exp(other))`` computed stably.

    Example::

        >>> ember.logaddexp(ember.tensor([0.]), ember.tensor([0.]))
        tensor([0.6931])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'logaddexp', 'out', None)
    _req2('logaddexp', input, other)
    x, y, xp = _bin_float('logaddexp', input, other, allow_int=False)
    res = _w(_call(xp.logaddexp, x, y), xp)
    _bin_record(res, LogaddexpBackward0, input, other, (input, other))
    return _out(res, out, 'logaddexp')


@register()
def logaddexp2(input, other, *, out=None):
    """``log2(2 ** input + 2 ** other)`` computed stably.

    Example::

        >>> ember.logaddexp2(ember.tensor([1.]), ember.tensor([1.]))
        tensor([2.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'logaddexp2', 'out', None)
    _req2('logaddexp2', input, other)
    x, y, xp = _bin_float('logaddexp2', input, other, allow_int=False)
    res = _w(_call(xp.logaddexp2, x, y), xp)
    _bin_record(res, Logaddexp2Backward0, input, other, (input, other))
    return _out(res, out, 'logaddexp2')


class CopysignBackward0(Node):
    def backward(self, g):
        x, r = self.saved_tensors
        xa = x._data
        q = _mask_zero(r / x, xa == 0)
        return g * q, (_zeros(g) if self.needs[1] else None)


class CopysignBackward1(Node):
    def backward(self, g):
        x, r = self.saved_tensors
        return (g * _mask_zero(r / x, x._data == 0),)


@register()
def copysign(input, other, *, out=None):
    """The magnitude of ``input`` with the sign of ``other`` (float result).

    Example::

        >>> ember.copysign(ember.tensor([1., -2.]), -1.)
        tensor([-1., -2.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'copysign', 'out', None)
    _req('copysign', input, 'input', 1)
    x, y, xp = _bin_float('copysign', input, other)
    res = _w(_call(xp.copysign, x, y), xp)
    if _needs(input, other):
        if isinstance(other, Tensor):
            node = CopysignBackward0()
            record(res, node, (input, other), save=(input, res))
        else:
            record(res, CopysignBackward1(), (input,), save=(input, res))
    return _out(res, out, 'copysign')


class XlogyBackward0(Node):
    def backward(self, g):
        x, y = _both(self)
        gx = gy = None
        if self.needs_xy[0]:
            ya = y._data if isinstance(y, Tensor) else np.asarray(y)
            xa = x._data
            gx = _mask_zero(g * (y.log() if isinstance(y, Tensor) else _log_scalar(y)),
                            (xa == 0) & (ya <= 0))
        if self.needs_xy[1]:
            gy = g * x / y
        return _pick(self, gx, gy)


class XlogyBackward1(XlogyBackward0):   # scalar self
    pass


class XlogyBackward2(XlogyBackward0):   # scalar other
    pass


def _log_scalar(v):
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


@register()
def xlogy(input, other, *, out=None):
    """``input * log(other)``, with 0 where ``input`` is 0 (unless ``other`` is NaN).

    Example::

        >>> ember.xlogy(ember.tensor([0., 2.]), ember.tensor([0., 1.]))
        tensor([0., 0.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'xlogy', 'out', None)
    x, y, xp = _bin_float('xlogy', input, other)

    def k(a, b):
        r = a * xp.log(b)
        return xp.where((a == 0) & ~xp.isnan(b), 0, r).astype(r.dtype)
    res = _w(_call(k, x, y), xp)
    cls = XlogyBackward0 if isinstance(input, Tensor) and isinstance(other, Tensor) else \
        XlogyBackward1 if isinstance(other, Tensor) else XlogyBackward2
    _bin_record(res, _named(cls, cls.__name__), input, other,
                (input if isinstance(input, Tensor) else None,
                 other if isinstance(other, Tensor) else None))
    return _out(res, out, 'xlogy')


@register()
def heaviside(input, values, *, out=None):
    """Heaviside step: 0 where ``input < 0``, 1 where ``input > 0``, ``values`` where 0.

    Example::

        >>> ember.heaviside(ember.tensor([-1., 0., 2.]), ember.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'heaviside', 'out', None)
    _req2('heaviside', input, values, 'values')
    if input._data.shape != values._data.shape:
        check_broadcast(input._data.shape, values._data.shape)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x, v = input._data, values._data
    if x.dtype.kind == 'c':
        _not_impl('heaviside_cpu', x)
    xp = array_module(x)
    r = xp.where(x == 0, v, (x > 0)).astype(x.dtype)
    res = _w(r, xp)
    if _needs(input, values):
        _record_not_impl(res, 'heaviside', input, values)
    return _out(res, out, 'heaviside')


# ------------------------------------------------------------------ maximum / clamp
class MaximumBackward0(Node):
    # ties split the gradient; NaN positions pass it to both inputs (as PyTorch)
    def backward(self, g):
        x, y = self.saved_tensors
        xa, ya = x._data, y._data
        half = (xa == ya) * 0.5
        return ((g * _const(1 - (xa < ya) - half, g)) if self.needs[0] else None,
                (g * _const(1 - (xa > ya) - half, g)) if self.needs[1] else None)


class MinimumBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        xa, ya = x._data, y._data
        half = (xa == ya) * 0.5
        return ((g * _const(1 - (xa > ya) - half, g)) if self.needs[0] else None,
                (g * _const(1 - (xa < ya) - half, g)) if self.needs[1] else None)


class FmaxBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        xa, ya = x._data, y._data
        xp = array_module(xa)
        m = (xa >= ya) | xp.isnan(ya)
        return ((_mask_zero(g, ~m)) if self.needs[0] else None,
                (_mask_zero(g, m)) if self.needs[1] else None)


class FminBackward0(Node):
    def backward(self, g):
        x, y = self.saved_tensors
        xa, ya = x._data, y._data
        xp = array_module(xa)
        m = (xa <= ya) | xp.isnan(ya)
        return ((_mask_zero(g, ~m)) if self.needs[0] else None,
                (_mask_zero(g, m)) if self.needs[1] else None)


def _minmax(name, f, cls, input, other, out):
    _req(name, input, 'input', 1)
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    x, y, xp = _bin(input, other)
    if x.dtype.kind == 'c':
        raise RuntimeError(f"{name} not implemented for complex tensors.")
    res = _w(f(x, y), xp)
    if _needs(input, other):
        node = cls()
        record(res, node, (input, other), save=(input, other))
    return _out(res, out, name)


@register()
def maximum(input, other, *, out=None):
    """Element-wise maximum (NaN propagates).

    Example::

        >>> ember.maximum(ember.tensor([1., 5.]), ember.tensor([3., 2.]))
        tensor([3., 5.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'maximum', 'out', None)
    _req('maximum', input, 'input', 1)
    return _minmax('maximum', np.maximum if type(input._data) is _nd else
                   array_module(input._data).maximum, MaximumBackward0, input, other, out)


@register()
def minimum(input, other, *, out=None):
    """Element-wise minimum (NaN propagates).

    Example::

        >>> ember.minimum(ember.tensor([1., 5.]), ember.tensor([3., 2.]))
        tensor([1., 2.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'minimum', 'out', None)
    _req('minimum', input, 'input', 1)
    return _minmax('minimum', array_module(input._data).minimum, MinimumBackward0, input,
                   other, out)


@register()
def fmax(input, other, *, out=None):
    """Element-wise maximum ignoring NaN (NaN only where both are NaN).

    Example::

        >>> ember.fmax(ember.tensor([1., float('nan')]), ember.tensor([3., 2.]))
        tensor([3., 2.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'fmax', 'out', None)
    _req('fmax', input, 'input', 1)
    return _minmax('fmax', array_module(input._data).fmax, FmaxBackward0, input, other, out)


@register()
def fmin(input, other, *, out=None):
    """Element-wise minimum ignoring NaN.

    Example::

        >>> ember.fmin(ember.tensor([1., float('nan')]), ember.tensor([3., 2.]))
        tensor([1., 2.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'fmin', 'out', None)
    _req('fmin', input, 'input', 1)
    return _minmax('fmin', array_module(input._data).fmin, FminBackward0, input, other, out)


class ClampBackward1(Node):       # scalar bounds
    def backward(self, g):
        (x,) = self.saved_tensors
        xa = x._data
        m = True
        if self.min is not None:
            m = xa >= self.min
        if self.max is not None:
            m = m & (xa <= self.max)
        return g * _const(m, g)


class ClampBackward0(Node):       # tensor bounds
    def backward(self, g):
        x, lo, hi = self.saved_tensors
        xa = x._data
        la = lo._data if lo is not None else None
        ha = hi._data if hi is not None else None
        gx = glo = ghi = None
        if self.needs[0]:
            m = True
            if la is not None:
                m = xa >= la
            if ha is not None:
                m = m & (xa <= ha)
            gx = g * _const(m, g)
        if self.needs[1]:
            m = xa < la
            if ha is not None:
                m = m & (la < ha)
            glo = g * _const(m, g)
        if self.needs[2]:
            m = xa > ha
            if la is not None:
                m = m | (ha < la)
            ghi = g * _const(m, g)
        return gx, glo, ghi


class ClampMinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _const(x._data >= self.min, g)


class ClampMaxBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _const(x._data <= self.max, g)


class ClampMinBackward1(Node):
    def backward(self, g):
        x, lo = self.saved_tensors
        xa, la = x._data, lo._data
        return ((g * _const(xa >= la, g)) if self.needs[0] else None,
                (g * _const(xa < la, g)) if self.needs[1] else None)


class ClampMaxBackward1(Node):
    def backward(self, g):
        x, hi = self.saved_tensors
        xa, ha = x._data, hi._data
        return ((g * _const(xa <= ha, g)) if self.needs[0] else None,
                (g * _const(xa > ha, g)) if self.needs[1] else None)


def _clamp_arrays(input, min, max):
    x = input._data
    if x.dtype.kind == 'c':
        raise NotImplementedError("clamp is not supported for complex types")
    ops = [input] + [v for v in (min, max) if v is not None]
    dt = D.result_type(*ops)._np
    xp = array_module(x)
    r = x.astype(dt) if x.dtype != dt else x

    def arr(v):
        if isinstance(v, Tensor):
            if v._data.shape != r.shape:
                check_broadcast(r.shape, v._data.shape)
            return v._data.astype(dt)
        return dt.type(v)
    if min is not None:
        r = xp.maximum(r, arr(min))
    if max is not None:
        r = xp.minimum(r, arr(max))
    if r is x:
        r = x.copy()
    return r, xp


@register(aliases=('clip',))
def clamp(input, min=None, max=None, *, out=None):
    """Clamps every element into ``[min, max]`` (either bound may be None, a number or a
    tensor). Where ``min > max`` the result is ``max``.

    Example::

        >>> ember.clamp(ember.tensor([-2., 0.5, 3.]), min=0., max=1.)
        tensor([0.0000, 0.5000, 1.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'clamp')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'clamp', 'out', None)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    r, xp = _clamp_arrays(input, min, max)
    res = _w(r, xp)
    if _needs(input, min, max):
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            lo = min if isinstance(min, Tensor) or min is None else \
                wrap(xp.asarray(min, dtype=r.dtype))
            hi = max if isinstance(max, Tensor) or max is None else \
                wrap(xp.asarray(max, dtype=r.dtype))
            node = ClampBackward0()
            record(res, node, (input, lo, hi), save=(input, lo, hi))
        else:
            node = ClampBackward1()
            node.min, node.max = min, max
            record(res, node, (input,), save=(input,))
    return _out(res, out, 'clamp')


@register()
def clamp_min(input, min, *, out=None):
    """``clamp(input, min=min)``.

    Example::

        >>> ember.clamp_min(ember.tensor([-1., 2.]), 0.)
        tensor([0., 2.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'clamp_min')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'clamp_min', 'out', None)
    r, xp = _clamp_arrays(input, min, None)
    res = _w(r, xp)
    if _needs(input, min):
        if isinstance(min, Tensor):
            node = ClampMinBackward1()
            record(res, node, (input, min), save=(input, min))
        else:
            node = ClampMinBackward0()
            node.min = min
            record(res, node, (input,), save=(input,))
    return _out(res, out, 'clamp_min')


@register()
def clamp_max(input, max, *, out=None):
    """``clamp(input, max=max)``.

    Example::

        >>> ember.clamp_max(ember.tensor([-1., 2.]), 0.)
        tensor([-1.,  0.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'clamp_max')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'clamp_max', 'out', None)
    r, xp = _clamp_arrays(input, None, max)
    res = _w(r, xp)
    if _needs(input, max):
        if isinstance(max, Tensor):
            node = ClampMaxBackward1()
            record(res, node, (input, max), save=(input, max))
        else:
            node = ClampMaxBackward0()
            node.max = max
            record(res, node, (input,), save=(input,))
    return _out(res, out, 'clamp_max')


# ------------------------------------------------------------------ lerp / addcmul / addcdiv
class LerpBackward0(Node):        # scalar weight
    def backward(self, g):
        w = self.weight
        return g * (1 - w), g * w


class LerpBackward1(Node):        # tensor weight
    def backward(self, g):
        a, b, w = self.saved_tensors
        n = self.needs
        return ((g * (-w + 1)) if n[0] else None, (g * w) if n[1] else None,
                (g * (b - a)) if n[2] else None)


@register()
def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``.

    Example::

        >>> ember.lerp(ember.tensor([0., 10.]), ember.tensor([10., 20.]), 0.5)
        tensor([ 5., 15.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'lerp')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'lerp', 'out', None)
    x, y = input._data, end._data
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected dtype {D._NP2DT[x.dtype]} for `end` but got dtype "
                           f"{D._NP2DT[y.dtype]}")
    if x.dtype.kind in 'biu':
        _not_impl('lerp_kernel_scalar' if not isinstance(weight, Tensor) else
                  'lerp_kernel_tensor', x)
    xp = array_module(x)
    tw = isinstance(weight, Tensor)
    w = weight._data if tw else x.dtype.type(weight)
    if tw and weight._data.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {D._NP2DT[x.dtype]} for `weight` but got dtype "
                           f"{D._NP2DT[weight._data.dtype]}")
    res = _w(_call(lambda: xp.where(xp.abs(w) < 0.5, x + w * (y - x),
                                    y - (y - x) * (1 - w)).astype(x.dtype)), xp)
    if _needs(input, end, weight):
        _rg_complex('lerp', input, end, weight)
        if tw:
            node = LerpBackward1()
            record(res, node, (input, end, weight),
                   save=(input if weight._rg else None, end if weight._rg else None,
                         weight if (input._rg or end._rg) else None))
        else:
            node = LerpBackward0()
            node.weight = weight
            record(res, node, (input, end))
    return _out(res, out, 'lerp')


class AddcmulBackward0(Node):
    def backward(self, g):
        t1, t2 = self.saved_tensors
        v = self.value
        n = self.needs
        return (g if n[0] else None, (g * _cj(t2 * v)) if n[1] else None,
                (g * _cj(t1 * v)) if n[2] else None)


class AddcdivBackward0(Node):
    def backward(self, g):
        t1, t2 = self.saved_tensors
        v = self.value
        n = self.needs
        return (g if n[0] else None, (g * _cj(v / t2)) if n[1] else None,
                (g * _cj(-t1 * v / (t2 * t2))) if n[2] else None)


def _three(name, input, t1, t2, value, f):
    dt = D.result_type(input, t1, t2)._np
    if dt == np.bool_ and name == 'addcmul':
        raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
    xp = array_module(input._data)
    a, b, c = (t._data.astype(dt) if t._data.dtype != dt else t._data for t in (input, t1, t2))
    if dt.kind in 'biu' and isinstance(value, float):
        value = int(value)   # PyTorch truncates a float value for integer tensors
    v = dt.type(value) if dt.kind != 'V' else value
    return _w(_call(f, a, b, c, v).astype(dt), xp)


@register()
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2``.

    Example::

        >>> ember.addcmul(ember.tensor([1.]), ember.tensor([2.]), ember.tensor([3.]), value=2)
        tensor([13.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addcmul')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addcmul', 'out', None)
    res = _three('addcmul', input, tensor1, tensor2, value, lambda a, b, c, v: a + v * b * c)
    if _needs(input, tensor1, tensor2):
        node = AddcmulBackward0()
        node.value = value
        record(res, node, (input, tensor1, tensor2),
               save=(tensor1 if tensor2._rg else None, tensor2 if tensor1._rg else None))
    return _out(res, out, 'addcmul')


@register()
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``.

    Example::

        >>> ember.addcdiv(ember.tensor([1.]), ember.tensor([6.]), ember.tensor([3.]), value=2)
        tensor([5.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addcdiv')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addcdiv', 'out', None)
    if tensor1._data.dtype.kind in 'biu' and tensor2._data.dtype.kind in 'biu':
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future  release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    res = _three('addcdiv', input, tensor1, tensor2, value, lambda a, b, c, v: a + v * b / c)
    if _needs(input, tensor1, tensor2):
        node = AddcdivBackward0()
        node.value = value
        record(res, node, (input, tensor1, tensor2), save=(tensor1, tensor2))
    return _out(res, out, 'addcdiv')


# ------------------------------------------------------------------ comparisons
def _cmp_op(name, f, ordered, summary):
    def op(input, other, *, out=None):
        _req(name, input, 'input', 1)
        x, y, xp = _bin(input, other)
        if ordered and x.dtype.kind == 'c':
            _not_impl(f'{name}_cpu', x)
        res = _w(f(x, y), xp)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}, element-wise, as a bool tensor.\n\n    Example::\n\n"
                  f"        >>> ember.{name}(ember.tensor([1, 2, 3]), 2)\n    ")
    return op


eq = _cmp_op('eq', np.equal, False, '``input == other``')
ne = _cmp_op('ne', np.not_equal, False, '``input != other``')
lt = _cmp_op('lt', np.less, True, '``input < other``')
le = _cmp_op('le', np.less_equal, True, '``input <= other``')
gt = _cmp_op('gt', np.greater, True, '``input > other``')
ge = _cmp_op('ge', np.greater_equal, True, '``input >= other``')
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
    res = _w(xp.signbit(x.astype(np.float32) if x.dtype.kind == 'V' else x), xp)
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
    x, y = input._data, other._data
    if x.shape != y.shape:
        check_broadcast(x.shape, y.shape)
    if x.dtype != y.dtype:
        raise RuntimeError(f"{_tname(x)} did not match {_tname(y)}")
    if x.dtype == np.bool_ or x.dtype.kind == 'V':
        x, y = x.astype(np.float32), y.astype(np.float32)
    xp = array_module(x)
    return _w(_call(xp.isclose, x, y, rtol, atol, equal_nan), xp)


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


# ------------------------------------------------------------------ logical / bitwise
def _logical(name, f):
    def op(input, other, *, out=None):
        _req2(name, input, other)
        x = input._data
        y = other._data
        if x.shape != y.shape:
            check_broadcast(x.shape, y.shape)
        xp = array_module(x)
        res = _w(f(x.astype(bool) if x.dtype != np.bool_ else x,
                   y.astype(bool) if getattr(y, 'dtype', None) != np.bool_ else y), xp)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Element-wise logical {name[8:].upper()} (non-zero is True), as a bool "
                  f"tensor.\n\n    Example::\n\n        >>> ember.{name}(ember.tensor([1, 0]), "
                  "ember.tensor([1, 1]))\n    ")
    return register(name)(op)


logical_and = _logical('logical_and', np.logical_and)
logical_or = _logical('logical_or', np.logical_or)
logical_xor = _logical('logical_xor', np.logical_xor)


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
    res = _w(x == 0, array_module(x))
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
        res = _w(f(x, y), xp)
        return res if out is None else _out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}, element-wise, of integer or bool tensors.\n\n    Example::\n\n"
                  f"        >>> ember.{name}(ember.tensor([12]), ember.tensor([10]))\n    ")
    return register(name, dunder=dunders)(op)


def _lshift(x, y):
    xp = array_module(x)
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    r = xp.left_shift(x, y)
    return xp.where(y >= x.dtype.itemsize * 8, 0, r).astype(r.dtype) if x.dtype.kind in 'iu' \
        else r


def _rshift(x, y):
    xp = array_module(x)
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    big = y >= x.dtype.itemsize * 8
    r = xp.right_shift(x, xp.where(big, x.dtype.itemsize * 8 - 1, y).astype(
        getattr(y, 'dtype', x.dtype)))
    return r


bitwise_and = _bitwise('bitwise_and', np.bitwise_and, 'bitwise_and', 'Bitwise AND',
                       ('__and__', '__rand__'))
bitwise_or = _bitwise('bitwise_or', np.bitwise_or, 'bitwise_or', 'Bitwise OR',
                      ('__or__', '__ror__'))
bitwise_xor = _bitwise('bitwise_xor', np.bitwise_xor, 'bitwise_xor', 'Bitwise XOR',
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
    return _out(_w(xp.invert(x), xp), out, 'bitwise_not')


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


# ------------------------------------------------------------------ in-place forms, dunders
def _make_inplace(fn, name):
    def f(self, *args, **kwargs):
        return inplace(self, fn, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    return f


# (op, in-place names; the first is the canonical one, names in _INPLACE_FUNCS are also
# ember.<name> functions like in PyTorch)
_INPLACE = [
    (add, ('add_', '__iadd__')), (sub, ('sub_', '__isub__', 'subtract_')),
    (mul, ('mul_', '__imul__', 'multiply_')),
    (div, ('div_', '__itruediv__', 'divide_', 'true_divide_')),
    (floor_divide, ('floor_divide_', '__ifloordiv__')), (remainder, ('remainder_', '__imod__')),
    (fmod, ('fmod_',)), (pow, ('pow_', '__ipow__')),
    (neg, ('neg_', 'negative_')), (square, ('square_',)), (logit, ('logit_',)),
    (_polygamma_method, ('polygamma_',)), (round, ('round_',)), (nan_to_num, ('nan_to_num_',)),
    (atan2, ('atan2_', 'arctan2_')), (hypot, ('hypot_',)), (copysign, ('copysign_',)),
    (xlogy, ('xlogy_',)), (heaviside, ('heaviside_',)), (clamp, ('clamp_', 'clip_')),
    (clamp_min, ('clamp_min_',)), (clamp_max, ('clamp_max_',)), (lerp, ('lerp_',)),
    (addcmul, ('addcmul_',)), (addcdiv, ('addcdiv_',)),
    (eq, ('eq_',)), (ne, ('ne_', 'not_equal_')), (lt, ('lt_', 'less_')),
    (le, ('le_', 'less_equal_')), (gt, ('gt_', 'greater_')), (ge, ('ge_', 'greater_equal_')),
    (logical_and, ('logical_and_',)), (logical_or, ('logical_or_',)),
    (logical_xor, ('logical_xor_',)), (logical_not, ('logical_not_',)),
    (bitwise_and, ('bitwise_and_', '__iand__')), (bitwise_or, ('bitwise_or_', '__ior__')),
    (bitwise_xor, ('bitwise_xor_', '__ixor__')), (bitwise_not, ('bitwise_not_',)),
    (bitwise_left_shift, ('bitwise_left_shift_', '__ilshift__')),
    (bitwise_right_shift, ('bitwise_right_shift_', '__irshift__')),
] + [(_UNARY_FNS[e[0]], (e[0] + '_',) + tuple(a + '_' for a in e[6])) for e in _UNARY]

_INPLACE_FUNCS = {
    'neg_', 'negative_', 'abs_', 'sqrt_', 'rsqrt_', 'square_', 'reciprocal_', 'exp_', 'exp2_',
    'expm1_', 'log_', 'log2_', 'log10_', 'log1p_', 'sin_', 'cos_', 'tan_', 'asin_', 'acos_',
    'atan_', 'arcsin_', 'arccos_', 'arctan_', 'sinh_', 'cosh_', 'tanh_', 'asinh_', 'acosh_',
    'atanh_', 'arcsinh_', 'arccosh_', 'arctanh_', 'sigmoid_', 'logit_', 'erf_', 'erfc_',
    'xlogy_', 'floor_', 'ceil_', 'round_', 'trunc_', 'fix_', 'frac_', 'clamp_', 'clip_',
    'clamp_min_', 'clamp_max_', 'nan_to_num_', 'deg2rad_', 'rad2deg_', 'relu_'}

def _make_fast_inplace(fn, name, ufunc):
    """In-place binary arithmetic with a direct ``ufunc(a, b, out=a)`` path when nothing
    requires grad and no promotion is involved (floating self, same-dtype tensor or
    Python number); everything else goes through the generic :func:`inplace`."""
    def f(self, other, *args, **kwargs):
        if not args and not kwargs and (not _Mode.grad or (
                not self._rg and not (isinstance(other, Tensor) and other._rg))):
            a = self._data
            if a.dtype.kind in 'fc':
                if isinstance(other, Tensor):
                    b = other._data
                    ok = b.dtype == a.dtype
                    if ok and other._st is not None and other._st is self._st:
                        _check_partial_overlap(self, other)
                else:
                    t = type(other)
                    b = other
                    ok = t is float or t is int or (t is complex and a.dtype.kind == 'c')
                if ok:
                    try:
                        ufunc(a, b, out=a)
                    except ValueError:
                        return inplace(self, fn, other)
                    st = self._st
                    if st is None:
                        st = self._storage_obj()
                    st._version += 1
                    return self
        return inplace(self, fn, other, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    return f


_FAST_INPLACE = {add: np.add, sub: np.subtract, mul: np.multiply}

for _fn, _names in _INPLACE:
    _f = (_make_fast_inplace(_fn, _names[0], _FAST_INPLACE[_fn]) if _fn in _FAST_INPLACE
          else _make_inplace(_fn, _names[0]))
    for _n in _names:
        register(_n, function=_n in _INPLACE_FUNCS)(_f)

for _c, _n in ((AddBackwardScalar, 'AddBackward0'), (SubBackwardScalar, 'SubBackward0'),
               (MulBackwardScalar, 'MulBackward0'), (DivBackwardScalar, 'DivBackward0'),
               (DivBackwardRScalar, 'MulBackward0'), (RsubBackward1, 'RsubBackward1')):
    _named(_c, _n)

register('__radd__', function=False)(_radd)
register('__rsub__', function=False)(_rsub)
register('__rtruediv__', function=False)(_rdiv)
register('__rdiv__', function=False)(_rdiv)
register('__div__', function=False)(div)
register('__idiv__', function=False)(_make_inplace(div, 'div_'))
register('__rfloordiv__', function=False)(_rfloordiv)
register('__rmod__', function=False)(_rmod)
register('__rpow__', function=False)(_rpow)
register('__rlshift__', function=False)(_rlshift)
register('__rrshift__', function=False)(_rrshift)
register('rsub', method=False)(rsub)
register('__invert__', function=False)(_invert)


# PyTorch's names of what each node saves, by position (grad_fn._saved_<name>)
def _name_saved(table):
    g = globals()
    for names, classes in table.items():
        for c in classes.split():
            g[c]._saved_names = names


_name_saved({
    ('self', 'other'): 'MulBackward0 DivBackward0 RemainderBackward1 FmodBackward1 '
                       'MaximumBackward0 MinimumBackward0 FmaxBackward0 FminBackward0',
    ('self',): 'PowBackward0 AbsBackward0 LogBackward0 Log2Backward0 Log10Backward0 '
               'Log1PBackward0 SinBackward0 CosBackward0 AsinBackward0 AcosBackward0 '
               'AtanBackward0 SinhBackward0 CoshBackward0 AsinhBackward0 AcoshBackward0 '
               'AtanhBackward0 ErfBackward0 ErfcBackward0 LgammaBackward0 DigammaBackward0 '
               'LogitBackward0 PolygammaBackward0 NanToNumBackward0 ClampBackward1 '
               'ClampMinBackward0 ClampMaxBackward0',
    ('result',): 'PowBackward2 SqrtBackward0 RsqrtBackward0 ReciprocalBackward0 ExpBackward0 '
                 'Exp2Backward0 Expm1Backward0 TanBackward0 TanhBackward0 SigmoidBackward0 '
                 'ErfinvBackward0 ReluBackward0',
    ('self', 'exponent', 'result'): 'PowBackward1',
    ('self', 'result'): 'SgnBackward0 CopysignBackward0 CopysignBackward1',
    ('self', 'other', 'result'): 'HypotBackward0',
    ('self', 'min', 'max'): 'ClampBackward0',
    ('self', 'min'): 'ClampMinBackward1',
    ('self', 'max'): 'ClampMaxBackward1',
    ('self', 'end', 'weight'): 'LerpBackward1',
    ('tensor1', 'tensor2'): 'AddcmulBackward0 AddcdivBackward0',
})
