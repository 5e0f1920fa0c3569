"""``ember.distributed``: PyTorch's ``torch.distributed`` on MPI (mpi4py over the ``mpich``
wheel).

Process groups (the default one from ``init_process_group``, ``new_group``, subgroups,
``DeviceMesh``), every collective with ``async_op=True`` returning a :class:`Work`,
point-to-point, object collectives, the stores (``TCPStore``, ``FileStore``, ``HashStore``,
``PrefixStore``), ``ReduceOp``, ``Backend`` and the error types.

NOTE: unlike PyTorch, the 'gloo' backend name runs on MPI, and CUDA collectives (NCCL) are
not implemented yet.
"""
import datetime as _dt
import enum as _enum
import threading as _threading
import time as _time

__all__ = ['is_available', 'is_mpi_available', 'is_gloo_available', 'is_nccl_available',
           'is_ucc_available', 'is_xccl_available', 'is_initialized', 'is_torchelastic_launched',
           'Backend', 'ReduceOp', 'reduce_op', 'DistError', 'DistBackendError',
           'DistNetworkError', 'DistStoreError', 'QueueEmptyError', 'Store', 'HashStore',
           'PrefixStore', 'default_pg_timeout', 'init_process_group', 'destroy_process_group',
           'get_rank', 'get_world_size', 'get_backend', 'GroupMember', 'group']

default_pg_timeout = _dt.timedelta(minutes=30)


def is_available():
    """Whether the distributed package can be used: always True in ember.

    Example::

        >>> ember.distributed.is_available()
        True
    """
    return True


def is_mpi_available():
    """Whether the MPI engine can be used, that is whether ``mpi4py`` is installed. Only the
    presence of the package is checked: mpi4py itself is imported when a group is made.

    Example::

        >>> ember.distributed.is_mpi_available()   # with mpi4py installed
        True
    """
    import importlib.util
    return importlib.util.find_spec('mpi4py') is not None


def is_gloo_available():
    """Whether the ``'gloo'`` backend can be used.

    NOTE: unlike PyTorch, ember's 'gloo' groups run on MPI, so this is
    :func:`is_mpi_available`.

    Example::

        >>> ember.distributed.is_gloo_available()   # with mpi4py installed
        True
    """
    return is_mpi_available()


def is_nccl_available():
    """Whether the NCCL backend can be used: always False (ember has no CUDA collectives).

    Example::

        >>> ember.distributed.is_nccl_available()
        False
    """
    return False


def is_ucc_available():
    """Whether the UCC backend can be used: always False.

    Example::

        >>> ember.distributed.is_ucc_available()
        False
    """
    return False


def is_xccl_available():
    """Whether the XCCL backend can be used: always False.

    Example::

        >>> ember.distributed.is_xccl_available()
        False
    """
    return False


def is_torchelastic_launched():
    """Whether this process was started by an elastic launcher such as torchrun, that is
    whether ``TORCHELASTIC_RUN_ID`` is set in the environment.

    Example::

        >>> ember.distributed.is_torchelastic_launched()   # run as a plain script
        False
    """
    import os
    return os.getenv('TORCHELASTIC_RUN_ID') is not None


class DistError(RuntimeError):
    """Base error of the distributed package."""


class DistBackendError(DistError):
    """Error raised by a communication backend."""


class DistNetworkError(DistError):
    """Network error (connect or listen failure, socket timeout)."""


class DistStoreError(DistError):
    """Store error (e.g. a wait timeout)."""


class QueueEmptyError(DistStoreError):
    """Raised when popping from an empty store queue."""


class Backend(str):
    """A backend name, lower-cased: ``Backend('GLOO') == 'gloo'``.

    Example::

        >>> ember.distributed.Backend('GLOO')
        'gloo'
    """
    UNDEFINED = 'undefined'
    GLOO = 'gloo'
    NCCL = 'nccl'
    XCCL = 'xccl'
    UCC = 'ucc'
    MPI = 'mpi'
    FAKE = 'fake'
    backend_list = ['undefined', 'gloo', 'nccl', 'xccl', 'ucc', 'mpi', 'fake']
    default_device_backend_map = {'cpu': 'gloo', 'cuda': 'nccl', 'xpu': 'xccl', 'mps': 'gloo'}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return str.__new__(cls, value)


