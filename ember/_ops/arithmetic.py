"""Arithmetic: add, sub, mul, div, floor_divide, remainder, fmod, pow/float_power,
the binary math functions (atan2, hypot, logaddexp, xlogy, copysign, heaviside, ...),
maximum/minimum/clamp, lerp/addcmul/addcdiv. ``int / int`` is float, as in PyTorch.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion and has ``out=`` where PyTorch has it; its in-place
``op_`` form and dunders are bound in ``pointwise.py``. Each op's backward class stands
right above its forward."""
from . import _args
import cmath
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode
from ..autograd.graph import _named
from ._util import wrap, Node, register, record, check_broadcast, result_type
from .._backend import array_module
from ._pointwise_common import (_nd, _ign, _bin, _bin_n, _w, _wn, _call, _needs, _req, _req2,
    _not_impl, _float_arr, _rg_complex, _cj, _zeros, _const, _mask_zero, _record_not_impl,
    _out)
from .unary import reciprocal

_I64 = 1 << 63


def _int_tensor(t):
    return isinstance(t, Tensor) and t.dtype._cat == 1


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
    if alpha.__class__ is int and not -(1 << 63) <= alpha < (1 << 64):   # #ARGCHK
        raise OverflowError("int too big to convert")
    if alpha.__class__ is bool and x.dtype.kind != 'b':
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if x.dtype.kind in 'biu' and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if y.dtype.kind in 'iu' and not isinstance(alpha, (bool, float, complex)):
        # torch converts alpha to the integer dtype (checked; an unsigned dtype wraps
        # negatives: -3 is 253 for uint8)
        alpha = y.dtype.type(_args.fill_value(int(alpha), D._NP2DT[y.dtype]))
        with np.errstate(over='ignore'):        # integer products wrap, as in torch
            r = y * alpha
    else:
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
    res = wrap(r) if r.__class__ is _nd and (r.ndim < 2 or (
        x.flags.c_contiguous and y.flags.c_contiguous and 1 not in r.shape and r.size)) else _w(r, xp, x, y)
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
    res = wrap(r) if r.__class__ is _nd and (r.ndim < 2 or (
        x.flags.c_contiguous and y.flags.c_contiguous and 1 not in r.shape and r.size)) else _w(r, xp, x, y)
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
        if not _Mode.grad and g.__class__ is Tensor and s.__class__ is float and \
                g._data.dtype.kind == 'f' and g._data.ndim:
            return wrap(g._data * s), None   # nothing to record: scale the array
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
    res = wrap(r) if r.__class__ is _nd and (r.ndim < 2 or (
        x.flags.c_contiguous and y.flags.c_contiguous and 1 not in r.shape and r.size)) else _w(r, xp, x, y)
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
    if not isinstance(rounding_mode, str):   # #ARGCHK
        raise TypeError(f"div() received an invalid combination of arguments - got "
                        f"rounding_mode={_args.type_name(rounding_mode)}, but expected one of "
                        "the documented signatures")
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
    if rounding_mode is None:
        # true division computes in floating point with the scalar's own value (an integer
        # operand of add/mul wraps into the tensor's dtype; one of ``/`` must not)
        if type(other) is int and -_I64 <= other < 2 * _I64 and _int_tensor(input):
            other = float(other)
        elif type(input) is int and -_I64 <= input < 2 * _I64 and _int_tensor(other):
            input = float(input)
    x, y, xp = _bin_n(input, other)
    r = _div_arrays(x, y, xp, rounding_mode)
    res = wrap(r) if r.__class__ is _nd and (r.ndim < 2 or (
        x.flags.c_contiguous and y.flags.c_contiguous and 1 not in r.shape and r.size)) else _w(r, xp, x, y)
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
    res = _w(r, xp, x, y)
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
    res = _w(_mod_arrays(x, y, xp, xp.remainder), xp, x, y)
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
    res = _w(_mod_arrays(x, y, xp, xp.fmod), xp, x, y)
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
    _args.checked_int_operand(input, exponent)
    _args.checked_int_operand(exponent, input)
    x, y, xp = _bin(input, exponent)
    # pow(Tensor, Scalar) is a unary kernel in PyTorch: its layout ignores the exponent
    res = _w(_pow_arrays(x, y, xp, input, exponent), xp, x,
             y if isinstance(exponent, Tensor) else None)
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


