"""Normalization ops: batch normalization (forward, running-statistics update, and
backward written in ember ops so double backward works), layer, group, instance and RMS
normalization, and local response normalization.

Layer and group normalization have fused kernels: the forward is one vectorised pass over
the rows (mean by a matrix-vector product, the centred second moment, then one scale and
shift); the backward applies the closed-form gradient, on the arrays when no graph of the
backward is wanted, in ember ops (so double backward works) when it is.
"""
from . import _args
import numpy as np

from .._tensor import Tensor, _Mode
from ._util import wrap, Node, register, record, aten
from .._backend import array_module
from .. import _layout
from ._pointwise_common import _not_impl

# names given to ember.nn.functional (torch.batch_norm / native_batch_norm are ember.* ops;
# F.batch_norm, with its own argument order, is defined in ember/nn/functional.py)
__all__ = ['layer_norm', 'group_norm', 'instance_norm', 'rms_norm', 'local_response_norm']


def _bcast(v, nd):
    """Reshape a per-channel ``(C,)`` tensor to broadcast over ``(N, C, *spatial)``."""
    return v.reshape((1, -1) + (1,) * (nd - 2))


def _channel_sums(a):
    """Per-channel sums of ``(N, C, *)`` array ``a`` (a matrix-vector product per sample:
    BLAS, several times faster than NumPy's reduction over axes 0, 2, 3, ...)."""
    N, C = a.shape[:2]
    xp = array_module(a)
    r = a.reshape(N, C, -1)
    return (r @ xp.ones(r.shape[2], a.dtype)).sum(0)


def _bn_backward_arrays(g, x, w, mean, invstd, needs, n):
    """Training-mode batch-norm gradients on arrays (outside ``create_graph``):
    ``gx = g * a + x * b + c`` with per-channel ``a, b, c`` from the sums of ``g`` and
    ``g * x``, so the input gradient costs a few passes over the data."""
    xp = array_module(x)
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    gsum = _channel_sums(g)
    gxh = (_channel_sums(g * x) - mean * gsum) * invstd    # sum(g * xhat)
    gx = None
    if needs[0]:
        scale = invstd if w is None else invstd * w
        b = -scale * invstd * gxh / n
        c = -scale * gsum / n - mean * b
        gx = g * scale.reshape(bshape)
        t = x * b.reshape(bshape)
        gx += t
        gx += c.reshape(bshape)
    return gx, gxh, gsum


class NativeBatchNormBackward0(Node):
    def backward(self, g, *_):
        x, w, rm, rv, mean, invstd = self.saved_tensors
        if (self.training and not _Mode.grad and x._data.size and x._data.dtype.kind == 'f'
                and g._data.dtype == x._data.dtype and mean._data.dtype == x._data.dtype):
            xa = x._data
            n = xa.size // xa.shape[1] if xa.shape[1] else 1
            gx, gw, gb = _bn_backward_arrays(
                g._data, xa, None if w is None else w._data.astype(xa.dtype, copy=False),
                mean._data, invstd._data, self.needs, n)
            needs = self.needs
            return (None if gx is None else wrap(_layout.channels_last_like(gx, xa)),
                    wrap(gw) if needs[1] else None, wrap(gb) if needs[2] else None)
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
                n = x.numel() // x.shape[1] if x.shape[1] else 1
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
    return _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps,
                      NativeBatchNormBackward0)


class NativeBatchNormLegitBackward0(NativeBatchNormBackward0):
    pass


class NativeBatchNormLegitBackward1(NativeBatchNormBackward0):
    pass


@register(method=False)
def _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training=None,
                             momentum=None, eps=None):
    """:func:`ember.native_batch_norm` as the ``aten::_native_batch_norm_legit`` operator,
    in its two forms: ``(input, weight, bias, running_mean, running_var, training, momentum,
    eps)`` and, without running statistics, ``(input, weight, bias, training, momentum,
    eps)``. Returns ``(output, save_mean, save_invstd)``.

    Example::

        >>> out, mean, invstd = ember._native_batch_norm_legit(
        ...     ember.tensor([[1.], [3.]]), None, None, True, 0.1, 1e-5)
        >>> out
        tensor([[-1.0000],
                [ 1.0000]])
    """
    node = NativeBatchNormLegitBackward0
    if running_mean.__class__ is bool:      # the overload without running statistics
        training, momentum, eps = running_mean, running_var, training
        running_mean = running_var = None
        node = NativeBatchNormLegitBackward1
        if not training:
            raise RuntimeError("_native_batch_norm_legit: running_mean and running_var must be "
                               "given in evaluation mode")
    return _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps,
                      node)


class BatchNormWithUpdateBackward0(NativeBatchNormBackward0):
    pass


