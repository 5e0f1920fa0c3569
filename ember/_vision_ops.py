"""torchvision's operators written for ember, registered under ``torchvision::`` through
:class:`ember.library.Library` (``ember.ops.torchvision.nms``, ``.roi_align``...).

torchvision's own operators are compiled against PyTorch's C++ runtime and cannot load
under ember (``ember.ops.load_library`` refuses them). This module provides them in Python,
with torchvision's schemas (argument order and types), its CPU kernels' arithmetic and its
errors: ``nms``, ``roi_align``, ``roi_pool``, ``ps_roi_align``, ``ps_roi_pool``,
``deform_conv2d`` and the gradient operators torchvision's autograd calls
(``_roi_align_backward``, ``_roi_pool_backward``, ``_ps_roi_align_backward``,
``_ps_roi_pool_backward``, ``_deform_conv2d_backward``). They are registered the first time
``ember.ops.torchvision`` (or a ``"torchvision::..."`` name) is used, or when torchvision
asks ``ember.ops.load_library`` for its compiled library, so that torchvision's Python layer
(``torchvision.ops.nms``, ``batched_nms``, ``roi_align``, ``RoIAlign``...) runs on ember.

How they compute: the sampling plan of each op (which input positions feed which output
bin, with which bilinear weights) depends only on the boxes and is computed on their arrays,
vectorised over boxes, bins and samples; the values are then gathered and summed with ember
ops. The gradient of each op with respect to its input is the registered ``_*_backward``
operator (as in torchvision), itself written in ember ops, so that ``create_graph=True``
and double backward work; under autocast the forward operators compute in float32 and
cast back, as torchvision's autocast kernels do; ``deform_conv2d`` is differentiable through its ember ops
(input, weight, offset, mask and bias). The boxes get no gradient, as in torchvision.

NOTE: unlike torchvision, double backward of ``roi_align``, ``roi_pool``, ``ps_roi_*`` and
``deform_conv2d`` works instead of raising; ``qnms`` and ``qroi_align`` exist (torchvision
registers fake kernels for them) and raise, since ember has no quantized tensors;
``box_iou_rotated`` (torchvision 0.29) is not provided yet.
"""
import numpy as np

from . import library as _library

__all__ = ['nms', 'roi_align', 'roi_pool', 'ps_roi_align', 'ps_roi_pool', 'deform_conv2d',
           'register']

_SCHEMAS = {
    'nms': "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    'qnms': "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    'qroi_align': "qroi_align(Tensor input, Tensor rois, float spatial_scale, SymInt "
                  "pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> "
                  "Tensor",
    'roi_align': "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt "
                 "pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> "
                 "Tensor",
    '_roi_align_backward': "_roi_align_backward(Tensor grad, Tensor rois, float "
                           "spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt "
                           "batch_size, SymInt channels, SymInt height, SymInt width, int "
                           "sampling_ratio, bool aligned) -> Tensor",
    'roi_pool': "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt "
                "pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    '_roi_pool_backward': "_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float "
                          "spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt "
                          "batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    'ps_roi_align': "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt "
                    "pooled_height, SymInt pooled_width, int sampling_ratio) -> (Tensor, "
                    "Tensor)",
    '_ps_roi_align_backward': "_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor "
                              "channel_mapping, float spatial_scale, SymInt pooled_height, "
                              "SymInt pooled_width, int sampling_ratio, SymInt batch_size, "
                              "SymInt channels, SymInt height, SymInt width) -> Tensor",
    'ps_roi_pool': "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt "
                   "pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    '_ps_roi_pool_backward': "_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor "
                             "channel_mapping, float spatial_scale, SymInt pooled_height, "
                             "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt "
                             "height, SymInt width) -> Tensor",
    'deform_conv2d': "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, "
                     "Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt "
                     "pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, SymInt "
                     "offset_groups, bool use_mask) -> Tensor",
    '_deform_conv2d_backward': "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor "
                               "weight, Tensor offset, Tensor mask, Tensor bias, SymInt "
                               "stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt "
                               "dilation_h, SymInt dilation_w, SymInt groups, SymInt "
                               "offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, "
                               "Tensor, Tensor)",
    '_cuda_version': "_cuda_version() -> int",
}

_BUDGET = 1 << 24          # elements of a gathered block before the boxes are split in chunks
_FLT_MAX = float(np.finfo(np.float32).max)


# ------------------------------------------------------------------ shared pieces
def _xp(arr):
    from ._backend import array_module
    return array_module(arr)


def _arr(t):
    return t.detach()._data


def _wrap(arr):
    from ._ops._util import wrap
    return wrap(arr)


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


def _grad_needed(t):
    from ._ops._util import grad_needed
    return grad_needed(t)


def _check_float(t, kernel, half=True):
    """torchvision's kernels dispatch on float32/float64 (and float16 where ``half``)."""
    import ember
    ok = (ember.float32, ember.float64) + ((ember.float16,) if half else ())
    if t.dtype not in ok:
        from ._ops._pointwise_common import _not_impl
        _not_impl(kernel, t.detach()._data)


def _check_rois(input, rois, shape_msg, dtype_msg):
    if rois.dim() != 2 or rois.size(1) != 5:
        raise RuntimeError(shape_msg)
    if input.dtype != rois.dtype:
        raise RuntimeError(dtype_msg)


def _roi_columns(rois):
    """(batch index int64, x1, y1, x2, y2) of an ``[K, 5]`` rois array."""
    xp = _xp(rois)
    with np.errstate(invalid='ignore'):
        b = xp.trunc(rois[:, 0])
        b = xp.where(xp.isfinite(b), b, 0).astype(np.int64)
    return b, rois[:, 1], rois[:, 2], rois[:, 3], rois[:, 4]


def _c_round(xp, v):
    """C's ``round`` (half away from zero), exactly, as int64."""
    r = xp.trunc(v)
    up = xp.abs(v - r) >= 0.5
    r = r + xp.where(up, xp.sign(v), 0).astype(v.dtype)
    return xp.where(xp.isfinite(r), r, 0).astype(np.int64)


def _chunks(xp, cost):
    """Split the boxes (``cost[k]``: elements one box gathers) into runs whose gathered
    block stays under the budget, boxes of similar cost together. Returns a list of
    index arrays (or ``[None]``: all boxes at once, in order)."""
    k = int(cost.shape[0])
    if k == 0 or int(cost.max()) * k <= _BUDGET:
        return [None]
    order = xp.argsort(cost, kind='stable')
    costs = [int(c) for c in cost[order].tolist()]
    runs, start = [], 0
    while start < k:
        end = start + 1
        while end < k and costs[end] * (end + 1 - start) <= _BUDGET:
            end += 1
        runs.append(order[start:end])
        start = end
    return runs


def _by_chunks(xp, cost, fn, cat_dim=0):
    """``fn(index or None)`` over the chunks of boxes, results put back in box order."""
    import ember
    runs = _chunks(xp, cost)
    if runs[0] is None:
        return fn(None)
    outs = [fn(r) for r in runs]
    order = xp.concatenate(runs)
    inv = xp.empty_like(order)
    inv[order] = xp.arange(order.shape[0])
    res = ember.cat(outs, cat_dim)
    return res.index_select(cat_dim, _wrap(inv))


