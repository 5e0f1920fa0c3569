"""Shape and combining ops: cat/stack and friends, flip/roll/rot90, repeat/tile/
repeat_interleave, meshgrid/cartesian_prod, atleast_nd, block_diag, broadcasting helpers,
and the triangular/diagonal family (tril, triu, diag, diag_embed, diagflat, trace,
tril_indices, triu_indices). Each op's backward class stands right above its forward."""
from . import _args
import warnings

import numpy as np

from .. import _dtype as D
from .._dtype import _NP2DT
from .._tensor import Tensor, Size, _Mode, _wrap_dim
from ._inplace import inplace, check_out_overlap
from ..autograd.graph import _named
from .._backend import array_module, to_device
from .._device import CPU
from ._util import wrap, Node, register, grad_needed, record, write_out
from . import view as _view


def _shape_str(s):
    return '[' + ', '.join(str(x) for x in s) + ']'


def _tensor_list(tensors, fname, argname='tensors'):
    """``tensors`` as a list, with PyTorch's TypeError for a bare tensor."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be tuple of Tensors, "
                        f"not Tensor")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {tensors.index(t)} in argument 0, but "
                            f"got {type(t).__name__}")
    return tensors


def _common_np_dtype(tensors):
    """Promoted numpy dtype of all tensors (PyTorch's promote_types, folded)."""
    dt = tensors[0]._data.dtype
    same = True
    for t in tensors[1:]:
        if t._data.dtype != dt:
            same = False
            break
    if same:
        return dt
    r = _NP2DT[dt]
    for t in tensors[1:]:
        r = D.promote_types(r, _NP2DT[t._data.dtype])
    return r._np


def _cat_out_dtype(res, out):
    """``cat``/``stack``'s own refusal of an ``out`` of a lower dtype category."""
    if isinstance(out, Tensor) and out.dtype._cat < res.dtype._cat:
        from .._tensor import _legacy_name
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{_legacy_name(out.dtype)}")


def _out(res, out, name):
    """``out=`` of the shape ops (see ``_util.write_out``)."""
    return res if out is None else write_out(res, out, name)


def _as_int_dim(dim, fname):
    if type(dim) is int:
        return dim
    return _args.as_int(dim, fname, 'dim')


# ------------------------------------------------------------------ cat / stack
class CatBackward0(Node):
    def backward(self, g):
        d = self.dim
        res = []
        for off, n, skip in self.parts:
            if skip:
                res.append(g.new_zeros((0,)))
            else:
                res.append(g.narrow(d, off, n))
        return tuple(res)


@register(method=False, aliases=('concat', 'concatenate'))
def cat(tensors, dim=0, *, out=None):
    """Concatenates tensors along an existing dimension ``dim``.

    All tensors must have the same shape except in ``dim``; their dtypes are promoted
    to a common dtype. One-dimensional empty tensors (shape ``(0,)``) are skipped, as in
    PyTorch.

    Args:
        tensors (sequence of Tensors): the tensors to join.
        dim (int): the dimension to join along.

    Example::

        >>> ember.cat([ember.zeros(2, 3), ember.ones(1, 3)]).shape
        torch.Size([3, 3])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'cat', 'out', None)
    tensors = _tensor_list(tensors, 'cat')
    dim = _as_int_dim(dim, 'cat')
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dt = _common_np_dtype(tensors)
    ref = None
    for i, t in enumerate(tensors):
        if not (t._data.ndim == 1 and t._data.shape[0] == 0):
            ref = i
            break
    if ref is None:       # every input is an empty 1-D tensor
        xp = array_module(tensors[0]._data)
        res = wrap(xp.zeros((0,), dt))
        parts = [(0, 0, True)] * len(tensors)
        d = 0
    else:
        rs = tensors[ref]._data.shape
        nd = len(rs)
        d = _wrap_dim(dim, nd)
        arrs = []
        parts = []
        off = 0
        for i, t in enumerate(tensors):
            a = t._data
            if a.ndim == 1 and a.shape[0] == 0:
                parts.append((0, 0, True))
                continue
            if a.ndim != nd:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {a.ndim}")
            s = a.shape
            for k in range(nd):
                if k != d and s[k] != rs[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                       f"Expected size {rs[k]} but got size {s[k]} for tensor "
                                       f"number {i} in the list.")
            arrs.append(a if a.dtype == dt else a.astype(dt))
            parts.append((off, s[d], False))
            off += s[d]
        xp = array_module(arrs[0])
        res = wrap(xp.concatenate(arrs, axis=d))
    if _Mode.grad and any(t._rg for t in tensors):
        node = CatBackward0()
        node.dim, node.parts = d, parts
        record(res, node, tensors)
    if out is not None:
        check_out_overlap(out, tensors, full=True)
        _cat_out_dtype(res, out)
    return _out(res, out, 'cat')


@register(method=False)
def _chunk_cat(tensors, dim, num_chunks, *, out=None):
    """Splits each tensor into ``num_chunks`` chunks along ``dim`` (zero-padding it at the
    end of ``dim`` to a multiple of ``num_chunks``), flattens each chunk from ``dim`` on, and
    concatenates the ``i``-th chunks of all tensors as row ``i`` of the result.

    Args:
        tensors (sequence of Tensors): non-empty tensors of one dtype whose sizes agree
            before ``dim``.
        dim (int): the dimension to chunk (non-negative when the tensors' ndims differ).
        num_chunks (int): the number of chunks, positive.

    Shape:
        Output: ``sizes[:dim] + (num_chunks, total)``, ``total`` the sum over the tensors of
        ``ceil(size(dim) / num_chunks)`` times the product of their sizes after ``dim``.

    NOTE: unlike PyTorch (which has no derivative for it), the result is differentiable.

    Example::

        >>> a, b = ember.arange(6.).reshape(2, 3), ember.arange(10., 14.).reshape(2, 2)
        >>> ember._chunk_cat([a, b], 1, 2)
        tensor([[[ 0.,  1., 10.],
                 [ 2.,  0., 11.]],
        <BLANKLINE>
                [[ 3.,  4., 12.],
                 [ 5.,  0., 13.]]])
    """
    tensors = _tensor_list(tensors, '_chunk_cat')
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    nds = {t.dim() for t in tensors}
    if len(nds) > 1:
        if dim < 0:
            raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have "
                               "different ndims")
        if any(dim >= t.dim() for t in tensors):
            raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    d = _wrap_dim(dim, tensors[0].dim())
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    lead = tuple(tensors[0].shape[:d])
    for t in tensors:
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if tuple(t.shape[:d]) != lead:
            raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all "
                               "tensors")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    rows = []
    for t in tensors:
        size = t.shape[d]
        c = -(-size // num_chunks)
        if c * num_chunks != size:
            pad = t.new_zeros(tuple(t.shape[:d]) + (c * num_chunks - size,) +
                              tuple(t.shape[d + 1:]))
            t = cat([t, pad], d)
        rows.append(t.reshape(lead + (num_chunks, -1)))
    res = cat(rows, d + 1) if len(rows) > 1 else rows[0].clone()
    if out is not None:
        _cat_out_dtype(res, out)
    return _out(res, out, '_chunk_cat')


class StackBackward0(Node):
    def backward(self, g):
        return g.unbind(self.dim)


@register(method=False)
def stack(tensors, dim=0, *, out=None):
    """Concatenates tensors of equal shape along a new dimension ``dim``.

    Example::

        >>> ember.stack([ember.zeros(3), ember.ones(3)], dim=1).shape
        torch.Size([3, 2])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'stack', 'out', None)
    tensors = _tensor_list(tensors, 'stack')
    dim = _as_int_dim(dim, 'stack')
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{_shape_str(s0)} at entry 0 and {_shape_str(t._data.shape)} "
                               f"at entry {i}")
    d = _wrap_dim(dim, len(s0) + 1)
    dt = _common_np_dtype(tensors)
    arrs = [t._data if t._data.dtype == dt else t._data.astype(dt) for t in tensors]
    xp = array_module(arrs[0])
    res = wrap(xp.stack(arrs, axis=d))
    if _Mode.grad and any(t._rg for t in tensors):
        node = StackBackward0()
        node.dim = d
        record(res, node, tensors)
    if out is not None:
        check_out_overlap(out, tensors, full=True)
        _cat_out_dtype(res, out)
    return _out(res, out, 'stack')


