"""Process groups and collectives on MPI (mpi4py over the ``mpich`` wheel).

``init_process_group`` forms one MPI ``COMM_WORLD`` however the ranks were started: by
``mpiexec``, or independently (env:// or ``tcp://host:port``: rank 0 serves ember's PMI-1
rendezvous at MASTER_ADDR:MASTER_PORT from a helper process; ``store=``/``file://``: rank 0
serves it on a free port and publishes the address in the store). Each process group is an
MPI communicator; collectives run MPI's blocking calls, or its nonblocking ones
(``Iallreduce``, ``Ibcast``, ...) behind a :class:`Work` when ``async_op=True``.

Tensors of every dtype take part: MPI's own types where it has them, bool as bytes (SUM is
OR, PRODUCT is AND, as PyTorch), float16/bfloat16 reduced in float32, complex as pairs of
reals; data movement (broadcast, gather, scatter, all_to_all, send/recv) is done on bytes.

Failures end in an error, not a hang: a rank that never arrives makes ``init_process_group``
raise ``DistStoreError`` within ``timeout`` (the ranks first meet on the rendezvous server);
collectives are MPI's nonblocking calls waited for by polling, so they raise
``DistBackendError`` after the group's timeout, or as soon as the rendezvous server reports
that a rank's process died (it watches each rank's PMI connection); ``all_reduce`` checks
by default that every rank passes the same shape and dtype (all ranks raise, naming each
rank's, on a mismatch); with ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` every mismatched collective
raises on every rank.

NOTE: unlike PyTorch, only CPU tensors are supported for now (CUDA tensors will go through
NCCL via CuPy: a second kind of communicator behind the same ``ProcessGroup``).
"""
import io
import os
import socket
import subprocess
import sys
import time
import warnings

import numpy as np

from . import (Backend, DistBackendError, DistNetworkError, GroupMember, ReduceOp, _NOT_INIT,
               default_pg_timeout, group as _group_ns)
from ._work import Work, _peer as _peer_state, _wait_all
from ._extras import _debug, DebugLevel

_state = {'world': None, 'backend': None, 'server': None, 'store': None, 'count': 0,
          'groups': {}, 'timeout': None}


# ----------------------------------------------------------------------------- groups
class ProcessGroup:
    """A set of ranks that run collectives together (an MPI communicator).

    ``rank()`` is this process's rank in the group, ``size()`` the number of ranks;
    :func:`get_process_group_ranks` gives the global ranks in group-rank order.

    Example::

        >>> g = dist.new_group([0, 1])
        >>> g.rank(), g.size()
        (0, 2)
    """

    def __init__(self, comm, ranks, backend, name, desc='', timeout=None):
        self._comm = comm
        self._ctl = comm.Dup()          # control traffic (object sizes, monitored barrier)
        self._ranks = list(ranks)
        self._g2l = {g: i for i, g in enumerate(self._ranks)}
        self._backend = backend
        self._name = name
        self._desc = desc
        self._timeout = timeout
        self._timeout_s = None if timeout is None else timeout.total_seconds()
        self.bound_device_id = None

    def rank(self):
        """This process's rank in the group."""
        return self._comm.Get_rank()

    def size(self):
        """The number of ranks in the group."""
        return len(self._ranks)

    def name(self):
        """The backend's name ('gloo' or 'mpi')."""
        return str(self._backend)

    @property
    def group_name(self):
        """The group's unique name ('0' for the default group)."""
        return self._name

    @property
    def group_desc(self):
        """The group's description."""
        return self._desc

    def _get_backend_name(self):
        return str(self._backend)

    # -- the group's own collective methods (PyTorch's ProcessGroup API): tensors come as a
    #    list (or one tensor), ranks are group ranks, and each returns a Work
    @staticmethod
    def _one(tensors):
        if isinstance(tensors, (list, tuple)):
            if len(tensors) != 1:
                raise RuntimeError("ProcessGroup: requires a single-element tensor list")
            return tensors[0]
        return tensors

    def allreduce(self, tensors, opts=None):
        """All-reduce (``opts``: ``AllreduceOptions`` or a ``ReduceOp``); returns a Work."""
        op = getattr(opts, 'reduceOp', opts) if opts is not None else ReduceOp.SUM
        return all_reduce(self._one(tensors), op, self, async_op=True)

    def broadcast(self, tensors, opts=None):
        """Broadcast from group rank ``opts.rootRank`` (or ``opts`` as an int); returns a Work."""
        root = getattr(opts, 'rootRank', opts) if opts is not None else 0
        return broadcast(self._one(tensors), group=self, async_op=True, group_src=root)

    def barrier(self, opts=None):
        """A barrier; returns a Work."""
        return barrier(self, async_op=True)

    def allgather(self, output_tensors, input_tensors, opts=None):
        """All-gather ``input_tensors[0]`` into ``output_tensors[0]``; returns a Work."""
        return all_gather(output_tensors[0], self._one(input_tensors), self, async_op=True)

    def send(self, tensors, dstRank, tag=0):
        """Send to group rank ``dstRank``; returns a Work."""
        return isend(self._one(tensors), group=self, tag=tag, group_dst=dstRank)

    def recv(self, tensors, srcRank, tag=0):
        """Receive from group rank ``srcRank``; returns a Work."""
        return irecv(self._one(tensors), group=self, tag=tag, group_src=srcRank)

    def __repr__(self):
        return f"<ember.distributed.ProcessGroup {self._name} ranks={self._ranks}>"


def _register(pg):
    _state['groups'][pg._name] = pg
    _state['count'] += 1
    return pg


def _world():
    w = _state['world']
    if w is None:
        raise ValueError(_NOT_INIT)
    return w


def _not_member(group):
    return group is not None and not isinstance(group, ProcessGroup) and \
        group == GroupMember.NON_GROUP_MEMBER


def _warn_not_in_group(op_name):
    w = _state['world']
    r = -1 if w is None else w.rank()
    warnings.warn(f"Running {op_name} on global rank {r} which does not belong to the given "
                  "group.", stacklevel=3)


def _pg(group, op_name):
    """The ProcessGroup a collective runs on, or None (after a warning) if this rank is not
    a member."""
    if _not_member(group):
        _world()
        _warn_not_in_group(op_name)
        return None
    if group is None:
        return _world()
    if not isinstance(group, ProcessGroup):
        raise ValueError(f"Expecting a ProcessGroup, but got a {type(group)}.")
    if group._comm is None:
        raise ValueError("Invalid process group specified or has been destroyed.")
    return group


def _group_rank(pg, global_rank, group_rank, what, op='broadcast'):
    """The group rank named by ``global_rank`` or ``group_rank`` (exactly one given)."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        r = group_rank
    else:
        if global_rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        r = get_group_rank(pg, global_rank)
    if not 0 <= r < pg.size():
        raise RuntimeError(f"ProcessGroupGloo::{op}: invalid root rank: {r}")
    return r


# ----------------------------------------------------------------------------- init
def _connect(host, port, timeout_s):
    end = time.monotonic() + timeout_s
    while True:
        try:
            return socket.create_connection((host, port), timeout=max(0.1, end - time.monotonic()))
        except OSError:
            if time.monotonic() >= end:
                raise DistNetworkError(
                    f"The client socket has timed out after {int(timeout_s * 1000)}ms while "
                    f"trying to connect to ({host}, {port}).") from None
            time.sleep(0.05)


def _launched_by_mpiexec():
    return any(k in os.environ for k in ('PMI_RANK', 'PMI_FD', 'PMI_PORT', 'HYDRA_CONTROL_FD'))


def _env_int(name):
    v = os.environ.get(name)
    if v is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return int(v)


def _start_pmi_server(host, port, world_size, tmo):
    srv = os.path.join(os.path.dirname(__file__), '_pmi_server.py')
    p = subprocess.Popen([sys.executable, srv, str(port), str(world_size), host, str(tmo)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    line = p.stdout.readline().split()
    if not line or line[0] != 'ready':
        raise DistNetworkError(f"The server socket has failed to listen on "
                               f"{host}:{port}: {p.stderr.read().strip()[-200:]}")
    _state['server'] = p
    return int(line[1]) if len(line) > 1 else port


def _readline(sock):
    buf = bytearray()
    while not buf.endswith(b'\n'):
        ch = sock.recv(1)
        if not ch:
            break
        buf += ch
    return buf.decode(errors='replace')


def _watch(mon):
    """The monitor thread: the rendezvous server says when a rank's process died."""
    try:
        while True:
            line = _readline(mon)
            if not line:
                return
            if 'cmd=ember_dead' in line:
                _peer_state["dead"] = ("Connection closed by peer: a rank's process exited before "
                                 "finalizing MPI")
    except OSError:
        return


