"""Indexing ops: ``Tensor.__getitem__`` / ``__setitem__`` (basic indexing gives views,
advanced indexing copies), gather/scatter, index_* ops, masked ops, where,
nonzero, and ``fill_`` / ``zero_``. Each op's backward class stands right above its
forward; backward formulas are written in ember ops (so double backward works).

Advanced indexing works on a *key*: a tuple of ``slice(None)`` and int64 index arrays,
one per leading dim, with NumPy's (= PyTorch's) placement rule for the result dims.
"""
from . import _args
import numpy as np
from .. import _dtype as D
from .._dtype import _NP2DT

from .._tensor import Tensor, _Mode, _wrap_dim, _legacy_name, _bind
from ._inplace import (inplace, check_inplace, check_out_overlap, _autograd_check,
                       _check_partial_overlap, _internal_overlap, _writable, _writeable)
from ._util import wrap, Node, register, grad_needed, record, check_exact_out
from .._backend import array_module
from ..autograd.graph import _named
from ._pointwise_common import _make_inplace
from . import view as V

_FULL = slice(None)


def _shape_str(s):
    return '[' + ', '.join(str(x) for x in s) + ']'


def _xp(a):
    return array_module(a)


def _as_tensor(obj):
    """A Tensor for an index given as a list / numpy array (an empty one indexes with
    no positions, whatever its element type, as in PyTorch)."""
    from .creation import tensor
    if isinstance(obj, np.ndarray):
        return wrap(obj.copy() if obj.size else obj.astype(np.int64))
    t = tensor(obj)
    return t if t._data.size else t.long()


def _check_bounds(idx, n, dim, allow_neg=False, exc=RuntimeError):
    if idx.size == 0:
        return
    mx = int(idx.max())
    mn = int(idx.min())
    if mx >= n:
        raise exc(f"index {mx} is out of bounds for dimension {dim} with size {n}")
    if mn < (-n if allow_neg else 0):
        raise exc(f"index {mn} is out of bounds for dimension {dim} with size {n}")


# ------------------------------------------------------------------ advanced indexing core
def _key_result_shape(shape, key):
    """Shape of ``arr[key]`` for an array of ``shape`` (without computing it)."""
    adv = [i for i, k in enumerate(key) if k.__class__ is not slice]
    if not adv:
        return tuple(shape)
    rest = tuple(shape[len(key):])
    if len(adv) == 1:
        b = key[adv[0]].shape
    else:
        try:
            b = np.broadcast_shapes(*(key[i].shape for i in adv))
        except ValueError:
            raise _bc_error(key) from None
    if adv[-1] - adv[0] == len(adv) - 1:
        return tuple(shape[:adv[0]]) + b + tuple(shape[adv[-1] + 1:len(key)]) + rest
    return b + tuple(shape[i] for i, k in enumerate(key) if k.__class__ is slice) + rest


def _bc_error(key):
    return IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                      "shapes " + ', '.join(_shape_str(k.shape) for k in key
                                            if k.__class__ is not slice))


def _np_index_error(e, key):
    """PyTorch's wording for NumPy's IndexError from advanced indexing with ``key``."""
    msg = str(e)
    if 'out of bounds' in msg:
        return IndexError(msg.replace(' axis ', ' dimension '))
    if 'broadcast' in msg:
        return _bc_error(key)
    return IndexError(msg)


class IndexBackward0(Node):
    def backward(self, g):
        return _index_put_key(g.new_zeros(self.shape), self.key, g, True)


def _index_key(x, key):
    """``x[key]`` for an advanced key (a copy), recorded as ``IndexBackward0``."""
    a = x._data
    try:
        r = a[key]
    except IndexError as e:
        raise _np_index_error(e, key) from None
    out = wrap(r)
    if grad_needed(x):
        node = IndexBackward0()
        node.shape, node.key = a.shape, key
        record(out, node, (x,))
    return out


class IndexPutBackward0(Node):
    def backward(self, g):
        key = self.key
        gx = gv = None
        if self.needs[0]:
            gx = g if self.accumulate else _index_put_key(g, key, g.new_zeros(()), False)
        if self.needs[1]:
            gv = _index_key(g, key)
        return gx, gv


def _add_at(xp, out, key, vals):
    xp.add.at(out, key, vals)


def _index_put_key(x, key, values, accumulate):
    """``x`` with ``x[key] = values`` (or ``+=`` with ``accumulate``), out of place."""
    a = x._data
    target = _key_result_shape(a.shape, key)
    v = values._data
    if v.shape != target:
        try:
            ok = np.broadcast_shapes(v.shape, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(v.shape)} cannot "
                               f"be broadcast to indexing result of shape {_shape_str(target)}")
    if v.dtype != a.dtype:
        v = v.astype(a.dtype)
    out_arr = a.copy()
    xp = _xp(a)
    try:
        if accumulate:
            _add_at(xp, out_arr, key, xp.broadcast_to(v, target))
        else:
            out_arr[key] = v
    except IndexError as e:
        raise _np_index_error(e, key) from None
    out = wrap(out_arr)
    if grad_needed(x, values):
        node = IndexPutBackward0()
        node.key, node.accumulate = key, accumulate
        record(out, node, (x, values))
    return out


def _mask_key(mask, shape, start):
    """Index arrays for a bool ``mask`` covering dims ``start..`` of ``shape``."""
    m = mask._data
    for j in range(m.ndim):
        if start + j >= len(shape) or m.shape[j] != shape[start + j]:
            raise IndexError(f"The shape of the mask {_shape_str(m.shape)} at index {j} does not "
                             f"match the shape of the indexed tensor {_shape_str(shape)} at index "
                             f"{start + j}")
    return [i.astype(np.int64, copy=False) for i in _xp(m).nonzero(m)]


def _indices_to_key(x, indices):
    """Key for ``index_put``'s tuple of (bool / int / None) index tensors."""
    key = []
    shape = x._data.shape
    for t in indices:
        if t is None:
            key.append(_FULL)
            continue
        if not isinstance(t, Tensor):
            t = _as_tensor(t)
        k = t._data.dtype.kind
        if k == 'b' or t._data.dtype == np.uint8:
            key.extend(_mask_key(t, shape, len(key)))
        elif k in 'iu':
            key.append(t._data.astype(np.int64, copy=False))
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if len(key) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} "
                         f"(got {len(key)})")
    return tuple(key)


