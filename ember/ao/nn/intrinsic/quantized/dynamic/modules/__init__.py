"""The dynamically quantized fused modules (see :mod:`.linear_relu`)."""
from .linear_relu import LinearReLU

__all__ = ['LinearReLU']
