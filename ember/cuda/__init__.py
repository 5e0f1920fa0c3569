"""``ember.cuda``: CUDA devices, through CuPy.

Everything here works without a GPU and answers as PyTorch built without CUDA does:
``is_available()`` is False, ``device_count()`` 0, memory queries 0, seeding a no-op, and
the calls that need a device raise ``AssertionError('Torch not compiled with CUDA
enabled')``. With CuPy installed and a GPU present, the calls go to CuPy (imported on first
use; ``import ember`` never imports it).

NOTE: unlike PyTorch, the memory figures are those of CuPy's default memory pool
(``memory_allocated`` = bytes in use, ``memory_reserved`` = bytes held by the pool), and the
``max_*`` peaks are the largest values seen by these queries since the last reset.
"""
import importlib.util
import warnings

from .._device import device as _device

__all__ = ['is_available', 'device_count', 'is_initialized', 'init', 'current_device',
           'set_device', 'get_device_name', 'get_device_capability', 'get_device_properties',
           'synchronize', 'empty_cache', 'memory_allocated', 'max_memory_allocated',
           'memory_reserved', 'max_memory_reserved', 'memory_cached', 'max_memory_cached',
           'memory_stats', 'memory_stats_as_nested_dict', 'memory_summary', 'mem_get_info',
           'reset_peak_memory_stats', 'reset_max_memory_allocated', 'reset_max_memory_cached',
           'reset_accumulated_memory_stats', 'manual_seed', 'manual_seed_all', 'seed',
           'seed_all', 'initial_seed', 'get_rng_state', 'get_rng_state_all', 'set_rng_state',
           'set_rng_state_all', 'is_bf16_supported', 'is_tf32_supported', 'get_arch_list',
           'get_gencode_flags', 'ipc_collect', 'device', 'device_of', 'stream', 'StreamContext',
           'Stream', 'Event', 'current_stream', 'default_stream', 'set_stream',
           'set_per_process_memory_fraction', 'get_per_process_memory_fraction',
           'can_device_access_peer', 'is_current_stream_capturing', 'get_sync_debug_mode',
           'set_sync_debug_mode', 'has_half', 'has_magma', 'default_generators', 'CudaError',
           'amp']

_NO_CUDA = "Torch not compiled with CUDA enabled"
has_half = True
has_magma = False
default_generators = ()

_cupy = None          # the module, once known to be usable
_checked = False
_initialized = False
_peak = {}            # device index -> [peak allocated, peak reserved]


class CudaError(RuntimeError):
    """An error reported by the CUDA runtime."""

    def __init__(self, code):
        super().__init__(f"CUDA error {code}")


def _get_cupy():
    """CuPy, when it is installed and sees a GPU; None otherwise (checked once)."""
    global _cupy, _checked
    if not _checked:
        _checked = True
        if importlib.util.find_spec('cupy') is not None:   # cheap: nothing is imported
            from .._backend import cupy_backend
            if cupy_backend.is_available():
                _cupy = cupy_backend.cupy_module()
    return _cupy


def _need():
    cp = _get_cupy()
    if cp is None:
        raise AssertionError(_NO_CUDA)
    return cp


def _index(dev=None, optional=True):
    """Device index from an int, a string, an ember.device or None (current device)."""
    if dev is None:
        return _need().cuda.runtime.getDevice()
    if isinstance(dev, str):
        dev = _device(dev)
    if isinstance(dev, _device):
        if dev.type != 'cuda':
            raise ValueError(f"Expected a cuda device, but got: {dev}")
        return dev.index if dev.index is not None else _need().cuda.runtime.getDevice()
    return int(dev)


def is_available():
    """True when CuPy is installed and a CUDA GPU is visible.

    Example::

        >>> ember.cuda.is_available()   # on a machine without a GPU
        False
    """
    return _get_cupy() is not None


def device_count():
    """Number of visible CUDA GPUs (0 without CUDA)."""
    cp = _get_cupy()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def is_initialized():
    """Whether CUDA has been initialised in this process."""
    return _initialized


