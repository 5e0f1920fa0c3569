"""The dynamic-quantization QAT modules (see :mod:`.linear`)."""
from .linear import Linear  # noqa: F401

__all__ = ['Linear']
