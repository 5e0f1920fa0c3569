"""Convolution layers: ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d`` and their lazy forms."""
import math

from .utils import _ntuple
from ..._ops.creation import empty
from ..._ops import conv as C
from .. import init
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d',
           'LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d',
           'LazyConvTranspose2d', 'LazyConvTranspose3d']

_PAD_MODES = ('zeros', 'reflect', 'replicate', 'circular')


class _ConvNd(Module):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ('same', 'valid'):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == 'same' and any(s != 1 for s in C._tup(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PAD_MODES:
            raise ValueError("padding_mode must be one of {'zeros', 'reflect', 'replicate', "
                             f"'circular'}}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        nt = _ntuple(nd)     # iterables are read as tuples, as PyTorch's layers do
        self.kernel_size = C._tup(nt(kernel_size), nd)
        self.stride = C._tup(nt(stride), nd)
        self.padding = padding if isinstance(padding, str) else C._tup(nt(padding), nd)
        self.dilation = C._tup(nt(dilation), nd)
        self.transposed = transposed
        self.output_padding = C._tup(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        if transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight and bias with the default (Kaiming-uniform) scheme."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = '{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}'
        if self.padding != (0,) * len(self.kernel_size):
            s += ', padding={padding}'
        if self.dilation != (1,) * len(self.dilation):
            s += ', dilation={dilation}'
        if self.output_padding != (0,) * len(self.output_padding):
            s += ', output_padding={output_padding}'
        if self.groups != 1:
            s += ', groups={groups}'
        if self.bias is None:
            s += ', bias=False'
        if self.padding_mode != 'zeros':
            s += ', padding_mode={padding_mode}'
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, 'padding_mode'):
            self.padding_mode = 'zeros'


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros', device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         False, 0, groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]   # via F: observable
        if self.padding_mode != 'zeros':
            pads = []
            if self.padding == 'same':
                for d in reversed(range(self._nd)):
                    total = self.dilation[d] * (self.kernel_size[d] - 1)
                    pads += [total // 2, total - total // 2]
            else:
                for p in reversed(self.padding if not isinstance(self.padding, str) else (0,) * self._nd):
                    pads += [p, p]
            return fn(F.pad(input, pads, mode=self.padding_mode), weight, bias, self.stride,
                      0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """Applies a 1-D convolution over an input of shape ``(N, C_in, L_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, L_in)`` or without ``N``
        - Output: ``(N, C_out, L_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.Conv1d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 50))
    """
    _nd = 1


class Conv2d(_Conv):
    """Applies a 2-D convolution over an input of shape ``(N, C_in, H_in, W_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.Conv2d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 50, 100))
    """
    _nd = 2


class Conv3d(_Conv):
    """Applies a 3-D convolution over an input of shape ``(N, C_in, D_in, H_in, W_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, D_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, D_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.Conv3d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 10, 50, 100))
    """
    _nd = 3


class _ConvTranspose(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                 device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         True, output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        nd = self._nd
        output_size = list(output_size)[-nd:]
        ret = []
        for d in range(nd):
            dim_size = input.size(d - nd)
            min_size = ((dim_size - 1) * self.stride[d] - 2 * self.padding[d] +
                        self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            max_size = min_size + self.stride[d] - 1
            if not (min_size <= output_size[d] <= max_size):
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                                 f"from {min_size} to {max_size} (for an input of {list(input.shape[2:])})")
            ret.append(output_size[d] - min_size)
        return tuple(ret)

    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        fn = getattr(F, ('conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d')[self._nd - 1])
        return fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """Applies a 1-D transposed convolution (the gradient of a convolution) over an input of shape ``(N, C_in, L_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, L_in)`` or without ``N``
        - Output: ``(N, C_out, L_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.ConvTranspose1d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 50))
    """
    _nd = 1


class ConvTranspose2d(_ConvTranspose):
    """Applies a 2-D transposed convolution (the gradient of a convolution) over an input of shape ``(N, C_in, H_in, W_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.ConvTranspose2d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 50, 100))
    """
    _nd = 2


class ConvTranspose3d(_ConvTranspose):
    """Applies a 3-D transposed convolution (the gradient of a convolution) over an input of shape ``(N, C_in, D_in, H_in, W_in)``
    (or without the batch dimension).

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, D_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, D_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.ConvTranspose3d(16, 33, 3, stride=2)
        >>> y = m(ember.randn(20, 16, 10, 50, 100))
    """
    _nd = 3


class _LazyConvMixin(LazyModuleMixin):
    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = input.shape[1] if input.dim() == self._nd + 2 else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
            else:
                shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(base, name):
    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None, **kw):
        base.__init__(self, 0, 0, kernel_size, *args, bias=False, **kw)
        LazyModuleMixin._setup(self)
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
    cls = type(name, (_LazyConvMixin, base), {
        '__init__': __init__, 'cls_to_become': base,
        '__doc__': f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first "
                   f"input.\n\n    Example::\n\n        >>> m = nn.{name}(8, 3)\n"})
    return cls


LazyConv1d = _lazy_conv(Conv1d, 'LazyConv1d')
LazyConv2d = _lazy_conv(Conv2d, 'LazyConv2d')
LazyConv3d = _lazy_conv(Conv3d, 'LazyConv3d')
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 'LazyConvTranspose1d')
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 'LazyConvTranspose2d')
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 'LazyConvTranspose3d')


# the lazy classes are built by _lazy_conv: their docstrings
LazyConv1d.__doc__ = """A :class:`Conv1d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`Conv1d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, L_in)`` or without ``N``
        - Output: ``(N, C_out, L_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConv1d(33, 3)
        >>> m(ember.randn(20, 16, 50)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('Conv1d', 16)
    """
LazyConvTranspose1d.__doc__ = """A :class:`ConvTranspose1d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`ConvTranspose1d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, L_in)`` or without ``N``
        - Output: ``(N, C_out, L_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConvTranspose1d(33, 3)
        >>> m(ember.randn(20, 16, 50)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('ConvTranspose1d', 16)
    """
LazyConv2d.__doc__ = """A :class:`Conv2d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`Conv2d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConv2d(33, 3)
        >>> m(ember.randn(20, 16, 50, 100)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('Conv2d', 16)
    """
LazyConvTranspose2d.__doc__ = """A :class:`ConvTranspose2d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`ConvTranspose2d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConvTranspose2d(33, 3)
        >>> m(ember.randn(20, 16, 50, 100)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('ConvTranspose2d', 16)
    """
LazyConv3d.__doc__ = """A :class:`Conv3d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`Conv3d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): zeros added to both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.
            Default: ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, D_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, D_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = floor((in + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1)``

    Attributes:
        weight (Parameter): ``(out_channels, in_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConv3d(33, 3)
        >>> m(ember.randn(20, 16, 10, 50, 100)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('Conv3d', 16)
    """
LazyConvTranspose3d.__doc__ = """A :class:`ConvTranspose3d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; the module then becomes a :class:`ConvTranspose3d`.

    Args:
        out_channels (int): channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are
            added to both sides of the input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output.
            Default: 0.
        groups (int): blocked connections from input to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, C_in, D_in, H_in, W_in)`` or without ``N``
        - Output: ``(N, C_out, D_out, H_out, W_out)`` or without ``N``, where
          per spatial dimension
            ``out = (in - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``

    Attributes:
        weight (Parameter): ``(in_channels, out_channels / groups, *kernel_size)``
        bias (Parameter): ``(out_channels)``, when ``bias=True``.

    Example::

        >>> m = nn.LazyConvTranspose3d(33, 3)
        >>> m(ember.randn(20, 16, 10, 50, 100)).shape[1]
        33
        >>> type(m).__name__, m.in_channels
        ('ConvTranspose3d', 16)
    """
