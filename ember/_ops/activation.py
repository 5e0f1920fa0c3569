"""Activation functions of ``ember.nn.functional`` and their ``ember.*`` forms (the plain
``relu``/``sigmoid``/``tanh`` kernels live with the unary pointwise ops)."""
import math
import warnings

from . import _args
import numpy as np

from .._tensor import Tensor, _Mode, _wrap_dim
from ._inplace import inplace
from ._util import wrap, Node, register, grad_needed, record, write_out, check_exact_out
from ..autograd.graph import _named
from ._pointwise_common import _not_impl, _call, _w, _tname
from .indexing import where as _where
from .shape import cat as _cat
from .._backend import array_module

__all__ = ['relu', 'relu_', 'leaky_relu', 'leaky_relu_', 'softmax', 'softmin', 'log_softmax',
           'elu', 'elu_', 'celu', 'celu_', 'selu', 'selu_', 'gelu', 'glu', 'hardshrink',
           'hardsigmoid', 'hardswish', 'hardtanh', 'hardtanh_', 'logsigmoid', 'mish', 'prelu',
           'relu6', 'sigmoid', 'silu', 'softplus', 'softshrink', 'softsign',
           'tanh', 'tanhshrink', 'threshold', 'threshold_', 'gumbel_softmax']


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


# rows at least this long are combined with their per-row values (``x - max``,
# ``e * (1 / sum)``) without NumPy's ufunc buffering (see _RowLoops)
_ROW_UNBUFFERED = 512


class _RowLoops:
    """Context for the row-wise broadcasts of the softmax kernels: ``a (rows, n) op
    v (rows, 1)``. NumPy (>= 2.3) buffers such a broadcast to get inner loops longer than
    one row, copying the per-row value out to a whole buffer first: about twice the time
    of a same-shape op. With rows of ``_ROW_UNBUFFERED`` or more elements each row is one
    inner loop already, so the buffer is turned off (a tiny buffer size, restored on exit
    with the rest of NumPy's per-thread ufunc state by ``errstate``)."""
    __slots__ = ('_es',)

    def __init__(self, n):
        self._es = np.errstate() if n >= _ROW_UNBUFFERED else None

    def __enter__(self):
        if self._es is not None:
            self._es.__enter__()
            np.setbufsize(16)   # not data: the iteration setting of NumPy's ufuncs
        return self

    def __exit__(self, *exc):
        if self._es is not None:
            self._es.__exit__(*exc)
        return False


# the largest row sum of exp(x) for which softmax needs no shift by the row maximum
# (far below the dtype's overflow, so that no single term overflowed either)
_SUM_SAFE = {4: 1e37, 8: 1e300}
# the largest row sum of exp(x) for which log_softmax needs no shift (e^16)
_LOG_SUM_SAFE = 8.8e6


