"""``ember.ao.nn.intrinsic`` (``ember.nn.intrinsic``): fused modules (``ConvReLU2d``,
``LinearReLU``, ``ConvBn2d``...), as ``torch.ao.nn.intrinsic``; their QAT forms in ``qat``
and quantized forms in ``quantized``. Everything loads on first use."""
import importlib

__all__ = ['ConvBn1d', 'ConvBn2d', 'ConvBn3d', 'ConvBnReLU1d', 'ConvBnReLU2d', 'ConvBnReLU3d',
           'ConvReLU1d', 'ConvReLU2d', 'ConvReLU3d', 'LinearReLU', 'BNReLU2d', 'BNReLU3d',
           'LinearBn1d', 'LinearLeakyReLU', 'LinearTanh', 'ConvAdd2d', 'ConvAddReLU2d']
_SUBPACKAGES = ('modules', 'qat', 'quantized')


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f'{__name__}.{name}')
    if name in __all__ or name == '_FusedModule':
        return getattr(importlib.import_module(f'{__name__}.modules'), name)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))
