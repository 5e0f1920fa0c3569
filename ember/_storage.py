"""Storage: the memory block that tensors view. Several tensors may share one."""
import operator as _operator
import weakref

import numpy as np

from ._backend import array_module

_weakref = weakref.ref

__all__ = ['UntypedStorage', 'TypedStorage']


# PyTorch's deterministic mode fills memory that nothing has written yet (``empty``,
# ``empty_like``, ``empty_strided``, what ``resize_`` adds) with NaN, or the integer maximum,
# while ``torch.utils.deterministic.fill_uninitialized_memory`` is True (its default).
# ``ember.use_deterministic_algorithms`` and ``ember.utils.deterministic`` keep these set.
fill_memory_flag = True      # utils.deterministic.fill_uninitialized_memory
fill_uninitialized = False   # deterministic mode on and the flag set: the factories read it


def _sync_fill(deterministic):
    global fill_uninitialized
    fill_uninitialized = bool(deterministic and fill_memory_flag)


def uninit_fill(arr):
    """Fill array ``arr`` (memory nothing has written) as PyTorch's deterministic mode does:
    NaN for floating types, NaN + 0j for complex, the maximum for integers, True for bool.
    Returns ``arr``."""
    k = arr.dtype.kind
    if k == 'V' and arr.dtype.names:   # the raw-byte dtypes (bits8, float4_e2m1fn_x2...)
        from . import _dtype
        raise NotImplementedError('"fill_empty_deterministic_" not implemented for '
                                  f"'{_dtype._scalar_name(_dtype._NP2DT[arr.dtype])}'")
    if not arr.size:
        return arr
    if k == 'b':
        arr[...] = True
    elif k in 'iu':
        arr[...] = np.iinfo(arr.dtype).max
    elif k == 'c':
        arr[...] = complex(float('nan'), 0.0)
    else:
        arr[...] = float('nan')     # float16/32/64 and ml_dtypes' bfloat16 / float8
    return arr


def _ptr(arr):
    return arr.__array_interface__['data'][0] if isinstance(arr, np.ndarray) else arr.data.ptr


