"""``ember._dynamo.decorators``: the marking functions and decorators of
``torch._dynamo.decorators``.

NOTE: unlike PyTorch, ember compiles nothing: the decorators return the function they are
given, and the ``mark_*`` functions record their marks on the tensor (the same attributes
PyTorch sets) for code that reads them back.
"""
from collections import namedtuple

from ..compiler import (allow_in_graph, assume_constant_result, disable,  # noqa: F401
                        substitute_in_graph)

__all__ = ['allow_in_graph', 'assume_constant_result', 'disable', 'disallow_in_graph',
           'forbid_in_graph', 'graph_break', 'mark_dynamic', 'maybe_mark_dynamic',
           'mark_static', 'mark_static_address', 'nonstrict_trace', 'run',
           'substitute_in_graph', 'dont_skip_tracing']

_DimRange = namedtuple('_DimRange', ['dim', 'min', 'max'])


def _tensor_type():
    from .._tensor import Tensor
    return Tensor


def run(fn=None):
    """Decorator: run ``fn`` without compiling it, where a caller is compiled. Returns
    ``fn`` (or, without ``fn``, a decorator that does).

    Example::

        >>> f = ember._dynamo.run(lambda x: x)
    """
    return fn if fn is not None else (lambda f: f)


def disallow_in_graph(fn):
    """Decorator: calls of ``fn`` cause a graph break when compiled. Returns ``fn``.

    Example::

        >>> f = ember._dynamo.disallow_in_graph(abs)
    """
    return fn


def forbid_in_graph(fn):
    """Decorator: tracing a call of ``fn`` is an error when compiled. Returns ``fn``.

    Example::

        >>> f = ember._dynamo.forbid_in_graph(abs)
    """
    return fn


def nonstrict_trace(traceable_fn):
    """Decorator: the compiler traces ``traceable_fn`` non-strictly. Returns it.

    Example::

        >>> f = ember._dynamo.nonstrict_trace(abs)
    """
    return traceable_fn


def dont_skip_tracing(fn=None):
    """Decorator: trace ``fn`` even where it would be skipped. Returns ``fn``.

    Example::

        >>> f = ember._dynamo.dont_skip_tracing(abs)
    """
    return fn if fn is not None else (lambda f: f)


def graph_break(msg=''):
    """Force a graph break when compiled; does nothing when run eagerly.

    Args:
        msg (str): the reason, shown in the compiler's logs.

    Example::

        >>> ember._dynamo.graph_break()
    """


def _indices(index):
    return list(index) if isinstance(index, (list, tuple)) else [index]


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):
    """Mark dimension(s) ``index`` of tensor ``t`` as dynamic (of varying size) for the
    compiler; records them in ``t._dynamo_dynamic_indices`` and the ranges in
    ``t._dynamo_dynamic_range``, as PyTorch does.

    Args:
        t (Tensor): the tensor.
        index (int or list of int): the dimension(s).
        min (int, optional): smallest size the dimension takes.
        max (int, optional): largest size the dimension takes.

    Example::

        >>> t = ember.ones(3, 4)
        >>> ember._dynamo.mark_dynamic(t, 0)
        >>> t._dynamo_dynamic_indices
        {0}
    """
    for i in _indices(index):
        if not hasattr(t, '_dynamo_dynamic_indices'):
            t._dynamo_dynamic_indices = set()
            t._dynamo_dynamic_range = set()
            t._dynamo_hint_overrides = {}
        if not hasattr(t, '_specialize_on'):
            t._specialize_on = {}
        if hint_override is not None:
            t._dynamo_hint_overrides[i] = hint_override
        t._dynamo_dynamic_indices.add(i)
        t._dynamo_dynamic_range.add(_DimRange(i, min, max))
        t._specialize_on[i] = list(specialize_on) if specialize_on is not None else []
        t._has_dynamo_dim_marking = True


def maybe_mark_dynamic(t, index):
    """Mark dimension(s) ``index`` of ``t`` as possibly dynamic (a hint, not a guarantee);
    records them in ``t._dynamo_weak_dynamic_indices``.

    Args:
        t (Tensor): the tensor.
        index (int or list of int): the dimension(s).

    Example::

        >>> t = ember.ones(3, 4)
        >>> ember._dynamo.maybe_mark_dynamic(t, 1)
    """
    for i in _indices(index):
        if not hasattr(t, '_dynamo_weak_dynamic_indices'):
            t._dynamo_weak_dynamic_indices = set()
        t._dynamo_weak_dynamic_indices.add(i)
        t._has_dynamo_dim_marking = True


def mark_static(t, index=None):
    """Mark dimension(s) ``index`` of tensor ``t`` as static (``t._dynamo_static_indices``,
    every dimension when ``index`` is None); given a module class, mark it static
    (``_dynamo_marked_static``).

    Args:
        t (Tensor or type): what to mark.
        index (int or list of int, optional): the tensor's dimension(s).

    Example::

        >>> t = ember.ones(3, 4)
        >>> ember._dynamo.mark_static(t, 0)
    """
    from ..nn.modules.module import Module
    if isinstance(t, type) and issubclass(t, Module):
        t._dynamo_marked_static = True
        return t
    if not isinstance(t, _tensor_type()):
        raise TypeError(f"mark_static expects a tensor/nn.Module class but received {type(t)}")
    if index is None:
        for i in range(t.dim()):
            mark_static(t, i)
        return None
    for i in _indices(index):
        if not hasattr(t, '_dynamo_static_indices'):
            t._dynamo_static_indices = set()
        t._dynamo_static_indices.add(i)
        t._has_dynamo_dim_marking = True
    return None


def mark_static_address(t, guard=False):
    """Mark tensor ``t``'s storage as staying at the same address across calls (as
    ``t._dynamo_static_input_type``: ``"guarded"`` or ``"unguarded"``).

    Args:
        t (Tensor): the tensor.
        guard (bool): whether a compiled function should check the address.

    Raises:
        TypeError: if ``t`` is not a tensor.

    Example::

        >>> t = ember.zeros(4)
        >>> ember._dynamo.mark_static_address(t)
        >>> t._dynamo_static_input_type
        'unguarded'
    """
    if not isinstance(t, _tensor_type()):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    t._dynamo_static_input_type = 'guarded' if guard else 'unguarded'
