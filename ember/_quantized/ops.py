"""The ops PyTorch defines on quantized tensors, and ``ember.ops.quantized``.

Two tables are filled here:

* ``_IMPL`` (of :mod:`ember._quantized.tensor`): what an ember function or ``Tensor`` method
  does when it meets a quantized tensor (``ember.relu(q)``, ``F.max_pool2d(q, 2)``,
  ``q.mean()``, ``q.fill_(0.5)``...).
* ``OPS``: the operators of ``torch.ops.quantized`` (``linear``, ``conv2d``, ``add``,
  ``hardswish``...), reachable as ``ember.ops.quantized.<name>``.

The integers are PyTorch 2.13's x86 CPU kernels', measured element for element against them
(``tests/_quantized/test_ops.py``):

* Kernels that compute on real values (``leaky_relu``, ``hardswish``, ``add``, ``sigmoid``,
  ``elu``...) run over the flattened tensor in vectors of 64 one-byte lanes (AVX-512), then
  one element at a time for the remainder, and the two paths round differently: a vector
  dequantizes with one fused multiply-add ``q * scale + (-zero_point * scale)`` and
  requantizes as ``rint(y * (1 / scale)) + zero_point``; the remainder dequantizes as
  ``(q - zero_point) * scale`` and requantizes as ``rint(y * (1 / scale) + zero_point)``
  (both in float32, rounding half to even). ``_requant_map`` reproduces both.
* ``mul`` multiplies the centred integers and requantizes with the float32 multiplier
  ``scale_a * scale_b * (1 / out_scale)``.
* Clamps (``relu``, ``hardtanh``, ``relu6``, ``clamp``) and the data-only ops (max pooling,
  nearest interpolation) work on the integers alone; averages (pooling, ``mean``, bilinear
  interpolation) average the centred integers and round half to even.

NOTE: unlike PyTorch, the element-wise kernels' vector/remainder split is the one of a single
thread over a contiguous tensor on an AVX-512 machine; PyTorch splits tensors of 32,768
elements or more among its threads, a machine without AVX-512 uses 32-lane vectors, and some
kernels walk a non-contiguous (e.g. transposed) input in another order, so a rounding tie in
those positions may come out one integer apart. Bilinear interpolation with
``align_corners=True`` may differ by one integer at rounding ties. Transposed convolutions
compute as PyTorch's fbgemm and qnnpack engines do; its x86 engine runs those without output
padding through oneDNN, whose integers differ. PyTorch's x86 engine also keeps, in a packed
convolution weight, the fused ReLU (or its absence) of the first call made with it; ember
applies what each call asks. ``linear_leaky_relu``, ``linear_tanh``, ``conv2d_add`` (oneDNN
only in PyTorch) and ``prelu`` are not provided.
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .._ops import int8_kernels as _K
from .tensor import (_IMPL, _make, _ints, _dequant_array, _round_per_tensor, _is_q, _not_impl,
                     _need_per_tensor, _ember)

__all__ = []

OPS = {}           # name -> the function of ember.ops.quantized.<name>

_F32 = np.float32
_VEC = 64          # one-byte lanes of an AVX-512 vector


def _op(*names):
    def reg(f):
        for n in names:
            OPS[n] = f
        return f
    return reg


def _impl(*names):
    def reg(f):
        for n in names:
            _IMPL[n] = f
        return f
    return reg


# ------------------------------------------------------------------ helpers
def _check_q(x, op):
    if not _is_q(x):
        dev = x.device.type if isinstance(x, Tensor) else 'cpu'
        raise _not_impl(op, 'CUDA' if dev == 'cuda' else 'CPU')
    return x


def _pt(q):
    """``(scale, zero_point)`` of a per-tensor quantized tensor."""
    _need_per_tensor(q)
    return q._qp[1], q._qp[2]


def _new(ints, qdtype, scale, zero_point):
    ints = np.asarray(ints).astype(qdtype._int, copy=False)
    if not ints.flags.c_contiguous:
        ints = ints.copy()
    return _make(ints, qdtype,
                 (D.per_tensor_affine, float(scale), int(zero_point)))


def _fma(a, b, c):
    """``fma(a, b, c)`` of float32 values rounded once to float32 (exact in float64 for the
    small magnitudes the quantized kernels use)."""
    return (np.asarray(a, np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(_F32)


def _vec_deq(ints, scale, zp):
    s = _F32(scale)
    return _fma(ints.astype(_F32), s, _F32(-zp) * s)


def _scalar_deq(ints, scale, zp):
    return (ints.astype(np.int32) - np.int32(zp)).astype(_F32) * _F32(scale)


def _vec_q(y, scale, zp, qdtype):
    inv = _F32(1) / _F32(scale)
    with np.errstate(invalid='ignore', over='ignore'):
        v = np.asarray(y, _F32) * inv
        r = np.rint(v).astype(np.float64)
        r[~(np.abs(v) < 2.0 ** 31)] = -2.0 ** 31          # the SIMD conversion's overflow
    return np.clip(r + zp, qdtype._qmin, qdtype._qmax).astype(qdtype._int)


def _scalar_q(y, scale, zp, qdtype):
    inv = _F32(1) / _F32(scale)
    with np.errstate(invalid='ignore', over='ignore'):
        v = np.rint(np.asarray(y, _F32) * inv + _F32(zp)).astype(np.float64)
    v[np.isnan(v)] = qdtype._qmax
    return np.clip(v, qdtype._qmin, qdtype._qmax).astype(qdtype._int)


def _requant_map(ints, in_q, fn, out_q, qdtype):
    """``fn`` (float32 array -> float32 array) applied to the real values of ``ints``
    (dequantized with ``in_q = (scale, zero_point)``) and quantized with ``out_q``, as
    PyTorch's vectorized x86 kernels do it: vectors of ``_VEC`` elements, then the rest one
    by one (see the module docstring)."""
    flat = np.ascontiguousarray(ints).reshape(-1)
    n = flat.size
    nv = n - n % _VEC if qdtype is not D.qint32 else 0
    out = np.empty(n, qdtype._int)
    if nv:
        out[:nv] = _vec_q(fn(_vec_deq(flat[:nv], *in_q)), *out_q, qdtype)
    if nv < n:
        out[nv:] = _scalar_q(fn(_scalar_deq(flat[nv:], *in_q)), *out_q, qdtype)
    return out.reshape(np.shape(ints))


def _map_q(q, fn, scale=None, zero_point=None):
    """A new quantized tensor: ``fn`` of ``q``'s values requantized (to ``q``'s own scale
    and zero point unless given)."""
    s, z = _pt(q)
    os_ = s if scale is None else float(scale)
    oz = z if zero_point is None else int(zero_point)
    return _new(_requant_map(_ints(q), (s, z), fn, (os_, oz), q.dtype), q.dtype, os_, oz)


def _inplace_ints(q, ints):
    """Write ``ints`` into ``q``'s integers (an in-place op) and return ``q``."""
    _ints(q)[...] = ints
    q._storage_obj()._version += 1
    return q


def _requant_int(acc, multiplier, zp, qdtype):
    """Integer accumulator ``acc`` requantized: ``rint(float32(acc) * multiplier) + zp``
    (float32 multiplier), clamped to ``qdtype``'s range."""
    r = np.rint(acc.astype(_F32) * _F32(multiplier)).astype(np.float64) + zp
    return np.clip(r, qdtype._qmin, qdtype._qmax).astype(qdtype._int)


def _scalar_quant(v, scale, zp, qdtype):
    """One float quantized as PyTorch's scalar ``quantize_val``."""
    return int(_scalar_q(np.array([v], _F32), scale, zp, qdtype)[0])


# ------------------------------------------------------------------ activations
@_impl('relu')
def _relu(input, inplace=False):
    _check_q(input, 'relu')
    _, zp = _pt(input)
    r = np.maximum(_ints(input), zp).astype(input.dtype._int)
    if inplace:
        return _inplace_ints(input, r)
    return _make(r, input.dtype, input._qp)


@_impl('relu_')
def _relu_(input):
    return _relu(input, inplace=True)


def _clamp_ints(q, lo, hi, inplace=False):
    s, z = _pt(q)
    a = _ints(q)
    r = a
    if lo is not None:
        r = np.maximum(r, _scalar_quant(lo, s, z, q.dtype))
    if hi is not None:
        r = np.minimum(r, _scalar_quant(hi, s, z, q.dtype))
    r = np.asarray(r).astype(q.dtype._int)
    if inplace:
        return _inplace_ints(q, r)
    return _new(r, q.dtype, s, z)


@_impl('hardtanh')
def _hardtanh(input, min_val=-1., max_val=1., inplace=False):
    _check_q(input, 'hardtanh')
    return _clamp_ints(input, min_val, max_val, inplace)


@_impl('hardtanh_')
def _hardtanh_(input, min_val=-1., max_val=1.):
    return _hardtanh(input, min_val, max_val, True)


@_impl('relu6')
def _relu6(input, inplace=False):
    _check_q(input, 'relu6')
    return _clamp_ints(input, 0.0, 6.0, inplace)