class _RedOpType(_enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __int__(self):
        return self.value


_RedOpType.__name__ = _RedOpType.__qualname__ = 'RedOpType'


class ReduceOp:
    """Reduction operations of ``all_reduce``/``reduce``/``reduce_scatter``: ``SUM``,
    ``PRODUCT``, ``MIN``, ``MAX``, ``AVG``, ``BAND``, ``BOR``, ``BXOR``, ``PREMUL_SUM``.

    ``ReduceOp.SUM`` etc. are ``ReduceOp.RedOpType`` members; ``ReduceOp(op)`` wraps one.

    Example::

        >>> ember.distributed.ReduceOp.SUM
        <RedOpType.SUM: 0>
    """
    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM
    UNUSED = _RedOpType.UNUSED

    def __init__(self, op=_RedOpType.SUM):
        if isinstance(op, ReduceOp):
            op = op.op
        if not isinstance(op, _RedOpType):
            raise TypeError(f"ReduceOp(): incompatible argument {op!r}")
        self.op = op
        self._factor = None

    def __eq__(self, other):
        if isinstance(other, ReduceOp):
            return self.op == other.op
        return self.op == other

    def __hash__(self):
        return hash(self.op)

    def __repr__(self):
        return f"<ReduceOp.{self.op.name}>"


def _make_nccl_premul_sum(factor):
    """A ``PREMUL_SUM`` op multiplying each input by ``factor`` before summing."""
    r = ReduceOp(ReduceOp.PREMUL_SUM)
    r._factor = factor
    return r


class reduce_op:
    """Deprecated holder of the reduction names ``SUM``, ``PRODUCT``, ``MIN`` and ``MAX``;
    use :class:`ReduceOp` instead.

    Example::

        >>> ember.distributed.reduce_op.SUM == ember.distributed.ReduceOp.SUM
        True
    """
    SUM = _RedOpType.SUM
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX


def _to_bytes(v):
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, (list, tuple)):
        return bytes(v)
    raise TypeError(f"store value must be str or bytes, got {type(v).__name__}")


def _secs(td):
    return td.total_seconds() if isinstance(td, _dt.timedelta) else float(td)


class Store:
    """Base class of the key-value stores processes meet through (:class:`HashStore`,
    :class:`TCPStore`, :class:`FileStore`, :class:`PrefixStore`). It holds the default
    ``timeout`` of blocking calls (300 s) and builds ``multi_get``/``multi_set`` on the
    ``get``/``set`` that subclasses implement.

    Example::

        >>> store = ember.distributed.HashStore()   # a concrete Store
        >>> isinstance(store, ember.distributed.Store)
        True
        >>> store.multi_set(['a', 'b'], ['1', '2'])
        >>> store.multi_get(['a', 'b'])
        [b'1', b'2']
    """

    def __init__(self):
        self._timeout = _dt.timedelta(seconds=300)

    @property
    def timeout(self):
        """The default timeout of blocking operations (a ``timedelta``)."""
        return self._timeout

    def set_timeout(self, timeout):
        """Set the default timeout of blocking operations."""
        self._timeout = timeout

    def has_extended_api(self):
        """Whether ``append``/``multi_get``/``multi_set`` are supported (``True``)."""
        return True

    def multi_get(self, keys):
        """Values of ``keys`` (blocking until each exists)."""
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        """Set each key to its value."""
        for k, v in zip(keys, values):
            self.set(k, v)


