"""The smaller names of ``torch.distributed``: per-collective option classes, debug levels,
backend queries, ``BackendConfig``, rendezvous handlers, ``breakpoint``, ``shrink_group``,
``record_comm`` and the ``ProcessGroupGloo`` name."""
import contextlib
import datetime as _dt
import enum
import logging
import os
import typing

from . import Backend, ReduceOp

log = logging.getLogger('ember.distributed')

GroupName = typing.NewType('GroupName', str)
GroupName.__doc__ = """The type of process-group names: a ``str`` at run time (a typing
``NewType``).

Example::

    >>> ember.distributed.GroupName('my_group')
    'my_group'
"""
RankType = int

_NO_TIMEOUT = _dt.timedelta(milliseconds=-1)


# ----------------------------------------------------------------------------- options
class _Options:
    __slots__ = ()
    _defaults = {}

    def __init__(self):
        for k, v in self._defaults.items():
            setattr(self, k, v() if callable(v) else v)

    def __repr__(self):
        inner = ', '.join(f'{k}={getattr(self, k)!r}' for k in self._defaults)
        return f'{type(self).__name__}({inner})'


def _options(name, doc, **fields):
    base = {'timeout': _NO_TIMEOUT, 'asyncOp': True}
    base.update(fields)
    doc += (" Attributes are set on an instance; ``timeout`` defaults to -1 ms (the "
            "group's timeout) and ``asyncOp`` to True.\n\nExample::\n\n"
            f"    >>> opts = ember.distributed.{name}()\n"
            "    >>> opts.asyncOp\n    True\n")
    return type(name, (_Options,), {'__slots__': tuple(base), '_defaults': base,
                                    '__doc__': doc, '__module__': __name__})


AllreduceOptions = _options(
    'AllreduceOptions', "Options of an all-reduce: ``reduceOp``, ``timeout``, ``asyncOp``.",
    reduceOp=lambda: ReduceOp(ReduceOp.SUM))
AllreduceCoalescedOptions = _options(
    'AllreduceCoalescedOptions', "Options of a coalesced all-reduce: ``reduceOp``, ``timeout``.",
    reduceOp=lambda: ReduceOp(ReduceOp.SUM))
BroadcastOptions = _options(
    'BroadcastOptions', "Options of a broadcast: ``rootRank``, ``rootTensor``, ``timeout``.",
    rootRank=0, rootTensor=0)
ReduceOptions = _options(
    'ReduceOptions', "Options of a reduce: ``reduceOp``, ``rootRank``, ``rootTensor``, ``timeout``.",
    reduceOp=lambda: ReduceOp(ReduceOp.SUM), rootRank=0, rootTensor=0)
AllToAllOptions = _options('AllToAllOptions', "Options of an all-to-all: ``timeout``.")
BarrierOptions = _options('BarrierOptions',
                          "Options of a barrier: ``device_ids``, ``device``, ``timeout``.",
                          device_ids=lambda: [], device=None)
GatherOptions = _options('GatherOptions', "Options of a gather: ``rootRank``, ``timeout``.",
                         rootRank=0)
ScatterOptions = _options('ScatterOptions', "Options of a scatter: ``rootRank``, ``timeout``.",
                          rootRank=0)
ReduceScatterOptions = _options('ReduceScatterOptions',
                                "Options of a reduce-scatter: ``reduceOp``, ``timeout``.",
                                reduceOp=lambda: ReduceOp(ReduceOp.SUM))


# ----------------------------------------------------------------------------- debug level
class DebugLevel(enum.Enum):
    """How much the distributed package checks and logs: ``OFF``, ``INFO``, ``DETAIL``
    (set from ``TORCH_DISTRIBUTED_DEBUG``)."""
    OFF = 0
    INFO = 1
    DETAIL = 2

    def __str__(self):
        return f'DebugLevel.{self.name}'


_debug = {'level': DebugLevel.OFF}


def get_debug_level():
    """The current :class:`DebugLevel` (``OFF`` unless set by :func:`set_debug_level` or
    :func:`set_debug_level_from_env`).

    Example::

        >>> dist.get_debug_level()
        <DebugLevel.OFF: 0>
    """
    return _debug['level']


