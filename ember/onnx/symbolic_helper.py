"""``ember.onnx.symbolic_helper``: ``parse_args``, the decorator of ONNX symbolic functions
(as ``torch.onnx.symbolic_helper``).

A symbolic function ``fn(g, *values)`` builds ONNX nodes with ``g.op(...)``; ``parse_args``
reads each argument as its descriptor says: ``"v"`` the value as given, ``"i"``/``"f"``/
``"b"``/``"s"`` a Python int/float/bool/str, ``"is"``/``"fs"`` a list of them, ``"t"`` a
tensor, ``"none"`` untouched.

NOTE: unlike PyTorch, ember's exporter does not call symbolic functions registered with
``register_custom_op_symbolic`` (it converts its own graph); the decorator works for code
that calls them, reading constants given as Python values or tensors.
"""
import functools

__all__ = ['parse_args']


def _read(value, desc):
    from .._tensor import Tensor
    if desc in ('v', 'none', 't') or value is None:
        return value
    if isinstance(value, Tensor):
        value = value.tolist()
    if desc == 'i':
        return int(value)
    if desc == 'f':
        return float(value)
    if desc == 'b':
        return bool(value)
    if desc == 's':
        return str(value)
    if desc == 'is':
        return [int(v) for v in value]
    if desc == 'fs':
        return [float(v) for v in value]
    raise ValueError(f"ONNX symbolic does not understand the descriptor '{desc}'.")


def parse_args(*arg_descriptors):
    """Decorator of a symbolic function ``fn(g, *args)``: each argument is read as its
    descriptor says (see the module docstring).

    Args:
        *arg_descriptors (str): one descriptor per argument after ``g``.

    Example::

        >>> @parse_args("v", "i")
        ... def my_unsqueeze(g, x, dim):
        ...     return (x, dim)
        >>> my_unsqueeze(None, "x", ember.tensor(1))
        ('x', 1)
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(g, *args, **kwargs):
            if len(args) > len(arg_descriptors):
                raise TypeError(f"{fn.__name__}: expected at most {len(arg_descriptors)} "
                                f"arguments after g, got {len(args)}")
            return fn(g, *(_read(a, d) for a, d in zip(args, arg_descriptors)), **kwargs)
        return wrapper
    return deco
