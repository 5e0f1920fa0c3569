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
    """Ask for deterministic algorithms. Ember's NumPy kernels are always deterministic,
    so this only records the setting (read by :func:`are_deterministic_algorithms_enabled`).

    Args:
        mode (bool): turn deterministic mode on or off.
        warn_only (bool): warn instead of raising for non-deterministic ops.
    """
    global _deterministic, _deterministic_warn_only
    if type(mode) is not _b.bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    _deterministic, _deterministic_warn_only = mode, _b.bool(warn_only)


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
