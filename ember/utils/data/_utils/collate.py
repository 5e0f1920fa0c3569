"""``default_collate`` (samples -> a batch) and ``default_convert`` (NumPy -> tensors)."""
import collections.abc
import copy
import re

import numpy as np

from ...._tensor import Tensor
from ..dataset import _TensorBatch

np_str_obj_array_pattern = re.compile(r'[SaUO]')

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}")


def _as_tensor(x, dtype=None):
    from ...._ops.creation import as_tensor
    return as_tensor(x, dtype=dtype)


def _is_numpy_obj(data):
    t = type(data)
    return t.__module__ == 'numpy' and t.__name__ not in ('str_', 'string_')


def default_convert(data):
    """Turn NumPy arrays and scalars into tensors, inside mappings, named tuples and
    sequences too (the DataLoader's ``collate_fn`` when batching is off). Tuples become
    lists; strings, bytes, tensors and other objects pass through.

    Args:
        data: a sample.

    Example::

        >>> default_convert({'x': np.arange(3)})
        {'x': tensor([0, 1, 2])}
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_obj(data):
        if type(data).__name__ == 'ndarray' and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                out = copy.copy(data)
                out.update({k: default_convert(data[k]) for k in data})
                return out
            return type(data)({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if isinstance(data, tuple) and hasattr(data, '_fields'):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                out = copy.copy(data)
                for i, d in enumerate(data):
                    out[i] = default_convert(d)
                return out
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples, dispatching on the first sample's type through
    ``collate_fn_map`` (exact type first, then ``isinstance``), and recursing into
    mappings, named tuples and sequences.

    Args:
        batch (list): the samples.
        collate_fn_map (dict, optional): ``{type or tuple of types: fn(batch, *,
            collate_fn_map)}``.

    Example::

        >>> collate([1, 2], collate_fn_map={int: lambda b, **kw: sum(b)})
        3
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for t in collate_fn_map:
            if isinstance(elem, t):
                return collate_fn_map[t](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                out = copy.copy(elem)
                out.update({k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                            for k in elem})
                return out
            return elem_type({k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                              for k in elem})
        except TypeError:
            return {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                    for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, '_fields'):
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(s, collate_fn_map=collate_fn_map) for s in columns]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                out = copy.copy(elem)
                for i, s in enumerate(columns):
                    out[i] = collate(s, collate_fn_map=collate_fn_map)
                return out
            return elem_type([collate(s, collate_fn_map=collate_fn_map) for s in columns])
        except TypeError:
            return [collate(s, collate_fn_map=collate_fn_map) for s in columns]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _stack_shared(batch):
    """In a worker: stack straight into shared memory, so the batch is sent by handle
    without another copy. None when the fast path does not apply."""
    from .... import _storage as S
    from ...._grad_state import _Mode
    elem = batch[0]
    a0 = elem._data
    if type(a0) is not np.ndarray:
        return None
    shape, dt = a0.shape, a0.dtype
    arrs = []
    for t in batch:
        a = t._data
        if type(a) is not np.ndarray or a.shape != shape or a.dtype != dt or (
                t._rg and _Mode.grad):
            return None
        arrs.append(a)
    n = len(arrs) * a0.size * a0.itemsize
    m = S._new_shm(n)
    out = S._shared_array(m, (len(arrs),) + shape, dt)
    np.stack(arrs, out=out)
    from ...._tensor import _new_tensor
    return _new_tensor(out, type(elem) if type(elem) is Tensor else None)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack tensors along a new first dimension (in a worker, into shared memory)."""
    from ...._ops.shape import stack
    from .worker import get_worker_info
    if get_worker_info() is not None:
        out = _stack_shared(batch)
        if out is not None:
            return out
        return stack(batch, 0).share_memory_()
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays: as tensors, then stacked (string/object arrays are refused)."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars: one tensor."""
    return _as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats: a float64 tensor."""
    from ...._ops.creation import tensor
    from ...._dtype import float64
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools): an int64 (bool) tensor."""
    from ...._ops.creation import tensor
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes: the list as is."""
    return batch


default_collate_fn_map = {Tensor: collate_tensor_fn,
                          np.ndarray: collate_numpy_array_fn,
                          (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
                          float: collate_float_fn,
                          int: collate_int_fn,
                          str: collate_str_fn,
                          bytes: collate_str_fn}


def default_collate(batch):
    """Collate a list of samples into a batch (the DataLoader's default ``collate_fn``).

    Tensors are stacked along a new first dimension; NumPy arrays become tensors and are
    stacked; NumPy scalars become a tensor; Python floats a float64 tensor, ints an int64
    tensor; strings and bytes stay a list; mappings, named tuples and sequences are
    collated field by field (tuples become lists). Other types raise ``TypeError``; lists of
    unequal length raise ``RuntimeError``.

    Args:
        batch (list): the samples.

    Example::

        >>> default_collate([(1, 'a'), (2, 'b')])
        [tensor([1, 2]), ('a', 'b')]
    """
    if type(batch) is _TensorBatch:   # a TensorDataset batch: gather rows, one copy each
        from .worker import get_worker_info
        out = batch._gather(shared=get_worker_info() is not None)
        if out is not None:
            return out
    return collate(batch, collate_fn_map=default_collate_fn_map)
