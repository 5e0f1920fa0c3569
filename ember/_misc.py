"""Small public pieces of the ``ember`` namespace that belong to no op family:
legacy tensor types (``FloatTensor``...)."""
from . import _dtype as D
from ._tensor import Tensor, _LegacyTensor

__all__ = ['FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor',
           'IntTensor', 'ShortTensor', 'CharTensor', 'ByteTensor', 'BoolTensor']


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls._legacy_dtype and obj.device.type == 'cpu'


def _legacy(name, dt):
    return _LegacyMeta(name, (_LegacyTensor,), {
        '_legacy_dtype': dt, '__slots__': (),
        '__doc__': f"Legacy constructor: ``{name}(*sizes)`` or ``{name}(data)`` makes a "
                   f"{dt._name} tensor (an ``ember.Tensor``)."})


FloatTensor = _legacy('FloatTensor', D.float32)
DoubleTensor = _legacy('DoubleTensor', D.float64)
HalfTensor = _legacy('HalfTensor', D.float16)
BFloat16Tensor = _legacy('BFloat16Tensor', D.bfloat16)
LongTensor = _legacy('LongTensor', D.int64)
IntTensor = _legacy('IntTensor', D.int32)
ShortTensor = _legacy('ShortTensor', D.int16)
CharTensor = _legacy('CharTensor', D.int8)
ByteTensor = _legacy('ByteTensor', D.uint8)
BoolTensor = _legacy('BoolTensor', D.bool)


# ------------------------------------------------------------------ legacy storage types
from ._storage import _legacy_storage_classes  # noqa: E402

globals().update(_legacy_storage_classes('cpu'))
__all__ += list(_legacy_storage_classes('cpu'))

# --------------------------------------------------------------------------- threads
import builtins as _b  # noqa: E402
import os as _os  # noqa: E402
import warnings as _warnings  # noqa: E402

_num_threads = None
_interop_threads = None


def _check_threads(fn, n):
    if type(n) is not _b.int:
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")


def _blas_threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    n = [i['num_threads'] for i in threadpool_info() if i.get('user_api') in ('blas', 'openmp')]
    return max(n) if n else None


def get_num_threads():
    """Number of threads NumPy's BLAS (ember's CPU matmuls) uses.

    Example::

        >>> ember.set_num_threads(1); ember.get_num_threads()
        1
    """
    if _num_threads is not None:
        return _num_threads
    n = _blas_threads()
    return n if n is not None else (_os.cpu_count() or 1)


def set_num_threads(int):
    """Set the number of threads of NumPy's BLAS (through ``threadpoolctl``).

    Args:
        int (int): the number of threads (positive).

    NOTE: unlike PyTorch, only the BLAS thread pool is affected (ember's other CPU kernels
    are NumPy's, which run on one thread).
    """
    global _num_threads
    _check_threads("set_num_threads", int)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        pass
    else:
        global _limiter
        _limiter = threadpool_limits(limits=int)   # kept: the limit lasts until changed
    _num_threads = int


_limiter = None


def get_num_interop_threads():
    """Number of inter-op threads (ember runs ops one at a time: stored only)."""
    return _interop_threads if _interop_threads is not None else (_os.cpu_count() or 1)


def set_num_interop_threads(int):
    """Set the number of inter-op threads. NOTE: unlike PyTorch, stored only (ember runs
    ops one at a time) and it may be called at any time."""
    global _interop_threads
    _check_threads("set_num_interop_threads", int)
    _interop_threads = int


