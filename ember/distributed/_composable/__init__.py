"""``ember.distributed._composable``: the composable distributed APIs (applied to a module
in place, without a wrapper) under their older import path, which libraries still import
(``torch.distributed._composable.fsdp``, ``checkpoint``).

NOTE: unlike PyTorch, the composable ``replicate`` is not provided here yet.
"""
from .checkpoint_activation import checkpoint
from .contract import _get_registry, contract

__all__ = ['checkpoint', 'contract']
