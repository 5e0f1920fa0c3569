"""Factories: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty`` and their ``_like`` forms, ``arange``; conversions ``to``/``clone``/``copy_``/
``contiguous``."""
import builtins
import numpy as np

from .. import _dtype as D
from .._dtype import _NP2DT
from .._device import device as _device, CPU
from .._tensor import Tensor, Size, _Mode, inplace_apply, check_inplace
from .._backend import module_for_device, to_device, device_of, array_module
from ._util import wrap, Node, register, grad_needed, record

__all__ = ['tensor', 'as_tensor', 'asarray', 'from_numpy', 'zeros', 'ones', 'full', 'empty',
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


def _infer_dtype(data):
    """dtype PyTorch infers from (nested) Python data."""
    kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            kinds.add(x.dtype)
            return
        if isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
            return
        if isinstance(x, np.ndarray):
            kinds.add(_NP2DT[x.dtype])
            return
        if isinstance(x, builtins.bool) or isinstance(x, np.bool_):
            kinds.add('b')
        elif isinstance(x, (builtins.int, np.integer)):
            kinds.add('i')
        elif isinstance(x, (builtins.float, np.floating)):
            kinds.add('f')
        elif isinstance(x, (builtins.complex, np.complexfloating)):
            kinds.add('c')
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    walk(data)
    res = None
    for k in kinds:
        d = D._cat_default({'b': 0, 'i': 1, 'f': 2, 'c': 3}[k]) if isinstance(k, str) else k
        res = d if res is None else D.promote_types(res, d)
    return res or D._default_dtype


def _to_list(x):
    if isinstance(x, Tensor):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_to_list(v) for v in x]
    return x


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
    dt = dtype or _infer_dtype(data)
    if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _iter_flat(data)):
        data = _to_list(data)
    try:
        arr = np.array(data, dtype=dt._np) if dt._np.kind != 'V' else np.array(data, dtype=np.float64).astype(dt._np)
    except (ValueError, TypeError) as e:
        if isinstance(data, (list, tuple)):
            raise ValueError(f"expected sequence of length {len(data[0]) if data and hasattr(data[0], '__len__') else 0} at dim 1 (got ...)") from None
        raise
    except OverflowError:
        raise RuntimeError(f"Overflow when unpacking long") from None
    if arr.dtype == object:
        raise ValueError("expected sequence of equal-length lists")
    return to_device(arr, d)


def _iter_flat(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _iter_flat(v)
        else:
            yield v


def _reject_np(a):
    raise TypeError(f"can't convert np.ndarray of type numpy.{a.dtype}. The only supported types "
                    "are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
                    "int8, uint64, uint32, uint16, uint8, and bool.")


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


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
    return _finish(wrap(_array_from_data(data, dtype, device)), requires_grad)


@register(method=False)
def as_tensor(data, dtype=None, device=None):
    """Converts ``data`` to a tensor, sharing memory where possible (NumPy arrays and
    tensors of the same dtype and device).

    Example::

        >>> a = numpy.array([1, 2]); t = ember.as_tensor(a); t[0] = 5; a[0]
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
    is needed."""
    if copy:
        t = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype, device=device) \
            if not isinstance(obj, Tensor) else obj.detach().clone().to(dtype=dtype or obj.dtype,
                                                                       device=device or obj.device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and isinstance(obj, (list, tuple)):
            raise ValueError("can't alias a Python sequence without a copy")
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


def _shape_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (builtins.int, np.integer)):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in size)}]")
        out.append(builtins.int(s))
    return tuple(out)


def _fill(fn, size, dtype, device, requires_grad, **kw):
    xp, d = _xp(device)
    dt = dtype or D._default_dtype
    t = wrap(fn(xp, _shape_args(size), dt._np, **kw))
    return _finish(t, requires_grad)