def _softmax_kernel(a, axis, log, keep=None):
    """Softmax (or log-softmax) of float array ``a`` along ``axis``, stable for large
    values (the row maximum is subtracted first, unless no ``|x|`` is large enough for
    ``exp`` to overflow or underflow). Returns a fresh array of ``a``'s dtype.

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
    n = a.shape[axis]
    with _RowLoops(n if axis == nd - 1 else 0):
        if log:
            e = t = None
            if a.dtype.itemsize in _SUM_SAFE:
                # x - log(sum exp(x)) without the shift, when every row sum is moderate
                # (1/n <= sum <= e^16: |log sum| is small, so subtracting it costs no more
                # precision than PyTorch's order) and no element dominates its row
                # (max exp(x) <= sum / 2: every result <= -log 2, none near 0, where only
                # the shifted order keeps its relative precision); a NaN fails the test
                with getattr(xp, 'errstate', np.errstate)(over='ignore', invalid='ignore'):
                    t = xp.exp(a)
                    s = _sum_keep(t, axis, xp)
                    ok = bool((((s <= _LOG_SUM_SAFE) & (s * n >= 1))
                               & (t.max(axis=axis, keepdims=True) * 2 <= s)).all())
                if ok:
                    if keep is not None and w is None and nd:
                        keep._exp = (t, s.copy())
                    e = xp.subtract(a, xp.log(s, out=s))
            if e is None:
                # PyTorch's order of operations, (x - max) - log(sum(exp(x - max))), so
                # that the result keeps its relative precision near 0
                e = xp.subtract(a, a.max(axis=axis, keepdims=True))
                t = xp.exp(e, out=t)
                s = _sum_keep(t, axis, xp)
                if keep is not None and w is None and nd:
                    keep._exp = (t, s.copy())
                e -= xp.log(s, out=s)
        else:
            e = s = None
            lim = _SUM_SAFE.get(a.dtype.itemsize)
            if lim is not None:
                # without the shift by the row maximum first: exp(x) / sum exp(x) is the
                # same quotient as long as no row sum overflows and none is so small that
                # its terms lost precision (sum >= 1/n means the row maximum is >= -log n);
                # a NaN fails the test too. Else the shifted path below.
                with getattr(xp, 'errstate', np.errstate)(over='ignore', invalid='ignore'):
                    e = xp.exp(a)
                    s = _sum_keep(e, axis, xp)
                if not (bool((s <= lim).all()) and bool((s * n >= 1).all())):
                    e = None
            if e is None:
                e = xp.subtract(a, a.max(axis=axis, keepdims=True))
                xp.exp(e, out=e)
                s = _sum_keep(e, axis, xp)
            e *= xp.reciprocal(s, out=s)
    if nd == 0:
        e = e.reshape(())
    elif not e.flags.c_contiguous:
        e = xp.ascontiguousarray(e)   # PyTorch's softmax writes a contiguous result
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
                return wrap(array_module(ya).zeros_like(ya, dtype=dt))
            xp = array_module(ya)
            n = ya.shape[ax]
            last = ax == ya.ndim - 1
            with _RowLoops(n if last else 0):
                if last and n >= 16 and ga.dtype == ya.dtype and \
                        ga.flags.c_contiguous and ya.flags.c_contiguous:
                    # the row sums of g * y as batched dot products (BLAS): one pass fewer
                    s = xp.matmul(ga[..., None, :], ya[..., :, None])[..., 0]
                    r = xp.subtract(ga, s)
                else:
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
                return wrap(array_module(ya).zeros_like(ya, dtype=dt))
            xp = array_module(ya)
            sg = _sum_keep(ga, ax, xp)
            kept = self._exp
            with _RowLoops(ya.shape[ax] if ax == ya.ndim - 1 else 0):
                if kept is not None and ga.dtype == kept[0].dtype:
                    t, s = kept
                    r = xp.multiply(t, xp.divide(sg, s, out=sg))
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
def _softmax(input, dim, dtype=None, *, out=None):
    """Softmax over dimension ``dim``: ``exp(x_i) / sum_j exp(x_j)``, computed stably.

    Args:
        input (Tensor): the input (floating point).
        dim (int): the dimension the softmax is taken over.
        dtype (ember.dtype, optional): cast the input to this dtype first. Default: None.

    Example::

        >>> ember.softmax(ember.tensor([0., 0.]), 0)
        tensor([0.5000, 0.5000])
    """
    res = _softmax_op(input, dim, dtype, False)
    if out is None:
        return res
    check_exact_out(res, out)
    return write_out(res, out, 'softmax')


@register('log_softmax')
def _log_softmax(input, dim, dtype=None, *, out=None):
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
    res = _softmax_op(input, dim, dtype, True)
    if out is None:
        return res
    check_exact_out(res, out)
    return write_out(res, out, 'log_softmax')


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


# ====================================================================== elementwise activations
# Shared pieces: the float check (PyTorch's "<kernel>" not implemented error for integer,
# bool and complex inputs), the kernel runner (float16/bfloat16 computed in float32, no
# warnings on inf/nan, PyTorch's elementwise output layout) and the in-place forms.
_SQRT1_2 = math.sqrt(0.5)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float_in(input, name, kernel):
    """The array of a floating ``input`` (PyTorch's errors for anything else)."""
    if not isinstance(input, Tensor):
        _args.tensor(input, name)
    a = input._data
    if a.dtype.kind not in 'fV':
        _not_impl(kernel, a)
    return a


def _run(a, fn, *args):
    """``fn(x, xp, *args)`` on float array ``a`` as a fresh tensor of ``a``'s dtype."""
    xp = array_module(a)
    w = _lowp_np(a.dtype)
    r = _call(fn, a if w is None else a.astype(w), xp, *args)
    if r.__class__ is not a.__class__:     # NumPy scalars of 0-d results, host arrays
        r = xp.asarray(r)
    if r.dtype != a.dtype:
        r = r.astype(a.dtype)
    return _w(r, xp, a)


def _record(res, input, cls, save=True, **attrs):
    if _Mode.grad and input._rg:
        node = cls()
        for k, v in attrs.items():
            setattr(node, k, v)
        record(res, node, (input,), save=(input,) if save else None)
    return res


_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _sel(m, a, b, dt):
    """``where(m, a, b)`` for floats of dtype ``dt`` (arrays or numbers), without branches:
    NumPy's ``where`` mispredicts on a random mask and runs ~20x slower than arithmetic.
    Selects bit patterns, so inf/NaN in the unselected operand do not leak."""
    for v in (a, b, m):         # the operands' array module (numbers and NumPy scalars: np)
        xp = array_module(v)
        if xp is not np:
            break
    u = _UINT[dt.itemsize]
    mk = xp.asarray(m).astype(u)                  # few fresh arrays: large ones are costly
    xp.negative(mk, out=mk)                       # all ones where m, else 0
    av = xp.asarray(a, dt).view(u)
    if not isinstance(b, (int, float)) or b != 0 or math.copysign(1, b) < 0:
        bv = xp.asarray(b, dt).view(u)
        if mk.shape != np.broadcast_shapes(mk.shape, av.shape, bv.shape):
            return (bv ^ ((av ^ bv) & mk)).view(dt)
        mk &= av ^ bv
        mk ^= bv
    elif mk.shape != np.broadcast_shapes(mk.shape, av.shape):
        return (av & mk).view(dt)
    else:                                         # b is +0.: zero bits
        mk &= av
    return mk.view(dt)


class _LinkBackward(Node):
    """The double-backward node of a piecewise-linear activation: its gradient does not
    vary with ``x`` (a zero second derivative), but PyTorch still links it to ``x``, so
    ``grad(grad_x, x)`` gives zeros instead of failing; named as PyTorch names it
    (``HardtanhBackwardBackward0``, ...)."""

    def backward(self, g):
        return g, (wrap(array_module(g._data).zeros(self.xshape, self.xdtype))
                   if self.needs[1] else None)


_LINKS = {}


def _link(r, x, node):
    name = type(node).__name__.rstrip('0123456789') + 'Backward0'
    cls = _LINKS.get(name)
    if cls is None:
        cls = _LINKS[name] = _named(type(name, (_LinkBackward,), {}), name)
    out = wrap(r._data)
    n = cls()
    n.xshape, n.xdtype = x._data.shape, x._data.dtype
    record(out, n, (r, x))
    return out


class _ActNode(Node):
    """Backward of an elementwise activation of one input: a fused array kernel
    (``_fast(g, x, xp)``) when no graph of the backward is wanted, else ember ops
    (``_graph(g, x)``, differentiable again: double backward)."""
    _saved_names = ('self',)
    _piecewise = False      # derivative constant in x between kinks: see _link

    def backward(self, g):
        (x,) = self.saved_tensors
        if _Mode.grad:
            r = self._graph(g, x)
            return _link(r, x, self) if self._piecewise and x._rg else r
        ga, xa = g._data, x._data
        dt = ga.dtype
        w = _lowp_np(dt)
        if w is not None:
            ga, xa = ga.astype(w), xa.astype(w)
        elif xa.dtype != dt:
            xa = xa.astype(dt)
        xp = array_module(ga)
        r = xp.asarray(_call(self._fast, ga, xa, xp))
        return wrap(r if r.dtype == dt else r.astype(dt))


def _pick(mask_arr, a, b):
    """``where(mask, a, b)`` for a constant mask (a, b: tensors or numbers)."""
    return _where(wrap(mask_arr), a, b)


def _inplace_form(input, name, fn, args, renames=()):
    """``fn(input, *args)`` written into ``input`` (PyTorch's in-place rules); the node
    gets PyTorch's name for the in-place variant (``renames``: (out-of-place class,
    in-place class) pairs)."""
    if not isinstance(input, Tensor):
        _args.tensor(input, name)
    r = inplace(input, fn, *args)
    fn_ = input._grad_fn
    for a, b in renames:
        if fn_ is not None and type(fn_) is a:
            fn_.__class__ = b
    return r


# ------------------------------------------------------------------ leaky_relu
class LeakyReluBackward0(_ActNode):
    _piecewise = True

    def _fast(self, g, x, xp):
        return _sel(x > 0, g, g * self.slope, g.dtype)

    def _graph(self, g, x):
        return _pick(x._data > 0, g, g * self.slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``max(0, x) + negative_slope * min(0, x)``, elementwise.

    Example::

        >>> F.leaky_relu(ember.tensor([-1., 2.]), 0.1)
        tensor([-0.1000,  2.0000])
    """
    if not _args.is_number(negative_slope):
        _args.as_number(negative_slope, 'leaky_relu', 'negative_slope', 2)
    if inplace:
        return leaky_relu_(input, negative_slope)
    a = _float_in(input, 'leaky_relu', 'leaky_relu_cpu')
    res = _run(a, lambda x, xp, s: _sel(x > 0, x, x * s, x.dtype), negative_slope)
    return _record(res, input, LeakyReluBackward0, slope=negative_slope)


class LeakyReluBackward1(LeakyReluBackward0):
    """The in-place form's node (PyTorch names it apart, and refuses a negative slope: its
    formula reads the result, which a negative slope makes ambiguous)."""

    def backward(self, g):
        if self.slope < 0:
            _leaky_inplace_error()
        return super().backward(g)


def _leaky_inplace_error():
    raise RuntimeError(
        "In-place leakyReLu backward calculation is triggered with a negative slope which is "
        "not supported. This is caused by calling in-place forward function with a negative "
        "slope, please call out-of-place version instead. File an issue at "
        "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
        "backward calculation with negative slope")


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



# ------------------------------------------------------------------ elu / celu / selu
class EluBackward0(_ActNode):
    # x <= 0: alpha * scale * input_scale * exp(x * input_scale), else scale (NaN too)
    def _fast(self, g, x, xp):
        c = self.alpha * self.scale * self.input_scale
        return g * _sel(x <= 0, xp.exp(xp.minimum(x, 0) * self.input_scale) * c, self.scale,
                        x.dtype)

    def _graph(self, g, x):
        neg = (x * self.input_scale).exp() * (self.alpha * self.scale * self.input_scale)
        return g * _pick(x._data <= 0, neg, self.scale)


class EluBackward1(EluBackward0):
    """The in-place form's node (PyTorch computes it from the result, which a negative
    ``alpha`` makes ambiguous: it refuses, and so does ember)."""

    def backward(self, g):
        if self.alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is "
                "not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead.")
        return super().backward(g)


class CeluBackward0(EluBackward0):
    pass


class CeluBackward1(EluBackward1):
    pass


def _elu_k(x, xp, alpha, scale, input_scale):
    return _sel(x > 0, x * scale, xp.expm1(x * input_scale) * (alpha * scale), x.dtype)


def _elu(input, alpha, scale, input_scale, name, cls):
    a = _float_in(input, name, 'elu_cpu')
    res = _run(a, _elu_k, alpha, scale, input_scale)
    return _record(res, input, cls, alpha=alpha, scale=scale, input_scale=input_scale)


def _elu_fn(input, alpha=1.0):
    return _elu(input, alpha, 1.0, 1.0, 'elu', EluBackward0)


def elu(input, alpha=1.0, inplace=False):
    """Applies the exponential linear unit elementwise:
    ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        input (Tensor): the input (floating point).
        alpha (float): the value the negative part saturates to (``-alpha``). Default: 1.0.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.elu(ember.tensor([-1., 2.]))
        tensor([-0.6321,  2.0000])
    """
    if inplace:
        return elu_(input, alpha)
    return _elu_fn(input, alpha)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); F.elu_(x); x
        tensor([-0.6321,  2.0000])
    """
    return _inplace_form(input, 'elu_', _elu_fn, (alpha,), ((EluBackward0, EluBackward1),))


