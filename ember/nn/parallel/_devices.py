"""Device-index helpers of ``ember.nn.parallel`` (PyTorch's ``_get_device_index`` rules)."""
from ..._device import device as _device


def device_index(d, what='non cpu'):
    """The accelerator index of ``d`` (an int, ``'cuda:i'`` or a device); a CPU device is
    PyTorch's ValueError (``Expected a non cpu device, but got: cpu``)."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    if isinstance(d, str):
        d = _device(d)
    if isinstance(d, _device):
        if d.type == 'cpu':
            raise ValueError(f"Expected a {what} device, but got: {d}")
        if d.index is None:
            from ... import cuda
            return cuda.current_device()
        return d.index
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but "
                     f"got:{d}")


def accelerator_available():
    from ... import cuda
    return cuda.is_available()


def to_device(i):
    """The ``torch.device`` of accelerator index ``i`` (-1: the CPU)."""
    return _device('cpu') if i == -1 else _device('cuda', i)


def check_accelerator():
    if not accelerator_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
