"""``ember.ao.nn.quantized.dynamic`` (``ember.nn.quantized.dynamic``): dynamically quantized
modules, as ``torch.ao.nn.quantized.dynamic``: int8 weights, float inputs and outputs, the
activations quantized on the fly from their observed range (``Linear``, ``LSTM``, ``GRU``,
``LSTMCell``, ``GRUCell``, ``RNNCell``)."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
