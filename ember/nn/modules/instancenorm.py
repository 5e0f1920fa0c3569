"""Instance normalization layers."""

__all__ = []
