"""A fake CUDA backend: CuPy's namespace over host memory, refusing what CuPy refuses.

CI has no GPU, so nothing else checks that ember's CUDA path keeps its rule (op bodies
compute with ``xp = array_module(x)``, never with NumPy on device data). With
``EMBER_FAKE_CUDA=1`` in the environment, ember's CUDA device is this module instead of
CuPy: ``ember.cuda.is_available()`` is True, ``device='cuda'``, ``.cuda()``, ``.to('cuda')``
and ``.cpu()`` work, and every array on ``'cuda'`` is a fake device array.

:class:`ndarray` wraps a host NumPy array **without** subclassing ``numpy.ndarray``, and
refuses implicit host conversion as ``cupy.ndarray`` does: ``numpy.asarray(a)`` raises
CuPy's ``TypeError`` ("Implicit conversion to a NumPy array is not allowed ..."), a NumPy
module function or ufunc called on it raises :class:`FakeCudaError` (a ``TypeError``), and
mixing a host ``numpy.ndarray`` into a device computation raises CuPy's ``TypeError``
("Unsupported type ..."). Its methods, properties and operators are those of
``cupy.ndarray`` (CuPy 14), with CuPy's results: reductions and integer indexing give 0-d
device arrays, not NumPy scalars; ``flags`` has only ``c_contiguous``, ``f_contiguous`` and
``owndata``; ``a[...] = host_array`` raises "non-scalar numpy.ndarray cannot be used for
fill"; there is no ``__index__``.

:data:`cupy` is the module: it has exactly the public names of CuPy 14's namespace (the
list checked in as ``_cupy_names.txt``), each computing by unwrapping its arguments,
calling NumPy and wrapping the result. Where CuPy differs from NumPy in a way an op body
can trip on, it differs here too: no ``errstate`` (CuPy has only ``cupyx.errstate``), of
ml_dtypes' dtypes only ``bfloat16`` (CuPy 14 has bfloat16 loops; float8 and the other
ml_dtypes arrays raise "Unsupported dtype"), ``asnumpy``,
``get_array_module``, ``cuda`` (``Device``, ``Stream``, ``Event``, ``runtime``, memory
pools, as far as ``ember.cuda`` uses them) and ``random`` (CuPy's API, drawn with NumPy's
``RandomState``). Names CuPy has and NumPy lacks (``ElementwiseKernel``, ``fuse``, ...)
raise ``NotImplementedError`` when called.

NOTE: unlike CuPy, NumPy's functions and ufuncs are refused on device arrays (CuPy
dispatches many of them through ``__array_function__``/``__array_ufunc__``): ember's rule is
that op bodies go through ``xp``. A NumPy *scalar* times a device array is allowed, as CuPy
allows it.

Example::

    >>> from ember._backend.fake_cuda import cupy as cp
    >>> a = cp.arange(3.)
    >>> cp.exp(a).sum().get()
    array(11.10733793)
    >>> numpy.asarray(a)
    Traceback (most recent call last):
    ...
    TypeError: Implicit conversion to a NumPy array is not allowed. Please use `.get()` ...
"""
import os
import types

import numpy as np

__all__ = ['ndarray', 'cupy', 'FakeCudaError', 'enabled', 'names']

_np_ndarray = np.ndarray
_generic = np.generic


class FakeCudaError(TypeError):
    """NumPy was asked to compute on a fake device array."""


def enabled():
    """True when ``EMBER_FAKE_CUDA`` is set (and not ``0``) in the environment."""
    return os.environ.get('EMBER_FAKE_CUDA', '') not in ('', '0')


def names():
    """CuPy 14's public top-level names, from the checked-in ``_cupy_names.txt``."""
    path = os.path.join(os.path.dirname(__file__), '_cupy_names.txt')
    with open(path) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith('#')]


# ----------------------------------------------------------------------------- arrays
_SUPPORTED_KINDS = frozenset('biufc')