def init():
    """Initialise CUDA (raises without it)."""
    global _initialized
    _need()
    _initialized = True


def current_device():
    """Index of the current CUDA device."""
    return int(_need().cuda.runtime.getDevice())


def set_device(device):
    """Set the current CUDA device."""
    idx = _index(device)
    if idx >= 0:
        _need().cuda.runtime.setDevice(idx)


def _props(device=None):
    cp = _need()
    return cp.cuda.runtime.getDeviceProperties(_index(device))


class _CudaDeviceProperties:
    __slots__ = ('name', 'major', 'minor', 'total_memory', 'multi_processor_count')

    def __init__(self, p):
        n = p['name']
        self.name = n.decode() if isinstance(n, bytes) else n
        self.major, self.minor = p['major'], p['minor']
        self.total_memory = p['totalGlobalMem']
        self.multi_processor_count = p['multiProcessorCount']

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """Properties (name, major, minor, total_memory, multi_processor_count) of a device."""
    return _CudaDeviceProperties(_props(device))


def get_device_name(device=None):
    """Name of a CUDA device (current by default)."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """``(major, minor)`` compute capability of a CUDA device."""
    p = get_device_properties(device)
    return (p.major, p.minor)


def is_bf16_supported(including_emulation=True):
    """Whether the current CUDA device supports bfloat16 (False without CUDA)."""
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def is_tf32_supported():
    """Whether the current CUDA device has TF32 tensor cores (False without CUDA)."""
    return is_available() and get_device_capability()[0] >= 8


def get_arch_list():
    """CUDA architectures this build targets ([] without CUDA)."""
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def get_gencode_flags():
    return ' '.join(f"-gencode compute=compute_{a[3:]},code={a}" for a in get_arch_list())


def synchronize(device=None):
    """Wait for all kernels on a CUDA device to finish."""
    cp = _need()
    with cp.cuda.Device(_index(device)):
        cp.cuda.Device().synchronize()


def ipc_collect():
    _need()


# ------------------------------------------------------------------------------ memory
def _pool():
    cp = _get_cupy()
    return None if cp is None else cp.get_default_memory_pool()


def _mem(device):
    pool = _pool()
    if pool is None:
        return 0, 0
    idx = _index(device)
    with _cupy.cuda.Device(idx):
        used, total = int(pool.used_bytes()), int(pool.total_bytes())
    pk = _peak.setdefault(idx, [0, 0])
    pk[0], pk[1] = max(pk[0], used), max(pk[1], total)
    return used, total


def empty_cache():
    """Release the cached (unused) GPU memory of the pool (no-op without CUDA)."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()
        _get_cupy().get_default_pinned_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes of GPU memory in use by tensors (0 without CUDA)."""
    return _mem(device)[0]


def memory_reserved(device=None):
    """Bytes of GPU memory held by the allocator (0 without CUDA)."""
    return _mem(device)[1]


def max_memory_allocated(device=None):
    """Peak of :func:`memory_allocated` since the last reset (0 without CUDA)."""
    if _pool() is None:
        return 0
    _mem(device)
    return _peak[_index(device)][0]


def max_memory_reserved(device=None):
    """Peak of :func:`memory_reserved` since the last reset (0 without CUDA)."""
    if _pool() is None:
        return 0
    _mem(device)
    return _peak[_index(device)][1]


def memory_cached(device=None):
    """Deprecated name of :func:`memory_reserved`."""
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
                  FutureWarning)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated name of :func:`max_memory_reserved`."""
    warnings.warn("torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved",
                  FutureWarning)
    return max_memory_reserved(device)


def memory_stats(device=None):
    """Allocator statistics (an empty OrderedDict without CUDA)."""
    import collections
    if _pool() is None:
        return collections.OrderedDict()
    used, total = _mem(device)
    pk = _peak[_index(device)]
    return collections.OrderedDict([
        ('allocated_bytes.all.current', used), ('allocated_bytes.all.peak', pk[0]),
        ('reserved_bytes.all.current', total), ('reserved_bytes.all.peak', pk[1])])


