"""``ember.nn.functional.linear``: ``input @ weight.T + bias``.

A 2-D input with a bias takes one lean path (a single array product, recorded as PyTorch's
``AddmmBackward0`` over ``weight.t()``); everything else is composed of the linear-algebra
ops, so the grad_fn names match PyTorch's (``MmBackward0`` without a bias,
``ViewBackward0`` for batched inputs).
"""
from . import _args
from .._tensor import Tensor, _Mode, _new_tensor as wrap
from .products import AddmmBackward0, _record_add_product, addmm, matmul

__all__ = ['linear']


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``.

    Args:
        input (Tensor): ``(*, in_features)``.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features)``.

    Shape:
        - output: ``(*, out_features)``.

    Example::

        >>> F.linear(ember.ones(2, 3), ember.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'linear')
    if not isinstance(weight, Tensor):
        _args.tensor(weight, 'linear', 'weight', 2)
    if bias is not None and not isinstance(bias, Tensor):
        _args.tensor(bias, 'linear', 'bias', 3)
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"0D and {weight.dim()}D")
    if bias is None:
        return matmul(input, weight.t())
    if nd == 2:
        return _addmm_t(bias, input, weight)
    shape = input.shape
    x2 = input.reshape(-1, shape[-1]) if nd > 2 else input.unsqueeze(0)
    r = _addmm_t(bias, x2, weight)
    return r.view(shape[:-1] + (r.shape[-1],))


def _addmm_t(bias, x, weight):
    """``bias + x @ weight.T`` for a 2-D ``x``: the lean path of :func:`linear` (one array
    product, recorded as PyTorch's ``AddmmBackward0`` over ``weight.t()``)."""
    a, w, b = x._data, weight._data, bias._data
    dt = a.dtype
    if (w.dtype is not dt or b.dtype is not dt or dt.kind != 'f' or dt.itemsize < 4 or w.ndim != 2
            or b.ndim != 1 or a.shape[1] != w.shape[1] or b.shape[0] != w.shape[0]):
        # anything unusual: the general addmm (promotion errors, broadcasting, low precision)
        return addmm(bias, x, weight.t())
    r = a @ w.T
    r += b
    out = wrap(r)
    if _Mode.grad and (x._rg or weight._rg or bias._rg):
        _record_add_product(out, AddmmBackward0(), bias, x, weight.t(), 1, 1)
    return out
