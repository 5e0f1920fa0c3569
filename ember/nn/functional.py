"""``ember.nn.functional``: the stateless functions behind the layers. Each is bound to
its one definition in ``ember/_ops``."""
from .._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                         conv_transpose3d)
from .._ops.activation import leaky_relu, leaky_relu_
from .._ops.loss import l1_loss, mse_loss
from .._ops.normalization import native_batch_norm as _native_batch_norm
from .. import _ops
from .._tensor import _Mode, _new_tensor as _wrap
from .._ops.linalg import (AddmmBackward0 as _AddmmBackward0, _record_add_product,
                           addmm as _addmm, matmul as _matmul)

__all__ = ['linear', 'relu', 'relu_', 'leaky_relu', 'leaky_relu_', 'conv1d', 'conv2d', 'conv3d',
           'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'l1_loss', 'mse_loss',
           'pad', 'batch_norm']


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``.

    Args:
        input (Tensor): ``(*, in_features)``.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features)``.

    Shape:
        - output: ``(*, out_features)``.

    Example::

        >>> F.linear(ember.ones(2, 3), ember.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    if bias is None:
        return _matmul(input, weight.t())
    nd = input._data.ndim
    if nd == 2:
        return _addmm_t(bias, input, weight)
    if nd == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are 0D and "
                           f"{weight.dim()}D")
    shape = input.shape
    x2 = input.reshape(-1, shape[-1]) if nd > 2 else input.unsqueeze(0)
    r = _addmm_t(bias, x2, weight)
    return r.view(shape[:-1] + (r.shape[-1],))


def _addmm_t(bias, x, weight):
    """``bias + x @ weight.T`` for a 2-D ``x``: the lean path of :func:`linear` (one numpy
    product, recorded as PyTorch's ``AddmmBackward0`` over ``weight.t()``)."""
    a, w, b = x._data, weight._data, bias._data
    dt = a.dtype
    if (w.dtype is not dt or b.dtype is not dt or dt.kind != 'f' or dt.itemsize < 4 or w.ndim != 2
            or b.ndim != 1 or a.shape[1] != w.shape[1] or b.shape[0] != w.shape[0]):
        # anything unusual: the general addmm (promotion errors, broadcasting, low precision)
        return _addmm(bias, x, weight.t())
    r = a @ w.T
    r += b
    out = _wrap(r)
    if _Mode.grad and (x._rg or weight._rg or bias._rg):
        _record_add_product(out, _AddmmBackward0(), bias, x, weight.t(), 1, 1)
    return out


def relu(input, inplace=False):
    """``max(0, x)`` elementwise (in place with ``inplace=True``).

    Example::

        >>> F.relu(ember.tensor([-1., 2.]))
        tensor([0., 2.])
    """
    return input.relu_() if inplace else input.relu()


def relu_(input):
    """In-place :func:`relu`."""
    return input.relu_()


def pad(input, pad, mode='constant', value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_prev, ...)``.
    Only ``mode='constant'`` here; negative pads crop.

    Example::

        >>> F.pad(ember.ones(1, 2), (1, 1)).tolist()
        [[0.0, 1.0, 1.0, 0.0]]
    """
    if mode != 'constant':
        raise NotImplementedError(f"pad mode '{mode}' is not implemented yet")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = input.dim()
    if len(pad) // 2 > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length " + str(len(pad)) + " and input of "
                           "dimension " + str(nd))
    out_shape = list(input.shape)
    for i in range(len(pad) // 2):
        d = nd - 1 - i
        out_shape[d] += pad[2 * i] + pad[2 * i + 1]
    out = input.new_full(out_shape, 0 if value is None else value)
    src = input
    dst_slices = []
    for d in range(nd):
        i = nd - 1 - d
        if i < len(pad) // 2:
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo < 0:
                src = src.narrow(d, -lo, src.shape[d] + lo)
                lo = 0
            if hi < 0:
                src = src.narrow(d, 0, src.shape[d] + hi)
            dst_slices.append((d, lo, src.shape[d]))
    view = out
    for d, lo, n in dst_slices:
        view = view.narrow(d, lo, n)
    view.copy_(src)
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over dim 1 of ``(N, C, *)`` input: ``(x - mean) / sqrt(var +
    eps) * weight + bias``. In training mode the batch statistics are used and
    ``running_mean`` / ``running_var`` (if given) are updated in place:
    ``running = (1 - momentum) * running + momentum * batch_stat`` (unbiased variance).

    Example::

        >>> F.batch_norm(ember.tensor([[1.], [3.]]), None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if training:
        size = input.shape
        if input.dim() < 2:
            input.size(1)   # raises PyTorch's IndexError
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    return _native_batch_norm(input, weight, bias, running_mean, running_var, training,
                              momentum, eps)[0]