# ------------------------------------------------------------------------ determinism
_deterministic = False
_deterministic_warn_only = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms. Ember's NumPy kernels are always deterministic;
    as in PyTorch, while the mode is on, ``empty`` & co. and ``resize_`` fill the memory
    they hand out with NaN (floating, complex) or the integer maximum, unless
    ``ember.utils.deterministic.fill_uninitialized_memory`` is False.

    Args:
        mode (bool): turn deterministic mode on or off.
        warn_only (bool): warn instead of raising for non-deterministic ops.
    """
    global _deterministic, _deterministic_warn_only
    if type(mode) is not _b.bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    _deterministic, _deterministic_warn_only = mode, _b.bool(warn_only)
    from . import _storage
    _storage._sync_fill(mode)


def are_deterministic_algorithms_enabled():
    """Whether :func:`use_deterministic_algorithms` turned deterministic mode on."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic mode is in warn-only form."""
    return _deterministic_warn_only


def set_deterministic_debug_mode(debug_mode):
    """``0``/``'default'``: off; ``1``/``'warn'``; ``2``/``'error'``: deterministic mode."""
    if isinstance(debug_mode, str):
        modes = {'default': 0, 'warn': 1, 'error': 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if not isinstance(debug_mode, _b.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0 (off), 1 (warn) or 2 (error)."""
    if not _deterministic:
        return 0
    return 1 if _deterministic_warn_only else 2


# ------------------------------------------------------------- float32 matmul precision
_matmul_precision = 'highest'


def get_float32_matmul_precision():
    """``'highest'``, ``'high'`` or ``'medium'`` (see :func:`set_float32_matmul_precision`)."""
    return _matmul_precision


def set_float32_matmul_precision(precision):
    """Set the internal precision of float32 matmuls (``'highest'``, ``'high'``,
    ``'medium'``). NOTE: unlike PyTorch, ember's matmuls are always full float32 (NumPy
    BLAS); the setting is recorded and mirrored in ``backends.cuda.matmul.allow_tf32``."""
    global _matmul_precision
    if precision not in ('highest', 'high', 'medium'):
        _warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                       "setFloat32MatmulPrecision call has no effect.")
        return
    _matmul_precision = precision


# ----------------------------------------------------------------------- warn always
_warn_always = False


def set_warn_always(b):
    """Make warnings that PyTorch issues once issue every time."""
    global _warn_always
    _warn_always = _b.bool(b)


def is_warn_always_enabled():
    """Whether :func:`set_warn_always` turned warn-always on."""
    return _warn_always


# ---------------------------------------------------------------------- default device
# the factories that take ``device=`` and create a new tensor (not the ``*_like`` ones,
# which follow their input)
_DEVICE_FACTORIES = frozenset("""
    empty empty_strided empty_permuted ones zeros full arange range linspace logspace eye
    rand randn randint randperm normal tensor as_tensor asarray scalar_tensor tril_indices
    triu_indices bartlett_window blackman_window hamming_window hann_window kaiser_window
    sparse_coo_tensor
""".split())
_default_device = None
_device_hook = None


def _default_device_transform(name, args, kwargs):
    if name in _DEVICE_FACTORIES and kwargs.get('device') is None:
        kwargs = dict(kwargs)
        kwargs['device'] = _default_device
    return args, kwargs


def get_default_device():
    """The device new tensors are made on when ``device=`` is not given (``cpu`` at start).

    Example::

        >>> ember.get_default_device()
        device(type='cpu')
    """
    from ._device import device
    return _default_device if _default_device is not None else device('cpu')


def set_default_device(device):
    """Make factory functions (``ones``, ``zeros``, ``rand``, ``tensor``...) create tensors on
    ``device`` when no ``device=`` is given; ``None`` restores CPU.

    Args:
        device (device or str or int or None): the new default device.
    """
    global _default_device, _device_hook
    from ._device import device as _dev
    if device is None:
        d = None
    elif isinstance(device, _b.int):
        d = _dev('cuda', device)
    else:
        d = _dev(device) if not isinstance(device, _dev) else device
    if d is not None and d.type == 'cpu' and d.index is None:
        d = None
    _default_device = d
    if d is None and _device_hook is not None:
        _device_hook.remove()
        _device_hook = None
    elif d is not None and _device_hook is None:
        try:
            from ._ops import _dispatch
        except ImportError:
            return
        push = getattr(_dispatch, 'push_arg_transform', None)
        if push is not None:
            _device_hook = push(_default_device_transform)


__all__ += ['get_num_threads', 'set_num_threads', 'get_num_interop_threads',
            'set_num_interop_threads', 'use_deterministic_algorithms',
            'are_deterministic_algorithms_enabled',
            'is_deterministic_algorithms_warn_only_enabled', 'set_deterministic_debug_mode',
            'get_deterministic_debug_mode', 'get_float32_matmul_precision',
            'set_float32_matmul_precision', 'set_warn_always', 'is_warn_always_enabled',
            'get_default_device', 'set_default_device']


# ------------------------------------------------------------------ assorted torch.* names
import enum as _enum  # noqa: E402
import math as _math  # noqa: E402
import sys as _sys  # noqa: E402


from ._memory_format import layout, strided  # noqa: E402,F401


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated: ``floor((end - start) / step) + 1`` values from ``start`` to ``end``
    *inclusive*, spaced by ``step`` (default dtype floating). Warns; use :func:`arange`,
    whose end is exclusive.

    Args:
        start (Number): first value (default 0).
        end (Number): last value (included when reached).
        step (Number): spacing (default 1).
        dtype (ember.dtype, optional): default: the default floating dtype.
        device (ember.device, optional), requires_grad (bool), out (Tensor, optional).

    Example::

        >>> ember.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    from ._ops import creation as _c
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    _warnings.warn("torch.range is deprecated and will be removed in a future release because "
                   "its behavior is inconsistent with Python's range builtin. Instead, use "
                   "torch.arange, which produces values in [start, end).", UserWarning,
                   stacklevel=2)
    vals = []
    for v in (start, end, step):
        if isinstance(v, Tensor):
            v = v.item()
        vals.append(v)
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if not all(_math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    n = _b.int(_math.floor((end - start) / step)) + 1
    dt = D._PY2DT.get(dtype, dtype) if dtype.__class__ is type else (
        dtype if dtype is not None else D.get_default_dtype())
    import numpy as _np
    idx = _np.arange(n, dtype=_np.float64)
    arr = start + idx * step if dt._cat >= 2 else \
        _np.trunc(start) + idx * _b.int(step) if isinstance(step, _b.int) else start + idx * step
    res = _c.tensor(arr, dtype=dt, device=device)
    if out is not None:
        from ._ops._util import write_out
        return write_out(res, out, 'range')
    if requires_grad:
        res.requires_grad_(True)
    return res


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of an object with the buffer protocol (``bytearray``,
    ``memoryview``, ``array.array``...), sharing its memory: skips ``offset`` bytes and
    reads ``count`` elements of ``dtype`` (-1: all that follow).

    Args:
        buffer (buffer): the memory.
        dtype (ember.dtype): element type.
        count (int): number of elements (-1: all).
        offset (int): bytes to skip.
        requires_grad (bool): record operations for autograd.

    NOTE: unlike PyTorch, a read-only buffer (``bytes``) is copied after the same warning
    (PyTorch makes a tensor that writes into it).

    Example::

        >>> b = bytearray([1, 0, 0, 0, 2, 0, 0, 0])
        >>> ember.frombuffer(b, dtype=ember.int32)
        tensor([1, 2], dtype=torch.int32)
    """
    import numpy as _np
    from ._ops._util import wrap
    from ._ops import _args
    count = _args.overflow(_args.as_int(count, 'frombuffer', 'count'))
    offset = _args.overflow(_args.as_int(offset, 'frombuffer', 'offset'))
    dtype = _args.as_dtype(dtype, 'frombuffer')
    mv = memoryview(buffer)
    nbytes = mv.nbytes
    isz = dtype.itemsize
    if not (nbytes > 0):
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not (0 <= offset < nbytes):
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({nbytes} bytes) minus 1")
    if count == 0 or (count < 0 and (nbytes - offset) % isz != 0):
        if count == 0:
            raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
        raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({isz})")
    if count < 0:
        count = (nbytes - offset) // isz
    elif offset + count * isz > nbytes:
        raise ValueError(f"requested buffer length ({count} * {isz} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({nbytes} bytes)")
    if mv.readonly:
        _warnings.warn("The given buffer is not writable, and PyTorch does not support "
                       "non-writable tensors. This means you can write to the underlying "
                       "(supposedly non-writable) buffer using the tensor. You may want to copy "
                       "the buffer to protect its data or make it writable before converting it "
                       "to a tensor. This type of warning will be suppressed for the rest of "
                       "this program.", UserWarning, stacklevel=2)
    arr = _np.frombuffer(mv.cast('B') if mv.format != 'B' or mv.ndim != 1 else mv,
                         dtype=dtype._np, count=count, offset=offset)
    if mv.readonly:
        arr = arr.copy()   # NOTE: unlike PyTorch, a read-only buffer is copied
    t = wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """A 1-D tensor of ``size`` elements read from the binary file ``filename``. With
    ``shared=True`` the tensor maps the file: writes go to the file (which must hold at
    least ``size`` elements); otherwise the values are copied.

    Args:
        filename (str): the file.
        shared (bool): map the file (share memory with it).
        size (int): number of elements.
        dtype (ember.dtype, optional): default: the default floating dtype.

    Example::

        >>> ember.tensor([1., 2.]).numpy().tofile('/tmp/x.bin')
        >>> ember.from_file('/tmp/x.bin', size=2)
        tensor([1., 2.])
    """
    import numpy as _np
    from ._ops._util import wrap
    from ._ops import _args
    from ._storage import UntypedStorage, view_of
    size = _args.overflow(_args.as_int(size, 'from_file', 'size', 3))
    dt = D._PY2DT.get(dtype, dtype) if dtype.__class__ is type else (
        dtype if dtype is not None else D.get_default_dtype())
    nbytes = size * dt.itemsize
    if nbytes > (1 << 63) - 1:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot "
                           "allocate memory (12)")
    st = UntypedStorage.from_file(filename, bool(shared), nbytes)
    t = wrap(view_of(st, _np.dtype(dt._np), 0, (size,), (1,), 'from_file'))
    t._st = st
    return t


