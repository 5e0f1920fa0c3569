"""DataPipe base classes: datasets whose functional forms (``dp.map(...)``) are registered
with :func:`functional_datapipe`.

NOTE: unlike PyTorch, no built-in DataPipes (map, filter, batch, ...) are provided; only
the base classes and the registration mechanism (DataPipes are deprecated in PyTorch).
"""
from ..dataset import Dataset, IterableDataset

__all__ = ['DataChunk', 'DFIterDataPipe', 'IterDataPipe', 'MapDataPipe']


class _FunctionalMixin:
    functions = {}

    def __getattr__(self, name):
        fns = type(self).functions
        if name in fns:
            cls = fns[name]

            def call(*args, **kwargs):
                return cls(self, *args, **kwargs)
            return call
        raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{name}")

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register):
        """Make ``dp.function_name(*args)`` build ``cls_to_register(dp, *args)``."""
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is "
                            "already taken")
        cls.functions[function_name] = cls_to_register


class IterDataPipe(_FunctionalMixin, IterableDataset):
    """An iterable-style DataPipe: implement ``__iter__``; registered functional forms are
    available as methods.

    Example::

        >>> @functional_datapipe('double')
        ... class Double(IterDataPipe):
        ...     def __init__(self, src): self.src = src
        ...     def __iter__(self): return (2 * x for x in self.src)
    """
    functions = {}

    def __repr__(self):
        return self.__class__.__qualname__

    def reset(self):
        """Reset the DataPipe's state (a no-op by default)."""


class DFIterDataPipe(IterDataPipe):
    """An :class:`IterDataPipe` whose items are DataFrames (``_is_dfpipe()`` answers True).
    Subclasses implement ``__iter__``.

    Example::

        >>> class Frames(DFIterDataPipe):
        ...     def __init__(self, frames): self.frames = frames
        ...     def __iter__(self): return iter(self.frames)
        >>> isinstance(Frames([]), IterDataPipe)
        True
    """

    def _is_dfpipe(self):
        return True


class MapDataPipe(_FunctionalMixin, Dataset):
    """A map-style DataPipe: implement ``__getitem__`` and ``__len__``; functional forms
    registered with :func:`functional_datapipe` are available as methods.

    Example::

        >>> class Squares(MapDataPipe):
        ...     def __init__(self, n): self.n = n
        ...     def __getitem__(self, i): return i * i
        ...     def __len__(self): return self.n
        >>> dp = Squares(3)
        >>> dp[2], len(dp)
        (4, 3)
    """
    functions = {}

    def __repr__(self):
        return self.__class__.__qualname__


class DataChunk(list):
    """A list that marks a batch inside a DataPipe graph.

    Example::

        >>> DataChunk([1, 2]).as_str()
        '[1, 2]'
    """

    def __init__(self, items):
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent=""):
        """The items, as ``indent + str(list)``."""
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self):
        yield from super().__iter__()

    def raw_iterator(self):
        """Iterate the underlying items."""
        yield from self.items
