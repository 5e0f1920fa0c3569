"""``ember.overrides``: PyTorch's ``__torch_function__`` extension protocol.

A Tensor subclass (or any type) that defines ``__torch_function__`` is handed every
public op that receives one of its instances; a :class:`TorchFunctionMode` sees every op
called in its thread while it is active. Both go through the op seam
(``ember/_ops/_dispatch.py``).

Example::

    >>> class Logged(ember.Tensor):
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         print('called', func.__name__)
    ...         return super().__torch_function__(func, types, args, kwargs)
    >>> x = ember.ones(2).as_subclass(Logged)
    >>> y = x + 1
    called __add__

NOTE: unlike PyTorch, a type that is *not* a Tensor subclass but defines
``__torch_function__`` (a "tensor-like") is honoured once ember knows of it: pass the
class to :func:`enable_torch_function_for` (or call :func:`has_torch_function` on an
instance once), since ember does not scan the arguments of every op while no such type is
known (that scan would cost every op call).
"""
import functools
import weakref

from ._ops import _dispatch
from ._ops._dispatch import _tls, _overloaded, _handle, _NOTHING
from ._tensor import Tensor, _disabled_torch_function_impl

__all__ = ['get_ignored_functions', 'get_overridable_functions', 'get_testing_overrides',
           'handle_torch_function', 'has_torch_function', 'has_torch_function_unary',
           'has_torch_function_variadic', 'is_tensor_like', 'is_tensor_method_or_property',
           'resolve_name', 'wrap_torch_function', 'TorchFunctionMode', 'BaseTorchFunctionMode',
           'enable_torch_function_for', 'enable_reentrant_dispatch']

_known_tensor_likes = weakref.WeakSet()   # types given to enable_torch_function_for


def enable_torch_function_for(cls):
    """Make ops consult ``cls.__torch_function__`` for arguments of type ``cls``
    (a type that is not a Tensor subclass). Tensor subclasses need no call.

    Example::

        >>> class TensorLike:
        ...     @classmethod
        ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
        ...         return -1
        >>> ember.overrides.enable_torch_function_for(TensorLike)
        >>> ember.add(TensorLike(), 1)
        -1
    """
    if cls not in _known_tensor_likes:
        _known_tensor_likes.add(cls)
        _dispatch._activate('tensor-like')
        _dispatch._release_when_collected(cls, 'tensor-like')
    return cls


def _note(args):
    for a in args:
        c = type(a)
        if c not in _known_tensor_likes and not issubclass(c, Tensor) and \
                hasattr(c, '__torch_function__'):
            enable_torch_function_for(c)


def is_tensor_like(inp):
    """True if ``inp`` is a Tensor or an object whose type defines ``__torch_function__``.

    Example::

        >>> ember.overrides.is_tensor_like(ember.ones(1))
        True
    """
    return type(inp) is Tensor or hasattr(inp, '__torch_function__')


def has_torch_function(relevant_args):
    """True if ``__torch_function__`` dispatch applies to a call with ``relevant_args``: one
    of them has a type that overrides it, or a TorchFunctionMode is active in this thread.

    Args:
        relevant_args (iterable): the arguments to look at.

    Example::

        >>> ember.overrides.has_torch_function((ember.ones(1),))
        False
    """
    args = tuple(relevant_args)
    _note(args)
    if _tls.no_tf:
        _dispatch.consume_hop(_tls)
        return False
    if _tls.modes:
        return True
    if _tls.no_subclass:
        return False
    return _overloaded(args, None) is not None


def has_torch_function_unary(arg):
    """``has_torch_function((arg,))``: whether ``arg`` (one argument) needs
    ``__torch_function__`` handling. ``ember.nn.functional`` exports the same function.

    Args:
        arg: the argument to check.

    Example::

        >>> class Tagged(ember.Tensor):
        ...     pass
        >>> has_torch_function_unary(ember.ones(1).as_subclass(Tagged))
        True
        >>> has_torch_function_unary(ember.ones(1))
        False
    """
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)``: whether any of the arguments needs
    ``__torch_function__`` handling. ``ember.nn.functional`` exports the same function.

    Args:
        *args: the arguments to check.

    Example::

        >>> class Tagged(ember.Tensor):
        ...     pass
        >>> has_torch_function_variadic(ember.ones(1), ember.ones(1).as_subclass(Tagged))
        True
    """
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Dispatch ``public_api(*args, **kwargs)`` to the ``__torch_function__`` of the
    active mode and of ``relevant_args``' types, as ember's own ops do.

    Args:
        public_api (callable): the function being overridden (passed to the handlers).
        relevant_args (iterable): the arguments whose types may override it.

    Raises:
        TypeError: when every handler returns ``NotImplemented``.

    Example::

        >>> def norm2(x):
        ...     if ember.overrides.has_torch_function((x,)):
        ...         return ember.overrides.handle_torch_function(norm2, (x,), x)
        ...     return (x * x).sum()
    """
    relevant = tuple(relevant_args)
    _note(relevant)
    ov = None if (_tls.no_subclass or _tls.no_tf) else _overloaded(relevant, None)
    if _tls.no_tf:
        _dispatch.consume_hop(_tls)
        return public_api(*args, **kwargs)
    r = _handle(public_api, args, kwargs, ov)
    if r is _NOTHING:
        return public_api(*args, **kwargs)
    return r


