"""Autocast: run chosen ops in a lower-precision floating dtype inside a region.

The state (enabled flag and dtype per device type, cache flag, nesting depth) is
thread-local, as in PyTorch. Ops see it through :func:`cast_args`, which the op dispatcher
calls with each op's public name and arguments while any thread has autocast on.
"""
import functools
import threading
import warnings

from .. import _dtype as D
from . import _lists

__all__ = ['autocast', 'custom_fwd', 'custom_bwd', 'is_autocast_available']

_AUTOCAST_DEVICES = ('cpu', 'cuda', 'mps', 'xpu', 'hpu', 'xla', 'ipu', 'mtia', 'maia',
                     'privateuseone')
_DEFAULT_DTYPES = {'cpu': D.bfloat16, 'cuda': D.float16, 'mps': D.float16, 'xpu': D.float16,
                   'hpu': D.bfloat16, 'xla': D.bfloat16, 'ipu': D.float16, 'mtia': D.float16,
                   'maia': D.float16, 'privateuseone': D.float16}


class _State(threading.local):
    def __init__(self):
        self.enabled = {}      # device type -> bool (absent: False)
        self.dtypes = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.any = False       # any device type enabled in this thread
        self.excluded = 0      # >0 while a cast op runs: its inner ops are not cast again


_state = _State()
_lock = threading.Lock()
_threads_on = 0        # threads with autocast enabled for some device type
_hook = None           # the dispatcher handle while installed
_cache = {}            # id(fp32 leaf) -> (weakref, cast tensor)
_cache_lock = threading.Lock()


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _AUTOCAST_DEVICES:
        from .._device import device
        device(device_type)   # raises PyTorch's "Expected one of ..." for unknown names
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_available(device_type):
    """Whether autocast is available for ``device_type`` (``'cpu'``, ``'cuda'``...).

    Example::

        >>> ember.amp.is_autocast_available('cpu')
        True
    """
    return device_type in _AUTOCAST_DEVICES


def _sync_hook():
    """Install the dispatcher transform while some thread has autocast on."""
    global _hook
    if _threads_on and _hook is None:
        try:
            from .._ops import _dispatch
        except ImportError:
            return
        push = getattr(_dispatch, 'push_interceptor', None)
        if push is not None:
            _hook = push(_intercept)
    elif not _threads_on and _hook is not None:
        h, _hook = _hook, None
        h.remove()


def _set_enabled(device_type, enabled):
    global _threads_on
    st = _state
    st.enabled[device_type] = bool(enabled)
    now = any(st.enabled.values())
    if now != st.any:
        st.any = now
        with _lock:
            _threads_on += 1 if now else -1
            _sync_hook()


def is_autocast_enabled(device_type=None):
    """Whether autocast is on in this thread for ``device_type`` (CUDA when omitted).

    Example::

        >>> with ember.autocast('cpu'):
        ...     ember.is_autocast_enabled('cpu')
        True
    """
    return _state.enabled.get('cuda' if device_type is None else device_type, False)


def set_autocast_enabled(device_type, enabled=None):
    """Turn autocast on or off in this thread for ``device_type``; ``set_autocast_enabled(b)``
    (one argument) sets CUDA's, as in PyTorch's older form."""
    if enabled is None:
        device_type, enabled = 'cuda', device_type
    _set_enabled(device_type, enabled)


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type`` in this thread (CPU: bfloat16, CUDA:
    float16 unless set).

    Example::

        >>> ember.get_autocast_dtype('cpu')
        torch.bfloat16
    """
    try:
        return _state.dtypes[device_type]
    except KeyError:
        _check_device_type(device_type)
        raise


def set_autocast_dtype(device_type, dtype):
    """Set the dtype autocast casts to on ``device_type`` in this thread."""
    _check_device_type(device_type)
    _state.dtypes[device_type] = dtype


def is_autocast_cache_enabled():
    """Whether autocast caches the low-precision casts of float32 leaf tensors (weights)."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Turn the weight-cast cache on or off in this thread."""
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Drop the cached low-precision casts of weights."""
    with _cache_lock:
        _cache.clear()


def autocast_increment_nesting():
    """Enter one autocast nesting level; returns the new depth."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    """Leave one autocast nesting level; returns the new depth (0: the cache may be cleared)."""
    _state.nesting -= 1
    return _state.nesting


# deprecated per-device spellings
def is_autocast_cpu_enabled():
    """Deprecated: ``is_autocast_enabled('cpu')``."""
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use "
                  "torch.is_autocast_enabled('cpu') instead.", DeprecationWarning, stacklevel=2)
    return is_autocast_enabled('cpu')


def set_autocast_cpu_enabled(enabled):
    """Deprecated: ``set_autocast_enabled('cpu', enabled)``."""
    warnings.warn("torch.set_autocast_cpu_enabled(enabled) is deprecated. Please use "
                  "torch.set_autocast_enabled('cpu', enabled) instead.", DeprecationWarning,
                  stacklevel=2)
    _set_enabled('cpu', enabled)


def get_autocast_cpu_dtype():
    """Deprecated: ``get_autocast_dtype('cpu')``."""
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cpu') instead.", DeprecationWarning, stacklevel=2)
    return get_autocast_dtype('cpu')


def set_autocast_cpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype('cpu', dtype)``."""
    warnings.warn("torch.set_autocast_cpu_dtype(dtype) is deprecated. Please use "
                  "torch.set_autocast_dtype('cpu', dtype) instead.", DeprecationWarning,
                  stacklevel=2)
    set_autocast_dtype('cpu', dtype)