def _num(v):
    if isinstance(v, Tensor):
        if _is_q(v):
            raise _not_impl('clamp')
        return float(v.item())
    return v


@_impl('clamp', 'clip')
def _clamp(input, min=None, max=None, *, out=None):
    _check_q(input, 'clamp')
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return _clamp_ints(input, _num(min), _num(max))


@_impl('clamp_', 'clip_')
def _clamp_(input, min=None, max=None):
    _check_q(input, 'clamp_')
    raise RuntimeError(f"promoteTypes with quantized numbers is not handled yet; figure out "
                       f"what the correct rules should be, offending types: "
                       f"{D._scalar_name(input.dtype)} Float")


@_impl('leaky_relu')
def _leaky_relu(input, negative_slope=0.01, inplace=False):
    _check_q(input, 'leaky_relu')
    n = _F32(negative_slope)
    r = _map_q(input, lambda x: np.where(x > 0, x, x * n))
    if inplace:
        return _inplace_ints(input, _ints(r))
    return r


@_impl('leaky_relu_')
def _leaky_relu_(input, negative_slope=0.01):
    return _leaky_relu(input, negative_slope, True)


def _sigmoid_f(x):
    with np.errstate(over='ignore'):
        return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(_F32)


# (scale, zero point) of the fixed-range outputs, per dtype
_FIXED = {
    'sigmoid': {D.quint8: (1 / 256, 0), D.qint8: (1 / 256, -128)},
    'hardsigmoid': {D.quint8: (1 / 256, 0), D.qint8: (1 / 256, -128)},
    'tanh': {D.quint8: (2 / 256, 128), D.qint8: (2 / 256, 0)},
}


def _fixed(name, fn):
    def impl(input, *args, **kwargs):
        _check_q(input, name)
        qp = _FIXED[name].get(input.dtype)
        if qp is None:
            raise _not_impl(name)
        r = _map_q(input, fn, *qp)
        if kwargs.get('inplace') or (args and args[0] is True):
            return _inplace_ints(input, _ints(r))
        return r
    impl.__name__ = name
    return impl


_IMPL['sigmoid'] = _fixed('sigmoid', _sigmoid_f)
_IMPL['tanh'] = _fixed('tanh', lambda x: np.tanh(x.astype(np.float64)).astype(_F32))
_IMPL['hardsigmoid'] = _fixed('hardsigmoid', lambda x: np.clip(
    x / _F32(6) + _F32(0.5), 0, 1).astype(_F32))


def _hardswish_f(x):
    return x * np.minimum(np.maximum(x + _F32(3), _F32(0)), _F32(6)) / _F32(6)


def _elu_f(alpha, scale=1.0, input_scale=1.0):
    a, s, i = float(alpha), float(scale), float(input_scale)

    def f(x):
        neg = (np.expm1(x.astype(np.float64) * i) * a).astype(_F32)
        return (np.where(x > 0, x, neg) * _F32(s)).astype(_F32)
    return f


def _gelu_f(approximate='none'):
    def f(x):
        x64 = x.astype(np.float64)
        if approximate == 'tanh':
            y = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
        else:
            from .._ops._special import erf
            y = 0.5 * x64 * (1 + erf(x64 / math.sqrt(2)))
        return y.astype(_F32)
    return f


@_impl('gelu')
def _gelu(input, approximate='none'):
    _check_q(input, 'gelu')
    # PyTorch's output scale is the input's rounded to float32
    return _map_q(input, _gelu_f(approximate), float(_F32(input._qp[1])))


@_impl('threshold')
def _threshold(input, threshold, value, inplace=False):
    _check_q(input, 'threshold')
    t, v = _F32(threshold), _F32(value)
    r = _map_q(input, lambda x: np.where(x > t, x, v).astype(_F32))
    if inplace:
        return _inplace_ints(input, _ints(r))
    return r


@_impl('dropout', 'alpha_dropout', 'feature_alpha_dropout', 'dropout1d', 'dropout2d',
       'dropout3d')
def _dropout(input, p=0.5, training=True, inplace=False):
    _check_q(input, 'dropout')
    if training and p > 0:
        raise _not_impl('bernoulli_.float')
    return input


# ------------------------------------------------------------------ pooling / averages
def _float_of(q, centred=False):
    """The integers of ``q`` as a plain float ember tensor, minus the zero point if
    ``centred``: float64 for averages (exact sums), float32 for the data-only ops on 8-bit
    integers (exact values, half the memory)."""
    small = not centred and q.dtype._int.itemsize == 1
    a = _ints(q).astype(np.float32 if small else np.float64)
    if centred:
        a = a - q._qp[2]
    return _ember().as_tensor(a)


def _back(f, q, centred=False):
    """Float result ``f`` of an average over ``q``'s integers, rounded half to even,
    as a quantized tensor with ``q``'s parameters."""
    s, z = _pt(q)
    a = np.asarray(f._data, np.float64)
    if centred:
        a = a + z           # rounded on the integers' own scale, as PyTorch
    a = np.rint(a)
    return _new(np.clip(a, q.dtype._qmin, q.dtype._qmax), q.dtype, s, z)


def _exact_back(f, q):
    s, z = _pt(q)
    return _new(np.asarray(f._data).astype(q.dtype._int), q.dtype, s, z)


def _pool(name, centred):
    """The quantized form of pooling function ``name`` of ``ember.nn.functional``: it runs
    on the integers (exact in float64); an average (``centred``) is taken of the integers
    minus the zero point (padding counts as the real value 0) and rounded half to even."""
    def impl(input, *args, **kwargs):
        _check_q(input, name)
        _pt(input)
        if kwargs.get('return_indices') or (name.startswith('max') and len(args) > 5
                                             and args[5]):
            raise _not_impl(f'{name}_with_indices')
        r = getattr(_ember().nn.functional, name)(_float_of(input, centred), *args, **kwargs)
        return _back(r, input, True) if centred else _exact_back(r, input)
    impl.__name__ = name
    return impl


for _n in ('max_pool1d', 'max_pool2d', 'max_pool3d', 'adaptive_max_pool1d',
           'adaptive_max_pool2d'):
    _IMPL[_n] = _pool(_n, False)
for _n in ('avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'adaptive_avg_pool1d',
           'adaptive_avg_pool2d', 'adaptive_avg_pool3d'):
    _IMPL[_n] = _pool(_n, True)


@_impl('mean')
def _mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_q(input, 'mean')
    f = _float_of(input, True)
    r = f.mean() if dim is None else f.mean(dim, keepdim)
    return _back(r, input, True)


@_impl('interpolate', 'upsample', 'upsample_nearest', 'upsample_bilinear')
def _interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
                 recompute_scale_factor=None, antialias=False):
    _check_q(input, 'upsample_nearest2d')
    F = _ember().nn.functional
    _pt(input)
    if mode in ('nearest', 'nearest-exact'):
        r = F.interpolate(_float_of(input), size, scale_factor, mode, None,
                          recompute_scale_factor)
        return _exact_back(r, input)
    if mode == 'bilinear' and not antialias:
        r = F.interpolate(_float_of(input, True), size, scale_factor, mode, align_corners,
                          recompute_scale_factor)
        return _back(r, input, True)
    raise _not_impl(f'upsample_{mode}{input.dim() - 2}d')


def _upsample_nearest(input, size=None, scale_factor=None):
    return _interpolate(input, size, scale_factor, 'nearest')


def _upsample_bilinear(input, size=None, scale_factor=None):
    return _interpolate(input, size, scale_factor, 'bilinear', True)


_IMPL['upsample_nearest'] = _upsample_nearest
_IMPL['upsample_bilinear'] = _upsample_bilinear


@_impl('pad')
def _pad(input, pad, mode='constant', value=None):
    """Padding a quantized tensor: constant (the value quantized with the tensor's scale
    and zero point) or reflect, on the integers."""
    _check_q(input, 'constant_pad_nd')
    s, z = _pt(input)
    F = _ember().nn.functional
    if mode == 'constant':
        fill = z if value is None else _scalar_quant(value, s, z, input.dtype)
        r = F.pad(_float_of(input), pad, 'constant', float(fill))
    elif mode == 'reflect':
        r = F.pad(_float_of(input), pad, 'reflect')
    elif mode == 'replicate':
        raise _not_impl(f'replication_pad{len(pad) // 2}d.out')
    else:
        raise _not_impl(f'{mode}_pad')
    return _exact_back(r, input)


def _order(name):
    """The quantized form of an ordering op (``sort``, ``topk``, ``max``, ``min``,
    ``argsort``): it runs on the integers (exactly, as float64), the values keep the
    tensor's scale and zero point."""
    def impl(input, *args, **kwargs):
        _check_q(input, name)
        _pt(input)
        r = getattr(_ember(), name)(_float_of(input), *args, **kwargs)
        if name == 'argsort':
            return r
        if isinstance(r, Tensor):
            return _exact_back(r, input)
        return type(r)((_exact_back(r[0], input), r[1]))
    impl.__name__ = name
    return impl


