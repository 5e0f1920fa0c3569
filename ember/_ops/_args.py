"""Argument checks with PyTorch's wording.

PyTorch parses every argument of a public op against its declared type (``Tensor``,
``int``, ``bool``, ``torch.dtype``, ``tuple of ints``, ...) and raises a ``TypeError``
naming the function, the argument and its position when the type is wrong. These
helpers do the same for ember's ops. They are meant to be called at the top of an op
body, or only on the slow branch once a cheap ``type(x) is int`` style test failed, so
hot ops pay nothing for them::

    if type(dim) is not int:
        dim = _args.as_int(dim, 'flatten', 'start_dim', 1)

Positions count from 1 as PyTorch's do (the input tensor of a function is position 1,
``self`` of a method does not count); keyword-only arguments have no position.
"""
import builtins

import numpy as np

from .._tensor import Tensor
from .. import _dtype as _D
from .._device import device as _device

__all__ = ['type_name', 'tensor', 'tensors', 'as_int', 'as_opt_int', 'as_bool', 'as_dtype',
           'as_device', 'as_int_list', 'as_dims', 'as_number', 'as_size', 'invalid',
           'check_factory']

_bool = builtins.bool
_int = builtins.int
_float = builtins.float


def type_name(v):
    """How PyTorch names the type of ``v`` in its messages (``str``, ``numpy.ndarray``,
    ``Tensor``, ``torch.dtype``, ...)."""
    if isinstance(v, Tensor):
        return 'Tensor' if type(v) is Tensor else type(v).__name__
    if isinstance(v, _D.dtype):
        return 'torch.dtype'
    if isinstance(v, _device):
        return 'torch.device'
    t = type(v)
    mod = t.__module__
    if mod == 'builtins':
        return t.__name__
    if mod == 'numpy':
        return 'numpy.' + t.__name__
    return t.__name__


def _where(fname, arg, pos):
    p = f" (position {pos})" if pos is not None else ''
    return f"{fname}(): argument '{arg}'{p}"


def _fail(fname, arg, pos, want, v):
    raise TypeError(f"{_where(fname, arg, pos)} must be {want}, not {type_name(v)}")


def tensor(v, fname, arg='input', pos=1):
    """Raise PyTorch's TypeError unless ``v`` is a Tensor; returns ``v``."""
    if not isinstance(v, Tensor):
        _fail(fname, arg, pos, 'Tensor', v)
    return v


def py_tensor(v, attr):
    """For ops that PyTorch writes in Python (``F.mse_loss``, ``torch.norm``, ``split``,
    ...): a non-Tensor ``v`` fails there on its first attribute use, so raise the same
    AttributeError (``'str' object has no attribute 'size'``); a NumPy value, whose
    ``size`` is a number, gives the TypeError of calling it."""
    if isinstance(v, Tensor):
        return v
    a = getattr(v, attr, None)
    if a is not None and not callable(a):
        raise TypeError(f"'{type(a).__name__}' object is not callable")
    raise AttributeError(f"'{type_name(v)}' object has no attribute '{attr}'")


def tensors(vs, fname, arg='tensors', pos=1):
    """A list of tensors for a ``tuple of Tensors`` argument (raises PyTorch's TypeError)."""
    if isinstance(vs, Tensor) or not isinstance(vs, (tuple, list)):
        _fail(fname, arg, pos, 'tuple of Tensors', vs)
    for i, t in enumerate(vs):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {(pos or 1) - 1}, "
                            f"but got {type_name(t)}")
    return list(vs)


_I64 = 1 << 63


def overflow(v):
    """Raise PyTorch's ValueError for a Python int beyond int64 given as an ``int``."""
    if v >= _I64 or v < -_I64:
        raise ValueError("Overflow when unpacking long long")
    return v


def number_overflow(v):
    """Raise PyTorch's OverflowError for a Python int beyond int64 given as a ``Number``."""
    if type(v) is _int and (v >= _I64 or v < -_I64):
        raise OverflowError("int too big to convert")
    return v


# the C++ type names PyTorch's "value cannot be converted to type ... without overflow" uses
C_TYPE_NAMES = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
                'bfloat16': 'c10::BFloat16', 'bool': 'bool', 'uint8': 'uint8_t',
                'int8': 'int8_t', 'int16': 'int16_t', 'int32': 'int', 'int64': 'int64_t',
                'uint16': 'uint16_t', 'uint32': 'uint32_t', 'uint64': 'uint64_t'}
_NUMBER_TYPES = (_bool, _int, _float, complex, np.number, np.bool_)


def is_number(v):
    """A Python or NumPy number (what PyTorch's parser takes as a ``Number``)."""
    return isinstance(v, _NUMBER_TYPES)