def set_debug_level(level):
    """Set the :class:`DebugLevel`.

    Example::

        >>> dist.set_debug_level(dist.DebugLevel.INFO)
    """
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): incompatible function arguments: {level!r}")
    _debug['level'] = level


def set_debug_level_from_env():
    """Set the :class:`DebugLevel` from the environment variable ``TORCH_DISTRIBUTED_DEBUG``
    (``OFF``, ``INFO`` or ``DETAIL``, any case; unset means ``OFF``). Another value raises
    ``ValueError``.

    Example::

        >>> import os
        >>> os.environ['TORCH_DISTRIBUTED_DEBUG'] = 'info'
        >>> dist.set_debug_level_from_env()
        >>> str(dist.get_debug_level())
        'DebugLevel.INFO'
    """
    v = os.environ.get('TORCH_DISTRIBUTED_DEBUG', 'OFF').upper()
    if v not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    _debug['level'] = DebugLevel[v]


class BuiltinCommHookType(enum.Enum):
    """The built-in DDP communication hooks: ``ALLREDUCE``, ``FP16_COMPRESS``."""
    ALLREDUCE = 1
    FP16_COMPRESS = 2


# ----------------------------------------------------------------------------- backends
class BackendConfig:
    """The backend used for each device type, parsed from a backend string: ``'gloo'``
    (gloo for every device), ``'cpu:gloo,cuda:nccl'``...

    Example::

        >>> dist.BackendConfig('cpu:gloo,cuda:nccl').get_device_backend_map()
        {'cpu': 'gloo', 'cuda': 'nccl'}
    """

    def __init__(self, backend):
        b = str(backend).lower()
        self.device_backend_map = {}
        if b == Backend.UNDEFINED:
            from .. import cuda
            self.device_backend_map = {'cpu': Backend.GLOO}
            if cuda.is_available():
                self.device_backend_map['cuda'] = Backend.NCCL
        elif ':' not in b:
            name = Backend(b)
            self.device_backend_map = {'cpu': name, 'cuda': name}
        else:
            for part in b.split(','):
                if ':' not in part:
                    raise ValueError(f"Invalid backend string argument: {backend}: expected "
                                     "'<device>:<backend>' pairs separated by ','")
                dev, name = (x.strip() for x in part.split(':', 1))
                self.device_backend_map[dev] = Backend(name)

    def get_device_backend_map(self):
        """``{device type: backend name}``."""
        return dict(self.device_backend_map)

    def __repr__(self):
        return ','.join(f'{d}:{b}' for d, b in self.device_backend_map.items())


def is_backend_available(backend):
    """Whether ``backend`` can be used here: ``'gloo'`` and ``'mpi'`` when mpi4py is
    installed, nothing else. A ``'cpu:gloo,cuda:nccl'`` string is available when each of
    its backends is.

    NOTE: unlike PyTorch, 'gloo' runs on MPI in ember.

    Args:
        backend (str): a backend name or a device-to-backend string.

    Example::

        >>> dist.is_backend_available('gloo')   # with mpi4py installed
        True
        >>> dist.is_backend_available('nccl')
        False
    """
    from . import is_mpi_available
    if ':' in backend:
        return all(is_backend_available(str(b))
                   for b in BackendConfig(backend).get_device_backend_map().values())
    return Backend(backend) in (Backend.GLOO, Backend.MPI) and is_mpi_available()


def get_default_backend_for_device(device):
    """The default backend of a device type ('cpu' -> 'gloo', 'cuda' -> 'nccl').

    Example::

        >>> dist.get_default_backend_for_device('cpu')
        'gloo'
    """
    from .. import device as _device
    t = device.type if isinstance(device, _device) else _device(device).type
    b = Backend.default_device_backend_map.get(t)
    if b is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return b


