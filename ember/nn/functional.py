"""``ember.nn.functional``: the stateless functions behind the layers. Each is bound to
its one definition in ``ember/_ops``."""
from .._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                         conv_transpose3d)
from .._ops.activation import leaky_relu, leaky_relu_
from .._ops.loss import l1_loss, mse_loss
from .. import _ops

__all__ = ['linear', 'relu', 'relu_', 'leaky_relu', 'leaky_relu_', 'conv1d', 'conv2d', 'conv3d',
           'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'l1_loss', 'mse_loss',
           'pad']


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``.

    Shape:
        - input: ``(*, in_features)``; weight: ``(out_features, in_features)``;
          bias: ``(out_features)``; output: ``(*, out_features)``.

    Example::

        >>> F.linear(ember.ones(2, 3), ember.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    from .._ops._util import FUNCTIONS
    if input.dim() == 2 and bias is not None:
        return FUNCTIONS['addmm'](bias, input, weight.t())
    out = FUNCTIONS['matmul'](input, weight.t())
    if bias is not None:
        out = out + bias
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
