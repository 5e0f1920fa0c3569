"""Fold and Unfold: modules over ``F.fold`` (col2im) and ``F.unfold`` (im2col)."""
from .. import functional as F
from .module import Module

__all__ = ['Fold', 'Unfold']


class Fold(Module):
    """Combine an array of sliding local blocks into a large tensor (col2im), summing
    overlapping values.

    Args:
        output_size (int or tuple): spatial size of the output.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): spacing of the elements within a block. Default: 1.
        padding (int or tuple): implicit zero padding on both sides. Default: 0.
        stride (int or tuple): step of the blocks. Default: 1.

    Shape:
        - Input: ``(N, C * prod(kernel_size), L)`` or ``(C * prod(kernel_size), L)``.
        - Output: ``(N, C, *output_size)`` or ``(C, *output_size)``.

    Example::

        >>> fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
        >>> fold(ember.randn(1, 3 * 2 * 2, 12)).shape
        torch.Size([1, 3, 4, 5])
    """
    __constants__ = ['output_size', 'kernel_size', 'dilation', 'padding', 'stride']

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extract sliding local blocks from a batched input (im2col).

    Args:
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): spacing of the elements within a block. Default: 1.
        padding (int or tuple): implicit zero padding on both sides. Default: 0.
        stride (int or tuple): step of the blocks. Default: 1.

    Shape:
        - Input: ``(N, C, *)`` or ``(C, *)`` with 2 spatial dims.
        - Output: ``(N, C * prod(kernel_size), L)`` or ``(C * prod(kernel_size), L)``.

    Example::

        >>> unfold = nn.Unfold(kernel_size=(2, 3))
        >>> unfold(ember.randn(2, 5, 3, 4)).shape
        torch.Size([2, 30, 4])
    """
    __constants__ = ['kernel_size', 'dilation', 'padding', 'stride']

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
