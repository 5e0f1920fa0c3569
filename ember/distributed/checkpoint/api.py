"""save / load of (possibly sharded) state_dicts into a folder, across ranks."""
import os

from .metadata import Metadata
from .stateful import Stateful

__all__ = ['save', 'async_save', 'load', 'save_state_dict', 'load_state_dict', 'FileSystemWriter',
           'FileSystemReader', 'StorageWriter', 'StorageReader', 'Metadata',
           'CheckpointException']

_META = '.metadata'


class CheckpointException(Exception):
    """A checkpoint failed; ``failures`` maps ranks to their exceptions.

    Args:
        msg (str): the message.
        failures (dict): ``rank -> exception``.

    Example::

        >>> try:
        ...     dcp.load({'missing': ember.zeros(1)}, checkpoint_id='ckpt')
        ... except CheckpointException as e:
        ...     print(list(e.failures))
        [0]
    """

    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        """``rank -> exception`` of the ranks that failed."""
        return self._failures

    def __str__(self):
        return f"CheckpointException ranks:{self._failures!r}"


class StorageWriter:
    """Where :func:`save` writes (a folder for :class:`FileSystemWriter`).

    Example::

        >>> isinstance(FileSystemWriter('ckpt'), StorageWriter)
        True
    """


class StorageReader:
    """Where :func:`load` reads (a folder for :class:`FileSystemReader`).

    Example::

        >>> isinstance(FileSystemReader('ckpt'), StorageReader)
        True
    """


class FileSystemWriter(StorageWriter):
    """Write a checkpoint into the folder ``path`` (created if missing).

    Args:
        path (str or PathLike): the folder.
        single_file_per_rank, sync_files, thread_count, per_thread_copy_ahead,
        cache_staged_state_dict, overwrite: accepted for compatibility.

    Example::

        >>> dcp.save(sd, storage_writer=FileSystemWriter('ckpt'))
    """

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1,
                 per_thread_copy_ahead=10_000_000, cache_staged_state_dict=False,
                 overwrite=True, **kwargs):
        self.path = os.fspath(path)
        self.overwrite = overwrite


class FileSystemReader(StorageReader):
    """Read a checkpoint from the folder ``path``.

    Example::

        >>> dcp.load(sd, storage_reader=FileSystemReader('ckpt'))
    """

    def __init__(self, path, **kwargs):
        self.path = os.fspath(path)

    def read_metadata(self):
        """The checkpoint's :class:`Metadata`."""
        from .metadata import _read_metadata
        return _read_metadata(os.path.join(self.path, _META))


def _flatten(state_dict):
    """``fqn -> (path, value, container, key)`` of the leaves of ``state_dict``, as torch's DCP
    flattens: mappings are walked (keys joined with '.'), lists only when they hold tensors
    or mappings (or such lists); other values (tuples, lists of plain values) are leaves."""
    from ..._tensor import Tensor
    out = {}

    def terminal(v):
        if isinstance(v, dict):
            return False
        if not isinstance(v, list):
            return True
        return not any(isinstance(e, Tensor) or (isinstance(e, (dict, list)) and not terminal(e))
                       for e in v)

    def walk(path, v, parent, key):
        if isinstance(v, dict):
            for k, w in v.items():
                walk(path + (str(k),), w, v, k)
        elif terminal(v):
            fqn = '.'.join(map(str, path))
            if fqn in out:
                raise ValueError(f"duplicated flatten key {fqn}")
            out[fqn] = (path, v, parent, key)
        else:
            for i, w in enumerate(v):
                walk(path + (i,), w, v, i)
    for k, v in state_dict.items():
        walk((str(k),), v, state_dict, k)
    return out


def _resolve_stateful(state_dict):
    """Top-level Stateful values are replaced by their state_dict (a shallow copy)."""
    sd = {}
    for k, v in state_dict.items():
        from ..._tensor import Tensor
        sd[k] = v.state_dict() if isinstance(v, Stateful) and not isinstance(v, Tensor) else v
    return sd


def _dist_info(process_group, no_dist):
    from ... import distributed as dist
    if no_dist or not dist.is_initialized():
        return None, 0, 1
    return dist, dist.get_rank(process_group), dist.get_world_size(process_group)


def _path(checkpoint_id, storage, what):
    if storage is not None:
        return storage.path
    if checkpoint_id is None:
        raise RuntimeError(f"`checkpoint_id` must be specified if {what} is None.")
    return os.fspath(checkpoint_id)


