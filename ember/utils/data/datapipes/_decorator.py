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
    built (``TypeError``). The switch is turned on when the object is created and restored
    on exit.

    Example::

        >>> from ember.utils.data import IterDataPipe, non_deterministic
        >>> @non_deterministic
        ... class Shuffle(IterDataPipe):
        ...     def __init__(self, src): self.src = src
        ...     def __iter__(self): return iter(self.src)
        >>> with guaranteed_datapipes_determinism():
        ...     Shuffle([1, 2])
        Traceback (most recent call last):
          ...
        TypeError: Shuffle is non-deterministic, but you set 'guaranteed_datapipes_determinism'. ...
    """

    def __init__(self):
        self.prev = _determinism[0]
        _determinism[0] = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _determinism[0] = self.prev


def non_deterministic(arg):
    """Mark a DataPipe class as non-deterministic, or, given a function of the
    constructor's arguments, the instances for which that function returns True. Inside
    :func:`guaranteed_datapipes_determinism`, building such a DataPipe raises ``TypeError``.

    Args:
        arg (type or callable): the DataPipe class (used as ``@non_deterministic``) or the
            predicate (used as ``@non_deterministic(fn)``).

    Example::

        >>> from ember.utils.data import IterDataPipe
        >>> @non_deterministic(lambda src, shuffle=True: shuffle)
        ... class MaybeShuffle(IterDataPipe):
        ...     def __init__(self, src, shuffle=True): self.src = src
        ...     def __iter__(self): return iter(self.src)
        >>> list(MaybeShuffle([1, 2], shuffle=False))
        [1, 2]
    """
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
    """Decorate a DataPipe constructor so that each argument annotated with a class is
    checked with ``isinstance``; a mismatch raises ``TypeError``.

    Args:
        f (callable): the ``__init__`` to wrap.

    Example::

        >>> from ember.utils.data import IterDataPipe
        >>> class Wrap(IterDataPipe):
        ...     @argument_validation
        ...     def __init__(self, dp: IterDataPipe): self.dp = dp
        ...     def __iter__(self): return iter(self.dp)
        >>> Wrap([1])
        Traceback (most recent call last):
          ...
        TypeError: Expected argument 'dp' as a IterDataPipe, but found list
    """
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
    """Context manager turning :func:`runtime_validation` checks off (the previous setting
    comes back on exit).

    Example::

        >>> with runtime_validation_disabled():
        ...     pass   # DataPipes iterated here are not validated
    """

    def __init__(self):
        self.prev = _runtime_validation_enabled[0]
        _runtime_validation_enabled[0] = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _runtime_validation_enabled[0] = self.prev


def runtime_validation(f):
    """Decorate a DataPipe's ``__iter__`` (accepted; the element-type checks PyTorch makes
    from its typing annotations are not made). Decorating another method raises
    ``TypeError``.

    NOTE: unlike PyTorch, yielded elements are not type-checked.

    Args:
        f (callable): the ``__iter__`` to wrap.

    Example::

        >>> from ember.utils.data import IterDataPipe
        >>> class Count(IterDataPipe):
        ...     def __init__(self, n): self.n = n
        ...     @runtime_validation
        ...     def __iter__(self): yield from range(self.n)
        >>> list(Count(3))
        [0, 1, 2]
    """
    if f.__name__ != '__iter__':
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        yield from f(self)
    return wrapper
