"""Random sampling: ``rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/
``multinomial``/``poisson``, the ``_like`` forms, and the in-place samplers
(``uniform_``, ``normal_``, ``bernoulli_``, ``random_``, ``exponential_``, ``geometric_``,
``log_normal_``, ``cauchy_``). Also binds the global seeding functions and
``ember.Generator`` into the ``ember`` namespace.

Every sampler takes ``generator=`` (default: the default generator of the output's device).
Values are drawn on the host by NumPy's PCG64 and moved to the output's device.
NOTE: unlike PyTorch, the random streams differ from PyTorch's; ``manual_seed`` makes ember
reproducible with itself only. Samplers have zero gradient (PyTorch's ``*Backward`` nodes).
"""
import builtins
import math

import numpy as np

from .. import _dtype as D
from .. import random as _random
from .._tensor import Tensor, inplace_apply, check_inplace, _legacy_name
from .._device import device as _device, CPU
from .._backend import to_device, device_of
from ._util import wrap, Node, register, grad_needed, record, FUNCTIONS
from .creation import _shape_args, _dev, _finish, _write_out

__all__ = ['rand', 'randn', 'randint', 'randperm', 'normal', 'bernoulli', 'multinomial',
           'poisson', 'rand_like', 'randn_like', 'randint_like']

# the global RNG API lives in ember.random; expose it as ember.<name>
for _n in ('Generator', 'manual_seed', 'seed', 'initial_seed', 'get_rng_state',
           'set_rng_state'):
    FUNCTIONS[_n] = getattr(_random, _n)
FUNCTIONS['default_generator'] = _random.default_generator


# ------------------------------------------------------------------------- drawing helpers
def _rng(generator, dev):
    g = generator if generator is not None else _random._default_for(dev)
    return g._rng


def _np_names(dt):
    return {'Long': 'long', 'Int': 'int', 'Short': 'short int', 'Char': 'signed char',
            'Byte': 'unsigned char', 'Bool': 'bool', 'Half': 'c10::Half',
            'BFloat16': 'c10::BFloat16', 'Float': 'float', 'Double': 'double'}.get(
                _legacy_name(dt), dt._name)


def _not_impl(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_legacy_name(dt)}\'')


def _uniform01(rng, shape, npdt):
    """Uniform [0, 1) values drawn directly in floating dtype ``npdt`` (exact: never 1)."""
    if npdt == np.float32:
        return rng.random(shape, dtype=np.float32)
    if npdt == np.float64:
        return rng.random(shape)
    bits = 11 if npdt == np.float16 else 8   # half / bfloat16 mantissa digits
    k = rng.integers(0, 1 << bits, shape, dtype=np.int32)
    return (k.astype(np.float32) * np.float32(2.0 ** -bits)).astype(npdt)


def _std_normal(rng, shape, npdt):
    if npdt == np.float32:
        return rng.standard_normal(shape, dtype=np.float32)
    if npdt == np.float64:
        return rng.standard_normal(shape)
    return rng.standard_normal(shape, dtype=np.float32).astype(npdt)


def _real_np(dt):
    return dt.to_real()._np


def _uniform_arr(rng, shape, dt, kernel='check_uniform_bounds'):
    """Uniform [0, 1) array of dtype ``dt`` (complex: independent real and imaginary)."""
    if dt._cat == 3:
        r = _real_np(dt)
        return (_uniform01(rng, shape, r) + 1j * _uniform01(rng, shape, r)).astype(dt._np)
    if dt._cat != 2:
        raise _not_impl(kernel, dt)
    return _uniform01(rng, shape, dt._np)


def _normal_arr(rng, shape, dt):
    """Standard normal array of dtype ``dt`` (complex: variance 1/2 per component)."""
    if dt._cat == 3:
        r = _real_np(dt)
        s = r.type(math.sqrt(0.5))
        return (_std_normal(rng, shape, r) * s + 1j * (_std_normal(rng, shape, r) * s)).astype(dt._np)
    if dt._cat != 2:
        raise _not_impl('normal_kernel_cpu', dt)
    return _std_normal(rng, shape, dt._np)


def _size_from(size, kw):
    kw_size = kw.pop('size', None)
    if kw:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(kw))}'")
    if kw_size is not None:
        if size:
            raise TypeError("got multiple values for argument 'size'")
        size = (kw_size,)
    return _shape_args(size)


def _new_random(arr, dev, requires_grad, out):
    if dev.type != 'cpu':
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
    shape = _size_from(size, kw)
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    return _new_random(_uniform_arr(_rng(generator, dev), shape, dt), dev, requires_grad, out)


