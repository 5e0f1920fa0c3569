"""Flatten and Unflatten."""

__all__ = []