def _bfloat16():
    try:
        import ml_dtypes
    except ImportError:   # pragma: no cover - ml_dtypes is a dependency of ember
        return None
    return np.dtype(ml_dtypes.bfloat16)


def _check_dtype(dt):
    dt = np.dtype(dt)
    if dt.kind == 'V' and dt == _bfloat16():   # CuPy 14 has bfloat16 loops (via ml_dtypes)
        return dt
    if dt.kind not in _SUPPORTED_KINDS or dt.itemsize > 16 or (dt.kind == 'f' and dt.itemsize > 8):
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


def _unsupported(x):
    raise TypeError(f"Unsupported type {type(x)}")


def _wrap(r):
    """Results of a NumPy call as device arrays (NumPy scalars become 0-d arrays, as
    CuPy's results are)."""
    t = type(r)
    if t is _np_ndarray:
        a = object.__new__(ndarray)
        a._a = r
        return a
    if isinstance(r, _generic):
        a = object.__new__(ndarray)
        a._a = np.asarray(r)
        return a
    if t is tuple or t is list:
        return t(_wrap(v) for v in r)
    if isinstance(r, tuple) and hasattr(r, '_fields'):   # SVDResult, EighResult, ...
        return t(*(_wrap(v) for v in r))
    return r


def _host(x, convert):
    """``x`` with device arrays unwrapped (in lists, tuples and dicts too). A host
    ``numpy.ndarray`` is refused unless ``convert`` (host-to-device functions)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is _np_ndarray:
        if not convert:
            _unsupported(x)
        return x
    if t is list or t is tuple:
        return t(_host(v, convert) for v in x)
    if t is dict:
        return {k: _host(v, convert) for k, v in x.items()}
    return x


def _unwrap_meta(x):
    """Device arrays unwrapped, host arrays accepted: for functions that only read
    metadata (dtypes, shapes)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is list or t is tuple:
        return t(_unwrap_meta(v) for v in x)
    return x


def _call(fn, args, kwargs, convert=False):
    pa = _host(args, convert)
    kw = _host(kwargs, convert) if kwargs else kwargs
    out = kwargs.get('out') if kwargs else None
    with np.errstate(all='ignore'):   # CuPy's kernels never warn on floating-point errors
        r = fn(*pa, **kw)
    if out is not None:   # give back the caller's own out arrays
        return out if not isinstance(out, tuple) or isinstance(r, tuple) else out[0]
    return _wrap(r)


class _Flags:
    """``cupy.ndarray.flags``: ``c_contiguous``, ``f_contiguous``, ``owndata``."""
    __slots__ = ('c_contiguous', 'f_contiguous', 'owndata')

    def __init__(self, f):
        self.c_contiguous = bool(f.c_contiguous)
        self.f_contiguous = bool(f.f_contiguous)
        self.owndata = bool(f.owndata)

    def __getitem__(self, name):
        return getattr(self, {'C_CONTIGUOUS': 'c_contiguous', 'F_CONTIGUOUS': 'f_contiguous',
                              'OWNDATA': 'owndata'}[name])

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


class _MemoryPointer:
    """``ndarray.data``: the address of the first element (``ptr``); ``+ n`` moves it by
    ``n`` bytes, and ``ndarray(shape, dtype, memptr=p, strides=...)`` views the memory."""
    __slots__ = ('ptr', 'device', '_owner')

    def __init__(self, ptr, owner=None):
        self.ptr = ptr
        self.device = _DEVICE0
        self._owner = owner

    def __add__(self, n):
        return _MemoryPointer(self.ptr + int(n), self._owner)

    __radd__ = __add__

    def __sub__(self, n):
        return _MemoryPointer(self.ptr - int(n), self._owner)


def _view_memory(shape, dtype, memptr, strides):
    """A host view of the memory ``memptr`` points into (the buffer its array views)."""
    root = memptr._owner
    while isinstance(root, _np_ndarray) and root.base is not None:
        root = root.base
    if isinstance(root, _np_ndarray):
        flat = root.reshape(-1, order='A').view(np.uint8)
    else:
        flat = np.frombuffer(root, np.uint8)
    off = memptr.ptr - flat.__array_interface__['data'][0]
    return np.ndarray(shape, dtype, buffer=flat, offset=off, strides=strides)


