"""Special functions of ``torch.special`` that are not ops of another family: Bessel and
Airy functions, orthogonal polynomials, the normal-distribution functions (ndtr, log_ndtr,
ndtri), erfcx, entr, sinc, the incomplete gamma functions, the Hurwitz zeta function,
xlog1py and the multivariate log-gamma function, each with its backward node where PyTorch
differentiates it. The numerical kernels (float64, written with the input's array module)
live in ``_special``; every op computes in float64 and casts to the result dtype.

``ember.special`` binds these with the ops of other families that torch.special re-exports
(erf, digamma, softmax, ...). Also registered here: ``ember.i0``, ``sinc``, ``igamma``,
``igammac``, ``mvlgamma``, their in-place forms and Tensor methods."""
import math

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import _named
from ._util import Node, register, record, grad_needed
from .._backend import array_module
from . import _special as K
from . import _args
from ._pointwise_common import (_w, _call, _float_arr, _out, _make_inplace, _not_impl, _bin,
                                _mask_zero, _const)

__all__ = []

_SQ2PI = math.sqrt(2 * math.pi)
_2_SQPI = 2.0 / math.sqrt(math.pi)


def _f64(x):
    return x if x.dtype == np.float64 else x.astype(np.float64)


def _back(r, x):
    """Cast a float64 kernel result ``r`` to the dtype of array ``x``."""
    return r if r.dtype == x.dtype else r.astype(x.dtype)


def _kcall(kern, *arrays):
    """Run a float64 kernel of ``_special`` (0-d operands go through as 1-element arrays:
    the kernels index with boolean masks)."""
    arrays = [_f64(a) for a in arrays]
    if all(a.ndim == 0 for a in arrays):
        return _call(kern, *[a.reshape(1) for a in arrays]).reshape(())
    return _call(kern, *arrays)


def _check_out(out, fname):
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, fname, 'out', None)


def _unary_in(input, fname, arg, kname):
    """The floating array of a unary special op (integers/bool: default float dtype)."""
    if not isinstance(input, Tensor):
        _args.tensor(input, fname, arg)
    x = _float_arr(input._data)
    if x.dtype.kind == 'c':
        _not_impl(kname, x)
    return x


def _no_lowp(x, kname):
    """PyTorch's CPU kernels of most special functions have no float16/bfloat16 version."""
    if x.dtype == np.float16 or x.dtype.kind == 'V':
        _not_impl(kname, x)


def _unary(input, out, name, kern, fname=None, arg='input', kname=None, half=False):
    fname = fname or 'special_' + name
    _check_out(out, fname)
    x = _unary_in(input, fname, arg, kname or name + '_cpu')
    if not half:
        _no_lowp(x, kname or name + '_cpu')
    xp = array_module(x)
    return _w(_back(_kcall(kern, x), x), xp, x)


def _doc(summary, name, example, result):
    return (f"{summary}\n\n    Args:\n        input (Tensor): the input tensor.\n\n"
            f"    Keyword args:\n        out (Tensor, optional): the output tensor.\n\n"
            f"    Example::\n\n        >>> ember.special.{name}({example})\n"
            f"        {result}\n    ")


