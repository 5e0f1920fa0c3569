"""``ember.distributed.checkpoint.metadata``: the index of a distributed checkpoint, in
PyTorch's classes and fields (the ``.metadata`` file of a checkpoint folder is a pickle of a
:class:`Metadata`, written under torch's class names so that each library reads the other's).

Reading a ``.metadata`` file never runs its code: :func:`_read_metadata` interprets the
pickle with ember's restricted unpickler, which resolves only these classes (and dtypes,
``Size``, layouts, paths) and checks every field afterwards.
"""
import dataclasses
import enum

__all__ = ['ChunkStorageMetadata', 'TensorStorageMetadata', 'BytesStorageMetadata', 'Metadata',
           'MetadataIndex', 'TensorProperties', 'StorageMeta']


def _size(x):
    from ..._tensor import Size
    return x if x is None or type(x) is Size else Size(tuple(x))


def _set_fields(obj, state, names):
    """BUILD of a pickled dataclass: a dict of known field names only."""
    if type(state) is tuple and len(state) == 2 and state[1] is None:
        state = state[0]
    if not isinstance(state, dict) or any(type(k) is not str or k not in names for k in state):
        raise ValueError(f"invalid pickled state for {type(obj).__name__}")
    for k in names:                       # fields left out take their defaults
        if k not in state and k not in obj.__dict__:
            f = {f.name: f for f in dataclasses.fields(obj)}[k]
            if f.default is not dataclasses.MISSING:
                object.__setattr__(obj, k, f.default)
            elif f.default_factory is not dataclasses.MISSING:
                object.__setattr__(obj, k, f.default_factory())
    for k, v in state.items():
        object.__setattr__(obj, k, v)


class _DictState:
    def __setstate__(self, state):
        _set_fields(self, state, [f.name for f in dataclasses.fields(self)])


@dataclasses.dataclass
class ChunkStorageMetadata(_DictState):
    """One stored piece of a tensor: where it starts (``offsets``) and its ``sizes``.

    Example::

        >>> ChunkStorageMetadata(offsets=ember.Size([2, 0]), sizes=ember.Size([2, 3]))
        ChunkStorageMetadata(offsets=torch.Size([2, 0]), sizes=torch.Size([2, 3]))
    """
    offsets: object
    sizes: object


class _MEM_FORMAT_ENCODING(enum.Enum):
    """How a memory format is written in :class:`TensorProperties`' pickled state."""
    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2


class _Layout:
    """Pickles as torch's ``torch.serialization._get_layout('torch.strided')``."""

    def __init__(self, layout):
        self.layout = layout

    def __reduce__(self):
        from ...serialization import _get_layout
        return (_get_layout, (str(self.layout),))


def _formats():
    from ... import _memory_format as M
    return [M.contiguous_format, M.channels_last, M.preserve_format]


def _default_dtype():
    from ... import _dtype
    return _dtype.get_default_dtype()


def _strided():
    from ... import _memory_format as M
    return M.strided


def _contiguous():
    from ... import _memory_format as M
    return M.contiguous_format


@dataclasses.dataclass
class TensorProperties:
    """The dtype (and layout, memory format...) of a stored tensor.

    Example::

        >>> TensorProperties.create_from_tensor(ember.zeros(2)).dtype
        torch.float32
    """
    dtype: object = dataclasses.field(default_factory=_default_dtype)
    layout: object = dataclasses.field(default_factory=_strided)
    requires_grad: bool = False
    memory_format: object = dataclasses.field(default_factory=_contiguous)
    pin_memory: bool = False

    def __getstate__(self):
        fm = _formats()
        if self.memory_format not in fm:
            raise RuntimeError(f"Invalid torch.memory_format: {self.memory_format}")
        return (self.dtype, _Layout(self.layout), self.requires_grad,
                _MEM_FORMAT_ENCODING(fm.index(self.memory_format)), self.pin_memory)

    def __setstate__(self, state):
        from ... import _dtype as D
        if type(state) is not tuple or len(state) != 5:
            raise ValueError("invalid pickled state for TensorProperties")
        dtype, layout, rg, enc, pin = state
        if not isinstance(dtype, D.dtype) or type(enc) is not _MEM_FORMAT_ENCODING:
            raise ValueError("invalid pickled state for TensorProperties")
        self.dtype, self.layout = dtype, layout
        self.requires_grad, self.pin_memory = bool(rg), bool(pin)
        self.memory_format = _formats()[enc.value]

    @staticmethod
    def create_from_tensor(tensor):
        """The properties of ``tensor``."""
        return TensorProperties(dtype=tensor.dtype, requires_grad=tensor.requires_grad)


@dataclasses.dataclass
class TensorStorageMetadata(_DictState):
    """A stored tensor: its properties, global ``size`` and the chunks it was saved in.

    Example::

        >>> md.state_dict_metadata['model.weight'].size
        torch.Size([3, 4])
    """
    properties: TensorProperties
    size: object
    chunks: list


@dataclasses.dataclass
class BytesStorageMetadata(_DictState):
    """A stored non-tensor value (pickled with ``save``).

    Example::

        >>> md.state_dict_metadata['step']
        BytesStorageMetadata()
    """


