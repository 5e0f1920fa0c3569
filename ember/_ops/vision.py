"""Vision ops: interpolate/upsample, grid_sample, affine_grid, pixel_shuffle/unshuffle,
channel_shuffle, fold/unfold (im2col/col2im).

Resampling (``interpolate`` in every mode) is separable: along each spatial axis the output
is a weighted sum of a few gathered input slices, ``out[j] = sum_k w[k, j] * in[idx[k, j]]``
(an :class:`_AxisMap`, its indices and weights computed on the host with PyTorch's
source-index formulas, in the input's precision). The backward of such a map is its
transpose, again a map in gather form (the host inverts the index table once), so the
backward is the same kernel and double backward needs nothing more.

``grid_sample`` gathers its 4 / 8 / 16 corner values from the flattened input; its backward
is written in ember ops (scatter-add for the input, the weights' derivatives for the grid).
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
from ._util import wrap, Node, register, grad_needed, record
from .conv import _windows

__all__ = ['interpolate', 'upsample', 'upsample_nearest', 'upsample_bilinear', 'pixel_shuffle',
           'pixel_unshuffle', 'channel_shuffle', 'native_channel_shuffle', 'unfold', 'fold']


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


def _apply_maps(t, maps, node_cls):
    a = t._data
    for m in maps:
        a = m.apply(a)
    if not maps:
        a = a.copy()
    out = wrap(a)
    if _Mode.grad and t._rg:
        node = node_cls()
        node.maps = maps
        record(out, node, (t,))
    return out


def _resample(input, maps, node_cls):
    """Apply the per-axis maps, the ones that shrink first (less work), skipping identities."""
    maps = [m for m in maps if not _is_identity(m)]
    maps.sort(key=lambda m: m.n_out / m.n_in)
    return _apply_maps(input, maps, node_cls)


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


class AdaptiveAvgPool2DBackward0(_MapsBackward):
    pass


class AdaptiveAvgPool3DBackward0(_MapsBackward):
    pass


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


def _aa_filter(mode):
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


# ----------------------------------------------------------------------------- interpolate

_NEAREST_NODES = {1: UpsampleNearest1DBackward0, 2: UpsampleNearest2DBackward0,
                  3: UpsampleNearest3DBackward0}
_EXACT_NODES = {1: UpsampleNearestExact1DBackward0, 2: UpsampleNearestExact2DBackward0,
                3: UpsampleNearestExact3DBackward0}
_LINEAR = {'linear': (1, UpsampleLinear1DBackward0, 'upsample_linear1d'),
           'bilinear': (2, UpsampleBilinear2DBackward0, 'upsample_bilinear2d'),
           'trilinear': (3, UpsampleTrilinear3DBackward0, 'upsample_trilinear3d'),
           'bicubic': (2, UpsampleBicubic2DBackward0, 'upsample_bicubic2d')}


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
    if output_size is not None:
        return tuple(int(v) for v in output_size), (None,) * nd
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
        return _resample(input, maps, (_EXACT_NODES if exact else _NEAREST_NODES)[nd])
    _, node, opname = _LINEAR[kind]
    if antialias:
        node = UpsampleBilinear2DAaBackward0 if kind == 'bilinear' else \
            UpsampleBicubic2DAaBackward0
        opname = f'_{opname}_aa'
    _dtype_check(input, opname, False)
    _size_check(input, out, nd)
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
    return _resample(input, maps, node)


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
            ``'bilinear'`` (4-D) | ``'bicubic'`` (4-D) | ``'trilinear'`` (5-D) | ``'area'``.
        align_corners (bool): for the interpolating modes, map the corner pixels' centres
            onto each other (True) or the corners of the corner pixels (False, default).
        recompute_scale_factor (bool): compute the output size from ``scale_factor`` and use
            only that size (the scale is not passed on).
        antialias (bool): anti-aliasing filter when downsampling (bilinear / bicubic).

    NOTE: unlike PyTorch, ``mode='lanczos'`` is not supported, and outputs are always
    contiguous (PyTorch keeps channels_last inputs channels_last).

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
        need = {'linear': 1, 'bilinear': 2, 'bicubic': 2, 'trilinear': 3}.get(mode)
        if need == nd:
            return _upsample(input, output_size, scale_factors, nd, mode, align_corners,
                             antialias)
        if mode == 'lanczos' and nd == 2:
            raise NotImplementedError("NOTE: unlike PyTorch, ember has no lanczos mode")
        if need is not None and not (mode == 'bicubic'):
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
    res = xp.ascontiguousarray(v.transpose(perm)).reshape(b + (C // (r * r), H * r, W * r))
    out = wrap(res)
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
    res = xp.ascontiguousarray(v.transpose(perm)).reshape(b + (C * r * r, H // r, W // r))
    out = wrap(res)
    if _Mode.grad and input._rg:
        node = PixelUnshuffleBackward0()
        node.r = r
        record(out, node, (input,))
    return out


# ----------------------------------------------------------------------------- channel shuffle

class ChannelShuffleBackward0(Node):
    """Backward of ``channel_shuffle``: the inverse shuffle (``C / groups`` groups)."""

    def backward(self, g):
        return (channel_shuffle(g, g.shape[1] // self.groups),)


class NotImplemented(Node):  # noqa: A001 - PyTorch's name for ops without a derivative
    """The grad_fn PyTorch gives ops that have no derivative: backward raises."""

    def backward(self, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


def _shuffle(input, groups, fname):
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)
    g = _factor(groups, fname, 'groups')
    sh = tuple(input.shape)
    if len(sh) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(sh)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    C = sh[1]
    if C % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {C} channels "
                           f"and {g} groups.")
    a = input._data
    xp = array_module(a)
    v = a.reshape((sh[0], g, C // g) + sh[2:]).swapaxes(1, 2)
    return wrap(xp.ascontiguousarray(v).reshape(sh)), g


@register(method=False)
def channel_shuffle(input, groups):
    """Split the channels of ``(N, C, *)`` into ``groups`` groups and interleave them:
    ``(N, g, C/g, *)`` transposed to ``(N, C/g, g, *)``.

    Args:
        input (Tensor): the input, at least 3-D.
        groups (int): number of groups to divide channels in.

    Example::

        >>> F.channel_shuffle(ember.arange(4.).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    out, g = _shuffle(input, groups, 'channel_shuffle')
    if _Mode.grad and input._rg:
        node = ChannelShuffleBackward0()
        node.groups = g
        record(out, node, (input,))
    return out


@register(method=False)
def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` without a derivative (as PyTorch's native kernel).

    Args:
        input (Tensor): the input, at least 3-D.
        groups (int): number of groups to divide channels in.

    Example::

        >>> F.native_channel_shuffle(ember.arange(4.).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    out, g = _shuffle(input, groups, 'native_channel_shuffle')
    if _Mode.grad and input._rg:
        node = NotImplemented()
        node.op = 'native_channel_shuffle'
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
