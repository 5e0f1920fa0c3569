"""``ember.utils.data``: datasets, samplers and the ``DataLoader``.

Worker processes (``num_workers > 0``) are started only when a loader is iterated; the
multiprocessing machinery is imported then, so importing this package stays cheap.
"""
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                      SubsetRandomSampler, WeightedRandomSampler)
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,  # noqa: F401
                      StackDataset, Subset, TensorDataset, random_split)
from .datapipes.datapipe import (DFIterDataPipe, DataChunk, IterDataPipe,  # noqa: F401
                                 MapDataPipe)
from .datapipes._decorator import (argument_validation, functional_datapipe,  # noqa: F401
                                   guaranteed_datapipes_determinism, non_deterministic,
                                   runtime_validation, runtime_validation_disabled)
from .dataloader import (DataLoader, _DatasetKind, default_collate,  # noqa: F401
                         default_convert, get_worker_info)
from .distributed import DistributedSampler  # noqa: F401

__all__ = ['BatchSampler', 'ChainDataset', 'ConcatDataset', 'DFIterDataPipe', 'DataChunk',
           'DataLoader', 'Dataset', 'DistributedSampler', 'IterDataPipe', 'IterableDataset',
           'MapDataPipe', 'RandomSampler', 'Sampler', 'SequentialSampler', 'StackDataset',
           'Subset', 'SubsetRandomSampler', 'TensorDataset', 'WeightedRandomSampler',
           '_DatasetKind', 'argument_validation', 'default_collate', 'default_convert',
           'functional_datapipe', 'get_worker_info', 'guaranteed_datapipes_determinism',
           'non_deterministic', 'random_split', 'runtime_validation',
           'runtime_validation_disabled']
