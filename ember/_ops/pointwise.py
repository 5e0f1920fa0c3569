"""Pointwise ops: arithmetic, math functions, comparisons, logical and bitwise ops.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion (``int / int`` is float, ``exp`` of an int tensor is the
default float dtype, comparisons give bool) and has its in-place ``op_`` form and
``out=`` where PyTorch has them. Each op's backward class stands right above its forward.
Backward formulas use the conjugate-Wirtinger convention for complex inputs
(``grad * conj(f'(z))`` for holomorphic ``f``)."""
import cmath
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, inplace, _legacy_name
from ..autograd.graph import _named
from ._util import wrap, Node, register, binary_arrays, binary, record, _Upcast
from .._backend import array_module
from . import _special

_nd = np.ndarray
_ign = np.errstate(all='ignore')     # decorator: PyTorch never warns on inf/nan results


def _bin(a, b):
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)


def _w(r, xp=np):
    """Wrap a ufunc result (numpy gives scalars for 0-d inputs) as a fresh tensor."""
    return wrap(r if r.__class__ is _nd else xp.asarray(r))


@_ign
def _call(f, *args):
    return f(*args)


def _needs(*ts):
    """True when grad mode is on and a tensor among ``ts`` requires grad."""
    if not _Mode.grad:
        return False
    for t in ts:
        if isinstance(t, Tensor) and t._rg:
            return True
    return False


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
        raise RuntimeError(f"the derivative for '{self.op}' is not implemented.")


_named(_NotImplementedBackward, 'torch::autograd::NotImplemented')


def _record_not_impl(res, name, *ins):
    ts = tuple(t for t in ins if isinstance(t, Tensor))
    node = _NotImplementedBackward()
    node.op = name
    record(res, node, ts)


def _out(res, out, name='add'):
    """Implements ``out=``: write ``res`` into ``out`` (resizing it when its shape differs)."""
    if out is None:
        return res
    if _Mode.grad and (res._rg or out._rg):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    rd, od = D._NP2DT[res._data.dtype], D._NP2DT[out._data.dtype]
    if rd._cat > od._cat:
        raise RuntimeError(f"result type {_legacy_name(rd) if rd._cat != 1 else 'Long'} can't "
                           f"be cast to the desired output type {_legacy_name(od)}")
    if out._data.shape != res._data.shape:
        if out._data.size:
            import warnings
            warnings.warn("An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(res._data.shape)}. This behavior is deprecated, and in "
                          "a future PyTorch release outputs will not be resized unless they "
                          "have zero elements.", UserWarning, stacklevel=3)
        out._data = array_module(out._data).empty(res._data.shape, out._data.dtype)
        out._st = None
        out._base = None
    out._data[...] = res._data
    out._storage_obj()._version += 1
    return out


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


