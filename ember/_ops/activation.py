"""Activation functions of ``ember.nn.functional`` and their ``ember.*`` forms (the plain
``relu``/``sigmoid``/``tanh`` kernels live with the unary pointwise ops)."""
import warnings

from . import _args
import numpy as np

from .._tensor import Tensor, _Mode, inplace, _wrap_dim
from ._util import wrap, Node, register, grad_needed, record
from ._pointwise_common import _not_impl
from .._backend import array_module

__all__ = ['relu', 'relu_', 'leaky_relu', 'leaky_relu_', 'softmax', 'softmin', 'log_softmax']


class LeakyReluBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return g * _slope_mask(x, self.slope)


def _slope_mask(x, slope):
    a = x._data
    xp = array_module(a)
    return wrap(xp.where(a > 0, xp.asarray(1, a.dtype), xp.asarray(slope, a.dtype)).astype(a.dtype))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``max(0, x) + negative_slope * min(0, x)``, elementwise.

    Example::

        >>> F.leaky_relu(ember.tensor([-1., 2.]), 0.1)
        tensor([-0.1000,  2.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'leaky_relu')
    if inplace:
        return leaky_relu_(input, negative_slope)
    a = input._data
    xp = array_module(a)
    r = xp.where(a > 0, a, a * a.dtype.type(negative_slope))
    out = wrap(r)
    if grad_needed(input):
        node = LeakyReluBackward0()
        node.slope = negative_slope
        record(out, node, (input,), save=(input,))
    return out


class LeakyReluBackward1(LeakyReluBackward0):
    """The in-place form's node (PyTorch names it apart)."""


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.leaky_relu_(x, 0.5); x
        tensor([-0.5000,  2.0000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'leaky_relu_')
    r = inplace(input, leaky_relu, negative_slope)
    fn = input._grad_fn
    if fn is not None and type(fn) is LeakyReluBackward0:
        fn.__class__ = LeakyReluBackward1
    return r



# ------------------------------------------------------------------ relu (F.relu / F.relu_)
def relu(input, inplace=False):
    """Applies the rectified linear unit ``max(0, x)`` elementwise.

    Args:
        input (Tensor): the input.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.relu(ember.tensor([-1., 2.]))
        tensor([0., 2.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'relu')
    return input.relu_() if inplace else input.relu()


def relu_(input):
    """In-place version of :func:`relu`.

    Args:
        input (Tensor): the input, overwritten.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.relu_(x); x
        tensor([0., 2.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'relu_')
    return input.relu_()


# ------------------------------------------------------------------ softmax family
def _lowp_np(dt):
    """The dtype a kernel computes in: float16/bfloat16 go through float32."""
    return np.dtype(np.float32) if dt.kind == 'V' or dt == np.float16 else None


def _sum_keep(a, axis, xp):
    """``a.sum(axis, keepdims=True)``; over the last axis of a contiguous float32/float64
    array as a matrix-vector product (BLAS), several times faster than NumPy's reduce."""
    n = a.shape[axis] if a.ndim else 1
    if axis == a.ndim - 1 and n >= 16 and a.flags.c_contiguous and a.dtype.kind == 'f' \
            and a.dtype.itemsize >= 4:
        r = xp.matmul(a.reshape(-1, n), xp.ones((n, 1), a.dtype))
        return r.reshape(a.shape[:-1] + (1,))
    return a.sum(axis=axis, keepdims=True)


# |x| up to which exp(x) of a float dtype stays a normal number and a sum of many such
# terms does not overflow: softmax needs no shift by the row maximum there
_EXP_SAFE = {4: 60.0, 8: 600.0}


def _softmax_kernel(a, axis, log, keep=None):
    """Softmax (or log-softmax) of float array ``a`` along ``axis``, stable for large
    values (the row maximum is subtracted first). Returns a fresh array of ``a``'s dtype.

    For log-softmax, ``keep`` (a node) receives ``_exp = (exp(x - max), its sums)``, which
    its backward uses instead of recomputing ``exp(result)``."""
    xp = array_module(a)
    dt = a.dtype
    w = _lowp_np(dt)
    if w is not None:
        a = a.astype(w)
    if a.size == 0:
        return a.astype(dt, copy=True)
    nd = a.ndim
    if nd == 0:
        a = a.reshape(1)
    if log:
        # PyTorch's order of operations, (x - max) - log(sum(exp(x - max))), so that the
        # result keeps its relative precision near 0
        e = a - a.max(axis=axis, keepdims=True)
        t = xp.exp(e)
        s = _sum_keep(t, axis, xp)
        if keep is not None and w is None and nd:
            keep._exp = (t, s.copy())
        e -= xp.log(s, out=s)
    else:
        lim = _EXP_SAFE.get(a.dtype.itemsize)
        if lim is not None and -lim <= a.min() and a.max() <= lim:
            # exp(x) neither overflows nor underflows: exp(x) / sum exp(x) is the same
            # quotient as with the shift (a NaN fails the test and takes the shifted path)
            e = xp.exp(a)
        else:
            e = a - a.max(axis=axis, keepdims=True)
            xp.exp(e, out=e)
        s = _sum_keep(e, axis, xp)
        e *= xp.reciprocal(s, out=s)
    if nd == 0:
        e = e.reshape(())
    return e if w is None else e.astype(dt)


def _softmax_input(input, dim, dtype, name):
    """Checks of softmax/log_softmax; returns ``(input, axis)`` (``input`` cast to
    ``dtype`` when given, through the differentiable ``to``)."""
    if not isinstance(input, Tensor):
        _args.tensor(input, name)
    axis = _wrap_dim(dim, input._data.ndim)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, name)
        input = input.to(dtype)
    a = input._data
    if a.dtype.kind not in 'fV' and a.size:
        last = a.ndim == 0 or axis == a.ndim - 1
        _not_impl(f"{name}_{'lastdim_' if last else ''}kernel_impl", a)
    return input, axis


class SoftmaxBackward0(Node):
    _saved_names = ('result',)

    def backward(self, g):
        (y,) = self.saved_tensors
        ax = self.dim
        if not _Mode.grad:      # no create_graph: one fused kernel on the arrays
            ga, ya = g._data, y._data
            dt = ya.dtype
            w = _lowp_np(dt)
            if w is not None:
                ga, ya = ga.astype(w), ya.astype(w)
            if ya.ndim == 0:
                return wrap(ya * 0)
            xp = array_module(ya)
            r = ga * ya
            s = _sum_keep(r, ax, xp)
            xp.subtract(ga, s, out=r)
            r *= ya
            return wrap(r if w is None else r.astype(dt))
        return y * (g - (g * y).sum(ax, keepdim=True))


class LogSoftmaxBackward0(Node):
    _saved_names = ('result',)
    _exp = None     # (exp(x - max), row sums) kept by the forward: exp(result) for free

    def _release(self):
        self._exp = None
        super()._release()

    def backward(self, g):
        (y,) = self.saved_tensors
        ax = self.dim
        if not _Mode.grad:
            ga, ya = g._data, y._data
            dt = ya.dtype
            w = _lowp_np(dt)
            if w is not None:
                ga, ya = ga.astype(w), ya.astype(w)
            if ya.ndim == 0:
                return wrap(ga * 0)
            xp = array_module(ya)
            sg = _sum_keep(ga, ax, xp)
            kept = self._exp
            if kept is not None and ga.dtype == kept[0].dtype:
                t, s = kept
                r = t * (sg / s)
            else:
                r = xp.exp(ya)
                r *= sg
            xp.subtract(ga, r, out=r)
            return wrap(r if w is None else r.astype(dt))
        return g - y.exp() * g.sum(ax, keepdim=True)


def _softmax_op(input, dim, dtype=None, log=False):
    name = 'log_softmax' if log else 'softmax'
    x, axis = _softmax_input(input, dim, dtype, name)
    if _Mode.grad and x._rg:
        node = LogSoftmaxBackward0() if log else SoftmaxBackward0()
        res = wrap(_softmax_kernel(x._data, axis, log, node if log else None))
        node.dim = axis
        record(res, node, (x,), save=(res,))
        return res
    return wrap(_softmax_kernel(x._data, axis, log))


@register('softmax')
def _softmax(input, dim, dtype=None):
    """Softmax over dimension ``dim``: ``exp(x_i) / sum_j exp(x_j)``, computed stably.

    Args:
        input (Tensor): the input (floating point).
        dim (int): the dimension the softmax is taken over.
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> ember.softmax(ember.tensor([0., 0.]), 0)
        tensor([0.5000, 0.5000])
    """
    return _softmax_op(input, dim, dtype, False)


@register('log_softmax')
def _log_softmax(input, dim, dtype=None):
    """Logarithm of the softmax over ``dim``: ``x_i - log(sum_j exp(x_j))``, computed
    stably (no overflow for large logits).

    Args:
        input (Tensor): the input (floating point).
        dim (int): the dimension the softmax is taken over.
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> ember.log_softmax(ember.tensor([0., 0.]), 0)
        tensor([-0.6931, -0.6931])
    """
    return _softmax_op(input, dim, dtype, True)


_softmax.__name__ = _softmax.__qualname__ = 'softmax'
_log_softmax.__name__ = _log_softmax.__qualname__ = 'log_softmax'


def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's implicit ``dim`` of the softmax functions when none is given (0 for 0-, 1-
    and 3-dim inputs, else 1), with its deprecation warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Applies softmax over dimension ``dim``: ``exp(x_i) / sum_j exp(x_j)``; the slices
    along ``dim`` sum to 1.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which softmax is computed. When None (deprecated),
            PyTorch's implicit choice is used (0 for 0-, 1- and 3-dim inputs, else 1),
            with a ``UserWarning``.
        dtype (ember.dtype, optional): cast the input to this dtype before the operation
            (guards against overflow). Default: None.

    Example::

        >>> F.softmax(ember.tensor([[1., 1.], [0., 2.]]), dim=1)
        tensor([[0.5000, 0.5000],
                [0.1192, 0.8808]])
    """
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{_args.type_name(input)}' object has no attribute 'softmax'")
    if dim is None:
        dim = _softmax_dim('softmax', input.dim(), _stacklevel)
    return _softmax_op(input, dim, dtype, False)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Applies softmin over dimension ``dim``: ``softmax(-input)``.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which softmin is computed (None: implicit choice,
            deprecated, with a ``UserWarning``).
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> F.softmin(ember.tensor([0., 2.]), dim=0)
        tensor([0.8808, 0.1192])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bad operand type for unary -: '{_args.type_name(input)}'")
    if dim is None:
        dim = _softmax_dim('softmin', input.dim(), _stacklevel)
    if dtype is None:
        return _softmax_op(-input, dim, None, False)
    return _softmax_op(-input, dim, dtype, False)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Applies ``log(softmax(x))`` over dimension ``dim``, computed stably (large logits
    neither overflow nor lose precision).

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which log_softmax is computed (None: implicit
            choice, deprecated, with a ``UserWarning``).
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> F.log_softmax(ember.tensor([1000., 0.]), dim=0)
        tensor([    0., -1000.])
    """
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{_args.type_name(input)}' object has no attribute "
                             "'log_softmax'")
    if dim is None:
        dim = _softmax_dim('log_softmax', input.dim(), _stacklevel)
    return _softmax_op(input, dim, dtype, True)
