"""Shared machinery of the op library: wrapping arrays, type promotion of operands,
recording autograd nodes, and the registry that binds ops to ``Tensor`` methods and
the ``ember`` namespace.

How to define an op (forward and backward together)::

    class MulBackward0(Node):
        def backward(self, g):
            a, b = self.saved_tensors
            return g * b.conj(), g * a.conj()

    @register('mul', inplace='mul_', dunder=('__mul__', '__rmul__'))
    def mul(input, other):
        a, b, xp = binary_arrays(input, other)
        out = wrap(xp.multiply(a, b))
        if grad_needed(input, other):
            record(out, MulBackward0(), (input, other), save=(input, other))
        return out
"""
import numpy as np

from .._dtype import _NP2DT, _scalar_category, _default_complex, promote_types
from .. import _dtype as D
from .._tensor import Tensor, _new_tensor as wrap, _Mode
# the graph wiring lives with the graph; op bodies import it from here with the rest
from ..autograd.graph import Node, record, edge_of, zeros_meta  # noqa: F401
from .._backend import array_module

__all__ = ['wrap', 'Node', 'register', 'binary_arrays', 'grad_needed', 'record', 'result_type',
           'unwrap', 'edge_of', 'write_out', 'METHODS', 'FUNCTIONS', 'ATEN', 'aten']

METHODS = {}     # Tensor method name -> function
FUNCTIONS = {}   # ember.<name> -> function
ATEN = {}        # aten operators with no torch.* / Tensor name: ember.ops.aten.<name>


def aten(name):
    """Decorator: expose ``fn`` only as the operator ``ember.ops.aten.<name>`` (for aten
    operators PyTorch has under no public name, as ``aten::slice``)."""
    def deco(fn):
        ATEN[name] = fn
        return fn
    return deco


def register(name=None, method=True, function=True, dunder=(), aliases=()):
    """Decorator: expose ``fn`` as ``ember.<name>`` and ``Tensor.<name>``.

    Args:
        name: public name (default ``fn.__name__``).
        method: also a Tensor method (True), or a different method name (str), or False.
        function: also ``ember.<name>``.
        dunder: Tensor dunder names bound to the same function (``'__add__'``).
        aliases: extra names for both.
    """
    def deco(fn):
        n = name or fn.__name__
        fn = _numpy_names(fn, n)
        for nm in (n,) + tuple(aliases):
            if function:
                FUNCTIONS[nm] = fn
            if method:
                METHODS[method if isinstance(method, str) and nm == n else nm] = fn
        for d in dunder:
            METHODS[d] = fn
        return fn
    return deco


# PyTorch's argument parser takes NumPy's names for four parameters: ``axis`` for ``dim``,
# ``keepdims`` for ``keepdim``, ``x`` for ``input``, ``x2`` for ``other``
_NUMPY_NAMES = {'axis': 'dim', 'keepdims': 'keepdim', 'x': 'input', 'x2': 'other'}


def _numpy_names(fn, name):
    """``fn`` taking PyTorch's NumPy-style keyword names as well (``x.sum(axis=1,
    keepdims=True)``) when it has a parameter they stand for; ``fn`` itself otherwise
    (most ops: nothing is added to their calls)."""
    import functools
    import inspect
    code = getattr(inspect.unwrap(fn), '__code__', None)
    if code is None:
        return fn
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    names = {a: p for a, p in _NUMPY_NAMES.items() if p in params and a not in params}
    if 'dim' not in params and 'keepdim' not in params:
        return fn

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if kwargs:
            for a in names.keys() & kwargs.keys():
                p = names[a]
                if p in kwargs:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{a}'")
                kwargs[p] = kwargs.pop(a)
        return fn(*args, **kwargs)
    return op


def unwrap(x):
    """The array of a Tensor (other values pass through)."""
    return x._data if isinstance(x, Tensor) else x


def _scalar_array(v, dt):
    return dt.type(v)


def binary_arrays(a, b):
    """Arrays for a binary op with PyTorch's type promotion. Either operand may be a
    Python scalar. Returns ``(arr_a, arr_b, xp)``, both of the promoted dtype."""
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if ta and tb:
        x, y = a._data, b._data
        if x.shape != y.shape:
            check_broadcast(x.shape, y.shape)
        dx, dy = x.dtype, y.dtype
        if dx is not dy and dx != dy:
            r = _promote_arrays(x, y)
            if dx != r:
                x = x.astype(r)
            if dy != r:
                y = y.astype(r)
        return x, y, array_module(x)
    if ta:
        x = a._data
        return x, _scalar_for(x, b), array_module(x)
    if tb:
        y = b._data
        return _scalar_for(y, a), y, array_module(y)
    raise TypeError("expected at least one Tensor operand")


