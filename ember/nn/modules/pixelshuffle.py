"""PixelShuffle and PixelUnshuffle: modules over ``F.pixel_shuffle`` / ``F.pixel_unshuffle``."""
from .. import functional as F
from .module import Module

__all__ = ['PixelShuffle', 'PixelUnshuffle']


class PixelShuffle(Module):
    """Rearrange ``(*, C * r**2, H, W)`` into ``(*, C, H * r, W * r)``.

    Args:
        upscale_factor (int): ``r``, the factor to increase spatial resolution by.

    Shape:
        - Input: ``(*, C_in, H_in, W_in)``.
        - Output: ``(*, C_in / r**2, H_in * r, W_in * r)``.

    Example::

        >>> nn.PixelShuffle(3)(ember.randn(1, 9, 4, 4)).shape
        torch.Size([1, 1, 12, 12])
    """
    __constants__ = ['upscale_factor']

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r**2, H, W)``, the inverse of
    :class:`PixelShuffle`.

    Args:
        downscale_factor (int): ``r``, the factor to decrease spatial resolution by.

    Shape:
        - Input: ``(*, C_in, H_in, W_in)``.
        - Output: ``(*, C_in * r**2, H_in / r, W_in / r)``.

    Example::

        >>> nn.PixelUnshuffle(3)(ember.randn(1, 1, 12, 12)).shape
        torch.Size([1, 9, 4, 4])
    """
    __constants__ = ['downscale_factor']

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
