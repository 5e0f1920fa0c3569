"""``ember.ao.quantization.fake_quantize`` (filled in as the quantization work lands)."""

__all__ = []
