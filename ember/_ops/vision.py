"""Vision ops: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle/unshuffle,
fold/unfold (im2col/col2im); channel_shuffle is in ``channel_shuffle``.

Resampling (``interpolate`` in every mode) is separable: along each spatial axis the output
is a weighted sum of a few gathered input slices, ``out[j] = sum_k w[k, j] * in[idx[k, j]]``
(an :class:`_AxisMap`, its indices and weights computed on the host with PyTorch's
source-index formulas, in the input's precision). The backward of such a map is its
transpose, again a map in gather form (the host inverts the index table once), so the
backward is the same kernel and double backward needs nothing more.

``grid_sample`` gathers its 4 / 8 / 16 corner rows from the input laid out (N, L, C); its
first-order backward runs on arrays (one bincount for the input gradient), and under
``create_graph`` the same gradients are written in ember ops (scatter-add for the input, the
weights' derivatives for the grid), so double backward works.
``unfold`` is a strided view of the windows (``conv._windows``); ``fold`` scatter-adds one
kernel offset at a time (a loop over the kernel's few offsets, not over pixels).

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import math
import warnings

import numpy as np

from . import _args
from .._dtype import _NP2DT
from .._tensor import Tensor, _Mode, _legacy_name
from .._backend import array_module
from ._util import wrap, Node, register, grad_needed, record, aten
from .. import _layout
from .conv import _windows

__all__ = ['interpolate', 'upsample', 'upsample_nearest', 'upsample_bilinear', 'pixel_shuffle',
           'pixel_unshuffle', 'unfold', 'fold',
           'grid_sample', 'affine_grid']


# ----------------------------------------------------------------------------- axis maps

class _AxisMap:
    """A linear map along one axis in gather form: ``out[..., j, ...] = sum_k w[k, j] *
    in[..., idx[k, j], ...]``. ``idx`` (K, n_out) int64 and ``w`` (K, n_out) float64 (or
    None: all ones, K == 1) live on the host; device copies are cached per (module, dtype).
    """
    __slots__ = ('axis', 'n_in', 'idx', 'w', '_t', '_dev')

    def __init__(self, axis, n_in, idx, w, t=None):
        self.axis, self.n_in, self.idx, self.w = axis, n_in, idx, w
        self._t = t
        self._dev = {}

    @property
    def n_out(self):
        return self.idx.shape[1]

    def T(self):
        """The transposed map (the backward), in gather form."""
        if self._t is None:
            self._t = _transpose_map(self)
        return self._t

    def _arrays(self, xp, dt, trail):
        key = (id(xp), dt, trail)
        r = self._dev.get(key)
        if r is None:
            idx = [xp.asarray(i) for i in self.idx]
            if self.w is None:
                w = None
            else:
                shp = (-1,) + (1,) * trail
                w = [xp.asarray(v.astype(dt).reshape(shp)) for v in self.w]
            r = self._dev[key] = (idx, w)
        return r

    def apply(self, a):
        xp = array_module(a)
        idx, w = self._arrays(xp, a.dtype, a.ndim - 1 - self.axis)
        ax = self.axis
        if w is None:
            return xp.take(a, idx[0], axis=ax)
        out = xp.take(a, idx[0], axis=ax)
        out *= w[0]
        for k in range(1, len(idx)):       # the few taps of the filter, not pixels
            t = xp.take(a, idx[k], axis=ax)
            t *= w[k]
            out += t
        return out


def _transpose_map(m):
    """The transpose of map ``m`` in gather form: for each input position, the output
    positions that read it and their weights (zero taps pad the ragged rows)."""
    K, M = m.idx.shape
    rows = m.idx.ravel()
    cols = np.tile(np.arange(M, dtype=np.int64), K)
    vals = np.ones(K * M) if m.w is None else m.w.ravel()
    keep = vals != 0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    order = np.argsort(rows, kind='stable')
    rows, cols, vals = rows[order], cols[order], vals[order]
    counts = np.bincount(rows, minlength=m.n_in)
    K2 = max(int(counts.max()) if counts.size else 0, 1)
    starts = np.cumsum(counts) - counts
    pos = np.arange(rows.size) - starts[rows]
    idx2 = np.zeros((K2, m.n_in), np.int64)
    w2 = np.zeros((K2, m.n_in))
    idx2[pos, rows] = cols
    w2[pos, rows] = vals
    if m.w is None and K2 == 1 and bool((counts == 1).all()):
        w2 = None
    return _AxisMap(m.axis, M, idx2, w2, t=m)


class _MapsBackward(Node):
    """Backward of a separable resampling: the transposed maps, applied in reverse order."""

    def backward(self, g):
        return (_apply_maps(g, [m.T() for m in reversed(self.maps)], _MapsBackward),)


def _apply_maps(t, maps, node_cls, like=None):
    a = t._data
    dt = a.dtype
    low = dt.kind in 'fV' and dt.itemsize < 4          # half / bfloat16: compute in float32
    if low:
        a = a.astype(np.float32)
    for m in maps:
        a = m.apply(a)
    if not maps and not low:
        a = a.copy()
    if low:
        a = a.astype(dt)
    if like is not None:                                 # channels_last in, channels_last out
        a = _layout.channels_last_like(a, like)
    out = wrap(a)
    if _Mode.grad and t._rg:
        node = node_cls()
        node.maps = maps
        record(out, node, (t,))
    return out


def _resample(input, maps, node_cls, keep_layout=False):
    """Apply the per-axis maps, the ones that shrink first (less work), skipping identities."""
    maps = [m for m in maps if not _is_identity(m)]
    maps.sort(key=lambda m: m.n_out / m.n_in)
    return _apply_maps(input, maps, node_cls, input._data if keep_layout else None)


def _is_identity(m):
    if m.n_out != m.n_in:
        return False
    if m.w is None:
        return bool((m.idx[0] == np.arange(m.n_in)).all())
    return False


class UpsampleNearest1DBackward0(_MapsBackward):
    pass


class UpsampleNearest2DBackward0(_MapsBackward):
    pass


class UpsampleNearest3DBackward0(_MapsBackward):
    pass


class UpsampleNearestExact1DBackward0(_MapsBackward):
    pass


class UpsampleNearestExact2DBackward0(_MapsBackward):
    pass


class UpsampleNearestExact3DBackward0(_MapsBackward):
    pass


class UpsampleLinear1DBackward0(_MapsBackward):
    pass


class UpsampleBilinear2DBackward0(_MapsBackward):
    pass


class UpsampleBicubic2DBackward0(_MapsBackward):
    pass


class UpsampleTrilinear3DBackward0(_MapsBackward):
    pass


class UpsampleBilinear2DAaBackward0(_MapsBackward):
    pass


class UpsampleBicubic2DAaBackward0(_MapsBackward):
    pass


class UpsampleLanczos2DAaBackward0(_MapsBackward):
    pass


class _AdaptiveAvgBackward(_MapsBackward):
    def backward(self, g):
        nd = self._nd
        for d in range(1 if g.dim() == nd + 2 else 0, g.dim()):
            if g.shape[d] == 0:
                raise RuntimeError(f"adaptive_avg_pool{nd}d_backward(): Expected grad_output to "
                                   "have non-zero size for non-batch dimensions, but grad_output "
                                   f"has sizes {list(g.shape)} with dimension {d} being empty")
        return super().backward(g)


class AdaptiveAvgPool2DBackward0(_AdaptiveAvgBackward):
    _nd = 2


class AdaptiveAvgPool3DBackward0(_AdaptiveAvgBackward):
    _nd = 3


# ----------------------------------------------------------------------------- index formulas
# ``ft`` is the precision PyTorch computes source indices in: float32 for float32 (and
# lower) inputs, float64 for float64 inputs.

def _ft(dtype):
    return np.float64 if dtype == np.float64 else np.float32


def _scales_value(ft, scale, n_in, n_out):
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _pixel_scale(ft, n_in, n_out, align_corners, scale):
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    return _scales_value(ft, scale, n_in, n_out)


def _source_index(ft, scale, n_out, align_corners, cubic):
    j = np.arange(n_out)
    if align_corners:
        return scale * j.astype(ft)
    src = (np.float64(scale) * (j + 0.5) - 0.5).astype(ft)
    if not cubic:
        src = np.where(src < 0, ft(0), src)
    return src


def _map_nearest(ft, axis, n_in, n_out, scale, exact, generic):
    """PyTorch's two nearest-index rules: the generic kernel's (1-d and 3-d inputs), which
    computes in the input's precision, and the 2-d kernel's (float32, with shortcuts for
    equal and doubled sizes)."""
    j = np.arange(n_out)
    if generic:
        s = _scales_value(ft, scale, n_in, n_out)
        if exact:
            src = (np.float64(s) * (j + 0.5) - 0.5).astype(ft)
            src = np.where(src < 0, ft(0), src)
            i = np.floor((src + ft(0.5)).astype(np.float32))
        else:
            i = np.floor((s * j.astype(ft)).astype(np.float32))
    elif not exact and n_out == n_in:
        i = j
    elif not exact and n_out == 2 * n_in:
        i = j >> 1
    else:
        s = _scales_value(np.float32, scale, n_in, n_out)
        if exact:
            i = np.floor((np.float64(s) * (j + 0.5)).astype(np.float32))
        else:
            i = np.floor(s * j.astype(np.float32))
    i = np.minimum(i.astype(np.int64), n_in - 1)
    return _AxisMap(axis, n_in, i[None], None)


def _map_linear(ft, axis, n_in, n_out, align_corners, scale):
    if n_out == n_in:
        return _AxisMap(axis, n_in, np.arange(n_in)[None], None)
    s = _pixel_scale(ft, n_in, n_out, align_corners, scale)
    src = _source_index(ft, s, n_out, align_corners, False)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam = np.clip(src - i0.astype(ft), ft(0), ft(1)).astype(ft)
    i1 = i0 + (i0 < n_in - 1)
    return _AxisMap(axis, n_in, np.stack([i0, i1]),
                    np.stack([(ft(1) - lam).astype(ft), lam]).astype(np.float64))


def _cubic1(x, A):
    return ((A + 2) * x - (A + 3)) * x * x + 1


def _cubic2(x, A):
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A


def _map_cubic(ft, axis, n_in, n_out, align_corners, scale):
    s = _pixel_scale(ft, n_in, n_out, align_corners, scale)
    src = _source_index(ft, s, n_out, align_corners, True)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    t = np.clip(src - i0.astype(ft), ft(0), ft(1)).astype(ft)
    A = ft(-0.75)
    one = ft(1)
    w = np.stack([_cubic2(t + one, A), _cubic1(t, A), _cubic1(one - t, A),
                  _cubic2((one - t) + one, A)]).astype(ft)
    idx = np.clip(i0[None] + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return _AxisMap(axis, n_in, idx, w.astype(np.float64))


def _map_area(axis, n_in, n_out):
    j = np.arange(n_out)
    start = (j * n_in) // n_out
    end = -((-(j + 1) * n_in) // n_out)
    cnt = end - start
    K = int(cnt.max()) if n_out else 1
    k = np.arange(K)[:, None]
    idx = np.minimum(start[None] + k, n_in - 1)
    w = np.where(k < cnt[None], 1.0 / cnt[None], 0.0)
    return _AxisMap(axis, n_in, idx, w)


def _sinc(x):
    px = np.pi * x
    return np.where(x == 0, 1.0, np.sin(px) / np.where(x == 0, 1.0, px))


def _aa_filter(mode):
    if mode == 'lanczos':
        def f(x):
            return np.where((x >= -3) & (x < 3), _sinc(x) * _sinc(x / 3), 0)
        return f, 6
    if mode == 'bilinear':
        def f(x):
            x = np.abs(x)
            return np.where(x < 1, 1 - x, 0)
        return f, 2

    def f(x):
        x = np.abs(x)
        a = -0.5
        return np.where(x < 1, _cubic1(x, a), np.where(x < 2, _cubic2(x, a), 0))
    return f, 4


def _map_aa(ft, axis, n_in, n_out, align_corners, scale, mode):
    filt, size = _aa_filter(mode)
    s = _pixel_scale(ft, n_in, n_out, align_corners, scale)
    support = ft(size * 0.5) * s if s >= 1 else ft(size * 0.5)
    kmax = int(math.ceil(support)) * 2 + 1
    j = np.arange(n_out)
    center = (np.float64(s) * (j + 0.5)).astype(ft)
    invscale = ft(1.0) / s if s >= 1 else ft(1)
    xmin = np.maximum(np.trunc(center - support + ft(0.5)).astype(np.int64), 0)
    xsize = np.minimum(np.trunc(center + support + ft(0.5)).astype(np.int64), n_in) - xmin
    xsize = np.clip(xsize, 0, kmax)
    k = np.arange(kmax)[:, None]
    w = filt(((k + xmin[None]).astype(ft) - center[None] + ft(0.5)) * invscale).astype(ft)
    w = np.where(k < xsize[None], w, ft(0))
    tot = w.sum(0, dtype=ft)
    w = np.where(tot != 0, w / np.where(tot != 0, tot, ft(1)), w).astype(ft)
    idx = np.minimum(xmin[None] + k, n_in - 1)
    return _AxisMap(axis, n_in, idx, w.astype(np.float64))


def _map_u8(axis, n_in, n_out, align_corners, scale, mode, antialias):
    """uint8 bilinear / bicubic: float64 weights over a window starting at ``xmin`` (weights
    of taps outside the input folded onto the edge taps), scaled to int16 with the largest
    precision that fits, as PyTorch's (PIL-compatible) fixed-point kernel.
    Returns ``(map with integer weights, precision)``."""
    if antialias:
        m = _map_aa(np.float64, axis, n_in, n_out, align_corners, scale, mode)
        w = m.w
    else:
        size = 2 if mode == 'bilinear' else 4
        s = _pixel_scale(np.float64, n_in, n_out, align_corners, scale)
        src = _source_index(np.float64, s, n_out, align_corners, size > 2)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        lam = np.clip(src - i0, 0.0, 1.0)
        sup = size // 2
        umin = i0 - sup + 1
        xmin = np.maximum(umin, 0)
        xsize = np.clip(np.minimum(i0 + sup + 1, n_in) - xmin, 0, size)
        if mode == 'bilinear':
            def filt(x):
                x = np.abs(x)
                return np.where(x < 1, 1 - x, 0.0)
        else:
            def filt(x):
                x = np.abs(x)
                return np.where(x < 1, _cubic1(x, -0.75), np.where(x < 2, _cubic2(x, -0.75), 0.0))
        w = np.zeros((size, n_out))
        cols = np.arange(n_out)
        widx = np.zeros(n_out, np.int64)
        for j in range(size):                  # the filter's taps, not pixels
            wj = filt((j + 1 - sup) - lam)
            u = umin + j
            widx = np.where(u <= 0, 0, np.where(u >= n_in - 1, xsize - 1, widx))
            np.add.at(w, (widx, cols), wj)
            widx = widx + 1
        idx = np.minimum(xmin[None] + np.arange(size)[:, None], n_in - 1)
        m = _AxisMap(axis, n_in, idx, w)
    wmax = float(np.max(w)) if w.size else 0.0
    prec = 0
    while prec < 22 and int(0.5 + wmax * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    v = w * (1 << prec)
    wi = np.where(v < 0, np.trunc(-0.5 + v), np.trunc(0.5 + v))
    return _AxisMap(axis, n_in, m.idx, wi), prec


def _apply_u8(a, m, prec):
    """One fixed-point pass: ``clip((2**(prec-1) + sum_k w_k * a[idx_k]) >> prec, 0, 255)``."""
    xp = array_module(a)
    shp = (-1,) + (1,) * (a.ndim - 1 - m.axis)
    acc = xp.full(a.shape[:m.axis] + (m.n_out,) + a.shape[m.axis + 1:], 1 << (prec - 1),
                  dtype=np.int64)
    for k in range(m.idx.shape[0]):
        acc += xp.take(a, xp.asarray(m.idx[k]), axis=m.axis).astype(np.int64) * \
            xp.asarray(m.w[k].astype(np.int64).reshape(shp))
    return xp.clip(acc >> prec, 0, 255).astype(np.uint8)


def _resample_u8(input, out, sc, kind, align_corners, antialias):
    a = input._data
    nd = len(out)
    for i in reversed(range(nd)):              # width first, then height (PyTorch's order)
        n_in = a.shape[2 + i]
        if n_in == out[i]:
            continue
        m, prec = _map_u8(2 + i, n_in, out[i], align_corners, sc[i], kind, antialias)
        a = _apply_u8(a, m, prec)
    if a is input._data:
        a = a.copy()
    return wrap(_layout.channels_last_like(a, input._data))


# ----------------------------------------------------------------------------- interpolate

_NEAREST_NODES = {1: UpsampleNearest1DBackward0, 2: UpsampleNearest2DBackward0,
                  3: UpsampleNearest3DBackward0}
_EXACT_NODES = {1: UpsampleNearestExact1DBackward0, 2: UpsampleNearestExact2DBackward0,
                3: UpsampleNearestExact3DBackward0}
_LINEAR = {'linear': (1, UpsampleLinear1DBackward0, 'upsample_linear1d'),
           'bilinear': (2, UpsampleBilinear2DBackward0, 'upsample_bilinear2d'),
           'trilinear': (3, UpsampleTrilinear3DBackward0, 'upsample_trilinear3d'),
           'bicubic': (2, UpsampleBicubic2DBackward0, 'upsample_bicubic2d'),
           'lanczos': (2, UpsampleLanczos2DAaBackward0, 'upsample_lanczos2d')}


def _is_integer(x):
    if isinstance(x, Tensor):
        return not x.is_floating_point()
    return isinstance(x, int) or (hasattr(x, '__index__') and not isinstance(x, float))


def _size_check(input, out_size, nd):
    sp = tuple(input.shape[2:])
    if any(v <= 0 for v in sp) or any(v <= 0 for v in out_size):
        names = ('D', 'H', 'W')[3 - nd:]
        i = ', '.join(f'{n}: {v}' for n, v in zip(names, sp))
        o = ', '.join(f'{n}: {v}' for n, v in zip(names, out_size))
        sep = ' and output' if nd == 1 else ' output'
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({i}){sep} ({o})")
    if math.prod(input.shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {nd + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(input.shape)}")


def _dtype_check(input, opname, allow_byte):
    dt = input._data.dtype
    if dt.kind == 'f' or dt.kind == 'V' or (allow_byte and dt == np.uint8):
        return
    raise NotImplementedError(f'"{opname}" not implemented for '
                              f"'{_legacy_name(_NP2DT[dt])}'")


def _out_sizes(input, output_size, scales, nd):
    sp = tuple(input.shape[2:])
    if output_size is not None:       # scales, when given too, still map the coordinates
        sc = (None,) * nd if scales is None else \
            tuple(None if s is None else float(s) for s in scales)
        return tuple(int(v) for v in output_size), sc
    out = tuple(int(math.floor(float(n) * float(s))) for n, s in zip(sp, scales))
    return out, tuple(float(s) for s in scales)


def _upsample(input, output_size, scales, nd, kind, align_corners=False, antialias=False):
    """One of PyTorch's ``upsample_*`` ops on an (N, C, *spatial) input."""
    out, sc = _out_sizes(input, output_size, scales, nd)
    if kind in ('nearest', 'nearest-exact'):
        opname = ('upsample_nearest' if kind == 'nearest' else '_upsample_nearest_exact') + \
            f'{nd}d'
        _dtype_check(input, opname, True)
        _size_check(input, out, nd)
        exact = kind == 'nearest-exact'
        ft = np.float64 if input._data.dtype == np.float64 else np.float32
        maps = [_map_nearest(ft, 2 + i, input.shape[2 + i], out[i], sc[i], exact, nd != 2)
                for i in range(nd)]
        return _resample(input, maps, (_EXACT_NODES if exact else _NEAREST_NODES)[nd], True)
    _, node, opname = _LINEAR[kind]
    if antialias:
        node = {'bilinear': UpsampleBilinear2DAaBackward0, 'bicubic': UpsampleBicubic2DAaBackward0,
                'lanczos': UpsampleLanczos2DAaBackward0}[kind]
        opname = f'_{opname}_aa'
    _dtype_check(input, opname, kind in ('bilinear', 'bicubic') and nd == 2)
    _size_check(input, out, nd)
    if input._data.dtype == np.uint8:
        return _resample_u8(input, out, sc, kind, align_corners, antialias)
    ft = _ft(input._data.dtype)
    maps = []
    for i in range(nd):
        n_in = input.shape[2 + i]
        if antialias and n_in == out[i]:
            continue
        if antialias:
            maps.append(_map_aa(ft, 2 + i, n_in, out[i], align_corners, sc[i], kind))
        elif kind == 'bicubic':
            maps.append(_map_cubic(ft, 2 + i, n_in, out[i], align_corners, sc[i]))
        else:
            maps.append(_map_linear(ft, 2 + i, n_in, out[i], align_corners, sc[i]))
    return _resample(input, maps, node, True)


