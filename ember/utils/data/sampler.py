"""Samplers: iterables of dataset indices (or of batches of indices) for the DataLoader.

The random samplers make the same draws as PyTorch's, so after the same seed they give the
same indices."""
import itertools
from typing import Generic, TypeVar

__all__ = ['BatchSampler', 'RandomSampler', 'Sampler', 'SequentialSampler',
           'SubsetRandomSampler', 'WeightedRandomSampler']

_T_co = TypeVar('_T_co', covariant=True)


def _fresh_generator_from_global():
    """A new generator seeded by one int64 draw from the global generator (PyTorch's rule
    for a sampler given no generator)."""
    from ... import random as R
    from ..._ops.creation import empty
    from ..._dtype import int64
    seed = int(empty((), dtype=int64).random_().item())
    g = R.Generator()
    g.manual_seed(seed)
    return g


class Sampler(Generic[_T_co]):
    """Base class of samplers: subclasses implement ``__iter__`` (indices, or lists of
    indices for a batch sampler) and may implement ``__len__``.

    Example::

        >>> class Reverse(Sampler):
        ...     def __init__(self, n): self.n = n
        ...     def __iter__(self): return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self): return self.n
    """

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    Args:
        data_source (Sized): the dataset.

    Example::

        >>> list(SequentialSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order: a permutation (repeated, then cut, when ``num_samples``
    exceeds the length), or ``num_samples`` draws with replacement (in chunks of 32).

    Args:
        data_source (Sized): the dataset.
        replacement (bool): draw with replacement. Default: False.
        num_samples (int, optional): how many indices. Default: ``len(data_source)``.
        generator (Generator, optional): the generator; when None, each iteration seeds a
            fresh generator with one draw from the global generator (as PyTorch does).

    Example::

        >>> ember.manual_seed(0); list(RandomSampler(range(5)))
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices an iteration gives."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from ..._ops.random_ops import randperm, randint
        from ..._dtype import int64
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator_from_global()
        k = self.num_samples
        if self.replacement:
            for _ in range(k // 32):
                yield from randint(high=n, size=(32,), dtype=int64, generator=g).tolist()
            yield from randint(high=n, size=(k % 32,), dtype=int64, generator=g).tolist()
        else:
            for _ in range(k // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[:k % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order (one permutation per iteration).

    Args:
        indices (sequence): the indices.
        generator (Generator, optional): the generator (default: the global one).

    Example::

        >>> list(SubsetRandomSampler([10, 20, 30]))
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from ..._ops.random_ops import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices ``0 .. len(weights)-1`` drawn with probabilities proportional to
    ``weights`` (one ``multinomial`` call per iteration).

    Args:
        weights (sequence): non-negative weights (need not sum to one).
        num_samples (int): how many indices.
        replacement (bool): draw with replacement. Default: True.
        generator (Generator, optional): the generator.

    Example::

        >>> list(WeightedRandomSampler([0.1, 0.9, 0.4], 5))
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ..._ops.creation import as_tensor
        from ..._dtype import float64
        w = as_tensor(weights, dtype=float64)
        if len(w.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ..._ops.random_ops import multinomial
        yield from iter(multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size``.

    Args:
        sampler (Sampler or Iterable): the index sampler.
        batch_size (int): batch size.
        drop_last (bool): drop a last batch smaller than ``batch_size``.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        bs = self.batch_size
        if self.drop_last:
            yield from (list(b) for b in zip(*([it] * bs)))
        else:
            batch = list(itertools.islice(it, bs))
            while batch:
                yield batch
                batch = list(itertools.islice(it, bs))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
