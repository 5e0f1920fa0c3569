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
from .._backend import cuda_module as _backend_cuda_module

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
           'amp', 'CUDAGraph', 'graph', 'graph_pool_handle', 'make_graphed_callables',
           'graphs']

_NO_CUDA = "Torch not compiled with CUDA enabled"
has_half = True
has_magma = False
default_generators = ()

_initialized = False
_peak = {}            # device index -> [peak allocated, peak reserved]


class CudaError(RuntimeError):
    """An error reported by the CUDA runtime; the message holds the error code."""

    def __init__(self, code):
        super().__init__(f"CUDA error {code}")


def _get_cupy():
    """CuPy, when it is installed and sees a GPU; None otherwise (checked once, by the
    backend: ``ember._backend.cuda_module``)."""
    return _backend_cuda_module()


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
    """The number of CUDA GPUs CuPy can see; 0 without CUDA.

    Example::

        >>> ember.cuda.device_count()   # without a GPU
        0
    """
    cp = _get_cupy()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def is_initialized():
    """Whether :func:`init` has run in this process.

    NOTE: unlike PyTorch, where any CUDA call initialises CUDA lazily, only :func:`init`
    sets this flag in ember.

    Example::

        >>> ember.cuda.is_initialized()   # before ember.cuda.init()
        False
    """
    return _initialized


def init():
    """Initialise CUDA for this process (CuPy is imported and checked).

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.init()
        ...     assert ember.cuda.is_initialized()
    """
    global _initialized
    _need()
    _initialized = True


def current_device():
    """The index of the current CUDA device.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.current_device())
    """
    return int(_need().cuda.runtime.getDevice())


def set_device(device):
    """Make ``device`` the current CUDA device. A negative index is ignored.

    Args:
        device (int, str or ember.device): the device to select.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.set_device(0)
    """
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
    """The properties of a CUDA device: an object with ``name``, ``major``, ``minor``,
    ``total_memory`` (bytes) and ``multi_processor_count``.

    NOTE: unlike PyTorch, only these five fields are reported.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     p = ember.cuda.get_device_properties(0)
        ...     print(p.name, p.total_memory)
    """
    return _CudaDeviceProperties(_props(device))


def get_device_name(device=None):
    """The name of a CUDA device.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.get_device_name(0))
    """
    return get_device_properties(device).name


def get_device_capability(device=None):
    """The compute capability of a CUDA device as ``(major, minor)``.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     major, minor = ember.cuda.get_device_capability()
    """
    p = get_device_properties(device)
    return (p.major, p.minor)


def is_bf16_supported(including_emulation=True):
    """Whether the current CUDA device can compute in bfloat16; False without CUDA.

    Args:
        including_emulation (bool, optional): if True (default), any CUDA device counts (bfloat16
            can be emulated); if False, only devices of compute capability 8.0 or more.

    Example::

        >>> ember.cuda.is_bf16_supported()   # without a GPU
        False
    """
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def is_tf32_supported():
    """Whether the current CUDA device has TF32 tensor cores (compute capability 8.0 or
    more); False without CUDA.

    Example::

        >>> ember.cuda.is_tf32_supported()   # without a GPU
        False
    """
    return is_available() and get_device_capability()[0] >= 8


def get_arch_list():
    """The CUDA architectures ember can run on, as ``'sm_XY'`` strings; ``[]`` without CUDA.

    NOTE: unlike PyTorch, which lists the architectures its kernels were compiled for, ember
    (whose kernels CuPy compiles at run time) lists the current device's architecture.

    Example::

        >>> ember.cuda.get_arch_list()   # without a GPU
        []
    """
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def get_gencode_flags():
    """The ``-gencode`` compiler flags matching :func:`get_arch_list`, joined by spaces;
    ``''`` without CUDA.

    Example::

        >>> ember.cuda.get_gencode_flags()   # without a GPU
        ''
    """
    return ' '.join(f"-gencode compute=compute_{a[3:]},code={a}" for a in get_arch_list())


def synchronize(device=None):
    """Wait until every kernel queued on a CUDA device has finished.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.synchronize()
    """
    cp = _need()
    with cp.cuda.Device(_index(device)):
        cp.cuda.Device().synchronize()


