"""The reference quantized convolutions and transposed convolutions."""
from ......nn import functional as F
from ......nn.modules import conv as _conv
from ......nn.parameter import Parameter
from .utils import ReferenceQuantizedModule

__all__ = ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d',
           'ConvTranspose3d']

_FLOAT = {1: _conv.Conv1d, 2: _conv.Conv2d, 3: _conv.Conv3d}
_FLOAT_T = {1: _conv.ConvTranspose1d, 2: _conv.ConvTranspose2d, 3: _conv.ConvTranspose3d}
_FN = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_FN_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _copy_params(ref, float_conv):
    ref.weight = Parameter(float_conv.weight.detach())
    if float_conv.bias is not None:
        ref.bias = Parameter(float_conv.bias.detach())
    return ref


def _conv_class(nd):
    base = _FLOAT[nd]

    class ConvNd(base, ReferenceQuantizedModule):
        _IS_REFERENCE = True

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     dilation=1, groups=1, bias=True, padding_mode='zeros', device=None,
                     dtype=None, weight_qparams=None):
            base.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                          dilation, groups, bias, padding_mode, device, dtype)
            self._init_weight_qparams(weight_qparams, device)

        def forward(self, x):
            """The float convolution of ``x`` with :meth:`get_weight` (``padding_mode`` is
            not applied, as in PyTorch's reference modules)."""
            return _FN[nd](x, self.get_weight(), self.bias, self.stride, self.padding,
                           self.dilation, self.groups)

        def _get_name(self):
            return f'QuantizedConv{nd}d(Reference)'

        @classmethod
        def from_float(cls, float_conv, weight_qparams):
            """A reference convolution with ``float_conv``'s geometry, weight and bias
            (detached) and ``weight_qparams``."""
            ref = cls(float_conv.in_channels, float_conv.out_channels,
                      float_conv.kernel_size, float_conv.stride, float_conv.padding,
                      float_conv.dilation, float_conv.groups, float_conv.bias is not None,
                      float_conv.padding_mode, device=float_conv.weight.device,
                      dtype=float_conv.weight.dtype, weight_qparams=weight_qparams)
            return _copy_params(ref, float_conv)

    ConvNd.__name__ = ConvNd.__qualname__ = f'Conv{nd}d'
    ConvNd.__module__ = __name__
    ConvNd.__doc__ = f"""A reference quantized {nd}-d convolution
    (``torch.ao.nn.quantized.reference.Conv{nd}d``): float input and output; the float
    weight is quantized and dequantized with its stored parameters on every call, then
    ``F.conv{nd}d`` runs.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
        padding_mode, device, dtype: as :class:`ember.nn.Conv{nd}d`.
        weight_qparams (dict, optional): ``qscheme``, ``dtype``, ``scale``, ``zero_point``
            (and ``axis`` per channel) of the weight.

    Shape:
        - Input: :math:`(N, C_{{in}}, *)`; Output: :math:`(N, C_{{out}}, *)`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.Conv{nd}d(2, 3, 1)
        >>> m(ember.ones(1, 2{', 4' * nd})).shape[1]
        3
    """
    return ConvNd


def _conv_transpose_class(nd):
    base = _FLOAT_T[nd]

    class ConvTransposeNd(base, ReferenceQuantizedModule):
        _IS_REFERENCE = True

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros',
                     device=None, dtype=None, weight_qparams=None):
            base.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                          output_padding, groups, bias, dilation, padding_mode, device, dtype)
            self._init_weight_qparams(weight_qparams, device)

        def forward(self, x, output_size=None):
            """The float transposed convolution of ``x`` with :meth:`get_weight`.

            NOTE: as PyTorch's (which hands the builtin ``input`` to the output-padding
            computation), an ``output_size`` raises ``AttributeError``.
            """
            if output_size is not None:
                raise AttributeError("'builtin_function_or_method' object has no attribute "
                                     "'dim'")
            return _FN_T[nd](x, self.get_weight(), self.bias, self.stride, self.padding,
                             self.output_padding, self.groups, self.dilation)

        def _get_name(self):
            return f'QuantizedConvTranspose{nd}d(Reference)'

        @classmethod
        def from_float(cls, float_conv, weight_qparams):
            """A reference transposed convolution with ``float_conv``'s geometry, weight
            and bias (detached) and ``weight_qparams``."""
            ref = cls(float_conv.in_channels, float_conv.out_channels,
                      float_conv.kernel_size, float_conv.stride, float_conv.padding,
                      float_conv.output_padding, float_conv.groups,
                      float_conv.bias is not None, float_conv.dilation,
                      float_conv.padding_mode, device=float_conv.weight.device,
                      dtype=float_conv.weight.dtype, weight_qparams=weight_qparams)
            return _copy_params(ref, float_conv)

    ConvTransposeNd.__name__ = ConvTransposeNd.__qualname__ = f'ConvTranspose{nd}d'
    ConvTransposeNd.__module__ = __name__
    ConvTransposeNd.__doc__ = f"""A reference quantized {nd}-d transposed convolution
    (``torch.ao.nn.quantized.reference.ConvTranspose{nd}d``): the float weight is quantized
    and dequantized with its stored parameters on every call, then
    ``F.conv_transpose{nd}d`` runs.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, output_padding, groups,
        bias, dilation, padding_mode, device, dtype: as :class:`ember.nn.ConvTranspose{nd}d`.
        weight_qparams (dict, optional): the weight's quantization parameters.

    Shape:
        - Input: :math:`(N, C_{{in}}, *)`; Output: :math:`(N, C_{{out}}, *)`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.ConvTranspose{nd}d(2, 3, 1)
        >>> m(ember.ones(1, 2{', 4' * nd})).shape[1]
        3
    """
    return ConvTransposeNd


Conv1d, Conv2d, Conv3d = (_conv_class(n) for n in (1, 2, 3))
ConvTranspose1d, ConvTranspose2d, ConvTranspose3d = (_conv_transpose_class(n)
                                                     for n in (1, 2, 3))
