"""Quantized ``BatchNorm2d`` / ``BatchNorm3d`` (inference: the running statistics)."""
import ember
from ember import nn as _nn
from ember._quantized import ops as _qops
from .utils import _register_qparams

__all__ = ['BatchNorm2d', 'BatchNorm3d']


class _BatchNorm:
    _ND = 4
    _RELU = False

    def _qinit(self):
        _register_qparams(self, 1.0, 0)

    def forward(self, input):
        if input.dim() != self._ND:
            raise ValueError(f"Input shape must be `(N, C, {', '.join('DHW'[7 - self._ND:])})`!")
        op = f"batch_norm{self._ND - 2}d{'_relu' if self._RELU else ''}"
        return _qops.OPS[op](input, self.weight, self.bias, self.running_mean,
                             self.running_var, self.eps, self.scale, self.zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized batch norm from an observed float one (or a fused BNReLU): its
        running statistics and affine parameters, the observer's output qparams."""
        activation_post_process = mod.activation_post_process
        if isinstance(mod, _nn.Sequential):
            mod = mod[0]
        scale, zero_point = activation_post_process.calculate_qparams()
        new_mod = cls(mod.num_features, mod.eps)
        new_mod.weight = mod.weight
        new_mod.bias = mod.bias
        new_mod.running_mean = mod.running_mean
        new_mod.running_var = mod.running_var
        new_mod.scale = scale
        new_mod.zero_point = zero_point
        return new_mod

    @classmethod
    def from_reference(cls, bn, output_scale, output_zero_point):
        """A quantized batch norm from a float one and the output's qparams."""
        qbn = cls(bn.num_features, bn.eps, bn.momentum)
        qbn.weight = bn.weight
        qbn.bias = bn.bias
        qbn.running_mean = bn.running_mean
        qbn.running_var = bn.running_var
        _register_qparams(qbn, output_scale, output_zero_point)
        return qbn


class BatchNorm2d(_BatchNorm, _nn.BatchNorm2d):
    r"""Batch normalization of a quantized 4-d input with its running statistics
    (inference), quantized with :attr:`scale` and :attr:`zero_point`.

    Args:
        num_features (int): number of channels :math:`C`.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): kept for the float module's interface. Default: 0.1.

    Shape:
        - Input: :math:`(N, C, H, W)` (quantized)
        - Output: same shape

    Example::

        >>> m = nn.quantized.BatchNorm2d(2)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2, 2, 2), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([1, 2, 2, 2])
    """
    _ND = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps, momentum)
        self._qinit()

    def _get_name(self):
        return 'QuantizedBatchNorm2d'


class BatchNorm3d(_BatchNorm, _nn.BatchNorm3d):
    r"""Batch normalization of a quantized 5-d input with its running statistics
    (inference), quantized with :attr:`scale` and :attr:`zero_point`.

    Args:
        num_features (int): number of channels :math:`C`.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): kept for the float module's interface. Default: 0.1.

    Example::

        >>> m = nn.quantized.BatchNorm3d(2)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2, 2, 2, 2), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([1, 2, 2, 2, 2])
    """
    _ND = 5

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps, momentum)
        self._qinit()

    def _get_name(self):
        return 'QuantizedBatchNorm3d'


del ember