@register(method=False)
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """A tensor of zeros of shape ``size`` (varargs or a tuple).

    Example::

        >>> ember.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    return _fill(lambda xp, s, dt: xp.zeros(s, dt), size, dtype, device, requires_grad)


@register(method=False)
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    """A tensor of ones of shape ``size``.

    Example::

        >>> ember.ones(2)
        tensor([1., 1.])
    """
    return _fill(lambda xp, s, dt: xp.ones(s, dt), size, dtype, device, requires_grad)


@register(method=False)
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """An uninitialised tensor of shape ``size``.

    NOTE: unlike PyTorch the memory is zero-filled (NumPy gives no cheaper fresh memory
    that is safe to print).
    """
    t = _fill(lambda xp, s, dt: xp.zeros(s, dt), size, dtype, device, requires_grad)
    if memory_format is not None:
        t = t.contiguous(memory_format=memory_format)
    return t


@register(method=False)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of shape ``size`` filled with ``fill_value``; the dtype is inferred from
    the value (bool, int64, default float, complex) unless given.

    Example::

        >>> ember.full((2, 2), 7)
        tensor([[7, 7],
                [7, 7]])
    """
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = dtype or D._scalar_dtype(fill_value)
    return _fill(lambda xp, s, d: xp.full(s, fill_value, d), (tuple(size),), dt, device, requires_grad)


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
        if not a.flags.c_contiguous and a.ndim > 1 and not _has_overlap(a):
            t = t.as_strided_like(input) if False else _restride_like(t, input)
    elif str(memory_format) != 'torch.contiguous_format':
        t = t.contiguous(memory_format=memory_format)
    return _finish(t, requires_grad)


def _has_overlap(a):
    return any(s == 0 for s, n in zip(a.strides, a.shape) if n > 1)


def _restride_like(t, like):
    """``t``'s values laid out with ``like``'s stride order (dense, non-overlapping)."""
    a = like._data
    order = sorted(range(a.ndim), key=lambda i: -abs(a.strides[i]))
    xp = array_module(t._data)
    arr = xp.ascontiguousarray(t._data.transpose(order))
    inv = np.argsort(order)
    return wrap(arr.transpose(inv))


@register(method=False)
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros with the shape (and by default dtype and device) of ``input``."""
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), memory_format)


@register(method=False)
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones with the shape (and by default dtype and device) of ``input``."""
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.ones(s, d), memory_format)


@register(method=False)
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """An uninitialised tensor like ``input`` (zero-filled; see :func:`empty`)."""
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), memory_format)


@register(method=False)
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with the shape (and by default dtype) of ``input``."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like(input, dtype, device, requires_grad, lambda xp, s, d: xp.full(s, fill_value, d),
                 memory_format)


@register(method=False)
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 when all
    arguments are integers, else the default float dtype.

    Example::

        >>> ember.arange(1, 4)
        tensor([1, 2, 3])
    """
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (builtins.int, np.integer)) and not isinstance(v, builtins.bool)
                               for v in vals) else D._default_dtype
    xp, d = _xp(device)
    import math
    n = builtins.max(math.ceil((end - start) / step), 0)
    if dtype.is_floating_point:
        arr = (start + xp.arange(n, dtype=np.float64) * step).astype(dtype._np)
    else:
        arr = xp.arange(start, start + n * step, step)[:n].astype(dtype._np)
    return _finish(wrap(arr), requires_grad)


# ------------------------------------------------------------------ clone / contiguous / to / copy_
class CloneBackward0(Node):
    def backward(self, g):
        return g


@register()
def clone(input, *, memory_format=None):
    """A copy with its own memory, recorded by autograd (``CloneBackward0``); keeps the
    stride layout of dense inputs (``preserve_format``)."""
    a = input._data
    if a.flags.c_contiguous or a.ndim < 2 or _has_overlap(a):
        out = wrap(a.copy())
    elif a.flags.f_contiguous:
        out = wrap(a.copy(order='F'))
    else:
        out = _restride_like(wrap(a), input)
        if out._data is a:
            out = wrap(a.copy())
    if memory_format is not None and str(memory_format) not in ('torch.preserve_format',):
        out = out.contiguous(memory_format=memory_format) if str(memory_format) != 'torch.contiguous_format' \
            else (out if out._data.flags.c_contiguous else wrap(np.ascontiguousarray(out._data)))
    if grad_needed(input):
        record(out, CloneBackward0(), (input,))
    return out


@register(function=False)
def contiguous(self, memory_format=None):
    """Self if already contiguous (in ``memory_format``), else a contiguous copy."""
    from .. import _memory_format as mf
    if memory_format is None or memory_format is mf.contiguous_format:
        if self._data.flags.c_contiguous:
            return self
        xp = array_module(self._data)
        out = wrap(xp.ascontiguousarray(self._data))
        if grad_needed(self):
            record(out, CloneBackward0(), (self,))
        return out
    return mf._to_format(self, memory_format)


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
        arr = arr.astype(dtype._np)
    elif arr is a:
        arr = a.copy()
    out = wrap(arr)
    if grad_needed(input) and (dtype is None or dtype._cat >= 2):
        node = ToCopyBackward0()
        node.src = (src_dt, src_dev)
        record(out, node, (input,))
    return out


@register(function=False)
def to(self, *args, **kwargs):
    """Convert dtype and/or device: ``to(dtype)``, ``to(device, dtype=None)``,
    ``to(other)``, with ``non_blocking=``, ``copy=``, ``memory_format=``.
    Returns self when nothing changes."""
    dtype = kwargs.pop('dtype', None)
    device = kwargs.pop('device', None)
    copy = kwargs.pop('copy', False)
    memory_format = kwargs.pop('memory_format', None)
    kwargs.pop('non_blocking', None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword arguments {', '.join(kwargs)}")
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _device, builtins.int)):
            device = _dev(a) if not isinstance(a, builtins.int) else _device('cuda', a)
        elif isinstance(a, builtins.bool):
            copy = a
        elif a is None:
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
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
        return None, (g.to(self.src_dtype) if g.dtype is not self.src_dtype else g)


def _copy_out(self, src):
    """Out-of-place value of ``self.copy_(src)``: ``src`` cast and broadcast to self."""
    a = src._data
    dst = self._data
    if device_of(a) != device_of(dst):
        a = to_device(a, device_of(dst))
    if a.dtype != dst.dtype:
        if a.dtype.kind == 'c' and dst.dtype.kind != 'c':
            a = a.real
        a = a.astype(dst.dtype)
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
    """Copy ``src``'s values into self (casting dtype, broadcasting); returns self."""
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
    try:
        dst[...] = a
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({dst.shape[-1] if dst.ndim else 1}) must "
                           f"match the size of tensor b ({a.shape[-1] if a.ndim else 1}) at "
                           f"non-singleton dimension {dst.ndim - 1}") from None
    self._storage_obj()._version += 1
    return self