def _mpi_join(host, port, rank, world_size, tmo):
    """Wait on the PMI server until every rank has arrived (DistStoreError after ``tmo``
    seconds otherwise), keep that connection as the death monitor, then connect the PMI
    socket and initialise MPI as rank ``rank`` of ``world_size``."""
    import threading
    mon = _connect(host, port, tmo)
    mon.sendall(f'cmd=ember_join rank={rank} timeout_ms={int(tmo * 1000)}\n'.encode())
    mon.settimeout(tmo + 10)
    try:
        line = _readline(mon)
    except socket.timeout:
        line = ''
    d = dict(w.split('=', 1) for w in line.split() if '=' in w)
    if d.get('rc') != '0':
        mon.close()
        from . import DistStoreError
        raise DistStoreError(f"Timed out after {int(tmo)} seconds waiting for clients. "
                             f"{d.get('joined', '?')}/{world_size} clients joined.")
    mon.settimeout(None)
    threading.Thread(target=_watch, args=(mon,), daemon=True, name='ember-pmi-monitor').start()
    _state['monitor'] = mon
    sk = _connect(host, port, tmo)
    sk.settimeout(None)   # MPICH needs a blocking fd
    fd = sk.detach()
    os.environ.update(PMI_FD=str(fd), PMI_RANK=str(rank), PMI_SIZE=str(world_size))
    try:
        from mpi4py import MPI
    finally:
        for k in ('PMI_FD', 'PMI_RANK', 'PMI_SIZE'):
            os.environ.pop(k, None)
    return MPI


def _mpi_if_up():
    m = sys.modules.get('mpi4py.MPI')
    if m is not None and m.Is_initialized() and not m.Is_finalized():
        return m
    return None


def _parse_backend(backend):
    be = Backend(str(backend or 'gloo'))
    if ':' in be:
        pairs = {}
        for p in be.split(','):
            if ':' not in p:
                raise ValueError(f"Invalid backend string {backend!r}: expected 'device:backend' "
                                 "pairs separated by ','")
            d, b = p.split(':', 1)
            pairs[d.strip()] = b.strip()
        be = Backend(pairs.get('cpu', 'gloo'))
    if be not in ('gloo', 'mpi'):
        raise RuntimeError(f"Distributed package doesn't have {str(be).upper()} built in")
    return be


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name='', pg_options=None, device_id=None):
    """Initialise the default process group.

    Ranks started by ``mpiexec`` join its world. Otherwise every rank connects to a PMI-1
    rendezvous served by rank 0 (in a helper process) and the ranks form one MPI
    ``COMM_WORLD``: at MASTER_ADDR:MASTER_PORT for ``env://`` (the default), at ``host:port``
    for ``tcp://host:port``; with ``store=`` or ``file://path`` rank 0 serves it on a free
    port and publishes its address in the store.

    Args:
        backend (str): 'gloo' (NOTE: unlike PyTorch, runs on MPI) or 'mpi';
            'cpu:gloo,cuda:nccl' strings are parsed (the CPU entry is used).
        init_method (str): 'env://' (default), 'tcp://host:port' or 'file://path'.
        timeout (timedelta): how long to wait for the other ranks (default 30 minutes).
        world_size (int), rank (int): default from WORLD_SIZE / RANK.
        store (Store): a key-value store every rank can reach (excludes ``init_method``).
        group_name (str), pg_options, device_id: accepted for compatibility.

    Example::

        >>> dist.init_process_group('gloo', rank=rank, world_size=2)
    """
    if _state['world'] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if init_method is not None and store is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
    be = _parse_backend(backend)
    from ._extras import set_debug_level_from_env
    set_debug_level_from_env()
    tmo_td = timeout or default_pg_timeout
    tmo = tmo_td.total_seconds()
    MPI = _mpi_if_up()
    if MPI is not None or _launched_by_mpiexec():
        if MPI is None:
            from mpi4py import MPI
    else:
        if init_method and init_method.startswith('file://'):
            from ._store import FileStore
            if world_size <= 0:
                world_size = _env_int('WORLD_SIZE')
            if rank < 0:
                rank = _env_int('RANK')
            store = FileStore(init_method[7:], world_size)
        if store is not None:
            MPI = _join_through_store(store, rank, world_size, tmo)
        else:
            rank = rank if rank >= 0 else _env_int('RANK')
            world_size = world_size if world_size > 0 else _env_int('WORLD_SIZE')
            if init_method and init_method.startswith('tcp://'):
                host, port = init_method[6:].rsplit(':', 1)
                host = host.strip('[]')
            elif init_method and not init_method.startswith('env://'):
                raise ValueError(f"No rendezvous handler for {init_method.split('://')[0]}://")
            else:
                host = os.environ.get('MASTER_ADDR') or _env_int('MASTER_ADDR')
                port = os.environ.get('MASTER_PORT') or _env_int('MASTER_PORT')
            port = int(port)
            if rank == 0 and not os.environ.get('TORCHELASTIC_USE_AGENT_STORE'):
                _start_pmi_server(host, port, world_size, tmo)
            MPI = _mpi_join(host, port, rank, world_size, tmo)
    cw = MPI.COMM_WORLD
    if world_size > 0 and cw.Get_size() != world_size or rank >= 0 and cw.Get_rank() != rank:
        raise ValueError(f"init_process_group: rank {rank} / world_size {world_size} do not match "
                         f"the MPI world (rank {cw.Get_rank()} of {cw.Get_size()})")
    _state['backend'] = be
    _state['timeout'] = tmo_td
    _state['store'] = store
    _state['count'] = 0
    _state['groups'] = {}
    w = _register(ProcessGroup(cw.Dup(), range(cw.Get_size()), be, '0', 'default_pg', tmo_td))
    _state['world'] = w
    GroupMember.WORLD = _group_ns.WORLD = w
    if device_id is not None:
        w.bound_device_id = device_id


def _join_through_store(store, rank, world_size, tmo):
    """Rank 0 starts the PMI server on a free port and publishes it in ``store``; every rank
    reads it and reports back, and rank 0 joins MPI only once all have (its MPI init holds
    the GIL, so a store served by a thread of rank 0 must not be needed after that)."""
    from . import PrefixStore
    st = PrefixStore('ember_pmi', store)
    if rank == 0:
        # the PMI server runs next to the store's server when that is a TCPStore here
        base = store
        while getattr(base, 'underlying_store', None) is not None:
            base = base.underlying_store
        host = os.environ.get('MASTER_ADDR') or getattr(base, 'host', None) or '127.0.0.1'
        port = _start_pmi_server(host, 0, world_size, tmo)
        st.set('addr', f'{host}:{port}')
    addr = st.get('addr').decode()
    n = st.add('joined', 1)
    if rank == 0:
        end = time.monotonic() + tmo
        while n < world_size:
            if time.monotonic() > end:
                from . import DistStoreError
                raise DistStoreError(f"Timed out after {int(tmo)} seconds waiting for "
                                     f"{world_size - n} ranks to join")
            time.sleep(0.005)
            n = st.add('joined', 0)
    host, port = addr.rsplit(':', 1)
    return _mpi_join(host, int(port), rank, world_size, tmo)


def destroy_process_group(group=None):
    """Destroy ``group``, or every group (and the default one) when ``group`` is None.

    Args:
        group (ProcessGroup, optional): the group to destroy.

    Example::

        >>> dist.destroy_process_group()

    NOTE: unlike PyTorch, MPI itself stays up until the process exits; a later
    ``init_process_group`` reuses it (same ranks and world size).
    """
    w = _world()
    if group is None or group is w:
        for pg in list(_state['groups'].values()):
            pg._comm = None
        _state['groups'] = {}
        _state['world'] = None
        _state['store'] = None
        GroupMember.WORLD = _group_ns.WORLD = None
        return
    if _not_member(group):
        return
    if not isinstance(group, ProcessGroup) or group._name not in _state['groups']:
        raise ValueError("Invalid process group specified")
    del _state['groups'][group._name]
    group._comm = None


def is_initialized():
    """Whether the default process group is initialised.

    Example::

        >>> dist.is_initialized()
        False
    """
    return _state['world'] is not None


def _default_or(group):
    if group is None:
        return _world()
    if _not_member(group):
        return None
    if not isinstance(group, ProcessGroup):
        raise ValueError(f"Expecting a ProcessGroup, but got a {type(group)}.")
    return group


