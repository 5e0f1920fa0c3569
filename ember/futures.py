"""``ember.futures``: :class:`Future`, the result of an asynchronous computation, and the
helpers that combine futures (:func:`collect_all`, :func:`wait_all`). Collectives'
``Work.get_future()``, DDP communication hooks and ``ember.jit.fork`` return them.
"""
import threading

__all__ = ['Future', 'collect_all', 'wait_all']


class Future:
    """The result of an asynchronous computation (``torch.futures.Future``, also
    ``ember.Future``): ``set_result`` / ``set_exception`` complete it, ``wait`` blocks until
    then (and raises its error), ``then(callback)`` chains a new future whose value is
    ``callback(self)``, ``add_done_callback`` runs a callback once it completes.

    Args:
        devices (list, optional): accepted for compatibility (CPU only).

    Example::

        >>> fut = Future()
        >>> chained = fut.then(lambda f: f.value() + 1)
        >>> fut.set_result(1)
        >>> chained.wait()
        2

    NOTE: unlike PyTorch, a future made by ``ember.distributed``'s ``Work.get_future()``
    completes when it (or a future chained from it) is waited on or polled: MPI progresses
    inside those calls.
    """

    def __init__(self, *, devices=None):
        self._cv = threading.Condition()
        self._done = False
        self._value = None
        self._exc = None
        self._callbacks = []
        self._driver = None    # called (once) to drive completion: Work.wait of the source

    # -- completion
    def _drive(self):
        d = self._driver
        if d is not None and not self._done:
            self._driver = None
            try:
                d()
            except BaseException as e:   # the source failed: this future carries the error
                if not self._done:
                    self.set_exception(e)

    def done(self):
        """Whether the future has a value or an error (polls a pending source)."""
        if not self._done:
            # poll the source that drives this future (a collective's Work, or the future
            # this one was chained from)
            src = getattr(self._driver, '__self__', None)
            poll = getattr(src, 'is_completed', None) or getattr(src, 'done', None)
            if poll is not None:
                poll()
        return self._done

    def wait(self):
        """Block until the future completes; returns its value or raises its error."""
        self._drive()
        with self._cv:
            while not self._done:
                self._cv.wait()
        if self._exc is not None:
            raise self._exc
        return self._value

    def value(self):
        """The value of a completed future (raises its error, if it holds one)."""
        if not self.done():
            raise RuntimeError("Future's value is only available once it's completed.")
        if self._exc is not None:
            raise self._exc
        return self._value

    def _finish(self, value, exc):
        with self._cv:
            if self._done:
                raise RuntimeError("Future can only be marked completed once.")
            self._value, self._exc, self._done = value, exc, True
            cbs, self._callbacks = self._callbacks, []
            self._cv.notify_all()
        for cb in cbs:
            cb(self)

    def set_result(self, result):
        """Complete the future with ``result`` and run its callbacks."""
        self._finish(result, None)

    def set_exception(self, result):
        """Complete the future with the error ``result``; ``wait``/``value`` raise it."""
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._finish(None, result)

    def add_done_callback(self, callback):
        """Run ``callback(self)`` when the future completes (now, if it already has)."""
        with self._cv:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new future holding ``callback(self)`` once this one completes; if ``callback``
        raises, the new future holds a ``RuntimeError`` naming that error (as PyTorch's)."""
        child = Future()
        child._driver = self._drive_and_wait

        def run(fut):
            try:
                r = callback(fut)
            except Exception as e:
                err = RuntimeError(f"Got the following error when running the callback: "
                                   f"{type(e).__name__}: {e}")
                err.__cause__ = e
                child.set_exception(err)
            else:
                child.set_result(r)
        self.add_done_callback(run)
        return child

    def _drive_and_wait(self):
        self._drive()
        with self._cv:
            while not self._done:
                self._cv.wait()

    def __repr__(self):
        return f"<ember.futures.Future object at {hex(id(self))}>"


def collect_all(futures):
    """A future that completes once every future of ``futures`` has; its value is the
    list of those futures, or, if some failed, the error of the first of those (in list
    order).

    Args:
        futures (list): the futures to wait for.

    Returns:
        Future: completes with ``futures`` as its value.

    Example::

        >>> a, b = Future(), Future()
        >>> both = ember.futures.collect_all([a, b])
        >>> a.set_result(1); b.set_result(2)
        >>> [f.value() for f in both.wait()]
        [1, 2]
    """
    futures = list(futures)
    for f in futures:
        if not isinstance(f, Future):
            raise TypeError(f"collect_all(): expected a list of Futures, but got "
                            f"{type(f).__name__}")
    out = Future()
    pending = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            pending[0] -= 1
            last = pending[0] == 0
        if last:
            failed = next((f for f in futures if f._exc is not None), None)
            if failed is not None:
                out.set_exception(failed._exc)
            else:
                out.set_result(futures)
    if not futures:
        out.set_result(futures)

    def drive():       # make pending sources (collectives) progress
        for f in futures:
            f._drive()
    out._driver = drive
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Wait for every future of ``futures``; returns the list of their values, or raises
    the error of the first one (in list order) that failed.

    Args:
        futures (list): the futures to wait for.

    Example::

        >>> f = Future(); f.set_result(3)
        >>> ember.futures.wait_all([f])
        [3]
    """
    futures = list(futures)
    return [f.wait() for f in collect_all(futures).wait()]
