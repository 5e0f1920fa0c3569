"""``ember.save`` / ``ember.load`` in PyTorch's own checkpoint format.

A checkpoint is a zip archive (entries stored, not compressed), like the one
``torch.save`` writes::

    <archive>/data.pkl              the object, pickled (protocol 2); each storage is a
                                    persistent id ('storage', torch.FloatStorage, key, 'cpu', numel)
    <archive>/.format_version       b'1'
    <archive>/.storage_alignment    b'64'
    <archive>/byteorder             b'little'
    <archive>/data/<key>            the raw bytes of storage <key>, 64-byte aligned in the file
    <archive>/version               b'3\\n'
    <archive>/.data/serialization_id

Tensors are pickled as calls of ``torch._utils._rebuild_tensor_v2`` (and
``_rebuild_parameter``, ``_rebuild_from_type_v2``, ...) under those exact names, so
files written here load in PyTorch with ``torch.load(f, weights_only=True)``; on load
these names are mapped to ember's own rebuild functions (torch is never imported).
Files written by ``torch.save`` (also in the legacy non-zip format) load here.
"""
import _compat_pickle
import builtins
import collections
import contextlib
import copyreg
import io
import os
import pickle
import struct
import sys
import zipfile
import zlib
import importlib

import numpy as np

from . import _dtype as D
from . import _backend
from ._device import device as _device_cls, CPU as _CPU
from ._storage import UntypedStorage, TypedStorage, _ptr
from ._tensor import Tensor, Size, _new_tensor, _bind
from ._file_format import _BoundedFile, _globals_in_pickle

__all__ = ['save', 'load', 'add_safe_globals', 'get_safe_globals', 'clear_safe_globals',
           'safe_globals', 'get_unsafe_globals_in_checkpoint', 'DEFAULT_PROTOCOL']

DEFAULT_PROTOCOL = 2
_STORAGE_ALIGNMENT = 64
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001

# ---------------------------------------------------------------------------- name tables
# dtype name -> the legacy typed storage class torch pickles for it (``torch.FloatStorage``)
_STORAGE_NAMES = {
    'float32': 'FloatStorage', 'float64': 'DoubleStorage', 'float16': 'HalfStorage',
    'bfloat16': 'BFloat16Storage', 'complex64': 'ComplexFloatStorage',
    'complex128': 'ComplexDoubleStorage', 'bool': 'BoolStorage', 'uint8': 'ByteStorage',
    'int8': 'CharStorage', 'int16': 'ShortStorage', 'int32': 'IntStorage',
    'int64': 'LongStorage',
    # the quantized dtypes' storages: only _rebuild_qtensor reads a tensor from them
    'qint8': 'QInt8Storage', 'quint8': 'QUInt8Storage', 'qint32': 'QInt32Storage',
    'quint4x2': 'QUInt4x2Storage', 'quint2x4': 'QUInt2x4Storage',
}


class _StorageType:
    """Stands for a torch storage class (``torch.FloatStorage``, ``torch.storage.UntypedStorage``)
    in a pickle: on save it is written as that global, on load that global becomes it."""
    __slots__ = ('module', 'name', 'dtype')

    def __init__(self, module, name, dtype):
        self.module, self.name, self.dtype = module, name, dtype

    def __repr__(self):
        return f"<storage type {self.module}.{self.name}>"


_STORAGE_TYPES = {n: _StorageType('torch', n, D._dtype_by_name(d)) for d, n in _STORAGE_NAMES.items()}
_UNTYPED_STORAGE_TYPE = _StorageType('torch.storage', 'UntypedStorage', None)
_STORAGE_TYPE_OF = {D._dtype_by_name(d): _STORAGE_TYPES[n] for d, n in _STORAGE_NAMES.items()}
_ALL_STORAGE_TYPES = tuple(_STORAGE_TYPES.values()) + (_UNTYPED_STORAGE_TYPE,)


def _parameter_cls():
    from .nn.parameter import Parameter
    return Parameter


def _quantized():
    from ._quantized import serialization     # quantized tensors: torch's _rebuild_qtensor
    return serialization


def _parameter_cls_if_loaded():
    m = sys.modules.get(__package__ + '.nn.parameter')
    return None if m is None else m.Parameter


# ---------------------------------------------------------------------------- rebuild functions
# Every rebuild function checks its arguments before it touches memory: a crafted checkpoint
# gets an ``UnpicklingError`` naming the bad argument, never an out-of-bounds view or an
# internal error.
_BIG = 1 << 62          # bound on any size, stride, offset or element count
_MAX_DIMS = 64          # NumPy's limit on dimensions


def _make_repr():
    import reprlib
    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother, r.maxlong = 2, 40, 40, 40
    r.maxtuple = r.maxlist = r.maxdict = r.maxset = r.maxfrozenset = 4
    return r


_LIMIT_REPR = _make_repr()


def _short(x):
    """A short, bounded description of ``x`` for error messages (never a full repr)."""
    if type(x) in (int, float, bool, str, bytes, tuple, list, dict, type(None), complex):
        try:
            return _LIMIT_REPR.repr(x)
        except Exception:
            pass
    return f"<{type(x).__name__}>"


def _bad(msg):
    return pickle.UnpicklingError(msg)


def _check_int(x, what, lo=0):
    if type(x) is not int or not lo <= x < _BIG:
        raise _bad(f"{what} must be an int in [{lo}, 2**62), but got {_short(x)}")
    return x


def _check_ints(seq, what, lo=0):
    if type(seq) not in (tuple, list, Size):
        raise _bad(f"{what} must be a tuple of ints, but got {_short(seq)}")
    if len(seq) > _MAX_DIMS:
        raise _bad(f"{what} has {len(seq)} dimensions, more than the {_MAX_DIMS} supported")
    for v in seq:
        if type(v) is not int or not lo <= v < _BIG:
            raise _bad(f"{what} must be a tuple of ints in [{lo}, 2**62), but got {_short(seq)}")
    return tuple(seq)


def _check_dtype(dtype):
    if type(dtype) not in (D.dtype, D._ExtDtype, D._ByteDtype, D._BitsDtype) or \
            D._BY_NAME.get(dtype._name, D._NO_ARRAY_BY_NAME.get(dtype._name)) is not dtype:
        raise _bad(f"expected a dtype (like torch.float32), but got {_short(dtype)}")
    return dtype


def _view_of(src, dtype, offset, size, stride):
    """An array of ``dtype`` viewing the 1-D array ``src`` (a storage's memory) at element
    ``offset`` with ``size`` and ``stride`` (in elements). Every argument is checked first:
    the view must lie inside the storage's bytes."""
    _check_dtype(dtype)
    offset = _check_int(offset, "storage_offset")
    size = _check_ints(size, "size")
    stride = _check_ints(stride, "stride")
    if len(stride) != len(size):
        raise _bad(f"size {list(size)} and stride {list(stride)} have different lengths")
    npdt = dtype._np
    isz = npdt.itemsize
    numel = 1
    for n in size:
        numel *= n
    if numel * isz >= _BIG or any(s * isz >= _BIG for s in stride) or offset * isz >= _BIG:
        raise _bad(f"size {list(size)} with stride {list(stride)} is too large")
    nbytes = src.nbytes
    off = offset * isz
    if numel:
        need = off + isz + sum((n - 1) * s for n, s in zip(size, stride)) * isz
        if need > nbytes:
            raise _CorruptCheckpoint(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                f"offset {offset}, and itemsize {isz} requiring a storage size of {need} are out "
                f"of bounds for storage of size {nbytes}")
    else:
        off = min(off, nbytes)
    bstride = tuple(s * isz for s in stride)
    if type(src) is not np.ndarray and type(src) is _backend._StrictArray:
        src = src.view(np.ndarray)    # the strict check backend's arrays are host memory
    if type(src) is np.ndarray:
        return np.ndarray(size, npdt, buffer=src, offset=off, strides=bstride)
    xp = _backend.array_module(src)   # the device's array module (cupy)
    return xp.ndarray(size, npdt, memptr=src.data + off, strides=bstride)


def _make_tensor(untyped, dtype, offset, size, stride, requires_grad):
    if type(requires_grad) is not bool:
        if type(requires_grad) is int and requires_grad in (0, 1):
            requires_grad = bool(requires_grad)
        else:
            raise _bad(f"requires_grad must be a bool, but got {_short(requires_grad)}")
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise _bad("Only Tensors of floating point and complex dtype can require gradients "
                   f"(got requires_grad=True for {dtype})")
    arr = _view_of(untyped._src, dtype, offset, size, stride)
    if type(arr) is np.ndarray and _backend._cpu_module is not np:
        # the strict check backend is the CPU's array module: host data goes onto it (a view)
        arr = _backend.to_device(arr, _CPU)
        if type(untyped._src) is np.ndarray:
            untyped._src = _backend.to_device(untyped._src, _CPU)
    t = _new_tensor(arr)
    t._st = untyped
    if requires_grad:
        t._rg = True
    return t


def _split_storage(storage):
    if isinstance(storage, TypedStorage):
        return storage._untyped, storage.dtype
    if isinstance(storage, UntypedStorage):
        return storage, D.uint8
    raise _bad(f"expected a storage, but got {_short(storage)}")


def _check_hooks(backward_hooks):
    if type(backward_hooks) not in (dict, collections.OrderedDict) or backward_hooks:
        raise _bad(f"backward_hooks must be an empty dict (hooks are never saved), but got "
                   f"{_short(backward_hooks)}")


