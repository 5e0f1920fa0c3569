"""``ember.multiprocessing``: Python's ``multiprocessing`` with ember tensors shared.

Everything of ``multiprocessing`` is here (``Process``, ``Queue``, ``Pipe``, ``get_context``...),
plus :func:`spawn` / :func:`start_processes` and the sharing-strategy switches. Tensors and
storages sent through these queues and pipes travel through shared memory (see
``ember.multiprocessing.reductions``): the receiver sees the sender's later in-place writes.

NOTE: unlike PyTorch, the machinery loads lazily (``import ember`` stays fast): the tensor
reductions are registered with ``ForkingPickler`` when this namespace is first used (any
attribute read), when a DataLoader starts workers, or at ``import ember`` if
``multiprocessing.reduction`` was already imported. A program that pickles ember tensors with
plain ``multiprocessing`` without touching ``ember.multiprocessing`` pickles them by value.
"""
import sys as _sys

from .. import _storage as _S

# multiprocessing.__all__ (the default context's public names) and torch's own additions
_MP_NAMES = [
    'Array', 'AuthenticationError', 'Barrier', 'BoundedSemaphore', 'BufferTooShort', 'Condition',
    'Event', 'JoinableQueue', 'Lock', 'Manager', 'Pipe', 'Pool', 'Process', 'ProcessError',
    'Queue', 'RLock', 'RawArray', 'RawValue', 'Semaphore', 'SimpleQueue', 'TimeoutError',
    'Value', 'active_children', 'allow_connection_pickling', 'cpu_count', 'current_process',
    'freeze_support', 'get_all_start_methods', 'get_context', 'get_logger', 'get_start_method',
    'log_to_stderr', 'parent_process', 'reducer', 'set_executable', 'set_forkserver_preload',
    'set_start_method']
_SPAWN_NAMES = ['ENV_VAR_PARALLEL_START', 'ProcessContext', 'ProcessException',
                'ProcessExitedException', 'ProcessRaisedException', 'spawn', 'SpawnContext',
                'start_processes']

__all__ = ['set_sharing_strategy', 'get_sharing_strategy',
           'get_all_sharing_strategies'] + _MP_NAMES

if _sys.platform in ('darwin', 'win32'):
    _all_sharing_strategies = {'file_system'}
    _S._SHARING['strategy'] = 'file_system'
else:
    _all_sharing_strategies = {'file_descriptor', 'file_system'}


def set_sharing_strategy(new_strategy):
    """Set how CPU tensors are shared between processes.

    Args:
        new_strategy (str): ``'file_descriptor'`` (the block's descriptor is sent; default
            on Linux) or ``'file_system'`` (the name of a file under /dev/shm is sent).

    Example::

        >>> ember.multiprocessing.set_sharing_strategy('file_system')
    """
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _S._SHARING['strategy'] = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors (see :func:`set_sharing_strategy`):
    ``'file_descriptor'`` by default.

    Example::

        >>> ember.multiprocessing.get_sharing_strategy()
        'file_descriptor'
    """
    return _S._SHARING['strategy']


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports: ``'file_descriptor'`` and
    ``'file_system'`` on Linux.

    Example::

        >>> sorted(ember.multiprocessing.get_all_sharing_strategies())
        ['file_descriptor', 'file_system']
    """
    return _all_sharing_strategies


def init_reductions():
    """Register ember's tensor/storage reductions with ``ForkingPickler`` (idempotent)."""
    from .reductions import init_reductions as _init
    _init()


def __getattr__(name):
    if name in _SPAWN_NAMES:
        import importlib
        mod = importlib.import_module(f'{__name__}.spawn')
        init_reductions()
        for n in _SPAWN_NAMES:   # the function ``spawn`` shadows the submodule, as in torch
            globals()[n] = getattr(mod, n)
        return globals()[name]
    elif name == 'reductions':
        import importlib
        v = importlib.import_module(f'{__name__}.{name}')
    elif name == 'multiprocessing':
        import multiprocessing as v
    elif not name.startswith('__'):
        import multiprocessing as _mp
        init_reductions()
        try:
            v = getattr(_mp, name)
        except AttributeError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = v
    return v


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SPAWN_NAMES))


if 'multiprocessing.reduction' in _sys.modules:
    init_reductions()


class _Package(type(_sys)):
    """This package's module type: importing the submodule ``spawn`` directly (``import
    ember.multiprocessing.spawn``) makes Python bind the submodule as the package's
    ``spawn`` attribute; the function ``spawn`` keeps that name instead, as in torch."""

    def __setattr__(self, name, value):
        if name == 'spawn' and isinstance(value, type(_sys)):
            value = value.spawn
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