def get_rank(group=None):
    """This process's rank in ``group`` (the default group if None); -1 if not a member.

    Args:
        group (ProcessGroup, optional): the group.

    Example::

        >>> dist.get_rank()
        0
    """
    _world()
    pg = _default_or(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    """The number of ranks in ``group`` (the default group if None); -1 if not a member.

    Args:
        group (ProcessGroup, optional): the group.

    Example::

        >>> dist.get_world_size()
        2
    """
    _world()
    pg = _default_or(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    """The backend name of ``group`` ('gloo' or 'mpi').

    Args:
        group (ProcessGroup, optional): the group (the default group if None).

    Example::

        >>> dist.get_backend()
        'gloo'
    """
    _world()
    if _not_member(group):
        raise ValueError("Invalid process group specified")
    pg = _default_or(group)
    return pg._backend


def get_backend_config(group=None):
    """The backend configuration string of ``group``, ``'cpu:<backend>'``.

    Args:
        group (ProcessGroup, optional): the group (the default group if None).

    Example::

        >>> dist.get_backend_config()   # in a group made with init_process_group('gloo')
        'cpu:gloo'
    """
    return f"cpu:{get_backend(group)}"


def get_pg_count():
    """The number of process groups created so far in this process, the default group
    included.

    Example::

        >>> dist.get_pg_count()   # after init_process_group alone
        1
    """
    return _state['count']


def get_process_group_ranks(group):
    """The global ranks of ``group`` (the default group if None), in group-rank order.

    Args:
        group (ProcessGroup): the group.

    Example::

        >>> dist.get_process_group_ranks(dist.new_group([3, 1]))
        [1, 3]
    """
    pg = _default_or(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return list(pg._ranks)


def get_group_rank(group, global_rank):
    """The rank in ``group`` of global rank ``global_rank`` (ValueError if not a member).

    Args:
        group (ProcessGroup): the group.
        global_rank (int): a global rank.

    Example::

        >>> dist.get_group_rank(dist.new_group([1, 3]), 3)
        1
    """
    if group is None or group is _state['world']:
        return global_rank
    if _not_member(group):
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    if not isinstance(group, ProcessGroup) or group._name not in _state['groups']:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "torch.distributed.new_group API")
    r = group._g2l.get(global_rank)
    if r is None:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return r


def get_global_rank(group, group_rank):
    """The global rank of rank ``group_rank`` of ``group`` (ValueError if out of range).

    Args:
        group (ProcessGroup): the group.
        group_rank (int): a rank in the group.

    Example::

        >>> dist.get_global_rank(dist.new_group([1, 3]), 0)
        1
    """
    if group is None or group is _state['world']:
        return group_rank
    if _not_member(group):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    if not isinstance(group, ProcessGroup) or group._name not in _state['groups']:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "torch.distributed.new_group API")
    if not 0 <= group_rank < len(group._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return group._ranks[group_rank]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """Create a process group of the global ranks ``ranks`` (all ranks if None).

    Every rank of the default group calls it, in the same order (members and others); a
    rank outside ``ranks`` gets ``GroupMember.NON_GROUP_MEMBER``, and collectives on that
    group do nothing there (with a warning). Group ranks follow the sorted global ranks.

    Args:
        ranks (list[int]): the members' global ranks.
        timeout, backend, pg_options, group_desc, device_id: as PyTorch.
        use_local_synchronization (bool): only the members call it.
        sort_ranks (bool): sort ``ranks`` first (the group-rank order).

    Example::

        >>> g = dist.new_group([0, 1])
        >>> dist.all_reduce(t, group=g)
    """
    w = _world()
    be = _parse_backend(backend) if backend else _state['backend']
    if use_local_synchronization and be == Backend.MPI:
        raise ValueError("MPI backend doesn't support use_local_synchronization=True")
    n = w.size()
    if ranks is None:
        ranks = list(range(n))
    else:
        ranks = list(ranks)
        if sort_ranks:
            ranks = sorted(ranks)
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
        if len(ranks) > n:
            raise ValueError("the new group's world size should be less or equal to the world "
                             "size set by init_process_group")
        for r in ranks:
            if r < 0 or r >= n:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {n - 1} "
                                 f"(world_size={n})")
    me = w.rank()
    if use_local_synchronization and me not in ranks:
        return None            # only the members take part (and count the group)
    name = str(_state['count'])
    _state['count'] += 1       # every rank counts every group, members or not
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    wc = w._comm
    grp = wc.Get_group().Incl(ranks)
    comm = wc.Create_group(grp)   # ordered by the members' program order
    grp.Free()
    pg = ProcessGroup(comm, ranks, be, name, group_desc or 'undefined', timeout or _state['timeout'])
    _state['groups'][name] = pg
    return pg


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """Split ``group`` (the default group if None) into consecutive subgroups of
    ``group_size`` ranks; returns (this rank's subgroup, all subgroups).

    Example::

        >>> cur, subgroups = dist.new_subgroups(group_size=2)
    """
    if group_size is None:
        raise ValueError("Default group size only takes effect when CUDA is available.If your "
                         "subgroup using a backend that does not depend on CUDA,please pass in "
                         "'group_size' correctly.")
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    ws = get_world_size(group)
    if ws < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({ws})")
    if ws % group_size != 0:
        raise ValueError(f"The world size ({ws}) must be divisible by 'group_size={group_size}'")
    ranks = get_process_group_ranks(group)
    lists = [ranks[i:i + group_size] for i in range(0, ws, group_size)]
    return new_subgroups_by_enumeration(lists, timeout, backend, pg_options, group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None,
                                 pg_options=None, group_desc=None):
    """Create one subgroup per list of global ranks; returns (this rank's subgroup or None,
    all subgroups). The lists must not overlap.

    Example::

        >>> cur, subgroups = dist.new_subgroups_by_enumeration([[0, 2], [1, 3]])
    """
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    seen = {}
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {seen[r]} and {ranks}")
            seen[r] = ranks
    subgroups, cur = [], None
    me = get_rank()
    for ranks in ranks_per_subgroup_list:
        g = new_group(ranks, timeout=timeout, backend=backend, pg_options=pg_options,
                      group_desc=group_desc)
        subgroups.append(g)
        if me in ranks:
            cur = g
    return cur, subgroups


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None,
                group_desc=None, backend=None):
    """Split ``parent_pg`` into the disjoint groups ``split_ranks`` (lists of global ranks);
    returns the group this rank belongs to (None if in none).

    Example::

        >>> g = dist.split_group(split_ranks=[[0, 1], [2, 3]])
    """
    if not split_ranks:
        raise ValueError("split_ranks cannot be None or empty")
    parent = parent_pg or _world()
    me = get_rank()
    mine = None
    for ranks in split_ranks:
        if len(ranks) == 0:
            raise ValueError("the split group cannot be empty")
        if len(set(ranks)) != len(ranks):
            raise ValueError("the split group cannot have duplicate ranks")
        if me in ranks:
            mine = sorted(ranks)
    color = split_ranks.index(next(r for r in split_ranks if me in r)) if mine else None
    from mpi4py import MPI
    comm = parent._comm.Split(MPI.UNDEFINED if color is None else color,
                              mine.index(me) if mine else 0)
    name = str(_state['count'])
    _state['count'] += 1
    if mine is None:
        return None
    pg = ProcessGroup(comm, mine, Backend(backend) if backend else parent._backend, name,
                      group_desc or 'undefined', timeout or _state['timeout'])
    _state['groups'][name] = pg
    return pg


# ----------------------------------------------------------------------------- checks
_TENSOR = []


def _tensor_type():
    if not _TENSOR:
        from .. import Tensor
        _TENSOR.append(Tensor)
    return _TENSOR[0]


def _check_single_tensor(param, name):
    if not isinstance(param, _TENSOR[0] if _TENSOR else _tensor_type()):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(param)} instead.")


def _check_tensor_list(param, name):
    from .. import Tensor
    if not isinstance(param, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(param)} instead.")
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(param)} with elements "
                        f"of type {[type(p) for p in param]}.")


def _same_dtype(*groups):
    last = None
    for g in groups:
        for t in (g if isinstance(g, list) else [g]):
            d = t.dtype
            if d.is_complex:
                d = t.dtype.to_real()
            if last is None:
                last = d
            elif last != d:
                raise ValueError("Invalid usage of tensors with different dtypesFound "
                                 f"{last} and  {t.dtype}")


# ----------------------------------------------------------------------------- buffers
def _flat(a):
    """A contiguous array as a flat uint8 view (what MPI moves for data-movement ops)."""
    return a.reshape(-1).view(np.uint8)


