"""``ember.ao.quantization.stubs`` (filled in as the quantization work lands)."""

__all__ = []