def _scale_alpha(y, x, alpha):
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
    x, y, xp = _bin(input, other)
    if alpha != 1:
        y = _scale_alpha(y, x, alpha)
    r = xp.add(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        _record_binary(res, input, other, AddBackward0, AddBackwardScalar, alpha=alpha)
    return res if out is None else _out(res, out, 'add')


def _radd(self, other):
    return add(other, self)


@register(dunder=('__sub__',), aliases=('subtract',))
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
        y = _scale_alpha(y, x, alpha)
    r = xp.subtract(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        if isinstance(input, Tensor):
            _record_binary(res, input, other, SubBackward0, SubBackwardScalar, alpha=alpha)
        else:
            node = RsubBackward1()
            node.alpha = alpha
            record(res, node, (other,))
    return res if out is None else _out(res, out, 'sub')


def _rsub(self, other):
    return sub(other, self)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``.

    Example::

        >>> ember.rsub(ember.tensor([1., 2.]), 10)
        tensor([9., 8.])
    """
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
        return (g * (s.conjugate() if isinstance(s, complex) else s),)


@register(dunder=('__mul__', '__rmul__'), aliases=('multiply',))
def mul(input, other, *, out=None):
    """``input * other``, broadcasting.

    Example::

        >>> ember.mul(ember.tensor([1, 2]), 3)
        tensor([3, 6])
    """
    x, y, xp = _bin(input, other)
    r = xp.multiply(x, y)
    res = wrap(r if r.__class__ is _nd else xp.asarray(r))
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
    return res if out is None else _out(res, out, 'mul')


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
        return (g / (s.conjugate() if isinstance(s, complex) else s),)


class DivBackwardRScalar(Node):   # scalar / tensor (PyTorch: reciprocal * scalar)
    def backward(self, g):
        (b,) = self.saved_tensors
        s = self.scalar
        return (-g * _cj(s / (b * b)),)


class DivBackward2(Node):          # rounding division: piecewise constant
    def backward(self, g):
        z = _zeros(g)
        return (z, z) if self.n == 2 else z


def _check_zero_div(y):
    if (y == 0).any():
        raise RuntimeError("ZeroDivisionError")


def _int_trunc_div(x, y, xp):
    q = xp.floor_divide(x, y)
    r = x - q * y
    fix = (r != 0) & ((r < 0) != (y < 0))
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
            _check_zero_div(y)
            if k == 'b':
                return xp.floor_divide(x, y)
            return _int_trunc_div(x, y, xp)
        return xp.trunc(xp.true_divide(x, y))
    if rounding_mode == 'floor':
        if k in 'biu':
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
    x, y, xp = _bin(input, other)
    r = _div_arrays(x, y, xp, rounding_mode)
    res = wrap(r if r.__class__ is _nd else xp.asarray(r))
    if _Mode.grad and ((isinstance(input, Tensor) and input._rg) or (isinstance(other, Tensor) and other._rg)):
        ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
        if rounding_mode is not None:
            node = DivBackward2()
            ins = tuple(t for t in (input, other) if isinstance(t, Tensor))
            node.n = len(ins)
            record(res, node, ins)
        elif ta and tb:
            node = DivBackward0()
            node.needs = (input._rg, other._rg)
            record(res, node, (input, other), save=(input if other._rg else None, other))
        elif ta:
            node = DivBackwardScalar()
            node.scalar = other
            record(res, node, (input,))
        else:
            node = DivBackwardRScalar()
            node.scalar = input
            record(res, node, (other,), save=(other,))
    return res if out is None else _out(res, out, 'div')


def _rdiv(self, other):
    return div(other, self)


@register(dunder=('__floordiv__',))
def floor_divide(input, other, *, out=None):
    """``input / other`` rounded down (integer inputs stay integer).

    Example::

        >>> ember.floor_divide(ember.tensor([-5., 7.]), 2)
        tensor([-3.,  3.])
    """
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
            node.needs = (input._rg, exponent._rg)
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
        return g * _const(r._data > 0, g)


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
    return xp.sign(x)


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
        if x.dtype.kind in 'biu':
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
    register(_e[0], aliases=_e[6], function=_e[0] != 'relu' or True)(_fn)
abs, sign, sgn, sqrt, exp, log = (_UNARY_FNS[n] for n in ('abs', 'sign', 'sgn', 'sqrt', 'exp', 'log'))
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
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float_arr(input._data)
    if x.dtype.kind == 'c':
        _not_impl('polygamma', x)
    xp = array_module(x)
    r = _call(_special.polygamma, n, x.astype(np.float64))
    res = _w(r.astype(x.dtype), xp)
    if _needs(input):
        node = PolygammaBackward0() if n else DigammaBackward0()
        node.n = n
        record(res, node, (input,), save=(input,))
    return _out(res, out, 'polygamma')


def _polygamma_method(self, n):
    """See :func:`ember.polygamma`."""
    return polygamma(n, self)


register('polygamma', function=False)(_polygamma_method)


@register()
def round(input, *, decimals=0, out=None):
    """Rounds to the nearest integer (halves to even), or to ``decimals`` decimal places.

    Example::

        >>> ember.round(ember.tensor([0.5, 1.5, 1.26]), decimals=1)
        tensor([0.5000, 1.5000, 1.3000])
    """
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
