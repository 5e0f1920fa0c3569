"""Norms: ``linalg.vector_norm``, ``linalg.matrix_norm``, ``linalg.norm`` and
``ember.norm``; backward formulas in ember ops.
"""
import math

import numpy as np

from .._tensor import _Mode, _wrap_dim
from ._util import wrap, Node, record
from .._backend import array_module
from ._linalg_common import (_st, _fresh, _out)
from .decompositions import (_real_dtype, svdvals, inv, _check_square)


# ------------------------------------------------------------------ norms
class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        x, n = self.saved_tensors
        ord, dims, keepdim = self.ord, self.dims, self.keepdim
        if not keepdim and x.dim():
            for d in dims:
                g = g.unsqueeze(d)
                n = n.unsqueeze(d)
        xd = x._data
        xp = array_module(xd)
        if ord == 0:
            return wrap(xp.zeros_like(xd))
        if xd.dtype.kind == 'c':
            ax = x.abs()
            sgn = x / (ax + wrap((ax._data == 0).astype(ax._data.dtype)))
        else:       # sign with sign(nan) = 0, as PyTorch's
            sgn = wrap((xd > 0).astype(xd.dtype) - (xd < 0).astype(xd.dtype))
        if ord == 1:
            return g * sgn
        if ord == 2:
            safe = n + wrap((n._data == 0).astype(n._data.dtype))
            return g * x / safe
        if ord == math.inf or ord == -math.inf:
            ad = xp.abs(xd)
            mask = (ad == xp.broadcast_to(n._data, ad.shape)).astype(ad.dtype)
            cnt = mask.sum(axis=dims if xd.ndim else None, keepdims=True)
            return g * sgn * wrap(mask / xp.maximum(cnt, 1))   # NaN norm: no element gets it
        # general p: sign(x) |x|^(p-1) / n^(p-1)
        ax = x * sgn if xd.dtype.kind != 'c' else x.abs()
        safe = n + wrap((n._data == 0).astype(n._data.dtype))
        scaled = (ax / safe).pow(ord - 1)
        if ord < 1:     # |x|^(p-1) is infinite at 0, and a zero norm has no slope:
            # PyTorch gives those elements 0
            scaled = scaled.masked_fill(wrap((xd == 0) | (n._data == 0)), 0)
        return g * sgn * scaled


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ``ord``-norm over ``dim`` (all elements when ``None``).

    Args:
        ord (float): ``2`` (default), ``1``, ``inf``, ``-inf``, ``0`` (count of non-zeros) or
            any other real ``p``: ``sum(|x|^p)^(1/p)``.

    Example::

        >>> ember.linalg.vector_norm(ember.tensor([3., 4.]))
        tensor(5.)
    """
    a = x._data
    if a.dtype.kind not in 'fcV':
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_st(a)}")
    if dtype is not None:
        x = x.to(dtype)
        a = x._data
    if isinstance(ord, str) or (isinstance(ord, complex)):
        raise RuntimeError(f"linalg.vector_norm: Expected a float but got {ord}")
    nd = a.ndim
    if dim is None:
        dims = tuple(range(nd))
    else:
        if isinstance(dim, int):
            dim = (dim,)
        dims = tuple(sorted(_wrap_dim(d, nd) for d in dim))
        for i in range(1, len(dims)):
            if dims[i] == dims[i - 1]:
                raise RuntimeError(f"dim {dims[i]} appears multiple times in the list of dims")
        if not dims:
            dims = tuple(range(nd))
    xp = array_module(a)
    ad = xp.abs(a)
    rdt = _real_dtype(a.dtype)
    ax = dims if nd else None
    if ord == math.inf or ord == -math.inf:
        if any(a.shape[d] == 0 for d in dims) if nd else a.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                               f"tensor because the operation does not have an identity")
        r = (xp.max if ord > 0 else xp.min)(ad, axis=ax, keepdims=keepdim and nd > 0)
    elif ord == 0:
        r = (ad != 0).sum(axis=ax, keepdims=keepdim and nd > 0).astype(rdt)
    elif ord == 1:
        r = ad.sum(axis=ax, keepdims=keepdim and nd > 0)
    elif ord == 2:
        r = xp.sqrt((ad * ad).sum(axis=ax, keepdims=keepdim and nd > 0))
    else:
        with np.errstate(divide='ignore'):
            r = (ad ** ord).sum(axis=ax, keepdims=keepdim and nd > 0) ** (1.0 / ord)
    res = wrap(_fresh(r, xp, rdt))
    if _Mode.grad and x._rg:
        node = LinalgVectorNormBackward0()
        node.ord, node.dims, node.keepdim = ord, dims, keepdim
        record(res, node, (x,), save=(x, res))
    return _out(res, out)


def _reduce_extreme(t, d, largest, keepdim):
    if largest and t.shape[d] == 0:     # torch: the largest of no (non-negative) norms is 0
        return t.sum(d, keepdim=keepdim)
    return t.amax(d, keepdim=keepdim) if largest else t.amin(d, keepdim=keepdim)


def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dimensions ``dim``.

    Args:
        ord: ``'fro'`` (default), ``'nuc'``, ``inf``, ``-inf``, ``1``, ``-1``, ``2``, ``-2``.

    Example::

        >>> ember.linalg.matrix_norm(ember.tensor([[3., 0.], [0., 4.]]), ord=2)
        tensor(4.)
    """
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.dtype.kind not in 'fcV':
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_st(a)}")
    if dtype is not None:
        A = A.to(dtype)
    nd = a.ndim
    d0, d1 = (_wrap_dim(d, nd) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == 'fro':
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ('nuc', 2, -2):
        M = A.movedim((d0, d1), (-2, -1))
        s = svdvals(M)
        if ord == 'nuc':
            r = s.sum(-1)
        else:
            r = _reduce_extreme(s, -1, ord == 2, False)
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return _out(r, out)
    if ord in (1, -1, math.inf, -math.inf):
        red, ext = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = vector_norm(A, 1, red, keepdim=keepdim)
        if not keepdim and red < ext:
            ext -= 1
        return _out(_reduce_extreme(s, ext, ord > 0, keepdim), out)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a vector norm when ``dim`` is an int (or ``A`` is 1-D), a
    matrix norm when ``dim`` is a 2-tuple (or ``A`` is 2-D with ``ord`` given); with
    ``ord=None`` and ``dim=None`` the 2-norm of the flattened input.

    Example::

        >>> ember.linalg.norm(ember.tensor([[1., 2.], [2., 4.]]))
        tensor(5.)
    """
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        if len(dim) == 2:
            return matrix_norm(A, 'fro' if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. Got "
                           f"{list(dim)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                       f"or 2D. Got {A.dim()}D.")


from ._util import register as _register  # noqa: E402


@_register(method=False)
def frobenius_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    """Frobenius norm over ``dim`` (deprecated; see :func:`ember.linalg.matrix_norm`).

    Example::

        >>> ember.frobenius_norm(ember.ones(2, 2), (0, 1))
        tensor(2.)
    """
    r = vector_norm(input, 2, dim, keepdim)
    return _out(r, out) if out is not None else r


@_register(method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Nuclear norm (sum of singular values) of a matrix, or over the two dims ``dim``.

    Example::

        >>> ember.nuclear_norm(ember.eye(2))
        tensor(2.)
    """
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    r = matrix_norm(input, 'nuc', (-2, -1) if dim is None else dim, keepdim)
    return _out(r, out) if out is not None else r


# norms of matrices built from the decompositions (cond) and of slices (norm_except_dim)
def cond(A, p=None, *, out=None):
    """Computes the condition number of a matrix with respect to a matrix norm.

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        p (int, inf, -inf, 'fro', 'nuc', optional): the norm. Default: `None` (2-norm).

    Example::

        >>> ember.linalg.cond(ember.eye(2))
        tensor(1.)
    """
    if p in (None, 2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1] if p in (None, 2) else s[..., -1] / s[..., 0]
    else:
        _check_square(A, 'linalg.cond')
        r = matrix_norm(A, p) * matrix_norm(inv(A), p)
    if out is not None:
        return _out(r, out, exact=False)
    return r


@_register(method=False)
def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dimension but `dim`, keeping the dimensions
    (``dim=-1``: the norm of the whole tensor, a scalar).

    Example::

        >>> ember.norm_except_dim(ember.ones(2, 3), 2, 0)
        tensor([[1.7321],
                [1.7321]])
    """
    if dim == -1:
        return vector_norm(v, pow)
    dim = dim % v.dim()
    other = tuple(d for d in range(v.dim()) if d != dim)
    return vector_norm(v, pow, other, keepdim=True)
