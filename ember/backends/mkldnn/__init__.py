"""``ember.backends.mkldnn``: oneDNN switches. NOTE: unlike PyTorch, ember does not use
oneDNN; ``is_available()`` is False and ``enabled`` is only stored."""
import contextlib

enabled = True
deterministic = False
allow_tf32 = False

VERBOSE_OFF, VERBOSE_ON, VERBOSE_ON_CREATION = 0, 1, 2


def is_available():
    """False: ember computes with NumPy, not oneDNN."""
    return False


@contextlib.contextmanager
def flags(enabled=False, deterministic=False):
    """Set ``enabled``/``deterministic`` inside the region."""
    g = globals()
    old = (g['enabled'], g['deterministic'])
    g['enabled'], g['deterministic'] = enabled, deterministic
    try:
        yield
    finally:
        g['enabled'], g['deterministic'] = old


class verbose:
    """No-op context manager (oneDNN verbosity)."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


from .._flags import freeze_guard as _freeze_guard  # noqa: E402

_freeze_guard(__name__, ('enabled', 'deterministic', 'allow_tf32'))
