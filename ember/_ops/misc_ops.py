"""The remaining ``torch.*`` functions and Tensor methods that belong to no larger family:

* the ``*_copy`` variants of the view ops (``diagonal_copy``, ``t_copy``, ...: new tensors
  with the view's values, differentiable), ``slice_inverse``;
* the scatter variants of the view ops (``diagonal_scatter``, ``select_scatter``,
  ``slice_scatter``, ``as_strided_scatter``: ``input`` with the view's region replaced by
  ``src``, gradients to both);
* splits (``hsplit``/``vsplit``/``dsplit``, ``unsafe_split``...);
* small math (``frexp``, ``ldexp``, ``gcd``, ``lcm``, ``nextafter``, ``renorm``, ``vander``,
  ``cov``, ``corrcoef``, ``trapezoid``, ``cumulative_trapezoid``, ``gradient``, ``isin``,
  ``combinations``, ``unravel_index``, ``nonzero_static``, ``index_reduce``...);
* Tensor members that reach into a tensor's storage (``resize_``, ``set_``, ``new``...).
"""
import builtins
import itertools
import math
import warnings

import numpy as np

from . import _args
from .._tensor import Tensor, Size, _wrap_dim, _Mode, _NoGrad
from ._inplace import inplace, check_inplace
from .. import _dtype as D
from .._dtype import _NP2DT
from ._util import (wrap, Node, register, record, grad_needed, write_out, unwrap, METHODS,
                    FUNCTIONS, aten)
from .._backend import array_module
from .. import return_types as _rt

__all__ = []

_int = builtins.int
_float = builtins.float
_bool = builtins.bool

# named-tuple results (torch.return_types.frexp / histogram / histogramdd)
for _n, _f in (('frexp', ('mantissa', 'exponent')), ('histogram', ('hist', 'bin_edges')),
               ('histogramdd', ('hist', 'bin_edges'))):
    if not hasattr(_rt, _n):
        setattr(_rt, _n, _rt._structseq(_n, _f))


def _op(name):
    """The registered body of ``ember.<name>`` (or of ``Tensor.<name>``)."""
    f = FUNCTIONS.get(name)
    return f if f is not None else METHODS[name]


def _shape_str(s):
    return '[' + ', '.join(str(x) for x in s) + ']'


def _check_tensor(x, fname, arg='input', pos=1):
    if not isinstance(x, Tensor):
        _args.tensor(x, fname, arg, pos)


# ====================================================================== *_copy variants
def _fresh(r):
    """A contiguous copy of view ``r`` (recorded by autograd)."""
    if isinstance(r, (tuple, list)):
        return tuple(_fresh(x) for x in r)
    c = _op('clone')(r)
    return c if c._data.flags.c_contiguous else c.contiguous()


def _contig():
    from .._memory_format import contiguous_format
    return contiguous_format