def _contig(a):
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _put(dst, src):
    """Write ``src`` (contiguous, same size) into ``dst`` unless it is ``dst``'s memory."""
    if src.dtype != dst.dtype:
        src = src.astype(dst.dtype)
    elif dst.flags.c_contiguous and src.size and np.may_share_memory(dst, src):
        return
    dst[...] = src.reshape(dst.shape)


def _is_half(dt):
    return dt.itemsize == 2 and dt.kind in 'fV'      # float16, or ml_dtypes' bfloat16


def _op_parts(op):
    if op.__class__ is _RED_OP_TYPE:
        return op, None
    if isinstance(op, ReduceOp):
        return op.op, op._factor
    if isinstance(op, ReduceOp.RedOpType):
        return op, None
    raise TypeError(f"Invalid reduce op: {op!r}")


_MPI_OPS = None


def _mpi_op(o):
    global _MPI_OPS
    if _MPI_OPS is None:
        from mpi4py import MPI
        _MPI_OPS = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PREMUL_SUM: MPI.SUM,
                    ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX,
                    ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR,
                    'bool': {ReduceOp.SUM: MPI.MAX, ReduceOp.AVG: MPI.MAX,
                             ReduceOp.PREMUL_SUM: MPI.MAX, ReduceOp.PRODUCT: MPI.MIN,
                             ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX,
                             ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR,
                             ReduceOp.BXOR: MPI.BXOR}}
    return _MPI_OPS


def _check_op(a, op, fname):
    """Validate ``op`` for an array of ``a``'s dtype, before anything is sent."""
    o, factor = _op_parts(op)
    if o is ReduceOp.UNUSED:
        raise ValueError(f"{fname}: invalid reduce op {o}")
    if a.dtype.kind == 'c' and o not in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PREMUL_SUM):
        raise ValueError(f"{fname} does not support {o} on complex tensors")
    if o in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and a.dtype.kind not in 'biu':
        raise RuntimeError(f"Cannot use ReduceOp.{o.name} with non-integral dtype")
    if o is ReduceOp.PREMUL_SUM and factor is None:
        raise ValueError("PREMUL_SUM needs a factor: use _make_nccl_premul_sum(factor)")
    return o, factor


def _to_work(a, o, factor, may_alias):
    """The flat, contiguous, MPI-typed array reduced for ``a`` (``a``'s memory itself when
    ``may_alias`` and nothing has to change)."""
    dt = a.dtype
    if factor is not None:
        f = factor._data if hasattr(factor, '_data') else factor
        a = np.multiply(a, f).astype(dt, copy=False)
        may_alias = True
    if _is_half(dt):
        return a.astype(np.float32).reshape(-1)
    c = _contig(a) if may_alias else np.array(a, order='C')
    if dt.kind == 'b':
        return c.reshape(-1).view(np.uint8)
    if dt.kind == 'c':
        return c.reshape(-1).view(np.float32 if dt.itemsize == 8 else np.float64)
    return c.reshape(-1)


def _from_work(w, dst, o, n):
    """Finish a reduction: AVG divides by ``n``; the result is written into ``dst``."""
    if o is ReduceOp.AVG and dst.dtype.kind != 'b':
        if w.dtype.kind == 'f':
            w /= n
        else:
            q = np.abs(w) // n
            w[...] = np.where(w < 0, -q, q)
    dt = dst.dtype
    if dt.kind == 'b':
        w = w.view(np.bool_)
    elif dt.kind == 'c':
        w = w.view(dt)
    _put(dst, w)


def _mpi_red(dt, o):
    ops = _mpi_op(o)
    return ops['bool'][o] if dt.kind == 'b' else ops[o]


def _run(pg, async_op, call, fin, result, name, future_value=None):
    """Run a collective: ``call(True)`` issues MPI's nonblocking call(s) and returns the
    request(s), ``fin()`` finishes (copies back, divides...). ``async_op`` returns a Work;
    otherwise the requests are waited for by polling, bounded by the group's timeout and
    failing when a peer died (:func:`_wait_all`), where a blocking MPI call could hang."""
    try:
        req = call(True)
    except Exception as e:    # an MPI error (mpi4py.MPI.Exception)
        raise DistBackendError(f"[Rank {pg.rank()}] {name} failed: {e}") from None
    reqs = req if isinstance(req, list) else [req]
    if async_op:
        return Work(reqs, (lambda w: fin()) if fin is not None else None, result, name,
                    future_value, pg._timeout_s, pg._comm.Get_rank())
    _wait_all(reqs, None, pg._timeout_s, name, pg.rank())
    if fin is not None:
        fin()
    return None


def _check_same_collective(pg, op, tensor=None):
    """With ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` (:func:`set_debug_level`): every rank of
    ``pg`` compares what it is about to run (operation, shape, dtype) with the others and
    all raise ``RuntimeError`` on a mismatch, instead of a hang or garbage."""
    pg._seq = getattr(pg, '_seq', 0) + 1
    fp = f"SequenceNumber={pg._seq}, OpType={op}"
    if tensor is not None:
        fp += f", TensorShape={list(tensor.shape)}, TensorDtypes={tensor.dtype}"
    me = pg.rank()
    for k, other in enumerate(_allgather_strings(pg, op, fp)):
        if other != fp:
            raise RuntimeError(
                f"Detected mismatch between collectives on ranks. Rank {me} is running "
                f"collective: CollectiveFingerPrint({fp}), but Rank {k} is running collective: "
                f"CollectiveFingerPrint({other}).")


def _allgather_strings(pg, name, text):
    """Every rank's ``text``, in group-rank order (on the control communicator)."""
    data = np.frombuffer(text.encode(), np.uint8)
    c, n = _Polling(pg, name), pg.size()
    sizes = _allgather_sizes(c, data.size)
    buf = np.empty(sum(sizes), np.uint8)
    from mpi4py import MPI
    displ = [sum(sizes[:i]) for i in range(n)]
    c.Allgatherv(data, [buf, (sizes, displ), MPI.BYTE])
    return [buf[displ[k]:displ[k] + sizes[k]].tobytes().decode() for k in range(n)]


# all_reduce first checks that every rank passes the same shape and dtype (one 16-byte
# all-reduce on the group's control communicator); bench/bench_dtensor.py measures its cost
_PEER_CHECK = [True]
_FP_CACHE = {}
_ABANDONED = []


def _check_peers(pg, name, tensor, a, late=None):
    """Every rank of ``pg`` compares the shape and dtype of ``a`` with the others' (a MAX
    all-reduce of ``[fp, -fp]`` of a fingerprint ``fp``: equal on all ranks iff max == min);
    on a mismatch all ranks exchange their shapes and dtypes and raise ``RuntimeError``
    naming each rank's, instead of reducing garbage."""
    key = (a.shape, a.dtype.str)
    fp = _FP_CACHE.get(key)
    if fp is None:
        import zlib
        fp = zlib.crc32(repr(key).encode()) + 1
        if len(_FP_CACHE) < 4096:
            _FP_CACHE[key] = fp
    buf = np.array([fp, -fp], np.int64)
    try:
        _wait_all([pg._ctl.Iallreduce(_IN_PLACE(), buf, _mpi_op(ReduceOp.MAX)[ReduceOp.MAX])],
                  None, pg._timeout_s, name, pg.rank())
    except DistBackendError:
        if late is not None:
            try:
                _ABANDONED.append(late())
                del _ABANDONED[:-64]
            except Exception:
                pass
        raise
    if buf[0] == -buf[1]:
        return
    descs = _allgather_strings(pg, name, f"shape {list(a.shape)} and dtype {tensor.dtype}")
    raise RuntimeError(f"{name}: the tensors passed by the ranks of the group do not match: "
                       + ", ".join(f"rank {k} has {d}" for k, d in enumerate(descs)))


_RED_OP_TYPE = ReduceOp.RedOpType
_IN_PLACE_CACHE = []


def _IN_PLACE():
    if not _IN_PLACE_CACHE:
        from mpi4py import MPI
        _IN_PLACE_CACHE.append(MPI.IN_PLACE)
    return _IN_PLACE_CACHE[0]