@aten('_batch_norm_with_update')
def _batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """Training-mode batch normalization that updates ``running_mean``/``running_var`` in
    place (the operator ``ember.ops.aten._batch_norm_with_update``). Returns ``(output,
    save_mean, save_invstd, reserve)``, ``reserve`` an empty ``uint8`` tensor.

    Example::

        >>> rm, rv = ember.zeros(1), ember.ones(1)
        >>> out = ember.ops.aten._batch_norm_with_update(ember.tensor([[1.], [3.]]), None,
        ...                                              None, rm, rv, 0.5, 1e-5)
        >>> rm
        tensor([1.])
    """
    out, smean, sinv = _native_bn(input, weight, bias, running_mean, running_var, True,
                                  momentum, eps, BatchNormWithUpdateBackward0)
    xp = array_module(input._data)
    return out, smean, sinv, wrap(xp.zeros((0,), 'uint8'))


def _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps,
               node_cls):
    if not isinstance(input, Tensor):
        _args.tensor(input, 'native_batch_norm')
    a = input._data
    xp = array_module(a)
    nd = a.ndim
    if nd < 2:
        if a.size == 0 and not training:      # as torch: nothing to normalise
            e = wrap(xp.zeros(0, _compute_dtype(a)))
            return input.clone(), e, wrap(xp.zeros(0, _compute_dtype(a)))
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got 1)")
    C = a.shape[1]
    if _Mode.grad:
        for name, t in (('running_mean', running_mean), ('running_var', running_var)):
            if t is not None and t._rg:
                raise RuntimeError(f"The function 'native_batch_norm' is not differentiable "
                                   f"with respect to argument '{name}'. This input cannot have "
                                   f"requires_grad True.")
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
        if n and x.dtype.kind == 'f':   # BLAS sums; the centred values serve the output too
            mean = _channel_sums(x) / n
            d = x - mean.reshape(bshape)
            var = _channel_sums(d * d) / n
        else:
            mean = x.mean(axis=axes)
            d = x - mean.reshape(bshape)
            var = (d ** 2).mean(axis=axes)
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
    sdt = running_mean._data.dtype if running_mean is not None else a.dtype
    if training and sdt != cdt:
        # torch normalises with the statistics rounded to the dtype it saves them in
        mean_u = mean_u.astype(sdt).astype(cdt)
        invstd_u = invstd_u.astype(sdt).astype(cdt)
        d = x - mean_u.reshape(bshape)
    scale = invstd_u if weight is None else invstd_u * weight._data.astype(cdt)
    if training:
        y = d
        y *= scale.reshape(bshape)    # in place: d is this call's own array
    else:
        y = (x - mean_u.reshape(bshape)) * scale.reshape(bshape)
    if bias is not None:
        y += bias._data.astype(cdt).reshape(bshape)
    y = xp.ascontiguousarray(y.astype(a.dtype, copy=False))
    if y.ndim >= 4 and y.__class__ is np.ndarray:
        y = _layout.channels_last_like(y, a)
    out = wrap(y)
    # the saved statistics have the running statistics' dtype (else the input's)
    smean, sinv = wrap(mean.astype(sdt)), wrap(invstd.astype(sdt))
    if _Mode.grad and (input._rg or (weight is not None and weight._rg)
                       or (bias is not None and bias._rg)):
        node = node_cls()
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
    r = _batch_norm_degenerate(input, weight, bias, running_mean, running_var)
    if r is not None:
        return r
    return native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps)[0]


def _batch_norm_degenerate(input, weight, bias, running_mean, running_var):
    """PyTorch's ``batch_norm`` before the kernel: an empty input gives ``input * weight[0] +
    bias[0]`` (the running statistics are left as they are); a 1-d input has no channel
    dim. Returns the output, or None for the kernel to compute it."""
    if input.numel() == 0:
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if input.dim() < 2:
        for name, t in (('running_mean', running_mean), ('running_var', running_var),
                        ('weight', weight), ('bias', bias)):
            if t is not None and t.numel():
                raise RuntimeError(f"{name} should contain 0 elements not {t.numel()}")
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    return None


# ----------------------------------------------------------------------------- helpers

def _size_str(shape):
    return '[' + ', '.join(str(int(s)) for s in shape) + ']'


_F32 = np.dtype(np.float32)


def _is_low(dt):
    return dt.kind == 'V' or (dt.kind == 'f' and dt.itemsize < 4)


def _mixed(a, params):
    """PyTorch's CPU rule for parameters whose dtype differs from the input's: only a
    half-precision input with float32 parameters is allowed. Returns whether they mix."""
    mixed = False
    for p in params:
        if p is not None and p._data.dtype != a.dtype:
            mixed = True
    if not mixed:
        return False
    for p in params:
        if p is not None and p._data.dtype != _F32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if not _is_low(a.dtype):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def _row_stats(x2, eps, xp):
    """Mean, reciprocal standard deviation (biased variance + ``eps``) and the centred
    values of each row of the 2-d array ``x2``."""
    m, k = x2.shape
    if k == 0:
        return xp.zeros(m, x2.dtype), xp.full(m, float('nan'), x2.dtype), x2
    mean = xp.matmul(x2, xp.ones(k, x2.dtype))
    mean *= 1.0 / k
    xc = x2 - mean[:, None]
    vecdot = getattr(xp, 'vecdot', None)           # a BLAS dot per row (NumPy >= 2)
    var = vecdot(xc, xc) if vecdot is not None else xp.einsum('ij,ij->i', xc, xc)
    var *= 1.0 / k
    var += eps
    rstd = xp.sqrt(var)
    xp.divide(1.0, rstd, out=rstd)
    return mean, rstd, xc


