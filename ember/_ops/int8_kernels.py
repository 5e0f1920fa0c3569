"""Integer kernels of quantized inference, on NumPy arrays.

These functions take and return plain NumPy arrays (the integer representation of quantized
tensors, plus their scales and zero points) and reproduce, integer for integer, what
PyTorch 2.13's CPU kernels (fbgemm / x86 engine) compute. The quantized ``Tensor`` type and
the ``torch.ops.quantized`` ops are built over them elsewhere (``ember/_ops/quantized.py``);
nothing here knows about ``Tensor``.

The arithmetic, as measured against torch 2.13 (``tests/_ops/test_int8_kernels.py`` checks
each claim against the real kernels):

* Quantizing float32 ``x`` with ``scale`` and ``zero_point``. The scale is first rounded to
  float32 and its reciprocal ``inv = 1 / scale`` is taken in float32.

  - per tensor, to ``quint8`` / ``qint8``: ``q = rint(fma(x, inv, zero_point))``, one fused
    multiply-add rounded once to float32, then rounded half to even; values above
    2147483520 (the largest float32 below 2**31) are clipped first, then the result is
    clamped to the dtype's range. NaN gives the dtype's maximum.
  - per channel (all dtypes), and per tensor to ``qint32``: the product ``x * inv`` is
    rounded to float32, then ``zero_point`` (as float32) is added in float32, then rounded
    half to even and clamped. NaN gives 0 for 8-bit dtypes and -2**31 for ``qint32``.

* Dequantizing: per tensor ``float32(scale) * float32(q - zero_point)`` (the difference
  wraps in int32), per channel ``float32(float64(float32(q) - float32(zp)) * scale)`` with
  the float64 scale.

* Requantizing an int32 accumulator (``linear``, ``conv``) to uint8: see
  :func:`linear_static`.

Integer matrix products are computed as float32 GEMMs on exactly representable integers
(see :func:`_int_matmul_f32`): every partial sum stays below 2**24, so float32 is exact,
and BLAS gives the speed that NumPy's integer ``matmul`` lacks.

What is here (integer-equal to torch unless marked ~):

* tensors: ``quantize_per_tensor``, ``quantize_per_channel``,
  ``quantize_per_channel_float_qparams`` (also 4-bit), ``dequantize_per_tensor``,
  ``dequantize_per_channel``, ``choose_qparams``/``tensor_min_max``, ``pack_4bit``/``unpack_4bit``;
* matrix ops: ``PackedLinearWeight``, ``linear_static``, ``linear_dynamic`` (float32 result
  bit-equal), ``PackedConvWeight``, ``conv_static`` (1-3d), ``conv_transpose_static``
  (1-3d), each with ``engine='fbgemm'`` (= x86, onednn for conv) or ``'qnnpack'``;
  ~``matmul`` (float GEMM inside, as torch);
* elementwise: ``relu``, ``relu6``, ``clamp``, ``leaky_relu``, ``hardsigmoid``,
  ``hardswish``, ``threshold``, ``prelu``, ``add``, ``mul`` (and ReLU forms), ``add_scalar``,
  ``mul_scalar``, ``cat``; ~``sigmoid``, ~``tanh``, ~``elu``, ~``softmax`` (transcendental
  functions: NumPy's instead of SLEEF's, equal except next to a rounding boundary);
* pooling: ``max_pool``, ``avg_pool``, ``adaptive_avg_pool`` (NCHW and channels-last),
  ``avg_pool_qnnpack``, ``upsample_nearest``;
* normalization: ``batch_norm``, ``layer_norm``, ``group_norm``, ``instance_norm``;
* embeddings: ``embedding_byte``, ``embedding_bag_byte`` (8-bit and 4-bit rows).

Inputs are not validated here: the ops built on these kernels check them first, with
torch's errors.

NOTE: these kernels are CPU-only (quantized tensors are CPU-only in PyTorch), so they use
NumPy directly rather than the backend's array module.
"""

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


# ---------------------------------------------------------------------------------------
# integer matrix products

_F32_EXACT = 2 ** 24     # every integer of magnitude <= 2**24 is a float32