def ipc_collect():
    """Free the CUDA memory that other processes no longer use through IPC handles.

    NOTE: unlike PyTorch, ember does not share CUDA tensors between processes, so there is
    nothing to collect: with CUDA this is a no-op.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.ipc_collect()
    """
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
    with _get_cupy().cuda.Device(idx):
        used, total = int(pool.used_bytes()), int(pool.total_bytes())
    pk = _peak.setdefault(idx, [0, 0])
    pk[0], pk[1] = max(pk[0], used), max(pk[1], total)
    return used, total


def empty_cache():
    """Give the cached, unused blocks of CuPy's memory pool (and of its pinned-memory pool)
    back to the device. Tensors in use are not affected. A no-op without CUDA.

    Example::

        >>> ember.cuda.empty_cache()
    """
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()
        _get_cupy().get_default_pinned_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """The bytes of GPU memory currently used by tensors; 0 without CUDA.

    NOTE: unlike PyTorch, this is the ``used_bytes()`` of CuPy's default memory pool.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.memory_allocated()   # without a GPU
        0
    """
    return _mem(device)[0]


def memory_reserved(device=None):
    """The bytes of GPU memory held by the memory pool, in use or cached; 0 without CUDA.

    NOTE: unlike PyTorch, this is the ``total_bytes()`` of CuPy's default memory pool.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.memory_reserved()   # without a GPU
        0
    """
    return _mem(device)[1]


def max_memory_allocated(device=None):
    """The peak of :func:`memory_allocated` since the last :func:`reset_peak_memory_stats`;
    0 without CUDA.

    NOTE: unlike PyTorch, the peak is the largest value seen by ember's memory queries,
    not one tracked on every allocation.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.max_memory_allocated()   # without a GPU
        0
    """
    if _pool() is None:
        return 0
    _mem(device)
    return _peak[_index(device)][0]


def max_memory_reserved(device=None):
    """The peak of :func:`memory_reserved` since the last :func:`reset_peak_memory_stats`;
    0 without CUDA.

    NOTE: unlike PyTorch, the peak is the largest value seen by ember's memory queries.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.max_memory_reserved()   # without a GPU
        0
    """
    if _pool() is None:
        return 0
    _mem(device)
    return _peak[_index(device)][1]


def memory_cached(device=None):
    """Alias of :func:`memory_reserved` (deprecated: warns with ``FutureWarning``)."""
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
                  FutureWarning)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Alias of :func:`max_memory_reserved` (deprecated: warns with ``FutureWarning``)."""
    warnings.warn("torch.cuda.max_memory_cached has been renamed to torch.cuda.max_memory_reserved",
                  FutureWarning)
    return max_memory_reserved(device)


def memory_stats(device=None):
    """The memory pool's statistics as an ``OrderedDict``; empty without CUDA.

    NOTE: unlike PyTorch, only four keys are reported: ``allocated_bytes.all.current``,
    ``allocated_bytes.all.peak``, ``reserved_bytes.all.current`` and
    ``reserved_bytes.all.peak``.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.memory_stats()   # without a GPU
        OrderedDict()
    """
    import collections
    if _pool() is None:
        return collections.OrderedDict()
    used, total = _mem(device)
    pk = _peak[_index(device)]
    return collections.OrderedDict([
        ('allocated_bytes.all.current', used), ('allocated_bytes.all.peak', pk[0]),
        ('reserved_bytes.all.current', total), ('reserved_bytes.all.peak', pk[1])])


def memory_stats_as_nested_dict(device=None):
    """The statistics of :func:`memory_stats` as nested dicts, split at the dots of the
    keys (``stats['allocated_bytes']['all']['current']``); ``{}`` without CUDA.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> ember.cuda.memory_stats_as_nested_dict()   # without a GPU
        {}
    """
    out = {}
    for k, v in memory_stats(device).items():
        d = out
        *head, last = k.split('.')
        for h in head:
            d = d.setdefault(h, {})
        d[last] = v
    return out


def memory_summary(device=None, abbreviated=False):
    """A printable table of :func:`memory_stats`, one statistic a line.

    NOTE: unlike PyTorch's detailed report, ember prints the four statistics it keeps.
    Without CUDA there are no statistics and this raises ``KeyError``, as PyTorch does.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.
        abbreviated (bool, optional): accepted for compatibility; ignored.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.memory_summary())
    """
    st = memory_stats(device)
    if not st:
        raise KeyError('allocated_bytes.all.current')
    return '\n'.join(f"{k:<32} {v}" for k, v in st.items())


def mem_get_info(device=None):
    """The free and total memory of a CUDA device, in bytes, as the driver reports them.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Returns:
        tuple of two ints: ``(free, total)``.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     free, total = ember.cuda.mem_get_info()
    """
    cp = _need()
    with cp.cuda.Device(_index(device)):
        free, total = cp.cuda.runtime.memGetInfo()
    return int(free), int(total)


def reset_peak_memory_stats(device=None):
    """Restart the peaks of :func:`max_memory_allocated` and :func:`max_memory_reserved`
    from the current values.

    NOTE: unlike PyTorch, which fails with ``AttributeError`` on a build without CUDA, ember
    raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.reset_peak_memory_stats()
    """
    _need()
    _peak.pop(_index(device), None)


def reset_max_memory_allocated(device=None):
    """Restart the peak of :func:`max_memory_allocated`; as :func:`reset_peak_memory_stats`,
    this also restarts the peak of :func:`max_memory_reserved`.

    NOTE: unlike PyTorch, no ``FutureWarning`` is emitted.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.reset_max_memory_allocated()
    """
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Restart the peak of :func:`max_memory_reserved`; as :func:`reset_peak_memory_stats`,
    this also restarts the peak of :func:`max_memory_allocated`.

    NOTE: unlike PyTorch, no ``FutureWarning`` is emitted.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.reset_max_memory_cached()
    """
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    """Reset the accumulated (count) statistics of the memory pool.

    NOTE: unlike PyTorch, ember keeps no accumulated counters: with CUDA this is a no-op.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.reset_accumulated_memory_stats()
    """
    _need()


