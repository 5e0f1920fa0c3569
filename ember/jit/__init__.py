"""``ember.jit``: the TorchScript entry points, for code written against ``torch.jit``.

NOTE: unlike PyTorch, ember has no TorchScript compiler. ``script`` and ``trace`` return
what they are given (``trace`` runs it once on the example inputs, as tracing does), so
scripted or traced models run eagerly and give the same results; the decorators
(``ignore``, ``unused``, ``export``, ``interface``, ``script_if_tracing``) return their
argument; ``is_scripting()`` and ``is_tracing()`` are False. TorchScript archives cannot be
written or read (``save``/``load`` raise ``NotImplementedError``; save a ``state_dict``
with :func:`ember.save` instead).
"""
import builtins
import collections.abc
import types
import typing

from ..futures import Future
from ..nn.modules.module import Module

__all__ = ['Attribute', 'CompilationUnit', 'Error', 'Final', 'Future', 'ScriptFunction',
           'ScriptModule', 'annotate', 'enable_onednn_fusion', 'export', 'export_opnames',
           'fork', 'freeze', 'ignore', 'interface', 'is_scripting', 'is_tracing', 'isinstance',
           'load', 'onednn_fusion_enabled', 'optimize_for_inference', 'save', 'script',
           'script_if_tracing', 'set_fusion_strategy', 'strict_fusion', 'trace',
           'trace_module', 'unused', 'wait']

Final = typing.Final

_NO_TORCHSCRIPT = ("ember has no TorchScript: {what} is not available; save and load a "
                   "state_dict with ember.save / ember.load instead")


class Error(Exception):
    """The error TorchScript code raises (``torch.jit.Error``)."""


class Attribute(typing.NamedTuple):
    """A module attribute with its TorchScript type: ``self.x = ember.jit.Attribute(0, int)``.
    In eager code (always, in ember) it is the pair ``(value, type)``.

    Args:
        value: the attribute's value.
        type: its type.

    Example::

        >>> ember.jit.Attribute(3, int).value
        3
    """
    value: typing.Any
    type: typing.Any


class ScriptModule(Module):
    """The type of a compiled TorchScript module.

    NOTE: unlike PyTorch, ``ember.jit.script`` / ``trace`` return the module itself, so no
    module is a ``ScriptModule``; the class exists for ``isinstance`` checks.

    Example::

        >>> isinstance(ember.nn.Linear(2, 2), ember.jit.ScriptModule)
        False
    """


class ScriptFunction:
    """The type of a compiled TorchScript function (see :class:`ScriptModule`: nothing is
    one in ember).

    Example::

        >>> isinstance(len, ember.jit.ScriptFunction)
        False
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError(_NO_TORCHSCRIPT.format(what="ScriptFunction"))


class CompilationUnit:
    """A unit of TorchScript source compiled together.

    NOTE: unlike PyTorch, constructing one raises ``NotImplementedError`` (no TorchScript
    compiler).

    Example::

        >>> ember.jit.CompilationUnit("def f(x): return x")
        Traceback (most recent call last):
        NotImplementedError: ...
    """

    def __init__(self, lang=None, _frames_up=0):
        raise NotImplementedError(_NO_TORCHSCRIPT.format(what="CompilationUnit"))


def is_scripting():
    """True inside TorchScript-compiled code; in ember, always False.

    Example::

        >>> ember.jit.is_scripting()
        False
    """
    return False


def is_tracing():
    """True while ``ember.jit.trace`` records a trace; in ember, always False (tracing runs
    the code eagerly).

    Example::

        >>> ember.jit.is_tracing()
        False
    """
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compile a function or module to TorchScript.

    NOTE: unlike PyTorch, returns ``obj`` unchanged: it runs eagerly with the same results.

    Args:
        obj (Callable, Module or class): what to script.
        optimize, example_inputs: accepted and ignored.

    Example::

        >>> f = ember.jit.script(lambda x: x + 1)
        >>> f(ember.ones(1))
        tensor([2.])
    """
    if optimize is not None:
        import warnings
        warnings.warn("`optimize` is deprecated and has no effect. Use `with "
                      "torch.jit.optimized_execution()` instead", FutureWarning, stacklevel=2)
    return obj


