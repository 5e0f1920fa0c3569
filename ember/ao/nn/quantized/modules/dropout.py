"""Quantized ``Dropout``: the identity (quantized models run in eval mode)."""
from ember import nn as _nn

__all__ = ['Dropout']


class Dropout(_nn.Dropout):
    r"""Dropout for quantized models: returns its input unchanged.

    Args:
        p (float): kept for the float module's interface. Default: 0.5.
        inplace (bool): kept for the float module's interface. Default: ``False``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(2), 0.1, 0, ember.quint8)
        >>> nn.quantized.Dropout(0.3)(q) is q
        True
    """

    def forward(self, input):
        return input

    def _get_name(self):
        return 'QuantizedDropout'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized Dropout with ``mod``'s ``p`` and ``inplace``."""
        return cls(mod.p, mod.inplace)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized Dropout with ``mod``'s ``p`` and ``inplace``."""
        return cls(mod.p, mod.inplace)
