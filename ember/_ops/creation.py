"""Factories: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty`` and their ``_like`` forms, ``arange``; conversions ``to``/``clone``/``copy_``/
``contiguous``."""
from . import _args
import builtins
import numpy as np

from .. import _dtype as D
from .. import _storage
from .._dtype import _NP2DT
from .._device import device as _device, CPU
from .._tensor import Tensor, Size, _Mode, _LegacyTensor, _bind
from ._inplace import inplace_apply, check_inplace
from .._backend import module_for_device, to_device, device_of, array_module
from ._util import wrap, Node, register, grad_needed, record, write_out, with_out
from .. import _layout

__all__ = ['tensor', 'as_tensor', 'asarray', 'from_numpy', 'zeros', 'ones', 'full', 'empty',
           'empty_strided', 'scalar_tensor', 'linspace', 'logspace', 'eye', 'complex', 'polar',
           'zeros_like', 'ones_like', 'full_like', 'empty_like', 'arange']


def _dev(device):
    if device is None:
        return CPU
    if isinstance(device, _device):
        return device
    return _device(device)


def _xp(device):
    d = _dev(device)
    return module_for_device(d), d


_SEQ = (list, tuple, range)


def _infer_dtype(data):
    """dtype PyTorch infers from (nested) Python data: Python scalars count as their
    category's default dtype (bool, int64, default float, default complex); NumPy
    scalars/arrays and tensors as their own dtype; all promoted together."""
    res = None
    stack = [data]
    py = 0          # bit set of Python scalar categories seen
    while stack:
        x = stack.pop()
        t = type(x)
        if t is builtins.float:
            py |= 4
        elif t is builtins.int:
            py |= 2
        elif t is builtins.bool:
            py |= 1
        elif t is builtins.complex:
            py |= 8
        elif isinstance(x, _SEQ):
            stack.extend(x)
        elif isinstance(x, Tensor):
            d = x.dtype
            res = d if res is None else D.promote_types(res, d)
        elif isinstance(x, (np.ndarray, np.generic)):
            d = _NP2DT.get(x.dtype)
            if d is None:
                if isinstance(x, np.ndarray):
                    _reject_np(x)
                raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
            res = d if res is None else D.promote_types(res, d)
        elif isinstance(x, builtins.str):
            raise TypeError(f"new(): invalid data type 'str'")
        elif x is None:
            raise RuntimeError("Could not infer dtype of NoneType")
        elif hasattr(x, '__float__') or hasattr(x, '__index__'):
            py |= 2 if hasattr(x, '__index__') else 4
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    for bit, c in ((1, 0), (2, 1), (4, 2), (8, 3)):
        if py & bit:
            d = D._cat_default(c)
            res = d if res is None else D.promote_types(res, d)
    return res or D._default_dtype


def _to_list(x):
    if isinstance(x, Tensor):    # an element of nested data: a scalar, as in PyTorch
        if x.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x.item()
    if isinstance(x, _SEQ):
        return [_to_list(v) for v in x]
    return x


def _ragged_error(data):
    """Raise PyTorch's error for nested data that is not rectangular."""
    sizes = []
    x = data
    while isinstance(x, _SEQ) or (isinstance(x, (np.ndarray, Tensor)) and x.ndim):
        sizes.append(len(x))
        if not len(x):
            break
        x = x[0]

    def walk(x, d):
        seq = isinstance(x, _SEQ) or (isinstance(x, (np.ndarray, Tensor)) and x.ndim)
        if d == len(sizes):
            if seq:
                raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
            return
        if not seq:
            raise TypeError("not a sequence")
        if len(x) != sizes[d]:
            raise ValueError(f"expected sequence of length {sizes[d]} at dim {d} (got {len(x)})")
        for v in x:
            walk(v, d + 1)
    walk(data, 0)


def _overflow(dt):
    return RuntimeError(f"value cannot be converted to type {dt._name} without overflow")


def _check_range(arr, dt):
    """PyTorch's overflow check when Python numbers become integer dtype ``dt``."""
    if arr.size == 0 or dt._cat != 1:
        return
    k = arr.dtype.kind
    ii = np.iinfo(dt._np)
    if k == 'f':
        if not np.isfinite(arr).all():
            raise _overflow(dt)
        lo, hi = float(arr.min()), float(arr.max())
        if not dt.is_signed and lo < 0:
            raise _overflow(dt)
    elif k in 'iu':
        lo, hi = int(arr.min()), int(arr.max())
    else:
        return
    if hi > ii.max:
        raise _overflow(dt)
    if dt.is_signed:
        if lo < ii.min:
            raise _overflow(dt)
    elif lo < -int(ii.max):
        raise _overflow(dt)


def _check_sizes_chain(data):
    """PyTorch sizes nested data by following first elements; a string met there (a
    sequence of itself) is "too many dimensions"."""
    x = data
    while isinstance(x, _SEQ) and len(x):
        x = x[0]
        if isinstance(x, builtins.str):
            raise ValueError("too many dimensions 'str'")


def _bad_element(data):
    """Raise PyTorch's error for the first element of nested data that is no number."""
    for v in _iter_flat(data) if isinstance(data, _SEQ) else (data,):
        if isinstance(v, builtins.str):
            raise TypeError("new(): invalid data type 'str'")
        if v is None or not (isinstance(v, (builtins.bool, builtins.int, builtins.float,
                                             builtins.complex, np.generic, Tensor))
                             or hasattr(v, '__float__') or hasattr(v, '__index__')):
            raise TypeError(f"must be real number, not {type(v).__name__}")


