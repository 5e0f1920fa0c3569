"""``ember.special``: PyTorch's ``torch.special`` namespace.

Special mathematical functions: Bessel functions (``bessel_j0``, ``modified_bessel_k1``,
...), the Airy function, orthogonal polynomials (Chebyshev, Hermite, Laguerre, Legendre),
the error and gamma families (``erfcx``, ``gammaln``, ``gammainc``, ``polygamma``,
``multigammaln``, ...), the normal distribution (``ndtr``, ``log_ndtr``, ``ndtri``) and a
few conveniences (``expit``, ``logit``, ``xlog1py``, ``softmax``, ...).

Functions that are also ``ember.<name>`` ops (``erf``, ``digamma``, ``i0``, ``xlogy``,
``round``, ...) are the same op, defined once; the others live in
``ember/_ops/special.py``. Every function computes in float64 internally and returns the
input's floating dtype (integer inputs give the default float dtype), with gradients
where PyTorch defines them.

Example::

    >>> import ember
    >>> ember.special.bessel_j0(ember.tensor([0., 1., 2.]))
    tensor([1.0000, 0.7652, 0.2239])
"""
from ._ops import special as _s
from ._ops import unary as _u
from ._ops import arithmetic as _a
from ._ops import activation as _act
from ._ops import reduction as _r
from ._ops._util import write_out as _write_out
from ._ops import _dispatch
from ._ops._pointwise_common import _not_impl
from ._tensor import Tensor as _Tensor

__all__ = [
    'airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1',
    'chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v',
    'chebyshev_polynomial_w', 'digamma', 'entr', 'erf', 'erfc', 'erfcx', 'erfinv', 'exp2',
    'expit', 'expm1', 'gammainc', 'gammaincc', 'gammaln', 'hermite_polynomial_h',
    'hermite_polynomial_he', 'i0', 'i0e', 'i1', 'i1e', 'laguerre_polynomial_l',
    'legendre_polynomial_p', 'log1p', 'log_ndtr', 'log_softmax', 'logit', 'logsumexp',
    'modified_bessel_i0', 'modified_bessel_i1', 'modified_bessel_k0', 'modified_bessel_k1',
    'multigammaln', 'ndtr', 'ndtri', 'polygamma', 'psi', 'round', 'scaled_modified_bessel_k0',
    'scaled_modified_bessel_k1', 'shifted_chebyshev_polynomial_t',
    'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
    'shifted_chebyshev_polynomial_w', 'sinc', 'softmax', 'spherical_bessel_j0', 'xlog1py',
    'xlogy', 'zeta',
]

# ops of this family
airy_ai = _s.airy_ai
bessel_j0 = _s.bessel_j0
bessel_j1 = _s.bessel_j1
bessel_y0 = _s.bessel_y0
bessel_y1 = _s.bessel_y1
modified_bessel_i0 = _s.modified_bessel_i0
modified_bessel_i1 = _s.modified_bessel_i1
modified_bessel_k0 = _s.modified_bessel_k0
modified_bessel_k1 = _s.modified_bessel_k1
scaled_modified_bessel_k0 = _s.scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _s.scaled_modified_bessel_k1
spherical_bessel_j0 = _s.spherical_bessel_j0
chebyshev_polynomial_t = _s.chebyshev_polynomial_t
chebyshev_polynomial_u = _s.chebyshev_polynomial_u
chebyshev_polynomial_v = _s.chebyshev_polynomial_v
chebyshev_polynomial_w = _s.chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _s.shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _s.shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _s.shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _s.shifted_chebyshev_polynomial_w
hermite_polynomial_h = _s.hermite_polynomial_h
hermite_polynomial_he = _s.hermite_polynomial_he
laguerre_polynomial_l = _s.laguerre_polynomial_l
legendre_polynomial_p = _s.legendre_polynomial_p
entr = _s.entr
erfcx = _s.erfcx
i0 = _s.i0
i0e = _s.i0e
i1 = _s.i1
i1e = _s.i1e
ndtr = _s.ndtr
log_ndtr = _s.log_ndtr
ndtri = _s.ndtri
sinc = _s.sinc
xlog1py = _s.xlog1py
zeta = _s.zeta
gammainc = _s.gammainc
gammaincc = _s.gammaincc
multigammaln = _s.multigammaln

# the same ops as ember.<name>
digamma = psi = _u._UNARY_FNS['digamma']
gammaln = _u._UNARY_FNS['lgamma']
polygamma = _u.polygamma
erf = _u._UNARY_FNS['erf']
erfc = _u._UNARY_FNS['erfc']
erfinv = _u._UNARY_FNS['erfinv']
exp2 = _u._UNARY_FNS['exp2']
expm1 = _u._UNARY_FNS['expm1']
log1p = _u._UNARY_FNS['log1p']
expit = _u._UNARY_FNS['sigmoid']
logit = _u.logit
xlogy = _a.xlogy


def round(input, *, decimals=0, out=None):
    """Rounds to the nearest integer (halves to even), or to ``decimals`` decimal places.

    Unlike ``ember.round``, integer and bool inputs raise ``NotImplementedError`` (as
    torch.special.round does).

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        decimals (int): number of decimal places.
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.round(ember.tensor([0.5, 1.5, 1.26]))
        tensor([0., 2., 1.])
    """
    if isinstance(input, _Tensor) and input.dtype.is_floating_point is False and \
            not input.dtype.is_complex:
        _not_impl('round_vml_cpu', input._data)
    return _u.round(input, decimals=decimals, out=out)


def softmax(input, dim, *, dtype=None):
    """Softmax over dimension ``dim``: ``exp(x) / exp(x).sum(dim)``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise over.

    Keyword args:
        dtype (ember.dtype, optional): the input is cast to it first.

    Example::

        >>> ember.special.softmax(ember.tensor([1., 2., 3.]), 0)
        tensor([0.0900, 0.2447, 0.6652])
    """
    return _act.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log of the softmax over dimension ``dim``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise over.

    Keyword args:
        dtype (ember.dtype, optional): the input is cast to it first.

    Example::

        >>> ember.special.log_softmax(ember.tensor([1., 2., 3.]), 0)
        tensor([-2.4076, -1.4076, -0.4076])
    """
    return _act.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input), dim))``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimension(s) to reduce.
        keepdim (bool): keep the reduced dimensions with size 1.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.special.logsumexp(ember.tensor([[0., 1.], [2., 3.]]), 1)
        tensor([1.3133, 3.3133])
    """
    res = _r.logsumexp(input, dim, keepdim)
    return res if out is None else _write_out(res, out, 'logsumexp')


_dispatch._reinstall()     # imported while calls are observed: bind the observing wrappers
