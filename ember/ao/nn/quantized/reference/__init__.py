"""``ember.ao.nn.quantized.reference``: the reference quantized modules, as
``torch.ao.nn.quantized.reference``: float modules that keep a float weight and its
quantization parameters and, on every call, quantize and dequantize the weight before the
float op (what ``convert_to_reference_fx`` and ``convert(..., is_reference=True)`` put in a
model, the form a backend lowers to its own quantized kernels)."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