for _n in ('sort', 'topk', 'max', 'min', 'argsort', 'msort'):
    _IMPL[_n] = _order(_n)


def _refuse(name):
    def impl(*args, **kwargs):
        raise _not_impl(name)
    return impl


_IMPL['amax'] = _refuse('amax.out')
_IMPL['amin'] = _refuse('amin.out')


# ------------------------------------------------------------------ writes and comparisons
def _quantize_into(q, value):
    """Integers of ``value`` (a number or float tensor) quantized with ``q``'s parameters;
    a quantized ``value`` gives its own integers."""
    if _is_q(value):
        return _ints(value)
    s, z = _pt(q)
    if isinstance(value, Tensor):
        arr = np.asarray(value.detach().float()._data, _F32)
    else:
        arr = np.array(value, _F32)
    return _round_per_tensor(arr, s, z, q.dtype)


@_impl('fill_')
def _fill_(self, value):
    _check_q(self, 'fill_')
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                           f"with {value.dim()} dimensions.")
    return _inplace_ints(self, _quantize_into(self, value))


@_impl('copy_')
def _copy_(self, src, non_blocking=False):
    if not _is_q(self):
        if _is_q(src):
            raise RuntimeError("Copying from quantized Tensor to non-quantized Tensor is not "
                               "allowed, please use dequantize to get a float Tensor from a "
                               "quantized Tensor")
        raise _not_impl('copy_')
    if _is_q(src):
        if src.dtype is not self.dtype:
            raise RuntimeError("Quantized Copy only works with same qtype and same Tensor "
                               "sizes")
        _ints(self)[...] = np.broadcast_to(_ints(src), self.shape)
        self._qp = src._qp
        self._storage_obj()._version += 1
        return self
    if src.dtype is not D.float32:
        raise RuntimeError("Quantized copy only works with kFloat as source Tensor")
    if tuple(src.shape) != tuple(self.shape):
        raise RuntimeError("Quantized copy only works with same qtype and same Tensor sizes")
    return _inplace_ints(self, _quantize_into(self, src))


@_impl('setitem')
def _setitem(self, index, value):
    _check_q(self, 'index_put_')
    plain = _ember().as_tensor(_ints(self))
    ints = _quantize_into(self, value)
    plain[index] = _ember().as_tensor(np.asarray(ints))
    self._storage_obj()._version += 1


def _values(x):
    return _dequant_array(x) if _is_q(x) else (
        np.asarray(x._data) if isinstance(x, Tensor) else x)


def _compare(name, ufunc):
    def impl(input, other, *, out=None):
        a, b = _values(input), _values(other)
        return _ember().as_tensor(np.asarray(ufunc(a, b)))
    impl.__name__ = name
    return impl


for _n, _u in (('eq', np.equal), ('ne', np.not_equal), ('lt', np.less), ('le', np.less_equal),
               ('gt', np.greater), ('ge', np.greater_equal)):
    _IMPL[_n] = _compare(_n, _u)
_IMPL['_dunder_eq'] = _IMPL['eq']
_IMPL['_dunder_ne'] = _IMPL['ne']
_IMPL['not_equal'] = _IMPL['ne']
_IMPL['greater'], _IMPL['less'] = _IMPL['gt'], _IMPL['lt']


@_impl('equal')
def _equal(input, other):
    if not (_is_q(input) and _is_q(other)):
        return False
    if input.dtype is not other.dtype or tuple(input.shape) != tuple(other.shape):
        return False
    qa, qb = input._qp, other._qp
    if len(qa) != len(qb) or qa[0] is not qb[0]:
        return False
    if len(qa) == 3:
        if qa[1:] != qb[1:]:
            return False
    elif qa[3] != qb[3] or not (np.array_equal(qa[1]._data, qb[1]._data)
                                and np.array_equal(qa[2]._data, qb[2]._data)):
        return False
    return bool(np.array_equal(_ints(input), _ints(other)))


# ------------------------------------------------------------------ element-wise binary ops
def _binary_check(qa, qb, op):
    _check_q(qa, op)
    if not _is_q(qb):
        raise _not_impl(op, 'CPU')
    if qa.dtype is not qb.dtype:
        raise RuntimeError(f"{op} operands should have same data type.")
    if len(qa._qp) != 3 or len(qb._qp) != 3:
        raise RuntimeError(f"Only per tensor quantization is supported in {op}.")
    if tuple(qa.shape) != tuple(qb.shape):
        ember = _ember()
        shape = ember.broadcast_shapes(qa.shape, qb.shape)
        return np.broadcast_to(_ints(qa), shape), np.broadcast_to(_ints(qb), shape)
    return _ints(qa), _ints(qb)


def _add_ints(qa, qb, scale, zero_point, relu=False, op='quantized::add'):
    a, b = _binary_check(qa, qb, op)
    sa, za = qa._qp[1:]
    sb, zb = qb._qp[1:]
    flat_a = np.ascontiguousarray(a).reshape(-1)
    flat_b = np.ascontiguousarray(b).reshape(-1)
    n = flat_a.size
    nv = n - n % _VEC
    out = np.empty(n, qa.dtype._int)
    if nv:
        y = _vec_deq(flat_a[:nv], sa, za) + _vec_deq(flat_b[:nv], sb, zb)
        out[:nv] = _vec_q(y, scale, zero_point, qa.dtype)
    if nv < n:
        y = _scalar_deq(flat_a[nv:], sa, za) + _scalar_deq(flat_b[nv:], sb, zb)
        out[nv:] = _scalar_q(y, scale, zero_point, qa.dtype)
    if relu:
        out = np.maximum(out, zero_point).astype(qa.dtype._int)
    return _new(out.reshape(a.shape), qa.dtype, scale, zero_point)


def _out_qparams(scale, zero_point):
    if isinstance(scale, Tensor):
        scale = scale.item()
    if isinstance(zero_point, Tensor):
        zero_point = zero_point.item()
    return float(scale), int(zero_point)


