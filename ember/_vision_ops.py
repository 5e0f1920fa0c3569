"""torchvision's operators written for ember, registered under ``torchvision::`` through
:mod:`ember.library` (``ember.ops.torchvision.nms``).

torchvision's own operators are compiled against PyTorch's C++ runtime and cannot load
under ember (``ember.ops.load_library`` refuses them). When torchvision tries to load them,
this module registers the operators ember provides in Python, so that torchvision's Python
registrations (``register_fake("torchvision::nms")``...) find them and ``import
torchvision`` works.

NOTE: unlike PyTorch with torchvision's compiled library, only ``nms`` is provided so far;
``qnms`` exists (torchvision registers a fake kernel for it) and raises, since ember has no
quantized tensors.
"""
from . import library as _library


__all__ = ['nms']

_SCHEMA = "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"


def _check_nms(dets, scores):
    if dets.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {dets.dim()}D")
    if dets.size(1) != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}")
    if dets.size(0) != scores.size(0):
        raise RuntimeError("boxes and scores should have same number of elements in dimension "
                           f"0, got {dets.size(0)} and {scores.size(0)}")


def nms(dets, scores, iou_threshold):
    """Non-maximum suppression: the indices of the boxes kept, by decreasing score.

    A box is dropped when its intersection-over-union with a kept box of higher score is
    greater than ``iou_threshold``.

    Args:
        dets (Tensor): boxes ``(x1, y1, x2, y2)``, shape ``(N, 4)``.
        scores (Tensor): the boxes' scores, shape ``(N,)``.
        iou_threshold (float): the overlap above which a box is dropped.

    Returns:
        Tensor: int64 indices into ``dets``, shape ``(K,)``.

    Example::

        >>> boxes = ember.tensor([[0., 0., 2., 2.], [0., 0., 2., 1.9], [3., 3., 4., 4.]])
        >>> ember.ops.torchvision.nms(boxes, ember.tensor([.9, .8, .7]), 0.5)
        tensor([0, 2])
    """
    from ._backend import array_module
    from ._ops._util import wrap
    _check_nms(dets, scores)
    a, s = dets.detach()._data, scores.detach()._data
    xp = array_module(a)
    order = xp.argsort(-s, kind='stable')
    x1, y1, x2, y2 = (a[:, i] for i in range(4))
    area = (x2 - x1) * (y2 - y1)
    suppressed = xp.zeros(a.shape[0], dtype=bool)
    keep = []
    for pos in range(order.shape[0]):
        i = int(order[pos])
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[pos + 1:]
        w = xp.clip(xp.minimum(x2[i], x2[rest]) - xp.maximum(x1[i], x1[rest]), 0, None)
        h = xp.clip(xp.minimum(y2[i], y2[rest]) - xp.maximum(y1[i], y1[rest]), 0, None)
        inter = w * h
        iou = inter / (area[i] + area[rest] - inter)
        suppressed[rest[iou > iou_threshold]] = True
    return wrap(xp.asarray(keep, dtype=xp.int64))


def _qnms(dets, scores, iou_threshold):
    raise NotImplementedError("torchvision::qnms: ember has no quantized tensors")


_defined = False


def register():
    """Register ember's ``torchvision::`` operators (once).

    Example::

        >>> ember._vision_ops.register()
    """
    global _defined
    if _defined or _library._OPS.get('torchvision::nms') is not None:
        _defined = True
        return
    _library.custom_op('torchvision::nms', nms, mutates_args=(), schema=_SCHEMA)
    _library.custom_op('torchvision::qnms', _qnms, mutates_args=(), schema=_SCHEMA)
    _defined = True



