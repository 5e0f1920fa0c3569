"""``python -m ember.distributed.launch``: the deprecated launcher (PyTorch's
``torch.distributed.launch``). Same flags as :mod:`ember.distributed.run`, plus
``--use-env``; without it each worker also gets ``--local-rank=<local rank>`` as its last
argument (scripts of that era parse it).

Example::

    python -m ember.distributed.launch --nproc-per-node=2 --use-env train.py
"""
import sys
import warnings

from .run import get_args_parser, run

__all__ = ['parse_args', 'launch', 'main']


def parse_args(args):
    """Parse the command line: :func:`ember.distributed.run.get_args_parser` plus
    ``--use-env``.

    Example::

        >>> parse_args(['--use-env', 'train.py']).use_env
        True
    """
    p = get_args_parser()
    p.add_argument('--use-env', '--use_env', default=False, action='store_true',
                   help="Read the local rank from LOCAL_RANK instead of --local-rank.")
    return p.parse_args(args)


def launch(args):
    """Launch with parsed ``args`` (``--local-rank`` appended unless ``--use-env``).

    Example::

        >>> launch(parse_args(['--nproc-per-node=2', 'train.py']))
    """
    if args.no_python and not args.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the "
                         "'--use-env' flag.")
    if not args.use_env:
        args.training_script_args = list(args.training_script_args) + ['--local-rank=${local_rank}']
    run(args)


def main(args=None):
    """Entry point of ``python -m ember.distributed.launch``.

    Example::

        >>> main(['--nproc-per-node=2', '--use-env', 'train.py'])
    """
    warnings.warn("The module torch.distributed.launch is deprecated\nand will be removed in "
                  "future. Use torchrun.\nNote that --use-env is set by default in torchrun.\n",
                  FutureWarning, stacklevel=2)
    a = parse_args(sys.argv[1:] if args is None else args)
    from .launcher.api import ChildFailedError
    try:
        launch(a)
    except ChildFailedError as e:
        print(f"ember.distributed.elastic.multiprocessing.errors.ChildFailedError: \n{e}",
              file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == '__main__':
    main()
