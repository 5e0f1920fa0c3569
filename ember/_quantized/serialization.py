"""Quantized tensors in PyTorch's checkpoint format (used by :mod:`ember.serialization`).

``torch.save`` writes a quantized tensor as a call of ``torch._utils._rebuild_qtensor``::

    _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params,
                     requires_grad, backward_hooks)

with the integers in a quantized storage (``torch.QInt8Storage``, ``torch.QUInt8Storage``,
``torch.QInt32Storage``) and ``quantizer_params`` either ``(torch.per_tensor_affine, scale,
zero_point)`` or ``(torch.per_channel_affine, scales, zero_points, axis)`` (a
``per_channel_affine_float_qparams`` tensor is written under ``per_channel_affine`` too: its
float zero points say which it is). ``ember.save`` writes the same; ``ember.load`` maps the
name to :func:`_rebuild_qtensor` here, which checks every argument before it makes anything:
the integers' view lies inside the storage's bytes (``serialization._make_tensor``), the
scheme is one PyTorch saves, per-channel parameters have one value a channel, zero points lie
in the dtype's range, and (``weights_only``) the per-channel arrays it makes are charged to
the load's budget, so a crafted file runs nothing and allocates nothing beyond what it holds.
"""
import collections

import numpy as np

from .. import _dtype as D
from .. import _backend
from .. import serialization as S
from .._device import CPU as _CPU
from .._tensor import Tensor, _new_tensor
from .tensor import _make

_QINT_OF = {D.qint8: D.int8, D.quint8: D.uint8, D.qint32: D.int32}   # the integers' dtype
_REAL_DTYPES = frozenset(d for d in D._BY_NAME.values() if not d.is_complex)
_bad, _short = S._bad, S._short


def _is_quantized(t):
    return getattr(type(t), 'is_quantized', False) is True


# ---------------------------------------------------------------------------- saving
def _reduce_qtensor(pickler, t):
    """The reduce value of quantized tensor ``t`` in a checkpoint (``pickler`` is
    ``serialization._Pickler``, which numbers the storages)."""
    ints = _new_tensor(t._data.view(np.ndarray))     # the same memory, of t's dtype
    ints._st = t._storage_obj()
    st, dt, off, size, stride = S._layout(ints)
    ref = pickler._ref(st, dt)
    qp = t._qp
    if len(qp) == 3:
        qparams = (D.per_tensor_affine, qp[1], qp[2])
    else:
        qparams = (D.per_channel_affine, qp[1], qp[2], qp[3])
    args = (ref, off, tuple(size), stride, qparams, False, collections.OrderedDict())
    state = {k: v for k, v in (S._obj_state(t) or {}).items() if k != '_qp'}
    if not state:
        return (_rebuild_qtensor, args)
    return (S._rebuild_from_type_v2, (_rebuild_qtensor, Tensor, args, state))


# ---------------------------------------------------------------------------- loading
def _check_scale(scale):
    """A per-tensor scale as a Python float: any real number (PyTorch loads non-positive and
    non-finite scales too)."""
    if type(scale) not in (float, int, bool):
        raise _bad(f"_rebuild_qtensor: scale must be a float, but got {_short(scale)}")
    try:
        return float(scale)
    except OverflowError:
        raise _bad(f"_rebuild_qtensor: scale {_short(scale)} is out of range for a float") from None


def _check_zp_range(lo, hi, qdtype):
    if hi > qdtype._qmax:
        raise _bad(f"_rebuild_qtensor: zero_point {_short(hi)} is above upper bound "
                   f"({qdtype._qmax} for {qdtype})")
    if lo < qdtype._qmin:
        raise _bad(f"_rebuild_qtensor: zero_point {_short(lo)} is below lower bound "
                   f"({qdtype._qmin} for {qdtype})")


def _check_zero_point(zp, qdtype):
    if type(zp) is not int:
        raise _bad(f"_rebuild_qtensor: zero_point must be an int, but got {_short(zp)}")
    _check_zp_range(zp, zp, qdtype)
    return zp


