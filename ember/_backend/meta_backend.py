"""The 'meta' device: tensors with shape, dtype and strides but no data to read.

NOTE: unlike PyTorch, a meta tensor is backed by a zero-filled NumPy array of the class
``MetaArray`` (allocated with ``calloc``, so untouched pages cost no real memory), and ops
on meta tensors compute on those zeros. Reading values out (``.cpu()``, ``.tolist()``,
``.numpy()``) raises as in PyTorch.
"""
import numpy as np


class MetaArray(np.ndarray):
    """ndarray subclass marking an array as living on the meta device."""


def as_meta(a):
    if isinstance(a, MetaArray):
        return a
    if isinstance(a, np.ndarray):
        return a.view(MetaArray)
    if np.isscalar(a) or isinstance(a, np.generic):
        return np.asarray(a).view(MetaArray)
    return a


class _MetaModule:
    """numpy-like module whose array results are MetaArrays (used by factories)."""

    def __getattr__(self, name):
        f = getattr(np, name)
        if not callable(f):
            return f

        def wrapped(*args, **kwargs):
            r = f(*args, **kwargs)
            if isinstance(r, tuple):
                return tuple(as_meta(x) for x in r)
            return as_meta(r)
        return wrapped


META_MODULE = _MetaModule()


def to_meta(arr):
    """A fresh meta array with ``arr``'s shape and dtype (no values carried over)."""
    return np.zeros(arr.shape, arr.dtype).view(MetaArray)


def no_data():
    raise NotImplementedError("Cannot copy out of meta tensor; no data!")