def result_type(*operands):
    """The dtype an arithmetic op over ``operands`` gives, by PyTorch's rules:
    tensors with dimensions outrank zero-dim tensors, which outrank Python scalars,
    within one category (bool < integer < floating < complex). (It takes tensors, so it
    lives with the ops; ``_dtype`` holds the tables it reads.)

    Example::

        >>> ember.result_type(ember.tensor([1, 2]), 1.0)
        torch.float32
    """
    dim_t = None   # promoted dtype of dimensioned tensors
    zero_t = None
    scal_cat = -1
    for o in operands:
        if isinstance(o, Tensor):
            d = o.dtype
            if o._data.ndim:
                dim_t = d if dim_t is None else promote_types(dim_t, d)
            else:
                zero_t = d if zero_t is None else promote_types(zero_t, d)
        else:
            c = _scalar_category(o)
            if c > scal_cat:
                scal_cat = c
    res = dim_t
    if zero_t is not None:
        if res is None:
            res = zero_t
        elif zero_t._cat > res._cat:
            res = D._promote_up(res, zero_t)
    if scal_cat >= 0:
        if res is None:
            return D._cat_default(scal_cat)
        if scal_cat > res._cat:
            res = D._promote_up(res, D._cat_default(scal_cat))
    return res


def check_broadcast(a, b):
    """Raise PyTorch's RuntimeError when shapes ``a`` and ``b`` do not broadcast."""
    for p, q in zip(reversed(a), reversed(b)):
        if p != q and p != 1 and q != 1:
            n = max(len(a), len(b))
            pa = (1,) * (n - len(a)) + tuple(a)
            pb = (1,) * (n - len(b)) + tuple(b)
            i = max(i for i in range(n) if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1)
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                               f"b ({pb[i]}) at non-singleton dimension {i}")


def _promote_arrays(x, y):
    """Promoted numpy dtype of two arrays under PyTorch's rules."""
    dx = _NP2DT[x.dtype]
    dy = _NP2DT[y.dtype]
    if x.ndim and not y.ndim:
        if dy._cat > dx._cat:
            return D._promote_up(dx, dy)._np
        return x.dtype
    if y.ndim and not x.ndim:
        if dx._cat > dy._cat:
            return D._promote_up(dy, dx)._np
        return y.dtype
    return promote_types(dx, dy)._np


_SCALAR_CAT_DEFAULT = None


def _scalar_for(arr, s):
    """Cast Python scalar ``s`` for an op with ``arr``; may upcast the array's category.

    Returns a numpy scalar of the result dtype (the array itself is cast by the caller
    when needed: see ``binary_arrays``)."""
    dt = arr.dtype
    k = dt.kind
    t = type(s)
    if t is float:
        if k == 'f' or k == 'c' or k == 'V':
            return dt.type(s)
        raise _Upcast(D._default_dtype._np)
    if t is int:
        if k == 'b':
            if s >= 9223372036854775808:      # the parser reads it as a uint64 scalar
                if s >= 18446744073709551616:
                    raise OverflowError("int too big to convert")
                raise RuntimeError("Promotion for uint16, uint32, uint64 types is not "
                                   "supported, attempted to promote Bool and UInt64")
            raise _Upcast(np.dtype(np.int64))
        if k in 'iu':
            try:
                return dt.type(s)
            except OverflowError:
                return dt.type(_wrap_int(s, dt))
        if -9223372036854775808 <= s < 18446744073709551616:
            return dt.type(s)
        raise OverflowError("int too big to convert")   # what PyTorch's parser unpacks
    if t is bool:
        return dt.type(s)
    if t is complex:
        if k == 'c':
            return dt.type(s)
        if dt == np.float64:
            raise _Upcast(np.dtype(np.complex128))
        raise _Upcast(_default_complex()._np)
    if isinstance(s, Tensor):
        raise TypeError("internal: tensor passed as scalar")
    if isinstance(s, np.generic):
        return _scalar_for(arr, (bool, int, float, complex)[_scalar_category(s)](s))
    raise TypeError(f"unsupported operand type(s): 'Tensor' and '{t.__name__}'")


def _wrap_int(s, dt):
    """Python int ``s`` wrapped into integer dtype ``dt`` as PyTorch's arithmetic takes a
    scalar operand: modulo 2**bits (``int8 + 300`` adds 44; ``int64 * 2**63`` wraps);
    values outside [-2**63, 2**64) raise the OverflowError of PyTorch's argument parser."""
    if s >= 18446744073709551616:
        raise OverflowError("int too big to convert")
    if s < -9223372036854775808:
        raise OverflowError("can't convert negative int to unsigned")
    bits = 8 * dt.itemsize
    w = s % (1 << bits)
    if dt.kind == 'i' and w >= 1 << (bits - 1):
        w -= 1 << bits
    return w


class _Upcast(Exception):
    def __init__(self, dt):
        self.dt = dt


def binary(a, b):
    """``binary_arrays`` that also handles a scalar forcing a category upcast."""
    try:
        return binary_arrays(a, b)
    except _Upcast as u:
        dt = u.dt
        if isinstance(a, Tensor):
            return a._data.astype(dt), dt.type(b), array_module(a._data)
        return dt.type(a), b._data.astype(dt), array_module(b._data)


def grad_needed(*ts):
    """True when grad mode is on and any tensor argument requires grad."""
    if not _Mode.grad:
        return False
    for t in ts:
        if t.__class__ is not float and t.__class__ is not int and isinstance(t, Tensor) and t._rg:
            return True
    return False