def _check_channel_values(x, n, what):
    """Checks per-channel scales or zero points ``x``: a 1-D real tensor, or a list of
    numbers (as PyTorch also accepts). False when there are not ``n`` of them."""
    if type(x) is list:
        for v in x:
            if type(v) not in (float, int, bool):
                raise _bad(f"_rebuild_qtensor: per-channel {what} must be numbers, but got "
                           f"{_short(v)}")
        return len(x) == n
    if not isinstance(x, Tensor) or _is_quantized(x) or x.dtype not in _REAL_DTYPES:
        raise _bad(f"_rebuild_qtensor: per-channel {what} must be a real tensor or a list, but "
                   f"got {_short(x) if not isinstance(x, Tensor) else x.dtype}")
    if x.numel() != n:
        return False
    if x.dim() != 1:
        raise _bad(f"_rebuild_qtensor: {'scale' if what == 'scales' else 'zero_points'} tensor "
                   f"must have dimension 1 (got {x.dim()})")
    if what == 'scales' and not x.dtype.is_floating_point:
        raise _bad(f"_rebuild_qtensor: scale tensor must be floating point (got {x.dtype})")
    return True


def _channel_array(x, dt, what):
    """A new host array of dtype ``dt`` holding the checked per-channel values ``x``. In the
    legacy format, whose storages are read after the pickle, it is filled once they are."""
    if type(x) is list:
        try:
            return np.array(x, dtype=dt)
        except (OverflowError, ValueError):
            raise _bad(f"_rebuild_qtensor: per-channel {what} {_short(x)} can't be held as "
                       f"{np.dtype(dt).name}") from None
    a = x._data
    # host memory (the strict check backend's arrays too) is read in place: in the legacy
    # format it is filled later; a device array is copied to the host
    a = a.view(np.ndarray) if isinstance(a, np.ndarray) else a.get()
    out = np.empty(a.shape, dt)
    deferred = S._LOAD_SCOPE.deferred
    if deferred is not None:
        deferred.append((a, out, False, False))
    else:
        out[...] = a
    return out


def _cpu_tensor(arr):
    if _backend._cpu_module is not np:    # the strict check backend
        arr = _backend.to_device(arr, _CPU)
    return _new_tensor(arr)


