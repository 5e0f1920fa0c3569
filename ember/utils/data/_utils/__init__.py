"""DataLoader internals: collation, fetching, worker processes."""
import atexit as _atexit

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between a worker's checks that its parent is alive (and the main process's
checks that its workers are, when it waits without a ``timeout``)."""

python_exit_status = False
"""True once the interpreter is exiting (workers are then left to the daemon cleanup)."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


_atexit.register(_set_python_exit_flag)


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback.

    Args:
        exc_info (tuple, optional): ``sys.exc_info()`` (default: the one being handled).
        where (str): where it was caught, e.g. ``'in DataLoader worker process 0'``.
    """

    def __init__(self, exc_info=None, where="in background"):
        import sys
        import traceback
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the exception again, of its type, with the original traceback text."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    """A KeyError's message printed as is (``KeyError`` would show its repr)."""

    def __repr__(self):
        return self


from . import collate, fetch, worker  # noqa: E402,F401