@aten('_upsample_bilinear2d_aa')
def _upsample_bilinear2d_aa(input, output_size, align_corners, scales_h=None, scales_w=None,
                            *, scale_factors=None):
    """Anti-aliased bilinear resampling of an ``(N, C, H, W)`` input (the operator
    ``ember.ops.aten._upsample_bilinear2d_aa``, which
    ``F.interpolate(..., mode='bilinear', antialias=True)`` runs), in both of PyTorch's
    forms: ``(input, output_size, align_corners, scales_h=None, scales_w=None)`` and
    ``(input, output_size, align_corners, scale_factors)`` (``.vec``).

    Example::

        >>> x = ember.arange(16.).view(1, 1, 4, 4)
        >>> ember.ops.aten._upsample_bilinear2d_aa(x, [2, 2], False)
        tensor([[[[ 3.5714,  5.1429],
                  [ 9.8571, 11.4286]]]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, '_upsample_bilinear2d_aa')
    if isinstance(scales_h, (list, tuple)):     # the .vec overload, positionally
        scale_factors, scales_h = scales_h, None
    if input.dim() != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size "
                           f"{input.dim()}")
    if output_size is None:
        if scale_factors is None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        scales = [float(s) for s in scale_factors]
        output_size = [int(math.floor(n * s)) for n, s in zip(input.shape[2:], scales)]
    elif scale_factors is not None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    else:
        scales = None if scales_h is None and scales_w is None else [scales_h, scales_w]
    return _upsample(input, list(output_size), scales, 2, 'bilinear', bool(align_corners),
                     True)


def _adaptive_avg(input, out, nd):
    """``adaptive_avg_pool{2,3}d`` for interpolate's area mode: the pooling family's op
    where it exists, else the same averages as separable maps."""
    from . import pooling
    fn = getattr(pooling, f'adaptive_avg_pool{nd}d', None)
    if fn is not None:
        return fn(input, out)
    if nd == 1:
        return _adaptive_avg(input.unsqueeze(-2), (1,) + tuple(out), 2).squeeze(-2)
    _dtype_check(input, f'adaptive_avg_pool{nd}d', False)
    for d in range(input.dim() - nd, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"adaptive_avg_pool{nd}d(): Expected input to have non-zero size "
                               "for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {d} being empty")
    maps = [_map_area(input.dim() - nd + i, input.shape[input.dim() - nd + i], int(o))
            for i, o in enumerate(out)]
    node = AdaptiveAvgPool2DBackward0 if nd == 2 else AdaptiveAvgPool3DBackward0
    return _resample(input, maps, node)


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Down/up-sample ``input`` to ``size`` or by ``scale_factor``.

    The input is (N, C, *spatial) with 1, 2 or 3 spatial dims.

    Args:
        input (Tensor): the input.
        size (int or tuple of ints): output spatial size.
        scale_factor (float or tuple of floats): multiplier for the spatial size; without
            ``recompute_scale_factor`` it is also used, as ``1 / scale_factor``, in the
            coordinate map.
        mode (str): ``'nearest'`` | ``'nearest-exact'`` | ``'linear'`` (3-D) |
            ``'bilinear'`` (4-D) | ``'bicubic'`` (4-D) | ``'trilinear'`` (5-D) | ``'area'`` |
            ``'lanczos'`` (4-D, with ``antialias=True``).
        align_corners (bool): for the interpolating modes, map the corner pixels' centres
            onto each other (True) or the corners of the corner pixels (False, default).
        recompute_scale_factor (bool): compute the output size from ``scale_factor`` and use
            only that size (the scale is not passed on).
        antialias (bool): anti-aliasing filter when downsampling (bilinear / bicubic /
            lanczos).

    uint8 inputs are resampled by the nearest modes, and by bilinear / bicubic (also with
    ``antialias``) with PyTorch's fixed-point (int16 weights) passes, width then height.

    Example::

        >>> x = ember.arange(4.).view(1, 1, 2, 2)
        >>> F.interpolate(x, scale_factor=2, mode='nearest')[0, 0, 0]
        tensor([0., 0., 1., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'interpolate')
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = size
        else:
            if not _is_integer(size):
                raise TypeError(f"interpolate(): argument 'size' must be tuple of ints, not "
                                f"{_args.type_name(size)}")
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == 'area' and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * float(scale_factors[i])) for i in range(dim)]
        scale_factors = None
    if output_size is not None:
        output_size = [int(v) for v in output_size]
    if antialias and not (mode in ('bilinear', 'bicubic', 'lanczos') and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    nd = input.dim() - 2
    if nd in (1, 2, 3):
        if mode in ('nearest', 'nearest-exact'):
            return _upsample(input, output_size, scale_factors, nd, mode)
        if mode == 'area':
            return _adaptive_avg(input, output_size, nd)
        need = {'linear': 1, 'bilinear': 2, 'bicubic': 2, 'trilinear': 3, 'lanczos': 2}.get(mode)
        if mode == 'lanczos' and nd == 2:
            if align_corners:
                raise ValueError("Lanczos mode does not support align_corners=True")
            if not antialias:
                raise ValueError("Lanczos mode requires antialias=True")
        if need == nd:
            return _upsample(input, output_size, scale_factors, nd, mode, align_corners,
                             antialias)
        if need is not None and mode not in ('bicubic', 'lanczos'):
            raise NotImplementedError(f"Got {nd + 2}D input, but {mode} mode needs "
                                      f"{need + 2}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | "
        f"trilinear | lanczos | area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns).

    Example::

        >>> F.upsample(ember.ones(1, 1, 2), scale_factor=2).shape
        torch.Size([1, 1, 4])
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')`` (warns).

    Example::

        >>> F.upsample_nearest(ember.ones(1, 1, 2, 2), scale_factor=2).shape
        torch.Size([1, 1, 4, 4])
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode='nearest')


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)`` (warns).

    Example::

        >>> F.upsample_bilinear(ember.ones(1, 1, 2, 2), scale_factor=2).shape
        torch.Size([1, 1, 4, 4])
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)


# ----------------------------------------------------------------------------- pixel shuffle

def _factor(v, fname, arg):
    if v.__class__ is int:
        return v
    if isinstance(v, bool) or not hasattr(v, '__index__') or isinstance(v, (float, Tensor)):
        raise TypeError(f"{fname}(): argument '{arg}' (position 2) must be int, not "
                        f"{_args.type_name(v)}")
    return v.__index__()


class PixelShuffleBackward0(Node):
    """Backward of ``pixel_shuffle``: ``pixel_unshuffle`` of the gradient."""

    def backward(self, g):
        return (pixel_unshuffle(g, self.r),)


class PixelUnshuffleBackward0(Node):
    """Backward of ``pixel_unshuffle``: ``pixel_shuffle`` of the gradient."""

    def backward(self, g):
        return (pixel_shuffle(g, self.r),)


@register(method=False)
def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C * r**2, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution).

    Args:
        input (Tensor): the input, at least 3-D.
        upscale_factor (int): ``r``, the factor to increase spatial resolution by.

    Example::

        >>> F.pixel_shuffle(ember.randn(1, 9, 4, 4), 3).shape
        torch.Size([1, 1, 12, 12])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'pixel_shuffle')
    r = _factor(upscale_factor, 'pixel_shuffle', 'upscale_factor')
    sh = tuple(input.shape)
    if len(sh) < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {len(sh)} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    C, H, W = sh[-3:]
    if C % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={C} is not "
                           f"divisible by {r * r}")
    a = input._data
    xp = array_module(a)
    b = sh[:-3]
    nb = len(b)
    v = a.reshape(b + (C // (r * r), r, r, H, W))
    perm = tuple(range(nb)) + tuple(nb + i for i in (0, 3, 1, 4, 2))
    res = v.transpose(perm).copy().reshape(b + (C // (r * r), H * r, W * r))   # a copy even when r == 1
    out = wrap(_layout.channels_last_like(res, a))
    if _Mode.grad and input._rg:
        node = PixelShuffleBackward0()
        node.r = r
        record(out, node, (input,))
    return out


@register(method=False)
def pixel_unshuffle(input, downscale_factor):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r**2, H, W)``, the inverse of
    :func:`pixel_shuffle`.

    Args:
        input (Tensor): the input, at least 3-D.
        downscale_factor (int): ``r``, the factor to decrease spatial resolution by.

    Example::

        >>> F.pixel_unshuffle(ember.randn(1, 1, 12, 12), 3).shape
        torch.Size([1, 9, 4, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'pixel_unshuffle')
    r = _factor(downscale_factor, 'pixel_unshuffle', 'downscale_factor')
    sh = tuple(input.shape)
    if len(sh) < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {len(sh)} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    C, H, W = sh[-3:]
    if H % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={H} is not divisible by {r}")
    if W % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={W} is not divisible by {r}")
    a = input._data
    xp = array_module(a)
    b = sh[:-3]
    nb = len(b)
    v = a.reshape(b + (C, H // r, r, W // r, r))
    perm = tuple(range(nb)) + tuple(nb + i for i in (0, 2, 4, 1, 3))
    res = v.transpose(perm).copy().reshape(b + (C * r * r, H // r, W // r))   # a copy even when r == 1
    out = wrap(_layout.channels_last_like(res, a))
    if _Mode.grad and input._rg:
        node = PixelUnshuffleBackward0()
        node.r = r
        record(out, node, (input,))
    return out


# ----------------------------------------------------------------------------- fold / unfold

def _pair2(v, name, fname):
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        return tuple(_factor(x, fname, name) for x in v)
    v = _factor(v, fname, name)
    return (v, v)


def _fold_args(kernel_size, dilation, padding, stride, fname):
    k = _pair2(kernel_size, 'kernel_size', fname)
    d = _pair2(dilation, 'dilation', fname)
    p = _pair2(padding, 'padding', fname)
    s = _pair2(stride, 'stride', fname)
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got kernel_height: "
                           f"{k[0]} kernel_width: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError("stride should be greater than zero, but got stride_height: "
                           f"{s[0]} stride_width: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError("dilation should be greater than zero, but got dilation_height: "
                           f"{d[0]} dilation_width: {d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} "
                           f"pad_width: {p[1]}")
    return k, d, p, s


def _blocks(sp, k, d, p, s):
    return tuple((sp[i] + 2 * p[i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2))


class Im2ColBackward0(Node):
    """Backward of ``unfold``: ``fold`` (col2im) of the gradient."""

    def backward(self, g):
        return (fold(g, self.size, self.k, self.d, self.p, self.s),)


class Col2ImBackward0(Node):
    """Backward of ``fold``: ``unfold`` (im2col) of the gradient."""

    def backward(self, g):
        return (unfold(g, self.k, self.d, self.p, self.s),)


def _float_check(input, opname, allow_bool=False):
    dt = input._data.dtype
    if dt.kind in 'fcV' or (allow_bool and dt.kind == 'b'):
        return
    raise NotImplementedError(f'"{opname}" not implemented for '
                              f"'{_legacy_name(_NP2DT[dt])}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks (im2col): ``(N, C, H, W)`` -> ``(N, C * kh * kw, L)``,
    ``L`` being the number of block positions.

    Args:
        input (Tensor): a 4-D (batched) or 3-D (unbatched) input.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): spacing of the elements within a block.
        padding (int or tuple): implicit zero padding on both sides.
        stride (int or tuple): step of the blocks.

    Example::

        >>> F.unfold(ember.randn(1, 3, 10, 12), kernel_size=(2, 3)).shape
        torch.Size([1, 18, 99])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unfold')
    k, d, p, s = _fold_args(kernel_size, dilation, padding, stride, 'unfold')
    sh = tuple(input.shape)
    if len(sh) < 3 and len(sh) >= 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(sh)}, "
                         f"{len(sh) - 1}], but got {len(sh)})")
    if len(sh) not in (3, 4) or any(v == 0 for v in sh[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(sh)}")
    _float_check(input, 'im2col_out_cpu', allow_bool=True)
    batched = len(sh) == 4
    a = input._data if batched else input._data[None]
    sp = a.shape[2:]
    blocks = _blocks(sp, k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(sp)}, kernel_size={k}, "
                           f"dilation={d}, padding={p}, calculated shape of the array of sliding "
                           f"blocks as {blocks}, but its components must be at least one.")
    xp = array_module(a)
    if any(p):
        a = xp.pad(a, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    win, _ = _windows(xp, a, k, s, d)                      # (N, C, bh, bw, kh, kw)
    N, C = a.shape[:2]
    cols = xp.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(
        N, C * k[0] * k[1], blocks[0] * blocks[1])
    out = wrap(cols if batched else cols[0])
    if _Mode.grad and input._rg:
        node = Im2ColBackward0()
        node.size, node.k, node.d, node.p, node.s = tuple(sp), k, d, p, s
        record(out, node, (input,))
    return out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding local blocks into an image (col2im), summing overlaps:
    ``(N, C * kh * kw, L)`` -> ``(N, C, *output_size)``.

    Args:
        input (Tensor): a 3-D (batched) or 2-D (unbatched) input.
        output_size (int or tuple): spatial size of the output.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): spacing of the elements within a block.
        padding (int or tuple): implicit zero padding on both sides (cropped).
        stride (int or tuple): step of the blocks.

    Example::

        >>> F.fold(ember.ones(1, 4, 9), (4, 4), 2).shape
        torch.Size([1, 1, 4, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'fold')
    osz = _pair2(output_size, 'output_size', 'fold')
    k, d, p, s = _fold_args(kernel_size, dilation, padding, stride, 'fold')
    sh = tuple(input.shape)
    if len(sh) not in (2, 3) or any(v == 0 for v in sh[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: {list(sh)}")
    K = k[0] * k[1]
    if sh[-2] % K:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={sh[-2]} and "
                           f"kernel_size={k}.")
    blocks = _blocks(osz, k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given output_size={osz}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, calculated shape of the array of sliding "
                           f"blocks as {blocks}, but its components must be at least one.")
    if blocks[0] * blocks[1] != sh[-1]:
        raise RuntimeError(f"Given output_size={osz}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)="
                           f"{sh[-1]}.")
    _float_check(input, 'col2im_out_cpu')
    batched = len(sh) == 3
    a = input._data if batched else input._data[None]
    xp = array_module(a)
    N = a.shape[0]
    C = sh[-2] // K
    c = a.reshape(N, C, k[0], k[1], blocks[0], blocks[1])
    full = (osz[0] + 2 * p[0], osz[1] + 2 * p[1])
    img = xp.zeros((N, C) + full, dtype=a.dtype)
    for i in range(k[0]):          # one strided add per kernel offset
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            img[:, :, r0:r0 + (blocks[0] - 1) * s[0] + 1:s[0],
                c0:c0 + (blocks[1] - 1) * s[1] + 1:s[1]] += c[:, :, i, j]
    res = img[:, :, p[0]:p[0] + osz[0], p[1]:p[1] + osz[1]]
    if any(p):
        res = xp.ascontiguousarray(res)
    out = wrap(res if batched else res[0])
    if _Mode.grad and input._rg:
        node = Col2ImBackward0()
        node.k, node.d, node.p, node.s = k, d, p, s
        record(out, node, (input,))
    return out


# ----------------------------------------------------------------------------- affine_grid

def _base_coords(xp, n, align_corners, dt):
    if n <= 1:
        return xp.zeros(1, dtype=dt)
    r = xp.linspace(-1, 1, n).astype(dt)
    if not align_corners:
        r = r * dt.type(n - 1) / dt.type(n)
    return r


def _base_grid(xp, sp, align_corners, dt):
    """(prod(sp), nd + 1) rows ``(x, y[, z], 1)`` over the output positions."""
    nd = len(sp)
    axes = [_base_coords(xp, n, align_corners, dt) for n in sp]      # D, H, W order
    mesh = xp.meshgrid(*axes, indexing='ij')
    cols = [mesh[nd - 1 - a].reshape(-1) for a in range(nd)]          # x (W), y (H), z (D)
    cols.append(xp.ones(cols[0].shape, dtype=dt))
    return xp.stack(cols, axis=1)


class AffineGridGeneratorBackward0(Node):
    """Backward of ``affine_grid``: ``grad_theta = g^T @ base`` per batch."""

    def backward(self, g):
        N = g.shape[0]
        nd = g.shape[-1]
        gm = g.reshape(N, -1, nd).transpose(1, 2)                 # (N, nd, P)
        return (gm.matmul(wrap(self.base)),)


@register(method=False)
def affine_grid_generator(theta, size, align_corners):
    """The grid of ``affine_grid`` (no argument checks beyond the shapes).

    Example::

        >>> ember.affine_grid_generator(ember.eye(2, 3)[None], (1, 1, 2, 2), False).shape
        torch.Size([1, 2, 2, 2])
    """
    size = [int(v) for v in size]
    sp = tuple(size[2:])
    nd = len(sp)
    a = theta._data
    xp = array_module(a)
    if a.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {nd + 1}] but got: [{a.shape[0]}, {a.shape[2]}].")
    base = _base_grid(xp, sp, align_corners, a.dtype)               # (P, nd + 1)
    res = xp.matmul(base, a.transpose(0, 2, 1))                      # (N, P, nd)
    out = wrap(res.reshape((size[0],) + sp + (nd,)))
    if _Mode.grad and theta._rg:
        node = AffineGridGeneratorBackward0()
        node.base = base
        record(out, node, (theta,))
    return out


_ALIGN_WARN = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
               "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
               "See the documentation of grid_sample for details.")


def affine_grid(theta, size, align_corners=None):
    """A sampling grid for :func:`grid_sample` from a batch of affine matrices.

    Args:
        theta (Tensor): ``(N, 2, 3)`` (2-D) or ``(N, 3, 4)`` (3-D) affine matrices.
        size (torch.Size or tuple): the target output size ``(N, C, H, W)`` or
            ``(N, C, D, H, W)``.
        align_corners (bool): -1 and 1 are the centres (True) or the outer edges (False) of
            the corner pixels. Default (None, warns): False.

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Example::

        >>> theta = ember.tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 0]
        tensor([[-1., -1.],
                [ 1., -1.]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARN, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


# ----------------------------------------------------------------------------- grid_sample

_GS_MODES = ('bilinear', 'nearest', 'bicubic')
_GS_PADS = ('zeros', 'border', 'reflection')


def _gs_clip(xp, x, S):
    r = xp.fmin(xp.fmax(x, 0), S - 1)              # NaN -> 0, as PyTorch's CPU kernel
    gm = ((x > 0) & (x < S - 1)).astype(x.dtype)
    return r, gm


def _gs_reflect(xp, x, tl, th):
    if tl == th:
        z = xp.zeros_like(x)
        return z, z
    mn = tl / 2
    span = (th - tl) / 2
    y = x - mn
    sign = xp.where(y < 0, -1, 1).astype(x.dtype)
    y = xp.abs(y)
    extra = xp.fmod(y, span)
    even = (xp.floor(y / span) % 2) == 0
    r = xp.where(even, extra + mn, span - extra + mn).astype(x.dtype)
    return r, xp.where(even, sign, -sign)


def _gs_pad(xp, x, S, pad, align):
    """Coordinates of padding mode ``pad`` and their derivative w.r.t. ``x``."""
    if pad == 'border':
        return _gs_clip(xp, x, S)
    if align:
        r, g1 = _gs_reflect(xp, x, 0, 2 * (S - 1))
    else:
        r, g1 = _gs_reflect(xp, x, -1, 2 * S - 1)
    r, g2 = _gs_clip(xp, r, S)
    return r, g1 * g2


def _cubic1_d(x, A):
    return (3 * (A + 2) * x - 2 * (A + 3)) * x


def _cubic2_d(x, A):
    return (3 * A * x - 10 * A) * x + 8 * A


def _gs_axes(grid, sizes, mode, pad, align, lin):
    """Per grid component ``a`` (x, y[, z]): ``(taps, mult)`` with ``taps`` a list of
    ``(index array, valid array, weight, dweight)`` (weight / dweight: tensors (N, P), or
    None for 1 / 0) and ``mult`` d(source coordinate)/d(grid component). With ``lin`` the
    weights are differentiable in the grid (for double backward)."""
    g = grid._data
    xp = array_module(g)
    nd = g.shape[-1]
    N = g.shape[0]
    P = math.prod(g.shape[1:-1])
    gf = g.reshape(N, P, nd)
    dt = g.dtype
    res = []
    for a in range(nd):
        S = sizes[nd - 1 - a]
        c = gf[:, :, a]
        if align:
            ix = ((c + 1) / 2) * (S - 1)
            m = (S - 1) / 2
        else:
            ix = ((c + 1) * S - 1) / 2
            m = S / 2
        ix = ix.astype(dt)
        mult = xp.full(ix.shape, m, dtype=dt)
        if mode != 'bicubic' and pad != 'zeros':
            ix, gm = _gs_pad(xp, ix, S, pad, align)
            mult = (mult * gm).astype(dt)
        if lin:
            gc = grid.reshape(N, P, nd).select(2, a)
            ix_t = wrap(ix) + (gc - gc.detach()) * wrap(mult)
        else:
            ix_t = wrap(ix)
        taps = []
        if mode == 'nearest':
            taps.append((xp.rint(ix), None, None))
        elif mode == 'bilinear':
            x0 = xp.floor(ix)
            taps.append((x0, wrap(x0 + 1) - ix_t, -1.0))
            taps.append((x0 + 1, ix_t - wrap(x0), 1.0))
        else:
            x0 = xp.floor(ix)
            t = ix_t - wrap(x0)
            A = -0.75
            ws = [_cubic2(t + 1, A), _cubic1(t, A), _cubic1(1 - t, A), _cubic2(2 - t, A)]
            dws = [_cubic2_d(t + 1, A), _cubic1_d(t, A), -_cubic1_d(1 - t, A),
                   -_cubic2_d(2 - t, A)]
            for k in range(4):
                xk = x0 - 1 + k
                if pad != 'zeros':
                    xk = _gs_pad(xp, xk, S, pad, align)[0]
                taps.append((xp.trunc(xk), ws[k], dws[k]))
        out = []
        for xi, w, dw in taps:
            valid = (xi >= 0) & (xi <= S - 1)
            out.append((xp.where(valid, xi, 0).astype(np.int64), valid, w, dw))
        res.append((out, wrap(mult)))
    return res


def _gs_corners(axes, sizes):
    """Every corner (one tap per axis): flat index (N, P), valid (N, P), the tap per axis."""
    import itertools
    nd = len(axes)
    strides = [1] * nd              # stride of grid component a's spatial axis
    for a in range(1, nd):
        strides[a] = strides[a - 1] * sizes[nd - a]
    for combo in itertools.product(*[range(len(ax[0])) for ax in axes]):
        taps = [axes[a][0][k] for a, k in enumerate(combo)]
        idx = taps[0][0] * strides[0]
        valid = taps[0][1]
        for a in range(1, nd):
            idx = idx + taps[a][0] * strides[a]
            valid = valid & taps[a][1]
        yield idx, valid, taps


def _corner_weight(taps, skip=None):
    w = None
    for a, tap in enumerate(taps):
        if a == skip or tap[2] is None:
            continue
        w = tap[2] if w is None else w * tap[2]
    return w


def _arr(t):
    return t._data if isinstance(t, Tensor) else t


def _corner_weight_arr(taps, valid, dt, skip=None):
    w = valid.astype(dt)
    for a, tap in enumerate(taps):
        if a != skip and tap[2] is not None:
            w = w * _arr(tap[2])
    return w


def _gs_forward(input, grid, mode, pad, align):
    """Output (N, C, P) array of grid sampling: each corner's rows gathered from the input
    laid out (N, L, C), weighted and summed."""
    a = input._data
    xp = array_module(a)
    sizes = tuple(a.shape[2:])
    N, C = a.shape[:2]
    L = math.prod(sizes)
    P = math.prod(grid.shape[1:-1])
    axes = _gs_axes(grid, sizes, mode, pad, align, False)
    xl = xp.ascontiguousarray(a.reshape(N, C, L).transpose(0, 2, 1))
    nidx = xp.arange(N)[:, None]
    out = None
    for idx, valid, taps in _gs_corners(axes, sizes):
        term = xl[nidx, idx] * _corner_weight_arr(taps, valid, a.dtype)[..., None]
        if out is None:
            out = term
        else:
            out += term
    if out is None:
        out = xp.zeros((N, P, C), dtype=a.dtype)
    return out.transpose(0, 2, 1)


def _gs_backward_fast(input, grid, g, mode, pad, align, need_input, need_grid):
    """First-order gradients of grid sampling on arrays (no graph): the input gradient as one
    bincount over every corner's (position, channel) targets; the grid gradient from the
    gathered corner rows."""
    a = input._data
    xp = array_module(a)
    dt = a.dtype
    sizes = tuple(a.shape[2:])
    N, C = a.shape[:2]
    nd = len(sizes)
    L = math.prod(sizes)
    P = math.prod(grid.shape[1:-1])
    axes = _gs_axes(grid, sizes, mode, pad, align, False)
    gl = xp.ascontiguousarray(g._data.reshape(N, C, P).transpose(0, 2, 1))      # (N, P, C)
    xl = xp.ascontiguousarray(a.reshape(N, C, L).transpose(0, 2, 1)) if need_grid else None
    nidx = xp.arange(N)[:, None]
    cidx = xp.arange(C)
    tgt, wts = [], []
    gc = [None] * nd
    for idx, valid, taps in _gs_corners(axes, sizes):
        w = _corner_weight_arr(taps, valid, dt)
        if need_input:
            tgt.append((((nidx * L + idx) * C)[..., None] + cidx).reshape(-1))
            wts.append((gl * w[..., None]).reshape(-1))
        if need_grid:
            gv = (gl * xl[nidx, idx]).sum(-1) * valid                              # (N, P)
            for ax in range(nd):
                dw = taps[ax][3]
                if dw is None:
                    continue
                term = gv * _arr(dw) * _corner_weight_arr(taps, xp.ones_like(valid), dt, ax)
                gc[ax] = term if gc[ax] is None else gc[ax] + term
    gi = gg = None
    if need_input:
        if tgt:
            flat = xp.bincount(xp.concatenate(tgt), weights=xp.concatenate(wts),
                               minlength=N * L * C)[:N * L * C]
        else:
            flat = xp.zeros(N * L * C)
        gi = wrap(xp.ascontiguousarray(
            flat.astype(dt).reshape(N, L, C).transpose(0, 2, 1)).reshape(a.shape))
    if need_grid:
        comps = [xp.zeros((N, P), dtype=dt) if gc[ax] is None else
                 (gc[ax] * _arr(axes[ax][1])).astype(dt) for ax in range(nd)]
        gg = wrap(xp.stack(comps, axis=-1).reshape(grid.shape))
    return gi, gg


class _GridSamplerBackward(Node):
    """Backward of grid sampling, in ember ops (double backward works): the input gradient
    scatter-adds ``g * weight`` onto each corner; the grid gradient sums ``g * value`` times
    the weights' derivative along each component, times d(coordinate)/d(grid)."""

    def backward(self, g):
        from .take_put import take_along_dim
        from .shape import stack
        input, grid = self.saved_tensors
        mode, pad, align = self.args
        lin = _Mode.grad                  # create_graph: the gradients in ember ops
        if not lin:
            want_grid = self.needs[1] and mode != 'nearest'
            gi, gg = _gs_backward_fast(input, grid, g, mode, pad, align, self.needs[0],
                                       want_grid)
            if self.needs[1] and gg is None:
                gg = grid.new_zeros(grid.shape)
            return gi, gg
        sizes = tuple(input.shape[2:])
        N, C = input.shape[:2]
        nd = len(sizes)
        L = math.prod(sizes)
        P = math.prod(grid.shape[1:-1])
        gf = g.reshape(N, C, P)
        axes = _gs_axes(grid, sizes, mode, pad, align, lin)
        flat = input.reshape(N, C, L)
        dt = flat._data.dtype
        gi = input.new_zeros((N, C, L)) if self.needs[0] else None
        gc = [None] * nd
        want_grid = self.needs[1] and mode != 'nearest'
        for idx, valid, taps in _gs_corners(axes, sizes):
            vmask = wrap(valid.astype(dt))
            w = _corner_weight(taps)
            wv = vmask if w is None else w * vmask
            it = wrap(idx)
            if gi is not None:
                gi = gi.scatter_add(2, it.unsqueeze(1).expand(N, C, P), gf * wv.unsqueeze(1))
            if want_grid:
                v = take_along_dim(flat, it.unsqueeze(1), 2)
                gv = (gf * v).sum(1) * vmask                      # (N, P)
                for a in range(nd):
                    dw = taps[a][3]
                    if dw is None:
                        continue
                    rest = _corner_weight(taps, skip=a)
                    term = gv * dw if rest is None else gv * dw * rest
                    gc[a] = term if gc[a] is None else gc[a] + term
        ggrid = None
        if self.needs[1]:
            comps = []
            for a in range(nd):
                mult = axes[a][1]
                comps.append(grid.new_zeros((N, P)) if gc[a] is None else gc[a] * mult)
            ggrid = stack(comps, -1).reshape(grid.shape)
        return (None if gi is None else gi.reshape(input.shape)), ggrid


class GridSampler2DBackward0(_GridSamplerBackward):
    pass


class GridSampler3DBackward0(_GridSamplerBackward):
    pass


def _gs_check(input, grid):
    si, sg = list(input.shape), list(grid.shape)
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_legacy_name(input.dtype)} but found "
                           f"{_legacy_name(grid.dtype)}")
    if not si or not sg or si[0] != sg[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {si} and grid with sizes {sg}")
    if sg[-1] != len(si) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(si) - 2} in last "
                           f"dimension, but got grid with sizes {sg}")
    if len(si) not in (4, 5) or len(sg) != len(si):
        raise RuntimeError(f"grid_sampler(): expected {4 if len(si) == 4 else 5}D input and grid "
                           "with same number of dimensions, but got input with sizes "
                           f"{si} and grid with sizes {sg}")
    for d in range(2, len(si)):
        if si[d] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {si} with dimension {d} being "
                               "empty")


