"""``ember.ao``: architecture optimization, as ``torch.ao``: quantization
(:mod:`ember.ao.quantization`) and the quantized module families (:mod:`ember.ao.nn`).

Its subpackages load on first use.
"""
import importlib

__all__ = ['quantization']
_SUBPACKAGES = ('quantization', 'nn')


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module 'ember.ao' has no attribute '{name}'")
