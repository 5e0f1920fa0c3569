"""Pooling: max/avg/LP/adaptive/fractional pooling and max-unpooling, 1-3d.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