def _copy_variant(name, view_name, sig, view=None):
    def op(input, *args, out=None, **kwargs):
        _check_tensor(input, name)
        fn = view if view is not None else _op(view_name)
        res = _fresh(fn(input, *args, **kwargs))
        if isinstance(res, tuple) and name in ('unbind_copy',):
            pass
        return res if out is None else write_out(res, out, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``{name}{sig}``: like :func:`{view_name}`, but returns a new tensor (a "
                  f"copy of the view's values, not a view; differentiable).\n\n"
                  f"    Example::\n\n        >>> x = ember.arange(6.).view(2, 3)\n"
                  f"        >>> y = ember.{name}(x{_EX.get(name, '')})\n"
                  f"        >>> y.data_ptr() != x.data_ptr()\n        True\n")
    return op


_EX = {'diagonal_copy': '', 'expand_copy': ', (2, 2, 3)', 'narrow_copy': ', 1, 0, 2',
       'permute_copy': ', (1, 0)', 'select_copy': ', 0, 1', 'slice_copy': ', 1, 0, 2',
       'split_copy': ', 1', 'split_with_sizes_copy': ', [1, 1]', 'squeeze_copy': '',
       'transpose_copy': ', 0, 1', 'unfold_copy': ', 1, 2, 1', 'unsqueeze_copy': ', 0',
       'view_copy': ', (3, 2)', 'as_strided_copy': ', (2, 2), (1, 2)',
       'unbind_copy': '', 't_copy': '', 'alias_copy': '', 'detach_copy': ''}


def _slice_view(input, dim=0, start=None, end=None, step=1):
    """``input[..., start:end:step, ...]`` along ``dim`` (a view; PyTorch's slice op)."""
    from .view import _slice
    _check_tensor(input, 'slice')
    a = input._data
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    s, e, st = slice(start, end, step).indices(a.shape[d])
    if e < s:
        e = s
    return _slice(input, d, s, e, st)


aten('slice')(_slice_view)


def _alias(input):
    return input[...]       # a view recorded by autograd (alias_copy is differentiable)


def _detach_view(input):
    return input.detach()


for _name, _view, _sig, _fn in (
        ('alias_copy', 'alias', '(input)', _alias),
        ('as_strided_copy', 'as_strided', '(input, size, stride, storage_offset=None)', None),
        ('detach_copy', 'detach', '(input)', _detach_view),
        ('diagonal_copy', 'diagonal', '(input, offset=0, dim1=0, dim2=1)', None),
        ('expand_copy', 'expand', '(input, size, *, implicit=False)', None),
        ('narrow_copy', 'narrow', '(input, dim, start, length)', None),
        ('permute_copy', 'permute', '(input, dims)', None),
        ('select_copy', 'select', '(input, dim, index)', None),
        ('slice_copy', 'slice', '(input, dim=0, start=None, end=None, step=1)', _slice_view),
        ('split_copy', 'split', '(tensor, split_size, dim=0)', None),
        ('split_with_sizes_copy', 'split_with_sizes', '(input, split_sizes, dim=0)', None),
        ('squeeze_copy', 'squeeze', '(input, dim=None)', None),
        ('t_copy', 't', '(input)', None),
        ('transpose_copy', 'transpose', '(input, dim0, dim1)', None),
        ('unbind_copy', 'unbind', '(input, dim=0)', None),
        ('unfold_copy', 'unfold', '(input, dimension, size, step)', None),
        ('unsqueeze_copy', 'unsqueeze', '(input, dim)', None),
        ('view_copy', 'view', '(input, size)', None),
        ('view_as_real_copy', 'view_as_real', '(input)', None),
        ('view_as_complex_copy', 'view_as_complex', '(input)', None)):
    if _name == 'expand_copy':
        def _fn(input, size, *, implicit=False):
            return input.expand(size)
    elif _name == 'view_copy':
        def _fn(input, size):
            return input.view(size)
    elif _name == 'permute_copy':
        def _fn(input, dims):
            return input.permute(dims)
    elif _name == 'narrow_copy':
        def _fn(input, dim, start, length):
            if isinstance(dim, int) and dim >= input.dim() > 0:     # torch's own check
                raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to "
                                   "be true, but got false.  (Could this error message be "
                                   "improved?  If so, please report an enhancement request "
                                   "to PyTorch.)")
            return input.narrow(dim, start, length)
    register(_name, method=_name == 'narrow_copy')(_copy_variant(_name, _view, _sig, _fn))


def _sparse_only(name, what):
    def op(input, *, out=None):
        _check_tensor(input, name)
        raise RuntimeError(f"{what} expected sparse coordinate tensor layout but got Strided"
                           if what == 'indices' else
                           f"{what} expected sparse tensor layout but got Strided")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``{name}(input)``: a copy of a sparse tensor's {what}. NOTE: unlike "
                  "PyTorch, ember has no sparse tensors; on the dense tensors it has this "
                  "raises PyTorch's error for a strided input.\n\n"
                  "    Example::\n\n"
                  f"        >>> ember.{name}(ember.zeros(2))\n"
                  "        Traceback (most recent call last):\n"
                  "        RuntimeError: ...\n")
    return op


register('indices_copy', method=False)(_sparse_only('indices_copy', 'indices'))
register('values_copy', method=False)(_sparse_only('values_copy', 'values'))


@register(method=False)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of a slice: a view of ``input``'s storage with the geometry (size,
    strides, offset) of ``src``, the tensor ``input`` was sliced from.

    Example::

        >>> x = ember.arange(6.).view(3, 2)
        >>> ember.slice_inverse(x[1:], x, 0, 1).shape
        ember.Size([3, 2])
    """
    _check_tensor(input, 'slice_inverse')
    _check_tensor(src, 'slice_inverse', 'src', 2)
    return _op('as_strided')(input, tuple(src.shape), src.stride(), src.storage_offset())


# ====================================================================== scatter variants
class _ViewScatterBackward(Node):
    """Gradient of ``X_scatter(input, src, ...)``: the upstream gradient with the view's
    region zeroed for ``input``, the view's region for ``src``."""

    def backward(self, g):
        gi = gs = None
        if self.needs[0]:
            gi = self.scatter(g, g.new_zeros(self.src_shape))
        if self.needs[1]:
            gs = self.view(g)
        return gi, gs


class SliceScatterBackward0(_ViewScatterBackward):
    pass


class SelectScatterBackward0(_ViewScatterBackward):
    pass


class DiagonalScatterBackward0(_ViewScatterBackward):
    pass


class AsStridedScatterBackward0(_ViewScatterBackward):
    pass


def _view_scatter(input, src, name, view_fn, scatter_fn, node_cls, contiguous=False):
    _check_tensor(input, name)
    _check_tensor(src, name, 'src', 2)
    with _NoGrad():
        out = _op('clone')(input, memory_format=_contig() if contiguous else None)
        v = view_fn(out)
        if tuple(src.shape) != tuple(v.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                               f"size = {_shape_str(src.shape)}, slice size = "
                               f"{_shape_str(v.shape)}")
        d = v._data
        s = src._data
        if d.size:
            d[...] = s if s.dtype == d.dtype else s.astype(d.dtype)
    out = wrap(out._data)
    if grad_needed(input, src):
        node = node_cls()
        node.view = view_fn if not contiguous else (lambda g: view_fn(g.contiguous()))
        node.scatter = scatter_fn
        node.src_shape = tuple(src.shape)
        record(out, node, (input, src))
    return out


