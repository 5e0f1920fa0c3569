"""``python -m ember.distributed.run`` (alias ``emberrun``): PyTorch's ``torchrun``.

Starts ``--nproc-per-node`` workers running ``training_script`` on this node, each with
RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT and
the TORCHELASTIC_* variables set; ``init_process_group()`` in the workers then forms one
MPI world over every node. Several nodes: run one launcher per node with the same
``--nnodes``, ``--master-addr``/``--master-port`` (or ``--rdzv-endpoint``) and each its
``--node-rank``. A failed worker stops its group, which is restarted up to
``--max-restarts`` times.

NOTE: unlike torchrun, the training script (or ``-m`` module) runs with ``import torch``
resolving to ember (as under ``python -m ember run``); ``--no-python`` runs the command as
it is. Elastic node ranges (``--nnodes=1:4``) are not supported. ``--redirects`` with
``--log-dir`` writes ``LOG_DIR/RUN_ID/attempt_N/LOCAL_RANK/std{out,err}.log``; ``--tee``
redirects the same way (the output is not also copied to the console).

Example::

    python -m ember.distributed.run --standalone --nproc-per-node=2 train.py --epochs 3
"""
import argparse
import os
import sys
import uuid

from .launcher.api import ChildFailedError, LaunchConfig, elastic_launch

__all__ = ['get_args_parser', 'parse_args', 'config_from_args', 'run', 'main']


def _env_default(name, default):
    return os.environ.get('PET_' + name.upper().replace('-', '_'), default)