_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")


def _basic_index(key):
    """True when ``key`` holds no array or list (CuPy's basic indexing)."""
    for k in (key if type(key) is tuple else (key,)):
        if isinstance(k, (list, _np_ndarray, ndarray)):
            return False
    return True


def _index(key):
    """A key with device arrays unwrapped (host index arrays are fine: CuPy copies them)."""
    if type(key) is tuple:
        return tuple(k._a if type(k) is ndarray else k for k in key)
    return key._a if type(key) is ndarray else key


class ndarray:
    """``cupy.ndarray`` over a host NumPy array (see the module docstring).

    Args:
        shape (tuple of ints): the array's shape.
        dtype: its data type (float64 by default).
        memptr: a pointer (``a.data + nbytes``) into another array's memory: the new
            array views it.
        strides: strides in bytes (with ``memptr``).
        order (str): ``'C'`` or ``'F'``.

    Example::

        >>> a = ndarray((2, 3), 'float32')
        >>> a.shape, a.device.id
        ((2, 3), 0)
    """
    __slots__ = ('_a', '__weakref__')
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order='C'):
        if memptr is not None:
            self._a = _view_memory(shape, _check_dtype(dtype), memptr, strides)
        elif strides is not None:
            raise ValueError("strides without memptr")
        else:
            self._a = np.empty(shape, _check_dtype(dtype), order=order)

    # --- refusals of implicit host conversion
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def __array_function__(self, func, types, args, kwargs):
        raise FakeCudaError(
            f"{func.__module__}.{func.__name__} called on a (fake) CUDA array; an op body "
            "must use the array module of its inputs (xp = array_module(a)), not numpy")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # ``numpy_scalar * device_array`` reaches here from the scalar's operator: CuPy
        # computes it; any other NumPy ufunc call on device data is refused.
        if method == '__call__' and len(inputs) == 2 and not kwargs \
                and isinstance(inputs[0], _generic) and type(inputs[1]) is ndarray:
            return _wrap(ufunc(inputs[0], inputs[1]._a))
        if method == '__call__' and any(type(x) is _np_ndarray for x in inputs):
            _unsupported(next(x for x in inputs if type(x) is _np_ndarray))   # host + device
        raise FakeCudaError(
            f"numpy.{ufunc.__name__}{'' if method == '__call__' else '.' + method} called on "
            "a (fake) CUDA array; an op body must use xp = array_module(a), not numpy")

    # --- host transfer
    def get(self, stream=None, order='C', out=None, blocking=True):
        """A host copy (``numpy.ndarray``), or a copy into the host array ``out``."""
        if out is not None:
            out[...] = self._a
            return out
        return np.array(self._a, order=order)

    def set(self, arr, stream=None):
        """Copy the host array ``arr`` (same shape) into this array."""
        if type(arr) is not _np_ndarray:
            raise TypeError(f"Only numpy.ndarray can be set to cupy.ndarray: {type(arr)}")
        if arr.shape != self._a.shape:
            raise ValueError("Shape mismatch")
        self._a[...] = arr

    # --- metadata
    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, v):
        self._a.shape = v

    @property
    def dtype(self):
        return self._a.dtype

    @property
    def strides(self):
        return self._a.strides

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def size(self):
        return self._a.size

    @property
    def itemsize(self):
        return self._a.itemsize

    @property
    def nbytes(self):
        return self._a.nbytes

    @property
    def flags(self):
        return _Flags(self._a.flags)

    @property
    def base(self):
        b = self._a.base
        return None if b is None else _wrap(b) if type(b) is _np_ndarray else None

    @property
    def data(self):
        return _MemoryPointer(self._a.__array_interface__['data'][0], self._a)

    @property
    def device(self):
        return _DEVICE0

    @property
    def T(self):
        return _wrap(self._a.T)

    @property
    def mT(self):
        return _wrap(self._a.mT)

    @property
    def real(self):
        return _wrap(self._a.real)

    @real.setter
    def real(self, v):
        self._a.real = _host(v, False)

    @property
    def imag(self):
        return _wrap(self._a.imag)

    @imag.setter
    def imag(self, v):
        self._a.imag = _host(v, False)

    @property
    def flat(self):
        return _wrap(self._a.reshape(-1)) if self._a.flags.c_contiguous else _wrap(self._a.flatten())

    # --- indexing
    def __getitem__(self, key):
        k = _index(key)
        if type(k) is not tuple:
            k = (k,)
        if not any(x is Ellipsis for x in k):
            k = k + (Ellipsis,)   # integer indices give a 0-d view, as on CuPy
        return _wrap(self._a[k])

    def __setitem__(self, key, value):
        t = type(value)
        if t is ndarray:
            value = value._a
        elif t is _np_ndarray:
            if value.ndim and _basic_index(key):
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        elif (t is list or t is tuple) and _basic_index(key):
            _unsupported(value)
        self._a[_index(key)] = value

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError('iteration over a 0-d array')
        return (self[i] for i in range(len(self._a)))

    # --- conversions to Python scalars (a synchronising read of one element, as CuPy)
    def __bool__(self):
        return bool(self._a)

    def __int__(self):
        return int(self._a)

    def __float__(self):
        return float(self._a)

    def __complex__(self):
        return complex(self._a)

    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        return self._a.tolist()

    def tobytes(self, order='C'):
        return self._a.tobytes(order)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __copy__(self):
        return _wrap(self._a.copy())

    def __deepcopy__(self, memo):
        return _wrap(self._a.copy())

    def __reduce__(self):
        return (_from_host, (self._a.copy(),))

    def __dlpack_device__(self):
        return (2, 0)   # kDLCUDA, device 0

    def __dlpack__(self, stream=None, **kwargs):
        return self._a.__dlpack__()

    def toDlpack(self):
        return self._a.__dlpack__()

    def view(self, *args, **kwargs):
        if args and isinstance(args[0], type) and issubclass(args[0], ndarray):
            return _wrap(self._a.view())
        return _wrap(self._a.view(*args, **kwargs))

    def astype(self, dtype, order='K', casting=None, subok=None, copy=True):
        dt = _check_dtype(dtype)
        kw = {} if casting is None else {'casting': casting}
        return _wrap(self._a.astype(dt, order=order, copy=copy, **kw))

    def fill(self, value):
        if type(value) is _np_ndarray:
            if value.shape != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
            value = value.item()
        elif type(value) is ndarray:
            value = value._a
        elif not isinstance(value, (int, float, complex, bool, _generic)):
            _unsupported(value)
        self._a.fill(value)

    def reduced_view(self, dtype=None):
        return self

    def scatter_add(self, slices, value):
        np.add.at(self._a, _index(slices), _host(value, False))

    def scatter_max(self, slices, value):
        np.maximum.at(self._a, _index(slices), _host(value, False))

    def scatter_min(self, slices, value):
        np.minimum.at(self._a, _index(slices), _host(value, False))


