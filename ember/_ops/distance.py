"""Distances and similarities: pairwise_distance, cosine_similarity, cdist, pdist, dist,
normalize.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import math

from .._tensor import Tensor, _Mode
from .._dtype import _NP2DT
from ._util import wrap, Node, register, record, binary_arrays
from .._backend import array_module
from . import _args

__all__ = ['pairwise_distance', 'cosine_similarity', 'pdist', 'normalize']

# the compute_mode names of cdist and their numbers (PyTorch's enumeration)
_CDIST_MODES = {'use_mm_for_euclid_dist_if_necessary': 0,
                'use_mm_for_euclid_dist': 1, 'donot_use_mm_for_euclid_dist': 2}
_CHUNK = 1 << 22     # elements of one block of differences in the direct kernels


def _tname(arr):
    from .._tensor import _legacy_name
    return _legacy_name(_NP2DT[arr.dtype])


# ----------------------------------------------------------------------------- p-norm kernels

def _pnorm_last(xp, d, p):
    """The p-norm over the last axis of an array of differences ``d``."""
    if p == 2:
        return xp.sqrt((d * d).sum(-1))
    a = xp.abs(d)
    if p == 1:
        return a.sum(-1)
    if p == 0:
        return (a != 0).sum(-1).astype(d.dtype)
    if p == math.inf:
        return a.max(-1) if a.shape[-1] else xp.zeros(a.shape[:-1], d.dtype)
    if p == -math.inf:
        return a.min(-1) if a.shape[-1] else xp.full(a.shape[:-1], math.inf, d.dtype)
    return (a ** p).sum(-1) ** (1.0 / p)


def _pnorm_grad(diff, dist, g, p):
    """``g * d dist / d diff`` in ember ops (differentiable): ``diff`` holds differences
    (..., M), ``dist`` their p-norm (...), ``g`` the upstream gradient (...). Where the
    distance is 0 the gradient is 0 (PyTorch's convention for the distance kernels)."""
    import ember
    if p == 0:
        return ember.zeros_like(diff)
    d = dist.unsqueeze(-1)
    gg = g.unsqueeze(-1)
    zero = d == 0
    if p == 1:
        return diff.sign() * gg
    if p == math.inf:
        return diff.sign() * (diff.abs() == d).to(diff.dtype) * gg
    if p == 2:
        safe = ember.where(zero, ember.ones_like(d), d)
        return ember.where(zero, ember.zeros_like(diff), diff * (gg / safe))
    safe = ember.where(zero, ember.ones_like(d), d)
    if p < 2:
        term = diff.sign() * diff.abs().pow(p - 1) * (gg / safe.pow(p - 1))
    else:
        term = diff * diff.abs().pow(p - 2) * (gg / safe.pow(p - 1))
    return ember.where(zero, ember.zeros_like(diff), term)


# ----------------------------------------------------------------------------- cdist

class CdistBackward0(Node):
    def backward(self, g):
        x1, x2, res = self.saved_tensors
        p = self.p
        g1 = g2 = None
        if p == 2:
            zero = res == 0
            import ember
            w = ember.where(zero, ember.zeros_like(g), g / ember.where(zero, ember.ones_like(res), res))
            if self.needs[0]:
                g1 = x1 * w.sum(-1, keepdim=True) - w.matmul(x2)
            if self.needs[1]:
                g2 = x2 * w.sum(-2).unsqueeze(-1) - w.mT.matmul(x1)
            return g1, g2
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)           # (..., P, R, M)
        t = _pnorm_grad(diff, res, g, p)
        if self.needs[0]:
            g1 = t.sum(-2)
        if self.needs[1]:
            g2 = -t.sum(-3)
        return g1, g2