def get_args_parser():
    """The argument parser of the launcher (torchrun's flags; dashes or underscores).

    Example::

        >>> get_args_parser().parse_args(['--nproc-per-node=2', 'train.py']).nproc_per_node
        '2'
    """
    p = argparse.ArgumentParser(prog='ember.distributed.run',
                                description="ember distributed launcher (torchrun)")

    def add(*names, **kw):
        env = names[0].lstrip('-')
        if 'default' in kw and kw.get('action') is None:
            kw['default'] = _env_default(env, kw['default'])
        p.add_argument(*names, **kw)

    add('--nnodes', type=str, default='1:1', help="Number of nodes, or MIN:MAX.")
    add('--nproc-per-node', '--nproc_per_node', type=str, default='1',
        help="Workers per node: an int, 'cpu', 'auto' or 'gpu'.")
    add('--rdzv-backend', '--rdzv_backend', type=str, default='static')
    add('--rdzv-endpoint', '--rdzv_endpoint', type=str, default='')
    add('--rdzv-id', '--rdzv_id', type=str, default='none')
    add('--rdzv-conf', '--rdzv_conf', type=str, default='')
    p.add_argument('--standalone', action='store_true',
                   help="Single node, rendezvous on a free local port.")
    add('--max-restarts', '--max_restarts', type=int, default=0)
    add('--monitor-interval', '--monitor_interval', type=float, default=0.1)
    add('--start-method', '--start_method', type=str, default='spawn',
        choices=['spawn', 'fork', 'forkserver'])
    add('--event-log-handler', '--event_log_handler', type=str, default='null')
    add('--role', type=str, default='default')
    p.add_argument('-m', '--module', action='store_true',
                   help="Run training_script as a module (python -m).")
    p.add_argument('--no-python', '--no_python', action='store_true',
                   help="Run training_script as a command, not a Python script.")
    p.add_argument('--run-path', '--run_path', action='store_true')
    add('--log-dir', '--log_dir', type=str, default=None)
    add('-r', '--redirects', type=str, default='0')
    add('-t', '--tee', type=str, default='0')
    add('--local-ranks-filter', '--local_ranks_filter', type=str, default='')
    add('--node-rank', '--node_rank', type=int, default=0)
    add('--master-addr', '--master_addr', type=str, default='127.0.0.1')
    add('--master-port', '--master_port', type=int, default=29500)
    add('--local-addr', '--local_addr', type=str, default=None)
    add('--logs-specs', '--logs_specs', type=str, default=None)
    p.add_argument('training_script', type=str)
    p.add_argument('training_script_args', nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    """Parse the launcher's command line (a list of strings).

    Example::

        >>> parse_args(['--standalone', 'train.py']).standalone
        True
    """
    return get_args_parser().parse_args(args)


def _nnodes(s):
    s = str(s)
    if ':' in s:
        a, b = s.split(':', 1)
        return int(a), int(b)
    return int(s), int(s)


def _nproc(s):
    s = str(s)
    if s in ('cpu', 'auto'):
        return os.cpu_count() or 1
    if s == 'gpu':
        raise ValueError("Cuda is not available.")
    if s == 'xpu':
        raise ValueError("Xpu is not available.")
    try:
        return int(s)
    except ValueError:
        raise ValueError(f"Unsupported nproc_per_node value: {s}") from None


def _free_port():
    import socket
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def config_from_args(args):
    """``(LaunchConfig, entrypoint, entry args)`` from parsed arguments.

    Example::

        >>> cfg, entry, args = config_from_args(parse_args(['--nproc-per-node=2', 'train.py']))
        >>> cfg.nproc_per_node
        2
    """
    mn, mx = _nnodes(args.nnodes)
    nproc = _nproc(args.nproc_per_node)
    node_rank = args.node_rank
    if args.standalone:
        mn = mx = 1
        node_rank = 0
        endpoint = f"localhost:{_free_port()}"
        run_id = str(uuid.uuid4())
        backend = 'c10d'
    elif args.rdzv_endpoint:
        endpoint = args.rdzv_endpoint
        run_id = args.rdzv_id
        backend = args.rdzv_backend
    else:
        endpoint = f"{args.master_addr}:{args.master_port}"
        run_id = args.rdzv_id
        backend = 'static'
    conf = {}
    for kv in filter(None, (args.rdzv_conf or '').split(',')):
        k, _, v = kv.partition('=')
        conf[k.strip()] = v.strip()
    if 'rank' not in conf:
        conf['rank'] = node_rank
    conf['rank'] = int(conf['rank'])
    if 'timeout' in conf:
        conf['timeout'] = float(conf['timeout'])
    cfg = LaunchConfig(min_nodes=mn, max_nodes=mx, nproc_per_node=nproc, run_id=run_id,
                       role=args.role, rdzv_endpoint=endpoint, rdzv_backend=backend,
                       rdzv_configs=conf, max_restarts=args.max_restarts,
                       monitor_interval=args.monitor_interval, start_method=args.start_method,
                       local_addr=args.local_addr,
                       logs_specs={'log_dir': args.log_dir, 'redirects': args.redirects,
                                   'tee': args.tee})
    if args.no_python:
        if args.module:
            raise ValueError("Don't use both the '--no-python' flag and the '--module' flag "
                             "at the same time.")
        return cfg, args.training_script, list(args.training_script_args)
    boot = os.path.join(os.path.dirname(__file__), 'launcher', '_worker.py')
    cmd = [boot] + (['-m'] if args.module else []) + [args.training_script]
    return cfg, sys.executable, ['-u'] + cmd + list(args.training_script_args)


def run(args):
    """Launch the workers described by parsed ``args``; raises :class:`ChildFailedError`
    when they fail.

    Example::

        >>> run(parse_args(['--standalone', '--nproc-per-node=2', 'train.py']))
    """
    cfg, entry, eargs = config_from_args(args)
    if 'OMP_NUM_THREADS' not in os.environ and cfg.nproc_per_node > 1:
        print("*****************************************\n"
              "Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
              "default, to avoid your system being overloaded, please further tune the "
              "variable for optimal performance in your application as needed. \n"
              "*****************************************", file=sys.stderr, flush=True)
    elastic_launch(cfg, entry)(*eargs)


def main(args=None):
    """Entry point of ``python -m ember.distributed.run`` / ``emberrun``.

    Example::

        >>> main(['--standalone', '--nproc-per-node=2', 'train.py'])
    """
    a = parse_args(sys.argv[1:] if args is None else args)
    try:
        run(a)
    except ChildFailedError as e:
        print(f"ember.distributed.elastic.multiprocessing.errors.ChildFailedError: \n{e}",
              file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == '__main__':
    main()
