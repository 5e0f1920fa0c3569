"""``ember.ao.nn``: the module families of quantization, as ``torch.ao.nn``:
``quantized`` (and ``quantized.dynamic``), ``intrinsic`` (fused modules, their QAT and
quantized forms), ``qat`` and ``quantizable`` (the observable LSTM and
MultiheadAttention). Each loads on first use."""
import importlib

__all__ = ['intrinsic', 'qat', 'quantizable', 'quantized']


def __getattr__(name):
    if name in __all__ or name == 'sparse':
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
