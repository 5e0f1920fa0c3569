"""``ember.backends.cudnn``: cuDNN switches. Ember does not use cuDNN (CuPy kernels on CUDA),
so ``is_available()`` is False and the flags are only stored.

Example::

    >>> import ember.backends.cudnn as cudnn
    >>> cudnn.benchmark = True
"""
import contextlib

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True


def is_available():
    """False: ember does not use cuDNN."""
    return False


def version():
    """None: cuDNN is not used."""
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the cudnn flags inside the region and restore them after."""
    g = globals()
    names = ('enabled', 'benchmark', 'benchmark_limit', 'deterministic', 'allow_tf32')
    old = {n: g[n] for n in names}
    g.update(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
             deterministic=deterministic, allow_tf32=allow_tf32)
    try:
        yield
    finally:
        g.update(old)


from .._flags import freeze_guard as _freeze_guard  # noqa: E402

_freeze_guard(__name__, ('enabled', 'benchmark', 'deterministic', 'allow_tf32'))