# methods and functions whose index (and value) arguments may be host arrays: CuPy copies
# them to the device
_TAKES_HOST_INDICES = frozenset({'take', 'put', 'compress', 'take_along_axis', 'choose'})


def _method(name):
    meth = getattr(_np_ndarray, name)
    convert = name in _TAKES_HOST_INDICES

    def m(self, *args, **kwargs):
        return _call(meth, (self,) + args, kwargs, convert)
    m.__name__ = name
    m.__qualname__ = f'ndarray.{name}'
    m.__doc__ = f"``cupy.ndarray.{name}`` (NumPy's, on device arrays)."
    return m


def _operator(name):
    meth = getattr(_np_ndarray, name)

    def m(self, other):
        t = type(other)
        if t is list or t is tuple:   # CuPy's kernels take arrays and scalars
            _unsupported(other)
        return _call(meth, (self, other), {})
    m.__name__ = name
    m.__qualname__ = f'ndarray.{name}'
    return m


def _inplace(name):
    meth = getattr(_np_ndarray, name)

    def m(self, other):
        meth(self._a, _host(other, False))
        return self
    m.__name__ = name
    return m


# methods of cupy.ndarray (CuPy 14) computed by NumPy's method of the same name
for _name in ('all', 'any', 'argmax', 'argmin', 'argpartition', 'argsort', 'choose', 'clip',
              'compress', 'conj', 'conjugate', 'copy', 'cumprod', 'cumsum', 'diagonal', 'dot',
              'flatten', 'max', 'mean', 'min', 'nonzero', 'partition', 'prod', 'ptp', 'put',
              'ravel', 'repeat', 'reshape', 'round', 'searchsorted', 'sort', 'squeeze',
              'std', 'sum', 'swapaxes', 'take', 'trace', 'transpose', 'var', 'byteswap',
              '__abs__', '__neg__', '__pos__', '__invert__', '__eq__', '__ne__', '__lt__',
              '__le__', '__gt__', '__ge__', '__divmod__', '__rdivmod__') + tuple(
        f'__{p}{op}__' for op in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow',
                                  'matmul', 'and', 'or', 'xor', 'lshift', 'rshift')
        for p in ('', 'r')):
    if _name == 'ptp':
        setattr(ndarray, _name, lambda self, *a, **k: _call(np.ptp, (self,) + a, k))
    elif _name.startswith('__') and _name not in ('__abs__', '__neg__', '__pos__',
                                                  '__invert__'):
        setattr(ndarray, _name, _operator(_name))
    else:
        setattr(ndarray, _name, _method(_name))
