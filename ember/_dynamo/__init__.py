"""``ember._dynamo``: the eager face of ``torch._dynamo`` (the frame compiler behind
``torch.compile``).

NOTE: unlike PyTorch, ember has no compiler. What libraries call on ``torch._dynamo``
works as PyTorch's does when nothing is being compiled: ``is_compiling()`` is False,
``optimize``/``disable``/``allow_in_graph``/... return the function they wrap (so it runs
eagerly), ``mark_*`` record their marks on the tensor, ``OptimizedModule`` is what
``ember.compile(module)`` returns, ``config`` holds PyTorch's flags and their defaults, and
``exc`` its exception types.
"""
from ..compiler import (OptimizedModule, allow_in_graph, assume_constant_result,  # noqa: F401
                        disable, is_compiling, list_backends, set_stance, substitute_in_graph,
                        reset)
from . import config, eval_frame, exc, utils, decorators  # noqa: F401
from .decorators import (disallow_in_graph, dont_skip_tracing, forbid_in_graph,  # noqa: F401
                         graph_break, mark_dynamic, mark_static, mark_static_address,
                         maybe_mark_dynamic, nonstrict_trace, run)

__all__ = ['allow_in_graph', 'assume_constant_result', 'config', 'disable',
           'disallow_in_graph', 'dont_skip_tracing', 'explain', 'forbid_in_graph',
           'graph_break', 'is_compiling', 'list_backends', 'lookup_backend', 'mark_dynamic',
           'maybe_mark_dynamic', 'mark_static', 'mark_static_address', 'nonstrict_trace',
           'optimize', 'optimize_assert', 'OptimizedModule', 'register_backend', 'reset',
           'run', 'set_stance', 'substitute_in_graph']

_BACKENDS = {}


def _check_backend(backend):
    if isinstance(backend, str) and backend not in _BACKENDS and backend not in (
            'eager', 'aot_eager', 'inductor', 'cudagraphs', 'openxla', 'tvm', 'onnxrt'):
        raise exc.InvalidBackend(backend)


class _Optimize:
    """What :func:`optimize` returns: a decorator (and context manager) that leaves the
    code eager."""

    def __init__(self, backend):
        self.backend = backend

    def __call__(self, fn):
        from ..nn.modules.module import Module
        if isinstance(fn, Module):
            return OptimizedModule(fn)
        return fn

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


def optimize(backend='inductor', *, nopython=False, guard_export_fn=None,
             guard_fail_fn=None, disable=False, dynamic=None, **kwargs):
    """The decorator under ``torch.compile``: ``optimize(backend)(fn)``.

    NOTE: unlike PyTorch, nothing is compiled: a function is returned as it is and a module
    wrapped in an :class:`OptimizedModule` that runs it eagerly.

    Args:
        backend (str or Callable): the backend's name, or a backend function.
        nopython (bool): whether graph breaks are errors (nothing breaks in ember).
        disable (bool): return a decorator that leaves the code alone.

    Raises:
        InvalidBackend: for an unknown backend name.

    Example::

        >>> f = ember._dynamo.optimize("eager")(lambda x: x + 1)
    """
    _check_backend(backend)
    return _Optimize(backend)


def optimize_assert(*args, **kwargs):
    """:func:`optimize` with ``nopython=True``.

    Example::

        >>> f = ember._dynamo.optimize_assert("eager")(lambda x: x)
    """
    return optimize(*args, nopython=True, **kwargs)


def register_backend(compiler_fn=None, name=None, tags=()):
    """Register ``compiler_fn`` as a backend named ``name`` (its ``__name__`` by default);
    usable as a decorator. Returns ``compiler_fn``.

    Example::

        >>> @ember._dynamo.register_backend
        ... def my_backend(gm, example_inputs):
        ...     return gm.forward
    """
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    _BACKENDS[name or compiler_fn.__name__] = compiler_fn
    return compiler_fn


def lookup_backend(compiler_fn):
    """The backend function registered as ``compiler_fn`` (a name), or ``compiler_fn``
    itself when it is a function.

    Raises:
        InvalidBackend: for an unknown name.

    Example::

        >>> ember._dynamo.lookup_backend(abs) is abs
        True
    """
    if isinstance(compiler_fn, str):
        if compiler_fn not in _BACKENDS:
            raise exc.InvalidBackend(compiler_fn)
        return _BACKENDS[compiler_fn]
    return compiler_fn


def explain(f, *extra_args, **extra_kwargs):
    """Run ``f`` and report its graphs and graph breaks.

    NOTE: unlike PyTorch, ember traces nothing: ``explain(f)(*args)`` runs ``f`` eagerly
    and raises ``NotImplementedError`` for the report.

    Example::

        >>> ember._dynamo.explain(abs)       # doctest: +SKIP
    """
    raise NotImplementedError("torch._dynamo.explain: ember has no compiler, so there are "
                              "no graphs to explain; the function runs eagerly")
