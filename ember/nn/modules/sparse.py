"""Embedding and EmbeddingBag."""

__all__ = []
