"""Dropout family: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
