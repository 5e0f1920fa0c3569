"""The unchecked masked indexing ops of the compiler's decompositions:
``_unsafe_masked_index`` (read ``input[indices]`` where ``mask`` holds, else ``fill``) and
``_unsafe_masked_index_put_accumulate`` (add ``values`` at ``indices`` where ``mask`` holds),
with masked-out indices clamped into bounds, and their backward nodes. Built over
``indexing``'s ``index_put``, ``where`` and ``fill``."""
import numpy as np

from . import _args
from .._tensor import Tensor
from ._util import wrap, Node, register, grad_needed, record
from .._backend import array_module
from .indexing import _add_at, fill


# ------------------------------------------------------------------ _unsafe_masked_index
def _masked_index_args(input, mask, indices, name):
    """``indices`` as arrays clamped into ``input``'s bounds (positions the mask drops may
    hold any index), checked as torch checks them."""
    for t in (input, mask):
        if not isinstance(t, Tensor):
            _args.tensor(t, name)
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"{name}(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    out = []
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 2, but got "
                            f"{type(t).__name__}")
        n = input.shape[i]
        a = t._data
        out.append(array_module(a).clip(a, -n, _bmax(n - 1, 0)))
    return tuple(out)


def _bmax(a, b):
    return a if a > b else b


class UnsafeMaskedIndexBackward0(Node):
    def backward(self, g):
        (mask,) = self.saved_tensors
        gm = g.where(mask, g.new_zeros(()))
        idx = tuple(wrap(i) for i in self.idx)
        return g.new_zeros(self.shape).index_put(idx, gm, accumulate=True), None


@register(method=False)
def _unsafe_masked_index(input, mask, indices, fill):
    """``input[indices]`` where ``mask`` is true, ``fill`` elsewhere: the indices at masked
    positions are not checked (they are clamped into bounds), so padded or out-of-range
    index tensors can be gathered in one go.

    Args:
        input (Tensor): the tensor to index.
        mask (Tensor): bool, broadcastable with the indexed result.
        indices (list of Tensors): one integer index tensor per leading dimension.
        fill (Number): the value where ``mask`` is false.

    Example::

        >>> x = ember.arange(4.)
        >>> i = ember.tensor([1, 7])
        >>> ember._unsafe_masked_index(x, i < 4, [i], -1.)
        tensor([ 1., -1.])
    """
    idx = _masked_index_args(input, mask, indices, '_unsafe_masked_index')
    a = input._data
    xp = array_module(a)
    vals = a[idx]
    res = wrap(xp.where(mask._data, vals, xp.asarray(fill).astype(a.dtype)))
    if grad_needed(input):
        node = UnsafeMaskedIndexBackward0()
        node.idx, node.shape = idx, tuple(input.shape)
        record(res, node, (input, mask), save=(mask,))
    return res


class UnsafeMaskedIndexPutAccumulateBackward0(Node):
    def backward(self, g):
        (mask,) = self.saved_tensors
        gv = None
        if self.needs[2]:
            gi = g[tuple(wrap(i) for i in self.idx)]
            gv = gi.where(mask, gi.new_zeros(()))
            if tuple(gv.shape) != self.vshape:
                gv = gv.sum_to_size(self.vshape)
        return g, None, gv


@register(method=False)
def _unsafe_masked_index_put_accumulate(input, mask, indices, values):
    """``input`` with ``values`` added at ``indices`` where ``mask`` is true (an out-of-place
    ``index_put(..., accumulate=True)`` whose masked-out indices are not checked: they are
    clamped into bounds and add nothing).

    Args:
        input (Tensor): the tensor to add into.
        mask (Tensor): bool, broadcastable with ``values``.
        indices (list of Tensors): one integer index tensor per leading dimension.
        values (Tensor): the values to add.

    Example::

        >>> i = ember.tensor([1, 1, 9])
        >>> ember._unsafe_masked_index_put_accumulate(ember.zeros(3), i < 3, [i],
        ...                                           ember.ones(3))
        tensor([0., 2., 0.])
    """
    idx = _masked_index_args(input, mask, indices, '_unsafe_masked_index_put_accumulate')
    if not isinstance(values, Tensor):
        _args.tensor(values, '_unsafe_masked_index_put_accumulate')
    a, v = input._data, values._data
    xp = array_module(a)
    m = mask._data
    vm = xp.where(m, v, xp.zeros((), v.dtype))
    out = a.copy()
    shape = np.broadcast_shapes(*[i.shape for i in idx], m.shape, v.shape)
    full = tuple(xp.broadcast_to(i, shape) for i in idx)
    _add_at(xp, out, full, xp.broadcast_to(vm, shape).astype(out.dtype))   # bool: or
    res = wrap(out)
    if grad_needed(input, values):
        node = UnsafeMaskedIndexPutAccumulateBackward0()
        node.idx, node.vshape = full, tuple(values.shape)
        record(res, node, (input, mask, values), save=(mask,))
    return res