def supports_complex(reduceOp):
    """Whether reductions with ``reduceOp`` are defined on complex tensors: True for
    ``SUM``, ``AVG`` and ``PREMUL_SUM``, False for ``MAX``, ``MIN``, ``PRODUCT`` and the
    bitwise ops.

    Args:
        reduceOp (ReduceOp): the reduction.

    Example::

        >>> dist.supports_complex(dist.ReduceOp.SUM)
        True
        >>> dist.supports_complex(dist.ReduceOp.MAX)
        False
    """
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)


def get_node_local_rank(fallback_rank=None):
    """This process's rank among the processes of its machine: the ``LOCAL_RANK``
    environment variable (which launchers set), else ``fallback_rank``; with neither, it
    raises ``RuntimeError``.

    Args:
        fallback_rank (int, optional): the rank to use when ``LOCAL_RANK`` is not set.

    Example::

        >>> dist.get_node_local_rank(fallback_rank=0)   # LOCAL_RANK not set
        0
    """
    if 'LOCAL_RANK' in os.environ:
        return int(os.environ['LOCAL_RANK'])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
        "and want the code to run locally instead.")


class ProcessGroupGloo:
    """The name of PyTorch's gloo backend class, with its nested ``Options`` and
    ``Device`` classes and the ``create_device``/``create_default_device`` helpers.

    NOTE: unlike PyTorch, ember's 'gloo' groups are :class:`ProcessGroup` objects over MPI:
    this class cannot be instantiated (it raises ``RuntimeError``); make groups with
    :func:`init_process_group` or :func:`new_group`.

    Example::

        >>> dev = dist.ProcessGroupGloo.create_device(hostname='localhost')
        >>> dev.hostname
        'localhost'
        >>> opts = dist.ProcessGroupGloo.Options()
        >>> opts.threads
        2
    """

    class Options:
        """Options of a gloo group: ``timeout``, ``devices``, ``threads``."""

        def __init__(self, timeout=_dt.timedelta(minutes=30)):
            self._timeout = timeout
            self.devices = []
            self.threads = 2

    class Device:
        """A network device (a host name or interface)."""

        def __init__(self, hostname='', interface=''):
            self.hostname, self.interface = hostname, interface

    @staticmethod
    def create_device(hostname='', interface='', lazy_init=None):
        """A :class:`Device` for ``hostname`` or ``interface``."""
        return ProcessGroupGloo.Device(hostname, interface)

    @staticmethod
    def create_default_device(lazy_init=None):
        """The default :class:`Device` (this host)."""
        import socket
        return ProcessGroupGloo.Device(socket.gethostname(), '')

    def __init__(self, *args, **kwargs):
        raise RuntimeError("ProcessGroupGloo cannot be constructed directly in ember: use "
                           "init_process_group('gloo') or new_group()")


# ----------------------------------------------------------------------------- rendezvous
_handlers = {}


def register_rendezvous_handler(scheme, handler):
    """Register ``handler`` for the URLs ``scheme://...`` given to :func:`rendezvous` (and
    to ``init_process_group(init_method=...)``). The handler is called as
    ``handler(url, **kwargs)`` and yields ``(store, rank, world_size)`` tuples.
    Registering a scheme twice raises ``RuntimeError``.

    Args:
        scheme (str): the URL scheme, without ``://``.
        handler (callable): the generator function described above.

    Example::

        >>> def my_handler(url, **kwargs):
        ...     yield dist.HashStore(), 0, 1
        >>> dist.register_rendezvous_handler('mine', my_handler)
        >>> store, rank, world_size = next(dist.rendezvous('mine://'))
    """
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _query(url):
    from urllib.parse import parse_qs, urlparse
    u = urlparse(url)
    q = {k: v[-1] for k, v in parse_qs(u.query).items()}
    return u, q


def _rank_size(q, rank, world_size):
    rank = int(q.get('rank', rank))
    world_size = int(q.get('world_size', world_size))
    return rank, world_size