def _as_tuple(example_inputs):
    from .._tensor import Tensor
    if example_inputs is None:
        return ()
    if builtins.isinstance(example_inputs, Tensor) or not builtins.isinstance(
            example_inputs, tuple):
        return (example_inputs,)
    return example_inputs


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Trace a function or module by running it on example inputs.

    NOTE: unlike PyTorch, the result is ``func`` itself (run once on the example inputs):
    later calls run eagerly, so data-dependent control flow is not frozen to the traced
    path.

    Args:
        func (Callable or Module): what to trace.
        example_inputs (tuple or Tensor): positional example inputs.
        example_kwarg_inputs (dict, optional): keyword example inputs.
        optimize, check_trace, check_inputs, check_tolerance, strict: accepted and ignored.

    Example::

        >>> lin = ember.nn.Linear(2, 3)
        >>> traced = ember.jit.trace(lin, ember.ones(1, 2))
        >>> traced(ember.ones(1, 2)).shape
        torch.Size([1, 3])
    """
    if example_kwarg_inputs is not None and not builtins.isinstance(example_kwarg_inputs,
                                                                    dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs should be a dict")
    func(*_as_tuple(example_inputs), **(example_kwarg_inputs or {}))
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-05, strict=True, _force_outplace=False,
                 _module_class=None, _compilation_unit=None, example_inputs_is_kwarg=False,
                 _store_inputs=True):
    """Trace several methods of a module: ``inputs`` maps a method name to its example
    inputs.

    NOTE: unlike PyTorch, each method is run once and ``mod`` itself is returned.

    Args:
        mod (Module): the module.
        inputs (dict): ``{method name: example inputs}``.

    Example::

        >>> lin = ember.nn.Linear(2, 3)
        >>> ember.jit.trace_module(lin, {'forward': ember.ones(1, 2)}) is lin
        True
    """
    if not builtins.isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not builtins.isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for name, args in inputs.items():
        method = getattr(mod, name)
        if example_inputs_is_kwarg:
            method(**args)
        else:
            method(*_as_tuple(args))
    return mod


def ignore(drop=False, **kwargs):
    """Decorator: leave a function or method to Python when scripting (``drop=True``: replace
    it with a raise). In ember nothing is scripted, so it returns the function.

    Example::

        >>> @ember.jit.ignore
        ... def helper(x):
        ...     return x
    """
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Decorator: a method (or property) the compiler should replace with a raise. Returns
    ``fn`` in ember.

    Example::

        >>> @ember.jit.unused
        ... def debug_only(self, x):
        ...     return x
    """
    return fn


def export(fn):
    """Decorator: compile this method of a scripted module too. Returns ``fn`` in ember.

    Example::

        >>> @ember.jit.export
        ... def extra(self, x):
        ...     return x
    """
    return fn


def interface(obj):
    """Decorator: declare a TorchScript interface class. Returns ``obj`` in ember.

    Example::

        >>> @ember.jit.interface
        ... class Proto:
        ...     def forward(self, x):
        ...         pass
    """
    return obj


def script_if_tracing(fn):
    """Decorator: script ``fn`` lazily when it is first called during tracing. Returns
    ``fn`` in ember.

    Example::

        >>> f = ember.jit.script_if_tracing(lambda x: x)
    """
    return fn


def _script_if_tracing(fn):
    """The decorator behind :func:`script_if_tracing` (torchvision uses this spelling).
    Returns ``fn`` in ember.

    Example::

        >>> f = ember.jit._script_if_tracing(lambda x: x)
    """
    return fn


_overloads = {}


