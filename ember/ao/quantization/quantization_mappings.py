"""``ember.ao.quantization.quantization_mappings`` (filled in as the quantization work lands)."""

__all__ = []
