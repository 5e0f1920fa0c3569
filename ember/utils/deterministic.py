"""``ember.utils.deterministic``: settings of deterministic mode
(:func:`ember.use_deterministic_algorithms`).

``fill_uninitialized_memory`` (bool, default True): while deterministic mode is on, memory
that ``empty``, ``empty_like``, ``empty_strided`` and ``resize_`` hand out is filled with
NaN (floating and complex types) or the integer maximum, so that reading it before
writing gives the same values on every run.

Example::

    >>> import ember.utils.deterministic
    >>> ember.utils.deterministic.fill_uninitialized_memory
    True
"""
import sys
import types

from .. import _storage, _misc


class _Deterministic(types.ModuleType):
    """The module type of ``ember.utils.deterministic``: its ``fill_uninitialized_memory``
    attribute is a setting of deterministic mode, checked to be a bool when set."""

    @property
    def fill_uninitialized_memory(self):
        """Whether deterministic mode fills uninitialized memory (default True)."""
        return _storage.fill_memory_flag

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        if type(mode) is not bool:
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _storage.fill_memory_flag = mode
        _storage._sync_fill(_misc._deterministic)


sys.modules[__name__].__class__ = _Deterministic