def _nonempty(tensors, fname):
    tensors = _tensor_list(tensors, fname)
    if not tensors:
        raise RuntimeError(f"{fname} expects a non-empty TensorList")
    return tensors


@register(method=False)
def hstack(tensors, *, out=None):
    """Stacks tensors horizontally: along dim 1, or dim 0 for 1-D tensors.

    Example::

        >>> ember.hstack([ember.tensor([1, 2]), ember.tensor([3])])
        tensor([1, 2, 3])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'hstack', 'out', None)
    ts = atleast_1d(_nonempty(tensors, 'hstack'))
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


@register(method=False, aliases=('row_stack',))
def vstack(tensors, *, out=None):
    """Stacks tensors vertically (along dim 0, after :func:`atleast_2d`).

    Example::

        >>> ember.vstack([ember.tensor([1, 2]), ember.tensor([3, 4])]).shape
        torch.Size([2, 2])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'vstack', 'out', None)
    ts = atleast_2d(_nonempty(tensors, 'vstack'))
    return cat(ts, 0, out=out)


@register(method=False)
def dstack(tensors, *, out=None):
    """Stacks tensors depthwise (along dim 2, after :func:`atleast_3d`).

    Example::

        >>> ember.dstack([ember.tensor([1, 2]), ember.tensor([3, 4])]).shape
        torch.Size([1, 2, 2])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'dstack', 'out', None)
    ts = atleast_3d(_nonempty(tensors, 'dstack'))
    return cat(ts, 2, out=out)


@register(method=False)
def column_stack(tensors, *, out=None):
    """Stacks tensors as columns: 0-D and 1-D tensors become columns, then dim 1 is joined.

    Example::

        >>> ember.column_stack([ember.tensor([1, 2]), ember.tensor([3, 4])])
        tensor([[1, 3],
                [2, 4]])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'column_stack', 'out', None)
    ts = _nonempty(tensors, 'column_stack')
    ts = [t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in ts]
    return cat(ts, 1, out=out)