for _name in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'matmul', 'and',
              'or', 'xor', 'lshift', 'rshift'):
    setattr(ndarray, f'__i{_name}__', _inplace(f'__i{_name}__'))
del _name

ndarray.__module__ = 'cupy'


def _from_host(a):
    r = object.__new__(ndarray)
    r._a = a
    return r


# ----------------------------------------------------------------------------- cupy.cuda
class Device:
    """``cupy.cuda.Device``: the one fake device (id 0)."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            from_runtime_error(101)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        pass

    def synchronize(self):
        pass

    @property
    def compute_capability(self):
        return '90'

    def __int__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f'<CUDA Device {self.id}>'


_DEVICE0 = Device(0)


class CUDARuntimeError(RuntimeError):
    """``cupy.cuda.runtime.CUDARuntimeError``."""


def from_runtime_error(code):
    names = {101: 'cudaErrorInvalidDevice: invalid device ordinal'}
    raise CUDARuntimeError(names.get(code, f'cuda error {code}'))


class _Runtime(types.ModuleType):
    """``cupy.cuda.runtime``: one device, no memory limits that matter."""
    CUDARuntimeError = CUDARuntimeError

    def getDeviceCount(self):
        return 1

    def getDevice(self):
        return 0

    def setDevice(self, idx):
        if int(idx) != 0:
            from_runtime_error(101)

    def getDeviceProperties(self, idx):
        if int(idx) != 0:
            from_runtime_error(101)
        return {'name': b'Fake CUDA device (ember)', 'totalGlobalMem': 16 << 30, 'major': 9,
                'minor': 0, 'multiProcessorCount': 1, 'warpSize': 32,
                'maxThreadsPerMultiProcessor': 2048, 'uuid': b'\0' * 16, 'pciBusID': 0,
                'pciDeviceID': 0, 'pciDomainID': 0, 'l2CacheSize': 0, 'regsPerMultiprocessor': 0}

    def memGetInfo(self):
        return 16 << 30, 16 << 30

    def deviceCanAccessPeer(self, a, b):
        return 0

    def runtimeGetVersion(self):
        return 12080

    def driverGetVersion(self):
        return 12080

    def deviceSynchronize(self):
        pass


class Stream:
    """``cupy.cuda.Stream``: work is done when it is queued (host compute)."""
    null = None

    def __init__(self, null=False, non_blocking=False, ptr=0, priority=0):
        self.ptr = 0 if null else id(self)
        self.done = True
        self.device_id = 0

    def synchronize(self):
        pass

    def wait_event(self, event):
        pass

    def record(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def use(self):
        global _current_stream
        _current_stream = self
        return self

    def __enter__(self):
        self._prev = _current_stream
        return self.use()

    def __exit__(self, *exc):
        self._prev.use()
        return False


Stream.null = Stream(null=True)
_current_stream = Stream.null


def get_current_stream(device_id=None):
    return _current_stream


class Event:
    """``cupy.cuda.Event``: recorded at once."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        import time
        self._time = time.perf_counter
        self._t = None
        self.done = True

    def record(self, stream=None):
        self._t = self._time()

    def synchronize(self):
        pass


