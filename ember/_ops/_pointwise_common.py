"""Helpers shared by the pointwise families (``arithmetic``, ``unary``, ``comparison``,
``bitwise``, ``pointwise``): operand promotion, result wrapping, ``out=``, masks, the
"not implemented" errors and backward nodes, the generic in-place form."""

import dis
import os
import sys

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, _legacy_name
from ._inplace import inplace, check_out_overlap
from ..autograd.graph import _named
from ._util import wrap, Node, binary_arrays, binary, record, _Upcast, write_out, grad_needed
from .._backend import array_module
from .._layout import elementwise as _elementwise, c_exact as _c_exact
from ._args import type_name, invalid as _args_invalid

_nd = np.ndarray   # the host array type: `r.__class__ is _nd` is the cheap "already an array" test
_ign = np.errstate(all='ignore')     # decorator: PyTorch never warns on inf/nan results


def _bin(a, b):
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)
    except (TypeError, ValueError):   # #ARGCHK slow path: ndarray operands become tensors
        a2, b2 = _nd_operand(a), _nd_operand(b)
        if a2 is a and b2 is b:
            raise
        f = _user_frame()
        opcode = f.f_code.co_code[f.f_lasti] if f is not None else None
        if opcode not in _ARITH_OPCODES:
            if opcode == _COMPARE_OP:
                raise TypeError(f"comparison not supported between instances of "
                                f"'{type_name(a)}' and '{type_name(b)}'")
            bad, pos, arg = (a, 1, 'input') if a2 is not a else (b, 2, 'other')
            raise TypeError(f"{_op_name()}(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type_name(bad)}")
        return _bin(a2, b2)


_OPS_DIR = os.path.dirname(os.path.abspath(__file__))
_ARITH_OPCODES = frozenset(dis.opmap[n] for n in (
    'BINARY_OP', 'BINARY_ADD', 'BINARY_SUBTRACT', 'BINARY_MULTIPLY', 'BINARY_TRUE_DIVIDE',
    'BINARY_FLOOR_DIVIDE', 'BINARY_MODULO', 'BINARY_POWER', 'BINARY_MATRIX_MULTIPLY')
    if n in dis.opmap)
_COMPARE_OP = dis.opmap['COMPARE_OP']


def _user_frame():
    """The innermost frame outside the op library (the caller of the public op).

    PyTorch takes NumPy arrays as operands of its arithmetic operators (``t + a``) but not
    of its functions and methods (``torch.add(t, a)``), nor of ``<``; ember binds one
    function to all three, so ``_bin``'s error path (never the hot path) looks at the
    calling instruction to tell them apart."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_OPS_DIR):
        f = f.f_back
    return f


def _op_name():
    """The public name the user called (for error messages), from the op body's frame."""
    f = sys._getframe(2)
    name = None
    while f is not None and f.f_code.co_filename.startswith(_OPS_DIR):
        name = f.f_code.co_name
        f = f.f_back
    return name


def _bin_n(a, b):
    """``_bin`` for add/sub/mul/div, which (as in PyTorch) also take two numbers: the first
    is then read as a 0-dim tensor."""
    try:
        return binary_arrays(a, b)
    except _Upcast:
        return binary(a, b)
    except (TypeError, ValueError):   # #ARGCHK slow path
        if isinstance(a, (int, float, complex)) and isinstance(b, (int, float, complex)):
            from .creation import tensor
            return _bin(tensor(a), b)
        return _bin(a, b)


def _nd_operand(v):   # #ARGCHK
    """A NumPy array operand as a tensor of its dtype (``tensor + ndarray`` as in PyTorch)."""
    if isinstance(v, np.ndarray):
        from .creation import tensor
        return tensor(v)
    return v


def _w(r, xp=np, x=None, y=None):
    """Wrap a ufunc result (numpy gives scalars for 0-d inputs) as a fresh tensor. Given
    the operand arrays ``x`` (and ``y``), the result gets PyTorch's elementwise layout
    (see ``_layout``; nothing to do when the operands are C-contiguous)."""
    if r.__class__ is not _nd:
        r = xp.asanyarray(r)
    elif x is not None and r.ndim > 1:
        if not ((x.__class__ is not _nd or x.flags.c_contiguous) and
                (y is None or y.__class__ is not _nd or y.flags.c_contiguous)):
            r = _elementwise(r, x) if y is None else _elementwise(r, x, y)
        elif y is not None and (1 in r.shape or not r.size):
            r = _size1_layout(r, x, y)
    return wrap(r)


