"""``ember.nn.utils``: gradient clipping, parameter/vector conversion, BatchNorm fusion,
weight memory formats, weight and spectral normalization, ``skip_init``, and the
``rnn``, ``prune``, ``parametrize``, ``parametrizations`` and ``stateless`` submodules."""
from . import rnn  # noqa: F401
from .clip_grad import (  # noqa: F401
    _clip_grads_with_norm_ as clip_grads_with_norm_,
    _get_total_norm as get_total_norm,
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (  # noqa: F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init  # noqa: F401
from .memory_format import (  # noqa: F401
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ['clip_grad_norm', 'clip_grad_norm_', 'clip_grads_with_norm_', 'clip_grad_value_',
           'convert_conv2d_weight_memory_format', 'convert_conv3d_weight_memory_format',
           'fuse_conv_bn_eval', 'fuse_conv_bn_weights', 'fuse_linear_bn_eval',
           'fuse_linear_bn_weights', 'get_total_norm', 'parameters_to_vector',
           'parametrizations', 'parametrize', 'remove_spectral_norm', 'remove_weight_norm',
           'rnn', 'skip_init', 'spectral_norm', 'stateless', 'vector_to_parameters',
           'weight_norm']

_LAZY = ('parametrizations', 'parametrize', 'prune', 'stateless')


def __getattr__(name):
    # the larger submodules load on first use (``import ember`` stays fast)
    if name in _LAZY:
        import importlib
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