# --------------------------------------------------------------- non-differentiable unary
# (PyTorch records no autograd node for these: their results never require grad)
_PLAIN = [  # name, kernel, argument name in torch's signature, summary, example input
    ('airy_ai', K.airy_ai, 'x', 'Airy function Ai of the first kind.',
     'ember.tensor([-1., 0., 1.])', 'tensor([0.5356, 0.3550, 0.1353])'),
    ('bessel_j0', K.j0, 'input', 'Bessel function of the first kind of order 0.',
     'ember.tensor([0., 1., 2.5])', 'tensor([ 1.0000,  0.7652, -0.0484])'),
    ('bessel_j1', K.j1, 'input', 'Bessel function of the first kind of order 1.',
     'ember.tensor([0., 1., 2.5])', 'tensor([0.0000, 0.4401, 0.4971])'),
    ('bessel_y0', K.y0, 'input', 'Bessel function of the second kind of order 0 (nan for '
     'negative input).', 'ember.tensor([0.5, 1., 2.5])', 'tensor([-0.4445,  0.0883,  0.4981])'),
    ('bessel_y1', K.y1, 'input', 'Bessel function of the second kind of order 1 (nan for '
     'negative input).', 'ember.tensor([0.5, 1., 2.5])', 'tensor([-1.4715, -0.7812,  0.1459])'),
    ('modified_bessel_i0', K.i0, 'input',
     'Modified Bessel function of the first kind of order 0.', 'ember.tensor([0., 1., 2.5])',
     'tensor([1.0000, 1.2661, 3.2898])'),
    ('modified_bessel_i1', K.i1, 'input',
     'Modified Bessel function of the first kind of order 1.', 'ember.tensor([0., 1., 2.5])',
     'tensor([0.0000, 0.5652, 2.5167])'),
    ('modified_bessel_k0', K.k0, 'input',
     'Modified Bessel function of the second kind of order 0.', 'ember.tensor([0.5, 1., 2.5])',
     'tensor([0.9244, 0.4210, 0.0623])'),
    ('modified_bessel_k1', K.k1, 'input',
     'Modified Bessel function of the second kind of order 1.', 'ember.tensor([0.5, 1., 2.5])',
     'tensor([1.6564, 0.6019, 0.0739])'),
    ('scaled_modified_bessel_k0', K.k0e, 'x', '``exp(x) * modified_bessel_k0(x)``.',
     'ember.tensor([0.5, 1., 2.5])', 'tensor([1.5241, 1.1445, 0.7595])'),
    ('scaled_modified_bessel_k1', K.k1e, 'x', '``exp(x) * modified_bessel_k1(x)``.',
     'ember.tensor([0.5, 1., 2.5])', 'tensor([2.7310, 1.6362, 0.9002])'),
    ('spherical_bessel_j0', K.spherical_j0, 'x',
     'Spherical Bessel function of the first kind of order 0, ``sin(x) / x``.',
     'ember.tensor([0., 1., 2.5])', 'tensor([1.0000, 0.8415, 0.2394])'),
]