def _size1_layout(r, *arrays):
    """PyTorch's layout for operands that NumPy calls C-contiguous but whose dims of size 1
    carry other strides (an N x C x 1 x 1 tensor laid out channels_last): with operands of
    different shapes (a scalar, a broadcast) PyTorch orders the result's dims by those
    strides; with one shape it keeps C order."""
    shapes = {getattr(a, 'shape', ()) for a in arrays if a is not None}
    if len(shapes) > 1 and not all(_c_exact(a) for a in arrays
                                   if a.__class__ is _nd and a.ndim > 1):
        return _elementwise(r, *[a if hasattr(a, 'strides') else np.asarray(a)
                                 for a in arrays if a is not None])
    return r


def _wn(r, xp, *arrays):
    """``_w`` for an elementwise op over any number of operands (tensors, arrays,
    numbers or None, first first)."""
    if r.__class__ is not _nd:
        return wrap(xp.asanyarray(r))
    if r.ndim > 1:
        arrs = [a._data if isinstance(a, Tensor) else a for a in arrays]
        nd_arrs = [a for a in arrs if a.__class__ is _nd]
        for a in nd_arrs:
            if not a.flags.c_contiguous:
                return wrap(_elementwise(r, *nd_arrs))
        if 1 in r.shape or not r.size:
            r = _size1_layout(r, *arrs)
    return wrap(r)


@_ign
def _call(f, *args):
    return f(*args)


_needs = grad_needed   # the one grad check (see _util.grad_needed)


def _req(name, v, arg='other', pos=2):
    """PyTorch's TypeError for a non-tensor where the op takes only tensors."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


def _req2(name, input, other, arg='other'):
    _req(name, input, 'input', 1)
    _req(name, other, arg, 2)


def _tname(a):
    return _legacy_name(D._NP2DT[a.dtype])


def _not_impl(name, a):
    raise NotImplementedError(f'"{name}" not implemented for \'{_tname(a)}\'')


def _float_arr(x):
    """Integer/bool arrays (and numpy scalars) as the default float dtype."""
    if x.dtype.kind in 'biu':
        return x.astype(D._default_dtype._np)
    return x


def _rg_complex(name, *ts):
    for t in ts:
        if isinstance(t, Tensor) and t._rg and t._data.dtype.kind == 'c':
            raise NotImplementedError(f"the derivative for '{name}' is not implemented for "
                                      "complex inputs")


def _cj(t):
    return t.conj() if t._data.dtype.kind == 'c' else t


def _zeros(g):
    return wrap(array_module(g._data).zeros_like(g._data))


def _const(arr, like):
    """A constant tensor (no graph) from array ``arr`` in the dtype of tensor ``like``."""
    dt = like._data.dtype
    return wrap(arr if arr.__class__ is _nd and arr.dtype == dt else
                array_module(like._data).asarray(arr, dtype=dt))


class MaskedFillBackward0(Node):
    def backward(self, g):
        return _mask_zero(g, self.mask)


def _mask_zero(t, mask):
    """``t`` with zeros where the constant boolean array ``mask`` is True (differentiable
    in ``t``; unlike ``t * ~mask`` it also clears infinities and NaNs)."""
    xp = array_module(t._data)
    a = xp.array(xp.broadcast_to(t._data, np.broadcast_shapes(t._data.shape, mask.shape)))
    a[xp.broadcast_to(mask, a.shape)] = 0
    res = wrap(a)
    if _Mode.grad and t._rg:
        node = MaskedFillBackward0()
        node.mask = mask
        record(res, node, (t,))
    return res


class _NotImplementedBackward(Node):
    def backward(self, *g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


_named(_NotImplementedBackward, 'torch::autograd::NotImplemented')


def _record_not_impl(res, name, *ins):
    ts = tuple(t for t in ins if isinstance(t, Tensor))
    node = _NotImplementedBackward()
    node.op = name
    record(res, node, ts)


def _out(res, out, name='add'):
    """``out=`` of the pointwise ops (see ``_util.write_out``). An ``out`` that partly
    overlaps one of the op's tensor arguments raises PyTorch's error (the very same tensor
    is allowed): the arguments are read from the calling op's frame, the one place that
    knows them all (this runs only when ``out`` is given)."""
    if out is None:
        return res
    if isinstance(out, Tensor):
        f = sys._getframe(1)
        code = f.f_code
        loc = f.f_locals
        check_out_overlap(out, [loc.get(n) for n in
                                code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                                if n != 'out'])
    return write_out(res, out, name)


def _make_inplace(fn, name):
    def f(self, *args, **kwargs):
        if 'out' in kwargs:   # in-place forms have no out= in PyTorch
            _args_invalid(name, *args, **kwargs)
        return inplace(self, fn, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    return f
