"""The base of the integer kernels (see :mod:`ember._quantized.kernels`, which re-exports
everything): dtype ranges, the exact float32 fused multiply-add, quantize / dequantize as
torch's CPU kernels round, and the choice of quantization parameters."""

import numpy as np

__all__ = []

# dtype name -> (numpy storage dtype, qmin, qmax)
QTYPES = {
    'quint8': (np.uint8, 0, 255),
    'qint8': (np.int8, -128, 127),
    'qint32': (np.int32, -2 ** 31, 2 ** 31 - 1),
}

_F32_BELOW_2_31 = np.float32(2147483520.0)  # largest float32 below 2**31


def _qinfo(dtype):
    try:
        return QTYPES[dtype]
    except KeyError:
        raise ValueError(f"unsupported quantized dtype {dtype!r}") from None


def _inv_scale(scale):
    """float32 reciprocal of the float32-rounded scale (scalar or array)."""
    s = np.asarray(scale, dtype=np.float64).astype(np.float32)
    with np.errstate(divide='ignore', over='ignore'):
        return np.float32(1.0) / s


_MID_MASK = np.uint64(0x1FFFFFFF)     # the float64 bits below float32's last bit
_MID_HALF = np.uint64(0x10000000)     # ... as they are exactly halfway between two float32
_F32_TINY = np.float32(2.0 ** -126)


