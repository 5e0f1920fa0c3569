"""Upsampling layers: ``Upsample`` (every interpolation mode) and the fixed-mode
``UpsamplingNearest2d`` / ``UpsamplingBilinear2d``, thin modules over ``F.interpolate``."""
from .. import functional as F
from .module import Module

__all__ = ['Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d']


class Upsample(Module):
    """Upsample (or downsample) 1-D, 2-D or 3-D multi-channel data.

    Args:
        size (int or tuple): output spatial size.
        scale_factor (float or tuple): multiplier for the spatial size (stored as float).
        mode (str): ``'nearest'`` (default), ``'nearest-exact'``, ``'linear'``,
            ``'bilinear'``, ``'bicubic'``, ``'trilinear'`` or ``'area'``.
        align_corners (bool): for the interpolating modes, align the corner pixels' centres.
        recompute_scale_factor (bool): recompute the scale from the computed output size.

    Shape:
        - Input: ``(N, C, W_in)``, ``(N, C, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: the same with the spatial sizes ``size`` or
          ``floor(in * scale_factor)``.

    Example::

        >>> m = nn.Upsample(scale_factor=2, mode='nearest')
        >>> m(ember.arange(1., 5.).view(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """
    __constants__ = ['size', 'scale_factor', 'mode', 'align_corners', 'name',
                     'recompute_scale_factor']

    def __init__(self, size=None, scale_factor=None, mode='nearest', align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state):
        if 'recompute_scale_factor' not in state:
            state['recompute_scale_factor'] = True
        super().__setstate__(state)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = 'scale_factor=' + repr(self.scale_factor)
        else:
            info = 'size=' + repr(self.size)
        return info + ', mode=' + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """2-D nearest-neighbour upsampling (``Upsample(..., mode='nearest')``).

    Args:
        size (int or tuple): output spatial size.
        scale_factor (float or tuple): multiplier for the spatial size.

    Shape:
        - Input: ``(N, C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.UpsamplingNearest2d(scale_factor=2)(ember.ones(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode='nearest')


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling with ``align_corners=True``.

    Args:
        size (int or tuple): output spatial size.
        scale_factor (float or tuple): multiplier for the spatial size.

    Shape:
        - Input: ``(N, C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)``.

    Example::

        >>> nn.UpsamplingBilinear2d(scale_factor=2)(ember.ones(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode='bilinear', align_corners=True)
