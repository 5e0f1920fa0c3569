"""Integer kernels of quantized inference, on NumPy arrays.

These functions take and return plain NumPy arrays (the integer representation of quantized
tensors, plus their scales and zero points) and reproduce, integer for integer, what
PyTorch 2.13's CPU kernels (fbgemm / x86 engine) compute. The quantized ``Tensor`` type and
the ``torch.ops.quantized`` ops are built over them in ``ember/_quantized/tensor.py`` and its op modules;
nothing here knows about ``Tensor``.

The arithmetic, as measured against torch 2.13 (``tests/_quantized/test_kernels.py`` checks
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

import itertools

import numpy as np

from ._base import (  # noqa: F401  (re-exported)
    QTYPES, _F32_BELOW_2_31, _fma_f32, _inv_scale, _q_val, _qinfo, _quantize_mul_add,
    choose_qparams, dequantize_per_channel, dequantize_per_tensor, quantize_per_channel,
    quantize_per_tensor, tensor_min_max)

__all__ = []


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
    for off in itertools.product(*map(range, kernel)):                    # col2im
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


# the rest of the kernels, re-exported here: one import site for the ops built on them
from . import _pointwise  # noqa: E402
from ._pointwise import (  # noqa: E402,F401
    _chunks, _deq_fma, _deq_sub, _q_vec, _requantize_from_int, _unary, add, add_scalar,
    batch_norm, cat, clamp, elu, group_norm, hardsigmoid, hardswish, instance_norm,
    layer_norm, leaky_relu, matmul, mul, mul_scalar, prelu, relu, relu6, sigmoid, softmax,
    tanh, threshold)
from ._spatial import (  # noqa: E402,F401
    adaptive_avg_pool, avg_pool, avg_pool_qnnpack, embedding_bag_byte, embedding_byte,
    max_pool, pack_4bit, quantize_per_channel_float_qparams, unpack_4bit, upsample_bilinear,
    upsample_nearest)