def _extent(a):
    """``(lo, hi)``: the bytes array ``a`` reaches, from ``lo`` to ``hi`` (exclusive) relative
    to the address of its first element (``lo`` < 0 only with negative strides)."""
    if not a.size:
        return 0, 0
    lo = hi = 0
    for n, st in zip(a.shape, a.strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi + a.itemsize


class UntypedStorage:
    """A contiguous block of bytes shared by the tensors that view it, plus their
    version counter (bumped by every in-place op).

    Example::

        >>> x = ember.zeros(4)
        >>> x.view(2, 2).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        True
    """
    __slots__ = ('_src', '_version', '_views', '__weakref__')

    def __init__(self, src=None, size=None):
        if src is None:
            src = np.zeros(int(size or 0), dtype=np.uint8)
        self._src = src
        self._version = 0
        self._views = None   # weakrefs to views made while their base needed no grad

    def _track_view(self, v):
        """Remember view ``v`` so that it requires grad once its base does (autograd)."""
        vs = self._views
        if vs is None:
            vs = self._views = []
        vs.append(_weakref(v))
        n = len(vs)
        if n >= 16 and not n & (n - 1):   # drop dead references now and then
            vs[:] = [r for r in vs if r() is not None]

    def _views_of(self, base):
        """Take the live tracked views whose base is ``base`` (others stay tracked)."""
        vs = self._views
        if not vs:
            return []
        mine, keep = [], []
        for r in vs:
            v = r()
            if v is not None:
                (mine if v._base is base else keep).append(v if v._base is base else r)
        self._views = keep or None
        return mine

    def _flat(self):
        """The storage as a 1-D array of its creating array's dtype, from its first byte.

        Its length is the span of bytes the creating array reaches (not its element count:
        an expanded array with zero strides spans less memory than it has elements)."""
        s = self._src
        if s.flags.c_contiguous:
            return s.reshape(-1)
        lo, hi = _extent(s)
        isz = s.itemsize
        if lo:   # negative strides: start at the element with the lowest address
            s = s[tuple(slice(n - 1, n) if st < 0 else slice(0, 1)
                        for n, st in zip(s.shape, s.strides))]
        return array_module(s).lib.stride_tricks.as_strided(s, ((hi - lo) // isz,), (isz,))

    def _bytes(self):
        return self._flat().view(np.uint8)

    def data_ptr(self):
        """Address of the first byte."""
        s = self._src
        if s.flags.c_contiguous:
            return _ptr(s)
        return _ptr(s) + _extent(s)[0]

    def nbytes(self):
        """Size in bytes."""
        s = self._src
        if s.flags.c_contiguous:
            return s.nbytes
        lo, hi = _extent(s)
        return hi - lo

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def device(self):
        from ._backend import device_of
        return device_of(self._src)

    def tolist(self):
        return self._bytes().tolist()

    def __getitem__(self, i):
        return self._bytes()[i].item() if isinstance(i, int) else self._bytes()[i].tolist()

    def __setitem__(self, i, v):
        self._bytes()[i] = v
        self._version += 1

    def fill_(self, value):
        self._bytes()[...] = value
        self._version += 1
        return self

    def copy_(self, other):
        self._bytes()[...] = other._bytes()
        self._version += 1
        return self

    def clone(self):
        return UntypedStorage(self._bytes().copy())

    def __repr__(self):
        b = self._bytes()
        body = '\n'.join(' ' + str(int(v)) for v in b.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device={self.device}) of size {b.size}]"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def untyped(self):
        """This storage itself (it is already untyped), as ``torch.UntypedStorage.untyped``."""
        return self

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """A storage of ``nbytes`` bytes read from the file ``filename``. With
        ``shared=True`` the storage maps the file (created or grown to ``nbytes`` when
        needed): writes go to the file. Otherwise the file must hold ``nbytes`` bytes, which
        are copied.

        NOTE: unlike PyTorch, a non-shared storage is a copy of the bytes, not a private
        mapping of the file.

        Args:
            filename (str): the file.
            shared (bool): map the file (share memory with it).
            nbytes (int): number of bytes.

        Example::

            >>> open('/tmp/s.bin', 'wb').write(bytes([1, 2, 3]))
            3
            >>> ember.UntypedStorage.from_file('/tmp/s.bin', False, 2).tolist()
            [1, 2]
        """
        import os
        nbytes = _operator.index(nbytes)
        if nbytes > _I64_MAX:
            raise OverflowError("Python int too large to convert to C ssize_t")
        if nbytes < 0:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot "
                               "allocate memory (12)")
        have = os.path.getsize(filename) if os.path.exists(filename) else None
        if shared:
            if have is None or have < nbytes:
                with open(filename, 'ab') as f:
                    f.truncate(nbytes)
            arr = np.memmap(filename, np.uint8, mode='r+', shape=(nbytes,)).view(np.ndarray) \
                if nbytes else np.empty((0,), np.uint8)
        else:
            if have is None:
                raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No "
                                   "such file or directory (2)")
            if have < nbytes:
                raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the "
                                   f"required mapping size <{nbytes}>")
            arr = np.fromfile(filename, np.uint8, count=nbytes)
        return cls(arr)


