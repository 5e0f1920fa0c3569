"""Quantized ``LinearReLU``: a quantized linear layer with ReLU fused."""
from ember._quantized import ops as _qops
from ember.ao.nn.quantized.modules import linear as _linear

__all__ = ['LinearReLU']


class LinearReLU(_linear.Linear):
    r"""A quantized linear layer followed by ReLU, in one kernel
    (``ember.ops.quantized.linear_relu``).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): weight dtype. Default: ``ember.qint8``.

    Example::

        >>> m = nn.intrinsic.quantized.LinearReLU(4, 2)
        >>> x = ember.quantize_per_tensor(ember.ones(3, 4), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([3, 2])
    """

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        import ember
        super().__init__(in_features, out_features, bias, ember.qint8 if dtype is None
                         else dtype)

    @classmethod
    def _float_modules(cls):
        from ember.ao.nn.intrinsic import LinearReLU as _F
        return (_F,)

    def forward(self, x):
        return _qops.linear_relu(x, self._packed_params._packed_params, self.scale,
                                 self.zero_point)

    def _get_name(self):
        return 'QuantizedLinearReLU'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized LinearReLU from an observed fused float (or QAT) LinearReLU."""
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_linear_relu, output_scale, output_zero_point):
        """From a reference ``(linear, relu)`` pair and the output's qparams."""
        return super().from_reference(ref_linear_relu[0], output_scale, output_zero_point)
