"""Intel ITT annotations (NOTE: unlike PyTorch, ember has no ITT: ``is_available()`` is
False and the range functions do nothing)."""
from contextlib import contextmanager

__all__ = ['is_available', 'range_push', 'range_pop', 'mark', 'range']


def is_available():
    """Whether Intel ITT annotations can be emitted: always False in ember.

    Example::

        >>> ember.profiler.itt.is_available()
        False
    """
    return False


def range_push(msg):
    """Open an ITT range named ``msg`` (NOTE: unlike PyTorch, a no-op).

    Args:
        msg (str): the range's name.

    Example::

        >>> ember.profiler.itt.range_push('forward')
        >>> ember.profiler.itt.range_pop()
    """


def range_pop():
    """Close the innermost ITT range (NOTE: unlike PyTorch, a no-op).

    Example::

        >>> ember.profiler.itt.range_push('forward')
        >>> ember.profiler.itt.range_pop()
    """


def mark(msg):
    """Mark an instant named ``msg`` (NOTE: unlike PyTorch, a no-op).

    Args:
        msg (str): the mark's name.

    Example::

        >>> ember.profiler.itt.mark('epoch start')
    """


@contextmanager
def range(msg, *args, **kwargs):
    """A context manager around an ITT range named ``msg`` (NOTE: unlike PyTorch, a no-op).

    Args:
        msg (str): the range's name; extra arguments are ignored.

    Example::

        >>> with ember.profiler.itt.range('forward'):
        ...     y = ember.ones(2) * 2
    """
    yield
