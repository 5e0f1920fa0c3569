"""``detect_anomaly`` / ``set_detect_anomaly``: record forward tracebacks and fail on NaN grads.

Unlike grad mode, anomaly mode is process-wide, as in PyTorch 2.13 (one flag for all
threads: a thread that turns it on turns it on for every thread). Readers take it as
the module attributes ``_enabled`` / ``_check_nan``; a backward pass reads ``_enabled``
once, when it starts.
"""
import traceback

__all__ = ['detect_anomaly', 'set_detect_anomaly', 'is_anomaly_enabled',
           'is_anomaly_check_nan_enabled', 'set_anomaly_enabled']

_enabled = False     # record forward tracebacks, report them when backward fails
_check_nan = True    # also fail when a backward function returns NaN


def is_anomaly_enabled():
    """Whether anomaly detection is on (see :class:`detect_anomaly`); the setting is
    process-wide.

    Example::

        >>> ember.autograd.anomaly_mode.is_anomaly_enabled()
        False
    """
    return _enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection, when on, also fails a backward pass whose functions
    return NaN (True by default).

    Example::

        >>> ember.autograd.anomaly_mode.is_anomaly_check_nan_enabled()
        True
    """
    return _check_nan


def set_anomaly_enabled(mode, check_nan=True):
    """Turns anomaly detection on or off, for all threads (as PyTorch).

    Args:
        mode (bool): on or off.
        check_nan (bool): also raise when a backward function returns NaN. Default: True.

    Example::

        >>> from ember.autograd import anomaly_mode
        >>> anomaly_mode.set_anomaly_enabled(True, check_nan=False)
        >>> anomaly_mode.is_anomaly_enabled(), anomaly_mode.is_anomaly_check_nan_enabled()
        (True, False)
        >>> anomaly_mode.set_anomaly_enabled(False)
    """
    global _enabled, _check_nan
    _enabled = bool(mode)
    _check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) that records each op's forward traceback and,
    when a backward function fails or (with ``check_nan``) returns NaN, raises and warns
    with the traceback of the forward op that created it.

    Args:
        check_nan (bool): raise on NaN gradients (default True).

    The mode is process-wide, as in PyTorch: it applies to every thread while the
    block runs, and its exit restores the setting seen when it was created.

    Example::

        >>> with ember.autograd.detect_anomaly():
        ...     x = ember.zeros(1, requires_grad=True)
        ...     (x.sqrt() * 0).sum().backward()
        Traceback (most recent call last):
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        import warnings
        self.prev = _enabled
        self.check_nan = check_nan
        self.prev_check_nan = _check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *a):
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def w(*a, **k):
            with self:
                return fn(*a, **k)
        return w


class set_detect_anomaly:
    """Turns anomaly detection on or off, immediately; as a context manager, restores the
    previous setting on exit.

    Args:
        mode (bool): on or off.
        check_nan (bool): raise on NaN gradients.

    Example::

        >>> with ember.autograd.set_detect_anomaly(True):
        ...     pass
    """

    def __init__(self, mode, check_nan=True):
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *a):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


_PKG = __file__.rsplit('autograd', 1)[0]   # .../ember/


def _trace():
    """The current Python stack without ember's own frames (the user's forward call)."""
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_PKG)]
    return ''.join(traceback.format_list(frames))
