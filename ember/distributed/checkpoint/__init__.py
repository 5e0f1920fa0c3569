"""``ember.distributed.checkpoint`` (DCP): every rank calls :func:`save` with its
state_dict and each piece is written once into a folder in PyTorch's format (rank ``r``'s
``__r_0.distcp`` and the ``.metadata`` index, see :mod:`.metadata` and :mod:`.filesystem`):
a DTensor as the pieces its ranks hold, replicated values by one rank. :func:`load` fills a
state_dict in place from such a folder (written by ember or by torch) with any number of
ranks or one process, each tensor or DTensor receiving its own region whatever pieces were
saved. The ``.metadata`` pickle is read with ember's restricted unpickler.

NOTE: unlike PyTorch, ``async_save`` writes before it returns, ShardedTensor values and
planners are not supported, and the ``.distcp`` files of an earlier checkpoint in the same
folder are overwritten in place (an interrupted save can leave it unreadable).
"""
from .api import (CheckpointException, FileSystemReader, FileSystemWriter, Metadata,
                  StorageReader, StorageWriter, async_save, load, load_state_dict, save,
                  save_state_dict)
from .stateful import Stateful
from .hf_storage import HuggingFaceStorageReader, HuggingFaceStorageWriter
from . import state_dict  # noqa: F401  (the get/set_state_dict helpers)

__all__ = ['save', 'async_save', 'load', 'save_state_dict', 'load_state_dict', 'FileSystemWriter',
           'FileSystemReader', 'StorageWriter', 'StorageReader', 'Metadata',
           'CheckpointException', 'Stateful', 'HuggingFaceStorageReader',
           'HuggingFaceStorageWriter']
