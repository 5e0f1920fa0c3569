"""Distances and similarities: pairwise_distance, cosine_similarity, cdist, pdist, normalize.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
