"""Quantized ``BNReLU2d`` / ``BNReLU3d``: quantized batch norm with ReLU fused."""
from ember.ao.nn.quantized.modules import batchnorm as _bn

__all__ = ['BNReLU2d', 'BNReLU3d']


class BNReLU2d(_bn.BatchNorm2d):
    r"""A quantized 2-d batch norm followed by ReLU, in one kernel
    (``ember.ops.quantized.batch_norm2d_relu``).

    Args:
        num_features (int): number of channels.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): kept for the interface. Default: 0.1.

    Example::

        >>> m = nn.intrinsic.quantized.BNReLU2d(2)
        >>> x = ember.quantize_per_tensor(-ember.ones(1, 2, 2, 2), 0.1, 10, ember.quint8)
        >>> m(x).int_repr().min()
        tensor(10, dtype=torch.uint8)
    """
    _RELU = True

    def _get_name(self):
        return 'QuantizedBNReLU2d'


class BNReLU3d(_bn.BatchNorm3d):
    r"""A quantized 3-d batch norm followed by ReLU, in one kernel
    (``ember.ops.quantized.batch_norm3d_relu``).

    Example::

        >>> m = nn.intrinsic.quantized.BNReLU3d(2)
        >>> x = ember.quantize_per_tensor(-ember.ones(1, 2, 1, 2, 2), 0.1, 10, ember.quint8)
        >>> m(x).int_repr().min()
        tensor(10, dtype=torch.uint8)
    """
    _RELU = True

    def _get_name(self):
        return 'QuantizedBNReLU3d'
