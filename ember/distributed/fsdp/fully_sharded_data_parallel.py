"""``ember.distributed.fsdp.fully_sharded_data_parallel``: the FSDP1 wrapper class.

NOTE: unlike PyTorch, FSDP1 (``FullyShardedDataParallel``) is not implemented: the class
exists (libraries test ``isinstance(module, FullyShardedDataParallel)``, which is False for
every ember module) and constructing it raises ``NotImplementedError``; use FSDP2's
:func:`ember.distributed.fsdp.fully_shard`.
"""
from ...nn.modules.module import Module

__all__ = ['FullyShardedDataParallel']


class FullyShardedDataParallel(Module):
    """FSDP1: a wrapper that shards a module's flattened parameters across ranks.

    NOTE: unlike PyTorch, not implemented: constructing it raises ``NotImplementedError``
    (use :func:`ember.distributed.fsdp.fully_shard`, FSDP2).

    Args:
        module (nn.Module): the module to wrap.

    Example::

        >>> isinstance(model, FullyShardedDataParallel)
        False
    """

    def __init__(self, module, *args, **kwargs):
        raise NotImplementedError(
            "FullyShardedDataParallel (FSDP1) is not implemented in ember: use "
            "ember.distributed.fsdp.fully_shard (FSDP2)")