# ----------------------------------------------------------------------------- collectives
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across all ranks of ``group``; every rank gets the result in place.

    Args:
        tensor (Tensor): input and output (any dtype, contiguous or not).
        op (ReduceOp): SUM, PRODUCT, MIN, MAX, AVG, BAND, BOR, BXOR or a PREMUL_SUM made by
            ``_make_nccl_premul_sum(factor)``.
        group (ProcessGroup, optional): the default group if None.
        async_op (bool): return a :class:`Work` instead of waiting.

    Returns:
        A ``Work`` if ``async_op``, else None.

    NOTE: unlike PyTorch's gloo backend, AVG and PREMUL_SUM work (as with NCCL); float16 and
    bfloat16 are reduced in float32 and rounded once; and the ranks first check that they
    pass the same shape and dtype (a 16-byte all-reduce): on a mismatch every rank raises
    ``RuntimeError`` naming each rank's shape and dtype (torch only detects it with
    ``TORCH_DISTRIBUTED_DEBUG=DETAIL``).

    Example::

        >>> t = ember.ones(3); dist.all_reduce(t)   # t == world_size
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'all_reduce')
    if pg is None:
        return None
    a = tensor._data
    o, factor = _check_op(a, op, 'all_reduce')
    c = pg._comm
    w = _to_work(a, o, factor, True)
    mop = _mpi_red(a.dtype, o)
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, 'ALLREDUCE', tensor)
    elif _PEER_CHECK[0] and pg.size() > 1:
        try:
            _check_peers(pg, 'all_reduce', tensor, a, lambda: c.Iallreduce(_IN_PLACE(), w, mop))
        except DistBackendError as e:    # a dead peer: an async op's Work holds the error
            if not async_op:
                raise
            wk = Work(None, None, [tensor], 'all_reduce', None, pg._timeout_s, pg.rank())
            wk._complete(e)
            return wk
    if not async_op and o is not ReduceOp.AVG and a.flags.c_contiguous and \
            w.base is not None and np.may_share_memory(w, a):   # the fast path: in place
        _wait_all([c.Iallreduce(_IN_PLACE(), w, mop)], None, pg._timeout_s, 'all_reduce',
                   pg.rank())
        tensor._bump()
        return None
    n = pg.size()

    def call(nb):
        return c.Iallreduce(_IN_PLACE(), w, mop)

    def fin():
        _from_work(w, tensor._data, o, n)
        tensor._bump()
    return _run(pg, async_op, call, fin, [tensor], 'all_reduce')


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """All-reduce each tensor of ``tensors`` (one call per tensor, returned as one Work).

    Example::

        >>> dist.all_reduce_coalesced([a, b])
    """
    if not isinstance(tensors, list):
        from .. import Tensor
        tensors = [tensors] if isinstance(tensors, Tensor) else tensors
    _check_tensor_list(tensors, 'tensor')
    _same_dtype(tensors)
    pg = _pg(group, 'all_reduce_coalesced')
    if pg is None:
        return None
    works = [all_reduce(t, op, pg, True) for t in tensors]
    return _join_works(works, tensors, async_op, 'all_reduce_coalesced')


