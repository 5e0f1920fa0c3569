"""``DataLoader``: iterate a dataset in (shuffled, collated) batches, in this process or in
worker processes."""
import itertools
import math
import os
import queue
import threading
import warnings
import weakref

from . import _utils
from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ['DataLoader', 'get_worker_info', 'default_collate', 'default_convert']


class _DatasetKind:
    """The two kinds of dataset a :class:`DataLoader` fetches from: ``_DatasetKind.Map``
    (0, indexed with ``dataset[i]``) and ``_DatasetKind.Iterable`` (1, iterated); its
    static ``create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)`` builds
    the matching fetcher. Internal, exported as in PyTorch.

    Example::

        >>> from ember.utils.data import _DatasetKind
        >>> _DatasetKind.Map, _DatasetKind.Iterable
        (0, 1)
    """
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        from ._utils import fetch
        cls = fetch._MapDatasetFetcher if kind == _DatasetKind.Map else \
            fetch._IterableDatasetFetcher
        return cls(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: ``None`` forever."""

    def __iter__(self):
        while True:
            yield None


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # pragma: no cover
        return os.cpu_count()


def _draw_seed(generator):
    from ..._ops.creation import empty
    from ..._dtype import int64
    return empty((), dtype=int64).random_(generator=generator).item()


_persistent_iters = weakref.WeakSet()
_persistent_lock = threading.Lock()
_persistent_atexit = [False]


class DataLoader:
    """Iterate a dataset in batches.

    Args:
        dataset (Dataset): map-style (``__getitem__``/``__len__``) or iterable-style.
        batch_size (int, optional): samples per batch; None turns batching off (each
            sample goes through ``collate_fn`` alone). Default: 1.
        shuffle (bool, optional): reshuffle every epoch (a :class:`RandomSampler`).
        sampler (Sampler or Iterable, optional): the index order (excludes ``shuffle``).
        batch_sampler (Sampler or Iterable, optional): yields lists of indices (excludes
            ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``).
        num_workers (int): worker processes; 0 loads in the main process. Default: 0.
        collate_fn (Callable, optional): merges a list of samples into a batch
            (default :func:`default_collate`, or :func:`default_convert` without batching).
        pin_memory (bool): copy batches to pinned memory (only with an accelerator;
            otherwise it warns and does nothing, as PyTorch does).
        drop_last (bool): drop the last incomplete batch. Default: False.
        timeout (float): seconds to wait for a worker's batch before raising; 0 waits
            for ever. Default: 0.
        worker_init_fn (Callable, optional): called as ``fn(worker_id)`` in each worker
            after seeding and before loading.
        multiprocessing_context (str or context, optional): the workers' start method
            ('fork' by default on Linux, 'spawn', 'forkserver').
        generator (Generator, optional): draws the workers' base seed and, with
            ``shuffle``, the sampler's permutation.
        prefetch_factor (int, optional): batches loaded ahead per worker (default 2 with
            workers; must be None without).
        persistent_workers (bool): keep the workers between epochs. Default: False.
        pin_memory_device (str): deprecated, ignored (warns with ``pin_memory``).
        in_order (bool): give batches in sampler order (False: as they arrive).

    Worker ``i`` is seeded with ``base_seed + i`` (``base_seed`` drawn from ``generator``,
    or the global generator, when the iterator is made); :func:`get_worker_info` gives it
    its id, seed and dataset copy. Batches come back through shared memory.

    Example::

        >>> ds = TensorDataset(ember.randn(100, 3), ember.arange(100))
        >>> for x, y in DataLoader(ds, batch_size=32, shuffle=True):
        ...     pass
    """
    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device='',
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            elif batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        """The workers' multiprocessing context (None: 'fork' on Linux)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers > 0:
                import multiprocessing
                if isinstance(ctx, str):
                    valid = multiprocessing.get_all_start_methods()
                    if ctx not in valid:
                        raise ValueError("multiprocessing_context option should specify a valid "
                                         f"start method in {valid!r}, but got "
                                         f"multiprocessing_context={ctx!r}")
                    ctx = multiprocessing.get_context(ctx)
                if not isinstance(ctx, multiprocessing.context.BaseContext):
                    raise TypeError("multiprocessing_context option should be a valid context "
                                    "object or a string specifying the start method, but got "
                                    f"multiprocessing_context={ctx}")
            else:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ('batch_size', 'batch_sampler', 'sampler', 'drop_last',
                                           'dataset', 'persistent_workers'):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn when more workers are asked for than this machine's CPUs."""
        if not self.num_workers:
            return
        suggest = _cpu_count()
        cpuset_checked = hasattr(os, 'sched_getaffinity')
        if suggest is None or self.num_workers > suggest:
            if suggest is not None:
                s = ("Our suggested max number of worker in current system is "
                     f"{suggest}{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}"
                     ", which is smaller than what this DataLoader is going to create.")
            else:
                s = "DataLoader is not able to compute a suggested max number of worker in current system."
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                          f"total. {s} Please be aware that excessive worker creation might get "
                          "DataLoader running slow or even freeze, lower the worker number to "
                          "avoid potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        from ... import accelerator
        have_acc = accelerator.is_available()
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                          stacklevel=2)
        if loader.pin_memory and not have_acc:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        self._pin_memory = loader.pin_memory and have_acc
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


