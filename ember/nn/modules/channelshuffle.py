"""ChannelShuffle: a module over ``F.channel_shuffle``."""
from .. import functional as F
from .module import Module

__all__ = ['ChannelShuffle']


class ChannelShuffle(Module):
    """Divide the channels of ``(N, C, *)`` into ``groups`` groups and interleave them.

    Args:
        groups (int): number of groups to divide channels in.

    Shape:
        - Input: ``(N, C, *)``.
        - Output: ``(N, C, *)``.

    Example::

        >>> nn.ChannelShuffle(2)(ember.arange(4.).view(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """
    __constants__ = ['groups']

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
