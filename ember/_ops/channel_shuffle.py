"""Channel shuffle: ``channel_shuffle`` (``ChannelShuffleBackward0``: the inverse shuffle) and
``native_channel_shuffle`` (no derivative, as PyTorch's native kernel): the channels of
``(N, C, *)`` split into groups and interleaved, keeping a channels-last input's layout.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
from . import _args
from .._tensor import Tensor, _Mode
from .._backend import array_module
from ._util import wrap, Node, register, record
from .. import _layout
from .vision import _factor

__all__ = ['channel_shuffle', 'native_channel_shuffle']


# ----------------------------------------------------------------------------- channel shuffle

class ChannelShuffleBackward0(Node):
    """Backward of ``channel_shuffle``: the inverse shuffle (``C / groups`` groups)."""

    def backward(self, g):
        return (channel_shuffle(g, g.shape[1] // self.groups),)


class NotImplemented(Node):  # noqa: A001 - PyTorch's name for ops without a derivative
    """The grad_fn PyTorch gives ops that have no derivative: backward raises."""

    def backward(self, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


def _shuffle(input, groups, fname):
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)
    g = _factor(groups, fname, 'groups')
    sh = tuple(input.shape)
    if len(sh) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(sh)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    C = sh[1]
    if C % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {C} channels "
                           f"and {g} groups.")
    a = input._data
    xp = array_module(a)
    v = a.reshape((sh[0], g, C // g) + sh[2:]).swapaxes(1, 2)
    return wrap(_layout.channels_last_like(xp.ascontiguousarray(v).reshape(sh), a)), g


@register(method=False)
def channel_shuffle(input, groups):
    """Split the channels of ``(N, C, *)`` into ``groups`` groups and interleave them:
    ``(N, g, C/g, *)`` transposed to ``(N, C/g, g, *)``.

    Args:
        input (Tensor): the input, at least 3-D.
        groups (int): number of groups to divide channels in.

    Example::

        >>> F.channel_shuffle(ember.arange(4.).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    out, g = _shuffle(input, groups, 'channel_shuffle')
    if _Mode.grad and input._rg:
        node = ChannelShuffleBackward0()
        node.groups = g
        record(out, node, (input,))
    return out


@register(method=False)
def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` without a derivative (as PyTorch's native kernel).

    Args:
        input (Tensor): the input, at least 3-D.
        groups (int): number of groups to divide channels in.

    Example::

        >>> F.native_channel_shuffle(ember.arange(4.).view(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    out, g = _shuffle(input, groups, 'native_channel_shuffle')
    if _Mode.grad and input._rg:
        node = NotImplemented()
        node.op = 'native_channel_shuffle'
        record(out, node, (input,))
    return out