# ------------------------------------------------------------------ flip / roll / rot90
def _dim_list(dims, nd, fname):
    ds = [_wrap_dim(d, nd) for d in _args.as_int_list(dims, fname, 'dims', 2, allow_int=False)]
    seen = set()
    for d in ds:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return tuple(ds)


class FlipBackward0(Node):
    def backward(self, g):
        return flip(g, self.dims)


@register(method=False)
def flip(input, dims):
    """Reverses the order of elements along ``dims`` (a copy, unlike NumPy's view).

    Example::

        >>> ember.flip(ember.tensor([[1, 2], [3, 4]]), [0])
        tensor([[3, 4],
                [1, 2]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'flip')
    a = input._data
    ds = _dim_list(dims, a.ndim, 'flip')
    xp = array_module(a)
    res = wrap(xp.flip(a, ds).copy() if ds and a.ndim else a.copy())
    if grad_needed(input):
        node = FlipBackward0()
        node.dims = ds
        record(res, node, (input,))
    return res


def _flip_method(self, *dims, **kwargs):
    """Reverse the order of elements along the given dims (a tuple, varargs, or the
    ``dims=`` keyword); like :func:`flip`, the result is a copy.

    Example::

        >>> ember.arange(6).view(2, 3).flip(1)
        tensor([[2, 1, 0],
                [5, 4, 3]])
    """
    if kwargs:
        if dims or set(kwargs) != {'dims'}:
            bad = next(iter(set(kwargs) - {'dims'}), 'dims')
            raise TypeError(f"flip() got an unexpected keyword argument '{bad}'")
        dims = kwargs['dims']
        if isinstance(dims, (int, np.integer)):
            raise TypeError("flip(): argument 'dims' must be tuple of ints, not int")
        return flip(self, tuple(dims))
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and not isinstance(dims[0], (int, np.integer)):
        dims = dims[0]
    return flip(self, tuple(dims))


@register()
def fliplr(input):
    """Flips left/right (dim 1); needs at least 2 dims.

    Example::

        >>> ember.fliplr(ember.tensor([[1, 2], [3, 4]]))
        tensor([[2, 1],
                [4, 3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'fliplr')
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@register()
def flipud(input):
    """Flips up/down (dim 0); needs at least 1 dim.

    Example::

        >>> ember.flipud(ember.tensor([1, 2]))
        tensor([2, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'flipud')
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class RollBackward0(Node):
    def backward(self, g):
        return roll(g, tuple(-s for s in self.shifts), self.dims)


def _int_tuple(x, fname='roll', arg='shifts', pos=2):
    """A ``tuple of ints`` argument: an int, a one-element integer tensor, or a sequence of
    them; anything else raises PyTorch's TypeError."""
    if isinstance(x, Tensor):
        if x.numel() != 1 or x.dtype._cat > 1:
            _args._fail(fname, arg, pos, 'tuple of ints', x)
        return (int(x.item()),)
    return _args.as_int_list(x, fname, arg, pos)


@register()
def roll(input, shifts, dims=None):
    """Rolls elements along ``dims`` by ``shifts`` (wrapping around); with no ``dims``
    the tensor is rolled as if flattened.

    Example::

        >>> ember.roll(ember.tensor([1, 2, 3, 4]), 1)
        tensor([4, 1, 2, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'roll')
    a = input._data
    sh = _int_tuple(shifts)
    ds = () if dims is None else _int_tuple(dims, arg='dims', pos=3)
    if not sh:
        raise RuntimeError("`shifts` required")
    if dims is None and len(sh) == 1:
        ds = None
    elif len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    xp = array_module(a)
    if ds is None:
        res = wrap(xp.roll(a, sh[0]) if a.size else a.copy())
    else:
        ds = tuple(_wrap_dim(d, a.ndim) for d in ds)
        res = wrap(xp.roll(a, sh, ds) if a.size else a.copy())
    if grad_needed(input):
        node = RollBackward0()
        node.shifts, node.dims = sh, ds
        record(res, node, (input,))
    return res


class Rot90Backward0(Node):
    def backward(self, g):
        return rot90(g, -self.k, self.dims)


@register()
def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``dims`` (from the first
    towards the second).

    Example::

        >>> ember.rot90(ember.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'rot90')
    if k.__class__ is not int:
        k = _args.as_int(k, 'rot90', 'k', 1)
    a = input._data
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    w0, w1 = _wrap_dim(dims[0], a.ndim), _wrap_dim(dims[1], a.ndim)
    if w0 == w1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    d0, d1 = w0, w1
    xp = array_module(a)
    res = wrap(xp.ascontiguousarray(xp.rot90(a, k % 4, axes=(d0, d1))))
    if res._data is a or res._data.base is not None:
        res = wrap(res._data.copy())
    if grad_needed(input):
        node = Rot90Backward0()
        node.k, node.dims = k, (d0, d1)
        record(res, node, (input,))
    return res


# ------------------------------------------------------------------ repeat / tile / repeat_interleave
class RepeatBackward0(Node):
    def backward(self, g):
        reps, shape = self.reps, self.shape
        padded = (1,) * (len(reps) - len(shape)) + tuple(shape)
        inter = []
        for r, s in zip(reps, padded):
            inter += [r, s]
        g = g.reshape(inter)
        g = g.sum(tuple(range(0, 2 * len(reps), 2)))
        return g.reshape(shape)


def repeat(self, *sizes):
    """Tensor repeated along each dimension (``sizes`` may add leading dims); a copy.

    Example::

        >>> ember.tensor([1, 2]).repeat(2, 2)
        tensor([[1, 2, 1, 2],
                [1, 2, 1, 2]])
    """
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = _args.as_size(sizes, 'repeat', 'repeats')   # #ARGCHK
    a = self._data
    if len(reps) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(reps) - a.ndim) + a.shape
    target = tuple(r * s for r, s in zip(reps, padded))
    for t in target:
        if t < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t}: "
                               f"{_shape_str(target)}")
    xp = array_module(a)
    res = wrap(xp.tile(a.reshape(padded), reps) if reps else a.copy())
    if grad_needed(self):
        node = RepeatBackward0()
        node.reps, node.shape = reps, a.shape
        record(res, node, (self,))
    return res


@register()
def tile(input, dims):
    """Tensor repeated ``dims`` times along each dimension; missing leading entries of
    ``dims`` count as 1 (see :meth:`Tensor.repeat`).

    Example::

        >>> ember.tile(ember.tensor([1, 2]), (2,))
        tensor([1, 2, 1, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'tile')
    dims = (dims,) if type(dims) is int else _args.as_int_list(dims, 'tile', 'dims', 2,
                                                                allow_int=False)
    nd = input._data.ndim
    if len(dims) < nd:
        dims = (1,) * (nd - len(dims)) + dims
    return repeat(input, dims)


class IndexSelectBackward0(Node):
    def backward(self, g):
        return _view._flat_scatter_add(self.shape, self.pos, g)


@register()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element ``repeats`` times (an int, or a tensor with one count per
    element along ``dim``); with no ``dim`` the input is flattened first. With only an
    integer tensor ``input``, returns ``arange(len(input))`` repeated by ``input``.

    Example::

        >>> ember.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'repeat_interleave')
    if repeats is None:
        r = input._data
        if r.dtype.kind not in 'iu':
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{_type_word(r.dtype)}'")
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        r = r.reshape(-1)
        if r.size and r.min() < 0:
            raise RuntimeError("repeats can not be negative")
        xp = array_module(r)
        res = xp.repeat(xp.arange(r.size, dtype=r.dtype), r)
        _check_output_size(output_size, res.size)
        return wrap(res)
    if dim is None:
        input = input.reshape(-1)
        d = 0
    else:
        d = _wrap_dim(dim, input._data.ndim)
    a = input._data
    n = a.shape[d] if a.ndim else 1
    if isinstance(repeats, Tensor):
        r = repeats._data
        if r.dtype.kind not in 'iu':
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{_type_word(r.dtype)}'")
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        r = np.asarray(r.get() if hasattr(r, 'get') else r).reshape(-1).astype(np.int64)
        if r.size == 1:
            r = np.full(n, r[0], np.int64)
        if r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.size} and input.size({d}) = {n}")
        if r.size and r.min() < 0:
            raise RuntimeError("repeats can not be negative")
        _check_output_size(output_size, int(r.sum()))
        idx = np.repeat(np.arange(n, dtype=np.int64), r)
        xp = array_module(a)
        if a.ndim == 0:
            a = a.reshape(1)
        res = wrap(xp.take(a, xp.asarray(idx), axis=d))
        if grad_needed(input):
            node = IndexSelectBackward0()
            node.shape = a.shape
            node.pos = np.take(np.arange(a.size, dtype=np.int64).reshape(a.shape), idx, axis=d)
            record(res, node, (input,))
        return res
    r = int(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input._data.ndim == 0:
        input = input.reshape(1)
        a = input._data
    _check_output_size(output_size, a.size // max(a.shape[d], 1) * a.shape[d] * r
                       if a.size else 0)
    sh = a.shape
    big = sh[:d + 1] + (r,) + sh[d + 1:]
    x = input.unsqueeze(d + 1).expand(big).contiguous()
    return x.view(sh[:d] + (sh[d] * r,) + sh[d + 1:])


def _check_output_size(output_size, n):
    if output_size is not None and output_size != n:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {n} but got "
                           f"{output_size}")


def _type_word(npdt):
    return {'float16': 'Half', 'float32': 'Float', 'float64': 'Double', 'bool': 'Bool',
            'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble',
            'bfloat16': 'BFloat16'}.get(str(npdt), str(npdt))


# ------------------------------------------------------------------ meshgrid / cartesian_prod
def _varargs(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


@register(method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D (or 0-D) tensors; each output is an expanded view.

    Args:
        indexing (str): ``'ij'`` (matrix, the default) or ``'xy'`` (Cartesian: the
            first two output dims swapped).

    Example::

        >>> a, b = ember.meshgrid(ember.arange(2), ember.arange(3), indexing='ij')
        >>> a.shape
        torch.Size([2, 3])
    """
    ts = _varargs(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = 'ij'
    if indexing not in ('ij', 'xy'):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    dt = ts[0]._data.dtype
    for t in ts[1:]:
        if t._data.dtype != dt:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    sizes = [t._data.size for t in ts]
    pos = list(range(len(ts)))
    if indexing == 'xy' and len(ts) >= 2:
        pos[0], pos[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(ts):
        vs = [1] * len(ts)
        vs[pos[i]] = -1
        out.append(t.reshape(vs).expand(sizes))
    return tuple(out)


@register(method=False)
def cartesian_prod(*tensors):
    """Cartesian product of 1-D tensors, as rows of a 2-D tensor (a single input is
    returned as is).

    Example::

        >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4])).shape
        torch.Size([4, 2])
    """
    ts = _varargs(tensors)
    for t in ts:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {_shape_str(t._data.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(ts, indexing='ij')
    return stack([g.flatten() for g in grids], 1)


# ------------------------------------------------------------------ atleast_nd
def _atleast(tensors, fn):
    if len(tensors) == 1:
        t = tensors[0]
        if isinstance(t, Tensor):
            return fn(t)
        return tuple(fn(x) for x in t)
    return tuple(fn(x) for x in tensors)


def _al1(t):
    return t.reshape(1) if t._data.ndim == 0 else t


def _al2(t):
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1)
    if nd == 1:
        return t.unsqueeze(0)
    return t


def _al3(t):
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1, 1)
    if nd == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    if nd == 2:
        return t.unsqueeze(-1)
    return t


@register(method=False)
def atleast_1d(*tensors):
    """Views of the inputs with at least one dimension (a tuple for several inputs).

    Example::

        >>> ember.atleast_1d(ember.tensor(1.)).shape
        torch.Size([1])
    """
    return _atleast(tensors, _al1)


@register(method=False)
def atleast_2d(*tensors):
    """Views of the inputs with at least two dimensions (1-D ``(n,)`` becomes ``(1, n)``).

    Example::

        >>> ember.atleast_2d(ember.tensor([1, 2])).shape
        torch.Size([1, 2])
    """
    return _atleast(tensors, _al2)


@register(method=False)
def atleast_3d(*tensors):
    """Views of the inputs with at least three dimensions (``(n,)`` becomes ``(1, n, 1)``,
    ``(m, n)`` becomes ``(m, n, 1)``).

    Example::

        >>> ember.atleast_3d(ember.tensor([1, 2])).shape
        torch.Size([1, 2, 1])
    """
    return _atleast(tensors, _al3)


# ------------------------------------------------------------------ block_diag
class BlockDiagBackward0(Node):
    def backward(self, g):
        res = []
        for (r, c, nr, nc, shape) in self.blocks:
            res.append(g.narrow(0, r, nr).narrow(1, c, nc).reshape(shape))
        return tuple(res)


@register(method=False)
def block_diag(*tensors):
    """A block diagonal matrix from the inputs (0-D, 1-D or 2-D; 1-D ``(n,)`` is a
    ``(1, n)`` block).

    Example::

        >>> ember.block_diag(ember.ones(2, 2), ember.ones(1, 3)).shape
        torch.Size([3, 5])
    """
    ts = list(tensors)
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_args.type_name(t)}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t._data.ndim} dimensions")
    if not ts:
        return wrap(np.zeros((1, 0), D._default_dtype._np))
    dt = _common_np_dtype(ts)
    blocks = []
    R = C = 0
    for t in ts:
        a = t._data
        s = a.shape
        nr, nc = (1, 1) if a.ndim == 0 else (1, s[0]) if a.ndim == 1 else s
        blocks.append((R, C, nr, nc, s))
        R += nr
        C += nc
    xp = array_module(ts[0]._data)
    z = xp.zeros((R, C), dt)
    for t, (r, c, nr, nc, s) in zip(ts, blocks):
        z[r:r + nr, c:c + nc] = t._data.reshape(nr, nc)
    res = wrap(z)
    if _Mode.grad and any(t._rg for t in ts):
        node = BlockDiagBackward0()
        node.blocks = blocks
        record(res, node, ts)
    return res


# ------------------------------------------------------------------ broadcasting
@register(method=False)
def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (an :class:`ember.Size`).

    Example::

        >>> ember.broadcast_shapes((2, 1), (3,))
        torch.Size([2, 3])
    """
    shs = []
    for s in shapes:
        s = (int(s),) if isinstance(s, (int, np.integer)) else tuple(int(x) for x in s)
        for x in s:
            if x < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        shs.append(s)
    nd = max((len(s) for s in shs), default=0)
    res = [1] * nd
    for s in shs:
        for k in range(1, len(s) + 1):
            x = s[-k]
            if x == 1:
                continue
            if res[-k] == 1:
                res[-k] = x
    for i, s in enumerate(shs):
        for k in range(1, len(s) + 1):
            if s[-k] != 1 and s[-k] != res[-k]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[-k]} at "
                                   f"{-k}! Mismatching argument at index {i} had {s}; but "
                                   f"expected shape should be broadcastable to {_shape_str(res)}")
    return Size(res)


