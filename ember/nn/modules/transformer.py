"""Transformer layers."""

__all__ = []
