"""``ember.distributed._composable.fsdp.fully_shard``: the older home of ``fully_shard``."""
from ...fsdp import FSDPModule, fully_shard, register_fsdp_forward_method

__all__ = ['FSDPModule', 'fully_shard', 'register_fsdp_forward_method']