def fill_value(v, dtype, int_limit=None):
    """Check a scalar written into a tensor of ``dtype`` (an ember dtype) as PyTorch does:
    a Python int beyond what the parser unpacks raises (``OverflowError: int too big to
    convert`` past uint64, or ``int_limit``'s error when given), a complex value into a
    real dtype (a nonzero imaginary part) and an out-of-range value into an integer dtype
    raise PyTorch's RuntimeError. Returns ``v`` (a complex with zero imaginary part as its
    real part for a real dtype; a negative integer for an unsigned dtype wrapped into it, as
    PyTorch's conversion wraps it: -1 is 255 for uint8). The caller has checked that ``v`` is
    a number."""
    if type(v) is _int:
        if int_limit is not None:
            int_limit(v)
        elif v >= 2 ** 64 or v < -_I64:
            raise OverflowError("int too big to convert")
    cat = dtype._cat
    if type(v) is complex:
        if cat < 3 and v.imag:
            raise RuntimeError(f"value cannot be converted to type "
                               f"{C_TYPE_NAMES.get(dtype._name, dtype._name)} without overflow")
        v = v.real if cat < 3 else v
    if cat == 1 and not isinstance(v, (_bool, np.bool_)) and _out_of_int_range(v, dtype):
        raise RuntimeError(f"value cannot be converted to type "
                           f"{C_TYPE_NAMES.get(dtype._name, dtype._name)} without overflow")
    if cat == 1 and not dtype.is_signed and isinstance(v, (_int, np.integer)) and \
            not isinstance(v, (_bool, np.bool_)) and v < 0:
        v = _int(v) % (1 << (8 * dtype.itemsize))
    return v


def checked_int_operand(tensor_operand, v):
    """Raise PyTorch's RuntimeError when Python int ``v``, the scalar operand of an op that
    converts it with an overflow check (``pow``, ``where``, ``clamp``; unlike ``add``/``mul``,
    which wrap it), does not fit the integer dtype of ``tensor_operand``'s result."""
    if type(v) is _int and isinstance(tensor_operand, Tensor) and tensor_operand.dtype._cat == 1:
        fill_value(v, tensor_operand.dtype)


def _out_of_int_range(v, dtype):
    if isinstance(v, np.complexfloating):
        v = v.real
    if v != v or v in (np.inf, -np.inf):
        return True
    ii = np.iinfo(dtype._np)
    return v > ii.max or v < (ii.min if dtype.is_signed else -_int(ii.max))


def _int_or_none(v):
    """``int(v)`` for what PyTorch takes as an int (not bool), else None; a Python int
    beyond int64 raises PyTorch's ValueError."""
    t = type(v)
    if t is _int:
        if v >= _I64 or v < -_I64:
            raise ValueError("Overflow when unpacking long long")
        return v
    if t is _bool:
        return None
    if isinstance(v, (np.integer, _int)) and not isinstance(v, (np.bool_, _bool)):
        return _int(v)
    if isinstance(v, Tensor):
        if v._data.ndim == 0 and v._data.dtype.kind in 'iu':
            return _int(v._data)
        return None
    return None


def as_int(v, fname, arg, pos=None):
    """``v`` as an int (Python or NumPy integer, or an integer 0-dim tensor); bools,
    floats and the rest raise PyTorch's TypeError."""
    r = _int_or_none(v)
    if r is None:
        _fail(fname, arg, pos, 'int', v)
    return r


def as_opt_int(v, fname, arg, pos=None):
    """:func:`as_int`, letting None through."""
    return None if v is None else as_int(v, fname, arg, pos)


def as_bool(v, fname, arg, pos=None):
    """``v`` must be a Python bool (PyTorch refuses ints and numpy bools)."""
    if type(v) is not _bool:
        _fail(fname, arg, pos, 'bool', v)
    return v


def as_number(v, fname, arg, pos=None):
    """``v`` must be a Python/NumPy number or a 0-dim... number (not str, None, ...)."""
    if isinstance(v, (_int, _float, complex, np.number, np.bool_)):
        return v
    _fail(fname, arg, pos, 'Number', v)


def as_dtype(v, fname, arg='dtype', pos=None):
    """None or an ember dtype, returned; a Python number type is read as PyTorch reads
    it (``float`` -> float64, ``int`` -> int64, ``bool``, ``complex`` -> complex128)."""
    if v is not None and not isinstance(v, _D.dtype):
        d = _D._PY2DT.get(v) if isinstance(v, type) else None
        if d is None:
            _fail(fname, arg, pos, 'torch.dtype', v)
        return d
    return v


def as_device(v, fname, arg='device', pos=None):
    """None, a device, a device string or a (non-bool) int index, unchanged."""
    if v is None or isinstance(v, (str, _device)):
        return v
    if isinstance(v, (_int, np.integer)) and not isinstance(v, _bool):
        _device(_int(v))        # an index on the current accelerator: checked as torch does
        return v
    _fail(fname, arg, pos, 'torch.device', v)


