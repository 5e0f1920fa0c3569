"""Intel ITT annotations (NOTE: unlike PyTorch, ember has no ITT: ``is_available()`` is
False and the range functions do nothing)."""
from contextlib import contextmanager

__all__ = ['is_available', 'range_push', 'range_pop', 'mark', 'range']


def is_available():
    """False: ember has no ITT support."""
    return False


def range_push(msg):
    """Open an ITT range (no-op)."""


def range_pop():
    """Close the innermost ITT range (no-op)."""


def mark(msg):
    """Mark an instant (no-op)."""


@contextmanager
def range(msg, *args, **kwargs):
    """A context manager around an ITT range (no-op)."""
    yield
