"""``ember.compiler``: the ``torch.compiler`` entry points, for code written against them.

NOTE: unlike PyTorch, ember has no compiler: :func:`compile` returns its argument (see
:func:`ember.compile`), the predicates ``is_compiling`` / ``is_dynamo_compiling`` /
``is_exporting`` are False, and the decorators return the function they decorate, so code
that asks "am I being compiled?" takes its eager path, as it does under PyTorch without
``torch.compile``.
"""
import contextlib
import functools

from ..nn.modules.module import Module

__all__ = ['compile', 'reset', 'allow_in_graph', 'substitute_in_graph', 'list_backends',
           'disable', 'set_default_backend', 'get_default_backend', 'set_stance',
           'set_enable_guard_collectives', 'cudagraph_mark_step_begin', 'wrap_numpy',
           'is_compiling', 'is_dynamo_compiling', 'is_exporting', 'assume_constant_result',
           'nested_compile_region', 'OptimizedModule', 'keep_portable_guards_unsafe',
           'keep_tensor_guards_unsafe', 'skip_all_guards_unsafe',
           'skip_guard_on_all_nn_modules_unsafe', 'skip_guard_on_globals_unsafe',
           'skip_guard_on_inbuilt_nn_modules_unsafe', 'save_cache_artifacts',
           'load_cache_artifacts']

_state = {'backend': 'inductor', 'guard_collectives': False}
_BACKENDS = ('cudagraphs', 'inductor', 'openxla', 'tvm')


def compile(*args, **kwargs):
    """``ember.compile``: returns the function or module unchanged (NOTE: no compiler).

    Example::

        >>> f = ember.compiler.compile(lambda x: x + 1)
    """
    from .._misc import compile as _compile
    return _compile(*args, **kwargs)


class OptimizedModule(Module):
    """What ``ember.compile(module)`` returns: a module holding the original as its
    submodule ``_orig_mod`` (so its ``state_dict`` keys start with ``_orig_mod.``, as
    PyTorch's), calling it, and reading and writing every other attribute on it.

    NOTE: unlike PyTorch, nothing is compiled: calls run the original module eagerly.

    Args:
        mod (Module): the module to wrap.

    Example::

        >>> lin = ember.nn.Linear(2, 3)
        >>> c = ember.compile(lin)
        >>> list(c.state_dict())
        ['_orig_mod.weight', '_orig_mod.bias']
        >>> c.in_features
        2
    """
    _own = frozenset({'_orig_mod', 'forward', '_torchdynamo_orig_callable', '__dict__',
                      'dynamo_ctx', 'get_compiler_config'})

    def __init__(self, mod, dynamo_ctx=None):
        super().__init__()
        object.__delattr__(self, 'training')     # read and written on the original
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx
        self._torchdynamo_orig_callable = mod.forward

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        if name == '_orig_mod':
            return self._modules['_orig_mod']
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._own:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._own:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)


def reset():
    """Clear the compiler's caches (there are none in ember).

    Example::

        >>> ember.compiler.reset()
    """


def is_compiling():
    """True while ``torch.compile`` traces the code; always False in ember.

    Example::

        >>> ember.compiler.is_compiling()
        False
    """
    return False


def is_dynamo_compiling():
    """True while Dynamo traces the code; always False in ember.

    Example::

        >>> ember.compiler.is_dynamo_compiling()
        False
    """
    return False


def is_exporting():
    """True while ``torch.export`` traces the code; always False in ember.

    Example::

        >>> ember.compiler.is_exporting()
        False
    """
    return False


def allow_in_graph(fn):
    """Decorator: let the compiler put calls of ``fn`` in the graph as they are. Returns
    ``fn``.

    Example::

        >>> f = ember.compiler.allow_in_graph(abs)
    """
    return fn


def assume_constant_result(fn):
    """Decorator: the compiler may treat ``fn``'s result as a constant. Returns ``fn``.

    Example::

        >>> f = ember.compiler.assume_constant_result(lambda: 3)
    """
    return fn


def disable(fn=None, recursive=True, *, reason=None):
    """Decorator: never compile ``fn``. Returns ``fn`` (or, called without ``fn``, a
    decorator that does).

    Example::

        >>> @ember.compiler.disable
        ... def eager_only(x):
        ...     return x
    """
    return _identity_decorator(fn)