def get_device(input):
    """The CUDA device index of ``input``, or -1 on the CPU.

    Example::

        >>> ember.get_device(ember.ones(1))
        -1
    """
    return input.get_device()


def get_device_module(device=None):
    """The module of a device type (``ember.cuda``, ``ember.cpu``...): of ``device``, or
    of the current accelerator (``ember.cpu`` without one).

    Example::

        >>> ember.get_device_module('cpu').__name__
        'ember.cpu'
    """
    import importlib
    from ._device import device as _dev
    if isinstance(device, _dev):
        name = device.type
    elif isinstance(device, str):
        name = _dev(device).type
    elif device is None:
        from . import cuda
        name = 'cuda' if cuda.is_available() else 'cpu'
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           f"None")
    try:
        return importlib.import_module('ember.' + name)
    except ImportError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.") from None


def init_num_threads():
    """Initialize the intra-op thread pool of the calling thread (nothing to do in ember).

    Example::

        >>> ember.init_num_threads()
    """
    return None


def is_signed(input):
    """True when ``input``'s dtype is signed.

    Example::

        >>> ember.is_signed(ember.ones(1, dtype=ember.uint8))
        False
    """
    return input.is_signed()


_LEGACY_BY_NAME = {'torch.' + n: globals()[n] for n in (
    'FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor', 'IntTensor',
    'ShortTensor', 'CharTensor', 'ByteTensor', 'BoolTensor')}


