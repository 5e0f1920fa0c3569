"""``ember.distributed.fsdp.api``: the options of the FSDP1 wrapper
(``FullyShardedDataParallel``): enums with torch's members and values, and the option and
state-dict config dataclasses with torch's fields and defaults."""
import dataclasses
import enum

__all__ = ['ShardingStrategy', 'BackwardPrefetch', 'MixedPrecision', 'CPUOffload', 'StateDictType',
           'StateDictConfig', 'FullStateDictConfig', 'LocalStateDictConfig',
           'ShardedStateDictConfig', 'OptimStateDictConfig', 'FullOptimStateDictConfig',
           'LocalOptimStateDictConfig', 'ShardedOptimStateDictConfig', 'StateDictSettings']


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


@dataclasses.dataclass
class MixedPrecision:
    """FSDP1's mixed precision: ``param_dtype`` for the gathered parameters (forward and
    backward compute), ``reduce_dtype`` for reducing gradients, ``buffer_dtype`` for
    buffers; ``keep_low_precision_grads`` keeps gradients in ``param_dtype``;
    ``cast_forward_inputs`` (every FSDP instance) and ``cast_root_forward_inputs`` (the
    root) cast floating-point inputs to ``param_dtype``. None keeps the original dtype.

    Example::

        >>> FSDP(model, mixed_precision=MixedPrecision(param_dtype=ember.bfloat16))
    """
    param_dtype: object = None
    reduce_dtype: object = None
    buffer_dtype: object = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = ()


@dataclasses.dataclass
class CPUOffload:
    """Whether FSDP1 keeps parameters (and gradients) in host memory between uses.

    NOTE: unlike PyTorch, ember's tensors already live in host memory, so this changes
    nothing.

    Example::

        >>> FSDP(model, cpu_offload=CPUOffload(offload_params=True))
    """
    offload_params: bool = False


@dataclasses.dataclass
class StateDictConfig:
    """Options of a module state-dict type (``offload_to_cpu``: accepted, tensors are in
    host memory).

    Example::

        >>> StateDictConfig().offload_to_cpu
        False
    """
    offload_to_cpu: bool = False


@dataclasses.dataclass
class FullStateDictConfig(StateDictConfig):
    """Options of ``FULL_STATE_DICT``: ``rank0_only`` gives the full state dict on rank 0
    only (the other ranks get an empty dict).

    Example::

        >>> cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    """
    rank0_only: bool = False


@dataclasses.dataclass
class LocalStateDictConfig(StateDictConfig):
    """Options of ``LOCAL_STATE_DICT``.

    Example::

        >>> cfg = LocalStateDictConfig()
    """


@dataclasses.dataclass
class ShardedStateDictConfig(StateDictConfig):
    """Options of ``SHARDED_STATE_DICT``.

    Example::

        >>> cfg = ShardedStateDictConfig()
    """
    _use_dtensor: bool = False


@dataclasses.dataclass
class OptimStateDictConfig:
    """Options of an optimizer state-dict type.

    Example::

        >>> OptimStateDictConfig().offload_to_cpu
        True
    """
    offload_to_cpu: bool = True


@dataclasses.dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    """Options of the full optimizer state dict (``rank0_only``: rank 0 only).

    Example::

        >>> cfg = FullOptimStateDictConfig(rank0_only=True)
    """
    rank0_only: bool = False


@dataclasses.dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    """Options of the local optimizer state dict.

    Example::

        >>> cfg = LocalOptimStateDictConfig()
    """
    offload_to_cpu: bool = False


@dataclasses.dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    """Options of the sharded optimizer state dict.

    Example::

        >>> cfg = ShardedOptimStateDictConfig()
    """
    _use_dtensor: bool = False


@dataclasses.dataclass
class StateDictSettings:
    """The state-dict type of a module and its two configs (what ``set_state_dict_type``
    returns).

    Example::

        >>> FSDP.get_state_dict_type(model).state_dict_type
        <StateDictType.FULL_STATE_DICT: 1>
    """
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
