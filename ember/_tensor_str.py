"""Printing tensors the way PyTorch prints them."""
import numpy as np

from . import _dtype as D


def _type_name(t):
    from ._tensor import _legacy_name
    return f"torch.{_legacy_name(t.dtype)}Tensor"


def _str(t, tensor_contents=None):
    a = t._data
    if type(a) is not np.ndarray:
        a = a.get()
    body = np.array2string(a.astype(np.float64) if a.dtype.kind == 'V' else a, separator=', ',
                           prefix='tensor(')
    suffix = []
    if t.device.type != 'cpu':
        suffix.append(f"device='{t.device}'")
    dt = t.dtype
    if dt not in (D.float32, D.int64, D.bool, D.complex64) or a.size == 0:
        suffix.append(f"dtype={dt}")
    fn = t.grad_fn
    if fn is not None:
        suffix.append(f"grad_fn=<{fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return 'tensor(' + body + ''.join(', ' + s for s in suffix) + ')'