def _cdist_direct(a, b, p, xp):
    """(..., P, M) x (..., R, M) -> (..., P, R) p-norm distances, in row blocks."""
    P, R, M = a.shape[-2], b.shape[-2], a.shape[-1]
    batch = a.shape[:-2]
    out = xp.empty(batch + (P, R), a.dtype)
    per_row = max(1, R * M * max(1, math.prod(batch)))
    step = max(1, _CHUNK // per_row)
    for i in range(0, P, step):
        d = a[..., i:i + step, None, :] - b[..., None, :, :]
        out[..., i:i + step, :] = _pnorm_last(xp, d, p)
    return out


def _euclid_mm(x1, x2):
    """p = 2 distances through one matrix product (ember ops: autograd is composed):
    ``|a|^2 - 2 a.b + |b|^2``, clamped at 0 before the square root."""
    import ember
    n1 = x1.pow(2).sum(-1, keepdim=True)
    n2 = x2.pow(2).sum(-1, keepdim=True)
    a = ember.cat([x1.mul(-2), n1, ember.ones_like(n1)], -1)
    b = ember.cat([x2, ember.ones_like(n2), n2], -1)
    return a.matmul(b.mT).clamp_min(0).sqrt()


def _euclid_mm_arrays(xp, a, b, batch):
    """The matrix-product p = 2 distances on arrays, in place (no autograd): the same
    sums as :func:`_euclid_mm`."""
    r = xp.matmul(a, xp.swapaxes(b, -1, -2))
    if r.shape[:-2] != batch:
        r = xp.array(xp.broadcast_to(r, batch + r.shape[-2:]))
    r *= -2
    r += (a * a).sum(-1)[..., :, None]
    r += (b * b).sum(-1)[..., None, :]
    xp.maximum(r, 0, out=r)
    xp.sqrt(r, out=r)
    return r


@register(method=False)
def cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'):
    """Computes the p-norm distance between each pair of row vectors of two batches of
    collections.

    Args:
        x1 (Tensor): ``(B*, P, M)``.
        x2 (Tensor): ``(B*, R, M)``; the batch dims broadcast with ``x1``'s.
        p (float): the norm, ``p >= 0`` (``0``: count of differing coordinates, ``inf``:
            largest difference). Default: 2.
        compute_mode (str): ``'use_mm_for_euclid_dist_if_necessary'`` (default: a
            matrix product computes p = 2 distances when P > 25 or R > 25),
            ``'use_mm_for_euclid_dist'`` (always for p = 2) or
            ``'donot_use_mm_for_euclid_dist'`` (never).

    Returns:
        Tensor: ``(B*, P, R)``.

    Example::

        >>> a = ember.tensor([[0.9041, 0.0196], [-0.3108, -2.4423], [-0.4821, 1.059]])
        >>> b = ember.tensor([[-2.1763, -0.4713], [-0.6986, 1.3702]])
        >>> ember.cdist(a, b, p=2)
        tensor([[3.1193, 2.0959],
                [2.7138, 3.8322],
                [2.2830, 0.3791]])
    """
    if not isinstance(x1, Tensor):
        _args.tensor(x1, 'cdist', 'x1', 1)
    if not isinstance(x2, Tensor):
        _args.tensor(x2, 'cdist', 'x2', 2)
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    a, b = x1._data, x2._data
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                           f"X2: {b.shape[-1]}")
    if a.dtype.kind != 'f':
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_tname(a)}")
    if b.dtype.kind != 'f':
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_tname(b)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_tname(a)} but found {_tname(b)}")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    xp = array_module(a)
    from ._util import check_broadcast
    check_broadcast(a.shape[:-2], b.shape[:-2])
    batch = tuple(xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])) if hasattr(
        xp, 'broadcast_shapes') else _bshape(a.shape[:-2], b.shape[:-2])
    P, R = a.shape[-2], b.shape[-2]
    if p == 2 and a.size and b.size and (mode == 1 or (mode == 0 and (P > 25 or R > 25))):
        if not (_Mode.grad and (x1._rg or x2._rg)):
            return wrap(_euclid_mm_arrays(xp, a, b, batch))
        e1 = x1.expand(batch + x1.shape[-2:]) if x1.shape[:-2] != batch else x1
        e2 = x2.expand(batch + x2.shape[-2:]) if x2.shape[:-2] != batch else x2
        return _euclid_mm(e1, e2).view(batch + (P, R))     # ViewBackward0, as PyTorch's
    ab = xp.broadcast_to(a, batch + a.shape[-2:])
    bb = xp.broadcast_to(b, batch + b.shape[-2:])
    res = wrap(_cdist_direct(ab, bb, p, xp))
    if _Mode.grad and (x1._rg or x2._rg):
        node = CdistBackward0()
        node.p = p
        record(res, node, (x1, x2), save=(x1, x2, res))
    return res


