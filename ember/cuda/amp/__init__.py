"""``ember.cuda.amp``: the deprecated CUDA spellings of :mod:`ember.amp`."""
import warnings

from ... import _dtype as D
from ...amp import autocast_mode as _am
from ...amp import grad_scaler as _gs

__all__ = ['autocast', 'GradScaler', 'custom_fwd', 'custom_bwd']


class autocast(_am.autocast):
    """Deprecated spelling of ``ember.amp.autocast('cuda', ...)``: a context manager (and
    decorator) that runs eligible ops of the region in ``dtype`` on CUDA. It warns with
    ``FutureWarning``; without CUDA autocast is disabled with a ``UserWarning``, as in
    PyTorch.

    Args:
        enabled (bool, optional): whether autocasting is on in the region. Default: True.
        dtype (ember.dtype, optional): the lower precision to compute in.
            Default: ``ember.float16``.
        cache_enabled (bool, optional): whether casts of leaf weights are cached inside the
            region. Default: True.

    Example::

        >>> with ember.cuda.amp.autocast():   # prefer ember.amp.autocast('cuda')
        ...     y = ember.ones(2, 2) @ ember.ones(2, 2)
        >>> y.dtype   # without CUDA the region is not autocast
        ember.float32
    """

    def __init__(self, enabled=True, dtype=D.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cuda', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_gs.GradScaler):
    """Deprecated spelling of ``ember.amp.GradScaler('cuda', ...)``: scales the loss so that
    small float16 gradients do not underflow, and unscales them before the optimizer
    step. It warns with ``FutureWarning``; without CUDA the scaler disables itself with a
    ``UserWarning``, as in PyTorch.

    Args:
        init_scale (float, optional): the first scale factor. Default: ``2.0 ** 16``.
        growth_factor (float, optional): the factor the scale grows by after
            ``growth_interval`` steps without inf/NaN gradients. Default: 2.0.
        backoff_factor (float, optional): the factor the scale shrinks by after a step with
            inf/NaN gradients. Default: 0.5.
        growth_interval (int, optional): the number of clean steps between two growths.
            Default: 2000.
        enabled (bool, optional): False makes every method a pass-through. Default: True.

    Example::

        >>> scaler = ember.cuda.amp.GradScaler()   # prefer ember.amp.GradScaler('cuda')
        >>> scaler.is_enabled()   # without CUDA
        False
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cuda', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated spelling of ``ember.amp.custom_fwd(device_type='cuda', ...)``: decorates
    the ``forward`` of a custom :class:`ember.autograd.Function` so that it runs with the
    autocast state (and, with ``cast_inputs``, input dtype) fixed; warns with
    ``FutureWarning``.

    Args:
        fwd (callable): the ``forward`` staticmethod to wrap.
        cast_inputs (ember.dtype, optional): inside an autocast region, cast the floating
            CUDA inputs to this dtype and run ``forward`` with autocast off.

    Example::

        >>> class Double(ember.autograd.Function):
        ...     @staticmethod
        ...     @ember.cuda.amp.custom_fwd
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     @ember.cuda.amp.custom_bwd
        ...     def backward(ctx, g):
        ...         return g * 2
    """
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _am.custom_fwd(fwd, device_type='cuda', cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """Deprecated spelling of ``ember.amp.custom_bwd(device_type='cuda')``: decorates the
    ``backward`` of a custom :class:`ember.autograd.Function` so that it runs with the
    autocast state its ``forward`` saw; warns with ``FutureWarning``.

    Args:
        bwd (callable): the ``backward`` staticmethod to wrap.

    Example::

        >>> # see also the example of custom_fwd
        >>> class Double(ember.autograd.Function):
        ...     @staticmethod
        ...     @ember.cuda.amp.custom_fwd
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     @ember.cuda.amp.custom_bwd
        ...     def backward(ctx, g):
        ...         return g * 2
    """
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _am.custom_bwd(bwd, device_type='cuda')