def _broadcast_shape_tensors(ts):
    nd = max((t._data.ndim for t in ts), default=0)
    res = [1] * nd
    for t in ts:
        s = t._data.shape
        for k in range(1, len(s) + 1):
            x = s[-k]
            if x != 1:
                if res[-k] == 1:
                    res[-k] = x
                elif res[-k] != x:
                    raise RuntimeError(f"The size of tensor a ({res[-k]}) must match the size of "
                                       f"tensor b ({x}) at non-singleton dimension {nd - k}")
    return tuple(res)


@register(method=False)
def broadcast_tensors(*tensors):
    """The inputs expanded to their common broadcast shape (views; an input that
    already has that shape is returned as is).

    Example::

        >>> a, b = ember.broadcast_tensors(ember.zeros(2, 1), ember.zeros(3))
        >>> a.shape
        torch.Size([2, 3])
    """
    ts = _varargs(tensors)
    shape = _broadcast_shape_tensors(ts)
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in ts)


# ------------------------------------------------------------------ tril / triu
class TrilBackward0(Node):
    def backward(self, g):
        return tril(g, self.k)


class TriuBackward0(Node):
    def backward(self, g):
        return triu(g, self.k)


def _tri(input, k, name, upper, node_cls, out):
    a = input._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    k = int(k)
    xp = array_module(a)
    n, m = a.shape[-2:]
    i = xp.arange(n).reshape(n, 1)
    j = xp.arange(m).reshape(1, m)
    keep = (j - i >= k) if upper else (j - i <= k)
    res = wrap(xp.where(keep, a, xp.zeros((), a.dtype)))
    if grad_needed(input):
        node = node_cls()
        node.k = k
        record(res, node, (input,))
    return _out(res, out, name)


