"""Quantized pooling, upsampling and embedding kernels (see :mod:`ember._quantized.kernels`,
which re-exports everything)."""

import itertools

import numpy as np

from ._base import QTYPES, _F32_BELOW_2_31, _fma_f32, _q_val, _qinfo

__all__ = []

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
    lowest = np.iinfo(q.dtype).min
    a = _pad_for_pool(q, kernel, stride, padding, dilation, outs, lowest)
    out = None
    for off in itertools.product(*map(range, kernel)):   # a strided slice per offset
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
    for pos in itertools.product(*(range(int(o)) for o in output_size)):
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


# ---------------------------------------------------------------------------------------
# upsampling


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
