"""``ember.ao.nn.quantized`` (``ember.nn.quantized``): modules that compute on quantized
tensors, as ``torch.ao.nn.quantized``; ``functional`` holds their functions and ``dynamic``
the dynamically quantized modules (float in, float out)."""
import importlib

from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional  # noqa: F401
from ember.nn import MaxPool2d  # noqa: F401  (runs on quantized tensors as it is, as torch's)

__all__ = list(_modules_all)


def __getattr__(name):
    if name in ('dynamic', 'reference', 'modules'):
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
