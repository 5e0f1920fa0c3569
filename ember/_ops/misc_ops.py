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
from .._tensor import Tensor, Size, _wrap_dim, _Mode, _NoGrad, inplace, check_inplace
from .. import _dtype as D
from .._dtype import _NP2DT
from ._util import (wrap, Node, register, record, grad_needed, write_out, unwrap, METHODS,
                    FUNCTIONS)
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
    return _op('clone')(r, memory_format=_contig())


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


def _alias(input):
    from .view import make_view
    return make_view(input, input._data[...])


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
                  "raises PyTorch's error for a strided input.")
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