@_op('add')
def add(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.add``: the sum of two quantized tensors, quantized with
    ``scale`` and ``zero_point``.

    Args:
        qa (Tensor): quantized tensor.
        qb (Tensor): quantized tensor of the same dtype.
        scale (float): output scale.
        zero_point (int): output zero point.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.add(a, a, 0.2, 0).int_repr()
        tensor([10, 20], dtype=torch.uint8)
    """
    return _add_ints(qa, qb, *_out_qparams(scale, zero_point))


@_op('add_relu')
def add_relu(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.add_relu``: :func:`add` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.add_relu(a, a, 0.2, 10).int_repr()
        tensor([10, 30], dtype=torch.uint8)
    """
    return _add_ints(qa, qb, *_out_qparams(scale, zero_point), relu=True,
                     op='quantized::add_relu')


def _mul_ints(qa, qb, scale, zero_point, relu=False, op='quantized::mul'):
    a, b = _binary_check(qa, qb, op)
    sa, za = qa._qp[1:]
    sb, zb = qb._qp[1:]
    acc = (a.astype(np.int64) - za) * (b.astype(np.int64) - zb)
    r = _requant_int(acc, _F32(sa) * _F32(sb) * (_F32(1) / _F32(scale)), zero_point, qa.dtype)
    if relu:
        r = np.maximum(r, zero_point).astype(qa.dtype._int)
    return _new(r, qa.dtype, scale, zero_point)


@_op('mul')
def mul(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.mul``: the element-wise product of two quantized tensors,
    quantized with ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.mul(a, a, 0.5, 0).int_repr()
        tensor([2, 8], dtype=torch.uint8)
    """
    return _mul_ints(qa, qb, *_out_qparams(scale, zero_point))


@_op('mul_relu')
def mul_relu(qa, qb, scale, zero_point, *, out=None):
    """``torch.ops.quantized.mul_relu``: :func:`mul` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.mul_relu(a, a, 0.5, 0).int_repr()
        tensor([2, 8], dtype=torch.uint8)
    """
    return _mul_ints(qa, qb, *_out_qparams(scale, zero_point), relu=True,
                     op='quantized::mul_relu')


def _scalar_arg(other, op):
    if isinstance(other, Tensor):
        if other.numel() != 1:
            raise RuntimeError(f"{op}: only a Scalar (one-element tensor) is supported")
        return float(other.item())
    return float(other)


def _add_scalar(qa, other, relu=False):
    _check_q(qa, 'quantized::add_scalar')
    s, z = _pt(qa)
    c = _scalar_arg(other, 'quantized::add_scalar')
    lo, hi = qa.dtype._qmin, qa.dtype._qmax
    c_q = float(np.rint(c / s))
    shifted = z - c_q
    if shifted < lo:
        scale = (hi - shifted) / (hi - lo) * s
        zp = lo
    elif shifted > hi:
        scale = (shifted - lo) / (hi - lo) * s
        zp = hi
    else:
        zp = int(shifted)
        r = _ints(qa)
        if relu:
            r = np.maximum(r, zp)
        return _new(r.copy(), qa.dtype, s, zp)
    # the integers shifted by round(c / scale), requantized with scale / new scale
    acc = _ints(qa).astype(np.int64) - z + int(c_q)
    r = _requant_int(acc, _F32(s) * (_F32(1) / _F32(scale)), zp, qa.dtype)
    if relu:
        r = np.maximum(r, zp)
    return _new(r, qa.dtype, scale, zp)


@_op('add_scalar')
def add_scalar(qa, b, *, out=None):
    """``torch.ops.quantized.add_scalar``: a quantized tensor plus a number. The integers
    stay and the zero point moves by ``round(b / scale)`` while it fits the dtype's range;
    otherwise the range is widened (new scale) and the values requantized, as PyTorch.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.add_scalar(a, 0.5).q_zero_point()
        5
    """
    return _add_scalar(qa, b)


@_op('add_scalar_relu')
def add_scalar_relu(qa, b, *, out=None):
    """``torch.ops.quantized.add_scalar_relu``: :func:`add_scalar` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 20, ember.quint8)
        >>> ember.ops.quantized.add_scalar_relu(a, 0.5).int_repr()
        tensor([15, 40], dtype=torch.uint8)
    """
    return _add_scalar(qa, b, relu=True)


def _mul_scalar(qa, other, relu=False):
    _check_q(qa, 'quantized::mul_scalar')
    s, z = _pt(qa)
    c = _scalar_arg(other, 'quantized::mul_scalar')
    lo, hi = qa.dtype._qmin, qa.dtype._qmax
    a = _ints(qa)
    if c == 0.0:
        r = np.zeros(a.shape, qa.dtype._int)
        scale, zp = 1.0, 0
    elif c > 0:
        r, scale, zp = a.copy(), c * s, z
    else:
        r = (hi - (a.astype(np.int64) - lo)).astype(qa.dtype._int)
        scale, zp = abs(c) * s, hi - (z - lo)
    if relu:
        r = np.maximum(r, zp).astype(qa.dtype._int)
    return _new(r, qa.dtype, scale, zp)


@_op('mul_scalar')
def mul_scalar(qa, b, *, out=None):
    """``torch.ops.quantized.mul_scalar``: a quantized tensor times a number. The
    integers stay and the scale is multiplied (a negative number mirrors the integers in
    the dtype's range and the zero point with them; zero gives scale 1, zero point 0).

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.mul_scalar(a, 2.0).q_scale()
        0.2
    """
    return _mul_scalar(qa, b)


@_op('mul_scalar_relu')
def mul_scalar_relu(qa, b, *, out=None):
    """``torch.ops.quantized.mul_scalar_relu``: :func:`mul_scalar` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.mul_scalar_relu(a, 2.0).int_repr()
        tensor([10, 30], dtype=torch.uint8)
    """
    return _mul_scalar(qa, b, relu=True)


@_op('cat')
def cat(qx, dim, scale, zero_point):
    """``torch.ops.quantized.cat``: quantized tensors concatenated along ``dim`` and
    requantized to ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([1.0, 2.0]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.cat([a, a], 0, 0.2, 0).int_repr()
        tensor([ 5, 10,  5, 10], dtype=torch.uint8)
    """
    return _cat_q(qx, dim, scale, zero_point, False)


@_op('cat_relu')
def cat_relu(qx, dim, scale, zero_point):
    """``torch.ops.quantized.cat_relu``: :func:`cat` followed by ReLU.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.1, 20, ember.quint8)
        >>> ember.ops.quantized.cat_relu([a, a], 0, 0.1, 20).int_repr()
        tensor([20, 40, 20, 40], dtype=torch.uint8)
    """
    return _cat_q(qx, dim, scale, zero_point, True)


def _cat_q(qx, dim, scale, zero_point, relu):
    qx = list(qx)
    if not qx:
        raise RuntimeError("Expected a non-empty list of tensors")
    for t in qx:
        _check_q(t, 'quantized::cat')
        _pt(t)
        if t.dtype is not qx[0].dtype:
            raise RuntimeError("All dtypes must be the same.")
    scale, zero_point = _out_qparams(scale, zero_point)
    qdt = qx[0].dtype
    parts = []
    for t in qx:
        s, z = t._qp[1:]
        if (s, z) == (scale, zero_point):
            parts.append(_ints(t))
        else:
            parts.append(_round_per_tensor(_dequant_array(t), scale, zero_point, qdt))
    r = np.concatenate(parts, axis=dim % max(1, qx[0].dim()))
    if relu:
        r = np.maximum(r, zero_point).astype(qdt._int)
    return _new(r, qdt, scale, zero_point)


# ------------------------------------------------------------------ activation operators
@_op('relu6')
def relu6(qx, inplace=False):
    """``torch.ops.quantized.relu6``: ``clamp(x, 0, 6)`` on the integers (same scale and
    zero point).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 7.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.relu6(q).int_repr()
        tensor([10, 70], dtype=torch.uint8)
    """
    return _relu6(qx, inplace)


@_op('hardswish')
def hardswish(qx, output_scale, output_zero_point):
    """``torch.ops.quantized.hardswish``: ``x * relu6(x + 3) / 6`` of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.hardswish(q, 0.1, 10).int_repr()
        tensor([ 7, 17], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::hardswish')
    return _map_q(qx, _hardswish_f, *_out_qparams(output_scale, output_zero_point))


@_op('elu')
def elu(qx, output_scale, output_zero_point, alpha=1.0, scale=1.0, input_scale=1.0):
    """``torch.ops.quantized.elu``: ELU of the real values, quantized with
    ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.elu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::elu')
    return _map_q(qx, _elu_f(alpha, scale, input_scale),
                  *_out_qparams(output_scale, output_zero_point))


@_op('celu')
def celu(qx, output_scale, output_zero_point, alpha=1.0):
    """``torch.ops.quantized.celu``: CELU of the real values, requantized.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.celu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::celu')
    return _map_q(qx, _elu_f(alpha, 1.0, 1.0 / alpha),
                  *_out_qparams(output_scale, output_zero_point))


@_op('leaky_relu')
def leaky_relu(qx, negative_slope, inplace, output_scale, output_zero_point):
    """``torch.ops.quantized.leaky_relu``: leaky ReLU of the real values, quantized with
    ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.leaky_relu(q, 0.5, False, 0.1, 10).int_repr()
        tensor([ 5, 20], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::leaky_relu')
    n = _F32(negative_slope)
    r = _map_q(qx, lambda x: np.where(x > 0, x, x * n),
               *_out_qparams(output_scale, output_zero_point))
    return r


@_op('sigmoid')
def sigmoid(qx, output_scale, output_zero_point):
    """``torch.ops.quantized.sigmoid``: sigmoid of the real values, quantized with the
    given output parameters.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.0]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.sigmoid(q, 1 / 256, 0).int_repr()
        tensor([128], dtype=torch.uint8)
    """
    _check_q(qx, 'quantized::sigmoid')
    return _map_q(qx, _sigmoid_f, *_out_qparams(output_scale, output_zero_point))


@_op('threshold')
def threshold(qx, threshold, value):
    """``torch.ops.quantized.threshold``: values at or below ``threshold`` become
    ``value`` (same scale and zero point).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.5, 1.5]), 0.1, 0, ember.quint8)
        >>> ember.ops.quantized.threshold(q, 1.0, 0.0).int_repr()
        tensor([ 0, 15], dtype=torch.uint8)
    """
    return _threshold(qx, threshold, value)


# ------------------------------------------------------------------ packed weights
def _weight_parts(w):
    """int8 integers, scale(s) and zero point(s) of a quantized weight, as the kernels
    take them."""
    if len(w._qp) == 3:
        return _ints(w), float(_F32(w._qp[1])), int(w._qp[2])
    return (_ints(w), np.asarray(w._qp[1]._data, np.float64),
            np.asarray(w._qp[2]._data).astype(np.int64))


def _bias_array(bias):
    if bias is None:
        return None
    if not isinstance(bias, Tensor) or bias.dtype is not D.float32:
        raise RuntimeError("bias should be a float tensor (float32)")
    return np.asarray(bias.detach()._data, np.float32)


def _rounded_scale(w):
    """``w`` with its scale(s) rounded to float32, as PyTorch's linear packing keeps them."""
    if len(w._qp) == 3:
        return _make(_ints(w).copy(), w.dtype, (w._qp[0], float(_F32(w._qp[1])), w._qp[2]))
    E = _ember()
    s = E.tensor(np.asarray(w._qp[1]._data, np.float64).astype(_F32).astype(np.float64))
    return _make(_ints(w).copy(), w.dtype, (w._qp[0], s, w._qp[2], w._qp[3]))


def _engine():
    """The quantized engine whose kernels are reproduced (``ember.backends.quantized``)."""
    try:
        from .._ops.fake_quantize import QENGINE
        return QENGINE[0]
    except ImportError:
        return 'x86'