@register(method=False)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """Grid sampling with integer enums (``interpolation_mode``: 0 bilinear, 1 nearest,
    2 bicubic; ``padding_mode``: 0 zeros, 1 border, 2 reflection); see :func:`grid_sample`.

    Example::

        >>> x = ember.randn(1, 1, 3, 3)
        >>> ember.grid_sampler(x, ember.zeros(1, 1, 1, 2), 0, 0, False).shape
        torch.Size([1, 1, 1, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'grid_sampler')
    if not isinstance(grid, Tensor):
        _args.tensor(grid, 'grid_sampler', 'grid', 2)
    _gs_check(input, grid)
    mode = _GS_MODES[int(interpolation_mode)]
    pad = _GS_PADS[int(padding_mode)]
    nd = input.dim() - 2
    if mode == 'bicubic' and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    _float_check(input, f'grid_sampler_{nd}d_cpu_kernel_impl')
    return _grid_sampler(input, grid, mode, pad, bool(align_corners), nd)


def _grid_sampler(input, grid, mode, pad, align, nd):
    from ..autograd.grad_mode import no_grad
    with no_grad():
        out = _gs_forward(input.detach(), grid.detach(), mode, pad, align)
    out = wrap(out.reshape(tuple(input.shape[:2]) + tuple(grid.shape[1:-1])))
    if grad_needed(input, grid):
        node = GridSampler2DBackward0() if nd == 2 else GridSampler3DBackward0()
        node.args = (mode, pad, align)
        record(out, node, (input, grid), save=(input, grid))
    return out


@register(method=False)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` on a 4-D input.

    Example::

        >>> ember.grid_sampler_2d(ember.ones(1, 1, 2, 2), ember.zeros(1, 1, 1, 2), 0, 0, False)
        tensor([[[[1.]]]])
    """
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """:func:`grid_sampler` on a 5-D input.

    Example::

        >>> ember.grid_sampler_3d(ember.ones(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3),
        ...                       0, 0, False).shape
        torch.Size([1, 1, 1, 1, 1])
    """
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None):
    """Sample ``input`` at the locations of ``grid`` (normalised to [-1, 1]).

    Args:
        input (Tensor): ``(N, C, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        grid (Tensor): ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``, the
            ``(x, y[, z])`` sampling locations.
        mode (str): ``'bilinear'`` (default), ``'nearest'`` or ``'bicubic'`` (4-D only).
        padding_mode (str): values outside the input: ``'zeros'`` (default), ``'border'``
            or ``'reflection'``.
        align_corners (bool): -1 and 1 are the centres (True) or the outer edges (False) of
            the corner pixels. Default (None, warns): False.

    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.

    Example::

        >>> x = ember.arange(4.).view(1, 1, 2, 2)
        >>> F.grid_sample(x, ember.zeros(1, 1, 1, 2), align_corners=True)
        tensor([[[[1.5000]]]])
    """
    if mode not in _GS_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in _GS_PADS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARN, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _GS_MODES.index(mode), _GS_PADS.index(padding_mode),
                        align_corners)