def _make_plain(name, kern, arg, summary, example, result):
    def op(input, *, out=None):
        return _out(_unary(input, out, name, kern, arg=arg), out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = _doc(summary, name, example, result)
    return op


for _e in _PLAIN:
    globals()[_e[0]] = _make_plain(*_e)


# --------------------------------------------------------------- modified Bessel I family
class I0Backward0(Node):
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        return g * i1(x)


@register()
def i0(input, *, out=None):
    """Modified Bessel function of the first kind of order 0, ``I0(input)``.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.i0(ember.arange(3, dtype=ember.float32))
        tensor([1.0000, 1.2661, 2.2796])
    """
    res = _unary(input, out, 'i0', K.i0, fname='i0', kname='i0_vml_cpu', half=True)
    if grad_needed(input):
        record(res, I0Backward0(), (input,), save=(input,))
    return _out(res, out, 'i0')


class SpecialI0EBackward0(Node):
    _saved_names = ('self', 'result')

    def backward(self, g):
        x, r = self.saved_tensors
        return g * (i1e(x) - x.sgn() * r)


def i0e(input, *, out=None):
    """Exponentially scaled modified Bessel function of order 0, ``exp(-|x|) * I0(x)``.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.i0e(ember.tensor([0., 1., 2.]))
        tensor([1.0000, 0.4658, 0.3085])
    """
    res = _unary(input, out, 'i0e', K.i0e, half=True)
    if grad_needed(input):
        record(res, SpecialI0EBackward0(), (input,), save=(input, res))
    return _out(res, out, 'i0e')


def _at_zero(x, d, value):
    """``d`` (a formula singular at x == 0) with ``value`` where ``x`` is 0."""
    z = x._data == 0
    if not z.any():
        return d
    return _mask_zero(d, z) + _const(z * value, d)


def _safe_x(x):
    """``x`` with 1 where it is 0 (a constant shift: the gradient is unchanged)."""
    z = x._data == 0
    return x + _const(z, x) if z.any() else x


class SpecialI1Backward0(Node):
    _saved_names = ('self', 'result')

    def backward(self, g):
        x, r = self.saved_tensors
        return g * _at_zero(x, i0(x) - r / _safe_x(x), 0.5)


def i1(input, *, out=None):
    """Modified Bessel function of the first kind of order 1, ``I1(input)``.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.i1(ember.tensor([0., 1., 2.]))
        tensor([0.0000, 0.5652, 1.5906])
    """
    res = _unary(input, out, 'i1', K.i1, half=True)
    if grad_needed(input):
        record(res, SpecialI1Backward0(), (input,), save=(input, res))
    return _out(res, out, 'i1')


class SpecialI1EBackward0(Node):
    _saved_names = ('self', 'result')

    def backward(self, g):
        x, r = self.saved_tensors
        return g * _at_zero(x, i0e(x) - r * (x.sgn() + 1 / _safe_x(x)), 0.5)


def i1e(input, *, out=None):
    """Exponentially scaled modified Bessel function of order 1, ``exp(-|x|) * I1(x)``.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.i1e(ember.tensor([0., 1., 2.]))
        tensor([0.0000, 0.2079, 0.2153])
    """
    res = _unary(input, out, 'i1e', K.i1e, half=True)
    if grad_needed(input):
        record(res, SpecialI1EBackward0(), (input,), save=(input, res))
    return _out(res, out, 'i1e')


# --------------------------------------------------------------- erfcx, normal distribution
class SpecialErfcxBackward0(Node):
    _saved_names = ('self', 'result')

    def backward(self, g):
        x, r = self.saved_tensors
        return g * (2.0 * x * r - _2_SQPI)


def erfcx(input, *, out=None):
    """Scaled complementary error function, ``exp(x ** 2) * erfc(x)`` (no overflow for
    large ``x``).

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.erfcx(ember.tensor([0., -1., 10.]))
        tensor([1.0000, 5.0090, 0.0561])
    """
    res = _unary(input, out, 'erfcx', K.erfcx)
    if grad_needed(input):
        record(res, SpecialErfcxBackward0(), (input,), save=(input, res))
    return _out(res, out, 'erfcx')


class MulBackward1(Node):
    """ndtr's node (torch composes ndtr, its grad_fn is the final product's)."""
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        return g * ((x * x) * -0.5).exp() * (1 / _SQ2PI)


def ndtr(input, *, out=None):
    """Area under the standard normal density from -inf to ``input`` (the normal CDF).

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.ndtr(ember.tensor([-3., -1., 0., 1., 3.]))
        tensor([0.0013, 0.1587, 0.5000, 0.8413, 0.9987])
    """
    res = _unary(input, out, 'ndtr', K.ndtr, kname='erf_vml_cpu', half=True)
    if grad_needed(input):
        record(res, MulBackward1(), (input,), save=(input,))
    return _out(res, out, 'ndtr')


class SpecialLogNdtrBackward0(Node):
    _saved_names = ('self', 'result')

    def backward(self, g):
        x, r = self.saved_tensors
        return g * (-(r + x * x * 0.5)).exp() * (1 / _SQ2PI)


def log_ndtr(input, *, out=None):
    """Log of the standard normal CDF, accurate far into both tails.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.log_ndtr(ember.tensor([-3., -1., 0., 1., 3.]))
        tensor([-6.6077e+00, -1.8410e+00, -6.9315e-01, -1.7275e-01, -1.3508e-03])
    """
    res = _unary(input, out, 'log_ndtr', K.log_ndtr)
    if grad_needed(input):
        record(res, SpecialLogNdtrBackward0(), (input,), save=(input, res))
    return _out(res, out, 'log_ndtr')


class SpecialNdtriBackward0(Node):
    _saved_names = ('result',)

    def backward(self, g):
        (r,) = self.saved_tensors
        return g * (r * r * 0.5).exp() * _SQ2PI


def ndtri(input, *, out=None):
    """Inverse of the standard normal CDF: the ``x`` with ``ndtr(x) == input``.

    Args:
        input (Tensor): probabilities in [0, 1] (nan outside).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.ndtri(ember.tensor([0., 0.25, 0.5, 0.75, 1.]))
        tensor([   -inf, -0.6745,  0.0000,  0.6745,     inf])
    """
    res = _unary(input, out, 'ndtri', K.ndtri)
    if grad_needed(input):
        record(res, SpecialNdtriBackward0(), (input,), save=(res,))
    return _out(res, out, 'ndtri')


class SpecialEntrBackward0(Node):
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        return g * -(1 + x.log())


def entr(input, *, out=None):
    """Elementwise entropy: ``-x * ln(x)`` for ``x > 0``, 0 at 0, ``-inf`` for ``x < 0``.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.entr(ember.tensor([-1., 0., 0.5, 1.]))
        tensor([  -inf, 0.0000, 0.3466, -0.0000])
    """
    res = _unary(input, out, 'entr', K.entr, half=True)
    if grad_needed(input):
        record(res, SpecialEntrBackward0(), (input,), save=(input,))
    return _out(res, out, 'entr')


# --------------------------------------------------------------- sinc
class SincBackward0(Node):
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        px = x * math.pi
        d = (px * px.cos() - px.sin()) / (px * _safe_x(x))
        d = _mask_zero(d, x._data == 0)
        return g * (d.conj() if x._data.dtype.kind == 'c' else d)


def _sinc_k(x, xp):
    # in the input's own precision, as PyTorch computes it
    pi = x.dtype.type(math.pi) if x.dtype.kind in 'fc' else math.pi
    p = x * pi
    ps = xp.where(x == 0, 1, p)
    return xp.where(x == 0, 1, xp.sin(ps) / ps).astype(x.dtype)


@register()
def sinc(input, *, out=None):
    """Normalized sinc, ``sin(pi * x) / (pi * x)`` (1 at 0); complex inputs too.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.sinc(ember.tensor([0., 0.5, 1.5]))
        tensor([ 1.0000,  0.6366, -0.2122])
    """
    _check_out(out, 'sinc')
    if not isinstance(input, Tensor):
        _args.tensor(input, 'sinc')
    x = _float_arr(input._data)
    xp = array_module(x)
    if x.dtype.kind == 'V':      # float16 / bfloat16 through float32
        r = _call(_sinc_k, x.astype(np.float32), xp).astype(x.dtype)
    else:
        r = _call(_sinc_k, x, xp)
    res = _w(r, xp, x)
    if grad_needed(input):
        record(res, SincBackward0(), (input,), save=(input,))
    return _out(res, out, 'sinc')


# --------------------------------------------------------------- mvlgamma
class MvlgammaBackward0(Node):
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        s = x.digamma()
        for i in range(1, self.p):
            s = s + (x - 0.5 * i).digamma()
        return g * s


@register()
def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma function of dimension ``p``:
    ``p (p - 1) / 4 * log(pi) + sum_{i < p} lgamma(input - i / 2)``.

    Args:
        input (Tensor): the input tensor.
        p (int): the dimension (>= 1).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.mvlgamma(ember.tensor([2.5, 3.]), p=2)
        tensor([0.8570, 1.5502])
    """
    return _mvlgamma(input, p, out, 'mvlgamma')


def _mvlgamma(input, p, out, fname):
    _check_out(out, fname)
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        _args._fail(fname, 'p', 2, 'int', p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float_arr(input._data)
    if x.dtype.kind == 'c':
        _not_impl('arange_cpu', x)
    xp = array_module(x)
    res = _w(_back(_kcall(lambda a: K.mvlgamma(a, int(p)), x), x), xp, x)
    if grad_needed(input):
        node = MvlgammaBackward0()
        node.p = int(p)
        record(res, node, (input,), save=(input,))
    return _out(res, out, 'mvlgamma')


def multigammaln(input, p, *, out=None):
    """Multivariate log-gamma function of dimension ``p`` (``ember.mvlgamma``).

    Args:
        input (Tensor): the input tensor.
        p (int): the dimension (>= 1).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.multigammaln(ember.tensor([2.5, 3.]), 2)
        tensor([0.8570, 1.5502])
    """
    return _mvlgamma(input, p, out, 'special_multigammaln')


# --------------------------------------------------------------- binary ops
def _binary_in(fname, kname, input, other, allow_int=True, scalars=True, args=None):
    """Promoted floating arrays of a binary special op and their array module."""
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    if not scalars:
        _args.tensor(input, fname, args[0], 1)
        _args.tensor(other, fname, args[1], 2)
    elif not (ti or to):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__})")
    x, y, xp = _bin(input, other)
    if x.dtype.kind in 'biu':
        if not allow_int:
            _not_impl(kname, x)
        x, y = _float_arr(x), _float_arr(y)
    elif x.dtype.kind == 'c':
        _not_impl(kname, x)
    return xp.asarray(x), xp.asarray(y), xp     # a number's array in the tensor's module


def _binary(name, kern, input, other, out, fname=None, kname=None, half=False, **kw):
    fname = fname or 'special_' + name
    _check_out(out, fname)
    x, y, xp = _binary_in(fname, kname or name + '_cpu', input, other, **kw)
    if not half:
        _no_lowp(x, kname or name + '_cpu')
    r = _kcall(kern, x, y)
    return _w(_back(r, x), xp, x, y)


def _rec2(res, cls, input, other, save):
    """Record a binary node on the tensor operands only (numbers have no edge)."""
    ins = tuple(v for v in (input, other) if isinstance(v, Tensor))
    node = cls()
    node.pos = tuple(i for i, v in enumerate((input, other)) if isinstance(v, Tensor))
    node.scalars = (input, other)
    record(res, node, ins, save=save)
    return node


def _operands(node):
    """(x, y): the saved tensors, or the numbers given in their place."""
    saved = iter(node.saved_tensors)
    return tuple(next(saved) if i in node.pos else node.scalars[i] for i in (0, 1))


def _needs2(node):
    n = dict(zip(node.pos, node.needs))
    return n.get(0, False), n.get(1, False)


def _grads2(node, gx, gy):
    g = (gx, gy)
    return tuple(g[i] for i in node.pos) if len(node.pos) > 1 else g[node.pos[0]]


class SpecialZetaBackward0(Node):
    def backward(self, g):
        x, q = _operands(self)
        nx, nq = _needs2(self)
        if nx:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        gq = g * -x * zeta(x + 1.0, q) if nq else None
        return _grads2(self, None, gq)


class SpecialZetaBackward1(SpecialZetaBackward0):   # number self
    pass


class SpecialZetaBackward2(SpecialZetaBackward0):   # number other
    pass


def zeta(input, other, *, out=None):
    """Hurwitz zeta function ``sum_{k >= 0} (other + k) ** -input`` (Riemann's at
    ``other = 1``). Either argument may be a number.

    Args:
        input (Tensor or Number): the exponent ``x`` (> 1).
        other (Tensor or Number): the shift ``q``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.zeta(ember.tensor([2., 4.]), 1.)
        tensor([1.6449, 1.0823])
    """
    res = _binary('zeta', K.zeta, input, other, out)
    if grad_needed(input, other):
        cls = SpecialZetaBackward0 if isinstance(input, Tensor) and isinstance(other, Tensor) \
            else SpecialZetaBackward1 if isinstance(other, Tensor) else SpecialZetaBackward2
        _rec2(res, cls, input, other, tuple(v for v in (input, other) if isinstance(v, Tensor)))
    return _out(res, out, 'zeta')


class SpecialXlog1PyBackward0(Node):
    def backward(self, g):
        x, y = _operands(self)
        nx, ny = _needs2(self)
        gx = gy = None
        if nx:
            if isinstance(y, Tensor):
                gx = _mask_zero(g * y.log1p(), (x._data == 0) & (y._data <= -1))
            else:
                ly = math.log1p(y) if y > -1 else (-math.inf if y == -1 else math.nan)
                gx = _mask_zero(g * ly, (x._data == 0) & (y <= -1))
        if ny:
            gy = g * x / (y + 1)
        return _grads2(self, gx, gy)


class SpecialXlog1PyBackward1(SpecialXlog1PyBackward0):   # number self
    pass


class SpecialXlog1PyBackward2(SpecialXlog1PyBackward0):   # number other
    pass


def _xlog1py_k(x, y):
    xp = array_module(x)
    r = x * xp.log1p(y)
    return xp.where((x == 0) & ~xp.isnan(y), 0.0, r)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, with 0 where ``input`` is 0 (unless ``other`` is nan).
    Either argument may be a number.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of ``log1p``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.xlog1py(ember.tensor([0., 2.]), ember.tensor([-1., 1.]))
        tensor([0.0000, 1.3863])
    """
    res = _binary('xlog1py', _xlog1py_k, input, other, out, half=True)
    if grad_needed(input, other):
        cls = SpecialXlog1PyBackward0 if isinstance(input, Tensor) and \
            isinstance(other, Tensor) else SpecialXlog1PyBackward1 if \
            isinstance(other, Tensor) else SpecialXlog1PyBackward2
        _rec2(res, cls, input, other, tuple(v for v in (input, other) if isinstance(v, Tensor)))
    return _out(res, out, 'xlog1py')


class IgammaBackward0(Node):
    _saved_names = ('self', 'other')
    sign = 1.0
    what = 'igamma'

    def backward(self, g):
        a, x = self.saved_tensors
        if self.needs[0]:
            raise NotImplementedError(f"the derivative for '{self.what}: input' is not "
                                      "implemented.")
        d = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, g * d * self.sign


class IgammacBackward0(IgammaBackward0):
    sign = -1.0
    what = 'igammac'


def _igamma(a, x, out, upper, fname):
    name = 'igammac' if upper else 'igamma'
    res = _binary(name, K.gammaincc if upper else K.gammainc, a, x, out, fname=fname,
                  allow_int=False, scalars=False, args=('input', 'other'), half=True)
    if grad_needed(a, x):
        record(res, IgammacBackward0() if upper else IgammaBackward0(), (a, x), save=(a, x))
    return _out(res, out, name)


@register()
def igamma(input, other, *, out=None):
    """Regularized lower incomplete gamma function ``P(input, other)``.

    Args:
        input (Tensor): the shape ``a`` (>= 0).
        other (Tensor): the upper limit ``x`` (>= 0).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.igamma(ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        tensor([0.6321, 0.2642])
    """
    return _igamma(input, other, out, False, 'igamma')


@register()
def igammac(input, other, *, out=None):
    """Regularized upper incomplete gamma function ``Q(input, other) = 1 - P``.

    Args:
        input (Tensor): the shape ``a`` (>= 0).
        other (Tensor): the lower limit ``x`` (>= 0).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.igammac(ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        tensor([0.3679, 0.7358])
    """
    return _igamma(input, other, out, True, 'igammac')


def gammainc(input, other, *, out=None):
    """Regularized lower incomplete gamma function (``ember.igamma``).

    Args:
        input (Tensor): the shape ``a`` (>= 0).
        other (Tensor): the upper limit ``x`` (>= 0).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.gammainc(ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        tensor([0.6321, 0.2642])
    """
    return _igamma(input, other, out, False, 'special_gammainc')


def gammaincc(input, other, *, out=None):
    """Regularized upper incomplete gamma function (``ember.igammac``).

    Args:
        input (Tensor): the shape ``a`` (>= 0).
        other (Tensor): the lower limit ``x`` (>= 0).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.gammaincc(ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        tensor([0.3679, 0.7358])
    """
    return _igamma(input, other, out, True, 'special_gammaincc')


# --------------------------------------------------------------- orthogonal polynomials
_POLY = [  # name, kernel kind, summary
    ('chebyshev_polynomial_t', 't', 'Chebyshev polynomial of the first kind', 'tensor([-1.,  1.])'),
    ('chebyshev_polynomial_u', 'u', 'Chebyshev polynomial of the second kind',
     'tensor([-1.,  4.])'),
    ('chebyshev_polynomial_v', 'v', 'Chebyshev polynomial of the third kind', 'tensor([-1.,  1.])'),
    ('chebyshev_polynomial_w', 'w', 'Chebyshev polynomial of the fourth kind',
     'tensor([-1.,  7.])'),
    ('shifted_chebyshev_polynomial_t', 'st',
     'Shifted Chebyshev polynomial of the first kind, ``T*_n(x) = T_n(2x - 1)``',
     'tensor([-0., 1.])'),
    ('shifted_chebyshev_polynomial_u', 'su',
     'Shifted Chebyshev polynomial of the second kind, ``U*_n(x) = U_n(2x - 1)``',
     'tensor([-0., 4.])'),
    ('shifted_chebyshev_polynomial_v', 'sv',
     'Shifted Chebyshev polynomial of the third kind, ``V*_n(x) = V_n(2x - 1)``',
     'tensor([1., 1.])'),
    ('shifted_chebyshev_polynomial_w', 'sw',
     'Shifted Chebyshev polynomial of the fourth kind, ``W*_n(x) = W_n(2x - 1)``',
     'tensor([-1.,  7.])'),
    ('hermite_polynomial_h', 'h', "Physicists' Hermite polynomial", 'tensor([-5., -4.])'),
    ('hermite_polynomial_he', 'he', "Probabilists' Hermite polynomial",
     'tensor([-1.3750, -2.0000])'),
    ('laguerre_polynomial_l', 'l', 'Laguerre polynomial', 'tensor([-0.1458, -0.6667])'),
    ('legendre_polynomial_p', 'p', 'Legendre polynomial', 'tensor([-0.4375,  1.0000])'),
]


def _make_poly(name, kind, summary, result):
    def kern(x, n):
        return K.orth_poly(kind, x, n)

    def op(input, n, *, out=None):
        return _out(_binary(name, kern, input, n, out), out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary} of degree ``n``, evaluated at ``input``.\n\n    The degree is truncated "
        f"to an integer; a negative (or non-finite) degree gives 0. PyTorch records no\n"
        f"    gradient for it.\n\n    Args:\n        input (Tensor or Number): the points.\n"
        f"        n (Tensor or Number): the degree.\n\n    Keyword args:\n"
        f"        out (Tensor, optional): the output tensor.\n\n    Example::\n\n"
        f"        >>> ember.special.{name}(ember.tensor([0.5, 1.]), 3)\n        {result}\n    ")
    return op


for _e in _POLY:
    globals()[_e[0]] = _make_poly(*_e)


# --------------------------------------------------------------- in-place forms
register('i0_')(_make_inplace(i0, 'i0_'))
register('sinc_')(_make_inplace(sinc, 'sinc_'))
register('igamma_', function=False)(_make_inplace(igamma, 'igamma_'))
register('igammac_', function=False)(_make_inplace(igammac, 'igammac_'))
register('mvlgamma_', function=False)(_make_inplace(mvlgamma, 'mvlgamma_'))

for _c in (MulBackward1,):
    _named(_c, _c.__name__)
