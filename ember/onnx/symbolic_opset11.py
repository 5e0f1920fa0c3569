"""``ember.onnx.symbolic_opset11``: symbolic functions of opset 11 that custom symbolic
functions (torchvision's) build on: ``unsqueeze``, ``squeeze``, ``select``.

Each takes the graph context ``g`` (anything with ``g.op(op_type, *inputs, **attrs)``, as
in PyTorch) and builds the ONNX nodes of the operation.

NOTE: unlike PyTorch, ember's exporter does not call registered symbolic functions (see
:mod:`ember.onnx.symbolic_helper`); these exist for code that does.
"""
__all__ = ['unsqueeze', 'squeeze', 'select']


def _const(g, values):
    from .._ops.creation import tensor
    from .. import int64
    return g.op("Constant", value_t=tensor(values, dtype=int64))


def _int(v):
    from .._tensor import Tensor
    return int(v.item()) if isinstance(v, Tensor) else v


def unsqueeze(g, self, dim):
    """``Unsqueeze`` of ``self`` at ``dim`` (opset 11 takes the axes as an attribute).

    Example::

        >>> unsqueeze(g, x, 0)     # doctest: +SKIP
    """
    return g.op("Unsqueeze", self, axes_i=[_int(dim)])


def squeeze(g, self, dim=None):
    """``Squeeze`` of ``self`` (of the axis ``dim``, or of every size-1 axis).

    Example::

        >>> squeeze(g, x, 1)     # doctest: +SKIP
    """
    if dim is None:
        return g.op("Squeeze", self)
    return g.op("Squeeze", self, axes_i=[_int(dim)])


def select(g, self, dim, index):
    """``Gather`` of ``index`` (a node or a constant) along axis ``dim``.

    Example::

        >>> select(g, x, 1, idx)     # doctest: +SKIP
    """
    from .._tensor import Tensor
    if isinstance(index, (int, list, Tensor)):
        index = _const(g, index.tolist() if isinstance(index, Tensor) else index)
    return g.op("Gather", self, index, axis_i=_int(dim))
