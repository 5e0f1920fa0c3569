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
from .quantize_jit import *  # noqa: F401,F403
import sys as _sys

# The submodules by their module objects: ``fuse_modules``, ``quantize`` and ``quantize_jit``
# are also the names of functions (as in torch, ``ember.ao.quantization.quantize`` is the
# function).
__all__ = [_n for _s in ('quant_type', 'observer', 'fake_quantize', 'qconfig', 'qconfig_mapping',
                         'stubs', 'quantization_mappings', 'fuse_modules',
                         'fuser_method_mappings', 'quantize', 'utils', 'quantize_jit')
           for _n in _sys.modules[f'{__name__}.{_s}'].__all__]

from typing import Union as _Union  # noqa: E402

# what an observer slot may hold (a type alias, as torch's)
ObserverOrFakeQuantize = _Union[ObserverBase, FakeQuantizeBase]  # noqa: F405


def default_eval_fn(model, calib_data):
    """Calibration by running ``model`` on the inputs of ``calib_data`` (an iterable of
    ``(data, target)`` pairs), as ``torch.ao.quantization.default_eval_fn``: the default
    ``run_fn`` of :func:`quantize`.

    Args:
        model (Module): the prepared model.
        calib_data (iterable): ``(data, target)`` pairs; the targets are not used.

    Example::

        >>> m = ember.nn.Linear(2, 2)
        >>> default_eval_fn(m, [(ember.ones(1, 2), 0)])
    """
    for data, _target in calib_data:
        model(data)


__all__ += ['ObserverOrFakeQuantize', 'default_eval_fn']


def __getattr__(name):
    # the DEFAULT_* mapping tables, resolved on first use (as torch's package has them)
    if name.startswith('DEFAULT_') and name in quantization_mappings._TABLES:
        return getattr(quantization_mappings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
