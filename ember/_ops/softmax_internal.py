"""The softmax family's internal ops (``ember._safe_softmax``, ``ember._softmax_backward_data``):
the softmax that gives zeros on fully masked rows, and the softmax's input gradient as an op of
its own (differentiable in both arguments), with their backward nodes. They reuse the kernels
of ``activation``'s softmax."""
import math

import numpy as np

from . import _args
from .._tensor import Tensor, _Mode, _wrap_dim, _legacy_name
from ._util import wrap, Node, register, grad_needed, record
from ._pointwise_common import _not_impl
from .._backend import array_module
from .activation import SoftmaxBackward0, _softmax_input, _softmax_kernel, _lowp_np


class SafeSoftmaxBackward0(SoftmaxBackward0):
    pass


@register(method=False)
def _safe_softmax(input, dim, dtype=None):
    """Softmax over ``dim`` that gives 0 (not NaN) on rows whose elements are all ``-inf``
    (fully masked attention rows); elsewhere equal to :func:`ember.softmax`.

    Args:
        input (Tensor): the input (floating point).
        dim (int): the dimension the softmax is taken over.
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> ember._safe_softmax(ember.tensor([[float('-inf')] * 2, [0., 0.]]), 1)
        tensor([[0.0000, 0.0000],
                [0.5000, 0.5000]])
    """
    x, axis = _softmax_input(input, dim, dtype, 'softmax')
    a = x._data
    xp = array_module(a)
    with np.errstate(invalid='ignore'):      # -inf - -inf on the fully masked rows
        r = _softmax_kernel(a, axis, False)
    if a.ndim:
        dead = (a == -math.inf).all(axis=axis, keepdims=True)
        r = xp.where(dead, xp.zeros((), r.dtype), r)
    res = wrap(r)
    if _Mode.grad and x._rg:
        node = SafeSoftmaxBackward0()
        node.dim = axis
        record(res, node, (x,), save=(res,))
    return res


class SoftmaxBackwardDataBackward0(Node):
    def backward(self, gr):
        g, y = self.saved_tensors
        ax = self.dim
        gg = gy = None
        if self.needs[0]:
            gg = y * (gr - (gr * y).sum(ax, keepdim=True))
        if self.needs[1]:
            gy = gr * (g - (g * y).sum(ax, keepdim=True)) - g * (gr * y).sum(ax, keepdim=True)
        return gg, gy


@register(method=False)
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """The gradient of :func:`ember.softmax` with respect to its input, from the gradient
    ``grad_output`` of its result ``output``: ``output * (grad_output - sum(grad_output *
    output, dim))``. Differentiable in both arguments.

    Args:
        grad_output (Tensor): the gradient of the softmax's result.
        output (Tensor): the softmax's result, of ``grad_output``'s shape and dtype.
        dim (int): the dimension the softmax was taken over.
        input_dtype (ember.dtype): the dtype of the softmax's input.

    Example::

        >>> y = ember.softmax(ember.tensor([0., 0.]), 0)
        >>> ember._softmax_backward_data(ember.tensor([1., 0.]), y, 0, ember.float32)
        tensor([ 0.2500, -0.2500])
    """
    for t in (grad_output, output):
        if not isinstance(t, Tensor):
            _args.tensor(t, '_softmax_backward_data')
    g, y = grad_output._data, output._data
    axis = _wrap_dim(dim, g.ndim)
    if tuple(g.shape) != tuple(y.shape):
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have same size as tensor "
                           f"for argument #2 'output'; but {list(g.shape)} does not equal "
                           f"{list(y.shape)} (while checking arguments for softmax_backward)")
    if g.dtype != y.dtype:
        raise RuntimeError(f"expected scalar type {_legacy_name(grad_output.dtype)} but "
                           f"found {_legacy_name(output.dtype)}")
    input_dtype = _args.as_dtype(input_dtype, '_softmax_backward_data')
    if input_dtype is not grad_output.dtype and input_dtype.is_floating_point and \
            input_dtype.itemsize < 4:
        raise RuntimeError(f"expected scalar type {_legacy_name(grad_output.dtype)} but "
                           f"found {_legacy_name(input_dtype)}")
    if g.dtype.kind not in 'fV':
        last = g.ndim == 0 or axis == g.ndim - 1
        _not_impl(f"softmax_backward_{'lastdim_' if last else ''}kernel_impl", g)
    xp = array_module(g)
    w = _lowp_np(g.dtype)
    ga, ya = (g, y) if w is None else (g.astype(w), y.astype(w))
    r = ya * (ga - (ga * ya).sum(axis=axis if g.ndim else None, keepdims=True))
    res = wrap(xp.asarray(r if w is None else r.astype(g.dtype)))
    if grad_needed(grad_output, output):
        node = SoftmaxBackwardDataBackward0()
        node.dim = axis
        record(res, node, (grad_output, output), save=(grad_output, output))
    return res