def _celu_fn(input, alpha=1.0):
    if not isinstance(input, Tensor):
        _args.tensor(input, 'celu')
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(input, alpha, 1.0, 1.0 / alpha, 'celu', CeluBackward0)


@register('celu', method=False)
def _celu_t(input, alpha=1.0):
    """Applies the continuously differentiable ELU elementwise:
    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input (Tensor): the input (floating point).
        alpha (float): the ``alpha`` of the formula (not 0). Default: 1.0.

    Example::

        >>> ember.celu(ember.tensor([-1., 2.]), 2.)
        tensor([-0.7869,  2.0000])
    """
    return _celu_fn(input, alpha)


def celu(input, alpha=1.0, inplace=False):
    """Applies the continuously differentiable ELU elementwise:
    ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input (Tensor): the input (floating point).
        alpha (float): the ``alpha`` of the formula (not 0). Default: 1.0.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.celu(ember.tensor([-1., 2.]), 2.)
        tensor([-0.7869,  2.0000])
    """
    if inplace:
        return celu_(input, alpha)
    return _celu_fn(input, alpha)


@register(method=False)
def celu_(input, alpha=1.0):
    """In-place :func:`celu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); ember.celu_(x); x
        tensor([-0.6321,  2.0000])
    """
    return _inplace_form(input, 'celu_', _celu_fn, (alpha,), ((CeluBackward0, CeluBackward1),))


