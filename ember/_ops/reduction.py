"""Reductions: sum, mean, prod, max/min, var/std, norms, sorting, unique, cumulative ops...

Each differentiable op's backward class (named as PyTorch names it) stands right above
its forward. Backward formulas are written in ember ops; masks and index arrays that only
depend on the forward data (ties of a max, positions of zeros, sort permutations) are
constants computed with the array module.
"""
from . import _args
import builtins
import math

import numpy as np

from .. import _dtype as D
from .. import return_types as _rt
from .._tensor import Tensor, _Mode, _wrap_dim, _legacy_name
from ._util import wrap, Node, register, grad_needed, record, with_out, write_out
from .._backend import array_module
from .indexing import gather, scatter, scatter_add
from .shape import flip

_bmax, _bmin, _babs, _bsum, _bany, _ball = builtins.max, builtins.min, builtins.abs, builtins.sum, builtins.any, builtins.all


# ------------------------------------------------------------------ helpers
def _dims(dim, nd):
    """Normalise ``dim`` (None, int, tuple/list) to a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(nd))
    if dim.__class__ is int:
        return (_wrap_dim(dim, nd),)
    dim = _args.as_dims(dim)
    if not isinstance(dim, tuple):
        return (_wrap_dim(dim, nd),)
    ds = tuple(_wrap_dim(d, nd) for d in dim)
    if len(set(ds)) != len(ds):
        raise RuntimeError(f"dim {ds[0]} appears multiple times in the list of dims")
    if not ds:
        return tuple(range(nd))
    return tuple(sorted(ds))


def _all_dims(dim):
    """True when ``dim`` means 'reduce everything' (None or an empty tuple/list)."""
    return dim is None or (dim.__class__ in (tuple, list) and len(dim) == 0)


def _axis(dims, nd):
    """numpy ``axis`` argument for reducing ``dims`` of an ``nd``-dim array."""
    return dims if nd else None


def _arr(r, xp):
    """A fresh array from a reduction result (numpy returns scalars for full reductions)."""
    return r if isinstance(r, xp.ndarray) else xp.asarray(r)


def _acc(a):
    """Accumulation dtype for low-precision floats (float16/bfloat16 accumulate in float32)."""
    if a.dtype.kind == 'V' or a.dtype == np.float16:
        return np.dtype(np.float32)
    return None


def _numel(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d] if shape else 1
    return n


def _expand_back(g, shape, dims, keepdim):
    """Grad of a reduction over ``dims``: unsqueeze the reduced dims back and expand."""
    if not keepdim and len(shape) and g.dim() != len(shape):
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


def _const(a, like):
    """A constant (no-grad) tensor from array ``a`` cast to the float dtype of ``like``."""
    return wrap(a.astype(like._data.dtype) if a.dtype != like._data.dtype else a)


def _dtname(a):
    return _legacy_name(D._NP2DT[a.dtype])


def _nonempty_dims(name, a, dim, dims):
    """PyTorch's errors for reductions without an identity (max, amin, ...) on empty input."""
    if a.size:
        return
    if _all_dims(dim):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if a.ndim and a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _int_dim(name, dim):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected (int dim, bool keepdim = False)")
    return int(dim)


# ------------------------------------------------------------------ gather / scatter of grads
def _take_along(x, dim, idx):
    """Differentiable ``x.gather(dim, idx)`` for a constant index array ``idx``."""
    return gather(x, dim, wrap(idx))


def _put_along(g, shape, dim, idx, unique=False):
    """Differentiable scatter of ``g`` into zeros of ``shape`` at ``idx`` along ``dim``
    (duplicate indices add up unless ``unique`` says there are none)."""
    i = wrap(idx)
    if g.shape != i.shape:
        if g.dim() < i.dim():
            g = g.reshape(tuple(g.shape) + (1,) * (i.dim() - g.dim()))
        g = g.expand(i.shape)
    z = g.new_zeros(shape)
    return scatter(z, dim, i, g) if unique else scatter_add(z, dim, i, g)


def _flip(t, dim):
    """Differentiable reversal of ``t`` along ``dim``."""
    return t if t.dim() == 0 else flip(t, (dim,))


class _SelectBackward(Node):
    """Backward of ops that pick input elements by index (max(dim), sort, topk, ...):
    scatter the grad back to the picked positions. ``idx`` is in keepdim form."""
    unique = True

    def backward(self, g, *_):
        if not self.keepdim and len(self.shape):
            g = g.unsqueeze(self.dim)
        return (_put_along(g, self.shape, self.dim, self.idx, self.unique),)


def _select_cls(name, unique=True):
    cls = type(name, (_SelectBackward,), {'unique': unique})
    return cls


MaxBackward0 = _select_cls('MaxBackward0')
MinBackward0 = _select_cls('MinBackward0')
MedianBackward1 = _select_cls('MedianBackward1')
NanmedianBackward1 = _select_cls('NanmedianBackward1')
ModeBackward0 = _select_cls('ModeBackward0')
KthvalueBackward0 = _select_cls('KthvalueBackward0')
SortBackward0 = _select_cls('SortBackward0')
TopkBackward0 = _select_cls('TopkBackward0')
CummaxBackward0 = _select_cls('CummaxBackward0', unique=False)
CumminBackward0 = _select_cls('CumminBackward0', unique=False)


def _selected(input, vals, idx_keep, dim, keepdim, cls, rtype):
    """Wrap values/indices of an index-selecting op (``idx_keep`` in keepdim form) and record
    its backward."""
    xp = array_module(vals)
    a = input._data
    idx_out = idx_keep if keepdim or a.ndim == 0 else xp.squeeze(idx_keep, axis=dim)
    if a.ndim == 0:
        idx_out = idx_out.reshape(())
        vals = vals.reshape(())
    v = wrap(vals)
    i = wrap(idx_out.astype(np.int64))
    if grad_needed(input):
        node = cls()
        node.shape, node.dim, node.keepdim, node.idx = a.shape, dim, keepdim, idx_keep
        record((v, i), node, (input,))
    return rtype((v, i))


def _even_weights(x, val_keep, dims):
    """Weights splitting a gradient evenly among the elements of ``x`` equal to the reduced
    value (NaN matches NaN), as PyTorch does for max/min/amax/median without indices."""
    xp = array_module(x)
    m = x == val_keep
    if x.dtype.kind in 'fcV':
        m |= xp.isnan(x) & xp.isnan(val_keep)
    cnt = m.sum(axis=_axis(dims, x.ndim), keepdims=True)
    fdt = x.dtype if x.dtype.kind in 'fcV' else np.float32
    with np.errstate(invalid='ignore', divide='ignore'):
        return (m / xp.maximum(cnt, 1)).astype(fdt)


class _EvenBackward(Node):
    """g spread over ties with the constant weights ``self.w`` (see ``_even_weights``)."""
    def backward(self, g):
        return (_expand_back(g, self.shape, self.dims, self.keepdim) * _const(self.w, g),)


def _even_cls(name):
    return type(name, (_EvenBackward,), {})


MaxBackward1 = _even_cls('MaxBackward1')
MinBackward1 = _even_cls('MinBackward1')
AmaxBackward0 = _even_cls('AmaxBackward0')
AminBackward0 = _even_cls('AminBackward0')
MedianBackward0 = _even_cls('MedianBackward0')
NanmedianBackward0 = _even_cls('NanmedianBackward0')


def _record_even(res, input, cls, val_keep, dims, keepdim):
    if grad_needed(input):
        a = input._data
        node = cls()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        node.w = _even_weights(a, val_keep, dims)
        record(res, node, (input,))
    return res


# ------------------------------------------------------------------ sum / mean / prod
class SumBackward0(Node):
    def backward(self, g):
        return (g.expand(self.shape),)


class SumBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.shape, self.dims, self.keepdim),)


def _sum_input(input, dtype):
    a = input._data
    if dtype is not None:
        return a.astype(dtype._np, copy=False)
    if a.dtype.kind in 'biu':
        return a.astype(np.int64)
    return a


@register()
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum of elements, over ``dim`` (int, tuple or None for all).

    Integer and bool inputs sum as int64.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce (all if None).
        keepdim (bool): keep the reduced dimensions with size 1.
        dtype (ember.dtype, optional): cast the input to this dtype first.

    Example::

        >>> ember.tensor([[1, 2], [3, 4]]).sum(0)
        tensor([4, 6])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'sum')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'sum', 'keepdim', 2)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'sum')
    elif isinstance(out, Tensor):       # as torch: the sum is computed in out's dtype
        dtype = out.dtype
    a = _sum_input(input, dtype)
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    xp = array_module(a)
    acc = _acc(a)
    # (an explicit integer dtype= such as int32 stays that dtype: NumPy would widen it)
    r = xp.sum(a, axis=_axis(dims, nd), keepdims=keepdim,
               dtype=acc if acc is not None else a.dtype)
    if acc is not None:
        r = r.astype(a.dtype)
    res = wrap(_arr(r, xp))
    if grad_needed(input):
        node = SumBackward0() if dim is None and not keepdim else SumBackward1()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        record(res, node, (input,))
    return res if out is None else write_out(res, out, 'sum')


