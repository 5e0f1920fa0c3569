"""The DataLoader's worker processes: the loop each runs, its seeding, and
:func:`get_worker_info`."""
import os
import random
from dataclasses import dataclass

from . import ExceptionWrapper


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None
_POLL_INTERVAL = 0.25


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What a DataLoader worker knows about itself (see :func:`get_worker_info`).

    Attributes:
        id (int): the worker's index, ``0 .. num_workers - 1``.
        num_workers (int): how many workers the loader has.
        seed (int): the worker's seed (``base_seed + id``; ``ember``'s and ``random``'s
            global generators are seeded with it).
        dataset: this worker's copy of the dataset.
    """
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = 'multiprocessing'


def get_worker_info():
    """The :class:`WorkerInfo` of the current DataLoader worker, or None in the main
    process. Use it in an ``IterableDataset.__iter__`` or a ``worker_init_fn`` to give each
    worker its own share of the data.

    Example::

        >>> def worker_init_fn(worker_id):
        ...     info = ember.utils.data.get_worker_info()
        ...     info.dataset.start = info.id   # configure this worker's copy
    """
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Start a new epoch (persistent workers)."""
    seed: object = None


_M32 = 0xFFFFFFFF


def _generate_state(base_seed, worker_id):
    """The four 32-bit words that seed NumPy's global generator in worker ``worker_id``
    (NumPy's SeedSequence hashing of ``[worker_id, base_seed]``, as PyTorch computes it)."""
    entropy = [worker_id, base_seed & _M32, base_seed >> 32, 0]
    mult = [0x43b0d7e5]

    def hash_word(v):
        v = (v ^ mult[0]) & _M32
        mult[0] = (mult[0] * 0x931e8875) & _M32
        v = (v * mult[0]) & _M32
        return (v ^ (v >> 16)) & _M32

    def mix(x, y):
        r = ((0xca01f9dd * x) - (0x4973f715 * y)) & _M32
        return (r ^ (r >> 16)) & _M32

    pool = [hash_word(e) for e in entropy]
    for s in range(4):
        for d in range(4):
            if s != d:
                pool[d] = mix(pool[d], hash_word(pool[s]))
    mult_b = 0x8b51f9dd
    out = []
    for v in pool:
        v = (v ^ mult_b) & _M32
        mult_b = (mult_b * 0x58f38ded) & _M32
        v = (v * mult_b) & _M32
        out.append((v ^ (v >> 16)) & _M32)
    return out


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    from .... import random as R
    R.manual_seed(seed)
    import numpy as np
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shared_seed, max_outstanding=0):
    """Body of worker process ``worker_id``: seed, run ``init_fn``, then answer
    ``(idx, index)`` requests with ``(idx, data)`` on ``data_queue`` until told to stop
    (``None``) or the parent dies.

    With the 'file_system' sharing strategy a batch's shared file lives as long as the
    batch does here, so the last ``max_outstanding + 1`` batches sent are kept: the main
    process has opened every earlier one by then (it never has more than
    ``max_outstanding`` tasks in flight)."""
    global _worker_info
    try:
        from ....multiprocessing.reductions import init_reductions
        init_reductions()
        try:
            from ...._misc import set_num_threads
            set_num_threads(1)
        except Exception:   # pragma: no cover
            pass
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        from ..dataloader import _DatasetKind
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        from .... import _storage
        import collections
        recent = collections.deque(maxlen=max_outstanding + 1)
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            # index_queue is a SimpleQueue; a short poll also notices ``done_event``, so a
            # worker stops even if its final ``None`` never comes (a loader collected
            # with its queues' connections already closed)
            if not index_queue._reader.poll(_POLL_INTERVAL):
                if done_event.is_set():
                    break
                continue
            r = index_queue.get()
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            if _storage._SHARING['strategy'] == 'file_system':
                recent.append(data)
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
