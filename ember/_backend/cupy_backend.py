"""The CUDA backend: CuPy arrays. Imported only when a CUDA device is used.

With ``EMBER_FAKE_CUDA=1`` the CUDA device's module is the fake CUDA backend
(``fake_cuda.cupy``: CuPy's namespace over host memory, refusing NumPy on device data), so
the CUDA path runs and is checked without a GPU.
"""
import os


def _fake():
    """The fake ``cupy`` module when ``EMBER_FAKE_CUDA`` is set, else None."""
    if os.environ.get('EMBER_FAKE_CUDA', '') in ('', '0'):
        return None
    from . import fake_cuda
    return fake_cuda.cupy


def _import():
    cp = _fake()
    if cp is not None:
        return cp
    import cupy
    return cupy


def fake_enabled():
    """True when ``EMBER_FAKE_CUDA`` selects the fake CUDA backend."""
    return os.environ.get('EMBER_FAKE_CUDA', '') not in ('', '0')


def cupy_module():
    try:
        cupy = _import()
    except Exception:
        raise AssertionError("Torch not compiled with CUDA enabled") from None
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception:
        n = 0
    if n == 0:
        raise RuntimeError("Found no NVIDIA driver on your system. Please check that you have "
                           "an NVIDIA GPU and installed a driver")
    return cupy


def device_of(arr):
    from .._device import device
    return device('cuda', arr.device.id)


def to_cuda(arr, dev):
    cupy = _import()
    idx = dev.index if dev.index is not None else cupy.cuda.runtime.getDevice()
    with cupy.cuda.Device(idx):
        if isinstance(arr, cupy.ndarray):
            if arr.device.id == idx:
                return arr
            return arr.copy()
        return cupy.asarray(arr)


def is_available():
    try:
        cupy = _import()
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False
