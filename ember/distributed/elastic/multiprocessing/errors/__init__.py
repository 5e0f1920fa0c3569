"""``record``: decorate a worker's entry point so that an uncaught exception is written to
the error file the launcher names (``TORCHELASTIC_ERROR_FILE``) before it propagates."""
import functools
import json
import os
import time
import traceback

from ....launcher.api import ChildFailedError

__all__ = ['record', 'ChildFailedError', 'ErrorHandler', 'get_error_handler']


class ErrorHandler:
    """Writes an exception as JSON to ``TORCHELASTIC_ERROR_FILE`` (when set).

    Example::

        >>> get_error_handler().record_exception(ValueError('bad'))   # to TORCHELASTIC_ERROR_FILE
    """

    def initialize(self):
        """Nothing to set up (kept for compatibility)."""

    def record_exception(self, e):
        """Write ``e`` and its traceback to the error file, if the launcher named one.

        Args:
            e (BaseException): the exception.
        """
        path = os.environ.get('TORCHELASTIC_ERROR_FILE')
        if not path:
            return
        data = {'message': {'message': f"{type(e).__name__}: {e}",
                            'extraInfo': {'py_callstack': traceback.format_exc(),
                                          'timestamp': str(int(time.time()))}}}
        with open(path, 'w') as fh:
            json.dump(data, fh)


def get_error_handler():
    """The :class:`ErrorHandler`.

    Example::

        >>> h = get_error_handler()
    """
    return ErrorHandler()


def record(fn=None, error_handler=None):
    """Decorator for a worker's main function: an uncaught exception is recorded to the
    launcher's error file, then re-raised.

    Example::

        >>> @record
        ... def main():
        ...     train()
    """
    if fn is None:
        return functools.partial(record, error_handler=error_handler)
    handler = error_handler or get_error_handler()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0 or se.code is None:
                return None
            raise
        except Exception as e:
            handler.record_exception(e)
            raise
    return wrapper