def _tcp_handler(url, timeout=_dt.timedelta(minutes=30), **kw):
    from ._store import TCPStore
    u, q = _query(url)
    rank, ws = _rank_size(q, kw.get('rank', -1), kw.get('world_size', -1))
    if rank < 0 or ws < 0:
        raise ValueError("rank and world_size must be given in the tcp:// URL query or as "
                         "arguments")
    store = TCPStore(u.hostname, u.port, ws, rank == 0, timeout)
    yield store, rank, ws
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _env_handler(url, timeout=_dt.timedelta(minutes=30), **kw):
    from ._store import TCPStore
    u, q = _query(url)

    def env(name, given):
        if given is not None and given >= 0:
            return given
        v = os.environ.get(name)
        if v is None:
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                             f"environment variable {name} expected, but not set")
        return v
    rank = int(q.get('rank', env('RANK', kw.get('rank', -1))))
    ws = int(q.get('world_size', env('WORLD_SIZE', kw.get('world_size', -1))))
    host = env('MASTER_ADDR', None)
    port = int(env('MASTER_PORT', None))
    store = TCPStore(host, port, ws, rank == 0, timeout)
    yield store, rank, ws
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


def _file_handler(url, **kw):
    from ._store import FileStore
    u, q = _query(url)
    rank, ws = _rank_size(q, kw.get('rank', -1), kw.get('world_size', -1))
    store = FileStore(u.path, ws)
    yield store, rank, ws
    raise RuntimeError("Unable to perform re-rendezvous using file:// method")


_handlers.update({'tcp': _tcp_handler, 'env': _env_handler, 'file': _file_handler})


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """The rendezvous of ``url`` (``tcp://host:port``, ``env://``, ``file://path`` or a
    registered scheme): an iterator yielding ``(store, rank, world_size)``.

    Example::

        >>> store, rank, world_size = next(dist.rendezvous('tcp://127.0.0.1:29500?rank=0&world_size=1'))
    """
    if not isinstance(url, str):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, int):
        raise RuntimeError(f"`rank` must be an integer. {rank}")
    if not isinstance(world_size, int):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")
    scheme = url.split('://', 1)[0] if '://' in url else ''
    if scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    if rank != -1 or world_size != -1:
        sep = '&' if '?' in url else '?'
        extra = []
        if rank != -1:
            extra.append(f'rank={rank}')
        if world_size != -1:
            extra.append(f'world_size={world_size}')
        url = url + sep + '&'.join(extra)
    return _handlers[scheme](url, **kwargs)


# ----------------------------------------------------------------------------- misc
_bp_counts = {}


def breakpoint(rank=0, skip=0, timeout_s=3600):
    """Stop in the debugger on rank ``rank`` only; the other ranks wait at a barrier until
    it continues. ``skip``: let the first ``skip`` calls from this place pass.

    Example::

        >>> dist.breakpoint(rank=0)
    """
    import sys
    import traceback
    from .distributed_c10d import barrier, get_rank
    if skip > 0:
        key = ''.join(traceback.format_stack(limit=3)[:-1])
        n = _bp_counts.get(key, 0) + 1
        _bp_counts[key] = n
        if n <= skip:
            log.warning("Skip the breakpoint, counter=%d", n)
            return
    if get_rank() == rank:
        import pdb

        class _TtyPdb(pdb.Pdb):
            def interaction(self, *a, **k):
                stdin = sys.stdin
                try:
                    sys.stdin = open('/dev/stdin')
                except OSError:
                    pass
                try:
                    super().interaction(*a, **k)
                finally:
                    sys.stdin = stdin
        p = _TtyPdb()
        p.message(f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                  f"dist.breakpoint(rank={rank})\n")
        p.set_trace(sys._getframe(1))
    barrier()


_comm_names = []


@contextlib.contextmanager
def record_comm(name):
    """Context manager that labels the collectives issued inside the block with ``name``
    (for profiling).

    NOTE: unlike PyTorch, the label is kept for ember's own bookkeeping only; no profiler
    record is made.

    Args:
        name (str): the label.

    Example::

        >>> with dist.record_comm('grad_sync'):
        ...     pass   # collectives issued here carry the label
    """
    _comm_names.append(name)
    try:
        yield
    finally:
        _comm_names.pop()
