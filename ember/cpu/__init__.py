"""``ember.cpu``: the CPU device module (the counterpart of ``ember.cuda``)."""
from .._device import device as _device

__all__ = ['is_available', 'is_initialized', 'device_count', 'current_device', 'set_device',
           'synchronize', 'Stream', 'Event', 'StreamContext', 'stream', 'current_stream', 'amp']


def is_available():
    """Whether the CPU device can be used: always True.

    Example::

        >>> ember.cpu.is_available()
        True
    """
    return True


def is_initialized():
    """Whether the CPU device is initialised: always True (there is nothing to set up).

    Example::

        >>> ember.cpu.is_initialized()
        True
    """
    return True


def device_count():
    """The number of CPU devices: always 1.

    Example::

        >>> ember.cpu.device_count()
        1
    """
    return 1


def current_device():
    """The current CPU device: always the string ``'cpu'``.

    Example::

        >>> ember.cpu.current_device()
        'cpu'
    """
    return 'cpu'


def set_device(device):
    """Select the CPU device: a no-op, as there is only one.

    Args:
        device (int, str or ember.device): ignored.

    Example::

        >>> ember.cpu.set_device('cpu')
    """


def synchronize(device=None):
    """Wait for the CPU's queued work: a no-op, as CPU ops run synchronously.

    Args:
        device (optional): ignored.

    Example::

        >>> ember.cpu.synchronize()
    """


class Stream:
    """A CPU stream that does nothing: CPU ops run in program order anyway. Its methods
    (``wait_stream``, ``synchronize``, ``query``) are no-ops, ``query`` answering True.

    Args:
        priority (int, optional): ignored.

    Example::

        >>> s = ember.cpu.Stream()
        >>> s.query()
        True
    """

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True


class Event:
    """A CPU event that does nothing: ``record``, ``wait`` and ``synchronize`` are no-ops and
    ``query`` answers True.

    Example::

        >>> e = ember.cpu.Event()
        >>> e.record()
        >>> e.query()
        True
    """

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_current = Stream()


def current_stream(device=None):
    """The current CPU stream: always the same do-nothing :class:`Stream`.

    Args:
        device (optional): ignored.

    Example::

        >>> ember.cpu.current_stream() is ember.cpu.current_stream()
        True
    """
    return _current


class StreamContext:
    """Context manager that would make ``stream`` current; a no-op on the CPU.

    Args:
        stream (Stream or None): ignored.

    Example::

        >>> with ember.cpu.StreamContext(ember.cpu.current_stream()):
        ...     y = ember.ones(2) + 1
    """
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def stream(stream):
    """Context manager running the ``with`` block on ``stream``: a no-op
    :class:`StreamContext` on the CPU.

    Args:
        stream (Stream or None): ignored.

    Example::

        >>> with ember.cpu.stream(ember.cpu.Stream()):
        ...     y = ember.ones(2) + 1
    """
    return StreamContext(stream)


from . import amp  # noqa: E402