def as_int_list(v, fname, arg, pos=None, allow_int=True):
    """A tuple of ints from an int or a sequence of ints (``tuple of ints`` argument)."""
    r = _int_or_none(v)
    if r is not None:
        if allow_int:
            return (r,)
        _fail(fname, arg, pos, 'tuple of ints', v)
    if isinstance(v, Tensor) or not isinstance(v, (tuple, list)):
        _fail(fname, arg, pos, 'tuple of ints', v)
    out = []
    for i, x in enumerate(v):
        try:
            r = _int_or_none(x)
        except ValueError:
            raise TypeError(f"{_where(fname, arg, pos)} failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"") from None
        if r is None:
            if i == 0:
                raise TypeError(f"{_where(fname, arg, pos)} must be tuple of ints, but found "
                                f"element of type {type_name(x)} at pos 0")
            raise TypeError(f"{_where(fname, arg, pos)} failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type_name(x)}\"")
        out.append(r)
    return tuple(out)


def as_dims(v, fname=None, arg='dim', pos=None):
    """A reduction's ``dim``: None, an int, or a tuple of ints (NumPy integers and integer
    0-dim tensors become Python ints)."""
    if v is None or type(v) is _int:
        return v
    r = _int_or_none(v)
    if r is not None:
        return r
    if isinstance(v, (tuple, list)):
        return as_int_list(v, fname or '', arg, pos) if fname else _int_list_anon(v, arg)
    if fname:
        _fail(fname, arg, pos, 'tuple of ints', v)
    raise TypeError(f"argument '{arg}' must be tuple of ints, not {type_name(v)}")


def _int_list_anon(v, arg):
    out = []
    for x in v:
        r = _int_or_none(x)
        if r is None:
            raise TypeError(f"argument '{arg}' must be tuple of ints, but found element of type "
                            f"{type_name(x)}")
        out.append(r)
    return tuple(out)


def as_size(size, fname, arg='size', pos=1):
    """The ``*size`` of a factory: ints, or one tuple/list/Size of ints. Returns a tuple
    of Python ints; PyTorch's TypeError for anything else."""
    if len(size) == 1:
        s = size[0]
        if isinstance(s, (tuple, list)):
            out = []
            for i, x in enumerate(s):
                r = _int_or_none(x) if type(x) is not _bool else _int(x)
                if r is None:
                    raise TypeError(f"{_where(fname, arg, pos)} failed to unpack the object at "
                                    f"pos {i + 1} with error \"type must be tuple of ints,but "
                                    f"got {type_name(x)}\"")
                out.append(r)
            return tuple(out)
        r = _int_or_none(s)
        if r is None:
            _fail(fname, arg, pos, 'tuple of ints', s)
        return (r,)
    out = []
    for i, x in enumerate(size):
        r = _int_or_none(x)
        if r is None:
            if i == 0 or type(x) is not _bool:
                invalid(fname, *size)
            r = _int(x)
        out.append(r)
    return tuple(out)


class _Omitted:
    """The default of an optional argument that PyTorch's parser tells apart from an
    explicit ``None`` (``mean(keepdim=True)`` is invalid where ``mean(dim=None,
    keepdim=True)`` is not). It prints as ``None``, the default PyTorch documents."""
    __slots__ = ()

    def __repr__(self):
        return 'None'

    def __bool__(self):
        return False


OMITTED = _Omitted()


def invalid(fname, *args, **kwargs):
    """Raise PyTorch's "received an invalid combination of arguments" TypeError."""
    got = ', '.join([type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in
                                                    kwargs.items()])
    raise TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                    "but expected one of the documented signatures")


def factory_args(fname, out, dtype, device, requires_grad):
    """Check a factory's ``out``, ``dtype``, ``device`` and ``requires_grad`` (in that
    order, as PyTorch reports them); call it only when one of them is not the default.
    Returns ``dtype`` as an ember dtype (see :func:`as_dtype`)."""
    if out is not None and not isinstance(out, Tensor):
        tensor(out, fname, 'out', None)
    if dtype is not None:
        dtype = as_dtype(dtype, fname)
    if device is not None:
        as_device(device, fname)
    if requires_grad is not False:
        check_factory(fname, requires_grad=requires_grad)
    return dtype


def check_factory(fname, dtype=None, device=None, requires_grad=False, out=None):
    """The keyword arguments every factory takes: ``dtype``, ``device``,
    ``requires_grad`` and ``out``; returns ``dtype`` as an ember dtype."""
    if dtype is not None and not isinstance(dtype, _D.dtype):
        dtype = as_dtype(dtype, fname)
    if device is not None:
        as_device(device, fname)
    if requires_grad is not False and requires_grad is not True and requires_grad is not None:
        _fail(fname, 'requires_grad', None, 'bool', requires_grad)
    if out is not None and not isinstance(out, Tensor):
        _fail(fname, 'out', None, 'Tensor', out)
    return dtype
