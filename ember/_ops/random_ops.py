"""Random sampling: ``rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/
``multinomial``/``poisson``, the ``_like`` forms, and the in-place samplers
(``uniform_``, ``normal_``, ``bernoulli_``, ``random_``, ``exponential_``, ``geometric_``,
``log_normal_``, ``cauchy_``). Also binds the global seeding functions and
``ember.Generator`` into the ``ember`` namespace.

Every sampler takes ``generator=`` (default: the default generator of the output's device).
Values are PyTorch's CPU streams: the generator's mt19937 words go through the transform
PyTorch's CPU kernel applies (uniform from 24/53 masked bits, integers by modulo, Box-Muller
normals in 16-blocks or element-wise with a cached sample, ...), element by element in
PyTorch's iteration order, so a seeded program draws the same numbers as PyTorch 2.13 on
the CPU. Values are drawn on the host and moved to the output's device. Samplers have zero
gradient (PyTorch's ``*Backward`` nodes).

Where PyTorch itself depends on the machine, ember follows PyTorch's default x86 build: the
AVX2 float32 normal kernel (Cephes polynomials; PyTorch builds without AVX2 use the C
library instead, a 1-ulp difference) and the non-MKL ``bernoulli_(float p)`` kernel (on
Intel CPUs PyTorch draws that one from MKL's MCG31 stream instead). Ties in
``multinomial`` without replacement (equal keys) may be ordered differently from
PyTorch's ``topk``.
"""
import builtins
import math
import warnings

import numpy as np

from . import _args

from .. import _dtype as D
from .. import random as _random
from .._tensor import Tensor, _legacy_name
from ._inplace import inplace_apply, check_inplace
from .._device import device as _device, CPU
from .._backend import to_device, device_of, array_module
from ._util import wrap, Node, register, grad_needed, record, FUNCTIONS
from .creation import _shape_args, _size_kw, _dev, _finish, _write_out
from ._pointwise_common import _record_not_impl

__all__ = ['rand', 'randn', 'randint', 'randperm', 'normal', 'bernoulli', 'multinomial',
           'poisson', 'rand_like', 'randn_like', 'randint_like']

# the global RNG API lives in ember.random; expose it as ember.<name>
for _n in ('Generator', 'manual_seed', 'seed', 'initial_seed', 'get_rng_state',
           'set_rng_state'):
    FUNCTIONS[_n] = getattr(_random, _n)
FUNCTIONS['default_generator'] = _random.default_generator


# ------------------------------------------------------------------------- drawing helpers
# Every sampler below draws PyTorch's CPU stream (see ember/random.py) and applies the
# transform PyTorch's CPU kernel applies, element by element in TensorIterator order.
def _gen(generator, dev):
    return generator if generator is not None else _random._default_for(dev)


def _np_names(dt):
    return {'Long': 'long', 'Int': 'int', 'Short': 'short int', 'Char': 'signed char',
            'Byte': 'unsigned char', 'Bool': 'bool', 'Half': 'c10::Half',
            'BFloat16': 'c10::BFloat16', 'Float': 'float', 'Double': 'double'}.get(
                _legacy_name(dt), dt._name)


def _not_impl(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_legacy_name(dt)}\'')


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_M53 = np.uint64((1 << 53) - 1)


def _digits(dt):
    """``std::numeric_limits<scalar_t>::digits`` of a floating dtype."""
    return {np.dtype(np.float16): 11, _F32: 24, _F64: 53}.get(np.dtype(dt._np), 8)


def _real_np(dt):
    return dt.to_real()._np


def _unit(g, n, digits):
    """``n`` draws of ``uniform_real_distribution<T>(0, 1)``: the low ``digits`` bits of
    one 32-bit word (float32 result, exact) or, for double, of one 64-bit draw."""
    if digits == 53:
        return (g._words64(n) & _M53).astype(np.float64) * (2.0 ** -53)
    w = g._words(n) & np.uint32((1 << digits) - 1)
    return w.astype(np.float32) * np.float32(2.0 ** -digits)