# ------------------------------------------------------------------ nms
def _nms(dets, scores, iou_threshold):
    if dets.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {dets.dim()}D")
    if dets.size(1) != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if dets.size(0) != scores.size(0):
        raise RuntimeError("boxes and scores should have same number of elements in dimension "
                           f"0, got {dets.size(0)} and {scores.size(0)}")
    _check_float(dets, 'nms_kernel', half=False)
    if dets.dtype != scores.dtype:
        raise RuntimeError("dets should have the same type as scores")
    a, s = _arr(dets), _arr(scores)
    xp = _xp(a)
    if a.size == 0:
        return _wrap(xp.zeros(0, dtype=np.int64))
    thr = float(iou_threshold)
    # scores descending, ties in index order; NaN first, as torch's descending sort
    key = xp.where(xp.isnan(s), -np.inf, -s)
    order = xp.argsort(key, kind='stable')
    b = a[order]
    x1, y1, x2, y2 = (xp.ascontiguousarray(b[:, i]) for i in range(4))
    area = (x2 - x1) * (y2 - y1)
    n = b.shape[0]
    alive = xp.ones(n, dtype=bool)
    keep = []
    i = 0
    with np.errstate(invalid='ignore', divide='ignore'):
        while i < n:
            step = int(xp.argmax(alive[i:]))
            i += step
            if not bool(alive[i]):
                break
            keep.append(i)
            j = i + 1
            if j < n:
                w = xp.maximum(xp.minimum(x2[i], x2[j:]) - xp.maximum(x1[i], x1[j:]), 0)
                h = xp.maximum(xp.minimum(y2[i], y2[j:]) - xp.maximum(y1[i], y1[j:]), 0)
                inter = w * h
                iou = inter / (area[i] + area[j:] - inter)
                # the kernel compares the box type's IoU with the threshold as a double
                alive[j:] &= ~(iou.astype(np.float64) > thr)
            i = j
    return _wrap(order[xp.asarray(keep, dtype=np.int64)].astype(np.int64))


def nms(dets, scores, iou_threshold):
    """Non-maximum suppression (``torchvision::nms``): the indices of the boxes kept, by
    decreasing score.

    Boxes are visited by decreasing score (ties in index order); a box is kept unless a box
    kept before it overlaps it with an intersection-over-union greater than
    ``iou_threshold``. torchvision's ``batched_nms`` runs this on boxes offset per class.

    Args:
        dets (Tensor): boxes ``(x1, y1, x2, y2)``, shape ``(N, 4)``, float32 or float64.
        scores (Tensor): the boxes' scores, shape ``(N,)``, of the boxes' dtype.
        iou_threshold (float): the overlap above which a box is dropped.

    Returns:
        Tensor: int64 indices into ``dets``, shape ``(K,)``.

    Shape:
        - dets: :math:`(N, 4)`; scores: :math:`(N)`; output: :math:`(K)`, :math:`K \\le N`.

    Example::

        >>> boxes = ember.tensor([[0., 0., 2., 2.], [0., 0., 2., 1.9], [3., 3., 4., 4.]])
        >>> ember.ops.torchvision.nms(boxes, ember.tensor([.9, .8, .7]), 0.5)
        tensor([0, 2])
    """
    return _nms(dets, scores, iou_threshold)


def _qnms(dets, scores, iou_threshold):
    raise NotImplementedError("torchvision::qnms: ember has no quantized tensors")


def _qroi_align(*args):
    raise NotImplementedError("torchvision::qroi_align: ember has no quantized tensors")


# ------------------------------------------------------------------ bilinear sampling plans
def _axis_terms(xp, v, size, T):
    """torchvision's bilinear sampling along one axis: low/high index, their weights, and
    whether the sample lies in range (NaN does not)."""
    valid = (v >= -1) & (v <= size)
    v = xp.where(valid, v, T(0))
    v = xp.where(v <= 0, T(0), v)
    low = v.astype(np.int64)
    top = low >= size - 1
    high = xp.where(top, size - 1, low + 1)
    low = xp.where(top, size - 1, low)
    v = xp.where(top, low.astype(T), v)
    lw = v - low.astype(T)
    hw = T(1) - lw
    return (xp.stack([low, high], -1), xp.stack([hw, lw], -1), valid)


def _align_plan(rois, scale, ph, pw, sampling_ratio, height, width, aligned, clamp, max_one):
    """The sampling plan of roi_align / ps_roi_align for ``rois`` (an array): batch index
    ``(K,)``, spatial index ``(K, PH, PW, S)`` into ``H*W``, bilinear weight ``(K, PH, PW,
    S)`` and the divisor ``(K,)``."""
    xp = _xp(rois)
    T = rois.dtype.type
    K = rois.shape[0]
    b, rx1, ry1, rx2, ry2 = _roi_columns(rois)
    off = T(0.5) if aligned else T(0)
    sc = T(scale)
    x1, y1 = rx1 * sc - off, ry1 * sc - off
    rw, rh = (rx2 * sc - off) - x1, (ry2 * sc - off) - y1
    if clamp:
        rw, rh = xp.maximum(rw, T(1)), xp.maximum(rh, T(1))
    bh, bw = rh / T(ph), rw / T(pw)
    if sampling_ratio > 0:
        gh = xp.full(K, sampling_ratio, dtype=np.int64)
        gw = gh
    else:
        with np.errstate(invalid='ignore'):
            gh, gw = xp.ceil(bh), xp.ceil(bw)
            gh = xp.where(xp.isfinite(gh), gh, 0).astype(np.int64)
            gw = xp.where(xp.isfinite(gw), gw, 0).astype(np.int64)
    count = gh * gw
    if max_one:
        count = xp.maximum(count, 1)
    Gh = max(int(gh.max()), 0) if K else 0
    Gw = max(int(gw.max()), 0) if K else 0

    def axis(start, bin_size, grid, G, P, size):
        with np.errstate(invalid='ignore', divide='ignore'):
            i = xp.arange(G)
            t = (i.astype(T) + T(0.5))[None, :] * bin_size[:, None] / grid[:, None].astype(T)
            v = (start[:, None] + xp.arange(P).astype(T)[None, :] * bin_size[:, None])
            v = v[:, :, None] + t[:, None, :]                       # (K, P, G)
            idx, w, valid = _axis_terms(xp, v, size, T)              # (K, P, G, 2)
        valid = valid & (i[None, None, :] < grid[:, None, None])
        return idx, w, valid

    yi, yw, yv = axis(y1, bh, gh, Gh, ph, height)
    xi, xw, xv = axis(x1, bw, gw, Gw, pw, width)
    # (K, PH, PW, Gh, Gw, 2, 2): the four corners of every sample
    idx = (yi[:, :, None, :, None, :, None] * width + xi[:, None, :, None, :, None, :])
    w = yw[:, :, None, :, None, :, None] * xw[:, None, :, None, :, None, :]
    ok = yv[:, :, None, :, None] & xv[:, None, :, None, :]
    w = xp.where(ok[..., None, None], w, T(0))
    idx = xp.where(ok[..., None, None], idx, 0)
    S = Gh * Gw * 4
    return b, idx.reshape(K, ph, pw, S), w.reshape(K, ph, pw, S), count.astype(T)


