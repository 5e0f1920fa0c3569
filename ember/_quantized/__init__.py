"""Quantized tensors (``ember.quantize_per_tensor``...) and the ops PyTorch defines on them;
see :mod:`ember._quantized.tensor`."""
from .tensor import (quantize_per_tensor, quantize_per_channel, dequantize,  # noqa: F401
                     quantize_per_tensor_dynamic,
                     _make_per_tensor_quantized_tensor, _make_per_channel_quantized_tensor,
                     _QTensor)
from . import ops as _ops  # noqa: F401,E402  (fills the ops of quantized tensors)

__all__ = ['quantize_per_tensor', 'quantize_per_channel', 'dequantize',
           'quantize_per_tensor_dynamic']
