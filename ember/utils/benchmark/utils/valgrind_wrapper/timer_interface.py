"""Callgrind instruction counting (PyTorch's ``valgrind_wrapper.timer_interface``).

NOTE: unlike PyTorch, ember cannot collect instruction counts (that needs Valgrind and
PyTorch's compiled Callgrind bindings): the classes exist so that code naming them imports,
and building one raises ``NotImplementedError``.
"""
from typing import NamedTuple

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "CopyIfCallgrind"]

_MSG = ("{} is not supported by ember: Callgrind instruction counts need Valgrind and "
        "PyTorch's compiled Callgrind bindings.")


class FunctionCount(NamedTuple):
    """One function's instruction count (``count``, ``function``).

    Example::

        >>> FunctionCount(10, 'f').count
        10
    """
    count: int
    function: str


class FunctionCounts:
    """Instruction counts per function (not available).

    Raises:
        NotImplementedError: always.

    Example::

        >>> FunctionCounts()  # doctest: +SKIP
        NotImplementedError: ...
    """

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_MSG.format('FunctionCounts'))


class CallgrindStats:
    """The result of ``Timer.collect_callgrind`` (not available).

    Raises:
        NotImplementedError: always.

    Example::

        >>> CallgrindStats()  # doctest: +SKIP
        NotImplementedError: ...
    """

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_MSG.format('CallgrindStats'))


class CopyIfCallgrind:
    """Marks a global to be copied into a Callgrind subprocess (not available).

    Raises:
        NotImplementedError: always.

    Example::

        >>> CopyIfCallgrind(1)  # doctest: +SKIP
        NotImplementedError: ...
    """

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_MSG.format('CopyIfCallgrind'))
