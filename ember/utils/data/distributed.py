"""``DistributedSampler``: each of ``num_replicas`` processes gets its own share of the
indices."""
import math

from .sampler import Sampler

__all__ = ['DistributedSampler']


def _dist():
    try:
        from ... import distributed as dist
    except ImportError:
        return None
    return dist if getattr(dist, 'is_available', lambda: False)() else None


class DistributedSampler(Sampler):
    """The indices of rank ``rank`` out of ``num_replicas``: the (optionally shuffled)
    indices are padded by repeating from the start (or cut, with ``drop_last``) to a multiple
    of ``num_replicas``, then rank ``r`` takes every ``num_replicas``-th from ``r``.

    Args:
        dataset (Dataset): the dataset.
        num_replicas (int, optional): number of processes (default: the process group's
            world size).
        rank (int, optional): this process's rank (default: the process group's rank).
        shuffle (bool): shuffle with a generator seeded ``seed + epoch``. Default: True.
        seed (int): the shuffle seed, the same on every rank. Default: 0.
        drop_last (bool): drop the tail instead of padding. Default: False.

    Call :meth:`set_epoch` at the start of each epoch to reshuffle.

    Example::

        >>> s = DistributedSampler(ds, num_replicas=2, rank=0)
        >>> for epoch in range(3):
        ...     s.set_epoch(epoch)
        ...     for batch in DataLoader(ds, sampler=s): ...
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            dist = _dist()
            if dist is None:
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            dist = _dist()
            if dist is None:
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            from ... import random as R
            from ..._ops.random_ops import randperm
            g = R.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match "
                                 f"total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not "
                                 f"match num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch (the shuffle's seed is ``seed + epoch``); call it before each
        epoch so every rank reshuffles the same way.

        Args:
            epoch (int): the epoch number.
        """
        self.epoch = epoch
