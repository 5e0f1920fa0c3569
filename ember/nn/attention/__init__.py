"""``ember.nn.attention``: choosing the scaled-dot-product-attention backend.

NOTE: unlike PyTorch, ember has one SDPA kernel, the math one, and uses it whatever is
selected here; ``sdpa_kernel`` records the selection (the flags of
``ember.backends.cuda``: ``math_sdp_enabled()`` and friends) and restores it on exit, so
code written for PyTorch runs unchanged. The flash-attention implementation registry is
kept as in PyTorch, but no implementation is built in."""
import contextlib
import enum

__all__ = ['SDPBackend', 'sdpa_kernel', 'WARN_FOR_UNFUSED_KERNELS',
           'register_flash_attention_impl', 'activate_flash_attention_impl',
           'list_flash_attention_impls', 'current_flash_attention_impl',
           'restore_flash_attention_impl']

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The backends of scaled dot product attention (for :func:`sdpa_kernel`): ``ERROR``,
    ``MATH``, ``FLASH_ATTENTION``, ``EFFICIENT_ATTENTION``, ``CUDNN_ATTENTION``,
    ``OVERRIDEABLE``. Members convert to int as PyTorch's do.

    Example::

        >>> from ember.nn.attention import SDPBackend
        >>> SDPBackend.MATH, int(SDPBackend.FLASH_ATTENTION)
        (<SDPBackend.MATH: 0>, 1)
    """
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


# name in ember.backends.cuda -> backend
_NAMES = (('cudnn', SDPBackend.CUDNN_ATTENTION), ('flash', SDPBackend.FLASH_ATTENTION),
          ('mem_efficient', SDPBackend.EFFICIENT_ATTENTION), ('math', SDPBackend.MATH),
          ('overrideable', SDPBackend.OVERRIDEABLE))
_state = {'overrideable': True,
          'priority': [0, 3, 1, 2, 4]}   # PyTorch's default order (by int value)


def _flags():
    from ...backends import cuda
    return cuda._sdp


def _current(with_priority=False):
    flags = _flags()
    out = [b for n, b in _NAMES if (flags.get(n) if n in flags else _state[n])]
    if with_priority:
        order = _state['priority']
        out.sort(key=lambda b: order.index(int(b)) if int(b) in order else len(order))
    return out


def _select(backends, set_priority):
    flags = _flags()
    for n, b in _NAMES:
        on = b in backends
        if n in flags:
            flags[n] = on
        else:
            _state[n] = on
    if set_priority:
        mine = [int(b) for b in backends]
        _state['priority'] = mine + [p for p in _state['priority'] if p not in mine]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """A context manager that selects the backends scaled dot product attention may use
    (one :class:`SDPBackend` or a list); the previous selection is restored on exit.

    NOTE: unlike PyTorch, ember always runs its math kernel; the selection is recorded in
    ``ember.backends.cuda``'s flags only.

    Args:
        backends (SDPBackend or list of SDPBackend): the backends to enable.
        set_priority (bool): take the list's order as the backends' priority.
            Default: False

    Example::

        >>> from ember.nn.attention import SDPBackend, sdpa_kernel
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     ember.backends.cuda.flash_sdp_enabled()
        False
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _current(with_priority=set_priority)
    try:
        _select(backends, set_priority)
        yield {}
    finally:
        _select(previous, set_priority)


# ------------------------------------------------------------ flash-attention registry
_IMPLS = {}
_ACTIVE = None


def register_flash_attention_impl(impl, *, register_fn):
    """Registers ``register_fn`` as the way to activate flash-attention implementation
    ``impl`` (ember ships none).

    Args:
        impl (str): the implementation's name (PyTorch's are ``'FA3'``, ``'FA4'``).
        register_fn (callable): called on activation; may return a handle with ``remove()``.

    Example::

        >>> from ember.nn import attention as A
        >>> A.register_flash_attention_impl('mine', register_fn=lambda: None)
        >>> 'mine' in A.list_flash_attention_impls()
        True
    """
    _IMPLS[impl] = register_fn


def activate_flash_attention_impl(impl):
    """Activates a registered flash-attention implementation (after restoring the default).

    Args:
        impl (str): a registered name.

    Example::

        >>> from ember.nn import attention as A
        >>> A.register_flash_attention_impl('x', register_fn=lambda: None)
        >>> A.activate_flash_attention_impl('x')
    """
    global _ACTIVE
    restore_flash_attention_impl()
    fn = _IMPLS.get(impl)
    if fn is None:
        raise ValueError(f"Unknown flash attention impl '{impl}'. Available "
                         f"implementations: {list_flash_attention_impls()}")
    handle = fn()
    if handle is not None:
        _ACTIVE = (impl, handle)


def list_flash_attention_impls():
    """The names of the registered flash-attention implementations.

    Example::

        >>> isinstance(ember.nn.attention.list_flash_attention_impls(), list)
        True
    """
    return list(_IMPLS)


def current_flash_attention_impl():
    """The name of the activated flash-attention implementation, or None for the default.

    Example::

        >>> ember.nn.attention.current_flash_attention_impl() is None
        True
    """
    return None if _ACTIVE is None else _ACTIVE[0]


def restore_flash_attention_impl():
    """Deactivates any activated flash-attention implementation (back to the default).

    Example::

        >>> ember.nn.attention.restore_flash_attention_impl()
    """
    global _ACTIVE
    if _ACTIVE is not None:
        _ACTIVE[1].remove()
        _ACTIVE = None