class NansumBackward0(Node):
    def backward(self, g):
        return (_expand_back(g, self.shape, self.dims, self.keepdim) * _const(self.mask, g),)


@register()
@with_out('nansum')
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements treating NaN as zero.

    Example::

        >>> ember.tensor([1., float('nan'), 2.]).nansum()
        tensor(3.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nansum')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'nansum', 'keepdim', 2)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'nansum')
    a = _sum_input(input, dtype)
    if a.dtype.kind == 'c':
        raise RuntimeError("nansum does not support complex inputs")
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    xp = array_module(a)
    acc = _acc(a)
    # NumPy's nansum sees NaN only in its own float types: bfloat16 goes through float32
    r = xp.nansum(a.astype(acc) if a.dtype.kind == 'V' else a, axis=_axis(dims, nd),
                  keepdims=keepdim, dtype=acc)
    if acc is not None:
        r = r.astype(a.dtype)
    res = wrap(_arr(r, xp))
    if grad_needed(input):
        node = NansumBackward0()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        node.mask = ~xp.isnan(a)
        record(res, node, (input,))
    return res


class MeanBackward0(Node):
    def backward(self, g):
        return (g.expand(self.shape) / self.n,)


class MeanBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.shape, self.dims, self.keepdim) / self.n,)


@register()
def mean(input, dim=_args.OMITTED, keepdim=False, *, dtype=None, out=None):
    """Mean of elements over ``dim`` (int, tuple or None for all).

    The input must be floating point or complex (or pass ``dtype=``).

    Example::

        >>> ember.tensor([[1., 2.], [3., 4.]]).mean(1)
        tensor([1.5000, 3.5000])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'mean')
    if dim is _args.OMITTED:
        if keepdim is not False:   # PyTorch has no mean(input, keepdim) overload
            _args.invalid('mean', keepdim=keepdim)
        dim = None
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'mean', 'keepdim', 2)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'mean')
    a = input._data
    if dtype is not None:
        if dtype._cat < 2:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {_legacy_name(dtype)}")
        a = a.astype(dtype._np, copy=False)
    elif a.dtype.kind not in 'fcV':
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {_dtname(a)}")
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    n = _numel(a.shape, dims)
    xp = array_module(a)
    acc = _acc(a)
    s = xp.sum(a, axis=_axis(dims, nd), keepdims=keepdim, dtype=acc)
    with np.errstate(invalid='ignore', divide='ignore'):
        r = _arr(s / (n if n else np.nan), xp).astype(a.dtype, copy=False)
    res = wrap(r)
    if grad_needed(input):
        node = MeanBackward0() if dim is None and not keepdim else MeanBackward1()
        node.shape, node.dims, node.keepdim, node.n = a.shape, dims, keepdim, n
        record(res, node, (input,))
    return res if out is None else write_out(res, out, 'mean')


@register()
@with_out('nanmean')
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements (``nansum / count``).

    Example::

        >>> ember.tensor([1., float('nan'), 2.]).nanmean()
        tensor(1.5000)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nanmean')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'nanmean', 'keepdim', 2)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'nanmean')
    a = input._data
    if dtype is None and a.dtype.kind not in 'fcV':
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_dtname(a)}")
    xp = array_module(a)
    cnt = wrap(_arr((~xp.isnan(a)).sum(axis=_axis(_dims(None if _all_dims(dim) else dim, a.ndim), a.ndim),
                                       keepdims=keepdim), xp))
    s = nansum(input, dim, keepdim, dtype=dtype)
    with np.errstate(invalid='ignore', divide='ignore'):
        return s / cnt.to(s.dtype)


class ProdBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        return (_prod_grad(x, g.expand(self.shape), out.expand(self.shape), None),)


class ProdBackward1(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        return (_prod_grad(x, _expand_back(g, self.shape, self.dims, self.keepdim),
                           _expand_back(out, self.shape, self.dims, self.keepdim), self.dims[0]),)


def _prod_grad(x, g, out, dim):
    """d prod / dx with correct values where x has zeros (one zero: the product of the
    others; two or more: 0). Complex: ``g * conj(d prod / dx)`` (prod is holomorphic)."""
    if x.is_complex():
        x, out = x.conj(), out.conj()
    a = x._data
    xp = array_module(a)
    zero = a == 0
    if not zero.any():
        return g * out / x
    nd = a.ndim
    zc = _const(zero, x)
    nzc = _const(~zero, x)
    x_nz = x * nzc + zc
    if dim is None:
        p_nz = x_nz.reshape(-1).prod().reshape((1,) * nd) if nd else x_nz
        nz_cnt = zero.sum()
        single = xp.asarray(nz_cnt == 1)
    else:
        p_nz = x_nz.prod(dim, keepdim=True)
        single = zero.sum(axis=dim if nd else None, keepdims=True) == 1
    with np.errstate(invalid='ignore', divide='ignore'):
        return g * (out / x_nz * nzc + p_nz * _const(zero & single, x))


@register()
@with_out('prod', dtype_from_out=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or over the single dimension ``dim``.

    Integer and bool inputs multiply as int64.

    Example::

        >>> ember.tensor([[1., 2.], [3., 4.]]).prod(1)
        tensor([ 2., 12.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'prod')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'prod', 'keepdim', 2)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'prod')
    a = _sum_input(input, dtype)
    nd = a.ndim
    xp = array_module(a)
    if dim is None:
        dims = tuple(range(nd))
        r = xp.prod(a, dtype=_acc(a))
        if keepdim:
            r = xp.reshape(r, (1,) * nd)
    else:
        dims = (_wrap_dim(_int_dim('prod', dim), nd),)
        r = xp.prod(a, axis=_axis(dims, nd), keepdims=keepdim, dtype=_acc(a))
    res = wrap(_arr(r, xp).astype(a.dtype, copy=False))
    if grad_needed(input):
        node = ProdBackward0() if dim is None else ProdBackward1()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        record(res, node, (input,), save=(input, res))
    return res


# ------------------------------------------------------------------ max / min family
def _minmax(name, input, dim, keepdim, out, big):
    if out is not None and not isinstance(out, (Tensor, tuple, list)):   # #ARGCHK
        _args.invalid(name, input, dim, out=out)
    if isinstance(dim, Tensor):
        from . import arithmetic
        fn = arithmetic.maximum if big else arithmetic.minimum
        return fn(input, dim) if out is None else fn(input, dim, out=out)
    if out is not None:
        if (dim is None) != isinstance(out, Tensor):
            _args.invalid(name, input, *(() if dim is None else (dim,)), out=out)
        return write_out(_minmax(name, input, dim, keepdim, None, big), out, name)
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    if dim is None:
        _nonempty_dims(name, a, None, ())
        r = _arr((xp.max if big else xp.min)(a), xp)
        res = wrap(r)
        return _record_even(res, input, MaxBackward1 if big else MinBackward1, r,
                            tuple(range(nd)), False)
    d = _wrap_dim(_int_dim(name, dim), nd)
    _nonempty_dims(name, a, dim, (d,))
    if nd == 0:
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, keepdim,
                         MaxBackward0 if big else MinBackward0, _rt.max if big else _rt.min)
    idx = xp.expand_dims((xp.argmax if big else xp.argmin)(a, axis=d), d)
    vals = xp.take_along_axis(a, idx, axis=d)
    if not keepdim:
        vals = xp.squeeze(vals, axis=d)
    return _selected(input, vals, idx, d, keepdim, MaxBackward0 if big else MinBackward0,
                     _rt.max if big else _rt.min)


@register()
def max(input, dim=None, keepdim=False, *, out=None):
    """The maximum: of all elements (``max()``), along ``dim`` as ``(values, indices)``
    (``max(dim, keepdim=False)``), or elementwise with another tensor (``max(other)``, as
    :func:`maximum`).

    Example::

        >>> x = ember.tensor([[1., 5.], [4., 2.]])
        >>> x.max()
        tensor(5.)
        >>> x.max(0).indices
        tensor([1, 0])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'max')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'max', 'keepdim', 2)
    return _minmax('max', input, dim, keepdim, out, True)