def _check_qparams(qp, qdtype, size, charge):
    """The quantizer of a loaded quantized tensor, checked: ``(qscheme, scale, zero_point)``
    per tensor, ``(qscheme, scales, zero_points, axis)`` per channel (the scheme follows the
    zero points' kind, as in PyTorch: float zero points give
    ``per_channel_affine_float_qparams``). Returns ember's quantizer tuple."""
    if type(qp) not in (tuple, list) or not qp:
        raise _bad(f"_rebuild_qtensor: quantizer_params must be a tuple, but got {_short(qp)}")
    scheme = qp[0]
    if scheme is D.per_tensor_affine:
        if len(qp) != 3:
            raise _bad(f"_rebuild_qtensor: per_tensor_affine quantizer_params are (qscheme, "
                       f"scale, zero_point), but got {len(qp)} items")
        return (scheme, _check_scale(qp[1]), _check_zero_point(qp[2], qdtype))
    if scheme is not D.per_channel_affine and scheme is not D.per_channel_affine_float_qparams:
        name = repr(scheme) if isinstance(scheme, D.qscheme) else _short(scheme)
        raise _bad(f"Can't deserialize quantized tensor with qscheme {name}")
    if len(qp) != 4:
        raise _bad(f"_rebuild_qtensor: per-channel quantizer_params are (qscheme, scales, "
                   f"zero_points, axis), but got {len(qp)} items")
    _, scales, zps, axis = qp
    if type(axis) is not int or not 0 <= axis < len(size):
        raise _bad(f"_rebuild_qtensor: per_channel axis {_short(axis)} out of range for size "
                   f"{tuple(size)}")
    if (type(scales) is list) != (type(zps) is list):
        raise _bad("_rebuild_qtensor: per-channel scales and zero_points must both be tensors "
                   "or both lists")
    n = size[axis]
    if not (_check_channel_values(scales, n, 'scales') & _check_channel_values(zps, n, 'zero_points')):
        def ln(x):
            return len(x) if type(x) is list else x.numel()
        raise _bad(f"_rebuild_qtensor: per_channel scales/zero_points length must equal "
                   f"size[axis]={n}, got scales={ln(scales)}, zero_points={ln(zps)}")
    if charge is not None:
        charge(n // 2)       # the two arrays made below: 16 bytes a channel
    fq = scheme is D.per_channel_affine_float_qparams if type(zps) is list else \
        zps.dtype.is_floating_point
    if fq:
        return (D.per_channel_affine_float_qparams,
                _cpu_tensor(_channel_array(scales, np.float32, 'scales')),
                _cpu_tensor(_channel_array(zps, np.float32, 'zero_points')), axis)
    s = _channel_array(scales, np.float64, 'scales')
    z = _channel_array(zps, np.int64, 'zero_points')
    if n:
        def check():
            _check_zp_range(int(z.min()), int(z.max()), qdtype)
        deferred = S._LOAD_SCOPE.deferred
        if deferred is not None and type(zps) is not list:
            deferred.append(check)       # once the legacy file's storages are read
        else:
            check()
    return (D.per_channel_affine, _cpu_tensor(s), _cpu_tensor(z), axis)


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad,
                     backward_hooks, *, _charge=None):
    """Rebuilds a quantized tensor (``torch._utils._rebuild_qtensor``): its integers viewed
    in a quantized storage (``torch.QInt8Storage``...) and its quantizer. Every argument is
    checked before anything is made: the view lies inside the storage's bytes, the scheme is
    one PyTorch saves, per-channel parameters have one value a channel.

    NOTE: unlike PyTorch, a zero point outside the dtype's range is refused on load (PyTorch
    loads it and raises when the tensor is dequantized), and ``quint4x2`` / ``quint2x4``
    tensors (packed sub-byte values) can't be loaded yet."""
    st, dt = S._split_storage(storage)
    if not isinstance(dt, D._QDtype):
        raise _bad(f"_rebuild_qtensor: Creation of quantized tensor requires quantized dtype "
                   f"like torch.quint8 (the storage holds {dt})")
    if dt not in _QINT_OF:
        raise _bad(f"_rebuild_qtensor: NOTE: unlike PyTorch, ember can't load {dt} tensors yet "
                   "(PyTorch packs their values into bytes)")
    S._check_hooks(backward_hooks)
    if type(requires_grad) not in (bool, int) or requires_grad not in (0, 1):
        raise _bad(f"requires_grad must be a bool, but got {_short(requires_grad)}")
    if requires_grad:
        raise _bad("_rebuild_qtensor: only Tensors of floating point and complex dtype can "
                   "require gradients (got requires_grad=True for a quantized tensor)")
    ints = S._make_tensor(st, _QINT_OF[dt], storage_offset, size, stride, False)  # checks the view
    if ints.device.type != 'cpu':
        raise _bad("_rebuild_qtensor: NOTE: unlike PyTorch, ember holds quantized tensors on the "
                   f"CPU only (this one maps to {ints.device})")
    qp = _check_qparams(quantizer_params, dt, tuple(size), _charge)
    return _make(ints._data, dt, qp, like=ints)


def _h_rebuild_qtensor(u, *args):
    """The ``weights_only`` unpickler's handler of ``_rebuild_qtensor`` (charges its steps)."""
    u.charge(S._REBUILD_STEPS)
    S._need(args, 7, 7, '_rebuild_qtensor')
    return _rebuild_qtensor(*args, _charge=u.charge)


def _keeps(ret, new_type):
    """For ``_rebuild_from_type_v2``: whether ``ret`` is a quantized tensor that stands as it
    is for ``new_type`` (``torch.Tensor``: ember's quantized tensors are of their own
    subclass). Refused for any other type (a quantized ``nn.Parameter``, which ember can't
    make)."""
    if not _is_quantized(ret):
        return False
    if new_type is not Tensor:
        raise _bad(f"_rebuild_from_type_v2: NOTE: unlike PyTorch, ember can't make a quantized "
                   f"tensor a {S._name_of(new_type)} (a quantized nn.Parameter, say)")
    return True
