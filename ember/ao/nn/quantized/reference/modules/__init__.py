"""The reference quantized modules (see :mod:`ember.ao.nn.quantized.reference`)."""
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNNCell
from .sparse import Embedding, EmbeddingBag

__all__ = ['Linear', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d',
           'ConvTranspose3d', 'RNNCell', 'LSTMCell', 'GRUCell', 'LSTM', 'GRU', 'Embedding',
           'EmbeddingBag']