class TypedStorage:
    """A typed view on an :class:`UntypedStorage` (what ``Tensor.storage()`` returns).

    NOTE: unlike PyTorch this class exists for compatibility only; it does not warn.

    Args:
        untyped (UntypedStorage): the bytes.
        dtype (ember.dtype): the element type they are read as.

    Example::

        >>> s = ember.tensor([1., 2.]).storage()
        >>> s.dtype, s.size(), s.tolist()
        (torch.float32, 2, [1.0, 2.0])
    """
    __slots__ = ('_untyped', 'dtype', '__weakref__')

    def __init__(self, untyped, dtype):
        self._untyped = untyped
        self.dtype = dtype

    def untyped(self):
        return self._untyped

    def _arr(self):
        return self._untyped._bytes().view(self.dtype._np)

    def data_ptr(self):
        return self._untyped.data_ptr()

    def size(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    @property
    def device(self):
        return self._untyped.device

    def tolist(self):
        return self._arr().tolist()

    def __getitem__(self, i):
        return self._arr()[i].item()

    def __setitem__(self, i, v):
        self._arr()[i] = v
        self._untyped._version += 1

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        body = '\n'.join(' ' + str(v) for v in self.tolist())
        return f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"

    def __eq__(self, other):
        return isinstance(other, TypedStorage) and self._untyped is other._untyped and self.dtype is other.dtype

    __hash__ = object.__hash__


# ------------------------------------------------------------ checked views of a storage
# Every way of making a tensor view memory from geometry that ember did not compute itself
# (as_strided, set_, resize_, Tensor.__setstate__, shared-memory rebuilds, DLPack imports)
# goes through check_view and then view_of: the largest byte a view reaches must lie inside
# its storage. Views ember derives from an array it holds (view, slicing, transpose, expand,
# unfold...) are inside by construction and skip this.
_I64_MAX = (1 << 63) - 1
_U64 = 1 << 64


def _lst(v):
    return '[' + ', '.join(str(x) for x in v) + ']'


def numel_overflows(size):
    """PyTorch's ``numel`` check: the sizes' product, each read as an unsigned 64-bit int,
    overflows 64 bits or exceeds the int64 range (a negative size does, unless a later
    size is 0)."""
    p = 1
    over = False
    for n in size:
        p *= n % _U64
        if p >= _U64:
            over = True
            p %= _U64
    return over or p > _I64_MAX


def check_numel(size):
    """PyTorch's error for a shape whose element count overflows (:func:`numel_overflows`);
    then, unlike PyTorch (which makes a tensor of shape ``[-2, 0]``), any negative size."""
    if numel_overflows(size):
        raise RuntimeError("numel: integer multiplication overflow")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{_lst(size)}")


def needed_bytes(size, stride, offset, itemsize):
    """Bytes a storage needs for a view (``offset``, ``size`` and ``stride`` in elements) as
    PyTorch counts them: 0 when a size is 0 (looking at the dims in order), None when the
    count overflows int64 (each value read as an unsigned 64-bit int, so a negative stride
    or size overflows unless it is multiplied by 0)."""
    need = offset % _U64 + 1
    for n, st in zip(size, stride):
        if n == 0:
            return 0
        need += (st % _U64) * ((n - 1) % _U64)
    need *= itemsize
    return None if need > _I64_MAX else need


# entry points whose views may have negative strides (memory shared with a process or
# another library as it was laid out there): their extent is counted with signs
_SIGNED_STRIDES = frozenset(('rebuild_tensor',))


def _signed_needed_bytes(size, stride, offset, itemsize, op):
    """:func:`needed_bytes` for views that may step backwards: the bytes up to the highest
    element; an element before the storage's first byte raises."""
    lo = hi = 0
    for n, st in zip(size, stride):
        if n == 0:
            return 0
        if n < 0:
            return None
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    if offset + lo < 0:
        raise RuntimeError(f"{op}: sizes {_lst(size)}, strides {_lst(stride)} and storage "
                           f"offset {offset} reach {-(offset + lo) * itemsize} bytes before the "
                           "start of the storage")
    need = (offset + hi + 1) * itemsize
    return None if need > _I64_MAX or (lo * itemsize) < -_I64_MAX else need


def check_view(size, stride, offset, itemsize, nbytes=None, op='as_strided'):
    """Raise PyTorch's error unless a view with ``size``, ``stride`` and storage ``offset``
    (ints, in elements of ``itemsize`` bytes) fits in a storage of ``nbytes`` bytes; returns
    the bytes it needs. ``op`` picks the wording and checks of PyTorch's entry point:
    ``'as_strided'`` (strides must be >= 0), ``'set_'`` (``nbytes=None``: the caller grows the
    storage; a negative stride only on a dim of size <= 1). Any size must be >= 0.

    NOTE: unlike PyTorch, a negative size is refused even where another size is 0 (PyTorch
    makes a tensor of shape ``[-2, 0]``), and byte strides must fit in int64 (except on dims
    that no element steps along).

    Example::

        >>> from ember._storage import check_view
        >>> check_view((2, 2), (1, 2), 1, 4, nbytes=24)   # elements 1..4: 20 bytes
        20
    """
    if len(size) != len(stride):
        if op == 'set_':
            raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                               f"({len(stride)})")
        if op == 'empty_strided':
            raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match "
                               f"dimensionality of strides ({len(stride)})")
        raise RuntimeError("mismatch in length of strides and shape")
    if op == 'as_strided':
        for st in stride:
            if st < 0:
                raise RuntimeError("as_strided: Negative strides are not supported at the "
                                   f"moment, got strides: {_lst(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if op == 'set_' and numel_overflows(size):
        raise RuntimeError("numel: integer multiplication overflow")
    if op in _SIGNED_STRIDES:
        need = _signed_needed_bytes(size, stride, offset, itemsize, op)
    else:
        need = needed_bytes(size, stride, offset, itemsize)
    if need is None:
        if size:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={_lst(size)} "
                               f"and strides={_lst(stride)}")
        raise RuntimeError("Storage size calculation overflowed with sizes=[]")
    if nbytes is not None and need > nbytes:
        raise RuntimeError(f"setStorage: sizes {_lst(size)}, strides {_lst(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {need} are out of bounds for storage of size {nbytes}")
    check_numel(size)
    return need