@register(method=True)
def index_put(input, indices, values, accumulate=False):
    """Out-of-place ``input[indices] = values`` (``+=`` with ``accumulate``).

    Args:
        indices (tuple of Tensor): index tensors (long or bool), one per leading dim.
        values (Tensor): values broadcast to the indexing result (same dtype as input).
        accumulate (bool): add into ``input`` instead of overwriting (duplicates add up).

    Example::

        >>> ember.zeros(3).index_put((ember.tensor([0, 0]),), ember.tensor(1.), accumulate=True)
        tensor([2., 0., 0.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'index_put')
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_legacy_name(input.dtype)} for the destination and "
                           f"{_legacy_name(values.dtype)} for the source.")
    return _index_put_key(input, _indices_to_key(input, indices), values, accumulate)


@register('index_put_')
def index_put_(self, indices, values, accumulate=False):
    """In-place version of :func:`index_put`."""
    return inplace(self, index_put, indices, values, accumulate)


# ------------------------------------------------------------------ __getitem__
class AliasBackward0(Node):
    def backward(self, g):
        return g


class _TensorAsSubclass:
    """``Tensor.as_subclass``, bound onto ``Tensor`` from here (it makes an alias view)."""

    def as_subclass(self, cls):
        """This tensor's data as an instance of ``cls`` (a Tensor subclass), sharing memory
        and staying attached to the autograd graph.

        Example::

            >>> class MyTensor(ember.Tensor): pass
            >>> type(ember.ones(2).as_subclass(MyTensor)).__name__
            'MyTensor'
        """
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of Tensor, not "
                            f"{cls!r}")
        t = _alias(self)          # a view of self (AliasBackward0 when grad is recorded)
        t.__class__ = cls
        return t


_bind(_TensorAsSubclass)


def _alias(x):
    return V.make_view(x, x._data[...], AliasBackward0() if x._rg and _Mode.grad else None)


def _select_int(x, d, i, orig_dim):
    a = x._data
    if a.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    n = a.shape[d]
    if i >= n or i < -n:
        _args.overflow(i)
        raise IndexError(f"index {i} is out of bounds for dimension {orig_dim} with size {n}")
    return V.select(x, d, i)


def _slice_dim(x, d, s, skip_trivial):
    n = x._data.shape[d]
    step = 1 if s.step is None else int(s.step)
    if step <= 0:
        if step == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")
    # like PyTorch, only a slice written as the whole dim (``:``, ``0:n``, ``0:n+5``) is
    # skipped; ``-n:`` still makes a slice view
    if skip_trivial and step == 1 and (s.start is None or s.start == 0) and (
            s.stop is None or s.stop >= n):
        return x
    start, stop, step = slice(s.start, s.stop, step).indices(n)
    stop = max(start, stop)
    r = V._slice(x, d, start, stop, step)
    node = r._grad_fn
    if node is not None and node.__class__ is V.SliceBackward0:
        node.given = (s.start, s.stop)     # grad_fn._saved_start/_end show them as torch
    return r


def _normalize(item):
    """Classify one index element: returns (kind, value, dims consumed)."""
    if item is None:
        return 'none', None, 0
    if item is Ellipsis:
        return 'ell', None, 0
    t = type(item)
    if t is bool or t is np.bool_:
        return 'bool', bool(item), 0
    if t is int or isinstance(item, np.integer):
        return 'int', int(item), 1
    if t is slice:
        return 'slice', item, 1
    if isinstance(item, (list, np.ndarray)):
        item = _as_tensor(item)
    if isinstance(item, Tensor):
        a = item._data
        k = a.dtype.kind
        if k == 'b' or a.dtype == np.uint8:
            if a.ndim == 0:
                return 'bool', bool(a), 0
            return 'mask', item, a.ndim
        if k in 'iu':
            if a.ndim == 0:
                return 'int', int(a), 1
            return 'adv', a.astype(np.int64, copy=False), 1
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(item, tuple):
        return 'adv', _as_tensor(list(item))._data.astype(np.int64), 1
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {t.__name__})")


def _basic(self, index):
    """Apply the basic part of ``index`` (a tuple) as views. Returns ``(view, key)``;
    ``key`` is None when no advanced index remains."""
    items = [_normalize(i) for i in index]
    nd = self._data.ndim
    consumed = 0
    for _, _, c in items:
        consumed += c
    if consumed > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    res = self
    d = 0          # current dim of res; invariant: len(key) == d
    orig = 0       # dim of self being indexed (for messages)
    key = []
    adv = False
    seen_ell = False
    for kind, v, c in items:
        if kind == 'int':
            res = _select_int(res, d, v, orig)
            orig += 1
        elif kind == 'slice':
            res = _slice_dim(res, d, v, True)
            key.append(_FULL)
            d += 1
            orig += 1
        elif kind == 'none':
            res = V.unsqueeze(res, d)
            key.append(_FULL)
            d += 1
        elif kind == 'ell':
            if not seen_ell:
                seen_ell = True
                k = nd - consumed
                key.extend([_FULL] * k)
                d += k
                orig += k
        elif kind == 'bool':
            res = V.unsqueeze(res, d)
            key.append(np.zeros(1 if v else 0, np.int64))
            d += 1
            adv = True
        elif kind == 'mask':
            ks = _mask_key(v, res._data.shape, d)
            key.extend(ks)
            d += len(ks)
            orig += len(ks)
            adv = True
        else:  # 'adv'
            key.append(v)
            d += 1
            orig += 1
            adv = True
    if not adv:
        return res, None
    while key and isinstance(key[-1], slice):
        key.pop()
    return res, tuple(key)


def _seq_as_tuple(index):
    """PyTorch (like old NumPy) reads a short list holding sequences, slices, tensors,
    ``None`` or ``...`` as a tuple of indices (deprecated), else as one index tensor."""
    if len(index) < 32:
        for e in index:
            if e is None or e is Ellipsis or isinstance(e, (list, tuple, slice, Tensor, np.ndarray)):
                import warnings
                warnings.warn("Using a non-tuple sequence for multidimensional indexing is "
                              "deprecated; use x[tuple(seq)] instead of x[seq].", UserWarning,
                              stacklevel=3)
                return tuple(index)
    return (index,)


def getitem(self, index):
    """``tensor[index]``: basic indexing (ints, slices with positive steps, ``None``,
    ``...``) returns a view; advanced indexing (bool masks, integer tensors or lists)
    returns a copy, following NumPy/PyTorch placement rules.

    Example::

        >>> x = ember.arange(6).view(2, 3)
        >>> x[1, 1:]
        tensor([4, 5])
        >>> x[x > 3]
        tensor([4, 5])
    """
    t = type(index)
    if t is int:
        return _select_int(self, 0, index, 0)
    if t is slice:
        if self._data.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return _slice_dim(self, 0, index, False)
    if index is None:
        return V.unsqueeze(self, 0)
    if index is Ellipsis:
        return _alias(self)
    if t is not tuple:
        index = _seq_as_tuple(index) if t is list else (index,)
    res, key = _basic(self, index)
    if key is None:
        return _alias(self) if res is self else res
    return _index_key(res, key)


def _strip_leading_ones(v, nd):
    """PyTorch drops leading size-1 dims of an assigned value."""
    s = v._data.shape
    k = 0
    while k < len(s) - nd and s[k] == 1:
        k += 1
    return v.reshape(s[k:]) if k else v


def setitem(self, index, value):
    """``tensor[index] = value``: writes through views for basic indices (``copy_`` /
    ``fill_``) and with ``index_put_`` for advanced ones; ``value`` (a number or a
    tensor) is cast to the tensor's dtype and broadcast. Autograd rebases through views
    (``CopySlices``).

    Example::

        >>> x = ember.zeros(2, 3)
        >>> x[:, 1] = 5
        >>> x[x > 4] = 7
    """
    t = type(index)
    if t is not tuple:
        index = _seq_as_tuple(index) if t is list else (index,)
    if t is slice and self._data.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    is_t = isinstance(value, Tensor)
    if not is_t:
        if not _args.is_number(value):
            raise TypeError(f"can't assign a {_args.type_name(value)} to a "   # #ARGCHK
                            f"torch.{_legacy_name(self.dtype)}Tensor")
        value = _args.fill_value(value, self.dtype, int_limit=_args.overflow)
    res, key = _basic(self, index)
    if key is None:
        _copy_to(res, value, is_t)
        return
    # PyTorch fills a single bool mask with a one-element value (cast, read as a number)
    mask_fill = is_t and value._data.size == 1 and len(index) == 1 and isinstance(
        index[0], Tensor) and index[0]._data.dtype == np.bool_
    if is_t:
        if value._data.dtype != res._data.dtype and not mask_fill:
            _check_value_shape(value._data.shape, _key_result_shape(res._data.shape, key))
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {_legacy_name(res.dtype)} for the destination and "
                               f"{_legacy_name(value.dtype)} for the source.")
        value = _strip_leading_ones(value, 0)
        if mask_fill and value._st is not None and value._st is res._st:
            value = value.clone()
    if not _autograd_check(res, (value,)):
        # index_put_ without autograd: allowed on expanded tensors (PyTorch only warns);
        # the values must not overlap the written-to tensor
        if is_t and value is not res:
            _check_partial_overlap(res, value)
        a = res._data
        v = value._data if is_t else _f8_scalar(value, a.dtype)
        if is_t:
            _check_value_shape(v.shape, _key_result_shape(a.shape, key))
        if is_t and v.dtype.kind == 'c' and a.dtype.kind != 'c':
            v = v.real
        if not _writeable(a):
            a = _writable(res)
        try:
            a[key] = v
        except IndexError as e:
            raise _np_index_error(e, key) from None
        res._storage_obj()._version += 1
        return
    if is_t:
        if value.dtype is not res.dtype:
            value = value.to(res.dtype)
    else:
        value = wrap(_xp(res._data).asarray(_f8_scalar(value, res._data.dtype),
                                            dtype=res._data.dtype))
    inplace(res, _index_put_key, key, value, False)


def _check_value_shape(vshape, target):
    if vshape != target:
        try:
            ok = np.broadcast_shapes(vshape, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(vshape)} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{_shape_str(target)}")


def _copy_to(dst, value, is_t):
    """``dst[...] = value`` for a basic-indexing result ``dst``, as PyTorch does it: a
    tensor of the same shape is ``copy_``-ed, a 0-dim one ``fill_``-s, others are
    broadcast (leading size-1 dims dropped) and copied; a number becomes a 0-dim tensor
    of ``dst``'s dtype first."""
    d = dst._data
    if is_t:
        if value._data.shape == d.shape:
            dst.copy_(value)
        elif not value._data.ndim:
            fill_(dst, value)
        else:
            dst.copy_(_strip_leading_ones(value, d.ndim))
        return
    if d.ndim and not (_Mode.grad and dst._rg) and not _internal_overlap(d):
        fill_(dst, value)   # fast path: nothing to record, nothing to refuse
        return
    v = wrap(_xp(d).asarray(_f8_scalar(value, d.dtype), dtype=d.dtype))
    if d.ndim:
        fill_(dst, v)
    else:
        dst.copy_(v)


