"""Pooling: max/avg/LP/adaptive pooling and max-unpooling, 1-3d (fractional max pooling,
over these kernels, is in ``fractional_pool``).

The kernels work on arrays of shape ``(*lead, *spatial)`` (``lead`` is ``(N, C)`` or, for
unbatched input, ``(C,)``) with 2 or 3 spatial dims; the 1-d functions add a spatial dim of
size 1 and call the 2-d kernels, as PyTorch does (so their ``grad_fn`` chains are the same:
``SqueezeBackward1 -> MaxPool2DWithIndicesBackward0 -> UnsqueezeBackward0``).

How they compute, with no loop over positions:

* regular windows (max/avg pooling) are read as one strided slice of the (padded) input per
  kernel offset: ``x[..., i*d::s, j*d::s]`` has one element of every window. Max pooling
  reduces the slices with ``maximum`` (NaN-propagating) and finds the argmax offset with one
  comparison per offset (the first offset holding the max wins ties, the last NaN wins, as
  in PyTorch's CPU kernels); average pooling sums the slices. Kernels of more than 64
  offsets are reduced instead from one strided view of all windows (``argmax``).
* the backward of max-style pooling adds the gradient into the input at the flat indices
  (``add.at``; a bincount, or one pass per kernel offset, where the array module has no
  ``ufunc.at``). The backward of average pooling spreads ``g / divisor`` over the windows:
  offsets of the same stride phase add into one contiguous buffer, written once per phase
  (or one broadcast write where the windows tile the input).
* adaptive average pooling is separable: a 0/1 window matrix per spatial dim (a GEMM), then
  a division by the window sizes (plain average pooling where the windows are regular).
  Adaptive max pooling gathers every window (one ``take`` per dim) and reduces along the
  window axis; fractional max pooling gathers one element per window per kernel offset.

Each backward is itself an op with its own node (``MaxPool2DWithIndicesBackwardBackward0``,
``AvgPool2DBackwardBackward0``, ...), whose backward is the gather by the saved indices or
the pooling again, so double backward works.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import itertools
import math

import numpy as np

from .._tensor import Tensor
from ._util import wrap, Node, register, grad_needed, record, aten
from .._backend import array_module
from . import _args
from .. import _layout

__all__ = ['max_pool1d', 'max_pool2d', 'max_pool3d', 'max_pool1d_with_indices',
           'max_pool2d_with_indices', 'max_pool3d_with_indices', 'max_unpool1d',
           'max_unpool2d', 'max_unpool3d', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'lp_pool1d',
           'lp_pool2d', 'lp_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool2d',
           'adaptive_max_pool3d', 'adaptive_max_pool1d_with_indices',
           'adaptive_max_pool2d_with_indices', 'adaptive_max_pool3d_with_indices',
           'adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d']

_WORDS = {1: 'one', 2: 'two', 3: 'three'}


# ----------------------------------------------------------------------------- arguments

def _int(v, fname, what):
    if v.__class__ is int:
        return v
    if isinstance(v, (bool, float, complex, str)) or not hasattr(v, '__index__') or \
            getattr(v, 'ndim', 0):
        raise TypeError(f"{fname}(): argument '{what}' must be tuple of ints, not "
                        f"{_args.type_name(v)}")
    return v.__index__()


def _tuple(v, n, fname, what, omit=False):
    """``v`` (an int or a sequence of 1 or ``n`` ints) as an ``n``-tuple; ``None`` (or an
    empty sequence) stays ``None`` where ``omit``."""
    if isinstance(v, (list, tuple)):
        if omit and len(v) == 0:
            return None
        if len(v) == 1:
            return (_int(v[0], fname, what),) * n
        if len(v) != n:
            o = 'omitted, ' if omit else ''
            raise RuntimeError(f"{fname}: {what} must either be {o}a single int, or a tuple of "
                               f"{_WORDS[n]} ints")
        return tuple(_int(x, fname, what) for x in v)
    if v is None and omit:
        return None
    return (_int(v, fname, what),) * n


def _c_int(*tuples):
    """PyTorch's average pooling reads its geometry as C ``int``s: a value beyond 32 bits
    raises its RuntimeError (max pooling takes 64-bit values)."""
    for t in tuples:
        for v in t:
            if not -2147483648 <= v < 2147483648:
                raise RuntimeError("value cannot be converted to type int without overflow")


def _check_tensor(input, fname):
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)


def _dtype_name(a):
    from .._dtype import _NP2DT
    from .._tensor import _legacy_name
    return _legacy_name(_NP2DT[a.dtype])


def _check_dtype(a, fname, ints=True):
    k = a.dtype.kind
    if k == 'b' or k == 'c' or (k in 'iu' and not (ints is True or a.dtype == ints)):
        raise NotImplementedError(f'"{fname}" not implemented for \'{_dtype_name(a)}\'')


def _out_len(i, k, s, p, d, ceil):
    """PyTorch's pooling output length of one dim (``ceil_mode`` windows must start inside
    the input or its left padding)."""
    n = i + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = n // s + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def _check_ndim(x, nd, fname):
    """Input of ``nd`` spatial dims, batched or not, non-empty except for the batch."""
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           "input")
    if any(v == 0 for v in x.shape[x.ndim - nd - 1:]):
        raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(x.shape)}")


def _geometry(x, nd, k, s, p, d, ceil, kind='max'):
    """Check pooling arguments as PyTorch does and return the output spatial sizes."""
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           _named('k', k))
    if any(v < 0 for v in s):
        raise RuntimeError("stride should be greater than zero, but got " + _named('d', s))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got " +
                           _named('dilation', d))
    for i in range(nd):
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    sp = x.shape[-nd:]
    if nd == 3 and kind == 'max' and any(p[i] > k[i] // 2 for i in range(3)):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    if nd == 2 and kind == 'max' and any(p[i] > k[i] // 2 for i in range(2)):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if nd == 3 and kind == 'avg' and any(sp[i] < k[i] for i in range(3)):
        raise RuntimeError(f"input image (T: {sp[0]} H: {sp[1]} W: {sp[2]}) smaller than kernel "
                           f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    out = tuple(_out_len(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(nd))
    if any(o < 1 for o in out):
        c = x.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + tuple(sp)))}). "
                           f"Calculated output size: ({'x'.join(map(str, (c,) + out))}). "
                           "Output size is too small")
    return out


def _named(prefix, v):
    names = ('T', 'H', 'W')[3 - len(v):]
    if prefix == 'dilation':
        return ' '.join(f"dilation{n}: {a}" for n, a in zip(names, v))
    return ' '.join(f"{prefix}{n}: {a}" for n, a in zip(names, v))


# ----------------------------------------------------------------------------- kernels

def _lay(r, x):
    """Result ``r`` laid out as PyTorch's CPU pooling kernels lay it out: channels_last(_3d)
    for a batched input in that layout, else contiguous."""
    if r.ndim == x.ndim and r.ndim >= 4 and _layout.suggests_channels_last(x):
        return _layout.relayout(r, _layout._cl_strides(r.shape))
    return _layout.relayout(r, None)


def _lowest(dt):
    if dt.kind in 'iu':
        return np.iinfo(dt).min
    return -math.inf


def _pad_for(xp, x, nd, p, right, fill):
    if not any(p) and not any(right):
        return x
    widths = [(0, 0)] * (x.ndim - nd) + [(p[i], right[i]) for i in range(nd)]
    return xp.pad(x, widths, constant_values=fill)


def _right_pad(sp, k, s, p, d, out):
    """Padding needed after the input so that every window's slice is in bounds."""
    return tuple(max(0, (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - sp[i] - p[i])
                 for i in range(len(k)))


def _offset_slices(k, s, d, out):
    """One slice tuple per kernel offset (row-major, as PyTorch scans a window): the
    elements at that offset of every window of the padded input."""
    nd = len(k)
    res = []
    for kk in itertools.product(*[range(v) for v in k]):
        res.append((Ellipsis,) + tuple(
            slice(kk[i] * d[i], kk[i] * d[i] + (out[i] - 1) * s[i] + 1, s[i])
            for i in range(nd)))
    return res


def _offset_views(xp, x, k, s, p, d, out, fill, phase=False):
    """One array per kernel offset (row-major): the elements at that offset of every window
    of ``x`` padded with ``fill``: strided slices of the padded input.

    With ``phase`` (and a stride above 1) the padded input is first split by stride phase
    (one pass over the input, which also does the padding): each offset's elements are then
    a slice of one phase with a contiguous last axis, on which NumPy's ufuncs run several
    times faster than on a stride-``s`` view; this pays where each element is read a few
    times (max pooling of overlapping windows)."""
    nd = len(k)
    sp = x.shape[-nd:]
    right = _right_pad(sp, k, s, p, d, out)
    if not phase or all(v == 1 for v in s):
        xpad = _pad_for(xp, x, nd, p, right, fill)
        return [xpad[sl] for sl in _offset_slices(k, s, d, out)]
    lead = x.shape[:-nd]
    Q = [-(-(sp[i] + p[i] + right[i]) // s[i]) for i in range(nd)]
    shape = lead + tuple(s) + tuple(Q)
    # every position a window reads is input or padding: without padding, no fill needed
    ph = xp.full(shape, fill, x.dtype) if any(p) or any(right) else xp.empty(shape, x.dtype)
    for r in itertools.product(*[range(v) for v in s]):
        src, dst = [], []
        for i in range(nd):
            lo = max(0, -((r[i] - p[i]) // s[i]))
            hi = min(Q[i], (sp[i] - 1 + p[i] - r[i]) // s[i] + 1)
            if hi <= lo:
                break
            t = r[i] + lo * s[i] - p[i]
            dst.append(slice(lo, hi))
            src.append(slice(t, t + (hi - lo - 1) * s[i] + 1, s[i]))
        else:
            ph[(Ellipsis,) + r + tuple(dst)] = x[(Ellipsis,) + tuple(src)]
    res = []
    for kk in itertools.product(*[range(v) for v in k]):
        pos = [kk[i] * d[i] for i in range(nd)]
        res.append(ph[(Ellipsis,) + tuple(pos[i] % s[i] for i in range(nd)) +
                      tuple(slice(pos[i] // s[i], pos[i] // s[i] + out[i]) for i in range(nd))])
    return res


def _reduce_max(xp, vals, floating):
    """``(best, arg)`` over the list ``vals`` (one array per kernel offset): the max
    (NaN-propagating) and the offset it came from (the first one on ties, the last NaN)."""
    K = len(vals)
    if K == 1:
        best = vals[0].copy()
        return best, xp.zeros(best.shape, np.int8)
    best = xp.maximum(vals[0], vals[1])
    for v in vals[2:]:
        xp.maximum(best, v, out=best)
    adt = np.int8 if K < 127 else np.int16 if K < 32767 else np.int32
    arg = xp.full(best.shape, K - 1, adt)
    for k in range(K - 2, -1, -1):
        t = arg - adt(k)
        t *= vals[k] == best
        arg -= t
    if floating:
        nan = best != best
        if nan.any():
            for k in range(K):
                arg = xp.where(nan & (vals[k] != vals[k]), adt(k), arg)
    return best, arg


_MANY = 64    # kernels with more offsets than this are reduced from a view of the windows


def _reduce_max_last(xp, vals, floating):
    """``(best, arg)`` of ``vals`` along its last axis (a window's elements in PyTorch's
    scan order): the first maximum, or the last NaN of a window holding NaN."""
    arg = vals.argmax(-1)
    best = xp.take_along_axis(vals, arg[..., None], -1)[..., 0]
    if floating:
        nan = best != best          # argmax stops at the first NaN
        if nan.any():
            last = vals.shape[-1] - 1 - (vals[..., ::-1] != vals[..., ::-1]).argmax(-1)
            arg = xp.where(nan, last, arg)
    return best, arg


def _flat_strides(sp):
    st = []
    acc = 1
    for v in reversed(sp):
        st.append(acc)
        acc *= v
    return tuple(reversed(st))


def _bshape(i, nd, n):
    sh = [1] * nd
    sh[i] = n
    return tuple(sh)


def _max_pool_arrays(x, k, s, p, d, out):
    """Max pooling of array ``x`` (``(*lead, *sp)``): ``(values, flat indices, arg)``;
    ``arg`` (the kernel offset of each max) is None where it does not give the index."""
    xp = array_module(x)
    nd = len(k)
    sp = x.shape[-nd:]
    fill = _lowest(x.dtype)
    floating = x.dtype.kind not in 'iu'
    K = int(np.prod(k))
    if K > _MANY:
        # large windows: one strided view of all windows, reduced along their last axis
        xpad = _pad_for(xp, x, nd, p, _right_pad(sp, k, s, p, d, out), fill)
        st = xpad.strides
        lead = xpad.shape[:-nd]
        win = xp.lib.stride_tricks.as_strided(
            xpad, lead + tuple(out) + tuple(k),
            st[:-nd] + tuple(st[-nd + i] * s[i] for i in range(nd)) +
            tuple(st[-nd + i] * d[i] for i in range(nd)))
        best, arg = _reduce_max_last(xp, win.reshape(lead + tuple(out) + (K,)), floating)
    else:
        phase = K >= 2 * int(np.prod(s))
        best, arg = _reduce_max(xp, _offset_views(xp, x, k, s, p, d, out, fill, phase),
                                floating)
    pst = _flat_strides(sp)
    # flat index = window start (per output position) + offset of the kernel position
    base = 0
    for i in range(nd):
        o = xp.arange(out[i], dtype=np.int64) * s[i] - p[i]
        base = base + (o * pst[i]).reshape(_bshape(i, nd, out[i]))
    table = np.array([sum(kk[i] * d[i] * pst[i] for i in range(nd))
                      for kk in itertools.product(*[range(v) for v in k])], np.int64)
    idx = base + xp.asarray(table)[arg]
    if any(p) and (best == fill).any():
        # a window whose max is the lowest value may have chosen a padded position: PyTorch
        # reports its first in-bounds element there
        idx = _first_valid_fix(xp, arg, k, s, p, d, out, sp, pst)
        arg = None
    return best, idx, arg


def _first_valid_fix(xp, arg, k, s, p, d, out, sp, pst):
    nd = len(k)
    a = arg.astype(np.int64)
    idx = 0
    div = 1
    for i in reversed(range(nd)):
        kk = (a // div) % k[i]
        div *= k[i]
        st = (xp.arange(out[i], dtype=np.int64) * s[i] - p[i]).reshape(_bshape(i, nd, out[i]))
        c = st + kk * d[i]
        first = xp.where(st < 0, st + ((-st + d[i] - 1) // d[i]) * d[i], st)
        c = xp.where(c < 0, first, c)
        idx = idx + c * pst[i]
    return idx


def _place(gx, contrib, k, s, p, d, out):
    """Add, into ``gx`` (``(*lead, *in)``, zeros), ``contrib(n)`` (``(*lead, *out)``) at kernel
    offset ``n`` of every window: the adjoint of reading one strided slice per offset.

    Strided in-place adds are slow, so the offsets are grouped by phase (their position
    modulo the stride, per dim): offsets of one phase add into a contiguous buffer at their
    shift (position // stride); each phase's buffer is then assigned once into the strided
    view of its positions (phases are disjoint), clipped to the unpadded input."""
    nd = len(k)
    lead = gx.shape[:-nd]
    in_sp = gx.shape[-nd:]
    xp = array_module(gx)
    groups = []
    for i in range(nd):
        g = {}
        for kk in range(k[i]):
            pos = kk * d[i]
            g.setdefault(pos % s[i], []).append((kk, pos // s[i]))
        groups.append(sorted(g.items()))
    kst = _flat_strides(k)
    for combo in itertools.product(*groups):
        ph = [c[0] for c in combo]
        M = [max(sh for _, sh in c[1]) for c in combo]
        members = list(itertools.product(*[c[1] for c in combo]))
        if len(members) == 1 and not any(M):
            n = sum(members[0][i][0] * kst[i] for i in range(nd))
            buf = contrib(n)
        else:
            buf = xp.zeros(lead + tuple(out[i] + M[i] for i in range(nd)), gx.dtype)
            for mem in members:
                n = sum(mem[i][0] * kst[i] for i in range(nd))
                sl = (Ellipsis,) + tuple(slice(mem[i][1], mem[i][1] + out[i]) for i in range(nd))
                buf[sl] += contrib(n)
        src, dst = [], []
        for i in range(nd):
            cnt = out[i] + M[i]
            lo = max(0, -((ph[i] - p[i]) // s[i]))
            hi = min(cnt, (in_sp[i] - 1 + p[i] - ph[i]) // s[i] + 1)
            if hi <= lo:
                break
            t = ph[i] + lo * s[i] - p[i]
            src.append(slice(lo, hi))
            dst.append(slice(t, t + (hi - lo - 1) * s[i] + 1, s[i]))
        else:
            gx[(Ellipsis,) + tuple(dst)] = buf[(Ellipsis,) + tuple(src)]
    return gx


def _scatter_offsets(g, arg, in_sp, k, s, p, d, out):
    """Gradient of max pooling from the argmax offsets (see ``_place``)."""
    xp = array_module(g)
    nd = len(k)
    gx = xp.zeros(g.shape[:-nd] + tuple(in_sp), g.dtype)
    return _place(gx, lambda n: g * (arg == n), k, s, p, d, out)


def _scatter_flat(g, idx, in_sp):
    """``out[plane, idx] += g`` over the flattened planes (``add.at``, or a bincount where
    the array module has no ``ufunc.at``)."""
    xp = array_module(g)
    nd = len(in_sp)
    lead = g.shape[:-nd]
    P = int(np.prod(lead))
    Q = int(np.prod(in_sp))
    if P * Q == 0 or g.size == 0:
        return xp.zeros(lead + tuple(in_sp), g.dtype)
    idx = idx.reshape(P, -1)
    w = g.reshape(-1)
    bad = (idx < 0) | (idx >= Q)
    if bad.any():   # a window of padding only (dilated): PyTorch's index lies outside
        idx = xp.where(bad, 0, idx)
        w = xp.where(bad.reshape(-1), 0, w)
    flat = (idx + (xp.arange(P, dtype=np.int64) * Q)[:, None]).reshape(-1)
    at = getattr(xp.add, 'at', None)
    if at is not None:
        r = xp.zeros(P * Q, g.dtype)
        at(r, flat, w)
    else:
        if w.dtype.kind not in 'f' or w.dtype.itemsize < 4:
            w = w.astype(np.float64)
        r = xp.bincount(flat, weights=w, minlength=P * Q).astype(g.dtype)
    return r.reshape(lead + tuple(in_sp))


def _gather_flat(src, idx, nd):
    """``src[plane, idx]`` in ember ops (differentiable): the adjoint of ``_scatter_flat``."""
    lead = tuple(idx.shape[:-nd])
    P = int(np.prod(lead))
    Q = int(np.prod(src.shape[-nd:]))
    R = int(np.prod(idx.shape[-nd:]))
    return src.reshape((P, Q)).gather(1, idx.reshape((P, R))).reshape(tuple(idx.shape))


class _ScatterBackward(Node):
    """Backward of a "scatter the gradient by max indices" op: gather by the indices."""
    def backward(self, gg):
        idx, = self.saved_tensors
        return _gather_flat(gg, idx, self.nd)


class _MaxBackward(Node):
    """Backward of max-style pooling: scatter ``g`` into the input by the saved indices."""
    scatter_cls = None
    _saved_names = ('self', 'result1')    # grad_fn._saved_self / _saved_result1, as torch

    def backward(self, g, *_):
        _, idx = self.saved_tensors
        return _scatter_grad(g, idx, self.in_sp, self.scatter_cls, self.fast)


def _scatter_grad(g, idx, in_sp, cls, fast=None):
    # add.at by the flat indices is the fastest where the array module has it; else one
    # pass per kernel offset where the argmax offsets are known, else a bincount
    if fast is not None and fast[0] is not None and \
            getattr(array_module(g._data).add, 'at', None) is None:
        arg, k, s, p, d, out = fast
        r = _scatter_offsets(g._data, arg, in_sp, k, s, p, d, out)
    else:
        r = _scatter_flat(g._data, idx._data, in_sp)
    res = wrap(r)
    if grad_needed(g):
        node = cls()
        node.nd = len(in_sp)
        record(res, node, (g,), save=(idx,))
    return res


def _max_cls(name):
    bb = type(name + 'BackwardBackward0', (_ScatterBackward,), {})
    return type(name + 'Backward0', (_MaxBackward,), {'scatter_cls': bb}), bb


MaxPool2DWithIndicesBackward0, MaxPool2DWithIndicesBackwardBackward0 = \
    _max_cls('MaxPool2DWithIndices')
MaxPool3DWithIndicesBackward0, MaxPool3DWithIndicesBackwardBackward0 = \
    _max_cls('MaxPool3DWithIndices')
AdaptiveMaxPool2DBackward0, AdaptiveMaxPool2DBackwardBackward0 = _max_cls('AdaptiveMaxPool2D')
AdaptiveMaxPool3DBackward0, AdaptiveMaxPool3DBackwardBackward0 = _max_cls('AdaptiveMaxPool3D')
FractionalMaxPool2DBackward0, FractionalMaxPool2DBackwardBackward0 = \
    _max_cls('FractionalMaxPool2D')
FractionalMaxPool3DBackward0, FractionalMaxPool3DBackwardBackward0 = \
    _max_cls('FractionalMaxPool3D')
_MAX_NODE = {2: MaxPool2DWithIndicesBackward0, 3: MaxPool3DWithIndicesBackward0}


def _finish_max(input, best, idx, cls, in_sp, fast=None, attrs=None):
    """Wrap a max-style result and record its backward; returns ``(values, indices)``.
    ``attrs`` are the node's PyTorch-named saved arguments (``grad_fn._saved_stride``)."""
    v = wrap(best)
    i = wrap(idx if idx.dtype == np.int64 else idx.astype(np.int64))
    if grad_needed(input):
        node = cls()
        node.in_sp = tuple(in_sp)
        node.fast = fast
        if attrs:
            node.__dict__.update(attrs)
        record(v, node, (input,), save=(input, i))
    return v, i


# ----------------------------------------------------------------------------- max pooling

def _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, nd, fname):
    _check_tensor(input, fname)
    k = _tuple(kernel_size, nd, fname, 'kernel_size')
    s_given = _tuple(stride, nd, fname, 'stride', omit=True)
    s = s_given or k
    p = _tuple(padding, nd, fname, 'padding')
    d = _tuple(dilation, nd, fname, 'dilation')
    x = input._data
    _check_ndim(x, nd, fname)
    _check_dtype(x, fname)
    out = _geometry(x, nd, k, s, p, d, ceil_mode)
    best, idx, arg = _max_pool_arrays(x, k, s, p, d, out)
    best, idx = _lay(best, x), _lay(idx, x)
    return _finish_max(input, best, idx, _MAX_NODE[nd], x.shape[-nd:],
                       (arg, k, s, p, d, out),
                       dict(kernel_size=k, stride=s_given or (), padding=p, dilation=d,
                            ceil_mode=bool(ceil_mode)))


def _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode):
    _check_tensor(input, 'max_pool1d')
    _check_1d_input(input)
    k = _tuple(kernel_size, 1, 'max_pool1d', 'kernel_size')
    s = _tuple(stride, 1, 'max_pool1d', 'stride', omit=True) or k
    p = _tuple(padding, 1, 'max_pool1d', 'padding')
    d = _tuple(dilation, 1, 'max_pool1d', 'dilation')
    v, i = _max_pool_nd(input.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p, (1,) + d,
                        ceil_mode, 2, 'max_pool2d')
    return v.squeeze(-2), i.squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """1-D max pooling returning ``(output, indices)``; see :func:`max_pool1d`.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size, stride, padding, dilation, ceil_mode: as :func:`max_pool1d`.
        return_indices (bool): ignored (the indices are always returned).

    Example::

        >>> F.max_pool1d_with_indices(ember.tensor([[[1., 3., 2., 0.]]]), 2)[1]
        tensor([[[1, 2]]])
    """
    return _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Applies 1-D max pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides (at most half the
            effective kernel size). Default: 0.
        dilation (int or tuple): spacing of the window elements. Default: 1.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.
        return_indices (bool): also return the argmax indices (for :func:`max_unpool1d`).

    Example::

        >>> F.max_pool1d(ember.tensor([[[1., 3., 2., 0.]]]), 2)
        tensor([[[3., 2.]]])
    """
    if not return_indices:
        _values_only_1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    v, i = _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (v, i) if return_indices else v


def _check_1d_input(input):
    sh = input.shape
    if len(sh) not in (2, 3) or 0 in tuple(sh)[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(sh)}")


def _len1(v, what, more=''):
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            comma = ',' if what in ('stride', 'padding') else ''
            raise RuntimeError(f"max_pool1d() {what} must be {more}an int, list of ints{comma} "
                               f"or tuple of ints of size 1 but got size {len(v)}")
        return _int(v[0], 'max_pool1d', what)
    return _int(v, 'max_pool1d', what)


def _values_only_1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d`` (values only) checks its arguments with its own wording, and without
    a gradient to record takes PyTorch's float-only kernel."""
    _check_tensor(input, 'max_pool1d')
    _check_1d_input(input)
    k = _len1(kernel_size, 'kernel_size')
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not len(stride)) else \
        _len1(stride, 'stride', 'None, ')
    p = _len1(padding, 'padding')
    d = _len1(dilation, 'dilation')
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    ol = _out_len(input.shape[-1], k, s, p, d, ceil_mode)
    if ol < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ol}")
    if input._data.dtype.kind in 'iub' and not grad_needed(input):
        raise NotImplementedError(
            f'"max_pool1d_impl" not implemented for \'{_dtype_name(input._data)}\'')


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-D max pooling returning ``(output, indices)``; see :func:`max_pool2d`.

    Example::

        >>> F.max_pool2d_with_indices(ember.arange(16.).view(1, 1, 4, 4), 2)[1]
        tensor([[[[ 5,  7],
                  [13, 15]]]])
    """
    return _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 2,
                        'max_pool2d')


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Applies 2-D max pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding (at most half the effective
            kernel size). Default: 0.
        dilation (int or tuple): spacing of the window elements. Default: 1.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size.
        return_indices (bool): also return the argmax indices, flattened per plane
            (``h * W + w``), as int64.

    Example::

        >>> F.max_pool2d(ember.arange(16.).view(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    v, i = _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 2,
                        'max_pool2d')
    return (v, i) if return_indices else v


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """3-D max pooling returning ``(output, indices)``; see :func:`max_pool3d`.

    Example::

        >>> F.max_pool3d_with_indices(ember.arange(8.).view(1, 1, 2, 2, 2), 2)[1]
        tensor([[[[[7]]]]])
    """
    return _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 3,
                        'max_pool3d')


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Applies 3-D max pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size, stride, padding, dilation, ceil_mode, return_indices: as
            :func:`max_pool2d`, with three sizes.

    Example::

        >>> F.max_pool3d(ember.arange(8.).view(1, 1, 2, 2, 2), 2)
        tensor([[[[[7.]]]]])
    """
    v, i = _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 3,
                        'max_pool3d')
    return (v, i) if return_indices else v


@register(name='max_pool1d', method=False)
def _torch_max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``ember.max_pool1d``: 1-D max pooling (values only); see ``F.max_pool1d``.

    Example::

        >>> ember.max_pool1d(ember.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[3., 2.]])
    """
    _values_only_1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


@register(name='max_pool1d_with_indices', method=False)
def _torch_max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                                   ceil_mode=False):
    """``ember.max_pool1d_with_indices``: 1-D max pooling returning ``(values, indices)``.

    Example::

        >>> ember.max_pool1d_with_indices(ember.tensor([[1., 3., 2., 0.]]), 2)[1]
        tensor([[1, 2]])
    """
    return _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)


@register(name='max_pool2d', method=False)
def _torch_max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``ember.max_pool2d``: 2-D max pooling (values only); see ``F.max_pool2d``.

    Example::

        >>> ember.max_pool2d(ember.arange(16.).view(1, 4, 4), 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    return _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 2,
                        'max_pool2d')[0]


@register(name='max_pool3d', method=False)
def _torch_max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``ember.max_pool3d``: 3-D max pooling (values only); see ``F.max_pool3d``.

    Example::

        >>> ember.max_pool3d(ember.arange(8.).view(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    return _max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 3,
                        'max_pool3d')[0]


# ----------------------------------------------------------------------------- unpooling

class _MaxUnpoolBackward(Node):
    _saved_names = ('indices',)

    def backward(self, g):
        idx, = self.saved_tensors
        return _gather_flat(g, idx, self.nd), None


MaxUnpool2DBackward0 = type('MaxUnpool2DBackward0', (_MaxUnpoolBackward,), {})
MaxUnpool3DBackward0 = type('MaxUnpool3DBackward0', (_MaxUnpoolBackward,), {})


def _max_unpool_op(input, indices, out_sp, nd):
    x, ix = input._data, indices._data
    if ix.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{_dtype_name(ix)}")
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d "
                           f"Tensor, but got a tensor with {x.ndim} dimensions.")
    if x.shape != ix.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(x.shape)}) but got indices tensor with shape: "
                           f"{list(ix.shape)}")
    _check_dtype(x, f'max_unpool{nd}d', ints=False)
    xp = array_module(x)
    lead = x.shape[:-nd]
    P = int(np.prod(lead))
    Q = int(np.prod(out_sp))
    res = xp.zeros((P, Q), x.dtype)
    if ix.size:
        flat = ix.reshape(P, -1)
        bad = (flat < 0) | (flat >= Q)
        if bad.any():
            v = int(flat[bad].reshape(-1)[0])
            raise RuntimeError(f"Found an invalid max index: {v} (output volumes are of size "
                               f"{'x'.join(map(str, out_sp))})")
        res[xp.arange(P)[:, None], flat] = x.reshape(P, -1)
    out = wrap(res.reshape(lead + tuple(out_sp)))
    if grad_needed(input):
        node = (MaxUnpool2DBackward0 if nd == 2 else MaxUnpool3DBackward0)()
        node.nd = nd
        record(out, node, (input, indices), save=(indices,))
    return out


def _unpool_size(input, k, s, p, output_size, nd):
    sp = tuple(input.shape[-nd:])
    default = [(sp[i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd)]
    if output_size is None:
        res = default
    else:
        output_size = list(output_size)
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for i in range(nd):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < output_size[i] < hi:
                raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {i} must be '
                                 f'between {lo} and {hi})')
        res = output_size
    for i in range(nd):
        if res[i] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{i}]={res[i]}")
    return tuple(int(v) for v in res)


def _max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, nd, fname):
    _check_tensor(input, fname)
    if not isinstance(indices, Tensor):
        _args.tensor(indices, fname, 'indices', 2)
    k = _tuple(kernel_size, nd, fname, 'kernel_size')
    s = _tuple(stride, nd, fname, 'stride', omit=True) or k
    p = _tuple(padding, nd, fname, 'padding')
    size = _unpool_size(input, k, s, p, output_size, nd)
    if nd == 1:
        return _max_unpool_op(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,),
                              2).squeeze(-1)
    return _max_unpool_op(input, indices, size, nd)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool1d`: puts each value at its index, zeros elsewhere.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        indices (Tensor): int64 indices from ``max_pool1d(..., return_indices=True)``.
        kernel_size, stride, padding: those of the max pooling.
        output_size (sequence, optional): the exact output length (resolves the ambiguity
            of the pooling's output size).

    Example::

        >>> v, i = F.max_pool1d(ember.tensor([[[1., 3., 2., 0.]]]), 2, return_indices=True)
        >>> F.max_unpool1d(v, i, 2)
        tensor([[[0., 3., 2., 0.]]])
    """
    return _max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, 1,
                          'max_unpool1d')


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool2d` (see :func:`max_unpool1d`).

    Example::

        >>> x = ember.arange(16.).view(1, 1, 4, 4)
        >>> F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2).shape
        torch.Size([1, 1, 4, 4])
    """
    return _max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, 2,
                          'max_unpool2d')


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of :func:`max_pool3d` (see :func:`max_unpool1d`).

    Example::

        >>> x = ember.arange(8.).view(1, 1, 2, 2, 2)
        >>> F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2).sum()
        tensor(7.)
    """
    return _max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, 3,
                          'max_unpool3d')


# ----------------------------------------------------------------------------- avg pooling

def _avg_divisor(xp, sp, k, s, p, out, count_include_pad, divisor_override, dtype):
    if divisor_override is not None:
        return dtype.type(divisor_override) if dtype.kind in 'iu' else \
            xp.asarray(divisor_override, dtype)
    nd = len(k)
    div = 1
    for i in range(nd):
        st = xp.arange(out[i], dtype=np.int64) * s[i] - p[i]
        en = xp.minimum(st + k[i], sp[i] + p[i])
        if count_include_pad:
            n = en - st
        else:
            n = xp.minimum(en, sp[i]) - xp.maximum(st, 0)
        div = div * n.reshape(_bshape(i, nd, out[i]))
    return div if dtype.kind in 'iu' else div.astype(dtype)


def _avg_pool_arrays(x, geo):
    k, s, p, out, div = geo
    xp = array_module(x)
    nd = len(k)
    vals = _offset_views(xp, x, k, s, p, (1,) * nd, out, 0)
    if len(vals) == 1:
        acc = vals[0].copy()
    else:
        acc = vals[0] + vals[1]
        for v in vals[2:]:
            acc += v
    if x.dtype.kind in 'iu':   # integer division truncating toward zero, as C++ does
        q = xp.abs(acc) // xp.abs(div)      # (a negative divisor_override too)
        return xp.where((acc < 0) != (div < 0), -q, q).astype(x.dtype)
    acc /= div
    return acc


def _avg_pool_backward_arrays(g, geo, in_sp):
    k, s, p, out, div = geo
    xp = array_module(g)
    nd = len(k)
    gd = g / div
    lead = g.shape[:-nd]
    gx = xp.zeros(lead + tuple(in_sp), g.dtype)
    if tuple(s) == tuple(k) and not any(p) and k[-1] > 4 and \
            all(out[i] * k[i] <= in_sp[i] for i in range(nd)):   # (not ceil_mode's tails)
        # large windows tiling the input: one broadcast write through a (.., o, k, ..) view
        # (its innermost loop runs over k[-1] elements: slow for small windows)
        st = gx.strides
        L = len(lead)
        shape = lead + sum(((out[i], k[i]) for i in range(nd)), ())
        strides = st[:L] + sum(((st[L + i] * k[i], st[L + i]) for i in range(nd)), ())
        view = xp.lib.stride_tricks.as_strided(gx, shape, strides)
        view[...] = gd.reshape(lead + sum(((out[i], 1) for i in range(nd)), ()))
        return gx
    return _place(gx, lambda n: gd, k, s, p, (1,) * nd, out)


class _AvgBackward(Node):
    bb = None
    _saved_names = ('self',)

    def backward(self, g):
        self.saved_tensors      # PyTorch saves the input: an in-place change of it raises
        return _avg_backward_op(g, self.geo, self.in_sp, self.bb)


class _AvgBackwardBackward(Node):
    fw = None

    def backward(self, gg):
        return _avg_op(gg, self.geo, self.fw)


AvgPool2DBackwardBackward0 = type('AvgPool2DBackwardBackward0', (_AvgBackwardBackward,), {})
AvgPool3DBackwardBackward0 = type('AvgPool3DBackwardBackward0', (_AvgBackwardBackward,), {})
AvgPool2DBackward0 = type('AvgPool2DBackward0', (_AvgBackward,),
                          {'bb': AvgPool2DBackwardBackward0})
AvgPool3DBackward0 = type('AvgPool3DBackward0', (_AvgBackward,),
                          {'bb': AvgPool3DBackwardBackward0})
AvgPool2DBackwardBackward0.fw = AvgPool2DBackward0
AvgPool3DBackwardBackward0.fw = AvgPool3DBackward0


def _avg_op(input, geo, cls, attrs=None):
    x = input._data
    out = wrap(_lay(_avg_pool_arrays(x, geo), x))
    if grad_needed(input):
        node = cls()
        node.geo = geo
        node.in_sp = x.shape[-len(geo[0]):]
        if attrs:
            node.__dict__.update(attrs)
        record(out, node, (input,), save=(input,))
    return out


def _avg_backward_op(g, geo, in_sp, cls):
    res = wrap(_avg_pool_backward_arrays(g._data, geo, in_sp))
    if grad_needed(g):
        node = cls()
        node.geo = geo
        record(res, node, (g,))
    return res


def _avg_pool_nd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override, nd, fname):
    _check_tensor(input, fname)
    k = _tuple(kernel_size, nd, fname, 'kernel_size')
    s_given = _tuple(stride, nd, fname, 'stride', omit=True)
    s = s_given or k
    p = _tuple(padding, nd, fname, 'padding')
    _c_int(k, s, p)
    x = input._data
    if x.ndim < nd + 1 and nd == 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got {-nd - 1})")
    _check_ndim(x, nd, fname)
    _check_dtype(x, fname, ints=np.dtype(np.int64))
    if nd == 3 and x.dtype.kind in 'fV' and x.dtype.itemsize < 4:
        raise NotImplementedError(f'"avg_pool3d_out_frame" not implemented for '
                                  f'\'{_dtype_name(x)}\'')
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _geometry(x, nd, k, s, p, (1,) * nd, ceil_mode, 'avg')
    xp = array_module(x)
    div = _avg_divisor(xp, x.shape[-nd:], k, s, p, out, count_include_pad, divisor_override,
                       x.dtype)
    return _avg_op(input, (k, s, p, out, div), AvgPool2DBackward0 if nd == 2 else
                   AvgPool3DBackward0,
                   dict(kernel_size=k, stride=s_given or (), padding=p,
                        ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                        divisor_override=divisor_override))


@register(method=False)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Applies 1-D average pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides. Default: 0.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.
        count_include_pad (bool): count the zero padding in the divisor. Default: True.

    Example::

        >>> F.avg_pool1d(ember.tensor([[[1., 2., 3., 4., 5., 6., 7.]]]), 3, stride=2)
        tensor([[[2., 4., 6.]]])
    """
    _check_tensor(input, 'avg_pool1d')
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    k = _tuple(kernel_size, 1, 'avg_pool1d', 'kernel_size')
    s = _tuple(stride, 1, 'avg_pool1d', 'stride', omit=True) or k
    p = _tuple(padding, 1, 'avg_pool1d', 'padding')
    return _avg_pool_nd(input.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p, ceil_mode,
                        count_include_pad, None, 2, 'avg_pool2d').squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Applies 2-D average pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size, stride, padding, ceil_mode, count_include_pad: as :func:`avg_pool1d`.
        divisor_override (int, optional): divide every window sum by this number instead.

    Example::

        >>> F.avg_pool2d(ember.arange(16.).view(1, 1, 4, 4), 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    return _avg_pool_nd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override, 2, 'avg_pool2d')


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Applies 3-D average pooling over an input of several planes.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: as
            :func:`avg_pool2d`, with three sizes.

    Example::

        >>> F.avg_pool3d(ember.arange(8.).view(1, 1, 2, 2, 2), 2)
        tensor([[[[[3.5000]]]]])
    """
    return _avg_pool_nd(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override, 3, 'avg_pool3d')


# ----------------------------------------------------------------------------- LP pooling

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd, avg, mx):
    k = _tuple(kernel_size, nd, f'lp_pool{nd}d', 'kernel_size') if nd > 1 else \
        (kernel_size if isinstance(kernel_size, int) else kernel_size[0],)
    if isinstance(norm_type, (int, float)):
        if norm_type == math.inf:
            return mx(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -mx(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(int(np.prod(k))).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Applies 1-D power-average pooling: ``(sum over the window of x**p) ** (1/p)``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        norm_type (float): the power ``p`` (``inf`` is max pooling of ``|x|``).
        kernel_size (int): window size.
        stride (int, optional): window stride. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.

    Example::

        >>> F.lp_pool1d(ember.tensor([[[3., 4.]]]), 2, 2)
        tensor([[[5.]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d,
                    max_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Applies 2-D power-average pooling (see :func:`lp_pool1d`).

    Example::

        >>> F.lp_pool2d(ember.ones(1, 1, 2, 2), 2, 2)
        tensor([[[[2.]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d,
                    max_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Applies 3-D power-average pooling (see :func:`lp_pool1d`).

    Example::

        >>> F.lp_pool3d(ember.ones(1, 1, 2, 2, 2), 1, 2)
        tensor([[[[[8.]]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d,
                    max_pool3d)


# ----------------------------------------------------------------------------- adaptive

def _adaptive_size(output_size, x, nd, fname):
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise RuntimeError(f"{fname}: output_size must be {nd}")
        osz = tuple(x.shape[-nd + i] if v is None else _int(v, fname, 'output_size')
                    for i, v in enumerate(output_size))
    else:
        osz = (_int(output_size, fname, 'output_size'),) * nd
    return osz


def _check_adaptive(x, nd, fname, colon=''):
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got"
                           f"{colon} {list(x.shape)}")
    for i in range(x.ndim - nd - 1, x.ndim):
        if x.shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with "
                               f"dimension {i} being empty")


def _windows(sp, osz):
    """Per dim: (start, end) arrays of the adaptive windows."""
    res = []
    for i, o in zip(sp, osz):
        r = np.arange(o, dtype=np.int64)
        res.append(((r * i) // o, -((-(r + 1) * i) // o)))
    return res


def _adaptive_max_arrays(x, osz):
    """Adaptive max pooling: every window gathered (clamped to its last element where it is
    shorter than the longest), then reduced along the window axis."""
    xp = array_module(x)
    nd = len(osz)
    sp = x.shape[-nd:]
    lead = x.shape[:-nd]
    wins = _windows(sp, osz)
    K = [int((e - s).max()) for s, e in wins]
    pst = _flat_strides(sp)
    ix = []
    flat = 0
    for i, (s, e) in enumerate(wins):
        a = np.minimum(s[:, None] + np.arange(K[i])[None, :], e[:, None] - 1)   # (o, K)
        sh = [1] * (2 * nd)
        sh[2 * i], sh[2 * i + 1] = osz[i], K[i]
        a = a.reshape(sh)
        ix.append(xp.asarray(a))
        flat = flat + a * pst[i]
    L = len(lead)
    g = x                                  # gather per dim: (*lead, o0, K0, o1, K1, ...)
    for i in range(nd):
        ax = L + 2 * i
        g = xp.take(g, ix[i].reshape(-1), axis=ax)
        g = g.reshape(g.shape[:ax] + (osz[i], K[i]) + g.shape[ax + 1:])
    perm = tuple(range(L)) + tuple(L + 2 * i for i in range(nd)) + \
        tuple(L + 2 * i + 1 for i in range(nd))
    KK = int(np.prod(K))
    vals = g.transpose(perm).reshape(lead + tuple(osz) + (KK,))
    best, arg = _reduce_max_last(xp, vals, x.dtype.kind not in 'iu')
    R = int(np.prod(osz))
    table = np.broadcast_to(flat, sum(((o, k) for o, k in zip(osz, K)), ()))
    table = xp.asarray(table.transpose(tuple(range(0, 2 * nd, 2)) +
                                       tuple(range(1, 2 * nd, 2))).reshape(R, KK))
    idx = table[xp.arange(R), arg.reshape(-1, R)].reshape(arg.shape)
    return best, idx


def _adaptive_max_nd(input, output_size, nd, fname):
    _check_tensor(input, fname)
    x = input._data
    _check_adaptive(x, nd, fname, ':')
    osz = _adaptive_size(output_size, x, nd, fname)
    if any(o < 0 for o in osz):
        shape = list(x.shape[:-nd]) + list(osz)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(osz)}: {shape}")
    _check_dtype(x, fname, ints=False)
    if any(o == 0 for o in osz):
        xp = array_module(x)
        best = xp.zeros(x.shape[:-nd] + osz, x.dtype)
        idx = xp.zeros(best.shape, np.int64)
    elif all(i % o == 0 for i, o in zip(x.shape[-nd:], osz)):   # regular windows
        k = tuple(i // o for i, o in zip(x.shape[-nd:], osz))
        best, idx, _ = _max_pool_arrays(x, k, k, (0,) * nd, (1,) * nd, osz)
        best, idx = _lay(best, x), _lay(idx, x)
    else:
        best, idx = _adaptive_max_arrays(x, osz)
        best, idx = _lay(best, x), _lay(idx, x)
    cls = AdaptiveMaxPool2DBackward0 if nd == 2 else AdaptiveMaxPool3DBackward0
    return _finish_max(input, best, idx, cls, x.shape[-nd:])


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """1-D adaptive max pooling returning ``(output, indices)``; see
    :func:`adaptive_max_pool1d`.

    Example::

        >>> F.adaptive_max_pool1d_with_indices(ember.tensor([[1., 3., 2., 0., 5.]]), 2)[1]
        tensor([[1, 4]])
    """
    _check_tensor(input, 'adaptive_max_pool1d')
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_max_pool1d: output_size must be 1")
        output_size = output_size[0]
    v, i = _adaptive_max_nd(input.unsqueeze(-2), (1, output_size), 2, 'adaptive_max_pool2d')
    return v.squeeze(-2), i.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Applies 1-D adaptive max pooling: output length ``output_size`` for any input length
    (window ``i`` spans ``floor(i*L/out) .. ceil((i+1)*L/out)``).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.
        return_indices (bool): also return the argmax indices.

    Example::

        >>> F.adaptive_max_pool1d(ember.tensor([[1., 3., 2., 0., 5.]]), 2)
        tensor([[3., 5.]])
    """
    v, i = adaptive_max_pool1d_with_indices(input, output_size)
    return (v, i) if return_indices else v


def _list_with_default_check(input, output_size):
    """torch.nn.functional's adaptive 2-d/3-d pooling read a tuple ``output_size`` against
    ``input.size()`` first: an input with too few dims raises its ValueError."""
    if isinstance(output_size, (tuple, list)) and isinstance(input, Tensor) and \
            input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """2-D adaptive max pooling returning ``(output, indices)``; see
    :func:`adaptive_max_pool2d`.

    Example::

        >>> F.adaptive_max_pool2d_with_indices(ember.arange(9.).view(1, 3, 3), 1)[1]
        tensor([[[8]]])
    """
    _list_with_default_check(input, output_size)
    return _adaptive_max_nd(input, output_size, 2, 'adaptive_max_pool2d')


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Applies 2-D adaptive max pooling (see :func:`adaptive_max_pool1d`).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or tuple): ``(H_out, W_out)``; ``None`` keeps the input size.
        return_indices (bool): also return the argmax indices (flattened per plane).

    Example::

        >>> F.adaptive_max_pool2d(ember.arange(9.).view(1, 3, 3), 1)
        tensor([[[8.]]])
    """
    _list_with_default_check(input, output_size)
    v, i = _adaptive_max_nd(input, output_size, 2, 'adaptive_max_pool2d')
    return (v, i) if return_indices else v


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """3-D adaptive max pooling returning ``(output, indices)``; see
    :func:`adaptive_max_pool3d`.

    Example::

        >>> F.adaptive_max_pool3d_with_indices(ember.arange(8.).view(1, 2, 2, 2), 1)[1]
        tensor([[[[7]]]])
    """
    _list_with_default_check(input, output_size)
    return _adaptive_max_nd(input, output_size, 3, 'adaptive_max_pool3d')


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Applies 3-D adaptive max pooling (see :func:`adaptive_max_pool2d`).

    Example::

        >>> F.adaptive_max_pool3d(ember.arange(8.).view(1, 2, 2, 2), 1)
        tensor([[[[7.]]]])
    """
    _list_with_default_check(input, output_size)
    v, i = _adaptive_max_nd(input, output_size, 3, 'adaptive_max_pool3d')
    return (v, i) if return_indices else v


@register(name='adaptive_max_pool1d', method=False)
def _torch_adaptive_max_pool1d(input, output_size):
    """``ember.adaptive_max_pool1d``: returns ``(values, indices)``.

    Example::

        >>> ember.adaptive_max_pool1d(ember.tensor([[1., 3., 2., 0., 5.]]), 2)[0]
        tensor([[3., 5.]])
    """
    return adaptive_max_pool1d_with_indices(input, output_size)


def _adaptive_mats(xp, sp, osz, dtype):
    """Per dim: the 0/1 window matrix ``(in, out)`` and the window sizes."""
    res = []
    for (s, e), n in zip(_windows(sp, osz), sp):
        j = np.arange(n)[:, None]
        m = ((j >= s[None, :]) & (j < e[None, :])).astype(dtype)
        res.append((xp.asarray(m), xp.asarray((e - s).astype(dtype))))
    return res


def _along(xp, y, m, axis):
    """Contract axis ``axis`` (negative) of ``y`` with matrix ``m`` (in, out)."""
    if axis == -1:
        return y @ m
    sh = y.shape
    nd_after = -axis - 1
    post = int(np.prod(sh[len(sh) + axis + 1:]))
    pre = sh[:len(sh) + axis]
    y2 = y.reshape(pre + (sh[axis], post))
    r = xp.matmul(m.T, y2)
    return r.reshape(pre + (m.shape[1],) + sh[len(sh) - nd_after:])


def _adaptive_avg_arrays(x, osz):
    if x.dtype.itemsize < 4:     # half/bfloat16: sums in float32, as PyTorch accumulates
        return _adaptive_avg_arrays(x.astype(np.float32), osz).astype(x.dtype)
    xp = array_module(x)
    nd = len(osz)
    sp = x.shape[-nd:]
    if all(o and i % o == 0 for i, o in zip(sp, osz)):   # regular windows
        k = tuple(i // o for i, o in zip(sp, osz))
        return _avg_pool_arrays(x, (k, k, (0,) * nd, osz, x.dtype.type(int(np.prod(k)))))
    mats = _adaptive_mats(xp, sp, osz, x.dtype)
    y = x
    cnt = 1
    for i in reversed(range(nd)):
        m, c = mats[i]
        y = _along(xp, y, m, i - nd)
        cnt = cnt * c.reshape(_bshape(i, nd, osz[i]))
    return xp.ascontiguousarray(y / cnt)


def _adaptive_avg_backward_arrays(g, in_sp):
    if g.dtype.itemsize < 4:
        return _adaptive_avg_backward_arrays(g.astype(np.float32), in_sp).astype(g.dtype)
    xp = array_module(g)
    nd = len(in_sp)
    osz = g.shape[-nd:]
    if all(o and i % o == 0 for i, o in zip(in_sp, osz)):   # regular windows
        k = tuple(i // o for i, o in zip(in_sp, osz))
        return _avg_pool_backward_arrays(
            g, (k, k, (0,) * nd, osz, g.dtype.type(int(np.prod(k)))), in_sp)
    mats = _adaptive_mats(xp, in_sp, osz, g.dtype)
    cnt = 1
    for i in range(nd):
        cnt = cnt * mats[i][1].reshape(_bshape(i, nd, osz[i]))
    y = g / cnt
    for i in reversed(range(nd)):
        y = _along(xp, y, mats[i][0].T, i - nd)
    return xp.ascontiguousarray(y)


class _AdaptiveAvgBackward(Node):
    bb = None
    _saved_names = ('self',)

    def backward(self, g):
        self.saved_tensors      # PyTorch saves the input: an in-place change of it raises
        res = wrap(_adaptive_avg_backward_arrays(g._data, self.in_sp))
        if grad_needed(g):
            node = self.bb()
            node.osz = tuple(g.shape[-len(self.in_sp):])
            record(res, node, (g,))
        return res


class _AdaptiveAvgBackwardBackward(Node):
    fw = None

    def backward(self, gg):
        return _adaptive_avg_op(gg, self.osz, self.fw)


AdaptiveAvgPool2DBackwardBackward0 = type('AdaptiveAvgPool2DBackwardBackward0',
                                          (_AdaptiveAvgBackwardBackward,), {})
AdaptiveAvgPool3DBackwardBackward0 = type('AdaptiveAvgPool3DBackwardBackward0',
                                          (_AdaptiveAvgBackwardBackward,), {})
AdaptiveAvgPool2DBackward0 = type('AdaptiveAvgPool2DBackward0', (_AdaptiveAvgBackward,),
                                  {'bb': AdaptiveAvgPool2DBackwardBackward0})
AdaptiveAvgPool3DBackward0 = type('AdaptiveAvgPool3DBackward0', (_AdaptiveAvgBackward,),
                                  {'bb': AdaptiveAvgPool3DBackwardBackward0})
AdaptiveAvgPool2DBackwardBackward0.fw = AdaptiveAvgPool2DBackward0
AdaptiveAvgPool3DBackwardBackward0.fw = AdaptiveAvgPool3DBackward0


def _adaptive_avg_op(input, osz, cls):
    x = input._data
    out = wrap(_lay(_adaptive_avg_arrays(x, osz), x))
    if grad_needed(input):
        node = cls()
        node.in_sp = x.shape[-len(osz):]
        record(out, node, (input,), save=(input,))
    return out


def _adaptive_avg_nd(input, output_size, nd, fname):
    _check_tensor(input, fname)
    x = input._data
    _check_adaptive(x, nd, fname)
    osz = _adaptive_size(output_size, x, nd, fname)
    if any(o < 0 for o in osz):
        raise RuntimeError(f"{fname}: elements of output_size must be greater than or equal to "
                           f"0 but received {{{', '.join(map(str, osz))}}}")
    if all(o == 1 for o in osz):
        return input.mean(tuple(range(-nd, 0)), keepdim=True)
    _check_dtype(x, fname, ints=False)
    return _adaptive_avg_op(input, osz, AdaptiveAvgPool2DBackward0 if nd == 2 else
                            AdaptiveAvgPool3DBackward0)


@register(method=False)
def adaptive_avg_pool1d(input, output_size):
    """Applies 1-D adaptive average pooling: output length ``output_size`` for any input
    length (window ``i`` spans ``floor(i*L/out) .. ceil((i+1)*L/out)``).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.

    Example::

        >>> F.adaptive_avg_pool1d(ember.tensor([[1., 2., 3., 4.]]), 2)
        tensor([[1.5000, 3.5000]])
    """
    _check_tensor(input, 'adaptive_avg_pool1d')
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "adaptive_avg_pool1d)")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_avg_pool1d: output_size must be 1")
        output_size = output_size[0]
    return _adaptive_avg_nd(input.unsqueeze(-2), (1, output_size), 2,
                            'adaptive_avg_pool2d').squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Applies 2-D adaptive average pooling (see :func:`adaptive_avg_pool1d`).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or tuple): ``(H_out, W_out)``; ``None`` keeps the input size.

    Example::

        >>> F.adaptive_avg_pool2d(ember.arange(16.).view(1, 4, 4), 2)
        tensor([[[ 2.5000,  4.5000],
                 [10.5000, 12.5000]]])
    """
    _list_with_default_check(input, output_size)
    return _adaptive_avg_nd(input, output_size, 2, 'adaptive_avg_pool2d')


def adaptive_avg_pool3d(input, output_size):
    """Applies 3-D adaptive average pooling (see :func:`adaptive_avg_pool2d`).

    Example::

        >>> F.adaptive_avg_pool3d(ember.arange(8.).view(1, 2, 2, 2), 1)
        tensor([[[[3.5000]]]])
    """
    _list_with_default_check(input, output_size)
    return _adaptive_avg_nd(input, output_size, 3, 'adaptive_avg_pool3d')


for _f, _n in ((_torch_max_pool1d, 'max_pool1d'), (_torch_max_pool1d_with_indices,
               'max_pool1d_with_indices'), (_torch_max_pool2d, 'max_pool2d'),
               (_torch_max_pool3d, 'max_pool3d'), (_torch_adaptive_max_pool1d,
               'adaptive_max_pool1d')):
    _f.__name__ = _f.__qualname__ = _n
del _f, _n


class MaxPool2DWithIndicesBackwardBackward0(Node):
    def backward(self, gg):
        (idx,) = self.saved_tensors
        lead = tuple(gg.shape[:-2])
        g = gg.reshape(lead + (-1,)).gather(-1, idx.reshape(lead + (-1,)))
        return g.reshape(self.gshape), gg.new_zeros(self.ishape)


@aten('max_pool2d_with_indices_backward')
def max_pool2d_with_indices_backward(grad_output, input, kernel_size, stride, padding, dilation,
                                     ceil_mode, indices):
    """The gradient of :func:`ember.nn.functional.max_pool2d` with respect to its input (the
    operator ``ember.ops.aten.max_pool2d_with_indices_backward``): each element of
    ``grad_output`` added at the input position its window's maximum came from
    (``indices``, flat over the input's last two dimensions). Differentiable in
    ``grad_output``.

    Args:
        grad_output (Tensor): the gradient of the pooled result, ``(N, C, H_out, W_out)`` or
            ``(C, H_out, W_out)``.
        input (Tensor): the pooled input.
        kernel_size, stride, padding, dilation, ceil_mode: the pooling's arguments.
        indices (Tensor): the argmax positions :func:`max_pool2d_with_indices` returned.

    Example::

        >>> x = ember.tensor([[[[1., 3.], [2., 0.]]]])
        >>> out, idx = ember.nn.functional.max_pool2d_with_indices(x, 2, return_indices=True)
        >>> ember.ops.aten.max_pool2d_with_indices_backward(ember.ones_like(out), x, [2, 2],
        ...                                                 [2, 2], [0, 0], [1, 1], False, idx)
        tensor([[[[0., 1.],
                  [0., 0.]]]])
    """
    from .indexing import _add_at
    for t in (grad_output, input, indices):
        if not isinstance(t, Tensor):
            _args.tensor(t, 'max_pool2d_with_indices_backward')
    if grad_output.dtype is not input.dtype:
        c = {'float64': 'double', 'float32': 'float', 'float16': 'c10::Half',
             'bfloat16': 'c10::BFloat16'}
        nm = [str(t.dtype).split('.')[-1] for t in (input, grad_output)]
        raise RuntimeError(f"expected dtype {c.get(nm[0], nm[0])} for `gradOutput` but got "
                           f"dtype {c.get(nm[1], nm[1])}")
    gs, ix = tuple(grad_output.shape), tuple(indices.shape)
    for k in range(len(ix)):
        if k >= len(gs) or gs[k] != ix[k]:
            got = gs[k] if k < len(gs) else None
            raise RuntimeError(f"Expected a tensor of dimension {len(ix)} and tensor.size[{k}] "
                               f"== {ix[k]} but got: dimension {len(gs)} and tensor.size[{k}] "
                               f"= {got}")
    g, idx, a = grad_output._data, indices._data, input._data
    xp = array_module(a)
    lead = a.shape[:-2]
    hw = a.shape[-2] * a.shape[-1]
    gi = xp.zeros(lead + (hw,), g.dtype)
    gflat = g.reshape(lead + (-1,))
    iflat = idx.reshape(lead + (-1,)).astype('int64')
    rows = xp.indices(iflat.shape)[:-1]
    _add_at(xp, gi, tuple(rows) + (iflat,), gflat)   # windows may share their maximum
    res = wrap(gi.reshape(a.shape))
    if grad_needed(grad_output, input):
        node = MaxPool2DWithIndicesBackwardBackward0()
        node.gshape, node.ishape = tuple(grad_output.shape), tuple(input.shape)
        record(res, node, (grad_output, input), save=(indices,))
    return res
