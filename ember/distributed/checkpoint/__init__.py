"""``ember.distributed.checkpoint`` (DCP): every rank calls :func:`save` with its
state_dict and each piece is written once into a folder in PyTorch's format (rank ``r``'s
``__r_0.distcp`` and the ``.metadata`` index, see :mod:`.metadata` and :mod:`.filesystem`):
a DTensor as the pieces its ranks hold, replicated values by one rank. :func:`load` fills a
state_dict in place from such a folder (written by ember or by torch) with any number of
ranks or one process, each tensor or DTensor receiving its own region whatever pieces were
saved. The ``.metadata`` pickle is read with ember's restricted unpickler.

NOTE: unlike PyTorch, saving into a folder that holds a checkpoint writes beside the files
its index uses (``__r_1.distcp`` after ``__r_0.distcp``) and replaces the index last, so an
interrupted save leaves the previous checkpoint loadable; ``async_save`` writes before it
returns; ShardedTensor values and custom planners are not supported.
"""
from .api import (CheckpointException, FileSystemReader, FileSystemWriter, Metadata,
                  StorageReader, StorageWriter, async_save, load, load_state_dict, save,
                  save_state_dict)
from .stateful import Stateful
from .metadata import BytesStorageMetadata, ChunkStorageMetadata, TensorStorageMetadata
from .planner import LoadPlan, LoadPlanner, ReadItem, SavePlan, SavePlanner, WriteItem
from .default_planner import DefaultLoadPlanner, DefaultSavePlanner
from . import filesystem  # noqa: F401
from .hf_storage import HuggingFaceStorageReader, HuggingFaceStorageWriter
from . import state_dict  # noqa: F401  (the get/set_state_dict helpers)

__all__ = ['save', 'async_save', 'load', 'save_state_dict', 'load_state_dict', 'FileSystemWriter',
           'FileSystemReader', 'StorageWriter', 'StorageReader', 'Metadata',
           'CheckpointException', 'Stateful', 'HuggingFaceStorageReader',
           'HuggingFaceStorageWriter', 'BytesStorageMetadata', 'ChunkStorageMetadata',
           'TensorStorageMetadata', 'LoadPlan', 'LoadPlanner', 'ReadItem', 'SavePlan',
           'SavePlanner', 'WriteItem', 'DefaultLoadPlanner', 'DefaultSavePlanner']