def get_elapsed_time(start, end):
    """Milliseconds between two recorded events."""
    return (end._t - start._t) * 1000.0


class MemoryPool:
    """``cupy.cuda.MemoryPool``.

    NOTE: unlike CuPy's, it keeps no blocks: ``used_bytes``/``total_bytes`` are 0."""

    def __init__(self, allocator=None):
        self._limit = 0

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_bytes(self):
        return 0

    def n_free_blocks(self):
        return 0

    def free_all_blocks(self, stream=None):
        pass

    def set_limit(self, size=None, fraction=None):
        if fraction is not None:
            size = int((16 << 30) * fraction)
        self._limit = int(size or 0)

    def get_limit(self):
        return self._limit


class PinnedMemoryPool(MemoryPool):
    """``cupy.cuda.PinnedMemoryPool``."""


def _cuda_module():
    m = types.ModuleType('cupy.cuda', "CuPy's ``cupy.cuda`` as the fake CUDA backend has it.")
    for k, v in {'Device': Device, 'Stream': Stream, 'Event': Event,
                 'get_current_stream': get_current_stream, 'get_elapsed_time': get_elapsed_time,
                 'MemoryPool': MemoryPool, 'PinnedMemoryPool': PinnedMemoryPool,
                 'runtime': _Runtime('cupy.cuda.runtime'), 'is_available': lambda: True,
                 'CUDARuntimeError': CUDARuntimeError}.items():
        setattr(m, k, v)
    m.memory = types.ModuleType('cupy.cuda.memory')
    m.memory.MemoryPointer = _MemoryPointer
    return m


# ----------------------------------------------------------------------------- functions
# host-to-device functions: they take host arrays
_CONVERSIONS = frozenset({'asarray', 'array', 'asanyarray', 'ascontiguousarray',
                          'asfortranarray', 'copy', 'frombuffer', 'fromiter', 'fromstring',
                          'fromfile', 'fromfunction', 'loadtxt', 'genfromtxt', 'load',
                          'asarray_chkfinite', 'require'})
# functions that read only metadata (dtypes, shapes) and return no array
_META = frozenset({'dtype', 'finfo', 'iinfo', 'result_type', 'can_cast', 'promote_types',
                   'issubdtype', 'isscalar', 'ndim', 'shape', 'size', 'broadcast_shapes',
                   'get_printoptions', 'set_printoptions', 'printoptions', 'min_scalar_type',
                   'common_type', 'iscomplexobj', 'isrealobj', 'isfortran', 'may_share_memory',
                   'shares_memory', 'binary_repr', 'base_repr', 'isdtype', 'mintypecode',
                   'typename', 'iterable', 'format_float_positional', 'format_float_scientific',
                   'array2string', 'array_repr', 'array_str', 'obj2sctype', 'issctype',
                   'issubsctype', 'issubclass_', 'sctype2char', 'ndindex', 'index_exp', 's_',
                   'newaxis', 'byte_bounds', 'who'})
