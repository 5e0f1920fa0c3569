"""Storage: the memory block that tensors view. Several tensors may share one."""
import weakref

import numpy as np

from ._backend import array_module

_weakref = weakref.ref

__all__ = ['UntypedStorage', 'TypedStorage']


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
    return {n: _LegacyStorageMeta(n, (), {
        'dtype': D._BY_NAME[d], '_device': device_type, '__module__': mod,
        '__doc__': f"Legacy {d} storage type: ``{n}(size)`` or ``{n}(sequence)`` makes a "
                   f"TypedStorage of dtype {d}."}) for n, d in _LEGACY_STORAGE_DTYPES.items()}
