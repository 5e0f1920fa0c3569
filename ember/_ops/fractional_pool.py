"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d``/``3d`` and their
``_with_indices`` forms. The windows start at PyTorch's pseudo-random sequence from
``_random_samples`` (drawn from the random stream when not given); the pooling gathers one
element per window per kernel offset and reduces them with ``pooling``'s max kernels, so
the ``grad_fn`` and double backward are max pooling's.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import itertools

import numpy as np

from ._util import grad_needed
from .._backend import array_module
from .pooling import (_check_dtype, _check_tensor, _finish_max, _flat_strides, _reduce_max, _tuple,
                      FractionalMaxPool2DBackward0, FractionalMaxPool3DBackward0)

__all__ = ['fractional_max_pool2d', 'fractional_max_pool2d_with_indices',
           'fractional_max_pool3d', 'fractional_max_pool3d_with_indices']


# ----------------------------------------------------------------------------- fractional

def _intervals(xp, u, n_in, n_out, pool):
    """Window starts for samples ``u`` (``(P,)``, the input's float dtype): PyTorch's
    pseudo-random sequence ``int((i + u) * a) - int(u * a)``, ``a = (in - pool)/(out - 1)``,
    computed in that dtype, the last window ending at the input's end."""
    P = u.shape[0]
    res = xp.empty((P, n_out), np.int64)
    if n_out > 1:
        ct = u.dtype          # PyTorch computes in the input's dtype (half: each op rounded)
        uu = u
        alpha = ct.type(n_in - pool) / ct.type(n_out - 1)
        i = xp.arange(n_out - 1).astype(ct)
        a = ((i[None, :] + uu[:, None]) * alpha).astype(np.int64)
        b = (uu * alpha).astype(np.int64)
        res[:, :n_out - 1] = a - b[:, None]
    if n_out > 0:
        res[:, n_out - 1] = n_in - pool
    return res


def _fractional_arrays(x, k, osz, samples):
    """x (*lead, *sp) with lead (N, C) or (C,); samples (>=N, C, nd)."""
    xp = array_module(x)
    nd = len(k)
    sp = x.shape[-nd:]
    lead = x.shape[:-nd]
    P = int(np.prod(lead))
    u = samples[:lead[0]] if len(lead) == 2 else samples[:1]
    u = u.reshape(P, nd)
    # PyTorch's per-plane samples: (W, H) in 2-d, (T, H, W) in 3-d
    col = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_intervals(xp, u[:, col[i]], sp[i], osz[i], k[i]) for i in range(nd)]
    pst = _flat_strides(sp)
    x2 = x.reshape(P, -1)
    R = int(np.prod(osz))
    vals, flats = [], []
    for kk in itertools.product(*[range(v) for v in k]):
        flat = 0
        for i in range(nd):
            sh = [P] + [1] * nd
            sh[1 + i] = osz[i]
            flat = flat + (starts[i] + kk[i]).reshape(sh) * pst[i]
        flat = xp.broadcast_to(flat, (P,) + tuple(osz)).reshape(P, R)
        flats.append(flat)
        vals.append(xp.take_along_axis(x2, flat, 1))
    best, arg = _reduce_max(xp, vals, x.dtype.kind not in 'iu')
    table = xp.stack(flats)
    idx = xp.take_along_axis(table, arg.astype(np.int64)[None], 0)[0]
    shape = lead + tuple(osz)
    return best.reshape(shape), idx.reshape(shape)


_DIMNAMES = {2: ('height', 'width'), 3: ('time', 'height', 'width')}


