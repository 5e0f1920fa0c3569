"""``ember.xpu``: Intel GPUs, as ``torch.xpu`` answers on a build without XPU support.

NOTE: unlike PyTorch built with XPU, ember has no XPU backend: ``is_available()`` is False
and ``device_count()`` 0; the seeding and cache calls do nothing (as PyTorch's do without a
device) and the calls that need a device raise PyTorch's ``AssertionError``.
"""
__all__ = ['is_available', 'device_count', 'is_initialized', 'init', 'current_device',
           'synchronize', 'get_device_name', 'is_bf16_supported', 'manual_seed',
           'manual_seed_all', 'seed', 'seed_all', 'initial_seed', 'get_rng_state',
           'set_rng_state', 'empty_cache', 'memory_allocated', 'memory_reserved',
           'max_memory_allocated', 'max_memory_reserved']

_NO_XPU = "Torch not compiled with XPU enabled"


def _lazy_init():
    raise AssertionError(_NO_XPU)


def is_available():
    """Whether an XPU can be used: always False in ember.

    Example::

        >>> ember.xpu.is_available()
        False
    """
    return False


def device_count():
    """The number of XPUs: 0.

    Example::

        >>> ember.xpu.device_count()
        0
    """
    return 0


def is_initialized():
    """Whether the XPU state is initialized: False.

    Example::

        >>> ember.xpu.is_initialized()
        False
    """
    return False


def is_bf16_supported(including_emulation=True):
    """Whether XPUs support bfloat16: False without an XPU.

    Example::

        >>> ember.xpu.is_bf16_supported()
        False
    """
    return False


def _needs_device(name):
    def f(*args, **kwargs):
        _lazy_init()
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``torch.xpu.{name}``: needs an XPU, so it raises ``AssertionError`` "
                 "(\"Torch not compiled with XPU enabled\").\n\nExample::\n\n"
                 f"    >>> ember.xpu.{name}()   # doctest: +SKIP\n")
    return f


init = _needs_device('init')
current_device = _needs_device('current_device')
synchronize = _needs_device('synchronize')
get_device_name = _needs_device('get_device_name')
initial_seed = _needs_device('initial_seed')
get_rng_state = _needs_device('get_rng_state')
set_rng_state = _needs_device('set_rng_state')


def _nothing(name, result=None):
    def f(*args, **kwargs):
        return result
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``torch.xpu.{name}``: without an XPU there is nothing to do; returns "
                 f"{result!r}.\n\nExample::\n\n    >>> ember.xpu.{name}()   # doctest: +SKIP\n")
    return f


manual_seed = _nothing('manual_seed')
manual_seed_all = _nothing('manual_seed_all')
seed = _nothing('seed')
seed_all = _nothing('seed_all')
empty_cache = _nothing('empty_cache')
memory_allocated = _nothing('memory_allocated', 0)
memory_reserved = _nothing('memory_reserved', 0)
max_memory_allocated = _nothing('max_memory_allocated', 0)
max_memory_reserved = _nothing('max_memory_reserved', 0)
