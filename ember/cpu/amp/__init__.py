"""``ember.cpu.amp``: the deprecated CPU spellings of :mod:`ember.amp`."""
import warnings

from ... import _dtype as D
from ...amp import autocast_mode as _am
from ...amp.grad_scaler import GradScaler as _GradScaler

__all__ = ['autocast', 'GradScaler']


class autocast(_am.autocast):
    """Deprecated spelling of ``ember.amp.autocast('cpu', ...)``: a context manager (and
    decorator) that runs eligible ops of the region in ``dtype`` on the CPU; warns with
    ``FutureWarning``.

    Args:
        enabled (bool, optional): whether autocasting is on in the region. Default: True.
        dtype (ember.dtype, optional): the lower precision to compute in.
            Default: ``ember.bfloat16``.
        cache_enabled (bool, optional): whether casts of leaf weights are cached inside the
            region. Default: True.

    Example::

        >>> with ember.cpu.amp.autocast():   # prefer ember.amp.autocast('cpu')
        ...     y = ember.ones(2, 2) @ ember.ones(2, 2)
        >>> y.dtype
        ember.bfloat16
    """

    def __init__(self, enabled=True, dtype=D.bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cpu', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """Deprecated spelling of ``ember.amp.GradScaler('cpu', ...)``: scales the loss so that
    small low-precision gradients do not underflow, and unscales them before the
    optimizer step; warns with ``FutureWarning``.

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

        >>> scaler = ember.cpu.amp.GradScaler()   # prefer ember.amp.GradScaler('cpu')
        >>> scaler.get_scale()
        65536.0
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cpu', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
