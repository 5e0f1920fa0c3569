"""``ember.ao.nn.quantizable``: float modules written as observable pieces (linear layers,
``FloatFunctional`` adds and multiplies, gate activations), which ``prepare`` swaps in for
``nn.LSTM`` (the default custom-module configuration) so that every intermediate gets an
observer, and which ``convert`` turns into ``nn.quantized.LSTM``; likewise
``MultiheadAttention``; as ``torch.ao.nn.quantizable``."""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