@register(method=False)
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kw):
    """Standard normal random numbers (mean 0, variance 1) of shape ``size``.

    Example::

        >>> ember.randn(4).dtype
        torch.float32
    """
    shape = _size_from(size, kw)
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D._default_dtype)
    return _new_random(_normal_arr(_rng(generator, dev), shape, dt), dev, requires_grad, out)


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
        digits = {np.dtype(np.float16): 11, np.dtype(np.float32): 24,
                  np.dtype(np.float64): 53}.get(dt._np, 8)
        mn, mx = -(1 << digits), 1 << digits
    if lo < mn or lo > mx:
        raise RuntimeError(f"from is out of bounds for {_np_names(dt)}")
    if hi - 1 < mn or hi - 1 > mx:
        raise RuntimeError(f"to - 1 is out of bounds for {_np_names(dt)}")


def _randint_arr(rng, lo, hi, shape, dt):
    _int_bounds_check(lo, hi, dt)
    if hi - 1 > np.iinfo(np.int64).max:
        a = rng.integers(lo, hi, shape, dtype=np.uint64)
    else:
        a = rng.integers(lo, hi, shape, dtype=np.int64)
    return a.astype(dt._np) if a.dtype != dt._np else a


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
    return (0 if low is None else _int_arg(low)), _int_arg(high), size


@register(method=False)
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    """Random integers uniform on ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``; int64 unless ``dtype`` is given.

    Example::

        >>> ember.randint(3, 10, (2, 2)).dtype
        torch.int64
    """
    low, high, size = _parse_randint('randint', args, low, high, size)
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(size).__name__}")
    shape = _shape_args((size,))
    dev = _dev(device)
    dt = dtype or (out.dtype if out is not None else D.int64)
    arr = _randint_arr(_rng(generator, dev), low, high, shape, dt)
    return _new_random(arr, dev, requires_grad, out)


