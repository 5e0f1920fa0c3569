"""``ember.ao.nn.intrinsic.qat.LinearReLU``: linear + ReLU with a fake-quantized weight, for
quantization-aware training, as ``torch.ao.nn.intrinsic.qat.LinearReLU``."""
from ......nn import functional as F
from ......nn.modules.activation import ReLU as _ReLU
from ......nn.modules.linear import Linear as _FloatLinear
from ......nn.parameter import Parameter
from ....qat.modules.linear import Linear as _QATLinear
from ...modules import fused as nni

__all__ = ['LinearReLU']


class LinearReLU(_QATLinear, nni._FusedModule):
    r"""A linear layer followed by ReLU, whose weight is fake-quantized in ``forward``:
    ``y = relu(x @ weight_fake_quant(W)^T + b)``, for quantization-aware training.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(*, H_{in})`
        - Output: :math:`(*, H_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.intrinsic.qat.LinearReLU(20, 30, qconfig=qconfig)
        >>> m(ember.randn(128, 20)).size()
        ember.Size([128, 30])
    """
    _FLOAT_MODULE = nni.LinearReLU

    def __init__(self, in_features, out_features, bias=True, qconfig=None):
        super().__init__(in_features, out_features, bias, qconfig)

    def forward(self, input):
        """Linear map with the fake-quantized weight, then ReLU."""
        return F.relu(F.linear(input, self.weight_fake_quant(self.weight), self.bias))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float ``nn.intrinsic.LinearReLU`` carrying a
        ``qconfig`` (the linear layer's parameters are shared).

        Args:
            mod (nn.intrinsic.LinearReLU): the fused float module.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> f = ember.ao.nn.intrinsic.LinearReLU(nn.Linear(4, 2), nn.ReLU())
            >>> f.qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
            >>> qat = ember.ao.nn.intrinsic.qat.LinearReLU.from_float(f)
        """
        return super().from_float(mod, use_precomputed_fake_quant)

    def to_float(self):
        """The float ``nn.intrinsic.LinearReLU`` holding detached copies of the parameters.

        Example::

            >>> f = qat.to_float()
        """
        linear = _FloatLinear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = Parameter(self.bias.detach())
        return nni.LinearReLU(linear, _ReLU())
