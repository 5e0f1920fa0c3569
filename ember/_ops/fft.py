"""Discrete Fourier transforms (the ops behind ``ember.fft``), and the short-time Fourier
transform ``stft`` / ``istft``.

Every transform of ``ember.fft`` is written over three primitives, each with its own
backward node (named as PyTorch names them):

* ``_c2c`` -- complex to complex over some dims, forward or inverse direction
  (``FftC2CBackward0``: the gradient is the transform in the other direction, same scale);
* ``_r2c`` -- real to complex in the forward direction, the full spectrum or only its
  non-negative half along the last transformed dim (``FftR2CBackward0``: the gradient is the
  real part of the inverse complex transform of the (zero-extended) gradient);
* ``_c2r`` -- a Hermitian half spectrum to a real signal, inverse direction
  (``FftC2RBackward0``: the gradient is the forward real transform of the gradient, with the
  bins that stand for two conjugate bins counted twice).

A scale ``mode`` travels with each primitive: 0 none, 1 ``1/sqrt(n)``, 2 ``1/n`` (``n`` the
number of points of the transform), so that a backward transform uses exactly the forward's
scale. The backward formulas call these same primitives, so double backward works.

Gradients follow PyTorch's convention for complex autograd (``dL/dRe + i dL/dIm``).
"""
import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode
from .._backend import array_module
from ._util import wrap, Node, register, record, write_out
from . import _args

__all__ = []

_int = builtins.int
_NORMS = (None, 'backward', 'ortho', 'forward')


# ----------------------------------------------------------------------------- helpers

def _norm_mode(norm, forward):
    """Scale mode of a transform in direction ``forward`` under ``norm``: 0 none,
    1 by 1/sqrt(n), 2 by 1/n."""
    if norm is None or norm == 'backward':
        return 0 if forward else 2
    if norm == 'forward':
        return 2 if forward else 0
    if norm == 'ortho':
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _np_norm(mode, forward):
    """NumPy's ``norm=`` keyword giving scale ``mode`` to a transform in direction
    ``forward`` (NumPy names the mode by the direction that is scaled by 1/n)."""
    if mode == 1:
        return 'ortho'
    if forward:
        return 'backward' if mode == 0 else 'forward'
    return 'backward' if mode == 2 else 'forward'


def _complex_np(real_np):
    return np.dtype(np.complex128) if real_np == np.float64 else np.dtype(np.complex64)


def _real_np(cplx_np):
    return np.dtype(np.float64) if cplx_np == np.complex128 else np.dtype(np.float32)


def _float_input(x, fname):
    """``x`` as a floating or complex tensor: integers and bools go to the default float
    dtype (as PyTorch promotes them); half precision is refused as PyTorch's CPU does."""
    if not isinstance(x, Tensor):
        _args.tensor(x, fname)
    k = x._data.dtype
    if k in _OK:
        return x
    if k.kind in 'biu':
        return x.to(D._default_dtype)
    raise RuntimeError(f"Unsupported dtype {_legacy(x.dtype)}")


_OK = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
       np.dtype(np.complex128))


def _legacy(dt):
    from .._tensor import _legacy_name
    return _legacy_name(dt)


def _to_complex(x):
    """A real tensor cast to the matching complex dtype (differentiable)."""
    a = x._data
    if a.dtype.kind == 'c':
        return x
    return x.to(D._NP2DT[_complex_np(a.dtype)])


def _n_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _one_dim(x, n, dim, fname):
    """Wrapped ``dim`` and checked ``n`` of a 1-D transform."""
    if dim.__class__ is not _int:
        dim = _args.as_int(dim, fname, 'dim', 3)
    if n is not None and n.__class__ is not _int:
        n = _args.as_int(n, fname, 'n', 2)
    nd = x._data.ndim
    if nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if dim < -nd or dim >= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    if dim < 0:
        dim += nd
    return n, dim


def _n_dims(x, s, dim, fname):
    """``(sizes, dims)`` of an n-D transform from its ``s`` and ``dim`` arguments: sizes
    are None where the input's size is kept (``-1`` in ``s``, or no ``s``)."""
    nd = x._data.ndim
    if s is not None:
        s = _args.as_int_list(s, fname, 's', 2)
    if dim is not None:
        dim = _args.as_int_list(dim, fname, 'dim', 3)
        out = []
        for d in dim:
            n = nd if nd > 0 else 0
            if d < -n or d >= n or n == 0:
                if n == 0:
                    raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-n}, {n - 1}], but got {d})")
            out.append(d + n if d < 0 else d)
        if len(set(out)) != len(out):
            raise RuntimeError("FFT dims must be unique")
        dims = tuple(out)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{nd} dimensions.")
        dims = tuple(range(nd - len(s), nd))
    else:
        dims = tuple(range(nd))
    if s is None:
        sizes = [None] * len(dims)
    else:
        sizes = [None if v == -1 else v for v in s]
        for v in sizes:
            if v is not None:
                _n_points(v)
    return sizes, dims


