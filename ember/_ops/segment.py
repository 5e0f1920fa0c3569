"""Segment reductions and tensor hashing: ``segment_reduce`` (``_segment_reduce``; sum, prod,
mean, max and min over consecutive segments given by lengths or offsets, with
``SegmentReduceBackward0``) and ``hash_tensor`` (the xor of the elements' 64-bit patterns over
dimensions). They reuse the dimension helpers of ``reduction``."""
import builtins
import math

import numpy as np

from . import _args
from .. import _dtype as D
from .._tensor import Tensor, _wrap_dim, _legacy_name
from ._util import wrap, Node, register, grad_needed, record, write_out
from .._backend import array_module
from .indexing import gather
from .reduction import _dims, _all_dims, _axis, _dtname

_bmax, _bmin = builtins.max, builtins.min


# ------------------------------------------------------------------ segment_reduce
_SEG_REDUCE = {'sum': 'sum', 'prod': 'prod', 'mean': 'mean', 'max': 'max', 'amax': 'max',
               'min': 'min', 'amin': 'min'}
_SEG_CHUNK = 1 << 22      # elements of one masked block (segments x positions x rest)


def _seg_offsets(lengths, offsets, data, axis, unsafe):
    """The segments' boundaries as an int64 array of shape ``data.shape[:axis] + (K + 1,)``,
    checked as torch checks them."""
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    src = lengths if lengths is not None else offsets
    what = 'lengths' if lengths is not None else 'offsets'
    s = src._data
    xp = array_module(s)
    if s.dtype.kind not in 'iu':
        kern = 'lengths' if lengths is not None else 'offsets'
        raise NotImplementedError(f"\"_segment_reduce_{kern}_cpu_kernel1\" not implemented "
                                  f"for '{_dtname(s)}'")
    if data.dim() < s.ndim:
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    if axis != s.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"{what} but got {axis}.")
    s = s.astype('int64')
    if lengths is not None:
        if not unsafe:
            if s.size == 0:
                raise RuntimeError("min(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            if bool((s < 0).any()):
                raise RuntimeError("lengths contains negative value!")
            if bool((s.sum(-1) != data.shape[axis]).any()):
                raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis "
                                   "to sum to data.size(lengths.dim()-1) when !unsafe.")
        zero = xp.zeros(s.shape[:-1] + (1,), 'int64')
        off = xp.concatenate([zero, xp.cumsum(s, -1)], -1)
    else:
        off = s
    if off.shape[-1] and bool((off[..., 1:] < off[..., :-1]).any()):
        raise RuntimeError("Expected segment_length >= 0 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if tuple(off.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    # NOTE: positions past the end of data (unsafe) are not read (torch reads past the end)
    return xp.clip(off, 0, data.shape[axis])


def _seg_ids(off, n, xp):
    """Per position along the axis, the index of its segment (``K``: in none)."""
    K = off.shape[-1] - 1
    j = xp.arange(n)
    ids = (off[..., 1:, None] <= j).sum(-2)          # segments ending at or before j
    inside = (j >= off[..., :1]) & (j < off[..., -1:])
    return xp.where(inside, ids, K)


def _seg_apply(d, off, axis, kind, init, xp):
    """The segment reductions of the array ``d`` (identity-filled masked blocks)."""
    P, N, T = d.shape[:axis], d.shape[axis], d.shape[axis + 1:]
    K = off.shape[-1] - 1
    ident = {'sum': 0, 'mean': 0, 'prod': 1, 'max': -math.inf, 'min': math.inf}[kind]
    seq = d.dtype.itemsize < 4 and kind in ('sum', 'mean', 'prod')
    red = {'sum': xp.sum, 'mean': xp.sum, 'prod': xp.prod, 'max': xp.max, 'min': xp.min}[kind]
    j = xp.arange(N)
    ones_t = (1,) * len(T)
    de = xp.expand_dims(d, axis)                               # P + (1, N) + T
    rest = _bmax(1, int(np.prod(P + T, dtype=np.int64)) * _bmax(N, 1))
    step = _bmax(1, _SEG_CHUNK // rest)
    parts = []
    for k0 in range(0, K, step):
        k1 = _bmin(k0 + step, K)
        lo, hi = off[..., k0:k1, None], off[..., k0 + 1:k1 + 1, None]
        m = (j >= lo) & (j < hi)                               # P + (c, N)
        m = m.reshape(m.shape + ones_t)
        blk = xp.where(m, de, xp.asarray(ident, d.dtype))
        if seq:     # torch adds (multiplies) one element at a time, rounding each step
            first = xp.full(blk.shape[:axis + 1] + (1,) + T,
                            ident if init is None else init, d.dtype)
            blk = xp.concatenate([first, blk], axis + 1)
            acc = (xp.cumprod if kind == 'prod' else xp.cumsum)(blk, axis=axis + 1,
                                                                 dtype=d.dtype)
            parts.append(xp.take(acc, -1, axis=axis + 1))
        else:
            parts.append(red(blk, axis=axis + 1) if N else
                         xp.full(P + (m.shape[axis],) + T, ident, d.dtype))
    r = xp.concatenate(parts, axis) if parts else xp.zeros(P + (0,) + T, d.dtype)
    lens = (off[..., 1:] - off[..., :-1]).reshape(P + (K,) + ones_t)
    add = None if seq else init      # the sequential sums started from it already
    if kind == 'sum':
        r = r + add if add is not None else r
    elif kind == 'prod':
        r = r * add if add is not None else r
    elif kind == 'max':
        r = xp.maximum(r, init) if init is not None else r
    elif kind == 'min':
        r = xp.minimum(r, init) if init is not None else r
    else:
        s = r + add if add is not None else r
        with np.errstate(divide='ignore', invalid='ignore'):
            r = xp.where(lens > 0, s / xp.maximum(lens, 1).astype(d.dtype),
                         xp.asarray(init if init is not None else math.nan, d.dtype))
    return r.astype(d.dtype, copy=False)


class SegmentReduceBackward0(Node):
    def backward(self, g):
        data, out = self.saved_tensors
        kind, init, axis, off = self.kind, self.init, self.axis, self.off
        d = data._data
        xp = array_module(d)
        K, N = off.shape[-1] - 1, d.shape[axis]
        T = d.shape[axis + 1:]
        ones_t = (1,) * len(T)
        ids = _seg_ids(off, N, xp)                              # P + (N,)
        idx = wrap(xp.broadcast_to(ids.reshape(ids.shape + ones_t), d.shape).copy())
        inside = wrap(xp.broadcast_to((ids < K).reshape(ids.shape + ones_t), d.shape))

        def spread(v):
            """``v`` (one value per segment) at each position of its segment (0 outside)."""
            pad = v.new_zeros(v.shape[:axis] + (1,) + tuple(v.shape[axis + 1:]))
            from .shape import cat
            return gather(cat([v, pad], axis), axis, idx)

        if kind in ('sum', 'mean'):
            if kind == 'mean':
                lens = (off[..., 1:] - off[..., :-1]).reshape(off.shape[:-1] + (K,) + ones_t)
                g = g / wrap(xp.maximum(lens, 1).astype(d.dtype))
            return spread(g)
        if kind in ('max', 'min'):
            o = _take_seg(out._data, ids, axis, K, xp)
            tie = ((d == o) | (xp.isnan(d) & xp.isnan(o))) & (ids < K).reshape(
                ids.shape + ones_t)
            cnt = _seg_apply(tie.astype(d.dtype), off, axis, 'sum', None, xp)
            return spread(g / wrap(xp.maximum(cnt, 1))) * wrap(tie.astype(d.dtype))
        # prod: out / x where x is neither zero nor NaN, else the product of the others
        special = (d == 0) | xp.isnan(d)
        plain = xp.where(special, xp.asarray(1, d.dtype), d)
        pnz = _seg_apply(plain, off, axis, 'prod', init, xp)
        n_nan = _seg_apply(xp.isnan(d).astype(d.dtype), off, axis, 'sum', None, xp)
        n_zero = _seg_apply((d == 0).astype(d.dtype), off, axis, 'sum', None, xp)
        o_nan = _take_seg(n_nan, ids, axis, K, xp) - xp.isnan(d)
        o_zero = _take_seg(n_zero, ids, axis, K, xp) - (d == 0)
        with np.errstate(invalid='ignore'):
            excl = _take_seg(pnz, ids, axis, K, xp) * xp.where(
                o_nan > 0, xp.asarray(math.nan, d.dtype),
                xp.where(o_zero > 0, xp.asarray(0, d.dtype), xp.asarray(1, d.dtype)))
        gs = spread(g)
        sp = wrap(special)
        safe = data.where(~sp, data.new_ones(()))
        res = (gs * spread(out) / safe).where(~sp, gs * wrap(excl.astype(d.dtype)))
        return res.where(inside, res.new_zeros(()))


def _take_seg(v, ids, axis, K, xp):
    """Per position, the value ``v`` (one per segment, array) of its segment."""
    pad = xp.zeros(v.shape[:axis] + (1,) + v.shape[axis + 1:], v.dtype)
    vp = xp.concatenate([v, pad], axis)
    i = ids.reshape(ids.shape + (1,) * (v.ndim - axis - 1))
    i = xp.broadcast_to(i, ids.shape + v.shape[axis + 1:])
    return xp.take_along_axis(vp, i, axis)


@register(method=False, aliases=('_segment_reduce',))
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduces consecutive segments of ``data`` along ``axis``: segment ``k`` holds the
    ``lengths[..., k]`` positions that follow the previous segments (or the positions
    ``offsets[..., k]`` to ``offsets[..., k + 1]``).

    An empty segment gives ``initial`` (or the reduction's identity: 0 for ``'sum'``, 1 for
    ``'prod'``, ``-inf``/``inf`` for ``'max'``/``'min'``, NaN for ``'mean'``); ``initial``
    also takes part in every segment's reduction (for ``'mean'``, ``(initial + sum) /
    length``). The gradient of ``'max'``/``'min'`` is split evenly among tied elements.

    Args:
        data (Tensor): a floating point tensor.
        reduce (str): ``'sum'``, ``'prod'``, ``'mean'``, ``'max'`` (``'amax'``) or ``'min'``
            (``'amin'``).

    Keyword args:
        lengths (Tensor, optional): integer lengths of the segments, of shape
            ``data.shape[:axis] + (K,)``.
        offsets (Tensor, optional): integer boundaries of the segments, of shape
            ``data.shape[:axis] + (K + 1,)``.
        axis (int, optional): the dimension to reduce; the last dimension of ``lengths``
            (``offsets``). Default: 0.
        unsafe (bool, optional): skip the check that the lengths are non-negative and sum to
            ``data.size(axis)``. Default: False.
        initial (Number, optional): the starting value of every segment. Default: None.

    Shape:
        Output: ``data.shape[:axis] + (K,) + data.shape[axis + 1:]``.

    NOTE: unlike PyTorch, positions beyond ``data.size(axis)`` (``unsafe`` lengths or
    offsets that overrun it) are not read; the gradient of ``'prod'`` at a zero is not
    itself differentiable (PyTorch has no second-order gradient here at all).

    Example::

        >>> data = ember.tensor([[1., 2.], [3., 4.], [5., 6.]])
        >>> ember.segment_reduce(data, 'max', lengths=ember.tensor([2, 1]))
        tensor([[3., 4.],
                [5., 6.]])
    """
    if not isinstance(data, Tensor):
        _args.tensor(data, 'segment_reduce')
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    kind = _SEG_REDUCE.get(reduce)
    if kind is None:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    d = data._data
    if not data.dtype.is_floating_point:
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{_dtname(d)}'")
    ax = _wrap_dim(axis, data.dim())
    off = _seg_offsets(lengths, offsets, data, ax, unsafe)
    xp = array_module(d)
    init = None if initial is None else d.dtype.type(initial)
    out = wrap(_seg_apply(d, off, ax, kind, init, xp))
    if grad_needed(data):
        node = SegmentReduceBackward0()
        node.kind, node.init, node.axis, node.off = kind, init, ax, off
        record(out, node, (data,), save=(data, out))
    return out


# ------------------------------------------------------------------ hash_tensor
@register()
def hash_tensor(input, dim=(), *, keepdim=False, mode=0, out=None):
    """A ``uint64`` hash of the elements of ``input`` (over ``dim``; all of them by default):
    each element is widened to its 64-bit float or integer type, its bits are read as a
    ``uint64``, and those words are combined by exclusive or (``mode=0``, the only mode).

    Args:
        input (Tensor): a real or bool tensor.
        dim (int or tuple of ints, optional): the dimension(s) to reduce. Default: all.
        keepdim (bool, optional): keep the reduced dimensions with size 1. Default: False.

    Keyword args:
        mode (int, optional): the hash; 0 (xor of the bit patterns). Default: 0.
        out (Tensor, optional): a ``uint64`` output tensor.

    Example::

        >>> ember.hash_tensor(ember.tensor([1.5, 1.5]))
        tensor(0, dtype=torch.uint64)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'hash_tensor')
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    a = input._data
    xp = array_module(a)
    dt = D._NP2DT[a.dtype]
    if dt.is_complex:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{_dtname(a)}'")
    dims = _dims(None if _all_dims(dim) else dim, a.ndim)
    if a.size == 0:
        if _all_dims(dim):
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        for d in dims:
            if a.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 "size.")
    if out is not None and isinstance(out, Tensor) and out.dtype is not D.uint64:
        raise RuntimeError(f"Expected result to be of dtype uint64, but got "
                           f"{_legacy_name(out.dtype)}")
    if dt.is_floating_point:
        w = a.astype('float64').view('uint64')
    else:                                   # integers sign-extend, as a cast to uint64 does
        w = a.astype('int64').view('uint64') if a.dtype.kind in 'ib' else a.astype('uint64')
    res = xp.bitwise_xor.reduce(w, axis=_axis(dims, a.ndim), keepdims=keepdim) if a.ndim else w
    res = wrap(xp.asarray(res, 'uint64'))
    return write_out(res, out, 'hash_tensor')