def float_result_dtype(arr):
    """The numpy dtype a floating op (sqrt, exp, ...) gives for an input array:
    integers and bool promote to the default dtype."""
    if arr.dtype.kind in 'fcV':
        return None
    return D._default_dtype._np


_RESIZE_MSG = ("An output with one or more elements was resized since it had shape {}, which "
               "does not match the required output shape {}. This behavior is deprecated, and "
               "in a future PyTorch release outputs will not be resized unless they have zero "
               "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
               "zero elements with t.resize_(0).")


# named results whose out= tensors must have exactly the result's dtypes
_EXACT_OUT = (('values', 'indices'), ('min', 'max'))


def _c_name(dt):
    """How PyTorch's out= dtype errors name a dtype (its C++ element type)."""
    n = dt._name
    return {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
            'bfloat16': 'c10::BFloat16', 'int64': 'long int', 'int32': 'int',
            'int16': 'short int', 'int8': 'signed char', 'uint8': 'unsigned char',
            'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>'}.get(n, n)


def write_out(res, out, name, cast=False):
    """The one implementation of ``out=``: write result ``res`` (a tensor, or a tuple of
    tensors for multi-output ops) into ``out`` and return ``out``.

    PyTorch's rules: ``out`` must be a Tensor (a tuple of as many for multi-output ops);
    no autograd through ``out=``; a result whose dtype category is above ``out``'s (float
    into an integer tensor) is an error unless ``cast`` (factories compute in ``out``'s
    dtype); a non-empty ``out`` of the wrong shape is resized with PyTorch's warning; the
    write bumps ``out``'s version counter.
    """
    if out is None:
        return res
    if res.__class__ is not Tensor and isinstance(res, tuple):
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        if len(out) != len(res):
            raise TypeError(f"expected tuple of {len(res)} elements but got {len(out)}")
        if getattr(res, '_fields', None) in _EXACT_OUT:
            for r, o in zip(res, out):
                if isinstance(o, Tensor) and o.dtype is not r.dtype:
                    raise RuntimeError(f"Expected out tensor to have dtype {_c_name(r.dtype)}, "
                                       f"but got {_c_name(o.dtype)} instead")
        written = tuple(write_out(r, o, name, cast) for r, o in zip(res, out))
        rt = type(res)
        if hasattr(rt, 'n_fields'):       # a torch.return_types structseq: its _out type
            from ..return_types import _out_type
            return _out_type(rt)(written)
        return rt(*written) if hasattr(rt, '_fields') else rt(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _Mode.grad and (res._rg or out._rg):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    src = res._data
    dst = out._data
    if 0 in dst.strides and any(n > 1 and st == 0 for n, st in zip(dst.shape, dst.strides)):
        # an expanded out: two of its elements are one memory location
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if not cast and src.dtype != dst.dtype:
        rd, od = _NP2DT[src.dtype], _NP2DT[dst.dtype]
        if rd._cat > od._cat:
            from .._tensor import _legacy_name
            raise RuntimeError(f"result type {_legacy_name(rd) if rd._cat != 1 else 'Long'} "
                               f"can't be cast to the desired output type {_legacy_name(od)}")
    if dst.shape != src.shape:
        if dst.size:
            import warnings
            warnings.warn(_RESIZE_MSG.format(list(dst.shape), list(src.shape)), UserWarning,
                          stacklevel=3)
        out._data = dst = array_module(dst).empty(src.shape, dst.dtype)
        out._st = None
        out._base = None
    if src.dtype == dst.dtype:
        dst[...] = src
    else:
        dst[...] = src.astype(dst.dtype)
    out._storage_obj()._version += 1
    return out


def with_out(name, cast=False, exact=False, dtype_from_out=False):
    """Decorator for ops whose body computes a fresh result: adds PyTorch's ``out=``
    through :func:`write_out` (the body is called without ``out``). With ``exact`` (the
    linear-algebra decompositions) ``out`` must have the result's very dtype; with
    ``dtype_from_out`` (``cumsum``, ``cumprod``: ops with a ``dtype`` argument) the op
    computes in ``out``'s dtype when no ``dtype`` is given, as PyTorch's do."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def op(*args, out=None, **kwargs):
            if dtype_from_out and isinstance(out, Tensor) and kwargs.get('dtype') is None:
                kwargs['dtype'] = out.dtype
            res = fn(*args, **kwargs)
            if out is None:
                return res
            if exact:
                check_exact_out(res, out)
            return write_out(res, out, name, cast)
        return op
    return deco


def check_exact_out(res, out):
    """PyTorch's error when an ``out`` tensor (or tuple of them) has another dtype than the
    result it receives, for the ops that take no casting ``out``."""
    pairs = (zip(res, out) if isinstance(res, tuple) and isinstance(out, (tuple, list))
             else ((res, out),))
    for r, o in pairs:
        if isinstance(o, Tensor) and isinstance(r, Tensor) and o.dtype is not r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_c_name(r.dtype)}, "
                               f"but got {_c_name(o.dtype)} instead")
