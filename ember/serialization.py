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
from ._device import device as _device_cls
from ._storage import UntypedStorage, TypedStorage, _ptr
from ._tensor import Tensor, Size, _new_tensor

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
}


class _StorageType:
    """Stands for a torch storage class (``torch.FloatStorage``, ``torch.storage.UntypedStorage``)
    in a pickle: on save it is written as that global, on load that global becomes it."""
    __slots__ = ('module', 'name', 'dtype')

    def __init__(self, module, name, dtype):
        self.module, self.name, self.dtype = module, name, dtype

    def __repr__(self):
        return f"<storage type {self.module}.{self.name}>"


_STORAGE_TYPES = {n: _StorageType('torch', n, D._BY_NAME[d]) for d, n in _STORAGE_NAMES.items()}
_UNTYPED_STORAGE_TYPE = _StorageType('torch.storage', 'UntypedStorage', None)
_STORAGE_TYPE_OF = {D._BY_NAME[d]: _STORAGE_TYPES[n] for d, n in _STORAGE_NAMES.items()}


def _parameter_cls():
    from .nn.parameter import Parameter
    return Parameter


def _parameter_cls_if_loaded():
    m = sys.modules.get(__package__ + '.nn.parameter')
    return None if m is None else m.Parameter


# ---------------------------------------------------------------------------- rebuild functions
def _view_of(src, dtype, offset, size, stride):
    """An array of ``dtype`` viewing the 1-D array ``src`` (a storage's memory) at element
    ``offset`` with ``size`` and ``stride`` (in elements)."""
    npdt = dtype._np
    isz = npdt.itemsize
    size = tuple(builtins.int(s) for s in size)
    stride = tuple(builtins.int(s) * isz for s in stride)
    nbytes = src.nbytes
    off = builtins.int(offset) * isz
    if all(size):
        need = off + isz + sum((n - 1) * s for n, s in zip(size, stride))
        if off < 0 or min(stride, default=0) < 0 or need > nbytes:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {[s // isz for s in stride]}, storage "
                f"offset {offset}, and itemsize {isz} requiring a storage size of {need} are out "
                f"of bounds for storage of size {nbytes}")
    else:
        off = min(off, nbytes)
    if type(src) is np.ndarray:
        return np.ndarray(size, npdt, buffer=src, offset=off, strides=stride)
    xp = importlib.import_module('cupy')
    return xp.ndarray(size, npdt, memptr=src.data + off, strides=stride)


def _make_tensor(untyped, dtype, offset, size, stride, requires_grad):
    t = _new_tensor(_view_of(untyped._src, dtype, offset, size, stride))
    t._st = untyped
    if requires_grad:
        t._rg = True
    return t


def _split_storage(storage):
    if isinstance(storage, TypedStorage):
        return storage._untyped, storage.dtype
    if isinstance(storage, UntypedStorage):
        return storage, D.uint8
    raise TypeError(f"expected a storage, got {type(storage).__name__}")


def _rebuild_tensor(storage, storage_offset, size, stride):
    """Rebuilds a tensor from a (typed) storage, like ``torch._utils._rebuild_tensor``."""
    st, dt = _split_storage(storage)
    return _make_tensor(st, dt, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """Rebuilds a tensor from a typed storage, like ``torch._utils._rebuild_tensor_v2``."""
    st, dt = _split_storage(storage)
    return _apply_metadata(_make_tensor(st, dt, storage_offset, size, stride, requires_grad), metadata)


def _apply_metadata(t, metadata):
    """PyTorch's lazy conjugate / negative bits (``{'conj': True}``, ``{'neg': True}``): ember has
    no such views, so the values are materialised (a copy, no longer sharing the storage)."""
    if not metadata:
        return t
    a = t._data
    xp = np if type(a) is np.ndarray else importlib.import_module('cupy')
    if metadata.get('conj'):
        a = xp.conj(a)
    if metadata.get('neg'):
        a = xp.negative(a)
    if a is t._data:
        return t
    out = _new_tensor(xp.ascontiguousarray(a))
    out._rg = t._rg
    return out


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """Rebuilds a tensor of ``dtype`` from an untyped storage (``_rebuild_tensor_v3``)."""
    st, _ = _split_storage(storage)
    return _apply_metadata(_make_tensor(st, dtype, storage_offset, size, stride, requires_grad), metadata)


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
    return _parameter_cls()(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """Rebuilds an ``nn.Parameter`` with extra attributes (``_rebuild_parameter_with_state``)."""
    return _set_obj_state(_parameter_cls()(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """Rebuilds a tensor subclass or a tensor with attributes (``torch._tensor._rebuild_from_type_v2``)."""
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    setstate = getattr(type(ret), '__setstate__', None)
    if setstate is not None and setstate is not getattr(Tensor, '__setstate__', None):
        ret.__setstate__(state)
    else:
        _set_obj_state(ret, state)
    return ret


def _get_layout(name):
    """The layout named ``name`` ('torch.strided', ...)."""
    ember = sys.modules[__package__]
    return getattr(ember, name.rpartition('.')[2], name)


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
        xp = np if type(a) is np.ndarray else importlib.import_module('cupy')
        c = xp.ascontiguousarray(a).reshape(-1)
        st = UntypedStorage(c)
        return st, dt, 0, a.shape, _contig_strides(a.shape)
    return st, dt, byte_off // isz, a.shape, tuple(s // isz for s in a.strides)


def _contig_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


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
    if type(b) is not np.ndarray:
        b = b.get()
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
    out = {}
    for g in _user_safe_globals:
        if isinstance(g, tuple):
            obj, name = g
            out[name] = obj
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
    return out


_BUILTIN_SAFE = {
    'collections.OrderedDict': collections.OrderedDict,
    'collections.Counter': collections.Counter,
    'builtins.set': set, 'builtins.frozenset': frozenset, 'builtins.complex': complex,
    'builtins.bytearray': bytearray, 'builtins.slice': slice, 'builtins.range': range,
    '_codecs.encode': __import__('_codecs').encode,
}


def _safe_lookup(module, name):
    """The allowed object for global ``module.name`` in weights-only load, or None."""
    full = f"{module}.{name}"
    obj = _BUILTIN_SAFE.get(full)
    if obj is not None:
        return obj
    obj = _torch_globals().get(full)
    if obj is not None:
        return obj
    if full == 'torch.nn.parameter.Parameter':
        return _parameter_cls()
    if _user_safe_globals:
        user = _user_allowed()
        obj = user.get(full)
        if obj is None and module.split('.')[0] == 'torch':
            obj = user.get('ember' + full[5:])
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
    return pickle.UnpicklingError(f"{_WO_HINT}\n\nWeightsUnpickler error: {e}")


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
        return NotImplemented

    def _reduce_tensor(self, obj):
        plain = type(obj) is _AsPlain
        t = obj.t if plain else obj
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
            return super().save_global(obj, name)
        module, name = mn
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode('utf-8'))
        self.memoize(obj)


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
    ``.<name>.<pid>-<host>.<random>.tmp`` in the same folder and then renames it over ``f``,
    so an error or crash during ``save`` never damages an existing checkpoint. A temporary
    file left by a killed process is removed by the next ``save`` to the same name. The
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
        _clean_stale_tmps(folder, base)
        tmp = _tmp_name(folder, base)
        try:
            with open(tmp, 'xb') as fobj:
                write(fobj, archive)
            try:
                mode = os.stat(path).st_mode & 0o7777
            except OSError:
                mode = None
            if mode is not None:
                os.chmod(tmp, mode)
            old = _hold_old(path) if mode is not None else None
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
            r = map_location(st, loc)
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


class _Reader:
    """Reads the records of a torch zip checkpoint straight into arrays."""

    def __init__(self, fobj, name, mmap_path=None):
        self.f = fobj
        self.name = name
        try:
            self.zf = zipfile.ZipFile(fobj)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            raise _CorruptCheckpoint(
                f"ember.load: failed reading zip archive {name}: failed finding central directory "
                f"(the file is truncated or is not a checkpoint): {e}") from None
        infos = self.zf.infolist()
        if not infos:
            raise _CorruptCheckpoint(f"ember.load: zip archive {name} is empty")
        self.prefix = infos[0].filename.split('/')[0]
        self.infos = {i.filename: i for i in infos}
        self.mmap = None
        if mmap_path is not None:
            self.mmap = np.memmap(mmap_path, dtype=np.uint8, mode='c')

    def has(self, rec):
        return f"{self.prefix}/{rec}" in self.infos

    def read(self, rec):
        try:
            return self.zf.read(f"{self.prefix}/{rec}")
        except KeyError:
            raise _CorruptCheckpoint(f"ember.load: record {rec} not found in {self.name}") from None
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
            raise _CorruptCheckpoint(f"ember.load: failed reading record {rec} of {self.name}: {e}") from None

    def read_storage(self, key, nbytes):
        rec = f"data/{key}"
        info = self.infos.get(f"{self.prefix}/{rec}")
        if info is None:
            raise _CorruptCheckpoint(f"ember.load: record {rec} not found in {self.name}")
        if info.file_size < nbytes:
            raise _CorruptCheckpoint(f"ember.load: record {rec} of {self.name} has {info.file_size} "
                                     f"bytes, expected {nbytes}")
        if info.compress_type != zipfile.ZIP_STORED:
            return np.frombuffer(bytearray(self.read(rec)[:nbytes]), np.uint8)
        f = self.f
        f.seek(info.header_offset)
        h = f.read(30)
        if len(h) != 30 or h[:4] != b'PK\x03\x04':
            raise _CorruptCheckpoint(f"ember.load: failed reading zip archive {self.name}: bad local "
                                     f"header for record {rec}")
        nl, el = struct.unpack('<HH', h[26:30])
        start = info.header_offset + 30 + nl + el
        if self.mmap is not None:
            if start + nbytes > self.mmap.size:
                raise _CorruptCheckpoint(f"ember.load: {self.name} is truncated (record {rec})")
            return self.mmap[start:start + nbytes].view(np.ndarray)
        buf = np.empty(nbytes, np.uint8)
        f.seek(start)
        _readinto(f, buf, f"ember.load: failed reading record {rec} of {self.name}")
        if nbytes == info.file_size and zlib.crc32(buf) != info.CRC:
            raise _CorruptCheckpoint(f"ember.load: failed reading zip archive {self.name}: CRC-32 "
                                     f"check failed for record {rec} (the file is corrupt)")
        return buf


class _StoragePool:
    """persistent_load for both formats: ('storage', type, key, location, numel[, view])."""

    def __init__(self, fetch, restore, byteswap):
        self.fetch = fetch          # (key, nbytes, dtype) -> uint8 array
        self.restore = restore
        self.byteswap = byteswap
        self.loaded = {}

    def __call__(self, pid):
        if not isinstance(pid, tuple) or not pid or _as_loc(pid[0]) != 'storage':
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {pid!r}")
        if len(pid) not in (5, 6):
            raise pickle.UnpicklingError(f"malformed storage persistent id {pid!r}")
        sty, key, location, numel = pid[1:5]
        if not isinstance(sty, _StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {sty!r}")
        key = _as_loc(key)
        dtype = sty.dtype or D.uint8
        view = pid[5] if len(pid) == 6 else None
        ts = self.loaded.get(key)
        if ts is None:
            if not isinstance(numel, builtins.int) or numel < 0:
                raise pickle.UnpicklingError(f"malformed storage size {numel!r}")
            raw = self.fetch(key, numel * dtype.itemsize, dtype)
            arr = raw.view(dtype._np) if raw.nbytes % dtype.itemsize == 0 else raw
            if self.byteswap and dtype.itemsize > 1:
                arr.byteswap(inplace=True)
            st = self.restore(UntypedStorage(arr), _as_loc(location))
            ts = self.loaded[key] = TypedStorage(st, dtype)
        if view is not None:
            vkey, off, vsize = view
            vkey = _as_loc(vkey)
            vs = self.loaded.get(vkey)
            if vs is None:
                src = ts._untyped._src
                isz = dtype.itemsize
                sub = src.reshape(-1).view(np.uint8)[off * isz:(off + vsize) * isz].view(dtype._np)
                vs = self.loaded[vkey] = TypedStorage(UntypedStorage(sub), dtype)
            return vs
        return ts


_MODULE_RENAMES = {'torch.tensor': 'torch._tensor'}


class _Unpickler(pickle.Unpickler):
    """Unpickler that maps torch's global names to ember. With ``weights_only`` every other
    global is refused unless allow-listed."""

    def __init__(self, file, persistent_load, weights_only, **kw):
        super().__init__(file, **kw)
        self._pl = persistent_load
        self._wo = weights_only

    def persistent_load(self, pid):
        return self._pl(pid)

    def find_class(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:      # Python 2 names (protocol 2)
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        module = _MODULE_RENAMES.get(module, module)
        if self._wo:
            obj = _safe_lookup(module, name)
            if obj is None:
                raise pickle.UnpicklingError(_unsafe_message(module, name))
            return obj
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
    if _is_path(f):
        with open(f, 'rb') as fobj:
            return _load_file(fobj, name, restore, weights_only, pickle_load_args,
                              os.fspath(f) if mmap else None)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    return _load_file(f, name, restore, weights_only, pickle_load_args, None)


def _load_file(fobj, name, restore, weights_only, kw, mmap_path):
    start = fobj.tell() if hasattr(fobj, 'tell') else 0
    magic = fobj.read(4)
    fobj.seek(start)
    try:
        if magic == b'PK\x03\x04':
            return _load_zip(fobj, name, restore, weights_only, kw, mmap_path)
        if mmap_path is not None:
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({mmap_path!r}, _use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order to use mmap.")
        if not magic:
            raise _CorruptCheckpoint(f"ember.load: {name} is empty (Ran out of input)")
        return _load_legacy(fobj, name, restore, weights_only, kw)
    except _CorruptCheckpoint:
        raise
    except pickle.UnpicklingError as e:
        if weights_only:
            raise _wo_error(e) from None
        raise


def _unpickle(data_file, pool, weights_only, kw, name):
    up = _Unpickler(data_file, pool, weights_only, **kw)
    try:
        return up.load()
    except (EOFError, ) as e:
        raise _CorruptCheckpoint(f"ember.load: {name} is truncated or corrupt: {e or 'Ran out of input'}") from None


def _load_zip(fobj, name, restore, weights_only, kw, mmap_path):
    r = _Reader(fobj, name, mmap_path)
    if not r.has('data.pkl'):
        if r.has('constants.pkl'):
            raise RuntimeError(f"ember.load: {name} is a TorchScript archive, which ember can't load")
        raise _CorruptCheckpoint(f"ember.load: {name} is not a checkpoint (no data.pkl record)")
    swap = False
    if r.has('byteorder'):
        bo = r.read('byteorder')
        if bo not in (b'little', b'big'):
            raise ValueError("Unknown endianness type: " + bo.decode(errors='replace'))
        swap = bo.decode() != sys.byteorder
    else:
        swap = sys.byteorder != 'little'
    pool = _StoragePool(lambda key, nbytes, dtype: r.read_storage(key, nbytes), restore, swap)
    data = r.read('data.pkl')
    return _unpickle(io.BytesIO(data), pool, weights_only, kw, name)


def _load_legacy(fobj, name, restore, weights_only, kw):
    """Loads the pre-1.6 (non-zip) format written with ``_use_new_zipfile_serialization=False``."""
    def header(what):
        try:
            return _Unpickler(fobj, None, True, encoding='utf-8').load()
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError) as e:
            raise _CorruptCheckpoint(
                f"ember.load: {name} is neither a zip checkpoint nor a legacy torch checkpoint "
                f"({what}: {e})") from None
    if header('magic number') != _LEGACY_MAGIC:
        raise _CorruptCheckpoint(f"ember.load: {name}: invalid magic number; corrupt file?")
    if header('protocol version') != _LEGACY_PROTOCOL:
        raise _CorruptCheckpoint(f"ember.load: {name}: invalid protocol version")
    info = header('system info')
    swap = isinstance(info, dict) and info.get('little_endian', True) != (sys.byteorder == 'little')
    pending = {}

    def fetch(key, nbytes, dtype):
        buf = np.empty(nbytes, np.uint8)
        pending[key] = (buf, dtype)
        return buf

    cpu = []

    def restore_later(st, loc):   # data is read after the object: restore afterwards
        cpu.append((st, loc))
        return st

    pool = _StoragePool(fetch, restore_later, False)
    result = _unpickle(fobj, pool, weights_only, kw, name)
    keys = _unpickle(fobj, None, True, {'encoding': 'utf-8'}, name)
    for key in keys:
        key = _as_loc(key)
        head = fobj.read(8)
        if len(head) != 8:
            raise _CorruptCheckpoint(f"ember.load: {name} is truncated (storage {key})")
        numel = struct.unpack('<q', head)[0]
        buf, dtype = pending[key]
        if numel * dtype.itemsize != buf.nbytes:
            raise _CorruptCheckpoint(f"ember.load: {name}: storage {key} size mismatch")
        _readinto(fobj, buf, f"ember.load: failed reading storage {key} of {name}")
        if swap and dtype.itemsize > 1:
            buf.view(dtype._np).byteswap(inplace=True)
    for st, loc in cpu:
        moved = restore(st, loc)
        if moved is not st:
            raise NotImplementedError("ember.load: map_location to a non-CPU device is not "
                                      "supported for legacy (non-zip) checkpoints; load with "
                                      "map_location='cpu' and move the tensors")
    return result


def get_unsafe_globals_in_checkpoint(f):
    """The globals in the checkpoint ``f`` that ``weights_only`` load would refuse.

    Args:
        f: a file name or file-like object of a zip checkpoint.

    Example::

        >>> ember.serialization.get_unsafe_globals_in_checkpoint('ckpt.pt')
        ['__main__.MyConfig']
    """
    import pickletools
    name = _file_name(f)
    ctx = open(f, 'rb') if _is_path(f) else contextlib.nullcontext(f)
    with ctx as fobj:
        data = _Reader(fobj, name).read('data.pkl')
    out = []
    strings = []
    for op, arg, _ in pickletools.genops(data):
        if op.name in ('GLOBAL', 'INST'):
            mod, _, nm = arg.partition(' ')
        elif op.name == 'STACK_GLOBAL' and len(strings) >= 2:
            mod, nm = strings[-2], strings[-1]
        else:
            if isinstance(arg, str):
                strings.append(arg)
            continue
        if _safe_lookup(mod, nm) is None and f"{mod}.{nm}" not in out:
            out.append(f"{mod}.{nm}")
    return out