def _resize(x, dims, sizes):
    """``x`` trimmed or zero-padded (at the end) along ``dims`` to ``sizes``
    (differentiable: narrow / constant pad)."""
    shape = x._data.shape
    pad = None
    for d, n in zip(dims, sizes):
        cur = shape[d]
        if n < cur:
            x = x.narrow(d, 0, n)
        elif n > cur:
            if pad is None:
                pad = {}
            pad[d] = n - cur
    if pad:
        from .padding import pad as _pad
        nd = len(shape)
        lo = min(pad)
        p = []
        for d in range(nd - 1, lo - 1, -1):
            p += [0, pad.get(d, 0)]
        x = _pad(x, p)
    return x


# ----------------------------------------------------------------------------- primitives

class FftC2CBackward0(Node):
    def backward(self, g):
        return _c2c(g, self.dims, self.mode, not self.forward)


def _c2c(x, dims, mode, forward):
    """Complex-to-complex DFT of complex tensor ``x`` over ``dims``."""
    a = x._data
    xp = array_module(a)
    if not dims:
        res = wrap(a.copy())
    else:
        f = xp.fft.fftn if forward else xp.fft.ifftn
        r = f(a, axes=dims, norm=_np_norm(mode, forward))
        if r.dtype != a.dtype:
            r = r.astype(a.dtype)
        res = wrap(r)
    if _Mode.grad and x._rg:
        node = FftC2CBackward0()
        node.dims, node.mode, node.forward = dims, mode, forward
        record(res, node, (x,))
    return res


class FftR2CBackward0(Node):
    def backward(self, g):
        dims = self.dims
        if self.onesided:
            last = dims[-1]
            n = self.full
            g = _resize(g, (last,), (n,))
        return _c2c(g, dims, self.mode, False).real


# ------------------------------------------------- long one-sided real transforms
# A float32 signal of n = 2m points (a power of two, _LONG_RFFT <= n <= _LONG_RFFT_MAX) is
# transformed as the complex signal z = x[0::2] + i x[1::2] of m points (a view of the
# same memory), whose DFT is computed by the four-step algorithm over an r x c matrix
# (m = r c): DFTs of length r, a twiddle, DFTs of length c, each stage on contiguous rows
# that fit in cache (with tiled transposes between), instead of one transform over the
# whole signal, which runs out of cache (NumPy's float32 transform is slower than its
# float64 one there; the float64 one is left as it is). The half spectrum then follows
# from Z and conj(Z[m - k]):
#   X[k] = (Z[k] + conj(Z[m-k])) / 2 - i W^k (Z[k] - conj(Z[m-k])) / 2, W = exp(-2 pi i / n),
# evaluated as Z[k] a[k] + conj(Z[m-k]) b[k] with the factors a, b kept with the twiddles.
_LONG_RFFT = 1 << 18
_LONG_RFFT_MAX = 1 << 22    # its cached tables take 12 n bytes (48 MiB here): no longer
_TWIDDLES = {}    # (array module, n, complex dtype) -> (twiddle matrix, a, b)


def _long_twiddles(xp, n, cd, r, c):
    key = (xp, n, cd)
    tw = _TWIDDLES.get(key)
    if tw is None:
        m = n // 2
        # exp(-2 pi i k / n) for an exact integer k mod n, in float64
        kk = (xp.arange(c, dtype=xp.int64)[:, None] * xp.arange(r, dtype=xp.int64)) % m
        t = xp.exp((-2j * np.pi / m) * kk).astype(cd)             # [c, k1]
        k = xp.arange(m + 1, dtype=xp.float64)
        w = -0.5j * xp.exp((-2j * np.pi / n) * k)                   # -i W^k / 2
        if len(_TWIDDLES) >= 2:
            _TWIDDLES.clear()
        tw = _TWIDDLES[key] = (t, (0.5 + w).astype(cd), (0.5 - w).astype(cd))
    return tw


def _transpose_into(dst, src, tile=16):
    """``dst[...] = src.transpose(0, 2, 1)`` for ``src`` (b, p, q), ``dst`` (b, q, p), copied
    ``tile`` rows of ``src`` at a time: each source row feeds a short contiguous run of
    every destination row, which stays in cache (a plain transposed copy reads one element
    per cache line: ~2-3x slower on a matrix of megabytes)."""
    for i in range(0, src.shape[1], tile):
        dst[:, :, i:i + tile] = src[:, i:i + tile, :].transpose(0, 2, 1)
    return dst


def _long_rfft_ok(a, dims):
    n = a.shape[-1] if a.ndim else 0
    return (len(dims) == 1 and dims[0] == a.ndim - 1 and _LONG_RFFT <= n <= _LONG_RFFT_MAX
            and n & (n - 1) == 0 and a.dtype == np.float32 and a.flags.c_contiguous)