@dataclasses.dataclass
class StorageMeta(_DictState):
    """Where and when a checkpoint was written.

    Example::

        >>> md.storage_meta.checkpoint_id
        'ckpt'
    """
    checkpoint_id: object = None
    save_id: object = None
    load_id: object = None
    modules: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Metadata(_DictState):
    """The index of a checkpoint: ``state_dict_metadata`` maps each flattened key to a
    :class:`TensorStorageMetadata` or :class:`BytesStorageMetadata`; ``planner_data`` maps it
    to its path in the nested state_dict; ``storage_data`` maps a :class:`MetadataIndex` to
    where the bytes are (file, offset, length).

    Example::

        >>> md = dcp.save(sd, checkpoint_id='ckpt')
        >>> sorted(md.state_dict_metadata)[:1]
        ['model.bias']
    """
    state_dict_metadata: dict
    planner_data: object = None
    storage_data: object = None
    storage_meta: object = None
    version: object = None


@dataclasses.dataclass(frozen=True)
class MetadataIndex(_DictState):
    """The key of one stored piece: the flattened name ``fqn``, the piece's ``offset`` in the
    tensor (None for a non-tensor value) and an optional ``index`` hint (not compared).

    Example::

        >>> MetadataIndex('model.weight', (0, 0)) == MetadataIndex('model.weight', [0, 0], 3)
        True
    """
    fqn: str
    offset: object = None
    index: object = dataclasses.field(hash=False, compare=False, default=None)

    def __init__(self, fqn, offset=None, index=None):
        object.__setattr__(self, 'fqn', fqn)
        object.__setattr__(self, 'offset', _size(offset))
        object.__setattr__(self, 'index', index)


def _path(*parts):
    if not all(type(p) is str for p in parts):
        raise ValueError("invalid pickled path")
    import os
    return os.path.join(*parts) if parts else ''


def _metadata_globals():
    from .filesystem import _StorageInfo
    mod = 'torch.distributed.checkpoint.metadata.'
    g = {mod + c.__name__: c for c in (ChunkStorageMetadata, TensorStorageMetadata,
                                       BytesStorageMetadata, Metadata, MetadataIndex,
                                       TensorProperties, StorageMeta, _MEM_FORMAT_ENCODING)}
    g['torch.distributed.checkpoint.filesystem._StorageInfo'] = _StorageInfo
    for p in ('PosixPath', 'WindowsPath', 'PurePosixPath', 'PureWindowsPath', 'Path'):
        g['pathlib.' + p] = _path
    return g


def _bad():
    import pickle
    return pickle.UnpicklingError("invalid checkpoint metadata: not the index of a distributed "
                                  "checkpoint")


def _check(md):
    """Checks the types of everything in an unpickled :class:`Metadata`."""
    from ..._tensor import Size
    from .filesystem import _StorageInfo
    from ... import _dtype as D

    def size(x):
        return type(x) is Size and all(type(i) is int and i >= 0 for i in x)
    if type(md) is not Metadata or type(md.state_dict_metadata) is not dict:
        raise _bad()
    for k, v in md.state_dict_metadata.items():
        if type(k) is not str:
            raise _bad()
        if type(v) is TensorStorageMetadata:
            if (type(v.properties) is not TensorProperties or not size(v.size) or
                    not isinstance(v.properties.dtype, D.dtype) or type(v.chunks) is not list):
                raise _bad()
            for c in v.chunks:
                if (type(c) is not ChunkStorageMetadata or not size(c.offsets) or
                        not size(c.sizes) or len(c.offsets) != len(v.size) or
                        len(c.sizes) != len(v.size) or
                        any(o + s > n for o, s, n in zip(c.offsets, c.sizes, v.size))):
                    raise _bad()
        elif type(v) is not BytesStorageMetadata:
            raise _bad()
    if type(md.storage_data) is not dict:
        raise _bad()
    for k, v in md.storage_data.items():
        if (type(k) is not MetadataIndex or type(k.fqn) is not str or
                not (k.offset is None or size(k.offset)) or type(v) is not _StorageInfo or
                type(v.relative_path) is not str or type(v.offset) is not int or
                type(v.length) is not int or v.offset < 0 or v.length < 0 or
                '/' in v.relative_path or '\\' in v.relative_path or
                v.relative_path in ('', '.', '..') or v.transform_descriptors):
            raise _bad()
    if md.planner_data is not None and type(md.planner_data) is not dict:
        raise _bad()
    return md


def _read_metadata(path):
    """The :class:`Metadata` pickled in the file ``path`` (torch's or ember's), read with the
    restricted unpickler: only the checkpoint index classes resolve; anything else raises
    ``pickle.UnpicklingError``."""
    from ... import serialization as S
    with open(path, 'rb') as f:
        data = f.read()
    g = _metadata_globals()
    u = S._SafeUnpickler(S._BytesSource(data), None, S._step_budget(len(data)))
    u.user = g
    u.user_ids = {id(v) for v in g.values()}
    try:
        md = u.load()
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        raise _bad() from e
    return _check(md)


def _write_metadata(md, path):
    """Pickles ``md`` into ``path`` under torch's class names."""
    import io
    from ... import serialization as S
    buf = io.BytesIO()
    S._Pickler(buf, 4, {}).dump(md)
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(buf.getvalue())
    import os
    os.replace(tmp, path)
