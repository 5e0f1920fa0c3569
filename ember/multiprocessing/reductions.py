"""Pickling of ember tensors and storages between processes through shared memory.

:func:`init_reductions` registers reductions with
``multiprocessing.reduction.ForkingPickler`` (what ``multiprocessing`` queues, pipes and
process arguments pickle with): a CPU tensor sent that way is first moved to shared memory
(``Tensor.share_memory_()``), and only a handle to that memory travels -- a duplicated file
descriptor ('file_descriptor' strategy, the default on Linux) or the file's name
('file_system'). The receiver maps the same memory, so it sees the sender's later in-place
writes, as in PyTorch. CUDA and meta tensors are pickled by value.
"""
import os
import weakref
from multiprocessing.reduction import ForkingPickler, DupFd

import numpy as np

from .. import _storage as _S
from .._storage import UntypedStorage, TypedStorage, _ptr
from .._tensor import Tensor, _new_tensor

__all__ = ['init_reductions', 'reduce_tensor', 'rebuild_tensor', 'reduce_storage',
           'rebuild_storage', 'reduce_typed_storage', 'rebuild_typed_storage']

# receiver-side caches: the same shared file maps (and views) once per process
_MAPS = weakref.WeakValueDictionary()
_STORAGES = weakref.WeakValueDictionary()


def _map_ptr(m):
    return _ptr(np.frombuffer(m, np.uint8, count=1))


def _handle(m):
    if m._name is not None:
        return ('file_system', m._name)
    return ('file_descriptor', DupFd(m._fd))


def _open(handle, nbytes):
    kind, v = handle
    if kind == 'file_system':
        try:
            fd = os.open(v, os.O_RDWR)
        except FileNotFoundError:
            raise RuntimeError(f"unable to open shared memory object <{v}>: the sending process "
                               "freed it before it was received") from None
        keep = False
    else:
        fd = v.detach()
        keep = True
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    m = _MAPS.get(key)
    if m is not None:
        os.close(fd)
        return m, key
    m = _S._map_shm(fd, nbytes, v if kind == 'file_system' else None, keep_fd=keep)
    _MAPS[key] = m
    return m, key


def _storage_for(m, key):
    st = _STORAGES.get(key)
    if st is None:
        st = UntypedStorage(_S._shared_array(m, (m._nbytes,), np.uint8))
        _STORAGES[key] = st
    return st


