"""Flat and along-a-dimension element access: ``take``, ``take_along_dim``, ``put`` and
``put_`` (indices into the flattened input, checked as torch checks them), with their backward
nodes. Built over ``indexing``'s ``gather``."""
import numpy as np

from . import _args
from .._tensor import Tensor, _wrap_dim, _legacy_name
from ._inplace import inplace, check_out_overlap
from ._util import wrap, Node, register, grad_needed, record
from .indexing import _raise_bc, _xp, gather


# ------------------------------------------------------------------ take / take_along_dim / put
def _flat_index(input, index, name):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    ia = index._data
    if ia.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{_legacy_name(index.dtype)}")
    n = input._data.size
    if ia.size:
        mx, mn = int(ia.max()), int(ia.min())
        bad = mx if mx >= n else (mn if mn < -n else None)
        if bad is not None:
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                             f"elements.")
    return ia


class TakeBackward0(Node):
    def backward(self, g):
        return g.new_zeros(self.shape).put(self.index, g, accumulate=True)


@register()
def take(input, index, *, out=None):
    """Elements of ``input`` (as if flattened) at ``index``; the result has index's shape.

    Example::

        >>> ember.tensor([[4, 3], [5, 6]]).take(ember.tensor([0, 3]))
        tensor([4, 6])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'take')
    ia = _flat_index(input, index, 'take')
    a = input._data
    r = a.reshape(-1)[ia] if a.size else _xp(a).zeros(ia.shape, a.dtype)
    res = wrap(r)
    if grad_needed(input):
        node = TakeBackward0()
        node.shape, node.index = a.shape, index.detach()
        record(res, node, (input,))
    if out is not None:
        if not isinstance(out, Tensor):
            _args.tensor(out, 'take', 'out', None)
        if out.dtype is not input.dtype:
            raise RuntimeError(f"take(): self and out expected to have the same dtype, but got "
                               f"self.dtype = {_legacy_name(input.dtype)} and out.dtype = "
                               f"{_legacy_name(out.dtype)}")
        from ._pointwise_common import _out
        check_out_overlap(out, (input, index), full=True)
        return _out(res, out)
    return res


class PutBackward0(Node):
    def backward(self, g):
        gx = gs = None
        if self.needs[0]:
            gx = g if self.accumulate else g.put(self.index, g.new_zeros(self.sshape))
        if self.needs[1]:
            gs = g.take(self.index)
            if tuple(gs.shape) != tuple(self.sshape):   # same count, source's own shape
                gs = gs.reshape(self.sshape)
        return gx, gs


@register()
def put(input, index, source, accumulate=False):
    """Out-of-place :meth:`Tensor.put_`: a copy of ``input`` (viewed flat) with ``source``
    written (or added, with ``accumulate=True``) at the flat positions ``index``.

    Example::

        >>> ember.put(ember.zeros(2, 2), ember.tensor([0, 3]), ember.tensor([5., 6.]))
        tensor([[5., 0.],
                [0., 6.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'put')
    ia = _flat_index(input, index, 'put_')
    a = input._data
    s = source._data
    if s.size != ia.size:
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {s.size}, index.numel() = {ia.size}")
    if s.dtype != a.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_legacy_name(input.dtype)} and source.dtype = "
                           f"{_legacy_name(source.dtype)}")
    o = a.copy()
    flat = o.reshape(-1)
    if accumulate:
        _xp(a).add.at(flat, ia.reshape(-1), s.reshape(-1))
    else:
        flat[ia.reshape(-1)] = s.reshape(-1)
    res = wrap(flat.reshape(a.shape))
    if grad_needed(input, source):
        node = PutBackward0()
        node.index, node.accumulate, node.sshape = index.detach(), accumulate, s.shape
        record(res, node, (input, source))
    return res


@register('put_', function=False)
def put_(self, index, source, accumulate=False):
    """Write ``source`` into this tensor (viewed flat) at ``index`` in place
    (``accumulate`` adds).

    Example::

        >>> ember.zeros(2, 2).put_(ember.tensor([1, 2]), ember.tensor([9., 8.]))
        tensor([[0., 9.],
                [8., 0.]])
    """
    return inplace(self, put, index, source, accumulate)


@register()
def take_along_dim(input, indices, dim=None, *, out=None):
    """Values of ``input`` at ``indices`` along ``dim`` (like NumPy's
    ``take_along_axis``; input and indices broadcast except along ``dim``). With
    ``dim=None`` both are flattened. Along ``dim``, a negative index counts from the end.

    NOTE: unlike PyTorch, an index outside ``[-size, size)`` along ``dim`` raises (PyTorch
    wraps it around without a check).

    Example::

        >>> t = ember.tensor([[10, 30, 20], [60, 40, 50]])
        >>> ember.take_along_dim(t, t.argmax(1, keepdim=True), 1)
        tensor([[30],
                [60]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'take_along_dim')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'take_along_dim', 'out', None)
    if dim is None:
        res = gather(input.reshape(-1), 0, indices.reshape(-1))
    else:
        a = input._data
        ia = indices._data
        if ia.dtype != np.int64:
            raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                               f"{_legacy_name(indices.dtype)}")
        if a.ndim != ia.ndim:
            raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                               f"number of dimensions, but got {a.ndim} dimensions for input, "
                               f"and {ia.ndim} dimensions for indices")
        d = _wrap_dim(dim, a.ndim)
        si = list(a.shape)
        sj = list(ia.shape)
        si[d] = sj[d] = 1
        try:
            b = list(np.broadcast_shapes(tuple(si), tuple(sj)))
        except ValueError:
            _raise_bc(tuple(si), tuple(sj))
        bi, bj = list(b), list(b)
        bi[d], bj[d] = a.shape[d], ia.shape[d]
        x = input if tuple(bi) == a.shape else input.expand(bi)
        ix = indices if tuple(bj) == ia.shape else indices.expand(bj)
        if ia.size and (ia < 0).any():     # along a dim, negative indices count from the end
            ix = ix + (ix < 0).long() * a.shape[d]
        res = gather(x, d, ix)
    if out is not None:
        from ._pointwise_common import _out
        return _out(res, out)
    return res