def set_default_tensor_type(t):
    """Deprecated: set the default floating dtype from a legacy tensor type
    (``ember.DoubleTensor`` or ``'torch.DoubleTensor'``). Warns; use
    :func:`set_default_dtype`.

    Example::

        >>> ember.set_default_tensor_type(ember.DoubleTensor)
        >>> ember.get_default_dtype()
        torch.float64
    """
    _warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                   "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                   UserWarning, stacklevel=2)
    if isinstance(t, str):
        cls = _LEGACY_BY_NAME.get(t)
        if cls is None and t.startswith('torch.cuda.'):
            cls = _LEGACY_BY_NAME.get('torch.' + t[len('torch.cuda.'):])
            if cls is not None:
                from . import cuda
                if not cuda.is_available():
                    raise TypeError(f"type {t} not available. Torch not compiled with CUDA "
                                    "enabled.")
        if cls is None:
            raise ValueError(f"invalid type: '{t}'")
        t = cls
    dt = getattr(t, '_legacy_dtype', None) if isinstance(t, type) else None
    if dt is None:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dt)


def set_flush_denormal(mode):
    """Ask the CPU to flush denormal floats to zero.

    NOTE: unlike PyTorch, ember computes with NumPy, which has no flush-to-zero switch:
    this returns False (not supported) and changes nothing.

    Example::

        >>> ember.set_flush_denormal(True)
        False
    """
    if not isinstance(mode, _b.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def thread_safe_generator():
    """The calling DataLoader thread worker's generator, or None elsewhere (ember's data
    loader workers are processes, so always None: the global generator is used).

    Example::

        >>> ember.thread_safe_generator() is None
        True
    """
    return None


def _assert(condition, message):
    """``assert condition, message`` that FX symbolic tracing can record (a traced
    ``condition`` dispatches through ``__torch_function__``).

    Args:
        condition (bool or Tensor): must be true.
        message (str): the ``AssertionError``'s message.

    Example::

        >>> ember._assert(ember.tensor(2) > 1, "must be positive")
    """
    if type(condition) is not Tensor:
        from . import overrides
        if overrides.has_torch_function((condition,)):
            return overrides.handle_torch_function(_assert, (condition,), condition, message)
    if not condition:
        raise AssertionError(message)


_assert.__module__ = 'ember'      # public as ember._assert (FX writes ``torch._assert``)


def typename(obj):
    """A readable type name: the legacy tensor type of a tensor (``'torch.FloatTensor'``),
    else ``module.qualname`` of ``obj``'s class (the class name for builtins).

    Example::

        >>> ember.typename(ember.ones(1))
        'torch.FloatTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = ''
    class_name = ''
    if hasattr(obj, '__module__') and obj.__module__ != 'builtins' and \
            obj.__module__ != '__builtin__' and obj.__module__ is not None:
        module = obj.__module__ + '.'
    if hasattr(obj, '__qualname__'):
        class_name = obj.__qualname__
    elif hasattr(obj, '__name__'):
        class_name = obj.__name__
    else:
        class_name = obj.__class__.__name__
    return module + class_name


def compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
            options=None, disable=False):
    """Compile a function or module for speed.

    NOTE: unlike PyTorch, ember has no compiler: code written for ``torch.compile`` runs
    eagerly. As in PyTorch, a module comes back wrapped in an
    :class:`ember.compiler.OptimizedModule` (its ``state_dict`` keys start with
    ``_orig_mod.``), a function as a wrapper that calls it (``@ember.compile`` and
    ``@ember.compile(mode=...)`` work as decorators), and ``disable=True`` returns
    ``model`` itself.

    Args:
        model (Callable or Module, optional): what to compile.
        fullgraph, dynamic, backend, mode, options, disable: accepted and ignored.

    Example::

        >>> f = ember.compile(lambda x: x * 2)
        >>> f(ember.ones(2))
        tensor([2., 2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if not callable(model):
        raise RuntimeError(f"compile(): expected a callable, got {type(model).__name__}")
    if disable:
        return model
    from .nn.modules.module import Module
    if isinstance(model, Module):
        from .compiler import OptimizedModule
        return OptimizedModule(model)
    import functools

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    compiled._torchdynamo_orig_callable = model
    return compiled


# ------------------------------------------------------------------ streams, events, futures
_DEVICE_TYPE_IDS = {'cpu': 0, 'cuda': 1, 'meta': 9}


class Stream:
    """A device-agnostic stream: an ordered queue of work on a device. On the CPU (and in
    ember, where every op runs in order) work is done when it is issued.

    Args:
        device (device or str, optional): default: the current accelerator, else CPU.
        priority (int): accepted for PyTorch compatibility.

    Example::

        >>> s = ember.Stream()
        >>> s.query()
        True
    """

    def __init__(self, device=None, priority=0, **kwargs):
        from ._device import device as _dev
        d = _dev('cpu') if device is None else (device if isinstance(device, _dev) else
                                                 _dev(device))
        self.device = d
        self.device_type = _DEVICE_TYPE_IDS.get(d.type, 0)   # PyTorch's DeviceType number
        self.device_index = -1 if d.type == 'cpu' else (d.index or 0)
        self.stream_id = 0

    def query(self):
        """True: all work queued on this stream is done."""
        return True

    def synchronize(self):
        """Wait for the stream's work (done already)."""
        return None

    def _no_events(self):
        if self.device.type == 'cpu':
            raise RuntimeError("cpu backend doesn't support events.")

    def record_event(self, event=None):
        """Record an event on this stream (not on the CPU, as in PyTorch)."""
        self._no_events()
        event = event if event is not None else Event(self.device)
        return event

    def wait_event(self, event):
        """Make later work wait for ``event`` (not on the CPU, as in PyTorch)."""
        self._no_events()

    def wait_stream(self, stream):
        """Make later work wait for ``stream``'s work (not on the CPU, as in PyTorch)."""
        self._no_events()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.stream_id) == \
            (other.device, other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device.type}, device_index="
                f"{self.device_index}, stream_id={self.stream_id}")


class Event:
    """A device-agnostic event: a marker in a stream's work, to wait on or time.

    Args:
        device (device or str, optional): default: the current accelerator, else CPU.
        enable_timing (bool): record times for :meth:`elapsed_time`.
        blocking, interprocess (bool): accepted for PyTorch compatibility.

    Example::

        >>> e = ember.Event()
        >>> e.query()
        True
    """

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        from ._device import device as _dev
        d = _dev('cpu') if device is None else (device if isinstance(device, _dev) else
                                                 _dev(device))
        self.device = d
        self._timing = _b.bool(enable_timing)
        self.event_id = 0
        self._t = None

    def query(self):
        """True: the work before the event is done."""
        return True

    def record(self, stream=None):
        """Record the event in ``stream`` (not on the CPU, as in PyTorch)."""
        if self.device.type == 'cpu':
            raise RuntimeError("cpu backend doesn't support events.")
        import time
        self._t = time.perf_counter()

    def synchronize(self):
        """Wait for the event (done already)."""
        return None

    def wait(self, stream=None):
        """Make ``stream`` wait for the event (done already)."""
        return None

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event`` (both with timing enabled)."""
        if not (self._timing and getattr(end_event, '_timing', False)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._t is None or end_event._t is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._t - self._t) * 1000.0

    def __repr__(self):
        idx = -1 if self.device.type == 'cpu' else (self.device.index or 0)
        return (f"torch.Event device_type={self.device.type}, device_index={idx}, "
                f"event_flag={_b.int(self._timing)}, event_id={self.event_id}")


from .futures import Future  # noqa: E402  (ember.Future is torch.Future)


class OutOfMemoryError(RuntimeError):
    """Raised when a device runs out of memory (a ``RuntimeError``)."""


class AcceleratorError(RuntimeError):
    """Raised for an error reported by an accelerator's runtime (a ``RuntimeError``)."""


# ------------------------------------------------------------------ symbolic numbers
class _SymNumber:
    """A symbolic number as the compiler traces it.

    NOTE: unlike PyTorch, ember has no tracing compiler: a ``SymInt`` / ``SymFloat`` /
    ``SymBool`` only wraps a concrete value and behaves as it (arithmetic, comparisons,
    conversions), so code that checks ``isinstance(x, ember.SymInt)`` runs."""
    __slots__ = ('_v',)
    _type = object

    def __init__(self, value):
        self._v = self._type(value)

    def __repr__(self):
        return repr(self._v)

    def __hash__(self):
        return hash(self._v)

    def __bool__(self):
        return _b.bool(self._v)

    def __int__(self):
        return _b.int(self._v)

    def __float__(self):
        return _b.float(self._v)

    def __index__(self):
        return _b.int(self._v)


def _sym_ops(cls):
    import operator as op
    for name in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'and', 'or', 'xor',
                 'lshift', 'rshift'):
        f = getattr(op, name + '_' if name in ('and', 'or') else name)

        def fwd(self, other, f=f):
            return f(self._v, other._v if isinstance(other, _SymNumber) else other)

        def rev(self, other, f=f):
            return f(other._v if isinstance(other, _SymNumber) else other, self._v)
        setattr(cls, f'__{name}__', fwd)
        setattr(cls, f'__r{name}__', rev)
    for name in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
        f = getattr(op, name)
        setattr(cls, f'__{name}__', lambda self, o, f=f: f(self._v, o._v if isinstance(
            o, _SymNumber) else o))
    cls.__neg__ = lambda self: -self._v
    cls.__abs__ = lambda self: abs(self._v)
    return cls