class LinearPackedParamsBase:
    """A linear layer's int8 weight and float bias prepared for the quantized kernels
    (``torch.classes.quantized.LinearPackedParamsBase``, made by
    ``ember.ops.quantized.linear_prepack``).

    Args:
        weight (Tensor): ``qint8`` weight ``(out_features, in_features)``, per tensor or
            per output channel.
        bias (Tensor, optional): float32 bias of ``out_features`` values.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.linear_prepack(w, None)
        >>> p.unpack()[0].shape
        torch.Size([2, 3])
    """

    def __init__(self, weight, bias=None):
        _check_q(weight, 'quantized::linear_prepack')
        if weight.dtype is not D.qint8:
            raise RuntimeError(f"expected scalar type QInt8 but found "
                               f"{D._scalar_name(weight.dtype)}")
        if weight.dim() != 2:
            raise RuntimeError("quantized::linear_prepack (fbgemm): Weight tensor rank should "
                               "be == 2")
        if len(weight._qp) == 4 and weight._qp[3] != 0:
            raise RuntimeError("quantized::linear_prepack: per-channel weights must be "
                               "quantized along axis 0")
        b = _bias_array(bias)
        if b is not None and (b.ndim != 1 or b.shape[0] != weight.shape[0]):
            raise RuntimeError(f"bias should be a vector (1D Tensor) of size "
                               f"{weight.shape[0]}")
        self._weight = _rounded_scale(weight)
        self._bias = None if bias is None else bias.detach()
        ints, s, z = _weight_parts(self._weight)
        self._packed = _K.PackedLinearWeight(ints, s, z, b)

    def unpack(self):
        """The ``(weight, bias)`` the parameters were packed from."""
        return self._weight, self._bias

    def __getstate__(self):
        return (self._weight, self._bias)

    def __setstate__(self, state):
        self.__init__(*state)

    def __repr__(self):
        return "<torch.ScriptObject object (LinearPackedParamsBase)>"


@_op('linear_prepack', 'linear_prepack_legacy')
def linear_prepack(W, B=None):
    """``torch.ops.quantized.linear_prepack``: pack a ``qint8`` weight and a float bias
    for :func:`linear` / :func:`linear_dynamic`.

    Args:
        W (Tensor): ``qint8`` weight ``(out_features, in_features)``.
        B (Tensor, optional): float32 bias.

    Returns:
        LinearPackedParamsBase

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> ember.ops.quantized.linear_prepack(w).unpack()[1] is None
        True
    """
    return LinearPackedParamsBase(W, B)


@_op('linear_unpack')
def linear_unpack(W_prepack):
    """``torch.ops.quantized.linear_unpack``: the ``(weight, bias)`` of packed linear
    parameters.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.qint8)
        >>> ember.ops.quantized.linear_unpack(ember.ops.quantized.linear_prepack(w))[0].shape
        torch.Size([2, 3])
    """
    return W_prepack.unpack()


def _check_packed(p, cls, op):
    if not isinstance(p, cls):
        raise RuntimeError(f"{op}() Expected a value of type '__torch__.torch.classes."
                           f"quantized.{cls.__name__}' for argument 'W_prepack' but instead "
                           f"found type '{type(p).__name__}'.")


def _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, relu, op):
    _check_q(X, op)
    _check_packed(W_prepack, LinearPackedParamsBase, op)
    if X.dtype is not D.quint8:
        raise RuntimeError(f"Expected input data type QUInt8 but got "
                           f"{D._scalar_name(X.dtype)}")
    k = W_prepack._packed
    if X.dim() == 0 or X.shape[-1] != k.in_features:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{X.shape[-1] if X.dim() else 1}")
    xs, xz = _pt(X)
    ys, yz = _out_qparams(Y_scale_i, Y_zero_point_i)
    out = _K.linear_static(_ints(X), xs, xz, k, out_scale=ys, out_zero_point=yz, relu=relu)
    return _new(out, D.quint8, ys, yz)


@_op('linear')
def linear(X, W_prepack, Y_scale_i, Y_zero_point_i):
    """``torch.ops.quantized.linear``: a statically quantized linear layer on a ``quint8``
    input; the result is quantized with ``Y_scale_i`` and ``Y_zero_point_i``.

    Args:
        X (Tensor): ``quint8`` input ``(*, in_features)``.
        W_prepack (LinearPackedParamsBase): from :func:`linear_prepack`.
        Y_scale_i (float): output scale.
        Y_zero_point_i (int): output zero point.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear(x, ember.ops.quantized.linear_prepack(w), 0.5, 0).int_repr()
        tensor([[6]], dtype=torch.uint8)
    """
    return _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, False, 'quantized::linear')


@_op('linear_relu')
def linear_relu(X, W_prepack, Y_scale_i, Y_zero_point_i):
    """``torch.ops.quantized.linear_relu``: :func:`linear` followed by ReLU.

    Example::

        >>> w = ember.quantize_per_tensor(-ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.linear_relu(x, ember.ops.quantized.linear_prepack(w), 0.5, 3).int_repr()
        tensor([[3]], dtype=torch.uint8)
    """
    return _linear_static(X, W_prepack, Y_scale_i, Y_zero_point_i, True,
                          'quantized::linear_relu')


def _linear_dyn(X, W_prepack, reduce_range, relu, op):
    _check_packed(W_prepack, LinearPackedParamsBase, op)
    if not isinstance(X, Tensor) or _is_q(X) or X.dtype is not D.float32:
        raise RuntimeError("Expected input data type Float but got "
                           f"{D._scalar_name(X.dtype) if isinstance(X, Tensor) else X}")
    k = W_prepack._packed
    if X.dim() == 0 or X.shape[-1] != k.in_features:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{X.shape[-1] if X.dim() else 1}")
    out = _K.linear_dynamic(np.asarray(X.detach()._data, np.float32), k,
                            reduce_range=bool(reduce_range), relu=relu)
    return _ember().as_tensor(out)


@_op('linear_dynamic')
def linear_dynamic(X, W_prepack, reduce_range=False):
    """``torch.ops.quantized.linear_dynamic``: a dynamically quantized linear layer: the
    float input is quantized to ``quint8`` with parameters read from its range, multiplied
    by the int8 weight in integers and scaled back to float32.

    Args:
        X (Tensor): float32 input ``(*, in_features)``.
        W_prepack (LinearPackedParamsBase): from :func:`linear_prepack`.
        reduce_range (bool): quantize the input to 7 bits. Default: ``False``.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> ember.ops.quantized.linear_dynamic(ember.tensor([[1.0, 2.0]]), ember.ops.quantized.linear_prepack(w))
        tensor([[3.0118]])
    """
    return _linear_dyn(X, W_prepack, reduce_range, False, 'quantized::linear_dynamic')


@_op('linear_relu_dynamic')
def linear_relu_dynamic(X, W_prepack, reduce_range=False):
    """``torch.ops.quantized.linear_relu_dynamic``: :func:`linear_dynamic` followed by
    ReLU.

    Example::

        >>> w = ember.quantize_per_tensor(-ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> ember.ops.quantized.linear_relu_dynamic(ember.tensor([[1.0, 2.0]]), ember.ops.quantized.linear_prepack(w))
        tensor([[0.]])
    """
    return _linear_dyn(X, W_prepack, reduce_range, True, 'quantized::linear_relu_dynamic')


class ConvPackedParamsBase:
    """A convolution's int8 weight, float bias and geometry prepared for the quantized
    kernels (``torch.classes.quantized.Conv2dPackedParamsBase`` and its 1-d / 3-d
    forms, made by ``ember.ops.quantized.conv2d_prepack`` & co.).

    Args:
        weight (Tensor): ``qint8`` weight ``(out_channels, in_channels / groups, *kernel)``
            (transposed: ``(in_channels, out_channels / groups, *kernel)``).
        bias (Tensor, optional): float32 bias.
        stride, padding, output_padding, dilation (list of int): one per spatial dim.
        groups (int): number of groups.
        transpose (bool): a transposed convolution.
        conv1d (bool): a 1-d convolution kept as 2-d (``unpack`` gives the 4-d weight, as
            PyTorch's).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 1, 3, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        >>> p.stride()
        [1, 1]
    """

    def __init__(self, weight, bias, stride, padding, output_padding, dilation, groups,
                 transpose=False, conv1d=False):
        _check_q(weight, 'quantized::conv2d_prepack')
        if weight.dtype is not D.qint8:
            raise RuntimeError(f"expected scalar type QInt8 but found "
                               f"{D._scalar_name(weight.dtype)}")
        nd = weight.dim() - 2
        for name, v in (('stride', stride), ('padding', padding), ('dilation', dilation)):
            if len(v) != nd:
                raise RuntimeError(f"Specify {name} for all input dimensions (expected "
                                   f"{nd}, got {len(v)})")
        # fbgemm keeps the weight's scales as float32 (x86 keeps them as they are)
        self._weight = _rounded_scale(weight) if _engine() == 'fbgemm' else weight
        self._bias = None if bias is None else bias.detach()
        self._stride, self._padding = list(stride), list(padding)
        self._output_padding = list(output_padding)
        self._dilation, self._groups = list(dilation), int(groups)
        self._transpose, self._conv1d = bool(transpose), conv1d
        b = _bias_array(bias)
        ints, s, z = _weight_parts(self._weight)
        if transpose:
            self._packed = None
        else:
            self._packed = _K.PackedConvWeight(ints, s, z, b, stride, padding, dilation,
                                               groups)

    def unpack(self):
        """The ``(weight, bias)`` the parameters were packed from (a 1-d convolution's
        weight as 4-d, as PyTorch's)."""
        w = self._weight
        if self._conv1d:
            w = _make(_ints(w)[:, :, None, :].copy(), w.dtype, w._qp)
        return w, self._bias

    def stride(self):
        """The stride, one per spatial dimension."""
        return ([1] if self._conv1d else []) + list(self._stride)

    def padding(self):
        """The padding, one per spatial dimension."""
        return ([0] if self._conv1d else []) + list(self._padding)

    def output_padding(self):
        """The output padding (transposed convolutions), one per spatial dimension."""
        return ([0] if self._conv1d else []) + list(self._output_padding)

    def dilation(self):
        """The dilation, one per spatial dimension."""
        return ([1] if self._conv1d else []) + list(self._dilation)

    def groups(self):
        """The number of groups."""
        return self._groups

    def transpose(self):
        """Whether the convolution is transposed."""
        return self._transpose

    def __getstate__(self):
        return (self._weight, self._bias, self._stride, self._padding, self._output_padding,
                self._dilation, self._groups, self._transpose, self._conv1d)

    def __setstate__(self, state):
        self.__init__(*state)

    def __repr__(self):
        return f"<torch.ScriptObject object (Conv{2 if self._conv1d else len(self._stride)}" \
               f"dPackedParamsBase)>"


