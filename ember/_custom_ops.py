"""``ember._custom_ops``: the older custom-operator API of ``torch._custom_ops``, over
:mod:`ember.library`.

NOTE: unlike PyTorch, ember runs no fake (meta) tensors through operators, so
:func:`get_ctx` has no context to give and returns None, as PyTorch's does outside a fake
kernel.
"""
from . import library as _library

__all__ = ['custom_op', 'impl', 'impl_abstract', 'get_ctx']


def custom_op(qualname, func_or_schema=None):
    """Define the operator ``qualname`` (``"namespace::name"``) from a schema string or an
    annotated function (decorator form when ``func_or_schema`` is a schema or omitted).

    Example::

        >>> ember._custom_ops.custom_op("mylib::twice", "(Tensor x) -> Tensor")   # doctest: +SKIP
    """
    if isinstance(func_or_schema, str):
        schema = func_or_schema

        def define(fn=None):
            return _library.custom_op(qualname, fn or (lambda *a, **k: None), mutates_args=(),
                                      schema=schema)
        return define(None)
    if func_or_schema is None:
        return lambda fn: _library.custom_op(qualname, fn, mutates_args=())
    return _library.custom_op(qualname, func_or_schema, mutates_args=())


def impl(qualname, *, device_types=('cpu', 'cuda'), func=None):
    """Register ``func`` as the kernel of ``qualname`` for ``device_types`` (decorator form
    when ``func`` is omitted).

    Example::

        >>> @ember._custom_ops.impl("mylib::twice")   # doctest: +SKIP
        ... def _(x):
        ...     return x * 2
    """
    def reg(f):
        _library.register_kernel(qualname, device_types, f)
        return f
    return reg if func is None else reg(func)


def impl_abstract(qualname, *, func=None):
    """Register the fake (abstract) kernel of ``qualname`` (see
    :func:`ember.library.register_fake`).

    Example::

        >>> @ember._custom_ops.impl_abstract("mylib::twice")   # doctest: +SKIP
        ... def _(x):
        ...     return ember.empty_like(x)
    """
    return _library.register_fake(qualname, func)


def get_ctx():
    """The context of the fake kernel being run: None in ember (see the module note).

    Example::

        >>> ember._custom_ops.get_ctx() is None
        True
    """
    return None
