"""``ember.distributed.checkpoint.filesystem``: the files of a checkpoint folder, as PyTorch's
``FileSystemWriter`` lays them out. Rank ``r`` writes ``__r_0.distcp``: the items it saves,
one after another, each a complete ``save`` archive (a tensor, or a non-tensor value); the
``.metadata`` index (see :mod:`~ember.distributed.checkpoint.metadata`) records each item's
file, offset and length (a :class:`_StorageInfo`)."""
import dataclasses

from .api import FileSystemReader, FileSystemWriter
from .metadata import _DictState

__all__ = ['FileSystemWriter', 'FileSystemReader']


@dataclasses.dataclass
class _StorageInfo(_DictState):
    """Where one stored item's bytes are: ``relative_path`` (a file of the folder),
    ``offset`` and ``length`` in it."""
    relative_path: str
    offset: int
    length: int
    transform_descriptors: object = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if v is not None}
