"""Pooling layers: max, max-unpooling, average, fractional max, power-average (LP) and
adaptive pooling, 1-3d. Each ``forward`` calls its functional form (``ember/_ops/pooling.py``);
none has parameters or buffers (``FractionalMaxPool`` keeps ``_random_samples`` as a buffer
when given, as PyTorch does)."""
from .utils import _ntuple
from .. import functional as F
from .module import Module

__all__ = ['MaxPool1d', 'MaxPool2d', 'MaxPool3d', 'MaxUnpool1d', 'MaxUnpool2d', 'MaxUnpool3d',
           'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'FractionalMaxPool2d', 'FractionalMaxPool3d',
           'LPPool1d', 'LPPool2d', 'LPPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d',
           'AdaptiveMaxPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d']




# ----------------------------------------------------------------------------- max pooling

class _MaxPoolNd(Module):
    __constants__ = ['kernel_size', 'stride', 'padding', 'dilation', 'return_indices',
                     'ceil_mode']

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Applies 1-D max pooling over an input of several planes.

    ``out[n, c, i] = max_k input[n, c, stride * i + dilation * k]`` over the ``kernel_size``
    window, with implicit ``-inf`` padding.

    Args:
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides (at most half the
            effective kernel size). Default: 0.
        dilation (int or tuple): spacing of the window elements. Default: 1.
        return_indices (bool): also return the argmax indices (for :class:`MaxUnpool1d`).
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.

    Shape:
        - Input: ``(N, C, L_in)`` or ``(C, L_in)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, with
          ``L_out = floor((L_in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``
          (``ceil`` with ``ceil_mode``).

    Example::

        >>> m = nn.MaxPool1d(3, stride=2)
        >>> m(ember.randn(20, 16, 50)).shape
        torch.Size([20, 16, 24])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Applies 2-D max pooling over an input of several planes.

    Args:
        kernel_size (int or tuple): window size ``(kH, kW)``.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding. Default: 0.
        dilation (int or tuple): spacing of the window elements. Default: 1.
        return_indices (bool): also return the argmax indices, flattened per plane
            (for :class:`MaxUnpool2d`).
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size.

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, each size as for
          :class:`MaxPool1d`.

    Example::

        >>> m = nn.MaxPool2d((3, 2), stride=(2, 1))
        >>> m(ember.randn(20, 16, 50, 32)).shape
        torch.Size([20, 16, 24, 31])
    """

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Applies 3-D max pooling over an input of several planes.

    Args:
        kernel_size, stride, padding, dilation, return_indices, ceil_mode: as
            :class:`MaxPool2d`, with three sizes.

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> m = nn.MaxPool3d(3, stride=2)
        >>> m(ember.randn(2, 4, 9, 9, 9)).shape
        torch.Size([2, 4, 4, 4, 4])
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


# ----------------------------------------------------------------------------- unpooling

class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(n)(kernel_size)
        self.stride = _ntuple(n)(stride if stride is not None else kernel_size)
        self.padding = _ntuple(n)(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool1d`: puts each input value at its index from the
    max pooling, zeros elsewhere.

    Args:
        kernel_size (int or tuple): the max pooling's window size.
        stride (int or tuple, optional): its stride. Default: ``kernel_size``.
        padding (int or tuple): its padding. Default: 0.

    Shape:
        - Input: ``(N, C, H_in)`` or ``(C, H_in)``; indices of the same shape.
        - Output: ``(N, C, H_out)`` or ``(C, H_out)`` with
          ``H_out = (H_in - 1) * stride - 2 * padding + kernel_size``, or ``output_size``
          given to ``forward``.

    Example::

        >>> pool, unpool = nn.MaxPool1d(2, return_indices=True), nn.MaxUnpool1d(2)
        >>> unpool(*pool(ember.tensor([[[1., 2, 3, 4]]])))
        tensor([[[0., 2., 0., 4.]]])
    """
    _nd = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool2d` (see :class:`MaxUnpool1d`).

    Args:
        kernel_size, stride, padding: those of the max pooling (two sizes).

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``; indices of the same shape.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
        >>> unpool(*pool(ember.randn(1, 1, 4, 4))).shape
        torch.Size([1, 1, 4, 4])
    """
    _nd = 2

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool3d` (see :class:`MaxUnpool1d`).

    Args:
        kernel_size, stride, padding: those of the max pooling (three sizes).

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> pool, unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)
        >>> unpool(*pool(ember.randn(1, 1, 4, 4, 4))).shape
        torch.Size([1, 1, 4, 4, 4])
    """
    _nd = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


# ----------------------------------------------------------------------------- average

class _AvgPoolNd(Module):
    __constants__ = ['kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad']

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Applies 1-D average pooling over an input of several planes.

    Args:
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides. Default: 0.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.
        count_include_pad (bool): count the zero padding in the divisor. Default: True.

    Shape:
        - Input: ``(N, C, L_in)`` or ``(C, L_in)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)`` with
          ``L_out = floor((L_in + 2 * padding - kernel_size) / stride + 1)``.

    Example::

        >>> m = nn.AvgPool1d(3, stride=2)
        >>> m(ember.tensor([[[1., 2, 3, 4, 5, 6, 7]]]))
        tensor([[[2., 4., 6.]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(1)(kernel_size)
        self.stride = _ntuple(1)(stride if stride is not None else kernel_size)
        self.padding = _ntuple(1)(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """Applies 2-D average pooling over an input of several planes.

    Args:
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding. Default: 0.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size.
        count_include_pad (bool): count the zero padding in the divisor. Default: True.
        divisor_override (int, optional): divide every window sum by this instead.

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.AvgPool2d((3, 2), stride=(2, 1))
        >>> m(ember.randn(20, 16, 50, 32)).shape
        torch.Size([20, 16, 24, 31])
    """
    __constants__ = ['kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad',
                     'divisor_override']

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPoolNd):
    """Applies 3-D average pooling over an input of several planes.

    Args:
        kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: as
            :class:`AvgPool2d`, with three sizes.

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> m = nn.AvgPool3d(3, stride=2)
        >>> m(ember.randn(2, 4, 9, 9, 9)).shape
        torch.Size([2, 4, 4, 4, 4])
    """
    __constants__ = ['kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad',
                     'divisor_override']

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


# ----------------------------------------------------------------------------- fractional

class _FractionalMaxPoolNd(Module):
    __constants__ = ['kernel_size', 'return_indices', 'output_size', 'output_ratio']
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(n)(kernel_size)
        self.return_indices = return_indices
        self.register_buffer('_random_samples', _random_samples)
        self.output_size = _ntuple(n)(output_size) if output_size is not None else None
        self.output_ratio = _ntuple(n)(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{n}d requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Applies 2-D fractional max pooling (Graham, 2014): ``kernel_size`` windows at
    pseudo-random steps that give the target output size.

    Args:
        kernel_size (int or tuple): window size.
        output_size (int or tuple, optional): ``(H_out, W_out)``.
        output_ratio (float or tuple, optional): output size as a fraction (in ``(0, 1)``) of
            the input size. Exactly one of ``output_size`` / ``output_ratio`` is given.
        return_indices (bool): also return the argmax indices (for :class:`MaxUnpool2d`).
        _random_samples (Tensor, optional): ``(N, C, 2)`` samples fixing the steps (kept as
            a buffer). Default: drawn per call with ``ember.rand``, as PyTorch draws them.

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.FractionalMaxPool2d(3, output_size=(13, 12))
        >>> m(ember.randn(2, 4, 50, 32)).shape
        torch.Size([2, 4, 13, 12])
    """
    _nd = 2

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Applies 3-D fractional max pooling (see :class:`FractionalMaxPool2d`);
    ``_random_samples`` is ``(N, C, 3)``.

    Args:
        kernel_size, output_size, output_ratio, return_indices, _random_samples: as
            :class:`FractionalMaxPool2d`, with three sizes.

    Shape:
        - Input: ``(N, C, T_in, H_in, W_in)`` or ``(C, T_in, H_in, W_in)``.
        - Output: ``(N, C, T_out, H_out, W_out)`` or ``(C, T_out, H_out, W_out)``.

    Example::

        >>> m = nn.FractionalMaxPool3d(3, output_ratio=(0.5, 0.5, 0.5))
        >>> m(ember.randn(2, 4, 10, 12, 14)).shape
        torch.Size([2, 4, 5, 6, 7])
    """
    _nd = 3

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


# ----------------------------------------------------------------------------- LP pooling

class _LPPoolNd(Module):
    __constants__ = ['norm_type', 'kernel_size', 'stride', 'ceil_mode']

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Applies 1-D power-average pooling: ``(sum over the window of x**p) ** (1/p)``
    (``p = inf`` is max pooling of ``|x|``, ``p = 1`` sum pooling).

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int): window size.
        stride (int, optional): window stride. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output length.

    Shape:
        - Input: ``(N, C, L_in)`` or ``(C, L_in)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)`` with
          ``L_out = floor((L_in - kernel_size) / stride + 1)``.

    Example::

        >>> m = nn.LPPool1d(2, 3, stride=2)
        >>> m(ember.randn(20, 16, 50)).shape
        torch.Size([20, 16, 24])
    """

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Applies 2-D power-average pooling (see :class:`LPPool1d`).

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window stride. Default: ``kernel_size``.
        ceil_mode (bool): use ``ceil`` instead of ``floor`` for the output size.

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.LPPool2d(1.2, (3, 2), stride=(2, 1))
        >>> m(ember.randn(20, 16, 50, 32)).shape
        torch.Size([20, 16, 24, 31])
    """

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Applies 3-D power-average pooling (see :class:`LPPool1d`).

    Args:
        norm_type, kernel_size, stride, ceil_mode: as :class:`LPPool2d`, with three sizes.

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> m = nn.LPPool3d(2, 3, stride=2)
        >>> m(ember.randn(2, 4, 9, 9, 9)).shape
        torch.Size([2, 4, 4, 4, 4])
    """

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


# ----------------------------------------------------------------------------- adaptive

class _AdaptiveMaxPoolNd(Module):
    __constants__ = ['output_size', 'return_indices']

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Applies 1-D adaptive max pooling: output length ``output_size`` for any input length
    (window ``i`` spans ``floor(i * L / out)`` to ``ceil((i + 1) * L / out)``).

    Args:
        output_size (int): the output length.
        return_indices (bool): also return the argmax indices.

    Shape:
        - Input: ``(N, C, L_in)`` or ``(C, L_in)``.
        - Output: ``(N, C, output_size)`` or ``(C, output_size)``.

    Example::

        >>> m = nn.AdaptiveMaxPool1d(5)
        >>> m(ember.randn(1, 64, 8)).shape
        torch.Size([1, 64, 5])
    """

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Applies 2-D adaptive max pooling (see :class:`AdaptiveMaxPool1d`).

    Args:
        output_size (int or tuple): ``(H_out, W_out)``; ``None`` keeps the input's size.
        return_indices (bool): also return the argmax indices (flattened per plane).

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.AdaptiveMaxPool2d((5, None))
        >>> m(ember.randn(1, 64, 10, 9)).shape
        torch.Size([1, 64, 5, 9])
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Applies 3-D adaptive max pooling (see :class:`AdaptiveMaxPool2d`).

    Args:
        output_size (int or tuple): ``(D_out, H_out, W_out)``; ``None`` keeps a size.
        return_indices (bool): also return the argmax indices.

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> m = nn.AdaptiveMaxPool3d((5, 7, 9))
        >>> m(ember.randn(1, 2, 8, 9, 10)).shape
        torch.Size([1, 2, 5, 7, 9])
    """

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ['output_size']

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Applies 1-D adaptive average pooling: output length ``output_size`` for any input
    length (window ``i`` spans ``floor(i * L / out)`` to ``ceil((i + 1) * L / out)``).

    Args:
        output_size (int): the output length.

    Shape:
        - Input: ``(N, C, L_in)`` or ``(C, L_in)``.
        - Output: ``(N, C, output_size)`` or ``(C, output_size)``.

    Example::

        >>> m = nn.AdaptiveAvgPool1d(5)
        >>> m(ember.randn(1, 64, 8)).shape
        torch.Size([1, 64, 5])
    """

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Applies 2-D adaptive average pooling (see :class:`AdaptiveAvgPool1d`).

    Args:
        output_size (int or tuple): ``(H_out, W_out)``; ``None`` keeps the input's size.

    Shape:
        - Input: ``(N, C, H_in, W_in)`` or ``(C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example::

        >>> m = nn.AdaptiveAvgPool2d((5, 7))
        >>> m(ember.randn(1, 64, 8, 9)).shape
        torch.Size([1, 64, 5, 7])
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Applies 3-D adaptive average pooling (see :class:`AdaptiveAvgPool2d`).

    Args:
        output_size (int or tuple): ``(D_out, H_out, W_out)``; ``None`` keeps a size.

    Shape:
        - Input: ``(N, C, D_in, H_in, W_in)`` or ``(C, D_in, H_in, W_in)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example::

        >>> m = nn.AdaptiveAvgPool3d((5, 7, 9))
        >>> m(ember.randn(1, 2, 8, 9, 10)).shape
        torch.Size([1, 2, 5, 7, 9])
    """

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)