def _long_rfft(a, mode):
    """The half spectrum of real ``a`` (float32 or float64, C-contiguous, rows of a power
    of two ``n`` points, ``n >= 4``) along its last axis, scaled by ``mode``."""
    xp = array_module(a)
    n = a.shape[-1]
    m = n // 2
    lead = a.shape[:-1]
    b = 1
    for d in lead:
        b *= d
    cd = _complex_np(a.dtype)
    r = 1 << ((m.bit_length() - 1) // 2)
    c = m // r
    t, wa, wb = _long_twiddles(xp, n, cd, r, c)
    z = a.reshape(b, n).view(cd)                                   # (b, m), z[c r' + c']
    at = _transpose_into(xp.empty((b, c, r), cd), z.reshape(b, r, c))   # [., c', r']
    bt = xp.fft.fft(at, axis=-1)                                   # [., c', k1]
    bt *= t
    y = xp.fft.fft(_transpose_into(at.reshape(b, r, c), bt), axis=-1)   # [., k1, k2]
    zf = xp.empty((b, m + 1), cd)
    _transpose_into(zf[:, :m].reshape(b, c, r), y)                 # Z[k1 + r k2]
    zf[:, m] = zf[:, 0]
    zr = xp.conj(zf[:, ::-1])                                      # conj(Z[m - k])
    zr *= wb
    out = xp.multiply(zf, wa, out=zf)
    out += zr                    # Z (1/2 - i W^k / 2) + conj(Z[m-k]) (1/2 + i W^k / 2)
    out[:, 0].imag = 0          # the DC and Nyquist bins are real
    out[:, m].imag = 0
    if mode:
        out *= (1.0 / n) if mode == 2 else (1.0 / math.sqrt(n))
    return out.reshape(lead + (m + 1,))


def _r2c(x, dims, mode, onesided):
    """Real-to-complex forward DFT of real tensor ``x`` over ``dims``: the half spectrum
    along ``dims[-1]`` when ``onesided``, else the full one."""
    a = x._data
    xp = array_module(a)
    nn = _np_norm(mode, True)
    if onesided and _long_rfft_ok(a, dims):
        r = _long_rfft(a, mode)
    elif onesided:
        r = xp.fft.rfftn(a, axes=dims, norm=nn) if len(dims) > 1 else \
            xp.fft.rfft(a, axis=dims[0], norm=nn)
    else:
        r = xp.fft.fftn(a, axes=dims, norm=nn) if len(dims) > 1 else \
            xp.fft.fft(a, axis=dims[0], norm=nn)
    cd = _complex_np(a.dtype)
    if r.dtype != cd:
        r = r.astype(cd)
    res = wrap(r)
    if _Mode.grad and x._rg:
        node = FftR2CBackward0()
        node.dims, node.mode, node.onesided = dims, mode, onesided
        node.full = a.shape[dims[-1]]
        record(res, node, (x,))
    return res


class FftC2RBackward0(Node):
    def backward(self, g):
        dims = self.dims
        gi = _r2c(g, dims, self.mode, True)
        n = self.last
        m = n // 2 + 1
        twice = n - m            # bins 1 .. twice stand for a conjugate pair each
        if twice > 0:
            xp = array_module(g._data)
            w = xp.ones(m, _real_np(gi._data.dtype))
            w[1:1 + twice] = 2
            shape = [1] * gi._data.ndim
            shape[dims[-1]] = m
            gi = gi * wrap(w.reshape(shape))
        return gi


def _c2r(x, dims, mode, last):
    """Inverse DFT of the Hermitian half spectrum ``x`` (complex, ``last // 2 + 1`` bins
    along ``dims[-1]``) to a real signal of ``last`` points along ``dims[-1]``."""
    a = x._data
    xp = array_module(a)
    nn = _np_norm(mode, False)
    if len(dims) > 1:
        s = [a.shape[d] for d in dims[:-1]] + [last]
        r = xp.fft.irfftn(a, s=s, axes=dims, norm=nn)
    else:
        r = xp.fft.irfft(a, n=last, axis=dims[0], norm=nn)
    rd = _real_np(a.dtype)
    if r.dtype != rd:
        r = r.astype(rd)
    res = wrap(r)
    if _Mode.grad and x._rg:
        node = FftC2RBackward0()
        node.dims, node.mode, node.last = dims, mode, last
        record(res, node, (x,))
    return res


# ----------------------------------------------------------------------------- 1-D

def _prep(input, fname):
    x = _float_input(input, fname)
    return x


def _c2c_1d(input, n, dim, norm, forward, fname):
    x = _prep(input, fname)
    n, dim = _one_dim(x, n, dim, fname)
    mode = _norm_mode(norm, forward)
    if n is None:
        n = x._data.shape[dim]
    _n_points(n)
    x = _resize(x, (dim,), (n,))
    if x._data.dtype.kind == 'c':
        return _c2c(x, (dim,), mode, forward)
    r = _r2c(x, (dim,), mode, False)
    return r if forward else r.conj()


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the one dimensional discrete Fourier transform of ``input``.

    Args:
        input (Tensor): the input tensor (real inputs give the full complex spectrum).
        n (int, optional): signal length: the input is zero-padded or trimmed to ``n``
            along ``dim`` before the transform.
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): normalization mode: ``"backward"`` (default, no scaling
            forward), ``"forward"`` (scale by ``1/n``) or ``"ortho"`` (``1/sqrt(n)``).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.arange(4)
        >>> ember.fft.fft(t)
        tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    return write_out(_c2c_1d(input, n, dim, norm, True, 'fft_fft'), out, 'fft_fft')


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the one dimensional inverse discrete Fourier transform of ``input``.

    Args:
        input (Tensor): the input tensor.
        n (int, optional): signal length (zero-pad or trim along ``dim``).
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"``
            (no scaling) or ``"ortho"`` (``1/sqrt(n)``).

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
        >>> ember.fft.ifft(t)
        tensor([0.+0.j, 1.+0.j, 2.+0.j, 3.+0.j])
    """
    return write_out(_c2c_1d(input, n, dim, norm, False, 'fft_ifft'), out, 'fft_ifft')


def _real_only(x, fname, msg):
    if x._data.dtype.kind == 'c':
        raise RuntimeError(f"{msg}, but got {_legacy(x.dtype)}")


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the one dimensional Fourier transform of real-valued ``input``: only the
    ``n // 2 + 1`` non-negative frequencies (the rest follow by Hermitian symmetry).

    Args:
        input (Tensor): the real input tensor.
        n (int, optional): signal length (zero-pad or trim along ``dim``).
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): ``"backward"`` (default), ``"forward"`` or ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.arange(4)
        >>> ember.fft.rfft(t)
        tensor([ 6.+0.j, -2.+2.j, -2.+0.j])
    """
    x = _prep(input, 'fft_rfft')
    _real_only(x, 'fft_rfft', 'rfft expects a real input tensor')
    n, dim = _one_dim(x, n, dim, 'fft_rfft')
    mode = _norm_mode(norm, True)
    if n is None:
        n = x._data.shape[dim]
    _n_points(n)
    x = _resize(x, (dim,), (n,))
    return write_out(_r2c(x, (dim,), mode, True), out, 'fft_rfft')


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the inverse of :func:`hfft`: the one sided inverse transform of a real
    signal (the ``n // 2 + 1`` non-negative frequencies of ``ifft(input)``).

    Args:
        input (Tensor): the real input tensor.
        n (int, optional): signal length (zero-pad or trim along ``dim``).
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.arange(5)
        >>> ember.fft.ihfft(t)
        tensor([ 2.0000-0.0000j, -0.5000-0.6882j, -0.5000-0.1625j])
    """
    x = _prep(input, 'fft_ihfft')
    _real_only(x, 'fft_ihfft', 'ihfft expects a real input tensor')
    n, dim = _one_dim(x, n, dim, 'fft_ihfft')
    mode = _norm_mode(norm, False)
    if n is None:
        n = x._data.shape[dim]
    _n_points(n)
    x = _resize(x, (dim,), (n,))
    return write_out(_r2c(x, (dim,), mode, True).conj(), out, 'fft_ihfft')


def _c2r_1d(input, n, dim, norm, forward, fname):
    x = _prep(input, fname)
    n, dim = _one_dim(x, n, dim, fname)
    mode = _norm_mode(norm, forward)
    if n is None:
        n = 2 * (x._data.shape[dim] - 1)
    _n_points(n)
    x = _resize(_to_complex(x), (dim,), (n // 2 + 1,))
    if forward:          # hfft: the Hermitian signal's forward transform
        x = x.conj()
    return _c2r(x, (dim,), mode, n)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the inverse of :func:`rfft`: a real signal of ``n`` points from its one
    sided (Hermitian) spectrum.

    Args:
        input (Tensor): the half spectrum.
        n (int, optional): output signal length. Default: ``2 * (input.size(dim) - 1)``.
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.linspace(0, 1, 5)
        >>> ember.fft.irfft(ember.fft.rfft(t), t.numel())
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    return write_out(_c2r_1d(input, n, dim, norm, False, 'fft_irfft'), out, 'fft_irfft')


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Computes the one dimensional discrete Fourier transform of a Hermitian symmetric
    signal given by its first half (``input``); the result is real.

    Args:
        input (Tensor): the half Hermitian signal.
        n (int, optional): output length. Default: ``2 * (input.size(dim) - 1)``.
        dim (int, optional): the dimension along which to take the transform. Default: -1.
        norm (str, optional): ``"backward"`` (default: no scaling), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> t = ember.fft.ihfft(ember.arange(5.))
        >>> ember.fft.hfft(t, 5)
        tensor([0.0000, 1.0000, 2.0000, 3.0000, 4.0000])
    """
    return write_out(_c2r_1d(input, n, dim, norm, True, 'fft_hfft'), out, 'fft_hfft')


# ----------------------------------------------------------------------------- n-D

def _c2c_nd(input, s, dim, norm, forward, fname):
    x = _prep(input, fname)
    sizes, dims = _n_dims(x, s, dim, fname)
    mode = _norm_mode(norm, forward)
    shape = x._data.shape
    sizes = [shape[d] if v is None else v for d, v in zip(dims, sizes)]
    for v in sizes:
        _n_points(v)
    x = _resize(_to_complex(x), dims, sizes)
    return _c2c(x, dims, mode, forward)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the N dimensional discrete Fourier transform of ``input``.

    Args:
        input (Tensor): the input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions (zero-pad or
            trim; ``-1`` keeps a size). Default: the input's sizes.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)`` when ``s`` is given.
        norm (str, optional): ``"backward"`` (default), ``"forward"`` or ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> x = ember.ones(2, 2)
        >>> ember.fft.fftn(x)
        tensor([[4.+0.j, 0.+0.j],
                [0.+0.j, 0.+0.j]])
    """
    return write_out(_c2c_nd(input, s, dim, norm, True, 'fft_fftn'), out, 'fft_fftn')


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the N dimensional inverse discrete Fourier transform of ``input``.

    Args:
        input (Tensor): the input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.ifftn(ember.fft.fftn(ember.ones(2, 2))).real
        tensor([[1., 1.],
                [1., 1.]])
    """
    return write_out(_c2c_nd(input, s, dim, norm, False, 'fft_ifftn'), out, 'fft_ifftn')


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the 2 dimensional discrete Fourier transform of ``input`` (:func:`fftn`
    over the last two dimensions by default).

    Args:
        input (Tensor): the input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default), ``"forward"`` or ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.fft2(ember.ones(2, 2))
        tensor([[4.+0.j, 0.+0.j],
                [0.+0.j, 0.+0.j]])
    """
    return write_out(_c2c_nd(input, s, dim, norm, True, 'fft_fft2'), out, 'fft_fft2')


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the 2 dimensional inverse discrete Fourier transform of ``input``.

    Args:
        input (Tensor): the input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.ifft2(ember.fft.fft2(ember.eye(2))).real
        tensor([[1., 0.],
                [0., 1.]])
    """
    return write_out(_c2c_nd(input, s, dim, norm, False, 'fft_ifft2'), out, 'fft_ifft2')