def _int_matmul_f32(a, b, bound):
    """``a @ b`` for float32 arrays holding integers, exactly.

    ``bound`` bounds ``|a[i, k] * b[k, j]|``. Every partial sum a BLAS may form is bounded
    by ``K * bound``; while that is <= 2**24 one float32 GEMM is exact (float32 result).
    Otherwise the reduction is split into chunks that are, and their exact results are
    added in float64 (float64 result, exact below 2**53).
    """
    K = a.shape[-1]
    if K * bound <= _F32_EXACT:
        return np.matmul(a, b)
    kc = max(1, _F32_EXACT // bound)
    acc = None
    for k0 in range(0, K, kc):
        part = np.matmul(a[..., k0:k0 + kc], b[..., k0:k0 + kc, :]).astype(np.float64)
        acc = part if acc is None else acc + part
    return acc


class PackedLinearWeight:
    """An int8 weight prepared for :func:`linear_static` / :func:`linear_dynamic`
    (the NumPy side of ``torch.ops.quantized.linear_prepack``).

    Args:
        wq (ndarray): int8 weight, shape ``(out_features, in_features)``.
        w_scales (ndarray or float): one scale (per tensor) or ``out_features`` scales.
        w_zero_points (ndarray or int): matching zero points.
        bias (ndarray or None): float32 bias of ``out_features`` values.

    Holds the weight as the float32 matrix ``wq.T`` (exact small integers, for BLAS),
    its per-output-column sums, and the scales as float32.

    Example::

        >>> p = PackedLinearWeight(np.ones((2, 3), np.int8), 0.1, 0)
        >>> p.out_features
        2
    """

    __slots__ = ('wq', 'w_t', 'w_colsum', 'w_scales', 'w_scales32', 'w_zps', 'bias',
                 'out_features', 'in_features', 'per_channel', 'f32_exact', 'has_wzp')

    def __init__(self, wq, w_scales, w_zero_points, bias=None):
        wq = np.asarray(wq, dtype=np.int8)
        n, k = wq.shape
        self.wq = wq
        self.out_features, self.in_features = n, k
        self.per_channel = np.ndim(w_scales) > 0
        self.w_scales = np.broadcast_to(np.asarray(w_scales, dtype=np.float64), (n,)).copy()
        self.w_scales32 = self.w_scales.astype(np.float32)
        self.w_zps = np.broadcast_to(np.asarray(w_zero_points, dtype=np.int64), (n,)).copy()
        self.has_wzp = bool(self.w_zps.any())
        self.w_t = np.ascontiguousarray(wq.T, dtype=np.float32)
        self.w_colsum = wq.sum(axis=1, dtype=np.int64)
        # x_shift * colsum is exact in float32 for any |x_shift| <= 128
        self.f32_exact = (k * 128 * 128 <= _F32_EXACT
                          and 128 * int(np.abs(self.w_colsum).max(initial=0)) <= _F32_EXACT)
        self.bias = None if bias is None else np.asarray(bias, dtype=np.float32)


def _linear_acc_f32(xq_f32_centered, x_shift, packed, exact64=False):
    """float32(sum_k (x[i,k] - x_zp) * (w[j,k] - w_zp[j])) for 2-d input.

    ``xq_f32_centered`` is ``x - 128`` as float32 (integers in [-128, 127]) and
    ``x_shift = 128 - x_zp``, so ``x - x_zp = xc + x_shift``. Expanding,
    ``acc = xc @ w.T + x_shift * colsum(w) - w_zp * (rowsum(xc) + K * x_shift)``.
    """
    K = packed.in_features
    s = _int_matmul_f32(xq_f32_centered, packed.w_t, 128 * 128)
    corr = x_shift * packed.w_colsum                       # int64, per output column
    if exact64:
        corr = corr[None, :]
        if packed.has_wzp:
            rowsum = xq_f32_centered.sum(axis=1, dtype=np.float64).astype(np.int64) + K * x_shift
            corr = corr - rowsum[:, None] * packed.w_zps[None, :]
        return s.astype(np.float64) + corr                 # exact below 2**53
    if packed.has_wzp:
        rowsum = xq_f32_centered.sum(axis=1, dtype=np.float64).astype(np.int64) + K * x_shift
        corr = corr[None, :] - rowsum[:, None] * packed.w_zps[None, :]
        return (s.astype(np.float64) + corr).astype(np.float32)
    if packed.f32_exact:
        # both terms are exact float32 integers: one float32 add rounds their exact sum once
        return s + corr.astype(np.float32)
    return (s.astype(np.float64) + corr).astype(np.float32)


def _as_packed(w, w_scales, w_zero_points, bias):
    if isinstance(w, PackedLinearWeight):
        return w
    return PackedLinearWeight(w, w_scales, w_zero_points, bias)


def _requantize_u8(acc_f32, x_scale, packed_scales32, bias, out_scale, out_zp, relu):
    """fbgemm's requantization of an int32 accumulator (as float32) to uint8.

    ``act = float32(x_scale) * float32(w_scale[j])``; with a bias,
    ``v = acc + bias[j] / act`` (float32); ``y = v * (act / float32(out_scale))`` rounded
    half to even (a value of 2**31 or more in magnitude becomes INT_MIN, as the SIMD
    conversion does), plus ``out_zp``, clamped to [0, 255] ([out_zp, 255] with ReLU).
    """
    act = np.float32(x_scale) * packed_scales32
    mult = act / np.float32(out_scale)
    v = acc_f32
    if bias is not None:
        v = v + bias / act
    r = v * mult
    if not np.abs(r).max(initial=0) < np.float32(2 ** 31):
        r[~(np.abs(r) < np.float32(2 ** 31))] = -2.0 ** 31
    np.rint(r, out=r)
    r += np.float32(out_zp)
    np.clip(r, out_zp if relu else 0, 255, out=r)
    return r.astype(np.uint8)


def _qnnp_bias_int32(bias, x_scale, packed_scales32, per_channel):
    """QNNPACK quantizes the float bias to int32 with scale ``x_scale * w_scale``."""
    if per_channel:
        bs = packed_scales32 * np.float32(x_scale)
        return quantize_per_channel(bias, bs.astype(np.float64), np.zeros(bs.shape, np.int64),
                                    0, 'qint32')
    bs = float(packed_scales32.reshape(-1)[0]) * float(x_scale)
    return quantize_per_tensor(bias, bs, 0, 'qint32')


def _requantize_qnnp(acc64, x_scale, packed_scales32, bias, out_scale, out_zp, relu,
                     per_channel):
    """QNNPACK's requantization: ``acc + bias_int32`` (exact), times the float32
    multiplier ``x_scale * w_scale / out_scale``, rounded half to even, plus ``out_zp``,
    clamped to [0, 255] ([out_zp, 255] with ReLU)."""
    if bias is not None:
        bq = _qnnp_bias_int32(np.asarray(bias).reshape(-1), x_scale,
                              packed_scales32.reshape(-1), per_channel)
        acc64 = acc64 + bq.reshape(packed_scales32.shape)
    mult = (packed_scales32 * np.float32(x_scale)) / np.float32(out_scale)
    with np.errstate(over='ignore', invalid='ignore'):
        r = np.rint(acc64.astype(np.float32) * mult).astype(np.float64) + out_zp
    return np.clip(r, out_zp if relu else 0, 255).astype(np.uint8)


def linear_static(xq, x_scale, x_zero_point, w, w_scales=None, w_zero_points=None,
                  bias=None, out_scale=1.0, out_zero_point=0, relu=False, engine='fbgemm'):
    """Statically quantized linear layer, as ``torch.ops.quantized.linear`` (and
    ``linear_relu`` with ``relu=True``) on the fbgemm / x86 engine.

    Args:
        xq (ndarray): uint8 input, shape ``(*, in_features)``.
        x_scale (float): input scale.
        x_zero_point (int): input zero point.
        w (ndarray or PackedLinearWeight): int8 weight ``(out_features, in_features)``,
            or a weight packed by :class:`PackedLinearWeight` (then the next three
            arguments are ignored).
        w_scales (float or ndarray): weight scale(s), per tensor or per output channel.
        w_zero_points (int or ndarray): weight zero point(s).
        bias (ndarray or None): float32 bias.
        out_scale (float): output scale.
        out_zero_point (int): output zero point.
        relu (bool): fuse a ReLU (clamp below at the output zero point).
        engine (str): ``'fbgemm'`` (also what ``'x86'`` and ``'onednn'`` give) or
            ``'qnnpack'``.

    Returns:
        ndarray: uint8, shape ``(*, out_features)``.

    The accumulator ``sum_k (x - x_zp)(w - w_zp)`` is exact. With fbgemm the float bias
    enters divided by ``x_scale * w_scale`` before the multiply by the requantization
    multiplier (see :func:`_requantize_u8`); with QNNPACK it is first quantized to int32
    and added to the accumulator (see :func:`_requantize_qnnp`).

    Example::

        >>> linear_static(np.full((1, 2), 130, np.uint8), 0.5, 128,
        ...               np.array([[1, 2]], np.int8), 0.5, 0, None, 0.25, 10)
        array([[16]], dtype=uint8)
    """
    packed = _as_packed(w, w_scales, w_zero_points, bias)
    xq = np.asarray(xq, dtype=np.uint8)
    lead = xq.shape[:-1]
    x2 = xq.reshape(-1, packed.in_features)
    xc = x2.astype(np.float32) - np.float32(128)
    if engine == 'qnnpack':
        acc = _linear_acc_f32(xc, 128 - int(x_zero_point), packed, exact64=True)
        out = _requantize_qnnp(acc, x_scale, packed.w_scales32, packed.bias, out_scale,
                               int(out_zero_point), relu, packed.per_channel)
        return out.reshape(*lead, packed.out_features)
    acc = _linear_acc_f32(xc, 128 - int(x_zero_point), packed)
    out = _requantize_u8(acc, x_scale, packed.w_scales32, packed.bias, out_scale,
                         int(out_zero_point), relu)
    return out.reshape(*lead, packed.out_features)


def linear_dynamic(x, w, w_scales=None, w_zero_points=None, bias=None, reduce_range=True,
                   relu=False, engine='fbgemm'):
    """Dynamically quantized linear layer, as ``torch.ops.quantized.linear_dynamic`` (and
    ``linear_relu_dynamic``) on the fbgemm / x86 engine.

    The input's range (min/max over the whole tensor, widened to contain 0) gives uint8
    parameters by :func:`choose_qparams` (``reduce_range`` halves the range to [0, 127]);
    the input is quantized as :func:`quantize_per_tensor` does; the exact integer
    accumulator is scaled back with one fused multiply-add per output,
    ``fma(float32(acc), float32(x_scale) * float32(w_scale[j]), bias[j])``, then ReLU.

    Args:
        x (ndarray): float32 input, shape ``(*, in_features)``.
        w (ndarray or PackedLinearWeight): int8 weight or packed weight.
        w_scales, w_zero_points, bias: as in :func:`linear_static`.
        reduce_range (bool): quantize the input to 7 bits. Default: ``True``. QNNPACK
            ignores it (as torch does, with a warning the caller gives).
        relu (bool): apply ReLU to the result.
        engine (str): ``'fbgemm'`` (``'x86'``) or ``'qnnpack'``; QNNPACK scales back with
            a float32 multiply and a separate add instead of the fused multiply-add.

    Returns:
        ndarray: float32, shape ``(*, out_features)``; equal to torch's, bit for bit.

    Example::

        >>> linear_dynamic(np.array([[1.0, -1.0]], np.float32), np.array([[2, 1]], np.int8),
        ...                0.5, 0)
        array([[0.503937]], dtype=float32)
    """
    packed = _as_packed(w, w_scales, w_zero_points, bias)
    x = np.asarray(x, dtype=np.float32)
    lead = x.shape[:-1]
    x2 = x.reshape(-1, packed.in_features)
    mn, mx = tensor_min_max(x2)
    qnnp = engine == 'qnnpack'
    scale, zp = choose_qparams(mn, mx, 0, 255, reduce_range and not qnnp)
    inv = _inv_scale(scale)
    xc = _fma_f32(x2, inv, np.float32(zp))          # quantize_per_tensor, in place
    np.fmin(xc, _F32_BELOW_2_31, out=xc)
    np.rint(xc, out=xc)
    np.clip(xc, 0, 255, out=xc)
    if not 0 <= zp <= 255:
        # an infinite input range gives torch a zero point of -2**31; its int32
        # accumulator wraps around
        xd = xc.astype(np.int64) - zp
        wd = packed.wq.astype(np.int64) - packed.w_zps[:, None]
        acc = np.matmul(xd, wd.T).astype(np.int32).astype(np.float32)
    else:
        xc -= np.float32(128)
        acc = _linear_acc_f32(xc, 128 - zp, packed)
    m = np.float32(scale) * packed.w_scales32
    if packed.bias is None:
        y = acc * m
    elif qnnp:
        y = acc * m + packed.bias
    else:
        y = _fma_f32(acc, m, packed.bias)
    if relu:
        np.maximum(y, 0, out=y)
    return y.reshape(*lead, packed.out_features)


# ---------------------------------------------------------------------------------------
# convolution


def _im2col(xc, pad_value, kernel, stride, padding, dilation):
    """Columns of an (N, C, *spatial) float32 array for a convolution.

    Returns ``(cols, out_shape)`` with ``cols`` of shape ``(N, C, prod(kernel), P)``
    (``P`` output positions), so the product with the weight lands directly in NC(HW)
    order. Padding holds ``pad_value`` (the input's zero point, so padding adds nothing).
    """
    nd = len(kernel)
    if any(padding):
        pads = [(0, 0), (0, 0)] + [(p, p) for p in padding]
        xc = np.pad(xc, pads, constant_values=pad_value)
    n, c = xc.shape[:2]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    win = np.lib.stride_tricks.sliding_window_view(xc, spans, axis=tuple(range(2, 2 + nd)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
              + tuple(slice(None, None, d) for d in dilation)]      # (N, C, *out, *kernel)
    out_shape = win.shape[2:2 + nd]
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = np.ascontiguousarray(win.transpose(perm))                 # (N, C, *kernel, *out)
    kk = int(np.prod(kernel, dtype=np.int64))
    return cols.reshape(n, c, kk, int(np.prod(out_shape, dtype=np.int64))), out_shape


class PackedConvWeight:
    """An int8 convolution weight prepared for :func:`conv_static` (the NumPy side of
    ``torch.ops.quantized.conv2d_prepack`` and its 1-d / 3-d forms).

    Args:
        wq (ndarray): int8 weight, shape ``(out_channels, in_channels // groups, *kernel)``.
        w_scales (float or ndarray): weight scale(s), per tensor or per output channel.
        w_zero_points (int or ndarray): matching zero point(s).
        bias (ndarray or None): float32 bias, ``out_channels`` values.
        stride, padding, dilation (sequence of int): one per spatial dimension.
        groups (int): number of groups.

    Example::

        >>> p = PackedConvWeight(np.ones((4, 1, 3, 3), np.int8), 0.1, 0, None,
        ...                      (1, 1), (0, 0), (1, 1), 2)
        >>> p.kernel
        (3, 3)
    """

    __slots__ = ('wq', 'w_mat', 'w_colsum', 'w_scales', 'w_scales32', 'w_zps', 'bias',
                 'stride', 'padding', 'dilation', 'groups', 'kernel', 'out_channels',
                 'in_channels', 'per_channel')

    def __init__(self, wq, w_scales, w_zero_points, bias, stride, padding, dilation, groups):
        wq = np.asarray(wq, dtype=np.int8)
        cout, cg = wq.shape[:2]
        self.wq = wq
        self.kernel = tuple(int(k) for k in wq.shape[2:])
        self.stride = tuple(int(v) for v in stride)
        self.padding = tuple(int(v) for v in padding)
        self.dilation = tuple(int(v) for v in dilation)
        self.groups = g = int(groups)
        self.out_channels, self.in_channels = cout, cg * g
        self.per_channel = np.ndim(w_scales) > 0
        self.w_scales = np.broadcast_to(np.asarray(w_scales, dtype=np.float64), (cout,)).copy()
        self.w_scales32 = self.w_scales.astype(np.float32)
        self.w_zps = np.broadcast_to(np.asarray(w_zero_points, dtype=np.int64), (cout,)).copy()
        # (groups, Cout / groups, Cg * prod(kernel))
        w2 = wq.reshape(g, cout // g, -1)
        self.w_mat = np.ascontiguousarray(w2, dtype=np.float32)
        self.w_colsum = w2.sum(axis=2, dtype=np.int64).reshape(cout)
        self.bias = None if bias is None else np.asarray(bias, dtype=np.float32)


def conv_static(xq, x_scale, x_zero_point, packed, out_scale, out_zero_point, relu=False,
                engine='fbgemm'):
    """Statically quantized convolution (1-d, 2-d or 3-d), as
    ``torch.ops.quantized.conv{1,2,3}d`` / ``conv{1,2,3}d_relu`` on the fbgemm engine.

    Args:
        xq (ndarray): uint8 input, shape ``(N, C_in, *spatial)``.
        x_scale (float): input scale.
        x_zero_point (int): input zero point (the value padding holds).
        packed (PackedConvWeight): the weight with its geometry.
        out_scale (float): output scale.
        out_zero_point (int): output zero point.
        relu (bool): fuse a ReLU.
        engine (str): ``'fbgemm'`` (also what ``'x86'`` and ``'onednn'`` give) or
            ``'qnnpack'``.

    Returns:
        ndarray: uint8, shape ``(N, C_out, *out_spatial)``.

    The exact accumulator ``sum (x - x_zp)(w - w_zp)`` over each window is requantized as
    in :func:`linear_static` for the engine.

    Example::

        >>> p = PackedConvWeight(np.ones((1, 1, 2, 2), np.int8), 0.5, 0, None,
        ...                      (1, 1), (0, 0), (1, 1), 1)
        >>> conv_static(np.full((1, 1, 2, 2), 2, np.uint8), 1.0, 0, p, 1.0, 0)
        array([[[[4]]]], dtype=uint8)
    """
    xq = np.asarray(xq, dtype=np.uint8)
    n = xq.shape[0]
    g = packed.groups
    cout = packed.out_channels
    xz = int(x_zero_point)
    xc = xq.astype(np.float32)
    xc -= np.float32(128)
    cols, out_shape = _im2col(xc, np.float32(xz - 128), packed.kernel, packed.stride,
                              packed.padding, packed.dilation)
    P = cols.shape[-1]
    kk = cols.shape[1] // g * cols.shape[2]
    a = cols.reshape(n, g, kk, P)
    s = _int_matmul_f32(packed.w_mat, a, 128 * 128)          # (N, g, Cout/g, P)
    s = s.reshape(n, cout, P)
    shift = 128 - xz
    corr = (shift * packed.w_colsum)[:, None]                  # (Cout, 1)
    if engine == 'qnnpack':
        acc = s.astype(np.float64) + corr
        if packed.w_zps.any():
            rows = a.sum(axis=2, dtype=np.float64).astype(np.int64) + kk * shift
            acc = acc - np.repeat(rows, cout // g, axis=1) * packed.w_zps[:, None]
        out = _requantize_qnnp(acc, x_scale, packed.w_scales32[:, None], packed.bias,
                               out_scale, int(out_zero_point), relu, packed.per_channel)
        return out.reshape((n, cout) + tuple(out_shape))
    if packed.w_zps.any():
        rows = a.sum(axis=2, dtype=np.float64).astype(np.int64) + kk * shift   # (N, g, P)
        rows = np.repeat(rows, cout // g, axis=1)                                # (N, Cout, P)
        acc = (s.astype(np.float64) + (corr - rows * packed.w_zps[:, None])).astype(np.float32)
    elif kk * 128 * 128 <= _F32_EXACT and np.abs(corr).max(initial=0) <= _F32_EXACT:
        acc = s + corr.astype(np.float32)        # exact terms: one rounding of the exact sum
    else:
        acc = (s.astype(np.float64) + corr).astype(np.float32)
    bias = None if packed.bias is None else packed.bias[:, None]
    out = _requantize_u8(acc, x_scale, packed.w_scales32[:, None], bias, out_scale,
                         int(out_zero_point), relu)
    return out.reshape((n, cout) + tuple(out_shape))


def conv_transpose_static(xq, x_scale, x_zero_point, wq, w_scales, w_zero_points, bias,
                          stride, padding, output_padding, dilation, groups, out_scale,
                          out_zero_point, relu=False):
    """Statically quantized transposed convolution (1-d, 2-d, 3-d), as
    ``torch.ops.quantized.conv_transpose{1,2,3}d`` on the fbgemm engine.

    Args:
        xq (ndarray): uint8 input ``(N, C_in, *spatial)``.
        wq (ndarray): int8 weight ``(C_in, C_out // groups, *kernel)``.
        w_scales, w_zero_points: per tensor, or per output channel (``C_out`` values).
        bias (ndarray or None): float32 bias (``C_out``).
        stride, padding, output_padding, dilation (sequence of int): per spatial dimension.
        relu (bool): clamp below at the output zero point (torch has no fused form).

    Returns:
        ndarray: uint8 ``(N, C_out, *out_spatial)``, ``out = (in - 1) * stride - 2 * padding
        + dilation * (kernel - 1) + output_padding + 1``.

    The exact accumulator (each input value times each weight, scattered to its output
    position) is requantized as in :func:`linear_static`.

    Example::

        >>> conv_transpose_static(np.full((1, 1, 1, 1), 2, np.uint8), 1.0, 0,
        ...                       np.ones((1, 1, 2, 2), np.int8), 0.5, 0, None, (1, 1),
        ...                       (0, 0), (0, 0), (1, 1), 1, 1.0, 0)
        array([[[[1, 1],
                 [1, 1]]]], dtype=uint8)
    """
    xq = np.asarray(xq, dtype=np.uint8)
    wq = np.asarray(wq, dtype=np.int8)
    n, cin = xq.shape[:2]
    g = int(groups)
    cout_g = wq.shape[1]
    cout = cout_g * g
    kernel = wq.shape[2:]
    nd = len(kernel)
    spatial = xq.shape[2:]
    wz = np.broadcast_to(np.asarray(w_zero_points, np.int64), (cout,))
    ws32 = np.broadcast_to(np.asarray(w_scales, np.float64), (cout,)).astype(np.float32)
    # weight minus its zero point, as (g, Cout_g * K, Cin_g)
    wd = wq.astype(np.int64).reshape((g, cin // g, cout_g) + tuple(kernel))
    wd = wd - wz.reshape(g, 1, cout_g, *([1] * nd))
    kk = int(np.prod(kernel, dtype=np.int64))
    wmat = wd.reshape(g, cin // g, cout_g * kk).transpose(0, 2, 1).astype(np.float32)
    xd = (xq.astype(np.int32) - int(x_zero_point)).astype(np.float32)
    xd = xd.reshape(n, g, cin // g, int(np.prod(spatial, dtype=np.int64)))  # (N, g, Cin_g, P)
    cols = _int_matmul_f32(np.ascontiguousarray(wmat), xd,
                           255 * int(np.abs(wd).max(initial=1)))          # (N, g, Cout_g*K, P)
    cols = cols.astype(np.float64).reshape((n, cout, *kernel) + tuple(spatial))
    full = [(spatial[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
            + output_padding[i] for i in range(nd)]
    acc = np.zeros((n, cout) + tuple(full), dtype=np.float64)
    for off in np.ndindex(*kernel):                                       # col2im
        sl = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (m - 1) * st + 1, st)
            for o, d, m, st in zip(off, dilation, spatial, stride))
        acc[sl] += cols[(slice(None), slice(None)) + off]
    crop = (slice(None), slice(None)) + tuple(
        slice(padding[i], full[i] - padding[i]) for i in range(nd))
    acc = acc[crop].astype(np.float32)
    shape = (1, cout) + (1,) * nd
    b = None if bias is None else np.asarray(bias, np.float32).reshape(shape)
    return _requantize_u8(acc, x_scale, ws32.reshape(shape), b, out_scale,
                          int(out_zero_point), relu)


# ---------------------------------------------------------------------------------------
# elementwise ops: a SIMD body and a scalar tail
#
# torch's elementwise quantized kernels run a vectorized body over whole SIMD vectors
# (64 one-byte values, or 16 int32, with AVX-512) and a scalar loop over the last
# ``n % 64`` values of each contiguous run; the two round differently in halfway cases
# (the body dequantizes with a fused multiply-add and adds the zero point after rounding,
# the tail dequantizes with ``scale * (q - zp)`` and adds the zero point before rounding).
# Each kernel below reproduces both and applies them to the same positions as torch does
# for a contiguous tensor iterated in one piece (a single thread, or fewer than 32768
# elements). Positions are memory positions: pass a channels-last tensor (what torch's
# quantized convolutions return) as its NHWC array, e.g. ``np.moveaxis(q, 1, -1)``, and
# move the result back; the logical NCHW order would split body and tail elsewhere.
# With ``num_threads`` > 1 (torch's ``get_num_threads()``) and 32768 elements or more, each
# thread's range has its own tail, as torch's ``parallel_for`` splits it (see ``_chunks``).

SIMD_BYTES = 64     # AVX-512, the capability torch 2.13 dispatches to on this class of CPU


def _vec_len(dtype):
    return SIMD_BYTES // np.dtype(_qinfo(dtype)[0]).itemsize


def _split(n, dtype):
    """Index where the scalar tail starts for ``n`` contiguous values."""
    return n - n % _vec_len(dtype)


def _deq_fma(q, scale, zp):
    """SIMD dequantize: ``fma(q, scale, -zp * scale)`` in float32."""
    s = np.float32(scale)
    return _fma_f32(q.astype(np.float32), s, s * np.float32(-zp))


def _deq_sub(q, scale, zp):
    """``float32(scale) * float32(q - zp)`` (the scalar dequantize, and the SIMD one some
    kernels use)."""
    return np.float32(scale) * (q.astype(np.int32) - np.int32(zp)).astype(np.float32)


def _q_vec(y, inv, zp, dtype):
    """SIMD quantize: ``rint(min(y * inv, 2147483520)) + zp``, clamped (NaN -> qmax)."""
    np_dt, qmin, qmax = _qinfo(dtype)
    with np.errstate(invalid='ignore', over='ignore'):
        t = np.fmin(y * np.float32(inv), _F32_BELOW_2_31)
        r = np.rint(t).astype(np.float64)
        r[r < -2.0 ** 31] = -2.0 ** 31
        r += zp
    return np.clip(r, qmin, qmax).astype(np_dt)


def _q_val(y, scale, zp, dtype):
    """Scalar quantize (torch's ``quantize_val``): ``rint(float32(y * inv) + zp)``, clamped."""
    np_dt, qmin, qmax = _qinfo(dtype)
    y = np.asarray(y, dtype=np.float32)
    return _quantize_mul_add(y, _inv_scale(scale), np.float32(zp), np_dt, qmin, qmax)


_GRAIN = 32768      # torch's TensorIterator grain size


def _chunks(n, num_threads):
    """The ranges torch's ``parallel_for`` gives its threads for ``n`` elements: one range
    below the grain size or with one thread, else ``ceil(n / t)``-sized pieces for
    ``t = min(num_threads, ceil(n / grain))`` threads. Each piece has its own scalar tail."""
    if n < _GRAIN or num_threads <= 1:
        return [(0, n)]
    t = min(int(num_threads), -(-n // _GRAIN))
    size = -(-n // t)
    return [(b, min(n, b + size)) for b in range(0, n, size)]


def _unary(q, dtype, body, tail, num_threads=1, arrays=None):
    """Apply ``body`` to the SIMD part and ``tail`` to the scalar tail of each thread's
    range of flat ``q`` (``arrays`` are further flat operands sliced alike)."""
    q = np.asarray(q)
    flat = q.reshape(-1)
    others = [np.asarray(a).reshape(-1) for a in (arrays or ())]
    out = np.empty(flat.shape, dtype=_qinfo(dtype)[0])
    for lo, hi in _chunks(flat.size, num_threads):
        m = lo + _split(hi - lo, dtype)
        if m > lo:
            out[lo:m] = body(flat[lo:m], *[a[lo:m] for a in others])
        if m < hi:
            out[m:hi] = tail(flat[m:hi], *[a[m:hi] for a in others])
    return out.reshape(q.shape)


def relu(q, zero_point):
    """``max(q, zero_point)``: quantized ReLU (exact; output qparams are the input's).

    Example::

        >>> relu(np.array([3, 10], np.uint8), 5)
        array([ 5, 10], dtype=uint8)
    """
    q = np.asarray(q)
    return np.maximum(q, np.asarray(zero_point).astype(q.dtype))


def relu6(q, scale, zero_point, dtype='quint8'):
    """Quantized ReLU6 (``torch.ops.quantized.relu6``): clamp between the zero point and
    6.0 quantized with the input's parameters; output qparams are the input's.

    Example::

        >>> relu6(np.array([0, 200], np.uint8), 0.1, 10)
        array([10, 70], dtype=uint8)
    """
    q = np.asarray(q)
    six = int(_q_val(np.float32(6.0), scale, zero_point, dtype))
    return np.clip(q, zero_point, max(six, zero_point)).astype(q.dtype)


def clamp(q, scale, zero_point, min_val=None, max_val=None, dtype='quint8'):
    """Quantized ``clamp``: the bounds are quantized with the input's parameters, then the
    integers are clamped (output qparams are the input's).

    Example::

        >>> clamp(np.array([0, 200], np.uint8), 0.1, 10, -0.5, 2.0)
        array([ 5, 30], dtype=uint8)
    """
    q = np.asarray(q)
    out = q
    if min_val is not None:
        out = np.maximum(out, _q_val(np.float32(min_val), scale, zero_point, dtype))
    if max_val is not None:
        out = np.minimum(out, _q_val(np.float32(max_val), scale, zero_point, dtype))
    return np.asarray(out, dtype=q.dtype)


def _dequant_map_quant(q, scale, zp, out_scale, out_zp, dtype, f_vec, f_tail=None,
                       inv=None, deq_vec=_deq_fma, num_threads=1):
    """The dequantize -> float function -> quantize pattern of torch's quantized
    activations. ``inv`` is the float32 reciprocal the SIMD body multiplies by (kernels
    differ in how they compute it); the tail always uses ``quantize_val``."""
    f_tail = f_vec if f_tail is None else f_tail
    if inv is None:
        inv = np.float32(1.0) / np.float32(out_scale)
    return _unary(
        q, dtype,
        lambda a: _q_vec(f_vec(deq_vec(a, scale, zp)), inv, out_zp, dtype),
        lambda a: _q_val(f_tail(_deq_sub(a, scale, zp)), out_scale, out_zp, dtype),
        num_threads)


def leaky_relu(q, scale, zero_point, negative_slope, out_scale, out_zero_point,
               dtype='quint8', num_threads=1):
    """Quantized ``leaky_relu`` (``torch.ops.quantized.leaky_relu`` / ``F.leaky_relu`` on a
    quantized tensor): ``x if x > 0 else x * negative_slope`` in float32 between a
    dequantize and a quantize with the output parameters.

    Example::

        >>> leaky_relu(np.array([0, 20], np.uint8), 0.1, 10, 0.5, 0.1, 10)
        array([ 5, 20], dtype=uint8)
    """
    a = np.float32(negative_slope)

    def f(x):
        return np.where(x > 0, x, x * a)
    return _dequant_map_quant(q, scale, zero_point, out_scale, out_zero_point, dtype, f,
                              num_threads=num_threads)


def hardsigmoid(q, scale, zero_point, dtype='quint8', num_threads=1):
    """Quantized hardsigmoid: ``min(max(x + 3, 0), 6) / 6``, output scale 1/256 (2**-32
    for qint32) and zero point 0 (-128 for qint8), as torch fixes them.

    Returns:
        (ndarray, float, int): the integers and the output scale and zero point.

    Example::

        >>> hardsigmoid(np.array([0, 255], np.uint8), 0.1, 128)[0]
        array([  0, 255], dtype=uint8)
    """
    out_scale = 2.0 ** -32 if dtype == 'qint32' else 2.0 ** -8
    out_zp = -128 if dtype == 'qint8' else 0

    def f(x):
        return np.minimum(np.maximum(x + np.float32(3), np.float32(0)), np.float32(6)) / \
            np.float32(6)
    out = _dequant_map_quant(q, scale, zero_point, out_scale, out_zp, dtype, f,
                             num_threads=num_threads)
    return out, out_scale, out_zp


def hardswish(q, scale, zero_point, out_scale, out_zero_point, dtype='quint8',
              num_threads=1):
    """Quantized hardswish: ``x * min(max(x + 3, 0), 6) / 6`` in float32.

    Example::

        >>> hardswish(np.array([0, 255], np.uint8), 0.1, 128, 0.1, 128)
        array([128, 255], dtype=uint8)
    """
    def f(x):
        return x * np.minimum(np.maximum(x + np.float32(3), np.float32(0)),
                              np.float32(6)) / np.float32(6)
    inv = np.float32(1.0 / float(out_scale))
    return _dequant_map_quant(q, scale, zero_point, out_scale, out_zero_point, dtype, f,
                              inv=inv, num_threads=num_threads)


def _fixed_out_params(dtype, signed_zp, unsigned_zp, bits8_scale, int32_scale):
    if dtype == 'qint32':
        return int32_scale, 0
    return bits8_scale, (signed_zp if dtype == 'qint8' else unsigned_zp)


def sigmoid(q, scale, zero_point, dtype='quint8', num_threads=1):
    """Quantized sigmoid, output scale 1/256 and zero point 0 (qint8: -128; qint32:
    2**-32 and 0), as torch fixes them.

    The SIMD body computes ``1 / (1 + exp(-x))`` in float32, the tail in float64 from a
    float32 ``exp``. NOTE: unlike PyTorch, whose SIMD ``exp`` is SLEEF's (1-ulp), this uses
    NumPy's float32 ``exp``; the two can differ by an ulp, which changes an output integer
    only when the exact value lies within an ulp of a rounding boundary.

    Returns:
        (ndarray, float, int): the integers and the output scale and zero point.

    Example::

        >>> sigmoid(np.array([128], np.uint8), 0.1, 128)[0]
        array([128], dtype=uint8)
    """
    out_scale, out_zp = _fixed_out_params(dtype, -128, 0, 2.0 ** -8, 2.0 ** -32)
    one = np.float32(1)

    def f_vec(x):
        with np.errstate(over='ignore'):
            return one / (one + np.exp(-x))

    def f_tail(x):
        with np.errstate(over='ignore'):
            return (1.0 / (1.0 + np.exp(-x).astype(np.float64))).astype(np.float32)
    out = _dequant_map_quant(q, scale, zero_point, out_scale, out_zp, dtype, f_vec, f_tail,
                             inv=np.float32(1.0 / out_scale), deq_vec=_deq_sub,
                             num_threads=num_threads)
    return out, out_scale, out_zp


def tanh(q, scale, zero_point, dtype='quint8', num_threads=1):
    """Quantized tanh, output scale 2/256 with zero point 128 (quint8) or 0 (qint8);
    qint32: 2**-31 and 0, as torch fixes them.

    NOTE: unlike PyTorch (SLEEF's float32 ``tanh`` in the SIMD body), this uses NumPy's
    float32 ``tanh``; see :func:`sigmoid` for what an ulp can change.

    Returns:
        (ndarray, float, int): the integers and the output scale and zero point.

    Example::

        >>> tanh(np.array([128], np.uint8), 0.1, 128)[0]
        array([128], dtype=uint8)
    """
    out_scale, out_zp = _fixed_out_params(dtype, 0, 128, 2.0 / 256, 2.0 ** -31)
    out = _dequant_map_quant(q, scale, zero_point, out_scale, out_zp, dtype, np.tanh,
                             inv=np.float32(1.0 / out_scale), num_threads=num_threads)
    return out, out_scale, out_zp


def elu(q, scale, zero_point, out_scale, out_zero_point, alpha=1.0, dtype='quint8',
        num_threads=1):
    """Quantized ELU (``torch.ops.quantized.elu``): ``x`` for ``x > 0``, else
    ``expm1(x) * alpha``, in float32.

    NOTE: unlike PyTorch (SLEEF's ``expm1`` in the SIMD body), this uses NumPy's float32
    ``expm1``; see :func:`sigmoid` for what an ulp can change.

    Example::

        >>> elu(np.array([0, 20], np.uint8), 0.1, 10, 0.1, 10)
        array([ 4, 20], dtype=uint8)
    """
    a = np.float32(alpha)

    def f_vec(x):
        return np.where(x > 0, x, np.expm1(x) * a)

    def f_tail(x):
        return np.where(x >= 0, x, np.expm1(x) * a)
    inv = np.float32(1.0 / float(np.float32(out_scale)))
    return _dequant_map_quant(q, scale, zero_point, out_scale, out_zero_point, dtype,
                              f_vec, f_tail, inv=inv, num_threads=num_threads)


def _binary(a, b, dtype, body, tail, num_threads=1):
    return _unary(a, dtype, body, tail, num_threads, arrays=(b,))


def add(qa, a_scale, a_zp, qb, b_scale, b_zp, out_scale, out_zp, relu=False,
        dtype='quint8', num_threads=1):
    """Quantized addition (``torch.ops.quantized.add`` / ``add_relu``) of two same-shape,
    contiguous, per-tensor quantized arrays of the same dtype.

    Dequantizes both (float32), adds, applies ReLU if asked, quantizes with the output
    parameters (SIMD body and scalar tail as torch, see the section comment).

    Example::

        >>> add(np.array([10], np.uint8), 0.5, 0, np.array([4], np.uint8), 0.5, 0, 1.0, 0)
        array([7], dtype=uint8)
    """
    inv = np.float32(1.0) / np.float32(out_scale)
    zero = np.float32(0)

    def body(x, y):
        c = _deq_fma(x, a_scale, a_zp) + _deq_fma(y, b_scale, b_zp)
        if relu:
            c = np.maximum(c, zero)
        return _q_vec(c, inv, out_zp, dtype)

    def tail(x, y):
        c = _deq_sub(x, a_scale, a_zp) + _deq_sub(y, b_scale, b_zp)
        if relu:
            c = np.maximum(c, zero)
        return _q_val(c, out_scale, out_zp, dtype)
    return _binary(qa, qb, dtype, body, tail, num_threads)


def _requantize_from_int(c, multiplier, zp, dtype):
    """``clamp(zp + rint(float32(c) * multiplier))`` for int32 ``c`` (float32 product)."""
    _, qmin, qmax = _qinfo(dtype)
    with np.errstate(over='ignore', invalid='ignore'):
        y = c.astype(np.float32) * np.float32(multiplier)
        big = ~(np.abs(y) < np.float32(2 ** 31))
        r = np.rint(y).astype(np.float64)
        if big.any():
            r[big] = -2.0 ** 31
    return np.clip(r + zp, qmin, qmax).astype(_qinfo(dtype)[0])


def mul(qa, a_scale, a_zp, qb, b_scale, b_zp, out_scale, out_zp, relu=False,
        dtype='quint8'):
    """Quantized multiplication (``torch.ops.quantized.mul`` / ``mul_relu``): the exact
    integer product ``(a - a_zp) * (b - b_zp)`` requantized with the float32 multiplier
    ``a_scale * b_scale * (1 / out_scale)``.

    Example::

        >>> mul(np.array([10], np.uint8), 0.5, 0, np.array([4], np.uint8), 0.5, 0, 1.0, 0)
        array([10], dtype=uint8)
    """
    mult = np.float32(a_scale) * np.float32(b_scale) * (np.float32(1.0) / np.float32(out_scale))
    a = np.asarray(qa).astype(np.int32) - np.int32(a_zp)
    b = np.asarray(qb).astype(np.int32) - np.int32(b_zp)
    out = _requantize_from_int(a * b, mult, out_zp, dtype)
    if relu:
        out = np.maximum(out, np.asarray(out_zp).astype(out.dtype))
    return out


def add_scalar(q, scale, zero_point, other, relu=False, dtype='quint8'):
    """Quantized tensor + Python number (``torch.ops.quantized.add_scalar`` /
    ``add_scalar_relu``): the scalar becomes ``c_q = rint(other / scale)``; while
    ``zero_point - c_q`` is a valid zero point the integers are kept and only the zero
    point changes, otherwise the output range is re-fitted to the dtype's range and the
    values requantized.

    Returns:
        (ndarray, float, int): the integers and the output scale and zero point.

    Example::

        >>> add_scalar(np.array([10], np.uint8), 0.5, 20, 1.0)
        (array([10], dtype=uint8), 0.5, 18)
    """
    np_dt, qmin, qmax = _qinfo(dtype)
    q = np.asarray(q)
    s = float(scale)
    z = int(zero_point)
    c_q = int(np.rint(float(other) / s))
    if qmin > z - c_q:
        s2, z2 = (float(qmax) - (z - c_q)) / (float(qmax) - qmin) * s, qmin
    elif qmax < z - c_q:
        s2, z2 = (float(z - c_q) - qmin) / (float(qmax) - qmin) * s, qmax
    else:
        out = q.copy()
        if relu:
            out = np.maximum(out, np.asarray(z - c_q).astype(np_dt))
        return out, s, z - c_q
    mult = np.float32(s) * (np.float32(1.0) / np.float32(s2))
    c = q.astype(np.int32) - np.int32(z) + np.int32(c_q)
    out = _requantize_from_int(c, mult, z2, dtype)
    if relu:
        out = np.maximum(out, np.asarray(z2).astype(np_dt))
    return out, s2, z2


def mul_scalar(q, scale, zero_point, other, relu=False, dtype='quint8'):
    """Quantized tensor * Python number (``torch.ops.quantized.mul_scalar`` /
    ``mul_scalar_relu``): exact in the integers; a positive factor scales the scale, zero
    gives zeros with scale 1.0 and zero point 0, a negative one mirrors the integers
    (``qmax + qmin - q``) with the mirrored zero point.

    Returns:
        (ndarray, float, int): the integers and the output scale and zero point.

    Example::

        >>> mul_scalar(np.array([10], np.uint8), 0.5, 20, -2.0)
        (array([245], dtype=uint8), 1.0, 235)
    """
    np_dt, qmin, qmax = _qinfo(dtype)
    q = np.asarray(q)
    other = float(other)
    if other > 0:
        out = relu_out = q.copy()
        if relu:
            out = np.maximum(relu_out, np.asarray(zero_point).astype(np_dt))
        return out, other * float(scale), int(zero_point)
    if other == 0:
        return np.zeros_like(q), 1.0, 0
    z2 = qmax - (int(zero_point) - qmin)
    out = (qmax + qmin - q.astype(np.int64)).astype(np_dt)
    if relu:
        out = np.maximum(out, np.asarray(z2).astype(np_dt))
    return out, abs(other) * float(scale), z2


# ---------------------------------------------------------------------------------------
# pooling (NCHW-contiguous inputs: torch's channels-last kernels round differently)


def _pool_out_size(n, k, p, s, d, ceil_mode):
    """PyTorch's pooling output length."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _windows(a, kernel, stride, dilation, out_sizes):
    """(N, C, *spatial) padded array -> (N, C, *out, *kernel) strided view."""
    nd = len(kernel)
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    win = np.lib.stride_tricks.sliding_window_view(a, spans, axis=tuple(range(2, 2 + nd)))
    sl = (slice(None), slice(None)) + tuple(
        slice(0, (o - 1) * s + 1, s) for o, s in zip(out_sizes, stride)) + tuple(
        slice(None, None, d) for d in dilation)
    return win[sl]


def _pad_for_pool(q, kernel, stride, padding, dilation, out_sizes, value):
    nd = len(kernel)
    pads = [(0, 0), (0, 0)]
    for i in range(nd):
        need = (out_sizes[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1
        right = max(0, need - q.shape[2 + i] - padding[i])
        pads.append((padding[i], right))
    if not any(p for pair in pads for p in pair):
        return q
    return np.pad(q, pads, constant_values=value)


def max_pool(q, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Quantized max pooling over the trailing ``len(kernel_size)`` dimensions (1-d, 2-d,
    3-d), as ``torch.nn.functional.max_pool2d`` and friends on a quantized tensor: the
    integers' maximum (exact; output qparams are the input's).

    Args:
        q (ndarray): integers, shape ``(N, C, *spatial)``.
        kernel_size, stride, padding, dilation (tuple of int): per spatial dimension
            (``stride`` defaults to ``kernel_size``).
        ceil_mode (bool): round the output size up.

    Example::

        >>> max_pool(np.arange(16, dtype=np.uint8).reshape(1, 1, 4, 4), (2, 2))
        array([[[[ 5,  7],
                 [13, 15]]]], dtype=uint8)
    """
    q = np.asarray(q)
    kernel, stride, padding, dilation = _pool_args(q, kernel_size, stride, padding, dilation)
    outs = [_pool_out_size(q.shape[2 + i], kernel[i], padding[i], stride[i], dilation[i],
                           ceil_mode) for i in range(len(kernel))]
    nd = len(kernel)
    if (kernel == stride and not any(padding) and all(d == 1 for d in dilation)
            and all(q.shape[2 + i] == outs[i] * kernel[i] for i in range(nd))):
        # non-overlapping windows tiling the input: one reshape and one reduction
        split = q.shape[:2] + tuple(v for o, k in zip(outs, kernel) for v in (o, k))
        return q.reshape(split).max(axis=tuple(range(3, 3 + 2 * nd, 2)))
    lowest = np.iinfo(q.dtype).min
    a = _pad_for_pool(q, kernel, stride, padding, dilation, outs, lowest)
    out = None
    for off in np.ndindex(*kernel):             # one strided slice per kernel offset
        sl = (Ellipsis,) + tuple(slice(o * d, o * d + (m - 1) * st + 1, st)
                                 for o, d, m, st in zip(off, dilation, outs, stride))
        out = a[sl].copy() if out is None else np.maximum(out, a[sl], out=out)
    return out


def _pool_args(q, kernel_size, stride, padding, dilation):
    nd = len(kernel_size)

    def tup(v, default):
        if v is None or (isinstance(v, (tuple, list)) and len(v) == 0):
            v = default
        return tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,) * nd))
    kernel = tup(kernel_size, None)
    return kernel, tup(stride, kernel), tup(padding, 0), tup(dilation, 1)


def avg_pool(q, zero_point, kernel_size, stride=None, padding=0, ceil_mode=False,
             count_include_pad=True, divisor_override=None, scale_ratio=1.0,
             channels_last=False):
    """Quantized average pooling (2-d, 3-d) of an NCHW-contiguous tensor, as
    ``torch.nn.functional.avg_pool2d`` on a quantized tensor (output qparams are the
    input's, so ``scale_ratio = in_scale / out_scale`` is 1).

    Per window: ``acc = sum(q) - size * zero_point`` (``size`` counts the in-bounds
    elements), ``multiplier = float32(scale_ratio / divisor)`` (the divisor is the window
    size with or without padding, or ``divisor_override``), and the output is
    ``rint(float32(float32(acc) * multiplier) + zero_point)``, clamped to the dtype.

    ``channels_last=True`` gives what torch computes for a channels-last-contiguous input
    (the memory format torch's quantized convolutions return; an NCHW tensor with one
    channel or a 1x1 spatial size is one too, and torch takes this path for it): channels
    below
    ``C - C % 16`` (8-bit) round ``rint(float32(acc) * multiplier)`` and add the zero point
    after rounding; the others quantize ``acc`` with scale ``1 / multiplier`` as
    ``quantize_val`` does.

    Example::

        >>> avg_pool(np.array([[[[1, 2], [3, 5]]]], np.uint8), 0, (2, 2))
        array([[[[3]]]], dtype=uint8)
    """
    q = np.asarray(q)
    _, qmin, qmax = {np.dtype(v[0]): v for v in QTYPES.values()}[q.dtype]
    kernel, stride, padding, _ = _pool_args(q, kernel_size, stride, padding, 1)
    nd = len(kernel)
    outs = [_pool_out_size(q.shape[2 + i], kernel[i], padding[i], stride[i], 1, ceil_mode)
            for i in range(nd)]
    if min(outs) <= 0:     # torch raises for NCHW input and returns an empty channels-last one
        return np.empty(q.shape[:2] + tuple(max(o, 0) for o in outs), dtype=q.dtype)
    a = _pad_for_pool(q.astype(np.int64), kernel, stride, padding, (1,) * nd, outs, 0)
    sums = _windows(a, kernel, stride, (1,) * nd, outs).sum(axis=tuple(range(-nd, 0)))
    size = np.ones((1,) * nd, dtype=np.int64)
    pool = np.ones((1,) * nd, dtype=np.int64)
    for i in range(nd):
        n = q.shape[2 + i]
        start = np.arange(outs[i]) * stride[i] - padding[i]
        end = np.minimum(start + kernel[i], n + padding[i])
        shape = [1] * nd
        shape[i] = -1
        pool = pool * (end - start).reshape(shape)
        size = size * (np.minimum(end, n) - np.maximum(start, 0)).reshape(shape)
    if divisor_override:
        div = np.full_like(size, int(divisor_override))
    else:
        div = pool if count_include_pad else size
    acc = (sums - size * int(zero_point)).astype(np.float32)
    if channels_last:
        mult = (np.float32(scale_ratio) / div.astype(np.float32)).astype(np.float32)
        return _nhwc_requant(acc, mult, int(zero_point), q.dtype, qmin, qmax, fma_body=False)
    mult = (float(scale_ratio) / div).astype(np.float32)
    y = np.rint(acc * mult + np.float32(zero_point))
    return np.clip(y, qmin, qmax).astype(q.dtype)


def _nhwc_requant(acc, mult, zp, np_dt, qmin, qmax, fma_body, by8=False):
    """torch's channels-last pooling requantization of float32 ``acc`` (N, C, ...) with
    float32 multipliers: a vectorized part over the first ``C - C % 16`` channels (8-bit
    types; with ``by8`` also a further block of 8 when 8 or more remain) and
    ``quantize_val(1 / multiplier)`` for the rest."""
    c = acc.shape[1]
    cv = c - c % 16 if np.dtype(np_dt).itemsize == 1 else 0
    if by8 and np.dtype(np_dt).itemsize == 1 and c - cv >= 8:
        cv += 8
    out = np.empty(acc.shape, dtype=np.float64)
    mult = np.broadcast_to(mult, acc.shape)
    with np.errstate(over='ignore', invalid='ignore'):
        inv_tail = np.float32(1.0) / (np.float32(1.0) / mult[:, cv:])
        out[:, cv:] = np.rint(acc[:, cv:] * inv_tail + np.float32(zp))
        if cv:
            if fma_body:      # fbgemm's quantize with scale 1 / multiplier
                inv = np.float32(1.0) / (np.float32(1.0) / mult[:, :cv])
                out[:, :cv] = np.rint(np.fmin(_fma_f32(acc[:, :cv], inv, np.float32(zp)),
                                              _F32_BELOW_2_31))
            else:
                out[:, :cv] = np.rint(np.fmin(acc[:, :cv] * mult[:, :cv], _F32_BELOW_2_31)) + zp
    return np.clip(out, qmin, qmax).astype(np_dt)


def _qnnp_avgpool_requant(acc, scale, out_zp):
    """QNNPACK's average-pool requantization: ``rint(float32(acc) * scale) + out_zp``
    (float32 product, half to even), clamped to [0, 255]."""
    r = np.rint(acc.astype(np.float32) * np.float32(scale)).astype(np.int64)
    return np.clip(r + out_zp, 0, 255).astype(np.uint8)


def avg_pool_qnnpack(q, scale, zero_point, kernel_size, stride=None, padding=0):
    """Quantized 2-d average pooling as torch runs it on the QNNPACK engine (quint8 input,
    no ``ceil_mode``): padding holds the zero point and the divisor is always the full
    window (QNNPACK ignores ``count_include_pad`` and ``divisor_override``); the average
    is requantized by :func:`_qnnp_avgpool_requant` with the float32 multiplier
    ``scale / (scale * window)`` (input and output share ``scale``; the product rounds, so
    the multiplier is not always ``1 / window``).

    Example::

        >>> avg_pool_qnnpack(np.array([[[[1, 2], [3, 4]]]], np.uint8), 0.1, 0, (2, 2))
        array([[[[2]]]], dtype=uint8)
    """
    q = np.asarray(q)
    kernel, stride, padding, _ = _pool_args(q, kernel_size, stride, padding, 1)
    outs = [_pool_out_size(q.shape[2 + i], kernel[i], padding[i], stride[i], 1, False)
            for i in range(2)]
    a = _pad_for_pool(q.astype(np.int64), kernel, stride, padding, (1, 1), outs,
                      int(zero_point))
    size = kernel[0] * kernel[1]
    sums = _windows(a, kernel, stride, (1, 1), outs).sum(axis=(-2, -1))
    s32 = np.float32(scale)
    mult = s32 / (s32 * np.float32(size))
    return _qnnp_avgpool_requant(sums - size * int(zero_point), mult, int(zero_point))


def adaptive_avg_pool(q, output_size, scale=1.0, zero_point=0, engine='fbgemm',
                      channels_last=False):
    """Quantized adaptive average pooling (2-d, 3-d) of an NCHW-contiguous tensor, as
    ``torch.nn.functional.adaptive_avg_pool2d`` / ``3d`` on a quantized tensor (output
    qparams are the input's).

    Window ``i`` of an axis spans ``[floor(i*n/o), ceil((i+1)*n/o))`` (float32 division);
    the output is ``rint(float32(sum(q)) * r)`` with ``r = float32(1 / k_0)`` divided in
    float32 by each further axis's window length. With ``engine='qnnpack'``, torch runs a
    2-d quint8 pooling whose input sizes are multiples of the output sizes (and differ
    from them) as :func:`avg_pool_qnnpack` with kernel = stride = input // output; this
    function does the same (``scale`` and ``zero_point``, the input's, are used only
    there and with ``channels_last``).

    ``channels_last=True`` gives torch's channels-last kernel (taken for any
    channels-last-contiguous input, one-channel NCHW included): ``acc = sum - size * zp``,
    ``multiplier = float32(1 / size)``; channels below ``C - C % 16`` (and a further block
    of 8 when 8 or more remain) are quantized with scale ``1 / multiplier`` by the fused
    multiply-add quantizer, the rest by ``quantize_val``.

    Example::

        >>> adaptive_avg_pool(np.array([[[[1, 2], [3, 5]]]], np.uint8), (1, 1))
        array([[[[3]]]], dtype=uint8)
    """
    q = np.asarray(q)
    nd = len(output_size)
    if (engine == 'qnnpack' and nd == 2 and q.dtype == np.uint8 and q.ndim == 4
            and tuple(q.shape[-2:]) != tuple(output_size)
            and all(n % o == 0 for n, o in zip(q.shape[-2:], output_size))):
        k = tuple(n // o for n, o in zip(q.shape[-2:], output_size))
        return avg_pool_qnnpack(q, scale, zero_point, k, k, 0)
    lead = q.shape[:-nd]
    ins = q.shape[-nd:]
    out = np.empty(lead + tuple(int(o) for o in output_size), dtype=q.dtype)
    bounds = []
    for n, o in zip(ins, output_size):
        idx = np.arange(o, dtype=np.float32)
        st = np.floor(idx * np.float32(n) / np.float32(o)).astype(np.int64)
        en = np.ceil((idx + 1) * np.float32(n) / np.float32(o)).astype(np.int64)
        bounds.append((st, en))
    q64 = q.astype(np.int64)
    for pos in np.ndindex(*[int(o) for o in output_size]):
        sl = tuple(slice(int(bounds[i][0][p]), int(bounds[i][1][p])) for i, p in enumerate(pos))
        ks = [int(bounds[i][1][p] - bounds[i][0][p]) for i, p in enumerate(pos)]
        s = q64[(Ellipsis,) + sl].sum(axis=tuple(range(-nd, 0)))
        if channels_last:
            size = int(np.prod(ks))
            mult = np.float32(1.0) / np.float32(size)
            acc = (s - size * int(zero_point)).astype(np.float32)
            _, qmin, qmax = {np.dtype(v[0]): v for v in QTYPES.values()}[q.dtype]
            out[(Ellipsis,) + pos] = _nhwc_requant(acc, mult, int(zero_point), q.dtype, qmin,
                                                   qmax, fma_body=True, by8=True)
            continue
        r = np.float32(1.0 / ks[0])
        for k in ks[1:]:
            r = r / np.float32(k)
        out[(Ellipsis,) + pos] = np.rint(s.astype(np.float32) * r)
    return out


# ---------------------------------------------------------------------------------------
# normalization


def batch_norm(q, scale, zero_point, weight, bias, mean, var, eps, out_scale,
               out_zero_point, relu=False, dtype='quint8'):
    """Quantized batch norm in inference mode (``torch.ops.quantized.batch_norm1d/2d/3d``
    and their ``_relu`` forms), channels on axis 1.

    Per channel, in float32: ``inv_sigma = float32(1 / sqrt(var + eps))``,
    ``alpha = inv_sigma * weight * (scale / out_scale)``,
    ``beta = (bias - mean * inv_sigma * weight) * (1 / out_scale)``; then
    ``y = rint(fma(alpha, q - zero_point, beta)) + out_zero_point``, clamped (and at least
    ``out_zero_point`` with ReLU).

    Args:
        q (ndarray): integers, shape ``(N, C, *)``.
        weight, bias, mean, var (ndarray or None): float32 per-channel parameters
            (``weight``/``bias`` default to 1 and 0).

    Example::

        >>> batch_norm(np.array([[[10, 20]]], np.uint8), 0.1, 10, None, None,
        ...            np.zeros(1, np.float32), np.ones(1, np.float32), 0.0, 0.1, 10)
        array([[[10, 20]]], dtype=uint8)
    """
    np_dt, qmin, qmax = _qinfo(dtype)
    q = np.asarray(q)
    c = q.shape[1]
    f32 = np.float32
    w = np.ones(c, f32) if weight is None else np.asarray(weight, f32)
    b = np.zeros(c, f32) if bias is None else np.asarray(bias, f32)
    mean = np.asarray(mean, f32)
    var = np.asarray(var, f32)
    inv_sigma = (1.0 / np.sqrt(var + f32(eps)).astype(np.float64)).astype(f32)
    alpha = ((inv_sigma * w).astype(np.float64) * (float(scale) / float(out_scale))).astype(f32)
    beta = ((b - mean * inv_sigma * w).astype(np.float64) * (1.0 / float(out_scale))
            ).astype(f32)
    shape = (1, c) + (1,) * (q.ndim - 2)
    x = (q.astype(np.int32) - np.int32(zero_point)).astype(f32)
    y = _fma_f32(alpha.reshape(shape), x, beta.reshape(shape))
    with np.errstate(invalid='ignore'):
        r = np.rint(np.fmin(y, _F32_BELOW_2_31)).astype(np.float64) + out_zero_point
    r = np.clip(r, max(qmin, out_zero_point) if relu else qmin, qmax)
    return r.astype(np_dt)


def cat(qs, scales, zero_points, axis, out_scale, out_zero_point, relu=False,
        dtype='quint8'):
    """Quantized concatenation (``torch.ops.quantized.cat`` / ``cat_relu``) of
    NCHW-contiguous per-tensor quantized arrays: each is dequantized, the floats are
    joined, and the result is quantized with the output parameters (then ReLU).

    Example::

        >>> cat([np.array([10], np.uint8), np.array([4], np.uint8)], [0.5, 1.0], [0, 0], 0,
        ...     1.0, 0)
        array([5, 4], dtype=uint8)
    """
    parts = [dequantize_per_tensor(q, s, z) for q, s, z in zip(qs, scales, zero_points)]
    out = quantize_per_tensor(np.concatenate(parts, axis=axis), out_scale, out_zero_point,
                              dtype)
    if relu:
        out = np.maximum(out, np.asarray(out_zero_point).astype(out.dtype))
    return out


# ---------------------------------------------------------------------------------------
# embeddings (8-bit rowwise, float scale and zero point per row)


def quantize_per_channel_float_qparams(x, scales, zero_points, axis=0, dtype='quint8'):
    """Quantize with float32 scales and float zero points per channel (torch's
    ``per_channel_affine_float_qparams``, used for embedding weights):
    ``q = rint(float32(x * (1 / scale)) + zero_point)`` in float32 (two roundings, no
    fused multiply-add; a zero scale counts as 1), clamped. ``dtype='quint4x2'`` gives the
    4-bit values 0..15 one per byte (see :func:`pack_4bit`).

    Example::

        >>> quantize_per_channel_float_qparams(np.array([[0.5, -0.5]], np.float32),
        ...                                    np.array([0.01], np.float32),
        ...                                    np.array([50.0], np.float32))
        array([[100,   0]], dtype=uint8)
    """
    np_dt, qmin, qmax = (np.uint8, 0, 15) if dtype == 'quint4x2' else _qinfo(dtype)
    x = np.asarray(x, dtype=np.float32)
    shape = [1] * x.ndim
    shape[axis] = -1
    s = np.asarray(scales, dtype=np.float32).reshape(shape)
    with np.errstate(divide='ignore'):
        inv = np.where(s == 0, np.float32(1), np.float32(1) / s)
    zp = np.asarray(zero_points, dtype=np.float32).reshape(shape)
    with np.errstate(invalid='ignore', over='ignore'):
        return np.clip(np.rint(x * inv + zp), qmin, qmax).astype(np_dt)


def pack_4bit(q):
    """Pack 4-bit values (0..15, last axis of even length) two per byte, the first in the
    low nibble, as torch stores ``quint4x2``.

    Example::

        >>> pack_4bit(np.array([[1, 2]], np.uint8))
        array([[33]], dtype=uint8)
    """
    q = np.asarray(q, dtype=np.uint8)
    return (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)


def unpack_4bit(packed):
    """The inverse of :func:`pack_4bit`.

    Example::

        >>> unpack_4bit(np.array([[33]], np.uint8))
        array([[1, 2]], dtype=uint8)
    """
    p = np.asarray(packed, dtype=np.uint8)
    return np.stack([p & 0xF, p >> 4], axis=-1).reshape(p.shape[:-1] + (-1,))


def _row_params(scales, zero_points, bits):
    s = np.asarray(scales, dtype=np.float32)
    bias = -np.asarray(zero_points, dtype=np.float32) * s
    if bits == 4:       # the 4-bit packed format keeps its scale and bias as float16
        s = s.astype(np.float16).astype(np.float32)
        bias = bias.astype(np.float16).astype(np.float32)
    return s, bias


def embedding_byte(qweight, scales, zero_points, indices, bits=8):
    """Rows of an 8-bit rowwise-quantized embedding table as float32
    (``torch.ops.quantized.embedding_byte``, ``nn.quantized.Embedding``):
    ``fma(q, scale, -zero_point * scale)`` per row, all float32.

    Args:
        qweight (ndarray): uint8 table ``(num_embeddings, dim)`` (4-bit tables unpacked,
            one value per byte).
        scales, zero_points (ndarray): float32 per-row parameters.
        indices (ndarray): integer indices of any shape.
        bits (int): 8, or 4 for ``quint4x2`` tables (``embedding_4bit``), whose packed
            rows keep the scale and the bias ``-zero_point * scale`` as float16.

    Returns:
        ndarray: float32, shape ``indices.shape + (dim,)``.

    Example::

        >>> embedding_byte(np.array([[4, 0]], np.uint8), np.array([0.5], np.float32),
        ...                np.array([2.0], np.float32), np.array([0, 0]))
        array([[ 1., -1.],
               [ 1., -1.]], dtype=float32)
    """
    s, bias = _row_params(scales, zero_points, bits)
    idx = np.asarray(indices, dtype=np.int64)
    flat = idx.reshape(-1)
    rows = _fma_f32(np.asarray(qweight)[flat].astype(np.float32), s[flat, None],
                    bias[flat, None])
    return rows.reshape(idx.shape + (rows.shape[-1],))


def embedding_bag_byte(qweight, scales, zero_points, indices, offsets=None,
                       per_sample_weights=None, include_last_offset=False, bits=8):
    """8-bit rowwise-quantized embedding bag (``torch.ops.quantized.embedding_bag_byte``,
    ``nn.quantized.EmbeddingBag``), modes ``'sum'`` and ``'mean'``.

    Each bag accumulates its rows in order as fbgemm does: ``acc = fma(scale', q,
    acc + bias')`` with ``scale' = scale * w`` and ``bias' = bias * w`` for a per-sample
    weight ``w`` (``bias = -zero_point * scale``); ``'mean'`` then multiplies by
    ``float32(1 / len)``. An empty bag is zeros.

    Args:
        indices (ndarray): 1-d indices (with ``offsets``) or 2-d ``(bags, len)``.
        offsets (ndarray or None): bag starts for 1-d indices.
        bits (int): 8, or 4 for unpacked ``quint4x2`` tables (``embedding_bag_4bit``;
            float16 scale and bias, see :func:`embedding_byte`).

    Example::

        >>> embedding_bag_byte(np.array([[4, 0]], np.uint8), np.array([0.5], np.float32),
        ...                    np.array([2.0], np.float32), np.array([0, 0]), np.array([0]))
        array([[ 2., -2.]], dtype=float32)
    """
    q = np.asarray(qweight)
    s, bias = _row_params(scales, zero_points, bits)
    idx = np.asarray(indices, dtype=np.int64)
    if idx.ndim == 2:
        nb, ln = idx.shape
        offsets = np.arange(nb, dtype=np.int64) * ln
        idx = idx.reshape(-1)
        include_last_offset = False
    offsets = np.asarray(offsets, dtype=np.int64)
    starts = offsets[:-1] if include_last_offset else offsets
    ends = np.append(offsets[1:], idx.size) if not include_last_offset else offsets[1:]
    psw = None if per_sample_weights is None else np.asarray(per_sample_weights, np.float32)
    out = np.zeros((len(starts), q.shape[1]), dtype=np.float32)
    lens = ends - starts
    maxlen = int(lens.max(initial=0))
    for j in range(maxlen):          # step j of every bag at once, in order
        live = np.flatnonzero(lens > j)
        pos = starts[live] + j
        rows = idx[pos]
        sc, bi = s[rows], bias[rows]
        if psw is not None:
            sc = sc * psw[pos]
            bi = bi * psw[pos]
        out[live] = _fma_f32(sc[:, None], q[rows].astype(np.float32),
                             out[live] + bi[:, None])
    return out


def _normalize(q, x_scale, x_zp, M, N, gamma, beta, per_channel, num_channels, num_groups,
               eps, out_scale, out_zp, dtype):
    """torch's quantized normalization of ``M`` groups of ``N`` values (layer, group and
    instance norm): integer sums give the mean and variance (in units of ``x_scale``), the
    affine part is applied elementwise (``per_channel=False``) or per channel."""
    f32 = np.float32
    x = q.reshape(M, N).astype(np.int64)
    mean_shift = (x.sum(axis=1).astype(f32) / f32(N)).astype(f32)
    mean = mean_shift - f32(x_zp)
    msq = (np.einsum('ij,ij->i', x, x).astype(f32) / f32(N)).astype(f32)
    var = np.maximum(_fma_f32(-mean_shift, mean_shift, msq), f32(0))
    xs = f32(x_scale)
    std_inv = (xs / np.sqrt((var * xs * xs).astype(np.float64) + eps)).astype(f32)   # (M,)
    d = (x - int(x_zp)).astype(f32) - mean[:, None]
    inv = f32(1.0) / f32(out_scale)
    V = _vec_len(dtype)
    out = np.empty((M, N), dtype=_qinfo(dtype)[0])
    if not per_channel:
        g = np.ones(N, f32) if gamma is None else np.asarray(gamma, f32).reshape(-1)
        b = np.zeros(N, f32) if beta is None else np.asarray(beta, f32).reshape(-1)
        y = _fma_f32(d * std_inv[:, None], g[None, :], b[None, :])
        m = N - N % V
        out[:, :m] = _q_vec(y[:, :m], inv, out_zp, dtype)
        out[:, m:] = _q_val(y[:, m:], out_scale, out_zp, dtype)
        return out
    cpg = num_channels // num_groups
    npc = N // cpg
    g = np.ones(num_channels, f32) if gamma is None else np.asarray(gamma, f32)
    b = np.zeros(num_channels, f32) if beta is None else np.asarray(beta, f32)
    ch = (np.arange(M)[:, None] * cpg + np.arange(cpg)[None, :]) % num_channels   # (M, cpg)
    gp = std_inv[:, None] * g[ch]
    y = _fma_f32(d.reshape(M, cpg, npc), gp[:, :, None], b[ch][:, :, None])
    m = npc - npc % V
    o = out.reshape(M, cpg, npc)
    o[:, :, :m] = _q_vec(y[:, :, :m], inv, out_zp, dtype)
    o[:, :, m:] = _q_val(y[:, :, m:], out_scale, out_zp, dtype)
    return out


def layer_norm(q, scale, zero_point, normalized_shape, weight, bias, eps, out_scale,
               out_zero_point, dtype='quint8'):
    """Quantized layer norm (``torch.ops.quantized.layer_norm``, ``nn.quantized.LayerNorm``).

    Per row of ``prod(normalized_shape)`` values: the mean and the (biased) variance come
    from the integer sum and sum of squares (float32, the variance as
    ``fma(-m, m, sumsq / N)``), ``k = float32(scale / sqrt(var * scale**2 + eps))``, and
    ``y = fma((q - zp - mean) * k, weight, bias)`` is quantized with the output parameters
    (SIMD body and scalar tail as torch).

    Example::

        >>> layer_norm(np.array([[0, 255]], np.uint8), 0.1, 128, (2,), None, None, 1e-5,
        ...            0.01, 128)
        array([[ 28, 228]], dtype=uint8)
    """
    q = np.asarray(q)
    N = int(np.prod(normalized_shape, dtype=np.int64))
    M = q.size // N if N else 0
    out = _normalize(q, scale, zero_point, M, N, weight, bias, False, 1, 1, eps, out_scale,
                     out_zero_point, dtype)
    return out.reshape(q.shape)


def group_norm(q, scale, zero_point, num_groups, weight, bias, eps, out_scale,
               out_zero_point, dtype='quint8'):
    """Quantized group norm (``torch.ops.quantized.group_norm``), channels on axis 1 and a
    per-channel affine (``k * weight[c]`` is formed first, then one fused multiply-add per
    value).

    Example::

        >>> group_norm(np.array([[[0], [255]]], np.uint8), 0.1, 128, 1, None, None, 1e-5,
        ...            0.01, 128)
        array([[[ 28],
                [228]]], dtype=uint8)
    """
    q = np.asarray(q)
    n, c = q.shape[:2]
    M = n * num_groups
    N = q.size // M
    out = _normalize(q, scale, zero_point, M, N, weight, bias, True, c, num_groups, eps,
                     out_scale, out_zero_point, dtype)
    return out.reshape(q.shape)


def instance_norm(q, scale, zero_point, weight, bias, eps, out_scale, out_zero_point,
                  dtype='quint8'):
    """Quantized instance norm (``torch.ops.quantized.instance_norm``): group norm with one
    group per channel.

    Example::

        >>> instance_norm(np.array([[[0, 255]]], np.uint8), 0.1, 128, None, None, 1e-5,
        ...               0.01, 128)
        array([[[ 28, 228]]], dtype=uint8)
    """
    q = np.asarray(q)
    return group_norm(q, scale, zero_point, q.shape[1], weight, bias, eps, out_scale,
                      out_zero_point, dtype)


# ---------------------------------------------------------------------------------------
# more ops on quantized tensors


def prelu(q, scale, zero_point, qw, w_scale, w_zero_point, out_scale, out_zero_point,
          dtype='quint8'):
    """Quantized PReLU (``torch.ops.quantized.prelu``, ``nn.quantized.PReLU``) with a
    quantized weight (one value, or one per channel on axis 1), in integers:
    ``(max(q, zp) - zp) * (one_q - w_zp) + (min(q, zp) - zp) * (w - w_zp)`` with
    ``one_q`` = 1.0 quantized with the weight's parameters, requantized with the float32
    multiplier ``scale * w_scale * (1 / out_scale)``.

    Example::

        >>> prelu(np.array([0, 20], np.uint8), 0.1, 10, np.array([64], np.uint8), 1 / 128,
        ...       0, 0.1, 10)
        array([ 5, 20], dtype=uint8)
    """
    q = np.asarray(q)
    qw = np.asarray(qw)
    if qw.size > 1 and q.ndim > 1:
        qw = qw.reshape((1, -1) + (1,) * (q.ndim - 2))
    w_dtype = {np.dtype(v[0]): k for k, v in QTYPES.items()}[qw.dtype]
    one_q = int(_q_val(np.float32(1.0), w_scale, w_zero_point, w_dtype))
    zp = int(zero_point)
    x = q.astype(np.int32)
    pos = np.maximum(x, zp) - zp
    neg = np.minimum(x, zp) - zp
    acc = pos * np.int32(one_q - int(w_zero_point)) + neg * (qw.astype(np.int32)
                                                              - np.int32(w_zero_point))
    mult = np.float32(scale) * np.float32(w_scale) * (np.float32(1.0) / np.float32(out_scale))
    return _requantize_from_int(acc, mult, int(out_zero_point), dtype)


def threshold(q, scale, zero_point, threshold_value, value, dtype='quint8',
              num_threads=1):
    """Quantized ``threshold`` (``x if x > threshold else value``) with the input's
    parameters for the output, dequantize -> compare -> quantize as torch.

    Example::

        >>> threshold(np.array([10, 30], np.uint8), 0.1, 10, 1.0, 0.5)
        array([15, 30], dtype=uint8)
    """
    t = np.float32(threshold_value)
    v = np.float32(value)

    def f(x):
        return np.where(x > t, x, v)
    inv = np.float32(1.0 / float(np.float32(scale)))
    return _dequant_map_quant(q, scale, zero_point, scale, zero_point, dtype, f, inv=inv,
                              num_threads=num_threads)


def matmul(qa, a_scale, a_zp, qb, b_scale, b_zp, out_scale, out_zp, dtype='quint8'):
    """Quantized matmul (``torch.ops.quantized.matmul``, ``QFunctional.matmul``): torch
    dequantizes both, multiplies in float32 and quantizes the product. The product here is
    summed in float64 and rounded to float32. NOTE: unlike PyTorch, whose float32 GEMM sums
    in its own order, the float32 product can differ by an ulp, which changes an output
    integer only next to a rounding boundary.

    Example::

        >>> matmul(np.array([[2, 4]], np.uint8), 0.5, 0, np.array([[2], [2]], np.uint8),
        ...        0.5, 0, 1.0, 0)
        array([[3]], dtype=uint8)
    """
    a = dequantize_per_tensor(qa, a_scale, a_zp).astype(np.float64)
    b = dequantize_per_tensor(qb, b_scale, b_zp).astype(np.float64)
    return quantize_per_tensor(np.matmul(a, b).astype(np.float32), out_scale, out_zp, dtype)


def softmax(q, scale, zero_point, dim, out_scale, out_zero_point, dtype='quint8'):
    """Quantized softmax (``torch.ops.quantized.softmax``, ``nn.quantized.Softmax``) on the
    fbgemm/x86 engine: dequantize, float32 softmax along ``dim``, quantize with the output
    parameters. NOTE: unlike PyTorch, which uses its vectorized ``exp``, the float softmax
    here is computed in float64 and rounded; an output integer can differ next to a
    rounding boundary.

    Example::

        >>> softmax(np.array([[10, 10]], np.uint8), 0.1, 10, 1, 1 / 256, 0)
        array([[128, 128]], dtype=uint8)
    """
    x = dequantize_per_tensor(q, scale, zero_point).astype(np.float64)
    x = x - x.max(axis=dim, keepdims=True)
    e = np.exp(x)
    y = (e / e.sum(axis=dim, keepdims=True)).astype(np.float32)
    return quantize_per_tensor(y, out_scale, out_zero_point, dtype)


def upsample_nearest(q, output_size, scales=None):
    """Quantized nearest-neighbour upsampling over the trailing ``len(output_size)``
    dimensions (``F.interpolate(mode='nearest')`` on a quantized tensor): source index
    ``min(floor(dst * scale), in - 1)`` with the float32 ratio ``in / out`` (or
    ``1 / scales[i]`` when given). The integers are copied (output qparams are the
    input's). For an (N, C, 1, 1) input with several channels torch 2.13 writes its
    channels-last result in NCHW order (the values of several channels mix); so does
    this.

    Example::

        >>> upsample_nearest(np.array([[[1, 2]]], np.uint8), (4,))
        array([[[1, 1, 2, 2]]], dtype=uint8)
    """
    q = np.asarray(q)
    nd = len(output_size)
    out = q
    for i in range(nd):
        axis = q.ndim - nd + i
        n_in, n_out = q.shape[axis], int(output_size[i])
        if scales is not None and scales[i]:
            ratio = np.float32(1.0 / scales[i])
        else:
            ratio = np.float32(n_in) / np.float32(n_out)
        src = np.minimum(np.floor(np.arange(n_out, dtype=np.float32) * ratio).astype(np.int64),
                         n_in - 1)
        out = np.take(out, src, axis=axis)
    return _nhwc_into_nchw(q, np.ascontiguousarray(out))


def _nhwc_into_nchw(q, out):
    """torch 2.13 runs its channels-last kernel on an (N, C, 1, 1) input (it is
    channels-last contiguous) but gives the output the contiguous layout, so the NHWC
    values land in NCHW order; reproduce that for 4-d inputs with several channels."""
    if q.ndim == 4 and q.shape[1] > 1 and q.shape[2:] == (1, 1) and out.shape[2:] != (1, 1):
        return np.ascontiguousarray(np.moveaxis(out, 1, -1)).reshape(out.shape)
    return out


def _source_index(n_in, n_out, align_corners, scale, fused=False):
    """torch's bilinear source coordinates (float32) for every output index (``fused``:
    ``scale * (d + 0.5) - 0.5`` as one fused multiply-add, as torch's channels-last
    kernel computes it)."""
    f32 = np.float32
    if align_corners:
        r = f32(n_in - 1) / f32(n_out - 1) if n_out > 1 else f32(0)
    elif scale:
        r = f32(1.0 / scale)
    else:
        r = f32(n_in) / f32(n_out)
    d = np.arange(n_out, dtype=f32)
    if align_corners:
        return r * d
    if fused:
        return np.maximum(_fma_f32(r, d + f32(0.5), f32(-0.5)), f32(0))
    return np.maximum(r * (d + f32(0.5)) - f32(0.5), f32(0))


def upsample_bilinear(q, zero_point, output_size, align_corners=False, scales=None,
                      dtype='quint8', channels_last=False):
    """Quantized bilinear upsampling (``F.interpolate(mode='bilinear')`` on a quantized
    tensor; output qparams are the input's): per output pixel, in float32,
    ``h0 * (w0 * p00 + w1 * p01) + h1 * (w0 * p10 + w1 * p11) - zero_point`` from the
    integers, then ``quantize_val`` with scale 1 and the zero point. An output of the
    input's size is a copy.

    ``channels_last=True`` gives torch's channels-last kernel, which torch runs whenever
    the input is channels-last contiguous (an NCHW tensor with one channel, or a 1x1
    spatial size, is): the source coordinates and the two interpolation levels are fused
    multiply-adds, ``fma(h0, fma(w0, p00, w1 * p01), h1 * fma(w0, p10, w1 * p11))``, and
    with the other products fused in the channels of whole 16-channel SIMD blocks. An
    (N, C, 1, 1) input's result comes out in torch's mixed order (see
    :func:`upsample_nearest`).

    Example::

        >>> upsample_bilinear(np.array([[[[0, 10]]]], np.uint8), 0, (1, 4))
        array([[[[ 0,  2,  8, 10]]]], dtype=uint8)
    """
    q = np.asarray(q)
    f32 = np.float32
    H, W = q.shape[-2:]
    oh, ow = (int(v) for v in output_size)
    if (H, W) == (oh, ow):
        return q.copy()
    sh, sw = (None, None) if scales is None else scales
    hr = _source_index(H, oh, align_corners, sh, channels_last)
    wr = _source_index(W, ow, align_corners, sw, channels_last)
    h1 = hr.astype(np.int64)
    w1 = wr.astype(np.int64)
    h1p = (h1 < H - 1).astype(np.int64)
    w1p = (w1 < W - 1).astype(np.int64)
    h1l = (hr - h1.astype(f32)).astype(f32)
    w1l = (wr - w1.astype(f32)).astype(f32)
    h0l = f32(1) - h1l
    w0l = f32(1) - w1l
    x = q.astype(f32)
    p00 = x[..., h1[:, None], w1[None, :]]
    p01 = x[..., h1[:, None], (w1 + w1p)[None, :]]
    p10 = x[..., (h1 + h1p)[:, None], w1[None, :]]
    p11 = x[..., (h1 + h1p)[:, None], (w1 + w1p)[None, :]]
    w0 = w0l[None, :]
    w1_ = w1l[None, :]
    h0, h1_ = h0l[:, None], h1l[:, None]
    if channels_last:
        # scalar channels: fma(h0, A, h1 * B) with A = fma(w0, p00, w1 * p01); the
        # 16-channel SIMD blocks contract the other products: fma(h1, B', h0 * A') with
        # A' = fma(w1, p01, w0 * p00)
        r = _fma_f32(h0, _fma_f32(w0, p00, w1_ * p01), h1_ * _fma_f32(w0, p10, w1_ * p11))
        c = q.shape[1]
        cv = c - c % 16 if q.dtype.itemsize == 1 else 0
        if cv:
            sl = (slice(None), slice(0, cv))
            rv = _fma_f32(h1_, _fma_f32(w1_, p11[sl], w0 * p10[sl]),
                          h0 * _fma_f32(w1_, p01[sl], w0 * p00[sl]))
            r[sl] = rv
        r = r - f32(zero_point)
        return _nhwc_into_nchw(q, _q_val(r, 1.0, zero_point, dtype))
    r = h0 * (w0 * p00 + w1_ * p01) + h1_ * (w0 * p10 + w1_ * p11) - f32(zero_point)
    return _q_val(r, 1.0, zero_point, dtype)
