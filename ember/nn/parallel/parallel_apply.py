"""``parallel_apply``: run each module on its inputs in its own thread."""
import threading
import traceback

from ..._tensor import Tensor
from ..._grad_state import _Mode
from . import _devices as _dev

__all__ = ['parallel_apply']


def _first_tensor(obj):
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for v in obj:
            t = _first_tensor(v)
            if t is not None:
                return t
    if isinstance(obj, dict):
        for v in obj.values():
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


class _Failure:
    def __init__(self, exc, where):
        self.exc = exc
        self.where = where
        self.tb = ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        msg = (f"Caught {type(self.exc).__name__} {self.where}.\nOriginal "
               f"{self.tb}")
        try:
            err = type(self.exc)(msg)
        except Exception:   # noqa: BLE001 - an exception type that takes other arguments
            raise RuntimeError(msg) from None
        raise err


def _apply(modules, inputs, kwargs_tup, devices):
    n = len(modules)
    grad = _Mode.grad
    results = [None] * n

    def work(i, module, inp, kw, dev):
        prev = _Mode.grad
        _Mode.grad = grad          # grad mode is per thread: carry the caller's
        try:
            if not isinstance(inp, (list, tuple)):
                inp = (inp,)
            results[i] = module(*inp, **kw)
        except Exception as e:  # noqa: BLE001 - re-raised in the caller's thread
            results[i] = _Failure(e, f"in replica {i} on device {dev}")
        finally:
            _Mode.grad = prev

    if n > 1:
        threads = [threading.Thread(target=work, args=(i, m, x, k, d))
                   for i, (m, x, k, d) in enumerate(zip(modules, inputs, kwargs_tup, devices))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    elif n == 1:
        work(0, modules[0], inputs[0], kwargs_tup[0], devices[0])
    outs = []
    for r in results:
        if isinstance(r, _Failure):
            r.reraise()
        outs.append(r)
    return outs


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """Runs ``modules[i](*inputs[i], **kwargs_tup[i])`` for every i, each in its own thread
    (with the caller's grad mode), and returns the outputs in order. An exception in a
    replica is re-raised in the caller with the replica's traceback in its message.

    Args:
        modules (list of Module): the modules (replicas) to run.
        inputs (list): their inputs; a non-tuple entry is a single argument.
        kwargs_tup (list of dict, optional): their keyword arguments.
        devices (list of int or device, optional): their accelerator devices.

    Example::

        >>> from ember.nn.parallel import parallel_apply
        >>> parallel_apply([], [])
        []
    """
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the "
                             f"number of inputs {len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the "
                                 f"number of kwargs_tup {len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        if len(modules) != len(devices):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the "
                                 f"number of devices {len(devices)}")
        devices = [_dev.device_index(d, 'cuda') for d in devices]
    else:
        if modules:
            _dev.check_accelerator()
        devices = []
        for x in inputs:
            t = _first_tensor(x)
            devices.append(t.device.index if t is not None else None)
    return _apply(list(modules), list(inputs), list(kwargs_tup), devices)