def _rfftn(input, s, dim, norm, out, fname, inverse):
    x = _prep(input, fname)
    if x._data.dtype.kind == 'c':
        if inverse:
            _n_dims(x, s, dim, fname)   # ihfftn checks the dims first (IndexError)
            raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                               f"{_legacy(x.dtype)}")
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{_legacy(x.dtype)}")
    sizes, dims = _n_dims(x, s, dim, fname)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    mode = _norm_mode(norm, not inverse)
    shape = x._data.shape
    sizes = [shape[d] if v is None else v for d, v in zip(dims, sizes)]
    for v in sizes:
        _n_points(v)
    x = _resize(x, dims, sizes)
    r = _r2c(x, dims, mode, True)
    if inverse:      # ihfftn: the conjugate of the scaled forward transform
        r = r.conj()
    return write_out(r, out, fname)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the N dimensional discrete Fourier transform of real ``input``, keeping
    only the non-negative frequencies of the last transformed dimension.

    Args:
        input (Tensor): the real input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)``.
        norm (str, optional): ``"backward"`` (default), ``"forward"`` or ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.rfftn(ember.ones(2, 4)).shape
        torch.Size([2, 3])
    """
    return _rfftn(input, s, dim, norm, out, 'fft_rfftn', False)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the 2 dimensional discrete Fourier transform of real ``input``
    (:func:`rfftn` over the last two dimensions by default).

    Args:
        input (Tensor): the real input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default), ``"forward"`` or ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.rfft2(ember.ones(2, 4)).shape
        torch.Size([2, 3])
    """
    return _rfftn(input, s, dim, norm, out, 'fft_rfft2', False)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the N dimensional inverse discrete Fourier transform of real ``input``,
    keeping only the non-negative frequencies of the last transformed dimension (the
    inverse of :func:`hfftn`).

    Args:
        input (Tensor): the real input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.ihfftn(ember.ones(2, 4))
        tensor([[1.-0.j, 0.-0.j, 0.-0.j],
                [0.-0.j, 0.-0.j, 0.-0.j]])
    """
    return _rfftn(input, s, dim, norm, out, 'fft_ihfftn', True)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the 2 dimensional inverse of :func:`hfft2` on real ``input``
    (:func:`ihfftn` over the last two dimensions by default).

    Args:
        input (Tensor): the real input tensor.
        s (Tuple[int], optional): signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.fft.ihfft2(ember.ones(2, 4)).shape
        torch.Size([2, 3])
    """
    return _rfftn(input, s, dim, norm, out, 'fft_ihfft2', True)


