"""``ember.ao.nn.intrinsic.quantized``: quantized fused modules (``LinearReLU``,
``ConvReLU1d/2d/3d``, ``BNReLU2d/3d``), as ``torch.ao.nn.intrinsic.quantized``."""
import importlib

from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401


def __getattr__(name):
    if name == 'dynamic':
        return importlib.import_module(f'{__name__}.dynamic')
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