def _np_from_python(data, dt, inferred=False):
    """A host array of dtype ``dt`` from (nested) Python data, with PyTorch's checks."""
    if isinstance(data, _SEQ) and any(isinstance(v, Tensor) for v in _iter_flat(data)):
        data = _to_list(data)
    try:
        raw = np.array(data)
    except (ValueError, TypeError):
        _ragged_error(data)
        raise
    if raw.dtype == object or raw.dtype.kind in 'US':
        _bad_element(data)
    if raw.dtype == object:
        if isinstance(data, _SEQ):
            _ragged_error(data)
        if dt._cat == 1 or dt._cat == 0:
            raise ValueError("Overflow when unpacking long long")
        raw = raw.astype(np.float64)
    if raw.dtype.kind in 'US':
        raise ValueError("too many dimensions 'str'")
    if raw.dtype.kind == 'c' and dt._cat < 3:
        raise TypeError("must be real number, not complex")
    if dt is D.int64 and (raw.dtype.kind == 'u' and raw.dtype.itemsize == 8 or
                          inferred and raw.dtype.kind == 'f'):
        raise ValueError("Overflow when unpacking long long")   # Python ints beyond int64
    _check_range(raw, dt)
    if dt._cat == 1 and raw.dtype.kind == 'i' and not dt.is_signed:
        return raw.astype(dt._np)   # negative values wrap, as in PyTorch
    with np.errstate(over='ignore', invalid='ignore'):
        if dt._np.kind == 'V' or dt in D._FLOAT8:   # (ml_dtypes' float8_e5m2 has kind 'f')
            return D.cast_array(raw.astype(np.float64), dt)
        return raw.astype(dt._np)


def _array_from_data(data, dtype, device):
    xp, d = _xp(device)
    if isinstance(data, Tensor):
        dt = dtype or data.dtype
        arr = data._data.astype(dt._np, copy=True)
        return to_device(arr, d) if d != device_of(arr) else arr
    if isinstance(data, np.ndarray):
        dt = dtype or _NP2DT.get(data.dtype) or _reject_np(data)
        arr = np.array(data, dtype=dt._np, copy=True)
        return to_device(arr, d)
    if hasattr(data, '__cuda_array_interface__') and d.type == 'cuda':
        return xp.array(data, dtype=(dtype._np if dtype else None), copy=True)
    inferred = dtype is None
    _check_sizes_chain(data)
    if inferred:
        dtype = _infer_dtype(data)
    elif isinstance(data, builtins.str):
        raise TypeError("new(): invalid data type 'str'")
    return to_device(_np_from_python(data, dtype, inferred), d)


def _iter_flat(x):
    for v in x:
        if isinstance(v, _SEQ):
            yield from _iter_flat(v)
        else:
            yield v


def _reject_np(a):
    raise TypeError(f"can't convert np.ndarray of type numpy.{a.dtype.type.__name__}. The only "
                    "supported types are: float64, float32, float16, complex64, complex128, "
                    "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")


def _finish(t, requires_grad):
    a = t._data
    if not a.size and a.ndim and a.__class__ is np.ndarray and not any(a.strides):
        # NumPy gives an empty array zero strides; PyTorch's contiguous ones (sizes
        # counted as >= 1) are what views of it (t(), permute, slicing...) start from
        t._data = _layout.with_strides(a, _layout.contiguous_strides(a.shape))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _write_out(out, res, name='empty'):
    """``out=`` of the factories: ``res`` is written in ``out``'s dtype (see
    ``_util.write_out``)."""
    return write_out(res, out, name, cast=True)


