"""Dynamically quantized ``LinearReLU``."""
from ember import _dtype as D
from ember._quantized import ops as _qops
from ember.ao.nn.quantized.dynamic.modules import linear as _dlinear

__all__ = ['LinearReLU']


class LinearReLU(_dlinear.Linear):
    r"""A dynamically quantized linear layer followed by ReLU, in one kernel
    (``ember.ops.quantized.linear_relu_dynamic``): int8 weight, float32 input and output.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): ``ember.qint8``. Default: ``ember.qint8``.

    Example::

        >>> m = nn.intrinsic.quantized.dynamic.LinearReLU(4, 2)
        >>> bool((m(ember.ones(3, 4)) >= 0).all())
        True
    """

    def __init__(self, in_features, out_features, bias=True, dtype=D.qint8):
        super().__init__(in_features, out_features, bias, dtype)

    def forward(self, x):
        if self._packed_params.dtype is not D.qint8:
            raise ValueError("Only int8 dtype is supported for dynamic LinearReLU")
        y = _qops.linear_relu_dynamic(x, self._packed_params._packed_params,
                                      reduce_range=True)
        return y.to(x.dtype)

    def _get_name(self):
        return 'DynamicQuantizedLinearReLU'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A dynamically quantized LinearReLU from a fused float ``LinearReLU``."""
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_qlinear_relu):
        """From a reference ``(linear, relu)`` pair."""
        return super().from_reference(ref_qlinear_relu[0])
