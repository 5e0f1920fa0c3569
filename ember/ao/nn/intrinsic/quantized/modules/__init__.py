"""The quantized fused modules (see :mod:`.linear_relu`, :mod:`.conv_relu`,
:mod:`.bn_relu`)."""
from .linear_relu import LinearReLU, LinearLeakyReLU, LinearTanh
from .conv_relu import ConvReLU1d, ConvReLU2d, ConvReLU3d
from .conv_add import ConvAdd2d, ConvAddReLU2d
from .bn_relu import BNReLU2d, BNReLU3d

__all__ = ['LinearReLU', 'ConvReLU1d', 'ConvReLU2d', 'ConvReLU3d', 'BNReLU2d', 'BNReLU3d',
           'LinearLeakyReLU', 'LinearTanh', 'ConvAdd2d', 'ConvAddReLU2d']