def _selu_fn(input):
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, 'selu', EluBackward0)


@register('selu', method=False)
def _selu_t(input):
    """Applies the scaled ELU elementwise: ``scale * (max(0, x) + min(0, alpha * (exp(x) -
    1)))`` with ``alpha = 1.6732632423543772...`` and ``scale = 1.0507009873554804...``.

    Example::

        >>> ember.selu(ember.tensor([-1., 2.]))
        tensor([-1.1113,  2.1014])
    """
    return _selu_fn(input)


def selu(input, inplace=False):
    """Applies the scaled ELU elementwise: ``scale * (max(0, x) + min(0, alpha * (exp(x) -
    1)))`` with ``alpha = 1.6732632423543772...`` and ``scale = 1.0507009873554804...``.

    Args:
        input (Tensor): the input (floating point).
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.selu(ember.tensor([-1., 2.]))
        tensor([-1.1113,  2.1014])
    """
    if inplace:
        return selu_(input)
    return _selu_fn(input)


@register(method=False)
def selu_(input):
    """In-place :func:`selu`.

    Example::

        >>> x = ember.tensor([-1., 2.]); ember.selu_(x); x
        tensor([-1.1113,  2.1014])
    """
    return _inplace_form(input, 'selu_', _selu_fn, (), ((EluBackward0, EluBackward1),))


# ------------------------------------------------------------------ gelu
class GeluBackward0(_ActNode):
    def _fast(self, g, x, xp):
        if self.approximate == 'tanh':
            x2 = x * x
            t = xp.tanh((x2 * 0.044715 + 1) * x * _SQRT_2_PI)
            return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * (x2 * (3 * 0.044715) + 1) *
                        _SQRT_2_PI)
        return g * (_phi(x, xp) + x * xp.exp(x * x * -0.5) * _INV_SQRT_2PI)

    def _graph(self, g, x):
        if self.approximate == 'tanh':
            x2 = x * x
            t = ((x2 * 0.044715 + 1) * x * _SQRT_2_PI).tanh()
            d = (t + 1) * 0.5 + x * 0.5 * (-t * t + 1) * (x2 * (3 * 0.044715) + 1) * _SQRT_2_PI
        else:
            d = ((x * _SQRT1_2).erf() + 1) * 0.5 + x * (x * x * -0.5).exp() * _INV_SQRT_2PI
        return g * d


def _gelu_k(x, xp, approximate):
    if approximate == 'tanh':
        inner = (x * x * 0.044715 + 1) * x * _SQRT_2_PI
        return x * 0.5 * (xp.tanh(inner) + 1)
    return x * _phi(x, xp)


# erfcx(u) / t = exp(u^2) erfc(u) / t with t = 2 / (2 + u), u >= 0, as a Chebyshev series in
# 2t - 1 (fitted for ember against 40-digit values): 25 terms give ~2e-15 relative error,
# the first 13 ~2e-9 (enough for float32 results)
_ERFCX_CHEB = (
    0.5770337386164697, 0.35543692127049836, 0.06509515882878653, 0.003671142395836668,
    -0.0011128447433526479, -0.00016075829915383104, 3.278031574176164e-05,
    5.44244164544302e-06, -1.5154665554015767e-06, -1.429760818330776e-07,
    8.234608835456588e-08, -1.2962847399372021e-09, -4.154721629182615e-09,
    6.347057607100662e-10, 1.432081432701482e-10, -6.160382778547173e-11,
    2.06118847983547e-12, 3.5715473567421494e-12, -8.587029767040029e-13,
    -6.14693109221122e-14, 7.410582757532329e-14, -1.2903932177794826e-14,
    -2.411272187771987e-15, 1.5954282144656756e-15, -1.4503892858778868e-16)