@register()
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with the slice ``start:end:step`` of dim ``dim`` replaced by ``src``
    (a new tensor; gradients flow to both).

    Args:
        input (Tensor): the tensor to embed into.
        src (Tensor): the values, of the slice's shape.
        dim (int): the sliced dim.
        start, end, step (int, optional): the slice.

    Example::

        >>> ember.slice_scatter(ember.zeros(3, 2), ember.ones(1, 2), 0, 1, 2)
        tensor([[0., 0.],
                [1., 1.],
                [0., 0.]])
    """
    return _view_scatter(input, src, 'slice_scatter',
                         lambda t: _slice_view(t, dim, start, end, step),
                         lambda g, s: slice_scatter(g, s, dim, start, end, step),
                         SliceScatterBackward0)


@register()
def select_scatter(input, src, dim, index):
    """``input`` with ``input.select(dim, index)`` replaced by ``src`` (a new tensor;
    gradients flow to both).

    Example::

        >>> ember.select_scatter(ember.zeros(2, 2), ember.ones(2), 0, 0)
        tensor([[1., 1.],
                [0., 0.]])
    """
    return _view_scatter(input, src, 'select_scatter',
                         lambda t: _op('select')(t, dim, index),
                         lambda g, s: select_scatter(g, s, dim, index),
                         SelectScatterBackward0)


@register()
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its diagonal (``input.diagonal(offset, dim1, dim2)``) replaced by
    ``src`` (a new tensor; gradients flow to both).

    Example::

        >>> ember.diagonal_scatter(ember.zeros(2, 2), ember.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _view_scatter(input, src, 'diagonal_scatter',
                         lambda t: _op('diagonal')(t, offset, dim1, dim2),
                         lambda g, s: diagonal_scatter(g, s, offset, dim1, dim2),
                         DiagonalScatterBackward0)


@register()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` (copied contiguously) with the ``as_strided(size, stride, storage_offset)``
    window replaced by ``src`` (a new tensor; gradients flow to both).

    Example::

        >>> ember.as_strided_scatter(ember.zeros(4), ember.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
    """
    return _view_scatter(input, src, 'as_strided_scatter',
                         lambda t: _op('as_strided')(t, size, stride, storage_offset),
                         lambda g, s: as_strided_scatter(g, s, size, stride, storage_offset),
                         AsStridedScatterBackward0, contiguous=True)


# ============================================================================ splits
def _dir_split(name, d, need):
    def op(input, indices_or_sections):
        _check_tensor(input, name)
        nd = input._data.ndim
        if nd < need:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension"
                               f", but got a tensor with {nd} dimensions!")
        dim = 0 if (name == 'hsplit' and nd == 1) else d
        if isinstance(indices_or_sections, _int) and not isinstance(indices_or_sections, _bool):
            n = input._data.shape[dim]
            s = indices_or_sections
            if s == 0 or n % s:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but "
                                   f"the size of the dimension {n} is not divisible by the "
                                   f"split_size {s}!")
        return _op('tensor_split')(input, indices_or_sections, dim)
    op.__name__ = op.__qualname__ = name
    where = {'hsplit': 'horizontally (dim 1, or dim 0 of a 1-D tensor)',
             'vsplit': 'vertically (dim 0)', 'dsplit': 'depthwise (dim 2)'}[name]
    op.__doc__ = (f"Split ``input`` {where} into views, as :func:`tensor_split` with an "
                  f"int (equal sections; must divide the size) or a list of indices.\n\n"
                  f"    Example::\n\n        >>> [t.shape for t in ember.{name}("
                  f"ember.zeros(4, 4, 4), 2)][0][{d}]\n        2\n")
    return op


hsplit = register('hsplit')(_dir_split('hsplit', 1, 1))
vsplit = register('vsplit')(_dir_split('vsplit', 0, 2))
dsplit = register('dsplit')(_dir_split('dsplit', 2, 3))


def _unsafe(name, base):
    def op(*args, **kwargs):
        res = _op(base)(*args, **kwargs)
        for t in res:
            t._vmeta = 0
        return res
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Like :func:`{base}`, but the results may be modified in place while "
                  f"autograd records (PyTorch's 'unsafe' variant; the caller ensures it is "
                  f"correct).\n\n    NOTE: unlike PyTorch, the results are views of the input "
                  f"(they share its memory, as PyTorch's do, but ``_is_view()`` is True).\n\n"
                  f"    Example::\n\n        >>> len(ember.{name}(ember.arange(4), 2))\n"
                  f"        2\n")
    return op


