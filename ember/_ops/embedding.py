"""Embedding lookups: embedding, embedding_bag, one_hot.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