def _phi(x, xp):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2`` in ``x``'s dtype, from
    ``h = erfc(|x| / sqrt(2)) / 2 = exp(-x^2 / 2) * t * S(t) / 2`` (``S``: the series
    above, by Clenshaw's recurrence): ``h`` for ``x < 0`` (relative precision kept in the
    tail), ``1 - h`` otherwise. Computed in float64, in blocks of 16000 elements whose
    buffers are reused (cache-resident, no page faults from fresh large arrays)."""
    shape = x.shape
    flat = x.reshape(-1)
    n = flat.shape[0]
    out = xp.empty(n, x.dtype)
    c = _ERFCX_CHEB if x.dtype == np.float64 else _ERFCX_CHEB[:13]
    blk = max(1, min(n, 16000))
    bufs = [xp.empty(blk, np.float64) for _ in range(6)]
    for lo in range(0, n, blk):
        m = min(blk, n - lo)
        xd, u, t, b0, b1, b2 = (b[:m] for b in bufs)
        xd[...] = flat[lo:lo + m]
        xp.abs(xd, out=u)
        u *= _SQRT1_2
        xp.add(u, 2, out=t)
        xp.divide(2, t, out=t)
        y2 = b2                                   # 2 (2t - 1), kept in b2 until the loop
        xp.multiply(t, 4, out=y2)
        y2 -= 2
        b1.fill(c[-1])
        xp.multiply(y2, b1, out=b0)               # first step (b2 = 0)
        b0 += c[-2]
        y2 = y2.copy()
        b2, b1, b0 = b1, b0, b2
        for k in range(len(c) - 3, 0, -1):       # Clenshaw, allocation-free
            xp.multiply(y2, b1, out=b0)
            b0 += c[k]
            b0 -= b2
            b2, b1, b0 = b1, b0, b2
        y2 *= 0.5
        b1 *= y2
        b1 -= b2
        b1 += c[0]                               # erfcx(u) / t
        xp.multiply(u, u, out=u)
        xp.negative(u, out=u)
        xp.exp(u, out=u)
        u *= t
        u *= b1
        u *= 0.5                                 # h = erfc(|x| / sqrt(2)) / 2
        xp.subtract(1, u, out=t)
        out[lo:lo + m] = _sel(xd < 0, u, t, u.dtype)
    return out.reshape(shape)


def gelu(input, approximate='none'):
    """Applies the Gaussian error linear unit elementwise: ``x * Phi(x)`` (``Phi``: the
    standard normal CDF), or with ``approximate='tanh'``
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))``.

    Args:
        input (Tensor): the input (floating point).
        approximate (str): ``'none'`` or ``'tanh'``. Default: ``'none'``.

    Example::

        >>> F.gelu(ember.tensor([-1., 1.]))
        tensor([-0.1587,  0.8413])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'gelu')
    if not isinstance(approximate, str):
        raise TypeError(f"gelu(): argument 'approximate' must be str, not "
                        f"{_args.type_name(approximate)}")
    if approximate not in ('none', 'tanh'):
        raise RuntimeError("approximate argument must be either none or tanh.")
    a = _float_in(input, 'gelu', 'GeluKernelImpl')
    res = _run(a, _gelu_k, approximate)
    return _record(res, input, GeluBackward0, approximate=approximate)


# ------------------------------------------------------------------ glu
class GluBackward0(Node):
    _saved_names = ('self',)

    def backward(self, g):
        (x,) = self.saved_tensors
        d = self.dim
        h = x.shape[d] // 2
        a, b = x.narrow(d, 0, h), x.narrow(d, h, h)
        s = b.sigmoid()
        ga = g * s
        return _cat([ga, ga * a * (-s + 1)], d)


def glu(input, dim=-1):
    """The gated linear unit: splits ``input`` in halves ``a``, ``b`` along ``dim`` and
    returns ``a * sigmoid(b)``.

    Args:
        input (Tensor): the input; its size along ``dim`` must be even.
        dim (int): the dimension to split. Default: -1.

    Example::

        >>> F.glu(ember.tensor([1., 2., 0., 0.]))
        tensor([0.5000, 1.0000])
    """
    _args.py_tensor(input, 'dim')
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    ax = _wrap_dim(dim, input.dim())
    a = input._data
    n = a.shape[ax]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {ax} is size {n}")
    if a.dtype.kind not in 'fV':
        _not_impl('glu_cpu', a)
    h = n // 2
    sl = (slice(None),) * ax

    def k(x, xp):
        p, q = x[sl + (slice(0, h),)], x[sl + (slice(h, n),)]
        return p / (1 + xp.exp(-q))
    xp = array_module(a)
    w = _lowp_np(a.dtype)
    r = _call(k, a if w is None else a.astype(w), xp)
    res = wrap(r if r.dtype == a.dtype else r.astype(a.dtype))
    return _record(res, input, GluBackward0, dim=ax)


# ------------------------------------------------------------------ hardshrink / softshrink
class HardshrinkBackward0(_ActNode):
    _piecewise = True

    def _fast(self, g, x, xp):
        return _sel((x < -self.lambd) | (x > self.lambd) | (x != x), g, 0., g.dtype)

    def _graph(self, g, x):
        a = x._data
        return _pick((a >= -self.lambd) & (a <= self.lambd), 0., g)


@register()
def hardshrink(input, lambd=0.5):
    """Applies hard shrinkage elementwise: ``x`` where ``|x| > lambd``, else 0.

    Args:
        input (Tensor): the input (floating point).
        lambd (float): the threshold. Default: 0.5.

    Example::

        >>> ember.hardshrink(ember.tensor([-1., 0.2, 0.7]))
        tensor([-1.0000,  0.0000,  0.7000])
    """
    a = _float_in(input, 'hardshrink', 'hardshrink_cpu')
    res = _run(a, lambda x, xp, l: _sel((x < -l) | (x > l) | (x != x), x, 0., x.dtype), lambd)
    return _record(res, input, HardshrinkBackward0, lambd=lambd)


class SoftshrinkBackward0(HardshrinkBackward0):
    pass


def _softshrink_k(x, xp, l):
    return x - xp.clip(x, -l, l)     # x - l above l, x + l below -l, 0 between; NaN stays


def softshrink(input, lambd=0.5):
    """Applies soft shrinkage elementwise: ``x - lambd`` above ``lambd``, ``x + lambd``
    below ``-lambd``, 0 in between.

    Args:
        input (Tensor): the input (floating point).
        lambd (float): the threshold (>= 0). Default: 0.5.

    Example::

        >>> F.softshrink(ember.tensor([-1., 0.2, 0.7]))
        tensor([-0.5000,  0.0000,  0.2000])
    """
    a = _float_in(input, 'softshrink', 'softshrink_check')
    mx = float(np.finfo(np.float32 if a.dtype.kind == 'V' else a.dtype).max)
    if not 0 <= lambd <= mx:
        raise RuntimeError(f"lambda must be in range [0, {mx:g}] for input dtype "
                           f"{_tname(a)}, but found {lambd:g}.")
    res = _run(a, _softshrink_k, lambd)
    return _record(res, input, SoftshrinkBackward0, lambd=lambd)


