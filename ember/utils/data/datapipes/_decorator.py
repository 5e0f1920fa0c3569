"""DataPipe decorators: functional registration and (no-op friendly) validation switches."""
import functools
import inspect

__all__ = ['argument_validation', 'functional_datapipe', 'guaranteed_datapipes_determinism',
           'non_deterministic', 'runtime_validation', 'runtime_validation_disabled']

_determinism = [False]
_runtime_validation_enabled = [True]


class functional_datapipe:
    """Register a DataPipe class as a functional form: ``dp.name(*args)``.

    Args:
        name (str): the method name.
        enable_df_api_tracing (bool): accepted for compatibility.

    Example::

        >>> @functional_datapipe('double')
        ... class Double(IterDataPipe): ...
    """

    def __init__(self, name, enable_df_api_tracing=False):
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        from .datapipe import IterDataPipe, MapDataPipe
        if issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe or MapDataPipe")
        return cls


class guaranteed_datapipes_determinism:
    """Context manager: inside it, DataPipes marked :func:`non_deterministic` refuse to be
    built."""

    def __init__(self):
        self.prev = _determinism[0]
        _determinism[0] = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _determinism[0] = self.prev


def non_deterministic(arg):
    """Mark a DataPipe class (or, given a function of the constructor's arguments, the
    instances for which it returns True) as non-deterministic."""
    def check(cls, args, kwargs, fn=None):
        if _determinism[0] and (fn is None or fn(*args, **kwargs)):
            raise TypeError(f"{cls.__name__} is non-deterministic, but you set "
                            "'guaranteed_datapipes_determinism'. You can turn off determinism "
                            "for this DataPipe if that is acceptable for your application")

    if isinstance(arg, type):
        orig = arg.__new__

        def new(cls, *args, **kwargs):
            check(cls, args, kwargs)
            return orig(cls) if orig is object.__new__ else orig(cls, *args, **kwargs)
        arg.__new__ = new
        return arg

    def deco(cls):
        orig = cls.__new__

        def new(c, *args, **kwargs):
            check(c, args, kwargs, arg)
            return orig(c) if orig is object.__new__ else orig(c, *args, **kwargs)
        cls.__new__ = new
        return cls
    return deco


def argument_validation(f):
    """Check the arguments of a DataPipe constructor against its type annotations of
    DataPipe types (``isinstance`` checks)."""
    sig = inspect.signature(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            hint = f.__annotations__.get(name)
            if isinstance(hint, type) and not isinstance(value, hint):
                raise TypeError(f"Expected argument '{name}' as a {hint.__name__}, but found "
                                f"{type(value).__name__}")
        return f(*args, **kwargs)
    return wrapper


class runtime_validation_disabled:
    """Context manager turning :func:`runtime_validation` checks off."""

    def __init__(self):
        self.prev = _runtime_validation_enabled[0]
        _runtime_validation_enabled[0] = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _runtime_validation_enabled[0] = self.prev


def runtime_validation(f):
    """Decorate a DataPipe's ``__iter__`` (accepted; the element-type checks PyTorch makes
    from its typing annotations are not made).

    NOTE: unlike PyTorch, yielded elements are not type-checked."""
    if f.__name__ != '__iter__':
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        yield from f(self)
    return wrapper
