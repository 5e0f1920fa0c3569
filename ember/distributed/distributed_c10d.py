"""The default process group on MPI (mpi4py over the ``mpich`` wheel): ``init_process_group``
(env:// rendezvous through ember's PMI-1 server, or ranks started by ``mpiexec``),
``all_reduce``, ``broadcast``, ``barrier``.

NOTE: unlike PyTorch, only the default group and these collectives exist so far (issue 12);
``async_op=True`` is not supported yet; timeouts and dead-rank detection are not enforced.
"""
import os
import socket
import subprocess
import sys
import time

from . import (Backend, DistNetworkError, GroupMember, ReduceOp, _NOT_INIT, default_pg_timeout,
               group as _group_ns)

_state = {'comm': None, 'backend': None, 'server': None}


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


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name='', pg_options=None, device_id=None):
    """Initialise the default process group.

    Ranks started by ``mpiexec`` join its world. Otherwise (env:// or ``tcp://host:port``)
    rank 0 starts ember's PMI-1 server at MASTER_ADDR:MASTER_PORT in a helper process and
    every rank connects to it, forming one MPI ``COMM_WORLD``.

    Args:
        backend (str): 'mpi', or 'gloo' (NOTE: unlike PyTorch, runs on MPI); 'cpu:gloo,...'
            strings are parsed.
        init_method (str): 'env://' (default) or 'tcp://host:port'.
        timeout (timedelta): connection timeout.
        world_size (int), rank (int): default from WORLD_SIZE / RANK.

    Example::

        >>> dist.init_process_group('gloo', rank=rank, world_size=2)
    """
    if _state['comm'] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    be = Backend(str(backend or 'gloo'))
    if ':' in be:
        be = Backend(dict(p.split(':') for p in be.split(',')).get('cpu', 'gloo'))
    if be not in ('gloo', 'mpi'):
        raise RuntimeError(f"Distributed package doesn't have {be} built in")
    tmo = (timeout or default_pg_timeout).total_seconds()
    if _launched_by_mpiexec():
        from mpi4py import MPI
    else:
        rank = rank if rank >= 0 else _env_int('RANK')
        world_size = world_size if world_size > 0 else _env_int('WORLD_SIZE')
        if init_method and init_method.startswith('tcp://'):
            host, port = init_method[6:].rsplit(':', 1)
        else:
            host = os.environ.get('MASTER_ADDR') or _env_int('MASTER_ADDR')
            port = os.environ.get('MASTER_PORT') or _env_int('MASTER_PORT')
        port = int(port)
        if rank == 0 and not os.environ.get('TORCHELASTIC_USE_AGENT_STORE'):
            srv = os.path.join(os.path.dirname(__file__), '_pmi_server.py')
            p = subprocess.Popen([sys.executable, srv, str(port), str(world_size), host,
                                  str(tmo)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
            if p.stdout.readline().strip() != 'ready':
                raise DistNetworkError(f"The server socket has failed to listen on "
                                       f"{host}:{port}: {p.stderr.read().strip()[-200:]}")
            _state['server'] = p
        sk = _connect(host, port, tmo)
        sk.settimeout(None)   # MPICH needs a blocking fd
        fd = sk.detach()
        os.environ.update(PMI_FD=str(fd), PMI_RANK=str(rank), PMI_SIZE=str(world_size))
        from mpi4py import MPI
        for k in ('PMI_FD', 'PMI_RANK', 'PMI_SIZE'):
            os.environ.pop(k, None)
    _state['comm'] = MPI.COMM_WORLD.Dup()
    _state['backend'] = be
    GroupMember.WORLD = _group_ns.WORLD = _state['comm']


def _comm():
    c = _state['comm']
    if c is None:
        raise ValueError(_NOT_INIT)
    return c


def destroy_process_group(group=None):
    """Forget the default group (MPI itself stays up until the process exits)."""
    _comm()
    _state['comm'] = None
    GroupMember.WORLD = _group_ns.WORLD = None


def is_initialized():
    """Whether the default process group is initialised."""
    return _state['comm'] is not None


def get_rank(group=None):
    """This process's rank in the default group."""
    return _comm().Get_rank()


def get_world_size(group=None):
    """The number of ranks in the default group."""
    return _comm().Get_size()


def get_backend(group=None):
    """The default group's backend name ('gloo' or 'mpi')."""
    _comm()
    return _state['backend']


def _np_reduce(op, stack):
    import numpy as np
    o = op.op if isinstance(op, ReduceOp) else op
    if o in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PREMUL_SUM):
        if o is ReduceOp.PREMUL_SUM:
            stack = stack * op._factor
        r = stack.sum(axis=0, dtype=stack.dtype)
        if o is ReduceOp.AVG:
            r = (r / stack.shape[0]).astype(stack.dtype)
        return r
    fn = {ReduceOp.PRODUCT: np.multiply, ReduceOp.MIN: np.minimum, ReduceOp.MAX: np.maximum,
          ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or,
          ReduceOp.BXOR: np.bitwise_xor}[o]
    if stack.dtype.kind in 'fc' and o in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        raise RuntimeError(f"Cannot use {o} with a floating point tensor")
    return fn.reduce(stack, axis=0).astype(stack.dtype)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across all ranks in place (every dtype, every ReduceOp).

    Example::

        >>> t = ember.ones(3); dist.all_reduce(t)   # t == world_size
    """
    import numpy as np
    c = _comm()
    a = np.ascontiguousarray(tensor._data)
    o = op.op if isinstance(op, ReduceOp) else op
    if o is ReduceOp.SUM and a.dtype in (np.float32, np.float64, np.int32, np.int64):
        from mpi4py import MPI
        if a is tensor._data or np.shares_memory(a, tensor._data):
            c.Allreduce(MPI.IN_PLACE, a, op=MPI.SUM)   # contiguous: reduce in place, no copy
            tensor._bump()
            return None
        res = a
        c.Allreduce(MPI.IN_PLACE, res, op=MPI.SUM)
    else:
        stack = np.empty((c.Get_size(),) + a.shape, a.dtype)
        c.Allgather(a.view(np.uint8).reshape(-1), stack.view(np.uint8).reshape(-1))
        res = _np_reduce(op, stack)
    tensor._data[...] = res
    tensor._bump()
    return None


def broadcast(tensor, src=0, group=None, async_op=False):
    """Copy rank ``src``'s ``tensor`` into every rank's ``tensor`` (in place)."""
    import numpy as np
    c = _comm()
    a = np.ascontiguousarray(tensor._data)
    c.Bcast(a.view(np.uint8).reshape(-1), root=src)
    tensor._data[...] = a
    tensor._bump()


def barrier(group=None, async_op=False, device_ids=None):
    """Block until every rank reaches the barrier."""
    _comm().Barrier()


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into ``output_tensor`` (world_size times larger in
    dim 0, or stacked), in rank order."""
    import numpy as np
    c = _comm()
    a = np.ascontiguousarray(input_tensor._data)
    out = output_tensor._data
    if out.size != a.size * c.Get_size() or out.dtype != a.dtype:
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size, with the same dtype")
    buf = np.empty(out.shape, out.dtype)
    c.Allgather(a.view(np.uint8).reshape(-1), buf.view(np.uint8).reshape(-1))
    out[...] = buf
    output_tensor._bump()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather every rank's ``tensor`` into ``tensor_list`` (one tensor per rank)."""
    import numpy as np
    c = _comm()
    if len(tensor_list) != c.Get_size():
        raise ValueError("tensor_list must have one tensor per rank")
    a = np.ascontiguousarray(tensor._data)
    buf = np.empty((c.Get_size(),) + a.shape, a.dtype)
    c.Allgather(a.view(np.uint8).reshape(-1), buf.view(np.uint8).reshape(-1))
    for i, t in enumerate(tensor_list):
        t._data[...] = buf[i].reshape(t._data.shape)
        t._bump()
