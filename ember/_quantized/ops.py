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
* Layouts are PyTorch's: a convolution's result is channels-last (stride 1 on the channel
  dimension, for 1-d to 3-d); most ops give a channels_last(_3d) result for an input that
  suggests it (PyTorch's ``suggest_memory_format``) and walk it in memory order, a
  contiguous one otherwise; ``elu``, ``celu``, ``softmax``, ``mean``, ``topk`` and ``clone``
  (without ``memory_format``) give contiguous results, an input of another layout then
  taking the one-by-one path throughout.
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
applies what each call asks. ``linear_leaky_relu``, ``linear_tanh`` and ``conv2d_add``
(oneDNN only in PyTorch) are not provided.
"""
import math

import numpy as np

from .. import _dtype as D
from .. import _layout as _L
from .._tensor import Tensor
from .tensor import (_IMPL, _cl, _copy_laid_out, _make, _ints, _dequant_array,
                     _round_per_tensor, _is_q, _not_impl, _need_per_tensor, _ember)

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


def _new(ints, qdtype, scale, zero_point, like=None):
    """A per-tensor quantized result over ``ints``: channels_last(_3d) when the integers
    of ``like`` (the op's input) suggest it, as PyTorch's kernels, else contiguous."""
    ints = np.asarray(ints).astype(qdtype._int, copy=False)
    if like is not None and ints.ndim in (4, 5) and _cl(_ints(like)):
        ints = _L.channels_last_like(ints, _ints(like))
    elif not ints.flags.c_contiguous:
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


def _requant_map(ints, in_q, fn, out_q, qdtype, vector=True):
    """``fn`` (float32 array -> float32 array) applied to the real values of ``ints``
    (dequantized with ``in_q = (scale, zero_point)``) and quantized with ``out_q``, as
    PyTorch's vectorized x86 kernels do it: vectors of ``_VEC`` elements, then the rest one
    by one (see the module docstring). A channels_last input is walked in memory order
    and the result laid out as it. ``vector=False``: every element by the one-by-one path
    (PyTorch's loop over an input whose layout differs from its output's)."""
    cl = _cl(ints)
    src = np.moveaxis(ints, 1, -1) if cl else ints
    flat = np.ascontiguousarray(src).reshape(-1)
    n = flat.size
    nv = n - n % _VEC if qdtype is not D.qint32 and vector else 0
    out = np.empty(n, qdtype._int)
    if nv:
        out[:nv] = _vec_q(fn(_vec_deq(flat[:nv], *in_q)), *out_q, qdtype)
    if nv < n:
        out[nv:] = _scalar_q(fn(_scalar_deq(flat[nv:], *in_q)), *out_q, qdtype)
    out = out.reshape(src.shape)
    return np.moveaxis(out, -1, 1) if cl else out


def _map_q(q, fn, scale=None, zero_point=None, keep_layout=True):
    """A new quantized tensor: ``fn`` of ``q``'s values requantized (to ``q``'s own scale
    and zero point unless given); channels_last when ``q`` is (``keep_layout``), else
    contiguous and computed in logical order."""
    s, z = _pt(q)
    os_ = s if scale is None else float(scale)
    oz = z if zero_point is None else int(zero_point)
    ints = _ints(q)
    vector = True
    if not keep_layout and not ints.flags.c_contiguous:
        # a contiguous result of a non-contiguous input: PyTorch's scalar loop throughout
        ints, vector = np.ascontiguousarray(ints), False
    return _new(_requant_map(ints, (s, z), fn, (os_, oz), q.dtype, vector), q.dtype, os_, oz,
                like=q if keep_layout else None)


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
    return _new(r, q.dtype, s, z, like=q)


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


def _back(f, q, centred=False, like=None):
    """Float result ``f`` of an average over ``q``'s integers, rounded half to even,
    as a quantized tensor with ``q``'s parameters (laid out after ``like``, see
    :func:`_new`)."""
    s, z = _pt(q)
    a = np.asarray(f._data, np.float64)
    if centred:
        a = a + z           # rounded on the integers' own scale, as PyTorch
    a = np.rint(a)
    return _new(np.clip(a, q.dtype._qmin, q.dtype._qmax), q.dtype, s, z, like=like)


def _exact_back(f, q, like=None):
    s, z = _pt(q)
    return _new(np.asarray(f._data).astype(q.dtype._int), q.dtype, s, z, like=like)


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
        return _back(r, input, True, input) if centred else _exact_back(r, input, input)
    impl.__name__ = name
    return impl


for _n in ('max_pool1d', 'max_pool2d', 'max_pool3d'):
    _IMPL[_n] = _pool(_n, False)
for _n in ('avg_pool1d', 'avg_pool2d', 'avg_pool3d', 'adaptive_avg_pool1d',
           'adaptive_avg_pool2d', 'adaptive_avg_pool3d'):
    _IMPL[_n] = _pool(_n, True)


@_impl('mean')
def _mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_q(input, 'mean')
    if dim is not None:
        n = input.dim()
        dims = sorted({d % n for d in ((dim,) if isinstance(dim, int) else dim)})
        if dims != list(range(n - len(dims), n)):
            # not the innermost dimensions: PyTorch averages the real values and
            # quantizes the result with the input's scale and zero point
            s, z = _pt(input)
            E = _ember()
            r = E.as_tensor(_dequant_array(input)).mean(dim, keepdim)
            return E.quantize_per_tensor(r, s, z, input.dtype)
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
        return _exact_back(r, input, input)
    if mode == 'bilinear' and not antialias:
        r = F.interpolate(_float_of(input, True), size, scale_factor, mode, align_corners,
                          recompute_scale_factor)
        return _back(r, input, True, input)
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
    return _exact_back(r, input, input)


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
            return _exact_back(r, input, input if name == 'sort' else None)
        return type(r)((_exact_back(r[0], input, input if name == 'sort' else None), r[1]))
    impl.__name__ = name
    return impl


for _n in ('sort', 'topk', 'max', 'min', 'argsort', 'msort'):
    _IMPL[_n] = _order(_n)


def _refuse(name):
    def impl(*args, **kwargs):
        raise _not_impl(name)
    return impl


_IMPL['amax'] = _refuse('amax.out')
# PyTorch has no quantized adaptive max pooling (the 1-d form runs the 2-d one)
_IMPL['adaptive_max_pool1d'] = _IMPL['adaptive_max_pool2d'] = _refuse('adaptive_max_pool2d.out')
_IMPL['amin'] = _refuse('amin.out')


@_impl('clone')
def _clone(input, *, memory_format=None):
    """A copy of a quantized tensor, quantizer kept: contiguous unless ``memory_format``
    asks for channels_last(_3d), or for ``preserve_format`` on a tensor that suggests it
    (PyTorch's quantized ``clone``: with no ``memory_format`` the copy is contiguous)."""
    a = _ints(input)
    mf = str(memory_format)
    cl = mf in ('torch.channels_last', 'torch.channels_last_3d') or (
        mf == 'torch.preserve_format' and _cl(a))
    return _make(_copy_laid_out(a, cl), input.dtype, input._qp)


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


# the operator modules fill OPS (and _IMPL) in turn
from . import operators, packed, normalization, embedding  # noqa: E402,F401


def __getattr__(name):
    # the operators of ember.ops.quantized, as attributes of this module too
    # (``ops.linear_prepack``), wherever their module defines them
    try:
        return OPS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