def _irfftn(input, s, dim, norm, out, fname, forward):
    x = _prep(input, fname)
    sizes, dims = _n_dims(x, s, dim, fname)
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    mode = _norm_mode(norm, forward)
    shape = x._data.shape
    last = sizes[-1]
    if last is None:
        last = 2 * (shape[dims[-1]] - 1)
    _n_points(last)
    sizes = [shape[d] if v is None else v for d, v in zip(dims[:-1], sizes[:-1])]
    for v in sizes:
        _n_points(v)
    x = _resize(_to_complex(x), dims, sizes + [last // 2 + 1])
    if forward:
        x = x.conj()
    return write_out(_c2r(x, dims, mode, last), out, fname)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the inverse of :func:`rfftn`: a real signal from its N dimensional
    spectrum, one sided in the last transformed dimension.

    Args:
        input (Tensor): the input spectrum.
        s (Tuple[int], optional): output signal size in the transformed dimensions. The
            last one defaults to ``2 * (input.size(dim[-1]) - 1)``.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> x = ember.ones(2, 4)
        >>> ember.fft.irfftn(ember.fft.rfftn(x), x.shape)
        tensor([[1., 1., 1., 1.],
                [1., 1., 1., 1.]])
    """
    return _irfftn(input, s, dim, norm, out, 'fft_irfftn', False)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the inverse of :func:`rfft2` (:func:`irfftn` over the last two
    dimensions by default).

    Args:
        input (Tensor): the input spectrum.
        s (Tuple[int], optional): output signal size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default: scale by ``1/n``), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> x = ember.ones(2, 4)
        >>> ember.fft.irfft2(ember.fft.rfft2(x), x.shape).shape
        torch.Size([2, 4])
    """
    return _irfftn(input, s, dim, norm, out, 'fft_irfft2', False)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Computes the N dimensional discrete Fourier transform of a Hermitian symmetric
    signal given by its half (in the last transformed dimension); the result is real.

    Args:
        input (Tensor): the half Hermitian signal.
        s (Tuple[int], optional): output size in the transformed dimensions. The last one
            defaults to ``2 * (input.size(dim[-1]) - 1)``.
        dim (Tuple[int], optional): dimensions to transform. Default: all dimensions, or the
            last ``len(s)``.
        norm (str, optional): ``"backward"`` (default: no scaling), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> x = ember.ones(2, 4)
        >>> ember.fft.hfftn(ember.fft.ihfftn(x), x.shape)
        tensor([[1., 1., 1., 1.],
                [1., 1., 1., 1.]])
    """
    return _irfftn(input, s, dim, norm, out, 'fft_hfftn', True)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the 2 dimensional discrete Fourier transform of a Hermitian symmetric
    signal (:func:`hfftn` over the last two dimensions by default).

    Args:
        input (Tensor): the half Hermitian signal.
        s (Tuple[int], optional): output size in the transformed dimensions.
        dim (Tuple[int], optional): dimensions to transform. Default: ``(-2, -1)``.
        norm (str, optional): ``"backward"`` (default: no scaling), ``"forward"`` or
            ``"ortho"``.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> x = ember.ones(2, 4)
        >>> ember.fft.hfft2(ember.fft.ihfft2(x), x.shape).shape
        torch.Size([2, 4])
    """
    return _irfftn(input, s, dim, norm, out, 'fft_hfft2', True)


# ----------------------------------------------------------------------------- helpers

def _freq(fname, n, d, out, dtype, device, requires_grad, half):
    n = _args.as_int(n, fname, 'n', 1)
    if out is not None or dtype is not None or device is not None or requires_grad is not False:
        dtype = _args.factory_args(fname, out, dtype, device, requires_grad)
    if isinstance(d, Tensor):
        d = d.item()
    dt = dtype if dtype is not None else (out.dtype if out is not None else D._default_dtype)
    if dt._cat == 3:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_legacy(dt)}'")
    if dt._cat != 2:
        raise RuntimeError(f"{fname[3:]} requires a floating point or complex dtype")
    # the length is n / 2 + 1 in C++ integer division (truncating): rfftfreq(-1) has 1 point
    m = (abs(n) // 2 * (1 if n >= 0 else -1) + 1) if half else n
    if m < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {m}: [{m}]")
    from .creation import _xp, _finish
    from .._backend import to_device
    npd = dt._np
    xp, dev = _xp(device)
    arr = xp.arange(m, dtype=npd)
    if not half and n:
        arr[(n + 1) // 2:] -= npd.type(n)
    if arr.size:
        arr *= npd.type(1.0 / (n * d)) if n * d else npd.type(float('inf'))
    res = wrap(arr)
    if out is not None:
        return write_out(res, out, fname, cast=True)
    return _finish(res, requires_grad)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of a signal of size ``n``, in the order of :func:`fft`'s
    output: ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n)``.

    Args:
        n (int): the FFT length.
        d (float, optional): the sampling length scale (1/sample rate). Default: 1.0.

    Keyword args:
        out (Tensor, optional): the output tensor.
        dtype (ember.dtype, optional): a floating dtype (default: the default dtype).
        layout, device, requires_grad: as for the other factories.

    Example::

        >>> ember.fft.fftfreq(5)
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    return _freq('fft_fftfreq', n, d, out, dtype, device, requires_grad, False)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of :func:`rfft` of a signal of size ``n``:
    ``[0, 1, ..., n // 2] / (d * n)``.

    Args:
        n (int): the real FFT length.
        d (float, optional): the sampling length scale. Default: 1.0.

    Keyword args:
        out (Tensor, optional): the output tensor.
        dtype (ember.dtype, optional): a floating dtype (default: the default dtype).
        layout, device, requires_grad: as for the other factories.

    Example::

        >>> ember.fft.rfftfreq(5)
        tensor([0.0000, 0.2000, 0.4000])
    """
    return _freq('fft_rfftfreq', n, d, out, dtype, device, requires_grad, True)


def _shift(input, dim, fname, inverse):
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)
    from .shape import roll
    shape = input._data.shape
    nd = len(shape)
    if dim is None:
        dims = tuple(range(nd))
    else:
        dims = _args.as_int_list(dim, fname, 'dim', 2)
        w = []
        for d in dims:
            n = nd if nd > 0 else 1
            if d < -n or d >= n:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-n}, {n - 1}], but got {d})")
            w.append(d + n if d < 0 else d)
        dims = tuple(w)
    if nd == 0:
        return roll(input, (), ())
    shifts = tuple((shape[d] + 1) // 2 if inverse else shape[d] // 2 for d in dims)
    return roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Reorders n-dimensional FFT data, as given by :func:`fftn`, so that negative
    frequencies come first (the zero frequency moves to the centre).

    Args:
        input (Tensor): the tensor in FFT order.
        dim (int or Tuple[int], optional): the dimensions to rearrange. Default: all.

    Example::

        >>> f = ember.fft.fftfreq(4)
        >>> ember.fft.fftshift(f)
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, 'fft_fftshift', False)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`.

    Args:
        input (Tensor): the tensor in centred FFT order.
        dim (int or Tuple[int], optional): the dimensions to rearrange. Default: all.

    Example::

        >>> f = ember.fft.fftfreq(5)
        >>> ember.fft.ifftshift(ember.fft.fftshift(f))
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    return _shift(input, dim, 'fft_ifftshift', True)


# ----------------------------------------------------------------------------- stft / istft

def _type_str(t):
    return t.type()


def _opt(v):
    return 'None' if v is None else str(_int(v) if isinstance(v, bool) else v)


@register()
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode='reflect', normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """Short-time Fourier transform: the DFT of windowed frames of ``input``.

    Frame ``m`` covers samples ``m * hop_length ... m * hop_length + n_fft - 1`` (of the
    input padded by ``n_fft // 2`` on both sides when ``center``); each is multiplied by
    ``window`` (zero-padded to ``n_fft`` in the middle when ``win_length < n_fft``) and
    transformed.

    Args:
        input (Tensor): 1-D ``(L)`` or 2-D ``(B, L)`` signal.
        n_fft (int): size of the Fourier transform.
        hop_length (int, optional): distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): size of the window. Default: ``n_fft``.
        window (Tensor, optional): 1-D window of ``win_length`` (default: all ones).
        center (bool): pad the input so that frame ``m`` is centred at ``m * hop_length``.
        pad_mode (str): padding mode when ``center`` (default ``"reflect"``).
        normalized (bool): scale by ``n_fft ** -0.5``.
        onesided (bool, optional): only the non-negative frequencies (default for real
            input and window).
        return_complex (bool, optional): a complex result; must be given for real inputs.
            ``False`` returns ``view_as_real`` of it (deprecated, as in PyTorch).
        align_to_window (bool, optional): only with ``center=False`` (accepted; the frames
            start at the signal's start either way for full-length windows).

    Returns:
        Tensor: ``(B?, n_fft // 2 + 1 or n_fft, n_frames)``.

    Example::

        >>> x = ember.arange(8.)
        >>> ember.stft(x, 4, return_complex=True).shape
        torch.Size([3, 9])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'stft')
    n_fft = _args.as_int(n_fft, 'stft', 'n_fft', 2)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    sig_dim = input.dim()
    if center:
        from .padding import pad as _pad
        ext = [1] * max(0, 3 - sig_dim) + list(input.shape)
        p = n_fft // 2
        input = _pad(input.reshape(ext), [p, p], pad_mode)
        input = input.reshape(input.shape[len(input.shape) - sig_dim:])
    hop = n_fft >> 2 if hop_length is None else _args.as_int(hop_length, 'stft', 'hop_length')
    win = n_fft if win_length is None else _args.as_int(win_length, 'stft', 'win_length')
    cplx = input._data.dtype.kind == 'c' or (window is not None and window.is_complex())
    rc = cplx if return_complex is None else bool(return_complex)

    def repr_():
        w = 'None' if window is None else f"{_type_str(window)}{{{list(window.shape)}}}"
        return (f"stft({_type_str(input)}{list(input.shape)}, n_fft={n_fft}, "
                f"hop_length={hop}, win_length={win}, window={w}, "
                f"normalized={_int(bool(normalized))}, onesided={_opt(onesided)}, "
                f"return_complex={_opt(return_complex)}, "
                f"align_to_window={_opt(align_to_window)}) ")
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in a "
                               "future PyTorch release.")
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    if input._data.dtype.kind not in 'fc':
        raise RuntimeError(repr_() + ": expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise RuntimeError(repr_() + ": expected a 1D or 2D tensor")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(repr_() + f": expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(repr_() + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(repr_() + f": expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(repr_() + f": expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size {list(window.shape)}")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which "
                      "is known to cause spectral leakage. Other windows such as "
                      "torch.hann_window or torch.hamming_window can are recommended to reduce "
                      "spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
    w = window
    left = (n_fft - win) // 2
    if win < n_fft:
        if w is None:
            from .creation import ones
            w = ones(win, dtype=input.dtype if input._data.dtype.kind == 'f' else
                     D._NP2DT[_real_np(input._data.dtype)])
        from .padding import pad as _pad
        w = _pad(w, [left, n_fft - win - left])
    if align_to_window and not center and win < n_fft:
        # frames aligned to the (shorter) window: shift the signal by the window's offset
        x = x.narrow(1, left, length - left)
        length -= left
    n_frames = 1 + (length - n_fft) // hop
    frames = x.unfold(1, n_fft, hop)           # (B, n_frames, n_fft), a strided view
    if n_frames != frames.shape[1]:
        frames = frames.narrow(1, 0, n_frames)
    if w is not None:
        frames = frames * w
    mode = 1 if normalized else 0
    if frames._data.dtype.kind == 'c':
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _c2c(frames, (2,), mode, True)
    else:
        os_ = True if onesided is None else bool(onesided)
        out = _r2c(frames, (2,), mode, os_)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    if rc:
        return out
    from .complex import view_as_real
    return view_as_real(out)


@register()
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """Inverse short-time Fourier transform: overlap-add of the inverse transforms of the
    frames of a complex STFT, divided by the overlap-added squared window.

    Args:
        input (Tensor): complex ``(B?, n_fft // 2 + 1 or n_fft, n_frames)`` from
            :func:`stft` with ``return_complex=True``.
        n_fft (int): size of the Fourier transform.
        hop_length (int, optional): distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): size of the window. Default: ``n_fft``.
        window (Tensor, optional): the window used by :func:`stft` (default: all ones).
        center (bool): whether the input of :func:`stft` was padded (``center=True``).
        normalized (bool): whether :func:`stft` was normalized.
        onesided (bool, optional): whether the input is one sided (default: inferred from
            its frequency size).
        length (int, optional): output length (trimmed or zero-padded).
        return_complex (bool): a complex output (requires a two-sided input).

    The overlap-added squared window must be nonzero wherever output is produced (NOLA),
    else a RuntimeError is raised as in PyTorch.

    Example::

        >>> x = ember.arange(16.)
        >>> w = ember.hann_window(8)
        >>> s = ember.stft(x, 8, window=w, return_complex=True)
        >>> ember.istft(s, 8, window=w).shape
        torch.Size([16])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'istft')
    n_fft = _args.as_int(n_fft, 'istft', 'n_fft', 2)
    hop = n_fft >> 2 if hop_length is None else _args.as_int(hop_length, 'istft', 'hop_length')
    win = n_fft if win_length is None else _args.as_int(win_length, 'istft', 'win_length')
    if length is not None:
        length = _args.as_int(length, 'istft', 'length')

    def repr_():
        w = 'None' if window is None else f"{_type_str(window)}{{{list(window.shape)}}}"
        t = {'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble'}.get(
            str(input._data.dtype), _legacy(input.dtype))
        return (f"istft(CPU{t}Type{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
                f"win_length={win}, window={w}, center={_int(bool(center))}, "
                f"normalized={_int(bool(normalized))}, onesided={_opt(onesided)}, "
                f"length={_opt(length)}, return_complex={_int(bool(return_complex))}) ")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    if input._data.dtype.kind != 'c':
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    nd = input.dim()
    if nd < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd or -1}, "
                         f"{max(nd - 1, 0)}], but got -3)")
    n_frames = input.shape[-1]
    fft_size = input.shape[-2]
    expected = n_fft + hop * (n_frames - 1)
    if input.numel() == 0:
        raise RuntimeError(repr_() + ": input tensor cannot be empty.")
    if nd not in (2, 3):
        raise RuntimeError(repr_() + f": expected a tensor with 3 or 4 dimensions, but got "
                           f"{nd + 1}")
    os_ = (fft_size != n_fft) if onesided is None else bool(onesided)
    if os_:
        if n_fft // 2 + 1 != fft_size:
            raise RuntimeError(repr_() + ": expected the frequency dimension (3rd to the last) "
                               "of the input tensor to match n_fft / 2 + 1 when onesided=True, "
                               f"but got {fft_size}")
    elif n_fft != fft_size:
        raise RuntimeError(repr_() + ": expected the frequency dimension (3rd to the last) of "
                           "the input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not (0 < hop <= win):
        raise RuntimeError(repr_() + ": expected 0 < hop_length <= win_length")
    if not (0 < win <= n_fft):
        raise RuntimeError(repr_() + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(repr_() + ": Invalid window shape. window has to be 1D and length "
                           "of `win_length`")
    from .creation import ones
    from .padding import pad as _pad
    rdt = D._NP2DT[_real_np(input._data.dtype)]
    w = window if window is not None else ones(win, dtype=rdt)
    if win != n_fft:
        left = (n_fft - win) // 2
        w = _pad(w, [left, n_fft - win - left])
    x = input if nd == 3 else input.unsqueeze(0)
    x = x.transpose(1, 2)                        # (B, n_frames, fft_size)
    mode = 1 if normalized else 2
    if return_complex:
        if os_:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        y = _c2c(x, (2,), mode, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not os_:
            x = x.narrow(2, 0, n_fft // 2 + 1)
        y = _c2r(x, (2,), mode, n_fft)
    y = y * w                                    # (B, n_frames, n_fft)
    y = _overlap_add(y, hop, expected)           # (B, expected)
    env = _overlap_add((w * w).expand(1, n_frames, n_fft), hop, expected)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    stop = min(end, expected)
    y = y.narrow(1, start, max(stop - start, 0))
    env = env.narrow(1, start, max(stop - start, 0))
    low = env.abs().min() if env.numel() else None
    if low is None or float(low) < 1e-11:
        raise RuntimeError(repr_() + "window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / env
    if nd == 2:
        y = y.squeeze(0)
    if end > expected:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        y = _pad(y, [0, end - expected])
    return y


def _overlap_add(frames, hop, total):
    """Sum of ``frames`` ``(B, n_frames, n_fft)`` placed ``hop`` apart: ``(B, total)``."""
    from .vision import fold
    b, nf, nfft = frames.shape
    if frames._data.dtype.kind == 'c':
        from .complex import view_as_real, view_as_complex
        r = view_as_real(frames)                 # (B, nf, nfft, 2)
        r = r.permute(0, 3, 2, 1).reshape(b * 2, nfft, nf)
        o = fold(r, (1, total), (1, nfft), stride=(1, hop)).reshape(b, 2, total)
        return view_as_complex(o.permute(0, 2, 1).contiguous())
    o = fold(frames.transpose(1, 2), (1, total), (1, nfft), stride=(1, hop))
    return o.reshape(b, total)
