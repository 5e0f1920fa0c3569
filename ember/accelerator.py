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
    """``ember.device('cuda')`` when CUDA is available, else None."""
    if not is_available():
        return None
    from ._device import device
    return device('cuda')


def device_count():
    """Number of accelerator devices (0 without one)."""
    return _cuda().device_count()


def _need():
    if not is_available():
        raise RuntimeError(_NONE)
    return _cuda()


def current_device_index():
    """Index of the current accelerator device."""
    return _need().current_device()


current_device_idx = current_device_index


def set_device_index(device):
    """Set the current accelerator device."""
    _need().set_device(device)


set_device_idx = set_device_index


class device_index:
    """Context manager: make ``device`` the current accelerator device inside it (None: no
    change)."""

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
    """Wait for the accelerator's queued work."""
    _need().synchronize(device)


def current_stream(device=None):
    return _need().current_stream(device)


def set_stream(stream):
    _need().set_stream(stream)


def empty_cache():
    _need().empty_cache()


def memory_allocated(device_index=None):
    return _need().memory_allocated(device_index)


def max_memory_allocated(device_index=None):
    return _need().max_memory_allocated(device_index)


def memory_reserved(device_index=None):
    return _need().memory_reserved(device_index)


def max_memory_reserved(device_index=None):
    return _need().max_memory_reserved(device_index)


def memory_stats(device_index=None):
    return _need().memory_stats(device_index)


def reset_peak_memory_stats(device_index=None):
    _need().reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None):
    _need().reset_accumulated_memory_stats(device_index)


def get_memory_info(device_index=None):
    return _need().mem_get_info(device_index)


def get_device_capability(device=None):
    return _need().get_device_capability(device)
