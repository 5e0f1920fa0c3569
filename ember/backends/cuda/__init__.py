"""``ember.backends.cuda``: CUDA backend switches (TF32 matmul, scaled-dot-product-attention
kernels, linear-algebra library). Stored for scripts that set them; NOTE: unlike PyTorch,
they do not change ember's kernels."""
import contextlib
import enum

__all__ = ['is_built', 'matmul', 'cufft_plan_cache', 'preferred_linalg_library',
           'preferred_blas_library', 'flash_sdp_enabled', 'enable_flash_sdp',
           'mem_efficient_sdp_enabled', 'enable_mem_efficient_sdp', 'math_sdp_enabled',
           'enable_math_sdp', 'cudnn_sdp_enabled', 'enable_cudnn_sdp', 'sdp_kernel',
           'SDPAParams', 'allow_fp16_bf16_reduction_math_sdp',
           'fp16_bf16_reduction_math_sdp_allowed']


def is_built():
    """Whether ember can use CUDA here (CuPy importable)."""
    import importlib.util
    return importlib.util.find_spec('cupy') is not None


class _MatmulFlags:
    """``ember.backends.cuda.matmul``: ``allow_tf32`` (tied to
    ``ember.set_float32_matmul_precision``), ``allow_fp16_reduced_precision_reduction``,
    ``allow_bf16_reduced_precision_reduction``, ``fp32_precision``."""

    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.allow_fp16_accumulation = False

    @property
    def allow_tf32(self):
        from ... import _misc
        return _misc.get_float32_matmul_precision() != 'highest'

    @allow_tf32.setter
    def allow_tf32(self, value):
        from ... import _misc
        _misc.set_float32_matmul_precision('high' if value else 'highest')

    @property
    def fp32_precision(self):
        from ... import _misc
        return {'highest': 'none', 'high': 'tf32', 'medium': 'tf32'}[
            _misc.get_float32_matmul_precision()]

    @fp32_precision.setter
    def fp32_precision(self, value):
        from ... import _misc
        if value not in ('none', 'ieee', 'tf32'):
            raise RuntimeError(f"Invalid precision {value}")
        _misc.set_float32_matmul_precision('high' if value == 'tf32' else 'highest')


matmul = _MatmulFlags()


class _CufftPlanCache:
    size = 0
    max_size = 0

    def clear(self):
        pass

    def __getitem__(self, device):
        return self


cufft_plan_cache = _CufftPlanCache()


class _LinalgBackend(enum.Enum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.Enum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


_linalg = _LinalgBackend.Default
_blas = _BlasBackend.Default


def preferred_linalg_library(backend=None):
    """Get (or set, with ``backend``) the preferred CUDA linear-algebra library."""
    global _linalg
    if backend is not None:
        _linalg = _LinalgBackend[backend.capitalize()] if isinstance(backend, str) else backend
    return _linalg


def preferred_blas_library(backend=None):
    """Get (or set, with ``backend``) the preferred CUDA BLAS library."""
    global _blas
    if backend is not None:
        _blas = _BlasBackend[backend.capitalize()] if isinstance(backend, str) else backend
    return _blas


_sdp = {'flash': True, 'mem_efficient': True, 'math': True, 'cudnn': True}
_math_reduction = True


def flash_sdp_enabled():
    return _sdp['flash']


def enable_flash_sdp(enabled):
    _sdp['flash'] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp['mem_efficient']


def enable_mem_efficient_sdp(enabled):
    _sdp['mem_efficient'] = bool(enabled)


def math_sdp_enabled():
    return _sdp['math']


def enable_math_sdp(enabled):
    _sdp['math'] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp['cudnn']


def enable_cudnn_sdp(enabled):
    _sdp['cudnn'] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _math_reduction


def allow_fp16_bf16_reduction_math_sdp(enabled):
    global _math_reduction
    _math_reduction = bool(enabled)


class SDPAParams:
    """The arguments of a scaled-dot-product-attention call (for kernel selection)."""

    def __init__(self, query, key, value, attn_mask=None, dropout=0.0, is_causal=False,
                 enable_gqa=False):
        self.query, self.key, self.value = query, key, value
        self.attn_mask, self.dropout, self.is_causal = attn_mask, dropout, is_causal
        self.enable_gqa = enable_gqa


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """Deprecated context manager that enables/disables the SDPA kernels inside it."""
    import warnings
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see `torch.nn.attention.sdpa_kernel()`"
                  " for the new context manager, with updated signature.", FutureWarning,
                  stacklevel=3)
    old = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient,
                cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(old)