def _pin(data):
    from ..._tensor import Tensor
    if isinstance(data, Tensor):
        return data.pin_memory() if hasattr(data, 'pin_memory') else data
    if isinstance(data, dict):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, '_fields'):
        return type(data)(*(_pin(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(v) for v in data)
    return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        index = self._next_index()
        data = self._dataset_fetcher.fetch(index)
        return _pin(data) if self._pin_memory else data


def _clean_up_persistent_iters():
    with _persistent_lock:
        its = tuple(_persistent_iters)
    for it in its:
        it._shutdown_workers()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers fetch and collate; batches come back through one result queue (tensors by
    shared-memory handle) and are given out in sampler order (``in_order``)."""

    def __init__(self, loader):
        super().__init__(loader)
        import multiprocessing
        from ...multiprocessing.reductions import init_reductions
        from ._utils.worker import _worker_loop
        init_reductions()
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context('fork' if os.name == 'posix' and
                                              'fork' in multiprocessing.get_all_start_methods()
                                              else None)
        self._worker_init_fn = loader.worker_init_fn
        self._owner_pid = os.getpid()
        self._worker_result_queue = ctx.Queue()
        self._shutdown = False
        self._workers_done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        self._data_queue = self._worker_result_queue
        try:
            for i in range(self._num_workers):
                # a SimpleQueue writes in the caller's thread (no feeder thread), so the
                # final ``None`` still reaches a worker when shutdown runs from __del__
                # during garbage collection, after the queues' own finalizers
                iq = ctx.SimpleQueue()
                w = ctx.Process(target=_worker_loop, args=(
                    self._dataset_kind, self._dataset, iq, self._worker_result_queue,
                    self._workers_done_event, self._auto_collation, self._collate_fn,
                    self._drop_last, self._base_seed, self._worker_init_fn, i,
                    self._num_workers, self._persistent_workers, self._shared_seed,
                    self._prefetch_factor * self._num_workers))
                w.daemon = True
                w.start()
                self._index_queues.append(iq)
                self._workers.append(w)
        except BaseException:
            self._workers_status = [True] * len(self._workers)
            self._shutdown_workers()
            raise
        if self._persistent_workers:
            with _persistent_lock:
                _persistent_iters.add(self)
                if not _persistent_atexit[0]:
                    import atexit
                    atexit.register(_clean_up_persistent_iters)
                    _persistent_atexit[0] = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_utils.worker._ResumeIteration(self._shared_seed))
            left = self._num_workers
            while left > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _utils.worker._ResumeIteration):
                    left -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _dead_workers(self):
        dead = []
        for wid, w in enumerate(self._workers):
            if self._workers_status[wid] and not w.is_alive():
                dead.append(w)
                self._mark_worker_as_unavailable(wid)
        return dead

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """Wait up to ``timeout`` for a result, waking at once when a worker dies."""
        from multiprocessing.connection import wait
        import time
        end = time.monotonic() + timeout
        reader = getattr(self._data_queue, '_reader', None)
        while True:
            left = end - time.monotonic()
            try:
                if reader is None:
                    return True, self._data_queue.get(timeout=max(left, 0))
                if reader.poll():
                    return True, self._data_queue.get(timeout=max(left, 1.0))
            except queue.Empty:
                pass
            except (EOFError, OSError):
                # a worker killed while it shared the result pipe: say which one died, as
                # PyTorch does, rather than the pipe's own error. Its files close a moment
                # before the system reports it dead: give that moment (5 s at most).
                wait([w.sentinel for w in self._workers], timeout=5.0)
                for _ in range(500):
                    self._report_dead_workers()
                    time.sleep(0.01)
                raise
            self._report_dead_workers()
            if left <= 0:
                return False, None
            sentinels = [w.sentinel for wid, w in enumerate(self._workers)
                         if self._workers_status[wid]]
            wait([reader] + sentinels, timeout=left)

    def _report_dead_workers(self):
        """Raise PyTorch's RuntimeError naming the workers that have died, if any."""
        dead = self._dead_workers()
        if dead:
            pids = ', '.join(str(w.pid) for w in dead)
            self._shutdown_workers()   # the epoch cannot complete: stop the others now
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if ok:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                wid, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, wid)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(
                    data, _utils.worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    wid = self._task_info.pop(idx)[0]
                    return self._process_data(data, wid)
                self._task_info[idx] += (data,)
            else:
                wid = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, wid)

    def _try_put_index(self):
        limit = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wq = next(self._worker_queue_idx_cycle)
            if self._workers_status[wq]:
                if self._in_order:
                    break
                if self._workers_num_tasks[wq] < limit // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[wq].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wq,)
        self._workers_num_tasks[wq] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, wid):
        self._workers_num_tasks[wid] -= 1
        self._try_put_index()
        if isinstance(data, _utils.ExceptionWrapper):
            data.reraise()
        return _pin(data) if self._pin_memory else data

    def _mark_worker_as_unavailable(self, wid, shutdown=False):
        self._index_queues[wid].put(None)
        self._workers_status[wid] = False

    def _shutdown_workers(self):
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return
        if getattr(self, '_shutdown', True) or self._owner_pid != os.getpid():
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for wid in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[wid]:
                    try:
                        self._mark_worker_as_unavailable(wid, shutdown=True)
                    except (ValueError, OSError):
                        pass
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                try:
                    q.close()
                except OSError:
                    pass
            try:
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()
            except (OSError, ValueError):
                pass
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
                if w.is_alive():   # pragma: no cover
                    w.kill()
                    w.join()

    def __del__(self):
        self._shutdown_workers()
