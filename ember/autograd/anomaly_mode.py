"""``detect_anomaly`` / ``set_detect_anomaly``: record forward tracebacks and fail on NaN grads."""
import traceback

__all__ = ['detect_anomaly', 'set_detect_anomaly', 'is_anomaly_enabled']

_enabled = False


def is_anomaly_enabled():
    """Whether anomaly detection is on."""
    return _enabled


class detect_anomaly:
    """Context manager that records each op's forward traceback and, during backward,
    raises when a backward function returns NaN, printing the forward traceback.

    Args:
        check_nan (bool): raise on NaN gradients (default True).

    Example::

        >>> with ember.autograd.detect_anomaly():
        ...     y = x.sqrt(); y.backward()
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        global _enabled
        self.prev = _enabled
        _enabled = self.check_nan

    def __exit__(self, *a):
        global _enabled
        _enabled = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def w(*a, **k):
            with self.__class__(self.check_nan):
                return fn(*a, **k)
        return w


class set_detect_anomaly(detect_anomaly):
    """Turns anomaly detection on or off (function or context manager).

    Args:
        mode (bool): on or off.
        check_nan (bool): raise on NaN gradients.
    """

    def __init__(self, mode, check_nan=True):
        global _enabled
        self.prev = _enabled
        _enabled = bool(mode) and check_nan
        self.mode = mode
        self.check_nan = check_nan

    def __enter__(self):
        pass


def _trace():
    return ''.join(traceback.format_stack()[:-3])
