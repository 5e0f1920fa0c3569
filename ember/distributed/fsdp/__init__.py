"""``ember.distributed.fsdp``: fully sharded data parallelism, FSDP2's ``fully_shard``
(parameters as ``Shard(0)`` DTensors over a 1-D mesh, gathered for forward and backward,
gradients reduce-scattered).

NOTE: unlike PyTorch, the FSDP1 wrapper ``FullyShardedDataParallel`` is not implemented yet.
"""
from ._fully_shard import (fully_shard, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,
                           CPUOffloadPolicy, register_fsdp_forward_method)
from .api import BackwardPrefetch, ShardingStrategy, StateDictType
from .fully_sharded_data_parallel import FullyShardedDataParallel

__all__ = ['BackwardPrefetch', 'ShardingStrategy', 'StateDictType', 'FullyShardedDataParallel',
           'fully_shard', 'FSDPModule', 'MixedPrecisionPolicy', 'OffloadPolicy',
           'CPUOffloadPolicy', 'register_fsdp_forward_method']