def _join_works(works, result, async_op, name):
    if not async_op:
        for wk in works:
            wk.wait()
        return None
    reqs = [r for wk in works for r in wk._reqs]
    return Work(reqs, lambda _w: [wk.wait() for wk in works], result, name)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank of ``group``.

    Args:
        tensor (Tensor): the data (on ``src``) or where it is received (elsewhere).
        src (int): global rank of the source (or ``group_src``: its rank in ``group``).
        group (ProcessGroup, optional): the default group if None.
        async_op (bool): return a :class:`Work` instead of waiting.

    Example::

        >>> dist.broadcast(t, src=0)
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'broadcast')
    if pg is None:
        return None
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, 'BROADCAST', tensor)
    root = _group_rank(pg, src, group_src, 'src')
    a = tensor._data
    c = pg._comm
    buf = _contig(a)

    def call(nb):
        return c.Ibcast(_flat(buf), root=root)

    def fin():
        if buf is not a:
            a[...] = buf
        tensor._bump()
    return _run(pg, async_op, call, fin, [tensor], 'broadcast')


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` across ``group`` into ``tensor`` on rank ``dst`` only (other
    ranks' tensors are left as they were).

    Args:
        tensor (Tensor): input, and output on ``dst``.
        dst (int): global rank of the destination (or ``group_dst``).
        op (ReduceOp): as :func:`all_reduce`.

    Example::

        >>> dist.reduce(t, dst=0)
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'reduce')
    if pg is None:
        return None
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, 'REDUCE', tensor)
    root = _group_rank(pg, dst, group_dst, 'dst', 'reduce')
    a = tensor._data
    o, factor = _check_op(a, op, 'reduce')
    c, me, n = pg._comm, pg.rank(), pg.size()
    mop = _mpi_red(a.dtype, o)
    if me == root:
        w = _to_work(a, o, factor, True)

        def call(nb):
            return c.Ireduce(_IN_PLACE(), w, mop, root=root)

        def fin():
            _from_work(w, tensor._data, o, n)
            tensor._bump()
    else:
        w = _to_work(a, o, factor, True)

        def call(nb):
            return c.Ireduce(w, None, mop, root=root)
        fin = None
    return _run(pg, async_op, call, fin, [tensor], 'reduce')


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into ``output_tensor``, in rank order: the
    output is ``world_size`` times larger along dim 0, or stacked (``(world_size, *shape)``).

    Example::

        >>> out = ember.empty(2 * n); dist.all_gather_into_tensor(out, ember.ones(n))
    """
    _check_single_tensor(input_tensor, 'input_tensor')
    _check_single_tensor(output_tensor, 'output_tensor')
    pg = _pg(group, 'all_gather_into_tensor')
    if pg is None:
        return None
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, '_ALLGATHER_BASE', input_tensor)
    _same_dtype(output_tensor, input_tensor)
    c, n = pg._comm, pg.size()
    a, out = _contig(input_tensor._data), output_tensor._data
    if out.dtype != a.dtype:
        raise TypeError("output tensor must have the same type as input tensor")
    if out.size != a.size * n:
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    buf = _contig(out)

    def call(nb):
        return c.Iallgather(_flat(a), _flat(buf))

    def fin():
        if buf is not out:
            out[...] = buf
        output_tensor._bump()
    res = list(output_tensor.chunk(n)) if async_op and output_tensor.dim() else [output_tensor]
    return _run(pg, async_op, call, fin, res, 'all_gather_into_tensor')


_all_gather_base = all_gather_into_tensor


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather every rank's ``tensor`` into ``tensor_list`` (one tensor per rank, in rank
    order). Tensors of different sizes per rank are allowed.

    Example::

        >>> outs = [ember.empty(3) for _ in range(world_size)]
        >>> dist.all_gather(outs, ember.ones(3) * rank)
    """
    _check_tensor_list(tensor_list, 'tensor_list')
    _check_single_tensor(tensor, 'tensor')
    _same_dtype(tensor_list, tensor)
    pg = _pg(group, 'all_gather')
    if pg is None:
        return None
    c, n = pg._comm, pg.size()
    if len(tensor_list) != n:
        raise RuntimeError("ProcessGroupGloo::allgather: invalid output tensor list at index 0 "
                           f"(expected length {n}, got {len(tensor_list)})")
    a = _contig(tensor._data)
    sizes = [t._data.nbytes for t in tensor_list]
    if sizes[pg.rank()] != a.nbytes:
        raise RuntimeError("all_gather: the output tensor of this rank has a different size "
                           "than the input tensor")
    buf = np.empty(sum(sizes), np.uint8)
    displ = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    spec = [buf, (sizes, displ.tolist())]
    from mpi4py import MPI

    def call(nb):
        if len(set(sizes)) == 1:
            return c.Iallgather(_flat(a), buf)
        return c.Iallgatherv(_flat(a), spec + [MPI.BYTE])

    def fin():
        for t, off, sz in zip(tensor_list, displ, sizes):
            d = t._data
            _put(d, buf[off:off + sz].view(d.dtype))
            t._bump()
    return _run(pg, async_op, call, fin, list(tensor_list), 'all_gather')


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """:func:`all_gather` of each tensor of ``input_tensor_list`` into the matching list of
    ``output_tensor_lists``.

    Example::

        >>> dist.all_gather_coalesced([[a0, a1]], [a])
    """
    _check_tensor_list(input_tensor_list, 'input_tensor_list')
    _same_dtype(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    for ol in output_tensor_lists:
        _check_tensor_list(ol, 'output_tensor_lists')
    pg = _pg(group, 'all_gather_coalesced')
    if pg is None:
        return None
    works = [all_gather(ol, t, pg, True) for ol, t in zip(output_tensor_lists, input_tensor_list)]
    return _join_works(works, output_tensor_lists, async_op, 'all_gather_coalesced')


def _validate_list_for(me, root, lst, what, role):
    if me == root:
        if not lst:
            raise ValueError(f"Argument ``{what}`` must be specified on {role} rank.")
    elif lst:
        raise ValueError(f"Argument ``{what}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gather every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    Args:
        tensor (Tensor): this rank's contribution.
        gather_list (list[Tensor]): one tensor per rank, on ``dst`` only.
        dst (int): global rank of the destination (default 0, or ``group_dst``).

    Example::

        >>> outs = [ember.empty(3) for _ in range(n)] if rank == 0 else None
        >>> dist.gather(t, outs, dst=0)
    """
    _check_single_tensor(tensor, 'tensor')
    if gather_list:
        _check_tensor_list(gather_list, 'gather_list')
    else:
        gather_list = []
    _same_dtype(tensor, gather_list)
    pg = _pg(group, 'gather')
    if pg is None:
        return None
    if dst is None and group_dst is None:
        dst = 0 if group is None else pg._ranks[0]
    root = _group_rank(pg, dst, group_dst, 'dst', 'gather')
    c, n, me = pg._comm, pg.size(), pg.rank()
    _validate_list_for(me, root, gather_list, 'gather_list', 'destination')
    a = _contig(tensor._data)
    if me == root:
        if len(gather_list) != n or any(t._data.nbytes != a.nbytes for t in gather_list):
            raise RuntimeError("ProcessGroupGloo::gather: invalid output tensor list size, "
                               "must be world size")
        buf = np.empty(n * a.nbytes, np.uint8)

        def call(nb):
            return c.Igather(_flat(a), buf, root=root)

        def fin():
            for i, t in enumerate(gather_list):
                _put(t._data, buf[i * a.nbytes:(i + 1) * a.nbytes].view(t._data.dtype))
                t._bump()
    else:
        def call(nb):
            return c.Igather(_flat(a), None, root=root)
        fin = None
    return _run(pg, async_op, call, fin, [gather_list] if gather_list else [], 'gather')


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Send ``scatter_list[i]`` of rank ``src`` to rank ``i``'s ``tensor``.

    Args:
        tensor (Tensor): where this rank's piece is received.
        scatter_list (list[Tensor]): one tensor per rank, on ``src`` only.
        src (int): global rank of the source (default 0, or ``group_src``).

    Example::

        >>> dist.scatter(t, [ember.full((3,), float(i)) for i in range(n)] if rank == 0 else None, src=0)
    """
    _check_single_tensor(tensor, 'tensor')
    if scatter_list:
        _check_tensor_list(scatter_list, 'scatter_list')
    else:
        scatter_list = []
    _same_dtype(tensor, scatter_list)
    pg = _pg(group, 'scatter')
    if pg is None:
        return None
    if src is None and group_src is None:
        src = 0 if group is None else pg._ranks[0]
    root = _group_rank(pg, src, group_src, 'src', 'scatter')
    c, n, me = pg._comm, pg.size(), pg.rank()
    _validate_list_for(me, root, scatter_list, 'scatter_list', 'source')
    out = tensor._data
    buf = _contig(out)
    if me == root:
        if len(scatter_list) != n or any(t._data.nbytes != out.nbytes for t in scatter_list):
            raise RuntimeError("ProcessGroupGloo::scatter: invalid input tensor list size, "
                               "must be world size")
        send = np.concatenate([_flat(_contig(t._data)) for t in scatter_list]) if n else None
    else:
        send = None

    def call(nb):
        return c.Iscatter(send, _flat(buf), root=root)

    def fin():
        if buf is not out:
            out[...] = buf
        tensor._bump()
    return _run(pg, async_op, call, fin, [tensor], 'scatter')


def _reduce_scatter_flat(pg, send_arrays, out_t, o, factor, async_op, name):
    c, n = pg._comm, pg.size()
    out = out_t._data
    works = [_to_work(s, o, factor, True) for s in send_arrays]
    send = np.concatenate(works) if len(works) > 1 else works[0]
    recv = np.empty(send.size // n, send.dtype)
    mop = _mpi_red(out.dtype, o)

    def call(nb):
        return c.Ireduce_scatter_block(send, recv, mop)

    def fin():
        _from_work(recv, out_t._data, o, n)
        out_t._bump()
    return _run(pg, async_op, call, fin, [out_t], name)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[i]`` across ranks into rank ``i``'s ``output``.

    Args:
        output (Tensor): this rank's reduced piece.
        input_list (list[Tensor]): one tensor per rank, each shaped as ``output``.
        op (ReduceOp): as :func:`all_reduce`.

    Example::

        >>> dist.reduce_scatter(out, [ember.ones(3) for _ in range(n)])
    """
    _check_single_tensor(output, 'output')
    _check_tensor_list(input_list, 'input_list')
    _same_dtype(output, input_list)
    pg = _pg(group, 'reduce_scatter')
    if pg is None:
        return None
    if len(input_list) != pg.size():
        raise ValueError("reduce_scatter: input_list must have one tensor per rank "
                         f"({pg.size()}), got {len(input_list)}")
    if any(t._data.size != output._data.size for t in input_list):
        raise ValueError("reduce_scatter: every input tensor must have the output's size")
    o, factor = _check_op(output._data, op, 'reduce_scatter')
    return _reduce_scatter_flat(pg, [t._data for t in input_list], output, o, factor,
                                async_op, 'reduce_scatter')


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (``world_size`` times ``output``'s size, split along dim 0 or
    stacked) across ranks; rank ``i`` gets the reduced ``i``-th piece in ``output``.

    Example::

        >>> dist.reduce_scatter_tensor(out, ember.ones(n * 3))
    """
    _check_single_tensor(output, 'output')
    _check_single_tensor(input, 'input')
    _same_dtype(output, input)
    pg = _pg(group, 'reduce_scatter_tensor')
    if pg is None:
        return None
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, '_REDUCE_SCATTER_BASE', output)
    if input._data.size != output._data.size * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    o, factor = _check_op(output._data, op, 'reduce_scatter_tensor')
    return _reduce_scatter_flat(pg, [input._data], output, o, factor, async_op,
                                'reduce_scatter_tensor')


_reduce_scatter_base = reduce_scatter_tensor


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Split ``input`` along dim 0 (``input_split_sizes`` rows to each rank, equal pieces if
    None), send piece ``i`` to rank ``i``, and concatenate what each rank sent in ``output``
    (``output_split_sizes`` rows from each rank).

    Example::

        >>> dist.all_to_all_single(out, ember.arange(4.) + 4 * rank)
    """
    _check_single_tensor(output, 'output')
    _check_single_tensor(input, 'input')
    _same_dtype(output, input)
    pg = _pg(group, 'all_to_all_single')
    if pg is None:
        return None
    c, n = pg._comm, pg.size()
    a, out = _contig(input._data), output._data
    if a.dtype != out.dtype:
        raise RuntimeError("all_to_all_single: input and output must have the same dtype")

    def counts(t, splits):
        d0 = t.shape[0] if t.ndim else 1
        row = (t.nbytes // d0) if d0 else 0
        if not splits:
            if d0 % n:
                raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
            splits = [d0 // n] * n
        else:
            splits = list(splits)
            if len(splits) != n or sum(splits) != d0:
                raise RuntimeError("Split sizes doesn't match total dim 0 size")
        cnt = [s * row for s in splits]
        dsp = [sum(cnt[:i]) for i in range(n)]
        return cnt, dsp
    scnt, sdsp = counts(a, input_split_sizes)
    rcnt, rdsp = counts(out, output_split_sizes)
    buf = _contig(out)
    from mpi4py import MPI

    def call(nb):
        return c.Ialltoallv([_flat(a), (scnt, sdsp), MPI.BYTE],
                                                     [_flat(buf), (rcnt, rdsp), MPI.BYTE])

    def fin():
        if buf is not out:
            out[...] = buf
        output._bump()
    return _run(pg, async_op, call, fin, [output], 'all_to_all_single')


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Send ``input_tensor_list[i]`` to rank ``i``; receive rank ``i``'s piece in
    ``output_tensor_list[i]`` (sizes may differ per pair).

    Example::

        >>> dist.all_to_all(outs, [ember.full((2,), float(rank)) for _ in range(n)])
    """
    _check_tensor_list(output_tensor_list, 'output_tensor_list')
    _check_tensor_list(input_tensor_list, 'input_tensor_list')
    _same_dtype(output_tensor_list, input_tensor_list)
    pg = _pg(group, 'all_to_all')
    if pg is None:
        return None
    c, n = pg._comm, pg.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise RuntimeError("all_to_all: requires input/output tensor lists to have the same "
                           "length as the group size")
    ins = [_flat(_contig(t._data)) for t in input_tensor_list]
    send = np.concatenate(ins) if ins else np.empty(0, np.uint8)
    scnt = [x.size for x in ins]
    sdsp = [sum(scnt[:i]) for i in range(n)]
    rcnt = [t._data.nbytes for t in output_tensor_list]
    rdsp = [sum(rcnt[:i]) for i in range(n)]
    recv = np.empty(sum(rcnt), np.uint8)
    from mpi4py import MPI

    def call(nb):
        return c.Ialltoallv([send, (scnt, sdsp), MPI.BYTE],
                                                     [recv, (rcnt, rdsp), MPI.BYTE])

    def fin():
        for t, off, sz in zip(output_tensor_list, rdsp, rcnt):
            _put(t._data, recv[off:off + sz].view(t._data.dtype))
            t._bump()
    return _run(pg, async_op, call, fin, output_tensor_list, 'all_to_all')


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Block until every rank of ``group`` reaches the barrier.

    Example::

        >>> dist.barrier()
    """
    pg = _pg(group, 'barrier')
    if pg is None:
        return None
    if _debug['level'] is DebugLevel.DETAIL:
        _check_same_collective(pg, 'BARRIER')
    c = pg._comm
    if timeout is not None and not async_op:
        _wait_all([c.Ibarrier()], None, timeout.total_seconds(), 'barrier', pg.rank())
        return None
    return _run(pg, async_op, lambda nb: c.Ibarrier(), None, [], 'barrier')


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the ranks that did not reach it within ``timeout``: rank 0
    waits for every other rank (raising ``RuntimeError`` naming the first missing one, or
    all of them with ``wait_all_ranks``), then releases them.

    Example::

        >>> dist.monitored_barrier(timeout=datetime.timedelta(seconds=10))
    """
    pg = _pg(group, 'monitored_barrier')
    if pg is None:
        return None
    if pg._backend != Backend.GLOO:
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        timeout = _state['timeout'] or default_pg_timeout
    secs = timeout.total_seconds() if hasattr(timeout, 'total_seconds') else float(timeout)
    ms = int(secs * 1000)
    c, me, n = pg._ctl, pg.rank(), pg.size()
    tag = 0x7EB
    tok = np.zeros(1, np.uint8)
    end = time.monotonic() + secs
    if me == 0:
        reqs = {r: c.Irecv(np.zeros(1, np.uint8), source=r, tag=tag) for r in range(1, n)}
        pending = dict(reqs)
        while pending and time.monotonic() < end:
            for r in [r for r, q in pending.items() if q.Test()]:
                del pending[r]
            if pending:
                time.sleep(0.0005)
        if pending:
            for q in pending.values():
                q.Cancel()
            missing = sorted(pending)
            if wait_all_ranks:
                raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, missing))} failed to "
                                   f"pass monitoredBarrier in {ms} ms")
            raise RuntimeError(f"[Rank 0]: Rank {missing[0]} failed to pass monitoredBarrier "
                               f"in {ms} ms")
        for r in range(1, n):
            c.Send(tok, dest=r, tag=tag + 1)
        return None
    c.Send(tok, dest=0, tag=tag)
    q = c.Irecv(np.zeros(1, np.uint8), source=0, tag=tag + 1)
    while not q.Test():
        if time.monotonic() >= end:
            q.Cancel()
            raise RuntimeError(f"[Rank {me}]: Rank {me} timed out in monitoredBarrier after "
                               f"{ms} ms")
        time.sleep(0.0005)
    return None


# ----------------------------------------------------------------------------- point to point
def _peer(pg, global_rank, group_rank, what):
    r = _group_rank(pg, global_rank, group_rank, what)
    if r == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank "
                         "of the current process.")
    return r


def _p2p(fn, buf, peer, tag, name, pg):
    """Start an MPI point-to-point call; an MPI error (a tag out of range...) is raised as
    ``DistBackendError``."""
    if not isinstance(tag, int) or tag < 0:
        raise ValueError(f"{name}: tag must be a non-negative integer, got {tag!r}")
    try:
        return fn(buf, peer, tag)
    except Exception as e:
        raise DistBackendError(f"[Rank {pg.rank()}] {name} failed: {e}") from None


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` without waiting; returns a :class:`Work`.

    Example::

        >>> w = dist.isend(t, dst=1); w.wait()
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'isend')
    if pg is None:
        return None
    r = _peer(pg, dst, group_dst, 'destination')
    a = _contig(tensor._data).copy() if not tensor._data.flags.c_contiguous else tensor._data
    return Work([_p2p(pg._comm.Isend, _flat(a), r, tag, 'isend', pg)], None, [tensor], 'isend', None,
                pg._timeout_s, pg.rank())


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (blocks until it can be reused).

    Example::

        >>> dist.send(t, dst=1)
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'send')
    if pg is None:
        return None
    r = _peer(pg, dst, group_dst, 'destination')
    _wait_all([_p2p(pg._comm.Isend, _flat(_contig(tensor._data)), r, tag, 'send', pg)], None,
              pg._timeout_s, 'send', pg.rank())
    return None


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank if None) without waiting; returns
    a :class:`Work`.

    Example::

        >>> w = dist.irecv(t, src=0); w.wait()
    """
    _check_single_tensor(tensor, 'tensor')
    pg = _pg(group, 'irecv')
    if pg is None:
        return None
    from mpi4py import MPI
    r = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, 'source')
    out = tensor._data
    buf = _contig(out)
    req = _p2p(pg._comm.Irecv, _flat(buf), r, tag, 'irecv', pg)

    def fin(w):
        if buf is not out:
            out[...] = buf
        tensor._bump()
        if r == MPI.ANY_SOURCE:
            w._source = pg._ranks[w._statuses[0].Get_source()]
        else:
            w._source = pg._ranks[r]
    w = Work([req], fin, [tensor], 'irecv', None, pg._timeout_s, pg.rank())
    w._statuses = [MPI.Status()]
    return w


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender's
    global rank.

    Example::

        >>> dist.recv(t, src=0)
        0
    """
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    return w._source