@register()
def tril(input, diagonal=0, *, out=None):
    """The lower triangle of the (batched) matrices in ``input``: elements above the
    ``diagonal``-th diagonal are zeroed.

    Example::

        >>> ember.tril(ember.ones(2, 2))
        tensor([[1., 0.],
                [1., 1.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'tril')
    if diagonal.__class__ is not int:
        diagonal = _args.as_int(diagonal, 'tril', 'diagonal', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'tril', 'out', None)
    return _tri(input, diagonal, 'tril', False, TrilBackward0, out)


@register()
def triu(input, diagonal=0, *, out=None):
    """The upper triangle of the (batched) matrices in ``input``: elements below the
    ``diagonal``-th diagonal are zeroed.

    Example::

        >>> ember.triu(ember.ones(2, 2))
        tensor([[1., 1.],
                [0., 1.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'triu')
    if diagonal.__class__ is not int:
        diagonal = _args.as_int(diagonal, 'triu', 'diagonal', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'triu', 'out', None)
    return _tri(input, diagonal, 'triu', True, TriuBackward0, out)


@register(function=False)
def tril_(self, diagonal=0):
    """In-place version of :func:`tril`."""
    if diagonal.__class__ is not int:
        diagonal = _args.as_int(diagonal, 'tril_', 'diagonal', 1)
    return inplace(self, tril, diagonal)


@register(function=False)
def triu_(self, diagonal=0):
    """In-place version of :func:`triu`."""
    if diagonal.__class__ is not int:
        diagonal = _args.as_int(diagonal, 'triu_', 'diagonal', 1)
    return inplace(self, triu, diagonal)


def _tri_indices(row, col, offset, dtype, name, lower):
    if dtype is None:
        dtype = D.int64
    if dtype._cat != 1:
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_word(dtype._np)}\'')
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    # per row i, the columns [first_i, first_i + count_i): the work and memory follow the
    # number of indices, not row * col (tril_indices(4, 2**40) has 10)
    rows = np.arange(row, dtype=np.int64)
    if lower:
        first = np.zeros(row, dtype=np.int64)
        count = np.clip(rows + (offset + 1), 0, col)
    else:
        first = np.clip(rows + offset, 0, col)
        count = col - first
    n = int(count.sum())
    try:
        out = np.empty((2, n), dtype=dtype._np)
    except MemoryError:
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{2 * n * dtype._np.itemsize} bytes.") from None
    out[0] = np.repeat(rows, count)
    out[1] = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(count) - count - first, count)
    # computed on the host, then placed through the backend (the CPU device's module)
    return wrap(to_device(out, CPU))