# ------------------------------------------------------------------ binary math
def _bin_float(name, input, other, allow_int=True, allow_complex=False):
    """Promoted arrays of a floating binary op (integers give the default float dtype)."""
    x, y, xp = _bin(input, other)
    if x.dtype.kind in 'biu':
        if not allow_int:
            _not_impl(f'{name}_cpu', x)
        x, y = _float_arr(x), _float_arr(y)
    elif x.dtype.kind == 'c' and not allow_complex:
        _not_impl(f'{name}_cpu', x)
    return x, y, xp


def _logaddexp_complex(x, y):
    """``log(exp(x) + exp(y))`` of complex arrays: the larger real part factored out, as
    torch; equal infinite real parts take the direct formula."""
    xp = array_module(x)
    x, y = xp.broadcast_arrays(x, y)
    big = x.real >= y.real
    m, s = xp.where(big, x, y), xp.where(big, y, x)
    with np.errstate(all='ignore'):
        r = m + xp.log1p(xp.exp(s - m))
        inf = xp.isinf(x.real) & (x.real == y.real)
        if inf.any():
            r = xp.where(inf, xp.log(xp.exp(x) + xp.exp(y)), r)
    return r.astype(x.dtype)


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
        recip = (x * x + y * y).reciprocal()
        recip = recip.masked_fill(recip.isinf(), 0)     # atan2(0, 0): gradient 0, as PyTorch
        return _pick(self, g * y * recip if self.needs_xy[0] else None,
                     g * -x * recip if self.needs_xy[1] else None)


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
    res = _w(_call(xp.arctan2, x, y), xp, x, y)
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
    res = _w(_call(xp.hypot, x, y), xp, x, y)
    _bin_record(res, HypotBackward0, input, other, (input, other, res))
    return _out(res, out, 'hypot')


class LogaddexpBackward0(Node):
    def backward(self, g):
        x, y = _both(self)
        gx = (1 / ((y - x).exp() + 1)) if self.needs_xy[0] else None
        gy = (1 / ((x - y).exp() + 1)) if self.needs_xy[1] else None
        if g.is_complex():      # holomorphic: g times the conjugate derivative
            gx, gy = (None if d is None else d.conj() for d in (gx, gy))
        return _pick(self, None if gx is None else g * gx, None if gy is None else g * gy)


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
    x, y, xp = _bin_float('logaddexp', input, other, allow_int=False, allow_complex=True)
    res = _w(_call(xp.logaddexp if x.dtype.kind != 'c' else _logaddexp_complex, x, y), xp, x, y)
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
    res = _w(_call(xp.logaddexp2, x, y), xp, x, y)
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
    res = _w(_call(xp.copysign, x, y), xp, x, y)
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
    res = _w(_call(k, x, y), xp, x, y)
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
    res = _w(r, xp, x, v)
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
    res = _w(f(x, y), xp, x, y)
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


def _keep(g, m):
    """The gradient ``g`` where boolean array ``m`` holds, 0 elsewhere (also where ``g`` is
    infinite or NaN, as PyTorch's clamp backward)."""
    xp = array_module(g._data)
    if m is True:
        return g
    return _mask_zero(g, xp.logical_not(m))


class ClampBackward1(Node):       # scalar bounds
    def backward(self, g):
        (x,) = self.saved_tensors
        xa = x._data
        m = True
        if self.min is not None:
            m = xa >= self.min
        if self.max is not None:
            m = m & (xa <= self.max)
        return _keep(g, m)


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
            gx = _keep(g, m)
        if self.needs[1]:
            m = xa < la
            if ha is not None:
                m = m & (la < ha)
            glo = _keep(g, m)
        if self.needs[2]:
            m = xa > ha
            if la is not None:
                m = m | (ha < la)
            ghi = _keep(g, m)
        return gx, glo, ghi


class ClampMinBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return _keep(g, x._data >= self.min)


class ClampMaxBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return _keep(g, x._data <= self.max)


class ClampMinBackward1(Node):
    def backward(self, g):
        x, lo = self.saved_tensors
        xa, la = x._data, lo._data
        return ((_keep(g, xa >= la)) if self.needs[0] else None,
                (_keep(g, xa < la)) if self.needs[1] else None)


class ClampMaxBackward1(Node):
    def backward(self, g):
        x, hi = self.saved_tensors
        xa, ha = x._data, hi._data
        return ((_keep(g, xa <= ha)) if self.needs[0] else None,
                (_keep(g, xa > ha)) if self.needs[1] else None)


def _clamp_arrays(input, min, max):
    x = input._data
    if x.dtype.kind == 'c':
        raise NotImplementedError("clamp is not supported for complex types")
    ops = [input] + [v for v in (min, max) if v is not None]
    dt = result_type(*ops)._np
    xp = array_module(x)
    r = x.astype(dt) if x.dtype != dt else x

    def arr(v):
        if isinstance(v, Tensor):
            if v._data.shape != r.shape:
                check_broadcast(r.shape, v._data.shape)
            return v._data.astype(dt)
        if type(v) is int and dt.kind in 'iu':
            # PyTorch converts the bound with a check (an unsigned dtype wraps negatives)
            v = _args.fill_value(v, D._NP2DT[dt])
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
    # clamp(Tensor, Scalar, Scalar) is a unary kernel in PyTorch: scalars do not count
    res = _wn(r, xp, input, *[v for v in (min, max) if isinstance(v, Tensor)])
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
    res = _wn(r, xp, input, *([min] if isinstance(min, Tensor) else []))
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
    res = _wn(r, xp, input, *([max] if isinstance(max, Tensor) else []))
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
        if isinstance(w, complex):      # lerp is holomorphic: g times the conjugate slope
            w = w.conjugate()
        return g * (1 - w), g * w


class LerpBackward1(Node):        # tensor weight
    def backward(self, g):
        a, b, w = self.saved_tensors
        n = self.needs
        w = w.conj() if w is not None and w.is_complex() else w
        d = (b - a) if n[2] else None
        d = d.conj() if d is not None and d.is_complex() else d
        return ((g * (-w + 1)) if n[0] else None, (g * w) if n[1] else None,
                (g * d) if n[2] else None)


@register()
def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``.

    Example::

        >>> ember.lerp(ember.tensor([0., 10.]), ember.tensor([10., 20.]), 0.5)
        tensor([ 5., 15.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'lerp')
    if not isinstance(end, Tensor) or not (isinstance(weight, Tensor) or
                                           type(weight) in (int, float, bool)):
        if not isinstance(end, Tensor) or not isinstance(weight, (int, float, complex, np.number)):
            _args.invalid('lerp', input, end, weight)
    if type(weight) is int:
        _args.number_overflow(weight)
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
    xc, yc, wc = x, y, w
    if x.dtype.kind in 'fV' and x.dtype.itemsize == 2:     # half: computed in float32
        f32 = np.dtype(np.float32)
        xc, yc = x.astype(f32), y.astype(f32)
        wc = w.astype(f32) if tw else np.float32(weight)
    res = _w(_call(lambda: xp.where(xp.abs(wc) < 0.5, xc + wc * (yc - xc),
                                    yc - (yc - xc) * (1 - wc)).astype(x.dtype)), xp, x, y)
    if _needs(input, end, weight):
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
    dt = result_type(input, t1, t2)._np
    if dt == np.bool_ and name == 'addcmul':
        raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
    xp = array_module(input._data)
    a, b, c = (t._data.astype(dt) if t._data.dtype != dt else t._data for t in (input, t1, t2))
    if dt.kind in 'biu' and isinstance(value, float):
        value = int(value)   # PyTorch truncates a float value for integer tensors
    v = dt.type(value) if dt.kind != 'V' else value
    return _wn(_call(f, a, b, c, v).astype(dt), xp, a, b, c)


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
