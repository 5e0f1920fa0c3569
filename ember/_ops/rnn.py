"""Recurrent kernels: RNN (tanh/relu), LSTM and GRU cells and layers.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""

__all__ = []