def _align_cost(rois, scale, ph, pw, sampling_ratio, clamp, per_bin):
    """Elements one box gathers in roi_align / ps_roi_align (for chunking)."""
    xp = _xp(rois)
    if sampling_ratio > 0:
        return xp.full(rois.shape[0], sampling_ratio * sampling_ratio * 4 * ph * pw * per_bin,
                       dtype=np.int64)
    T = rois.dtype.type
    sc = T(abs(scale))
    rw, rh = (rois[:, 3] - rois[:, 1]) * sc, (rois[:, 4] - rois[:, 2]) * sc
    if clamp:
        rw, rh = xp.maximum(rw, T(1)), xp.maximum(rh, T(1))
    with np.errstate(invalid='ignore', over='ignore'):
        g = (xp.ceil(xp.abs(rh) / T(ph)) + 1) * (xp.ceil(xp.abs(rw) / T(pw)) + 1)
        g = xp.where(xp.isfinite(g), g, 1)
    return (g * (4 * ph * pw * per_bin)).astype(np.int64)


def _gather_sum(src, rows, w):
    """``sum_s src[rows[..., s]] * w[..., s]``: ``src`` a Tensor ``(N, C)`` (result ``(...,
    C)``) or ``(N,)`` (result ``(...)``); ``rows``/``w`` arrays ``(..., S)``. Differentiable in
    ``src``: its gradient is :func:`_scatter_sum`, and that one's is this."""
    a = _arr(src)
    xp = _xp(a)
    if a.ndim == 2:
        out = xp.matmul(w[..., None, :], a[rows])[..., 0, :]
    else:
        out = (a[rows] * w).sum(-1)
    res = _wrap(out)
    if _grad_needed(src):
        _record('gather_sum', res, src, rows=rows, w=w, n=a.shape[0])
    return res


def _scatter_sum(n, g, rows, w):
    """The adjoint of :func:`_gather_sum`: ``g`` (``(..., C)`` or ``(...)``) spread with the
    weights ``w`` over ``n`` rows (a weighted bincount of the rows, channel by channel)."""
    a = _arr(g)
    xp = _xp(a)
    two = a.ndim == rows.ndim
    S = rows.shape[-1]
    flat = rows.reshape(-1)
    ws = xp.broadcast_to(w, rows.shape).reshape(-1, S) if S else None
    if not flat.shape[0]:                            # no box, or no sample
        out = xp.zeros((n, a.shape[-1]) if two else (n,), dtype=a.dtype)
    elif not two:
        out = xp.bincount(flat, weights=(a.reshape(-1, 1) * ws).reshape(-1),
                          minlength=n).astype(a.dtype)
    else:
        C = a.shape[-1]
        gt = xp.ascontiguousarray(a.reshape(-1, C).T)               # (C, bins)
        out = xp.empty((C, n), dtype=a.dtype)
        for c in range(C):
            out[c] = xp.bincount(flat, weights=(gt[c][:, None] * ws).reshape(-1),
                                 minlength=n)
        out = xp.ascontiguousarray(out.T)
    res = _wrap(out)
    if _grad_needed(g):
        _record('scatter_sum', res, g, rows=rows, w=w, n=n)
    return res


# ------------------------------------------------------------------ roi_align
def _roi_align_fwd(input, rois, scale, ph, pw, sr, aligned):
    B, C, H, W = input.shape
    r = _arr(rois)
    xp = _xp(r)
    xt = input.permute(0, 2, 3, 1).reshape(B * H * W, C)

    def run(sel):
        rr = r if sel is None else r[sel]
        b, idx, w, count = _align_plan(rr, scale, ph, pw, sr, H, W, aligned, not aligned, True)
        rows = b[:, None, None, None] * (H * W) + idx
        out = _gather_sum(xt, rows, w)
        return (out / _wrap(count)[:, None, None, None]).permute(0, 3, 1, 2)
    cost = _align_cost(r, scale, ph, pw, sr, not aligned, C)
    return _by_chunks(xp, cost, run).contiguous()


def _roi_align_bwd(grad, rois, scale, ph, pw, B, C, H, W, sr, aligned):
    r = _arr(rois)
    xp = _xp(r)
    total = grad.new_zeros((B * H * W, C))
    gt = grad.permute(0, 2, 3, 1)
    for sel in _chunks(xp, _align_cost(r, scale, ph, pw, sr, not aligned, C)):
        rr = r if sel is None else r[sel]
        g = gt if sel is None else gt[_wrap(sel)]
        b, idx, w, count = _align_plan(rr, scale, ph, pw, sr, H, W, aligned, not aligned, True)
        rows = b[:, None, None, None] * (H * W) + idx
        g = g / _wrap(count)[:, None, None, None]
        total = total + _scatter_sum(B * H * W, g, rows, w)
    return total.reshape(B, H, W, C).permute(0, 3, 1, 2).contiguous()


def _node_classes():
    global _NODES
    if _NODES is None:
        from ._ops._util import Node

        class ROIAlignBackward(Node):
            def backward(self, g):
                return _roi_align_backward(g, self.rois, self.scale, self.ph, self.pw,
                                           *self.in_shape, self.sr, self.aligned)

        class ROIPoolBackward(Node):
            def backward(self, g, *_):
                return _roi_pool_backward(g, self.rois, self.argmax, self.scale, self.ph,
                                          self.pw, *self.in_shape)

        class PSROIAlignBackward(Node):
            def backward(self, g, *_):
                return _ps_roi_align_backward(g, self.rois, self.mapping, self.scale, self.ph,
                                              self.pw, self.sr, *self.in_shape)

        class PSROIPoolBackward(Node):
            def backward(self, g, *_):
                return _ps_roi_pool_backward(g, self.rois, self.mapping, self.scale, self.ph,
                                             self.pw, *self.in_shape)
        class GatherSumBackward(Node):
            def backward(self, g):
                return _scatter_sum(self.n, g, self.rows, self.w)

        class ScatterSumBackward(Node):
            def backward(self, g):
                return _gather_sum(g, self.rows, self.w)
        _NODES = {'gather_sum': GatherSumBackward, 'scatter_sum': ScatterSumBackward,
                  'roi_align': ROIAlignBackward, 'roi_pool': ROIPoolBackward,
                  'ps_roi_align': PSROIAlignBackward, 'ps_roi_pool': PSROIPoolBackward}
    return _NODES


_NODES = None


def _record(name, out, input, **state):
    from ._ops._util import record
    node = _node_classes()[name]()
    for k, v in state.items():
        setattr(node, k, v)
    node.in_shape = tuple(input.shape)
    record(out, node, (input,))


def roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio,
              aligned):
    """RoI Align (``torchvision::roi_align``): average of bilinearly interpolated samples
    of ``input`` over each bin of each box (Mask R-CNN).

    Each box ``(batch_index, x1, y1, x2, y2)`` is scaled by ``spatial_scale`` (and shifted
    by -0.5 pixel when ``aligned``; otherwise its sides are at least 1), split in
    ``pooled_height x pooled_width`` bins, and each bin is the mean of a grid of
    ``sampling_ratio x sampling_ratio`` bilinear samples (``ceil(box size / bins)`` per
    side when ``sampling_ratio <= 0``). Samples more than one pixel outside the map are 0.

    Args:
        input (Tensor): ``(N, C, H, W)`` feature maps (float16, float32 or float64).
        rois (Tensor): ``(K, 5)`` boxes of ``input``'s dtype.
        spatial_scale (float): box coordinates to ``input`` coordinates.
        pooled_height (int): bins per box, vertically.
        pooled_width (int): bins per box, horizontally.
        sampling_ratio (int): samples per bin side (<= 0: adaptive).
        aligned (bool): shift the boxes by -0.5 pixel (Detectron2's alignment).

    Shape:
        - Output: :math:`(K, C, \\text{pooled\\_height}, \\text{pooled\\_width})`.

    Example::

        >>> x = ember.arange(16.).reshape(1, 1, 4, 4)
        >>> ember.ops.torchvision.roi_align(x, ember.tensor([[0., 0., 0., 2., 2.]]), 1.0,
        ...                                 1, 1, 2, False)
        tensor([[[[5.]]]])
    """
    _check_rois(input, rois, "rois must have shape as Tensor[K, 5]",
                "input should have the same type as rois")
    _check_float(input, 'roi_align_forward_kernel')
    with _no_grad():
        out = _roi_align_fwd(input, rois, spatial_scale, pooled_height, pooled_width,
                             sampling_ratio, aligned)
    if _grad_needed(input):
        _record('roi_align', out, input, rois=rois.detach(), scale=spatial_scale,
                ph=pooled_height, pw=pooled_width, sr=sampling_ratio, aligned=aligned)
    return out


def _roi_align_backward(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size,
                        channels, height, width, sampling_ratio, aligned):
    if grad.dtype != rois.dtype:
        raise RuntimeError("grad should have the same type as rois")
    _check_float(grad, 'roi_align_backward_kernel')
    return _roi_align_bwd(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size,
                          channels, height, width, sampling_ratio, aligned)


# ------------------------------------------------------------------ pooling windows
def _window_plan(rois, scale, ph, pw, height, width, plus_one, lim_h, lim_w):
    """Integer windows of roi_pool / ps_roi_pool: batch index ``(K,)``, spatial index
    ``(K, PH, PW, Wn)``, which cells are in the window ``(K, PH, PW, Wn)``, the window's
    area ``(K, PH, PW)`` and whether it is empty."""
    xp = _xp(rois)
    T = rois.dtype.type
    K = rois.shape[0]
    b, rx1, ry1, rx2, ry2 = _roi_columns(rois)
    sc = T(scale)
    sw, sh = _c_round(xp, rx1 * sc), _c_round(xp, ry1 * sc)
    ew, eh = _c_round(xp, rx2 * sc), _c_round(xp, ry2 * sc)
    extra = 1 if plus_one else 0
    rw = xp.maximum(ew - sw + extra, 1)
    rh = xp.maximum(eh - sh + extra, 1)
    bh, bw = rh.astype(T) / T(ph), rw.astype(T) / T(pw)

    def axis(start, bin_size, P, lim):
        p = xp.arange(P).astype(T)
        lo = xp.floor(p[None, :] * bin_size[:, None]).astype(np.int64)
        hi = xp.ceil((p[None, :] + T(1)) * bin_size[:, None]).astype(np.int64)
        lo = xp.clip(lo + start[:, None], 0, lim)
        hi = xp.clip(hi + start[:, None], 0, lim)
        return lo, hi                                        # (K, P)

    hs, he = axis(sh, bh, ph, lim_h)
    ws, we = axis(sw, bw, pw, lim_w)
    Wh = max(int((he - hs).max()), 0) if K else 0
    Ww = max(int((we - ws).max()), 0) if K else 0
    rr = hs[:, :, None] + xp.arange(Wh)[None, None, :]       # (K, PH, Wh)
    cc = ws[:, :, None] + xp.arange(Ww)[None, None, :]       # (K, PW, Ww)
    rv, cv = rr < he[:, :, None], cc < we[:, :, None]
    idx = rr[:, :, None, :, None] * width + cc[:, None, :, None, :]
    ok = rv[:, :, None, :, None] & cv[:, None, :, None, :]
    idx = xp.where(ok, idx, 0).reshape(K, ph, pw, Wh * Ww)
    ok = ok.reshape(K, ph, pw, Wh * Ww)
    area = ((he - hs)[:, :, None] * (we - ws)[:, None, :])
    empty = ((he <= hs)[:, :, None] | (we <= ws)[:, None, :])
    return b, idx, ok, area, empty


def _window_cost(rois, scale, ph, pw, per_bin):
    xp = _xp(rois)
    T = rois.dtype.type
    with np.errstate(invalid='ignore', over='ignore'):
        rw = xp.abs(rois[:, 3] - rois[:, 1]) * T(abs(scale)) + 2
        rh = xp.abs(rois[:, 4] - rois[:, 2]) * T(abs(scale)) + 2
        g = (xp.ceil(rh / T(ph)) + 2) * (xp.ceil(rw / T(pw)) + 2)
        g = xp.where(xp.isfinite(g), g, 1)
    return (g * (ph * pw * per_bin)).astype(np.int64)


def _roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    """roi_pool's values and argmax, on arrays."""
    B, C, H, W = input.shape
    a = _arr(input)
    r = _arr(rois)
    xp = _xp(a)
    ph, pw = pooled_height, pooled_width
    T = a.dtype.type
    xt = xp.ascontiguousarray(a.transpose(0, 2, 3, 1)).reshape(B * H * W, C)
    outs, args = [], []
    runs = _chunks(xp, _window_cost(r, spatial_scale, ph, pw, C))
    for sel in runs:
        rr = r if sel is None else r[sel]
        b, idx, ok, area, empty = _window_plan(rr, spatial_scale, ph, pw, H, W, True, H, W)
        v = xt[b[:, None, None, None] * (H * W) + idx]            # (K, PH, PW, Wn, C)
        with np.errstate(invalid='ignore'):
            cand = ok[..., None] & (v > T(-_FLT_MAX))
        masked = xp.where(cand, v, T(-np.inf))
        k = rr.shape[0]
        if idx.shape[-1]:
            am = xp.argmax(masked, axis=3)                          # (K, PH, PW, C)
            has = xp.take_along_axis(cand, am[:, :, :, None, :], 3)[:, :, :, 0, :]
            best = xp.take_along_axis(v, am[:, :, :, None, :], 3)[:, :, :, 0, :]
            where = xp.take_along_axis(
                xp.broadcast_to(idx[..., None], v.shape), am[:, :, :, None, :], 3)[:, :, :, 0]
        else:
            has = xp.zeros((k, ph, pw, C), dtype=bool)
            best = xp.zeros((k, ph, pw, C), dtype=T)
            where = xp.zeros((k, ph, pw, C), dtype=np.int64)
        fill = xp.where(empty, T(0), T(-_FLT_MAX))[..., None]
        out = xp.where(has, best, fill)
        arg = xp.where(has, where, -1)
        outs.append(out.transpose(0, 3, 1, 2))
        args.append(arg.transpose(0, 3, 1, 2))
    if runs[0] is None:
        out, arg = outs[0], args[0]
    else:
        order = xp.concatenate(runs)
        out = xp.empty((r.shape[0], C, ph, pw), dtype=T)
        arg = xp.empty((r.shape[0], C, ph, pw), dtype=np.int64)
        out[order] = xp.concatenate(outs)
        arg[order] = xp.concatenate(args)
    return xp.ascontiguousarray(out), xp.ascontiguousarray(arg).astype(np.int32)


def roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    """RoI max pooling (``torchvision::roi_pool``, Fast R-CNN): the maximum of ``input``
    over each integer bin of each box, and where it was taken.

    Each box ``(batch_index, x1, y1, x2, y2)`` is scaled by ``spatial_scale`` and rounded
    (half away from zero) to pixels, split in ``pooled_height x pooled_width`` bins
    (floor/ceil of the fractional bin edges, clipped to the map); an empty bin is 0.

    Args:
        input (Tensor): ``(N, C, H, W)`` feature maps (float32 or float64).
        rois (Tensor): ``(K, 5)`` boxes of ``input``'s dtype.
        spatial_scale (float): box coordinates to ``input`` coordinates.
        pooled_height (int): bins per box, vertically.
        pooled_width (int): bins per box, horizontally.

    Returns:
        (Tensor, Tensor): the pooled values ``(K, C, PH, PW)`` and the int32 flat index
        (``h * W + w``) of each maximum in its map (-1 where none).

    Example::

        >>> x = ember.arange(16.).reshape(1, 1, 4, 4)
        >>> ember.ops.torchvision.roi_pool(x, ember.tensor([[0., 0., 0., 1., 1.]]), 1.0,
        ...                                1, 1)[0]
        tensor([[[[5.]]]])
    """
    _check_rois(input, rois, "Tensor rois should have shape as Tensor[K, 5]",
                "input and rois must have the same dtype")
    import ember
    if input.dtype not in (ember.float32, ember.float64):
        raise RuntimeError("roi_pool only supports float and double types")
    out, arg = _roi_pool(input, rois, spatial_scale, pooled_height, pooled_width)
    out, arg = _wrap(out), _wrap(arg)
    if _grad_needed(input):
        _record('roi_pool', out, input, rois=rois.detach(), argmax=arg, scale=spatial_scale,
                ph=pooled_height, pw=pooled_width)
    return out, arg


def _roi_pool_backward(grad, rois, argmax, spatial_scale, pooled_height, pooled_width,
                       batch_size, channels, height, width):
    if rois.dim() != 2 or rois.size(1) != 5:
        raise RuntimeError("Tensor rois should have shape as Tensor[K, 5]")
    if grad.dtype != rois.dtype:
        raise RuntimeError("grad and rois must have the same dtype")
    import ember
    if grad.dtype not in (ember.float32, ember.float64):
        raise RuntimeError("roi_pool backward only supports float and double types")
    xp = _xp(_arr(rois))
    b, *_ = _roi_columns(_arr(rois))
    am = _arr(argmax).astype(np.int64)
    K = am.shape[0]
    hw = height * width
    chan = xp.arange(channels)[None, :, None, None]
    pos = (b[:, None, None, None] * channels + chan) * hw + am
    valid = (am >= 0)
    total = grad.new_zeros((batch_size * channels * hw,))
    if K and valid.any():
        sel = _wrap(xp.nonzero(valid.reshape(-1))[0])
        g = grad.reshape(-1).index_select(0, sel)
        total = total.index_add(0, _wrap(pos.reshape(-1)[_arr(sel)]), g)
    return total.reshape(batch_size, channels, height, width)


# ------------------------------------------------------------------ position-sensitive ops
def _ps_setup(input, rois, cout, ph, pw):
    """What position-sensitive pooling (``ps_roi_align``/``ps_roi_pool``) reads: the rois
    array, its array module, the input channel of every ``(roi, out channel, bin)`` and the
    flattened input."""
    r = _arr(rois)
    xp = _xp(r)
    C = input.shape[1]
    mapping = xp.broadcast_to(xp.arange(C, dtype=np.int64).reshape(1, cout, ph, pw),
                              (r.shape[0], cout, ph, pw))
    return r, xp, mapping, input.reshape(-1)


def _ps_check(input, rois, ph, pw):
    C = input.shape[1]
    if (ph * pw) == 0 or C % (ph * pw) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling "
                           "width")
    return C // (ph * pw)


def _ps_rows(xp, b, mapping, C, hw, idx):
    """Flat rows into ``input`` for position-sensitive bins: ``(K, C_out, PH, PW, S)``."""
    base = (b[:, None, None, None] * C + mapping) * hw                # (K, C_out, PH, PW)
    return base[..., None] + idx[:, None]


def ps_roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio):
    """Position-sensitive RoI Align (``torchvision::ps_roi_align``, R-FCN): bin ``(i, j)``
    of output channel ``c`` averages bilinear samples of input channel
    ``(c * PH + i) * PW + j``.

    Boxes are shifted by -0.5 pixel (as roi_align's ``aligned=True``); each bin is the mean
    of ``sampling_ratio x sampling_ratio`` samples (adaptive when ``<= 0``; a bin with no
    sample divides 0 by 0, as torchvision's kernel).

    Args:
        input (Tensor): ``(N, C, H, W)``, ``C`` a multiple of ``PH * PW``.
        rois (Tensor): ``(K, 5)`` boxes of ``input``'s dtype.
        spatial_scale (float): box coordinates to ``input`` coordinates.
        pooled_height (int): bins per box, vertically.
        pooled_width (int): bins per box, horizontally.
        sampling_ratio (int): samples per bin side (<= 0: adaptive).

    Returns:
        (Tensor, Tensor): the pooled values ``(K, C / (PH*PW), PH, PW)`` and the int32 input
        channel of each bin.

    Example::

        >>> x = ember.ones(1, 4, 3, 3)
        >>> ember.ops.torchvision.ps_roi_align(x, ember.tensor([[0., 0., 0., 2., 2.]]), 1.0,
        ...                                    2, 2, 1)[0].shape
        ember.Size([1, 1, 2, 2])
    """
    _check_rois(input, rois, "Tensor rois should have shape as Tensor[K, 5]",
                "input should have the same type as rois")
    ph, pw = pooled_height, pooled_width
    cout = _ps_check(input, rois, ph, pw)
    _check_float(input, 'ps_roi_align_forward_kernel')
    B, C, H, W = input.shape
    r, xp, mapping, flat = _ps_setup(input, rois, cout, ph, pw)

    def run(sel):
        rr = r if sel is None else r[sel]
        b, idx, w, count = _align_plan(rr, spatial_scale, ph, pw, sampling_ratio, H, W,
                                       True, False, False)
        rows = _ps_rows(xp, b, mapping[:rr.shape[0]], C, H * W, idx)
        s = _gather_sum(flat, rows, w[:, None])
        with np.errstate(invalid='ignore', divide='ignore'):
            return s / _wrap(count)[:, None, None, None]
    with _no_grad(), np.errstate(invalid='ignore', divide='ignore'):
        out = _by_chunks(xp, _align_cost(r, spatial_scale, ph, pw, sampling_ratio, False, cout),
                         run).contiguous()
    cm = _wrap(xp.ascontiguousarray(mapping).astype(np.int32))
    if _grad_needed(input):
        _record('ps_roi_align', out, input, rois=rois.detach(), mapping=cm,
                scale=spatial_scale, ph=ph, pw=pw, sr=sampling_ratio)
    return out, cm


