"""``ember.distributed.fsdp.api``: the option enums of the FSDP1 wrapper
(``FullyShardedDataParallel``), with torch's members and values."""
import enum

__all__ = ['ShardingStrategy', 'BackwardPrefetch', 'StateDictType']


class ShardingStrategy(enum.Enum):
    """What FSDP1 shards: parameters, gradients and optimizer state (``FULL_SHARD``), only
    gradients and optimizer state (``SHARD_GRAD_OP``), nothing (``NO_SHARD``), or full
    sharding within a node and replication across nodes (``HYBRID_SHARD``).

    Example::

        >>> ShardingStrategy.FULL_SHARD.value
        1
    """
    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    """When FSDP1 gathers the next parameters during backward: before the current
    gradient computation (``BACKWARD_PRE``) or after it (``BACKWARD_POST``).

    Example::

        >>> BackwardPrefetch.BACKWARD_PRE.value
        1
    """
    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


class StateDictType(enum.Enum):
    """The state-dict form of an FSDP1 module: full (unsharded), local (flat shards) or
    sharded.

    Example::

        >>> StateDictType.FULL_STATE_DICT.value
        1
    """
    FULL_STATE_DICT = enum.auto()
    LOCAL_STATE_DICT = enum.auto()
    SHARDED_STATE_DICT = enum.auto()
