"""``ember.distributed.checkpoint`` (DCP) basics: every rank calls :func:`save` with its
state_dict and the entries are written once each into a folder (replicated entries by one
rank, the others by the rank holding them), with a ``.metadata`` index; :func:`load` fills
a state_dict in place from that folder with any number of ranks (or one process).

NOTE: unlike PyTorch, the files are ember checkpoints (``ember.save``), not PyTorch's DCP
format; DTensor/ShardedTensor resharding is not implemented (a tensor is stored whole, by one
rank) and ``async_save`` writes before it returns.
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