def _ps_roi_align_backward(grad, rois, channel_mapping, spatial_scale, pooled_height,
                           pooled_width, sampling_ratio, batch_size, channels, height, width):
    if grad.dtype != rois.dtype:
        raise RuntimeError("grad should have the same type as rois")
    _check_float(grad, 'ps_roi_align_backward_kernel')
    ph, pw = pooled_height, pooled_width
    r = _arr(rois)
    xp = _xp(r)
    mapping = _arr(channel_mapping).astype(np.int64)
    hw = height * width
    total = grad.new_zeros((batch_size * channels * hw,))
    cout = grad.shape[1]
    for sel in _chunks(xp, _align_cost(r, spatial_scale, ph, pw, sampling_ratio, False, cout)):
        rr = r if sel is None else r[sel]
        mm = mapping if sel is None else mapping[sel]
        g = grad if sel is None else grad[_wrap(sel)]
        b, idx, w, count = _align_plan(rr, spatial_scale, ph, pw, sampling_ratio, height,
                                       width, True, False, False)
        count = xp.where(count == 0, 1, count)     # no sample: nothing to spread
        rows = _ps_rows(xp, b, mm, channels, hw, idx)
        g = g / _wrap(count)[:, None, None, None]
        total = total + _scatter_sum(total.shape[0], g, rows, w[:, None])
    return total.reshape(batch_size, channels, height, width)


def _ps_pool_plan(rois, scale, ph, pw, H, W, lim_h, lim_w):
    b, idx, ok, area, empty = _window_plan(rois, scale, ph, pw, H, W, False, lim_h, lim_w)
    xp = _xp(rois)
    T = rois.dtype.type
    # each cell weighs 1 / area (0 outside the window or in an empty bin)
    w = xp.where(ok & ~empty[..., None], T(1), T(0))
    area = xp.where(empty, 1, area).astype(T)
    return b, idx, w, area, empty


def ps_roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
    """Position-sensitive RoI average pooling (``torchvision::ps_roi_pool``, R-FCN): bin
    ``(i, j)`` of output channel ``c`` is the mean of input channel ``(c * PH + i) * PW +
    j`` over the bin's integer window.

    Boxes are rounded (half away from zero) to pixels, their sides at least 1. As
    torchvision's kernel, the forward clips the windows to ``H - 1`` / ``W - 1`` (the last
    row and column are not pooled) while ``_ps_roi_pool_backward`` clips them to ``H`` /
    ``W``; the gradient is torchvision's.

    Args:
        input (Tensor): ``(N, C, H, W)``, ``C`` a multiple of ``PH * PW`` (float32 or
            float64).
        rois (Tensor): ``(K, 5)`` boxes of ``input``'s dtype.
        spatial_scale (float): box coordinates to ``input`` coordinates.
        pooled_height (int): bins per box, vertically.
        pooled_width (int): bins per box, horizontally.

    Returns:
        (Tensor, Tensor): the pooled values ``(K, C / (PH*PW), PH, PW)`` and the int32 input
        channel of each bin.

    Example::

        >>> x = ember.ones(1, 4, 4, 4)
        >>> ember.ops.torchvision.ps_roi_pool(x, ember.tensor([[0., 0., 0., 2., 2.]]), 1.0,
        ...                                   2, 2)[0].flatten()
        tensor([1., 1., 1., 1.])
    """
    _check_rois(input, rois, "Tensor rois should have shape as Tensor[K, 5]",
                "input and rois must have the same dtype")
    ph, pw = pooled_height, pooled_width
    cout = _ps_check(input, rois, ph, pw)
    import ember
    if input.dtype not in (ember.float32, ember.float64):
        raise RuntimeError("ps_roi_pool only supports float and double types")
    B, C, H, W = input.shape
    r, xp, mapping, flat = _ps_setup(input, rois, cout, ph, pw)

    def run(sel):
        rr = r if sel is None else r[sel]
        b, idx, w, area, _ = _ps_pool_plan(rr, spatial_scale, ph, pw, H, W, H - 1, W - 1)
        rows = _ps_rows(xp, b, mapping[:rr.shape[0]], C, H * W, idx)
        s = _gather_sum(flat, rows, w[:, None])
        return s / _wrap(area)[:, None]
    with _no_grad():
        out = _by_chunks(xp, _window_cost(r, spatial_scale, ph, pw, cout), run).contiguous()
    cm = _wrap(xp.ascontiguousarray(mapping).astype(np.int32))
    if _grad_needed(input):
        _record('ps_roi_pool', out, input, rois=rois.detach(), mapping=cm,
                scale=spatial_scale, ph=ph, pw=pw)
    return out, cm


def _ps_roi_pool_backward(grad, rois, channel_mapping, spatial_scale, pooled_height,
                          pooled_width, batch_size, channels, height, width):
    if grad.dtype != rois.dtype:
        raise RuntimeError("grad and rois must have the same dtype")
    import ember
    if grad.dtype not in (ember.float32, ember.float64):
        raise RuntimeError("ps_roi_pool backward only supports float and double types")
    ph, pw = pooled_height, pooled_width
    r = _arr(rois)
    xp = _xp(r)
    mapping = _arr(channel_mapping).astype(np.int64)
    hw = height * width
    total = grad.new_zeros((batch_size * channels * hw,))
    for sel in _chunks(xp, _window_cost(r, spatial_scale, ph, pw, grad.shape[1])):
        rr = r if sel is None else r[sel]
        mm = mapping if sel is None else mapping[sel]
        g = grad if sel is None else grad[_wrap(sel)]
        b, idx, w, area, _ = _ps_pool_plan(rr, spatial_scale, ph, pw, height, width,
                                           height, width)
        rows = _ps_rows(xp, b, mm, channels, hw, idx)
        g = g / _wrap(area)[:, None]
        total = total + _scatter_sum(total.shape[0], g, rows, w[:, None])
    return total.reshape(batch_size, channels, height, width)


