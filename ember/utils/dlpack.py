"""DLPack interchange (``torch.utils.dlpack``): share tensors' memory with NumPy, CuPy,
PyTorch, JAX and any other library speaking the DLPack protocol, without copying.

``from_dlpack(x)`` makes a tensor viewing the memory of ``x`` (an object with
``__dlpack__``, or a DLPack capsule); ``to_dlpack(t)`` / ``t.__dlpack__()`` hand the memory
of ``t`` to a consumer. Writes through either side are seen by the other.

Ember stands on the array libraries' own DLPack support: ``numpy.from_dlpack`` and
``ndarray.__dlpack__`` on the CPU, CuPy's on CUDA. bfloat16 (which NumPy cannot exchange)
is passed as 16-bit unsigned integers with the DLPack type code fixed up in the capsule.
"""
import ctypes
import enum

from .. import _dtype as D
from .._backend import module_for_device
from .._device import device as _device_cls
from .._tensor import Tensor
from .._ops._util import wrap

__all__ = ['DLDeviceType', 'from_dlpack']


class DLDeviceType(enum.IntEnum):
    """DLPack's device type codes (``__dlpack_device__()[0]``).

    Example::

        >>> ember.ones(2).__dlpack_device__()
        (<DLDeviceType.kDLCPU: 1>, 0)
        >>> int(DLDeviceType.kDLCUDA)
        2
    """
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# ---------------------------------------------------------------------------------------------
# reading and patching a capsule's DLTensor (the C layout of dlpack.h)

_CAPSULE_GET_NAME = ctypes.pythonapi.PyCapsule_GetName
_CAPSULE_GET_NAME.restype = ctypes.c_char_p
_CAPSULE_GET_NAME.argtypes = [ctypes.py_object]
_CAPSULE_GET_POINTER = ctypes.pythonapi.PyCapsule_GetPointer
_CAPSULE_GET_POINTER.restype = ctypes.c_void_p
_CAPSULE_GET_POINTER.argtypes = [ctypes.py_object, ctypes.c_char_p]

# DLTensor: data (void*), device (int32 type, int32 id), ndim (int32), dtype (uint8 code,
# uint8 bits, uint16 lanes), shape, strides, byte_offset
_OFF_DEVICE_TYPE, _OFF_DEVICE_ID, _OFF_DTYPE_CODE, _OFF_DTYPE_BITS = 8, 12, 20, 21
# DLManagedTensorVersioned: version (2 x uint32), manager_ctx, deleter, flags, then DLTensor
_VERSIONED_TENSOR_OFFSET = 32
_kDLUInt, _kDLBfloat = 1, 4
_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can "
                    "be consumed only once, so you might have already constructed a tensor "
                    "from it once.")


def _is_capsule(obj):
    return type(obj).__name__ == 'PyCapsule'


def _dltensor_address(capsule):
    """The address of the capsule's DLTensor; raises for a consumed or foreign capsule."""
    name = _CAPSULE_GET_NAME(capsule)
    if name == b'dltensor':
        return _CAPSULE_GET_POINTER(capsule, name)
    if name == b'dltensor_versioned':
        return _CAPSULE_GET_POINTER(capsule, name) + _VERSIONED_TENSOR_OFFSET
    raise RuntimeError(_INVALID_CAPSULE)


def _capsule_device(addr):
    return (ctypes.c_int32.from_address(addr + _OFF_DEVICE_TYPE).value,
            ctypes.c_int32.from_address(addr + _OFF_DEVICE_ID).value)


def _capsule_dtype(addr):
    return (ctypes.c_uint8.from_address(addr + _OFF_DTYPE_CODE).value,
            ctypes.c_uint8.from_address(addr + _OFF_DTYPE_BITS).value)


_OFF_NDIM, _OFF_LANES, _OFF_SHAPE, _OFF_STRIDES, _OFF_BYTE_OFFSET = 16, 22, 24, 32, 40
_MAX_DIMS = 64   # what the array libraries hold


