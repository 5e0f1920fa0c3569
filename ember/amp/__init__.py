"""``ember.amp``: automatic mixed precision (autocast regions and gradient scaling)."""
from .autocast_mode import autocast, custom_fwd, custom_bwd, is_autocast_available
from .grad_scaler import GradScaler
from . import autocast_mode, grad_scaler

__all__ = ['autocast', 'custom_fwd', 'custom_bwd', 'is_autocast_available', 'GradScaler']