def wrap_torch_function(dispatcher):
    """Decorator: make a Python function overridable; ``dispatcher(*args, **kwargs)``
    returns the relevant arguments.

    Example::

        >>> @ember.overrides.wrap_torch_function(lambda x: (x,))
        ... def double(x):
        ...     return x * 2
    """
    def deco(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return deco


def _namespaces():
    import sys
    return [(m, sys.modules[m]) for m in _dispatch._FUNCTION_NAMESPACES if m in sys.modules]


def get_overridable_functions():
    """``{namespace: [functions]}`` of the public functions that go through
    ``__torch_function__`` (``ember``, ``ember.Tensor``, ``ember.linalg``,
    ``ember.nn.functional``...).

    Example::

        >>> ember.add in ember.overrides.get_overridable_functions()[ember]
        True
    """
    from ._ops import _util
    out = {}
    for name, mod in _namespaces():
        out[mod] = list(_dispatch.public_functions(name).values())
    out[Tensor] = [Tensor.__dict__[a] for a in _util.METHODS if a in Tensor.__dict__]
    return out


def get_ignored_functions():
    """The public functions of ember's op namespaces that are *not* dispatched through
    ``__torch_function__`` (factories of modes, seeding, dtype settings, ...).

    Example::

        >>> ember.is_tensor in ember.overrides.get_ignored_functions()
        True
    """
    out = set()
    for name, mod in _namespaces():
        for attr in _dispatch._NOT_OPS:
            f = getattr(mod, attr, None)
            if f is not None and callable(f):
                out.add(f)
    out.update(f for f in vars(Tensor).values() if callable(f) and
               getattr(f, '__name__', '') in ('__init__', '__new__', 'as_subclass'))
    return out


def get_testing_overrides():
    """``{function: lambda with the same arguments returning -1}`` for every overridable
    function (for testing an override of each).

    Example::

        >>> over = ember.overrides.get_testing_overrides()
        >>> over[ember.add](1, 2)
        -1
    """
    out = {}
    for fs in get_overridable_functions().values():
        for f in fs:
            out[f] = lambda *a, **k: -1
    return out


def is_tensor_method_or_property(func):
    """True if ``func`` is a method or property of ``ember.Tensor`` (as dispatched to
    ``__torch_function__``), rather than a namespace function.

    NOTE: unlike PyTorch, ``ember.add`` and ``Tensor.add`` are one function object while
    no ``__torch_function__`` type is alive (ember binds each op once); the functions a
    ``__torch_function__`` handler receives are always told apart.

    Example::

        >>> ember.overrides.is_tensor_method_or_property(ember.Tensor.add)
        True
    """
    qn = getattr(func, '__qualname__', '') or ''
    if qn.startswith('Tensor.'):
        return True
    name = getattr(func, '__name__', None)
    return name is not None and Tensor.__dict__.get(name) is func


def resolve_name(f):
    """The public name of ``f`` as PyTorch spells it (``'torch.add'``,
    ``'torch.Tensor.add'``), or None.

    Example::

        >>> ember.overrides.resolve_name(ember.add)
        'torch.add'
    """
    mod = getattr(f, '__module__', None)
    qn = getattr(f, '__qualname__', None)
    if mod is None or qn is None:
        return None
    if mod == 'ember' and not qn.startswith('Tensor.'):
        for name, m in _namespaces():
            for attr, g in _dispatch.public_functions(name).items():
                if g is f or _dispatch.raw_op(g) is f:
                    return f"{name.replace('ember', 'torch', 1)}.{attr}"
    if qn.startswith('Tensor.'):
        return 'torch.' + qn
    return mod.replace('ember', 'torch', 1) + '.' + qn


class TorchFunctionMode:
    """A context manager whose ``__torch_function__(func, types, args, kwargs)`` is called
    for every op called in this thread while it is active (the innermost mode first; the
    mode is not active inside its own handler, so calling ``func`` there runs the op).

    Example::

        >>> class Count(ember.overrides.TorchFunctionMode):
        ...     def __init__(self):
        ...         super().__init__(); self.n = 0
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         self.n += 1
        ...         return func(*args, **(kwargs or {}))
        >>> with Count() as c:
        ...     _ = ember.ones(2) + 1
        >>> c.n
        2
    """

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        """Deprecated: ``with Mode(*args, **kwargs):``."""
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A TorchFunctionMode that runs every op unchanged (subclass it and override what
    you need).

    Example::

        >>> class Log(BaseTorchFunctionMode):
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         print(func.__name__)
        ...         return super().__torch_function__(func, types, args, kwargs)
        >>> with Log():
        ...     y = ember.add(ember.ones(2), 1)
        ones
        add
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode):
    _tls.modes = _tls.modes + (mode,)
    _dispatch._activate('mode')


