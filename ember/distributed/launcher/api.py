"""The launcher agent: starts ``nproc_per_node`` workers on this node with the environment
PyTorch's elastic agent gives them (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_* ...), watches them, and restarts the
whole group (up to ``max_restarts``) when one fails.

The agent of node 0 serves the PMI-1 rendezvous at MASTER_ADDR:MASTER_PORT (workers see
``TORCHELASTIC_USE_AGENT_STORE=True`` and connect to it instead of starting their own), so
the workers of every node form one MPI world.
"""
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

__all__ = ['LaunchConfig', 'elastic_launch', 'launch_agent', 'ChildFailedError',
           'SignalException']


class SignalException(Exception):
    """The launcher received a termination signal (its workers are stopped first).

    Args:
        msg (str): the message.
        sigval (signal.Signals): the signal.

    Example::

        >>> try:
        ...     elastic_launch(cfg, sys.executable)('train.py')
        ... except SignalException as e:
        ...     print(e.sigval)     # e.g. Signals.SIGTERM
    """

    def __init__(self, msg, sigval):
        super().__init__(msg)
        self.sigval = sigval


def _redirect_mode(spec, local_rank):
    """0 none, 1 stdout, 2 stderr, 3 both; ``spec`` is '3' or '0:1,1:3'."""
    spec = str(spec or '0')
    if ':' not in spec:
        return int(spec)
    for part in spec.split(','):
        r, _, m = part.partition(':')
        if int(r) == local_rank:
            return int(m)
    return 0


class ChildFailedError(Exception):
    """Raised by the launcher when workers failed (after every restart was used).

    Args:
        name (str): the entry point's name.
        failures (dict): ``global rank -> (exitcode, pid, local_rank)`` of the failed workers.

    Example::

        >>> try:
        ...     elastic_launch(cfg, sys.executable)('failing.py')
        ... except ChildFailedError as e:
        ...     rank, (code, pid, local_rank) = e.get_first_failure()
    """

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        lines = [f"{name} FAILED", "-" * 60, "Failures:"]
        for rank, (code, pid, lr) in sorted(failures.items()):
            lines += [f"[{rank}]:", f"  time      : {time.strftime('%Y-%m-%d_%H:%M:%S')}",
                      f"  host      : {socket.gethostname()}",
                      f"  rank      : {rank} (local_rank: {lr})",
                      f"  exitcode  : {code} (pid: {pid})",
                      "  error_file: <N/A>",
                      "  traceback : To enable traceback see: "
                      "https://pytorch.org/docs/stable/elastic/errors.html"]
        lines.append("-" * 60)
        super().__init__("\n".join(lines))

    def get_first_failure(self):
        """The ``(rank, (exitcode, pid, local_rank))`` of the lowest failed rank."""
        r = min(self.failures)
        return r, self.failures[r]


@dataclasses.dataclass
class LaunchConfig:
    """How to launch the workers of this node.

    Args:
        min_nodes (int), max_nodes (int): the number of nodes (NOTE: unlike PyTorch, they
            must be equal: no elastic membership).
        nproc_per_node (int): workers on this node.
        run_id (str): the job id (``TORCHELASTIC_RUN_ID``).
        role (str): the workers' role name.
        rdzv_endpoint (str): ``host:port`` of node 0's rendezvous.
        rdzv_backend (str): 'static', 'c10d' (accepted; both use the endpoint).
        rdzv_configs (dict): ``{'rank': node_rank, ...}``.
        max_restarts (int): how many times a failed group is restarted.
        monitor_interval (float): seconds between checks of the workers.
        start_method (str): accepted ('spawn').
        local_addr (str, optional), log_line_prefix_template, metrics_cfg: accepted.

    Example::

        >>> LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
        ...              rdzv_endpoint='127.0.0.1:29500', max_restarts=1)
    """
    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    logs_specs: object = None
    run_id: str = ''
    role: str = 'default_role'
    rdzv_endpoint: str = ''
    rdzv_backend: str = 'etcd'
    rdzv_configs: dict = dataclasses.field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 0.1
    start_method: str = 'spawn'
    log_line_prefix_template: str = None
    metrics_cfg: dict = dataclasses.field(default_factory=dict)
    local_addr: str = None
    event_log_handler: str = 'null'
    numa_options: object = None
    signals_to_handle: str = 'SIGTERM,SIGINT,SIGHUP,SIGQUIT'
    duplicate_stdout_filters: list = None
    duplicate_stderr_filters: list = None
    virtual_local_rank: bool = False

    def __post_init__(self):
        if self.rdzv_timeout != -1:
            self.rdzv_configs['timeout'] = self.rdzv_timeout
        self.rdzv_configs.setdefault('timeout', 900)


