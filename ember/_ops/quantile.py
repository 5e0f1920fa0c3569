"""Quantiles: ``quantile`` and ``nanquantile`` (linear, lower, higher, midpoint and nearest
interpolation; differentiable in the input and, for a tensor ``q``, in ``q``), computed over
``reduction``'s ``sort``."""
import numpy as np

from . import _args
from .._tensor import Tensor, _wrap_dim
from ._util import wrap, register, grad_needed, with_out
from .._backend import array_module
from .reduction import sort, _take_along


# ------------------------------------------------------------------ quantiles
def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    a = input._data
    xp = array_module(a)
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if a.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in ('linear', 'lower', 'higher', 'midpoint', 'nearest'):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    scalar_q = not isinstance(q, Tensor) or q.dim() == 0
    if isinstance(q, Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._data.dtype != a.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qa = xp.asarray(q._data, np.float64).reshape(-1)
    else:
        qa = xp.asarray([float(q)], np.float64)
    if qa.size and ((qa < 0).any() or (qa > 1).any()):
        bad = [v for v in qa.tolist() if v < 0 or v > 1][0]
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {bad:g}"
                           if not isinstance(q, Tensor) else
                           f"{name}() q values must be in the range [0, 1]")
    nd = a.ndim
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = _wrap_dim(dim, nd)
        x = input if nd else input.reshape(1)
    x = x.movedim(d, -1) if x.dim() > 1 else x
    srt = sort(x, -1)[0]                                    # NaN last
    s = srt._data
    n = s.shape[-1]
    nan_cnt = xp.isnan(s).sum(axis=-1, keepdims=True)
    nvalid = n - nan_cnt if ignore_nan else xp.full(nan_cnt.shape, n)
    rank = qa * (nvalid - 1)                                   # (..., nq)
    if not ignore_nan:      # a NaN row's result is its (last-sorted) NaN: it gets the grad
        rank = xp.where(nan_cnt > 0, n - 1, rank)
    if interpolation == 'lower':
        rank = xp.floor(rank)
    elif interpolation == 'higher':
        rank = xp.ceil(rank)
    elif interpolation == 'nearest':
        rank = xp.round(rank)
    lo = xp.clip(xp.floor(rank), 0, n - 1).astype(np.int64)
    hi = xp.clip(xp.ceil(rank), 0, n - 1).astype(np.int64)
    lo_v = _take_along(srt, srt.dim() - 1, lo)
    if interpolation in ('linear', 'midpoint'):
        hi_v = _take_along(srt, srt.dim() - 1, hi)
        if interpolation == 'midpoint':
            w = wrap(xp.full(rank.shape, 0.5, a.dtype))
        elif isinstance(q, Tensor) and grad_needed(q):     # differentiable in q too
            w = q.reshape(-1) * wrap((nvalid - 1).astype(a.dtype)) - wrap(lo.astype(a.dtype))
        else:
            w = wrap((rank - lo).astype(a.dtype))
        r = lo_v + (hi_v - lo_v) * w
    else:
        r = lo_v
    bad = (nan_cnt > 0) if not ignore_nan else (nvalid == 0)
    if bad.any():
        r = r + wrap(xp.where(bad, np.nan, 0).astype(a.dtype))
    # r: (batch..., nq) -> (nq, batch...), then restore the reduced dim for keepdim
    r = r.movedim(-1, 0)
    if keepdim:
        if dim is None:
            r = r.reshape((r.shape[0],) + (1,) * nd)
        elif nd:
            r = r.unsqueeze(d + 1)
    if scalar_q:
        r = r.squeeze(0)
    return r


@register()
@with_out('quantile')
def quantile(input, q, dim=None, keepdim=False, *, interpolation='linear'):
    """The ``q``-th quantiles of ``input`` (flattened if ``dim`` is None). ``q`` is a float
    or a 1-D tensor (its size becomes the first output dimension). ``interpolation`` is
    ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or ``'nearest'``.

    Example::

        >>> ember.tensor([1., 2., 3., 4.]).quantile(0.5)
        tensor(2.5000)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'quantile')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'quantile', 'keepdim', 3)
    return _quantile('quantile', input, q, dim, keepdim, interpolation, False)


@register()
@with_out('nanquantile')
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear'):
    """Like :func:`quantile`, ignoring NaN values.

    Example::

        >>> ember.tensor([1., float('nan'), 3.]).nanquantile(0.5)
        tensor(2.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nanquantile')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'nanquantile', 'keepdim', 3)
    return _quantile('nanquantile', input, q, dim, keepdim, interpolation, True)