def _fma_f32(a, b, c):
    """``fma(a, b, c)`` rounded once to float32, for float32 ``a``, ``b`` and ``c`` (arrays or
    scalars that broadcast).

    The product of two float32 is exact in float64, and the float64 sum ``s = a*b + c`` is
    rounded once more; casting ``s`` to float32 is the correctly rounded result except
    when ``s`` lies exactly halfway between two float32 while the exact sum does not (or
    in the float32 subnormal range). Those few elements are redone with the exact error
    of the sum (two-sum), whose sign decides the rounding.
    """
    s = np.multiply(a, b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    out_shape = np.broadcast_shapes(s.shape, c.shape)
    with np.errstate(invalid='ignore', over='ignore'):
        if s.ndim and out_shape == s.shape:
            np.add(s, c, out=s)
        else:
            s = np.atleast_1d(s + c)
        shape = s.shape
        s = s.reshape(-1)
        f = s.astype(np.float32)
        maybe = np.bitwise_and(s.view(np.uint64), _MID_MASK) == _MID_HALF
        if f.size and np.abs(f).min() < _F32_TINY:
            maybe |= np.abs(f) < _F32_TINY
        if maybe.any():
            idx = np.flatnonzero(maybe)
            pb = np.broadcast_to(np.multiply(a, b, dtype=np.float64), shape).reshape(-1)[idx]
            cb = np.broadcast_to(c, shape).reshape(-1)[idx]
            sb = s[idx]
            bp = sb - cb
            e = (pb - bp) + (cb - (sb - bp))          # exact error of sb = pb + cb
            fb = f[idx]
            fd = fb.astype(np.float64)
            up = np.float32(np.inf)
            g = np.nextafter(fb, np.where(sb > fd, up, -up))
            tie = (e != 0) & np.isfinite(sb) & (sb != fd) & (
                sb == (fd + g.astype(np.float64)) * 0.5)
            f[idx] = np.where(tie, np.where(e > 0, np.maximum(fb, g), np.minimum(fb, g)), fb)
    return f.reshape(out_shape)


def quantize_per_tensor(x, scale, zero_point, dtype='quint8'):
    """Quantize a float32 array with one scale and zero point, as ``torch.quantize_per_tensor``.

    Args:
        x (ndarray): float32 values (torch refuses other float dtypes; the caller checks).
        scale (float): the scale (rounded to float32 as torch does).
        zero_point (int): the zero point, inside the dtype's range.
        dtype (str): ``'quint8'``, ``'qint8'`` or ``'qint32'``.

    Returns:
        ndarray of uint8 / int8 / int32: the integer representation.

    Example::

        >>> quantize_per_tensor(np.array([0.25, -1.0], np.float32), 0.1, 10)
        array([12,  0], dtype=uint8)
    """
    np_dt, qmin, qmax = _qinfo(dtype)
    x = np.asarray(x, dtype=np.float32)
    inv = _inv_scale(scale)
    if dtype == 'qint32':
        return _quantize_mul_add(x, inv, np.float32(zero_point), np_dt, qmin, qmax)
    t = _fma_f32(x, inv, np.float32(zero_point))
    t = np.fmin(t, _F32_BELOW_2_31)      # a NaN becomes the clip value: the maximum
    return np.clip(np.rint(t), qmin, qmax).astype(np_dt)


def _quantize_mul_add(x, inv, zp_f32, np_dt, qmin, qmax):
    # rint(float32(x * inv) + float32(zp)), clamped; NaN -> the low bits of INT_MIN
    with np.errstate(invalid='ignore', over='ignore'):
        t = np.rint(x * inv + zp_f32).astype(np.float64)
        nan = np.isnan(t)
        out = np.clip(t, qmin, qmax)
        if nan.any():
            out[nan] = qmin if np_dt is np.int32 else 0
    return out.astype(np_dt)


def quantize_per_channel(x, scales, zero_points, axis, dtype='quint8'):
    """Quantize a float32 array with one scale/zero point per slice along ``axis``,
    as ``torch.quantize_per_channel``.

    Args:
        x (ndarray): float32 values.
        scales (ndarray): float64 scales, one per channel.
        zero_points (ndarray): integer zero points, one per channel.
        axis (int): the channel dimension of ``x``.
        dtype (str): ``'quint8'``, ``'qint8'`` or ``'qint32'``.

    Returns:
        ndarray of the dtype's storage type.

    Example::

        >>> quantize_per_channel(np.ones((2, 2), np.float32), np.array([0.1, 0.5]),
        ...                      np.array([0, 3]), 1)
        array([[10,  5],
               [10,  5]], dtype=uint8)
    """
    np_dt, qmin, qmax = _qinfo(dtype)
    x = np.asarray(x, dtype=np.float32)
    shape = [1] * x.ndim
    shape[axis] = -1
    inv = _inv_scale(scales).reshape(shape)
    zp = np.asarray(zero_points).astype(np.float32).reshape(shape)
    return _quantize_mul_add(x, inv, zp, np_dt, qmin, qmax)


def dequantize_per_tensor(q, scale, zero_point):
    """``(q - zero_point) * scale`` in float32, as ``Tensor.dequantize`` on a per-tensor tensor.

    The difference is taken in int32 (wrapping as torch's does), converted to float32 and
    multiplied by the float32 scale.

    Example::

        >>> dequantize_per_tensor(np.array([12, 0], np.uint8), 0.1, 10)
        array([ 0.2, -1. ], dtype=float32)
    """
    d = np.asarray(q).astype(np.int32) - np.int32(zero_point)
    with np.errstate(over='ignore'):
        return np.float32(scale) * d.astype(np.float32)


def dequantize_per_channel(q, scales, zero_points, axis):
    """Per-channel dequantize: ``float32((float32(q) - float32(zp)) * scale)`` with the
    float64 scale, as torch's per-channel kernel.

    Example::

        >>> dequantize_per_channel(np.array([[10, 5]], np.uint8), np.array([0.1, 0.5]),
        ...                        np.array([0, 3]), 1)
        array([[1., 1.]], dtype=float32)
    """
    q = np.asarray(q)
    shape = [1] * q.ndim
    shape[axis] = -1
    zp = np.asarray(zero_points).astype(np.float32).reshape(shape)
    s = np.asarray(scales, dtype=np.float64).reshape(shape)
    return ((q.astype(np.float32) - zp).astype(np.float64) * s).astype(np.float32)


_SMALL_SCALE = float(np.float32(6.1e-5))   # torch cuts smaller scales off here


def choose_qparams(x_min, x_max, qmin=0, qmax=255, reduce_range=False,
                   preserve_sparsity=False):
    """Scale and zero point for the range ``[x_min, x_max]``, as torch's
    ``_choose_qparams_per_tensor`` and its dynamic linear/conv kernels choose them.

    The range is widened to contain 0; with ``reduce_range`` the integer range is halved
    (``qmin // 2``, ``qmax // 2``, as an 8-bit range loses its top bit). The scale is
    ``(max - min) / (qmax - qmin)`` in float64 (0 or too small to invert: 0.1; below 6.1e-5:
    6.1e-5 with the range stretched to match); the zero point comes from whichever end
    has the smaller error, rounded half to even and clamped into ``[qmin, qmax]``.

    Args:
        x_min (float): the smallest observed value (float32).
        x_max (float): the largest observed value (float32).
        qmin (int): lower end of the integer range. Default: 0.
        qmax (int): upper end of the integer range. Default: 255.
        reduce_range (bool): halve the integer range. Default: ``False``.
        preserve_sparsity (bool): symmetric range around 0. Default: ``False``.

    Returns:
        (float, int): the scale (a float64 value) and the zero point.

    Raises:
        RuntimeError: ``x_min > x_max`` or either is NaN (torch's message).

    Example::

        >>> choose_qparams(-1.0, 3.0)
        (0.01568627450980392, 64)
    """
    x_min = np.float32(x_min)
    x_max = np.float32(x_max)
    if not x_min <= x_max:
        raise RuntimeError('In ChooseQuantizationParams, min should be less than or equal '
                           'to max')
    if reduce_range:
        qmin = int(qmin / 2)
        qmax = int(qmax / 2)
    if x_min < 0 and x_max > 0 and preserve_sparsity:
        symmetric_qmin = int(-((qmax - qmin) / 2 + 1))
        symmetric_qmax = int((qmax - qmin) / 2)
        max_scale = max(abs(float(x_min) / symmetric_qmin), abs(float(x_max) / symmetric_qmax))
        x_min = np.float32(max_scale * symmetric_qmin)
        x_max = np.float32(max_scale * symmetric_qmax)
    x_min = min(float(x_min), 0.0)
    x_max = max(float(x_max), 0.0)
    scale = (x_max - x_min) / (qmax - qmin)
    fs = np.float32(scale)
    with np.errstate(divide='ignore', over='ignore'):
        if fs == 0 or np.isinf(np.float32(1.0) / fs):
            scale = 0.1
    if scale < _SMALL_SCALE:
        org = scale
        scale = _SMALL_SCALE
        if x_min == 0.0:
            x_max = _SMALL_SCALE * (qmax - qmin)
        elif x_max == 0.0:
            x_min = -_SMALL_SCALE * (qmax - qmin)
        else:
            amp = _SMALL_SCALE / org
            x_min *= amp
            x_max *= amp
    zp_from_min = qmin - x_min / scale
    zp_from_max = qmax - x_max / scale
    err_min = abs(qmin) + abs(x_min / scale)
    err_max = abs(qmax) + abs(x_max / scale)
    zp0 = zp_from_min if err_min < err_max else zp_from_max
    if preserve_sparsity and x_min < 0 and x_max > 0:
        zp0 = (qmin + qmax) / 2
    if zp0 < qmin:
        zp = qmin
    elif zp0 > qmax:
        zp = qmax
    elif zp0 != zp0:        # an infinite range: torch's int conversion of NaN
        zp = -2 ** 31
    else:
        zp = int(np.rint(zp0))
    return float(scale), zp


def tensor_min_max(x):
    """The (min, max) of a float32 array as torch's dynamic kernels read them (0, 0 when empty).

    Example::

        >>> tensor_min_max(np.array([1.0, -2.0], np.float32))
        (-2.0, 1.0)
    """
    x = np.asarray(x, dtype=np.float32)
    if x.size == 0:
        return 0.0, 0.0
    mn, mx = float(x.min()), float(x.max())
    if mn != mn:
        # torch's scan starts from the first value and its comparisons skip later NaNs
        # (NOTE: its SIMD lanes can keep a NaN in rarer positions; not reproduced)
        if np.isnan(x.flat[0]):
            return float('nan'), float('nan')
        mn, mx = float(np.nanmin(x)), float(np.nanmax(x))
    return mn, mx


def _q_val(y, scale, zp, dtype):
    """Scalar quantize (torch's ``quantize_val``): ``rint(float32(y * inv) + zp)``, clamped."""
    np_dt, qmin, qmax = _qinfo(dtype)
    y = np.asarray(y, dtype=np.float32)
    return _quantize_mul_add(y, _inv_scale(scale), np.float32(zp), np_dt, qmin, qmax)