# renamed or removed in NumPy 2: CuPy keeps them
_ALIASES = {'alltrue': 'all', 'sometrue': 'any', 'trapz': 'trapezoid', 'cumproduct': 'cumprod',
            'product': 'prod', 'round_': 'round', 'msort': 'sort', 'asfarray': 'asarray',
            'in1d': 'isin', 'row_stack': 'vstack', 'float_': 'float64', 'complex_': 'complex128',
            'cfloat': 'complex128', 'singlecomplex': 'complex64', 'Inf': 'inf', 'Infinity': 'inf',
            'infty': 'inf', 'PINF': 'inf', 'NaN': 'nan', 'NAN': 'nan'}


def _wrap_function(fn, name, convert):
    def f(*args, **kwargs):
        return _call(fn, args, kwargs, convert)
    f.__name__ = name
    f.__qualname__ = f'cupy.{name}'
    f.__doc__ = f"``cupy.{name}`` on fake device arrays (NumPy's ``{name}``)."
    return f


def _meta_function(fn, name):
    def f(*args, **kwargs):
        return fn(*_unwrap_meta(args), **{k: _unwrap_meta(v) for k, v in kwargs.items()})
    f.__name__ = name
    f.__doc__ = f"``cupy.{name}`` (metadata only)."
    return f


class ufunc:
    """``cupy.ufunc``: a NumPy ufunc over device arrays (``__call__``, ``reduce``,
    ``accumulate``, ``reduceat``, ``outer``, ``at``)."""
    __slots__ = ('_uf', '__name__')

    def __init__(self, uf):
        self._uf = uf
        self.__name__ = uf.__name__

    def __call__(self, *args, **kwargs):
        for a in args:
            if type(a) is list or type(a) is tuple:   # CuPy's kernels take arrays and scalars
                _unsupported(a)
        return _call(self._uf, args, kwargs)

    def __getattr__(self, name):
        attr = getattr(self._uf, name)
        if name in ('reduce', 'accumulate', 'reduceat', 'outer'):
            return lambda *a, **k: _call(attr, a, k)
        if name == 'at':
            def at(a, *args, **kwargs):
                _call(attr, (a,) + args, kwargs)
            return at
        return attr

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"


def _not_emulated(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"cupy.{name} is not emulated by ember's fake CUDA backend")
    f.__name__ = name
    return f


def _asnumpy(a, stream=None, order='C', out=None, *, blocking=True):
    if type(a) is ndarray:
        return a.get(order=order, out=out)
    r = np.asarray(a, order=order)
    if out is not None:
        out[...] = r
        return out
    return r


def _get_array_module(*args):
    return cupy if any(type(a) is ndarray for a in args) else np


def _converting(fn, name):
    """asarray & co.: host data in, device array out (ml_dtypes' dtypes refused)."""
    def f(*args, **kwargs):
        if 'dtype' in kwargs and kwargs['dtype'] is not None:
            _check_dtype(kwargs['dtype'])
        r = _call(fn, args, kwargs, True)
        if type(r) is ndarray:
            _check_dtype(r._a.dtype)
        return r
    f.__name__ = name
    f.__doc__ = f"``cupy.{name}``: host data to a fake device array."
    return f


def _random_module():
    """``cupy.random``: CuPy's API, drawn from one NumPy ``RandomState``."""
    m = types.ModuleType('cupy.random', "CuPy's random API over NumPy's RandomState.")
    state = [np.random.RandomState()]

    def draw(name):
        def f(*args, dtype=None, **kwargs):
            if name in ('shuffle',):
                getattr(state[0], name)(_host(args[0], False))
                return None
            r = getattr(state[0], name)(*_host(args, False), **_host(kwargs, False))
            if dtype is not None and name != 'randint':
                r = np.asarray(r).astype(dtype)
            elif dtype is not None:
                r = np.asarray(r).astype(dtype)
            return _wrap(np.asarray(r) if not isinstance(r, _np_ndarray) else r)
        f.__name__ = name
        return f
    for name in ('beta', 'binomial', 'chisquare', 'dirichlet', 'exponential', 'f', 'gamma',
                 'geometric', 'gumbel', 'hypergeometric', 'laplace', 'logistic', 'lognormal',
                 'logseries', 'multivariate_normal', 'negative_binomial',
                 'noncentral_chisquare', 'noncentral_f', 'normal', 'pareto', 'poisson', 'power',
                 'rayleigh', 'standard_cauchy', 'standard_exponential', 'standard_gamma',
                 'standard_normal', 'standard_t', 'triangular', 'uniform', 'vonmises', 'wald',
                 'weibull', 'zipf', 'permutation', 'shuffle', 'choice', 'multinomial', 'rand',
                 'randint', 'randn', 'random_integers', 'random_sample', 'bytes'):
        setattr(m, name, draw(name))
    m.random = m.ranf = m.sample = m.random_sample

    def seed(seed=None):
        state[0] = np.random.RandomState(seed)
    m.seed = seed
    m.get_random_state = lambda: state[0]
    m.reset_states = lambda: seed()
    m.RandomState = np.random.RandomState
    m.default_rng = _not_emulated('random.default_rng')
    return m