def _libm(fn, a):
    """``fn`` (a ``math`` function: the C library's, which PyTorch's kernels call) over a
    float64 array; NumPy's vectorised log/exp/tan differ in the last bit."""
    a = np.asarray(a, dtype=np.float64)
    return np.fromiter(map(fn, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)


def _to_scalar_t(a, dt):
    """``static_cast<scalar_t>`` of float64 values (half / bfloat16 round via float)."""
    npdt = np.dtype(dt._np)
    if npdt == _F64:
        return a
    a = np.asarray(a).astype(np.float32)
    return a if npdt == _F32 else a.astype(npdt)


def _arrange(flat, shape, strides):
    """Place ``flat`` (values in PyTorch's TensorIterator order for a tensor of ``shape``
    and ``strides``: memory order, outermost = largest stride) into a C-ordered array of
    ``shape``."""
    nd = len(shape)
    perm = sorted(range(nd), key=lambda d: -strides[d] if shape[d] > 1 else 0)
    if nd <= 1 or perm == list(range(nd)):
        return flat.reshape(shape)
    return flat.reshape([shape[d] for d in perm]).transpose(np.argsort(perm))


def _is_contig(shape, strides, itemsize):
    exp = itemsize
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != exp:
            return False
        exp *= n
    return True


def _layout(dst):
    """(shape, strides in bytes) of a destination: an array, or a shape (contiguous)."""
    if isinstance(dst, tuple):
        return dst, None
    a = dst
    return tuple(a.shape), tuple(getattr(a, 'strides', None) or ())


def _sample(dst, dt, flat_fn, complex_ok=True):
    """An array of ``dst``'s shape and dtype ``dt`` filled as PyTorch fills it: ``flat_fn
    (n, real_dtype, contiguous)`` returns ``n`` values in iteration order. Complex
    tensors are filled as their real view (``view_as_real``: real, imaginary, ...)."""
    shape, strides = _layout(dst)
    n = 1
    for d in shape:
        n *= d
    if dt._cat == 3 and complex_ok:
        rdt = dt.to_real()
        item = np.dtype(rdt._np).itemsize
        rshape = tuple(shape) + (2,)
        rstrides = None if strides is None else tuple(strides) + (item,)
        contig = strides is None or _is_contig(rshape, rstrides, item)
        flat = flat_fn(2 * n, rdt, contig)
        r = flat.reshape(rshape) if strides is None else _arrange(flat, rshape, rstrides)
        return (r[..., 0] + 1j * r[..., 1]).astype(dt._np)
    contig = strides is None or _is_contig(shape, strides, np.dtype(dt._np).itemsize)
    flat = flat_fn(n, dt, contig)
    if strides is None or contig:
        return flat.reshape(shape)
    return _arrange(flat, shape, strides)


# ---------------------------------------------------------------- per-sampler transforms
_CHUNK = 1 << 16     # elements per chunk of a large draw (its temporaries fit in cache)

def _uniform_flat(g, lo, hi):
    """``uniform_real_distribution``: ``fma(u, to - from, from)`` in float (24-bit ``u``;
    half / bfloat16 too) or double (53-bit ``u``), cast to the dtype; a value that
    rounds up to ``to`` becomes ``from``, keeping the range half-open."""
    def f(n, rdt, contig):
        d = _digits(rdt)
        npdt = np.dtype(rdt._np)
        if d == 53:
            fr, to = float(lo), float(hi)
            res = _fma(_unit(g, n, 53), to - fr, fr)
        else:
            fr, to = np.float32(lo), np.float32(hi)
            res = np.empty(n, npdt)
            # in chunks: the float64 intermediates of the fused multiply-add stay in cache
            for i in range(0, n, _CHUNK):
                u = _unit(g, min(_CHUNK, n - i), 24)
                res[i:i + _CHUNK] = u if (fr == 0 and to == 1) else _fma32(
                    u, np.float32(to - fr), fr)
            fr, to = np.asarray(fr).astype(npdt), np.asarray(to).astype(npdt)
        hit = res >= to
        if hit.any():
            res[hit] = fr
        return res
    return f


def _two_prod(a, b):
    """``a * b = p + e`` exactly (Veltkamp / Dekker)."""
    p = a * b
    sp = 134217729.0                           # 2**27 + 1
    ta = sp * a
    ah = ta - (ta - a)
    al = a - ah
    tb = sp * b
    bh = tb - (tb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a, b, c):
    """Fused ``a * b + c`` in float64 (one rounding, as the FMA PyTorch's compiled
    kernels use), by error-free transformations."""
    a = np.asarray(a, np.float64)
    p, ep = _two_prod(a, np.float64(b))
    s = p + c
    bp = s - p
    es = (p - (s - bp)) + (c - bp)
    with np.errstate(invalid='ignore', over='ignore'):
        r = s + (es + ep)
    return np.where(np.isfinite(r), r, a * b + c)


def _normal_scalar(g, n, mean, std):
    """``n`` draws of ``normal_distribution<double>(mean, std)``: Box-Muller on two
    double uniforms, returning ``r cos`` and caching ``r sin`` in the generator."""
    out = np.empty(n, np.float64)
    i = 0
    if n and g._next_double is not None:
        out[0] = g._next_double
        g._next_double = None
        i = 1
    m = n - i
    pairs = (m + 1) // 2
    if pairs:
        u = _unit(g, 2 * pairs, 53).reshape(pairs, 2)
        r = np.sqrt(-2.0 * _libm(math.log1p, -u[:, 1]))
        theta = (2.0 * math.pi) * u[:, 0]
        seq = np.empty(2 * pairs, np.float64)
        seq[0::2] = r * np.cos(theta)
        seq[1::2] = r * np.sin(theta)
        out[i:] = seq[:m]
        if m % 2:
            g._next_double = float(seq[-1])
    return _fma(out, float(std), float(mean))


def _fma32(a, b, c):
    """Fused float32 ``a * b + c`` for float32 arrays/scalars (the product is exact in
    float64; one rounding to float64, then to float32)."""
    t = np.multiply(a, b, dtype=np.float64)
    t += c
    return t.astype(np.float32)


_f32 = np.float32


def _cephes_log32(x):
    """``log256_ps`` of PyTorch's ``avx_mathfun.h`` (Cephes ``logf``) for float32 ``x`` in
    (0, 1], in the order PyTorch's compiled kernel evaluates it (with its fused
    multiply-adds)."""
    x = np.maximum(x, _f32(1.1754944e-38))
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(np.float32) + _f32(1)
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    mask = x < _f32(0.707106781186547524)
    tmp = np.where(mask, x, _f32(0))
    x = x - _f32(1)
    e = e - mask.astype(np.float32)
    x = x + tmp
    z = x * x
    y = _fma32(x, _f32(7.0376836292E-2), _f32(-1.1514610310E-1))
    for c in ( 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
              -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1):
        y = _fma32(y, x, _f32(c))
    y = y * x
    y = _fma32(y, z, e * _f32(-2.12194440e-4))
    y = _fma32(z, _f32(-0.5), y)
    x = x + y
    return _fma32(e, _f32(0.693359375), x)


def _cephes_sincos32(theta):
    """``sincos256_ps`` of ``avx_mathfun.h`` (Cephes ``sinf``/``cosf``) for float32
    ``theta >= 0``, as PyTorch's compiled kernel evaluates it."""
    x = np.abs(theta)
    j = (x * _f32(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    yq = j.astype(np.float32)
    sign_sin = ((theta.view(np.uint32) & np.uint32(0x80000000))
                ^ ((j & 4).astype(np.uint32) << np.uint32(29)))
    sign_cos = ((~(j - 2)) & 4).astype(np.uint32) << np.uint32(29)
    poly = (j & 2) == 0
    x = _fma32(yq, _f32(-0.78515625), x)
    x = _fma32(yq, _f32(-2.4187564849853515625e-4), x)
    x = _fma32(yq, _f32(-3.77489497744594108e-8), x)
    z = x * x
    yc = _fma32(z, _f32(2.443315711809948E-005), _f32(-1.388731625493765E-003))
    yc = _fma32(yc, z, _f32(4.166664568298827E-002))
    yc = yc * z
    yc = _fma32(yc, z, -(z * _f32(0.5))) + _f32(1)
    ys = _fma32(z, _f32(-1.9515295891E-4), _f32(8.3321608736E-3))
    ys = _fma32(ys, z, _f32(-1.6666654611E-1))
    ys = ys * z
    ys = _fma32(ys, x, x)
    sin = np.where(poly, ys, yc).view(np.uint32) ^ sign_sin
    cos = np.where(poly, yc, ys).view(np.uint32) ^ sign_cos
    return sin.view(np.float32), cos.view(np.float32)


def _box_muller16(u, n, mean, std, dbl):
    """PyTorch's ``normal_fill_16`` over consecutive 16-value blocks of uniforms ``u``:
    pairs ``(j, j+8)`` give ``r cos`` / ``r sin``. Double: C library log/cos/sin; float:
    the AVX2 kernel's Cephes polynomials (``normal_fill_16_AVX2``)."""
    if not dbl and n > _CHUNK:
        # in chunks (of whole 16-blocks): the float64 intermediates stay in cache
        out = np.empty(n, np.float32)
        for i in range(0, n, _CHUNK):
            out[i:i + _CHUNK] = _box_muller16(u[i:i + _CHUNK], min(_CHUNK, n - i), mean,
                                              std, False)
        return out
    b = u.reshape(-1, 2, 8)
    if dbl:
        u1 = 1.0 - b[:, 0]
        radius = np.sqrt(-2.0 * _libm(math.log, u1))
        theta = (2.0 * math.pi) * b[:, 1]
        out = np.empty(b.shape, np.float64)
        out[:, 0] = radius * np.cos(theta)
        out[:, 1] = radius * np.sin(theta)
        return _fma(out, float(std), float(mean)).reshape(-1)
    u1 = _f32(1) - b[:, 0]
    radius = np.sqrt(_f32(-2) * _cephes_log32(u1))
    sin, cos = _cephes_sincos32(_f32(2.0 * math.pi) * b[:, 1])
    out = np.empty(b.shape, np.float32)
    out[:, 0] = _fma32(radius * cos, _f32(std), _f32(mean))
    out[:, 1] = _fma32(radius * sin, _f32(std), _f32(mean))
    return out.reshape(-1)


def _normal_flat(g, mean, std):
    """``normal_kernel``: contiguous tensors of 16+ elements take the 16-block
    Box-Muller (``normal_fill``; the last 16 values are redrawn when the size is not a
    multiple of 16); others draw element-wise from ``normal_distribution<double>``."""
    def f(n, rdt, contig):
        d = _digits(rdt)
        if n >= 16 and contig:
            if d in (24, 53):
                dbl = d == 53
                u = _unit(g, n, d)
                full = n - n % 16
                res = np.empty(n, np.float64 if dbl else np.float32)
                res[:full] = _box_muller16(u[:full], full, mean, std, dbl)
                if n % 16:
                    res[n - 16:] = _box_muller16(_unit(g, 16, d), 16, mean, std, dbl)
                return res
            # half / bfloat16: 16 float uniforms drawn per block, Box-Muller in float;
            # a last partial block is drawn afresh and written over the last 16 values
            full = n - n % 16
            u = _unit(g, -(-n // 16) * 16, 24)
            res = np.empty(n, np.float32)
            res[:full] = _box_muller16(u[:full], full, mean, std, False)
            if n % 16:
                res[n - 16:] = _box_muller16(u[full:], 16, mean, std, False)
            return res.astype(rdt._np)
        return _to_scalar_t(_normal_scalar(g, n, mean, std), rdt)
    return f


def _float_dist_flat(g, fn):
    """A sampler drawing one double uniform per element and applying ``fn`` (float64
    array -> float64 array), then ``static_cast<scalar_t>``."""
    def f(n, rdt, contig):
        v = fn(_unit(g, n, 53))
        if rdt._cat != 2:
            with np.errstate(invalid='ignore'):
                return v.astype(np.int64).astype(rdt._np)
        return _to_scalar_t(v, rdt)
    return f


def _randint_flat(g, lo, rng):
    """``uniform_int_from_to_distribution``: ``(word % range) + from`` with a 32-bit word,
    or a 64-bit draw when ``range >= 2**28``."""
    def f(n, rdt, contig):
        if rng >= 1 << 28:
            v = g._words64(n)
            np.remainder(v, np.uint64(rng), out=v)
            v += np.uint64(lo % (1 << 64))      # wraps as PyTorch's uint64 arithmetic
            return _int_cast(v.view(np.int64), rdt)
        w = g._words(n)
        np.remainder(w, np.uint32(rng), out=w)
        # word % range < 2**28 and from + that < 2**63: exact in int64, no wrap
        v = w.astype(np.int64)
        if lo:
            v += lo
        return v if rdt is D.int64 else _int_cast(v, rdt)
    return f


def _int_cast(v, dt):
    """``static_cast<scalar_t>(int64)``."""
    npdt = np.dtype(dt._np)
    if dt._cat == 0:
        return v != 0
    if dt._cat == 2 and npdt != _F64 and npdt != _F32:
        return v.astype(np.float32).astype(npdt)
    return v.astype(npdt)


def _random_flat(g):
    """``random_()`` (``uniform_int_distribution``): ``word % (max + 1)`` for integer
    dtypes (``% (2**digits + 1)`` for floating ones, ``& 1`` for bool); 64-bit draws for
    int64 and double."""
    def f(n, rdt, contig):
        npdt = np.dtype(rdt._np)
        if rdt._cat == 0:
            return (g._words(n) & np.uint32(1)) != 0
        if npdt == np.int64 or npdt == _F64:
            w = g._words64(n)
        else:
            w = g._words(n).astype(np.uint64)
        if rdt._cat == 1:
            mod = int(np.iinfo(npdt).max) + 1
        else:
            mod = (1 << _digits(rdt)) + 1
        return _int_cast((w % np.uint64(mod)).astype(np.int64), rdt)
    return f


def _uniform_arr(g, dst, dt, lo=0.0, hi=1.0, kernel='check_uniform_bounds'):
    """Uniform ``[lo, hi)`` array for ``dst`` (a shape, or the destination array)."""
    if dt._cat not in (2, 3):
        raise _not_impl(kernel, dt)
    return _sample(dst, dt, _uniform_flat(g, lo, hi))


def _normal_arr(g, dst, dt, mean=0.0, std=1.0):
    """Normal ``(mean, std)`` array for ``dst`` (complex: ``std / sqrt(2)`` per part)."""
    if dt._cat not in (2, 3):
        raise _not_impl('normal_kernel_cpu', dt)
    if dt._cat == 3:
        std = std / math.sqrt(2)
    return _sample(dst, dt, _normal_flat(g, mean, std))


def _size_from(size, kw, name):
    return _shape_args(_size_kw(size, kw, name) if kw else size, name)


def _new_random(arr, dev, requires_grad, out):
    # the stream is drawn on the host; the backend places the values on the device (its
    # array type: cupy on CUDA, the strict array under the strict check backend)
    arr = to_device(arr, dev)
    t = wrap(arr)
    if out is not None:
        return _write_out(out, t)
    return _finish(t, requires_grad)


# ------------------------------------------------------------------------- factories
@register(method=False)
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kw):
    """Uniform random numbers on ``[0, 1)`` of shape ``size``.

    Float32 values are drawn as float32 (24 random bits), float64 with 53 bits.

    Args:
        size: ints (varargs) or a tuple.
        generator (ember.Generator, optional): the source of randomness.
        dtype, device, requires_grad: as for :func:`ember.zeros`.

    Example::

        >>> ember.rand(2, 3).shape
        torch.Size([2, 3])
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('rand', out, dtype, device, requires_grad)
    shape = _size_from(size, kw, 'rand')
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    return _new_random(_uniform_arr(_gen(generator, dev), shape, dt), dev, requires_grad, out)


@register(method=False)
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kw):
    """Standard normal random numbers (mean 0, variance 1) of shape ``size``.

    Example::

        >>> ember.randn(4).dtype
        torch.float32
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('randn', out, dtype, device, requires_grad)
    shape = _size_from(size, kw, 'randn')
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    return _new_random(_normal_arr(_gen(generator, dev), shape, dt), dev, requires_grad, out)


def _int_bounds_check(lo, hi, dt):
    """PyTorch's range checks for ``random_(from, to)`` (to exclusive)."""
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} "
                           f">= to={hi}")
    if dt._cat == 0:
        mn, mx = 0, 1
    elif dt._cat == 1:
        ii = np.iinfo(dt._np)
        mn, mx = int(ii.min), int(ii.max)
    else:
        # beyond the dtype's range: an error; beyond its exact integers: a warning
        fi = D.finfo(dt)
        mn, mx = fi.min, fi.max
        digits = _digits(dt)
    for v, what in ((lo, 'from'), (hi - 1, 'to - 1')):
        if v < mn or v > mx:
            raise RuntimeError(f"{what} is out of bounds for {_np_names(dt)}")
    if dt._cat == 2:
        for v, what in ((lo, 'from'), (hi - 1, 'to - 1')):
            if abs(v) > 1 << digits:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {_np_names(dt)} can support discrete "
                              "uniform distribution only within this range. This warning will "
                              "become an error in version 1.7 release, please fix the code in "
                              "advance", UserWarning, stacklevel=4)


def _randint_arr(g, lo, hi, dst, dt):
    """``random_(from, to)``: integers uniform on ``[lo, hi)``."""
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} "
                           f">= to={hi}")
    _int_bounds_check(lo, hi, dt)
    return _sample(dst, dt, _randint_flat(g, lo, hi - lo), complex_ok=False)


