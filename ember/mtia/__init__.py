"""``ember.mtia``: Meta's MTIA accelerators, as ``torch.mtia`` answers on a build without MTIA.

NOTE: unlike PyTorch built with MTIA, ember has no MTIA backend: ``is_available()`` is
False and ``device_count()`` 0; seeding does nothing, and the calls that need the backend
raise PyTorch's errors.
"""
__all__ = ['is_available', 'device_count', 'is_initialized', 'init', 'current_device',
           'synchronize', 'empty_cache', 'is_bf16_supported', 'manual_seed', 'manual_seed_all',
           'seed', 'initial_seed', 'get_rng_state', 'memory_allocated']

_NO_MTIA = ("Torch not compiled with MTIA enabled. Ensure you have `import "
            "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
            "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def is_available():
    """Whether an MTIA device can be used: always False in ember.

    Example::

        >>> ember.mtia.is_available()
        False
    """
    return False


def device_count():
    """The number of MTIA devices: 0.

    Example::

        >>> ember.mtia.device_count()
        0
    """
    return 0


def is_initialized():
    """Whether the MTIA state is initialized: False.

    Example::

        >>> ember.mtia.is_initialized()
        False
    """
    return False


def is_bf16_supported(including_emulation=True):
    """Whether MTIA supports bfloat16: True, as PyTorch answers.

    Example::

        >>> ember.mtia.is_bf16_supported()
        True
    """
    return True


def _raising(name, exc, msg):
    def f(*args, **kwargs):
        raise exc(msg)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``torch.mtia.{name}``: needs the MTIA backend, so it raises "
                 f"``{exc.__name__}``.\n\nExample::\n\n    >>> ember.mtia.{name}()   # doctest: +SKIP\n")
    return f


init = _raising('init', AssertionError, _NO_MTIA)
initial_seed = _raising('initial_seed', AssertionError, _NO_MTIA)
get_rng_state = _raising('get_rng_state', AssertionError, _NO_MTIA)
current_device = _raising('current_device', RuntimeError,
                          "Cannot execute getCurrentDevice() without MTIA backend.")
synchronize = _raising('synchronize', RuntimeError,
                       "Cannot execute getCurrentDevice() without MTIA backend.")
empty_cache = _raising('empty_cache', RuntimeError,
                       "Cannot execute emptyCache() without MTIA backend.")


def manual_seed(seed):
    """Seed the MTIA generator: nothing to do without the backend.

    Example::

        >>> ember.mtia.manual_seed(0)
    """


def manual_seed_all(seed):
    """Seed every MTIA generator: nothing to do without the backend.

    Example::

        >>> ember.mtia.manual_seed_all(0)
    """


def seed():
    """Seed the MTIA generator randomly: nothing to do without the backend.

    Example::

        >>> ember.mtia.seed()
    """


def memory_allocated(device=None):
    """Bytes allocated on an MTIA device: 0.

    Example::

        >>> ember.mtia.memory_allocated()
        0
    """
    return 0
