"""``ember.cpu``: the CPU device module (the counterpart of ``ember.cuda``)."""
from .._device import device as _device

__all__ = ['is_available', 'is_initialized', 'device_count', 'current_device', 'set_device',
           'synchronize', 'Stream', 'Event', 'StreamContext', 'stream', 'current_stream', 'amp']


def is_available():
    """Always True."""
    return True


def is_initialized():
    return True


def device_count():
    """Always 1."""
    return 1


def current_device():
    """Always ``'cpu'``."""
    return 'cpu'


def set_device(device):
    """No-op: there is one CPU device."""


def synchronize(device=None):
    """No-op: CPU ops run synchronously."""


class Stream:
    """A do-nothing stream: CPU ops run in order."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True


class Event:
    """A do-nothing event."""

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
    return _current


class StreamContext:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)


from . import amp  # noqa: E402