class elastic_launch:
    """Launch ``entrypoint`` on this node's workers: ``elastic_launch(config, entrypoint)
    (*args)``.

    ``entrypoint`` is a command (``sys.executable`` for a Python script, then the script
    and its arguments in ``args``) or a module-level function run in each worker as
    ``entrypoint(*args)``; for a function the return values are returned as
    ``{local_rank: value}``.

    Example::

        >>> cfg = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2,
        ...                    rdzv_endpoint='127.0.0.1:29500')
        >>> elastic_launch(cfg, sys.executable)('train.py', '--epochs', '1')
    """

    def __init__(self, config, entrypoint):
        self._config = config
        self._entrypoint = entrypoint

    def __call__(self, *args):
        return launch_agent(self._config, self._entrypoint, list(args))


def _endpoint(cfg):
    ep = cfg.rdzv_endpoint or '127.0.0.1:29500'
    if ep.startswith('['):
        host, _, port = ep[1:].partition(']:')
    elif ':' in ep:
        host, port = ep.rsplit(':', 1)
    else:
        host, port = ep, '29400'
    return host, int(port)


def _start_pmi(host, port, world, tmo):
    srv = os.path.join(os.path.dirname(os.path.dirname(__file__)), '_pmi_server.py')
    p = subprocess.Popen([sys.executable, srv, str(port), str(world), host, str(tmo)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    line = p.stdout.readline().split()
    if not line or line[0] != 'ready':
        err = p.stderr.read().strip()[-300:]
        p.kill()
        from .. import DistNetworkError
        raise DistNetworkError(f"The server socket has failed to listen on {host}:{port}: {err}")
    return p


def _stop(procs, grace=5.0):
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                p.terminate()
    end = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                p.kill()
            p.wait()


class _MPProc:
    """A ``multiprocessing.Process`` seen through the ``subprocess.Popen`` calls the agent
    makes (poll, wait, terminate, kill, pid)."""

    def __init__(self, proc):
        self._p = proc
        self.pid = proc.pid

    def poll(self):
        return self._p.exitcode

    def wait(self, timeout=None):
        self._p.join(timeout)
        if self._p.exitcode is None:
            raise subprocess.TimeoutExpired('worker', timeout)
        return self._p.exitcode

    def terminate(self):
        self._p.terminate()

    def kill(self):
        self._p.kill()


def _fn_worker(fn, args, result_file, env=None):
    import pickle
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    val = fn(*args)
    with open(result_file, 'wb') as fh:
        pickle.dump(val, fh)


def launch_agent(config, entrypoint, args):
    """Run the workers of this node to completion (restarting on failure); returns
    ``{local_rank: return value}`` for a function entry point, else ``{}``.

    Raises:
        ChildFailedError: workers still fail after ``max_restarts`` restarts.

    Example::

        >>> launch_agent(cfg, sys.executable, ['-u', 'train.py'])
        {}
    """
    if config.min_nodes != config.max_nodes:
        raise ValueError(f"NOTE: unlike PyTorch, elastic node ranges are not supported "
                         f"(got {config.min_nodes}:{config.max_nodes})")
    nnodes, nproc = config.max_nodes, config.nproc_per_node
    if nproc <= 0:
        raise ValueError(f"nproc_per_node must be positive, got {nproc}")
    node_rank = int(config.rdzv_configs.get('rank', 0))
    if not 0 <= node_rank < nnodes:
        raise ValueError(f"node_rank {node_rank} out of range for {nnodes} nodes")
    host, port = _endpoint(config)
    world = nnodes * nproc
    run_id = config.run_id or str(uuid.uuid4())
    tmo = float(config.rdzv_configs.get('timeout', 900))
    name = getattr(entrypoint, '__name__', None) if callable(entrypoint) else str(entrypoint)
    import tempfile
    import threading
    old_handlers = {}
    if threading.current_thread() is threading.main_thread():
        def on_signal(signum, frame):
            raise SignalException(f"Process {os.getpid()} got signal: {signum}",
                                  sigval=signal.Signals(signum))
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            old_handlers[sig] = signal.signal(sig, on_signal)
    try:
        return _agent_loop(config, entrypoint, args, nnodes, nproc, node_rank, host, port, world,
                           run_id, tmo, name, tempfile)
    finally:
        for sig, h in old_handlers.items():
            signal.signal(sig, h)


def _agent_loop(config, entrypoint, args, nnodes, nproc, node_rank, host, port, world, run_id,
                tmo, name, tempfile):
    restarts = 0
    logs = config.logs_specs if isinstance(config.logs_specs, dict) else {}
    while True:
        opened = []
        pmi = _start_pmi(host, port, world, tmo) if node_rank == 0 else None
        procs, results = [], []
        try:
            for lr in range(nproc):
                rank = node_rank * nproc + lr
                env = dict(os.environ)
                env.update(
                    LOCAL_RANK=str(lr), RANK=str(rank), GROUP_RANK=str(node_rank),
                    ROLE_RANK=str(rank), ROLE_NAME=config.role, LOCAL_WORLD_SIZE=str(nproc),
                    WORLD_SIZE=str(world), GROUP_WORLD_SIZE=str(nnodes),
                    ROLE_WORLD_SIZE=str(world), MASTER_ADDR=host, MASTER_PORT=str(port),
                    TORCHELASTIC_RESTART_COUNT=str(restarts),
                    TORCHELASTIC_MAX_RESTARTS=str(config.max_restarts),
                    TORCHELASTIC_RUN_ID=run_id, TORCHELASTIC_USE_AGENT_STORE='True',
                    TORCH_NCCL_ASYNC_ERROR_HANDLING='1')
                if 'OMP_NUM_THREADS' not in os.environ and nproc > 1:
                    env['OMP_NUM_THREADS'] = '1'
                if callable(entrypoint):
                    fd, rf = tempfile.mkstemp(prefix='ember-launch-', suffix='.pkl')
                    os.close(fd)
                    os.unlink(rf)
                    results.append(rf)
                    import multiprocessing
                    ctx = multiprocessing.get_context(config.start_method)
                    mp = ctx.Process(target=_fn_worker, args=(entrypoint, tuple(args), rf, env))
                    mp.start()
                    p = _MPProc(mp)
                else:
                    wargs = [a.replace('${local_rank}', str(lr)) if isinstance(a, str) else a
                             for a in args]     # the launcher's local-rank macro
                    out = err = None
                    mode = _redirect_mode(logs.get('redirects') or logs.get('tee'), lr)
                    if mode and logs.get('log_dir'):
                        d = os.path.join(logs['log_dir'], run_id, f'attempt_{restarts}', str(lr))
                        os.makedirs(d, exist_ok=True)
                        if mode & 1:
                            out = open(os.path.join(d, 'stdout.log'), 'w')
                            opened.append(out)
                        if mode & 2:
                            err = open(os.path.join(d, 'stderr.log'), 'w')
                            opened.append(err)
                    p = subprocess.Popen([entrypoint, *wargs], env=env, start_new_session=True,
                                         stdout=out, stderr=err)
                procs.append(p)
            failures = {}
            while True:
                codes = [p.poll() for p in procs]
                bad = [i for i, c in enumerate(codes) if c not in (None, 0)]
                if bad:
                    time.sleep(0.2)   # let simultaneous failures show up together
                    for i, p in enumerate(procs):
                        c = p.poll()
                        if c not in (None, 0):
                            failures[node_rank * nproc + i] = (c, p.pid, i)
                    break
                if all(c == 0 for c in codes):
                    break
                time.sleep(config.monitor_interval)
        except BaseException:
            _stop(procs)
            if pmi is not None:
                _stop([pmi], 1.0)
            raise
        _stop(procs)
        if pmi is not None:
            _stop([pmi], 1.0)
        for fh in opened:
            fh.close()
        if not failures:
            out = {}
            if callable(entrypoint):
                import pickle
                for lr, rf in enumerate(results):
                    with open(rf, 'rb') as fh:
                        out[lr] = pickle.load(fh)
                    os.unlink(rf)
            return out
        if restarts >= config.max_restarts:
            raise ChildFailedError(name, failures)
        restarts += 1
        print(f"[ember.distributed.run] worker group failed ({failures}); restarting "
              f"({restarts}/{config.max_restarts})", file=sys.stderr, flush=True)
