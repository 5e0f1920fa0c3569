"""Attention: scaled_dot_product_attention, multi_head_attention_forward.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