class _TensorNew:
    """``Tensor(...)``, the legacy constructor, and ``Tensor.__array_wrap__`` (NumPy ufunc
    results as tensors), bound onto ``Tensor`` from here."""

    def __new__(cls, *args, device=None, **kwargs):
        dt = cls._legacy_dtype or D.get_default_dtype()
        if len(args) == 1 and isinstance(args[0], Tensor):
            src = args[0]
            return src if cls is Tensor else tensor(src, dtype=dt)
        if args and all(isinstance(a, int) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
            shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
            t = empty(*shape, dtype=dt, device=device)
        elif not args:
            t = empty(0, dtype=dt, device=device)
        else:
            t = tensor(args[0], dtype=dt, device=device)
        if cls is not Tensor and not issubclass(cls, _LegacyTensor):
            t = t.as_subclass(cls)
        return t

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """Wrap the result of a NumPy ufunc applied to this tensor as a tensor (a 0-dim one
        for a scalar result; bool results as uint8, as in PyTorch)."""
        array = np.asarray(array)
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return from_numpy(np.ascontiguousarray(array) if array.ndim else array.copy())


_bind(_TensorNew)


@register(method=False)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor by copying ``data`` (nested lists, numbers, arrays, tensors).

    Args:
        data: initial data.
        dtype (ember.dtype, optional): inferred from ``data`` by default.
        device (ember.device, optional): default ``cpu``.
        requires_grad (bool): record operations for autograd.

    Example::

        >>> ember.tensor([[0.1, 1.2], [2.2, 3.1]])
        tensor([[0.1000, 1.2000],
                [2.2000, 3.1000]])
    """
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('tensor', None, dtype, device, requires_grad)
    return _finish(wrap(_array_from_data(data, dtype, device)), requires_grad)


@register(method=False)
def as_tensor(data, dtype=None, device=None):
    """Converts ``data`` to a tensor, sharing memory where possible (NumPy arrays and
    tensors of the same dtype and device).

    Example::

        >>> a = numpy.array([1, 2]); t = ember.as_tensor(a); t[0] = 5; int(a[0])
        5
    """
    if isinstance(data, Tensor):
        t = data
        if dtype is not None and t.dtype is not dtype:
            t = t.to(dtype)
        if device is not None and t.device != _dev(device):
            t = t.to(device)
        return t
    if isinstance(data, np.ndarray) and (device is None or _dev(device).type == 'cpu'):
        t = from_numpy(data)
        return t if dtype is None or dtype is t.dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


@register(method=False)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts ``obj`` to a tensor, sharing memory unless ``copy=True`` or a conversion
    is needed (``copy=False`` raises where sharing is impossible).

    Example::

        >>> a = numpy.array([1., 2.]); ember.asarray(a)[0] = 5.; float(a[0])
        5.0
    """
    if copy is False and not isinstance(obj, (Tensor, np.ndarray)):
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if copy:
        if isinstance(obj, Tensor):
            t = obj.detach().clone().to(dtype=dtype or obj.dtype, device=device or obj.device)
        else:
            t = tensor(obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and t._data is not getattr(obj, '_data', None) and \
                not (isinstance(obj, np.ndarray) and np.shares_memory(t._data, obj)):
            raise ValueError("can't alias tensor: a copy is needed to change its dtype or device")
    return _finish(t, requires_grad)


@register(method=False)
def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``.

    Example::

        >>> a = numpy.array([1, 2, 3]); t = ember.from_numpy(a); t[0] = -1; a
        array([-1,  2,  3])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _NP2DT:
        _reject_np(ndarray)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if ndarray.dtype.byteorder == '>':
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return wrap(ndarray)


def _shape_args(size, name=None):
    """Normalise ``size`` given as varargs ints or one sequence (or ``ember.Size``)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    elif not size:
        raise TypeError(f'{name or "empty"}() missing 1 required positional arguments: "size"')
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor):       # one integer element stands for an int (any shape)
            if s.numel() != 1 or s.dtype._cat == 2 or s.dtype._cat == 3:
                raise TypeError(f"{name or 'empty'}(): argument 'size' (position 1) must be "
                                "tuple of ints, not Tensor")
            s = s.item()
        if not isinstance(s, (builtins.int, np.integer)) or isinstance(s, builtins.bool):
            raise TypeError(f"{name or 'empty'}(): argument 'size' (position 1) must be tuple "
                            f"of ints, not {type(s).__name__}")
        if s >= 1 << 63:
            raise TypeError(f"{name or 'empty'}(): argument 'size' failed to unpack the object at "
                            f"pos {i + 1} with error \"Overflow when unpacking long long\"")
        if s < 0:
            if name in ('zeros', 'ones'):
                raise RuntimeError(f"{name}: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in size)}]")
        out.append(builtins.int(s))
    return tuple(out)


def _size_kw(size, kw, name):
    """``size`` of a factory called with PyTorch's ``size=`` keyword (taken from ``kw``,
    the factory's other keywords): returned in the varargs form ``_shape_args`` reads."""
    kw_size = kw.pop('size', _args.OMITTED)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    if kw_size is _args.OMITTED:
        return size
    if size:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(kw_size, (tuple, list, Size)):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                        f"{_args.type_name(kw_size)}")
    return (kw_size,)


def _fill(fn, size, dtype, device, requires_grad, out=None, name=None):
    xp, d = _xp(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    t = wrap(fn(xp, _shape_args(size, name), dt._np))
    if out is not None:
        return _write_out(out, t)
    return _finish(t, requires_grad)


@register(method=False)
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """A tensor of zeros of shape ``size`` (varargs or a tuple).

    Args:
        size: ints, or one tuple/list/``ember.Size`` (positionally or as ``size=``).
        out (Tensor, optional): written (and resized) in place and returned.
        dtype, device, requires_grad: properties of the result.

    Example::

        >>> ember.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('zeros', out, dtype, device, requires_grad)
    if kw:
        size = _size_kw(size, kw, 'zeros')
    return _fill(lambda xp, s, dt: xp.zeros(s, dt), size, dtype, device, requires_grad, out,
                 'zeros')


@register(method=False)
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None, **kw):
    """A tensor of ones of shape ``size`` (varargs or a tuple).

    Example::

        >>> ember.ones(2)
        tensor([1., 1.])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('ones', out, dtype, device, requires_grad)
    if kw:
        size = _size_kw(size, kw, 'ones')
    return _fill(lambda xp, s, dt: xp.ones(s, dt), size, dtype, device, requires_grad, out,
                 'ones')


@register(method=False)
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """A tensor of shape ``size`` (varargs or a tuple) whose values are not meant to be
    read before being written.

    NOTE: unlike PyTorch the memory is zero-filled (NumPy gives no cheaper fresh memory
    that is safe to print).

    Example::

        >>> ember.empty(2, 3).shape
        torch.Size([2, 3])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('empty', out, dtype, device, requires_grad)
    if kw:
        size = _size_kw(size, kw, 'empty')
    t = _fill(lambda xp, s, dt: xp.zeros(s, dt), size, dtype, device, requires_grad, out,
              'empty')
    if _storage.fill_uninitialized:
        _storage.uninit_fill(t._data)
    if memory_format is not None:
        t = t.contiguous(memory_format=memory_format)
    return t


@register(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor with the given ``size`` and ``stride`` (in elements), on a
    fresh storage just large enough for them (zero-filled, see :func:`empty`).

    Example::

        >>> ember.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('empty_strided', None, dtype, device, requires_grad)
    from .view import _int_tuple
    size = _shape_args((size,), 'empty_strided')
    stride = _int_tuple(stride, 'empty_strided', 'stride', 2)
    xp, d = _xp(device)
    dt = dtype or D._default_dtype
    isz = dt.itemsize
    need = _storage.check_view(size, stride, 0, isz, None, 'empty_strided')
    try:
        buf = xp.zeros(need // isz, dt._np)
    except (MemoryError, ValueError):
        raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{need} bytes. Error code 12 (Cannot allocate memory)") from None
    if _storage.fill_uninitialized:
        _storage.uninit_fill(buf)
    st = _storage.UntypedStorage(buf)
    t = wrap(_storage.view_of(st, buf.dtype, 0, size, stride, 'empty_strided'))
    t._st = st
    return _finish(t, requires_grad)


def _fill_arg(v, fname):
    """A ``fill_value`` argument: a number, or a 0-dim tensor read as one (PyTorch's
    ``Number`` parameter); anything else is its TypeError."""
    if isinstance(v, Tensor) and not v._data.ndim:
        v = v.item()
    elif not _args.is_number(v):
        _args.as_number(v, fname, 'fill_value', 2)
    return v.item() if isinstance(v, np.generic) else v


@register(method=False)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of shape ``size`` filled with ``fill_value``; the dtype is inferred from
    the value (bool, int64, default float, complex) unless given.

    Example::

        >>> ember.full((2, 2), 7)
        tensor([[7, 7],
                [7, 7]])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('full', out, dtype, device, requires_grad)
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    fill_value = _fill_arg(fill_value, 'full')
    dt = dtype or (out.dtype if out is not None else D._scalar_dtype(fill_value))
    fill_value = _args.fill_value(fill_value, dt)

    def mk(xp, s, d):
        with np.errstate(over='ignore', invalid='ignore'):
            return xp.full(s, fill_value, d)
    return _fill(mk, (tuple(size),), dt, device, requires_grad, out, 'full')


@register(method=False)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-dim tensor holding ``s``, of the default float dtype unless ``dtype`` is given.

    Example::

        >>> ember.scalar_tensor(3)
        tensor(3.)
    """
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('scalar_tensor', None, dtype, device, requires_grad)
    if isinstance(s, Tensor):
        s = s.item()
    dt = dtype or D._default_dtype
    return full((), s, dtype=dt, device=device, requires_grad=requires_grad)


def _steps_arg(steps):
    if isinstance(steps, Tensor):
        steps = steps.item()
    if not isinstance(steps, (builtins.int, np.integer)) or isinstance(steps, builtins.bool):
        raise TypeError(f"linspace() received an invalid combination of arguments - got "
                        f"steps of type {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return builtins.int(steps)


def _lin_values(start, end, steps, work):
    """``steps`` evenly spaced values from start to end in numpy dtype ``work``; the first
    half counts up from ``start``, the second half down from ``end`` (so both ends are
    exact)."""
    if steps == 0:
        return np.zeros(0, work)
    if steps == 1:
        return np.full(1, start, work)
    s = work.type(start)
    e = work.type(end)
    step = (e - s) / work.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    # PyTorch's CPU kernel is compiled with fused multiply-add: start + step * i rounds once.
    # A wider type holds step * i exactly (float32 in float64; float64 in x87 long double,
    # where the platform has one), so the sum is rounded once more only at the end.
    wide = {np.dtype(np.float32): np.dtype(np.float64),
            np.dtype(np.float64): np.dtype(np.longdouble)}.get(np.dtype(work))
    if wide is not None and wide.itemsize > np.dtype(work).itemsize:
        sw, ew, stw = wide.type(s), wide.type(e), wide.type(step)
        lo = (sw + stw * i[:half].astype(wide)).astype(work)
        hi = (ew - stw * (steps - 1 - i[half:]).astype(wide)).astype(work)
    else:
        lo = s + step * i[:half].astype(work)
        hi = e - step * (steps - 1 - i[half:]).astype(work)
    return np.concatenate([lo, hi]).astype(work, copy=False)


def _lin_dtype(start, end, dtype):
    if dtype is not None:
        return dtype
    if isinstance(start, builtins.complex) or isinstance(end, builtins.complex):
        return D._default_complex()
    return D._default_dtype


def _scalar_arg(v, name):
    if isinstance(v, Tensor):
        if v.dim() != 0:
            raise RuntimeError(f"{name}() expected a scalar tensor for start and end, but got "
                               f"a tensor of {v.dim()} dimensions")
        return v.item()
    if not isinstance(v, (builtins.int, builtins.float, builtins.complex, np.number, np.bool_)):
        _args.invalid(name, v)   # #ARGCHK
    return _args.number_overflow(v)


def _int_end(v, dt):
    """An end point of an integer ``linspace``/``logspace`` converted to ``dt`` as torch
    converts it (truncated toward zero, wrapped into the dtype's range)."""
    if v != v or v in (float('inf'), float('-inf')):
        return v
    with np.errstate(over='ignore'):
        return builtins.int(np.array(builtins.int(v)).astype(dt._np))


def _lin_result(arr, dt, device, out, requires_grad):
    """Finish ``linspace``/``logspace``: values computed in a wide dtype, truncated for
    integer ``dt``, cast, moved to ``device`` and written to ``out`` if given."""
    if dt._cat == 1:
        arr = np.trunc(arr)
    xp, d = _xp(device)
    t = wrap(to_device(arr.astype(dt._np), d))
    if out is not None:
        return _write_out(out, t)
    return _finish(t, requires_grad)


@register(method=False)
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (default float
    dtype, complex if an end point is complex; integer dtypes truncate).

    Example::

        >>> ember.linspace(0, 1, 5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('linspace', out, dtype, device, requires_grad)
    start, end = _scalar_arg(start, 'linspace'), _scalar_arg(end, 'linspace')
    steps = _steps_arg(steps)
    dt = _lin_dtype(start, end, dtype) if out is None or dtype is not None else out.dtype
    work = dt._np if dt._cat >= 2 else np.dtype(np.float64)
    if dt._cat < 2 and not isinstance(start, complex) and not isinstance(end, complex):
        start, end = _int_end(start, dt), _int_end(end, dt)  # torch: ends in the dtype first
    arr = _lin_values(start, end, steps, work)
    return _lin_result(arr, dt, device, out, requires_grad)


@register(method=False)
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``.

    Example::

        >>> ember.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('logspace', out, dtype, device, requires_grad)
    start, end = _scalar_arg(start, 'logspace'), _scalar_arg(end, 'logspace')
    steps = _steps_arg(steps)
    dt = _lin_dtype(start, end, dtype) if out is None or dtype is not None else out.dtype
    if dt._cat < 2 and steps > 1 and not isinstance(start, complex) and \
            not isinstance(end, complex):
        start, end = _int_end(start, dt), _int_end(end, dt)  # torch: ends in the dtype first
    work = np.dtype(np.float64) if dt._cat < 2 or dt is D.float64 else (
        np.dtype(np.complex128) if dt._cat == 3 else np.dtype(np.float32))
    if dt is D.complex64:
        work = np.dtype(np.complex64)
    x = _lin_values(start, end, steps, work)
    with np.errstate(over='ignore'):
        arr = np.power(work.type(base), x)
    return _lin_result(arr, dt, device, out, requires_grad)


@register(method=False)
def eye(n, m=_args.OMITTED, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """A 2-D tensor with ones on the diagonal: ``n`` rows, ``m`` (default ``n``) columns.

    Example::

        >>> ember.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
    """
    if n.__class__ is not int:
        n = _args.as_int(n, 'eye', 'n', 1)
    if m is _args.OMITTED:
        m = None
    elif m is None:   # eye(n, None) matches none of PyTorch's signatures
        _args.invalid('eye', n, m)
    if m is not None and m.__class__ is not int:
        m = _args.as_int(m, 'eye', 'm', 2)
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('eye', out, dtype, device, requires_grad)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    elif m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    xp, d = _xp(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    t = wrap(xp.eye(builtins.int(n), builtins.int(m), dtype=dt._np))
    if out is not None:
        return _write_out(out, t)
    return _finish(t, requires_grad)


def _like(input, dtype, device, requires_grad, fn, memory_format=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"zeros_like(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    dt = dtype or input.dtype
    d = _dev(device) if device is not None else input.device
    xp = module_for_device(d)
    a = input._data
    arr = fn(xp, a.shape, dt._np)
    t = wrap(arr)
    if memory_format is None or str(memory_format) == 'torch.preserve_format':
        if a.ndim > 1 and not _layout.c_exact(a):
            t = wrap(_layout.relayout(arr, _layout.preserve_strides(a.shape, _estrides(a))))
    elif str(memory_format) != 'torch.contiguous_format':
        t = t.contiguous(memory_format=memory_format)
    return _finish(t, requires_grad)


def _estrides(a):
    isz = a.itemsize
    return tuple(st // isz for st in a.strides)


def _preserve_copy(a):
    """A copy of array ``a`` laid out as PyTorch's ``preserve_format``."""
    c = _layout.preserve(a)
    c[...] = a
    return c


def _has_overlap(a):
    return any(s == 0 for s, n in zip(a.strides, a.shape) if n > 1)


def _restride_like(t, like):
    """``t``'s values laid out with ``like``'s stride order (dense, non-overlapping)."""
    a = like._data
    order = sorted(range(a.ndim), key=lambda i: -abs(a.strides[i]))
    # always a copy: the transposed input may already be C-contiguous (a view of it)
    arr = t._data.transpose(order).copy(order='C')
    inv = np.argsort(order)
    return wrap(arr.transpose(inv))


@register(method=False)
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.zeros_like(ember.tensor([[1, 2], [3, 4]]))
        tensor([[0, 0],
                [0, 0]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'zeros_like')
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('zeros_like', None, dtype, device, requires_grad)
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), memory_format)


@register(method=False)
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.ones_like(ember.tensor([1.5, 2.5]))
        tensor([1., 1.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'ones_like')
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('ones_like', None, dtype, device, requires_grad)
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.ones(s, d), memory_format)


@register(method=False)
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """An uninitialised tensor with the shape (and by default the dtype and device) of
    ``input`` (zero-filled; see :func:`empty`).

    Example::

        >>> ember.empty_like(ember.ones(2, 3, dtype=ember.int32)).shape
        torch.Size([2, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'empty_like')
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('empty_like', None, dtype, device, requires_grad)
    t = _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), memory_format)
    if _storage.fill_uninitialized:
        _storage.uninit_fill(t._data)
    return t


@register(method=False)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with the shape (and by default the dtype and device) of
    ``input``.

    Example::

        >>> ember.full_like(ember.zeros(2, dtype=ember.int64), 7)
        tensor([7, 7])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'full_like')
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('full_like', None, dtype, device, requires_grad)
    fill_value = _args.fill_value(_fill_arg(fill_value, 'full_like'), dtype or input.dtype)
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.full(s, fill_value, d),
                 memory_format)


@register(method=False)
def arange(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 when all
    arguments are integers, else the default float dtype.

    Example::

        >>> ember.arange(1, 4)
        tensor([1, 2, 3])
    """
    if end is None:
        if start is None:
            _args.invalid('arange')
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for v in vals:   # #ARGCHK
        if not isinstance(v, (builtins.int, builtins.float, np.number, np.bool_)):
            _args.invalid('arange', start, end, step)
        if type(v) is builtins.int and not -(1 << 63) <= v < (1 << 64):
            raise OverflowError("int too big to convert")
    start, end, step = vals
    import math
    for v in (start, end):
        if isinstance(v, (builtins.float, np.floating)) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {_range_str(start)} -> {_range_str(end)}")
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('arange', out, dtype, device, requires_grad)
        if dtype is None and out is not None:
            dtype = out.dtype
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (builtins.int, np.integer)) for v in vals) \
            else D._default_dtype   # #ARGCHK: bools count as ints, as in PyTorch
    xp, d = _xp(device)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is D.int64:
        # torch: the ends and the step in int64 first (truncated), the size in int64
        xs, xe, xst = (builtins.int(v) for v in vals)
        if xst == 0:
            raise ValueError("step must be nonzero")
        _arange_sign(xs, xe, xst)
        q = xe - xs + xst - (1 if xst > 0 else -1)
        n = builtins.max(abs(q) // abs(xst) * (1 if (q >= 0) == (xst > 0) else -1), 0)
    else:
        _arange_sign(start, end, step)
        n = builtins.max(math.ceil((end - start) / step), 0)
        if not dtype.is_floating_point and not dtype.is_complex:
            # the other integer dtypes: values from the truncated start and step
            xs, xst = builtins.int(start), builtins.int(step)
    if dtype.is_floating_point or dtype.is_complex:
        arr = (start + xp.arange(n, dtype=np.float64) * step).astype(dtype._np)
    else:
        arr = (xs + xp.arange(n, dtype=np.int64) * xst).astype(dtype._np)
    if out is not None:     # (the dtype came from out when none was given)
        return _write_out(out, _finish(wrap(arr), False), 'arange')
    return _finish(wrap(arr), requires_grad)


def _range_str(v):
    """An ``arange`` end point as torch prints it in its errors (``0``, ``-inf``, ``2.5``)."""
    if isinstance(v, (builtins.float, np.floating)) and np.isfinite(v) and v == builtins.int(v):
        return str(builtins.int(v))
    return str(builtins.float(v)) if isinstance(v, np.floating) else str(v)


def _arange_sign(start, end, step):
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


# ------------------------------------------------------------------ clone / contiguous / to / copy_
class CloneBackward0(Node):
    def backward(self, g):
        return g


@register()
def clone(input, *, memory_format=None):
    """A copy with its own memory, recorded by autograd (``CloneBackward0``); keeps the
    stride layout of dense inputs (``preserve_format``) unless ``memory_format`` says
    otherwise.

    Example::

        >>> ember.ones(2, requires_grad=True).clone()
        tensor([1., 1.], grad_fn=<CloneBackward0>)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'clone')
    a = input._data
    if a.ndim < 2 or _layout.c_exact(a):
        out = wrap(a.copy())
    else:   # preserve_format: PyTorch's strides (see _layout.preserve_strides)
        out = wrap(_preserve_copy(a))
    if memory_format is not None and str(memory_format) not in ('torch.preserve_format',):
        out = out.contiguous(memory_format=memory_format) if str(memory_format) != 'torch.contiguous_format' \
            else (out if out._data.flags.c_contiguous else wrap(np.ascontiguousarray(out._data)))
    if grad_needed(input):
        record(out, CloneBackward0(), (input,))
    return out


def _to_format(t, fmt):
    """``t`` laid out in memory format ``fmt`` (channels_last(_3d)): ``t`` itself when it
    already is, else a copy recorded as ``CloneBackward0``."""
    from .. import _memory_format as mf
    if fmt is mf.preserve_format:
        return t
    p = mf._perm_for(t, fmt)
    if mf._is_contiguous_as(t, fmt):
        return t
    xp = array_module(t._data)
    arr = xp.ascontiguousarray(t._data.transpose(p))
    inv = [p.index(i) for i in range(len(p))]
    arr = arr.transpose(inv)
    if not arr.size:   # NumPy gives empties zero strides
        arr = _layout.with_strides(arr, mf._strides_for(t.shape, p))
    out = wrap(arr)
    if grad_needed(t):
        record(out, CloneBackward0(), (t,))
    return out


@register(function=False)
def contiguous(self, *, memory_format=None):
    """This tensor if it is already contiguous (in ``memory_format``), else a contiguous
    copy (recorded by autograd).

    Example::

        >>> x = ember.arange(6).view(2, 3).t()
        >>> x.is_contiguous(), x.contiguous().is_contiguous()
        (False, True)
    """
    from .. import _memory_format as mf
    if memory_format is None or memory_format is mf.contiguous_format:
        if self._data.flags.c_contiguous:
            return self
        xp = array_module(self._data)
        out = wrap(xp.ascontiguousarray(self._data))
        if grad_needed(self):
            record(out, CloneBackward0(), (self,))
        return out
    return _to_format(self, memory_format)


class ToCopyBackward0(Node):
    def backward(self, g):
        dt, dev = self.src
        if g.device != dev:
            g = g.to(dev)
        if g.dtype is not dt:
            if g.is_complex() and not dt.is_complex:
                g = g.real
            g = g.to(dt)
        return g


def _cast(input, dtype=None, device=None, copy=False):
    a = input._data
    src_dt = input.dtype
    src_dev = device_of(a)
    same_dt = dtype is None or dtype is src_dt
    same_dev = device is None or device == src_dev
    if same_dt and same_dev and not copy:
        return input
    arr = a
    if not same_dev:
        arr = to_device(arr, device)
    if not same_dt:
        if src_dt.is_complex and not dtype.is_complex:
            import warnings
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=3)
            arr = arr.real
        arr = D.cast_array(arr, dtype)
        if arr.ndim > 1 and type(arr) is np.ndarray and not _layout.c_exact(a):
            arr = _layout.relayout(arr, _layout.preserve_strides(a.shape, _estrides(a)))
    elif arr is a:
        arr = a.copy() if a.ndim < 2 or _layout.c_exact(a) else _preserve_copy(a)
    out = wrap(arr)
    if grad_needed(input) and (dtype is None or dtype._cat >= 2):
        node = ToCopyBackward0()
        node.src = (src_dt, src_dev)
        record(out, node, (input,))
    return out


def _to_args(args, kwargs):
    """``(dtype, device, copy, memory_format)`` of a ``Tensor.to`` call, parsed as PyTorch's
    three signatures: ``to(device=None, dtype=None, non_blocking=False, copy=False)``,
    ``to(dtype, non_blocking=False, copy=False)`` and ``to(tensor, non_blocking=False,
    copy=False)``, all with keyword-only ``memory_format``."""
    from .. import _memory_format as mf
    first = args[0] if args else None
    if first.__class__ is type and first in D._PY2DT:
        first = D._PY2DT[first]
    if isinstance(first, (D.dtype, Tensor)):
        names, lead = ('non_blocking', 'copy'), 1
    else:
        names, lead = ('device', 'dtype', 'non_blocking', 'copy'), 0
    given = dict(zip(names, args[lead:]))
    ok = len(args) - lead <= len(names)
    for k, v in kwargs.items():
        if k in given or (k not in names and k != 'memory_format'):
            ok = False
        given[k] = v
    dtype, device = given.get('dtype'), given.get('device')
    if dtype.__class__ is type and dtype in D._PY2DT:
        dtype = D._PY2DT[dtype]
    memory_format = given.get('memory_format')
    ok = ok and (dtype is None or isinstance(dtype, D.dtype)) and (
        memory_format is None or isinstance(memory_format, mf.memory_format)) and all(
        type(given.get(k, False)) is builtins.bool for k in ('non_blocking', 'copy'))
    if device is not None and not isinstance(device, (str, _device)):
        if isinstance(device, builtins.int) and not isinstance(device, builtins.bool):
            _args.overflow(device)
            if device < 0:
                raise RuntimeError("Device index must not be negative")
            from .._backend import cuda_module
            if cuda_module() is None:
                raise RuntimeError("Cannot access accelerator device when none is available.")
            device = _device('cuda', device)
        else:
            ok = False
    if not ok:
        _args.invalid('to', *args, **kwargs)
    if isinstance(first, D.dtype):
        dtype = first
    elif isinstance(first, Tensor):
        dtype, device = first.dtype, first.device
    return dtype, device, given.get('copy', False), memory_format


@register(function=False)
def to(self, *args, **kwargs):
    """Convert dtype and/or device: ``to(dtype)``, ``to(device, dtype=None)``, ``to(other)``
    (other's dtype and device), with ``non_blocking=``, ``copy=``, ``memory_format=``.
    Returns self when nothing changes and ``copy`` is False.

    Example::

        >>> ember.tensor([1.5, 2.5]).to(ember.int64)
        tensor([1, 2])
        >>> ember.tensor([1, 2]).to('cpu', dtype=ember.float64)
        tensor([1., 2.], dtype=torch.float64)
    """
    dtype, device, copy, memory_format = _to_args(args, kwargs)
    if device is not None:
        device = _dev(device)
        if device.type == 'cuda':
            module_for_device(device)
    out = _cast(self, dtype, device, copy)
    if memory_format is not None:
        out = out.contiguous(memory_format=memory_format)
    return out


class CopyBackwards(Node):
    def backward(self, g):
        gs = g.to(self.src_dtype) if g.dtype is not self.src_dtype else g
        return (g.new_zeros(g.shape) if self.next_functions[0][0] is not None else None), gs


def _copy_out(self, src):
    """Out-of-place value of ``self.copy_(src)``: ``src`` cast and broadcast to self."""
    a = src._data
    dst = self._data
    if device_of(a) != device_of(dst):
        a = to_device(a, device_of(dst))
    if a.dtype != dst.dtype:
        if a.dtype.kind == 'c' and dst.dtype.kind != 'c':
            a = a.real
        a = D.cast_array(a, _NP2DT[dst.dtype])
    elif a is src._data:
        a = a.copy()
    if a.shape != dst.shape:
        try:
            a = array_module(a).broadcast_to(a, dst.shape)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({dst.shape[-1] if dst.ndim else 1}) must "
                               f"match the size of tensor b ({a.shape[-1] if a.ndim else 1}) at "
                               f"non-singleton dimension {dst.ndim - 1}") from None
    out = wrap(a)
    if grad_needed(src):
        node = CopyBackwards()
        node.src_dtype = src.dtype
        record(out, node, (self, src))
    return out


@register(function=False)
def copy_(self, src, non_blocking=False):
    """Copy the values of ``src`` into this tensor, casting the dtype and broadcasting
    ``src`` to this tensor's shape; returns self.

    Example::

        >>> x = ember.zeros(2, 3)
        >>> x.copy_(ember.tensor([1, 2, 3]))
        tensor([[1., 2., 3.],
                [1., 2., 3.]])
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    if check_inplace(self, src):
        return inplace_apply(self, _copy_out(self, src))
    a = src._data
    dst = self._data
    if a.dtype.kind == 'c' and dst.dtype.kind != 'c':
        a = a.real
    if device_of(a) != device_of(dst):
        a = to_device(a, device_of(dst))
    if a.dtype != dst.dtype and dst.dtype.itemsize == 1 and dst.dtype.kind in 'Vf':
        a = D.cast_array(a, _NP2DT[dst.dtype])   # float8: PyTorch's saturation and NaN
    try:
        dst[...] = a
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({dst.shape[-1] if dst.ndim else 1}) must "
                           f"match the size of tensor b ({a.shape[-1] if a.ndim else 1}) at "
                           f"non-singleton dimension {dst.ndim - 1}") from None
    self._storage_obj()._version += 1
    return self


def _method_cast(name, dt):
    def f(self, memory_format=None):
        out = _cast(self, dt)
        return out.contiguous(memory_format=memory_format) if memory_format is not None else out
    f.__name__ = dt._name
    f.__doc__ = (f"This tensor cast to ``ember.{dt._name}`` (``self.to(ember.{dt._name})``); self\n"
                 f"when it already has that dtype.\n\nExample::\n\n"
                 f"    >>> ember.tensor([1, 2]).{name}().dtype\n    {dt!r}\n")
    return f


for _n, _d in (('float', D.float32), ('double', D.float64), ('half', D.float16),
               ('bfloat16', D.bfloat16), ('long', D.int64), ('int', D.int32),
               ('short', D.int16), ('char', D.int8), ('byte', D.uint8), ('bool', D.bool),
               ('cfloat', D.complex64), ('cdouble', D.complex128)):
    register(_n, function=False)(_method_cast(_n, _d))


@register(function=False)
def cpu(self, memory_format=None):
    """This tensor in CPU memory (self if it is already there).

    Example::

        >>> ember.tensor([1.5]).cpu().device
        device(type='cpu')
    """
    return _cast(self, device=CPU)


@register(function=False)
def cuda(self, device=None, non_blocking=False, memory_format=None):
    """A copy in CUDA memory, on ``device`` (default: the current CUDA device); raises
    when no GPU is available.

    Example::

        >>> ember.ones(2).cuda()   # doctest: +SKIP
        tensor([1., 1.], device='cuda:0')
    """
    d = _device('cuda', device) if isinstance(device, builtins.int) else _dev(device or 'cuda')
    module_for_device(d)
    return _cast(self, device=d)


_LEGACY_TYPES = {
    'torch.FloatTensor': D.float32, 'torch.DoubleTensor': D.float64, 'torch.HalfTensor': D.float16,
    'torch.BFloat16Tensor': D.bfloat16, 'torch.LongTensor': D.int64, 'torch.IntTensor': D.int32,
    'torch.ShortTensor': D.int16, 'torch.CharTensor': D.int8, 'torch.ByteTensor': D.uint8,
    'torch.BoolTensor': D.bool, 'torch.ComplexFloatTensor': D.complex64,
    'torch.ComplexDoubleTensor': D.complex128}
_TYPE_NAMES = {v: k for k, v in _LEGACY_TYPES.items()}


@register('type', function=False)
def type_(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the legacy type name (``'torch.FloatTensor'``); otherwise this
    tensor cast to ``dtype`` (an ``ember.dtype`` or a type name).

    Example::

        >>> x = ember.tensor([1.5, -2.7])
        >>> x.type()
        'torch.FloatTensor'
        >>> x.type(ember.int32)
        tensor([ 1, -2], dtype=torch.int32)
    """
    for k in kwargs:
        if k not in ('async', 'memory_format'):
            raise TypeError(f"type() got an unexpected keyword argument '{k}'")
    if dtype is None:
        name = _TYPE_NAMES[self.dtype]
        return name if self.device.type == 'cpu' else name.replace('torch.', 'torch.cuda.')
    if isinstance(dtype, str):
        key = dtype.replace('.cuda', '')
        if key not in _LEGACY_TYPES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY_TYPES[key]
    elif isinstance(dtype, type) and hasattr(dtype, '_legacy_dtype'):
        dtype = dtype._legacy_dtype
    elif isinstance(dtype, type):
        # PyTorch names the type by its C-level name: the bare name for classes made in
        # Python and for builtins, 'module.name' for extension types (numpy.float32)
        name = dtype.__name__
        if not dtype.__flags__ & (1 << 9) and dtype.__module__ != 'builtins':
            name = f"{dtype.__module__}.{name}"
        raise ValueError(f"invalid type: '{name}'")
    elif not isinstance(dtype, D.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return _cast(self, dtype)


@register(function=False)
def type_as(self, other):
    """This tensor cast to the dtype (and device) of ``other``.

    Example::

        >>> ember.tensor([1, 2]).type_as(ember.zeros(1, dtype=ember.float16))
        tensor([1., 2.], dtype=torch.float16)
    """
    return _cast(self, other.dtype, other.device)


# ------------------------------------------------------------------ new_* methods
@register(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data``, with (by default) this tensor's dtype and
    device; the result does not require grad unless asked.

    Example::

        >>> ember.zeros(1, dtype=ember.float16).new_tensor([1, 2])
        tensor([1., 2.], dtype=torch.float16)
    """
    if isinstance(data, Tensor):
        data = data.detach()
    if dtype is not None:
        dtype = _args.as_dtype(dtype, 'new_tensor')
    t = wrap(_array_from_data(data, dtype or self.dtype, device or self.device))
    return _finish(t, requires_grad)


def _new_factory(fn, example):
    name = 'new_' + fn.__name__

    def m(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
          pin_memory=False, **kw):
        if kw:
            size = _size_kw(size, kw, name)
        if dtype is not None or device is not None or requires_grad is not False:
            dtype = _args.factory_args(name, None, dtype, device, requires_grad)
            if device is not None and not isinstance(device, (builtins.str, _device)):
                _to_args((device,), {})    # an int index: PyTorch's accelerator error
        return fn(*size, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad)
    m.__name__ = name
    m.__doc__ = (f":func:`ember.{fn.__name__}` with this tensor's dtype and device by default.\n\n"
                 f"Example::\n\n    >>> x = ember.zeros(1, dtype=ember.float64)\n{example}")
    return m


register('new_zeros', function=False)(_new_factory(zeros, """\
    >>> x.new_zeros(3)
    tensor([0., 0., 0.], dtype=torch.float64)
"""))
register('new_ones', function=False)(_new_factory(ones, """\
    >>> x.new_ones(3)
    tensor([1., 1., 1.], dtype=torch.float64)
"""))
register('new_empty', function=False)(_new_factory(empty, """\
    >>> x.new_empty(2, 3).shape
    torch.Size([2, 3])
"""))


@register(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """:func:`ember.full` with this tensor's dtype and device by default.

    Example::

        >>> ember.zeros(1, dtype=ember.float64).new_full((2, 2), 3.5)
        tensor([[3.5000, 3.5000],
                [3.5000, 3.5000]], dtype=torch.float64)
    """
    if dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('new_full', None, dtype, device, requires_grad)
    fill_value = _fill_arg(fill_value, 'new_full')
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)