def view_of(storage, npdt, offset, size, stride, op='as_strided'):
    """An array of dtype ``npdt`` viewing ``storage`` (an :class:`UntypedStorage`) at element
    ``offset`` with ``size`` and ``stride`` (in elements), after :func:`check_view` has made
    sure every element lies inside the storage's bytes.

    Example::

        >>> from ember._storage import view_of
        >>> st = ember.arange(6.).untyped_storage()
        >>> view_of(st, numpy.dtype('float32'), 1, (2,), (2,)).tolist()
        [1.0, 3.0]
    """
    isz = npdt.itemsize
    src = storage._src
    if src.dtype == npdt and src.flags.c_contiguous:   # the common case: no reinterpretation
        flat = src.reshape(-1)
        n = flat.size
        check_view(size, stride, offset, isz, n * isz, op)
    else:
        b = storage._bytes()
        n = b.size // isz
        check_view(size, stride, offset, isz, n * isz, op)
        flat = b[:n * isz].view(npdt)
    numel = 1
    for d in size:
        numel *= d
    bst = []
    for d, st in zip(size, stride):
        bs = st * isz
        if not -_I64_MAX <= bs <= _I64_MAX:
            if numel and d > 1:
                raise RuntimeError(f"{op}: stride {st} of {isz}-byte elements does not fit in "
                                   "a 64-bit byte stride")
            bs = 0   # no element steps along this dim: the stride is never used
        bst.append(bs)
    base = flat[offset:] if offset < n else flat[:0]
    try:
        return array_module(flat).lib.stride_tricks.as_strided(base, tuple(size), tuple(bst))
    except ValueError as e:   # NumPy's own limits (more than 64 dims, > 2**63 bytes in all)
        raise RuntimeError(f"{op}: {e}") from None


# ------------------------------------------------------------ legacy typed storage classes
_LEGACY_STORAGE_DTYPES = {
    'FloatStorage': 'float32', 'DoubleStorage': 'float64', 'HalfStorage': 'float16',
    'BFloat16Storage': 'bfloat16', 'ComplexFloatStorage': 'complex64',
    'ComplexDoubleStorage': 'complex128', 'BoolStorage': 'bool', 'ByteStorage': 'uint8',
    'CharStorage': 'int8', 'ShortStorage': 'int16', 'IntStorage': 'int32',
    'LongStorage': 'int64'}


