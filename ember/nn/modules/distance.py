"""Distance layers."""

__all__ = []