register('__getitem__', function=False)(getitem)
register('__setitem__', function=False)(setitem)


# ------------------------------------------------------------------ fill_ / zero_
class FillBackward2(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


class FillBackward3(Node):
    def backward(self, g):
        return g.new_zeros(g.shape), g.sum()


class ZeroBackward0(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


def _scalar_value(value, name, self, *call):
    """The value of ``fill_``/``masked_fill``: a 0-dim tensor's array, or a number checked
    against ``self``'s dtype; other types raise PyTorch's invalid-combination TypeError
    (``call``: the arguments to name in it)."""
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"{name} only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return value._data
    if not _args.is_number(value):
        _args.invalid(name, *call)
    return _args.fill_value(value, self.dtype)


def _cast_scalar(v, npdt):
    if isinstance(v, complex) or (hasattr(v, 'dtype') and v.dtype.kind == 'c'):
        if npdt.kind != 'c':
            v = v.real
    if hasattr(v, 'astype'):
        return v.astype(npdt)
    if npdt.kind in 'iu' and isinstance(v, float):
        if v != v or v in (float('inf'), float('-inf')):
            return np.array(v).astype(npdt)[()]
        return npdt.type(int(v))
    if npdt.kind == 'V' or npdt.itemsize == 1 and npdt.kind == 'f':   # bfloat16, float8
        return D.cast_array(np.array(v, np.float32), _NP2DT[npdt])[()]   # float8: saturates
    return npdt.type(v)


def _f8_scalar(v, npdt):
    """A number written into a float8 array, cast as PyTorch casts (saturating
    float8_e4m3fn...); other dtypes: ``v`` itself."""
    if npdt.itemsize == 1 and npdt.kind in 'fV' and isinstance(v, (int, float)):
        return _cast_scalar(v, npdt)
    return v


def _filled(self, value):
    a = self._data
    xp = _xp(a)
    v = _cast_scalar(_scalar_value(value, 'fill_', self, value), a.dtype)
    out = wrap(xp.full(a.shape, v, a.dtype))
    if grad_needed(self, value):
        if isinstance(value, Tensor):
            record(out, FillBackward3(), (self, value))
        else:
            record(out, FillBackward2(), (self,))
    return out


@register('fill_')
def fill_(self, value):
    """Fill the tensor with ``value`` (a number or a 0-dim tensor) in place.

    Example::

        >>> ember.empty(2).fill_(3)
        tensor([3., 3.])
    """
    v = _scalar_value(value, 'fill_', self, value)
    if check_inplace(self, value):
        return inplace(self, _filled, value)
    a = _writable(self)
    a[...] = _cast_scalar(v, a.dtype)
    self._storage_obj()._version += 1
    return self


def _zeroed(self):
    a = self._data
    out = wrap(_xp(a).zeros(a.shape, a.dtype))
    if grad_needed(self):
        record(out, ZeroBackward0(), (self,))
    return out


@register('zero_')
def zero_(self):
    """Fill this tensor with zeros in place and return it.

    Example::

        >>> ember.ones(3).zero_()
        tensor([0., 0., 0.])
    """
    if check_inplace(self):
        return inplace(self, _zeroed)
    _writable(self)[...] = 0
    self._storage_obj()._version += 1
    return self


@register(method=False)
def fill(input, value):
    """Out-of-place fill: a new tensor like ``input`` with every element set to ``value``
    (a number or a 0-dim tensor).

    Example::

        >>> ember.fill(ember.zeros(2, 2), 5.0)
        tensor([[5., 5.],
                [5., 5.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'fill')
    _scalar_value(value, 'fill', input, value)
    return _filled(input, value)


# ------------------------------------------------------------------ nonzero / argwhere
@register()
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of non-zero elements: an ``(n, ndim)`` int64 tensor, or with ``as_tuple``
    one 1-D tensor per dimension.

    Example::

        >>> ember.nonzero(ember.tensor([0, 3, 0, 4]))
        tensor([[1],
                [3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nonzero')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'nonzero', 'out', None)
    a = input._data
    xp = _xp(a)
    if as_tuple:
        if a.ndim == 0:
            return (wrap(xp.zeros(1 if bool(a) else 0, np.int64)),)
        return tuple(wrap(i.astype(np.int64, copy=False)) for i in xp.nonzero(a))
    if a.ndim == 0:
        r = wrap(xp.zeros((1 if bool(a) else 0, 0), np.int64))
    else:
        r = wrap(xp.argwhere(a).astype(np.int64, copy=False))
    if out is not None:
        from ._pointwise_common import _out
        return _out(r, out)
    return r


@register()
def argwhere(input):
    """The indices of the non-zero elements of ``input``, one row per element, as an
    int64 tensor of shape ``(n, input.dim())`` (same as ``nonzero(input)``).

    Example::

        >>> ember.argwhere(ember.tensor([[0, 1], [2, 0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'argwhere')
    return nonzero(input)


# ------------------------------------------------------------------ where
class WhereBackward0(Node):
    def backward(self, g):
        (c,) = self.saved_tensors
        ga = where(c, g, 0.) if self.needs[0] else None
        gb = where(c, 0., g) if self.needs[1] else None
        return ga, gb


@register(method=False)
def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (broadcast,
    with type promotion; either may be a number). ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``.

    Example::

        >>> x = ember.tensor([1., -2., 3.])
        >>> ember.where(x > 0, x, 0.)
        tensor([1., 0., 3.])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'where', 'out', None)
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError("where(): argument 'condition' must be Tensor")
    c = condition._data
    if c.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_legacy_name(condition.dtype)}")
    from ._pointwise_common import _bin
    ti, to = isinstance(input, Tensor), isinstance(other, Tensor)
    _args.checked_int_operand(input, other)
    _args.checked_int_operand(other, input)
    if ti or to:
        x, y, xp = _bin(input, other)
    else:
        from .creation import tensor
        x, y, xp = _bin(tensor(input), tensor(other))
    rdt = x.dtype if hasattr(x, 'dtype') else np.result_type(x)
    shapes = [c.shape, getattr(x, 'shape', ()), getattr(y, 'shape', ())]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        if _bc_fail(shapes[1], shapes[2]):
            _raise_bc(shapes[1], shapes[2])
        _raise_bc(shapes[0], np.broadcast_shapes(shapes[1], shapes[2]))
    r = xp.where(c, x, y)
    if r.dtype != rdt:
        r = r.astype(rdt)
    from ._pointwise_common import _wn
    res = _wn(r, xp, c, x, y)
    if grad_needed(input, other):
        node = WhereBackward0()
        record(res, node, (input if ti else None, other if to else None), save=(condition,))
    if out is not None:
        from ._pointwise_common import _out
        if isinstance(out, Tensor) and out.dtype is not res.dtype:
            raise RuntimeError(f"Expected out type to be {_legacy_name(res.dtype)} but got "
                               f"{_legacy_name(out.dtype)}")
        return _out(res, out)
    return res


def _bc_fail(a, b):
    try:
        np.broadcast_shapes(a, b)
        return False
    except ValueError:
        return True


def _raise_bc(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                               f"({b[i]}) at non-singleton dimension {i}")
    raise RuntimeError("shapes cannot be broadcast")


def _where_method(self, condition, other):
    """``ember.where(condition, self, other)``: this tensor's values where ``condition``
    holds, ``other``'s elsewhere.

    Example::

        >>> x = ember.tensor([1., 2., 3.])
        >>> x.where(x > 1, ember.tensor(0.))
        tensor([0., 2., 3.])
    """
    return where(condition, self, other)


register('where', function=False)(_where_method)


# ------------------------------------------------------------------ index_select / index_add / ...
def _vector_index(index, name, exc=IndexError):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    a = index._data
    if a.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if a.ndim > 1:
        raise exc(f"{name}(): Index is supposed to be a vector")
    return a.reshape(-1).astype(np.int64, copy=False)


def _moved(a, d):
    """``a`` (made at least 1-d) with dim ``d`` moved first (a view)."""
    if a.ndim == 0:
        return a.reshape(1)
    return _xp(a).moveaxis(a, d, 0)


class IndexSelectBackward0(Node):
    def backward(self, g):
        return g.new_zeros(self.shape).index_add(self.dim, self.index, g)


@register()
def index_select(input, dim, index, *, out=None):
    """Entries of ``input`` along ``dim`` at the positions in 1-D ``index``.

    Example::

        >>> ember.arange(6).view(2, 3).index_select(1, ember.tensor([2, 0]))
        tensor([[2, 0],
                [5, 3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'index_select')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'index_select', 'dim', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'index_select', 'out', None)
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    idx = _vector_index(index, 'index_select')
    n = a.shape[d] if a.ndim else 1
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < 0):
        raise IndexError("index out of range in self")
    xp = _xp(a)
    r = xp.take(a.reshape(1) if a.ndim == 0 else a, idx, axis=d)
    if a.ndim == 0:
        r = r.reshape(())
    res = wrap(r)
    if grad_needed(input):
        node = IndexSelectBackward0()
        node.shape, node.dim, node.index = a.shape, d, index.detach()
        record(res, node, (input,))
    if out is not None:
        from ._pointwise_common import _out
        check_out_overlap(out, (input,), full=True)
        if isinstance(out, Tensor) and out.dtype is not res.dtype:
            raise RuntimeError("index_select(): self and result must have the same scalar type")
        return _out(res, out)
    return res


def _index_op_checks(input, dim, index, source, name):
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    idx = _vector_index(index, name)
    s = source._data
    ns = s.shape[d] if s.ndim else 1
    if idx.size != ns:
        if name == 'index_add_':
            raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                               f"source.size(dim): ({ns}), for dim: {d}")
        raise IndexError(f"{name}(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({ns})")
    if name == 'index_add_' and a.ndim and s.ndim and (
            s.ndim != a.ndim or any(x != y for i, (x, y) in enumerate(zip(a.shape, s.shape))
                                    if i != d)):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(a.shape)} "
                           f"source.shape = {list(s.shape)}")
    if s.dtype != a.dtype:
        if name == 'index_add_':
            raise RuntimeError(f"index_add_(): self ({_legacy_name(input.dtype)}) and source "
                               f"({_legacy_name(source.dtype)}) must have the same scalar type")
        raise RuntimeError(f"{name}(): self and source expected to have the same dtype, but got "
                           f"(self) {_legacy_name(input.dtype)} and (source) "
                           f"{_legacy_name(source.dtype)}")
    n = a.shape[d] if a.ndim else 1
    _check_bounds(idx, n, d)
    return a, d, idx, s


class IndexAddBackward0(Node):
    def backward(self, g):
        gs = None
        if self.needs[1]:
            gs = g.index_select(self.dim, self.index)
            if self.alpha != 1:
                gs = gs * self.alpha
        return (g if self.needs[0] else None), gs


@register()
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (duplicate indices accumulate).

    Example::

        >>> ember.zeros(3).index_add(0, ember.tensor([0, 0, 2]), ember.tensor([1., 2., 3.]))
        tensor([3., 0., 3.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'index_add')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'index_add', 'dim', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'index_add', 'out', None)
    a, d, idx, s = _index_op_checks(input, dim, index, source, 'index_add_')
    xp = _xp(a)
    o = a.copy()
    src = _moved(s, d) if s.ndim else s.reshape(1)
    if alpha != 1:
        if src.dtype.kind in 'iu' and isinstance(alpha, int) and not isinstance(alpha, bool):
            # alpha converted to the integer dtype (an unsigned one wraps negatives)
            alpha = src.dtype.type(_args.fill_value(alpha, _NP2DT[src.dtype]))
        with np.errstate(over='ignore'):
            src = src * alpha
        if src.dtype != a.dtype:
            src = src.astype(a.dtype)
    xp.add.at(_moved(o, d), idx, src)
    res = wrap(o)
    if grad_needed(input, source):
        node = IndexAddBackward0()
        node.dim, node.index, node.alpha = d, index.detach(), alpha
        record(res, node, (input, source))
    if out is not None:
        from ._pointwise_common import _out
        return _out(res, out)
    return res


class IndexCopyBackward0(Node):
    def backward(self, g):
        gx = g.index_fill(self.dim, self.index, 0) if self.needs[0] else None
        gs = g.index_select(self.dim, self.index) if self.needs[1] else None
        return gx, gs


@register()
def index_copy(input, dim, index, source):
    """``input`` with slices along ``dim`` at ``index`` replaced by ``source``'s.

    Example::

        >>> ember.zeros(3).index_copy(0, ember.tensor([2]), ember.tensor([5.]))
        tensor([0., 0., 5.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'index_copy')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'index_copy', 'dim', 1)
    a, d, idx, s = _index_op_checks(input, dim, index, source, 'index_copy_')
    o = a.copy()
    _moved(o, d)[idx] = _moved(s, d) if s.ndim else s.reshape(1)
    res = wrap(o)
    if grad_needed(input, source):
        node = IndexCopyBackward0()
        node.dim, node.index = d, index.detach()
        record(res, node, (input, source))
    return res


class IndexFillBackward0(Node):
    def backward(self, g):
        return g.index_fill(self.dim, self.index, 0)


class IndexFillBackward1(Node):
    def backward(self, g):
        gx = g.index_fill(self.dim, self.index, 0) if self.needs[0] else None
        gv = (g.sum() - g.index_fill(self.dim, self.index, 0).sum()) if self.needs[1] else None
        return gx, gv


@register()
def index_fill(input, dim, index, value):
    """``input`` with slices along ``dim`` at ``index`` set to ``value`` (a number or a
    0-dim tensor).

    Example::

        >>> ember.zeros(3).index_fill(0, ember.tensor([0, 2]), 1.)
        tensor([1., 0., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'index_fill')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'index_fill', 'dim', 1)
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    idx = _vector_index(index, 'index_fill_')
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    n = a.shape[d] if a.ndim else 1
    _check_bounds(idx, n, d, allow_neg=True, exc=IndexError)
    o = a.copy()
    _moved(o, d)[idx] = _cast_scalar(
        _scalar_value(value, 'index_fill_', input, dim, index, value), a.dtype)
    res = wrap(o)
    if grad_needed(input, value):
        if isinstance(value, Tensor):
            node = IndexFillBackward1()
            ins = (input, value)
        else:
            node = IndexFillBackward0()
            ins = (input,)
        node.dim, node.index = d, index.detach()
        record(res, node, ins)
    return res


# ------------------------------------------------------------------ gather / scatter
def _along_key(idx, dim, xp):
    """Fancy key selecting ``arr[i0, .., idx[i], .., in]`` for every position of ``idx``."""
    nd = idx.ndim
    key = []
    for d in range(nd):
        if d == dim:
            key.append(idx)
        else:
            sh = [1] * nd
            sh[d] = idx.shape[d]
            key.append(xp.arange(idx.shape[d]).reshape(sh))
    return tuple(key)


def _gs_prepare(input, dim, index, name, src=None):
    """Validate gather/scatter arguments. Returns (arr (>=1-d), dim, idx (>=1-d), key,
    src_arr restricted to idx's shape or None)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    ia = index._data
    if ia.dtype != np.int64 and ia.dtype != np.int32 and ia.size:   # torch: any dtype if empty
        raise RuntimeError(f"{'gather' if name == 'gather' else 'scatter'}(): Expected dtype "
                           "int32/int64 for index")
    if max(ia.ndim, 1) != max(a.ndim, 1) and ia.size:   # torch: an empty index may differ
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    a1 = a.reshape(1) if a.ndim == 0 else a
    idx = ia.reshape(1) if ia.ndim == 0 else ia.astype(np.int64, copy=False)
    s = None
    if src is not None:
        s = src._data
        if max(s.ndim, 1) != max(a.ndim, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        s = s.reshape(1) if s.ndim == 0 else s
    for k in range(a1.ndim):
        if (k != d and idx.shape[k] > a1.shape[k]) or (s is not None and idx.shape[k] > s.shape[k]):
            if name == 'gather':
                raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                   f"{_shape_str(ia.shape)} to be no larger than self "
                                   f"{_shape_str(a.shape)} apart from dimension {d}")
            raise RuntimeError(f"Expected index {_shape_str(ia.shape)} to be no larger than self "
                               f"{_shape_str(a.shape)} apart from dimension {d}" +
                               (f" and to be no larger size than src {_shape_str(src.shape)}"
                                if s is not None else ""))
    _check_bounds(idx, a1.shape[d], d)
    if s is not None:
        if s.dtype != a.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        if s.shape != idx.shape:
            s = s[tuple(slice(0, n) for n in idx.shape)]
    xp = _xp(a)
    return a1, d, idx, _along_key(idx, d, xp), s


class GatherBackward0(Node):
    def backward(self, g):
        if self.index._data.size == 0:          # nothing was gathered
            return g.new_zeros(self.shape)
        return g.new_zeros(self.shape).scatter_add(self.dim, self.index, g)


@register()
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Values along ``dim`` at ``index``: for a 3-D input and ``dim == 1``,
    ``out[i][j][k] = input[i][index[i][j][k]][k]``. The result has ``index``'s shape.

    Example::

        >>> t = ember.tensor([[1, 2], [3, 4]])
        >>> ember.gather(t, 1, ember.tensor([[0, 0], [1, 0]]))
        tensor([[1, 1],
                [4, 3]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'gather')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'gather', 'dim', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'gather', 'out', None)
    a1, d, idx, key, _ = _gs_prepare(input, dim, index, 'gather')
    if index._data.size == 0 and index._data.ndim != a1.ndim:   # empty index, other ndim
        r = _xp(a1).zeros(index._data.shape, a1.dtype)
    else:
        r = a1[key]
    if index._data.ndim == 0:
        r = r.reshape(())
    res = wrap(r)
    if grad_needed(input):
        node = GatherBackward0()
        node.shape, node.dim, node.index = input._data.shape, d, index.detach()
        record(res, node, (input,))
    if out is not None:
        from ._pointwise_common import _out
        check_out_overlap(out, (input, index), full=True)
        check_exact_out(res, out)
        return _out(res, out)
    return res


class ScatterBackward0(Node):
    def backward(self, g):
        gx = g.scatter(self.dim, self.index, 0) if self.needs[0] else None
        gs = g.gather(self.dim, self.index) if self.needs[1] else None
        return gx, gs


class ScatterBackward1(Node):
    def backward(self, g):
        return g.scatter(self.dim, self.index, 0)


class _ScatterReduceNotImpl(Node):
    def backward(self, g):
        raise RuntimeError("derivative for aten::scatter is not implemented")


_named(_ScatterReduceNotImpl, 'NotImplemented')

_UFUNC_REDUCE = {'add': 'add', 'multiply': 'multiply', 'sum': 'add', 'prod': 'multiply',
                 'mean': 'add', 'amax': 'maximum', 'amin': 'minimum'}


@register()
def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """``input`` with values written at ``index`` along ``dim`` (the inverse of
    :func:`gather`): for ``dim == 0``, ``out[index[i][j]][j] = src[i][j]``. ``src`` may be a
    tensor or a number (``value``). ``reduce='add'`` / ``'multiply'`` combines instead of
    overwriting.

    NOTE: like PyTorch, with duplicate indices (and no ``reduce``) which value wins is
    unspecified; ember keeps the last.

    Example::

        >>> ember.zeros(2, 3).scatter(0, ember.tensor([[1, 0, 1]]), 5.)
        tensor([[0., 5., 0.],
                [5., 0., 5.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'scatter')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'scatter', 'dim', 1)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'scatter', 'out', None)
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ('add', 'multiply'):
        raise RuntimeError("reduce argument must be either add or multiply.")
    a1, d, idx, key, s = _gs_prepare(input, dim, index, 'scatter', src)
    a = input._data
    xp = _xp(a)
    o = a1.copy()
    vals = s if s is not None else _cast_scalar(value, a.dtype)
    if reduce is None:
        o[key] = vals
    else:
        if s is None:
            vals = xp.full(idx.shape, vals, a.dtype)
        getattr(xp, _UFUNC_REDUCE[reduce]).at(o, key, vals)
    res = wrap(o.reshape(a.shape))
    if grad_needed(input, src):
        if reduce is not None:
            node = _ScatterReduceNotImpl()
            ins = (input, src) if src is not None else (input,)
        elif src is not None:
            node = ScatterBackward0()
            ins = (input, src)
        else:
            node = ScatterBackward1()
            ins = (input,)
        node.dim, node.index = d, index.detach()
        record(res, node, ins)
    if out is not None:
        from ._pointwise_common import _out
        return _out(res, out)
    return res


class ScatterAddBackward0(Node):
    def backward(self, g):
        gs = g.gather(self.dim, self.index) if self.needs[1] else None
        return (g if self.needs[0] else None), gs


@register()
def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim`` (duplicates accumulate).

    Example::

        >>> ember.zeros(3).scatter_add(0, ember.tensor([0, 0, 2]), ember.ones(3))
        tensor([2., 0., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'scatter_add')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'scatter_add', 'dim', 1)
    a1, d, idx, key, s = _gs_prepare(input, dim, index, 'scatter_add', src)
    a = input._data
    o = a1.copy()
    _xp(a).add.at(o, key, s)
    res = wrap(o.reshape(a.shape))
    if grad_needed(input, src):
        node = ScatterAddBackward0()
        node.dim, node.index = d, index.detach()
        record(res, node, (input, src))
    return res


class ScatterReduceBackward0(Node):
    def backward(self, g):
        d, index, red = self.dim, self.index, self.reduce
        key = self.key
        if red in ('prod', 'amax', 'amin'):
            x, src, result = self.saved_tensors
            xa, sa, ra = x._data, src._data, result._data
        gx = gs = None
        if red == 'sum':
            gx = g
            gs = g.gather(d, index)
        elif red == 'mean':
            n = wrap(self.count.astype(g._data.dtype))
            gx = g / n
            gs = g.gather(d, index) / n.gather(d, index)
        elif red in ('amax', 'amin'):
            val = ra[key]
            x_is = wrap((xa == ra).astype(ra.dtype))
            s_is = wrap((sa[tuple(slice(0, n) for n in index.shape)] == val).astype(ra.dtype))
            cnt = x_is._data.copy()
            _xp(cnt).add.at(cnt, key, s_is._data)
            dist = g / wrap(cnt)
            gx = dist * x_is
            gs = dist.gather(d, index) * s_is
        else:  # prod
            xmask = xa == 0
            mx = x.masked_fill(wrap(xmask), 1)
            gx = g * scatter_reduce(mx, d, index, src, 'prod', include_self=self.include_self) / mx
            s_sub = sa[tuple(slice(0, n) for n in index.shape)]
            s_zero = s_sub == 0
            nz = _xp(ra).zeros(ra.shape, np.int64)
            _xp(nz).add.at(nz, key, s_zero.astype(np.int64))
            single = wrap(s_zero & (nz[key] == 1))
            srcv = src if src._data.shape == index._data.shape else \
                src[tuple(slice(0, n) for n in index.shape)]
            msrc = srcv.masked_fill(single, 1)
            mres = scatter_reduce(x, d, index, msrc, 'prod', include_self=self.include_self)
            gs = where(single, (g * mres).gather(d, index),
                       (g * result).gather(d, index) / srcv.masked_fill(wrap(s_zero), 1))
        if not self.include_self:
            gx = gx.scatter(d, index, 0)
        return (gx if self.needs[0] else None), (gs if self.needs[1] else None)


@register()
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce ``src`` into ``input`` at ``index`` along ``dim`` with ``reduce`` one of
    ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'``, ``'amin'``; ``include_self=False``
    leaves the original values of scattered-to positions out of the reduction.

    Example::

        >>> x = ember.tensor([1., 2., 3.])
        >>> x.scatter_reduce(0, ember.tensor([0, 0]), ember.tensor([5., 7.]), 'amax')
        tensor([7., 2., 3.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'scatter_reduce')
    if reduce not in ('sum', 'prod', 'mean', 'amax', 'amin'):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if input._data.ndim == 0 and isinstance(index, Tensor) and isinstance(src, Tensor) and \
            index._data.ndim <= 1 and src._data.ndim <= 1:
        # 0-d: reduce as 1-element tensors (the backward works on >= 1-d arrays)
        _wrap_dim(dim, 0)
        return scatter_reduce(input.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                              include_self=include_self).reshape(())
    a1, d, idx, key, s = _gs_prepare(input, dim, index, 'scatter_reduce', src)
    a = input._data
    xp = _xp(a)
    o = a1.copy()
    if not include_self:
        if reduce in ('sum', 'mean'):
            init = 0
        elif reduce == 'prod':
            init = 1
        elif a.dtype.kind == 'f' or a.dtype.kind == 'V':
            init = -np.inf if reduce == 'amax' else np.inf
        elif a.dtype.kind == 'b':
            init = reduce == 'amin'
        else:
            info = np.iinfo(a.dtype)
            init = info.min if reduce == 'amax' else info.max
        o[key] = init
    getattr(xp, _UFUNC_REDUCE[reduce]).at(o, key, s)
    count = None
    if reduce == 'mean':
        count = xp.full(a1.shape, 1 if include_self else 0, np.int64)
        xp.add.at(count, key, 1)
        count = xp.maximum(count, 1)
        if a.dtype.kind in 'iub':
            o = xp.floor_divide(o, count).astype(a.dtype)
        else:
            o = (o / count).astype(a.dtype)
    res = wrap(o.reshape(a.shape))
    if grad_needed(input, src):
        node = ScatterReduceBackward0()
        node.dim, node.index, node.reduce = d, index.detach(), reduce
        node.include_self, node.key = include_self, key
        node.count = count.reshape(a.shape) if count is not None else None
        record(res, node, (input, src))
        if reduce in ('prod', 'amax', 'amin'):
            node.save(input, src, res)
    return res


# ------------------------------------------------------------------ masked ops
def _bool_mask(mask, name):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    return mask._data


class MaskedFillBackward0(Node):
    def backward(self, g):
        return g.masked_fill(self.mask, 0)


class MaskedFillBackward1(Node):
    def backward(self, g):
        gx = g.masked_fill(self.mask, 0) if self.needs[0] else None
        gv = where(self.mask, g, 0.).sum() if self.needs[1] else None
        return gx, gv


@register()
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or 0-dim tensor) where bool ``mask`` is True
    (``mask`` broadcasts).

    Example::

        >>> x = ember.tensor([1., -2., 3.])
        >>> x.masked_fill(x < 0, 0.)
        tensor([1., 0., 3.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'masked_fill')
    m = _bool_mask(mask, 'masked_fill_')
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    a = input._data
    xp = _xp(a)
    try:
        shape = np.broadcast_shapes(a.shape, m.shape)
    except ValueError:
        _raise_bc(m.shape, a.shape)
    v = _scalar_value(value, 'masked_fill_', input, mask, value)
    _masked_fill_range(v, input.dtype)
    v = _cast_scalar(v, a.dtype)
    r = xp.where(m, v, a)
    if r.dtype != a.dtype:
        r = r.astype(a.dtype)
    if r.shape != shape:
        r = xp.broadcast_to(r, shape).copy()
    elif not r.flags.c_contiguous:
        r = xp.ascontiguousarray(r)   # PyTorch fills a contiguous clone
    res = wrap(r)
    if grad_needed(input, value):
        if isinstance(value, Tensor):
            node = MaskedFillBackward1()
            ins = (input, value)
        else:
            node = MaskedFillBackward0()
            ins = (input,)
        node.mask = mask.detach()
        record(res, node, ins)
    return res


_FLOAT_MAX = {'float16': 65504.0, 'bfloat16': 3.3895313892515355e38,
              'float32': 3.4028234663852886e38}


def _masked_fill_range(v, dtype):
    """torch converts masked_fill's value (a number or a 0-d tensor's) with an overflow
    check: out of an integer dtype's range, or finite beyond a float dtype's, raises."""
    if hasattr(v, 'item'):
        v = v.item()
    if isinstance(v, bool) or dtype._cat == 0:
        return
    if dtype._cat == 1:
        _args.fill_value(v, dtype)
        return
    lim = _FLOAT_MAX.get(dtype._name)
    if lim is not None and not isinstance(v, complex):
        f = float(v)
        if f == f and abs(f) != float('inf') and abs(f) > lim:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{_args.C_TYPE_NAMES[dtype._name]} without overflow")


@register('masked_fill_', function=False)
def masked_fill_(self, mask, value):
    """In-place version of :func:`masked_fill` (``mask`` must broadcast to self's shape)."""
    m = _bool_mask(mask, 'masked_fill_')
    a = self._data
    if m.shape != a.shape:
        try:
            ok = np.broadcast_shapes(a.shape, m.shape) == a.shape
        except ValueError:
            ok = False
        if not ok:
            _raise_bc(m.shape, a.shape)
    if check_inplace(self, value):
        return inplace(self, masked_fill, mask, value)
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    v = _scalar_value(value, 'masked_fill_', self, mask, value)
    _masked_fill_range(v, self.dtype)
    v = _cast_scalar(v, a.dtype)
    if m.shape != a.shape:
        m = _xp(m).broadcast_to(m, a.shape)
    a[m] = v
    self._storage_obj()._version += 1
    return self


class MaskedSelectBackward0(Node):
    def backward(self, g):
        return g.new_zeros(self.shape).masked_scatter(self.mask, g)


@register()
def masked_select(input, mask, *, out=None):
    """1-D tensor of the elements of ``input`` where bool ``mask`` is True (both
    broadcast).

    Example::

        >>> x = ember.tensor([1., -2., 3.])
        >>> x.masked_select(x > 0)
        tensor([1., 3.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'masked_select')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'masked_select', 'out', None)
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    a, m = input._data, mask._data
    xp = _xp(a)
    try:
        shape = np.broadcast_shapes(a.shape, m.shape)
    except ValueError:
        _raise_bc(a.shape, m.shape)
    ab = a if a.shape == shape else xp.broadcast_to(a, shape)
    mb = m if m.shape == shape else xp.broadcast_to(m, shape)
    res = wrap(ab[mb])
    if grad_needed(input):
        node = MaskedSelectBackward0()
        node.shape, node.mask = shape, mask.detach()
        record(res, node, (input,))
    if out is not None:
        from ._pointwise_common import _out
        check_out_overlap(out, (input, mask), full=True)    # read while writing, as torch
        return _out(res, out)
    return res


class MaskedScatterBackward0(Node):
    def backward(self, g):
        gx = g.masked_fill(self.mask, 0) if self.needs[0] else None
        gs = None
        if self.needs[1]:
            sel = g.masked_select(self.mask)
            k = sel._data.shape[0]
            gs = V._flat_scatter_add(self.sshape, np.arange(k, dtype=np.int64), sel)
        return gx, gs


@register()
def masked_scatter(input, mask, source):
    """``input`` with the elements where ``mask`` is True replaced, in order, by the
    first elements of ``source``.

    Example::

        >>> ember.zeros(4).masked_scatter(ember.tensor([True, False, True, False]),
        ...                               ember.tensor([1., 2.]))
        tensor([1., 0., 2., 0.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'masked_scatter')
    m = _bool_mask(mask, 'masked_scatter_')
    a, s = input._data, source._data
    if s.dtype != a.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but "
                           f"got {_legacy_name(input.dtype)} and {_legacy_name(source.dtype)}")
    xp = _xp(a)
    try:
        shape = np.broadcast_shapes(a.shape, m.shape)
    except ValueError:
        _raise_bc(m.shape, a.shape)
    o = xp.broadcast_to(a, shape).copy() if a.shape != shape else a.copy()
    mb = m if m.shape == shape else xp.broadcast_to(m, shape)
    k = int(mb.sum())
    if k > s.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    o[mb] = s.reshape(-1)[:k]
    res = wrap(o)
    if grad_needed(input, source):
        node = MaskedScatterBackward0()
        node.mask, node.sshape = wrap(mb.copy()) if mb is not m else mask.detach(), s.shape
        record(res, node, (input, source))
    return res


# ------------------------------------------------------------------ in-place forms
for _fn, _n in ((index_add, 'index_add_'), (index_copy, 'index_copy_'),
                (index_fill, 'index_fill_'), (scatter, 'scatter_'),
                (scatter_add, 'scatter_add_'), (scatter_reduce, 'scatter_reduce_'),
                (masked_scatter, 'masked_scatter_')):
    register(_n, function=False)(_make_inplace(_fn, _n))