@register(method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """Indices (a ``2 x N`` tensor of row and column indices) of the lower triangle of
    a ``row x col`` matrix, in row-major order.

    NOTE: unlike PyTorch, ``device`` is ignored (indices are made on the CPU).

    Example::

        >>> ember.tril_indices(2, 2)
        tensor([[0, 1, 1],
                [0, 0, 1]])
    """
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'tril_indices')
    if device is not None:
        _args.as_device(device, 'tril_indices')
    return _tri_indices(row, col, offset, dtype, 'tril_indices', True)


@register(method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """Indices (a ``2 x N`` tensor of row and column indices) of the upper triangle of
    a ``row x col`` matrix, in row-major order.

    NOTE: unlike PyTorch, ``device`` is ignored (indices are made on the CPU).

    Example::

        >>> ember.triu_indices(2, 2)
        tensor([[0, 0, 1],
                [0, 1, 1]])
    """
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'triu_indices')
    if device is not None:
        _args.as_device(device, 'triu_indices')
    return _tri_indices(row, col, offset, dtype, 'triu_indices', False)


# ------------------------------------------------------------------ diag family
class DiagEmbedBackward0(Node):
    def backward(self, g):
        return g.diagonal(self.offset, self.d1, self.d2)


@register()
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (w.r.t. ``dim1``, ``dim2``) are filled from the last
    dimension of ``input``; everything else is zero.

    Example::

        >>> ember.diag_embed(ember.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'diag_embed')
    if offset.__class__ is not int:
        offset = _args.as_int(offset, 'diag_embed', 'offset', 1)
    if dim1.__class__ is not int:
        dim1 = _args.as_int(dim1, 'diag_embed', 'dim1', 2)
    if dim2.__class__ is not int:
        dim2 = _args.as_int(dim2, 'diag_embed', 'dim2', 3)
    a = input._data
    nd = a.ndim + 1
    d1 = _wrap_dim(dim1, nd)
    d2 = _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if a.ndim == 0:
        a = a.reshape(1)
    n = a.shape[-1]
    m = n + abs(offset)
    rest = list(a.shape[:-1])
    shape = [0] * nd
    it = iter(rest)
    for k in range(nd):
        shape[k] = m if k in (d1, d2) else next(it)
    xp = array_module(a)
    z = xp.zeros(shape, a.dtype)
    zm = xp.moveaxis(z, (d1, d2), (-2, -1))
    i = xp.arange(n)
    zm[..., i + max(-offset, 0), i + max(offset, 0)] = a
    res = wrap(z)
    if grad_needed(input):
        node = DiagEmbedBackward0()
        node.offset, node.d1, node.d2 = offset, d1, d2
        record(res, node, (input,))
    return res