def set_per_process_memory_fraction(fraction, device=None):
    """Cap CuPy's memory pool at ``fraction`` of the device's total memory; allocations
    beyond it fail.

    Args:
        fraction (float): in ``[0, 1]``; out of range raises ``ValueError``.
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.set_per_process_memory_fraction(0.5)
    """
    cp = _need()
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    with cp.cuda.Device(_index(device)):
        cp.get_default_memory_pool().set_limit(fraction=fraction)


def get_per_process_memory_fraction(device=None):
    """The cap set by :func:`set_per_process_memory_fraction`, as a fraction of the
    device's total memory (1.0 when there is no cap).

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.set_per_process_memory_fraction(0.5)
        ...     print(ember.cuda.get_per_process_memory_fraction())
    """
    cp = _need()
    with cp.cuda.Device(_index(device)):
        limit = cp.get_default_memory_pool().get_limit()
    total = mem_get_info(device)[1]
    return 1.0 if not limit else limit / total


def can_device_access_peer(device, peer_device):
    """Whether CUDA device ``device`` can read the memory of ``peer_device`` directly.

    Args:
        device (int, str or ember.device): the accessing device.
        peer_device (int, str or ember.device): the device whose memory is accessed.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.device_count() > 1:
        ...     print(ember.cuda.can_device_access_peer(0, 1))
    """
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
    """Seed the random generator of the current CUDA device.

    Without CUDA this does nothing (PyTorch defers the call until CUDA is initialised).

    Args:
        seed (int): the seed.

    Example::

        >>> ember.cuda.manual_seed(0)
    """
    for g in _gens(False):
        g.manual_seed(int(seed))


def manual_seed_all(seed):
    """Seed the random generators of every CUDA device with the same seed. A no-op without
    CUDA.

    Args:
        seed (int): the seed.

    Example::

        >>> ember.cuda.manual_seed_all(0)
    """
    for g in _gens(True):
        g.manual_seed(int(seed))


def seed():
    """Seed the random generator of the current CUDA device with a non-deterministic
    seed. A no-op without CUDA.

    Example::

        >>> ember.cuda.seed()
    """
    for g in _gens(False):
        g.seed()


def seed_all():
    """Seed the random generators of every CUDA device with non-deterministic seeds. A
    no-op without CUDA.

    Example::

        >>> ember.cuda.seed_all()
    """
    for g in _gens(True):
        g.seed()