class HashStore(Store):
    """A thread-safe in-memory store, shared by the threads of one process.

    Example::

        >>> s = ember.distributed.HashStore()
        >>> s.set('a', 'b'); s.get('a')
        b'b'
    """

    def __init__(self):
        super().__init__()
        self._d = {}
        self._q = {}
        self._cv = _threading.Condition()

    def set(self, key, value):
        """Set ``key`` to ``value`` (str or bytes)."""
        with self._cv:
            self._d[key] = _to_bytes(value)
            self._cv.notify_all()

    def _wait_locked(self, keys, timeout):
        end = _time.monotonic() + _secs(timeout if timeout is not None else self._timeout)
        while not all(k in self._d for k in keys):
            left = end - _time.monotonic()
            if left <= 0:
                raise DistStoreError("Wait timeout")
            self._cv.wait(left)

    def get(self, key):
        """The value of ``key``, waiting up to the store timeout for it to be set."""
        with self._cv:
            self._wait_locked([key], None)
            return self._d[key]

    def wait(self, keys, timeout=None):
        """Wait until every key in ``keys`` is set; raises ``DistStoreError`` on timeout."""
        with self._cv:
            self._wait_locked(list(keys), timeout)

    def check(self, keys):
        """Whether every key in ``keys`` is set (does not wait)."""
        with self._cv:
            return all(k in self._d or k in self._q for k in keys)

    def list_keys(self):
        """Every key set."""
        with self._cv:
            return list(self._d)

    def queue_push(self, key, value):
        """Push ``value`` at the back of the queue ``key``."""
        with self._cv:
            self._q.setdefault(key, []).append(_to_bytes(value))
            self._cv.notify_all()

    def queue_pop(self, key, block=True):
        """Pop the front of the queue ``key``: waits up to the store timeout if ``block``
        (``DistStoreError``), else raises ``QueueEmptyError`` when it is empty."""
        with self._cv:
            if not block and not self._q.get(key):
                raise QueueEmptyError("queue is empty")
            end = _time.monotonic() + _secs(self._timeout)
            while not self._q.get(key):
                left = end - _time.monotonic()
                if left <= 0:
                    raise DistStoreError("Wait timeout")
                self._cv.wait(left)
            return self._q[key].pop(0)

    def queue_len(self, key):
        """The length of the queue ``key``."""
        with self._cv:
            return len(self._q.get(key, ()))

    def add(self, key, amount):
        """Add ``amount`` to the integer stored at ``key`` (0 if absent); returns the new value."""
        with self._cv:
            cur = self._d.get(key, b'0')
            try:
                n = int(cur)
            except ValueError:
                raise ValueError("stoll") from None
            n += int(amount)
            self._d[key] = str(n).encode()
            self._cv.notify_all()
            return n

    def append(self, key, value):
        """Append ``value`` to the bytes at ``key`` (set it if absent)."""
        with self._cv:
            self._d[key] = self._d.get(key, b'') + _to_bytes(value)
            self._cv.notify_all()

    def compare_set(self, key, expected_value, desired_value):
        """Set ``key`` to ``desired_value`` if its value is ``expected_value`` (or it is absent
        and ``expected_value`` is empty); returns the value now stored (``expected_value``
        when the key is absent and not set)."""
        e, d = _to_bytes(expected_value), _to_bytes(desired_value)
        with self._cv:
            if key not in self._d:
                if e == b'':
                    self._d[key] = d
                    self._cv.notify_all()
                    return d
                return e
            if self._d[key] == e:
                self._d[key] = d
                self._cv.notify_all()
            return self._d[key]

    def delete_key(self, key):
        """Delete ``key``; returns whether it existed."""
        with self._cv:
            return self._d.pop(key, None) is not None

    def num_keys(self):
        """The number of keys set."""
        with self._cv:
            return len(self._d)


class PrefixStore(Store):
    """A store that prefixes every key with ``prefix + '/'`` before handing it to ``store``.

    Args:
        prefix (str): the prefix.
        store (Store): the underlying store.

    Example::

        >>> p = ember.distributed.PrefixStore('pre', ember.distributed.HashStore())
    """

    def __init__(self, prefix, store):
        super().__init__()
        self._prefix = prefix
        self.underlying_store = store
        self._timeout = store.timeout

    def _k(self, k):
        return f"{self._prefix}/{k}"

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], timeout)

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def list_keys(self):
        """The keys under this prefix (without it)."""
        pre = self._prefix + '/'
        return [k[len(pre):] for k in self.underlying_store.list_keys() if k.startswith(pre)]

    def multi_get(self, keys):
        return self.underlying_store.multi_get([self._k(k) for k in keys])

    def multi_set(self, keys, values):
        self.underlying_store.multi_set([self._k(k) for k in keys], values)

    def queue_push(self, key, value):
        self.underlying_store.queue_push(self._k(key), value)

    def queue_pop(self, key, block=True):
        return self.underlying_store.queue_pop(self._k(key), block)

    def queue_len(self, key):
        return self.underlying_store.queue_len(self._k(key))

    @property
    def timeout(self):
        """The underlying store's timeout."""
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        """Set the underlying store's timeout."""
        self.underlying_store.set_timeout(timeout)


