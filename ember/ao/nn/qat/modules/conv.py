"""``ember.ao.nn.qat.Conv1d/2d/3d``: convolutions whose weight goes through a fake-quantize
module in every forward (quantization-aware training), as ``torch.ao.nn.qat``."""
from .....nn.modules.activation import ReLU as _ReLU
from .....nn.modules.conv import Conv1d as _Conv1d, Conv2d as _Conv2d, Conv3d as _Conv3d
from .....nn.parameter import Parameter
from ...intrinsic.modules.fused import _FusedModule
from ._common import _check_float_qconfig, _need_qconfig

__all__ = ['Conv1d', 'Conv2d', 'Conv3d']


class _QATConv:
    """What the QAT convolutions add to their float class: the weight's fake-quantize
    module, ``forward`` through it, ``from_float`` and ``to_float``."""
    _FLOAT_MODULE = None       # the float class ``from_float`` accepts
    _FLOAT_CONV_MODULE = None  # the float convolution ``to_float`` builds

    def _qat_init(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                  groups, bias, padding_mode, qconfig, device, dtype):
        factory_kwargs = {'device': device, 'dtype': dtype}
        self._FLOAT_CONV_MODULE.__init__(self, in_channels, out_channels, kernel_size, stride,
                                         padding, dilation, groups, bias, padding_mode,
                                         **factory_kwargs)
        _need_qconfig(qconfig)
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs=factory_kwargs)

    def forward(self, input):
        """Convolution with the fake-quantized weight."""
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float one that carries a ``qconfig`` (for a fused
        conv + ReLU, from its convolution); the parameters are shared, not copied.

        Args:
            mod (nn.Module): the float module of class ``cls._FLOAT_MODULE``.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> conv = nn.Conv2d(3, 4, 3)
            >>> conv.qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
            >>> qat = ember.ao.nn.qat.Conv2d.from_float(conv)
        """
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f'qat.{cls.__name__}.from_float only works for '
                                 f'{cls._FLOAT_MODULE.__name__}, got {type(mod).__name__}')
        _check_float_qconfig(mod)
        if issubclass(type(mod), _FusedModule):
            mod = mod[0]
        qat = cls(mod.in_channels, mod.out_channels, mod.kernel_size, stride=mod.stride,
                  padding=mod.padding, dilation=mod.dilation, groups=mod.groups,
                  bias=mod.bias is not None, padding_mode=mod.padding_mode,
                  qconfig=mod.qconfig)
        qat.weight = mod.weight
        qat.bias = mod.bias
        return qat

    def to_float(self):
        """The float module: a convolution holding detached copies of the parameters
        (inside the fused float conv + ReLU for the fused QAT classes).

        Example::

            >>> conv = ember.ao.nn.qat.Conv2d(3, 4, 3, qconfig=qconfig).to_float()
        """
        cls = type(self)
        conv = cls._FLOAT_CONV_MODULE(self.in_channels, self.out_channels, self.kernel_size,
                                      self.stride, self.padding, self.dilation, self.groups,
                                      self.bias is not None, self.padding_mode)
        conv.weight = Parameter(self.weight.detach())
        if self.bias is not None:
            conv.bias = Parameter(self.bias.detach())
        if not issubclass(cls, _FusedModule):
            return conv
        if not hasattr(cls, '_FLOAT_RELU_MODULE'):
            raise AssertionError(f'{cls.__name__} must have _FLOAT_RELU_MODULE attribute')
        fused = cls._FLOAT_MODULE(conv, cls._FLOAT_RELU_MODULE())
        fused.train(self.training)
        return fused


class Conv1d(_QATConv, _Conv1d):
    r"""A :class:`~ember.nn.Conv1d` whose weight is fake-quantized in ``forward``, for
    quantization-aware training.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode: as :class:`~ember.nn.Conv1d`.
        qconfig (QConfig): the quantization configuration; ``qconfig.weight()`` makes the
            ``weight_fake_quant`` module. Required.
        device, dtype: factory arguments of the parameters.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(N, C_{in}, L_{in})`
        - Output: :math:`(N, C_{out}, L_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.qat.Conv1d(2, 3, 3, qconfig=qconfig)
        >>> m(ember.randn(1, 2, 6)).shape
        ember.Size([1, 3, 4])
    """
    _FLOAT_MODULE = _Conv1d
    _FLOAT_CONV_MODULE = _Conv1d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', qconfig=None,
                 device=None, dtype=None):
        self._qat_init(in_channels, out_channels, kernel_size, stride, padding, dilation,
                       groups, bias, padding_mode, qconfig, device, dtype)


class Conv2d(_QATConv, _Conv2d):
    r"""A :class:`~ember.nn.Conv2d` whose weight is fake-quantized in ``forward``, for
    quantization-aware training.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode: as :class:`~ember.nn.Conv2d`.
        qconfig (QConfig): the quantization configuration; ``qconfig.weight()`` makes the
            ``weight_fake_quant`` module. Required.
        device, dtype: factory arguments of the parameters.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(N, C_{in}, H_{in}, W_{in})`
        - Output: :math:`(N, C_{out}, H_{out}, W_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.qat.Conv2d(2, 3, 3, qconfig=qconfig)
        >>> m(ember.randn(1, 2, 5, 5)).shape
        ember.Size([1, 3, 3, 3])
    """
    _FLOAT_MODULE = _Conv2d
    _FLOAT_CONV_MODULE = _Conv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', qconfig=None,
                 device=None, dtype=None):
        self._qat_init(in_channels, out_channels, kernel_size, stride, padding, dilation,
                       groups, bias, padding_mode, qconfig, device, dtype)


class Conv3d(_QATConv, _Conv3d):
    r"""A :class:`~ember.nn.Conv3d` whose weight is fake-quantized in ``forward``, for
    quantization-aware training.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode: as :class:`~ember.nn.Conv3d`.
        qconfig (QConfig): the quantization configuration; ``qconfig.weight()`` makes the
            ``weight_fake_quant`` module. Required.
        device, dtype: factory arguments of the parameters.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(N, C_{in}, D_{in}, H_{in}, W_{in})`
        - Output: :math:`(N, C_{out}, D_{out}, H_{out}, W_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.qat.Conv3d(2, 3, 3, qconfig=qconfig)
        >>> m(ember.randn(1, 2, 4, 4, 4)).shape
        ember.Size([1, 3, 2, 2, 2])
    """
    _FLOAT_MODULE = _Conv3d
    _FLOAT_CONV_MODULE = _Conv3d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', qconfig=None,
                 device=None, dtype=None):
        self._qat_init(in_channels, out_channels, kernel_size, stride, padding, dilation,
                       groups, bias, padding_mode, qconfig, device, dtype)