def _int_arg(v):
    if isinstance(v, Tensor):
        return v.item()
    return int(v) if not isinstance(v, builtins.int) else v


def _parse_randint(name, args, low, high, size):
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    elif size is None and len(args) == 2:
        raise TypeError(f"{name}(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(args[1]).__name__}")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError(f"{name}() received an invalid combination of arguments")
    if high is None:
        raise TypeError(f"{name}() missing required argument 'high'")
    for v in (low, high):
        if v is not None and _args._int_or_none(v) is None and not (
                isinstance(v, Tensor) and name == 'randint_like'):
            _args.invalid(name, *args)
    return (0 if low is None else _int_arg(low)), _int_arg(high), size


@register(method=False)
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Random integers uniform on ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``; int64 unless ``dtype`` is given.

    NOTE: unlike PyTorch, for a floating ``dtype`` and bounds beyond the integers it holds
    exactly (``2**24`` for float32, ``2**8`` for bfloat16; PyTorch warns there too) the
    values drawn differ from PyTorch's; within those bounds they are the same.

    Example::

        >>> ember.randint(3, 10, (2, 2)).dtype
        torch.int64
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('randint', out, dtype, device, requires_grad)
    low, high, size = _parse_randint('randint', args, low, high, size)
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(size).__name__}")
    shape = _shape_args((size,))
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D.int64)
    arr = _randint_arr(_gen(generator, dev), low, high, shape, dt)
    return _new_random(arr, dev, requires_grad, out)