def _check_capsule_layout(addr):
    """Check the shape, strides and byte offset a capsule's DLTensor claims, before an array
    library reads them (the view layer's bounds check): the producer's buffer size is not in
    the capsule, so what is refused is a layout PyTorch refuses too (a negative size or
    stride, a storage size that overflows int64); the tensor's storage then spans exactly
    the bytes the layout reaches."""
    from .._storage import check_view
    ndim = ctypes.c_int32.from_address(addr + _OFF_NDIM).value
    if not 0 <= ndim <= _MAX_DIMS:
        raise RuntimeError(f"from_dlpack: a DLTensor of {ndim} dimensions is not supported "
                           f"(at most {_MAX_DIMS})")
    code, bits = _capsule_dtype(addr)
    lanes = ctypes.c_uint16.from_address(addr + _OFF_LANES).value
    isz = max(bits * lanes // 8, 1)
    shape_p = ctypes.c_void_p.from_address(addr + _OFF_SHAPE).value
    strides_p = ctypes.c_void_p.from_address(addr + _OFF_STRIDES).value
    if ndim and not shape_p:
        raise RuntimeError("from_dlpack: the DLTensor has no shape")
    shape = tuple((ctypes.c_int64 * ndim).from_address(shape_p)) if ndim else ()
    if strides_p and ndim:
        strides = tuple((ctypes.c_int64 * ndim).from_address(strides_p))
    else:   # NULL strides: compact row-major
        strides, acc = [], 1
        for n in reversed(shape):
            strides.append(acc)
            acc *= max(n, 1)
        strides = tuple(reversed(strides))
    byte_offset = ctypes.c_uint64.from_address(addr + _OFF_BYTE_OFFSET).value
    if byte_offset > (1 << 63) - 1:
        raise RuntimeError(f"from_dlpack: byte_offset {byte_offset} overflows int64")
    if byte_offset + check_view(shape, strides, 0, isz, None, 'from_dlpack') > (1 << 63) - 1:
        raise RuntimeError("from_dlpack: byte_offset and layout overflow int64")


def _set_dtype_code(addr, code):
    ctypes.c_uint8.from_address(addr + _OFF_DTYPE_CODE).value = code


class _CapsuleHolder:
    """Hands an already made capsule to an array library's ``from_dlpack``."""
    __slots__ = ('_capsule', '_device')

    def __init__(self, capsule, dl_device):
        self._capsule = capsule
        self._device = dl_device

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


class _WritableAlias:
    """A writable view of a host array's memory (keeping the array, and so the producer's
    memory, alive) through the array interface."""

    def __init__(self, arr):
        self._keep = arr
        iface = dict(arr.__array_interface__)
        iface['data'] = (iface['data'][0], False)
        self.__array_interface__ = iface


def _ember_device(dl_device):
    kind, index = dl_device
    if kind in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLCUDAManaged,
                DLDeviceType.kDLROCMHost):
        return _device_cls('cpu')
    if kind in (DLDeviceType.kDLCUDA, DLDeviceType.kDLROCM):
        return _device_cls('cuda', index)
    raise BufferError(f"from_dlpack: unsupported DLPack device type {kind}: ember imports "
                      "CPU and CUDA memory only")


def _dl_device_of(dev):
    """The DLPack ``(type, index)`` of an ember device."""
    if dev.type == 'cpu':
        return (DLDeviceType.kDLCPU, 0)
    if dev.type == 'cuda':
        return (DLDeviceType.kDLCUDA, dev.index if dev.index is not None else 0)
    raise ValueError(f"Unknown device type {dev.type} for Dlpack")


def _tensor_from_capsule(capsule):
    addr = _dltensor_address(capsule)
    _check_capsule_layout(addr)
    dl_device = _capsule_device(addr)
    dev = _ember_device(dl_device)
    code, bits = _capsule_dtype(addr)
    bf16 = code == _kDLBfloat and bits == 16
    if bf16:                   # the array libraries do not know bfloat16: read it as uint16
        _set_dtype_code(addr, _kDLUInt)
    xp = module_for_device(dev)
    try:
        arr = xp.from_dlpack(_CapsuleHolder(capsule, dl_device))
    except BaseException:
        if bf16:
            _set_dtype_code(addr, _kDLBfloat)
        raise
    flags = getattr(arr, 'flags', None)
    if flags is not None and not getattr(flags, 'writeable', True):
        # NumPy marks arrays from legacy capsules read-only; torch's tensors stay writable
        arr = xp.asarray(_WritableAlias(arr))
    if bf16:
        arr = arr.view(D.bfloat16._np)
    if arr.dtype not in D._NP2DT:
        raise BufferError(f"from_dlpack: unsupported dtype {arr.dtype}")
    return wrap(arr)


# ---------------------------------------------------------------------------------------------
# the public functions

