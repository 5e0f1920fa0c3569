"""The dynamically quantized modules (see :mod:`.linear`, :mod:`.rnn`)."""
from .linear import Linear
from .rnn import LSTM, GRU, LSTMCell, GRUCell, RNNCell

__all__ = ['Linear', 'LSTM', 'GRU', 'LSTMCell', 'GRUCell', 'RNNCell']