_MISSING = object()


def _build():
    mod = types.ModuleType('cupy', __doc__)
    special = {
        'ndarray': ndarray, 'ufunc': ufunc, 'asnumpy': _asnumpy,
        'get_array_module': _get_array_module, 'cuda': _cuda_module(),
        'random': _random_module(), 'is_available': lambda: True,
        'get_default_memory_pool': None, 'get_default_pinned_memory_pool': None,
        'show_config': lambda *a, **k: print('ember fake CUDA backend (CuPy 14 names)'),
        'disable_experimental_feature_warning': False, 'fromDlpack': None, 'from_dlpack': None,
        'astype': lambda x, dtype, copy=True: x.astype(dtype, copy=copy),
        'NINF': -np.inf, 'PZERO': 0.0, 'NZERO': -0.0, 'DataSource': np.lib.npyio.DataSource,
        'format_parser': np.rec.format_parser,
    }
    pool, pinned = MemoryPool(), PinnedMemoryPool()
    special['get_default_memory_pool'] = lambda: pool
    special['get_default_pinned_memory_pool'] = lambda: pinned

    def from_dlpack(x, *a, **k):
        if type(x) is ndarray:
            return _wrap(x._a.copy())
        return _wrap(np.from_dlpack(x))
    special['from_dlpack'] = special['fromDlpack'] = from_dlpack
    for name in names():
        if name in special:
            attr = special[name]
        else:
            base = getattr(np, _ALIASES.get(name, name), _MISSING)
            if base is _MISSING:
                base = getattr(np.exceptions, name, _MISSING)
            if name == 'exceptions':
                attr = np.exceptions
            elif base is _MISSING:
                attr = _not_emulated(name)
            elif isinstance(base, np.ufunc):
                attr = ufunc(base)
            elif isinstance(base, types.ModuleType):
                attr = _submodule(f'cupy.{name}', base)
            elif isinstance(base, type) or not callable(base):
                attr = base
            elif name in _META:
                attr = _meta_function(base, name)
            elif name in _CONVERSIONS:
                attr = _converting(base, name)
            else:
                attr = _wrap_function(base, name, name in _TAKES_HOST_INDICES)
        setattr(mod, name, attr)
    mod.__version__ = '14.2.0'
    return mod


class _Submodule(types.ModuleType):
    """A NumPy submodule (``linalg``, ``fft``, ``lib``, ``polynomial``, ``testing``) over
    device arrays, built name by name on first use."""

    def __init__(self, name, base):
        super().__init__(name)
        self._base = base

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        attr = getattr(self.__dict__['_base'], name)
        if isinstance(attr, np.ufunc):
            attr = ufunc(attr)
        elif isinstance(attr, types.ModuleType):
            attr = _Submodule(f'{self.__name__}.{name}', attr)
        elif not isinstance(attr, type) and callable(attr):
            attr = _wrap_function(attr, name, False)
        setattr(self, name, attr)
        return attr


def _submodule(name, base):
    return _Submodule(name, base)


cupy = _build()
"""The fake ``cupy`` module: CuPy 14's namespace over :class:`ndarray`."""
