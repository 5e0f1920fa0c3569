"""``ember.distributed.optim``: :class:`ZeroRedundancyOptimizer` (optimizer state sharded
across ranks)."""
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ['ZeroRedundancyOptimizer']