register('unsafe_split')(_unsafe('unsafe_split', 'split'))
register('unsafe_chunk')(_unsafe('unsafe_chunk', 'chunk'))
register('unsafe_split_with_sizes')(_unsafe('unsafe_split_with_sizes', 'split_with_sizes'))


# ============================================================================ math
class FrexpBackward0(Node):
    def backward(self, g, ge=None):
        return g * self.scale


@register()
def frexp(input, *, out=None):
    """Decompose ``input`` into mantissa (in ``[0.5, 1)`` in magnitude) and exponent (int32)
    with ``input = mantissa * 2 ** exponent``.

    Returns:
        a named tuple ``(mantissa, exponent)``.

    Example::

        >>> ember.frexp(ember.tensor([8., 0.5]))
        torch.return_types.frexp(
        mantissa=tensor([0.5000, 0.5000]),
        exponent=tensor([4, 0], dtype=torch.int32))
    """
    _check_tensor(input, 'frexp')
    a = input._data
    if a.dtype.kind not in 'fV':
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = array_module(a)
    m, e = xp.frexp(a.astype(np.float32) if a.dtype.kind == 'V' else a)   # bfloat16: exact
    m = wrap(m.astype(a.dtype, copy=False))
    e = wrap(e.astype(np.int32, copy=False))
    if grad_needed(input):
        node = FrexpBackward0()
        node.scale = wrap(xp.ldexp(xp.ones((), a.dtype), -e._data).astype(a.dtype))
        record(m, node, (input,))
    res = _rt.frexp((m, e))
    return res if out is None else write_out(res, out, 'frexp')


@register()
def ldexp(input, other, *, out=None):
    """``input * 2 ** other`` (a floating result).

    Example::

        >>> ember.ldexp(ember.tensor([1.]), ember.tensor([3]))
        tensor([8.])
    """
    _check_tensor(input, 'ldexp')
    res = _op('mul')(input, _op('pow')(2.0, other))
    return write_out(res, out, 'ldexp')


@register()
def ldexp_(input, other):
    """In-place version of :func:`ldexp`."""
    return input.mul_(_op('pow')(2.0, other))


def _int_binary(name, fn_name):
    def op(input, other, *, out=None):
        from ._util import binary
        _check_tensor(input, name)
        if not isinstance(other, Tensor):   # torch: no Python number here
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{_args.type_name(other)}")
        a, b, xp = binary(input, other)
        if a.dtype.kind not in 'iu':
            dt = _NP2DT[a.dtype]
            from .._tensor import _legacy_name
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{_legacy_name(dt)}'")
        res = wrap(xp.asarray(getattr(xp, fn_name)(a, b)).astype(a.dtype, copy=False))
        return write_out(res, out, name)
    op.__name__ = op.__qualname__ = name
    return op


gcd = register('gcd')(_int_binary('gcd', 'gcd'))
gcd.__doc__ = """Greatest common divisor of integer tensors, elementwise (non-negative;
``gcd(0, 0) = 0``).

    Example::

        >>> ember.gcd(ember.tensor([4, 0, 6]), ember.tensor([6, 0, -9]))
        tensor([2, 0, 3])
"""
lcm = register('lcm')(_int_binary('lcm', 'lcm'))
lcm.__doc__ = """Least common multiple of integer tensors, elementwise (non-negative).

    Example::

        >>> ember.lcm(ember.tensor([4, 6]), ember.tensor([6, -9]))
        tensor([12, 18])
"""


@register()
def gcd_(input, other):
    """In-place version of :func:`gcd`."""
    return inplace(input, gcd, other)


@register()
def lcm_(input, other):
    """In-place version of :func:`lcm`."""
    return inplace(input, lcm, other)


class NextafterBackward0(Node):
    def backward(self, g):
        return (g if self.needs[0] else None), (g.new_zeros(self.oshape) if self.needs[1] else None)


def _nextafter_bf16(a, b, xp):
    """``nextafter`` on bfloat16 arrays (NumPy has no loop for it): one step of the 16-bit
    pattern towards ``b``."""
    a, b = xp.broadcast_arrays(a, b)
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    bits = xp.ascontiguousarray(a).view(np.uint16).astype(np.int32)
    step = xp.where((fb > fa) == (fa > 0), 1, -1)
    tiny = xp.where(fb < 0, 0x8001, 0x0001)               # the smallest subnormal, signed
    r = xp.where(fa == 0, tiny, bits + step)
    r = xp.where(fa == fb, xp.ascontiguousarray(b).view(np.uint16).astype(np.int32), r)
    r = xp.where(xp.isnan(fa) | xp.isnan(fb), 0x7FC0, r)
    return r.astype(np.uint16).view(a.dtype)


