"""``ember.ao.quantization.qconfig`` (filled in as the quantization work lands)."""

__all__ = []