def _prepack(nd, transpose):
    def prepack(weight, bias, stride, padding, *rest):
        if transpose:
            output_padding, dilation, groups = rest
        else:
            (dilation, groups), output_padding = rest, [0] * nd
        return ConvPackedParamsBase(weight, bias, list(stride), list(padding),
                                    list(output_padding), list(dilation), groups, transpose,
                                    conv1d=(nd == 1))
    name = f"conv{'_transpose' if transpose else ''}{nd}d_prepack"
    prepack.__name__ = name
    prepack.__doc__ = f"""``torch.ops.quantized.{name}``: pack a ``qint8`` weight, a float
    bias and the geometry for :func:`conv{'_transpose' if transpose else ''}{nd}d`.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones({'2, 1, 3' + ', 3' * (nd - 1)}), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.{name}(w, None, {[1] * nd}, {[0] * nd}, {'[0] * nd, ' if transpose else ''}{[1] * nd}, 1)
        >>> p.groups()
        1
    """
    return prepack


for _nd in (1, 2, 3):
    for _tr in (False, True):
        _f = _prepack(_nd, _tr)
        OPS[_f.__name__] = _f


def _conv_unpack(packed):
    """``torch.ops.quantized.conv{1,2,3}d_unpack``: the ``(weight, bias)`` of packed
    convolution parameters (a 1-d weight as 3-d).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(2, 1, 3, 3), 0.1, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv2d_prepack(w, None, [1, 1], [0, 0], [1, 1], 1)
        >>> ember.ops.quantized.conv2d_unpack(p)[0].shape
        torch.Size([2, 1, 3, 3])
    """
    return packed._weight, packed._bias


for _n in ('conv1d_unpack', 'conv2d_unpack', 'conv3d_unpack', 'conv_transpose1d_unpack',
           'conv_transpose2d_unpack', 'conv_transpose3d_unpack'):
    OPS[_n] = _conv_unpack


def _conv_forward(input, packed, output_scale, output_zero_point, relu, op):
    _check_q(input, op)
    _check_packed(packed, ConvPackedParamsBase, op)
    if input.dtype is not D.quint8:
        raise RuntimeError(f"Expected input data type QUInt8 but got "
                           f"{D._scalar_name(input.dtype)}")
    xs, xz = _pt(input)
    ys, yz = _out_qparams(output_scale, output_zero_point)
    w = packed._weight
    nd = w.dim() - 2
    if input.dim() != nd + 2:
        raise RuntimeError(f"{op}: Expected {nd + 2}-D input (got {input.dim()}D input)")
    cin = w.shape[0] if packed._transpose else w.shape[1] * packed._groups
    if input.shape[1] != cin:
        raise RuntimeError(f"Given groups={packed._groups}, weight of size "
                           f"{', '.join(str(s) for s in w.shape)}, expected input "
                           f"{', '.join(str(s) for s in input.shape)} to have {cin} channels, "
                           f"but got {input.shape[1]} channels instead")
    if packed._transpose:
        out = _conv_transpose_ints(_ints(input), xs, xz, packed, ys, yz, relu)
    else:
        out = _K.conv_static(_ints(input), xs, xz, packed._packed, ys, yz, relu=relu)
    return _new(out, D.quint8, ys, yz)


def _conv_transpose_ints(x, xs, xz, packed, ys, yz, relu):
    """A transposed convolution on integers: the exact accumulator of the centred input
    and weight (a float64 transposed convolution of small integers is exact), requantized
    as the forward convolution's."""
    w = packed._weight
    ints, s, z = _weight_parts(w)
    cin = ints.shape[0]
    shape = [cin] + [1] * (ints.ndim - 1)
    wz = np.broadcast_to(np.asarray(z, np.int64), (ints.shape[1] * packed._groups,))
    # the weight's zero point is per output channel: (in, out/groups, *k) -> per out column
    g = packed._groups
    wzc = wz.reshape(g, -1)[:, None, :, None].reshape(1, g, 1, -1)
    wc = ints.astype(np.float64).reshape(g, cin // g, ints.shape[1], -1) - wzc.reshape(
        g, 1, -1, 1)
    wc = wc.reshape(ints.shape)
    del shape
    E = _ember()
    F = E.nn.functional
    fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[ints.ndim - 2]
    acc = fn(E.as_tensor(x.astype(np.float64) - xz), E.as_tensor(wc), None, packed._stride,
             packed._padding, packed._output_padding, g, packed._dilation)
    acc = np.moveaxis(np.asarray(acc._data), 1, -1)
    cout = acc.shape[-1]
    scales = np.broadcast_to(np.asarray(s, np.float64), (cout,)).astype(_F32)
    b = _bias_array(packed._bias)
    out = _K._requantize_u8(acc.astype(_F32), xs, scales, b, ys, yz, relu)
    return np.ascontiguousarray(np.moveaxis(out, -1, 1))


def _conv_op(nd, transpose, relu):
    name = f"conv{'_transpose' if transpose else ''}{nd}d{'_relu' if relu else ''}"

    def conv(qx, packed_weight, output_scale, output_zero_point):
        x = qx
        if nd == 1 and not transpose and packed_weight._conv1d is False:
            raise RuntimeError(f"quantized::{name}: expected 1-d packed parameters")
        return _conv_forward(x, packed_weight, output_scale, output_zero_point, relu,
                             f'quantized::{name}')
    conv.__name__ = name
    conv.__doc__ = f"""``torch.ops.quantized.{name}``: a statically quantized
    {'transposed ' if transpose else ''}{nd}-d convolution{' followed by ReLU' if relu else ''}
    on a ``quint8`` input, quantized with ``output_scale`` and ``output_zero_point``.

    Args:
        qx (Tensor): ``quint8`` input ``(N, C_in, *spatial)``.
        packed_weight (ConvPackedParamsBase): from ``conv{'_transpose' if transpose else ''}{nd}d_prepack``.
        output_scale (float): output scale.
        output_zero_point (int): output zero point.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1{', 1' * nd}), 0.5, 0, ember.qint8)
        >>> p = ember.ops.quantized.conv{'_transpose' if transpose else ''}{nd}d_prepack(w, None, {[1] * nd}, {[0] * nd}, {'[0] * nd, ' if transpose else ''}{[1] * nd}, 1)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1{', 2' * nd}), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.{name}(x, p, 0.25, 0).int_repr().flatten()[0]
        tensor(4, dtype=torch.uint8)
    """
    return conv


for _nd in (1, 2, 3):
    for _tr in (False, True):
        for _fused in ((False, True) if not _tr else (False,)):
            _f = _conv_op(_nd, _tr, _fused)
            OPS[_f.__name__] = _f


# ------------------------------------------------------------------ normalization
def _batch_norm(qx, weight, bias, mean, var, eps, output_scale, output_zero_point, relu,
                nd, op):
    _check_q(qx, op)
    if qx.dim() != nd:
        raise RuntimeError(f"Expected {nd}D input tensor, got {qx.dim()}D")
    s, z = _pt(qx)
    os_, oz = _out_qparams(output_scale, output_zero_point)
    C = qx.shape[1]

    def arr(t, fill):
        if t is None:
            return np.full(C, fill, _F32)
        return np.asarray(t.detach().float()._data, _F32).reshape(-1)
    w, b, m, v = arr(weight, 1.0), arr(bias, 0.0), arr(mean, 0.0), arr(var, 1.0)
    alpha = w / np.sqrt(v + _F32(eps))
    beta = b - m * alpha
    inv = _F32(1) / _F32(os_)
    a = alpha * _F32(s) * inv
    c = beta * inv
    shape = (1, C) + (1,) * (qx.dim() - 2)
    acc = (_ints(qx).astype(np.int32) - z).astype(_F32)
    y = np.rint(_fma(acc, a.reshape(shape), c.reshape(shape))).astype(np.float64) + oz
    r = np.clip(y, oz if relu else qx.dtype._qmin, qx.dtype._qmax)
    return _new(r, qx.dtype, os_, oz)


