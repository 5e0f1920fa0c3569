"""``ember.ao.nn.qat.Linear``: a linear layer whose weight goes through a fake-quantize
module in every forward (quantization-aware training), as ``torch.ao.nn.qat.Linear``."""
from .....nn import functional as F
from .....nn.modules.linear import Linear as _FloatLinear
from .....nn.parameter import Parameter
from .....nn.utils.parametrize import (is_parametrized, transfer_parametrizations_and_params,
                                       type_before_parametrizations)
from ...intrinsic.modules.fused import LinearReLU as _FusedLinearReLU
from ._common import _check_float_qconfig, _need_qconfig

__all__ = ['Linear']


class Linear(_FloatLinear):
    r"""A :class:`~ember.nn.Linear` whose weight is fake-quantized in ``forward``:
    ``y = x @ weight_fake_quant(W)^T + b``, so that training sees the rounding the quantized
    model will do.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``
        qconfig (QConfig): the quantization configuration; ``qconfig.weight()`` makes the
            ``weight_fake_quant`` module. Required.
        device, dtype: factory arguments of the parameters.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(*, H_{in})`
        - Output: :math:`(*, H_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.qat.Linear(4, 2, qconfig=qconfig)
        >>> m(ember.randn(3, 4)).shape
        ember.Size([3, 2])
    """
    _FLOAT_MODULE = _FloatLinear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(in_features, out_features, bias, **factory_kwargs)
        _need_qconfig(qconfig)
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs=factory_kwargs)

    def forward(self, input):
        """Linear map with the fake-quantized weight."""
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float one that carries a ``qconfig``; the parameters
        are shared, not copied.

        Args:
            mod (nn.Module): a :class:`~ember.nn.Linear` (for this class) with ``qconfig``.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> lin = nn.Linear(4, 2)
            >>> lin.qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
            >>> qat = ember.ao.nn.qat.Linear.from_float(lin)
        """
        kind = type_before_parametrizations(mod)
        if kind != cls._FLOAT_MODULE:
            raise AssertionError(f'qat.{cls.__name__}.from_float only works for '
                                 f'{cls._FLOAT_MODULE.__name__}, got {kind.__name__}')
        _check_float_qconfig(mod)
        if type_before_parametrizations(mod) == _FusedLinearReLU:
            mod = mod[0]
        qat = cls(mod.in_features, mod.out_features, bias=mod.bias is not None,
                  qconfig=mod.qconfig)
        for name in ('weight', 'bias'):
            if is_parametrized(mod, name):
                transfer_parametrizations_and_params(mod, qat, name)
            else:
                setattr(qat, name, getattr(mod, name))
        return qat

    def to_float(self):
        """A float :class:`~ember.nn.Linear` holding detached copies of the parameters.

        Example::

            >>> lin = ember.ao.nn.qat.Linear(4, 2, qconfig=qconfig).to_float()
        """
        linear = _FloatLinear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = Parameter(self.bias.detach())
        linear.train(self.training)
        return linear