def _norm_shape_check(input, normalized_shape, weight, bias, fname, rms=False):
    """PyTorch's argument checks of layer_norm / rms_norm; returns ``(shape, axis)``."""
    if not isinstance(input, Tensor):
        _args.tensor(input, fname)
    ns = _args.as_int_list(normalized_shape, fname, 'normalized_shape', 2, allow_int=False)
    for arg, pos, v in (('weight', 3, weight), ('bias', 4, bias)):
        if v is not None and not isinstance(v, Tensor):
            _args.tensor(v, fname, arg, pos)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for arg, v in (('weight', weight), ('bias', bias)):
        if v is not None and tuple(v.shape) != ns:
            raise RuntimeError(f"Expected {arg} to be of same shape as normalized_shape, but got "
                               f"{arg} of shape {_size_str(v.shape)} and normalized_shape = "
                               f"{_size_str(ns)}")
    shape = input._data.shape
    nd, k = len(shape), len(ns)
    if nd < k or tuple(shape[nd - k:]) != ns:
        star = '[*' + ('' if rms else ', ') + _size_str(ns)[1:]
        raise RuntimeError(f"Given normalized_shape={_size_str(ns)}, expected input with shape "
                           f"{star}, but got input of size{_size_str(shape)}")
    return ns, nd - k


# ----------------------------------------------------------------------------- layer norm

class NativeLayerNormBackward0(Node):
    _saved_names = ('input', 'weight', 'bias', 'result1', 'result2')
    _materialize = False      # mean / rstd are not differentiable: no zero gradients for them

    def backward(self, g, *_):
        if g is None:
            return None, None, None
        x, w, b, mean, rstd = self.saved_tensors
        needs = self.needs
        if not _Mode.grad:
            return _ln_backward_arrays(g, x, w, mean, rstd, self.axis, needs)
        # create_graph: the statistics are recomputed from x inside the graph, so that
        # second derivatives see their dependence on x
        axis = self.axis
        dims = tuple(range(axis, x.dim()))
        lead = tuple(range(axis))
        xf = x.float() if _is_low(x._data.dtype) else x
        gf = g.to(xf.dtype)
        mu = xf.mean(dims, keepdim=True)
        xc = xf - mu
        rs = ((xc * xc).mean(dims, keepdim=True) + self.eps).rsqrt()
        xhat = xc * rs
        gx = gw = gb = None
        if needs[0]:
            gwt = gf if w is None else gf * w.to(xf.dtype)
            gx = rs * (gwt - gwt.mean(dims, keepdim=True)
                       - xhat * (gwt * xhat).mean(dims, keepdim=True))
            gx = gx.to(x.dtype)
        if needs[1]:
            gw = (gf * xhat).sum(lead) if lead else gf * xhat
            gw = gw.to(w.dtype)
        if needs[2]:
            gb = gf.sum(lead) if lead else gf
            gb = gb.to(b.dtype)
        return gx, gw, gb


def _ln_backward_arrays(g, x, w, mean, rstd, axis, needs):
    """The closed-form layer-norm gradient on the arrays (no graph of the backward)."""
    a = x._data
    xp = array_module(a)
    shape = a.shape
    m = k = 1
    for s in shape[:axis]:
        m *= s
    for s in shape[axis:]:
        k *= s
    cdt = _F32 if _is_low(a.dtype) else a.dtype
    x2 = a.reshape(m, k).astype(cdt, copy=False)
    g2 = g._data.reshape(m, k).astype(cdt, copy=False)
    mu = mean._data.reshape(m).astype(cdt, copy=False)
    r = rstd._data.reshape(m).astype(cdt, copy=False)
    w1 = None if w is None else w._data.reshape(k).astype(cdt, copy=False)
    gx = gw = gb = None
    if m == 0 or k == 0:
        if needs[0]:
            gx = wrap(xp.zeros(shape, a.dtype))
        if needs[1]:
            gw = wrap(xp.zeros(w._data.shape, w._data.dtype))
        if needs[2]:
            gb = wrap(xp.zeros(w._data.shape if w is not None else shape[axis:], g._data.dtype))
        return gx, gw, gb
    p = x2 - mu[:, None]
    p *= g2                                        # g * (x - mean)
    if needs[1]:
        gw = wrap(xp.matmul(r, p).reshape(w._data.shape).astype(w._data.dtype, copy=False))
    if needs[2]:
        gb = wrap(xp.matmul(xp.ones(m, cdt), g2).reshape(shape[axis:])
                  .astype(g._data.dtype, copy=False))
    if needs[0]:
        if w1 is None:
            s_g = xp.matmul(g2, xp.ones(k, cdt))   # sum of g * w over the row
            s_gx = xp.matmul(p, xp.ones(k, cdt))   # sum of g * w * (x - mean)
            dx = g2 * r[:, None]
        else:
            s_g = xp.matmul(g2, w1)
            s_gx = xp.matmul(p, w1)
            dx = g2 * w1
            dx *= r[:, None]
        inv_k = 1.0 / k
        c2 = r * r * r * s_gx
        c2 *= -inv_k
        c3 = r * s_g
        c3 *= -inv_k
        c3 -= c2 * mu                              # dx = r w g + c2 x + c3 (x, not x - mean)
        xp.multiply(x2, c2[:, None], out=p)
        p += c3[:, None]
        dx += p
        gx = wrap(dx.reshape(shape).astype(a.dtype, copy=False))
    return gx, gw, gb