def _overload(func):
    """Declare an overload signature of a function for TorchScript; returns ``func``
    (ember records it and never compiles).

    Example::

        >>> @ember.jit._overload
        ... def f(x: int) -> int: ...
    """
    _overloads.setdefault(f"{func.__module__}.{func.__qualname__}", []).append(func)
    return func


def _overload_method(func):
    """Declare an overload signature of a method for TorchScript; returns ``func``
    (ember records it and never compiles).

    Example::

        >>> class M(ember.nn.Module):
        ...     @ember.jit._overload_method
        ...     def forward(self, x: int) -> int: ...
    """
    return _overload(func)


def annotate(the_type, the_value):
    """Give ``the_value`` a type for the TorchScript compiler; returns ``the_value``.

    Example::

        >>> ember.jit.annotate(list, [])
        []
    """
    return the_value


def _check(obj, tp):
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is None:
        if tp is None or tp is type(None):
            return obj is None
        return builtins.isinstance(obj, tp)
    if origin is typing.Union or origin is types.UnionType:
        return any(_check(obj, a) for a in args)
    if origin in (list, collections.abc.Sequence, collections.abc.MutableSequence):
        if not builtins.isinstance(obj, list):
            return False
        return not args or all(_check(x, args[0]) for x in obj)
    if origin is dict or origin in (collections.abc.Mapping, collections.abc.MutableMapping):
        if not builtins.isinstance(obj, dict):
            return False
        return not args or all(_check(k, args[0]) and _check(v, args[1])
                               for k, v in obj.items())
    if origin is tuple:
        if not builtins.isinstance(obj, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_check(x, args[0]) for x in obj)
        return len(obj) == len(args) and all(_check(x, a) for x, a in zip(obj, args))
    return builtins.isinstance(obj, origin)


_ONE = ('a contained type', 'a contained type')
_TWO = ('contained types', 'contained type')
_BARE = {list: ('list', _ONE, 'list[int]'), typing.List: ('List', _ONE, 'List[int]'),
         dict: ('dict', _TWO, 'dict[int, int]'), typing.Dict: ('Dict', _TWO, 'Dict[int, int]'),
         tuple: ('tuple', _ONE, 'tuple[int]'), typing.Tuple: ('Tuple', _ONE, 'Tuple[int]'),
         typing.Optional: ('Optional', _ONE, 'Optional[int]')}


def isinstance(obj, target_type):
    """Whether ``obj`` is of ``target_type``, which may be a parameterized container type
    (``List[int]``, ``Dict[str, Tensor]``, ``Optional[T]``, ``Tuple[...]``, ``Union``):
    containers are checked element by element.

    Args:
        obj: the object to check.
        target_type (type or tuple of types): the type(s) to check against.

    Raises:
        RuntimeError: for a container type without its element types (``list``, ``Dict``).

    Example::

        >>> from typing import List
        >>> ember.jit.isinstance([1, 2], List[int])
        True
    """
    if builtins.isinstance(target_type, tuple):
        return any(isinstance(obj, t) for t in target_type)
    if builtins.isinstance(target_type, str):
        raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or "
                           "a tuple of types")
    bare = _BARE.get(target_type) if builtins.isinstance(target_type, typing.Hashable) \
        else None
    if bare is not None:
        name, (without, add), example = bare
        raise RuntimeError(f"Attempted to use {name} without {without}. Please add {add}, "
                           f"e.g. {example}")
    return _check(obj, target_type)


