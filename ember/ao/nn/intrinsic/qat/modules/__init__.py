"""The fused QAT modules of ``ember.ao.nn.intrinsic.qat``."""
from .conv_fused import (ConvBn1d, ConvBn2d, ConvBn3d, ConvBnReLU1d, ConvBnReLU2d,  # noqa: F401
                         ConvBnReLU3d, ConvReLU1d, ConvReLU2d, ConvReLU3d, freeze_bn_stats,
                         update_bn_stats)
from .linear_fused import LinearBn1d  # noqa: F401
from .linear_relu import LinearReLU  # noqa: F401

__all__ = ['LinearReLU', 'LinearBn1d', 'ConvReLU1d', 'ConvReLU2d', 'ConvReLU3d', 'ConvBn1d',
           'ConvBn2d', 'ConvBn3d', 'ConvBnReLU1d', 'ConvBnReLU2d', 'ConvBnReLU3d',
           'update_bn_stats', 'freeze_bn_stats']
