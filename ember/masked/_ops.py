"""The reductions and normalizations of ``ember.masked``: each fills the masked-out
elements of ``input`` with the identity of its operation (0 for ``sum``, 1 for ``prod``,
-inf for ``amax``, ...) and applies the plain op, so that masked-out elements do not count.

``mask`` is a tensor broadcastable to ``input`` (True: the element takes part; any dtype,
read as bool) or None (every element takes part). Built on ember ops, so gradients flow
as in PyTorch.
"""
import math

from .._tensor import Tensor
from .. import _dtype as D

__all__ = ['sum', 'prod', 'cumsum', 'cumprod', 'amax', 'amin', 'argmax', 'argmin', 'mean',
           'median', 'norm', 'var', 'std', 'softmax', 'log_softmax', 'softmin', 'normalize',
           'logaddexp', 'logsumexp']



def _sum(x, dims, keepdim=False, dtype=None):
    return x.sum(dims, keepdim=keepdim, dtype=dtype)


def _input_mask(input, mask):
    """``mask`` as a bool tensor of ``input``'s shape, or None for no mask."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise AttributeError(f"'{type(mask).__name__}' object has no attribute 'shape'")
    if mask.ndim > input.ndim:
        raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                         "higher than of the input)")
    if mask.dtype is not D.bool:
        mask = mask.to(D.bool)
    return mask.expand(input.shape) if mask.shape != input.shape else mask


def _dims(dim, ndim):
    """``dim`` (None, an int or a sequence) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    for d in dim:
        d = int(d)
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(sorted(set(out)))


def _cast(input, dtype):
    return input if dtype is None or input.dtype is dtype else input.to(dtype)


def _identity(name, dt):
    if name in ('sum', 'cumsum', 'norm'):
        return 0
    if name in ('prod', 'cumprod'):
        return 1
    if dt is D.bool:
        raise NotImplementedError(f"identity of {name} on {dt} input")
    big = name in ('amin', 'argmin', 'softmin')
    if dt.is_floating_point:
        return math.inf if big else -math.inf
    if dt._cat == 1:
        ii = D.iinfo(dt)
        return ii.max if big else ii.min
    raise NotImplementedError(f"identity of {name} on {dt} input")


def _filled(input, mask, value):
    """``input`` with its masked-out elements replaced by ``value`` (differentiable)."""
    if mask is None:
        return input
    return input.masked_fill(mask.logical_not(), value)


