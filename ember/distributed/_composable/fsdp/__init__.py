"""``ember.distributed._composable.fsdp``: FSDP2 under its older import path; the same
objects as :mod:`ember.distributed.fsdp`."""
from ...fsdp import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy,
                     fully_shard, register_fsdp_forward_method)

__all__ = ['CPUOffloadPolicy', 'FSDPModule', 'MixedPrecisionPolicy', 'OffloadPolicy',
           'fully_shard', 'register_fsdp_forward_method']
