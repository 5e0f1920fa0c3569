"""``ember.ao.quantization.observer`` (filled in as the quantization work lands)."""

__all__ = []
