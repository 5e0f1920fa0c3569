"""``ember.ao.quantization.fuse_modules`` (filled in as the quantization work lands)."""

__all__ = []