def _bshape(s, t):
    n = max(len(s), len(t))
    s = (1,) * (n - len(s)) + tuple(s)
    t = (1,) * (n - len(t)) + tuple(t)
    return tuple(max(i, j) if min(i, j) != 0 else 0 for i, j in zip(s, t))


# ----------------------------------------------------------------------------- pdist

class PdistBackward0(Node):
    def backward(self, g):
        x, res = self.saved_tensors
        i, j = self.idx
        import ember
        ii, jj = wrap(i), wrap(j)
        diff = x.index_select(0, ii) - x.index_select(0, jj)
        t = _pnorm_grad(diff, res, g, self.p)
        return ember.zeros_like(x).index_add(0, ii, t).index_add(0, jj, -t)


@register(method=False)
def pdist(input, p=2):
    """The p-norm distance between every pair of rows of an ``(N, M)`` input: the upper
    triangle (row-major, without the diagonal) of ``cdist(input, input)``, flattened.

    Args:
        input (Tensor): ``(N, M)``.
        p (float): the norm, ``p >= 0``. Default: 2.

    Returns:
        Tensor: ``(N * (N - 1) / 2,)``.

    Example::

        >>> F.pdist(ember.tensor([[0., 0.], [3., 4.], [6., 8.]]))
        tensor([ 5., 10.,  5.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'pdist', 'input', 1)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    a = input._data
    if a.dtype.kind != 'f':
        raise RuntimeError("pdist only supports floating-point dtypes")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    xp = array_module(a)
    n = a.shape[0]
    i, j = xp.triu_indices(n, 1)
    out = xp.empty(i.shape[0], a.dtype)
    step = max(1, _CHUNK // max(1, a.shape[1]))
    for s in range(0, i.shape[0], step):
        out[s:s + step] = _pnorm_last(xp, a[i[s:s + step]] - a[j[s:s + step]], p)
    res = wrap(out)
    if _Mode.grad and input._rg:
        node = PdistBackward0()
        node.p = p
        node.idx = (i.astype('int64'), j.astype('int64'))
        record(res, node, (input,), save=(input, res))
    return res


# ----------------------------------------------------------------------------- dist

class DistBackward0(Node):
    def backward(self, g):
        a, b, res = self.saved_tensors
        import ember
        diff = a - b
        p = self.p
        if p == 0:
            # PyTorch's backward of dist with p = 0 fails this way (its grad is undefined)
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor "
                               "in C++) for argument #0 'self'")
        cplx = diff.is_complex()
        phase = diff.sgn() if cplx else None    # complex: the real norm's gradient of |diff|
        if cplx:
            diff = diff.abs()
        if abs(p) == math.inf:
            m = (diff.abs() == res).to(diff.dtype)
            t = diff.sign() * m * (g / m.sum())
        else:
            t = _pnorm_grad(diff.reshape(-1), res.reshape(1), g.reshape(1), p).reshape(diff.shape)
        if cplx:
            t = t * phase
        return (t if self.needs[0] else None), (-t if self.needs[1] else None)


@register()
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast).

    Args:
        input (Tensor): the input.
        other (Tensor): the right-hand side, broadcastable with ``input``.
        p (float): the norm. Default: 2.

    Example::

        >>> ember.dist(ember.tensor([3., 0.]), ember.tensor([0., 4.]))
        tensor(5.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'dist', 'input', 1)
    if not isinstance(other, Tensor):
        _args.tensor(other, 'dist', 'other', 2)
    a, b, xp = binary_arrays(input, other)
    if a.dtype.kind not in 'fcV':
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_tname(a)} instead.")
    p = float(p)
    d = (a - b).reshape(-1)
    if a.dtype.kind == 'V' or a.dtype.itemsize == 2:   # half: the norm in float32
        d = d.astype('float32')
    rdt = a.dtype
    if a.dtype.kind == 'c':     # complex: the real norm of the moduli
        d = xp.abs(d)
        rdt = d.dtype
    res = wrap(xp.asarray(_pnorm_last(xp, d, p)).real.astype(rdt))
    if _Mode.grad and (input._rg or other._rg):
        node = DistBackward0()
        node.p = p
        record(res, node, (input, other), save=(input, other, res))
    return res


# ----------------------------------------------------------------------------- composites

@register(method=False)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of ``x1 - x2 + eps`` over the last dimension (inputs broadcast).

    Args:
        x1 (Tensor): ``(N, D)`` or ``(D)``.
        x2 (Tensor): the same shape as ``x1`` (or broadcastable).
        p (float): the norm degree (may be negative). Default: 2.
        eps (float): added to the difference, avoids division by zero. Default: 1e-6.
        keepdim (bool): keep the reduced dimension. Default: ``False``.

    Example::

        >>> F.pairwise_distance(ember.tensor([[3., 0.]]), ember.tensor([[0., 4.]]), eps=0)
        tensor([5.])
    """
    if not isinstance(x1, Tensor):
        _args.tensor(x1, 'pairwise_distance', 'x1', 1)
    if not isinstance(x2, Tensor):
        _args.tensor(x2, 'pairwise_distance', 'x2', 2)
    dim = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, dim, keepdim=keepdim)


