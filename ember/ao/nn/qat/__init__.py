"""``ember.ao.nn.qat``: float modules whose weights are fake-quantized in ``forward``, for
quantization-aware training (``Linear``, ``Conv1d/2d/3d``, ``Embedding``, ``EmbeddingBag``),
as ``torch.ao.nn.qat``. ``prepare_qat`` swaps a model's float layers for these; ``convert``
turns them into ``nn.quantized`` modules. The subpackage ``dynamic`` loads on first use."""
import importlib

from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401


def __getattr__(name):
    if name == 'dynamic':
        return importlib.import_module(f'{__name__}.dynamic')
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
