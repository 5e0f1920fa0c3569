"""``ember.ao.quantization.qconfig_mapping`` (filled in as the quantization work lands)."""

__all__ = []
