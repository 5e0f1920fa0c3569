"""``ember.accelerator``: the current accelerator (CUDA when available), device-agnostic.

Without an accelerator, ``is_available()`` is False, ``current_accelerator()`` None,
``device_count()`` 0, and the calls that need a device raise PyTorch's ``RuntimeError``.
"""
__all__ = ['is_available', 'current_accelerator', 'device_count', 'current_device_index',
           'current_device_idx', 'set_device_index', 'set_device_idx', 'device_index',
           'synchronize', 'current_stream', 'set_stream', 'empty_cache', 'memory_allocated',
           'max_memory_allocated', 'memory_reserved', 'max_memory_reserved', 'memory_stats',
           'reset_peak_memory_stats', 'reset_accumulated_memory_stats', 'get_memory_info',
           'get_device_capability']

_NONE = "Cannot access accelerator device when none is available."


def _cuda():
    from . import cuda
    return cuda


def is_available():
    """Whether an accelerator (CUDA) is available.

    Example::

        >>> ember.accelerator.is_available()   # without a GPU
        False
    """
    return _cuda().is_available()


def current_accelerator(check_available=False):
    """The accelerator of this machine as an :class:`ember.device`: ``device('cuda')`` when
    CUDA is available, None otherwise.

    Args:
        check_available (bool, optional): accepted for compatibility; ember only ever reports
            an accelerator that is available.

    Example::

        >>> print(ember.accelerator.current_accelerator())   # on a machine without a GPU
        None
    """
    if not is_available():
        return None
    from ._device import device
    return device('cuda')


def device_count():
    """The number of accelerator devices, 0 without one.

    Example::

        >>> ember.accelerator.device_count()   # without a GPU
        0
    """
    return _cuda().device_count()


def _need():
    if not is_available():
        raise RuntimeError(_NONE)
    return _cuda()


def current_device_index():
    """The index of the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     print(ember.accelerator.current_device_index())
    """
    return _need().current_device()


current_device_idx = current_device_index


def set_device_index(device):
    """Make ``device`` the current accelerator device.

    Args:
        device (int, str or ember.device): the device to select.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     ember.accelerator.set_device_index(0)
    """
    _need().set_device(device)


set_device_idx = set_device_index


class device_index:
    """Context manager that makes ``device`` the current accelerator device inside the
    ``with`` block and restores the previous one on exit.

    Args:
        device (int or None): the device index; None leaves the current device unchanged
            (and then no accelerator is needed).

    Example::

        >>> with ember.accelerator.device_index(None):   # works without an accelerator
        ...     pass
    """

    def __init__(self, device):
        self.idx = device
        self.prev = None

    def __enter__(self):
        if self.idx is not None:
            self.prev = current_device_index()
            set_device_index(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx is not None:
            set_device_index(self.prev)
        return False


def synchronize(device=None):
    """Wait until the work queued on an accelerator device has finished.

    Args:
        device (int, str or ember.device, optional): the device; None (default) means the
            current one.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     ember.accelerator.synchronize()
    """
    _need().synchronize(device)


def current_stream(device=None):
    """The current stream of an accelerator device (an :class:`ember.cuda.Stream`).

    Args:
        device (int, str or ember.device, optional): the device; None (default) means the
            current one.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     s = ember.accelerator.current_stream()
    """
    return _need().current_stream(device)


def set_stream(stream):
    """Make ``stream`` the current stream of its device.

    Args:
        stream (ember.cuda.Stream): the stream to select.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     s = ember.cuda.Stream()
        ...     ember.accelerator.set_stream(s)
    """
    _need().set_stream(stream)


def empty_cache():
    """Give the cached, unused blocks of the accelerator's memory pool back to the device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     ember.accelerator.empty_cache()
    """
    _need().empty_cache()


def memory_allocated(device_index=None):
    """The bytes of accelerator memory currently used by tensors.

    NOTE: unlike PyTorch, the figure is that of CuPy's default memory pool (see
    :func:`ember.cuda.memory_allocated`).

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     print(ember.accelerator.memory_allocated())
    """
    return _need().memory_allocated(device_index)


def max_memory_allocated(device_index=None):
    """The peak of :func:`memory_allocated` since the last
    :func:`reset_peak_memory_stats`.

    NOTE: unlike PyTorch, the peak is the largest value seen by the memory queries, not
    one tracked on every allocation (see :func:`ember.cuda.max_memory_allocated`).

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     print(ember.accelerator.max_memory_allocated())
    """
    return _need().max_memory_allocated(device_index)


def memory_reserved(device_index=None):
    """The bytes of accelerator memory held by the memory pool (in use or cached).

    NOTE: unlike PyTorch, the figure is that of CuPy's default memory pool.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     print(ember.accelerator.memory_reserved())
    """
    return _need().memory_reserved(device_index)


def max_memory_reserved(device_index=None):
    """The peak of :func:`memory_reserved` since the last :func:`reset_peak_memory_stats`.

    NOTE: unlike PyTorch, the peak is the largest value seen by the memory queries.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     print(ember.accelerator.max_memory_reserved())
    """
    return _need().max_memory_reserved(device_index)


def memory_stats(device_index=None):
    """The memory pool's statistics as an ordered dict.

    NOTE: unlike PyTorch, only four keys are reported: ``allocated_bytes.all.current``,
    ``allocated_bytes.all.peak``, ``reserved_bytes.all.current`` and
    ``reserved_bytes.all.peak``.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     stats = ember.accelerator.memory_stats()
    """
    return _need().memory_stats(device_index)


def reset_peak_memory_stats(device_index=None):
    """Restart the peaks reported by :func:`max_memory_allocated` and
    :func:`max_memory_reserved` from the current values.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     ember.accelerator.reset_peak_memory_stats()
    """
    _need().reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None):
    """Reset the accumulated (count) statistics of the memory pool.

    NOTE: unlike PyTorch, ember keeps no accumulated counters, so this only checks that a
    device is there.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     ember.accelerator.reset_accumulated_memory_stats()
    """
    _need().reset_accumulated_memory_stats(device_index)


def get_memory_info(device_index=None):
    """The free and total memory of an accelerator device, in bytes.

    Args:
        device_index (int, str or ember.device, optional): the device; None (default) means
            the current accelerator device.

    Returns:
        tuple of two ints: ``(free, total)``.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     free, total = ember.accelerator.get_memory_info()
    """
    return _need().mem_get_info(device_index)


def get_device_capability(device=None):
    """The compute capability of an accelerator device as ``(major, minor)``.

    NOTE: unlike PyTorch, which returns a dict of supported dtypes, ember returns CUDA's
    ``(major, minor)`` pair (as :func:`ember.cuda.get_device_capability`).

    Args:
        device (int, str or ember.device, optional): the device; None (default) means the
            current one.

    Without an accelerator this raises ``RuntimeError('Cannot access accelerator device
    when none is available.')``.

    Example::

        >>> if ember.accelerator.is_available():
        ...     major, minor = ember.accelerator.get_device_capability()
    """
    return _need().get_device_capability(device)
