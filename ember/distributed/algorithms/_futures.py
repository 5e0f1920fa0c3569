"""Futures of collectives for the comm hooks: the asynchronous collective's own future when
the collective library gives one, else a completed future after the blocking call."""


def _future_cls():
    try:
        from .._work import Future
        return Future
    except ImportError:      # pragma: no cover - collectives without Work objects
        return _DoneFuture


class _DoneFuture:
    """A future that is complete from birth (used when collectives run synchronously)."""

    def __init__(self, *, devices=None):
        self._value = None

    def set_result(self, v):
        self._value = v

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True

    def then(self, fn):
        f = _DoneFuture()
        f.set_result(fn(self))
        return f


def done_future(value):
    """A completed future holding ``value``."""
    f = _future_cls()()
    f.set_result(value)
    return f


def all_reduce_future(tensor, group=None, op=None):
    """All-reduce ``tensor`` in place (SUM unless ``op``); a future of ``[tensor]``."""
    from ... import distributed as dist
    op = dist.ReduceOp.SUM if op is None else op
    try:
        work = dist.all_reduce(tensor, op=op, group=group, async_op=True)
    except (NotImplementedError, TypeError):
        work = None
        dist.all_reduce(tensor, op=op, group=group)
        return done_future([tensor])
    if work is None:
        return done_future([tensor])
    return work.get_future()