class P2POp:
    """A point-to-point operation for :func:`batch_isend_irecv`.

    Args:
        op (callable): :func:`isend` or :func:`irecv`.
        tensor (Tensor): the tensor sent or received into.
        peer (int): global rank of the peer (or ``group_peer``).
        group (ProcessGroup, optional), tag (int).

    Example::

        >>> ops = [dist.P2POp(dist.isend, a, 1), dist.P2POp(dist.irecv, b, 1)]
    """

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        _check_single_tensor(tensor, 'tensor')
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list):
    """Start every send/receive of ``p2p_op_list`` (a list of :class:`P2POp`) at once;
    returns their :class:`Work` handles (wait on each).

    Example::

        >>> for w in dist.batch_isend_irecv(ops): w.wait()
    """
    if not isinstance(p2p_op_list, list) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    g = p2p_op_list[0].group
    if not all(p.group == g for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works


# ----------------------------------------------------------------------------- objects
class _Polling:
    """The control communicator of a group whose blocking calls are made nonblocking and
    waited for by polling (bounded by the group's timeout, failing if a peer died)."""
    _NB = {'Allgather': 'Iallgather', 'Allgatherv': 'Iallgatherv', 'Bcast': 'Ibcast',
           'Gather': 'Igather', 'Gatherv': 'Igatherv', 'Scatter': 'Iscatter',
           'Scatterv': 'Iscatterv', 'Send': 'Isend'}

    def __init__(self, pg, name):
        self._pg, self._c, self._name = pg, pg._ctl, name

    def __getattr__(self, attr):
        nb = self._NB.get(attr)
        if nb is None:
            return getattr(self._c, attr)
        fn = getattr(self._c, nb)
        pg = self._pg

        def call(*args, **kwargs):
            _wait_all([fn(*args, **kwargs)], None, pg._timeout_s, self._name, pg.rank())
        return call

    def Recv(self, buf, source, tag, status=None):
        pg = self._pg
        req = self._c.Irecv(buf, source=source, tag=tag)
        _wait_all([req], [status] if status is not None else None, pg._timeout_s, self._name,
                  pg.rank())


def _obj_bytes(obj):
    from ..serialization import save
    b = io.BytesIO()
    save(obj, b)
    return np.frombuffer(b.getvalue(), np.uint8)


def _bytes_obj(buf):
    from ..serialization import load
    return load(io.BytesIO(buf.tobytes()), weights_only=True)


def _allgather_sizes(c, nbytes):
    sizes = np.zeros(c.Get_size(), np.int64)
    c.Allgather(np.array([nbytes], np.int64), sizes)
    return sizes.tolist()


def all_gather_object(object_list, obj, group=None):
    """Gather ``obj`` from every rank into ``object_list`` (one entry per rank).

    Objects travel as ember checkpoints (``save``) and are read back with the rules of
    ``load(weights_only=True)``: tensors, containers, primitive types and allow-listed
    classes (``add_safe_globals``).

    NOTE: unlike PyTorch (plain pickle, which can run any code), objects are unpickled with
    ember's safe ``weights_only`` rules; other classes raise ``UnpicklingError``.

    Example::

        >>> out = [None] * world_size
        >>> dist.all_gather_object(out, {'rank': rank})
    """
    pg = _pg(group, 'all_gather_object')
    if pg is None:
        return None
    c, n = _Polling(pg, 'all_gather_object'), pg.size()
    data = _obj_bytes(obj)
    sizes = _allgather_sizes(c, data.size)
    buf = np.empty(sum(sizes), np.uint8)
    from mpi4py import MPI
    displ = [sum(sizes[:i]) for i in range(n)]
    c.Allgatherv(data, [buf, (sizes, displ), MPI.BYTE])
    for i in range(n):
        object_list[i] = _bytes_obj(buf[displ[i]:displ[i] + sizes[i]])
    return None


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s entries on every rank by those of rank ``src`` (the lists
    have the same length everywhere). Safe unpickling as :func:`all_gather_object`.

    NOTE: unlike PyTorch, objects are read with ember's safe ``weights_only`` rules.

    Example::

        >>> objs = ['a', 1] if rank == 0 else [None, None]
        >>> dist.broadcast_object_list(objs, src=0)
    """
    pg = _pg(group, 'broadcast_object_list')
    if pg is None:
        return None
    if src is None and group_src is None:
        src = 0
    root = _group_rank(pg, src, group_src, 'src')
    c = _Polling(pg, 'broadcast_object_list')
    if pg.rank() == root:
        data = _obj_bytes(list(object_list))
        size = np.array([data.size], np.int64)
    else:
        size = np.zeros(1, np.int64)
    c.Bcast(size, root=root)
    if pg.rank() != root:
        data = np.empty(int(size[0]), np.uint8)
    c.Bcast(data, root=root)
    if pg.rank() != root:
        got = _bytes_obj(data)
        for i, v in enumerate(got[:len(object_list)]):
            object_list[i] = v
    return None


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Gather ``obj`` from every rank into ``object_gather_list`` on rank ``dst``.
    Safe unpickling as :func:`all_gather_object`.

    NOTE: unlike PyTorch, objects are read with ember's safe ``weights_only`` rules.

    Example::

        >>> out = [None] * world_size if rank == 0 else None
        >>> dist.gather_object(rank, out, dst=0)
    """
    pg = _pg(group, 'gather_object')
    if pg is None:
        return None
    if dst is None and group_dst is None:
        dst = 0
    root = _group_rank(pg, dst, group_dst, 'dst')
    c, n, me = _Polling(pg, 'gather_object'), pg.size(), pg.rank()
    if me == root and object_gather_list is None:
        raise AssertionError("Must provide object_gather_list on dst rank")
    data = _obj_bytes(obj)
    sizes = np.zeros(n, np.int64) if me == root else None
    c.Gather(np.array([data.size], np.int64), sizes, root=root)
    from mpi4py import MPI
    if me == root:
        sizes = sizes.tolist()
        displ = [sum(sizes[:i]) for i in range(n)]
        buf = np.empty(sum(sizes), np.uint8)
        c.Gatherv(data, [buf, (sizes, displ), MPI.BYTE], root=root)
        for i in range(n):
            object_gather_list[i] = _bytes_obj(buf[displ[i]:displ[i] + sizes[i]])
    else:
        c.Gatherv(data, None, root=root)
    return None


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Send ``scatter_object_input_list[i]`` of rank ``src`` to rank ``i``, which finds it in
    ``scatter_object_output_list[0]``. Safe unpickling as :func:`all_gather_object`.

    NOTE: unlike PyTorch, objects are read with ember's safe ``weights_only`` rules.

    Example::

        >>> out = [None]
        >>> dist.scatter_object_list(out, list(range(world_size)) if rank == 0 else None, src=0)
    """
    pg = _pg(group, 'scatter_object_list')
    if pg is None:
        return None
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    if src is None and group_src is None:
        src = 0
    root = _group_rank(pg, src, group_src, 'src')
    c, n, me = _Polling(pg, 'scatter_object_list'), pg.size(), pg.rank()
    from mpi4py import MPI
    if me == root:
        if scatter_object_input_list is None:
            raise ValueError("source rank must provide non-None scatter_object_input_list")
        parts = [_obj_bytes(o) for o in scatter_object_input_list[:n]]
        sizes = np.array([p.size for p in parts], np.int64)
    else:
        sizes = None
    mine = np.zeros(1, np.int64)
    c.Scatter(sizes, mine, root=root)
    buf = np.empty(int(mine[0]), np.uint8)
    if me == root:
        szl = sizes.tolist()
        displ = [sum(szl[:i]) for i in range(n)]
        c.Scatterv([np.concatenate(parts), (szl, displ), MPI.BYTE], buf, root=root)
    else:
        c.Scatterv(None, buf, root=root)
    scatter_object_output_list[0] = _bytes_obj(buf)
    return None


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch=False):
    """Send the objects of ``object_list`` to rank ``dst`` (received by
    :func:`recv_object_list`). Safe unpickling as :func:`all_gather_object`.

    Example::

        >>> dist.send_object_list(['a', {'b': 1}], dst=1)
    """
    pg = _pg(group, 'send_object_list')
    if pg is None:
        return None
    r = _peer(pg, dst, group_dst, 'destination')
    data = _obj_bytes(list(object_list))
    c = _Polling(pg, 'send_object_list')
    c.Send(np.array([data.size], np.int64), dest=r, tag=0x0B1)
    c.Send(data, dest=r, tag=0x0B2)
    return None


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch=False):
    """Receive objects sent by :func:`send_object_list` into ``object_list`` (same length);
    returns the sender's global rank.

    NOTE: unlike PyTorch, objects are read with ember's safe ``weights_only`` rules.

    Example::

        >>> objs = [None, None]; dist.recv_object_list(objs, src=0)
        0
    """
    pg = _pg(group, 'recv_object_list')
    if pg is None:
        return -1
    from mpi4py import MPI
    r = MPI.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, 'source')
    size = np.zeros(1, np.int64)
    st = MPI.Status()
    c = _Polling(pg, 'recv_object_list')
    c.Recv(size, source=r, tag=0x0B1, status=st)
    sender = st.Get_source()
    data = np.empty(int(size[0]), np.uint8)
    c.Recv(data, source=sender, tag=0x0B2)
    got = _bytes_obj(data)
    for i, v in enumerate(got[:len(object_list)]):
        object_list[i] = v
    return pg._ranks[sender]


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into the single ``output_tensor`` (as
    :func:`all_gather_into_tensor`).

    Example::

        >>> dist.all_gather_single(ember.empty(2 * n), ember.ones(n))
    """
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` across ranks and give rank ``i`` the ``i``-th piece (as
    :func:`reduce_scatter_tensor`).

    Example::

        >>> dist.reduce_scatter_single(out, ember.ones(n * 3))
    """
    return reduce_scatter_tensor(output, input, op, group, async_op)


def shrink_group(ranks_to_exclude, group=None, shrink_flags=0, pg_options=None):
    """A new group of ``group``'s ranks (the default group if None) without
    ``ranks_to_exclude`` (global ranks); only the remaining ranks call it.

    Example::

        >>> g = dist.shrink_group([3])
    """
    pg = _default_or(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    if not ranks_to_exclude:
        raise ValueError("ranks_to_exclude cannot be empty")
    bad = [r for r in ranks_to_exclude if r not in pg._g2l]
    if bad:
        raise ValueError(f"Rank {bad[0]} is not in the group {pg._ranks}")
    if get_rank() in ranks_to_exclude:
        raise ValueError(f"Rank {get_rank()} is in ranks_to_exclude and cannot call shrink_group")
    keep = [r for r in pg._ranks if r not in ranks_to_exclude]
    if not keep:
        raise ValueError("shrink_group would leave an empty group")
    c = pg._comm
    grp = c.Get_group().Incl([pg._g2l[r] for r in keep])
    name = str(_state['count'])
    _state['count'] += 1
    comm = c.Create_group(grp)
    grp.Free()
    new = ProcessGroup(comm, keep, pg._backend, name, 'shrunk', pg._timeout)
    _state['groups'][name] = new
    return new


def _get_default_group():
    """The default process group (ValueError if not initialised)."""
    return _world()


def _rank_not_in_group(group):
    """Whether this rank is outside ``group`` (``GroupMember.NON_GROUP_MEMBER``)."""
    return _not_member(group)


_get_group_size = get_world_size
