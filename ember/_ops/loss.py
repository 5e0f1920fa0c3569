"""Loss functions: each reduces with ``reduction='mean'|'sum'|'none'`` (the legacy
``size_average``/``reduce`` arguments are translated as PyTorch does)."""
from . import _args
import warnings

from .._tensor import Tensor
from ._util import wrap, Node, grad_needed, record
from .._backend import array_module

__all__ = ['l1_loss', 'mse_loss']


def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' "
                  "instead.".format('mean'), UserWarning, stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return 'none'
    return 'mean' if size_average else 'sum'


def _apply_reduction(x, reduction):
    if reduction == 'none':
        return x
    if reduction == 'mean':
        return x.mean()
    if reduction == 'sum':
        return x.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_sizes(input, target, name):
    if not isinstance(target, Tensor):
        _args.py_tensor(target, 'size')
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


def l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    """Mean (or sum, or none) absolute error between ``input`` and ``target``.

    Example::

        >>> F.l1_loss(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(1.5000)
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    reduction = _reduction(size_average, reduce, reduction)
    _check_sizes(input, target, 'l1_loss')
    d = (input - target).abs()
    if weight is not None:
        d = d * weight
    return _apply_reduction(d, reduction)


class MseLossBackward0(Node):
    def backward(self, g):
        x, t = self.saved_tensors
        d = (x - t) * 2
        if self.reduction == 'mean':
            d = d / self.n
        gi = d * g
        return (gi if self.needs[0] else None), (-gi if self.needs[1] else None)


def mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    """Mean (or sum, or none) squared error between ``input`` and ``target``.

    Args:
        input (Tensor), target (Tensor): broadcastable (a warning when shapes differ).
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        weight (Tensor, optional): per-element weights.

    Example::

        >>> F.mse_loss(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(2.5000)
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'size')
    reduction = _reduction(size_average, reduce, reduction)
    _check_sizes(input, target, 'mse_loss')
    if weight is not None or reduction not in ('mean', 'sum') or input.dtype != target.dtype \
            or input.shape != target.shape:
        d = input - target
        d = d * d
        if weight is not None:
            d = d * weight
        return _apply_reduction(d, reduction)
    a, b = input._data, target._data
    xp = array_module(a)
    diff = a - b
    sq = diff * diff
    r = sq.sum()
    if reduction == 'mean':
        r = r / sq.size if sq.size else xp.nan
    out = wrap(xp.asarray(r, dtype=a.dtype))
    if grad_needed(input, target):
        node = MseLossBackward0()
        node.reduction = reduction
        node.n = a.size
        record(out, node, (input, target), save=(input, target))
    return out