def initial_seed():
    """The seed the current CUDA device's generator started from.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.initial_seed())
    """
    _need()
    return _gens(False)[0].initial_seed()


def get_rng_state(device='cuda'):
    """The state of a CUDA device's random generator, as a ``uint8`` tensor.

    Args:
        device (int, str or ember.device, optional): the CUDA device; ``'cuda'`` (default)
            means the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     state = ember.cuda.get_rng_state()
        ...     ember.cuda.set_rng_state(state)
    """
    _need()
    from .. import random as R
    return R._default_for(_device('cuda', _index(device))).get_state()


def get_rng_state_all():
    """The states of every CUDA device's random generator, as a list of ``uint8`` tensors;
    ``[]`` without CUDA.

    Example::

        >>> ember.cuda.get_rng_state_all()   # without a GPU
        []
    """
    return [g.get_state() for g in _gens(True)]


def set_rng_state(new_state, device='cuda'):
    """Restore a CUDA device's random generator from a state of :func:`get_rng_state`. A
    no-op without CUDA.

    Args:
        new_state (Tensor): the ``uint8`` state.
        device (int, str or ember.device, optional): the CUDA device; ``'cuda'`` (default)
            means the current one.

    Example::

        >>> if ember.cuda.is_available():
        ...     state = ember.cuda.get_rng_state()
        ...     ember.cuda.set_rng_state(state)
    """
    if not is_available():
        return
    from .. import random as R
    R._default_for(_device('cuda', _index(device))).set_state(new_state)


def set_rng_state_all(new_states):
    """Restore the random generators of CUDA devices ``0, 1, ...`` from the states in
    ``new_states`` (as returned by :func:`get_rng_state_all`). A no-op without CUDA.

    Args:
        new_states (sequence of Tensor): one ``uint8`` state per device.

    Example::

        >>> states = ember.cuda.get_rng_state_all()
        >>> ember.cuda.set_rng_state_all(states)
    """
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
    """Context manager that makes the device of tensor ``obj`` the current CUDA device
    inside the ``with`` block; a no-op for a tensor that is not on CUDA.

    Args:
        obj (Tensor): the tensor whose device to select.

    Example::

        >>> x = ember.ones(2)
        >>> with ember.cuda.device_of(x):   # a CPU tensor: nothing changes
        ...     y = x + 1
    """

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == 'cuda' else -1)


class Stream:
    """A CUDA stream (a wrapper of a CuPy stream). Kernels launched while a stream is
    current (``with stream:`` or :func:`set_stream`) are queued on it.

    Without CUDA, creating one raises ``RuntimeError``, as PyTorch does.

    Args:
        device (int, str or ember.device, optional): the stream's device; None (default)
            means the current one.
        priority (int, optional): accepted for compatibility; ignored.

    Example::

        >>> if ember.cuda.is_available():
        ...     s = ember.cuda.Stream()
        ...     with s:
        ...         y = ember.ones(3, device='cuda') * 2
        ...     s.synchronize()
    """

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
    """A CUDA event (a wrapper of a CuPy event): a marker recorded on a stream, to wait for
    or to time work.

    Without CUDA, creating one raises ``RuntimeError``, as PyTorch does.

    Args:
        enable_timing (bool, optional): whether :meth:`elapsed_time` may be used. Default: False.
        blocking (bool, optional): whether :meth:`synchronize` blocks the CPU thread rather
            than spinning. Default: False.
        interprocess (bool, optional): whether the event can be shared between processes.
            Default: False.

    Example::

        >>> if ember.cuda.is_available():
        ...     start = ember.cuda.Event(enable_timing=True)
        ...     end = ember.cuda.Event(enable_timing=True)
        ...     start.record(); y = ember.ones(1000, device='cuda').sum(); end.record()
        ...     end.synchronize()
        ...     print(start.elapsed_time(end))   # milliseconds
    """

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
    """The current CUDA stream of a device, as a :class:`Stream`.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     s = ember.cuda.current_stream()
    """
    cp = _need()
    return Stream(device, _cupy_stream=cp.cuda.get_current_stream())


