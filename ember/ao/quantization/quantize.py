"""``ember.ao.quantization.quantize`` (filled in as the quantization work lands)."""

__all__ = []
