"""The layer library. Each family module lists its layers in ``__all__``; the file names
mirror ``torch.nn.modules`` (so ``ember.nn.modules.rnn.LSTM`` is where torch's is)."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .lazy import LazyModuleMixin
from .linear import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403

from . import (linear, activation, conv, batchnorm, pooling, padding, upsampling,  # noqa: E402
               pixelshuffle, channelshuffle, fold, loss, distance, normalization,
               instancenorm, dropout, sparse, flatten, rnn, transformer, adaptive)

# the layers, and nothing else (not the submodules: ``ember.nn.utils`` is not ``.utils``)
__all__ = ['Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
           'LazyModuleMixin']
for _m in (linear, activation, conv, batchnorm, pooling, padding, upsampling, pixelshuffle,
           channelshuffle, fold, loss, distance, normalization, instancenorm, dropout, sparse,
           flatten, rnn, transformer, adaptive):
    __all__ += [_n for _n in _m.__all__ if _n not in __all__]
del _m
