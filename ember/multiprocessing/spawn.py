"""``spawn`` / ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, join them,
and re-raise a child's failure in the parent with the child's traceback."""
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

ENV_VAR_PARALLEL_START = 'TORCH_MP_PARALLEL_START'

__all__ = ['ProcessContext', 'ProcessException', 'ProcessExitedException',
           'ProcessRaisedException', 'spawn', 'SpawnContext', 'start_processes']

log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A child process of :func:`start_processes` failed.

    Args:
        msg (str): the message.
        error_index (int): the failed process's index.
        error_pid (int): its pid.
    """
    __slots__ = ['error_index', 'error_pid']

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.error_pid))


class ProcessRaisedException(ProcessException):
    """A child process raised an exception; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code or was killed by a signal.

    Args:
        exit_code (int): the exit code (``-signum`` when killed by a signal).
        signal_name (str, optional): the signal's name.
    """
    __slots__ = ['exit_code']

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, i, args, error_file):
    """Child entry point: run ``fn(i, *args)``; on an exception write its traceback text."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        import traceback
        with open(error_file, 'wb') as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes started by :func:`start_processes` (``join=False`` returns it).

    Args:
        processes (list): the ``multiprocessing.Process`` objects.
        error_files (list): per process, the file a failing child writes its traceback to.

    Example::

        >>> # in a script (the spawned children import the function by name)
        >>> def work(i):
        ...     pass
        >>> ctx = ember.multiprocessing.start_processes(work, nprocs=2, join=False)
        >>> len(ctx.pids())
        2
        >>> while not ctx.join():
        ...     pass
    """

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The children's pids."""
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        end = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait for the processes (up to ``timeout`` seconds).

        Returns ``True`` once every process has exited successfully, ``False`` while some
        still run. When one fails, the others are terminated (after ``grace_period``) and
        :class:`ProcessRaisedException` (it raised; message has its traceback) or
        :class:`ProcessExitedException` (non-zero exit or signal) is raised.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for s in ready:
            i = self.sentinels.pop(s)
            p = self.processes[i]
            p.join()
            if p.exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting "
                            "via SIGKILL", p.pid)
                p.kill()
            p.join()
        proc = self.processes[failed]
        path = self.error_files[failed]
        if not os.access(path, os.R_OK):
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(
                    f"process {failed:d} terminated with signal {name}", error_index=failed,
                    error_pid=proc.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(
                f"process {failed:d} terminated with exit code {code:d}", error_index=failed,
                error_pid=proc.pid, exit_code=code)
        with open(path, 'rb') as fh:
            trace = pickle.load(fh)
        try:
            os.unlink(path)
        except OSError:
            pass
        raise ProcessRaisedException(
            f"\n\n-- Process {failed:d} terminated with the following error:\n" + trace,
            failed, proc.pid)


class SpawnContext(ProcessContext):
    """Deprecated name of :class:`ProcessContext` (creating one warns); same arguments.

    Example::

        >>> from ember.multiprocessing.spawn import SpawnContext, ProcessContext
        >>> issubclass(SpawnContext, ProcessContext)
        True
    """

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with the given start method.

    Args:
        fn (callable): the entry point, called as ``fn(i, *args)`` (``i``: process index);
            must be picklable (a module-level function) for 'spawn' / 'forkserver'.
        args (tuple): extra arguments.
        nprocs (int): number of processes.
        join (bool): wait for all of them (and re-raise a failure).
        daemon (bool): make them daemonic.
        start_method (str): 'spawn', 'fork' or 'forkserver'.

    Returns:
        None when ``join``, else a :class:`ProcessContext`.

    Example::

        >>> ember.multiprocessing.start_processes(fn, args=(), nprocs=2, start_method='fork')
    """
    from .reductions import init_reductions
    init_reductions()
    mp = multiprocessing.get_context(start_method)
    procs, files = [], []
    for i in range(nprocs):
        fd, name = tempfile.mkstemp(prefix='pytorch-errorfile-', suffix='.pickle')
        os.close(fd)
        os.unlink(name)
        p = mp.Process(target=_wrap, args=(fn, i, args, name), daemon=daemon)
        p.start()
        procs.append(p)
        files.append(name)
    ctx = ProcessContext(procs, files)
    if not join:
        return ctx
    while not ctx.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """Spawn ``nprocs`` processes running ``fn(i, *args)`` (the 'spawn' start method).

    A child that raises makes :meth:`ProcessContext.join` terminate the others and raise
    :class:`ProcessRaisedException` with the child's traceback; a child killed by a signal
    or exiting non-zero gives :class:`ProcessExitedException`.

    Args:
        fn (callable): module-level function called as ``fn(i, *args)``.
        args (tuple): extra arguments.
        nprocs (int): number of processes.
        join (bool): wait for them.
        daemon (bool): make them daemonic.
        start_method (str): anything but 'spawn' warns (use :func:`start_processes`).

    Example::

        >>> import ember.multiprocessing as mp
        >>> mp.spawn(train, args=(cfg,), nprocs=2)
    """
    if start_method != 'spawn':
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method='spawn')
