"""Ember: PyTorch's API in Python, on NumPy (CPU) and CuPy (CUDA).

Use it as ``import ember as torch``.
"""
import builtins as _b

__version__ = '0.1.0'

from ._dtype import (dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32,
                     float64, complex64, complex128, uint16, uint32, uint64, half, float, double,
                     short, int, long, cfloat, cdouble, finfo, iinfo, get_default_dtype,
                     set_default_dtype, promote_types, can_cast)
from ._ops._util import result_type  # noqa: E402
from ._dtype import (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,  # noqa: E402
                     float8_e8m0fnu, float4_e2m1fn_x2, complex32, chalf, bits1x8, bits2x4,
                     bits4x2, bits8, bits16, bit, int1, int2, int3, int4, int5, int6, int7,
                     uint1, uint2, uint3, uint4, uint5, uint6, uint7)
from ._dtype import (qint8, quint8, qint32, quint4x2, quint2x4, qscheme,  # noqa: E402
                     per_tensor_affine, per_channel_affine, per_tensor_symmetric,
                     per_channel_symmetric, per_channel_affine_float_qparams)
from ._device import device
from ._memory_format import (memory_format, contiguous_format, channels_last, channels_last_3d,
                             preserve_format)
from ._tensor import Tensor, Size
from ._storage import UntypedStorage, TypedStorage
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                                 is_grad_enabled, is_inference_mode_enabled)
from . import _ops as _ops_pkg

globals().update(_ops_pkg.bind())

from . import autograd  # noqa: E402
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa: E402
                                   set_anomaly_enabled)
from . import linalg  # noqa: E402
from . import random, testing  # noqa: E402
from ._tensor_str import set_printoptions  # noqa: E402
from ._misc import *  # noqa: E402,F401,F403
from ._misc import __all__ as _misc_all  # noqa: E402
from ._misc import _assert  # noqa: E402,F401

import math as _math  # noqa: E402

# constants torch exports at top level
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None


def is_tensor(obj):
    """True if ``obj`` is an ember Tensor."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """True if ``obj`` is a storage."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def is_floating_point(input):
    """True if ``input`` has a floating point dtype."""
    return input.is_floating_point()


def is_complex(input):
    """True if ``input`` has a complex dtype."""
    return input.is_complex()


def numel(input):
    """Number of elements of ``input``."""
    return input.numel()



from .serialization import save, load  # noqa: E402

from . import nn  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from . import amp, cuda, cpu, backends, accelerator, functional, version  # noqa: E402,F401
from . import multiprocessing  # noqa: E402,F401
from .amp.autocast_mode import (  # noqa: E402,F401
    autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,
    is_autocast_cache_enabled, set_autocast_cache_enabled, clear_autocast_cache,
    autocast_increment_nesting, autocast_decrement_nesting, is_autocast_cpu_enabled,
    set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype,
    get_autocast_gpu_dtype, set_autocast_gpu_dtype)
from . import overrides, _C  # noqa: E402,F401
from .amp import GradScaler  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from .sparse import sparse_coo_tensor  # noqa: E402,F401
from ._quantized import (quantize_per_tensor, quantize_per_channel, dequantize,  # noqa: E402,F401
                         quantize_per_tensor_dynamic,
                         _make_per_tensor_quantized_tensor, _make_per_channel_quantized_tensor)
from ._memory_format import sparse_coo  # noqa: E402,F401

# Namespaces imported on first use (``ember.fft``, ``import ember.distributed``), so that
# ``import ember`` stays fast; ``import torch`` loads them eagerly, the result is the same.
_LAZY_NAMES = {'vmap': '.func', 'from_dlpack': '.utils.dlpack', 'to_dlpack': '.utils.dlpack',
               'PyTorchFileReader': '._file_format', 'ScriptModule': '.jit'}
_LAZY_SUBMODULES = ('func', 'fft', 'special', 'distributions', 'fx', 'onnx', 'distributed', 'jit',
                    'masked', 'ao', 'quantization', 'export',
                    'compiler', 'futures', 'hub', 'library', 'signal', 'types', 'storage',
                    'torch_version', '_dynamo', 'xpu', 'mtia')


def __getattr__(name):
    if name == 'ops':            # ember.ops: the operators' namespace (ember.library)
        from .library import ops
        return ops
    if name in _LAZY_NAMES:      # functions whose module loads on first use
        import importlib
        v = getattr(importlib.import_module(_LAZY_NAMES[name], __name__), name)
        globals()[name] = v
        return v
    if name in _LAZY_SUBMODULES:
        import importlib
        try:
            return importlib.import_module(f'{__name__}.{name}')
        except ModuleNotFoundError as e:
            if e.name != f'{__name__}.{name}':
                raise
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