# ------------------------------------------------------------------ hardsigmoid / hardswish
class HardsigmoidBackward0(_ActNode):
    _piecewise = True

    def _fast(self, g, x, xp):
        return _sel((x > -3) & (x < 3), g / 6, 0., g.dtype)

    def _graph(self, g, x):
        a = x._data
        return _pick((a > -3) & (a < 3), g / 6, 0.)


def _hardsigmoid_fn(input):
    a = _float_in(input, 'hardsigmoid', 'hardsigmoid_cpu')
    res = _run(a, lambda x, xp: xp.clip(x + 3, 0, 6) / 6)
    return _record(res, input, HardsigmoidBackward0)


def hardsigmoid(input, inplace=False):
    """Applies the hard sigmoid elementwise: ``relu6(x + 3) / 6``.

    Args:
        input (Tensor): the input (floating point).
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.hardsigmoid(ember.tensor([-4., 0., 1.5]))
        tensor([0.0000, 0.5000, 0.7500])
    """
    if inplace:
        return _inplace_form(input, 'hardsigmoid_', _hardsigmoid_fn, ())
    return _hardsigmoid_fn(input)


class HardswishBackward0(_ActNode):
    def _fast(self, g, x, xp):
        return _sel(x <= -3, 0., _sel(x < 3, g * (x / 3 + 0.5), g, g.dtype), g.dtype)

    def _graph(self, g, x):
        a = x._data
        return _pick(a <= -3, 0., _pick(a < 3, g * (x / 3 + 0.5), g))


def _hardswish_fn(input):
    a = _float_in(input, 'hardswish', 'hardswish_cpu')
    res = _run(a, lambda x, xp: x * xp.clip(x + 3, 0, 6) / 6)
    return _record(res, input, HardswishBackward0)


def hardswish(input, inplace=False):
    """Applies the hard swish elementwise: ``x * relu6(x + 3) / 6``.

    Args:
        input (Tensor): the input (floating point).
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.hardswish(ember.tensor([-4., 1., 4.]))
        tensor([-0.0000,  0.6667,  4.0000])
    """
    if inplace:
        return _inplace_form(input, 'hardswish_', _hardswish_fn, ())
    return _hardswish_fn(input)


# ------------------------------------------------------------------ hardtanh / relu6
class HardtanhBackward0(_ActNode):
    _piecewise = True

    def _fast(self, g, x, xp):
        return _sel((x <= self.min_val) | (x >= self.max_val), 0., g, g.dtype)

    def _graph(self, g, x):
        a = x._data
        return _pick((a <= self.min_val) | (a >= self.max_val), 0., g)


def _bound(a, v):
    """A bound for integer inputs is cast as PyTorch casts a scalar (truncation)."""
    return int(v) if a.dtype.kind in 'iu' else v


def _hardtanh_fn(input, min_val=-1.0, max_val=1.0):
    if not isinstance(input, Tensor):
        _args.tensor(input, 'hardtanh')
    a = input._data
    if a.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if a.dtype.kind == 'c':
        _not_impl('clamp_scalar_cpu', a)
    lo, hi = _bound(a, min_val), _bound(a, max_val)
    if a.dtype.kind in 'iu':
        xp = array_module(a)
        return _w(xp.minimum(xp.maximum(a, lo), hi).astype(a.dtype), xp, a)
    res = _run(a, lambda x, xp: xp.clip(x, lo, hi))
    return _record(res, input, HardtanhBackward0, min_val=min_val, max_val=max_val)