def _bn_op(name, dims, relu):
    """``torch.ops.quantized.<name>``: batch norm for inputs of ``dims`` dimensions."""
    def bn(qx, weight, bias, mean, var, eps, output_scale, output_zero_point):
        nd = qx.dim() if qx.dim() in dims else dims[0]
        return _batch_norm(qx, weight, bias, mean, var, eps, output_scale, output_zero_point,
                           relu, nd, f'quantized::{name}')
    then = ', then ReLU' if relu else ''
    bn.__name__ = name
    bn.__doc__ = f"""``torch.ops.quantized.{name}``: inference batch normalization of a
    quantized tensor (per channel ``x * alpha + beta`` from the running statistics){then},
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1{', 1' * (dims[0] - 2)}), 0.1, 0, ember.quint8)
        >>> one, zero = ember.ones(1), ember.zeros(1)
        >>> ember.ops.quantized.{name}(q, one, zero, zero, one, 0.0, 0.1, 0).int_repr().flatten()
        tensor([10], dtype=torch.uint8)
    """
    return bn


for _nm, _dims in (('batch_norm1d', (2, 3)), ('batch_norm2d', (4,)), ('batch_norm3d', (5,))):
    for _fused in (False, True):
        _n = _nm + ('_relu' if _fused else '')
        OPS[_n] = _bn_op(_n, _dims, _fused)
OPS['batch_norm'] = OPS['batch_norm2d']
OPS['batch_norm_relu'] = OPS['batch_norm2d_relu']


def _requant_float(qx, y, output_scale, output_zero_point):
    """Float32 values ``y`` quantized per tensor (PyTorch's ``quantize_per_tensor``)."""
    return _new(_round_per_tensor(np.asarray(y, _F32), output_scale, output_zero_point,
                                  qx.dtype), qx.dtype, output_scale, output_zero_point)


def _norm_via_float(qx, fn, output_scale, output_zero_point, op):
    _check_q(qx, op)
    _pt(qx)
    os_, oz = _out_qparams(output_scale, output_zero_point)
    x = _ember().as_tensor(_dequant_array(qx))
    return _requant_float(qx, np.asarray(fn(x)._data), os_, oz)


@_op('layer_norm')
def layer_norm(input, normalized_shape, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.layer_norm``: layer normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.layer_norm(q, [2], None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.layer_norm(x, list(normalized_shape), weight,
                                                         bias, eps),
                           output_scale, output_zero_point, 'quantized::layer_norm')


@_op('group_norm')
def group_norm(input, num_groups, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.group_norm``: group normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.group_norm(q, 1, None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.group_norm(x, num_groups, weight, bias, eps),
                           output_scale, output_zero_point, 'quantized::group_norm')


@_op('instance_norm')
def instance_norm(input, weight, bias, eps, output_scale, output_zero_point):
    """``torch.ops.quantized.instance_norm``: instance normalization of the real values,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[[0.0, 1.0]]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.instance_norm(q, None, None, 1e-5, 0.1, 10).int_repr()
        tensor([[[ 0, 20]]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(input, lambda x: F.instance_norm(x, weight=weight, bias=bias,
                                                            eps=eps),
                           output_scale, output_zero_point, 'quantized::instance_norm')


@_op('softmax')
def softmax(qx, dim, output_scale, output_zero_point):
    """``torch.ops.quantized.softmax``: softmax of the real values along ``dim``,
    quantized with ``output_scale`` and ``output_zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 0.0]]), 0.1, 10, ember.quint8)
        >>> ember.ops.quantized.softmax(q, 1, 1 / 256, 0).int_repr()
        tensor([[128, 128]], dtype=torch.uint8)
    """
    F = _ember().nn.functional
    return _norm_via_float(qx, lambda x: F.softmax(x, dim), output_scale, output_zero_point,
                           'quantized::softmax')


@_op('matmul')
def matmul(qa, qb, scale, zero_point):
    """``torch.ops.quantized.matmul``: the matrix product of two quantized tensors'
    real values, quantized with ``scale`` and ``zero_point``.

    Example::

        >>> a = ember.quantize_per_tensor(ember.tensor([[1.0, 2.0]]), 0.5, 0, ember.quint8)
        >>> ember.ops.quantized.matmul(a, a.t(), 0.5, 0).int_repr()
        tensor([[10]], dtype=torch.uint8)
    """
    _check_q(qa, 'quantized::matmul')
    _check_q(qb, 'quantized::matmul')
    if qa.dtype is not qb.dtype:
        raise RuntimeError("MatMul operands should have same data type.")
    E = _ember()
    y = E.matmul(E.as_tensor(_dequant_array(qa)), E.as_tensor(_dequant_array(qb)))
    so, zo = _out_qparams(scale, zero_point)
    return _requant_float(qa, np.asarray(y._data), so, zo)


# ------------------------------------------------------------------ embeddings
class EmbeddingPackedParamsBase:
    """An embedding table of ``quint8`` rows with float scales and zero points
    (``per_channel_affine_float_qparams`` along rows), prepared for the quantized embedding
    lookups (``torch.classes.quantized.EmbeddingPackedParamsBase``).

    Args:
        weight (Tensor): ``quint8`` table ``(num_embeddings, embedding_dim)``.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_prepack(w).bit_rate()
        8
    """

    def __init__(self, weight):
        _check_q(weight, 'quantized::embedding_bag_prepack')
        if weight.dtype is not D.quint8:
            raise NotImplementedError(f"NOTE: unlike PyTorch, ember's quantized embeddings "
                                      f"take quint8 tables only, got {weight.dtype}")
        if len(weight._qp) != 4 or weight._qp[0] is not D.per_channel_affine_float_qparams:
            raise RuntimeError("Expect embedding_bag weights to be quantized using "
                               "kPerChannelAffineFloatQParams")
        if weight.dim() != 2 or weight._qp[3] != 0:
            raise RuntimeError("Expect weight to be 2-D and quantized along dim 0")
        self._weight = weight
        self._ints = _ints(weight).astype(np.float64)
        self._scales = np.asarray(weight._qp[1]._data, _F32)
        self._bias = (-np.asarray(weight._qp[2]._data, _F32)) * self._scales

    def unpack(self):
        """The quantized table."""
        return self._weight

    def bit_rate(self):
        """Bits per element (8)."""
        return 8

    def version(self):
        """The packing format's version (1)."""
        return 1

    def __getstate__(self):
        return self._weight

    def __setstate__(self, state):
        self.__init__(state)

    def __repr__(self):
        return "<torch.ScriptObject object (EmbeddingPackedParamsBase)>"


@_op('embedding_bag_prepack')
def embedding_bag_prepack(weight):
    """``torch.ops.quantized.embedding_bag_prepack``: pack a ``quint8`` table quantized
    per row with float qparams for :func:`embedding_byte` / :func:`embedding_bag_byte`.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_prepack(w).unpack().shape
        torch.Size([3, 2])
    """
    return EmbeddingPackedParamsBase(weight)


@_op('embedding_bag_unpack')
def embedding_bag_unpack(W_prepack):
    """``torch.ops.quantized.embedding_bag_unpack``: the quantized table of packed
    embedding parameters.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_unpack(ember.ops.quantized.embedding_bag_prepack(w)).shape
        torch.Size([3, 2])
    """
    return W_prepack.unpack()


def _emb_indices(packed, indices, op):
    _check_packed(packed, EmbeddingPackedParamsBase, op)
    idx = np.asarray(indices._data).astype(np.int64)
    n = packed._ints.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"{op}: index out of range in self (num_embeddings {n})")
    return idx


def _emb_rows(packed, idx, wgt=None, acc=None):
    """Rows ``idx`` of the table as float32: ``fma(w * scale, q, acc + w * bias)`` (the
    fused 8-bit row-wise lookup; ``w`` a per-sample weight, ``acc`` a running sum)."""
    s = packed._scales[idx]
    b = packed._bias[idx]
    if wgt is not None:
        s = (s * wgt).astype(_F32)
        b = (b * wgt).astype(_F32)
    base = b[:, None] if acc is None else (acc + b[:, None]).astype(_F32)
    return (packed._ints[idx] * s[:, None].astype(np.float64) + base.astype(np.float64)
            ).astype(_F32)


