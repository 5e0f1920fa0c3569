"""Padding: ``ember.nn.functional.pad`` in all four modes (constant, reflect, replicate,
circular) and the backward nodes PyTorch names for them.

Constant padding writes the (possibly cropped) input into a filled array; its backward is
padding by the negated amounts. The index-based modes gather along each padded dim with an
index plan computed on the host; their backward scatter-adds the gradient through the same
plan.
"""
import numpy as np

from . import _args
from .._tensor import Tensor, _Mode
from .._backend import array_module
from ._util import wrap, Node, record, register

__all__ = ['pad']


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
    if not isinstance(input, Tensor):
        _args.tensor(input, 'pad')
    if not (isinstance(pad, (tuple, list)) and all(type(p) is int for p in pad)):   # #ARGCHK
        pad = _args.as_int_list(pad, 'pad', 'pad', 2, allow_int=False)
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
    a = input._data
    xp = array_module(a)
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
    out = wrap(r)
    if _Mode.grad and input._rg:
        node = ConstantPadNdBackward0()
        node.pad = tuple(-int(p) for p in pad)
        record(out, node, (input,))
    return out


_pad = pad


@register(method=False)
def constant_pad_nd(input, pad, value=0):
    """Pad (or, with negative amounts, crop) the last ``len(pad) // 2`` dims of ``input`` with
    the constant ``value``: ``pad = (left_last, right_last, left_prev, right_prev, ...)``.

    The op behind ``F.pad(input, pad, mode='constant')``.

    Args:
        input (Tensor): the tensor to pad.
        pad (sequence of int): two amounts per padded dim, starting from the last dim.
        value (Number): the fill value (cast to ``input``'s dtype).

    Example::

        >>> ember.constant_pad_nd(ember.tensor([[1, 2]]), [1, 0, 0, 1], 9)
        tensor([[9, 1, 2],
                [9, 9, 9]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'constant_pad_nd')
    pad = _args.as_int_list(pad, 'constant_pad_nd', 'pad', 2, allow_int=False)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    nd = input.dim()
    if len(pad) // 2 > nd:
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{nd}dimensions.")
    return _pad(input, pad, 'constant', value)


class ConstantPadNdBackward0(Node):
    """Backward of constant padding: pad the gradient by the negated amounts (a crop)."""

    def backward(self, g):
        return (pad(g, self.pad),)


class _PadBackward(Node):
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


def _index_plan(n, lo, hi, mode):
    """Host (NumPy) indices into a dim of size ``n`` that pad it by ``lo``/``hi`` in
    ``mode``: output position ``j`` reads input position ``plan[j]``."""
    p = np.arange(-lo, n + hi)
    if mode == 'reflect':
        p = np.where(p < 0, -p, p)
        return np.where(p >= n, 2 * (n - 1) - p, p)
    if mode == 'replicate':
        return np.clip(p, 0, n - 1)
    start, stop = max(-lo, 0), n - max(-hi, 0)   # circular wraps the (maybe cropped) interior
    return start + np.mod(np.arange(-max(lo, 0), stop - start + max(hi, 0)), stop - start)


def _pad_index(input, pad, mode):
    """reflect / replicate / circular padding: a gather along each padded dim."""
    nd = input.dim()
    npad = len(pad) // 2
    if npad > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of "
                           f"dimension {nd}")
    if npad not in (1, 2, 3) or nd not in (npad + 1, npad + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    shape = tuple(input.shape)
    if mode != 'circular' and 0 in shape[nd - npad - 1:]:   # only the batch dim may be empty
        raise RuntimeError(f"Expected {npad + 1}D or {npad + 2}D (batch mode) tensor with "
                           "possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: {list(shape)}")
    a = input._data
    xp = array_module(a)
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
        plan.append((d, xp.asarray(_index_plan(n, lo, hi, mode)), n))
    r = a
    for d, p, n in plan:
        r = xp.take(r, p, axis=d)
    out = wrap(r)
    if _Mode.grad and input._rg:
        node = _PAD_NODES.get((mode, npad), CircularPadBackward0)()
        node.plan = [(d, wrap(p), n) for d, p, n in plan]
        record(out, node, (input,))
    return out