class _LegacyStorageMeta(type):
    """``ember.FloatStorage(n)`` / ``FloatStorage([1, 2])`` make a :class:`TypedStorage` of
    that dtype; ``isinstance(t.storage(), ember.FloatStorage)`` checks the dtype."""

    def __call__(cls, *args, **kwargs):
        if cls._device == 'cuda':
            from ._backend import cuda_module
            if cuda_module() is None:
                raise AssertionError("Torch not compiled with CUDA enabled")
        dt = cls.dtype
        if kwargs or len(args) > 1:
            raise TypeError(f"{cls.__name__}(): takes a size or a sequence")
        arg = args[0] if args else 0
        if isinstance(arg, UntypedStorage):
            return TypedStorage(arg, dt)
        if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"Storage size must be non-negative, but got {arg}")
            arr = np.zeros(int(arg), dtype=dt._np)
        else:
            arr = np.array(list(arg), dtype=dt._np)
        if cls._device == 'cuda':
            from ._backend import to_device
            from ._device import device
            arr = to_device(arr, device('cuda'))
        return TypedStorage(UntypedStorage(arr), dt)

    def __instancecheck__(cls, obj):
        return (isinstance(obj, TypedStorage) and obj.dtype is cls.dtype
                and obj.device.type == cls._device)

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub)


_LEGACY_CLASSES = {}


def _legacy_storage_classes(device_type='cpu'):
    """The legacy storage classes (``FloatStorage``...) for ``'cpu'`` or ``'cuda'`` (made
    once: ``ember.FloatStorage`` and ``Tensor.storage_type()`` are the same class)."""
    got = _LEGACY_CLASSES.get(device_type)
    if got is None:
        got = _LEGACY_CLASSES[device_type] = _make_legacy_storage_classes(device_type)
    return dict(got)


def _make_legacy_storage_classes(device_type):
    from . import _dtype as D
    mod = 'ember' if device_type == 'cpu' else 'ember.cuda'

    def doc(n, d):
        head = (f"Legacy {d} storage type: ``{n}(size)`` or ``{n}(sequence)`` makes a "
                f"TypedStorage of dtype {d}")
        if device_type == 'cpu':
            return (f"{head}; ``isinstance(s, ember.{n})`` checks a storage's dtype.\n\n"
                    f"Example::\n\n    >>> s = ember.{n}(3)\n    >>> s.size()\n    3\n"
                    f"    >>> isinstance(s, ember.{n})\n    True\n")
        return (f"{head} on the current CUDA device; ``isinstance`` checks dtype and device. "
                f"Without CUDA, calling it raises ``AssertionError``.\n\nExample::\n\n"
                f"    >>> isinstance(ember.{n}(2), ember.cuda.{n})   # a CPU storage\n"
                f"    False\n")

    return {n: _LegacyStorageMeta(n, (), {
        'dtype': D._BY_NAME[d], '_device': device_type, '__module__': mod,
        '__doc__': doc(n, d)}) for n, d in _LEGACY_STORAGE_DTYPES.items()}


# ------------------------------------------------------------ shared memory (multiprocessing)
# A shared block is a file-backed ``mmap`` (a memfd, or a named file under /dev/shm for the
# 'file_system' sharing strategy); NumPy arrays over it have the map as their ``.base``, so
# a storage knows it is shared by walking its array's bases.  ember.multiprocessing sends
# the block's file descriptor (or name) to other processes, which map the same memory.
import mmap as _mmap  # noqa: E402

_SHARING = {'strategy': 'file_descriptor'}   # set by ember.multiprocessing.set_sharing_strategy