def get_autocast_gpu_dtype():
    """Deprecated: ``get_autocast_dtype('cuda')``."""
    warnings.warn("torch.get_autocast_gpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cuda') instead.", DeprecationWarning, stacklevel=2)
    return get_autocast_dtype('cuda')


def set_autocast_gpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype('cuda', dtype)``."""
    warnings.warn("torch.set_autocast_gpu_dtype(dtype) is deprecated. Please use "
                  "torch.set_autocast_dtype('cuda', dtype) instead.", DeprecationWarning,
                  stacklevel=2)
    set_autocast_dtype('cuda', dtype)


# --------------------------------------------------------------------------- casting
def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _first_device_type(args, kwargs, T):
    for a in args:
        if isinstance(a, T):
            return a.device.type
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, T):
                    return b.device.type
    for a in kwargs.values():
        if isinstance(a, T):
            return a.device.type
    return None


def _eligible(t, dev):
    d = t.dtype
    return d._cat == 2 and d is not D.float64 and t.device.type == dev


def _cast(t, to, dev, lower):
    if t.dtype is to:
        return t
    if (to is lower and t.dtype is D.float32 and _state.cache_enabled and t.requires_grad
            and t.is_leaf and t._base is None):
        key = id(t)
        with _cache_lock:
            hit = _cache.get(key)
        if hit is not None and hit[0]() is t:
            return hit[1]
        out = t.to(to)
        import weakref
        with _cache_lock:
            _cache[key] = (weakref.ref(t), out)
        return out
    return t.to(to)


def _map(x, fn, T):
    if isinstance(x, T):
        return fn(x)
    if isinstance(x, (list, tuple)) and any(isinstance(b, T) for b in x):
        return type(x)(fn(b) if isinstance(b, T) else b for b in x)
    return x


def _intercept(name, call, args, kwargs):
    """The dispatcher interceptor: cast the arguments of a listed op and run it with autocast
    excluded for the ops it calls inside (as PyTorch's autocast kernels do)."""
    st = _state
    if not st.any or st.excluded:
        return call(*args, **kwargs)
    a, k, applied = _plan(name, args, kwargs)
    if not applied:
        return call(*args, **kwargs)
    st.excluded += 1
    try:
        return call(*a, **k)
    finally:
        st.excluded -= 1


def cast_args(op_name, args, kwargs):
    """Cast the floating tensor arguments of op ``op_name`` by this thread's autocast state
    and PyTorch's op lists (:mod:`ember.amp._lists`); returns ``(args, kwargs)`` (the same
    objects when nothing applies: autocast off in this thread, an op in no list, no eligible
    tensor).

    A tensor is eligible when it is floating (not float64) and on the device type whose
    autocast is on; the op's device type is that of its first tensor argument.

    Example::

        >>> a = ember.ones(2, 2)
        >>> with ember.autocast('cpu'):
        ...     args, kw = ember.amp.autocast_mode.cast_args('mm', (a, a), {})
        >>> args[0].dtype
        torch.bfloat16
    """
    st = _state
    if not st.any or st.excluded:
        return args, kwargs
    return _plan(op_name, args, kwargs)[:2]


def _plan(op_name, args, kwargs):
    """``(args, kwargs, applied)``: the cast arguments, and whether ``op_name`` is in this
    device type's lists (its inner ops then run with autocast excluded)."""
    st = _state
    table = _lists.POLICIES
    T = _tensor_cls()
    dev = _first_device_type(args, kwargs, T)
    if dev is None or not st.enabled.get(dev) or dev not in table:
        return args, kwargs, False
    pol = table[dev].get(op_name)
    if pol is None:
        return args, kwargs, False
    lower = st.dtypes[dev]
    if pol is _lists.BANNED:
        raise RuntimeError(_lists.BANNED_MESSAGE)
    if pol is _lists.FP32_SET_DTYPE:
        first = args[0] if args else None
        if (isinstance(first, T) and _eligible(first, dev) and kwargs.get('dtype') is None
                and not any(isinstance(a, D.dtype) for a in args)):
            kwargs = dict(kwargs)
            kwargs['dtype'] = D.float32
        return args, kwargs, True
    if pol is _lists.LOWER:
        to = lower
    elif pol is _lists.FP32:
        to = D.float32
    else:   # PROMOTE: the widest eligible floating dtype
        to = lower
        for a in list(args) + list(kwargs.values()):
            for b in (a if isinstance(a, (list, tuple)) else (a,)):
                if isinstance(b, T) and _eligible(b, dev):
                    if b.dtype is D.float32:
                        to = D.float32
                    elif b.dtype is not lower and to is not D.float32:
                        raise RuntimeError("Unexpected floating ScalarType in "
                                           "at::autocast::prioritize")

    def fn(t):
        return _cast(t, to, dev, lower) if _eligible(t, dev) else t

    args = tuple(_map(a, fn, T) for a in args)
    if kwargs:
        kwargs = {k: _map(v, fn, T) for k, v in kwargs.items()}
    return args, kwargs, True


# ---------------------------------------------------------------------- context manager
class autocast:
    """Context manager (and decorator) that runs ops of the region in a lower-precision
    dtype where that is safe: matmuls, linear and convolutions in ``dtype``; reductions,
    losses and numerically touchy ops in float32 (PyTorch's op lists, per device type).

    Args:
        device_type (str): ``'cpu'`` or ``'cuda'`` (``'mps'``, ``'xpu'``... are accepted).
        dtype (ember.dtype, optional): the lower-precision dtype; default
            ``ember.get_autocast_dtype(device_type)`` (CPU: bfloat16, CUDA: float16).
        enabled (bool): whether autocast is on in the region. Default: ``True``.
        cache_enabled (bool, optional): cache the casts of float32 weights inside the
            region. Default: ``ember.is_autocast_cache_enabled()``.

    The state is per thread, as in PyTorch: threads started inside the region do not
    autocast unless they enter one themselves.

    Example::

        >>> a = ember.ones(2, 2)
        >>> with ember.autocast('cpu'):
        ...     (a @ a).dtype
        torch.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        enabled = bool(enabled)
        if enabled and device_type == 'cuda':
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                enabled = False
            elif self.fast_dtype not in (D.float16, D.bfloat16):
                warnings.warn("In CUDA autocast, but the target dtype is not supported. "
                              "Disabling autocast.\nCUDA Autocast only supports dtypes of "
                              "torch.float16, torch.bfloat16 currently.")
                enabled = False
        elif enabled and device_type == 'cpu':
            if self.fast_dtype not in (D.bfloat16, D.float16):
                warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                              "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                              "torch.float16 currently.")
                enabled = False
        elif enabled and device_type in ('mps', 'xpu'):
            warnings.warn(f"User provided device_type of '{device_type}', but "
                          f"{device_type.upper()} is not available. Disabling autocast.")
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        st = _state
        self.prev = st.enabled.get(self.device, False)
        self.prev_fastdtype = st.dtypes[self.device]
        self.prev_cache_enabled = st.cache_enabled
        _set_enabled(self.device, self._enabled)
        st.dtypes[self.device] = self.fast_dtype
        st.cache_enabled = self._cache_enabled
        st.nesting += 1
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        st = _state
        st.nesting -= 1
        if st.nesting == 0:
            clear_autocast_cache()
        _set_enabled(self.device, self.prev)
        st.dtypes[self.device] = self.prev_fastdtype
        st.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast

    def __repr__(self):
        return (f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
                f"enabled={self._enabled})")


# ---------------------------------------------------------- custom autograd Functions
def _cast_inputs(value, dev, dtype):
    T = _tensor_cls()
    if isinstance(value, T):
        if value.is_floating_point() and value.device.type == dev and value.dtype is not D.float64:
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast_inputs(k, dev, dtype): _cast_inputs(v, dev, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, dev, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom :class:`ember.autograd.Function` under
    autocast.

    Args:
        device_type (str): the device type whose autocast state applies.
        cast_inputs (ember.dtype, optional): if given and autocast is on, the floating
            inputs are cast to it and ``forward`` runs with autocast off; otherwise
            ``forward`` runs under the surrounding autocast state.

    Example::

        >>> class MyMM(ember.autograd.Function):
        ...     @staticmethod
        ...     @ember.amp.custom_fwd(device_type='cpu', cast_inputs=ember.float32)
        ...     def forward(ctx, a, b):
        ...         return a.mm(b)
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = False
        if on:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_inputs(args, device_type, cast_inputs),
                           **_cast_inputs(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom Function: runs it under the autocast state
    its ``forward`` (decorated with :func:`custom_fwd`) ran under.

    Args:
        bwd (callable, optional): the ``backward`` staticmethod; when omitted, a decorator
            is returned (``@custom_bwd(device_type='cpu')``).
        device_type (str): keyword-only; the device type whose autocast state applies. A
            non-string raises ``ValueError``.

    Example::

        >>> class Square(ember.autograd.Function):
        ...     @staticmethod
        ...     @ember.amp.custom_fwd(device_type='cpu')
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     @ember.amp.custom_bwd(device_type='cpu')
        ...     def backward(ctx, g):
        ...         x, = ctx.saved_tensors
        ...         return 2 * x * g
        >>> x = ember.ones(2, requires_grad=True)
        >>> Square.apply(x).sum().backward()
        >>> x.grad
        tensor([2., 2.])
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
