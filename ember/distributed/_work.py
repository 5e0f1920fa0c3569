"""``Work`` (the handle an ``async_op=True`` collective returns) and the ``Future`` its
``get_future()`` gives, completed lazily: nothing runs in the background, a pending MPI
request makes progress whenever ``wait``/``is_completed``/``done``/``value`` is called.
"""
import threading
import time

from . import DistBackendError
from ..futures import Future

__all__ = ['Future', 'Work']

# set by the monitor thread when the rendezvous server reports that a rank's process exited
# before finalizing MPI: waits then fail instead of blocking forever
_peer = {'dead': None}


def _wait_all(reqs, statuses=None, timeout_s=None, name='operation', rank=-1):
    """Wait for MPI requests by polling (MPI progresses inside each test): fails with
    ``DistBackendError`` after ``timeout_s`` seconds or once a peer process is known dead,
    where a blocking MPI call would wait forever. Spins like MPI's own waits for the first
    20 ms, then yields the CPU (which matters when ranks outnumber cores)."""
    if len(reqs) == 1 and statuses is None:
        test = reqs[0].Test
    else:
        from mpi4py import MPI

        def test():
            return MPI.Request.Testall(reqs, statuses)
    try:
        _poll(test, timeout_s, name, rank)
    except DistBackendError:
        raise
    except Exception as e:     # an MPI error (mpi4py.MPI.Exception)
        raise DistBackendError(f"[Rank {rank}] {name} failed: {e}") from None


def _poll(test, timeout_s, name, rank):
    if test():
        return
    start = time.monotonic()
    n = 0
    while not test():
        n += 1
        if n & 63:
            continue
        if _peer['dead']:
            raise DistBackendError(f"[Rank {rank}] {name} failed: {_peer['dead']}")
        el = time.monotonic() - start
        if timeout_s is not None and el > timeout_s:
            raise DistBackendError(f"[Rank {rank}] {name} timed out after "
                                   f"{int(timeout_s * 1000)} ms (the group's timeout)")
        if el > 0.2:               # a long wait (a rank still computing): stop spinning
            time.sleep(0.0002)
        elif el > 0.02:
            time.sleep(0)


class Work:
    """A handle on an asynchronous collective or point-to-point operation.

    ``wait()`` blocks until the operation is done (the output tensors then hold the
    result); ``is_completed()`` polls; ``get_future()`` gives a :class:`Future` whose value
    is the list of output tensors.

    Example::

        >>> work = dist.all_reduce(t, async_op=True)
        >>> work.wait()
        True
    """

    def __init__(self, reqs=None, finish=None, result=None, op_name='', future_value=None,
                 timeout_s=None, rank=-1):
        self._reqs = [r for r in (reqs or []) if r is not None]
        self._finish_fn = finish
        self._result = result if result is not None else []
        self._fvalue = future_value
        self._op_name = op_name
        self._done = False
        self._exc = None
        self._fut = None
        self._source = -1
        self._statuses = None
        self._timeout_s = timeout_s
        self._rank = rank
        self._lock = threading.RLock()

    def _complete(self, exc=None):
        with self._lock:
            if self._done:
                return
            if exc is None and self._finish_fn is not None:
                try:
                    self._finish_fn(self)
                except BaseException as e:
                    exc = e
            self._exc = exc
            self._done = True
        if self._fut is not None and not self._fut._done:
            if exc is not None:
                self._fut.set_exception(exc)
            else:
                self._fut.set_result(self._future_value())

    def _future_value(self):
        return self._fvalue if self._fvalue is not None else self._result

    def is_completed(self):
        """Whether the operation has finished (polls it without blocking)."""
        with self._lock:
            if self._done:
                return True
            try:
                ok = True
                if self._reqs:
                    from mpi4py import MPI
                    ok = MPI.Request.Testall(self._reqs, self._statuses)
            except Exception as e:
                self._complete(DistBackendError(str(e)))
                return True
            if ok:
                self._complete()
            return self._done

    def wait(self, timeout=None):
        """Block until the operation has finished; returns ``True``.

        Args:
            timeout (timedelta, optional): raise ``DistBackendError`` if the operation has
                not finished by then (default: the group's timeout).
        """
        with self._lock:
            if not self._done:
                secs = self._timeout_s if timeout is None else (
                    timeout.total_seconds() if hasattr(timeout, 'total_seconds') else float(timeout))
                try:
                    if self._reqs:
                        _wait_all(self._reqs, self._statuses, secs, self._op_name or 'operation',
                                  self._rank)
                except DistBackendError as e:    # timed out, or a peer died: the work failed
                    self._complete(e)
                except Exception as e:
                    self._complete(DistBackendError(str(e)))
                else:
                    self._complete()
            if self._exc is not None:
                raise self._exc
            return True

    def synchronize(self):
        """Wait for the operation (CPU tensors: the same as :meth:`wait`)."""
        self.wait()

    def block_current_stream(self):
        """Wait for the operation (no streams on CPU)."""
        self.wait()

    def is_success(self):
        """Whether the operation finished without an error."""
        return self.is_completed() and self._exc is None

    def exception(self):
        """The error the operation finished with, or ``None``."""
        return self._exc

    def result(self):
        """The output tensors of the operation (a list)."""
        self.wait()
        return self._result

    def source_rank(self):
        """The rank a ``recv`` from any source received from."""
        self.wait()
        if self._source < 0:
            raise RuntimeError("sourceRank() may only be called on recv-from-any-source work")
        return self._source

    def get_future(self):
        """A :class:`Future` completed with the output tensors when the operation ends."""
        with self._lock:
            if self._fut is None:
                f = Future()
                self._fut = f
                if self._done:
                    if self._exc is not None:
                        f.set_exception(self._exc)
                    else:
                        f.set_result(self._future_value())
                else:
                    f._driver = self.wait
            return self._fut

    @staticmethod
    def boxed(work):
        return work

    @staticmethod
    def unbox(obj):
        return obj

    def __repr__(self):
        return f"<ember.distributed.Work {self._op_name} completed={self._done}>"


def _done_work(result=None, op_name='', future_value=None):
    """A Work that has already finished."""
    w = Work(None, None, result, op_name, future_value)
    w._done = True
    return w