def _rebuild_tensor(storage, storage_offset, size, stride):
    """Rebuilds a tensor from a (typed) storage, like ``torch._utils._rebuild_tensor``."""
    st, dt = _split_storage(storage)
    return _make_tensor(st, dt, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """Rebuilds a tensor from a typed storage, like ``torch._utils._rebuild_tensor_v2``."""
    st, dt = _split_storage(storage)
    _check_hooks(backward_hooks)
    metadata = _check_metadata(metadata)
    return _make_flagged(st, dt, storage_offset, size, stride, requires_grad, metadata)


def _check_metadata(metadata):
    if metadata is None:
        return None
    if type(metadata) not in (dict, collections.OrderedDict) or any(type(k) is not str for k in metadata):
        raise _bad(f"tensor metadata must be a dict with str keys, but got {_short(metadata)}")
    for k in ('conj', 'neg'):
        if k in metadata and type(metadata[k]) is not bool:
            raise _bad(f"tensor metadata {k!r} must be a bool, but got {_short(metadata[k])}")
    return metadata


class _LoadScope(__import__('threading').local):
    """State of the load running in this thread: the negated / conjugated copies of storages
    made so far (so that many tensors with a ``neg``/``conj`` bit over one storage share one
    copy of it, made once); in the legacy format, whose storage bytes follow the pickle,
    the copies still to be filled once they are read."""
    flagged = None
    deferred = None


_LOAD_SCOPE = _LoadScope()


@contextlib.contextmanager
def _load_scope(deferred=None):
    """The scope of one load; ``deferred`` (a list) collects ``(values, copy, conj, neg)``
    for copies to fill after the storages are read (legacy format), then checks to run."""
    old = _LOAD_SCOPE.flagged, _LOAD_SCOPE.deferred
    _LOAD_SCOPE.flagged, _LOAD_SCOPE.deferred = {}, deferred
    try:
        yield
    finally:
        _LOAD_SCOPE.flagged, _LOAD_SCOPE.deferred = old


def _flag_values(xp, vals, conj, neg):
    """``vals`` conjugated and/or negated (a new array)."""
    r = xp.conj(vals) if conj else vals
    return xp.negative(r) if neg else r


def _make_flagged(untyped, dtype, offset, size, stride, requires_grad, metadata):
    """A tensor with PyTorch's lazy conjugate / negative bits (``{'conj': True}``,
    ``{'neg': True}``) applied. ember has no such bits: the view is built over a negated
    (conjugated) copy of its storage, made once per storage in a load, so the work and the
    memory follow the storage's bytes (never the view's element count: a stride-0 view of a
    few bytes stays a few bytes)."""
    t = _make_tensor(untyped, dtype, offset, size, stride, requires_grad)    # checks the view
    if not metadata:
        return t
    conj = builtins.bool(metadata.get('conj')) and dtype.is_complex
    neg = builtins.bool(metadata.get('neg'))
    if not (conj or neg):
        return t
    cache = _LOAD_SCOPE.flagged
    key = (id(untyped), dtype, conj, neg)
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        src = untyped._src
        xp = _backend.array_module(src)
        isz = dtype.itemsize
        flat = src.reshape(-1).view(np.uint8)
        n = flat.nbytes // isz
        try:
            vals = flat[:n * isz].view(dtype._np)
            _flag_values(xp, vals[:0], conj, neg)
        except (TypeError, ValueError, AttributeError):
            raise _bad(f"a neg/conj bit on a tensor of {dtype} can't be applied") from None
        deferred = _LOAD_SCOPE.deferred
        if deferred is not None:      # the storage's bytes are not read yet
            out = xp.empty_like(vals)
            deferred.append((vals, out, conj, neg))
        else:
            out = xp.ascontiguousarray(_flag_values(xp, vals, conj, neg))
        hit = (untyped, UntypedStorage(out))
        if cache is not None:
            cache[key] = hit
    return _make_tensor(hit[1], dtype, offset, size, stride, t._rg)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """Rebuilds a tensor of ``dtype`` from an untyped storage (``_rebuild_tensor_v3``)."""
    st, _ = _split_storage(storage)
    _check_hooks(backward_hooks)
    _check_dtype(dtype)
    metadata = _check_metadata(metadata)
    return _make_flagged(st, dtype, storage_offset, size, stride, requires_grad, metadata)


_MISSING = object()


def _class_attr(cls, k):
    """What class ``cls`` (through its MRO) defines under name ``k``, or ``_MISSING``; no
    descriptor runs (a fast ``inspect.getattr_static`` for instance attribute names)."""
    for c in cls.__mro__:
        d = c.__dict__
        if k in d:
            return d[k]
    return _MISSING


def _check_attr_name(cls, k):
    """Whether instance attribute ``k`` may be restored on an object of class ``cls``: a plain
    identifier, not a dunder, not internal, and not the name of a method, property or slot
    of the class (which an instance attribute would shadow or reach into)."""
    if type(k) is not str or not k.isidentifier() or (k.startswith('__') and k.endswith('__')) \
            or k in _INTERNAL_KEYS:
        raise _bad(f"can't restore attribute {_short(k)} on a {cls.__name__}")
    a = _class_attr(cls, k)
    if a is not _MISSING and (callable(a) or hasattr(type(a), '__get__')):
        raise _bad(f"can't restore attribute {k!r} on a {cls.__name__}: the class defines it")
    return k


class _NotWritable(AttributeError, pickle.UnpicklingError):
    """A checkpoint sets a tensor attribute the class defines (``is_sparse``...): an
    ``AttributeError`` as PyTorch raises it, and an ``UnpicklingError`` as every refusal."""


def _tensor_attr(cls, k):
    """Whether attribute ``k`` saved with a tensor (parameter) of class ``cls`` is restored
    (True) or ignored (False); refused with an ``UnpicklingError`` otherwise.

    The allow-list: a public identifier that neither ember's ``Tensor`` nor ``cls`` defines
    (a user's attribute, like ``t.tag = 'x'``) is restored. A name the tensor classes
    define (``is_sparse``, ``layout``, ``is_nested``, ``is_quantized``, ``data``, slots,
    methods, class attributes such as the empty-view storage offset ``_eoff``) is refused,
    as PyTorch refuses to set its read-only tensor attributes. Any other private name
    (``_grad_dtype``...) is ignored: PyTorch keeps such a name as an inert instance
    attribute, while in ember private names are the tensor's own state."""
    if type(k) is not str or not k.isidentifier() or (k.startswith('__') and k.endswith('__')):
        raise _bad(f"can't restore attribute {_short(k)} on a {cls.__name__}")
    if _class_attr(Tensor, k) is not _MISSING:
        raise _NotWritable(f"can't restore attribute {k!r} on a {cls.__name__}: the class "
                           "defines it (it is not writable)")
    a = _class_attr(cls, k)
    if a is not _MISSING and (callable(a) or hasattr(type(a), '__get__')):
        raise _bad(f"can't restore attribute {k!r} on a {cls.__name__}: the class defines it")
    return not k.startswith('_')


def _state_len(state):
    """The steps restoring ``state`` (a dict or a pair of dicts) counts for: 2 an attribute."""
    n = 0
    for part in (state if type(state) is tuple else (state,)):
        if type(part) in (dict, collections.OrderedDict):
            n += 2 * len(part)
    return n


def _safe_set_state(obj, state):
    """Restores saved attributes of ``obj`` (a tensor or an OrderedDict made by this load):
    ``state`` is a dict, or a ``(dict, slots dict)`` pair, of plain attribute names. The
    values go straight into the instance ``__dict__``: no descriptor or setter runs. On a
    tensor only the attributes :func:`_tensor_attr` allows are restored."""
    if state is None:
        return obj
    parts = state
    if type(state) is tuple:
        if len(state) != 2:
            raise _bad(f"object state must be a dict or a pair of dicts, but got {_short(state)}")
    else:
        parts = (state,)
    cls = type(obj)
    is_tensor = isinstance(obj, Tensor)
    todo = []
    for part in parts:
        if part is None:
            continue
        if type(part) not in (dict, collections.OrderedDict):
            raise _bad(f"object state must be a dict, but got {_short(part)}")
        for k, v in part.items():
            if not is_tensor:
                todo.append((_check_attr_name(cls, k), v))
            elif _tensor_attr(cls, k):
                todo.append((k, v))
    d = obj.__dict__
    for k, v in todo:
        d[k] = v
    return obj


def _set_obj_state(obj, state):
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
        for k, v in (slots or {}).items():
            setattr(obj, k, v)
    if state:
        for k, v in state.items():
            setattr(obj, k, v)
    return obj


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """Rebuilds an ``nn.Parameter`` (``torch._utils._rebuild_parameter``)."""
    return _new_parameter(data, requires_grad)


def _new_parameter(data, requires_grad):
    if type(data) is not Tensor:
        raise _bad(f"a Parameter's data must be a tensor, but got {_short(data)}")
    if type(requires_grad) is not bool:
        raise _bad(f"requires_grad must be a bool, but got {_short(requires_grad)}")
    if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
        raise _bad("Only Tensors of floating point and complex dtype can require gradients "
                   f"(a Parameter of {data.dtype})")
    return _parameter_cls()(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """Rebuilds an ``nn.Parameter`` with extra attributes (``_rebuild_parameter_with_state``)."""
    return _safe_set_state(_new_parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """Rebuilds a tensor subclass or a tensor with attributes (``torch._tensor._rebuild_from_type_v2``)."""
    ret = func(*args)
    if type(ret) is not new_type and not _quantized()._keeps(ret, new_type):
        ret = ret.as_subclass(new_type)
    setstate = getattr(type(ret), '__setstate__', None)
    if setstate is not None and setstate is not getattr(Tensor, '__setstate__', None):
        ret.__setstate__(state)
    else:
        _set_obj_state(ret, state)
    return ret


# torch.serialization._get_layout(name): only these names, never any other attribute.
_LAYOUT_NAMES = ('torch.strided', 'torch.sparse_coo', 'torch.sparse_csr', 'torch.sparse_csc',
                 'torch.sparse_bsr', 'torch.sparse_bsc', 'torch._mkldnn', 'torch.jagged')


def _get_layout(name):
    """The layout named ``name`` ('torch.strided', ...). Only PyTorch's layout names are
    accepted; where ember has no such layout object the name itself stands for it.

    NOTE: unlike PyTorch, this never looks the name up as an arbitrary attribute."""
    if type(name) is not str or name not in _LAYOUT_NAMES:
        raise _bad(f"_get_layout: {_short(name)} is not a layout")
    obj = getattr(sys.modules[__package__], name[6:], None)
    if obj is None or callable(obj) or isinstance(obj, type(sys)):
        return name
    return obj


# ---------------------------------------------------------------------------- plain pickle / copy
_INTERNAL_KEYS = frozenset({'_retains_grad'})


def _obj_state(t):
    d = t.__dict__
    if not d:
        return None
    d = {k: v for k, v in d.items() if k not in _INTERNAL_KEYS}
    return d or None


def _layout(t):
    """(UntypedStorage, dtype, offset, size, stride) describing ``t`` in PyTorch's terms. A tensor
    whose memory can't be described that way (negative strides, odd offsets) gets a fresh
    contiguous storage of its own."""
    a = t._data
    dt = t.dtype
    isz = a.itemsize
    st = t._storage_obj()
    src = st._src
    base = _ptr(src)
    byte_off = _ptr(a) - base
    ok = byte_off >= 0 and byte_off % isz == 0 and all(s >= 0 and s % isz == 0 for s in a.strides)
    if ok and src.size:
        ok = all(s >= 0 for s in src.strides) and (
            src.flags.c_contiguous or src.flags.f_contiguous or
            sum((n - 1) * s for n, s in zip(src.shape, src.strides)) + src.itemsize == src.nbytes)
    if ok and a.size:
        ok = byte_off + isz + sum((n - 1) * s for n, s in zip(a.shape, a.strides)) <= src.nbytes
    if not ok:
        xp = _backend.array_module(a)
        c = xp.ascontiguousarray(a).reshape(-1)
        st = UntypedStorage(c)
        return st, dt, 0, a.shape, _contig_strides(a.shape)
    return st, dt, byte_off // isz, a.shape, t.stride()


def _contig_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


class _TensorPickle:
    """``Tensor.__reduce_ex__`` (pickling, ``copy``), bound onto ``Tensor`` from here."""

    def __reduce_ex__(self, proto):
        return (_rebuild_from_pickle_state, _tensor_pickle_state(self))


_bind(_TensorPickle)


def _tensor_pickle_state(tensor):
    """The arguments of :func:`_rebuild_from_pickle_state` for ``tensor`` (used by
    ``Tensor.__reduce_ex__``: plain ``pickle`` and ``copy.copy``). The storage object itself
    is part of the state, so ``copy.copy`` shares memory and views pickled together stay views."""
    st, dt, off, size, stride = _layout(tensor)
    return (type(tensor), st, dt, off, tuple(size), stride, tensor._rg, _obj_state(tensor))


def _rebuild_from_pickle_state(cls, storage, dtype, offset, size, stride, requires_grad, state):
    """Inverse of :func:`_tensor_pickle_state`."""
    t = _make_tensor(storage, dtype, offset, size, stride, requires_grad)
    if cls is not Tensor:
        t = t.as_subclass(cls)
        t._rg = builtins.bool(requires_grad)
    if state:
        _set_obj_state(t, state)
    return t


def _rebuild_parameter_state(param):
    """The reduce value of an ``nn.Parameter`` for plain pickling and ``copy.copy``."""
    data = _new_tensor(param._data)
    data._st = param._storage_obj()
    return (_rebuild_parameter_plain, (type(param), data, param._rg, _obj_state(param)))


def _rebuild_parameter_plain(cls, data, requires_grad, state):
    p = _parameter_cls().__new__(cls, data, requires_grad)
    if state:
        _set_obj_state(p, state)
    return p


def _storage_bytes(st):
    """The bytes of an UntypedStorage as a 1-D uint8 host array."""
    b = st._bytes()
    if type(b) is not np.ndarray:   # a device array; or a quantized tensor's (host) memory
        b = b.get() if hasattr(b, 'get') else b.view(np.ndarray)
    return b


def _reduce_untyped_storage(st):
    dev = st.device
    return (_rebuild_untyped_storage, (np.ascontiguousarray(_storage_bytes(st)), str(dev)))


def _rebuild_untyped_storage(data, device='cpu'):
    arr = np.array(data, dtype=np.uint8, copy=True)
    if device != 'cpu':
        from ._backend import to_device
        arr = to_device(arr, _device_cls(device))
    return UntypedStorage(arr)


def _reduce_typed_storage(ts):
    return (TypedStorage, (ts._untyped, ts.dtype))


copyreg.pickle(UntypedStorage, _reduce_untyped_storage)
copyreg.pickle(TypedStorage, _reduce_typed_storage)


# ---------------------------------------------------------------------------- torch global names
def _torch_globals():
    """'module.name' (as torch writes it) -> ember object, for the globals ember writes and reads."""
    g = _TORCH_GLOBALS
    if not g:
        for name, fn in [('_rebuild_tensor', _rebuild_tensor), ('_rebuild_tensor_v2', _rebuild_tensor_v2),
                         ('_rebuild_tensor_v3', _rebuild_tensor_v3),
                         ('_rebuild_parameter', _rebuild_parameter),
                         ('_rebuild_parameter_with_state', _rebuild_parameter_with_state)]:
            g['torch._utils.' + name] = fn
        g['torch._tensor._rebuild_from_type_v2'] = _rebuild_from_type_v2
        g['torch._utils._rebuild_qtensor'] = _quantized()._rebuild_qtensor
        g.update(('torch.' + n, q) for n, q in D._QSCHEMES.items())   # torch.per_tensor_affine...
        g['torch.serialization._get_layout'] = _get_layout
        g['torch.Size'] = Size
        g['torch.Tensor'] = Tensor
        g['torch.device'] = _device_cls
        for n, sty in _STORAGE_TYPES.items():
            g['torch.' + n] = sty
        g['torch.storage.UntypedStorage'] = _UNTYPED_STORAGE_TYPE
        g['torch.UntypedStorage'] = _UNTYPED_STORAGE_TYPE
        for n, d in D._BY_NAME.items():
            g['torch.' + n] = d
        for d in D._BYTES:   # the raw-byte dtypes (float4_e2m1fn_x2, bits8...)
            g['torch.' + d._name] = d
    return g


_TORCH_GLOBALS = {}
_SAVE_NAMES = {}   # id(ember object) -> (module, name) written for it


def _save_names():
    if not _SAVE_NAMES:
        for full, obj in _torch_globals().items():
            if full in ('torch.UntypedStorage',):
                continue
            mod, _, name = full.rpartition('.')
            _SAVE_NAMES[id(obj)] = (mod, name)
    return _SAVE_NAMES


# ---------------------------------------------------------------------------- safe globals
_user_safe_globals = []


def add_safe_globals(safe_globals):
    """Marks the given globals as safe for ``weights_only`` load.

    Args:
        safe_globals (List[Union[Callable, Tuple[Callable, str]]]): classes or functions to
            allow; a ``(obj, "module.name")`` pair allows ``obj`` under that name (as it
            appears in the checkpoint).

    Example::

        >>> class MyConfig: ...
        >>> ember.save({'cfg': MyConfig()}, 'ckpt.pt')
        >>> ember.serialization.add_safe_globals([MyConfig])
        >>> ember.load('ckpt.pt')['cfg']
        <__main__.MyConfig object at ...>
    """
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError("safe_globals must be a list of callables or (callable, name) tuples")
    _user_safe_globals.extend(safe_globals)


def get_safe_globals():
    """Return the list of user-added globals that are allowed for ``weights_only`` load.

    Example::

        >>> ember.serialization.add_safe_globals([MyConfig])
        >>> ember.serialization.get_safe_globals()
        [<class '__main__.MyConfig'>]
    """
    return list(_user_safe_globals)


def clear_safe_globals():
    """Clear the list of user-added globals allowed for ``weights_only`` load.

    Example::

        >>> ember.serialization.clear_safe_globals()
        >>> ember.serialization.get_safe_globals()
        []
    """
    _user_safe_globals.clear()


class safe_globals:
    """Context manager that adds ``safe_globals`` for ``weights_only`` load within its block.

    Args:
        safe_globals (List[Union[Callable, Tuple[Callable, str]]]): globals to allow.

    Example::

        >>> with ember.serialization.safe_globals([MyConfig]):
        ...     ember.load('ckpt.pt')
    """

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._saved = list(_user_safe_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _user_safe_globals[:] = self._saved
        return False


def _user_allowed():
    """'module.name' -> object for the globals the user allow-listed."""
    out = {}
    for g in _user_safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2 or type(g[1]) is not str:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path)")
            obj, name = g
            out[name] = obj
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
    return out


_BUILTIN_SAFE = {
    'collections.OrderedDict': collections.OrderedDict,
    'collections.Counter': collections.Counter,
    'builtins.set': set, 'builtins.frozenset': frozenset, 'builtins.complex': complex,
    'builtins.bytearray': bytearray, 'builtins.bytes': bytes, 'builtins.slice': slice,
    'builtins.range': range, '_codecs.encode': __import__('_codecs').encode,
}


def _safe_lookup(module, name, user=None):
    """The allowed object for global ``module.name`` in weights-only load, or None. Only
    exact names of a fixed table (and the user's allow-list) resolve: no attribute lookup."""
    full = f"{module}.{name}"
    obj = _BUILTIN_SAFE.get(full)
    if obj is not None:
        return obj
    obj = _torch_globals().get(full)
    if obj is not None:
        return obj
    if full == 'torch.nn.parameter.Parameter':
        return _parameter_cls()
    if user is None:
        user = _user_allowed() if _user_safe_globals else {}
    if user:
        obj = user.get(full)
        if obj is None and module.split('.')[0] == 'torch':
            obj = user.get('ember' + full[5:])
            if obj is None:
                # ember's counterpart, defined elsewhere (torch.nn.functional.relu is
                # ember._ops.activation.relu): allowed if it is what the user allowed
                m = sys.modules.get(__package__ + module[5:])
                cand = vars(m).get(name) if m is not None else None
                if cand is not None and any(cand is v for v in user.values()):
                    obj = cand
        return obj
    return None


def _unsafe_message(module, name):
    full = f"{module}.{name}"
    shown = name if module == 'builtins' else full
    return (f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`ember.serialization.add_safe_globals([{shown}])` or the "
            f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist this global "
            "if you trust this class/function.")


_WO_HINT = ("Weights only load failed. This file can still be loaded with `weights_only=False`, "
            "but do that only if you trust the source of the checkpoint: unpickling can run "
            "arbitrary code.")


def _wo_error(e):
    cls = type(e) if type(e) is _NotWritable else pickle.UnpicklingError
    return cls(f"{_WO_HINT}\n\nWeightsUnpickler error: {e}")


# ---------------------------------------------------------------------------- pickler
class _AsPlain:
    """Pickles a tensor subclass instance (a Parameter) as a plain tensor."""
    __slots__ = ('t',)

    def __init__(self, t):
        self.t = t


class _StorageRef:
    __slots__ = ('st', 'dtype', 'key')


class _Pickler(pickle._Pickler):
    """Protocol-2 pickler that writes tensors as PyTorch does: storages become persistent ids,
    rebuild functions, storage classes, dtypes, Size and device are written under torch's names."""

    def __init__(self, file, protocol, storages, legacy=False):
        super().__init__(file, protocol)
        self._legacy = legacy
        self._storages = storages   # key -> _StorageRef, in order of first use
        self._refs = {}             # id(UntypedStorage) -> _StorageRef
        self._ptr_dtype = {}
        self._keep = []
        self._names = _save_names()
        self._param_cls = _parameter_cls_if_loaded()

    # -- storages
    def _ref(self, st, dtype):
        r = self._refs.get(id(st))
        if r is None:
            if st.nbytes():
                p = st.data_ptr()
                old = self._ptr_dtype.setdefault(p, dtype)
                if old is not dtype:
                    raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                       "same data as different types")
            r = _StorageRef()
            r.st, r.dtype, r.key = st, dtype, str(len(self._storages))
            self._refs[id(st)] = r
            self._storages[r.key] = r
            self._keep.append(st)
        elif r.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return r

    def persistent_id(self, obj):
        t = type(obj)
        if t is _StorageRef:
            r = obj
        elif t is TypedStorage:
            r = self._ref(obj._untyped, obj.dtype)
        elif t is UntypedStorage:
            r = self._ref(obj, D.uint8)
            pid = ('storage', _UNTYPED_STORAGE_TYPE, r.key, _location(obj), obj.nbytes())
            return pid + (None,) if self._legacy else pid
        else:
            return None
        sty = _STORAGE_TYPE_OF.get(r.dtype, _UNTYPED_STORAGE_TYPE)
        nb = r.st.nbytes()
        numel = nb if sty is _UNTYPED_STORAGE_TYPE else nb // r.dtype.itemsize
        pid = ('storage', sty, r.key, _location(r.st), numel)
        return pid + (None,) if self._legacy else pid

    # -- tensors and torch objects
    def reducer_override(self, obj):
        t = type(obj)
        if t is Tensor or t is _AsPlain or (isinstance(obj, Tensor) and not isinstance(obj, type)):
            return self._reduce_tensor(obj)
        if id(obj) in self._names or (obj is self._param_cls and obj is not None):
            return 'global'   # written by save_global under torch's name
        if t is _device_cls:
            return (_device_cls, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if t is _FunctionType or t is _BuiltinType:
            mod = getattr(obj, '__module__', None)
            if isinstance(mod, str) and mod.startswith('ember.'):
                return 'global'     # (the dispatch table would bypass our save_global)
        return NotImplemented

    def _reduce_tensor(self, obj):
        plain = type(obj) is _AsPlain
        t = obj.t if plain else obj
        if type(t).is_quantized is True:      # torch._utils._rebuild_qtensor
            return _quantized()._reduce_qtensor(self, t)
        P = self._param_cls
        if not plain and P is not None and isinstance(t, P):
            state = _obj_state(t)
            hooks = collections.OrderedDict()
            if type(t) is P:
                if state:
                    return (_rebuild_parameter_with_state, (_AsPlain(t), t._rg, hooks, state))
                return (_rebuild_parameter, (_AsPlain(t), t._rg, hooks))
        st, dt, off, size, stride = _layout(t)
        ref = self._ref(st, dt)
        hooks = collections.OrderedDict()
        rg = False if plain else t._rg   # a Parameter's data is pickled detached, like torch
        if dt in _STORAGE_TYPE_OF:
            func, args = _rebuild_tensor_v2, (ref, off, tuple(size), stride, rg, hooks)
        else:
            func, args = _rebuild_tensor_v3, (ref, off, tuple(size), stride, rg, hooks, dt)
        if plain:
            return (func, args)
        state = _obj_state(t)
        cls = type(t)
        if cls is Tensor and not state:
            return (func, args)
        return (_rebuild_from_type_v2, (func, cls, args, state))

    def save_global(self, obj, name=None):
        mn = self._names.get(id(obj))
        if mn is None and self._param_cls is not None and obj is self._param_cls:
            mn = ('torch.nn.parameter', 'Parameter')
        if mn is None:
            mn = _public_name(obj)
        if mn is None:
            mod = getattr(obj, '__module__', None)
            if isinstance(mod, str) and (mod == 'ember' or mod.startswith('ember.')):
                # ember's classes and functions are written under torch's names (ember's
                # layout mirrors torch's), so a whole model pickled here loads in torch;
                # loading maps torch's names back to ember's
                mn = ('torch' + mod[5:], name or obj.__qualname__)
        if mn is None:
            return super().save_global(obj, name)
        module, name = mn
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode('utf-8'))
        self.memoize(obj)


_FunctionType = type(_contig_strides)
_BuiltinType = type(len)
# where PyTorch's public functions live: an ember function defined in a private module
# (ember._ops.activation.relu) is written under the first of these that holds it
_PUBLIC_MODULES = ('nn.functional', '', 'special', 'linalg', 'fft', 'nn.init')


def _public_name(obj):
    """('torch.<namespace>', name) for an ember function defined in a private module and
    exported by one of PyTorch's public namespaces (``F.relu`` -> torch.nn.functional.relu),
    else None."""
    mod = getattr(obj, '__module__', None)
    name = getattr(obj, '__name__', None)
    if type(obj) not in (_FunctionType, _BuiltinType) or not isinstance(mod, str) or \
            not isinstance(name, str) or not mod.startswith('ember._'):
        return None
    for ns in _PUBLIC_MODULES:
        m = sys.modules.get(f"{__package__}.{ns}" if ns else __package__)
        if m is not None and vars(m).get(name) is obj:
            return (f"torch.{ns}" if ns else 'torch', name)
    return None


def _location(st):
    d = st.device
    if d.type == 'cuda':
        return f"cuda:{d.index or 0}"
    return str(d)


# ---------------------------------------------------------------------------- writing
def _write_record(zf, name, data):
    """Writes one stored (uncompressed) entry whose data starts on a 64-byte boundary."""
    zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    zi.compress_type = zipfile.ZIP_STORED
    if isinstance(data, (bytes, bytearray)):
        n = len(data)
    else:
        data = memoryview(data).cast('B')
        n = data.nbytes
    zi.file_size = n
    zip64 = n * 1.05 > zipfile.ZIP64_LIMIT
    hdr = 30 + len(name.encode('utf-8')) + (20 if zip64 else 0) + 4
    pad = (-(zf.start_dir + hdr)) % _STORAGE_ALIGNMENT
    zi.extra = struct.pack('<HH', 0x4246, pad) + b'Z' * pad   # 'FB' padding field, like torch
    with zf.open(zi, 'w', force_zip64=zip64) as w:
        if n:
            w.write(data)


def _serialization_id():
    r = int.from_bytes(os.urandom(8), 'little')
    s = int.from_bytes(os.urandom(8), 'little')
    return f"{r:020d}{s:020d}"


def _write_zip(fobj, archive, pkl, storages, byteorder=True):
    with zipfile.ZipFile(fobj, 'w', zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{archive}/data.pkl", pkl)
        _write_record(zf, f"{archive}/.format_version", b'1')
        _write_record(zf, f"{archive}/.storage_alignment", str(_STORAGE_ALIGNMENT).encode())
        if byteorder:
            _write_record(zf, f"{archive}/byteorder", sys.byteorder.encode())
        for key, r in storages.items():
            b = _storage_bytes(r.st)
            if r.dtype.itemsize > 1 and b.nbytes % r.dtype.itemsize:
                b = b[:b.nbytes - b.nbytes % r.dtype.itemsize]
            _write_record(zf, f"{archive}/data/{key}", b)
        _write_record(zf, f"{archive}/version", b'3\n')
        _write_record(zf, f"{archive}/.data/serialization_id", _serialization_id().encode())


def _write_legacy(fobj, obj, pickle_module, protocol):
    """The pre-1.6 (non-zip) format: magic, version, sys info, the object, the storage keys,
    then each storage as an 8-byte element count and its raw bytes."""
    storages = {}
    buf = io.BytesIO()
    p = _Pickler(buf, protocol, storages, legacy=True)
    p.dump(obj)
    for x in (_LEGACY_MAGIC, _LEGACY_PROTOCOL,
              dict(protocol_version=_LEGACY_PROTOCOL, little_endian=sys.byteorder == 'little',
                   type_sizes=dict(short=2, int=4, long=4))):
        pickle.dump(x, fobj, protocol=protocol)
    fobj.write(buf.getvalue())
    pickle.dump(list(storages), fobj, protocol=protocol)
    for key, r in storages.items():
        b = _storage_bytes(r.st)
        isz = 1 if _STORAGE_TYPE_OF.get(r.dtype) is None else r.dtype.itemsize
        numel = b.nbytes // isz
        fobj.write(struct.pack('<q', numel))
        fobj.write(memoryview(b[:numel * isz]))


def _hold_old(path):
    """An open descriptor of the file about to be replaced (POSIX), so that freeing its blocks
    (about 0.6 ms per MB on ext4, e.g. 240 ms for 400 MB) happens when a background thread
    closes it, not inside ``save``. The descriptor is read-only and refers to the old,
    already replaced file, so closing it late (or never: the OS closes it at exit) can't
    affect the new checkpoint."""
    if os.name != 'posix':
        return None
    try:
        return os.open(path, os.O_RDONLY)
    except OSError:
        return None


def _release_later(fd):
    """Close ``fd`` in a daemon thread; synchronously when no thread can be started (e.g.
    during interpreter shutdown, where Python refuses new threads)."""
    import threading
    try:
        threading.Thread(target=os.close, args=(fd,), name='ember-save-release',
                         daemon=True).start()
    except BaseException:
        os.close(fd)
        raise


_TMP_SUFFIX = '.tmp'


def _host_tag():
    import hashlib
    import socket
    try:
        host = socket.gethostname()
    except OSError:
        host = ''
    return hashlib.sha1(host.encode('utf-8', 'replace')).hexdigest()[:8]


def _tmp_name(folder, base):
    """``.<base>.<pid>-<host>.<random>.tmp`` in ``folder``: the temporary file ``save`` writes
    before renaming it over ``<base>``."""
    return os.path.join(folder, f".{base}.{os.getpid()}-{_host_tag()}.{os.urandom(4).hex()}"
                                f"{_TMP_SUFFIX}")


def _clean_stale_tmps(folder, base):
    """Remove temporary files left in ``folder`` by saves to ``base`` whose process (on this
    host) no longer exists, e.g. one killed with SIGKILL in the middle of a save."""
    if os.name != 'posix':
        return
    head = f".{base}."
    host = _host_tag()
    try:
        it = os.scandir(folder)
    except OSError:
        return
    with it:
        for e in it:
            n = e.name
            if not (n.startswith(head) and n.endswith(_TMP_SUFFIX)):
                continue
            parts = n[len(head):-len(_TMP_SUFFIX)].split('.')
            if len(parts) != 2:
                continue
            pid, _, tag = parts[0].partition('-')
            if tag != host or not pid.isdigit() or builtins.int(pid) == os.getpid():
                continue
            try:
                os.kill(builtins.int(pid), 0)
                continue                      # still running (or pid reused): leave it
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError, OSError):
                continue
            with contextlib.suppress(OSError):
                os.unlink(e.path)


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    Saves an object to a disk file, in PyTorch's checkpoint format.

    Tensors that view one storage are written once and still share memory after
    :func:`load`. The file can be read by ``torch.load(f, weights_only=True)`` when ``obj``
    holds only tensors, parameters, containers and primitive types.

    Args:
        obj: the object to save (a tensor, a ``state_dict``, nested containers, any
            picklable object).
        f: a file name (``str`` or ``os.PathLike``) or a writable file-like object.
        pickle_module: accepted for compatibility (see the note below).
        pickle_protocol: pickle protocol of the metadata (2, like PyTorch).

    NOTE: unlike PyTorch, saving to a file name first writes a temporary file
    ``.<name>.<pid>-<host>.<random>.tmp`` beside the target (in the same folder, which must
    be writable) and then renames it over ``f``, so an error, a full disk or a kill during
    ``save`` never damages an existing checkpoint. A temporary file left by a killed process
    is removed by the next ``save`` to the same name. The replaced file's mode and owner are
    kept, and a file the caller could not open for writing is refused (``PermissionError``)
    as PyTorch refuses it. A file whose owner can't be kept, one with other hard links, and
    a non-regular file (a device, a FIFO) are overwritten in place, as PyTorch does. The
    file is not fsync'ed (like PyTorch); the replaced file's disk space is released by a
    background thread.

    NOTE: unlike PyTorch, ``pickle_module`` is not used: ember always pickles with its own
    pickler, which writes tensors under torch's global names.

    Example::

        >>> x = ember.tensor([0, 1, 2, 3, 4])
        >>> ember.save(x, 'tensor.pt')
        >>> buffer = io.BytesIO()
        >>> ember.save({'x': x}, buffer)
    """
    storages = {}
    if _use_new_zipfile_serialization:
        buf = io.BytesIO()
        _Pickler(buf, pickle_protocol, storages).dump(obj)
        pkl = buf.getvalue()

    def write(fobj, archive):
        if _use_new_zipfile_serialization:
            _write_zip(fobj, archive, pkl, storages, not _disable_byteorder_record)
        else:
            _write_legacy(fobj, obj, pickle_module, pickle_protocol)

    if _is_path(f):
        path = os.fspath(f)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if os.path.islink(path):
            path = os.path.realpath(path)
        folder = os.path.dirname(path) or '.'
        if not os.path.isdir(folder):
            raise RuntimeError(f"Parent directory {folder} does not exist.")
        base = os.path.basename(path)
        archive = os.path.splitext(base)[0] or 'archive'
        try:
            old_st = os.stat(path)
        except FileNotFoundError:
            old_st = None
        if old_st is not None:
            import stat as _stat
            # the caller must be able to open the file for writing, as with open(path, 'wb')
            if _stat.S_ISREG(old_st.st_mode):
                os.close(os.open(path, os.O_WRONLY))
            if not _stat.S_ISREG(old_st.st_mode) or old_st.st_nlink > 1:
                # a device, FIFO, ... or a file with other hard links: written in place
                with open(path, 'wb') as fobj:
                    write(fobj, archive)
                return
        _clean_stale_tmps(folder, base)
        tmp = _tmp_name(folder, base)
        try:
            with open(tmp, 'xb') as fobj:
                write(fobj, archive)
            old = None
            if old_st is not None:
                tst = os.stat(tmp)
                if (tst.st_uid, tst.st_gid) != (old_st.st_uid, old_st.st_gid):
                    try:
                        os.chown(tmp, old_st.st_uid, old_st.st_gid)
                    except OSError:
                        # the owner can't be kept: overwrite the file itself, like PyTorch
                        os.unlink(tmp)
                        with open(path, 'wb') as fobj:
                            write(fobj, archive)
                        return
                os.chmod(tmp, old_st.st_mode & 0o7777)
                old = _hold_old(path)
            try:
                os.replace(tmp, path)
            except BaseException:
                if old is not None:
                    os.close(old)
                raise
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if old is not None:
            try:
                _release_later(old)
            except RuntimeError:
                pass    # closed synchronously; the checkpoint is already in place
    else:
        if not hasattr(f, 'write'):
            raise AttributeError(f"expected 'f' to be string, path, or a file-like object with "
                                 f"a 'write' attribute")
        write(f, 'archive')
        if hasattr(f, 'flush'):
            f.flush()


# ---------------------------------------------------------------------------- reading
class _CorruptCheckpoint(RuntimeError, pickle.UnpicklingError):
    """A file that is not a readable checkpoint (truncated, corrupt, or something else)."""


class _UserError(Exception):
    """Carries an exception raised by a ``map_location`` callable out of the unpickler, so
    that ``load`` raises it unchanged."""

    def __init__(self, exc):
        super().__init__()
        self.exc = exc


def _restore_fn(map_location):
    """map_location -> fn(UntypedStorage on the CPU, location tag) -> UntypedStorage."""
    if map_location is None:
        return _default_restore
    if isinstance(map_location, dict):
        return lambda st, loc: _default_restore(st, _as_loc(map_location.get(loc, loc)))
    if isinstance(map_location, (str, bytes, _device_cls)):
        loc = _as_loc(map_location)
        return lambda st, _: _default_restore(st, loc)
    if callable(map_location):
        def restore(st, loc):
            try:
                r = map_location(st, loc)
            except Exception as e:
                raise _UserError(e) from None
            if r is None:
                return _default_restore(st, loc)
            if isinstance(r, TypedStorage):
                return r._untyped
            if isinstance(r, UntypedStorage):
                return r
            raise TypeError(f"map_location should return a storage or None, got {type(r).__name__}")
        return restore
    raise TypeError(f"map_location must be a str, ember.device, dict or callable, "
                    f"got {type(map_location).__name__}")


def _as_loc(x):
    if isinstance(x, bytes):
        x = x.decode('ascii')
    return str(x)


def _default_restore(st, location):
    dev = _device_cls(location)
    if dev.type == 'cpu':
        return st
    if dev.type == 'cuda':
        try:
            from . import _backend
            _backend._get_cupy()
        except Exception:
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU.") from None
        from ._backend import to_device
        return UntypedStorage(to_device(st._src, dev))
    raise RuntimeError(f"don't know how to restore data location of storage (tagged with {location})")


def _readinto(fobj, buf, what):
    mv = memoryview(buf).cast('B')
    n = mv.nbytes
    got = 0
    readinto = getattr(fobj, 'readinto', None)
    while got < n:
        if readinto is not None:
            k = readinto(mv[got:])
        else:
            b = fobj.read(n - got)
            k = len(b)
            mv[got:got + k] = b
        if not k:
            raise _CorruptCheckpoint(f"{what}: unexpected end of file (the file is truncated)")
        got += k


_DEFLATE_RATIO = 1100    # deflate can't expand data more than about 1032 to 1
# The bounds of a load, N being the file's size in bytes (see ``load``'s docstring):
_STEPS_PER_BYTE = 8          # interpreter steps a weights-only load may take: 8 * N + 2**18
_STEPS_BASE = 1 << 18
_INFLATE_PER_BYTE = 16       # bytes compressed records may inflate to, in all: 16 * N + 16 MiB
_INFLATE_BASE = 16 << 20
_METHODS = {zipfile.ZIP_STORED: 'stored', zipfile.ZIP_DEFLATED: 'deflate'}
_METHOD_NAMES = {zipfile.ZIP_BZIP2: 'bzip2', zipfile.ZIP_LZMA: 'lzma', 1: 'shrink', 6: 'implode',
                 9: 'deflate64', 93: 'zstd', 95: 'xz', 98: 'ppmd', 99: 'AES encryption'}


def _step_budget(nbytes):
    """The steps a weights-only load of a file of ``nbytes`` bytes may take."""
    return _STEPS_PER_BYTE * nbytes + _STEPS_BASE


class _Reader:
    """Reads the records of a torch zip checkpoint straight into arrays. A record must be
    present in the file (a compressed one within deflate's ratio of its bytes) before
    anything is allocated for it, and compressed records are inflated against that bound."""

    def __init__(self, fobj, name, mmap_path=None):
        self.f = fobj
        self.name = name
        pos = fobj.tell()
        fobj.seek(0, 2)
        self.size = fobj.tell()
        fobj.seek(pos)
        try:
            self.zf = zipfile.ZipFile(fobj)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error) as e:
            raise _CorruptCheckpoint(
                f"ember.load: failed reading zip archive {name}: failed finding central directory "
                f"(the file is truncated or is not a checkpoint): {str(e)[:200]}") from None
        infos = self.zf.infolist()
        if not infos:
            raise _CorruptCheckpoint(f"ember.load: zip archive {name} is empty")
        seen = set()
        for i in infos:
            n = i.filename
            parts = n.split('/')
            if n in seen or n.startswith('/') or '\\' in n or '\x00' in n or ':' in parts[0] \
                    or any(p in ('.', '..') for p in parts):
                raise _CorruptCheckpoint(f"ember.load: zip archive {name} has an unsafe or "
                                         f"duplicate record name {_short(n)}")
            seen.add(n)
        self.prefix = infos[0].filename.split('/')[0]
        self.infos = {i.filename: i for i in infos}
        self.mmap = None
        self.bytes_read = 0      # compressed bytes of the records read so far
        self.inflated = 0        # bytes the compressed records read so far inflate to
        if mmap_path is not None:
            self.mmap = np.memmap(mmap_path, dtype=np.uint8, mode='c')

    def has(self, rec):
        return f"{self.prefix}/{rec}" in self.infos

    def _info(self, rec):
        info = self.infos.get(f"{self.prefix}/{rec}")
        if info is None:
            raise _CorruptCheckpoint(f"ember.load: record {rec} not found in {self.name}")
        return info

    def _check_present(self, info, rec, nbytes):
        """Refuses record ``rec`` if the file can't hold the ``nbytes`` it is asked for, if it
        is compressed with a method other than deflate (PyTorch reads only stored and
        deflated records), if its bytes were already read for another record (overlapping
        records), or if inflating it would pass the load's bound on inflated bytes."""
        m = info.compress_type
        if info.flag_bits & 0x1:
            raise _CorruptCheckpoint(
                f"ember.load: failed retrieving record {rec} of {self.name}: unsupported "
                "encryption (the file is corrupt or was not written by torch.save)")
        if m not in _METHODS:
            raise _CorruptCheckpoint(
                f"ember.load: failed retrieving record {rec} of {self.name}: unsupported method "
                f"{m} ({_METHOD_NAMES.get(m, 'unknown')}): only stored and deflate records "
                "can be read (the file is corrupt or was not written by torch.save)")
        end = info.header_offset + 30 + len(info.orig_filename.encode('utf-8'))
        if m == zipfile.ZIP_STORED:
            ok = end + nbytes <= self.size
            size = nbytes
        else:
            ok = end + info.compress_size <= self.size and \
                nbytes <= _DEFLATE_RATIO * info.compress_size + 1024
            size = info.compress_size
        if not ok:
            raise _CorruptCheckpoint(
                f"ember.load: record {rec} of {self.name} claims {nbytes} bytes, more than the "
                f"file holds (the file is truncated or crafted)")
        self.bytes_read += size
        if self.bytes_read > self.size:
            raise _CorruptCheckpoint(
                f"ember.load: record {rec} of {self.name} overlaps the bytes of other records "
                "(its records read more bytes than the file holds: crafted?)")
        if m != zipfile.ZIP_STORED:
            self.inflated += nbytes
            if self.inflated > _INFLATE_PER_BYTE * self.size + _INFLATE_BASE:
                raise _CorruptCheckpoint(
                    f"ember.load: record {rec} of {self.name} claims {nbytes} bytes: its "
                    "compressed records inflate to more than the file's size allows "
                    f"({_INFLATE_PER_BYTE} x {self.size} bytes + {_INFLATE_BASE >> 20} MiB: "
                    "a decompression bomb?)")

    def read(self, rec, limit=None):
        info = self._info(rec)
        n = info.file_size
        if limit is not None and n > limit:
            raise _CorruptCheckpoint(f"ember.load: record {rec} of {self.name} is too large "
                                     f"({n} bytes)")
        self._check_present(info, rec, n)
        try:
            with self.zf.open(info) as r:
                data = r.read(n + 1)
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError,
                NotImplementedError, struct.error) as e:
            raise _CorruptCheckpoint(f"ember.load: failed reading record {rec} of "
                                     f"{self.name}: {str(e)[:200]}") from None
        if len(data) != n:
            raise _CorruptCheckpoint(f"ember.load: record {rec} of {self.name} has {len(data)} "
                                     f"bytes, its header says {n}")
        return data

    def read_storage(self, key, nbytes):
        rec = f"data/{key}"
        info = self._info(rec)
        if info.file_size < nbytes:
            raise _CorruptCheckpoint(f"ember.load: record {rec} of {self.name} has {info.file_size} "
                                     f"bytes, expected {nbytes}")
        self._check_present(info, rec, nbytes)
        if info.compress_type != zipfile.ZIP_STORED:
            buf = np.empty(nbytes, np.uint8)
            try:
                with self.zf.open(info) as r:
                    _readinto(r, buf, f"ember.load: failed reading record {rec} of {self.name}")
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError,
                    NotImplementedError) as e:
                raise _CorruptCheckpoint(f"ember.load: failed reading record {rec} of "
                                         f"{self.name}: {str(e)[:200]}") from None
            return buf
        f = self.f
        f.seek(info.header_offset)
        h = f.read(30)
        if len(h) != 30 or h[:4] != b'PK\x03\x04':
            raise _CorruptCheckpoint(f"ember.load: failed reading zip archive {self.name}: bad local "
                                     f"header for record {rec}")
        nl, el = struct.unpack('<HH', h[26:30])
        start = info.header_offset + 30 + nl + el
        if start + nbytes > self.size:
            raise _CorruptCheckpoint(f"ember.load: {self.name} is truncated (record {rec})")
        if self.mmap is not None:
            if start + nbytes > self.mmap.size:
                raise _CorruptCheckpoint(f"ember.load: {self.name} is truncated (record {rec})")
            buf = self.mmap[start:start + nbytes].view(np.ndarray)
            if nbytes == info.file_size and zlib.crc32(buf) != info.CRC:
                raise _CorruptCheckpoint(f"ember.load: failed reading zip archive {self.name}: "
                                         f"CRC-32 check failed for record {rec} (the file is "
                                         "corrupt)")
            return buf
        buf = np.empty(nbytes, np.uint8)
        f.seek(start)
        _readinto(f, buf, f"ember.load: failed reading record {rec} of {self.name}")
        if nbytes == info.file_size and zlib.crc32(buf) != info.CRC:
            raise _CorruptCheckpoint(f"ember.load: failed reading zip archive {self.name}: CRC-32 "
                                     f"check failed for record {rec} (the file is corrupt)")
        return buf


class _StoragePool:
    """persistent_load for both formats: ('storage', type, key, location, numel[, view]).
    Every field is checked; the bytes a storage claims must be present in the file
    (``fetch`` refuses the rest) before anything is allocated."""

    def __init__(self, fetch, restore, byteswap):
        self.fetch = fetch          # (key, nbytes, dtype) -> uint8 array
        self.restore = restore
        self.byteswap = byteswap
        self.loaded = {}

    def __call__(self, pid):
        if type(pid) is not tuple or not pid or not isinstance(pid[0], (str, bytes)) \
                or _as_loc(pid[0]) != 'storage':
            raise _bad(f"Only persistent_load of storage is allowed, but got {_short(pid)}")
        if len(pid) not in (5, 6):
            raise _bad(f"malformed storage persistent id {_short(pid)}")
        sty, key, location, numel = pid[1:5]
        if type(sty) is not _StorageType or not any(sty is t for t in _ALL_STORAGE_TYPES):
            raise _bad(f"unknown storage type {_short(sty)} in a persistent id")
        key = _check_key(key, 'storage key')
        location = _check_location(location)
        dtype = sty.dtype or D.uint8
        view = pid[5] if len(pid) == 6 else None
        ts = self.loaded.get(key)
        if ts is None:
            _check_int(numel, "storage size")
            raw = self.fetch(key, numel * dtype.itemsize, dtype)
            arr = raw.view(dtype._np) if raw.nbytes % dtype.itemsize == 0 else raw
            if self.byteswap and dtype.itemsize > 1:
                arr.byteswap(inplace=True)
            try:
                st = self.restore(UntypedStorage(arr), location)
            except pickle.UnpicklingError:
                raise
            except (RuntimeError, ValueError, TypeError) as e:
                if type(e) is not RuntimeError or 'deserialize' not in str(e):
                    raise _bad(f"can't restore storage {key} to location {location!r}: "
                               f"{str(e)[:200]}") from None
                raise
            ts = self.loaded[key] = TypedStorage(st, dtype)
        if view is not None:
            if type(view) is not tuple or len(view) != 3:
                raise _bad(f"malformed storage view {_short(view)}")
            vkey, off, vsize = view
            vkey = _check_key(vkey, 'storage view key')
            _check_int(off, "storage view offset")
            _check_int(vsize, "storage view size")
            vs = self.loaded.get(vkey)
            if vs is None:
                src = ts._untyped._src
                isz = ts.dtype.itemsize
                flat = src.reshape(-1).view(np.uint8)
                if (off + vsize) * isz > flat.nbytes:
                    raise _bad(f"storage view {vkey} (offset {off}, size {vsize}) is out of "
                               f"bounds for storage {key} of {flat.nbytes // isz} elements")
                sub = flat[off * isz:(off + vsize) * isz].view(ts.dtype._np)
                vs = self.loaded[vkey] = TypedStorage(UntypedStorage(sub), ts.dtype)
            return vs
        return ts


def _check_key(key, what):
    if type(key) is bytes:
        key = key.decode('ascii', 'replace')
    if type(key) is not str or not 0 < len(key) <= 64 or not all(
            c.isascii() and (c.isalnum() or c in '_-') for c in key):
        raise _bad(f"malformed {what} {_short(key)}")
    return key


def _check_location(loc):
    if type(loc) is bytes:
        loc = loc.decode('ascii', 'replace')
    if type(loc) is not str or not 0 < len(loc) <= 64 or not loc.isprintable():
        raise _bad(f"malformed storage location {_short(loc)}")
    return loc


_MODULE_RENAMES = {'torch.tensor': 'torch._tensor'}


def _fix_global_name(module, name):
    if (module, name) in _compat_pickle.NAME_MAPPING:      # Python 2 names (protocol 2)
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return _MODULE_RENAMES.get(module, module), name


# ---------------------------------------------------------------------------- safe unpickler
class _Truncated(pickle.UnpicklingError):
    """The pickle ends before its STOP opcode."""


class _Source:
    """Reads a pickle from a file object, never asking for more bytes than the file has
    left (so a claimed length can't make it allocate)."""
    __slots__ = ('f', 'left', 'read1')

    def __init__(self, f, left):
        self.f, self.left = f, left
        self.read1 = self.read

    def read(self, n):
        if n > self.left:
            raise _Truncated(f"pickle data was truncated (an opcode needs {n} bytes, "
                             f"{self.left} are left)")
        b = self.f.read(n)
        if len(b) != n:
            raise _Truncated("pickle data was truncated")
        self.left -= n
        return b

    def readline(self):
        b = self.f.readline(min(self.left, 1 << 16))
        self.left -= len(b)
        if not b.endswith(b'\n'):
            raise _Truncated("pickle data was truncated (a line has no end)")
        return b[:-1]


class _BytesSource:
    """Reads a pickle held in memory (``BytesIO`` never allocates more than it holds)."""
    __slots__ = ('read1', 'read', 'readline')

    def __init__(self, data):
        bio = io.BytesIO(data)
        self.read1 = bio.read
        bio_read, bio_readline = bio.read, bio.readline

        def read(n):
            b = bio_read(n)
            if len(b) != n:
                raise _Truncated("pickle data was truncated")
            return b

        def readline():
            b = bio_readline(1 << 16)
            if not b.endswith(b'\n'):
                raise _Truncated("pickle data was truncated (a line has no end)")
            return b[:-1]
        self.read, self.readline = read, readline


_MARK = object()
_TUPLE_COST_LIMIT = 1 << 20     # items a tuple may expand to, counting shared sub-tuples
_DEPTH_LIMIT = 100              # nesting of tuples and frozensets (hashed and compared recursively)
_HASH_P = (1 << 61) - 1         # ints in (-P, P) hash to themselves: never crafted to collide
_REBUILD_STEPS = 32             # steps a tensor rebuild or a storage counts for
# extra steps an opcode counts for, beyond 1 (about one step per 64 bytes it allocates)
_OP_STEPS = {pickle.EMPTY_SET[0]: 4, pickle.FROZENSET[0]: 4, pickle.EMPTY_DICT[0]: 2,
             pickle.DICT[0]: 2, pickle.BINPERSID[0]: _REBUILD_STEPS, pickle.PUT[0]: 2,
             pickle.BINPUT[0]: 2, pickle.LONG_BINPUT[0]: 2, pickle.MEMOIZE[0]: 2}
_OPNAMES = {op.code.encode('latin-1')[0]: op.name for op in __import__('pickletools').opcodes}


class _SafeUnpickler:
    """The ``weights_only`` unpickler: an interpreter of pickle opcodes of its own.

    Only data opcodes run as such (ints, floats, strings, bytes, tuples, lists, dicts,
    sets, memo). GLOBAL / STACK_GLOBAL resolve only allow-listed names, to ember's own
    objects; REDUCE and NEWOBJ call only the validating handlers of ``_safe_calls()`` (or
    callables the user allow-listed); BUILD restores state only on an OrderedDict, a tensor
    made by NEWOBJ in this pickle (legacy ``set_``) or an instance of a user allow-listed
    class. INST, OBJ, EXT*, PERSID and out-of-band buffers are refused.

    Every opcode, every element a handler copies, every tensor rebuild and every hash of a
    dict key or set item is charged to a budget of steps proportional to the file's size
    (``_step_budget``); keys that could be crafted to collide (big ints, floats, tuples,
    frozensets...) are charged once more for each earlier key of their container with the
    same hash, so collisions can't make a load quadratic. Tuples and frozensets whose shared
    parts expand beyond a bound or nest too deeply are refused. Memory and time follow the
    bytes present.
    """

    def __init__(self, src, persistent_load, budget, encoding='utf-8'):
        self.read = src.read
        self.read1 = src.read1
        self.readline = src.readline
        self.pl = persistent_load
        self.budget = budget
        self.encoding = encoding
        self.memo = {}
        self.stack = []
        self.metastack = []
        self.tcost = {}
        self.htabs = {}
        self.keep = []
        self.shells = {}
        self.user = _user_allowed()
        self.user_ids = {id(v) for v in self.user.values()}

    # -- helpers
    def charge(self, n):
        self.budget -= n
        if self.budget < 0:
            raise self.over()

    @staticmethod
    def over():
        return _bad("the pickle builds more data than its file's size allows, or does more work "
                    "(a memory or time bomb?)")

    def kinfo(self, x):
        """(nesting depth, cost of hashing or comparing) of a dict key / set item ``x``."""
        t = type(x)
        if t is tuple or t is frozenset:
            return self.tcost.get(id(x), (1, len(x) + 1))
        if t is int and not -_HASH_P < x < _HASH_P:
            return 0, 1 + (x.bit_length() >> 6)
        if isinstance(x, tuple):
            return 1, len(x) + 1
        return 0, 1

    def key(self, cont, k):
        """Charges the hashing of ``k``, a new key (item) of the dict (set) ``cont``: its cost,
        times one more than the number of earlier keys of ``cont`` with the same hash
        (the comparisons a hash table makes on a collision)."""
        t = type(k)
        if t is str or t is bytes or k is None or t is bool or (t is int and -_HASH_P < k < _HASH_P):
            return k      # randomised or identity hashes: they can't be crafted to collide
        cost = self.kinfo(k)[1]
        self.charge(cost)
        try:
            h = hash(k)
        except TypeError:
            raise _bad(f"unhashable dict key or set item of type {type(k).__name__}") from None
        tab = self.htabs.get(id(cont))
        if tab is None:
            tab = self.htabs[id(cont)] = {}
            self.keep.append(cont)
        n = tab.get(h, 0)
        tab[h] = n + 1
        if n:
            self.charge(cost * n)
        return k

    def fill(self, cont, items):
        """Adds ``items`` (an iterable) to the set ``cont``, each charged by :meth:`key`."""
        add = cont.add
        key = self.key
        for x in items:
            add(key(cont, x))
        return cont

    def make_frozenset(self, items):
        depth, cost = 0, 1
        for x in items:
            d, c = self.kinfo(x)
            cost += c
            if d > depth:
                depth = d
        depth += 1
        if cost > _TUPLE_COST_LIMIT or depth > _DEPTH_LIMIT:
            raise _bad("nested frozensets too large: they expand to more than "
                       f"{_TUPLE_COST_LIMIT} items or {_DEPTH_LIMIT} levels")
        fs = frozenset(self.fill(set(), items))
        if cost > len(fs) + 1 or depth > 1:
            self.tcost[id(fs)] = (depth, cost)
            self.keep.append(fs)
        return fs

    def pop(self):
        try:
            return self.stack.pop()
        except IndexError:
            raise _bad("unpickling stack underflow") from None

    def top(self):
        if not self.stack:
            raise _bad("unpickling stack underflow")
        return self.stack[-1]

    def pop_mark(self):
        items = self.stack
        if not self.metastack:
            raise _bad("could not find MARK")
        self.stack = self.metastack.pop()
        return items

    def make_tuple(self, items):
        depth, cost = 0, 1
        tc = self.tcost
        for x in items:
            tx = type(x)
            if tx is tuple or tx is frozenset:
                d, c = tc.get(id(x), (1, len(x) + 1))
                cost += c
                if d > depth:
                    depth = d
            elif tx is int and not -_HASH_P < x < _HASH_P:
                cost += 1 + (x.bit_length() >> 6)
            else:
                cost += 1
        t = tuple(items)
        depth += 1
        if cost > _TUPLE_COST_LIMIT or depth > _DEPTH_LIMIT:
            raise _bad("nested tuples too large: shared sub-tuples (frozensets) expand to more than "
                       f"{_TUPLE_COST_LIMIT} items or {_DEPTH_LIMIT} levels")
        if cost > len(t) + 1 or depth > 1:
            tc[id(t)] = (depth, cost)
            self.keep.append(t)
        return t

    def decode(self, b):
        if self.encoding == 'bytes':
            return b
        try:
            return b.decode(self.encoding, 'strict')
        except (UnicodeDecodeError, LookupError) as e:
            raise _bad(f"can't decode a pickled string: {str(e)[:120]}") from None

    def utf8(self, b):
        try:
            return str(b, 'utf-8', 'surrogatepass')
        except UnicodeDecodeError as e:
            raise _bad(f"invalid UTF-8 in a pickled string: {str(e)[:120]}") from None

    # -- main loop
    def load(self):
        read = self.read1
        dispatch = _DISPATCH
        extra = _OP_STEPS
        while True:
            key = read(1)
            if not key:
                raise _Truncated("pickle data was truncated (no STOP opcode)")
            fn = dispatch.get(key[0])
            if fn is None:
                raise _bad(f"Unsupported operand {key[0]} ({_OPNAMES.get(key[0], 'unknown')})")
            self.budget -= extra.get(key[0], 1)
            if self.budget < 0:
                raise self.over()
            if fn(self):
                return self.result

    # -- opcodes
    def op_proto(self):
        p = self.read(1)[0]
        if p > pickle.HIGHEST_PROTOCOL:
            raise _bad(f"unsupported pickle protocol: {p}")

    def op_frame(self):
        self.read(8)

    def op_stop(self):
        self.result = self.pop()
        return True

    def op_mark(self):
        self.metastack.append(self.stack)
        self.stack = []

    def op_pop(self):
        if self.stack:
            self.stack.pop()
        else:
            self.pop_mark()

    def op_pop_mark(self):
        self.pop_mark()

    def op_dup(self):
        self.stack.append(self.top())

    def op_none(self):
        self.stack.append(None)

    def op_true(self):
        self.stack.append(True)

    def op_false(self):
        self.stack.append(False)

    def op_int(self):
        line = self.readline()
        if line == b'00':
            v = False
        elif line == b'01':
            v = True
        else:
            v = self._int(line)
        self.stack.append(v)

    def _int(self, line):
        try:
            return int(line.rstrip(b'L'), 10)
        except ValueError:
            raise _bad(f"malformed int in pickle: {_short(line[:40])}") from None

    def op_long(self):
        self.stack.append(self._int(self.readline()))

    def op_binint(self):
        self.stack.append(struct.unpack('<i', self.read(4))[0])

    def op_binint1(self):
        self.stack.append(self.read(1)[0])

    def op_binint2(self):
        self.stack.append(struct.unpack('<H', self.read(2))[0])

    def op_long1(self):
        n = self.read(1)[0]
        self.stack.append(int.from_bytes(self.read(n), 'little', signed=True))

    def op_long4(self):
        n = struct.unpack('<i', self.read(4))[0]
        if n < 0:
            raise _bad("LONG pickle has negative byte count")
        self.stack.append(int.from_bytes(self.read(n), 'little', signed=True))

    def op_float(self):
        try:
            self.stack.append(float(self.readline()))
        except ValueError:
            raise _bad("malformed float in pickle") from None

    def op_binfloat(self):
        self.stack.append(struct.unpack('>d', self.read(8))[0])

    def op_string(self):
        import codecs
        line = self.readline().rstrip()
        if len(line) < 2 or line[0] != line[-1] or line[0] not in b'"\'':
            raise _bad("the STRING opcode argument must be quoted")
        try:
            b = codecs.escape_decode(line[1:-1])[0]
        except ValueError:
            raise _bad("malformed STRING in pickle") from None
        self.stack.append(self.decode(b))

    def op_binstring(self):
        n = struct.unpack('<i', self.read(4))[0]
        if n < 0:
            raise _bad("BINSTRING pickle has negative byte count")
        self.stack.append(self.decode(self.read(n)))

    def op_short_binstring(self):
        self.stack.append(self.decode(self.read(self.read(1)[0])))

    def op_unicode(self):
        try:
            self.stack.append(str(self.readline(), 'raw-unicode-escape'))
        except UnicodeDecodeError:
            raise _bad("malformed UNICODE in pickle") from None

    def op_binunicode(self):
        self.stack.append(self.utf8(self.read(struct.unpack('<I', self.read(4))[0])))

    def op_short_binunicode(self):
        self.stack.append(self.utf8(self.read(self.read(1)[0])))

    def op_binunicode8(self):
        self.stack.append(self.utf8(self.read(struct.unpack('<Q', self.read(8))[0])))

    def op_binbytes(self):
        self.stack.append(self.read(struct.unpack('<I', self.read(4))[0]))

    def op_short_binbytes(self):
        self.stack.append(self.read(self.read(1)[0]))

    def op_binbytes8(self):
        self.stack.append(self.read(struct.unpack('<Q', self.read(8))[0]))

    def op_bytearray8(self):
        self.stack.append(bytearray(self.read(struct.unpack('<Q', self.read(8))[0])))

    # containers
    def op_empty_tuple(self):
        self.stack.append(())

    def op_tuple(self):
        t = self.make_tuple(self.pop_mark())
        self.stack.append(t)

    def op_tuple1(self):
        a = self.pop()
        self.stack.append(self.make_tuple((a,)))

    def op_tuple2(self):
        b = self.pop()
        a = self.pop()
        self.stack.append(self.make_tuple((a, b)))

    def op_tuple3(self):
        c = self.pop()
        b = self.pop()
        a = self.pop()
        self.stack.append(self.make_tuple((a, b, c)))

    def op_empty_list(self):
        self.stack.append([])

    def op_list(self):
        lst = self.pop_mark()
        self.stack.append(lst)

    def op_append(self):
        v = self.pop()
        lst = self.top()
        if type(lst) is not list:
            raise _bad(f"Can only append to lists, but got {type(lst).__name__}")
        lst.append(v)

    def op_appends(self):
        items = self.pop_mark()
        lst = self.top()
        if type(lst) is not list:
            raise _bad(f"Can only extend lists, but got {type(lst).__name__}")
        lst.extend(items)

    def op_empty_dict(self):
        self.stack.append({})

    def op_dict(self):
        items = self.pop_mark()
        if len(items) % 2:
            raise _bad("odd number of items for DICT")
        d = {}
        key = self.key
        for i in range(0, len(items), 2):
            d[key(d, items[i])] = items[i + 1]
        self.stack.append(d)

    def _dict_target(self, op):
        d = self.top()
        if type(d) not in (dict, collections.OrderedDict, collections.Counter):
            raise _bad(f"Can only {op} for dict, collections.OrderedDict, collections.Counter, "
                       f"but got {type(d).__name__}")
        return d

    def op_setitem(self):
        v = self.pop()
        k = self.pop()
        d = self._dict_target('SETITEM')
        d[self.key(d, k)] = v

    def op_setitems(self):
        items = self.pop_mark()
        d = self._dict_target('SETITEMS')
        if len(items) % 2:
            raise _bad("odd number of items for SETITEMS")
        key = self.key
        for i in range(0, len(items), 2):
            d[key(d, items[i])] = items[i + 1]

    def op_empty_set(self):
        self.stack.append(set())

    def op_additems(self):
        items = self.pop_mark()
        s = self.top()
        if type(s) is not set:
            raise _bad(f"Can only add items to sets, but got {type(s).__name__}")
        self.fill(s, items)

    def op_frozenset(self):
        fs = self.make_frozenset(self.pop_mark())     # pop_mark first: it switches the stack
        self.stack.append(fs)

    # memo
    def _put(self, i):
        if i < 0:
            raise _bad("negative PUT argument")
        self.memo[i] = self.top()

    def _get(self, i):
        try:
            self.stack.append(self.memo[i])
        except KeyError:
            raise _bad(f"Memo value not found at index {i}") from None

    def op_put(self):
        self._put(self._int(self.readline()))

    def op_binput(self):
        self._put(self.read(1)[0])

    def op_long_binput(self):
        self._put(struct.unpack('<I', self.read(4))[0])

    def op_memoize(self):
        self._put(len(self.memo))

    def op_get(self):
        self._get(self._int(self.readline()))

    def op_binget(self):
        self._get(self.read(1)[0])

    def op_long_binget(self):
        self._get(struct.unpack('<I', self.read(4))[0])

    # globals and calls
    def op_global(self):
        module = self.utf8(self.readline())
        name = self.utf8(self.readline())
        self.push_global(module, name)

    def op_stack_global(self):
        name = self.pop()
        module = self.pop()
        if type(module) is not str or type(name) is not str:
            raise _bad("STACK_GLOBAL requires str module and name")
        self.push_global(module, name)

    def push_global(self, module, name):
        module, name = _fix_global_name(module, name)
        obj = _safe_lookup(module, name, self.user)
        if obj is None:
            raise _bad(_unsafe_message(module, name))
        self.stack.append(obj)

    def op_reduce(self):
        args = self.pop()
        func = self.pop()
        if type(args) is not tuple:
            raise _bad(f"REDUCE arguments must be a tuple, but got {type(args).__name__}")
        h = _safe_calls().get(id(func))
        if h is not None and h[0] is func:
            self.stack.append(h[1](self, *args))
        elif id(func) in self.user_ids and callable(func):
            self.stack.append(func(*args))
        else:
            raise _bad(f"Trying to call reduce for unrecognized function {_name_of(func)}")

    def op_newobj(self):
        args = self.pop()
        cls = self.pop()
        self.newobj(cls, args, {})

    def op_newobj_ex(self):
        kwargs = self.pop()
        args = self.pop()
        cls = self.pop()
        self.newobj(cls, args, kwargs)

    def newobj(self, cls, args, kwargs):
        if type(args) is not tuple or type(kwargs) is not dict:
            raise _bad("NEWOBJ arguments must be a tuple (and a dict)")
        h = _safe_news().get(id(cls))
        if h is not None and h[0] is cls and not kwargs:
            obj = h[1](self, *args)
        elif id(cls) in self.user_ids and isinstance(cls, type):
            obj = cls.__new__(cls, *args, **kwargs)
        else:
            raise _bad("Can only create new object for nn.Parameter or classes allowlisted "
                       f"via `add_safe_globals` but got {_name_of(cls)}")
        self.stack.append(obj)

    def op_build(self):
        state = self.pop()
        inst = self.top()
        t = type(inst)
        self.charge(_state_len(state))
        if t is collections.OrderedDict or t is collections.Counter:
            _safe_set_state(inst, state)
        elif t is Tensor and id(inst) in self.shells:
            self.set_legacy(inst, state)
        elif id(t) in self.user_ids and id(inst) not in self.user_ids:
            setstate = getattr(inst, '__setstate__', None)
            if setstate is not None and getattr(t, '__setstate__', None) is not \
                    getattr(object, '__setstate__', None):
                setstate(state)
            else:
                slots = None
                if type(state) is tuple and len(state) == 2:
                    state, slots = state
                if state:
                    inst.__dict__.update(state)
                for k, v in (slots or {}).items():
                    if type(k) is not str or k.startswith('__'):
                        raise _bad(f"can't restore slot {_short(k)}")
                    setattr(inst, k, v)
        else:
            raise _bad("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                       f"`add_safe_globals`, but got {_name_of(t)}")

    def set_legacy(self, t, state):
        """BUILD of ``torch.Tensor()``: ``set_(storage, offset, size, stride)``, once."""
        del self.shells[id(t)]
        if type(state) is not tuple or len(state) != 4:
            raise _bad(f"a legacy tensor state must be (storage, offset, size, stride), but got "
                       f"{_short(state)}")
        st, dt = _split_storage(state[0])
        src = _make_tensor(st, dt, state[1], state[2], state[3], False)
        t._data, t._st = src._data, st

    def op_binpersid(self):
        pid = self.pop()
        if self.pl is None:
            raise _bad("A load persistent id instruction was encountered, but no "
                       "persistent_load function was specified.")
        self.stack.append(self.pl(pid))

    def new_tensor_shell(self, *args):
        if args:
            raise _bad("torch.Tensor can only be called with no arguments in a checkpoint "
                       f"(got {len(args)})")
        self.charge(_REBUILD_STEPS)
        t = _new_tensor(np.empty(0, np.float32))
        self.shells[id(t)] = t
        return t


def _make_dispatch():
    P = pickle
    m = {
        P.PROTO: 'proto', P.FRAME: 'frame', P.STOP: 'stop', P.MARK: 'mark', P.POP: 'pop',
        P.POP_MARK: 'pop_mark', P.DUP: 'dup', P.NONE: 'none', P.NEWTRUE: 'true',
        P.NEWFALSE: 'false', P.INT: 'int', P.LONG: 'long', P.BININT: 'binint',
        P.BININT1: 'binint1', P.BININT2: 'binint2', P.LONG1: 'long1', P.LONG4: 'long4',
        P.FLOAT: 'float', P.BINFLOAT: 'binfloat', P.STRING: 'string', P.BINSTRING: 'binstring',
        P.SHORT_BINSTRING: 'short_binstring', P.UNICODE: 'unicode', P.BINUNICODE: 'binunicode',
        P.SHORT_BINUNICODE: 'short_binunicode', P.BINUNICODE8: 'binunicode8',
        P.BINBYTES: 'binbytes', P.SHORT_BINBYTES: 'short_binbytes', P.BINBYTES8: 'binbytes8',
        P.BYTEARRAY8: 'bytearray8', P.EMPTY_TUPLE: 'empty_tuple', P.TUPLE: 'tuple',
        P.TUPLE1: 'tuple1', P.TUPLE2: 'tuple2', P.TUPLE3: 'tuple3', P.EMPTY_LIST: 'empty_list',
        P.LIST: 'list', P.APPEND: 'append', P.APPENDS: 'appends', P.EMPTY_DICT: 'empty_dict',
        P.DICT: 'dict', P.SETITEM: 'setitem', P.SETITEMS: 'setitems', P.EMPTY_SET: 'empty_set',
        P.ADDITEMS: 'additems', P.FROZENSET: 'frozenset', P.PUT: 'put', P.BINPUT: 'binput',
        P.LONG_BINPUT: 'long_binput', P.MEMOIZE: 'memoize', P.GET: 'get', P.BINGET: 'binget',
        P.LONG_BINGET: 'long_binget', P.GLOBAL: 'global', P.STACK_GLOBAL: 'stack_global',
        P.REDUCE: 'reduce', P.NEWOBJ: 'newobj', P.NEWOBJ_EX: 'newobj_ex', P.BUILD: 'build',
        P.BINPERSID: 'binpersid',
    }
    return {k[0]: getattr(_SafeUnpickler, 'op_' + v) for k, v in m.items()}


_DISPATCH = _make_dispatch()


def _name_of(obj):
    if isinstance(obj, type):
        return f"<class '{obj.__module__}.{obj.__qualname__}'>"
    if isinstance(obj, _StorageType):
        return repr(obj)
    n = getattr(type(obj), '__qualname__', '?')
    if callable(obj) and isinstance(getattr(obj, '__qualname__', None), str):
        return f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"
    return f"<{n} object>"


# -- the allow-listed callables, each with a handler that checks its arguments
def _need(args, lo, hi, what):
    if not lo <= len(args) <= hi:
        raise _bad(f"{what} takes {lo if lo == hi else f'{lo} to {hi}'} arguments in a "
                   f"checkpoint, but got {len(args)}")


def _items_of(u, x, what):
    if type(x) not in (list, tuple, set, frozenset):
        raise _bad(f"{what} needs a list, tuple or set, but got {_short(x)}")
    u.charge(len(x))
    return x


def _h_set(u, *args):
    _need(args, 0, 1, 'set')
    return u.fill(set(), _items_of(u, args[0], 'set')) if args else set()


def _h_frozenset(u, *args):
    _need(args, 0, 1, 'frozenset')
    return u.make_frozenset(_items_of(u, args[0], 'frozenset')) if args else frozenset()


_TEXT_CODECS = ('latin1', 'latin-1', 'iso-8859-1', 'iso8859-1', 'utf-8', 'utf8', 'ascii')


def _h_encode(u, *args):
    _need(args, 1, 2, '_codecs.encode')
    s = args[0]
    enc = args[1] if len(args) > 1 else 'utf-8'
    if type(s) is not str or type(enc) is not str or enc.lower() not in _TEXT_CODECS:
        raise _bad(f"_codecs.encode is only allowed on a str with a text encoding, but got "
                   f"({_short(s)}, {_short(enc)})")
    u.charge(len(s))
    try:
        return s.encode(enc)
    except UnicodeEncodeError as e:
        raise _bad(f"_codecs.encode: {str(e)[:120]}") from None


def _h_bytes(u, *args):
    if args:
        raise _bad("builtins.bytes takes no arguments in a checkpoint")
    return b''


def _h_bytearray(u, *args):
    _need(args, 0, 2, 'bytearray')
    if not args:
        return bytearray()
    if len(args) == 1 and type(args[0]) in (bytes, bytearray):
        u.charge(len(args[0]))
        return bytearray(args[0])
    if len(args) == 2:
        return bytearray(_h_encode(u, *args))
    raise _bad(f"bytearray needs bytes (or a str and its encoding) in a checkpoint, but got "
               f"{_short(args[0])}")


def _h_complex(u, *args):
    _need(args, 0, 2, 'complex')
    for a in args:
        if type(a) not in (int, float, bool):
            raise _bad(f"complex needs real numbers, but got {_short(a)}")
    try:
        return complex(*args)
    except OverflowError:
        raise _bad("complex: number too large") from None


def _h_slice(u, *args):
    _need(args, 1, 3, 'slice')
    for a in args:
        if a is not None and type(a) not in (int, float, bool, str):
            raise _bad(f"slice needs ints or None, but got {_short(a)}")
    return slice(*args)


def _h_range(u, *args):
    _need(args, 1, 3, 'range')
    for a in args:
        if type(a) is not int:
            raise _bad(f"range needs ints, but got {_short(a)}")
    try:
        r = range(*args)
        n = len(r)
    except (ValueError, OverflowError) as e:
        raise _bad(f"range: {e}") from None
    u.charge(n)      # a range stands for its items: bounded like a list of them
    return r


def _h_ordered_dict(u, *args):
    _need(args, 0, 1, 'OrderedDict')
    d = collections.OrderedDict()
    if args:
        _fill_dict(u, d, args[0], 'OrderedDict')
    return d


def _h_counter(u, *args):
    _need(args, 0, 1, 'Counter')
    d = collections.Counter()
    if args:
        _fill_dict(u, d, args[0], 'Counter')
    return d


def _fill_dict(u, d, src, what):
    if type(src) in (dict, collections.OrderedDict, collections.Counter):
        u.charge(len(src))
        for k, v in src.items():
            d[u.key(d, k)] = v
        return
    for kv in _items_of(u, src, what):
        if type(kv) not in (tuple, list) or len(kv) != 2:
            raise _bad(f"{what} needs (key, value) pairs, but got {_short(kv)}")
        d[u.key(d, kv[0])] = kv[1]


def _h_size(u, *args):
    _need(args, 0, 1, 'torch.Size')
    if not args:
        return Size()
    x = args[0]
    if type(x) not in (tuple, list, Size) or any(type(v) is not int for v in x):
        raise _bad(f"torch.Size needs a tuple of ints, but got {_short(x)}")
    u.charge(len(x))
    return Size(x)


def _h_device(u, *args):
    _need(args, 1, 2, 'torch.device')
    if type(args[0]) is not str or len(args[0]) > 64 or (
            len(args) == 2 and args[1] is not None and (type(args[1]) is not int or not 0 <= args[1] < 1 << 20)):
        raise _bad(f"torch.device needs a device string (and index), but got {_short(args)}")
    try:
        return _device_cls(*args)
    except (RuntimeError, ValueError, TypeError) as e:
        raise _bad(f"torch.device: {str(e)[:200]}") from None


def _h_layout(u, *args):
    _need(args, 1, 1, '_get_layout')
    return _get_layout(args[0])


def _h_parameter(u, *args):
    _need(args, 0, 2, 'Parameter')
    data = args[0] if args else None
    if data is None:
        data = _new_tensor(np.empty(0, np.float32))
    return _new_parameter(data, args[1] if len(args) > 1 else True)


def _h_rebuild_tensor(u, *args):
    u.charge(_REBUILD_STEPS)
    _need(args, 4, 4, '_rebuild_tensor')
    return _rebuild_tensor(*args)


def _h_rebuild_tensor_v2(u, *args):
    u.charge(_REBUILD_STEPS + (_state_len(args[6]) if len(args) == 7 else 0))
    _need(args, 6, 7, '_rebuild_tensor_v2')
    return _rebuild_tensor_v2(*args)


def _h_rebuild_tensor_v3(u, *args):
    u.charge(_REBUILD_STEPS + (_state_len(args[7]) if len(args) == 8 else 0))
    _need(args, 7, 8, '_rebuild_tensor_v3')
    return _rebuild_tensor_v3(*args)


def _h_rebuild_parameter(u, *args):
    u.charge(_REBUILD_STEPS)
    _need(args, 3, 3, '_rebuild_parameter')
    _check_hooks(args[2])
    return _new_parameter(args[0], args[1])


def _h_rebuild_parameter_with_state(u, *args):
    u.charge(_REBUILD_STEPS + (_state_len(args[3]) if len(args) == 4 else 0))
    _need(args, 4, 4, '_rebuild_parameter_with_state')
    _check_hooks(args[2])
    return _safe_set_state(_new_parameter(args[0], args[1]), args[3])


def _h_rebuild_from_type_v2(u, *args):
    u.charge(_REBUILD_STEPS + (_state_len(args[3]) if len(args) == 4 else 0))
    _need(args, 4, 4, '_rebuild_from_type_v2')
    func, new_type, fargs, state = args
    h = _TENSOR_REBUILDERS.get(id(func))
    if h is None or h[0] is not func:
        raise _bad(f"_rebuild_from_type_v2: {_name_of(func)} is not a tensor rebuild function")
    P = _parameter_cls()
    if not (new_type is Tensor or new_type is P or (
            isinstance(new_type, type) and issubclass(new_type, Tensor) and id(new_type) in u.user_ids)):
        raise _bad(f"_rebuild_from_type_v2: {_name_of(new_type)} is not Tensor, Parameter or an "
                   "allow-listed tensor subclass")
    if type(fargs) is not tuple:
        raise _bad(f"_rebuild_from_type_v2: arguments must be a tuple, but got {_short(fargs)}")
    ret = h[1](u, *fargs)
    if type(ret) is not new_type and not _quantized()._keeps(ret, new_type):
        if new_type is P:
            ret = _new_parameter(ret if type(ret) is Tensor else ret.detach(), ret.requires_grad)
        else:
            ret = ret.as_subclass(new_type)
    if new_type not in (Tensor, P):
        setstate = getattr(new_type, '__setstate__', None)
        if setstate is not None and setstate is not getattr(Tensor, '__setstate__', None):
            ret.__setstate__(state)
            return ret
    return _safe_set_state(ret, state)


_SAFE_CALLS = {}
_SAFE_NEWS = {}
_TENSOR_REBUILDERS = {}


def _safe_calls():
    """id(allowed callable) -> (callable, handler(unpickler, *args)) for REDUCE."""
    if not _SAFE_CALLS:
        reb = {_rebuild_tensor: _h_rebuild_tensor, _rebuild_tensor_v2: _h_rebuild_tensor_v2,
               _rebuild_tensor_v3: _h_rebuild_tensor_v3, _rebuild_parameter: _h_rebuild_parameter,
               _rebuild_parameter_with_state: _h_rebuild_parameter_with_state,
               _quantized()._rebuild_qtensor: _quantized()._h_rebuild_qtensor}
        for f, h in reb.items():
            _TENSOR_REBUILDERS[id(f)] = (f, h)
        table = dict(reb)
        table.update({
            _rebuild_from_type_v2: _h_rebuild_from_type_v2, _get_layout: _h_layout,
            set: _h_set, frozenset: _h_frozenset, complex: _h_complex, bytearray: _h_bytearray,
            bytes: _h_bytes, slice: _h_slice, range: _h_range, _codecs_encode: _h_encode,
            collections.OrderedDict: _h_ordered_dict, collections.Counter: _h_counter,
            Size: _h_size, _device_cls: _h_device, _parameter_cls(): _h_parameter,
        })
        news = {set: _h_set, frozenset: _h_frozenset, complex: _h_complex,
                collections.OrderedDict: _h_ordered_dict, collections.Counter: _h_counter,
                Size: _h_size, _device_cls: _h_device, _parameter_cls(): _h_parameter,
                Tensor: _SafeUnpickler.new_tensor_shell}
        for f, h in news.items():
            _SAFE_NEWS[id(f)] = (f, h)
        table[Tensor] = lambda u, *a: _bad_call(u, a)
        for f, h in table.items():
            _SAFE_CALLS[id(f)] = (f, h)
    return _SAFE_CALLS


def _bad_call(u, args):
    raise _bad("torch.Tensor can't be called in a checkpoint (it would allocate uninitialised "
               "memory); tensors are rebuilt from storages")


def _safe_news():
    _safe_calls()
    return _SAFE_NEWS


_codecs_encode = __import__('_codecs').encode


class _Unpickler(pickle.Unpickler):
    """The full unpickler of ``weights_only=False`` (it can run any code): maps torch's
    global names to ember's objects, every other global is imported as pickle does."""

    def __init__(self, file, persistent_load, **kw):
        super().__init__(file, **kw)
        self._pl = persistent_load

    def persistent_load(self, pid):
        return self._pl(pid)

    def find_class(self, module, name):
        module, name = _fix_global_name(module, name)
        full = f"{module}.{name}"
        obj = _torch_globals().get(full)
        if obj is not None:
            return obj
        root = module.split('.')[0]
        if root == 'torch':
            if full == 'torch.nn.parameter.Parameter':
                return _parameter_cls()
            emod = __package__ + module[5:]
            try:
                m = importlib.import_module(emod)
                obj = m
                for part in name.split('.'):
                    obj = getattr(obj, part)
                return obj
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"ember has no counterpart of the PyTorch global {full} (looked for "
                    f"{emod}.{name})") from None
        return super().find_class(module, name)


def _env_true(*names):
    return any(os.getenv(n, '0').lower() in ('1', 'y', 'yes', 'true') for n in names)


def _weights_only_choice(weights_only):
    """Applies TORCH_/EMBER_FORCE_WEIGHTS_ONLY_LOAD and ..._FORCE_NO_WEIGHTS_ONLY_LOAD."""
    not_set = weights_only is None
    if not_set:
        weights_only = True
    force = _env_true('TORCH_FORCE_WEIGHTS_ONLY_LOAD', 'EMBER_FORCE_WEIGHTS_ONLY_LOAD')
    force_no = _env_true('TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD', 'EMBER_FORCE_NO_WEIGHTS_ONLY_LOAD')
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        import warnings
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the "
                      "`weights_only` argument was not explicitly passed to `ember.load`, forcing "
                      "weights_only=False.", UserWarning, stacklevel=3)
        return False
    return builtins.bool(weights_only)


