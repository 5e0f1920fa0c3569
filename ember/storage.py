"""``ember.storage``: the storage classes (``UntypedStorage``: raw bytes; ``TypedStorage``:
the legacy typed view), as ``torch.storage`` exports them.

Example::

    >>> from ember.storage import UntypedStorage
    >>> isinstance(ember.ones(2).untyped_storage(), UntypedStorage)
    True
"""
from ._storage import TypedStorage, UntypedStorage

__all__ = ['TypedStorage', 'UntypedStorage']
