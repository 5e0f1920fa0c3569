"""``ember.distributed.checkpoint.hf_storage``: DCP storage in Hugging Face's safetensors
layout (``model-0000X-of-0000N.safetensors`` files and their index).

NOTE: unlike PyTorch, these storage classes are not implemented yet: constructing one raises
``NotImplementedError`` (ember's DCP writes its own folder format, see
:mod:`ember.distributed.checkpoint`).
"""
from .api import StorageReader, StorageWriter

__all__ = ['HuggingFaceStorageWriter', 'HuggingFaceStorageReader']


class _NotImplemented:
    def __init__(self, path, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__name__} is not implemented in ember yet: its distributed "
            f"checkpoints use ember's own folder format (FileSystemWriter/FileSystemReader)")


class HuggingFaceStorageWriter(_NotImplemented, StorageWriter):
    """Write a DCP checkpoint as Hugging Face safetensors files.

    NOTE: unlike PyTorch, not implemented: raises ``NotImplementedError``.

    Args:
        path (str): the folder.

    Example::

        >>> HuggingFaceStorageWriter('ckpt')
        Traceback (most recent call last):
        NotImplementedError: HuggingFaceStorageWriter is not implemented in ember yet...
    """


class HuggingFaceStorageReader(_NotImplemented, StorageReader):
    """Read a DCP checkpoint from Hugging Face safetensors files.

    NOTE: unlike PyTorch, not implemented: raises ``NotImplementedError``.

    Args:
        path (str): the folder.

    Example::

        >>> HuggingFaceStorageReader('ckpt')
        Traceback (most recent call last):
        NotImplementedError: HuggingFaceStorageReader is not implemented in ember yet...
    """