@register(method=False)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer normalization over the last ``len(normalized_shape)`` dims, returning
    ``(output, mean, rstd)``; ``mean`` and ``rstd`` (``1 / sqrt(var + eps)``) have the
    input's shape with the normalized dims set to 1.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (list of ints): the trailing dims normalized over.
        weight (Tensor or None): elementwise scale of shape ``normalized_shape``.
        bias (Tensor or None): elementwise shift of shape ``normalized_shape``.
        eps (float): added to the variance.

    Example::

        >>> out, mean, rstd = ember.native_layer_norm(ember.tensor([[1., 3.]]), [2], None,
        ...                                           None, 1e-5)
        >>> mean
        tensor([[2.]])
    """
    ns, axis = _norm_shape_check(input, normalized_shape, weight, bias, 'native_layer_norm')
    return _layer_norm(input, ns, axis, weight, bias, eps)


def _layer_norm(input, ns, axis, weight, bias, eps):
    a = input._data
    mixed = _mixed(a, (weight, bias))
    if a.dtype.kind not in 'fV':
        _not_impl('LayerNormKernelImpl', a)
    xp = array_module(a)
    shape = a.shape
    m = 1
    for s in shape[:axis]:
        m *= s
    k = 1
    for s in ns:
        k *= s
    cdt = _F32 if _is_low(a.dtype) else a.dtype
    sdt = cdt if mixed else a.dtype                 # dtype of mean / rstd
    x2 = a.reshape(m, k).astype(cdt, copy=False)
    mean, rstd, y = _row_stats(x2, eps, xp)
    if m and k:
        xp.multiply(y, rstd[:, None], out=y)
        if weight is not None:
            xp.multiply(y, weight._data.reshape(k).astype(cdt, copy=False), out=y)
        if bias is not None:
            xp.add(y, bias._data.reshape(k).astype(cdt, copy=False), out=y)
    else:
        y = xp.zeros((m, k), cdt)
    sshape = shape[:axis] + (1,) * len(ns)
    out = wrap(y.reshape(shape).astype(a.dtype, copy=False))
    smean = wrap(mean.reshape(sshape).astype(sdt, copy=False))
    srstd = wrap(rstd.reshape(sshape).astype(sdt, copy=False))
    if _Mode.grad and (input._rg or (weight is not None and weight._rg)
                       or (bias is not None and bias._rg)):
        node = NativeLayerNormBackward0()
        node.axis = axis
        node.eps = eps
        node.normalized_shape = tuple(ns)      # grad_fn._saved_normalized_shape
        record((out, smean, srstd), node, (input, weight, bias),
               save=(input, weight, bias, smean, srstd))
        smean._rg = srstd._rg = False
        smean._grad_fn = srstd._grad_fn = None
    return out, smean, srstd


@register('layer_norm', method=False)
def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
                      cudnn_enable=True):
    """``ember.layer_norm``: layer normalization over the last ``len(normalized_shape)``
    dims (see :func:`ember.nn.functional.layer_norm`).

    Example::

        >>> ember.layer_norm(ember.tensor([[1., 3.]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    ns, axis = _norm_shape_check(input, normalized_shape, weight, bias, 'layer_norm')
    return _layer_norm(input, ns, axis, weight, bias, eps)[0]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Applies layer normalization over the last ``len(normalized_shape)`` dims:
    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, with the mean and the biased
    variance taken over those dims.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (list or tuple of ints): the trailing dims normalized over.
        weight (Tensor, optional): elementwise scale, shape ``normalized_shape``.
        bias (Tensor, optional): elementwise shift, shape ``normalized_shape``.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.layer_norm(ember.tensor([[1., 3.], [2., 2.]]), [2])
        tensor([[-1.0000,  1.0000],
                [ 0.0000,  0.0000]])
    """
    ns, axis = _norm_shape_check(input, normalized_shape, weight, bias, 'layer_norm')
    return _layer_norm(input, ns, axis, weight, bias, eps)[0]


# ----------------------------------------------------------------------------- group norm

class NativeGroupNormBackward0(Node):
    _saved_names = ('input', 'weight', 'result1', 'result2')
    _materialize = False

    def backward(self, g, gmean=None, grstd=None):
        # as PyTorch's: the gradients reaching the mean / rstd outputs count only when both
        # of them are defined (else they are dropped)
        if gmean is None or grstd is None:
            gmean = grstd = None
        needs = self.needs
        if g is None:
            if gmean is None:
                return None, None, None
            g = self.saved_tensors[0].detach() * 0
            needs = (needs[0], False, False)
        x, w, mean, rstd = self.saved_tensors
        if not _Mode.grad:
            return _gn_backward_arrays(g, x, w, mean, rstd, self.group, needs, gmean, grstd)
        G = self.group
        shape = tuple(x.shape)
        n, c = shape[0], shape[1]
        xf = x.float() if _is_low(x._data.dtype) else x
        gf = g.to(xf.dtype)
        xg = xf.reshape(n, G, -1)
        mu = xg.mean(-1, keepdim=True)
        xc = xg - mu
        rs = ((xc * xc).mean(-1, keepdim=True) + self.eps).rsqrt()
        xhat = (xc * rs).reshape(n, c, -1)
        g3 = gf.reshape(n, c, -1)
        gx = gw = gb = None
        if needs[0]:
            gwt = g3 if w is None else g3 * w.to(xf.dtype).reshape(1, c, 1)
            gwg = gwt.reshape(n, G, -1)
            xhg = xhat.reshape(n, G, -1)
            gx = rs * (gwg - gwg.mean(-1, keepdim=True)
                       - xhg * (gwg * xhg).mean(-1, keepdim=True))
            if gmean is not None:
                k = xg.shape[-1]
                gx = gx + (gmean.to(xf.dtype).unsqueeze(-1)
                           - grstd.to(xf.dtype).unsqueeze(-1) * rs.pow(3) * xc) / k
            gx = gx.reshape(shape).to(x.dtype)
        if needs[1]:
            gw = (g3 * xhat).sum((0, 2)).to(w.dtype)
        if needs[2]:
            gb = g3.sum((0, 2)).to(w.dtype if w is not None else g.dtype)
        return gx, gw, gb


def _gn_backward_arrays(g, x, w, mean, rstd, G, needs, gmean=None, grstd=None):
    """The closed-form group-norm gradient on the arrays (no graph of the backward)."""
    a = x._data
    xp = array_module(a)
    shape = a.shape
    n, c = shape[0], shape[1]
    hw = 1
    for s in shape[2:]:
        hw *= s
    d = c // G
    cdt = _F32 if _is_low(a.dtype) else a.dtype
    gx = gw = gb = None
    pdt = w._data.dtype if w is not None else g._data.dtype
    if n * c == 0:
        if needs[0]:
            gx = wrap(xp.zeros(shape, a.dtype))
        if needs[1]:
            gw = wrap(xp.zeros(c, w._data.dtype))
        if needs[2]:
            gb = wrap(xp.zeros(c, pdt))
        return gx, gw, gb
    mu = mean._data.reshape(n, G).astype(cdt, copy=False)
    r = rstd._data.reshape(n, G).astype(cdt, copy=False)
    x3 = a.reshape(n, G, d * hw).astype(cdt, copy=False)
    g2 = g._data.reshape(n * c, hw).astype(cdt, copy=False)
    p = (x3 - mu[:, :, None]).reshape(n * c, hw)
    p *= g2                                         # g * (x - mean)
    ones = xp.ones(hw, cdt)
    s_gxc = xp.matmul(p, ones).reshape(n, c)        # per (n, c): sum of g * (x - mean)
    s_g = xp.matmul(g2, ones).reshape(n, c)         # per (n, c): sum of g
    rc = xp.repeat(r, d, axis=1)                    # rstd per (n, c)
    if needs[1]:
        gw = wrap((s_gxc * rc).sum(0).astype(w._data.dtype, copy=False))
    if needs[2]:
        gb = wrap(s_g.sum(0).astype(pdt, copy=False))
    if needs[0]:
        w1 = None if w is None else w._data.astype(cdt, copy=False)
        if w1 is not None:
            s_gxc = s_gxc * w1
            s_g = s_g * w1
        a_ = s_g.reshape(n, G, d).sum(-1)              # sum of g * w over the group
        b_ = s_gxc.reshape(n, G, d).sum(-1)            # sum of g * w * (x - mean)
        inv_m = 1.0 / (d * hw) if hw else 0.0
        r3 = r * r * r
        c2 = r3 * b_
        c2 *= -inv_m
        c3 = r * a_
        c3 *= -inv_m
        if gmean is not None:        # d mean / dx = 1 / m, d rstd / dx = -rstd^3 (x - mean) / m
            c2 -= r3 * grstd._data.astype(cdt, copy=False) * inv_m
            c3 += gmean._data.astype(cdt, copy=False) * inv_m
        c3 -= c2 * mu                               # dx = c1 g + c2 x + c3 (x, not x - mean)
        if w1 is None:                              # c1 = rstd per (sample, group)
            dx = (g2.reshape(n, G, d * hw) * r[:, :, None]).reshape(n * c, hw)
        else:
            dx = g2 * (rc * w1).reshape(n * c, 1)
        p3 = p.reshape(n, G, d * hw)
        xp.multiply(x3, c2[:, :, None], out=p3)
        p3 += c3[:, :, None]
        dx += p
        gx = wrap(dx.reshape(shape).astype(a.dtype, copy=False))
    return gx, gw, gb


@register(method=False)
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalization of an input holding ``N * C * HxW`` values (``(N, C, *)``),
    returning ``(output, mean, rstd)`` with ``mean`` and ``rstd`` of shape ``(N, group)``.

    Args:
        input (Tensor): ``(N, C, *)``.
        weight (Tensor or None): per-channel scale ``(C)``.
        bias (Tensor or None): per-channel shift ``(C)``.
        N, C, HxW (int): batch size, channels, and the number of spatial positions.
        group (int): number of groups (divides ``C``).
        eps (float): added to the variance.

    Example::

        >>> out, mean, rstd = ember.native_group_norm(ember.ones(2, 4, 3), None, None, 2, 4,
        ...                                           3, 2, 1e-5)
        >>> mean.shape
        torch.Size([2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'native_group_norm')
    for arg, pos, v in (('weight', 2, weight), ('bias', 3, bias)):
        if v is not None and not isinstance(v, Tensor):
            _args.tensor(v, 'native_group_norm', arg, pos)
    return _group_norm(input, weight, bias, int(N), int(C), int(HxW), int(group), eps)


def _group_norm(input, weight, bias, n, c, hw, G, eps):
    a = input._data
    if G <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {G}")
    if c % G:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {_size_str(a.shape)} and "
                           f"num_groups={G}")
    for arg, v in (('weight', weight), ('bias', bias)):
        if v is not None and (v.dim() != 1 or v.numel() != c):
            raise RuntimeError(f"Expected {arg} to be a vector of size equal to the number of "
                               f"channels in input, but got {arg} of shape "
                               f"{_size_str(v.shape)} and input of shape {_size_str(a.shape)}")
    if a.size != n * c * hw:
        raise RuntimeError(f"Expected input to have {n * c * hw} elements, but got "
                           f"{a.size}")
    mixed = _mixed(a, (weight, bias))
    if a.dtype.kind not in 'fV':
        _not_impl('GroupNormKernelImpl', a)
    xp = array_module(a)
    cdt = _F32 if _is_low(a.dtype) else a.dtype
    sdt = cdt if mixed else a.dtype
    d = c // G
    x2 = a.reshape(n * G, d * hw).astype(cdt, copy=False)
    mean, rstd, y = _row_stats(x2, eps, xp)
    if y.size:
        y3 = y.reshape(n, c, hw)
        if weight is not None:      # one scale per (sample, channel)
            scale = rstd.reshape(n, G, 1) * weight._data.astype(cdt, copy=False).reshape(1, G, d)
            xp.multiply(y3, scale.reshape(n, c, 1), out=y3)
        else:                       # one per (sample, group): long rows, a faster pass
            xp.multiply(y, rstd[:, None], out=y)
        if bias is not None:
            xp.add(y3, bias._data.astype(cdt, copy=False).reshape(1, c, 1), out=y3)
    else:
        y = xp.zeros(a.shape, cdt)
    y = y.reshape(a.shape).astype(a.dtype, copy=False)
    if y.ndim >= 4 and y.__class__ is np.ndarray:
        y = _layout.channels_last_like(y, a)
    out = wrap(y)
    smean = wrap(mean.reshape(n, G).astype(sdt, copy=False))
    srstd = wrap(rstd.reshape(n, G).astype(sdt, copy=False))
    if _Mode.grad and (input._rg or (weight is not None and weight._rg)
                       or (bias is not None and bias._rg)):
        node = NativeGroupNormBackward0()
        node.group = G
        node.eps = eps
        node.N, node.C, node.HxW = n, c, hw      # grad_fn._saved_N, ... as PyTorch's
        record((out, smean, srstd), node, (input, weight, bias),
               save=(input, weight, smean, srstd))
    return out, smean, srstd


@register('group_norm', method=False)
def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
                      cudnn_enabled=True):
    """``ember.group_norm``: group normalization of an ``(N, C, *)`` input (see
    :func:`ember.nn.functional.group_norm`).

    Example::

        >>> ember.group_norm(ember.tensor([[1., 3.]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'group_norm')
    num_groups = _args.as_int(num_groups, 'group_norm', 'num_groups', 2)
    for arg, pos, v in (('weight', 3, weight), ('bias', 4, bias)):
        if v is not None and not isinstance(v, Tensor):
            _args.tensor(v, 'group_norm', arg, pos)
    shape = input.shape
    n = shape[0] if len(shape) else input.size(0)
    c = input.size(1)
    hw = 1
    for s in shape[2:]:
        hw *= s
    return _group_norm(input, weight, bias, n, c, hw, num_groups, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Applies group normalization: the ``C`` channels of an ``(N, C, *)`` input are split
    into ``num_groups`` groups, each normalized by its own mean and (biased) variance over
    its channels and spatial positions, then scaled and shifted per channel.

    Args:
        input (Tensor): ``(N, C, *)``.
        num_groups (int): number of groups; must divide ``C``.
        weight (Tensor, optional): per-channel scale ``(C)``.
        bias (Tensor, optional): per-channel shift ``(C)``.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.group_norm(ember.tensor([[1., 3., 0., 4.]]), 2)
        tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'group_norm')
    if type(num_groups) is not int:
        num_groups = _args.as_int(num_groups, 'group_norm', 'num_groups', 2)
    if type(eps) is not float and (isinstance(eps, (str, bytes)) or eps is None
                                   or not _args.is_number(eps) and not isinstance(eps, Tensor)):
        _args._fail('group_norm', 'eps', 5, 'float', eps)
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    shape = input.shape
    size = [shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:])
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    return _torch_group_norm(input, num_groups, weight, bias, eps)


# ----------------------------------------------------------------------------- instance norm

@register('instance_norm', method=False)
def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps, cudnn_enabled):
    """``ember.instance_norm`` (PyTorch's low-level argument order); see
    :func:`ember.nn.functional.instance_norm`.

    Example::

        >>> ember.instance_norm(ember.tensor([[[1., 3.]]]), None, None, None, None, True, 0.1,
        ...                     1e-5, False)
        tensor([[[-1.0000,  1.0000]]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'instance_norm')
    for arg, pos, v in (('weight', 2, weight), ('bias', 3, bias),
                        ('running_mean', 4, running_mean), ('running_var', 5, running_var)):
        if v is not None and not isinstance(v, Tensor):
            _args.tensor(v, 'instance_norm', arg, pos)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    shape = tuple(input.shape)
    b, c = shape[0], input.size(1)
    # the instances are the channels of one batch of size 1: batch norm over (1, b * c, *)
    x = input.reshape((1, b * c) + shape[2:])
    w = weight.repeat(b) if weight is not None else None
    bb = bias.repeat(b) if bias is not None else None
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    out = native_batch_norm(x, w, bb, rm, rv, use_input_stats, momentum, eps)[0]
    if use_input_stats:
        # fold the per-instance running statistics back into the per-channel buffers
        for run, upd in ((running_mean, rm), (running_var, rv)):
            if run is not None:
                a = run._data
                a[...] = upd._data.reshape(b, c).mean(axis=0).astype(a.dtype, copy=False)
                run._bump()
    return out.view(shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Applies instance normalization: every channel of every sample of an ``(N, C, *)``
    input is normalized by its own mean and (biased) variance over the spatial dims, then
    scaled and shifted per channel. With ``use_input_stats`` the running statistics (if
    given) are updated in place with ``momentum``; without it they are used instead.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C)`` running mean.
        running_var (Tensor, optional): ``(C)`` running variance.
        weight (Tensor, optional): per-channel scale ``(C)``.
        bias (Tensor, optional): per-channel shift ``(C)``.
        use_input_stats (bool): normalize with the input's statistics. Default: ``True``.
        momentum (float): running-statistics factor. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.instance_norm(ember.tensor([[[1., 3.], [0., 4.]]]))
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'instance_norm')
    if use_input_stats:
        size = input.shape
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {size}")
    return _torch_instance_norm(input, weight, bias, running_mean, running_var,
                                use_input_stats, momentum, eps, False)


# ----------------------------------------------------------------------------- RMS norm

@register(method=False)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Applies root-mean-square normalization over the last ``len(normalized_shape)`` dims:
    ``y = x / sqrt(mean(x ** 2) + eps) * weight``.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (list or tuple of ints): the trailing dims normalized over.
        weight (Tensor, optional): elementwise scale, shape ``normalized_shape``.
        eps (float, optional): added to the mean square. Default: ``None``, the machine
            epsilon of the computation's dtype (float32 for half-precision inputs).

    Example::

        >>> F.rms_norm(ember.tensor([[3., 4.]]), [2])
        tensor([[0.8485, 1.1314]])
    """
    ns, axis = _norm_shape_check(input, normalized_shape, weight, None, 'rms_norm', rms=True)
    a = input._data
    if a.dtype.kind not in 'fVc':     # complex: mean(x * x), as torch (not of |x| ** 2)
        _not_impl('rms_norm', a)
    x = input.float() if _is_low(a.dtype) else input
    if eps is None:
        eps = float(np.finfo(x._data.dtype).eps)
    dims = tuple(range(axis, a.ndim))
    y = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        y = y * weight
    if y._data.dtype != a.dtype:
        y = y.to(input.dtype)
    return y


# ----------------------------------------------------------------------------- local response norm

def _channel_window_sum(t, lo, hi):
    """``out[:, c] = sum(t[:, j] for j in [c - lo, c + hi] within range)``, in ember ops
    (one shifted slice of the zero-padded tensor per window tap)."""
    from .padding import pad
    nd = t.dim()
    c = t.shape[1]
    p = pad(t, (0, 0) * (nd - 2) + (lo, hi))
    out = None
    for j in range(lo + hi + 1):
        s = p.narrow(1, j, c)
        out = s if out is None else out + s
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Applies local response normalization across channels:
    ``y_c = x_c / (k + alpha / size * sum(x_j ** 2 for j in the window of c)) ** beta``,
    the window being the ``size`` channels ``c - size // 2 .. c + (size - 1) // 2``.

    Args:
        input (Tensor): ``(N, C, *)`` with at least 3 dims.
        size (int): channels in the window.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Example::

        >>> F.local_response_norm(ember.ones(1, 3, 1), 2, alpha=1.)
        tensor([[[0.7378],
                 [0.5946],
                 [0.5946]]])
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'dim')
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    if size <= 0:
        if dim == 3:
            raise RuntimeError(f"kernel size should be greater than zero, but got kH: {size} "
                               f"kW: 1")
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {size} "
                           f"kH: 1 kW: 1")
    div = _channel_window_sum(input.mul(input), size // 2, (size - 1) // 2)
    # torch averages with avg_pool: an integer input's window mean is truncated
    div = div.div(size, rounding_mode='trunc') if not (input.is_floating_point() or
                                                        input.is_complex()) else div / size
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


class CrossMapLRN2dBackward(Node):
    _saved_names = ('input', 'result')

    def backward(self, g):
        x, y = self.saved_tensors
        size, scale = self.size, self.scale
        if size == 1:   # PyTorch's backward cannot place its padded window then
            c = x.shape[1]
            raise RuntimeError(f"start (1) + length ({c}) exceeds dimension size ({c}).")
        ipp = int(size - (size - 1) / 2)
        # PyTorch's formula (not the exact derivative of its forward: see cross_map_lrn2d)
        ratio = g * y / scale
        accum = _channel_window_sum(ratio, ipp, size - 1 - ipp)
        return scale.pow(-self.beta) * g - (2 * self.alpha * self.beta / size) * x * accum


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """Local response normalization across the channels of a 4-d input, as the legacy
    ``CrossMapLRN2d`` function computes it: ``y = x * (k + alpha / size * s) ** -beta`` with
    ``s`` the sum of squares over channels ``c - p + 1 .. c + p - 1`` (``p = (size - 1) / 2
    + 1``), plus channel 0's square for every channel ``c >= p``.

    NOTE: like PyTorch's, the extra channel-0 term and the backward formula (grad_fn
    ``CrossMapLRN2dBackward``) reproduce the legacy implementation's numbers; that backward
    is not the exact derivative of the forward.

    Example::

        >>> cross_map_lrn2d(ember.ones(1, 2, 1, 1), 3, alpha=3.)
        tensor([[[[0.4387]],
        <BLANKLINE>
                 [[0.4387]]]])
    """
    if not isinstance(input, Tensor):
        _args.py_tensor(input, 'dim')
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    a = input._data
    xp = array_module(a)
    c = a.shape[1]
    factor = alpha / size
    pre = int((size - 1) / 2 + 1)
    sq = (a * a).astype(np.float64)
    cs = xp.zeros((a.shape[0], c + 1) + a.shape[2:], np.float64)
    xp.cumsum(sq, axis=1, out=cs[:, 1:])
    ch = np.arange(c)
    lo = xp.asarray(np.clip(ch - pre + 1, 0, c))
    hi = xp.asarray(np.clip(ch + pre, 0, c))
    s = cs[:, hi] - cs[:, lo]
    if c > pre:     # channel 0 is never taken out of the legacy running sum
        s[:, pre:] += sq[:, :1]
    scale = (s * factor + k).astype(a.dtype, copy=False)
    y = xp.power(scale, -beta).astype(a.dtype, copy=False) * a
    out = wrap(y)
    if _Mode.grad and input._rg:
        node = CrossMapLRN2dBackward()
        node.size, node.alpha, node.beta = size, alpha, beta
        node.scale = wrap(scale)
        record(out, node, (input,), save=(input, out))
    return out


for _f, _n in ((_torch_layer_norm, 'layer_norm'), (_torch_group_norm, 'group_norm'),
               (_torch_instance_norm, 'instance_norm')):
    _f.__name__ = _f.__qualname__ = _n     # as ember.<name> shows them
del _f, _n
