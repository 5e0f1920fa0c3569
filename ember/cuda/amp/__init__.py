"""``ember.cuda.amp``: the deprecated CUDA spellings of :mod:`ember.amp`."""
import warnings

from ... import _dtype as D
from ...amp import autocast_mode as _am
from ...amp import grad_scaler as _gs

__all__ = ['autocast', 'GradScaler', 'custom_fwd', 'custom_bwd']


class autocast(_am.autocast):
    """Deprecated: ``ember.cuda.amp.autocast(args...)`` is ``ember.amp.autocast('cuda',
    args...)``."""

    def __init__(self, enabled=True, dtype=D.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cuda', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_gs.GradScaler):
    """Deprecated: ``ember.cuda.amp.GradScaler(args...)`` is ``ember.amp.GradScaler('cuda',
    args...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__('cuda', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: use ``ember.amp.custom_fwd(device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _am.custom_fwd(fwd, device_type='cuda', cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """Deprecated: use ``ember.amp.custom_bwd(device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _am.custom_bwd(bwd, device_type='cuda')
