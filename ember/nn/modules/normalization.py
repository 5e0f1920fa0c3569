"""Normalization layers (LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d)."""

__all__ = []