def memory_stats_as_nested_dict(device=None):
    out = {}
    for k, v in memory_stats(device).items():
        d = out
        *head, last = k.split('.')
        for h in head:
            d = d.setdefault(h, {})
        d[last] = v
    return out


def memory_summary(device=None, abbreviated=False):
    """A printable summary of :func:`memory_stats`."""
    st = memory_stats(device)
    if not st:
        raise KeyError('allocated_bytes.all.current')
    return '\n'.join(f"{k:<32} {v}" for k, v in st.items())


def mem_get_info(device=None):
    """``(free, total)`` bytes of GPU memory."""
    cp = _need()
    with cp.cuda.Device(_index(device)):
        free, total = cp.cuda.runtime.memGetInfo()
    return int(free), int(total)


def reset_peak_memory_stats(device=None):
    """Reset the peaks reported by ``max_memory_*``."""
    _need()
    _peak.pop(_index(device), None)


def reset_max_memory_allocated(device=None):
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    _need()


def set_per_process_memory_fraction(fraction, device=None):
    """Limit the pool to ``fraction`` of the device's memory."""
    cp = _need()
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    with cp.cuda.Device(_index(device)):
        cp.get_default_memory_pool().set_limit(fraction=fraction)


def get_per_process_memory_fraction(device=None):
    cp = _need()
    with cp.cuda.Device(_index(device)):
        limit = cp.get_default_memory_pool().get_limit()
    total = mem_get_info(device)[1]
    return 1.0 if not limit else limit / total


def can_device_access_peer(device, peer_device):
    cp = _need()
    return bool(cp.cuda.runtime.deviceCanAccessPeer(_index(device), _index(peer_device)))


# ------------------------------------------------------------------------------ random
def _gens(all_devices):
    from .. import random as R
    if not is_available():
        return []
    idx = range(device_count()) if all_devices else [current_device()]
    return [R._default_for(_device('cuda', i)) for i in idx]


def manual_seed(seed):
    """Seed the current CUDA device's generator (no-op without CUDA, as PyTorch defers it)."""
    for g in _gens(False):
        g.manual_seed(int(seed))


def manual_seed_all(seed):
    """Seed every CUDA device's generator (no-op without CUDA)."""
    for g in _gens(True):
        g.manual_seed(int(seed))


def seed():
    """Seed the current CUDA generator non-deterministically (no-op without CUDA)."""
    for g in _gens(False):
        g.seed()


def seed_all():
    """Seed every CUDA generator non-deterministically (no-op without CUDA)."""
    for g in _gens(True):
        g.seed()


def initial_seed():
    """The initial seed of the current CUDA generator."""
    _need()
    return _gens(False)[0].initial_seed()


def get_rng_state(device='cuda'):
    """The state of a CUDA device's generator as a uint8 tensor."""
    _need()
    from .. import random as R
    return R._default_for(_device('cuda', _index(device))).get_state()


def get_rng_state_all():
    """States of every CUDA generator ([] without CUDA)."""
    return [g.get_state() for g in _gens(True)]


def set_rng_state(new_state, device='cuda'):
    """Restore a CUDA generator's state (no-op without CUDA)."""
    if not is_available():
        return
    from .. import random as R
    R._default_for(_device('cuda', _index(device))).set_state(new_state)


def set_rng_state_all(new_states):
    for i, s in enumerate(new_states):
        set_rng_state(s, i)


# ------------------------------------------------------------------- devices, streams
class device:
    """Context manager that makes ``device`` the current CUDA device inside it (``-1`` or
    None: no change).

    Example::

        >>> with ember.cuda.device(-1):
        ...     pass
    """

    def __init__(self, device):
        self.idx = -1 if device is None else _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx == -1:
            return self
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx != -1 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager: the current CUDA device is that of tensor ``obj`` (no-op for a CPU
    tensor)."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == 'cuda' else -1)


