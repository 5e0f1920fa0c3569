"""``ember.ao.quantization.utils`` (filled in as the quantization work lands)."""

__all__ = []