def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing the memory of ``ext_tensor``, an object from another library
    implementing ``__dlpack__`` (a NumPy or CuPy array, a torch tensor, ...) or a DLPack
    capsule (as returned by :func:`to_dlpack`).

    A capsule can be consumed once; an object with ``__dlpack__`` can be imported any number
    of times. Writing to the result writes to the source, and the other way round.

    Args:
        ext_tensor: the object (with ``__dlpack__`` and ``__dlpack_device__``) or capsule.

    Keyword args:
        device (ember.device or str, optional): where the result should be; another device
            than the source's means a copy. Not allowed for a capsule.
        copy (bool, optional): ``True`` always copies, ``False`` never does (an error where a
            copy would be needed), ``None`` copies only when needed. Not allowed for a
            capsule.

    Raises:
        RuntimeError: for a capsule that was consumed already.
        BufferError: for memory on a device or of a dtype ember cannot hold.

    Example::

        >>> import numpy
        >>> a = numpy.arange(4.)
        >>> t = ember.from_dlpack(a)
        >>> t[0] = -1.
        >>> a
        array([-1.,  1.,  2.,  3.])
        >>> ember.from_dlpack(ember.utils.dlpack.to_dlpack(ember.ones(2)))
        tensor([1., 1.])
    """
    if hasattr(ext_tensor, '__dlpack__'):
        src = tuple(ext_tensor.__dlpack_device__())
        kwargs = {'max_version': (1, 0)}
        if copy is not None:
            kwargs['copy'] = copy
        cross = False
        if device is not None:
            if isinstance(device, str):
                device = _device_cls(device)
            if not isinstance(device, _device_cls):
                raise AssertionError(f"from_dlpack: unsupported device type: {type(device)}")
            target = _dl_device_of(device)
            cross = (int(src[0]), src[1]) != (int(target[0]), target[1])
            if cross and copy is False:
                raise ValueError(f"cannot move DLPack tensor from device {src} to {target} "
                                 "without copying. Set copy=None or copy=True.")
            if not cross:
                kwargs['dl_device'] = target
        if src[0] in (DLDeviceType.kDLCUDA, DLDeviceType.kDLROCM):
            kwargs['stream'] = 1 if src[0] == DLDeviceType.kDLCUDA else 0
        capsule = None
        for drop in ((), ('max_version',), ('copy',), ('dl_device',)):
            for k in drop:
                kwargs.pop(k, None)
            try:
                capsule = ext_tensor.__dlpack__(**kwargs)
                break
            except TypeError:
                if drop == ('dl_device',):
                    raise
        copied_by_producer = 'copy' in kwargs
        t = _tensor_from_capsule(capsule)
        if copy and not copied_by_producer and not cross:
            t = t.clone()
        if cross:
            t = t.to(device)
        return t
    if device is not None or copy is not None:
        raise AssertionError("device and copy kwargs not supported when ext_tensor is already "
                             "a DLPack capsule.")
    if not _is_capsule(ext_tensor):
        raise RuntimeError(_INVALID_CAPSULE)
    return _tensor_from_capsule(ext_tensor)


def to_dlpack(tensor):
    """A DLPack capsule holding the memory of ``tensor`` (the legacy, unversioned kind), for a
    consumer's ``from_dlpack``. The capsule keeps the memory alive.

    Args:
        tensor (Tensor): the tensor. Unlike ``tensor.__dlpack__()``, a tensor that requires
            grad is accepted (its data is exported, as torch does).

    Example::

        >>> t = ember.arange(3.)
        >>> capsule = ember.utils.dlpack.to_dlpack(t)
        >>> u = ember.from_dlpack(capsule)
        >>> u[1] = 10.
        >>> t
        tensor([ 0., 10.,  2.])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return _export(tensor.detach())


def _export(tensor, stream=-1, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a capsule of the tensor's memory."""
    if tensor.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor.is_conj():
        raise BufferError("Can't export tensors with the conjugate bit set")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    dev = tensor.device
    if dev.type == 'meta':
        raise BufferError("Cannot pack tensors on meta")
    kwargs = {}
    if dev.type == 'cpu':
        if stream is not None and stream != -1:
            raise AssertionError("stream should be None on cpu.")
    elif stream != -1:
        kwargs['stream'] = stream
    if max_version is not None:
        kwargs['max_version'] = max_version
    if dl_device is not None:
        kwargs['dl_device'] = dl_device
    if copy is not None:
        kwargs['copy'] = copy
    arr = tensor._data
    flags = getattr(arr, 'flags', None)
    if flags is not None and not getattr(flags, 'writeable', True):
        # an expanded tensor's array is a read-only broadcast view of writable memory:
        # export a writable alias, as torch exports expanded tensors
        arr = arr.view()
        try:
            arr.flags.writeable = True
        except ValueError:
            pass
    bf16 = tensor.dtype is D.bfloat16
    if bf16:
        arr = arr.view(D.uint16._np)
    capsule = arr.__dlpack__(**kwargs)
    if bf16:
        _set_dtype_code(_dltensor_address(capsule), _kDLBfloat)
    return capsule


def _dlpack_device(tensor):
    """``Tensor.__dlpack_device__``."""
    dev = tensor.device
    return _dl_device_of(dev)