class Stream:
    """A CUDA stream (CuPy's). Raises without CUDA, as PyTorch does."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if not is_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        return super().__new__(cls)

    def __init__(self, device=None, priority=0, _cupy_stream=None, **kwargs):
        cp = _need()
        self.device = _device('cuda', _index(device))
        with cp.cuda.Device(self.device.index):
            self._s = _cupy_stream if _cupy_stream is not None else cp.cuda.Stream(non_blocking=True)

    def synchronize(self):
        self._s.synchronize()

    def query(self):
        return self._s.done

    def wait_stream(self, stream):
        self._s.wait_event(stream._s.record())

    def wait_event(self, event):
        self._s.wait_event(event._e)

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    @property
    def cuda_stream(self):
        return self._s.ptr

    def __enter__(self):
        self._ctx = self._s.__enter__()
        return self

    def __exit__(self, *exc):
        self._s.__exit__(*exc)
        return False


class Event:
    """A CUDA event (CuPy's). Raises without CUDA, as PyTorch does."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        if not is_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        return super().__new__(cls)

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self._e = _need().cuda.Event(block=blocking, disable_timing=not enable_timing,
                                     interprocess=interprocess)

    def record(self, stream=None):
        self._e.record(None if stream is None else stream._s)

    def synchronize(self):
        self._e.synchronize()

    def query(self):
        return self._e.done

    def wait(self, stream=None):
        (current_stream() if stream is None else stream)._s.wait_event(self._e)

    def elapsed_time(self, end_event):
        return _need().cuda.get_elapsed_time(self._e, end_event._e)


def current_stream(device=None):
    """The current CUDA stream."""
    cp = _need()
    return Stream(device, _cupy_stream=cp.cuda.get_current_stream())


def default_stream(device=None):
    """The default (null) CUDA stream."""
    cp = _need()
    return Stream(device, _cupy_stream=cp.cuda.Stream.null)


def set_stream(stream):
    """Make ``stream`` current (None: no-op)."""
    if stream is None:
        return
    stream._s.use()


class StreamContext:
    """Context manager that makes ``stream`` current inside it (None: no-op)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            self.stream.__enter__()
        return self

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.__exit__(*exc)
        return False


def stream(stream):
    """Context manager: run the region on ``stream`` (None: no change)."""
    return StreamContext(stream)


def is_current_stream_capturing():
    """Graph capture is not supported: always False (raises without CUDA)."""
    if not is_available():
        raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")
    return False


_sync_debug_mode = 0


def get_sync_debug_mode():
    _need()
    return _sync_debug_mode


def set_sync_debug_mode(debug_mode):
    global _sync_debug_mode
    _need()
    _sync_debug_mode = {'default': 0, 'warn': 1, 'error': 2}.get(debug_mode, debug_mode)


# -------------------------------------------------------------- legacy tensor types
class _CudaLegacyMeta(type):
    def __call__(cls, *args, **kwargs):
        if not is_available():
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled "
                            "with CUDA enabled.")
        from .. import _misc
        return getattr(_misc, cls.__name__)(*args, **kwargs).cuda()

    def __instancecheck__(cls, obj):
        from .._tensor import Tensor
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == 'cuda'


def _legacy_types():
    from .. import _dtype as D
    names = {'FloatTensor': D.float32, 'DoubleTensor': D.float64, 'HalfTensor': D.float16,
             'BFloat16Tensor': D.bfloat16, 'LongTensor': D.int64, 'IntTensor': D.int32,
             'ShortTensor': D.int16, 'CharTensor': D.int8, 'ByteTensor': D.uint8,
             'BoolTensor': D.bool}
    out = {n: _CudaLegacyMeta(n, (), {'dtype': d, '__module__': 'ember.cuda',
                                      '__doc__': f"Legacy CUDA {d._name} tensor type."})
           for n, d in names.items()}
    from .._storage import _legacy_storage_classes
    out.update(_legacy_storage_classes('cuda'))
    return out


_LEGACY = _legacy_types()
globals().update(_LEGACY)
__all__ += list(_LEGACY)

from . import amp  # noqa: E402