class _ShmMap(_mmap.mmap):
    """A shared mapping; ``_fd`` is the open descriptor kept to send it on (or -1),
    ``_name`` the file's path for the 'file_system' strategy (else None)."""


def _release_shm(fd, name, owner):
    import os
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass
    if name is not None and os.getpid() == owner:
        try:
            os.unlink(name)
        except OSError:
            pass


def _shm_dir():
    import os
    import tempfile
    return '/dev/shm' if os.path.isdir('/dev/shm') else tempfile.gettempdir()


def _map_shm(fd, nbytes, name=None, keep_fd=True, owner=None):
    """Map ``nbytes`` of the file ``fd`` shared; the map owns ``fd`` when ``keep_fd``."""
    import os
    m = _ShmMap(fd, max(int(nbytes), 1))
    if not keep_fd:
        os.close(fd)
        fd = -1
    m._fd = fd
    m._name = name
    m._nbytes = int(nbytes)
    weakref.finalize(m, _release_shm, fd, name, owner if owner is not None else -1)
    return m


def _new_shm(nbytes, strategy=None):
    """A fresh zeroed shared block of ``nbytes`` bytes."""
    import os
    import secrets
    strategy = strategy or _SHARING['strategy']
    size = max(int(nbytes), 1)
    if strategy == 'file_system':
        name = os.path.join(_shm_dir(), f'ember_{os.getpid()}_{secrets.token_hex(8)}')
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.ftruncate(fd, size)
        return _map_shm(fd, nbytes, name, keep_fd=False, owner=os.getpid())
    if hasattr(os, 'memfd_create'):
        fd = os.memfd_create('ember-shm', os.MFD_CLOEXEC)
    else:   # pragma: no cover - non-Linux
        name = os.path.join(_shm_dir(), f'ember_{os.getpid()}_{secrets.token_hex(8)}')
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.unlink(name)
    os.ftruncate(fd, size)
    return _map_shm(fd, nbytes)


def _shm_of(arr):
    """The shared map under array ``arr`` (walking ``.base``), or None."""
    b = arr
    while b is not None:
        if isinstance(b, _ShmMap):
            return b
        b = getattr(b, 'base', None)
    return None


def _shared_array(m, shape, dtype, strides=None, offset=0, cls=np.ndarray):
    """An array of ``cls`` over shared map ``m``."""
    return np.ndarray.__new__(cls, shape, dtype, buffer=m, offset=offset, strides=strides)


def _storage_is_shared(self):
    """True when the storage lives in shared memory (see :meth:`share_memory_`)."""
    return _shm_of(self._src) is not None


def _storage_share_memory_(self):
    """Move the storage to shared memory (a no-op if it is already shared, or on CUDA).

    NOTE: unlike PyTorch, tensors already viewing this storage keep the old memory unless
    they are moved with ``Tensor.share_memory_()``.
    """
    src = self._src
    if not isinstance(src, np.ndarray) or _shm_of(src) is not None:
        return self
    n = self.nbytes()   # the bytes the array spans (an expanded array spans fewer)
    m = _new_shm(n)
    if n:
        np.frombuffer(m, np.uint8, count=n)[...] = self._bytes()
    lo = _extent(src)[0]
    m._moved_from = _ptr(src) + lo   # lets tensors still viewing the old memory follow later
    self._src = _shared_array(m, src.shape, src.dtype, src.strides, -lo, type(src))
    return self


@classmethod
def _storage_new_shared(cls, size, device=None):
    """A new zeroed storage of ``size`` bytes in shared memory."""
    m = _new_shm(int(size))
    return cls(_shared_array(m, (int(size),), np.uint8))


UntypedStorage.is_shared = _storage_is_shared
UntypedStorage.share_memory_ = _storage_share_memory_
UntypedStorage._new_shared = _storage_new_shared
TypedStorage.is_shared = lambda self: self._untyped.is_shared()
TypedStorage.share_memory_ = lambda self: (self._untyped.share_memory_(), self)[1]
