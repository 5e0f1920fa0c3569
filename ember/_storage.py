"""Storage: the memory block that tensors view. Several tensors may share one."""
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
    if not arr.size:
        return arr
    k = arr.dtype.kind
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
        """The storage as a 1-D array of its creating array's dtype, from its first byte."""
        s = self._src
        n = s.size
        if s.flags.c_contiguous:
            return s.reshape(-1)
        return array_module(s).lib.stride_tricks.as_strided(s, (n,), (s.itemsize,))

    def _bytes(self):
        return self._flat().view(np.uint8)

    def data_ptr(self):
        """Address of the first byte."""
        return _ptr(self._src)

    def nbytes(self):
        """Size in bytes."""
        return self._src.nbytes

    def size(self):
        return self._src.nbytes

    def __len__(self):
        return self._src.nbytes

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
            from . import cuda
            if not cuda.is_available():
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


def _legacy_storage_classes(device_type='cpu'):
    """The legacy storage classes (``FloatStorage``...) for ``'cpu'`` or ``'cuda'``."""
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
    n = src.size * src.itemsize
    m = _new_shm(n)
    if n:
        np.frombuffer(m, np.uint8, count=n)[...] = self._bytes()
    m._moved_from = _ptr(src)   # lets tensors still viewing the old memory follow later
    self._src = _shared_array(m, src.shape, src.dtype, src.strides, 0, type(src))
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
