"""Unary math: abs, sqrt, exp/log families, trigonometric and hyperbolic functions,
sigmoid, erf family, lgamma/digamma/polygamma, rounding, relu, nan_to_num, ...
Backward formulas use the conjugate-Wirtinger convention for complex inputs.

Every op broadcasts, takes Python scalars for its tensor operands where PyTorch does,
follows PyTorch's type promotion and has ``out=`` where PyTorch has it; its in-place
``op_`` form and dunders are bound in ``pointwise.py``. Each op's backward class stands
right above its forward."""
from . import _args
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode
from ..autograd.graph import _named
from ._util import wrap, Node, register, record
from .._backend import array_module
from . import _special
from ._pointwise_common import (_w, _call, _needs, _tname, _not_impl, _float_arr, _rg_complex,
    _cj, _zeros, _const, _mask_zero, _out)


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
    res = _w(xp.negative(input._data), xp, input._data)
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
    res = _w(_call(kern, x, xp), xp, x)
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
    res = _w(_call(lambda v: xp.log(v / (1 - v)), x), xp, x)
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
    if n == 1 and x.dtype.itemsize <= 4:    # torch's single-precision kernel, its rounding
        r = _call(_special.trigamma_single, x)
    else:
        r = _call(_special.polygamma, n, x.astype(np.float64))
    res = _w(_call(r.astype, x.dtype), xp, x)
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
    res = _w(_call(lambda v: v, r).astype(x.dtype), xp, x)
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
