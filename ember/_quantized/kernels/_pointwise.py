"""Quantized elementwise ops, normalizations and the float-path ops (softmax, matmul) of
the integer kernels (see :mod:`ember._quantized.kernels`, which re-exports everything)."""

import numpy as np

from ._base import (QTYPES, _F32_BELOW_2_31, _fma_f32, _q_val, _qinfo,
                         _quantize_mul_add, dequantize_per_tensor, quantize_per_tensor)

__all__ = []

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
# layer, group and instance norm


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