def _method_cast(dt):
    def f(self, memory_format=None):
        out = _cast(self, dt)
        return out.contiguous(memory_format=memory_format) if memory_format is not None else out
    f.__name__ = dt._name
    f.__doc__ = f"``self.to(ember.{dt._name})``."
    return f


for _n, _d in (('float', D.float32), ('double', D.float64), ('half', D.float16),
               ('bfloat16', D.bfloat16), ('long', D.int64), ('int', D.int32),
               ('short', D.int16), ('char', D.int8), ('byte', D.uint8), ('bool', D.bool),
               ('cfloat', D.complex64), ('cdouble', D.complex128)):
    register(_n, function=False)(_method_cast(_d))


@register(function=False)
def cpu(self, memory_format=None):
    """A copy in CPU memory (self if already there)."""
    return _cast(self, device=CPU)


@register(function=False)
def cuda(self, device=None, non_blocking=False, memory_format=None):
    """A copy in CUDA memory (raises without a GPU)."""
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
    """With no argument, the type name (``'torch.FloatTensor'``); else a cast to
    ``dtype`` (a dtype or a type name)."""
    if dtype is None:
        name = _TYPE_NAMES[self.dtype]
        return name if self.device.type == 'cpu' else name.replace('torch.', 'torch.cuda.')
    if isinstance(dtype, str):
        dtype = _LEGACY_TYPES[dtype.replace('.cuda', '')]
    elif isinstance(dtype, type) and hasattr(dtype, '_legacy_dtype'):
        dtype = dtype._legacy_dtype
    return _cast(self, dtype)


@register(function=False)
def type_as(self, other):
    """``self.type(other.type())``."""
    return _cast(self, other.dtype, other.device)


# ------------------------------------------------------------------ new_* methods
@register(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor with ``data`` and (by default) self's dtype and device."""
    if isinstance(data, Tensor):
        data = data.detach()
    t = wrap(_array_from_data(data, dtype or self.dtype, device or self.device))
    return _finish(t, requires_grad)


def _new_factory(fn):
    def m(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        return fn(*size, dtype=dtype or self.dtype, device=device or self.device,
                  requires_grad=requires_grad, **kw)
    m.__name__ = 'new_' + fn.__name__
    m.__doc__ = f"``ember.{fn.__name__}`` with self's dtype and device by default."
    return m


register('new_zeros', function=False)(_new_factory(zeros))
register('new_ones', function=False)(_new_factory(ones))
register('new_empty', function=False)(_new_factory(empty))


@register(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``ember.full`` with self's dtype and device by default."""
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)