@register()
def min(input, dim=None, keepdim=False, *, out=None):
    """The minimum: of all elements, along ``dim`` as ``(values, indices)``, or elementwise
    with another tensor (as :func:`minimum`).

    Example::

        >>> ember.tensor([[1., 5.], [4., 2.]]).min(1)
        torch.return_types.min(
        values=tensor([1., 2.]),
        indices=tensor([0, 1]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'min')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'min', 'keepdim', 2)
    return _minmax('min', input, dim, keepdim, out, False)


def _amaxmin(name, input, dim, keepdim, big, cls):
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    _nonempty_dims(name, a, dim, dims)
    r = _arr((xp.max if big else xp.min)(a, axis=_axis(dims, nd), keepdims=True), xp)
    res = wrap(r if keepdim or not nd else xp.squeeze(r, axis=dims))
    return _record_even(res, input, cls, r, dims, keepdim)


@register()
@with_out('amax')
def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (int or tuple; all dims by default). The gradient is split evenly
    between equal maxima.

    Example::

        >>> ember.tensor([[1., 5.], [4., 2.]]).amax(1)
        tensor([5., 4.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'amax')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'amax', 'keepdim', 2)
    return _amaxmin('amax', input, dim, keepdim, True, AmaxBackward0)


@register()
@with_out('amin')
def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (int or tuple; all dims by default).

    Example::

        >>> ember.tensor([[1., 5.], [4., 2.]]).amin()
        tensor(1.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'amin')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'amin', 'keepdim', 2)
    return _amaxmin('amin', input, dim, keepdim, False, AminBackward0)


class AminmaxBackward0(Node):
    def backward(self, gmin, gmax):
        gi = None
        for g, w in ((gmin, self.wmin), (gmax, self.wmax)):
            if g is None:
                continue
            t = _expand_back(g, self.shape, self.dims, self.keepdim) * _const(w, g)
            gi = t if gi is None else gi + t
        return (gi,)


@register()
@with_out('aminmax')
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of ``input`` (over ``dim`` if given) as a named tuple.

    Example::

        >>> ember.aminmax(ember.tensor([3., 1., 2.]))
        torch.return_types.aminmax(
        min=tensor(1.),
        max=tensor(3.))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'aminmax')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'aminmax', 'keepdim')
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    dims = tuple(range(nd)) if dim is None else (_wrap_dim(dim, nd),)
    if a.size == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        if nd and a.shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero "
                             "size.")
    ax = _axis(dims, nd)
    lo = _arr(xp.min(a, axis=ax, keepdims=True), xp)
    hi = _arr(xp.max(a, axis=ax, keepdims=True), xp)
    sq = (lambda r: r) if keepdim or not nd else (lambda r: xp.squeeze(r, axis=dims))
    if dim is None and not keepdim:
        sq = lambda r: r.reshape(())  # noqa: E731
    rmin, rmax = wrap(sq(lo).copy()), wrap(sq(hi).copy())
    if grad_needed(input):
        node = AminmaxBackward0()
        node.shape, node.dims, node.keepdim = a.shape, dims, keepdim
        node.wmin = _even_weights(a, lo, dims)
        node.wmax = _even_weights(a, hi, dims)
        record((rmin, rmax), node, (input,))
    return _rt.aminmax((rmin, rmax))


def _argmaxmin(name, input, dim, keepdim, big):
    a = input._data
    if a.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    xp = array_module(a)
    nd = a.ndim
    f = xp.argmax if big else xp.argmin
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        r = xp.asarray(f(a.reshape(-1)), dtype=np.int64)
        return wrap(r.reshape((1,) * nd) if keepdim else r)
    d = _wrap_dim(dim, nd)
    if nd == 0:
        return wrap(xp.zeros((), np.int64))
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return wrap(xp.asarray(f(a, axis=d, keepdims=keepdim), dtype=np.int64))


@register()
@with_out('argmax')
def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (of the flattened input if ``dim`` is None).

    Example::

        >>> ember.tensor([[1., 5.], [4., 2.]]).argmax(1)
        tensor([1, 0])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'argmax')
    if dim is not None and dim.__class__ is not int:
        dim = _args.as_int(dim, 'argmax', 'dim', 1)
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'argmax', 'keepdim', 2)
    return _argmaxmin('argmax', input, dim, keepdim, True)


@register()
@with_out('argmin')
def argmin(input, dim=None, keepdim=False):
    """Index of the minimum (of the flattened input if ``dim`` is None).

    Example::

        >>> ember.tensor([[1., 5.], [4., 2.]]).argmin()
        tensor(0)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'argmin')
    if dim is not None and dim.__class__ is not int:
        dim = _args.as_int(dim, 'argmin', 'dim', 1)
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'argmin', 'keepdim', 2)
    return _argmaxmin('argmin', input, dim, keepdim, False)


# ------------------------------------------------------------------ var / std
def _var_args(name, dim, unbiased, keepdim, correction):
    if unbiased is not None and unbiased.__class__ is not bool:   # #ARGCHK
        _args.invalid(name, dim, unbiased)
    if isinstance(dim, bool):          # std(input, unbiased)
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(unbiased=bool, correction=int, )")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var_np(name, input, dim, correction, keepdim):
    """(var array, mean array in keepdim form, dims, dof) computed with the array module."""
    a = input._data
    if a.dtype.kind not in 'fcV':
        raise RuntimeError("std and var only support floating point and complex dtypes")
    xp = array_module(a)
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    n = _numel(a.shape, dims)
    dof = _bmax(0, n - correction)
    if dof == 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    acc = _acc(a)
    w = a.astype(acc) if acc is not None else a
    ax = _axis(dims, nd)
    with np.errstate(invalid='ignore', divide='ignore'):
        m = xp.sum(w, axis=ax, keepdims=True) / (n if n else np.nan)
        dv = w - m
        sq = (dv.real * dv.real + dv.imag * dv.imag) if dv.dtype.kind == 'c' else dv * dv
        v = xp.sum(sq, axis=ax, keepdims=keepdim) / (dof if dof else 0.0)
    rdt = np.dtype(np.float32) if a.dtype == np.complex64 else \
        np.dtype(np.float64) if a.dtype == np.complex128 else a.dtype
    return _arr(v, xp).astype(rdt, copy=False), m, dims, dof, n


def _var_grad(x, g, dims, keepdim, dof):
    """d var / dx (times g): ``g * 2 (x - mean) / dof``."""
    gx = _expand_back(g, x.shape, dims, keepdim)
    xc = x - x.mean(dims, keepdim=True)
    return xc * (gx * (2.0 / dof if dof else math.inf))


def _std_grad(x, g, std, dims, keepdim, dof):
    """d std / dx: ``g (x - mean) / (dof * std)``, zero where std is zero."""
    zero = std._data == 0
    if zero.any():
        safe = std + _const(zero, std)
        q = g / safe * _const(~zero, std)
    else:
        q = g / std
    return _var_grad(x, q, dims, keepdim, dof) * 0.5


class VarBackward0(Node):
    def backward(self, g):
        (x,) = self.saved_tensors
        return (_var_grad(x, g, self.dims, self.keepdim, self.dof),)


class StdBackward0(Node):
    def backward(self, g):
        x, r = self.saved_tensors
        return (_std_grad(x, g, r, self.dims, self.keepdim, self.dof),)


class VarMeanBackward0(Node):
    def backward(self, gv, gm):
        (x,) = self.saved_tensors
        gi = _var_grad(x, gv, self.dims, self.keepdim, self.dof)
        return (gi + _expand_back(gm, self.shape, self.dims, self.keepdim) / self.n,)


class StdMeanBackward0(Node):
    def backward(self, gs, gm):
        x, r = self.saved_tensors
        gi = _std_grad(x, gs, r, self.dims, self.keepdim, self.dof)
        return (gi + _expand_back(gm, self.shape, self.dims, self.keepdim) / self.n,)


def _var_family(name, input, dim, unbiased, keepdim, correction, sqrt, with_mean):
    dim, correction = _var_args(name, dim, unbiased, keepdim, correction)
    v, m, dims, dof, n = _var_np(name, input, dim, correction, keepdim)
    xp = array_module(v)
    if sqrt:
        v = _arr(xp.sqrt(v), xp)
    res = wrap(v)
    if with_mean:
        a = input._data
        mv = m if keepdim or not a.ndim else xp.squeeze(m, axis=dims)
        mean_t = wrap(_arr(mv, xp).astype(a.dtype, copy=True))
        if grad_needed(input):
            node = StdMeanBackward0() if sqrt else VarMeanBackward0()
            node.shape, node.dims, node.keepdim, node.dof, node.n = a.shape, dims, keepdim, dof, n
            record((res, mean_t), node, (input,))
            node.save(input, res) if sqrt else node.save(input)
        return res, mean_t
    if grad_needed(input):
        node = StdBackward0() if sqrt else VarBackward0()
        node.shape, node.dims, node.keepdim, node.dof = input._data.shape, dims, keepdim, dof
        record(res, node, (input,), save=(input, res) if sqrt else (input,))
    return res


