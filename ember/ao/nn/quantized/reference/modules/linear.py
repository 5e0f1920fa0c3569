"""The reference quantized Linear."""
from ......nn import functional as F
from ......nn.modules.linear import Linear as _Linear
from ......nn.parameter import Parameter
from .utils import ReferenceQuantizedModule

__all__ = ['Linear']


class Linear(_Linear, ReferenceQuantizedModule):
    r"""A reference quantized linear layer (``torch.ao.nn.quantized.reference.Linear``):
    float input and output; the float weight is quantized and dequantized with its stored
    parameters on every call, then ``F.linear`` runs.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias_ (bool): whether the layer has a bias. Default: ``True``.
        device, dtype: factory arguments of the parameters.
        weight_qparams (dict, optional): ``qscheme``, ``dtype``, ``scale``, ``zero_point``
            (and ``axis`` per channel) of the weight; default per tensor ``quint8``, scale
            1, zero point 0.

    Shape:
        - Input: :math:`(*, H_{in})`; Output: :math:`(*, H_{out})`.

    Example::

        >>> qp = {'qscheme': ember.per_tensor_affine, 'dtype': ember.qint8, 'scale': 0.1, 'zero_point': 0}
        >>> m = ember.ao.nn.quantized.reference.Linear(4, 2, weight_qparams=qp)
        >>> m(ember.ones(3, 4)).shape
        torch.Size([3, 2])
    """
    _IS_REFERENCE = True

    def __init__(self, in_features, out_features, bias_=True, device=None, dtype=None,
                 weight_qparams=None):
        super().__init__(in_features, out_features, bias_, device, dtype)
        self._init_weight_qparams(weight_qparams, device)

    def _get_name(self):
        return 'QuantizedLinear(Reference)'

    def forward(self, x):
        """``F.linear(x, get_weight(), bias)``."""
        return F.linear(x, self.get_weight(), self.bias)

    @classmethod
    def from_float(cls, float_linear, weight_qparams):
        """A reference layer with ``float_linear``'s weight and bias (detached) and
        ``weight_qparams``.

        Args:
            float_linear (nn.Linear): the float layer.
            weight_qparams (dict): the weight's quantization parameters.
        """
        m = Linear(float_linear.in_features, float_linear.out_features,
                   float_linear.bias is not None, device=float_linear.weight.device,
                   dtype=float_linear.weight.dtype, weight_qparams=weight_qparams)
        m.weight = Parameter(float_linear.weight.detach())
        if float_linear.bias is not None:
            m.bias = Parameter(float_linear.bias.detach())
        return m
