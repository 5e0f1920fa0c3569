"""Normalization ops: batch normalization (forward, running-statistics update, and
backward written in ember ops so double backward works)."""
from . import _args
import numpy as np

from .._tensor import Tensor, _Mode
from ._util import wrap, Node, register, record
from .._backend import array_module
from . import _layout

# names given to ember.nn.functional (torch.batch_norm / native_batch_norm are ember.* ops;
# F.batch_norm, with its own argument order, is defined in ember/nn/functional.py)
__all__ = []


def _bcast(v, nd):
    """Reshape a per-channel ``(C,)`` tensor to broadcast over ``(N, C, *spatial)``."""
    return v.reshape((1, -1) + (1,) * (nd - 2))


class NativeBatchNormBackward0(Node):
    def backward(self, g, *_):
        x, w, rm, rv, mean, invstd = self.saved_tensors
        nd = x.dim()
        dims = (0,) + tuple(range(2, nd))
        training = self.training
        if training and _Mode.grad:
            # create_graph: recompute the statistics from x so their dependence on x is
            # part of the graph (second derivatives need it)
            mean = x.mean(dims)
            invstd = ((x - _bcast(mean, nd)).pow(2).mean(dims) + self.eps).rsqrt()
        elif not training:
            mean, invstd = rm, (rv + self.eps).rsqrt()
        if g.dtype != x.dtype:
            g = g.to(x.dtype)
        mb, ib = _bcast(mean, nd), _bcast(invstd, nd)
        xhat = (x - mb) * ib
        needs = self.needs
        gx = gw = gb = None
        gsum = g.sum(dims) if (needs[2] or (needs[0] and training)) else None
        gxh = (g * xhat).sum(dims) if (needs[1] or (needs[0] and training)) else None
        if needs[0]:
            scale = ib if w is None else ib * _bcast(w.to(ib.dtype), nd)
            if training:
                n = x.numel() // x.shape[1]
                gx = scale * (g - _bcast(gsum, nd) / n - xhat * _bcast(gxh, nd) / n)
            else:
                gx = g * scale
        if needs[1]:
            gw = gxh
        if needs[2]:
            gb = gsum
        return gx, gw, gb


def _compute_dtype(a):
    # half precision inputs are normalised in float32 (as PyTorch does on the CPU)
    return np.dtype(np.float32) if a.dtype.kind == 'V' or a.dtype.itemsize < 4 else a.dtype


@register(method=False)
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch normalization over dim 1 of ``(N, C, *)`` input. Returns ``(output,
    save_mean, save_invstd)``; in training mode the batch statistics are used and the
    running statistics (when given) are updated in place with ``momentum``.

    Example::

        >>> out, mean, invstd = ember.native_batch_norm(ember.randn(4, 3), None, None, None,
        ...                                             None, True, 0.1, 1e-5)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'native_batch_norm')
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    if nd < 2:
        raise RuntimeError(f"batch_norm(): expected input to have at least 2 dimensions, but "
                           f"got {nd}")
    C = a.shape[1]
    for name, t in (('running_mean', running_mean), ('running_var', running_var),
                    ('weight', weight), ('bias', bias)):
        if t is not None and t.numel() != C:
            raise RuntimeError(f"{name} should contain {C} elements not {t.numel()}")
    cdt = _compute_dtype(a)
    x = a.astype(cdt, copy=False)
    axes = (0,) + tuple(range(2, nd))
    bshape = (1, C) + (1,) * (nd - 2)
    if training:
        n = a.size // C if C else 0
        mean = x.mean(axis=axes)
        var = ((x - mean.reshape(bshape)) ** 2).mean(axis=axes)
        invstd = (1.0 / xp.sqrt(var + eps)).astype(cdt, copy=False)
        if running_mean is not None or running_var is not None:
            m = momentum
            if running_mean is not None:
                rm = running_mean._data
                rm[...] = ((1 - m) * rm.astype(cdt) + m * mean).astype(rm.dtype)
                running_mean._bump()
            if running_var is not None:
                rv = running_var._data
                unbiased = var * (n / (n - 1)) if n > 1 else var
                rv[...] = ((1 - m) * rv.astype(cdt) + m * unbiased).astype(rv.dtype)
                running_var._bump()
        mean_u, invstd_u = mean, invstd
    else:
        mean_u = running_mean._data.astype(cdt)
        invstd_u = (1.0 / xp.sqrt(running_var._data.astype(cdt) + eps)).astype(cdt, copy=False)
        mean = xp.zeros(0, cdt)
        invstd = xp.zeros(0, cdt)
    y = (x - mean_u.reshape(bshape)) * invstd_u.reshape(bshape)
    if weight is not None:
        y = y * weight._data.astype(cdt).reshape(bshape)
    if bias is not None:
        y = y + bias._data.astype(cdt).reshape(bshape)
    y = xp.ascontiguousarray(y.astype(a.dtype, copy=False))
    if y.ndim >= 4 and y.__class__ is np.ndarray:
        y = _layout.channels_last_like(y, a)
    out = wrap(y)
    smean, sinv = wrap(mean.astype(cdt)), wrap(invstd.astype(cdt))
    if _Mode.grad and (input._rg or (weight is not None and weight._rg)
                       or (bias is not None and bias._rg)):
        node = NativeBatchNormBackward0()
        node.training = bool(training)
        node.eps = eps
        if training:
            save = (input, weight, None, None, smean, sinv)
        else:
            save = (input, weight, running_mean, running_var, None, None)
        record((out, smean, sinv), node, (input, weight, bias), save=save)
        smean._rg = sinv._rg = False
        smean._grad_fn = sinv._grad_fn = None
    return out, smean, sinv


@register(method=False)
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``ember.batch_norm`` (PyTorch's low-level argument order); see
    :func:`ember.nn.functional.batch_norm`.

    Example::

        >>> ember.batch_norm(ember.tensor([[1.], [3.]]), None, None, None, None, True, 0.1,
        ...                  1e-5, False)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'batch_norm')
    return native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps)[0]