@register()
def nextafter(input, other, *, out=None):
    """The next floating-point value after ``input`` towards ``other``, elementwise.

    Example::

        >>> ember.nextafter(ember.tensor([1.], dtype=ember.float64), ember.tensor([2.], dtype=ember.float64)) > 1
        tensor([True])
    """
    from ._util import binary
    _check_tensor(input, 'nextafter')
    a, b, xp = binary(input, other)
    if a.dtype.kind == 'V':
        res = wrap(_nextafter_bf16(a, b, xp))
    elif a.dtype.kind != 'f':
        from .._tensor import _legacy_name
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for "
                                  f"'{_legacy_name(_NP2DT[a.dtype])}'")
    else:
        res = wrap(xp.asarray(xp.nextafter(a, b)).astype(a.dtype, copy=False))
    if grad_needed(input, other):
        node = NextafterBackward0()
        node.oshape = tuple(other.shape) if isinstance(other, Tensor) else ()
        record(res, node, (input, other))
    return write_out(res, out, 'nextafter')


@register(function=False)
def nextafter_(input, other):
    """In-place version of :func:`nextafter`."""
    return inplace(input, nextafter, other)


@register()
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a
    scalar); ``invert`` negates the result.

    Example::

        >>> ember.isin(ember.tensor([1, 2, 3]), ember.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    e = elements._data if isinstance(elements, Tensor) else None
    t = test_elements._data if isinstance(test_elements, Tensor) else None
    xp = array_module(e if e is not None else t)
    from .._tensor import _legacy_name
    for arr in (e, t):
        if arr is not None and arr.dtype.kind in 'bc':
            raise RuntimeError("Unsupported input type encountered for isin(): "
                               f"{_legacy_name(_NP2DT[arr.dtype])}")
    if e is None:
        e = xp.asarray(elements)
    if t is None:
        t = xp.asarray(test_elements)
    if e.dtype.kind == 'V' or t.dtype.kind == 'V':      # bfloat16: compared in float32
        e, t = e.astype(np.float32), t.astype(np.float32)
    res = xp.isin(e, t, invert=_bool(invert))
    return wrap(xp.asarray(res))


@register()
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each sub-tensor along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is scaled to norm
    ``maxnorm`` (others are unchanged).

    Example::

        >>> ember.renorm(ember.tensor([[1., 2.], [3., 4.]]), 2, 0, 3)
        tensor([[1.0000, 2.0000],
                [1.8000, 2.4000]])
    """
    _check_tensor(input, 'renorm')
    nd = input._data.ndim
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, nd)
    others = tuple(i for i in range(nd) if i != d)
    from .norms import vector_norm
    norms = vector_norm(input, p, others, True)
    over = wrap(norms._data > maxnorm)
    f = _op('where')(over, maxnorm / (norms + 1e-7), norms.new_ones(()))
    res = input * f
    return write_out(res, out, 'renorm')


@register(function=False)
def renorm_(input, p, dim, maxnorm):
    """In-place version of :func:`renorm`."""
    return inplace(input, renorm, p, dim, maxnorm)


@register(method=False)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-D ``x``: columns ``x ** (N-1), ..., x, 1`` (or increasing
    powers with ``increasing=True``); ``N`` defaults to ``len(x)``.

    Example::

        >>> ember.vander(ember.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    _check_tensor(x, 'vander', 'x')
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0]
    if N is None:
        N = n
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    a = x._data
    xp = array_module(a)
    dt = a.dtype if a.dtype.kind in 'fc' else np.dtype(np.int64)
    if N == 0 or n == 0:
        return wrap(xp.zeros((n, N), dt))
    xx = x if a.dtype == dt else x.to(_NP2DT[dt])
    ones = wrap(xp.ones((n, 1), dt))
    if N == 1:
        res = ones
    else:
        res = _op('cat')([ones, xx.unsqueeze(1).expand(n, N - 1)], 1).cumprod(1)
    return res if increasing else res.flip(1)


@register(method=False)
def unravel_index(indices, shape):
    """Convert flat indices into a tuple of coordinate tensors for ``shape``.

    Example::

        >>> ember.unravel_index(ember.tensor([4, 1]), (2, 3))
        (tensor([1, 0]), tensor([1, 1]))
    """
    if not isinstance(indices, Tensor):
        from .creation import tensor as _tensor
        indices = _tensor(indices)
    a = indices._data
    if a.dtype.kind not in 'iu':
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, _int):
        shape = (shape,)
    shape = tuple(_int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    xp = array_module(a)
    a = a.astype(np.int64)
    # as torch: no range check; every coordinate is a floor division taken modulo its size
    # (an index outside [-total, total) wraps around)
    out = []
    rem = a
    for k in range(len(shape)):   # one op per dim of shape
        stride = _int(np.prod(shape[k + 1:])) if k + 1 < len(shape) else 1
        out.append(wrap(xp.asarray((rem // stride) % shape[k] if shape[k] else rem * 0)))
    return tuple(out)


@register(method=False)
def combinations(input, r=2, with_replacement=False):
    """All length-``r`` combinations of the elements of 1-D ``input`` (as rows), like
    ``itertools.combinations`` (``itertools.combinations_with_replacement`` with
    ``with_replacement=True``).

    Example::

        >>> ember.combinations(ember.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    _check_tensor(input, 'combinations')
    a = input._data
    if a.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_shape_str(a.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    xp = array_module(a)
    if r == 0:
        return wrap(xp.zeros((0,), a.dtype))
    n = a.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.fromiter(itertools.chain.from_iterable(gen(range(n), r)), np.int64).reshape(-1, r)
    if not idx.size:
        return wrap(xp.zeros((0, r), a.dtype)) if not input._rg else \
            input.new_zeros((0, r)) * input.sum()
    return input[wrap(xp.asarray(idx))]


@register()
def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the non-zero elements (as :func:`nonzero`), padded with
    ``fill_value`` or truncated to exactly ``size`` rows.

    Example::

        >>> ember.nonzero_static(ember.tensor([0, 3, 0, 4]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    _check_tensor(input, 'nonzero_static')
    if not isinstance(size, _int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    a = input._data
    xp = array_module(a)
    nz = xp.stack(xp.nonzero(a), 1) if a.ndim else xp.zeros((_int(bool(a)), 0), np.int64)
    nz = nz.astype(np.int64)[:size]
    if nz.shape[0] < size:
        pad = xp.full((size - nz.shape[0], a.ndim), fill_value, np.int64)
        nz = xp.concatenate([nz, pad], 0)
    return wrap(nz)


@register()
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Reduce the slices of ``source`` into ``input`` at ``index`` along ``dim`` with
    ``reduce`` one of ``'prod'``, ``'mean'``, ``'amax'``, ``'amin'``;
    ``include_self=False`` leaves the original values of indexed slices out.

    Example::

        >>> ember.ones(3).index_reduce(0, ember.tensor([0, 0]), ember.tensor([2., 3.]), 'prod')
        tensor([6., 1., 1.])
    """
    _check_tensor(input, 'index_reduce')
    if reduce not in ('prod', 'mean', 'amax', 'amin'):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    nd = input._data.ndim
    d = _wrap_dim(dim, max(nd, 1))
    ia = index._data
    from .._tensor import _legacy_name
    if ia.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{ia.ndim} with type: {_legacy_name(index.dtype)} and size: "
                         f"{_shape_str(ia.shape)}")
    if ia.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_legacy_name(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_legacy_name(input.dtype)}) and source "
                           f"({_legacy_name(source.dtype)}) must have the same scalar type")
    sd = source._data
    ns = sd.shape[d] if sd.ndim else 1
    if ia.size != ns:
        raise RuntimeError(f"index_reduce_(): Number of indices ({ia.size}) should be equal "
                           f"to source.size(dim): ({ns}), for dim: {dim}")
    n = input._data.shape[d] if nd else 1
    if ia.size and ((ia >= n).any() or (ia < -n).any()):
        raise IndexError("index out of range in self")
    xp = array_module(sd)
    shp = [1] * sd.ndim
    if sd.ndim:
        shp[d] = ia.size
    idx = wrap(xp.broadcast_to(xp.where(ia < 0, ia + n, ia).reshape(shp), sd.shape).astype(np.int64))
    res = _op('scatter_reduce')(input, d, idx, source, reduce, include_self=include_self)
    return write_out(res, out, 'index_reduce')


@register(function=False)
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place version of :func:`index_reduce`."""
    return inplace(input, index_reduce, dim, index, source, reduce, include_self=include_self)


# ------------------------------------------------------------------ statistics
def _legacy(dt):
    from .._tensor import _legacy_name
    return _legacy_name(dt)


@register()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (observations in the
    columns; a 1-D input is one variable).

    Args:
        correction (int): subtracted from the number of observations (1: Bessel).
        fweights (Tensor, optional): integer frequency weights of the observations.
        aweights (Tensor, optional): floating observation weights.

    Example::

        >>> ember.cov(ember.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    _check_tensor(input, 'cov')
    if not isinstance(correction, _int) or isinstance(correction, _bool):
        raise TypeError(f"cov(): argument 'correction' must be int, not "
                        f"{type(correction).__name__}")
    a = input._data
    if a.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {a.ndim} dimensions")
    if a.dtype.kind == 'b':
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if a.ndim == 2 else input.view(1, -1)
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        fa = fweights._data
        if fa.ndim > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fa.ndim} dimensions")
        if fa.dtype.kind not in 'iu':
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_legacy(fweights.dtype)} dtype")
        if fa.size != nobs:
            raise RuntimeError("cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fa.size} != {nobs}")
        if fa.size and (fa < 0).any():
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        aa = aweights._data
        if aa.ndim > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aa.ndim} dimensions")
        if aa.dtype.kind not in 'fc':
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_legacy(aweights.dtype)} dtype")
        if aa.size != nobs:
            raise RuntimeError("cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aa.size} != {nobs}")
        if aa.size and (aa < 0).any():
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if x.dtype._cat < 2:
        x = x.to(D._default_dtype if w is None or w.dtype._cat < 2 else w.dtype)
    if w is None:
        avg = x.mean(1)
        wsum = nobs
        norm_factor = float(nobs - correction)
    else:
        wsum_t = w.sum()
        if not bool(wsum_t != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / wsum_t
        wsum = wsum_t
        if correction == 0:
            norm_factor = wsum
        elif aweights is None:
            norm_factor = wsum - correction
        else:
            norm_factor = wsum - correction * (w * aweights).sum() / wsum
    nf_bad = (norm_factor <= 0) if not isinstance(norm_factor, Tensor) else bool(norm_factor <= 0)
    if nf_bad:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0 if isinstance(norm_factor, Tensor) else 0.0
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    c = _op('mm')(xw, xc.t().conj())
    res = c / norm_factor
    return res.squeeze() if res.numel() == 1 or a.ndim < 2 else res


@register()
def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``
    (values clipped to ``[-1, 1]``).

    Example::

        >>> ember.corrcoef(ember.tensor([[0., 1., 2.], [2., 1., 0.]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    if c.is_complex():
        sd = d.real.sqrt()
        c = c / sd.unsqueeze(1)
        c = c / sd.unsqueeze(0)
        return _op('complex')(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    sd = d.sqrt()
    c = c / sd.unsqueeze(1)
    c = c / sd.unsqueeze(0)
    return c.clamp(-1, 1)


# ------------------------------------------------------------------ integration
def _float_y(y):
    return y if y.dtype._cat >= 2 else y.to(D._default_dtype)


@register(method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integrate ``y`` along ``dim`` with the trapezoid rule, at sample points ``x`` or
    with spacing ``dx`` (default 1).

    Example::

        >>> ember.trapezoid(ember.tensor([1., 2., 4.]))
        tensor(4.5000)
    """
    _check_tensor(y, 'trapezoid', 'y')
    nd = y._data.ndim
    d = _wrap_dim(dim, nd)
    n = y._data.shape[d]
    if isinstance(x, Tensor):
        if x._data.ndim == 1 and x._data.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        if n == 0:
            return _float_y(y).sum(d) * 0
        xd = _op('diff')(x, dim=-1 if x._data.ndim == 1 else d)
        if xd.dim() == 1:
            sh = [1] * nd
            sh[d] = n - 1
            xd = xd.view(sh)
        ys = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        return (xd * ys).sum(d) / 2
    h = 1 if x is None and dx is None else (dx if dx is not None else x)
    if n == 0:
        return _float_y(y).sum(d) * 0
    yf = _float_y(y)
    s = yf.sum(d) - (yf.select(d, 0) + yf.select(d, n - 1)) * 0.5
    return s * h


@register(method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid` (``trapz(y, x, dim=-1)`` or ``trapz(y, *, dx=1, dim=-1)``).

    Example::

        >>> ember.trapz(ember.tensor([1., 2., 4.]), dx=2)
        tensor(9.)
    """
    if isinstance(x, (_int, _float)) and dx is None:
        dx, x = x, None
    return trapezoid(y, x, dx=dx, dim=dim)


@register(method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral of ``y`` along ``dim`` (one element fewer).

    Example::

        >>> ember.cumulative_trapezoid(ember.tensor([1., 2., 4.]))
        tensor([1.5000, 4.5000])
    """
    _check_tensor(y, 'cumulative_trapezoid', 'y')
    nd = y._data.ndim
    d = _wrap_dim(dim, nd)
    n = y._data.shape[d]
    yf = _float_y(y)
    if n == 0:
        return yf.narrow(d, 0, 0)
    avg = (yf.narrow(d, 1, n - 1) + yf.narrow(d, 0, n - 1)) / 2
    if isinstance(x, Tensor):
        if x._data.ndim == 1 and x._data.shape[0] != n:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                               "sample point")
        xd = _op('diff')(x, dim=-1 if x._data.ndim == 1 else d)
        if xd.dim() == 1:
            sh = [1] * nd
            sh[d] = n - 1
            xd = xd.view(sh)
        # as torch: (dx * (y[1:] + y[:-1])) / 2, in the operands' dtype until the halving
        ys = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        return ((xd * ys) / 2).cumsum(d)
    h = 1 if x is None and dx is None else (dx if dx is not None else x)
    return (avg * h).cumsum(d)


@register(method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the gradient of a function sampled in ``input`` along each of ``dim``
    (default: every dim) by second-order central differences inside and first- or
    second-order (``edge_order``) one-sided differences at the boundaries.

    Args:
        spacing (scalar, list of scalars or list of Tensors): sample spacing per dim, or
            the coordinates of the samples.
        dim (int or list of ints, optional): the dims to differentiate along.
        edge_order (int): 1 or 2.

    Returns:
        a tuple of tensors, one per dim.

    Example::

        >>> ember.gradient(ember.tensor([1., 2., 4., 8.]))
        (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    _check_tensor(input, 'gradient')
    nd = input._data.ndim
    if dim is None:
        dims = list(range(nd))
        given = False
    else:
        dims = [dim] if isinstance(dim, _int) else list(dim)
        given = True
    dims = [_wrap_dim(d, nd) for d in dims]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        if not given and len(spacing) != nd:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, "
                               "or a list of length equal to 'self.dim() = "
                               f"{nd}', since dim argument was not given, but got a list of "
                               f"length {len(spacing)}")
        if given and len(spacing) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or "
                               "it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        sp = list(spacing)
    else:
        sp = [1 if spacing is None else spacing] * len(dims)    # torch: None is unit spacing
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    y = _float_y(input)
    out = []
    for d, h in zip(dims, sp):
        out.append(_gradient_1d(y, d, h, edge_order, nd))
    return tuple(out)


def _gradient_1d(y, d, h, edge_order, nd):
    n = y.shape[d]

    def sl(s, e):
        return y.narrow(d, s, e - s)
    if isinstance(h, Tensor):
        cx = h.to(y.dtype) if h.dtype._cat < 2 else h
        dx = _op('diff')(cx)
        sh = [1] * nd
        sh[d] = -1

        def dxv(s, e):
            return dx.narrow(0, s, e - s).view(sh)
        a_ = dxv(0, n - 2) if n > 2 else None
        b_ = dxv(1, n - 1) if n > 2 else None
        parts = []
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / dxv(0, 1)
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dxv(n - 2, n - 1)
        else:
            h1, h2 = dxv(0, 1), dxv(1, 2)
            first = (-(2 * h1 + h2) / (h1 * (h1 + h2)) * sl(0, 1) + (h1 + h2) / (h1 * h2) * sl(1, 2)
                     - h1 / (h2 * (h1 + h2)) * sl(2, 3))
            h1, h2 = dxv(n - 3, n - 2), dxv(n - 2, n - 1)
            last = (h2 / (h1 * (h1 + h2)) * sl(n - 3, n - 2) - (h1 + h2) / (h1 * h2) * sl(n - 2, n - 1)
                    + (2 * h2 + h1) / (h2 * (h1 + h2)) * sl(n - 1, n))
        parts.append(first)
        if n > 2:
            mid = (a_ * a_ * sl(2, n) - b_ * b_ * sl(0, n - 2) + (b_ * b_ - a_ * a_) * sl(1, n - 1)) \
                / (a_ * b_ * (a_ + b_))
            parts.append(mid)
        parts.append(last)
        return _op('cat')(parts, d)
    parts = []
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / h
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
    else:
        first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
        last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
    parts.append(first)
    if n > 2:
        parts.append((sl(2, n) - sl(0, n - 2)) / (2 * h))
    parts.append(last)
    return _op('cat')(parts, d)


# ============================================================================ small members
@register()
def ravel(input):
    """``input`` flattened to 1-D (a view when possible, else a copy).

    Example::

        >>> ember.ravel(ember.zeros(2, 3)).shape
        ember.Size([6])
    """
    _check_tensor(input, 'ravel')
    return input.reshape(-1)


@register()
def adjoint(input):
    """The conjugate transpose of the last two dims (a view, ``input.mH``).

    Example::

        >>> ember.adjoint(ember.zeros(2, 3)).shape
        ember.Size([3, 2])
    """
    _check_tensor(input, 'adjoint')
    if input._data.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input._data.ndim}-D tensor.")
    return input.mH


@register()
def is_same_size(input, other):
    """True when both tensors have the same shape.

    Example::

        >>> ember.is_same_size(ember.zeros(2), ember.ones(2))
        True
    """
    return tuple(input.shape) == tuple(other.shape)


@register()
def is_distributed(input):
    """Always False (no distributed tensors).

    Example::

        >>> ember.is_distributed(ember.zeros(2))
        False
    """
    return False


@register(function=False)
def sum_to_size(input, *size, **kw):
    """Sum ``input`` down to ``size`` (which must broadcast to ``input``'s shape).

    Example::

        >>> ember.arange(6.).view(2, 3).sum_to_size(1, 3)
        tensor([[3., 5., 7.]])
    """
    if kw:
        from .view import _kw_form
        size = _kw_form('sum_to_size', 'size', size, kw)
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    if not size:        # as torch: an empty size sums everything (a 0-d input too)
        return input.sum()
    shape = tuple(input.shape)
    n = len(shape)
    ok = len(size) <= n and all(s == t or s == 1 for s, t in zip(size[::-1], shape[::-1]))
    if not ok:
        raise RuntimeError(f"size {{{_shape_str(size)}}} is not expandable to size "
                           f"{{{_shape_str(shape)}}}.")
    lead = n - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    if not dims:
        return input
    r = input.sum(dims, keepdim=True)
    return r.view(size) if lead else r


@register(function=False)
def cumsum_(input, dim, *, dtype=None):
    """In-place version of :func:`cumsum`."""
    return inplace(input, _op('cumsum'), dim, dtype=dtype)


@register(function=False)
def cumprod_(input, dim, *, dtype=None):
    """In-place version of :func:`cumprod`."""
    return inplace(input, _op('cumprod'), dim, dtype=dtype)
