"""The quantizable modules (see :mod:`ember.ao.nn.quantizable`)."""
from .activation import MultiheadAttention
from .rnn import LSTM, LSTMCell

__all__ = ['LSTM', 'LSTMCell', 'MultiheadAttention']
