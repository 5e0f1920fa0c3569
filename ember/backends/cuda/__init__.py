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
    """Whether ember can use CUDA here, that is whether CuPy is installed (a GPU need not be
    present; see :func:`ember.cuda.is_available`).

    Example::

        >>> ember.backends.cuda.is_built()   # without CuPy installed
        False
    """
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
    """Get, or set and get, the preferred CUDA linear-algebra library: ``'default'``,
    ``'cusolver'`` or ``'magma'`` (a name, any case, or a member of the returned enum).

    NOTE: unlike PyTorch, the choice is only recorded: CuPy picks its own library.

    Args:
        backend (str or enum, optional): the library to prefer; None (default) only reads the
            setting.

    Example::

        >>> ember.backends.cuda.preferred_linalg_library()
        <_LinalgBackend.Default: 0>
    """
    global _linalg
    if backend is not None:
        _linalg = _LinalgBackend[backend.capitalize()] if isinstance(backend, str) else backend
    return _linalg


def preferred_blas_library(backend=None):
    """Get, or set and get, the preferred CUDA BLAS library: ``'default'``, ``'cublas'``,
    ``'cublaslt'`` or ``'ck'`` (a name, any case, or a member of the returned enum).

    NOTE: unlike PyTorch, the choice is only recorded: CuPy picks its own library.

    Args:
        backend (str or enum, optional): the library to prefer; None (default) only reads the
            setting.

    Example::

        >>> ember.backends.cuda.preferred_blas_library('cublas')
        <_BlasBackend.Cublas: 1>
        >>> ember.backends.cuda.preferred_blas_library('default')
        <_BlasBackend.Default: 0>
    """
    global _blas
    if backend is not None:
        _blas = _BlasBackend[backend.capitalize()] if isinstance(backend, str) else backend
    return _blas


_sdp = {'flash': True, 'mem_efficient': True, 'math': True, 'cudnn': True}
_math_reduction = True


def flash_sdp_enabled():
    """Whether the flash-attention kernel of scaled dot product attention is enabled (True unless
    disabled by :func:`enable_flash_sdp`, ``sdp_kernel`` or
    :func:`ember.nn.attention.sdpa_kernel`).

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Example::

        >>> ember.backends.cuda.flash_sdp_enabled()
        True
    """
    return _sdp['flash']


def enable_flash_sdp(enabled):
    """Enable or disable the flash-attention kernel of scaled dot product attention.

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.backends.cuda.enable_flash_sdp(False)
        >>> ember.backends.cuda.flash_sdp_enabled()
        False
        >>> ember.backends.cuda.enable_flash_sdp(True)
    """
    _sdp['flash'] = bool(enabled)


def mem_efficient_sdp_enabled():
    """Whether the memory-efficient kernel of scaled dot product attention is enabled (True unless
    disabled by :func:`enable_mem_efficient_sdp`, ``sdp_kernel`` or
    :func:`ember.nn.attention.sdpa_kernel`).

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Example::

        >>> ember.backends.cuda.mem_efficient_sdp_enabled()
        True
    """
    return _sdp['mem_efficient']


def enable_mem_efficient_sdp(enabled):
    """Enable or disable the memory-efficient kernel of scaled dot product attention.

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.backends.cuda.enable_mem_efficient_sdp(False)
        >>> ember.backends.cuda.mem_efficient_sdp_enabled()
        False
        >>> ember.backends.cuda.enable_mem_efficient_sdp(True)
    """
    _sdp['mem_efficient'] = bool(enabled)


def math_sdp_enabled():
    """Whether the math (reference) kernel of scaled dot product attention is enabled (True unless
    disabled by :func:`enable_math_sdp`, ``sdp_kernel`` or
    :func:`ember.nn.attention.sdpa_kernel`).

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Example::

        >>> ember.backends.cuda.math_sdp_enabled()
        True
    """
    return _sdp['math']


def enable_math_sdp(enabled):
    """Enable or disable the math (reference) kernel of scaled dot product attention.

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.backends.cuda.enable_math_sdp(False)
        >>> ember.backends.cuda.math_sdp_enabled()
        False
        >>> ember.backends.cuda.enable_math_sdp(True)
    """
    _sdp['math'] = bool(enabled)


def cudnn_sdp_enabled():
    """Whether the cuDNN kernel of scaled dot product attention is enabled (True unless
    disabled by :func:`enable_cudnn_sdp`, ``sdp_kernel`` or
    :func:`ember.nn.attention.sdpa_kernel`).

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Example::

        >>> ember.backends.cuda.cudnn_sdp_enabled()
        True
    """
    return _sdp['cudnn']


def enable_cudnn_sdp(enabled):
    """Enable or disable the cuDNN kernel of scaled dot product attention.

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.backends.cuda.enable_cudnn_sdp(False)
        >>> ember.backends.cuda.cudnn_sdp_enabled()
        False
        >>> ember.backends.cuda.enable_cudnn_sdp(True)
    """
    _sdp['cudnn'] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    """Whether the math kernel of scaled dot product attention may reduce in float16 or
    bfloat16 (True unless disabled by :func:`allow_fp16_bf16_reduction_math_sdp`).

    NOTE: unlike PyTorch, the flag is only recorded.

    Example::

        >>> ember.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
        True
    """
    return _math_reduction


def allow_fp16_bf16_reduction_math_sdp(enabled):
    """Allow or forbid reductions in float16/bfloat16 in the math kernel of scaled dot
    product attention.

    NOTE: unlike PyTorch, the flag is only recorded.

    Args:
        enabled (bool): the new setting.

    Example::

        >>> ember.backends.cuda.allow_fp16_bf16_reduction_math_sdp(False)
        >>> ember.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
        False
    """
    global _math_reduction
    _math_reduction = bool(enabled)


class SDPAParams:
    """The arguments of one scaled-dot-product-attention call, kept as attributes of the
    same names (for kernel-selection helpers).

    Args:
        query, key, value (Tensor): the attention inputs.
        attn_mask (Tensor, optional): the mask. Default: None.
        dropout (float, optional): the dropout probability. Default: 0.0.
        is_causal (bool, optional): whether the attention is causal. Default: False.
        enable_gqa (bool, optional): whether grouped-query attention is used. Default: False.

    Example::

        >>> q = ember.randn(1, 2, 4, 8)
        >>> p = ember.backends.cuda.SDPAParams(q, q, q, is_causal=True)
        >>> p.is_causal
        True
    """

    def __init__(self, query, key, value, attn_mask=None, dropout=0.0, is_causal=False,
                 enable_gqa=False):
        self.query, self.key, self.value = query, key, value
        self.attn_mask, self.dropout, self.is_causal = attn_mask, dropout, is_causal
        self.enable_gqa = enable_gqa


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """Deprecated context manager that sets which scaled-dot-product-attention kernels are
    enabled inside the ``with`` block and restores the previous settings on exit; warns
    with ``FutureWarning`` (use :func:`ember.nn.attention.sdpa_kernel`).

    NOTE: unlike PyTorch, the flag is only recorded: ember has a single attention kernel
    (the math one) and uses it whatever is enabled.

    Args:
        enable_flash, enable_math, enable_mem_efficient, enable_cudnn (bool, optional): the
            settings inside the block. Default: True each.

    Example::

        >>> with ember.backends.cuda.sdp_kernel(enable_flash=False):
        ...     print(ember.backends.cuda.flash_sdp_enabled())
        False
    """
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
