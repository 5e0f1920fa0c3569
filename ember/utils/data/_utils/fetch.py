"""Fetchers: turn one (batch of) index(es) from the sampler into collated data."""
from ..dataset import _TensorBatch
from .collate import default_collate


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """Take the next item(s) of the dataset's iterator (``StopIteration`` at its end)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """Index the dataset (``__getitems__`` for a whole batch when it has one)."""

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            many = getattr(self.dataset, '__getitems__', None)
            if many:
                data = many(possibly_batched_index)
                if type(data) is _TensorBatch and self.collate_fn is not default_collate:
                    data = list(data)   # a custom collate_fn gets a plain list, as in PyTorch
            else:
                data = [self.dataset[i] for i in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)
