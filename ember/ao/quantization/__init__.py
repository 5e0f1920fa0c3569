"""``ember.ao.quantization``: eager-mode quantization, as ``torch.ao.quantization``.

Observers and fake-quantize modules (:mod:`.observer`, :mod:`.fake_quantize`), qconfigs
(:mod:`.qconfig`, :mod:`.qconfig_mapping`), the stubs that mark where a model's tensors are
quantized (:mod:`.stubs`), module fusion (:mod:`.fuse_modules`) and the workflow functions
``prepare``, ``convert``, ``prepare_qat``, ``quantize_dynamic`` (:mod:`.quantize`).
``ember.quantization`` is the same namespace under its older name.
"""
from .quant_type import *  # noqa: F401,F403
from .observer import *  # noqa: F401,F403
from .fake_quantize import *  # noqa: F401,F403
from .qconfig import *  # noqa: F401,F403
from .qconfig_mapping import *  # noqa: F401,F403
from .stubs import *  # noqa: F401,F403
from .quantization_mappings import *  # noqa: F401,F403
from .fuse_modules import *  # noqa: F401,F403
from .fuser_method_mappings import *  # noqa: F401,F403
from .quantize import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
import sys as _sys

# The submodules by their module objects: ``fuse_modules`` and ``quantize`` are also the names
# of functions (as in torch, ``ember.ao.quantization.quantize`` is the function).
__all__ = [_n for _s in ('quant_type', 'observer', 'fake_quantize', 'qconfig', 'qconfig_mapping',
                         'stubs', 'quantization_mappings', 'fuse_modules',
                         'fuser_method_mappings', 'quantize', 'utils')
           for _n in _sys.modules[f'{__name__}.{_s}'].__all__]
