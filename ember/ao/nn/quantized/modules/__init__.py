"""The modules of ``ember.ao.nn.quantized`` (``torch.ao.nn.quantized.modules``), with
``Quantize`` and ``DeQuantize``."""
import ember
from ember import _dtype as D
from ember.nn import Module

from .activation import (ReLU6, Hardswish, ELU, LeakyReLU, Sigmoid, Softmax, PReLU,
                         MultiheadAttention)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .dropout import Dropout
from .functional_modules import FloatFunctional, FXFloatFunctional, QFunctional
from .linear import Linear
from .embedding_ops import Embedding, EmbeddingBag
from .rnn import LSTM
from .batchnorm import BatchNorm2d, BatchNorm3d
from .normalization import (LayerNorm, GroupNorm, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d)

__all__ = ['BatchNorm2d', 'BatchNorm3d', 'GroupNorm', 'InstanceNorm1d', 'InstanceNorm2d',
           'InstanceNorm3d', 'LayerNorm', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d',
           'ConvTranspose3d', 'DeQuantize', 'ELU', 'Embedding', 'EmbeddingBag', 'Hardswish', 'LeakyReLU', 'Linear',
           'LSTM', 'MultiheadAttention', 'PReLU', 'Quantize', 'ReLU6', 'Sigmoid', 'Softmax', 'Dropout', 'FloatFunctional',
           'FXFloatFunctional', 'QFunctional']


class Quantize(Module):
    r"""Quantizes its float input with a fixed scale and zero point
    (``quantize_per_tensor``); what ``QuantStub`` becomes after ``convert``.

    Args:
        scale (float): scale of the output.
        zero_point (int): zero point of the output.
        dtype (ember.dtype): ``ember.quint8``, ``ember.qint8`` or ``ember.qint32``.

    Example::

        >>> m = nn.quantized.Quantize(1.0, 0, ember.quint8)
        >>> m(ember.tensor([[1.0, -1.0], [1.0, -1.0]])).int_repr()
        tensor([[1, 0],
                [1, 0]], dtype=torch.uint8)
    """

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer('scale', ember.tensor([float(scale)]))
        self.register_buffer('zero_point', ember.tensor([int(zero_point)], dtype=ember.long))
        self.dtype = dtype

    def forward(self, X):
        return ember.quantize_per_tensor(X, float(self.scale.item()),
                                         int(self.zero_point.item()), self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A Quantize with the scale and zero point of ``mod``'s activation observer."""
        if not hasattr(mod, 'activation_post_process'):
            raise AssertionError("Input float module must have activation_post_process")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(scale.float().item(), zero_point.long().item(),
                        mod.activation_post_process.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(Module):
    r"""Dequantizes its quantized input to float32; what ``DeQuantStub`` becomes after
    ``convert``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([1.0, -1.0]), 1.0, 0, ember.qint8)
        >>> nn.quantized.DeQuantize()(q)
        tensor([ 1., -1.])
    """

    def forward(self, Xq):
        return Xq.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A DeQuantize (``mod`` is not read)."""
        return DeQuantize()


del D
