"""Datasets: map-style (:class:`Dataset`) and iterable (:class:`IterableDataset`), and the
ways to combine and split them."""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

from collections.abc import Sequence

from ... import random as _random
from ..._tensor import Tensor

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'StackDataset', 'ConcatDataset',
           'ChainDataset', 'Subset', 'random_split']

_T_co = TypeVar('_T_co', covariant=True)


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses implement ``__getitem__(index)`` (and usually
    ``__len__``, which samplers and the DataLoader's length use). ``__getitems__(indices)``
    may be added to fetch a whole batch at once. ``a + b`` concatenates.

    Example::

        >>> class Squares(Dataset):
        ...     def __len__(self): return 10
        ...     def __getitem__(self, i): return i * i
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A dataset that is a stream: subclasses implement ``__iter__``. With DataLoader
    workers each worker iterates its own copy; use :func:`get_worker_info` in ``__iter__``
    to give each worker its share. ``a + b`` chains.

    Example::

        >>> class Range(IterableDataset):
        ...     def __init__(self, n): self.n = n
        ...     def __iter__(self):
        ...         info = ember.utils.data.get_worker_info()
        ...         k, w = (0, 1) if info is None else (info.id, info.num_workers)
        ...         return iter(range(k, self.n, w))
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """A dataset of tensors indexed along their first dimension: item ``i`` is
    ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors with the same size of the first dimension.

    Example::

        >>> ds = TensorDataset(ember.randn(4, 2), ember.arange(4))
        >>> len(ds), ds[1][1]
        (4, tensor(1))
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __getitems__(self, indices):
        # A lazy list of the samples: default_collate gathers each tensor's rows at once
        # (one copy, the same values as stacking the samples); anything else that reads it
        # gets the samples, indexed one by one as __getitem__ does.
        return _TensorBatch(self, indices)

    def __len__(self):
        return self.tensors[0].size(0)


class _TensorBatch(Sequence):
    """The samples ``dataset[i] for i in indices`` of a :class:`TensorDataset`, made on
    first access; :func:`default_collate` gathers rows without making them."""
    __slots__ = ('dataset', 'indices', '_items')

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        self._items = None

    def _samples(self):
        if self._items is None:
            ds = self.dataset
            self._items = [ds[i] for i in self.indices]
        return self._items

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        return self._samples()[i]

    def __iter__(self):
        return iter(self._samples())

    def __eq__(self, other):
        return list(self) == other

    def __repr__(self):
        return repr(self._samples())

    def _gather(self, shared=False):
        """Each tensor's rows at ``indices`` as one tensor (in shared memory when
        ``shared``), or None when the fast path does not apply (grad, subclasses, non-int
        or out-of-range indices: the samples are made and stacked then)."""
        from ..._grad_state import _Mode
        from ..._backend import array_module
        from ..._tensor import _new_tensor
        from ... import _storage as S
        idx = self.indices
        tensors = self.dataset.tensors
        if not len(idx) or not tensors:
            return None
        n = tensors[0].shape[0] if tensors[0].dim() else 0
        for i in idx:
            if type(i) is not int or not -n <= i < n:
                return None
        arrs = []
        for t in tensors:
            if (t._rg and _Mode.grad) or not t.dim() or type(t) is not Tensor:
                return None
            arrs.append(t._data)
        out = []
        for a in arrs:
            xp = array_module(a)
            if shared and type(a) is xp.ndarray and xp.__name__ == 'numpy':
                dst = S._shared_array(S._new_shm(len(idx) * a[0].nbytes),
                                      (len(idx),) + a.shape[1:], a.dtype)
                xp.take(a, idx, axis=0, out=dst)
            else:
                dst = xp.take(a, xp.asarray(idx), axis=0)
            out.append(_new_tensor(dst))
        return out


class StackDataset(Dataset):
    """Datasets of the same length side by side: item ``i`` is the tuple (positional
    datasets) or dict (keyword datasets) of their items ``i``.

    Args:
        *args (Dataset): datasets, giving tuples.
        **kwargs (Dataset): datasets, giving dicts.

    Example::

        >>> ds = StackDataset(image=images, label=labels)
        >>> ds[0]   # {'image': images[0], 'label': labels[0]}
    """

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                                 "``kwargs``) like input/output, but both types are given.")
            parts = args
        elif kwargs:
            parts = list(kwargs.values())
        else:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    @staticmethod
    def _column(dataset, indices):
        many = getattr(dataset, '__getitems__', None)
        if callable(many):
            items = many(indices)
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected "
                                 f"{len(indices)}, got {len(items)}")
            return items
        return [dataset[i] for i in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            out = [{} for _ in indices]
            for k, d in self.datasets.items():
                for sample, v in zip(out, self._column(d, indices)):
                    sample[k] = v
            return out
        cols = [self._column(d, indices) for d in self.datasets]
        return [tuple(row) for row in zip(*cols)] if cols else [() for _ in indices]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other.

    Args:
        datasets (sequence): the datasets (not iterable-style ones).

    Example::

        >>> ds = ConcatDataset([a, b])   # len(ds) == len(a) + len(b)
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of the lengths of ``sequence``'s datasets."""
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        """Deprecated spelling of :attr:`cumulative_sizes`."""
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other (chained lazily).

    Args:
        datasets (iterable): the iterable-style datasets.

    Example::

        >>> list(ChainDataset([ds1, ds2]))
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The items of ``dataset`` at ``indices``.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): the indices to keep, in order.

    Example::

        >>> s = Subset(ds, [0, 2, 4]); s[1] is ds[2]
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing "
                "Subset and overriding __getitem__, you must also override __getitems__ to "
                "ensure DataLoader works correctly with your custom logic. A simple "
                "implementation:\n\ndef __getitems__(self, indices):\n    return "
                "[self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        many = getattr(self.dataset, '__getitems__', None)
        if callable(many):
            return many([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=_random.default_generator):
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s.

    Args:
        dataset (Dataset): the dataset.
        lengths (sequence): the lengths of the splits, or fractions summing to 1 (each
            ``floor(len * frac)``, the remainder then given one by one round-robin from the
            first split).
        generator (Generator): the permutation's generator (default: the global one).

    Returns:
        list of :class:`Subset`: taken from one ``randperm(len(dataset))``, so the same seed
        gives PyTorch's split.

    Example::

        >>> train, val = random_split(range(10), [0.8, 0.2],
        ...                           generator=ember.Generator().manual_seed(42))
    """
    from ..._ops.random_ops import randperm
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(len(dataset) * frac)))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, perm[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths)]