@_sym_ops
class SymInt(_SymNumber):
    """A symbolic integer (see the NOTE of the symbolic numbers: wraps a concrete int).

    Example::

        >>> ember.SymInt(3) + 1
        4
    """
    __slots__ = ()
    _type = _b.int


@_sym_ops
class SymFloat(_SymNumber):
    """A symbolic float (wraps a concrete float; see :class:`SymInt`).

    Example::

        >>> ember.SymFloat(1.5) * 2
        3.0
    """
    __slots__ = ()
    _type = _b.float

    def is_integer(self):
        """Whether the value is integral."""
        return self._v.is_integer()


@_sym_ops
class SymBool(_SymNumber):
    """A symbolic bool (wraps a concrete bool; see :class:`SymInt`).

    Example::

        >>> bool(ember.SymBool(True))
        True
    """
    __slots__ = ()
    _type = _b.bool


class Tag(_enum.Enum):
    """The tags PyTorch attaches to operators (``core``, ``pointwise``, ``inplace_view``...).
    Ember's ops carry none; the enum is here for code that names them.

    Example::

        >>> ember.Tag.pointwise.name
        'pointwise'
    """
    core = 0
    cudagraph_unsafe = 1
    data_dependent_output = 2
    dynamic_output_shape = 3
    flexible_layout = 4
    generated = 5
    inplace = 6
    inplace_view = 7
    maybe_aliasing_or_mutating = 8
    needs_contiguous_strides = 9
    needs_exact_strides = 10
    needs_fixed_stride_order = 11
    nondeterministic_bitwise = 12
    nondeterministic_seeded = 13
    out = 14
    out_variant = 15
    pointwise = 16
    pt2_compliant_tag = 17
    reduction = 18
    view_copy = 19


__all__ += ['layout', 'strided', 'range', 'frombuffer', 'from_file', 'get_device',
            'get_device_module', 'init_num_threads', 'is_signed', 'set_default_tensor_type',
            'set_flush_denormal', 'thread_safe_generator', 'typename', 'compile', 'Stream',
            'Event', 'Future', 'OutOfMemoryError', 'AcceleratorError', 'SymInt', 'SymFloat',
            'SymBool', 'Tag']