@register(method=False)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 by default).

    Example::

        >>> sorted(ember.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    n = _int_arg(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dev = _dev(device)
    dt = dtype or D.int64
    arr = _rng(generator, dev).permutation(n).astype(dt._np)
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
        z = _normal_arr(_rng(generator, dev), shape, dt)
        arr = (z * dt._np.type(std) + dt._np.type(mean)).astype(dt._np, copy=False) \
            if dt._cat >= 2 and dt._np.kind != 'V' else (z.astype(np.float32) * std + mean).astype(dt._np)
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
    z = _normal_arr(_rng(generator, dev), shape, dt)
    if dev.type != 'cpu':
        z = to_device(z, dev)
    m = mean._data if tm else mean
    s = std._data if ts else std
    if dt._np.kind == 'V':
        res = (z.astype(np.float32) * (s.astype(np.float32) if ts else s)
               + (m.astype(np.float32) if tm else m)).astype(dt._np)
    else:
        res = z * (s.astype(dt._np, copy=False) if ts else dt._np.type(s)) + \
            (m.astype(dt._np, copy=False) if tm else dt._np.type(m))
        res = res.astype(dt._np, copy=False)
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


@register()
def bernoulli(input, p=None, *, generator=None, out=None):
    """Draws 0/1 values: ``1`` with probability ``input`` element-wise (or with the scalar
    probability ``p`` for every element of ``input``'s shape). Same dtype as ``input``.

    Example::

        >>> ember.bernoulli(ember.tensor([0., 1.]))
        tensor([0., 1.])
    """
    dt, dev = input.dtype, input.device
    rng = _rng(generator, dev)
    shape = input._data.shape
    if p is None:
        if dt._cat != 2:
            raise _not_impl('bernoulli_tensor_cpu_p_', dt)
        pr = _host(input._data)
        if pr.size and not bool(((pr >= 0) & (pr <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        arr = (rng.random(shape) < pr.astype(np.float64)).astype(dt._np)
    else:
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        arr = (rng.random(shape) < p).astype(dt._np)
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
    k = a.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    p = _host(a).astype(np.float64).reshape(-1, k)
    if p.size and not bool((np.isfinite(p) & (p >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    tot = p.sum(axis=1)
    if p.shape[0] and bool((tot <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator, input.device)
    rows = p.shape[0]
    if replacement:
        res = np.empty((rows, num_samples), np.int64)
        u = rng.random((rows, num_samples))
        for r in range(rows):
            cdf = np.cumsum(p[r])
            cdf /= cdf[-1]
            res[r] = np.minimum(np.searchsorted(cdf, u[r], side='right'), k - 1)
    else:
        # exponential race: category i wins at time E_i / p_i; the first num_samples win
        with np.errstate(divide='ignore'):
            keys = rng.standard_exponential((rows, k)) / p
        res = np.argsort(keys, axis=1, kind='stable')[:, :num_samples].astype(np.int64)
    if a.ndim == 1:
        res = res[0]
    o = wrap(to_device(res, input.device) if input.device.type != 'cpu' else res)
    if out is not None:
        return _write_out(out, o)
    return o


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
    arr = _rng(generator, input.device).poisson(lam).astype(dt._np)
    arr = np.asarray(arr, dtype=dt._np)
    o = wrap(to_device(arr, input.device) if input.device.type != 'cpu' else arr)
    if grad_needed(input):
        record(o, PoissonBackward0(), (input,))
    return o


# ------------------------------------------------------------------------- _like forms
def _like_args(input, dtype, device):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input._data.shape, dtype or input.dtype, _dev(device) if device is not None else input.device


@register(method=False)
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    """:func:`rand` with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.rand_like(ember.zeros(2, 3, dtype=ember.float64)).dtype
        torch.float64
    """
    shape, dt, dev = _like_args(input, dtype, device)
    return _new_random(_uniform_arr(_rng(generator, dev), shape, dt), dev, requires_grad, None)


@register(method=False)
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    """:func:`randn` with the shape (and by default the dtype and device) of ``input``.

    Example::

        >>> ember.randn_like(ember.zeros(4)).shape
        torch.Size([4])
    """
    shape, dt, dev = _like_args(input, dtype, device)
    return _new_random(_normal_arr(_rng(generator, dev), shape, dt), dev, requires_grad, None)


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
    shape, dt, dev = _like_args(input, dtype, device)
    return _new_random(_randint_arr(_rng(generator, dev), low, high, shape, dt), dev,
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


def _compute(dt, fn):
    """Run ``fn(npdt)`` in the dtype's own precision (float32 for half/bfloat16)."""
    work = np.float32 if dt._np.kind == 'V' or dt._np == np.float16 else dt._np
    return fn(np.dtype(work))


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
    if dt._cat == 3:
        raise _not_impl('check_uniform_bounds', dt)
    _float_only(self, 'check_uniform_bounds')
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    rng = _rng(generator, self.device)
    shape = self._data.shape

    def f(w):
        u = _uniform01(rng, shape, w)
        return u * w.type(to - from_) + w.type(from_)
    return _fill(self, _compute(dt, f), UniformBackward0)


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
    rng = _rng(generator, self.device)
    shape = self._data.shape
    if dt._cat == 3:
        return _fill(self, _normal_arr(rng, shape, dt) * std + mean, NormalBackward0)

    def f(w):
        return _std_normal(rng, shape, w) * w.type(std) + w.type(mean)
    return _fill(self, _compute(dt, f), NormalBackward0)


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
    if not args and not kw:
        node, lo, hi = RandomBackward2, 0, _top(dt) + 1
    elif (len(args) == 1 and not kw) or (not args and set(kw) == {'to'}):
        node, lo = RandomBackward1, 0
        hi = int(_scal(args[0] if args else kw['to']))
    else:
        node = RandomBackward0
        lo = int(_scal(args[0] if args else kw['from']))
        to = args[1] if len(args) > 1 else kw.get('to')
        hi = _top(dt) + 1 if to is None else int(_scal(to))
    arr = _randint_arr(_rng(generator, self.device), lo, hi, self._data.shape, dt)
    return _fill(self, arr, node)


@register(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill this tensor in place with 0/1 values, 1 with probability ``p`` (a number or a
    tensor broadcastable to self).

    Example::

        >>> ember.zeros(3).bernoulli_(1.0)
        tensor([1., 1., 1.])
    """
    rng = _rng(generator, self.device)
    shape = self._data.shape
    if isinstance(p, Tensor):
        pr = _host(p._data).astype(np.float64)
        if pr.size and not bool(((pr >= 0) & (pr <= 1)).all()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        try:
            pr = np.broadcast_to(pr, shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[-1] if shape else 1}) must match the "
                f"existing size ({pr.shape[-1] if pr.ndim else 1}) at non-singleton dimension "
                f"{len(shape) - 1}.  Target sizes: [{', '.join(map(str, shape))}].  Tensor "
                f"sizes: [{', '.join(map(str, pr.shape))}]") from None
        return _fill(self, rng.random(shape) < pr, BernoulliBackward1)
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill(self, rng.random(shape) < p, BernoulliBackward2)


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
    rng = _rng(generator, self.device)
    shape = self._data.shape

    def f(w):
        w32 = w if w in (np.float32, np.float64) else np.dtype(np.float32)
        return rng.standard_exponential(shape, dtype=w32.type) / w32.type(lambd)
    return _fill(self, _compute(dt, f), ExponentialBackward0)


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
    arr = _rng(generator, self.device).geometric(p, self._data.shape)
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
    rng = _rng(generator, self.device)
    shape = self._data.shape

    def f(w):
        return np.exp(_std_normal(rng, shape, w) * w.type(std) + w.type(mean))
    return _fill(self, _compute(dt, f), LogNormalBackward0)


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
    rng = _rng(generator, self.device)
    arr = median + sigma * np.tan(np.pi * (rng.random(self._data.shape) - 0.5))
    return _fill(self, arr, CauchyBackward0)