@_op('embedding_byte')
def embedding_byte(weight, indices, pruned_weights=False):
    """``torch.ops.quantized.embedding_byte``: look up rows of a packed ``quint8`` table
    (dequantized to float32).

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_byte(ember.ops.quantized.embedding_bag_prepack(w), ember.tensor([0, 2]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    idx = _emb_indices(weight, indices, 'quantized::embedding_byte')
    flat = idx.reshape(-1)
    rows = _emb_rows(weight, flat)
    return _ember().as_tensor(rows.reshape(idx.shape + (rows.shape[-1],)))


@_op('embedding_bag_byte')
def embedding_bag_byte(weight, indices, offsets=None, scale_grad_by_freq=False, mode=0,
                       pruned_weights=False, per_sample_weights=None,
                       compressed_indices_mapping=None, include_last_offset=False):
    """``torch.ops.quantized.embedding_bag_byte``: sums of rows of a packed ``quint8``
    table over bags (``offsets`` start each bag; a 2-D ``indices`` is one bag per row),
    optionally weighted per sample.

    NOTE: unlike PyTorch, only ``mode=0`` (sum) is provided (PyTorch's quantized
    ``EmbeddingBag`` module always passes it).

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> p = ember.ops.quantized.embedding_bag_prepack(w)
        >>> ember.ops.quantized.embedding_bag_byte(p, ember.tensor([0, 1, 2]), ember.tensor([0, 1]))
        tensor([[1., 1.],
                [2., 2.]])
    """
    op = 'quantized::embedding_bag_byte'
    if mode != 0:
        raise NotImplementedError("NOTE: unlike PyTorch, ember's quantized embedding_bag_byte "
                                  "computes mode=0 (sum) only")
    idx = _emb_indices(weight, indices, op)
    if idx.ndim == 2:
        n_bags, L = idx.shape
        starts = np.arange(n_bags) * L
        idx = idx.reshape(-1)
    else:
        if offsets is None:
            raise RuntimeError("offsets has to be a 1D Tensor but got null")
        starts = np.asarray(offsets._data).astype(np.int64).reshape(-1)
        if include_last_offset:
            starts = starts[:-1]
    if compressed_indices_mapping is not None:
        idx = np.asarray(compressed_indices_mapping._data).astype(np.int64)[idx]
    ends = np.append(starts[1:], idx.size) if starts.size else starts
    if include_last_offset and offsets is not None:
        ends = np.asarray(offsets._data).astype(np.int64).reshape(-1)[1:]
    psw = None if per_sample_weights is None else np.asarray(
        per_sample_weights.detach()._data, _F32).reshape(-1)
    D_ = weight._ints.shape[1]
    out = np.zeros((starts.size, D_), _F32)
    lengths = ends - starts
    for k in range(int(lengths.max(initial=0))):
        live = np.flatnonzero(lengths > k)
        pos = starts[live] + k
        out[live] = _emb_rows(weight, idx[pos], None if psw is None else psw[pos], out[live])
    return _ember().as_tensor(out)


class _FusedRows(EmbeddingPackedParamsBase):
    """A fused 8-bit row-wise table (``uint8`` rows, then each row's float32 scale and
    bias in its last 8 bytes) read for the embedding-bag kernels."""

    def __init__(self, packed):
        a = np.ascontiguousarray(np.asarray(packed._data))
        if a.dtype != np.uint8 or a.ndim < 2:
            raise RuntimeError("Expected a 2-D uint8 fused 8-bit row-wise table")
        a = a.reshape(-1, a.shape[-1])
        self._ints = a[:, :-8].astype(np.float64)
        self._scales = a[:, -8:-4].copy().view(_F32).reshape(-1)
        self._bias = a[:, -4:].copy().view(_F32).reshape(-1)
        self._weight = packed


@_op('embedding_bag_byte_prepack')
def embedding_bag_byte_prepack(weight):
    """``torch.ops.quantized.embedding_bag_byte_prepack``: a float table quantized per row
    to 8 bits (``scale = (max - min) / 255``, ``bias = min``), as ``uint8`` rows each
    followed by its float32 scale and bias (``embedding_dim + 8`` bytes).

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0]]))
        >>> p.shape, p[0, :2]
        (torch.Size([1, 10]), tensor([  0, 255], dtype=torch.uint8))
    """
    w = np.asarray(weight.detach().float()._data, _F32)
    lo = w.min(axis=-1, keepdims=True)
    hi = w.max(axis=-1, keepdims=True)
    rng = (hi - lo).astype(_F32)
    scale = (rng / _F32(255)).astype(_F32)
    inv = (_F32(255) / (rng + _F32(1e-8))).astype(_F32)
    q = np.clip(np.rint(((w - lo).astype(_F32) * inv).astype(_F32)), 0, 255).astype(np.uint8)
    out = np.concatenate([q, scale.view(np.uint8).reshape(scale.shape[:-1] + (4,)),
                          lo.astype(_F32).view(np.uint8).reshape(lo.shape[:-1] + (4,))],
                         axis=-1)
    return _ember().as_tensor(out)


@_op('embedding_bag_byte_unpack')
def embedding_bag_byte_unpack(weight):
    """``torch.ops.quantized.embedding_bag_byte_unpack``: the float rows of a fused 8-bit
    row-wise table (``q * scale + bias``, one rounding).

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0]]))
        >>> ember.ops.quantized.embedding_bag_byte_unpack(p)
        tensor([[0., 1.]])
    """
    t = _FusedRows(weight)
    rows = (t._ints * t._scales[:, None].astype(np.float64) + t._bias[:, None]).astype(_F32)
    lead = tuple(weight.shape[:-1])
    return _ember().as_tensor(rows.reshape(lead + (rows.shape[-1],)))


@_op('embedding_bag_byte_rowwise_offsets')
def embedding_bag_byte_rowwise_offsets(weight, indices, offsets=None, scale_grad_by_freq=False,
                                       mode=0, pruned_weights=False, per_sample_weights=None,
                                       compressed_indices_mapping=None,
                                       include_last_offset=False):
    """``torch.ops.quantized.embedding_bag_byte_rowwise_offsets``: bag sums over a fused
    8-bit row-wise table (from :func:`embedding_bag_byte_prepack`); arguments as
    :func:`embedding_bag_byte`.

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0], [1.0, 1.0]]))
        >>> ember.ops.quantized.embedding_bag_byte_rowwise_offsets(p, ember.tensor([0, 1]), ember.tensor([0]))
        tensor([[1., 2.]])
    """
    return embedding_bag_byte(_FusedRows(weight), indices, offsets, scale_grad_by_freq, mode,
                              pruned_weights, per_sample_weights, compressed_indices_mapping,
                              include_last_offset)


class _LinearFp16PackedParams(LinearPackedParamsBase):
    """A linear layer's weight rounded to float16 (kept as float32 values, which
    ``unpack`` gives, as PyTorch's) and its float bias."""

    def __init__(self, weight, bias=None):
        if _is_q(weight) or not weight.dtype.is_floating_point:
            raise RuntimeError("quantized::linear_prepack_fp16: expected a float weight")
        self._weight = weight.detach().float().half().float()
        self._bias = None if bias is None else bias.detach()
        self._packed = None

    def __setstate__(self, state):
        self.__init__(*state)


@_op('linear_prepack_fp16')
def linear_prepack_fp16(W, B=None):
    """``torch.ops.quantized.linear_prepack_fp16``: pack a float weight (rounded to
    float16) and bias for :func:`linear_dynamic_fp16`.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.tensor([[1.0001, 2.0]]))
        >>> p.unpack()[0]
        tensor([[1., 2.]])
    """
    return _LinearFp16PackedParams(W, B)


@_op('linear_unpack_fp16')
def linear_unpack_fp16(W_prepack):
    """``torch.ops.quantized.linear_unpack_fp16``: the ``(weight, bias)`` of float16
    packed linear parameters.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.ones(1, 2))
        >>> ember.ops.quantized.linear_unpack_fp16(p)[1] is None
        True
    """
    return W_prepack.unpack()


def _linear_fp16(X, W_prepack, relu):
    _check_packed(W_prepack, _LinearFp16PackedParams, 'quantized::linear_dynamic_fp16')
    w, b = W_prepack.unpack()
    y = _ember().nn.functional.linear(X, w, b)
    return _ember().relu(y) if relu else y


@_op('linear_dynamic_fp16')
def linear_dynamic_fp16(X, W_prepack):
    """``torch.ops.quantized.linear_dynamic_fp16``: a linear layer with a float16 weight
    (float32 input, products summed in float32).

    NOTE: unlike PyTorch (fbgemm's float16 GEMM), the float32 sums may differ in the last
    bit (summation order).

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(ember.ones(1, 2))
        >>> ember.ops.quantized.linear_dynamic_fp16(ember.ones(1, 2), p)
        tensor([[2.]])
    """
    return _linear_fp16(X, W_prepack, False)


@_op('linear_relu_dynamic_fp16')
def linear_relu_dynamic_fp16(X, W_prepack):
    """``torch.ops.quantized.linear_relu_dynamic_fp16``: :func:`linear_dynamic_fp16`
    followed by ReLU.

    Example::

        >>> p = ember.ops.quantized.linear_prepack_fp16(-ember.ones(1, 2))
        >>> ember.ops.quantized.linear_relu_dynamic_fp16(ember.ones(1, 2), p)
        tensor([[0.]])
    """
    return _linear_fp16(X, W_prepack, True)