def _checked_layout(m, dtype, shape, strides, offset):
    """Check a received NumPy layout (byte ``strides`` and ``offset``) against the shared
    block ``m`` (the view layer's bounds check): every element must lie inside it."""
    dtype = np.dtype(dtype)
    isz = dtype.itemsize
    shape, strides = tuple(shape), tuple(strides)
    for v in (offset,) + shape + strides:
        if type(v) is not int:
            raise RuntimeError(f"rebuild_tensor: the layout must be ints, got {type(v).__name__}")
    if offset % isz or any(s % isz for s in strides):
        raise RuntimeError(f"rebuild_tensor: byte offset {offset} and strides {list(strides)} "
                           f"are not multiples of the element size {isz}")
    _S.check_view(shape, tuple(s // isz for s in strides), offset // isz, isz, m._nbytes,
                  'rebuild_tensor')
    if offset > m._nbytes:   # even an empty view starts inside the block (NumPy's rule)
        raise RuntimeError(f"rebuild_tensor: byte offset {offset} is past the end of the "
                           f"shared block of {m._nbytes} bytes")
    return dtype, shape, strides


def reduce_tensor(tensor):
    """Reduce a tensor for ``ForkingPickler``: its storage goes to shared memory and only a
    handle to it is pickled. A non-leaf tensor that requires grad raises ``RuntimeError``;
    CUDA and meta tensors (and anything not in shared memory) are pickled by value.

    Args:
        tensor (Tensor): the tensor to send.

    Returns:
        ``(rebuild_tensor, args)``, as ``__reduce__`` returns.

    Example::

        >>> from ember.multiprocessing.reductions import reduce_tensor
        >>> x = ember.zeros(2)
        >>> rebuild, args = reduce_tensor(x)
        >>> rebuild.__name__, x.is_shared()
        ('rebuild_tensor', True)
    """
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    d = tensor._data
    if not isinstance(d, np.ndarray):   # CUDA / meta: by value
        return tensor.__reduce_ex__(2)
    tensor.share_memory_()
    d = tensor._data
    m = _S._shm_of(d)
    if m is None:
        return tensor.__reduce_ex__(2)
    from ..nn.parameter import Parameter
    cls = type(d)   # an ndarray subclass (the strict check backend's) is kept
    return (rebuild_tensor, (type(tensor) is Parameter, _handle(m), m._nbytes, d.dtype, d.shape,
                             d.strides, _ptr(d) - _map_ptr(m), tensor.requires_grad,
                             None if cls is np.ndarray else cls))


def rebuild_tensor(is_param, handle, nbytes, dtype, shape, strides, offset, requires_grad,
                   array_cls=None):
    """Rebuild a tensor sent by :func:`reduce_tensor`: map the sender's shared memory. The
    result views that memory, so it sees the sender's later in-place writes.

    Args:
        is_param (bool): whether to return an :class:`ember.nn.Parameter`.
        handle (tuple): the shared block's handle.
        nbytes (int): the block's size.
        dtype, shape, strides, offset: the NumPy layout of the tensor in the block.
        requires_grad (bool): the tensor's flag.
        array_cls (type, optional): an ``ndarray`` subclass to view the data as.

    Example::

        >>> from multiprocessing.reduction import ForkingPickler
        >>> ember.multiprocessing.reductions.init_reductions()
        >>> x = ember.ones(3)
        >>> t = ForkingPickler.loads(ForkingPickler.dumps(x))   # calls rebuild_tensor
        >>> _ = x.add_(1)
        >>> t
        tensor([2., 2., 2.])
    """
    m, key = _open(handle, nbytes)
    dtype, shape, strides = _checked_layout(m, dtype, shape, strides, offset)
    t = _new_tensor(_S._shared_array(m, shape, dtype, strides, offset,
                                     array_cls or np.ndarray))
    t._st = _storage_for(m, key)
    if is_param:
        from ..nn.parameter import Parameter
        return Parameter(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_storage(storage):
    """Reduce an :class:`UntypedStorage`: moved to shared memory, sent by handle (a CUDA
    storage is sent by value).

    Args:
        storage (UntypedStorage): the storage to send.

    Example::

        >>> from ember.multiprocessing.reductions import reduce_storage
        >>> rebuild, args = reduce_storage(ember.zeros(2).untyped_storage())
        >>> rebuild.__name__
        'rebuild_storage'
    """
    src = storage._src
    if not isinstance(src, np.ndarray):
        return (UntypedStorage, (src.copy(),))
    storage.share_memory_()
    src = storage._src
    m = _S._shm_of(src)
    return (rebuild_storage, (_handle(m), m._nbytes, src.dtype, src.shape, src.strides,
                              _ptr(src) - _map_ptr(m)))


def rebuild_storage(handle, nbytes, dtype, shape, strides, offset):
    """Rebuild an :class:`UntypedStorage` sent by :func:`reduce_storage`, mapping the
    sender's shared memory (once per process and block).

    Args:
        handle (tuple): the shared block's handle.
        nbytes (int): the block's size.
        dtype, shape, strides, offset: the NumPy layout of the storage in the block.

    Example::

        >>> from multiprocessing.reduction import ForkingPickler
        >>> ember.multiprocessing.reductions.init_reductions()
        >>> s = ember.ones(2).untyped_storage()
        >>> ForkingPickler.loads(ForkingPickler.dumps(s)).nbytes()   # calls rebuild_storage
        8
    """
    m, key = _open(handle, nbytes)
    if offset == 0 and tuple(shape) == (m._nbytes,) and dtype == np.uint8:
        return _storage_for(m, key)
    dtype, shape, strides = _checked_layout(m, dtype, shape, strides, offset)
    return UntypedStorage(_S._shared_array(m, shape, dtype, strides, offset))


def reduce_typed_storage(storage):
    """Reduce a :class:`TypedStorage` (its untyped storage travels by handle).

    Args:
        storage (TypedStorage): the storage to send.

    Example::

        >>> from ember.multiprocessing.reductions import reduce_typed_storage
        >>> rebuild, (untyped, dtype) = reduce_typed_storage(ember.FloatStorage([1., 2.]))
        >>> rebuild.__name__, dtype
        ('rebuild_typed_storage', torch.float32)
    """
    return (rebuild_typed_storage, (storage._untyped, storage.dtype))


def rebuild_typed_storage(untyped, dtype):
    """Rebuild a :class:`TypedStorage` sent by :func:`reduce_typed_storage`: the received
    untyped storage viewed with ``dtype``.

    Args:
        untyped (UntypedStorage): the storage's bytes.
        dtype (ember.dtype): its element type.

    Example::

        >>> from ember.multiprocessing.reductions import (reduce_typed_storage,
        ...                                               rebuild_typed_storage)
        >>> _, args = reduce_typed_storage(ember.FloatStorage([1., 2.]))
        >>> rebuild_typed_storage(*args).tolist()
        [1.0, 2.0]
    """
    return TypedStorage(untyped, dtype)


_done = False


def init_reductions():
    """Register the tensor and storage reductions with ``ForkingPickler`` (idempotent):
    ``multiprocessing`` queues, pipes and process arguments then send CPU tensors through
    shared memory. ``ember.multiprocessing`` calls it when its ``multiprocessing`` names
    (``Queue``, ``Process``, ``spawn``...) are first used.

    Example::

        >>> from multiprocessing.reduction import ForkingPickler
        >>> ember.multiprocessing.reductions.init_reductions()
        >>> ForkingPickler.loads(ForkingPickler.dumps(ember.ones(2)))
        tensor([1., 1.])
    """
    global _done
    if _done:
        return
    from ..nn.parameter import Parameter
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)
    ForkingPickler.register(UntypedStorage, reduce_storage)
    ForkingPickler.register(TypedStorage, reduce_typed_storage)
    _done = True
