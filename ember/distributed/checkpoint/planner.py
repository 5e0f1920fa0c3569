"""``ember.distributed.checkpoint.planner``: the planner interface of distributed
checkpointing (what each rank writes or reads), with torch's classes and fields.

NOTE: unlike PyTorch, ember's :func:`~ember.distributed.checkpoint.save` and
:func:`~ember.distributed.checkpoint.load` plan by themselves: they accept the default
planners (:mod:`.default_planner`) and refuse other planner classes.
"""
import abc
import dataclasses
import enum

__all__ = ['WriteItemType', 'LoadItemType', 'BytesIOWriteData', 'TensorWriteData', 'WriteItem',
           'ReadItem', 'SavePlan', 'LoadPlan', 'SavePlanner', 'LoadPlanner']


class WriteItemType(enum.Enum):
    """What a write item stores: a whole tensor, a shard of one, or pickled bytes.

    Example::

        >>> WriteItemType.SHARD.value
        2
    """
    TENSOR = enum.auto()
    SHARD = enum.auto()
    BYTE_IO = enum.auto()


class LoadItemType(enum.Enum):
    """What a read item loads: a tensor (region) or pickled bytes.

    Example::

        >>> LoadItemType.BYTE_IO.value
        2
    """
    TENSOR = enum.auto()
    BYTE_IO = enum.auto()


@dataclasses.dataclass(frozen=True)
class BytesIOWriteData:
    """Nothing (a pickled value's write data).

    Example::

        >>> BytesIOWriteData()
        BytesIOWriteData()
    """


@dataclasses.dataclass(frozen=True)
class TensorWriteData:
    """A stored tensor piece: its ``chunk`` (offsets, sizes), ``properties`` and the whole
    tensor's ``size``.

    Example::

        >>> TensorWriteData(chunk, props, ember.Size([4, 2])).size
        torch.Size([4, 2])
    """
    chunk: object
    properties: object
    size: object


@dataclasses.dataclass(frozen=True)
class WriteItem:
    """One item a rank writes: its :class:`~.metadata.MetadataIndex`, type and data.

    Example::

        >>> WriteItem(index=MetadataIndex('step'), type=WriteItemType.BYTE_IO).type
        <WriteItemType.BYTE_IO: 3>
    """
    index: object
    type: WriteItemType
    bytes_io_data: object = None
    tensor_data: object = None


@dataclasses.dataclass(frozen=True)
class ReadItem:
    """One region a rank reads: from ``storage_index`` at ``storage_offsets`` into
    ``dest_index`` at ``dest_offsets``, ``lengths`` long in each dimension.

    Example::

        >>> item.lengths
        torch.Size([2, 3])
    """
    type: LoadItemType
    dest_index: object
    dest_offsets: object
    storage_index: object
    storage_offsets: object
    lengths: object


@dataclasses.dataclass(frozen=True)
class SavePlan:
    """The items a rank writes.

    Example::

        >>> SavePlan(items=[]).usable
        True
    """
    items: list
    storage_data: object = None
    planner_data: object = None
    usable: bool = True


@dataclasses.dataclass
class LoadPlan:
    """The items a rank reads.

    Example::

        >>> LoadPlan(items=[]).items
        []
    """
    items: list
    storage_data: object = None
    planner_data: object = None


class SavePlanner(abc.ABC):
    """The interface of a save planner (torch's methods).

    Example::

        >>> issubclass(DefaultSavePlanner, SavePlanner)
        True
    """

    @abc.abstractmethod
    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        """Receive the state dict being saved."""

    @abc.abstractmethod
    def create_local_plan(self):
        """This rank's :class:`SavePlan`."""

    @abc.abstractmethod
    def create_global_plan(self, all_plans):
        """Every rank's final plan and the checkpoint's metadata (coordinator only)."""

    @abc.abstractmethod
    def finish_plan(self, new_plan):
        """Accept the coordinator's plan for this rank."""

    @abc.abstractmethod
    def resolve_data(self, write_item):
        """The tensor or bytes of ``write_item``."""


class LoadPlanner(abc.ABC):
    """The interface of a load planner (torch's methods).

    Example::

        >>> issubclass(DefaultLoadPlanner, LoadPlanner)
        True
    """

    @abc.abstractmethod
    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        """Receive the state dict being loaded and the checkpoint's metadata."""

    @abc.abstractmethod
    def create_local_plan(self):
        """This rank's :class:`LoadPlan`."""

    @abc.abstractmethod
    def create_global_plan(self, global_plan):
        """Every rank's final plan (coordinator only)."""

    @abc.abstractmethod
    def finish_plan(self, central_plan):
        """Accept the coordinator's plan for this rank."""

    @abc.abstractmethod
    def load_bytes(self, read_item, value):
        """Store a loaded non-tensor value."""

    def resolve_bytes(self, read_item):
        """Where the bytes of ``read_item`` go."""
        raise NotImplementedError

    @abc.abstractmethod
    def resolve_tensor(self, read_item):
        """The tensor region ``read_item`` is read into."""

    @abc.abstractmethod
    def commit_tensor(self, read_item, tensor):
        """Called once ``tensor`` has been read."""