_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class GroupMember:
    """Placeholders for groups: ``GroupMember.WORLD`` is the default process group (None
    until :func:`init_process_group`), ``GroupMember.NON_GROUP_MEMBER`` is what
    :func:`new_group` returns on ranks outside the new group.

    Example::

        >>> ember.distributed.GroupMember.NON_GROUP_MEMBER
        -100
    """
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    """Holds ``group.WORLD``, the default process group (None until
    :func:`init_process_group`).

    Example::

        >>> import ember.distributed as dist
        >>> dist.is_initialized() or dist.group.WORLD is None
        True
    """
    WORLD = None


from ._work import Work, Future  # noqa: E402
from ._store import TCPStore, FileStore  # noqa: E402
from .distributed_c10d import (  # noqa: E402
    ProcessGroup, init_process_group, destroy_process_group, is_initialized, get_rank,
    get_world_size, get_backend, get_backend_config, get_pg_count, get_process_group_ranks,
    get_group_rank, get_global_rank, new_group, new_subgroups, new_subgroups_by_enumeration,
    split_group, all_reduce, all_reduce_coalesced, broadcast, reduce, all_gather,
    all_gather_into_tensor, all_gather_coalesced, gather, scatter, reduce_scatter,
    reduce_scatter_tensor, all_to_all, all_to_all_single, barrier, monitored_barrier, send, recv,
    isend, irecv, P2POp, batch_isend_irecv, all_gather_object, broadcast_object_list,
    gather_object, scatter_object_list, send_object_list, recv_object_list, all_gather_single,
    reduce_scatter_single, shrink_group)
from ._extras import (  # noqa: E402
    AllreduceOptions, AllreduceCoalescedOptions, BroadcastOptions, ReduceOptions, AllToAllOptions,
    BarrierOptions, GatherOptions, ScatterOptions, ReduceScatterOptions, DebugLevel,
    get_debug_level, set_debug_level, set_debug_level_from_env, BuiltinCommHookType,
    BackendConfig, is_backend_available, get_default_backend_for_device, supports_complex,
    get_node_local_rank, ProcessGroupGloo, register_rendezvous_handler, rendezvous, breakpoint,
    record_comm, log, GroupName, RankType)
from ._device_mesh import DeviceMesh, init_device_mesh  # noqa: E402
from datetime import timedelta  # noqa: E402

__all__ += ['Work', 'TCPStore', 'FileStore', 'ProcessGroup', 'get_backend_config', 'get_pg_count',
            'get_process_group_ranks', 'get_group_rank', 'get_global_rank', 'new_group',
            'new_subgroups', 'new_subgroups_by_enumeration', 'split_group', 'all_reduce',
            'all_reduce_coalesced', 'broadcast', 'reduce', 'all_gather', 'all_gather_into_tensor',
            'all_gather_coalesced', 'gather', 'scatter', 'reduce_scatter', 'reduce_scatter_tensor',
            'all_to_all', 'all_to_all_single', 'barrier', 'monitored_barrier', 'send', 'recv',
            'isend', 'irecv', 'P2POp', 'batch_isend_irecv', 'all_gather_object',
            'broadcast_object_list', 'gather_object', 'scatter_object_list', 'send_object_list',
            'recv_object_list', 'all_gather_single', 'reduce_scatter_single', 'shrink_group',
            'AllreduceOptions', 'AllreduceCoalescedOptions', 'BroadcastOptions', 'ReduceOptions',
            'AllToAllOptions', 'BarrierOptions', 'GatherOptions', 'ScatterOptions',
            'ReduceScatterOptions', 'DebugLevel', 'get_debug_level', 'set_debug_level',
            'set_debug_level_from_env', 'BuiltinCommHookType', 'BackendConfig',
            'is_backend_available', 'get_default_backend_for_device', 'supports_complex',
            'get_node_local_rank', 'ProcessGroupGloo', 'register_rendezvous_handler', 'rendezvous',
            'breakpoint', 'record_comm', 'DeviceMesh', 'init_device_mesh', 'GroupName',
            'RankType', 'timedelta', 'Future']


def __getattr__(name):
    # DDP's hook argument type lives with DDP (ember.nn.parallel); loaded on first use
    if name == 'GradBucket':
        from ..nn.parallel.distributed import GradBucket
        return GradBucket
    raise AttributeError(f"module 'ember.distributed' has no attribute '{name}'")
