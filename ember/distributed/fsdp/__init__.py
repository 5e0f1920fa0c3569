"""``ember.distributed.fsdp``: fully sharded data parallelism, FSDP2's ``fully_shard``
(parameters as ``Shard(0)`` DTensors over a 1-D mesh, gathered for forward and backward,
gradients reduce-scattered), and FSDP1's ``FullyShardedDataParallel`` wrapper (flat
parameters, wrap policies in :mod:`~ember.distributed.fsdp.wrap`, state-dict types).
"""
from ._fully_shard import (fully_shard, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,
                           CPUOffloadPolicy, register_fsdp_forward_method)
from .api import (BackwardPrefetch, ShardingStrategy, StateDictType, MixedPrecision, CPUOffload,
                  StateDictConfig, FullStateDictConfig, LocalStateDictConfig,
                  ShardedStateDictConfig, OptimStateDictConfig, FullOptimStateDictConfig,
                  LocalOptimStateDictConfig, ShardedOptimStateDictConfig, StateDictSettings)
from .fully_sharded_data_parallel import FullyShardedDataParallel, OptimStateKeyType

__all__ = ['BackwardPrefetch', 'ShardingStrategy', 'StateDictType', 'FullyShardedDataParallel',
           'MixedPrecision', 'CPUOffload', 'StateDictConfig', 'FullStateDictConfig',
           'LocalStateDictConfig', 'ShardedStateDictConfig', 'OptimStateDictConfig',
           'FullOptimStateDictConfig', 'LocalOptimStateDictConfig', 'ShardedOptimStateDictConfig',
           'StateDictSettings', 'OptimStateKeyType',
           'fully_shard', 'FSDPModule', 'MixedPrecisionPolicy', 'OffloadPolicy',
           'CPUOffloadPolicy', 'register_fsdp_forward_method']