# ------------------------------------------------------------------ deform_conv2d
def _expect(cond, what):
    if not cond:
        raise RuntimeError(f"Expected {what} to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")


def _deform_checks(input, weight, offset, mask, bias, sh, sw, ph, pw, dh, dw, groups, og,
                   use_mask):
    _expect(input.dim() == 4, "input_c.ndimension() == 4")
    _expect(offset.dim() == 4, "offset_c.ndimension() == 4")
    _expect(not use_mask or mask.dim() == 4, "!use_mask || mask_c.ndimension() == 4")
    _expect(weight.dim() == 4, "weight_c.ndimension() == 4")
    B, C, H, W = input.shape
    kh, kw = weight.shape[2], weight.shape[3]
    oh = (H + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1 if sh > 0 else 0
    ow = (W + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1 if sw > 0 else 0
    if not (kh > 0 and kw > 0):
        raise RuntimeError(f"weight_h: {kh} weight_w: {kw}")
    if not (sh > 0 and sw > 0):
        raise RuntimeError(f"stride_h: {sh} stride_w: {sw}")
    if not (ph >= 0 and pw >= 0):
        raise RuntimeError(f"pad_h: {ph} pad_w: {pw}")
    if not (dh > 0 and dw > 0):
        raise RuntimeError(f"dilation_h: {dh} dilation_w: {dw}")
    _expect(weight.shape[1] * groups == C, "weight_c.size(1) * n_weight_grps == input_c.size(1)")
    _expect(groups > 0 and weight.shape[0] % groups == 0,
            "weight_c.size(0) % n_weight_grps == 0")
    if offset.shape[1] != og * 2 * kh * kw:
        raise RuntimeError(f"offset.shape[1] is not valid: got: {offset.shape[1]} expected: "
                           f"{og * 2 * kh * kw}")
    if use_mask and mask.shape[1] != og * kh * kw:
        raise RuntimeError(f"mask.shape[1] is not valid: got: {mask.shape[1]} expected: "
                           f"{og * kh * kw}")
    _expect(og > 0 and C % og == 0, "input_c.size(1) % n_offset_grps == 0")
    if offset.shape[0] != B:
        raise RuntimeError("invalid batch size of offset")
    if offset.shape[2] != oh or offset.shape[3] != ow:
        raise RuntimeError(f"offset output dims: ({offset.shape[2]}, {offset.shape[3]}) - "
                           f"computed output dims: ({oh}, {ow})")
    if mask.shape[0] != B:
        raise RuntimeError("invalid batch size of mask")
    if use_mask and (mask.shape[2] != oh or mask.shape[3] != ow):
        raise RuntimeError(f"mask output dims: ({mask.shape[2]}, {mask.shape[3]}) - "
                           f"computed output dims: ({oh}, {ow})")
    if not (oh > 0 and ow > 0):
        raise RuntimeError(f"Calculated output size too small - out_h: {oh} out_w: {ow}")
    return oh, ow


def _deform_forward(input, weight, offset, mask, bias, sh, sw, ph, pw, dh, dw, groups, og,
                    use_mask, oh, ow):
    """deform_conv2d in ember ops (differentiable in every tensor but the sample cells)."""
    import ember
    B, C, H, W = input.shape
    cout, _, kh, kw = weight.shape
    xp = _xp(_arr(input))
    L = kh * kw * oh * ow
    T = _arr(input).dtype.type
    if B == 0:
        return input.new_zeros((0, cout, oh, ow)) + bias.reshape(1, cout, 1, 1)
    by = (xp.arange(oh)[None, :] * sh - ph + xp.arange(kh)[:, None] * dh).astype(T)
    bx = (xp.arange(ow)[None, :] * sw - pw + xp.arange(kw)[:, None] * dw).astype(T)
    off = offset.reshape(B, og, kh, kw, 2, oh, ow)
    y = off[:, :, :, :, 0] + _wrap(by[:, None, :, None])          # (B, og, kh, kw, oh, ow)
    x = off[:, :, :, :, 1] + _wrap(bx[None, :, None, :])
    ya, xa = _arr(y), _arr(x)
    with np.errstate(invalid='ignore'):
        inside = (ya > -1) & (ya < H) & (xa > -1) & (xa < W)
        y0 = xp.floor(xp.where(inside, ya, 0))
        x0 = xp.floor(xp.where(inside, xa, 0))
    ly = y - _wrap(y0)
    lx = x - _wrap(x0)
    hy, hx = 1 - ly, 1 - lx
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    src = input.reshape(B * og, C // og, H * W)
    cols = None
    for cy, wy in ((y0, hy), (y0 + 1, ly)):
        for cx, wx in ((x0, hx), (x0 + 1, lx)):
            ok = inside & (cy >= 0) & (cy <= H - 1) & (cx >= 0) & (cx <= W - 1)
            pos = xp.where(ok, cy * W + cx, 0).reshape(B * og, 1, L)
            vals = src.gather(2, _wrap(xp.broadcast_to(pos, (B * og, C // og, L))))
            wgt = (wy * wx) * _wrap(ok.astype(T))
            term = vals * wgt.reshape(B * og, 1, L)
            cols = term if cols is None else cols + term
    if use_mask:
        cols = cols * mask.reshape(B * og, 1, L)
    # (B, C, kh*kw, oh*ow) -> per weight group (B, G, C/G*kh*kw, oh*ow)
    cols = cols.reshape(B, groups, (C // groups) * kh * kw, oh * ow)
    wg = weight.reshape(groups, cout // groups, (C // groups) * kh * kw)
    out = ember.matmul(wg.unsqueeze(0), cols)                       # (B, G, cout/G, oh*ow)
    return out.reshape(B, cout, oh, ow) + bias.reshape(1, cout, 1, 1)


def deform_conv2d(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
                  dilation_h, dilation_w, groups, offset_groups, use_mask):
    """Deformable convolution (``torchvision::deform_conv2d``, DCN v1/v2): a 2-D
    convolution whose kernel taps are moved by learned ``offset`` (sampled bilinearly, 0
    outside the map) and, with ``use_mask``, scaled by ``mask``.

    Args:
        input (Tensor): ``(N, C_in, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kH, kW)``.
        offset (Tensor): ``(N, 2 * offset_groups * kH * kW, H_out, W_out)``: (dy, dx) per
            tap, output position and offset group.
        mask (Tensor): ``(N, offset_groups * kH * kW, H_out, W_out)`` (ignored unless
            ``use_mask``; its batch size is still checked).
        bias (Tensor): ``(C_out,)``.
        stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w (int): as conv2d's.
        groups (int): weight groups; offset_groups (int): groups of input channels sharing
            an offset.
        use_mask (bool): apply ``mask`` (modulated deformable convolution).

    Shape:
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})`, sized as conv2d's.

    NOTE: unlike torchvision, without ``use_mask`` a ``mask`` that requires grad gets no
    gradient (``None``) rather than zeros; the boxes of the roi ops likewise get none.

    Example::

        >>> x, w = ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)
        >>> off = ember.zeros(1, 8, 2, 2)
        >>> ember.ops.torchvision.deform_conv2d(x, w, off, ember.zeros(1, 1), ember.zeros(1),
        ...                                     1, 1, 0, 0, 1, 1, 1, 1, False).flatten()
        tensor([4., 4., 4., 4.])
    """
    oh, ow = _deform_checks(input, weight, offset, mask, bias, stride_h, stride_w, pad_h,
                            pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask)
    _check_float(input, 'deformable_im2col')
    return _deform_forward(input, weight, offset, mask, bias, stride_h, stride_w, pad_h,
                           pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask,
                           oh, ow)


def _deform_conv2d_backward(grad, input, weight, offset, mask, bias, stride_h, stride_w,
                            pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups,
                            use_mask):
    import ember
    from .autograd.grad_mode import enable_grad, is_grad_enabled
    create = is_grad_enabled() and any(
        t.requires_grad for t in (grad, input, weight, offset, mask, bias))
    oh, ow = _deform_checks(input, weight, offset, mask, bias, stride_h, stride_w, pad_h,
                            pad_w, dilation_h, dilation_w, groups, offset_groups, use_mask)
    leaves = [t if create else t.detach() for t in (input, weight, offset, mask, bias)]
    with enable_grad():
        leaves = [t if t.requires_grad else t.detach().requires_grad_() for t in leaves]
        out = _deform_forward(*leaves, stride_h, stride_w, pad_h, pad_w, dilation_h,
                              dilation_w, groups, offset_groups, use_mask, oh, ow)
        grads = ember.autograd.grad(out, leaves, grad, allow_unused=True,
                                    create_graph=create)
    return tuple(g if g is not None else ember.zeros_like(t) for g, t in zip(grads, leaves))


def _cuda_version():
    return -1


# ------------------------------------------------------------------ fake kernels (meta)
def _fake_pooled(input, rois, ph, pw, cout, shape_msg, dtype_msg, pair):
    import ember
    _check_rois(input, rois, shape_msg, dtype_msg)
    out = input.new_empty((rois.shape[0], cout, ph, pw))
    return (out, input.new_empty(out.shape, dtype=ember.int32)) if pair else out


def _fake_grad(grad, rois, *dims):
    if grad.dtype != rois.dtype:
        raise RuntimeError("grad should have the same type as rois")
    return grad.new_empty(tuple(dims))


_FAKES = {
    'roi_align': lambda i, r, s, ph, pw, sr, al: _fake_pooled(
        i, r, ph, pw, i.shape[1], "rois must have shape as Tensor[K, 5]",
        "input should have the same type as rois", False),
    '_roi_align_backward': lambda g, r, s, ph, pw, b, c, h, w, sr, al: _fake_grad(
        g, r, b, c, h, w),
    'roi_pool': lambda i, r, s, ph, pw: _fake_pooled(
        i, r, ph, pw, i.shape[1], "Tensor rois should have shape as Tensor[K, 5]",
        "input and rois must have the same dtype", True),
    '_roi_pool_backward': lambda g, r, a, s, ph, pw, b, c, h, w: _fake_grad(g, r, b, c, h, w),
    'ps_roi_align': lambda i, r, s, ph, pw, sr: _fake_pooled(
        i, r, ph, pw, _ps_check(i, r, ph, pw), "Tensor rois should have shape as Tensor[K, 5]",
        "input should have the same type as rois", True),
    '_ps_roi_align_backward': lambda g, r, m, s, ph, pw, sr, b, c, h, w: _fake_grad(
        g, r, b, c, h, w),
    'ps_roi_pool': lambda i, r, s, ph, pw: _fake_pooled(
        i, r, ph, pw, _ps_check(i, r, ph, pw), "Tensor rois should have shape as Tensor[K, 5]",
        "input and rois must have the same dtype", True),
    '_ps_roi_pool_backward': lambda g, r, m, s, ph, pw, b, c, h, w: _fake_grad(
        g, r, b, c, h, w),
    'deform_conv2d': lambda i, w, o, m, b, *a: i.new_empty(
        (i.shape[0], w.shape[0]) + _deform_checks(i, w, o, m, b, *a)),
    '_deform_conv2d_backward': lambda g, i, w, o, m, b, *a: tuple(
        t.new_empty(t.shape) for t in (i, w, o, m, b)),
}


# ------------------------------------------------------------------ autocast
def _autocast(fn):
    """torchvision's autocast kernels: under autocast, the floating inputs (but float64) are
    cast to float32, the op runs with autocast off, and floating results are cast back to
    the first input's dtype."""
    def run(*args):
        import ember
        T = ember.Tensor
        first = next(a for a in args if isinstance(a, T))
        dev = first.device.type
        if dev == 'meta' or not ember.is_autocast_enabled(dev):
            return fn(*args)
        with ember.autocast(dev, enabled=False):
            out = fn(*[a.float() if isinstance(a, T) and a.is_floating_point()
                       and a.dtype != ember.float64 else a for a in args])

        def back(t):
            return t.to(first.dtype) if t.is_floating_point() else t
        return tuple(back(t) for t in out) if isinstance(out, tuple) else back(out)
    run.__name__ = run.__qualname__ = fn.__name__
    run.__doc__ = fn.__doc__
    return run


_AUTOCAST = ('nms', 'roi_align', 'roi_pool', 'ps_roi_align', 'ps_roi_pool', 'deform_conv2d')


# ------------------------------------------------------------------ registration
_KERNELS = {
    'nms': nms, 'qnms': _qnms, 'qroi_align': _qroi_align, 'roi_align': roi_align,
    '_roi_align_backward': _roi_align_backward, 'roi_pool': roi_pool,
    '_roi_pool_backward': _roi_pool_backward, 'ps_roi_align': ps_roi_align,
    '_ps_roi_align_backward': _ps_roi_align_backward, 'ps_roi_pool': ps_roi_pool,
    '_ps_roi_pool_backward': _ps_roi_pool_backward, 'deform_conv2d': deform_conv2d,
    '_deform_conv2d_backward': _deform_conv2d_backward, '_cuda_version': _cuda_version,
}

_defined = False
_LIB = None


def register():
    """Register ember's ``torchvision::`` operators (once; ``ember.ops.torchvision`` calls
    it on first use).

    Example::

        >>> ember._vision_ops.register()
        >>> ember.ops.torchvision.nms
        <OpOverloadPacket(op='torchvision.nms')>
    """
    global _defined, _LIB
    if _defined:
        return
    _defined = True
    lib = _library.Library('torchvision', 'FRAGMENT')
    for name, schema in _SCHEMAS.items():
        if 'torchvision::' + name in _library._OPS:     # defined already (by the user)
            continue
        lib.define(schema)
        kernel = _autocast(_KERNELS[name]) if name in _AUTOCAST else _KERNELS[name]
        lib.impl(name, kernel, 'CPU')
        lib.impl(name, kernel, 'CUDA')
        if name in _FAKES:
            lib.impl(name, _FAKES[name], 'Meta')
    _LIB = lib