def _randperm_arr(g, n):
    """PyTorch's CPU ``randperm``: for ``n < 2**32 / 20``, Fisher-Yates swapping ``r[i]``
    with ``r[i + word % (n - i)]`` for ``i < n - 1``; for larger ``n`` the inside-out
    variant with 64-bit draws ``% (i + 1)``."""
    if n < (1 << 32) // 20:
        z = (g._words(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)).tolist() if n > 1 else []
        r = list(range(n))
        for i, k in enumerate(z):
            j = i + k
            r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)
    r = np.empty(n, np.int64)
    z = (g._words64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    for i, k in enumerate(z):
        r[i] = r[k]
        r[k] = i
    return r


@register(method=False)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 by default).

    Example::

        >>> sorted(ember.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args('randperm', out, dtype, device, requires_grad)
    n = _args.as_int(n, 'randperm', 'n', 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dev = _dev(device)
    dt = dtype or D.int64
    arr = _randperm_arr(_gen(generator, dev), n).astype(dt._np)
    return _new_random(arr, dev, requires_grad, out)


# ------------------------------------------------------------------------- normal
class NormalBackward1(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


class NormalBackward2(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


class NormalBackward3(Node):
    def backward(self, g):
        z = g.new_zeros(g.shape)
        return z, z


def _broadcast(a, b):
    """Broadcast shape of ``a`` and ``b`` (PyTorch's error when they don't broadcast)."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        n = max(len(a), len(b))
        pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of "
                                   f"tensor b ({pb[i]}) at non-singleton dimension {i}") from None
        raise


def _into_module_of(arr, t):
    """Host array ``arr`` (drawn by a generator) moved to tensor ``t``'s device and array
    module (the strict check backend's too)."""
    if t.device.type != 'cpu':
        return to_device(arr, t.device)
    return array_module(t._data).asarray(arr)


def _dt_op(a, b, dt, op):
    """``a * b`` / ``a + b`` / ``a / b`` rounded to dtype ``dt`` (half / bfloat16 compute in float)."""
    npdt = np.dtype(dt._np)
    low = npdt.kind == 'V' or npdt == np.float16
    if isinstance(b, (int, float)):
        b = (np.float32 if low else npdt.type)(b)
    elif low:
        b = b.astype(np.float32)
    else:
        b = b.astype(npdt, copy=False)
    x = a.astype(np.float32) if low else a
    r = x * b if op == 'mul' else (x / b if op == 'div' else x + b)
    return r.astype(npdt, copy=False)


def _check_std_tensor(std):
    if std.numel() and bool((std._data < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


@register(method=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal random numbers with given ``mean`` and ``std`` (tensors or numbers).

    Overloads: ``normal(Tensor mean, Tensor std)`` (broadcast), ``normal(Tensor mean,
    float std=1)``, ``normal(float mean, Tensor std)``, ``normal(float mean, float std,
    size)``.

    Example::

        >>> ember.normal(ember.zeros(3), 1.0).shape
        torch.Size([3])
        >>> ember.normal(2., 3., size=(2,)).shape
        torch.Size([2])
    """
    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not tm and not ts:
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__})")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = _shape_args((size,) if isinstance(size, (tuple, list)) else (size,))
        dev = _dev(device)
        dt = dtype or (out.dtype if out is not None else D._default_dtype)
        arr = _normal_arr(_gen(generator, dev), shape, dt, mean, std)
        return _new_random(arr, dev, requires_grad, out)
    if tm and ts:
        dt, dev = mean.dtype, mean.device
        _check_std_tensor(std)
        shape = _broadcast(mean._data.shape, std._data.shape)
    elif tm:
        dt, dev = mean.dtype, mean.device
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = mean._data.shape
    else:
        dt, dev = std.dtype, std.device
        _check_std_tensor(std)
        shape = std._data.shape
    # PyTorch: ``out.normal_(0, std).add_(mean)`` for a float std, otherwise
    # ``out.normal_(0, 1).mul_(std).add_(mean)``
    g = _gen(generator, dev)
    z = _normal_arr(g, tuple(shape), dt, 0.0, std if not ts else 1.0)
    if dev.type != 'cpu':
        z = to_device(z, dev)
    else:   # into the array module of the operands (the strict check backend's too)
        z = array_module((mean if tm else std)._data).asarray(z)
    res = z
    if ts:
        res = _dt_op(res, std._data, dt, 'mul')
    res = _dt_op(res, mean._data if tm else mean, dt, 'add')
    o = wrap(res)
    if tm and ts:
        if grad_needed(mean, std):
            record(o, NormalBackward3(), (mean, std))
    elif tm:
        if grad_needed(mean):
            record(o, NormalBackward1(), (mean,))
    elif grad_needed(std):
        record(o, NormalBackward2(), (std,))
    if out is not None:
        return _write_out(out, o)
    return o


# ------------------------------------------------------------------------- bernoulli etc.
class BernoulliBackward0(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


class PoissonBackward0(Node):
    def backward(self, g):
        return g.new_zeros(g.shape)


def _host(a):
    return a if type(a) is np.ndarray else a.get()


def _iter_order(shape, strides):
    """The axis permutation of PyTorch's TensorIterator for a destination (None: C)."""
    if strides is None:
        return None
    perm = sorted(range(len(shape)), key=lambda d: -strides[d] if shape[d] > 1 else 0)
    return None if perm == list(range(len(shape))) else perm


def _bernoulli_tensor_arr(g, dst, dt, pr):
    """``bernoulli_(p_tensor)``: ``uniform < p`` per element, with a double uniform when
    ``p`` is float64 and a float (24-bit) one otherwise."""
    shape, strides = _layout(dst)
    pb = np.broadcast_to(pr, shape)
    perm = _iter_order(shape, strides)
    pflat = (pb if perm is None else pb.transpose(perm)).ravel()
    n = pflat.size
    if pr.dtype == np.float64:
        hit = _unit(g, n, 53) < pflat
    else:
        hit = _unit(g, n, 24) < pflat.astype(np.float32)
    hit = hit.reshape(shape) if perm is None else \
        hit.reshape([shape[d] for d in perm]).transpose(np.argsort(perm))
    return hit.astype(dt._np)


def _bernoulli_scalar_arr(g, dst, dt, p):
    """``bernoulli_(float p)``: ``double uniform < p`` per element (PyTorch's default CPU
    kernel; its MKL kernel, used on Intel CPUs only, draws from a different stream)."""
    def f(n, rdt, contig):
        return (_unit(g, n, 53) < p).astype(rdt._np)
    return _sample(dst, dt, f, complex_ok=False)


def _exponential_arr(g, dst, dt, lambd):
    """``exponential_distribution<double>``: ``-1 / lambd * log1p(-u)``."""
    c = -1.0 / float(lambd)
    return _sample(dst, dt, _float_dist_flat(g, lambda u: c * _libm(math.log1p, -u)),
                   complex_ok=False)


@register()
def bernoulli(input, p=None, *, generator=None, out=None):
    """Draws 0/1 values: ``1`` with probability ``input`` element-wise (or with the scalar
    probability ``p`` for every element of ``input``'s shape). Same dtype as ``input``.

    Example::

        >>> ember.bernoulli(ember.tensor([0., 1.]))
        tensor([0., 1.])
    """
    dt, dev = input.dtype, input.device
    g = _gen(generator, dev)
    shape = tuple(input._data.shape)
    if p is None:
        if dt._cat != 2:
            raise _not_impl('bernoulli_tensor_cpu_p_', dt)
        pr = _host(input._data)
        if pr.size and not bool(((pr >= 0) & (pr <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        arr = _bernoulli_tensor_arr(g, shape, dt, pr)
    else:
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        arr = _bernoulli_scalar_arr(g, shape, dt, p)
    if dev.type != 'cpu':
        arr = to_device(arr, dev)
    o = wrap(arr)
    if grad_needed(input):
        record(o, BernoulliBackward0(), (input,))
    if out is not None:
        return _write_out(out, o)
    return o


@register()
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Samples category indices from the (unnormalised) probabilities in each row of
    ``input`` (1-D or 2-D), with or without replacement; int64 result of shape
    ``(num_samples,)`` or ``(rows, num_samples)``.

    Example::

        >>> ember.multinomial(ember.tensor([0., 1., 0.]), 2, replacement=True)
        tensor([1, 1])
    """
    a = input._data
    if a.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype._cat != 2:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_legacy_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if isinstance(out, Tensor) and out.dtype is not D.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: "
                           f"{_legacy_name(out.dtype)}")
    k = a.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    host = _host(a)
    p = host.astype(np.float64).reshape(-1, k)
    if p.size and not bool((np.isfinite(p) & (p >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    tot = p.sum(axis=1)
    if p.shape[0] and bool((tot <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _gen(generator, input.device)
    rows = p.shape[0]
    npdt = np.dtype(input.dtype._np)
    if not replacement or num_samples == 1:
        # PyTorch: q = empty_like(p).exponential_(1); argmax / topk of p / q
        q = _exponential_arr(g, host, input.dtype, 1.0)
        work = np.float32 if npdt.kind == 'V' or npdt == np.float16 else npdt
        with np.errstate(divide='ignore', invalid='ignore'):
            keys = (host.astype(work) / q.astype(work)).astype(npdt).astype(work)
        keys = keys.reshape(-1, k)
        if num_samples == 1:
            res = np.argmax(keys, axis=1).astype(np.int64)[:, None]
        else:
            res = np.argsort(-keys, axis=1, kind='stable')[:, :num_samples].astype(np.int64)
    else:
        # PyTorch: per row a normalised cumulative sum (in the dtype; float for half /
        # bfloat16), then a binary search per double uniform
        acc = np.float32 if npdt.kind == 'V' or npdt == np.float16 else npdt
        rowsd = host.reshape(-1, k).astype(acc)
        res = np.empty((rows, num_samples), np.int64)
        for r in range(rows):
            cum = np.cumsum(rowsd[r], dtype=acc)
            cum = (cum / cum[-1]).astype(acc)
            cum[-1] = 1
            u = _unit(g, num_samples, 53)
            res[r] = np.searchsorted(cum, u, side='left')
    if a.ndim == 1:
        res = res[0]
    o = wrap(_into_module_of(res, input))
    if out is not None:
        return _write_out(out, o)
    return o


def _poisson_arr(g, lam):
    """PyTorch's CPU ``sample_poisson`` per rate, drawing double uniforms: the
    transformed rejection method (Hoermann 1993) for ``lam >= 10``, else multiplying
    uniforms until the product falls to ``exp(-lam)``."""
    out = np.zeros(lam.size, np.float64)
    # uniforms are drawn ahead in chunks; the generator is then rewound and advanced by
    # exactly the number used
    saved, saved0 = g._mt.state, g._next0
    est = float(np.minimum(lam, 10).sum()) + 2.5 * lam.size + 16
    chunk = int(min(max(est, 16), 1 << 20))
    buf, pos, used = [], 0, 0

    def uni():
        nonlocal buf, pos, used
        if pos == len(buf):
            buf, pos = _unit(g, chunk, 53).tolist(), 0
        pos += 1
        used += 1
        return buf[pos - 1]
    for i, lm in enumerate(lam.tolist()):
        if lm >= 10:
            slam, loglam = math.sqrt(lm), math.log(lm)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                u = uni() - 0.5
                v = uni()
                us = 0.5 - abs(u)
                k = math.floor((2 * a / us + b) * u + lm + 0.43)
                if us >= 0.07 and v <= vr:
                    break
                if k < 0 or (us < 0.013 and v > us):
                    continue
                if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                        (-lm + k * loglam - math.lgamma(k + 1.0)):
                    break
            out[i] = k
        elif lm == 0:
            out[i] = 0
        else:
            enlam, x, prod = math.exp(-lm), 0, 1.0
            while True:
                prod *= uni()
                if prod > enlam:
                    x += 1
                else:
                    break
            out[i] = x
    g._mt.state, g._next0 = saved, saved0
    g._words(2 * used)
    return out


@register(method=False)
def poisson(input, generator=None):
    """Poisson samples with rates ``input`` (same dtype as ``input``).

    Example::

        >>> ember.poisson(ember.zeros(2))
        tensor([0., 0.])
    """
    dt = input.dtype
    if dt._cat != 2:
        raise _not_impl('poisson_cpu', dt)
    lam = _host(input._data).astype(np.float64)
    if lam.size and not bool((lam >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    arr = _poisson_arr(_gen(generator, input.device), lam.reshape(-1)).reshape(lam.shape)
    arr = _to_scalar_t(arr, dt)
    arr = np.asarray(arr, dtype=dt._np)
    o = wrap(_into_module_of(arr, input))
    if grad_needed(input):
        record(o, PoissonBackward0(), (input,))
    return o


# ------------------------------------------------------------------------- _like forms
from .._layout import fill_like as _fill_like   # noqa: E402


def _like_args(input, dtype, device, fname):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if dtype is not None:
        dtype = _args.as_dtype(dtype, fname)
    return input._data.shape, dtype or input.dtype, _dev(device) if device is not None else input.device


@register(method=False)
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    """:func:`rand` with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.rand_like(ember.zeros(2, 3, dtype=ember.float64)).dtype
        torch.float64
    """
    shape, dt, dev = _like_args(input, dtype, device, 'rand_like')
    return _new_random(_fill_like(_uniform_arr(_gen(generator, dev), shape, dt), input._data,
                                  memory_format), dev, requires_grad, None)


@register(method=False)
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    """:func:`randn` with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.randn_like(ember.zeros(4)).shape
        torch.Size([4])
    """
    shape, dt, dev = _like_args(input, dtype, device, 'randn_like')
    return _new_random(_fill_like(_normal_arr(_gen(generator, dev), shape, dt), input._data,
                                  memory_format), dev, requires_grad, None)


@register(method=False)
def randint_like(input, *args, low=None, high=None, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """:func:`randint` (``randint_like(input, high)`` or ``(input, low, high)``) with the
    shape (and by default the dtype and device) of ``input``.

    Example::

        >>> x = ember.randint_like(ember.zeros(2, 2), 10)
        >>> x.shape, bool(((x >= 0) & (x < 10)).all())
        (torch.Size([2, 2]), True)
    """
    low, high, _ = _parse_randint('randint_like', args, low, high, False)
    shape, dt, dev = _like_args(input, dtype, device, 'randint_like')
    return _new_random(_fill_like(_randint_arr(_gen(generator, dev), low, high, shape, dt),
                                  input._data, memory_format), dev,
                       requires_grad, None)


# ------------------------------------------------------------------------- in-place samplers
def _zero_grad_node(name):
    def backward(self, g):
        return g.new_zeros(g.shape)
    return type(name, (Node,), {'backward': backward, '__doc__': f"zero gradient of {name}"})


UniformBackward0 = _zero_grad_node('UniformBackward0')
NormalBackward0 = _zero_grad_node('NormalBackward0')
RandomBackward0 = _zero_grad_node('RandomBackward0')
RandomBackward1 = _zero_grad_node('RandomBackward1')
RandomBackward2 = _zero_grad_node('RandomBackward2')
BernoulliBackward1 = _zero_grad_node('BernoulliBackward1')
BernoulliBackward2 = _zero_grad_node('BernoulliBackward2')
ExponentialBackward0 = _zero_grad_node('ExponentialBackward0')
GeometricBackward0 = _zero_grad_node('GeometricBackward0')
LogNormalBackward0 = _zero_grad_node('LogNormalBackward0')
CauchyBackward0 = _zero_grad_node('CauchyBackward0')


def _fill(self, arr, node_cls):
    """Write freshly drawn host array ``arr`` into ``self`` (autograd: zero gradient)."""
    dst = self._data
    if arr.dtype != dst.dtype:
        arr = arr.astype(dst.dtype)
    if type(dst) is not np.ndarray:
        arr = to_device(arr, device_of(dst))
    if check_inplace(self):
        o = wrap(arr)
        record(o, node_cls(), (self,))
        return inplace_apply(self, o)
    dst[...] = arr
    self._storage_obj()._version += 1
    return self


def _float_only(self, kernel):
    dt = self.dtype
    if dt._cat != 2:
        raise _not_impl(kernel, dt)
    return dt


def _scal(v):
    return v.item() if isinstance(v, Tensor) else v


@register(function=False)
def uniform_(self, from_=0, to=1, *, generator=None, **kw):
    """Fill self with values uniform on ``[from, to)``; returns self.

    Example::

        >>> ember.empty(3).uniform_(-1, 1).shape
        torch.Size([3])
    """
    from_ = _scal(kw.pop('from', from_))
    to = _scal(to)
    dt = self.dtype
    if dt._cat != 3:        # complex: the real and imaginary parts, each uniform (as torch)
        _float_only(self, 'check_uniform_bounds')
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    arr = _uniform_arr(_gen(generator, self.device), self._data, dt, from_, to)
    return _fill(self, arr, UniformBackward0)


@register(function=False)
def normal_(self, mean=0, std=1, *, generator=None):
    """Fill this tensor in place with samples of a normal distribution of mean ``mean`` and
    standard deviation ``std``.

    Example::

        >>> ember.empty(2, 3).normal_(mean=1.0, std=0.5).shape
        torch.Size([2, 3])
    """
    mean, std = _scal(mean), _scal(std)
    dt = self.dtype
    if dt._cat != 3:
        _float_only(self, 'normal_kernel_cpu')
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    arr = _normal_arr(_gen(generator, self.device), self._data, dt, mean, std)
    return _fill(self, arr, NormalBackward0)


def _top(dt):
    """Largest value ``random_()`` draws for dtype ``dt`` (inclusive)."""
    if dt._cat == 0:
        return 1
    if dt._cat == 1:
        return int(np.iinfo(dt._np).max)
    return 1 << {np.dtype(np.float16): 11, np.dtype(np.float32): 24,
                 np.dtype(np.float64): 53}.get(dt._np, 8)


@register(function=False)
def random_(self, *args, generator=None, **kw):
    """Fill self with integers uniform on ``[from, to)``: ``random_(from, to)``;
    ``random_(to)`` samples ``[0, to)``; ``random_()`` samples ``[0, 2**mantissa]`` for
    floats or ``[0, max]`` for integer dtypes; ``random_(from, None)`` samples
    ``[from, max]``.

    Example::

        >>> ember.zeros(3, dtype=ember.int64).random_(0, 10).dtype
        torch.int64
    """
    dt = self.dtype
    if dt._cat == 3:
        raise _not_impl('random_', dt)
    if len(args) > 2 or set(kw) - {'from', 'to'}:
        raise TypeError("random_() received an invalid combination of arguments")
    g = _gen(generator, self.device)
    if not args and not kw:
        return _fill(self, _sample(self._data, dt, _random_flat(g), complex_ok=False),
                     RandomBackward2)
    elif (len(args) == 1 and not kw) or (not args and set(kw) == {'to'}):
        node, lo, to = RandomBackward1, 0, 0
        hi = int(_scal(args[0] if args else kw['to']))
    else:
        node, to = RandomBackward0, 0
        lo = int(_scal(args[0] if args else kw['from']))
        to = args[1] if len(args) > 1 else kw.get('to')
        hi = _top(dt) + 1 if to is None else int(_scal(to))
    if lo == -(1 << 63) and to is None and hi == 1 << 63 and node is RandomBackward0:
        # [int64 min, int64 max]: a 64-bit draw cast to int64 (no modulo)
        arr = _sample(self._data, dt, lambda n, rdt, c: _int_cast(
            g._words64(n).view(np.int64), rdt), complex_ok=False)
    else:
        arr = _randint_arr(g, lo, hi, self._data, dt)
    return _fill(self, arr, node)


@register(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill this tensor in place with 0/1 values, 1 with probability ``p`` (a number or a
    tensor broadcastable to self).

    Example::

        >>> ember.zeros(3).bernoulli_(1.0)
        tensor([1., 1., 1.])
    """
    g = _gen(generator, self.device)
    shape = tuple(self._data.shape)
    dt = self.dtype
    if isinstance(p, Tensor):
        pr = _host(p._data)
        if pr.dtype.kind not in 'fV':
            pr = pr.astype(np.float64)
        if pr.size and not bool(((pr >= 0) & (pr <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        try:
            np.broadcast_to(pr, shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[-1] if shape else 1}) must match the "
                f"existing size ({pr.shape[-1] if pr.ndim else 1}) at non-singleton dimension "
                f"{len(shape) - 1}.  Target sizes: [{', '.join(map(str, shape))}].  Tensor "
                f"sizes: [{', '.join(map(str, pr.shape))}]") from None
        return _fill(self, _bernoulli_tensor_arr(g, self._data, dt, pr), BernoulliBackward1)
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill(self, _bernoulli_scalar_arr(g, self._data, dt, p), BernoulliBackward2)


def _num(v):
    """A number as PyTorch's messages print it (``1.5``, ``0``, ``-1``)."""
    return int(v) if float(v).is_integer() else v


@register(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill this tensor in place with samples of an exponential distribution of rate
    ``lambd`` (mean ``1 / lambd``).

    Example::

        >>> bool((ember.empty(1000).exponential_(2.0) >= 0).all())
        True
    """
    dt = self.dtype
    if dt._cat != 2:
        raise RuntimeError(f"Exponential distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified "
                           f"{_legacy_name(dt)}")
    lambd = _scal(lambd)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    arr = _exponential_arr(_gen(generator, self.device), self._data, dt, lambd)
    return _fill(self, arr, ExponentialBackward0)


@register(function=False)
def geometric_(self, p, *, generator=None):
    """Fill this tensor in place with geometric samples: the number of Bernoulli(``p``)
    trials up to and including the first success (always >= 1).

    Example::

        >>> bool((ember.empty(1000).geometric_(0.5) >= 1).all())
        True
    """
    p = _scal(p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    lp = math.log1p(-p)
    g = _gen(generator, self.device)
    arr = _sample(self._data, self.dtype, _float_dist_flat(
        g, lambda u: np.ceil(_libm(math.log, u) / lp)), complex_ok=False)
    return _fill(self, arr, GeometricBackward0)


@register(function=False)
def log_normal_(self, mean=1, std=2, *, generator=None):
    """Fill this tensor in place with ``exp(X)`` samples, ``X`` normal of mean ``mean`` and
    standard deviation ``std``.

    Example::

        >>> bool((ember.empty(1000).log_normal_() > 0).all())
        True
    """
    dt = _float_only(self, 'log_normal_cpu')
    mean, std = _scal(mean), _scal(std)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    g = _gen(generator, self.device)
    arr = _sample(self._data, dt, lambda n, rdt, c: _to_scalar_t(
        _libm(math.exp, _normal_scalar(g, n, mean, std)), rdt), complex_ok=False)
    return _fill(self, arr, LogNormalBackward0)


@register(function=False)
def cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fill this tensor in place with samples of a Cauchy distribution of location
    ``median`` and scale ``sigma``.

    Example::

        >>> ember.empty(2, 2).cauchy_(median=0.0, sigma=1.0).shape
        torch.Size([2, 2])
    """
    dt = self.dtype
    if dt._cat != 2:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_np_names(dt)}{' int' if dt is D.int64 else ''}")
    median, sigma = _scal(median), _scal(sigma)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    md, sg = float(median), float(sigma)
    arr = _sample(self._data, dt, _float_dist_flat(
        _gen(generator, self.device),
        lambda u: md + sg * _libm(math.tan, math.pi * (u - 0.5))), complex_ok=False)
    return _fill(self, arr, CauchyBackward0)


# ------------------------------------------------------------------------- dropout noise
def dropout_noise(input, p, feature=False, generator=None):
    """The scaled mask PyTorch's CPU ``dropout`` multiplies ``input`` by: ``empty(shape)
    .bernoulli_(1 - p).div_(1 - p)``, with ``shape`` that of ``input`` (or ``(N, C, 1,
    ...)`` for the feature/channel dropouts). ``p == 1`` gives zeros without drawing;
    the layers skip this when ``p == 0`` or not training, as PyTorch does.

    Example::

        >>> from ember._ops.random_ops import dropout_noise
        >>> x = ember.ones(8)
        >>> bool(((x * dropout_noise(x, 0.5)) % 2 == 0).all())
        True
    """
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (len(shape) - 2)
    dt, dev = input.dtype, input.device
    if p == 1:
        return wrap(to_device(np.zeros(shape, dt._np), dev))
    g = _gen(generator, dev)
    q = 1.0 - p
    noise = _bernoulli_scalar_arr(g, shape, dt, q)
    noise = _dt_op(noise, q, dt, 'div')
    # drawn on the host; the backend places it (cupy on CUDA, the strict check array)
    return wrap(to_device(noise, dev))


# ------------------------------------------------------------------------- gamma, binomial
# (the samplers torch.distributions draws from; Dirichlet's are in ``dirichlet``)
class _ScalarStream:
    """Draw-by-draw ``uniform_real_distribution<double>(0, 1)`` and
    ``normal_distribution<double>(0, 1)`` values from a generator, for rejection samplers
    (PyTorch's CPU gamma / binomial kernels consume one draw at a time). Uniforms are drawn
    ahead in chunks; :meth:`close` rewinds the generator and advances it by exactly the
    words used, and leaves the cached Box-Muller sample in the generator as PyTorch does."""

    def __init__(self, g, est):
        self.g = g
        self.saved, self.saved0 = g._mt.state, g._next0
        self.chunk = int(min(max(est, 16), 1 << 20))
        self.buf, self.pos, self.used = [], 0, 0
        self.cached = g._next_double

    def uniform(self):
        if self.pos == len(self.buf):
            self.buf, self.pos = _unit(self.g, self.chunk, 53).tolist(), 0
        self.pos += 1
        self.used += 1
        return self.buf[self.pos - 1]

    def normal(self):
        c = self.cached
        if c is not None:
            self.cached = None
            return c
        u1 = self.uniform()
        u2 = self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.cached = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self):
        g = self.g
        g._mt.state, g._next0 = self.saved, self.saved0
        if self.used:
            g._words(2 * self.used)
        g._next_double = self.cached


_THIRD_F = float(np.float32(1.0) / np.float32(3.0))     # the float constant 1.0f / 3.0f
_C0331_F = float(np.float32(0.0331))


def _gamma_one(alpha, st, f32):
    """One ``Gamma(alpha, 1)`` draw by Marsaglia and Tsang's method, with PyTorch's boost
    for ``alpha < 1`` and its mixed float/double arithmetic (``f32``: float32 ``alpha``)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(np.float32(1.0) / np.float32(alpha)) if f32 else 1.0 / alpha
        scale *= (1.0 - st.uniform()) ** inv
        alpha = float(np.float32(alpha) + np.float32(1.0)) if f32 else alpha + 1.0
    d = float(np.float32(alpha) - np.float32(_THIRD_F)) if f32 else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d) if d > 0 else math.nan     # C: sqrt(<0) is NaN
    while True:
        while True:
            x = st.normal()
            y = 1.0 + c * x
            if not y <= 0:                                      # NaN leaves the loop too
                break
        v = y * y * y
        u = 1.0 - st.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _gamma_arr(g, alpha, f32):
    """Gamma draws for the float64 array ``alpha`` (row-major order), as float64."""
    flat = alpha.reshape(-1).tolist()
    out = np.empty(len(flat), np.float64)
    st = _ScalarStream(g, 3.0 * len(flat) + 16)
    try:
        for i, a in enumerate(flat):
            out[i] = _gamma_one(a, st, f32)
    finally:
        st.close()
    return out.reshape(alpha.shape)


class StandardGammaGradBackward0(Node):
    def backward(self, g):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not "
                                  "implemented.")


def _digamma_arr(x):
    from ._special import digamma
    return digamma(x)


def _gamma_grad_arr(alpha, x):
    """``-(d/dalpha cdf(x; alpha)) / pdf(x; alpha)`` for standard Gamma draws ``x``
    (float64 arrays): a Taylor series for small ``x``, a saddle-point expansion for large
    ``alpha``, else a bivariate rational approximation (PyTorch's piecewise formula)."""
    xp = array_module(x)
    out = xp.zeros(np.broadcast_shapes(alpha.shape, x.shape), np.float64)
    alpha, x = xp.broadcast_to(alpha, out.shape), xp.broadcast_to(x, out.shape)
    f08, f09, f11 = float(np.float32(0.8)), float(np.float32(0.9)), float(np.float32(1.1))
    small = x < f08
    big = ~small & (alpha > 8.0)
    near = big & (f09 * alpha <= x) & (x <= f11 * alpha)
    far = big & ~near
    rat = ~small & ~big
    with np.errstate(all='ignore'):
        if small.any():
            a, t = alpha[small], x[small]
            numer, denom = xp.ones_like(t), a.copy()
            s1, s2 = numer / denom, numer / (denom * denom)
            for i in range(1, 6):
                numer = numer * (-t / i)
                denom = denom + 1
                s1 = s1 + numer / denom
                s2 = s2 + numer / (denom * denom)
            pxa = t ** a
            pdf = t ** (a - 1) * xp.exp(-t)
            cdf = pxa * s1
            cdf_a = (xp.log(t) - _digamma_arr(a)) * cdf - pxa * s2
            r = -cdf_a / pdf
            out[small] = xp.where(xp.isnan(r), 0.0, r)
        if near.any():
            a, t = alpha[near], x[near]
            n1 = 1 + 24 * a * (1 + 12 * a)
            n2 = 1440 * (a * a) + 6 * t * (53 - 120 * t) - 65 * t * t / a + a * (107 + 3600 * t)
            out[near] = n1 * n2 / (1244160 * (a * a) * (a * a))
        if far.any():
            a, t = alpha[far], x[far]
            den = xp.sqrt(8 * a)
            t2 = den / (a - t)
            t3 = (t - a - a * xp.log(t / a)) ** -1.5
            t23 = xp.where(t < a, t2 - t3, t2 + t3)
            t1 = xp.log(t / a) * t23 - xp.sqrt(2 / a) * (a + t) / ((a - t) * (a - t))
            stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
            out[far] = -stirling * (t * t1) / den
        if rat.any():
            a, t = alpha[rat], x[rat]
            u, v = xp.log(t / a), xp.log(a)
            cv = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
            p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
            q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
            out[rat] = xp.exp(p / q)
    return out


# the rational approximation's coefficients (published with the implicit reparameterisation
# gradients of Figurnov et al. 2018; PyTorch uses the same fit)
_GAMMA_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
              1, 0.32668115, 0.10406089, 0.0014179084),
             (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
              0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
             (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
              0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def _float_pair(name, a, b):
    if a.dtype._cat != 2:
        raise _not_impl(name, a.dtype)
    if b.dtype != a.dtype:
        raise RuntimeError(f"Found dtype {_legacy_name(b.dtype)} but expected "
                           f"{_legacy_name(a.dtype)}")


@register(method=False)
def _standard_gamma_grad(self, output):
    """The reparameterised gradient ``d output / d self`` of standard Gamma draws
    ``output`` with concentrations ``self`` (PyTorch's approximation).

    Example::

        >>> ember._standard_gamma_grad(ember.tensor([2.]), ember.tensor([1.5]))
        tensor([0.9006])
    """
    _float_pair('_standard_gamma_grad_cpu', self, output)
    dt = self.dtype
    xp = array_module(self._data)
    r = _gamma_grad_arr(xp.asarray(self._data, np.float64), xp.asarray(output._data, np.float64))
    o = wrap(r.astype(dt._np))
    if grad_needed(self, output):
        record(o, StandardGammaGradBackward0(), (self, output))
    return o


class StandardGammaBackward0(Node):
    def backward(self, g):
        (x,), (res,) = self.saved_tensors[:1], self.saved_tensors[1:]
        return g * _standard_gamma_grad(x, res)


@register(method=False)
def _standard_gamma(self, generator=None):
    """Draws ``Gamma(self, 1)`` samples (same shape and dtype as ``self``),
    reparameterised: the gradient w.r.t. ``self`` is PyTorch's implicit one.

    Example::

        >>> ember._standard_gamma(ember.ones(3)).shape
        torch.Size([3])
    """
    dt = self.dtype
    if dt._cat != 2:
        raise _not_impl('gamma_cpu', dt)
    alpha = _host(self._data).astype(np.float64)
    f32 = np.dtype(dt._np) != _F64
    arr = _gamma_arr(_gen(generator, self.device), alpha, f32)
    arr = np.asarray(_to_scalar_t(arr, dt), dtype=dt._np)
    tiny = np.finfo(arr.dtype).tiny
    arr = np.where(tiny < arr, arr, tiny).astype(arr.dtype)   # std::max(tiny, x): NaN -> tiny
    o = wrap(_into_module_of(arr, self))
    if grad_needed(self):
        record(o, StandardGammaBackward0(), (self,), save=(self, o))
    return o


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _btrs(count, prob, st, S):
    """Hoermann's transformed rejection sampler (BTRS) for ``count * prob >= 10``; ``S``
    is the scalar type (``np.float32`` or ``float``) for PyTorch's scalar_t steps."""
    stddev = float(np.sqrt(S(S(count) * S(prob) * S(S(1) - S(prob)))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = float(S(count) * S(prob)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(S(prob) / S(S(1) - S(prob)))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float(S(S(count) + S(1)) * S(prob)))
    while True:
        u = st.uniform() - 0.5
        v = st.uniform()
        us = 0.5 - abs(u)
        k = float(S(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * math.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
              + _stirling_tail(m) + _stirling_tail(count - m)
              - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= ub:
            return k


def _binomial_inversion(count, prob, st, S):
    logprob = float(np.log1p(S(-prob)))
    geom_sum, num = 0.0, 0.0
    while True:
        u = st.uniform()
        geom_sum += math.ceil(math.log(u) / logprob)
        if geom_sum > count:
            return num
        num += 1


def _binomial_one(count, prob, st, S):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(S(count) * S(prob)) >= 10.0:
            return _btrs(count, prob, st, S)
        return _binomial_inversion(count, prob, st, S)
    if prob > 0.5:
        q = float(S(1.0 - prob))
        if float(S(count) * S(q)) >= 10.0:
            return count - _btrs(count, q, st, S)
        return count - _binomial_inversion(count, q, st, S)
    return math.nan


@register(method=False)
def binomial(count, prob, generator=None):
    """Draws binomial counts: the number of successes in ``count`` trials of success
    probability ``prob`` (broadcast together; floating dtype of ``count``).

    Example::

        >>> ember.binomial(ember.tensor([5., 0.]), ember.tensor([1., 0.5]))
        tensor([5., 0.])
    """
    for nm, t in (('count', count), ('prob', prob)):
        if t.dtype._cat != 2:
            raise ValueError(f"binomial only supports floating-point dtypes for {nm}, got: "
                             f"{_legacy_name(t.dtype)}")
    dt = count.dtype
    if prob.dtype != dt:
        raise RuntimeError(f"Found dtype {_legacy_name(prob.dtype)} but expected "
                           f"{_legacy_name(dt)}")
    c, p = _host(count._data), _host(prob._data)
    shape = _broadcast(tuple(c.shape), tuple(p.shape))
    c = np.broadcast_to(c, shape).astype(np.float64).reshape(-1).tolist()
    p = np.broadcast_to(p, shape).astype(np.float64).reshape(-1).tolist()
    S = float if np.dtype(dt._np) == _F64 else np.float32
    out = np.empty(len(c), np.float64)
    st = _ScalarStream(_gen(generator, count.device), 4.0 * len(c) + 16)
    try:
        for i in range(len(c)):
            out[i] = _binomial_one(c[i], p[i], st, S)
    finally:
        st.close()
    arr = np.asarray(out.reshape(shape), dtype=dt._np)
    o = wrap(_into_module_of(arr, count))
    if grad_needed(count, prob):
        _record_not_impl(o, 'binomial', count, prob)
    return o
