"""The CUDA backend: CuPy arrays. Imported only when a CUDA device is used."""


def cupy_module():
    try:
        import cupy
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
    import cupy
    idx = dev.index if dev.index is not None else cupy.cuda.runtime.getDevice()
    with cupy.cuda.Device(idx):
        if isinstance(arr, cupy.ndarray):
            if arr.device.id == idx:
                return arr
            return arr.copy()
        return cupy.asarray(arr)


def is_available():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False
