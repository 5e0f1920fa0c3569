"""Reductions: sum, mean, prod, max/min, var/std, norms, sorting, unique, cumulative ops..."""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, _wrap_dim
from ._util import wrap, Node, register, grad_needed, record
from .._backend import array_module


def _dims(dim, nd):
    """Normalise ``dim`` (None, int, tuple/list) to a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(nd))
    if isinstance(dim, int):
        return (_wrap_dim(dim, nd),)
    ds = tuple(_wrap_dim(d, nd) for d in dim)
    if len(set(ds)) != len(ds):
        raise RuntimeError(f"dim {ds[0]} appears multiple times in the list of dims")
    if not ds:
        return tuple(range(nd))
    return tuple(sorted(ds))


def _expand_back(g, shape, dims, keepdim):
    """Grad of a reduction over ``dims``: unsqueeze the reduced dims back and expand."""
    if not keepdim and len(shape):
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


class SumBackward0(Node):
    def backward(self, g):
        return g.expand(self.shape) if g.dim() == 0 or True else g


class SumBackward1(Node):
    def backward(self, g):
        return _expand_back(g, self.shape, self.dims, self.keepdim)


@register()
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements, over ``dim`` (int, tuple or None for all).

    Integer and bool inputs sum as int64.

    Example::

        >>> ember.tensor([[1, 2], [3, 4]]).sum(0)
        tensor([4, 6])
    """
    a = input._data
    nd = a.ndim
    dims = _dims(dim, nd) if (dim is not None and dim != ()) or True else None
    if dtype is not None:
        a = a.astype(dtype._np)
    elif a.dtype.kind in 'biu':
        a = a.astype(np.int64)
    xp = array_module(a)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        r = xp.sum(a, axis=None if nd else None, keepdims=keepdim and nd > 0)
        if keepdim and nd == 0:
            r = xp.asarray(r)
        res = wrap(xp.asarray(r) if not isinstance(r, xp.ndarray) else r)
        if grad_needed(input):
            node = SumBackward0() if not keepdim else SumBackward1()
            node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
            record(res, node, (input,))
        return res
    r = xp.sum(a, axis=dims if nd else None, keepdims=keepdim)
    res = wrap(xp.asarray(r))
    if grad_needed(input):
        node = SumBackward1()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        record(res, node, (input,))
    return res
