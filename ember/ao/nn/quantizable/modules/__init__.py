"""The quantizable modules (see :mod:`ember.ao.nn.quantizable`)."""
from .rnn import LSTM, LSTMCell

__all__ = ['LSTM', 'LSTMCell']