@register()
@with_out('var')
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False`` means 0).

    Also callable as ``var(input, unbiased)`` and ``var(input, dim, unbiased, keepdim)``.

    Example::

        >>> ember.tensor([1., 2., 3., 4.]).var()
        tensor(1.6667)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'var')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'var', 'keepdim', 3)
    return _var_family('var', input, dim, unbiased, keepdim, correction, False, False)


@register()
@with_out('std')
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` with ``correction`` (see :func:`var`).

    Example::

        >>> ember.tensor([1., 2., 3., 4.]).std(correction=0)
        tensor(1.1180)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'std')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'std', 'keepdim', 3)
    return _var_family('std', input, dim, unbiased, keepdim, correction, True, False)


@register(method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one pass (see :func:`var`).

    Example::

        >>> ember.var_mean(ember.tensor([1., 2., 3.]))
        (tensor(1.), tensor(2.))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'var_mean')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'var_mean', 'keepdim', 3)
    return _var_family('var_mean', input, dim, unbiased, keepdim, correction, False, True)


@register(method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (see :func:`std`).

    Example::

        >>> ember.std_mean(ember.tensor([1., 2., 3.]))
        (tensor(1.), tensor(2.))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'std_mean')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'std_mean', 'keepdim', 3)
    return _var_family('std_mean', input, dim, unbiased, keepdim, correction, True, True)


# ------------------------------------------------------------------ norms
@register()
def norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None):
    """The norm of ``input``: ``p`` is ``'fro'`` (default), ``'nuc'``, or a number (``inf``,
    ``-inf``, ``0``, ``1``, ``2``, ...), the vector norm over ``dim`` (all dims if None).
    Computed by :func:`ember.linalg.vector_norm` / :func:`ember.linalg.matrix_norm`.

    Example::

        >>> ember.tensor([3., 4.]).norm()
        tensor(5.)
        >>> ember.tensor([[1., -2.], [3., 4.]]).norm(1, dim=1)
        tensor([3., 7.])
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'layout')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'norm', 'keepdim', 3)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'norm', 'out', None)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'norm')
    from .norms import vector_norm, matrix_norm
    if p is None:
        p = 'fro'
    if isinstance(dim, int):
        dim = (dim,)
    if p == 'nuc':
        if dim is None and input.dim() != 2:
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least "
                               "2 dimensions.")
        return matrix_norm(input, 'nuc', (0, 1) if dim is None else dim, keepdim, dtype=dtype,
                           out=out)
    if p == 'fro':
        p = 2
    elif isinstance(p, str):
        raise RuntimeError(f"norm(): unsupported norm type {p!r}")
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


# ------------------------------------------------------------------ logsumexp
class LogsumexpBackward0(Node):
    def backward(self, g):
        x, r = self.saved_tensors
        sh = x.shape
        e = (x - _expand_back(r, sh, self.dims, self.keepdim)).exp()
        if e.is_complex():      # holomorphic: the conjugate derivative
            e = e.conj()
        return (_expand_back(g, sh, self.dims, self.keepdim) * e,)


@register()
@with_out('logsumexp')
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim``, computed stably. Integer inputs give the
    default float dtype.

    Example::

        >>> ember.tensor([0., 0.]).logsumexp(0)
        tensor(0.6931)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'logsumexp')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'logsumexp', 'keepdim', 2)
    a = input._data
    x = input
    if a.dtype.kind in 'biu':
        a = a.astype(D._default_dtype._np)
        x = None
    xp = array_module(a)
    nd = a.ndim
    dims = _dims(dim, nd)
    ax = _axis(dims, nd)
    if a.size == 0:
        r = xp.full(tuple(1 if i in dims else s for i, s in enumerate(a.shape)) if keepdim
                    else tuple(s for i, s in enumerate(a.shape) if i not in dims), -np.inf, a.dtype)
    else:
        m = xp.max(a.real if a.dtype.kind == 'c' else a, axis=ax, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        with np.errstate(divide='ignore'):
            r = xp.log(xp.sum(xp.exp(a - m), axis=ax, keepdims=True)) + m
        if not keepdim and nd:
            r = xp.squeeze(r, axis=dims)
        elif not nd:
            r = r.reshape(())
    res = wrap(_arr(r, xp).astype(a.dtype, copy=False))
    if x is not None and grad_needed(x):
        node = LogsumexpBackward0()
        node.dims, node.keepdim = dims, keepdim
        record(res, node, (x,), save=(x, res))
    return res


# ------------------------------------------------------------------ all / any / count_nonzero
def _logical_red(input, dim, keepdim, fn):
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    dims = _dims(None if _all_dims(dim) else dim, nd)
    r = _arr(fn(a != 0 if a.dtype.kind != 'b' else a, axis=_axis(dims, nd), keepdims=keepdim), xp)
    if a.dtype == np.uint8:
        r = r.astype(np.uint8)
    return wrap(r)


@register()
@with_out('all')
def all(input, dim=None, keepdim=False):
    """True if all elements (over ``dim``) are nonzero. uint8 input gives uint8, others bool.

    Example::

        >>> ember.tensor([[True, False], [True, True]]).all(1)
        tensor([False,  True])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'all')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'all', 'keepdim', 2)
    return _logical_red(input, dim, keepdim, array_module(input._data).all)


@register()
@with_out('any')
def any(input, dim=None, keepdim=False):
    """True if any element (over ``dim``) is nonzero.

    Example::

        >>> ember.tensor([0, 0, 3]).any()
        tensor(True)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'any')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'any', 'keepdim', 2)
    return _logical_red(input, dim, keepdim, array_module(input._data).any)


@register()
def count_nonzero(input, dim=None):
    """Number of nonzero elements over ``dim`` (int or tuple; all if None), as int64.

    Example::

        >>> ember.count_nonzero(ember.tensor([[0, 1], [2, 3]]), dim=0)
        tensor([1, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'count_nonzero')
    a = input._data
    xp = array_module(a)
    dims = _dims(None if _all_dims(dim) else dim, a.ndim)
    return wrap(_arr(xp.sum(a != 0, axis=_axis(dims, a.ndim)), xp).astype(np.int64))


# ------------------------------------------------------------------ sorting and selection
def _argsort_np(a, axis, descending, xp):
    """Stable argsort along ``axis``; NaN sorts as the largest value (last ascending, first
    descending); equal elements keep their order either way."""
    if not descending:
        return xp.argsort(a, axis=axis, kind='stable')
    n = a.shape[axis]
    rev = xp.flip(a, axis=axis)
    if a.dtype.kind == 'b':
        rev = rev.astype(np.int8)
    idx = xp.argsort(rev, axis=axis, kind='stable')
    return (n - 1) - xp.flip(idx, axis=axis)


@register()
@with_out('sort')
def sort(input, dim=-1, descending=False, *, stable=False):
    """Sort along ``dim``; returns ``(values, indices)``. The sort is always stable here
    (``stable=True`` is honoured; ``stable=False`` allows any order of equal elements).

    Example::

        >>> ember.tensor([3., 1., 2.]).sort()
        torch.return_types.sort(
        values=tensor([1., 2., 3.]),
        indices=tensor([1, 2, 0]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'sort')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'sort', 'dim', 1)
    if isinstance(dim, bool):
        dim, descending = -1, dim
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    d = _wrap_dim(dim, nd)
    if nd == 0:
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, True, SortBackward0, _rt.sort)
    idx = _argsort_np(a, d, descending, xp)
    vals = xp.take_along_axis(a, idx, axis=d)
    return _selected(input, vals, idx, d, True, SortBackward0, _rt.sort)


@register()
def argsort(input, dim=-1, descending=False, *, stable=False):
    """Indices that sort ``input`` along ``dim`` (see :func:`sort`).

    Example::

        >>> ember.tensor([3., 1., 2.]).argsort(descending=True)
        tensor([0, 2, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'argsort')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'argsort', 'dim', 1)
    a = input._data
    xp = array_module(a)
    if a.ndim == 0:
        _wrap_dim(dim, 0)
        return wrap(xp.zeros((), np.int64))
    return wrap(_argsort_np(a, _wrap_dim(dim, a.ndim), descending, xp).astype(np.int64, copy=False))


@register()
@with_out('msort')
def msort(input):
    """Sort along the first dimension (values only).

    Example::

        >>> ember.msort(ember.tensor([[3., 1.], [2., 4.]]))
        tensor([[2., 1.],
                [3., 4.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'msort')
    return sort(input, 0)[0]


@register()
@with_out('topk')
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest with ``largest=False``) elements along ``dim``, as
    ``(values, indices)``.

    NOTE: unlike PyTorch, the result is always sorted, also with ``sorted=False``.

    Example::

        >>> ember.tensor([1., 4., 2., 3.]).topk(2)
        torch.return_types.topk(
        values=tensor([4., 3.]),
        indices=tensor([1, 3]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'topk')
    if k.__class__ is not int:
        k = _args.as_int(k, 'topk', 'k', 1)
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'topk', 'dim', 2)
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    d = _wrap_dim(dim, nd)
    n = a.shape[d] if nd else 1
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    if nd == 0:
        if k == 0:
            raise RuntimeError("selected index k out of range")
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, True, TopkBackward0, _rt.topk)
    idx = _argsort_np(a, d, largest, xp)
    idx = xp.take(idx, xp.arange(k), axis=d)
    vals = xp.take_along_axis(a, idx, axis=d)
    return _selected(input, vals, idx, d, True, TopkBackward0, _rt.topk)


def _pick(name, input, dim, keepdim, pos_fn, cls, rtype):
    """Sort along ``dim`` and pick the element at position ``pos_fn(sorted, n)`` (an array in
    keepdim form) of each slice: the common core of kthvalue/median/nanmedian."""
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    d = _wrap_dim(dim, nd)
    if nd == 0:
        pos_fn(a.reshape(1), 1)
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, keepdim, cls, rtype)
    n = a.shape[d]
    if n == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    order = _argsort_np(a, d, False, xp)
    srt = xp.take_along_axis(a, order, axis=d)
    pos = pos_fn(srt, n, d)
    idx = xp.take_along_axis(order, pos, axis=d)
    vals = xp.take_along_axis(a, idx, axis=d)
    if not keepdim:
        vals = xp.squeeze(vals, axis=d)
    return _selected(input, vals, idx, d, keepdim, cls, rtype)


@register()
@with_out('kthvalue')
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element (1-based) along ``dim``, as ``(values, indices)``.

    Example::

        >>> ember.tensor([3., 1., 2.]).kthvalue(2)
        torch.return_types.kthvalue(
        values=tensor(2.),
        indices=tensor(2))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'kthvalue')
    if k.__class__ is not int:
        k = _args.as_int(k, 'kthvalue', 'k', 1)
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'kthvalue', 'dim', 2)
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'kthvalue', 'keepdim', 3)
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if a.ndim and n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if k < 1 or k > n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")

    def pos(srt, n_, d_=0):
        sh = list(srt.shape)
        sh[d_] = 1
        return array_module(srt).full(sh, k - 1, np.int64)
    return _pick('kthvalue', input, dim, keepdim, pos, KthvalueBackward0, _rt.kthvalue)


def _nan_count(srt, d, xp):
    if srt.dtype.kind not in 'fcV':
        return xp.zeros([1 if i == d else s for i, s in enumerate(srt.shape)], np.int64)
    return xp.isnan(srt).sum(axis=d, keepdims=True)


def _median_all(input, ignore_nan, cls):
    a = input._data
    xp = array_module(a)
    flat = a.reshape(-1)
    if ignore_nan and flat.dtype.kind in 'fV':
        flat = flat[~xp.isnan(flat)]
    if a.size == 0 or flat.size == 0:
        # PyTorch returns NaN (floats) or the lowest value (integers) for an empty input
        r = xp.full((), np.nan if a.dtype.kind in 'fcV' else
                    (np.iinfo(a.dtype).min if a.dtype.kind in 'iu' else 0), a.dtype)
    elif not ignore_nan and a.dtype.kind in 'fV' and xp.isnan(flat).any():
        r = xp.full((), np.nan, a.dtype)
    else:
        r = xp.asarray(xp.sort(flat)[(flat.size - 1) // 2])
    res = wrap(_arr(r, xp).copy())
    return _record_even(res, input, cls, r, tuple(range(a.ndim)), False)


def _no_bool_median(input, dim):
    a = input._data
    if a.dtype == np.bool_ and (a.size if dim is None else
                                a.ndim == 0 or a.shape[_wrap_dim(dim, a.ndim)]):
        raise NotImplementedError(f'"median_{"cpu" if dim is None else "out"}" not implemented '
                                  "for 'Bool'")


@register()
@with_out('median')
def median(input, dim=None, keepdim=False):
    """The lower median: of all elements (a value), or along ``dim`` as
    ``(values, indices)``. NaN propagates (use :func:`nanmedian` to ignore it).

    Example::

        >>> ember.tensor([1., 4., 2., 3.]).median()
        tensor(2.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'median')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'median', 'keepdim', 2)
    _no_bool_median(input, dim)
    if dim is None:
        return _median_all(input, False, MedianBackward0)
    xp = array_module(input._data)

    def pos(srt, n, d=0):
        nn = _nan_count(srt, d, xp)
        return xp.where(nn > 0, n - nn, (n - 1) // 2).astype(np.int64)
    return _pick('median', input, dim, keepdim, pos, MedianBackward1, _rt.median)


@register()
@with_out('nanmedian')
def nanmedian(input, dim=None, keepdim=False):
    """The lower median ignoring NaN: of all elements, or along ``dim`` as
    ``(values, indices)``.

    Example::

        >>> ember.tensor([1., float('nan'), 3., 2.]).nanmedian()
        tensor(2.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'nanmedian')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'nanmedian', 'keepdim', 2)
    _no_bool_median(input, dim)
    if dim is None:
        return _median_all(input, True, NanmedianBackward0)
    xp = array_module(input._data)

    def pos(srt, n, d=0):
        nv = n - _nan_count(srt, d, xp)
        return xp.where(nv > 0, (nv - 1) // 2, 0).astype(np.int64)
    return _pick('nanmedian', input, dim, keepdim, pos, NanmedianBackward1, _rt.nanmedian)


@register()
@with_out('mode')
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest among equally frequent ones) and
    the index of its last occurrence, as ``(values, indices)``.

    Example::

        >>> ember.tensor([3, 1, 3, 1, 2]).mode()
        torch.return_types.mode(
        values=tensor(1),
        indices=tensor(3))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'mode')
    if keepdim.__class__ is not bool:
        _args.as_bool(keepdim, 'mode', 'keepdim', 2)
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    d = _wrap_dim(dim, nd)
    if nd == 0:
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, keepdim, ModeBackward0, _rt.mode)
    n = a.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    m = xp.moveaxis(a, d, -1)
    rows = m.reshape(-1, n)
    srt = xp.sort(rows, axis=1, kind='stable')
    # run lengths in each sorted row
    new = xp.ones(srt.shape, bool)
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]
    r_ix = xp.arange(srt.shape[0])[:, None]
    starts = xp.where(new, xp.arange(n)[None, :], 0)
    starts = xp.maximum.accumulate(starts, axis=1)          # start of the run of each element
    runlen = xp.arange(n)[None, :] - starts + 1              # position within its run
    best = xp.argmax(runlen, axis=1)                         # first longest run end = smallest value
    vals = srt[r_ix[:, 0], best]
    eq = rows == vals[:, None]
    last = n - 1 - xp.argmax(eq[:, ::-1], axis=1)
    out_shape = m.shape[:-1]
    vals = vals.reshape(out_shape + (1,))
    last = last.reshape(out_shape + (1,))
    vals = xp.moveaxis(vals, -1, d)
    idx = xp.ascontiguousarray(xp.moveaxis(last, -1, d)).astype(np.int64)
    if not keepdim:
        vals = xp.squeeze(vals, axis=d)
    return _selected(input, vals.copy(), idx, d, keepdim, ModeBackward0, _rt.mode)


# ------------------------------------------------------------------ cumulative ops
def _rev_cumsum(g, dim):
    """``sum_{j >= i} g_j`` along ``dim``, differentiable."""
    return _flip(cumsum(_flip(g, dim), dim), dim)


class CumsumBackward0(Node):
    def backward(self, g):
        if g.dim() == 0:
            return (g,)
        return (_rev_cumsum(g, self.dim),)


@register()
@with_out('cumsum', dtype_from_out=True)
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim``. Integer and bool inputs give int64.

    Example::

        >>> ember.tensor([1, 2, 3]).cumsum(0)
        tensor([1, 3, 6])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cumsum')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'cumsum', 'dim', 1)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'cumsum')
    return _cumulative(input, dim, dtype, 'cumsum', CumsumBackward0, False)


def _cumulative(input, dim, dtype, xp_name, node_cls, save):
    """``cumsum``/``cumprod``: ``xp.<xp_name>`` along ``dim`` in the accumulation dtype;
    ``save`` keeps input and result for the backward."""
    if dtype is D.bool:         # torch has no bool kernel for an explicit bool dtype
        raise NotImplementedError(f"\"{xp_name}_out_cpu\" not implemented for 'Bool'")
    a = _sum_input(input, dtype)
    xp = array_module(a)
    d = _wrap_dim(dim, a.ndim)
    r = a.copy() if a.ndim == 0 else getattr(xp, xp_name)(a, axis=d, dtype=_acc(a)).astype(
        a.dtype, copy=False)
    res = wrap(r)
    if grad_needed(input):
        node = node_cls()
        node.dim = d
        record(res, node, (input,), save=(input, res) if save else None)
    return res


class CumprodBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        if g.dim() == 0:
            return (g,)
        return (_cumprod_grad(x, g, out, self.dim),)


def _cumprod_grad(x, g, out, dim):
    """d cumprod / dx, exact where x has zeros. Along each slice with first zero at ``z``:
    positions before ``z`` use ``revcumsum(g * out) / x`` over the zero-free prefix, position
    ``z`` gets ``prod(x[:z]) * sum_{j >= z} g_j prod(x[z+1..j])``, later positions get 0.
    Complex: the same with conj(x), conj(out) (cumprod is holomorphic)."""
    if x.is_complex():
        x, out = x.conj(), out.conj()
    a = x._data
    xp = array_module(a)
    zero = a == 0
    if not zero.any():
        return _rev_cumsum(g * out, dim) / x
    n = a.shape[dim]
    sh = [1] * a.ndim
    sh[dim] = n
    pos = xp.arange(n).reshape(sh)
    z = xp.where(zero.any(axis=dim, keepdims=True), xp.argmax(zero, axis=dim, keepdims=True), n)
    before, at, after = pos < z, pos == z, pos > z
    bc, atc, afc = _const(before, x), _const(at, x), _const(after, x)
    x_pre = x * bc + (1 - bc)                                  # ones from the first zero on
    part_a = _rev_cumsum(g * out * bc, dim) / x_pre * bc
    p_pre = x_pre.prod(dim, keepdim=True)
    w = x * afc + (1 - afc)                                    # ones up to the first zero
    s = (g * cumprod(w, dim) * _const(~before, x)).sum(dim, keepdim=True)
    return part_a + atc * p_pre * s


@register()
@with_out('cumprod', dtype_from_out=True)
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim``. Integer and bool inputs give int64.

    Example::

        >>> ember.tensor([1., 2., 3.]).cumprod(0)
        tensor([1., 2., 6.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cumprod')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'cumprod', 'dim', 1)
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'cumprod')
    return _cumulative(input, dim, dtype, 'cumprod', CumprodBackward0, True)


def _cumext(name, input, dim, big, cls, rtype):
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    d = _wrap_dim(dim, nd)
    if nd == 0:
        return _selected(input, a.copy(), xp.zeros((), np.int64), 0, True, cls, rtype)
    n = a.shape[d]
    m = xp.moveaxis(a, d, 0)
    vals = xp.empty_like(m)
    idx = xp.empty(m.shape, np.int64)
    isf = a.dtype.kind in 'fV'
    if n:
        cur = m[0].copy()
        ci = xp.zeros(m.shape[1:], np.int64)
        vals[0], idx[0] = cur, ci
        for i in range(1, n):
            xi = m[i]
            cond = (xi >= cur) if big else (xi <= cur)
            if isf:
                cond = xp.isnan(xi) | (cond & ~xp.isnan(cur))
            cur = xp.where(cond, xi, cur)
            ci = xp.where(cond, i, ci)
            vals[i], idx[i] = cur, ci
    vals = xp.ascontiguousarray(xp.moveaxis(vals, 0, d))
    idx = xp.ascontiguousarray(xp.moveaxis(idx, 0, d))
    return _selected(input, vals, idx, d, True, cls, rtype)


@register()
@with_out('cummax')
def cummax(input, dim):
    """Running maximum along ``dim`` and the index where it was reached, as
    ``(values, indices)``.

    Example::

        >>> ember.tensor([1., 3., 2.]).cummax(0)
        torch.return_types.cummax(
        values=tensor([1., 3., 3.]),
        indices=tensor([0, 1, 1]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cummax')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'cummax', 'dim', 1)
    return _cumext('cummax', input, dim, True, CummaxBackward0, _rt.cummax)


@register()
@with_out('cummin')
def cummin(input, dim):
    """Running minimum along ``dim`` and its index, as ``(values, indices)``.

    Example::

        >>> ember.tensor([3., 1., 2.]).cummin(0).values
        tensor([3., 1., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cummin')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'cummin', 'dim', 1)
    return _cumext('cummin', input, dim, False, CumminBackward0, _rt.cummin)


class LogcumsumexpBackward0(Node):
    def backward(self, g):
        x, out = self.saved_tensors
        if g.dim() == 0:
            return (g,)
        d = self.dim
        if x.is_complex():
            # holomorphic: grad_i = conj(sum_{j>=i} conj(g_j) exp(x_i - out_j)), summed in
            # log space (complex logs carry the signs) so that large inputs do not overflow
            with np.errstate(divide='ignore', invalid='ignore'):
                lg = g.conj().log()
            t = _flip(logcumsumexp(_flip(lg - out, d), d), d)
            return ((x + t).exp().conj(),)
        # grad_i = sum_{j>=i} g_j exp(x_i - out_j), split by the sign of g to stay in log space
        a = g._data
        pos = _const(a > 0, g)
        neg = _const(a < 0, g)
        res = None
        for m, sgn in ((pos, 1), (neg, -1)):
            # log|g| where g has this sign, a huge negative number elsewhere (not -inf: the
            # double backward subtracts such entries from each other)
            far = _const(array_module(a).where((a * sgn) > 0, 0, -1e30), g)
            lg = (g * sgn * m + (1 - m)).log() + far
            t = (_flip(logcumsumexp(_flip(lg - out, d), d), d) + x).exp()
            res = t if sgn == 1 else res - t
        return (res,)


@register()
@with_out('logcumsumexp')
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably.

    Example::

        >>> ember.tensor([0., 0.]).logcumsumexp(0)
        tensor([0.0000, 0.6931])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'logcumsumexp')
    if dim.__class__ is not int:
        dim = _args.as_int(dim, 'logcumsumexp', 'dim', 1)
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    if a.dtype.kind not in 'fcV':
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_dtname(a)}'")
    xp = array_module(a)
    if a.ndim == 0:
        r = a.copy()
    elif a.dtype.kind == 'c':   # NumPy has no complex logaddexp: one step at a time
        from .arithmetic import _logaddexp_complex
        r = xp.moveaxis(a, d, 0).copy()
        for i in range(1, r.shape[0]):
            r[i] = _logaddexp_complex(r[i - 1], r[i])
        r = xp.moveaxis(r, 0, d)
    else:
        r = xp.logaddexp.accumulate(a, axis=d)
    res = wrap(r)
    if grad_needed(input):
        node = LogcumsumexpBackward0()
        node.dim = d
        record(res, node, (input,), save=(input, res))
    return res


# ------------------------------------------------------------------ unique / counting
def _unique_rows(rows, consecutive, xp):
    """(unique rows, inverse, counts) of a 2-D array, sorted unless ``consecutive``."""
    n = rows.shape[0]
    if consecutive:
        order = xp.arange(n)
        srt = rows
    else:
        if rows.shape[1] == 0:
            order = xp.arange(n)
        else:
            order = xp.lexsort(rows.T[::-1]) if rows.dtype.kind != 'b' else \
                xp.lexsort(rows.T[::-1].astype(np.int8))
        srt = rows[order]
    if n == 0:
        return srt, xp.zeros(0, np.int64), xp.zeros(0, np.int64)
    new = xp.ones(n, bool)
    if rows.shape[1]:
        new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    else:
        new[1:] = False
    grp = xp.cumsum(new) - 1
    inv = xp.empty(n, np.int64)
    inv[order] = grp
    starts = xp.nonzero(new)[0]
    counts = xp.diff(xp.append(starts, n)).astype(np.int64)
    return srt[new], inv, counts


def _unique(input, consecutive, return_inverse, return_counts, dim):
    a = input._data
    xp = array_module(a)
    if dim is None:
        flat = a.reshape(-1, 1)
        u, inv, cnt = _unique_rows(flat, consecutive, xp)
        out = u.reshape(-1)
        inv = inv.reshape(a.shape)
    else:
        d = _wrap_dim(dim, a.ndim)
        if a.size == 0 and _bany(s == 0 for i, s in enumerate(a.shape) if i != d):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        m = xp.moveaxis(a, d, 0)
        rows = m.reshape(m.shape[0], int(np.prod(m.shape[1:])))
        u, inv, cnt = _unique_rows(rows, consecutive, xp)
        out = xp.moveaxis(u.reshape((u.shape[0],) + m.shape[1:]), 0, d)
    res = [wrap(xp.ascontiguousarray(out).copy())]
    if return_inverse:
        res.append(wrap(inv))
    if return_counts:
        res.append(wrap(cnt))
    return res[0] if len(res) == 1 else tuple(res)


@register()
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements (or slices along ``dim``) of ``input``, in ascending order;
    optionally also the inverse indices and the counts.

    Example::

        >>> ember.unique(ember.tensor([3, 1, 1, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([2, 1, 1]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unique')
    return _unique(input, False, return_inverse, return_counts, dim)


@register()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``).

    Example::

        >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 1]))
        tensor([1, 2, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'unique_consecutive')
    return _unique(input, True, return_inverse, return_counts, dim)


@register()
def bincount(input, weights=None, minlength=0):
    """Count occurrences of each value of a 1-D non-negative integer tensor (or sum
    ``weights`` per value).

    Example::

        >>> ember.tensor([0, 1, 1, 3]).bincount()
        tensor([1, 2, 0, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'bincount')
    a = input._data
    xp = array_module(a)
    if a.ndim != 1 or a.dtype.kind not in 'iub' or (a.size and (a < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return wrap(xp.bincount(a, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if w.dtype == np.float32:
        # PyTorch adds float32 weights in float32, in input order
        out = xp.zeros(builtins.max(minlength, int(a.max()) + 1 if a.size else 0), np.float32)
        xp.add.at(out, a, w)
        return wrap(out)
    return wrap(xp.bincount(a, weights=w.astype(np.float64), minlength=minlength))


@register()
@with_out('histc')
def histc(input, bins=100, min=0, max=0):
    """Histogram with ``bins`` equal-width bins over ``[min, max]`` (the data's range when
    both are 0); elements outside are ignored.

    Example::

        >>> ember.tensor([1., 2., 1.]).histc(bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'histc')
    a = input._data
    xp = array_module(a)
    if a.dtype.kind not in 'fV':
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_dtname(a)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:            # the data's range (a nan or inf in it is an error)
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_g(lo)}, {_g(hi)}] is not finite")
    x = a.reshape(-1)
    x = x[(x >= lo) & (x <= hi)]
    ix = ((x - a.dtype.type(lo)) * a.dtype.type(bins) / (a.dtype.type(hi) - a.dtype.type(lo))).astype(np.int64)
    ix = xp.minimum(ix, bins - 1)
    return wrap(xp.bincount(ix, minlength=bins).astype(a.dtype))


# ------------------------------------------------------------------ histogram / histogramdd
for _n in ('histogram', 'histogramdd'):
    if not hasattr(_rt, _n):
        setattr(_rt, _n, _rt._structseq(_n, ('hist', 'bin_edges')))


class NotImplemented(Node):  # noqa: A001 - PyTorch's name for ops without a derivative
    """The grad_fn of a histogram's outputs: backward raises, as in PyTorch."""

    def backward(self, *g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


def _no_derivative(outs, op, inputs):
    """Give ``outs`` a grad_fn whose backward raises (when an input requires grad)."""
    inputs = tuple(t for t in inputs if t is not None)
    if grad_needed(*inputs):
        for t in outs:
            node = NotImplemented()
            node.op = op
            record(t, node, inputs)


def _g(v):
    """A double as C++'s ``operator<<`` prints it (6 significant digits)."""
    return f'{v:g}'


def _hist_dtype_check(a):
    if a.dtype.kind != 'f' or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_dtname(a)}'")


def _dtlow(a):
    return str(D._NP2DT[a.dtype]).replace('torch.', '').replace('float32', 'float').replace(
        'float64', 'double')


def _upper_bound(e, v, xp):
    """``std::upper_bound(e, e + len(e), v) - e`` for every element of ``v``: the same binary
    search (so even unsorted edges give PyTorch's bins)."""
    n = e.shape[0]
    first = xp.zeros(v.shape, np.int64)
    count = xp.full(v.shape, n, np.int64)
    for _ in range(n.bit_length()):
        step = count // 2
        it = first + step
        live = count > 0
        go = live & ~(v < e[xp.minimum(it, n - 1)])
        first = xp.where(go, it + 1, first)
        count = xp.where(go, count - step - 1, xp.where(live, step, 0))
    return first


def _histdd_edges(x, bins, range_, name):
    """Bin edges (arrays of ``x``'s dtype) for int bin counts, as PyTorch chooses them."""
    from .creation import linspace
    xp = array_module(x)
    n, dims = x.shape
    out = []
    for d in range(dims):
        nb = bins[d]
        if nb <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {nb} for "
                               f"dimension {d}")
        if range_ is not None:
            lo, hi = float(range_[2 * d]), float(range_[2 * d + 1])
        elif n:
            col = x[:, d]
            lo, hi = float(col.min()), float(col.max())
        else:
            lo, hi = 0., 1.
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(lo)}, {_g(hi)}] "
                               "is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{_g(lo)} max {_g(hi)} for dimension {d}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        out.append(linspace(lo, hi, nb + 1, dtype=D._NP2DT[x.dtype])._data)
    return out


def _local_bins(e, c, dt, xp):
    """PyTorch's bin of each ``c`` among equal-width sorted edges ``e``: the interpolated
    index ``pos``, corrected by an upper-bound search in the window ``[pos - 1, pos + 2)``
    (``c`` within ``[e[0], e[-1]]``)."""
    nb = e.shape[0]
    lo, hi = e[0], e[nb - 1]
    with np.errstate(all='ignore'):
        pos = ((c - lo) * dt(nb - 1) / (hi - lo)).astype(np.int64)
    # for sorted edges the windowed search is: pos + 1 when e[pos + 1] <= c, pos when
    # e[pos] <= c < e[pos + 1], and below pos (rare: rounding) when c < e[pos]
    up = (e[xp.minimum(pos + 1, nb - 1)] <= c) & (pos + 1 < nb)
    below = xp.flatnonzero(e[pos] > c)
    r = pos + up
    if below.shape[0]:
        p, cb = pos[below], c[below]
        ok = (p >= 1) & (e[xp.maximum(p - 1, 0)] <= cb)
        r[below] = xp.where(ok, p - 1, xp.maximum(p - 1, 0) - 1)
    return r


def _histdd_kernel(x, edges, w, density, linear):
    """Counts (or weight sums) of the rows of ``x`` (N, D) in the bins ``edges``. A point
    outside ``[edges[0], edges[-1]]`` (or nan) in any dimension is dropped; the last bin
    includes its right edge. ``linear``: equal-width edges, located by interpolation plus a
    local search (as PyTorch does for int bin counts); else a binary search."""
    xp = array_module(x)
    dt = x.dtype.type
    sizes = tuple(e.shape[0] - 1 for e in edges)
    keep = None
    for d, e in enumerate(edges):
        col = x[:, d]
        k = (col >= e[0]) & (col <= e[e.shape[0] - 1])
        keep = k if keep is None else keep & k
    if not bool(keep.all()):
        x = x[keep]
        w = None if w is None else w[keep]
    flat = None
    for d, e in enumerate(edges):
        nb = e.shape[0]
        c = x[:, d]
        if linear:
            pos = _local_bins(e, c, dt, xp)
        elif bool((e[1:] >= e[:-1]).all()):       # sorted: upper_bound is searchsorted
            pos = xp.searchsorted(e, c, side='right') - 1
        else:
            pos = _upper_bound(e, c, xp) - 1
        pos[pos == nb - 1] = nb - 2
        flat = pos if flat is None else flat * (nb - 1) + pos
    total = 1
    for s in sizes:
        total *= s
    if w is None:
        h = xp.bincount(flat, minlength=total).astype(x.dtype)
    else:
        h = xp.bincount(flat, weights=w.astype(np.float64), minlength=total).astype(x.dtype)
    h = h.reshape(sizes)
    if density:
        with np.errstate(all='ignore'):
            h = h / h.sum()
            for d, e in enumerate(edges):
                sh = [1] * len(edges)
                sh[d] = sizes[d]
                h = h / (e[1:] - e[:-1]).reshape(sh)
    return h


def _histdd_weight(x, weight):
    if weight is None:
        return None
    w = weight._data
    if w.dtype != x.dtype:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and "
                           f"weight tensor should have the same dtype, but got input("
                           f"{_dtlow(x)}), and weight({_dtlow(w)})")
    return w


def _histdd_check_weight(shape, w):
    if w is not None and tuple(w.shape) != tuple(shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(shape)} and weight with shape "
                           f"{list(w.shape)}")


def _histdd_tensor_bins(x, bins):
    out = []
    for d, b in enumerate(bins):
        if not isinstance(b, Tensor):
            _args.tensor(b, 'histogramdd', 'bins', 2)
        e = b._data
        if e.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {e.ndim} dimensions in the bins tensor for dimension {d}")
        if e.dtype != x.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the "
                               f"same dtype, but got input with dtype {_dtlow(x)} and bins for "
                               f"dimension {d} with dtype {_dtlow(e)}")
        if e.shape[0] - 1 <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {e.shape[0] - 1} "
                               f"for dimension {d}")
        out.append(e)
    return out


@register()
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram of the values of ``input`` (flattened).

    Args:
        input (Tensor): floating point values.
        bins (int or Tensor): the number of equal-width bins, or a 1-D tensor of increasing
            bin edges (the last bin includes its right edge).
        range (tuple of float, optional): ``(min, max)`` of the bins when ``bins`` is an int
            (default: the smallest and largest value of ``input``; a zero-width range is
            widened by 0.5 on each side). Values outside are not counted.
        weight (Tensor, optional): a weight per element of ``input`` (same dtype and number of
            elements); the histogram sums the weights instead of counting.
        density (bool): normalise so that the histogram integrates to 1 over the bins.
        out (tuple, optional): ``(hist, bin_edges)`` tensors to write into.

    Returns:
        ``(hist, bin_edges)`` (``torch.return_types.histogram``), both of ``input``'s dtype.

    Example::

        >>> ember.histogram(ember.tensor([1., 2., 1.]), bins=4, range=(0., 3.))
        torch.return_types.histogram(
        hist=tensor([0., 2., 1., 0.]),
        bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'histogram')
    tb = isinstance(bins, Tensor)
    if (not tb and (isinstance(bins, (bool, float)) or not isinstance(bins, (int, np.integer)))) \
            or (tb and range is not None):
        got = ', '.join(['Tensor', type(bins).__name__ if not tb else 'Tensor']
                        + (['range=' + type(range).__name__] if range is not None else []))
        raise TypeError(f"histogram() received an invalid combination of arguments - got ({got})"
                        ", but expected one of:\n * (Tensor input, Tensor bins, *, Tensor weight "
                        "= None, bool density = False, tuple of Tensors out = None)\n * (Tensor "
                        "input, int bins = 100, *, tuple of floats range = None, Tensor weight = "
                        "None, bool density = False, tuple of Tensors out = None)")
    a = input._data
    _hist_dtype_check(a)
    x = a.reshape(-1, 1)
    if tb:
        edges = _histdd_tensor_bins(x, [bins])
    else:
        if range is not None and len(range) != 2:
            raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should "
                               f"have 2 elements, but got {len(range)}")
        edges = _histdd_edges(x, [int(bins)], range, 'histogram')
    w = _histdd_weight(x, weight)
    if w is not None:
        w = w.reshape(-1) if w.size == x.shape[0] else w
        _histdd_check_weight(x.shape, w)
    h = _histdd_kernel(x, edges, w, density, not tb)
    res = _rt.histogram((wrap(h), wrap(edges[0].copy())))
    _no_derivative(res, 'histogram', (input, weight))
    if out is not None:
        return _rt._out_type(_rt.histogram)(write_out(tuple(res), out, 'histogram'))
    return res


@register(method=False)
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Multi-dimensional histogram of the points ``input[..., :]``: the innermost dimension
    holds the ``D`` coordinates of each point.

    Args:
        input (Tensor): floating point tensor of shape ``(..., D)``, ``D >= 1``.
        bins (int, list of int or list of Tensor): the number of equal-width bins per
            dimension (one int for all), or ``D`` 1-D tensors of increasing bin edges.
        range (list of float, optional): ``[min_0, max_0, min_1, max_1, ...]`` of the bins when
            ``bins`` are counts (default: the data's extent per dimension).
        weight (Tensor, optional): a weight per point, of shape ``input.shape[:-1]``.
        density (bool): normalise so that the histogram integrates to 1 over the bins.

    Returns:
        ``(hist, bin_edges)`` (``torch.return_types.histogramdd``): ``hist`` of shape
        ``(nbins_0, ..., nbins_{D-1})`` and a tuple of ``D`` edge tensors.

    Example::

        >>> x = ember.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
        >>> ember.histogramdd(x, bins=[2, 2]).hist
        tensor([[0., 1.],
                [2., 1.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'histogramdd')
    if isinstance(bins, Tensor):
        raise TypeError("histogramdd() received an invalid combination of arguments - got "
                        "(Tensor, bins=Tensor), but expected one of:\n * (Tensor input, int bins, "
                        "tuple of floats range = None, Tensor weight = None, bool density = False)"
                        "\n * (Tensor input, tuple of ints bins, tuple of floats range = None, "
                        "Tensor weight = None, bool density = False)\n * (Tensor input, tuple of "
                        "Tensors bins, *, Tensor weight = None, bool density = False)")
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    _hist_dtype_check(a)
    dims = a.shape[-1]
    x = a.reshape(math.prod(a.shape[:-1]), dims)
    tensors = isinstance(bins, (list, tuple)) and builtins.any(isinstance(b, Tensor) for b in bins)
    if tensors:
        if len(bins) != dims:
            raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for a "
                               f"{dims}-dimensional histogram but got {len(bins)}")
        edges = _histdd_tensor_bins(x, bins)
    else:
        if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
            counts = [int(bins)] * dims
        else:
            counts = list(_args.as_int_list(bins, 'histogramdd', 'bins', 2))
            if len(counts) != dims:
                raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                                   "dimension of the input.")
        if range is not None and len(range) != 2 * dims:
            raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range "
                               f"should have {2 * dims} elements, but got {len(range)}")
        edges = _histdd_edges(x, counts, range, 'histogramdd')
    w = _histdd_weight(x, weight)
    _histdd_check_weight(a.shape, w)
    if w is not None:
        w = w.reshape(-1)
    if dims:
        h = _histdd_kernel(x, edges, w, density, not tensors)
    else:
        h = array_module(a).zeros((), a.dtype)
    res = _rt.histogramdd((wrap(h), tuple(wrap(e.copy()) for e in edges)))
    if tensors:
        _no_derivative(res[:1], '_histogramdd_from_bin_tensors', (input, weight))
    else:
        _no_derivative(res[:1], '_histogramdd_from_bin_cts', (input, weight))
        _no_derivative(res[1], '_histogramdd_bin_edges', (input, weight))
    return res


@register(method=False)
@with_out('searchsorted')
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where the elements of ``input`` would be inserted into the innermost dimension
    of ``sorted_sequence`` to keep it sorted (``right``/``side='right'``: after equal
    elements). ``sorter`` gives the indices that sort an unsorted sequence.

    Example::

        >>> ember.searchsorted(ember.tensor([1, 3, 5]), ember.tensor([3, 6]))
        tensor([1, 3])
    """
    if side is not None:
        if side not in ('left', 'right'):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == 'left':
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == 'right'
    s = sorted_sequence._data
    xp = array_module(s)
    if sorter is not None:
        s = xp.take_along_axis(s, sorter._data, axis=-1) if s.ndim else s
    scalar = not isinstance(input, Tensor)
    v = xp.asarray(input) if scalar else input._data
    sd = 'right' if right else 'left'
    odt = np.int32 if out_int32 else np.int64
    if s.ndim == 1:
        r = xp.searchsorted(s, v, side=sd)
    else:
        if scalar or v.ndim != s.ndim or v.shape[:-1] != s.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                               "the first N-1 dimensions of boundaries tensor and input value "
                               "tensor must match")
        nb = 1
        for b in s.shape[:-1]:
            nb *= b
        sr = s.reshape(nb, s.shape[-1])       # not -1: empty shapes
        vr = v.reshape(nb, v.shape[-1])
        r = xp.stack([xp.searchsorted(sr[i], vr[i], side=sd) for i in range(sr.shape[0])]) \
            if sr.shape[0] else xp.zeros(vr.shape, np.int64)
        r = r.reshape(v.shape)
    return wrap(xp.asarray(r).astype(odt))


@register(method=False)
@with_out('bucketize')
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """Index of the bucket of each element of ``input`` given 1-D sorted ``boundaries``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``).

    Example::

        >>> ember.bucketize(ember.tensor([1, 5, 9]), ember.tensor([2, 4, 6, 8]))
        tensor([0, 2, 4])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    b = boundaries._data
    xp = array_module(b)
    v = input._data if isinstance(input, Tensor) else xp.asarray(input)
    r = xp.searchsorted(b, v, side='right' if right else 'left')
    return wrap(xp.asarray(r).astype(np.int32 if out_int32 else np.int64))


@register()
@with_out('diff')
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (after concatenating ``prepend`` and
    ``append``).

    Example::

        >>> ember.tensor([1, 3, 6, 10]).diff()
        tensor([2, 3, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'diff')
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    if n == 0:      # as torch: a copy of input; prepend/append are not used
        return input.clone()
    x = input
    if prepend is not None or append is not None:
        from .shape import cat
        for t in (prepend, append):
            if t is not None and t.dim() != x.dim():
                raise RuntimeError("diff expects prepend or append to be the same dimension as "
                                   "input")
        parts = [t for t in (prepend, x, append) if t is not None]
        x = cat(parts, d)
    for _ in range(n):
        L = x.shape[d]
        if L == 0:
            break
        hi, lo = x.narrow(d, 1, L - 1), x.narrow(d, 0, L - 1)
        if x.dtype is D.bool:
            x = wrap(array_module(hi._data).not_equal(hi._data, lo._data))
        else:
            x = hi - lo
    return x