def _reduce(fn, x, dims, keepdim):
    """Apply single-dim reduction ``fn(x, d, keepdim)`` over several dims (last first)."""
    for d in sorted(dims, reverse=True):
        x = fn(x, d, keepdim)
    return x


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the elements of ``input`` that ``mask`` keeps, along ``dim`` (an int, a tuple,
    or None for all); masked-out elements count as 0.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints, optional): the dims to reduce (all by default).
        keepdim (bool): keep reduced dims with size 1.
        dtype (ember.dtype, optional): the input is cast to it first.
        mask (Tensor, optional): broadcastable to ``input``; True where an element counts.

    Example::

        >>> x = ember.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> ember.masked.sum(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([4., 0.])
    """
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    x = _filled(x, m, 0)
    return _sum(x, _dims(dim, x.ndim), keepdim=keepdim, dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the elements that ``mask`` keeps along ``dim`` (masked-out ones count as 1).

    Example::

        >>> x = ember.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> ember.masked.prod(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([3., 1.])
    """
    x = _cast(input, dtype)
    x = _filled(x, _input_mask(x, mask), 1)
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None          # torch.masked: an empty dim reduces every dimension
    dims = _dims(dim, x.ndim)
    if dim is None and not keepdim:
        return x.prod(dtype=dtype)
    return _reduce(lambda t, d, k: t.prod(d, keepdim=k, dtype=dtype), x, dims, keepdim)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Cumulative sum along ``dim`` where masked-out elements count as 0.

    Example::

        >>> ember.masked.cumsum(ember.tensor([1., 2., 3.]), 0,
        ...                     mask=ember.tensor([True, False, True]))
        tensor([1., 1., 4.])
    """
    x = _cast(input, dtype)
    x = _filled(x, _input_mask(x, mask), 0)
    return x.cumsum(dim, dtype=x.dtype if dtype is None else dtype)     # keeps the dtype


def cumprod(input, dim, *, dtype=None, mask=None):
    """Cumulative product along ``dim`` where masked-out elements count as 1.

    Example::

        >>> ember.masked.cumprod(ember.tensor([2., 3., 4.]), 0,
        ...                      mask=ember.tensor([True, False, True]))
        tensor([2., 2., 8.])
    """
    x = _cast(input, dtype)
    x = _filled(x, _input_mask(x, mask), 1)
    return x.cumprod(dim, dtype=x.dtype if dtype is None else dtype)    # keeps the dtype


def _extreme(name, input, dim, keepdim, dtype, mask):
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    if m is not None:
        x = _filled(x, m, _identity(name, x.dtype))
    fn = x.amax if name == 'amax' else x.amin
    return fn(_dims(dim, x.ndim), keepdim=keepdim)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the elements that ``mask`` keeps along ``dim``; a reduction over no kept
    element gives -inf (the dtype's minimum for integers).

    Example::

        >>> ember.masked.amax(ember.tensor([[1., 5.], [2., 3.]]), 1,
        ...                   mask=ember.tensor([[True, False], [False, False]]))
        tensor([1., -inf])
    """
    return _extreme('amax', input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the elements that ``mask`` keeps along ``dim``; a reduction over no kept
    element gives inf (the dtype's maximum for integers).

    Example::

        >>> ember.masked.amin(ember.tensor([[1., 5.], [2., 3.]]), 1,
        ...                   mask=ember.tensor([[False, True], [False, False]]))
        tensor([5., inf])
    """
    return _extreme('amin', input, dim, keepdim, dtype, mask)


def _arg(name, input, dim, keepdim, dtype, mask):
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    if m is not None:
        x = _filled(x, m, _identity(name, x.dtype))
    fn = x.argmax if name == 'argmax' else x.argmin
    return fn(dim, keepdim=keepdim).to(dtype or input.dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the maximum among the elements that ``mask`` keeps along ``dim`` (of the
    flattened input when ``dim`` is None).

    NOTE: as in PyTorch, the indices have ``input``'s dtype unless ``dtype`` is given.

    Example::

        >>> ember.masked.argmax(ember.tensor([[1., 5., 2.]]), 1,
        ...                     mask=ember.tensor([[True, False, True]]))
        tensor([2.])
    """
    return _arg('argmax', input, dim, keepdim, dtype, mask)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the minimum among the elements that ``mask`` keeps along ``dim``.

    Example::

        >>> ember.masked.argmin(ember.tensor([[1., 5., 2.]]), 1,
        ...                     mask=ember.tensor([[False, True, True]]))
        tensor([2.])
    """
    return _arg('argmin', input, dim, keepdim, dtype, mask)


def _count(x, m, dims, keepdim):
    if m is None:
        n = 1
        for d in dims:
            n *= x.shape[d] if x.ndim else 1     # a 0-d input's dim 0 holds its one element
        return n
    return _sum(m, dims, keepdim=keepdim)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the elements that ``mask`` keeps along ``dim`` (NaN where none is kept).

    Example::

        >>> ember.masked.mean(ember.tensor([[1., 2., 3.]]), 1,
        ...                   mask=ember.tensor([[True, False, True]]))
        tensor([2.])
    """
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            raise ValueError("mean(): Could not infer output dtype. Input dtype must be either "
                             f"a floating point or complex dtype. Got: {dtype}")
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    dims = _dims(dim, x.ndim)
    total = _sum(_filled(x, m, 0), dims, keepdim=keepdim)
    return (total / _count(x, m, dims, keepdim)).to(dtype)


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median (the lower one of an even count) of the elements that ``mask`` keeps along
    ``dim`` (``dim=None`` reads as dimension 0); NaN where none is kept.

    Raises ValueError for a non-floating input with a fully masked-out row.

    Example::

        >>> ember.masked.median(ember.tensor([[1., 9., 2., 4.]]), 1,
        ...                     mask=ember.tensor([[True, False, True, True]]))
        tensor([2.])
    """
    dt = dtype or input.dtype
    x = _cast(input, dt)
    d = _dims(dim, x.ndim)[0] if x.ndim else 0
    m = _input_mask(x, mask)
    if not dt.is_floating_point:
        if m is not None and bool(m.any(d).logical_not().any()):
            raise ValueError("masked median expects no fully masked out rows if dtype is not "
                             "floating point")
        x = x.to(D.float64 if dt.itemsize > 4 else D.float32)
    x = _filled(x, m, math.nan)
    return x.nanmedian(d, keepdim=keepdim).values.to(dt)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` over the elements that ``mask`` keeps along ``dim`` (-inf where
    none is kept).

    Example::

        >>> ember.masked.logsumexp(ember.tensor([[0., 5., 0.]]), 1,
        ...                        mask=ember.tensor([[True, False, True]]))
        tensor([0.6931])
    """
    dt = dtype or input.dtype
    x = _cast(input, dt)
    m = _input_mask(x, mask)
    if m is not None:
        x = _filled(x, m, -math.inf if dt.is_floating_point or dt.is_complex else
                    D.iinfo(dt).min)
    return x.logsumexp(_dims(dim, x.ndim), keepdim=keepdim).to(dt)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the elements that ``mask`` keeps along ``dim`` (masked-out
    elements count as 0; as +inf for ``ord=-inf``).

    Example::

        >>> ember.masked.norm(ember.tensor([[3., 9., 4.]]), 2.0, 1,
        ...                   mask=ember.tensor([[True, False, True]]))
        tensor([5.])
    """
    from ..linalg import vector_norm
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    x = _filled(x, m, math.inf if ord == -math.inf else 0)
    return vector_norm(x, ord, _dims(dim, x.ndim), keepdim=keepdim, dtype=dtype)


def _var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    dt = dtype or input.dtype
    x = _cast(input, dt)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.get_default_dtype())
    m = _input_mask(x, mask)
    dims = _dims(dim, x.ndim)
    n = _count(x, m, dims, True)
    mu = _sum(_filled(x, m, 0), dims, keepdim=True) / n
    dev = x - mu
    sq = (dev * dev.conj()).real if dev.is_complex() else dev * dev
    total = _sum(_filled(sq, m, 0), dims, keepdim=keepdim)
    n = _count(x, m, dims, keepdim)
    den = (n - c).clamp(min=0) if isinstance(n, Tensor) else max(n - c, 0)
    if isinstance(den, Tensor):
        den = den.to(total.dtype)
    out = total / den
    out = out.sqrt() if take_sqrt else out
    return out.to(x.dtype) if x.dtype.is_complex else out     # torch: complex in, complex out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the elements that ``mask`` keeps along ``dim``, divided by
    ``count - correction`` (correction 1 by default, 0 with ``unbiased=False``); NaN where
    none is kept.

    Example::

        >>> ember.masked.var(ember.tensor([[1., 9., 3.]]), 1,
        ...                  mask=ember.tensor([[True, False, True]]))
        tensor([2.])
    """
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the elements that ``mask`` keeps along ``dim`` (see :func:`var`).

    Example::

        >>> ember.masked.std(ember.tensor([[1., 9., 3.]]), 1, unbiased=False,
        ...                  mask=ember.tensor([[True, False, True]]))
        tensor([1.])
    """
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _soft(kind, input, dim, dtype, mask):
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    neg = kind == 'softmin'
    if neg:
        x = -x
    if m is None:
        return x.log_softmax(dim) if kind == 'log_softmax' else x.softmax(dim)
    d = _dims(dim, x.ndim)[0] if x.ndim else 0
    empty = m.any(d, keepdim=True).logical_not()      # rows with nothing kept: NaN
    x = _filled(x, m.logical_or(empty), -math.inf)
    y = x.log_softmax(d) if kind == 'log_softmax' else x.softmax(d)
    return y.masked_fill(empty, math.nan)


def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along ``dim`` over the elements that ``mask`` keeps: masked-out elements get
    0, and a row with no kept element is NaN.

    Example::

        >>> ember.masked.softmax(ember.tensor([[1., 5., 1.]]), 1,
        ...                      mask=ember.tensor([[True, False, True]]))
        tensor([[0.5000, 0.0000, 0.5000]])
    """
    return _soft('softmax', input, dim, dtype, mask)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """Log-softmax along ``dim`` over the elements that ``mask`` keeps: masked-out elements
    get -inf, and a row with no kept element is NaN.

    Example::

        >>> ember.masked.log_softmax(ember.tensor([[1., 5., 1.]]), 1,
        ...                          mask=ember.tensor([[True, False, True]]))
        tensor([[-0.6931,    -inf, -0.6931]])
    """
    return _soft('log_softmax', input, dim, dtype, mask)


def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin (softmax of ``-input``) along ``dim`` over the elements that ``mask`` keeps.

    Example::

        >>> ember.masked.softmin(ember.tensor([[1., 5., 1.]]), 1,
        ...                      mask=ember.tensor([[True, False, True]]))
        tensor([[0.5000, 0.0000, 0.5000]])
    """
    return _soft('softmin', input, dim, dtype, mask)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input`` divided by its masked ``ord``-norm along ``dim`` (at least ``eps``);
    masked-out elements give 0.

    Example::

        >>> ember.masked.normalize(ember.tensor([[3., 9., 4.]]), 2.0, 1,
        ...                        mask=ember.tensor([[True, False, True]]))
        tensor([[0.6000, 0.0000, 0.8000]])
    """
    x = _cast(input, dtype)
    m = _input_mask(x, mask)
    nrm = norm(x, ord, dim, keepdim=True, mask=m)
    den = nrm.clamp(min=eps)
    return _filled(x, m, 0) / den


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))`` where a masked-out element of either side counts
    as -inf.

    Example::

        >>> ember.masked.logaddexp(ember.tensor([0., 0.]), ember.tensor([0., 0.]),
        ...                        input_mask=ember.tensor([True, False]))
        tensor([0.6931, 0.0000])
    """
    x = _cast(input, dtype)
    y = _cast(other, dtype)
    x = _filled(x, _input_mask(x, input_mask), -math.inf)
    y = _filled(y, _input_mask(y, other_mask), -math.inf)
    return x.logaddexp(y)