def _check_planner(planner, default):
    from . import default_planner
    if planner is not None and type(planner) is not getattr(default_planner, default):
        raise NotImplementedError(f"dcp in ember plans by itself: only {default} is accepted as "
                                  f"planner, got {type(planner).__name__}")


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
         process_group=None, no_dist=False, use_cached=False):
    """Save ``state_dict`` (called on every rank) into the folder ``checkpoint_id``.

    The folder is in PyTorch's format (``torch.distributed.checkpoint`` loads it, and this
    loads torch's): rank ``r`` writes ``__r_0.distcp``, rank 0 the ``.metadata`` index. A
    DTensor is stored as the pieces its ranks hold (with their offsets in the whole
    tensor); a piece or value present on several ranks (replicated) is written once, by the
    holder with the fewest bytes assigned so far.

    Args:
        state_dict (dict): nested dicts/lists of tensors and plain values; top-level
            ``Stateful`` objects (modules, optimizers) are saved through their state_dict.
        checkpoint_id (str or PathLike): the folder.
        storage_writer (FileSystemWriter, optional): instead of ``checkpoint_id``.
        planner (DefaultSavePlanner, optional): accepted (other planner classes are
            refused: ember plans by itself).
        use_cached: accepted for compatibility.
        process_group (ProcessGroup, optional): the ranks taking part (default: the world).
        no_dist (bool): save from this process alone.

    Returns:
        Metadata: the checkpoint's index.

    Example::

        >>> dcp.save({'model': model.state_dict(), 'step': 10}, checkpoint_id='ckpt')
    """
    from ._format import save_flat
    _check_planner(planner, 'DefaultSavePlanner')
    if hasattr(storage_writer, '_ember_save'):    # a storage with a format of its own
        return Metadata(storage_writer._ember_save(state_dict, process_group, no_dist))
    path = _path(checkpoint_id, storage_writer, 'storage_writer')
    dist, rank, ws = _dist_info(process_group, no_dist)
    os.makedirs(path, exist_ok=True)
    flat = _flatten(_resolve_stateful(state_dict))
    return save_flat(flat, path, dist, rank, ws, process_group)


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
               process_group=None, async_checkpointer_type=None, async_stager=None,
               no_dist=False, use_cached=False):
    """:func:`save`, returning a ``concurrent.futures.Future`` of its :class:`Metadata`.

    NOTE: unlike PyTorch, the checkpoint is written before this returns (the future is
    already complete); nothing runs in the background.

    Example::

        >>> fut = dcp.async_save(sd, checkpoint_id='ckpt')
        >>> md = fut.result()
    """
    import concurrent.futures
    md = save(state_dict, checkpoint_id=checkpoint_id, storage_writer=storage_writer,
              planner=planner, process_group=process_group, no_dist=no_dist)
    fut = concurrent.futures.Future()
    fut.set_result(md)
    return fut


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None,
         process_group=None, no_dist=False):
    """Fill ``state_dict`` in place from the checkpoint folder ``checkpoint_id`` (any number
    of ranks, or one process, may load what any number saved).

    Tensors are copied into the tensors of ``state_dict`` (same shapes; dtypes cast; a
    DTensor receives its own piece, whatever pieces were saved), other values replaced;
    top-level ``Stateful`` objects get ``load_state_dict`` with the loaded values. Only the
    keys present in ``state_dict`` are read.

    Args:
        state_dict (dict): the structure to fill (its keys select what is read).
        checkpoint_id (str or PathLike): the folder.
        storage_reader (FileSystemReader, optional): instead of ``checkpoint_id``.
        planner (DefaultLoadPlanner, optional): its ``allow_partial_load`` leaves the keys
            the checkpoint lacks as they are (other planner classes are refused).
        process_group, no_dist: accepted (loading needs no communication).

    Raises:
        CheckpointException: a key is missing from the checkpoint or a shape differs.

    Example::

        >>> sd = {'model': model.state_dict()}
        >>> dcp.load(sd, checkpoint_id='ckpt')
    """
    from ._format import load_flat
    _check_planner(planner, 'DefaultLoadPlanner')
    if hasattr(storage_reader, '_ember_load'):    # a storage with a format of its own
        return storage_reader._ember_load(state_dict, process_group, no_dist)
    path = _path(checkpoint_id, storage_reader, 'storage_reader')
    _d, rank, _ws = _dist_info(process_group, no_dist)
    resolved = _resolve_stateful(state_dict)
    load_flat(_flatten(resolved), path, rank,
              partial=bool(getattr(planner, 'allow_partial_load', False)))
    from ..._tensor import Tensor
    for k, v in state_dict.items():
        if isinstance(v, Stateful) and not isinstance(v, Tensor):
            v.load_state_dict(resolved[k])
        elif resolved.get(k) is not v and k in resolved:
            state_dict[k] = resolved[k]


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated form of :func:`save` (``storage_writer`` required).

    Example::

        >>> dcp.save_state_dict(sd, FileSystemWriter('ckpt'))   # FutureWarning
    """
    import warnings
    warnings.warn("'save_state_dict' is deprecated and will be removed in future versions."
                  "Please use 'save' instead.", FutureWarning, stacklevel=2)
    return save(state_dict, storage_writer=storage_writer, process_group=process_group,
                no_dist=no_dist)


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """Deprecated form of :func:`load` (``storage_reader`` required).

    Example::

        >>> dcp.load_state_dict(sd, FileSystemReader('ckpt'))   # FutureWarning
    """
    import warnings
    warnings.warn("'load_state_dict' is deprecated and will be removed in future versions. "
                  "Please use 'load' instead.", FutureWarning, stacklevel=2)
    return load(state_dict, storage_reader=storage_reader, process_group=process_group,
                no_dist=no_dist)
