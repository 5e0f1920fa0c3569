"""Backends: where arrays live and which array module computes on them.

An op asks ``array_module(arr)`` for numpy or cupy; nothing in ``ember/_ops`` imports
cupy directly. The CuPy backend is imported lazily, only when a CUDA device is asked for.
The strict check backend (``strict_backend``: NumPy arrays that refuse NumPy's module
functions) stands in for a device backend in tests without a GPU.
"""
import numpy as np
from .. import _device as _device_module
from .._device import device, CPU
from .meta_backend import MetaArray, META_MODULE, to_meta, no_data
from . import strict_backend as _strict_backend

META = device('meta')

__all__ = ['array_module', 'device_of', 'to_device', 'module_for_device', 'META']

_StrictArray = _strict_backend.StrictArray
_cpu_module = np   # the CPU device's array module: numpy, or the strict module


def _set_cpu_module(xp):
    """Make ``xp`` the CPU device's array module (see ``strict_backend.enable``)."""
    global _cpu_module
    _cpu_module = xp


_strict_backend._on_switch.append(_set_cpu_module)

_cupy = None


_cuda = None
_cuda_checked = False


def cuda_module():
    """CuPy when it is installed and sees a CUDA GPU, else None (checked once): the one
    answer to "is CUDA available" (``ember.cuda.is_available()`` and the layers below the
    ``cuda`` namespace ask it)."""
    global _cuda, _cuda_checked
    if not _cuda_checked:
        _cuda_checked = True
        import importlib.util
        from . import cupy_backend
        # cheap: nothing is imported (EMBER_FAKE_CUDA=1: the fake CUDA backend stands in)
        if cupy_backend.fake_enabled() or importlib.util.find_spec('cupy') is not None:
            if cupy_backend.is_available():
                _cuda = cupy_backend.cupy_module()
    return _cuda


def _get_cupy():
    global _cupy
    if _cupy is None:
        from . import cupy_backend
        _cupy = cupy_backend.cupy_module()
    return _cupy


def _has_accelerator():
    return cuda_module() is not None


_device_module._has_accelerator = _has_accelerator    # device(0) asks whether one is present


def array_module(arr):
    """numpy for host arrays, cupy for device arrays (the strict module for strict
    arrays)."""
    t = type(arr)
    if t is np.ndarray:
        return np
    if t is _StrictArray:
        return _strict_backend.STRICT
    if _cupy is None:
        return np
    return _cupy if isinstance(arr, _cupy.ndarray) else np


def device_of(arr):
    t = type(arr)
    if t is np.ndarray:
        return CPU
    if t is MetaArray:
        return META
    if _cupy is None:
        return CPU
    from . import cupy_backend
    return cupy_backend.device_of(arr)


def module_for_device(dev):
    """Array module for an ``ember.device`` (raises if CUDA is unavailable)."""
    if dev.type == 'cpu':
        return _cpu_module
    if dev.type == 'cuda':
        return _get_cupy()
    if dev.type == 'meta':
        return META_MODULE
    raise RuntimeError(f"unsupported device {dev}")


def to_device(arr, dev):
    """Move an array to ``dev`` (a copy across devices; the same array otherwise)."""
    if dev.type == 'meta':
        return to_meta(arr)
    if type(arr) is MetaArray:
        no_data()
    if dev.type == 'cpu':
        if isinstance(arr, np.ndarray):
            if _cpu_module is not np and type(arr) is np.ndarray:   # onto the strict backend
                return _strict_backend.to_strict(arr)
            return arr
        if isinstance(arr, np.generic):   # a NumPy scalar: host data already
            return to_device(np.asarray(arr), dev)
        return arr.get()
    if dev.type == 'cuda':
        cp = _get_cupy()
        from . import cupy_backend
        return cupy_backend.to_cuda(arr, dev)
    return module_for_device(dev)


if _strict_backend.enabled():   # EMBER_STRICT_BACKEND=1
    _strict_backend.enable()