@register(method=False)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine similarity of ``x1`` and ``x2`` (broadcast) along ``dim``: each is divided
    by its 2-norm clamped below at ``eps``, then the products are summed.

    Args:
        x1 (Tensor), x2 (Tensor): inputs, broadcastable to a common shape.
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): the smallest norm. Default: 1e-8.

    Example::

        >>> F.cosine_similarity(ember.tensor([[1., 0.]]), ember.tensor([[1., 1.]]))
        tensor([0.7071])
    """
    if not isinstance(x1, Tensor):
        _args.tensor(x1, 'cosine_similarity', 'x1', 1)
    if not isinstance(x2, Tensor):
        _args.tensor(x2, 'cosine_similarity', 'x2', 2)
    import ember
    a, b = x1, x2
    ka, kb = a._data.dtype.kind, b._data.dtype.kind
    ka, kb = ('f' if k == 'V' else k for k in (ka, kb))      # bfloat16 is floating point
    if ka not in 'fc' and kb not in 'fc':
        dt = ember.result_type(a, b)
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_cap(dt)}")
    if ka not in 'fc' or kb not in 'fc':
        dt = ember.result_type(a, b)
        a, b = a.to(dt), b.to(dt)
    elif a.dtype != b.dtype:
        dt = ember.result_type(a, b)
        a, b = a.to(dt), b.to(dt)
    if a.shape != b.shape:
        a, b = ember.broadcast_tensors(a, b)
    n1 = ember.linalg.vector_norm(a, 2, dim=dim, keepdim=True).clone()
    n2 = ember.linalg.vector_norm(b, 2, dim=dim, keepdim=True).clone()
    with ember.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((a / n1) * (b / n2)).sum(dim)


def _cap(dt):
    from .._tensor import _legacy_name
    return _legacy_name(dt)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Divides ``input`` by its p-norm along ``dim`` (clamped below at ``eps``).

    Args:
        input (Tensor): the input, any shape.
        p (float): the norm. Default: 2.
        dim (int or tuple of ints): the dimension(s) reduced. Default: 1.
        eps (float): the smallest norm. Default: 1e-12.
        out (Tensor, optional): the output tensor (no autograd).

    Example::

        >>> F.normalize(ember.tensor([[3., 4.]]))
        tensor([[0.6000, 0.8000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'normalize', 'input', 1)
    import ember
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return ember.div(input, denom, out=out)