def _hardtanh_check(min_val, max_val):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Applies the hard tanh elementwise: ``x`` clamped to ``[min_val, max_val]``.

    Args:
        input (Tensor): the input.
        min_val (float): lower end of the linear region. Default: -1.
        max_val (float): upper end of the linear region. Default: 1.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.hardtanh(ember.tensor([-2., 0.5, 2.]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    _hardtanh_check(min_val, max_val)
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _hardtanh_fn(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`.

    Example::

        >>> x = ember.tensor([-2., 0.5]); F.hardtanh_(x); x
        tensor([-1.0000,  0.5000])
    """
    return _inplace_form(input, 'hardtanh_', _hardtanh_fn, (min_val, max_val))


def relu6(input, inplace=False):
    """Applies ``min(max(0, x), 6)`` elementwise (``hardtanh(x, 0, 6)``).

    Args:
        input (Tensor): the input.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.relu6(ember.tensor([-1., 3., 7.]))
        tensor([0., 3., 6.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'relu6_' if inplace else 'relu6')
    if inplace:
        return hardtanh_(input, 0., 6.)
    return _hardtanh_fn(input, 0., 6.)


# ------------------------------------------------------------------ logsigmoid / softplus
class LogSigmoidBackward0(_ActNode):
    def _fast(self, g, x, xp):
        return g / (1 + xp.exp(x))

    def _graph(self, g, x):
        return g * (-x).sigmoid()


def _logsigmoid_k(x, xp):
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def logsigmoid(input):
    """Applies ``log(sigmoid(x))`` elementwise, computed stably.

    Example::

        >>> F.logsigmoid(ember.tensor([-100., 0.]))
        tensor([-100.0000,   -0.6931])
    """
    a = _float_in(input, 'log_sigmoid', 'log_sigmoid_cpu')
    res = _run(a, _logsigmoid_k)
    return _record(res, input, LogSigmoidBackward0)


class SoftplusBackward0(_ActNode):
    def _fast(self, g, x, xp):
        xb = x * self.beta
        return _sel(xb > self.threshold, g, g / (1 + xp.exp(-xb)), g.dtype)

    def _graph(self, g, x):
        xb = x * self.beta
        return g * _pick(xb._data > self.threshold, 1., xb.sigmoid())


def _softplus_k(x, xp, beta, threshold):
    xb = x * beta
    return _sel(xb > threshold, x, xp.log1p(xp.exp(xb)) / beta, x.dtype)


def softplus(input, beta=1.0, threshold=20.0):
    """Applies ``log(1 + exp(beta * x)) / beta`` elementwise; where ``beta * x >
    threshold`` the result is ``x`` itself (numerical stability).

    Args:
        input (Tensor): the input (floating point).
        beta (float): the ``beta`` of the formula. Default: 1.
        threshold (float): above it the function is linear. Default: 20.

    Example::

        >>> F.softplus(ember.tensor([0., 30.]))
        tensor([ 0.6931, 30.0000])
    """
    a = _float_in(input, 'softplus', 'softplus_cpu')
    res = _run(a, _softplus_k, beta, threshold)
    return _record(res, input, SoftplusBackward0, beta=beta, threshold=threshold)


# ------------------------------------------------------------------ mish / silu
class MishBackward0(_ActNode):
    def _fast(self, g, x, xp):
        t = xp.tanh(xp.log1p(xp.exp(x)))
        return g * (t + x / (1 + xp.exp(-x)) * (1 - t * t))

    def _graph(self, g, x):
        t = softplus(x).tanh()
        return g * (t + x * x.sigmoid() * (-t * t + 1))


def _mish_fn(input):
    a = _float_in(input, 'mish', 'mish_cpu')
    res = _run(a, lambda x, xp: x * xp.tanh(xp.log1p(xp.exp(x))))
    return _record(res, input, MishBackward0)


def mish(input, inplace=False):
    """Applies ``x * tanh(softplus(x))`` elementwise.

    Args:
        input (Tensor): the input (floating point).
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.mish(ember.tensor([-1., 1.]))
        tensor([-0.3034,  0.8651])
    """
    if inplace:
        return _inplace_form(input, 'mish_', _mish_fn, ())
    return _mish_fn(input)


class SiluBackward0(_ActNode):
    def _fast(self, g, x, xp):
        s = 1 / (1 + xp.exp(-x))
        return g * s * (1 + x * (1 - s))

    def _graph(self, g, x):
        s = x.sigmoid()
        return g * (s * (x * (-s + 1) + 1))


def _silu_fn(input):
    if isinstance(input, Tensor) and input._data.dtype.kind == 'c':   # complex, as torch
        if _Mode.grad and input._rg:
            raise RuntimeError("silu does not support automatic differentiation for outputs "
                               "with complex dtype.")
        return input * input.sigmoid()
    a = _float_in(input, 'silu', 'silu_cpu')
    res = _run(a, lambda x, xp: x / (1 + xp.exp(-x)))
    return _record(res, input, SiluBackward0)


def silu(input, inplace=False):
    """Applies the sigmoid linear unit (swish) ``x * sigmoid(x)`` elementwise.

    A complex input is computed too (without autograd, as in PyTorch).

    Args:
        input (Tensor): the input (floating point or complex).
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.silu(ember.tensor([-1., 1.]))
        tensor([-0.2689,  0.7311])
    """
    if inplace:
        return _inplace_form(input, 'silu_', _silu_fn, ())
    return _silu_fn(input)


# ------------------------------------------------------------------ sigmoid / tanh and composites
def sigmoid(input):
    """Applies the logistic sigmoid ``1 / (1 + exp(-x))`` elementwise (``input.sigmoid()``).

    Example::

        >>> F.sigmoid(ember.tensor([0.]))
        tensor([0.5000])
    """
    return _args.py_tensor(input, 'sigmoid').sigmoid()


def tanh(input):
    """Applies the hyperbolic tangent elementwise (``input.tanh()``).

    Example::

        >>> F.tanh(ember.tensor([0.]))
        tensor([0.])
    """
    return _args.py_tensor(input, 'tanh').tanh()


def softsign(input):
    """Applies ``x / (1 + |x|)`` elementwise.

    Example::

        >>> F.softsign(ember.tensor([-1., 3.]))
        tensor([-0.5000,  0.7500])
    """
    _args.py_tensor(input, 'abs')
    return input / (input.abs() + 1)


def tanhshrink(input):
    """Applies ``x - tanh(x)`` elementwise.

    Example::

        >>> F.tanhshrink(ember.tensor([1.]))
        tensor([0.2384])
    """
    _args.py_tensor(input, 'tanh')
    return input - input.tanh()


# ------------------------------------------------------------------ threshold
class ThresholdBackward0(_ActNode):
    _piecewise = True

    def _fast(self, g, x, xp):
        return _sel(x <= self.threshold, 0., g, g.dtype)

    def _graph(self, g, x):
        return _pick(x._data <= self.threshold, 0., g)


class ThresholdBackward1(ThresholdBackward0):
    pass


def _threshold_fn(input, threshold, value):
    if not isinstance(input, Tensor):
        _args.tensor(input, 'threshold')
    a = input._data
    if a.dtype == np.bool_ or a.dtype.kind == 'c':
        _not_impl('threshold_cpu', a)
    if a.dtype.kind in 'iu':
        xp = array_module(a)
        th, v = _bound(a, threshold), _bound(a, value)
        return _w(xp.where(a <= th, a.dtype.type(v), a), xp, a)
    res = _run(a, lambda x, xp: _sel(x <= threshold, value, x, x.dtype))
    return _record(res, input, ThresholdBackward0, threshold=threshold)


@register('threshold', method=False)
def _threshold_t(input, threshold, value):
    """Thresholds each element: ``x`` where ``x > threshold``, else ``value``.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the value that replaces elements at or below ``threshold``.

    Example::

        >>> ember.threshold(ember.tensor([0.5, 2.]), 1., -1.)
        tensor([-1.,  2.])
    """
    return _threshold_fn(input, threshold, value)


def threshold(input, threshold, value, inplace=False):
    """Thresholds each element: ``x`` where ``x > threshold``, else ``value``.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the value that replaces elements at or below ``threshold``.
        inplace (bool): operate in place. Default: ``False``.

    Example::

        >>> F.threshold(ember.tensor([0.5, 2.]), 1., -1.)
        tensor([-1.,  2.])
    """
    if inplace:
        return threshold_(input, threshold, value)
    return _threshold_fn(input, threshold, value)


@register(method=False)
def threshold_(input, threshold, value):
    """In-place :func:`threshold`.

    Example::

        >>> x = ember.tensor([0.5, 2.]); F.threshold_(x, 1., -1.); x
        tensor([-1.,  2.])
    """
    return _inplace_form(input, 'threshold_', _threshold_fn, (threshold, value),
                         ((ThresholdBackward0, ThresholdBackward1),))


# ------------------------------------------------------------------ prelu
class PreluKernelBackward0(Node):
    _saved_names = ('self', 'weight')

    def _fast(self, g, x, w, pos):
        dt = g.dtype
        xp = array_module(g)
        wb = w._data.reshape(self.wshape)
        gx = wrap(xp.asarray(_sel(pos, g, g * wb, dt))) if self.needs[0] else None
        gw = None
        if self.needs[1]:
            full = _sel(pos, 0., g * x, dt)
            dims = tuple(i for i in range(full.ndim) if i != 1 or w._data.size == 1)
            r = full.sum(axis=dims) if dims else full
            gw = wrap(xp.asarray(r).reshape(w._data.shape))
        return gx, gw

    def backward(self, g):
        x, w = self.saved_tensors
        pos = x._data > 0
        if not _Mode.grad and x._data.dtype.kind == 'f' and x._data.dtype == g._data.dtype:
            return self._fast(g._data, x._data, w, pos)
        wb = w.reshape(self.wshape)
        gx = _pick(pos, g, g * wb) if self.needs[0] else None
        if gx is not None and x._rg:
            gx = _link(gx, x, self)
        gw = None
        if self.needs[1]:
            full = _pick(pos, 0., g * x)
            dims = tuple(i for i in range(full.dim()) if i != 1 or w.numel() == 1)
            gw = (full.sum(dims) if dims else full).reshape(w.shape)
        return gx, gw


@register()
def prelu(input, weight):
    """Applies ``max(0, x) + weight * min(0, x)`` elementwise, with a learnable slope per
    channel (dim 1 of the input; one slope when ``weight`` has one element).

    Args:
        input (Tensor): the input (floating point).
        weight (Tensor): the slopes: one element, or one per channel.

    Example::

        >>> ember.prelu(ember.tensor([[-1., 2.]]), ember.tensor([0.5, 0.1]))
        tensor([[-0.5000,  2.0000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'prelu')
    if not isinstance(weight, Tensor):
        _args.tensor(weight, 'prelu', 'weight', 2)
    a, wa = input._data, weight._data
    nd = a.ndim
    nw = wa.size
    if wa.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {wa.ndim}")
    if nw != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        ch = a.shape[1] if nd >= 2 else 1
        if ch != nw:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {nw} and channel size = {ch}.")
    if a.dtype != wa.dtype and a.dtype.kind in 'fV' and wa.dtype.kind in 'fV':
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_tname(a)} and "
                           f"{_tname(wa)}")
    if a.dtype.kind not in 'fV':
        _not_impl('prelu_cpu', a)
    wshape = (1, nw) + (1,) * (nd - 2) if nw != 1 else (1,) * max(nd, 1)
    if nw == 1 and nd == 0:
        wshape = ()
    wv = wa.reshape(wshape)
    w32 = _lowp_np(a.dtype)
    if w32 is not None:
        wv = wv.astype(w32)
    res = _run(a, lambda x, xp_: _sel(x > 0, x, x * wv, x.dtype))
    if grad_needed(input, weight):
        node = PreluKernelBackward0()
        node.wshape = wshape
        record(res, node, (input, weight), save=(input, weight))
    return res


# ------------------------------------------------------------------ gumbel_softmax
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    ``g = -log(Exponential(1))`` noise drawn from the random stream as PyTorch draws it;
    with ``hard=True`` the result is one-hot (the argmax) in the forward pass while the
    gradient is the soft sample's (straight-through).

    Args:
        logits (Tensor): ``(*, num_features)`` unnormalized log-probabilities.
        tau (float): temperature (> 0). Default: 1.
        hard (bool): return one-hot samples. Default: ``False``.
        eps (float): deprecated, unused.
        dim (int): the dimension softmax is computed over. Default: -1.

    Example::

        >>> y = F.gumbel_softmax(ember.zeros(2, 3), hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not isinstance(logits, Tensor):
        _args.tensor(logits, 'empty_like')
    noise = wrap(array_module(logits._data).empty(logits._data.shape, logits._data.dtype))
    noise.exponential_()
    y = ((logits - noise.log()) / tau).softmax(dim)
    if not hard:
        return y
    idx = y.max(dim, keepdim=True)[1]
    one = wrap(array_module(logits._data).zeros(logits._data.shape, logits._data.dtype))
    one.scatter_(dim, idx, 1.0)
    return one - y.detach() + y


for _f, _n in ((_celu_t, 'celu'), (_selu_t, 'selu'), (_threshold_t, 'threshold')):
    _f.__name__ = _f.__qualname__ = _n