def default_stream(device=None):
    """The default (null) CUDA stream of a device, as a :class:`Stream`.

    Args:
        device (int, str or ember.device, optional): the CUDA device; None (default) means
            the current one.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     s = ember.cuda.default_stream()
    """
    cp = _need()
    return Stream(device, _cupy_stream=cp.cuda.Stream.null)


def set_stream(stream):
    """Make ``stream`` the current CUDA stream. Passing None does nothing (and needs no
    CUDA).

    Args:
        stream (Stream or None): the stream to select.

    Example::

        >>> ember.cuda.set_stream(None)   # a no-op
    """
    if stream is None:
        return
    stream._s.use()


class StreamContext:
    """Context manager that makes ``stream`` current inside the ``with`` block and restores
    the previous stream on exit. With None it does nothing (and needs no CUDA).

    Args:
        stream (Stream or None): the stream to select.

    Example::

        >>> with ember.cuda.StreamContext(None):   # no stream: a no-op
        ...     pass
    """

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
    """Context manager that runs the ``with`` block on ``stream``; a :class:`StreamContext`.
    With None it does nothing.

    Args:
        stream (Stream or None): the stream to select.

    Example::

        >>> with ember.cuda.stream(None):   # no stream: a no-op
        ...     pass
    """
    return StreamContext(stream)


def is_current_stream_capturing():
    """Whether the current stream is capturing a CUDA graph.

    NOTE: unlike PyTorch, ember cannot capture CUDA graphs, so with CUDA this is always
    False. Without CUDA it raises ``RuntimeError``, as PyTorch does.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.is_current_stream_capturing())
    """
    if not is_available():
        raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")
    return False


_sync_debug_mode = 0


def get_sync_debug_mode():
    """The CUDA synchronisation debug mode: 0 (default), 1 (warn) or 2 (error).

    NOTE: unlike PyTorch, the mode is only stored: ember never warns or raises on a
    synchronising call.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     print(ember.cuda.get_sync_debug_mode())
    """
    _need()
    return _sync_debug_mode


def set_sync_debug_mode(debug_mode):
    """Set the CUDA synchronisation debug mode (see :func:`get_sync_debug_mode`).

    NOTE: unlike PyTorch, the mode is only stored: ember never warns or raises on a
    synchronising call.

    Args:
        debug_mode (int or str): 0 or ``'default'``, 1 or ``'warn'``, 2 or ``'error'``.

    Without CUDA this raises ``AssertionError('Torch not compiled with CUDA enabled')``.

    Example::

        >>> if ember.cuda.is_available():
        ...     ember.cuda.set_sync_debug_mode('warn')
    """
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


def _legacy_doc(name, dtype):
    return (f"Legacy CUDA {dtype._name} tensor type: ``ember.cuda.{name}(...)`` builds the CPU "
            f"``ember.{name}`` and moves it to the current CUDA device; ``isinstance(t, "
            f"ember.cuda.{name})`` checks a tensor's dtype and that it is on CUDA. Without CUDA, "
            f"calling it raises ``TypeError``.\n\nExample::\n\n"
            f"    >>> isinstance(ember.{name}([1]), ember.cuda.{name})   # a CPU tensor\n"
            f"    False\n")


def _legacy_types():
    from .. import _dtype as D
    names = {'FloatTensor': D.float32, 'DoubleTensor': D.float64, 'HalfTensor': D.float16,
             'BFloat16Tensor': D.bfloat16, 'LongTensor': D.int64, 'IntTensor': D.int32,
             'ShortTensor': D.int16, 'CharTensor': D.int8, 'ByteTensor': D.uint8,
             'BoolTensor': D.bool}
    out = {n: _CudaLegacyMeta(n, (), {'dtype': d, '__module__': 'ember.cuda',
                                      '__doc__': _legacy_doc(n, d)})
           for n, d in names.items()}
    from .._storage import _legacy_storage_classes
    out.update(_legacy_storage_classes('cuda'))
    return out


_LEGACY = _legacy_types()
globals().update(_LEGACY)
__all__ += list(_LEGACY)

from . import amp  # noqa: E402


from . import graphs  # noqa: E402
from .graphs import CUDAGraph, graph, graph_pool_handle, make_graphed_callables  # noqa: E402,F401