class DiagonalBackward0_copy(_view.DiagonalBackward0):
    pass


_named(DiagonalBackward0_copy, 'DiagonalBackward0_copy')


@register()
def diag(input, diagonal=0, *, out=None):
    """For a 1-D input, a 2-D tensor with ``input`` on its ``diagonal``-th diagonal; for a
    2-D input, a copy of its ``diagonal``-th diagonal.

    Example::

        >>> ember.diag(ember.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'diag')
    if diagonal.__class__ is not int:
        diagonal = _args.as_int(diagonal, 'diag', 'diagonal', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'diag', 'out', None)
    a = input._data
    if a.ndim == 1:
        res = diag_embed(input, diagonal, 0, 1)
    elif a.ndim == 2:
        from .._tensor import _NoGrad
        with _NoGrad():
            v = _view.diagonal(input, diagonal, 0, 1)
        res = wrap(v._data.copy())
        if grad_needed(input):
            node = DiagonalBackward0_copy()
            node.shape, node.offset, node.d1, node.d2 = a.shape, diagonal, 0, 1
            record(res, node, (input,))
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")
    return _out(res, out, 'diag')


@register()
def diagflat(input, offset=0):
    """A 2-D tensor with the flattened ``input`` on its ``offset``-th diagonal.

    Example::

        >>> ember.diagflat(ember.tensor([[1, 2]])).shape
        torch.Size([2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'diagflat')
    return diag_embed(input.reshape(-1), offset, 0, 1)


class TraceBackward0(Node):
    def backward(self, g):
        n, m = self.shape
        xp = array_module(g._data)
        eye = wrap(xp.eye(n, m, dtype=g._data.dtype))
        return eye * g


@register()
def trace(input):
    """Sum of the main diagonal of a 2-D tensor (integer inputs sum as int64).

    Example::

        >>> ember.trace(ember.tensor([[1, 2], [3, 4]]))
        tensor(5)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'trace')
    a = input._data
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    if a.dtype.kind == 'b':
        raise NotImplementedError('"trace" not implemented for \'Bool\'')
    xp = array_module(a)
    dt = np.dtype(np.int64) if a.dtype.kind in 'iu' else a.dtype
    k = min(a.shape)
    d = a[xp.arange(k), xp.arange(k)]
    res = wrap(xp.asarray(d.astype(np.float32).sum().astype(dt) if a.dtype.kind == 'V'
                          else d.sum(dtype=dt)))
    if grad_needed(input):
        node = TraceBackward0()
        node.shape = a.shape
        record(res, node, (input,))
    return res


register('repeat', function=False)(repeat)
register('flip', function=False)(_flip_method)