def _pop_mode():
    modes = _tls.modes
    if not modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    _tls.modes = modes[:-1]
    _dispatch._deactivate('mode')
    return modes[-1]


def _get_current_function_mode():
    """The innermost active TorchFunctionMode of this thread, or None."""
    return _tls.modes[-1] if _tls.modes else None


def _get_current_function_mode_stack():
    """The active TorchFunctionModes of this thread, outermost first."""
    return list(_tls.modes)


class _pop_mode_temporarily:
    """Context manager: the innermost mode is inactive inside; yields it."""

    def __enter__(self):
        self.mode = _pop_mode()
        return self.mode

    def __exit__(self, *exc):
        _push_mode(self.mode)


class DisableTorchFunction:
    """Context manager: no ``__torch_function__`` handling (modes nor subclasses) in this
    thread inside it.

    Example::

        >>> class Tagged(ember.Tensor):
        ...     pass
        >>> t = ember.ones(2).as_subclass(Tagged)
        >>> with DisableTorchFunction():
        ...     type(t + 1).__name__
        'Tensor'
    """

    def __enter__(self):
        _tls.no_tf += 1
        return self

    def __exit__(self, *exc):
        _tls.no_tf -= 1


class DisableTorchFunctionSubclass:
    """Context manager: subclasses' ``__torch_function__`` is not called in this thread
    inside it (modes still are).

    Example::

        >>> class Tagged(ember.Tensor):
        ...     pass
        >>> t = ember.ones(2).as_subclass(Tagged)
        >>> type(t + 1).__name__
        'Tagged'
        >>> with DisableTorchFunctionSubclass():
        ...     type(t + 1).__name__
        'Tensor'
    """

    def __enter__(self):
        _tls.no_subclass += 1
        return self

    def __exit__(self, *exc):
        _tls.no_subclass -= 1


def redispatch_function(func, types, args, kwargs):
    """Call ``func(*args, **kwargs)`` skipping one level of ``__torch_function__``
    dispatch: the first ``__torch_function__`` check reached inside the call (``func``'s
    own, or the first op it applies) does not dispatch; the calls after it do. Use it in
    a ``__torch_function__`` handler to run the function's implementation while still
    seeing the ops inside it.

    Args:
        func (callable): the function being handled.
        types (tuple): the overloaded types (as passed to the handler).
        args (tuple): positional arguments.
        kwargs (dict or None): keyword arguments.

    Example::

        >>> class Logged(ember.Tensor):
        ...     @classmethod
        ...     def __torch_function__(cls, func, types, args, kwargs=None):
        ...         print(func.__name__)
        ...         return ember.overrides.redispatch_function(func, types, args, kwargs)
    """
    tls = _tls
    if not tls.one_hop:            # a skip already pending stays one skip
        tls.no_tf += 1
        tls.one_hop = True
    try:
        return func(*args, **(kwargs or {}))
    finally:
        _dispatch.consume_hop(tls)     # when nothing inside checked


class enable_reentrant_dispatch:
    """Context manager accepted for compatibility: PyTorch uses it to re-enter its
    dispatcher from Python; ember has no dispatcher levels to re-enter, so it does nothing.

    Example::

        >>> with ember.overrides.enable_reentrant_dispatch():
        ...     y = ember.ones(2) + 1
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def _is_torch_function_enabled():
    return not _tls.no_tf and not _tls.no_subclass


def _len_torch_function_stack():
    return len(_tls.modes)


__all__ += ['DisableTorchFunction', 'DisableTorchFunctionSubclass', 'redispatch_function']
_disabled_torch_function_impl = _disabled_torch_function_impl