def _fractional_nd(input, kernel_size, output_size, output_ratio, _random_samples, nd):
    fname = f'fractional_max_pool{nd}d'
    _check_tensor(input, fname)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if len(output_ratio) > nd:
            raise ValueError(f"{fname} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        r = tuple(output_ratio) * nd if len(output_ratio) == 1 else tuple(output_ratio)
        output_size = [int(input.size(-nd + i) * r[i]) for i in range(nd)]
    x = input._data
    if _random_samples is None:
        if x.ndim < nd + 1:
            input.size(-nd - 1)   # PyTorch's IndexError
        n_batch = 1 if x.ndim == nd + 1 else x.shape[0]
        from .random_ops import rand
        _random_samples = rand(n_batch, x.shape[-nd - 1], nd, dtype=input.dtype,
                               device=input.device)
    k = _tuple(kernel_size, nd, fname, 'kernel_size')
    osz = _tuple(output_size, nd, fname, 'output_size')
    if x.ndim not in (nd + 1, nd + 2) or any(v == 0 for v in x.shape[x.ndim - nd - 1:]):
        raise RuntimeError(f"{fname}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(x.shape)}")
    _check_dtype(x, fname, ints=False)
    if _random_samples.requires_grad and grad_needed(_random_samples):
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                           "argument 'random_samples'. This input cannot have requires_grad "
                           "True.")
    smp = _random_samples._data
    if smp.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if smp.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {smp.ndim}")
    n_batch = 1 if x.ndim == nd + 1 else x.shape[0]
    if smp.shape[0] < n_batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if smp.shape[1] != x.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if smp.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{smp.shape[2]}.")
    sp = x.shape[-nd:]
    suffix = '' if nd == 2 else '_out'
    for i in range(nd):
        # PyTorch's bound: out + pool - 1 <= in in 2-d, < in in 3-d
        if osz[i] + k[i] - 1 > sp[i] - (nd == 3):
            w = _DIMNAMES[nd][i]
            raise RuntimeError(f"{fname}{suffix}(): pool {w} {k[i]} too large relative to "
                               f"input {w} {sp[i]}")
    if x.size == 0:
        xp = array_module(x)
        best = xp.zeros(x.shape[:-nd] + osz, x.dtype)
        idx = xp.zeros(best.shape, np.int64)
    else:
        best, idx = _fractional_arrays(x, k, osz, smp)
    cls = FractionalMaxPool2DBackward0 if nd == 2 else FractionalMaxPool3DBackward0
    return _finish_max(input, best, idx, cls, sp, attrs=dict(kernel_size=k, output_size=osz))


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """2-D fractional max pooling returning ``(output, indices)``; see
    :func:`fractional_max_pool2d`.

    Example::

        >>> F.fractional_max_pool2d_with_indices(ember.randn(1, 2, 5, 5), 2,
        ...                                      output_size=3)[1].shape
        torch.Size([1, 2, 3, 3])
    """
    return _fractional_nd(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Applies 2-D fractional max pooling (Graham, 2014): ``kernel_size`` windows at
    pseudo-random steps that give the requested output size.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): window size.
        output_size (int or tuple, optional): ``(H_out, W_out)``.
        output_ratio (tuple of floats, optional): output size as a fraction of the input's
            (one of ``output_size`` / ``output_ratio`` must be given).
        return_indices (bool): also return the argmax indices.
        _random_samples (Tensor, optional): ``(N, C, 2)`` samples in ``[0, 1)`` fixing the
            steps (per plane: one for the width, one for the height). Default: drawn with
            ``ember.rand`` as PyTorch draws them, so a seeded program gets torch's windows.

    Example::

        >>> F.fractional_max_pool2d(ember.randn(1, 2, 5, 5), 2, output_size=3).shape
        torch.Size([1, 2, 3, 3])
    """
    v, i = _fractional_nd(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (v, i) if return_indices else v


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """3-D fractional max pooling returning ``(output, indices)``; see
    :func:`fractional_max_pool3d`.

    Example::

        >>> F.fractional_max_pool3d_with_indices(ember.randn(1, 1, 5, 5, 5), 2,
        ...                                      output_size=3)[1].shape
        torch.Size([1, 1, 3, 3, 3])
    """
    return _fractional_nd(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Applies 3-D fractional max pooling (see :func:`fractional_max_pool2d`);
    ``_random_samples`` is ``(N, C, 3)``.

    Example::

        >>> F.fractional_max_pool3d(ember.randn(1, 1, 5, 5, 5), 2, output_size=3).shape
        torch.Size([1, 1, 3, 3, 3])
    """
    v, i = _fractional_nd(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (v, i) if return_indices else v