def _file_name(f):
    if _is_path(f):
        return repr(os.fspath(f))
    n = getattr(f, 'name', None)
    return repr(n) if isinstance(n, str) else f"<{type(f).__name__}>"


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, **pickle_load_args)

    Loads an object saved with :func:`ember.save` or ``torch.save`` from a file.

    Storages are read onto the CPU and then moved to the device they were saved from,
    unless :attr:`map_location` says otherwise.

    Args:
        f: a file name (``str`` or ``os.PathLike``) or a file-like object (with ``read``,
            ``readline``, ``tell`` and ``seek``).
        map_location: where to put storages: a device (``'cpu'``, ``ember.device('cpu')``),
            a dict remapping location tags (``{'cuda:0': 'cpu'}``), or a callable
            ``fn(storage, location)`` returning a storage, or None for the default.
        pickle_module: module used for unpickling (only with ``weights_only=False``).
        weights_only (bool): restrict unpickling to tensors, primitive types, containers and
            globals allowed by :func:`add_safe_globals` (default True). The environment
            variables ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` / ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``
            (or ``EMBER_...``) override the default as in PyTorch.
        mmap (bool): map the file instead of reading storages into memory (file names only;
            copy-on-write, like PyTorch's default).
        pickle_load_args: extra arguments for the unpickler, e.g. ``encoding='latin1'``
            (only with ``weights_only=False``).

    .. warning::
        With ``weights_only=False`` unpickling can run arbitrary code. Never load data from
        an untrusted source that way.

    NOTE: unlike PyTorch, ``weights_only=True`` runs an opcode interpreter of ember's own
    that never reaches a module, a builtin function or an arbitrary attribute: only
    allow-listed names resolve, each call goes through a handler that checks its arguments
    (sizes, strides and offsets must lie inside the storage's bytes), BUILD restores state
    only on OrderedDicts, legacy ``Tensor()`` shells and user allow-listed classes, and
    containers are bounded by the file's size. Memory follows the bytes present: a zip
    record or legacy storage that claims more than the file holds is refused before
    anything is allocated (PyTorch allocates first), and compressed records are inflated
    against that bound. Every refusal is a ``pickle.UnpicklingError`` (a broken file's
    error is also a ``RuntimeError``, as in PyTorch), and a load changes no process state.

    Bounds of a ``weights_only`` load, for a file of ``N`` bytes:

    * time: at most ``8 * N + 2**18`` interpreter steps (a step is one pickle opcode, one
      element a handler copies, one attribute restored, one hash of a dict key or set item,
      charged once more for each earlier key of its container with the same hash, so
      crafted collisions can't make it quadratic; a tensor rebuild or a storage counts 32),
      each under about a microsecond, plus reading each byte of the file once (records
      that overlap are refused) and inflating compressed records;
    * memory: the storages (at most ``N`` bytes, plus one negated / conjugated copy of a
      storage viewed with a ``neg``/``conj`` bit), what compressed records inflate to (at
      most ``16 * N + 16 MiB`` in all) and at most about 64 bytes per step, so at most
      about ``550 * N + 48 MiB`` in the worst case (a pickle of nothing but tiny objects);
      an ordinary checkpoint needs its storages' bytes plus the objects its pickle lists.

    A file that would exceed them is refused as soon as it does. Tuples and frozensets
    nest at most 100 deep. NOTE: unlike PyTorch, a ``neg``/``conj`` bit is applied to a
    copy of the storage (ember has no such lazy views), records compressed with methods
    other than deflate are refused up front (PyTorch refuses them when read), and a deflated
    ``data.pkl`` larger than these bounds allow is refused (PyTorch never writes one).

    A tensor's saved attributes go through an allow-list: public names that the tensor
    classes don't define are restored, names they define (``is_sparse``, ``layout``...) are
    refused with an ``AttributeError`` (also an ``UnpicklingError``) as PyTorch refuses
    them, and other private names (``_grad_dtype``...) are ignored. An exception raised by a
    ``map_location`` callable propagates unchanged.

    Example::

        >>> ember.load('tensors.pt')
        >>> ember.load('tensors.pt', map_location='cpu')
        >>> ember.load('tensors.pt', map_location=lambda storage, loc: storage)
        >>> ember.load(io.BytesIO(data), map_location={'cuda:1': 'cpu'})
    """
    weights_only = _weights_only_choice(weights_only)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            import warnings
            warnings.warn("pickle_load_args only works if `weights_only=False`.")
            pickle_load_args = {}
    pickle_load_args.setdefault('encoding', 'utf-8')
    restore = _restore_fn(map_location)
    name = _file_name(f)
    try:
        if _is_path(f):
            with open(f, 'rb') as fobj:
                return _load_file(fobj, name, restore, weights_only, pickle_load_args,
                                  os.fspath(f) if mmap else None)
        if mmap:
            raise ValueError("f must be a file path in order to use the mmap argument")
        return _load_file(f, name, restore, weights_only, pickle_load_args, None)
    except _UserError as e:
        user_error = e.exc
    raise user_error     # what the map_location callable raised, unchanged


def _load_file(fobj, name, restore, weights_only, kw, mmap_path):
    start = fobj.tell() if hasattr(fobj, 'tell') else 0
    head = fobj.read(512)
    fobj.seek(start)
    magic = head[:4]
    try:
        if magic == b'PK\x03\x04':
            return _load_zip(fobj, name, restore, weights_only, kw, mmap_path)
        if mmap_path is not None:
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({mmap_path!r}, _use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order to use mmap.")
        if not head:
            raise _CorruptCheckpoint(f"ember.load: {name} is empty (Ran out of input)")
        if head[257:262] == b'ustar':
            if weights_only:
                raise _CorruptCheckpoint(
                    f"ember.load: {name}: Cannot use ``weights_only=True`` with files saved in the "
                    "legacy .tar format.")
            raise _CorruptCheckpoint(f"ember.load: {name} is in PyTorch's legacy .tar format "
                                     "(before 0.4), which ember can't load")
        return _load_legacy(fobj, name, restore, weights_only, kw)
    except _CorruptCheckpoint:
        raise
    except pickle.UnpicklingError as e:
        if weights_only:
            raise _wo_error(e) from None
        raise


def _safe_unpickle(src, pool, budget, name):
    """Runs the safe unpickler; every failure is an ``UnpicklingError`` (a truncated pickle
    a ``_CorruptCheckpoint`` naming the file)."""
    try:
        return _SafeUnpickler(src, pool, budget).load()
    except _Truncated as e:
        raise _CorruptCheckpoint(f"ember.load: {name} is truncated or corrupt: {e}") from None
    except RecursionError:
        raise _bad("the pickle nests objects too deeply (comparing or hashing them exceeds "
                   "Python's recursion limit)") from None
    except (pickle.UnpicklingError, RuntimeError, MemoryError, _UserError):
        raise
    except Exception as e:    # a user allow-listed callable, or a bug: never an internal error
        raise _bad(f"{type(e).__name__}: {str(e)[:300]}") from e


def _full_unpickle(data_file, pool, kw, name):
    up = _Unpickler(data_file, pool, **kw)
    try:
        return up.load()
    except EOFError as e:
        raise _CorruptCheckpoint(f"ember.load: {name} is truncated or corrupt: {e or 'Ran out of input'}") from None


def _load_zip(fobj, name, restore, weights_only, kw, mmap_path):
    r = _Reader(fobj, name, mmap_path)
    if not r.has('data.pkl'):
        if r.has('constants.pkl'):
            raise RuntimeError(f"ember.load: {name} is a TorchScript archive, which ember can't load")
        raise _CorruptCheckpoint(f"ember.load: {name} is not a checkpoint (no data.pkl record)")
    swap = False
    if r.has('byteorder'):
        bo = r.read('byteorder', limit=16)
        if bo not in (b'little', b'big'):
            raise ValueError("Unknown endianness type: " + bo.decode(errors='replace'))
        swap = bo.decode() != sys.byteorder
    else:
        swap = sys.byteorder != 'little'
    pool = _StoragePool(lambda key, nbytes, dtype: r.read_storage(key, nbytes), restore, swap)
    data = r.read('data.pkl')
    with _load_scope():
        if weights_only:
            return _safe_unpickle(_BytesSource(data), pool, _step_budget(r.size), name)
        return _full_unpickle(io.BytesIO(data), pool, kw, name)


def _file_end(fobj):
    pos = fobj.tell()
    end = fobj.seek(0, 2)
    fobj.seek(pos)
    return end


def _load_legacy(fobj, name, restore, weights_only, kw):
    """Loads the pre-1.6 (non-zip) format written with ``_use_new_zipfile_serialization=False``.
    Storages follow the pickles in the file: each one the pickle asks for must fit in the
    bytes left in the file before its buffer is allocated."""
    end = _file_end(fobj)
    budget = _step_budget(end - fobj.tell())

    def source():
        return _Source(fobj, end - fobj.tell())

    def header(what):
        try:
            return _SafeUnpickler(source(), None, 1 << 16).load()
        except (pickle.UnpicklingError, ValueError, TypeError, struct.error) as e:
            raise _CorruptCheckpoint(
                f"ember.load: {name} is neither a zip checkpoint nor a legacy torch checkpoint "
                f"({what}: {str(e)[:200]})") from None
    magic = header('magic number')
    if type(magic) is not int or magic != _LEGACY_MAGIC:
        raise _CorruptCheckpoint(f"ember.load: {name}: invalid magic number; corrupt file?")
    proto = header('protocol version')
    if type(proto) is not int or proto != _LEGACY_PROTOCOL:
        raise _CorruptCheckpoint(f"ember.load: {name}: invalid protocol version")
    info = header('system info')
    swap = type(info) is dict and info.get('little_endian', True) is not (sys.byteorder == 'little')
    pending = {}
    claimed = [0]

    def fetch(key, nbytes, dtype):
        claimed[0] += nbytes + 8
        left = end - fobj.tell()
        if claimed[0] > left:
            raise _CorruptCheckpoint(
                f"ember.load: {name}: storage {key} claims {nbytes} bytes, more than the file "
                f"holds (the file is truncated or crafted)")
        buf = np.empty(nbytes, np.uint8)
        pending[key] = (buf, dtype)
        return buf

    cpu = []

    def restore_later(st, loc):   # data is read after the object: restore afterwards
        _device_cls(loc)          # a bad location fails now
        cpu.append((st, loc))
        return st

    pool = _StoragePool(fetch, restore_later, False)
    deferred = []
    with _load_scope(deferred):
        if weights_only:
            result = _safe_unpickle(source(), pool, budget, name)
        else:
            result = _full_unpickle(fobj, pool, kw, name)
    keys = _safe_unpickle(source(), None, budget, name)
    if type(keys) is not list:
        raise _CorruptCheckpoint(f"ember.load: {name}: malformed list of storage keys")
    done = set()
    for key in keys:
        try:
            key = _check_key(key, 'storage key')
        except pickle.UnpicklingError as e:
            raise _CorruptCheckpoint(f"ember.load: {name}: {e}") from None
        if key not in pending or key in done:
            raise _CorruptCheckpoint(f"ember.load: {name}: unexpected storage key {key!r}")
        done.add(key)
        head = fobj.read(8)
        if len(head) != 8:
            raise _CorruptCheckpoint(f"ember.load: {name} is truncated (storage {key})")
        numel = struct.unpack('<q', head)[0]
        buf, dtype = pending[key]
        if numel < 0 or numel * dtype.itemsize != buf.nbytes:
            raise _CorruptCheckpoint(f"ember.load: {name}: storage {key} size mismatch")
        _readinto(fobj, buf, f"ember.load: failed reading storage {key} of {name}")
        if swap and dtype.itemsize > 1:
            buf.view(dtype._np).byteswap(inplace=True)
    missing = set(pending) - done
    if missing:
        raise _CorruptCheckpoint(f"ember.load: {name}: storage {sorted(missing)[0]!r} has no data "
                                 "in the file")
    for item in deferred:     # neg/conj copies of storages read just now, then checks
        if callable(item):
            item()
        else:
            vals, out, conj, neg = item
            out[...] = _flag_values(np, vals, conj, neg)
    for st, loc in cpu:
        moved = restore(st, loc)
        if moved is not st:
            raise NotImplementedError("ember.load: map_location to a non-CPU device is not "
                                      "supported for legacy (non-zip) checkpoints; load with "
                                      "map_location='cpu' and move the tensors")
    return result


def get_unsafe_globals_in_checkpoint(f):
    """The globals in the checkpoint ``f`` that ``weights_only`` load would refuse.

    Every global the pickle names is listed unless it is allow-listed (by default or with
    :func:`add_safe_globals`), including those named through ``STACK_GLOBAL`` from memoized
    strings; a global whose name is computed while unpickling is listed with ``?`` for the
    unknown part. The file is only parsed, never unpickled.

    Args:
        f: a file name or file-like object of a checkpoint (zip, or the legacy format).

    Example::

        >>> ember.serialization.get_unsafe_globals_in_checkpoint('ckpt.pt')
        ['__main__.MyConfig']

    NOTE: unlike PyTorch, legacy (non-zip) checkpoints are scanned too.
    """
    name = _file_name(f)
    ctx = open(f, 'rb') if _is_path(f) else contextlib.nullcontext(f)
    found = []
    with ctx as fobj:
        start = fobj.tell()
        magic = fobj.read(4)
        fobj.seek(start)
        budget = [_step_budget(_file_end(fobj) - start)]
        if magic == b'PK\x03\x04':
            data = _Reader(fobj, name).read('data.pkl')
            _globals_in_pickle(io.BytesIO(data), found, budget)
        else:
            bf = _BoundedFile(fobj, _file_end(fobj))
            for _ in range(4):        # magic, protocol, system info, the object
                if not _globals_in_pickle(bf, found, budget):
                    break
    user = _user_allowed()
    out = []
    for mod, nm in found:
        if mod is not None and nm is not None:
            mod, nm = _fix_global_name(mod, nm)
            if _safe_lookup(mod, nm, user) is not None:
                continue
        full = f"{'?' if mod is None else mod}.{'?' if nm is None else nm}"
        if full not in out:
            out.append(full)
    return out
