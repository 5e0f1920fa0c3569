"""``ember.nn.functional``: the stateless functions behind the layers. Each is bound to
its one definition in ``ember/_ops``."""
from .._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                         conv_transpose3d)
from .._ops.activation import leaky_relu, leaky_relu_
from .._ops.loss import l1_loss, mse_loss
from .._ops.normalization import native_batch_norm as _native_batch_norm
from .. import _ops
from .._tensor import _Mode, _new_tensor as _wrap
from .._ops._util import Node as _Node, record as _record
from .._backend import array_module as _array_module
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
    nd = input._data.ndim
    if bias is None:
        if nd == 0:
            raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                               f"0D and {weight.dim()}D")
        return _matmul(input, weight.t())
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
    """Applies the rectified linear unit ``max(0, x)`` elementwise.

    Args:
        input (Tensor): the input.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.relu(ember.tensor([-1., 2.]))
        tensor([0., 2.])
    """
    return input.relu_() if inplace else input.relu()


def relu_(input):
    """In-place version of :func:`relu`.

    Args:
        input (Tensor): the input, overwritten.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.relu_(x); x
        tensor([0., 2.])
    """
    return input.relu_()


def pad(input, pad, mode='constant', value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_prev, ...)``.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple): pad sizes, two per padded dim starting from the last; negative values
            crop.
        mode (str): ``'constant'`` (fill with ``value``, default 0), ``'reflect'`` (mirror
            without repeating the edge), ``'replicate'`` (repeat the edge) or
            ``'circular'`` (wrap around). The non-constant modes pad the last 1, 2 or 3 dims
            of a (batched or unbatched) input.
        value (float): fill value of ``'constant'`` mode.

    Example::

        >>> F.pad(ember.ones(1, 2), (1, 1)).tolist()
        [[0.0, 1.0, 1.0, 0.0]]
        >>> F.pad(ember.tensor([[1., 2., 3.]]), (2, 1), mode='reflect').tolist()
        [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    if mode not in ('constant', 'reflect', 'replicate', 'circular'):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = input.dim()
    if mode != 'constant':
        return _pad_index(input, tuple(int(p) for p in pad), mode)
    if len(pad) // 2 > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length " + str(len(pad)) + " and input of "
                           "dimension " + str(nd))
    import numpy as np
    a = input._data
    xp = _array_module(a)
    npad = len(pad) // 2
    out_shape = list(a.shape)
    src, dst = [slice(None)] * nd, [slice(None)] * nd
    for i in range(npad):
        d = nd - 1 - i
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        n = a.shape[d]
        out_shape[d] = n + lo + hi
        if out_shape[d] < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {lo} and {hi} resulted "
                               f"in a negative output size, which is invalid. Check dimension {d} "
                               "of your input.")
        src[d] = slice(max(-lo, 0), n - max(-hi, 0))
        dst[d] = slice(max(lo, 0), max(lo, 0) + max(n - max(-lo, 0) - max(-hi, 0), 0))
    r = xp.full(out_shape, 0 if value is None else value, dtype=a.dtype)
    r[tuple(dst)] = a[tuple(src)]
    out = _wrap(r)
    if _Mode.grad and input._rg:
        node = ConstantPadNdBackward0()
        node.pad = tuple(-int(p) for p in pad)
        _record(out, node, (input,))
    return out


class ConstantPadNdBackward0(_Node):
    def backward(self, g):
        return (pad(g, self.pad),)


class _PadBackward(_Node):
    """Backward of the index-based paddings: scatter-add the gradient of each padded
    position back onto the input position it was read from."""

    def backward(self, g):
        for d, idx, n in reversed(self.plan):
            shape = list(g.shape)
            shape[d] = n
            g = g.new_zeros(shape).index_add(d, idx, g)
        return (g,)


class ReflectionPad1DBackward0(_PadBackward):
    pass


class ReflectionPad2DBackward0(_PadBackward):
    pass


class ReflectionPad3DBackward0(_PadBackward):
    pass


class ReplicationPad1DBackward0(_PadBackward):
    pass


class ReplicationPad2DBackward0(_PadBackward):
    pass


class ReplicationPad3DBackward0(_PadBackward):
    pass


class CircularPadBackward0(_PadBackward):
    pass


_PAD_NODES = {('reflect', 1): ReflectionPad1DBackward0, ('reflect', 2): ReflectionPad2DBackward0,
              ('reflect', 3): ReflectionPad3DBackward0, ('replicate', 1): ReplicationPad1DBackward0,
              ('replicate', 2): ReplicationPad2DBackward0,
              ('replicate', 3): ReplicationPad3DBackward0}


def _pad_index(input, pad, mode):
    """reflect / replicate / circular padding: a gather along each padded dim."""
    import numpy as np
    nd = input.dim()
    npad = len(pad) // 2
    if npad not in (1, 2, 3) or nd not in (npad + 1, npad + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    shape = tuple(input.shape)
    a = input._data
    xp = _array_module(a)
    plan = []
    for i in range(npad):
        d = nd - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = shape[d]
        if mode == 'reflect' and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} "
                               f"of input {list(shape)}")
        if mode == 'circular' and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + lo + hi < 0 or (n == 0 and lo + hi > 0):
            raise RuntimeError(f"input tensor with shape {list(shape)} is too small for padding "
                               f"({lo}, {hi}) at dimension {d}")
        p = np.arange(-lo, n + hi)
        if mode == 'reflect':
            p = np.where(p < 0, -p, p)
            p = np.where(p >= n, 2 * (n - 1) - p, p)
        elif mode == 'replicate':
            p = np.clip(p, 0, n - 1)
        else:   # circular wraps around the (possibly cropped) interior
            start, stop = max(-lo, 0), n - max(-hi, 0)
            p = start + np.mod(np.arange(-max(lo, 0), stop - start + max(hi, 0)), stop - start)
        plan.append((d, p, n))
    r = a
    for d, p, n in plan:
        r = xp.take(r, xp.asarray(p), axis=d)
    out = _wrap(r)
    if _Mode.grad and input._rg:
        from .._ops.creation import tensor as _tensor_fn
        node = _PAD_NODES.get((mode, npad), CircularPadBackward0)()
        node.plan = [(d, _tensor_fn(p), n) for d, p, n in plan]
        _record(out, node, (input,))
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Applies batch normalization over dim 1 of an ``(N, C, *)`` input:
    ``(x - mean) / sqrt(var + eps) * weight + bias``. In training mode the batch statistics
    are used and ``running_mean`` / ``running_var`` (if given) are updated in place:
    ``running = (1 - momentum) * running + momentum * batch_stat`` (unbiased variance).

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor or None): ``(C)`` running mean.
        running_var (Tensor or None): ``(C)`` running variance.
        weight (Tensor, optional): ``(C)`` scale. Default: None.
        bias (Tensor, optional): ``(C)`` shift. Default: None.
        training (bool): use batch statistics. Default: ``False``.
        momentum (float): running-statistics factor. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

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