def _identity_decorator(fn):
    """``fn`` itself, or (for the ``@deco(...)`` form, ``fn`` None) a decorator returning
    its argument."""
    return (lambda f: f) if fn is None else fn


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Decorator: compile ``fn`` once and reuse it. Returns ``fn`` (or a decorator).

    Example::

        >>> @ember.compiler.nested_compile_region
        ... def block(x):
        ...     return x
    """
    return _identity_decorator(fn)


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """Decorator: register a Python replacement of ``original_fn`` for the compiler to
    trace. Eagerly (always, in ember) the decorated name calls ``original_fn``.

    Args:
        original_fn (Callable): the function being replaced.
        skip_signature_check (bool): do not require both to have the same signature.

    Raises:
        TypeError: when the signatures differ (both known and the check not skipped).

    Example::

        >>> @ember.compiler.substitute_in_graph(len)
        ... def my_len(obj, /):
        ...     return sum(1 for _ in obj)
        >>> my_len([1, 2])
        2
    """
    import inspect
    if not callable(original_fn):
        raise TypeError(f"substitute_in_graph expects a function but got "
                        f"{type(original_fn)!r}")

    def deco(fn):
        if not skip_signature_check:
            try:
                a, b = inspect.signature(original_fn), inspect.signature(fn)
            except (TypeError, ValueError):
                a = b = None
            if a is not None and a != b:
                raise TypeError(f"Signature mismatch between {original_fn} and {fn}: "
                                f"{a} != {b}")

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            return original_fn(*args, **kwargs)
        return wrapped
    return deco


def list_backends(exclude_tags=('debug', 'experimental')):
    """Names accepted as ``ember.compile(backend=...)`` (NOTE: every one runs eagerly).

    Example::

        >>> 'inductor' in ember.compiler.list_backends()
        True
    """
    return list(_BACKENDS)


def set_default_backend(backend):
    """Set the backend ``compile`` uses when none is given (recorded; ember runs eagerly).

    Example::

        >>> ember.compiler.set_default_backend('inductor')
    """
    _state['backend'] = backend


def get_default_backend():
    """The backend set by :func:`set_default_backend` (``'inductor'`` by default).

    Example::

        >>> ember.compiler.get_default_backend()
        'inductor'
    """
    return _state['backend']


class set_stance(contextlib.ContextDecorator):
    """Set how compiled functions behave (``'default'``, ``'force_eager'``, ...) as a
    call, context manager or decorator; ember always runs
    eagerly.

    Args:
        stance (str): the stance (recorded only).

    Example::

        >>> with ember.compiler.set_stance('force_eager'):
        ...     y = ember.ones(1)
    """

    def __init__(self, stance='default', *, skip_guard_eval_unsafe=False, force_backend=None):
        self.stance = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def set_enable_guard_collectives(enabled):
    """Whether compiled code synchronises its guards across ranks (recorded; returns the
    previous value).

    Example::

        >>> ember.compiler.set_enable_guard_collectives(False)
        False
    """
    old, _state['guard_collectives'] = _state['guard_collectives'], bool(enabled)
    return old


def cudagraph_mark_step_begin():
    """Mark the start of a step for CUDA graph trees (nothing to do in ember).

    Example::

        >>> ember.compiler.cudagraph_mark_step_begin()
    """


def wrap_numpy(fn):
    """Decorator: let a function written for NumPy arrays take and return tensors. Tensor
    arguments are passed as arrays (``tensor.numpy()``), array results come back as
    tensors (NumPy scalars stay scalars).

    Example::

        >>> import numpy as np
        >>> @ember.compiler.wrap_numpy
        ... def f(x):
        ...     return x ** 2
        >>> f(ember.tensor([1., 2.]))
        tensor([1., 4.])
    """
    import numpy as np
    from .._tensor import Tensor

    def to_np(x):
        if isinstance(x, Tensor):
            return x.numpy()
        if isinstance(x, (list, tuple)):
            return type(x)(to_np(v) for v in x)
        if isinstance(x, dict):
            return {k: to_np(v) for k, v in x.items()}
        return x

    def to_tensor(x):
        from .. import as_tensor
        if isinstance(x, np.ndarray):
            return as_tensor(x)
        if isinstance(x, (list, tuple)):
            return type(x)(to_tensor(v) for v in x)
        if isinstance(x, dict):
            return {k: to_tensor(v) for k, v in x.items()}
        return x

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return to_tensor(fn(*to_np(args), **to_np(kwargs)))
    return wrapped


# ---------------------------------------------------------------- guard filters
# Functions for ``compile(options={"guard_filter_fn": ...})``: given the guard entries
# (objects with ``guard_type``, ``is_global``, ``value``, ``orig_guard.source``), one bool
# per entry, True to keep the guard. NOTE: unlike PyTorch, ember.compile makes no guards, so
# it never calls them; they compute the same answer as PyTorch's on the same entries.

def skip_all_guards_unsafe(guard_entries):
    """Drop every guard.

    Example::

        >>> ember.compiler.skip_all_guards_unsafe([object(), object()])
        [False, False]
    """
    return [False for _ in guard_entries]


def skip_guard_on_globals_unsafe(guard_entries):
    """Keep only the guards that are not on global variables.

    Example::

        >>> from types import SimpleNamespace as E
        >>> ember.compiler.skip_guard_on_globals_unsafe([E(is_global=True), E(is_global=False)])
        [False, True]
    """
    return [not e.is_global for e in guard_entries]


def skip_guard_on_all_nn_modules_unsafe(guard_entries):
    """Drop the guards whose source is an (unspecialized) ``nn.Module``.

    Example::

        >>> f = ember.compiler.skip_guard_on_all_nn_modules_unsafe
    """
    return [not e.orig_guard.source.is_unspecialized_nn_module() for e in guard_entries]


def skip_guard_on_inbuilt_nn_modules_unsafe(guard_entries):
    """Drop the guards whose source is a built-in (``ember.nn``) module.

    Example::

        >>> f = ember.compiler.skip_guard_on_inbuilt_nn_modules_unsafe
    """
    return [not e.orig_guard.source.is_unspecialized_builtin_nn_module()
            for e in guard_entries]


def keep_tensor_guards_unsafe(guard_entries, keep_parameters=False):
    """Keep only the tensor-match guards (on parameters too if ``keep_parameters``).

    Example::

        >>> from types import SimpleNamespace as E
        >>> ember.compiler.keep_tensor_guards_unsafe(
        ...     [E(guard_type='TENSOR_MATCH', value=ember.ones(1)), E(guard_type='ID_MATCH')])
        [True, False]
    """
    from ..nn.parameter import Parameter
    return [e.guard_type == 'TENSOR_MATCH' and (keep_parameters or not isinstance(
        e.value, Parameter)) for e in guard_entries]


def keep_portable_guards_unsafe(guard_entries):
    """Keep the guards that stay valid in another process: global-state and shape
    guards, and tensor matches on non-global tensors.

    Example::

        >>> from types import SimpleNamespace as E
        >>> ember.compiler.keep_portable_guards_unsafe(
        ...     [E(guard_type='SHAPE_ENV', is_global=True),
        ...      E(guard_type='ID_MATCH', is_global=False)])
        [True, False]
    """
    return [e.guard_type in ('GLOBAL_STATE', 'SHAPE_ENV') or (
        e.guard_type == 'TENSOR_MATCH' and not e.is_global) for e in guard_entries]


def save_cache_artifacts():
    """The compiler's cache artifacts, to warm another process's caches; ``None`` when
    there are none.

    NOTE: unlike PyTorch, ember compiles nothing, so there are never any: always ``None``.

    Example::

        >>> ember.compiler.save_cache_artifacts() is None
        True
    """
    return None


def load_cache_artifacts(serialized_artifacts):
    """Load artifacts made by :func:`save_cache_artifacts` into the compiler's caches.

    NOTE: unlike PyTorch, there are no caches to fill: the bytes are accepted and
    ``None`` is returned.

    Args:
        serialized_artifacts (bytes): what :func:`save_cache_artifacts` returned.

    Example::

        >>> ember.compiler.load_cache_artifacts(b'') is None
        True
    """
    if not isinstance(serialized_artifacts, (bytes, bytearray)):
        raise TypeError("load_cache_artifacts expects bytes")
    return None
