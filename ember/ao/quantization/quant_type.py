"""``ember.ao.quantization.quant_type`` (filled in as the quantization work lands)."""

__all__ = []