def fork(func, *args, **kwargs):
    """Start ``func(*args, **kwargs)`` asynchronously; returns a :class:`Future` of its
    result. Outside TorchScript (always, in ember) the call runs at once, in the caller's
    thread, and its errors are raised here, as PyTorch's eager ``fork`` does.

    Example::

        >>> fut = ember.jit.fork(lambda x: x + 1, 1)
        >>> ember.jit.wait(fut)
        2
    """
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """Wait for a :class:`Future` made by :func:`fork`; returns its value.

    Example::

        >>> ember.jit.wait(ember.jit.fork(abs, -3))
        3
    """
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Freeze a scripted module for inference (parameters become constants).

    NOTE: unlike PyTorch, any module in eval mode is accepted (``script`` returns the
    module itself) and it is returned as it is.

    Args:
        mod (Module): a module in eval mode.
        preserved_attrs, optimize_numerics: accepted and ignored.

    Example::

        >>> m = ember.jit.freeze(ember.jit.script(ember.nn.Linear(2, 2).eval()))
    """
    if not builtins.isinstance(mod, Module):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Freeze (switching to eval mode if needed) and optimize a scripted module for
    inference.

    NOTE: unlike PyTorch, any module is accepted; it is put in eval mode and returned.

    Example::

        >>> m = ember.jit.optimize_for_inference(ember.jit.script(ember.nn.Linear(2, 2)))
        >>> m.training
        False
    """
    if not builtins.isinstance(mod, Module):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please "
                           "use torch.jit.script or torch.jit.trace to script your "
                           "'nn.Module'.")
    if mod.training:
        mod = freeze(mod.eval())
    return mod


_fusion = {'strategy': [('STATIC', 2), ('DYNAMIC', 10)], 'onednn': False}


def set_fusion_strategy(strategy):
    """Set how many specializations of each fusion kind the (absent) fuser may make;
    returns the previous strategy. Validated as PyTorch does; no effect in ember.

    Args:
        strategy (list of (str, int)): pairs of ``'STATIC'`` / ``'DYNAMIC'`` and a depth.

    Example::

        >>> old = ember.jit.set_fusion_strategy([('STATIC', 2)])
        >>> old
        [('STATIC', 2), ('DYNAMIC', 10)]
    """
    new = []
    for kind, depth in strategy:
        if kind not in ('STATIC', 'DYNAMIC'):
            raise ValueError(f"FusionBehavior only supported 'STATIC' or 'DYNAMIC', got: "
                             f"{kind}")
        new.append((kind, int(depth)))
    old, _fusion['strategy'] = _fusion['strategy'], new
    return old


def enable_onednn_fusion(enabled):
    """Switch oneDNN graph fusion in TorchScript on or off (recorded; no effect in
    ember).

    Example::

        >>> ember.jit.enable_onednn_fusion(False)
    """
    _fusion['onednn'] = bool(enabled)


def onednn_fusion_enabled():
    """Whether :func:`enable_onednn_fusion` switched oneDNN fusion on.

    Example::

        >>> ember.jit.onednn_fusion_enabled()
        False
    """
    return _fusion['onednn']


class strict_fusion:
    """Context manager that makes the TorchScript fuser fail unless everything inside is
    fused. Outside TorchScript (always, in ember) it does nothing.

    Example::

        >>> with ember.jit.strict_fusion():
        ...     y = ember.ones(2) * 2
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def save(m, f, _extra_files=None):
    """Save a scripted module as a TorchScript archive.

    NOTE: unlike PyTorch, raises ``NotImplementedError``: ember has no TorchScript; save
    ``m.state_dict()`` with :func:`ember.save`.

    Example::

        >>> ember.save(ember.nn.Linear(2, 2).state_dict(), 'weights.pt')
    """
    raise NotImplementedError(_NO_TORCHSCRIPT.format(what="torch.jit.save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Load a TorchScript archive.

    NOTE: unlike PyTorch, raises ``NotImplementedError``: a TorchScript archive holds
    compiled code ember cannot run; load a ``state_dict`` with :func:`ember.load`.

    Example::

        >>> sd = ember.load('weights.pt')
    """
    raise NotImplementedError(_NO_TORCHSCRIPT.format(what="torch.jit.load"))


def export_opnames(m):
    """The operator names a scripted module uses (for mobile builds).

    NOTE: unlike PyTorch, raises ``NotImplementedError`` (no TorchScript).

    Example::

        >>> ember.jit.export_opnames(ember.nn.Linear(2, 2))
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    raise NotImplementedError(_NO_TORCHSCRIPT.format(what="torch.jit.export_opnames"))
