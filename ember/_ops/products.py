"""Matrix products: mm, bmm, mv, dot, vdot, matmul, the addmm family, outer/inner/
tensordot/kron, cross, einsum, chain_matmul/multi_dot.

Forward passes call the backend's array module (NumPy's BLAS); every backward is written in
ember ops so that higher-order gradients work. Each backward class stands right above its
forward and carries PyTorch's public name.
"""
from . import _args

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, _wrap_dim, _NoGrad, _legacy_name
from ..autograd.graph import _named
from ._util import wrap, Node, register, record, binary_arrays, write_out
from .._backend import array_module
from ._pointwise_common import _make_inplace
from ._linalg_common import (_st, _c, _mH, _eye_like, _shape_str, _fresh, _out,
    _check_same_dtype, _matmul_arrays)


# ------------------------------------------------------------------ mm / bmm / mv / dot
class MmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        gd = g._data
        if not _Mode.grad and gd.dtype.kind != 'c':
            # nothing to record (no create_graph): the same formula on arrays
            return (wrap(_matmul_arrays(gd, b._data.swapaxes(-1, -2))) if self.needs[0] else None,
                    wrap(_matmul_arrays(a._data.swapaxes(-1, -2), gd)) if self.needs[1] else None)
        return (g.matmul(_mH(b)) if self.needs[0] else None,
                _mH(a).matmul(g) if self.needs[1] else None)


class BmmBackward0(MmBackward0):
    pass


def _save2(a, b):
    """Save the operands a product's backward needs: a for b's grad and b for a's."""
    return (a if b._rg else None, b if a._rg else None)


def _record_product(res, node, a, b):
    record(res, node, (a, b), save=_save2(a, b))
    return res


@register()
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors.

    Args:
        input (Tensor): ``(n, m)`` matrix.
        mat2 (Tensor): ``(m, p)`` matrix.

    Example::

        >>> ember.mm(ember.ones(2, 3), ember.ones(3, 4)).shape
        torch.Size([2, 4])
    """
    if not isinstance(input, Tensor) or not isinstance(mat2, Tensor):
        _args.tensor(input, 'mm')
        _args.tensor(mat2, 'mm', 'mat2', 2)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'mm', 'out', None)
    a, b = input._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} "
                           f"and {_shape_str(b.shape)})")
    _check_same_dtype(a, b)
    res = wrap(_matmul_arrays(a, b))
    if _Mode.grad and (input._rg or mat2._rg):
        _record_product(res, MmBackward0(), input, mat2)
    return _out(res, out)


@register()
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p)``.

    Example::

        >>> ember.bmm(ember.ones(5, 2, 3), ember.ones(5, 3, 4)).shape
        torch.Size([5, 2, 4])
    """
    if not isinstance(input, Tensor) or not isinstance(mat2, Tensor):
        _args.tensor(input, 'bmm')
        _args.tensor(mat2, 'bmm', 'mat2', 2)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'bmm', 'out', None)
    a, b = input._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_same_dtype(a, b)
    res = wrap(_matmul_arrays(a, b))
    if _Mode.grad and (input._rg or mat2._rg):
        _record_product(res, BmmBackward0(), input, mat2)
    return _out(res, out)


class MvBackward0(Node):
    def backward(self, g):
        a, v = self.saved_tensors
        ga = g.unsqueeze(-1) * _c(v) if self.needs[0] else None
        gv = _mH(a).matmul(g) if self.needs[1] else None
        return ga, gv


@register()
def mv(input, vec, *, out=None):
    """Matrix-vector product ``(n, m) @ (m,)``.

    Example::

        >>> ember.mv(ember.ones(2, 3), ember.ones(3))
        tensor([3., 3.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'mv')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'mv', 'out', None)
    a, v = input._data, vec._data
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_shape_str(a.shape)}), "
                           f"vec ({v.shape[0]})")
    _check_same_dtype(a, v)
    res = wrap(_matmul_arrays(a, v))
    if _Mode.grad and (input._rg or vec._rg):
        _record_product(res, MvBackward0(), input, vec)
    return _out(res, out)


class DotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return (g * _c(b) if self.needs[0] else None), (g * _c(a) if self.needs[1] else None)


class VdotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return (_c(g) * b if self.needs[0] else None), (g * a if self.needs[1] else None)


def _dot_check(a, b, name):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{_st(a)} and {_st(b)}")
    if a.dtype.kind == 'b':
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


@register()
def dot(input, tensor, *, out=None):
    """Dot product of two 1-D tensors (no conjugation).

    Example::

        >>> ember.dot(ember.tensor([2, 3]), ember.tensor([2, 1]))
        tensor(7)
    """
    if not isinstance(input, Tensor) or not isinstance(tensor, Tensor):
        _args.tensor(input, 'dot')
        _args.tensor(tensor, 'dot', 'tensor', 2)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'dot', 'out', None)
    a, b = input._data, tensor._data
    _dot_check(a, b, 'dot')
    xp = array_module(a)
    res = wrap(_fresh(xp.dot(a, b), xp, a.dtype))
    if _Mode.grad and (input._rg or tensor._rg):
        _record_product(res, DotBackward0(), input, tensor)
    return _out(res, out)


@register()
def vdot(input, other, *, out=None):
    """Dot product ``sum(conj(input) * other)`` of two 1-D tensors.

    Example::

        >>> ember.vdot(ember.tensor([1+2j]), ember.tensor([3+0j]))
        tensor(3.-6.j)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'vdot')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'vdot', 'out', None)
    a, b = input._data, other._data
    _dot_check(a, b, 'vdot')
    xp = array_module(a)
    res = wrap(_fresh(xp.vdot(a, b), xp, a.dtype))
    if _Mode.grad and (input._rg or other._rg):
        _record_product(res, VdotBackward0(), input, other)
    return _out(res, out)


# ------------------------------------------------------------------ matmul
class _MatmulBackward(Node):
    """General ``matmul`` backward (1-D operands, batch broadcasting)."""

    def backward(self, g):
        a, b = self.saved_tensors
        a1, b1 = self.vec
        G = g
        if a1:
            G = G.unsqueeze(-1 if b1 else -2)
        if b1:
            G = G.unsqueeze(-1)
        ga = gb = None
        if self.needs[0]:
            B = b.unsqueeze(-1) if b1 else b
            ga = G.matmul(_mH(B))
            if a1:
                ga = ga.squeeze(-2)
        if self.needs[1]:
            A = a.unsqueeze(0) if a1 else a
            if (b1 or len(self._in_meta[1][0]) == 2) and G.dim() > 2:
                # fold the batch into the rows: one matrix product instead of a batch + sum
                k, m = A.shape[-1], G.shape[-1]
                rows = 1
                for s in G.shape[:-1]:
                    rows *= s                  # not -1: k or m may be 0
                gb = _mH(A.expand(G.shape[:-2] + A.shape[-2:]).reshape(rows, k)).matmul(
                    G.reshape(rows, m))
            else:
                gb = _mH(A).matmul(G)
            if b1:
                gb = gb.squeeze(-1)
        return ga, gb


_MatmulSqueeze = _named(type('_MatmulSqueeze', (_MatmulBackward,), {}), 'SqueezeBackward4')
_MatmulView = _named(type('_MatmulView', (_MatmulBackward,), {}), 'UnsafeViewBackward0')
_MatmulClone = _named(type('_MatmulClone', (_MatmulBackward,), {}), 'CloneBackward0')


def _matmul_error(a, b):
    da, db = a.ndim, b.ndim
    if da == 1 and db == 1:
        _dot_check(a, b, 'dot')
    if da == 2 and db == 1:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_shape_str(a.shape)}), "
                           f"vec ({b.shape[0]})")
    if da >= 3 and db <= 2:
        rows = int(np.prod(a.shape[:-1]))
        if db == 1:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{a.shape[-1]}), "
                               f"vec ({b.shape[0]})")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and "
                           f"{_shape_str(b.shape)})")
    if db <= 2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_shape_str(a.shape if da == 2 else (1,) + a.shape)} and "
                           f"{_shape_str(b.shape)})")
    ba = a.shape[:-2] if da > 2 else ()
    bb = b.shape[:-2]
    n = max(len(ba), len(bb))
    pa, pb = (1,) * (n - len(ba)) + ba, (1,) * (n - len(bb)) + bb
    for i in range(n):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b "
                               f"({pb[i]}) at non-singleton dimension {i}")
    batch = int(np.prod([max(x, y) for x, y in zip(pa, pb)]))
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                       f"[{batch}, {a.shape[-1]}] but got: [{batch}, {b.shape[-2]}].")


@register(dunder=('__matmul__',))
def matmul(input, other, *, out=None):
    """Matrix product with PyTorch's rules: 1-D @ 1-D is a dot product, 2-D @ 1-D a
    matrix-vector product, 1-D operands get a dimension prepended/appended (and removed
    again), and batch dimensions broadcast.

    Example::

        >>> ember.matmul(ember.ones(10, 2, 3), ember.ones(3, 4)).shape
        torch.Size([10, 2, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'matmul')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'matmul', 'out', None)
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    ad = a.dtype
    if ad is not b.dtype or ad.kind == 'b':
        _check_same_dtype(a, b)
        if ad.kind == 'b' and da == 1 and db == 1:
            raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    xp = array_module(a)
    try:
        r = xp.matmul(a, b)
    except ValueError:
        _matmul_error(a, b)
        raise
    if da == 1 and db == 1:
        r = _fresh(r, xp)
    if r.dtype is not ad:
        r = r.astype(ad)
    res = wrap(r)
    if _Mode.grad and (input._rg or other._rg):
        if da <= 2 and db <= 2:
            node = (DotBackward0 if da == 1 else MvBackward0) if db == 1 else \
                (_MatmulSqueeze if da == 1 else MmBackward0)
            node = node()
            if node.__class__ is _MatmulSqueeze:
                node.vec = (True, False)
        else:
            if input._rg and db >= 3 and (da == 2 or (da == db and _prod(a.shape[:-2]) == 1 and
                                                      _prod(b.shape[:-2]) > 1)):
                node = _MatmulClone()
            else:
                node = _MatmulView()
            node.vec = (da == 1, db == 1)
        _record_product(res, node, input, other)
    return _out(res, out)


def _prod(s):
    p = 1
    for v in s:
        p *= v
    return p


def _rmatmul(self, other):
    return matmul(other, self)


register('__rmatmul__', function=False)(_rmatmul)


# ------------------------------------------------------------------ addmm family
def _scale(t, s):
    return t if s == 1 else t * s


def _conj_s(s):
    return s.conjugate() if isinstance(s, complex) else s


def _add_input(r, inp, beta, xp):
    """``r += beta * inp`` (``inp`` broadcast to ``r``); ``beta == 0`` ignores ``inp``
    (so NaN in it does not propagate), as PyTorch does."""
    if inp.shape != r.shape:
        try:
            inp = xp.broadcast_to(inp, r.shape)
        except ValueError:
            raise RuntimeError(_expand_msg(inp.shape, r.shape)) from None
    if beta == 0:
        return r
    if inp.dtype != r.dtype:
        inp = inp.astype(r.dtype)
    r += inp if beta == 1 else inp * beta
    return r


def _expand_msg(src, target):
    n = len(target)
    src_p = (None,) * (n - len(src)) + tuple(src)
    for i in range(n - 1, -1, -1):
        if src_p[i] is not None and src_p[i] != target[i] and src_p[i] != 1:
            return (f"The expanded size of the tensor ({target[i]}) must match the existing size "
                    f"({src_p[i]}) at non-singleton dimension {i}.  Target sizes: "
                    f"[{', '.join(map(str, target))}].  Tensor sizes: [{', '.join(map(str, src))}]")
    return (f"The expanded size of the tensor must match the existing size.  Target sizes: "
            f"[{', '.join(map(str, target))}].  Tensor sizes: [{', '.join(map(str, src))}]")


class AddmmBackward0(Node):
    def backward(self, g):
        m1, m2 = self.saved_tensors
        alpha, beta = self.alpha, self.beta
        gi = _scale(g, _conj_s(beta)) if self.needs[0] else None
        g1 = _scale(g.matmul(_mH(m2)), _conj_s(alpha)) if self.needs[1] else None
        g2 = _scale(_mH(m1).matmul(g), _conj_s(alpha)) if self.needs[2] else None
        return gi, g1, g2


class BaddbmmBackward0(AddmmBackward0):
    pass


class AddbmmBackward0(Node):
    def backward(self, g):
        b1, b2 = self.saved_tensors
        alpha, beta = _conj_s(self.alpha), _conj_s(self.beta)
        gi = _scale(g, beta) if self.needs[0] else None
        g1 = _scale(g.unsqueeze(0).matmul(_mH(b2)), alpha) if self.needs[1] else None
        g2 = _scale(_mH(b1).matmul(g.unsqueeze(0)), alpha) if self.needs[2] else None
        return gi, g1, g2


class AddmvBackward0(Node):
    def backward(self, g):
        m, v = self.saved_tensors
        alpha, beta = _conj_s(self.alpha), _conj_s(self.beta)
        gi = _scale(g, beta) if self.needs[0] else None
        g1 = _scale(g.unsqueeze(-1) * _c(v), alpha) if self.needs[1] else None
        g2 = _scale(_mH(m).matmul(g), alpha) if self.needs[2] else None
        return gi, g1, g2


class AddrBackward0(Node):
    def backward(self, g):
        v1, v2 = self.saved_tensors
        alpha, beta = _conj_s(self.alpha), _conj_s(self.beta)
        gi = _scale(g, beta) if self.needs[0] else None
        g1 = _scale(g.matmul(_c(v2)), alpha) if self.needs[1] else None
        g2 = _scale(_c(v1).matmul(g), alpha) if self.needs[2] else None
        return gi, g1, g2


def _record_add_product(res, node, inp, a, b, beta, alpha):
    node.alpha, node.beta = alpha, beta
    record(res, node, (inp, a, b), save=_save2(a, b))
    return res


def _addlike(product, node_cls, input, x, y, beta, alpha, out):
    """``beta * input + alpha * product(x, y)`` with one node for all three inputs."""
    if x._data.dtype.kind in 'biu':
        # integer tensors: PyTorch truncates float alpha/beta (addr rejects them)
        for nm, v in (('beta', beta), ('alpha', alpha)):
            if isinstance(v, float) and product is _outer_arrays:
                raise RuntimeError(f"For integral input tensors, argument {nm} must not be a "
                                   "floating point number.")
        beta, alpha = int(beta), int(alpha)
        if x._data.dtype.kind == 'b':     # bool: torch reads alpha/beta as bools (and / or)
            beta, alpha = bool(beta), bool(alpha)
    with _NoGrad():
        p = product(x, y)
    r = p._data
    xp = array_module(r)
    if alpha != 1:
        r = r * alpha
        if r.dtype != p._data.dtype:
            r = r.astype(p._data.dtype)
    r = _add_input(r, input._data, beta, xp)
    res = wrap(r)
    if _Mode.grad and (input._rg or x._rg or y._rg):
        _record_add_product(res, node_cls(), input, x, y, beta, alpha)
    return _out(res, out, exact=product is not _outer_arrays)     # addr casts


@register()
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the result.

    Example::

        >>> ember.addmm(ember.zeros(3), ember.ones(2, 4), ember.ones(4, 3), alpha=2)
        tensor([[8., 8., 8.],
                [8., 8., 8.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addmm')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addmm', 'out', None)
    return _addlike(mm, AddmmBackward0, input, mat1, mat2, beta, alpha, out)


@register()
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``.

    Example::

        >>> ember.addmv(ember.ones(2), ember.ones(2, 3), ember.ones(3))
        tensor([4., 4.])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addmv')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addmv', 'out', None)
    return _addlike(mv, AddmvBackward0, input, mat, vec, beta, alpha, out)


@register()
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    Example::

        >>> ember.baddbmm(ember.zeros(1), ember.ones(2, 1, 3), ember.ones(2, 3, 1)).shape
        torch.Size([2, 1, 1])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'baddbmm')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'baddbmm', 'out', None)
    return _addlike(bmm, BaddbmmBackward0, input, batch1, batch2, beta, alpha, out)


def _bmm_sum(b1, b2):
    return _sum0(bmm(b1, b2))


def _sum0(t):
    a = t._data
    return wrap(array_module(a).sum(a, axis=0, dtype=a.dtype))   # int32 stays int32


@register()
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

    Example::

        >>> ember.addbmm(ember.zeros(2, 2), ember.ones(3, 2, 4), ember.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addbmm')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addbmm', 'out', None)
    return _addlike(_bmm_sum, AddbmmBackward0, input, batch1, batch2, beta, alpha, out)


def _outer_arrays(v1, v2):
    a, b = v1._data, v2._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {a.ndim}-D" if a.ndim != 1
                           else f"addr: Expected 1-D argument vec2, but got {b.ndim}-D")
    return wrap(a[:, None] * b[None, :])


@register()
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Example::

        >>> ember.addr(ember.zeros(2, 2), ember.tensor([1., 2.]), ember.tensor([1., 1.]))
        tensor([[1., 1.],
                [2., 2.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'addr')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'addr', 'out', None)
    return _addlike(_outer_arrays, AddrBackward0, input, vec1, vec2, beta, alpha, out)


for _fn, _nm in ((addmm, 'addmm_'), (addmv, 'addmv_'), (baddbmm, 'baddbmm_'),
                 (addr, 'addr_')):
    register(_nm, function=_nm == 'addmv_')(_make_inplace(_fn, _nm))    # torch.addmv_ too

_addbmm_inplace = _make_inplace(addbmm, 'addbmm_')


@register(function=False)
def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place version of :func:`addbmm`. As in PyTorch, a ``self`` that only broadcasts to
    the result's shape is resized to it (the other ``add*_`` ops raise instead).

    NOTE: unlike PyTorch, the resized ``self`` contributes its broadcast values; PyTorch
    reads a ``(n, 1)`` self from memory the result has partly overwritten.

    Example::

        >>> ember.ones(1, 2).addbmm_(ember.ones(3, 2, 4), ember.ones(3, 4, 2)).shape
        torch.Size([2, 2])
    """
    if isinstance(batch1, Tensor) and isinstance(batch2, Tensor) and batch1.dim() == 3 and \
            batch2.dim() == 3 and isinstance(self, Tensor) and not self.requires_grad:
        shape = (batch1.shape[1], batch2.shape[2])
        if tuple(self.shape) != shape:
            r = addbmm(self, batch1, batch2, beta=beta, alpha=alpha)   # raises if no broadcast
            self.resize_(shape)
            return self.copy_(r)
    return _addbmm_inplace(self, batch1, batch2, beta=beta, alpha=alpha)


# ------------------------------------------------------------------ outer / inner / tensordot / kron
@register(aliases=('ger',))
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (with type promotion).

    Example::

        >>> ember.outer(ember.tensor([1, 2]), ember.tensor([1, 10]))
        tensor([[ 1, 10],
                [ 2, 20]])
    """
    if not isinstance(input, Tensor) or not isinstance(vec2, Tensor):
        _args.tensor(input, 'outer')
        _args.tensor(vec2, 'outer', 'vec2', 2)
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'outer', 'out', None)
    if input.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return _out(input.unsqueeze(-1) * vec2, out, exact=False)


@register()
def inner(input, other, *, out=None):
    """Inner product over the last dimension of both tensors (a product when either is 0-D).

    Example::

        >>> ember.inner(ember.ones(2, 3), ember.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'inner')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'inner', 'out', None)
    if input.dim() == 0 or other.dim() == 0:
        return _out(input * other, out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes [{', '.join(map(str, input.shape))}] and "
                           f"[{', '.join(map(str, other.shape))}]")
    return _out(tensordot(input, other, dims=([-1], [-1])), out)


@register(method=False)
def tensordot(a, b, dims=2, out=None):
    """Contraction of ``a`` and ``b`` over the given dimensions.

    Args:
        dims (int or tuple of two lists): contract the last ``dims`` dimensions of ``a`` with
            the first ``dims`` of ``b``, or the listed dimensions pairwise (a contracted
            dimension of size 1 broadcasts against its partner, as in PyTorch).

    Example::

        >>> ember.tensordot(ember.ones(3, 4, 5), ember.ones(4, 5, 6), dims=2).shape
        torch.Size([3, 6])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'tensordot', 'out', None)
    na, nb = a.dim(), b.dim()
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > na or dims > nb:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        if isinstance(da, int):
            da = [da]
        if isinstance(db, int):
            db = [db]
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        da = [_wrap_dim(d, na) for d in da]
        db = [_wrap_dim(d, nb) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y] and a.shape[x] != 1 and b.shape[y] != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim {y}")
    for x, y in zip(da, db):       # a size-1 dim broadcasts against its partner, as torch
        if a.shape[x] != b.shape[y]:
            if a.shape[x] == 1:
                b = b.sum(y, keepdim=True, dtype=b.dtype)
            else:
                a = a.sum(x, keepdim=True, dtype=a.dtype)
    fa = [d for d in range(na) if d not in da]
    fb = [d for d in range(nb) if d not in db]
    k = _prod(a.shape[d] for d in da)
    sa = [a.shape[d] for d in fa]
    sb = [b.shape[d] for d in fb]
    A = a.permute(*(fa + da)).reshape(_prod(sa), k)
    B = b.permute(*(db + fb)).reshape(k, _prod(sb))
    if A.dtype != B.dtype:
        dt = D.promote_types(A.dtype, B.dtype)
        A, B = A.to(dt), B.to(dt)
    return _out(mm(A, B).reshape(sa + sb), out)


@register()
def kron(input, other, *, out=None):
    """Kronecker product.

    Example::

        >>> ember.kron(ember.eye(2), ember.ones(2, 2)).shape
        torch.Size([4, 4])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'kron')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'kron', 'out', None)
    if not isinstance(other, Tensor):
        raise TypeError(f"kron(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    n = max(input.dim(), other.dim())
    sa = (1,) * (n - input.dim()) + tuple(input.shape)
    sb = (1,) * (n - other.dim()) + tuple(other.shape)
    A = input.reshape([v for s in sa for v in (s, 1)])
    B = other.reshape([v for s in sb for v in (1, s)])
    return _out((A * B).reshape([x * y for x, y in zip(sa, sb)]), out, exact=False)


# ------------------------------------------------------------------ cross
class LinalgCrossBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        d = self.dim
        ga = linalg_cross(_c(b), g, dim=d) if self.needs[0] else None
        gb = linalg_cross(g, _c(a), dim=d) if self.needs[1] else None
        return ga, gb


def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (broadcasting the other dimensions).

    Example::

        >>> ember.linalg.cross(ember.tensor([1., 0., 0.]), ember.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
    """
    x, y, xp = binary_arrays(input, other)
    if x.ndim != y.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    n = max(x.ndim, y.ndim)
    d = _wrap_dim(dim, n)
    dx, dy = d - (n - x.ndim), d - (n - y.ndim)
    sx = x.shape[dx] if 0 <= dx < x.ndim else 1
    sy = y.shape[dy] if 0 <= dy < y.ndim else 1
    if sx != 3 or sy != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {sx} "
                           f"and {sy}")
    try:
        shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise RuntimeError("linalg.cross: inputs must be broadcastable") from None
    r = xp.cross(xp.broadcast_to(x, shape), xp.broadcast_to(y, shape), axis=d)
    res = wrap(r)
    if _Mode.grad and (input._rg or other._rg):
        node = LinalgCrossBackward0()
        node.dim = d - n
        _record_product(res, node, input, other)
    return _out(res, out)


@register()
def cross(input, other, dim=None, *, out=None):
    """Cross product along ``dim``; with ``dim=None`` the first dimension of size 3.

    Example::

        >>> ember.cross(ember.tensor([[1., 0., 0.]]), ember.tensor([[0., 1., 0.]]), dim=1)
        tensor([[0., 0., 1.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cross')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'cross', 'out', None)
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        for i, s in enumerate(shape):
            if s == 3:
                dim = i
                break
        else:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim, out=out)


# ------------------------------------------------------------------ einsum
_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'


def _parse_einsum(eq, shapes):
    """Explicit form of an einsum equation: (list of input subscripts, output subscripts),
    with ellipses replaced by letters not otherwise used."""
    eq = eq.replace(' ', '')
    if '->' in eq:
        lhs, rhs = eq.split('->')
    else:
        lhs, rhs = eq, None
    terms = lhs.split(',')
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for ch in eq:
        if ch not in _LETTERS and ch not in ',.->':
            raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(ch)} in the "
                               f"equation string, subscripts must be in [a-zA-Z]")
    used = set(c for c in eq if c in _LETTERS)
    free = [c for c in _LETTERS if c not in used]
    ell_n = 0
    for t, s in zip(terms, shapes):
        if '...' in t:
            ell_n = max(ell_n, len(s) - (len(t) - 3))
    ell = ''.join(free[:ell_n])
    out_terms = []
    for i, (t, s) in enumerate(zip(terms, shapes)):
        if '...' in t:
            k = len(s) - (len(t) - 3)
            if k < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(t) - 3}) is more than the number of dimensions "
                                   f"({len(s)}) for operand {i}")
            t = t.replace('...', ell[ell_n - k:] if k else '')
        elif len(t) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) "
                               f"does not match the number of dimensions ({len(s)}) for operand "
                               f"{i} and no ellipsis was given")
        out_terms.append(t)
    if rhs is None:
        counts = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell + ''.join(sorted((c for c in counts if counts[c] == 1 and c not in ell),
                                   key=lambda c: (c.isupper(), c)))
    else:
        rhs = rhs.replace('...', ell)
    return out_terms, rhs


class _EinsumBackward(Node):
    def backward(self, g):
        ops = self.saved_tensors
        terms, rhs, shapes = self.terms, self.rhs, self.shapes
        grads = []
        for i, t in enumerate(terms):
            if not self.needs[i]:
                grads.append(None)
                continue
            grads.append(_einsum_grad_term(g, ops, terms, rhs, shapes, i))
        return tuple(grads)


def _einsum_grad_term(g, ops, terms, rhs, shapes, i):
    """Gradient for operand ``i``: an einsum of the upstream gradient with the other operands."""
    t = terms[i]
    others = [(terms[j], _c(ops[j])) for j in range(len(terms)) if j != i]
    sizes = {}
    for tj, sh in zip(terms, shapes):
        for c, s in zip(tj, sh):
            if s != 1 or c not in sizes:
                sizes[c] = s
    # repeated subscripts in t (a diagonal): give them fresh letters tied by identity matrices
    used = set(''.join(terms) + rhs)
    free = iter(c for c in _LETTERS if c not in used)
    seen = set()
    new_t = ''
    extra = []
    for c in t:
        if c in seen:
            f = next(free)
            extra.append((c + f, _eye_like(g, sizes[c])))
            new_t += f
        else:
            seen.add(c)
            new_t += c
    avail = set(rhs).union(*[set(tj) for tj, _ in others])
    for c in set(t):
        if c not in avail:   # summed out within operand i only: broadcast back with ones
            extra.append((c, wrap(array_module(g._data).ones((sizes[c],), g._data.dtype))))
    eq = ','.join([rhs] + [tj for tj, _ in others] + [e for e, _ in extra]) + '->' + new_t
    return einsum(eq, g, *[o for _, o in others], *[o for _, o in extra])


_EinsumView = _named(type('_EinsumView', (_EinsumBackward,), {}), 'ViewBackward0')
_EinsumPermute = _named(type('_EinsumPermute', (_EinsumBackward,), {}), 'PermuteBackward0')
_EinsumSum = _named(type('_EinsumSum', (_EinsumBackward,), {}), 'SumBackward1')


def _sublist_to_eq(args):
    ops, subs = [], []
    it = list(args)
    out = None
    while it:
        if len(it) == 1:
            out = it.pop()
            break
        ops.append(it.pop(0))
        subs.append(it.pop(0))

    def conv(s):
        return ''.join('...' if x is Ellipsis else _LETTERS[x] for x in s)
    eq = ','.join(conv(s) for s in subs)
    if out is not None:
        eq += '->' + conv(out)
    return eq, ops


@register(method=False)
def einsum(equation, *operands):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)`` is ``a @ b``. Supports ellipses,
    implicit output (letters used once, sorted), repeated subscripts (diagonals), the
    operand-list form ``einsum(eq, [a, b])`` and the sublist form ``einsum(a, [0, 1], b, [1, 2])``.

    Example::

        >>> ember.einsum('bij,bjk->bik', ember.ones(2, 3, 4), ember.ones(2, 4, 5)).shape
        torch.Size([2, 3, 5])
    """
    if not isinstance(equation, str):
        equation, operands = _sublist_to_eq((equation,) + operands)
    elif len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    arrs = [o._data for o in operands]
    terms, rhs = _parse_einsum(equation, [a.shape for a in arrs])
    sizes = {}
    for i, (t, a) in enumerate(zip(terms, arrs)):
        for c, s in zip(t, a.shape):
            p = sizes.get(c)
            if p is None or p == 1:
                sizes[c] = s
            elif s != p and s != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which "
                                   f"does not broadcast with previously seen size {p}")
    for c in rhs:
        if c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                               f"for any input operand")
    if len(set(rhs)) != len(rhs):
        raise RuntimeError("einsum(): output subscript appears more than once in the output")
    xp = array_module(arrs[0]) if arrs else np
    dt = arrs[0].dtype
    for a in arrs[1:]:
        if a.dtype != dt:
            raise RuntimeError(f"expected scalar type {_st(arrs[0])} but found {_st(a)}")
    # size-1 dimensions broadcast (numpy einsum only broadcasts ellipsis dimensions)
    ins = []
    for t, a in zip(terms, arrs):
        want = tuple(sizes[c] for c in t)
        ins.append(xp.broadcast_to(a, want) if a.shape != want else a)
    spec = ','.join(terms) + '->' + rhs
    if dt.kind == 'V':      # bfloat16: NumPy's einsum has no loops for it; float32, rounded once
        ins = [a.astype(np.float32) for a in ins]
    if dt.kind in 'biu':
        summed = set(''.join(terms)) - set(rhs)
        if dt.kind == 'b' and any(sum(c in t for t in terms) > 1 for c in summed):
            # torch contracts shared indices by bmm, which has no bool kernel
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        if any(sum(c in t for t in terms) == 1 for c in summed):
            # an index of one operand alone is summed first with sum(): int64 from there on
            ins = [a.astype(np.int64) for a in ins]
            dt = np.dtype(np.int64)
    if len(ins) > 2:
        r = xp.einsum(spec, *ins, optimize='greedy')
    elif len(ins) == 2:
        r = xp.einsum(spec, *ins, optimize=True)
    else:
        r = xp.einsum(spec, *ins)
    if not isinstance(r, xp.ndarray):
        r = xp.asarray(r)
    elif len(ins) == 1 and r.size and any(xp.shares_memory(r, a) for a in arrs):
        r = r.copy()
    if r.dtype != dt:
        r = r.astype(dt)
    res = wrap(r)
    if _Mode.grad and any(o._rg for o in operands):
        if len(terms) == 1:
            node = _EinsumPermute() if set(rhs) == set(terms[0]) else _EinsumSum()
        else:
            node = _EinsumView()
        node.terms, node.rhs, node.shapes = terms, rhs, [a.shape for a in arrs]
        record(res, node, tuple(operands), save=tuple(operands))
    return res


# ------------------------------------------------------------------ chained products
def multi_dot(tensors, *, out=None):
    """Product of two or more matrices, multiplied in the cheapest order. The first may be
    1-D (a row vector) and the last 1-D (a column vector).

    Example::

        >>> ember.linalg.multi_dot([ember.ones(2, 3), ember.ones(3, 4), ember.ones(4)]).shape
        torch.Size([2])
    """
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_1d = ts[0].dim() == 1
    last_1d = ts[-1].dim() == 1
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.dim() != 2:
            which = 'first' if i == 0 else 'last' if i == n - 1 else None
            if which:
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                                   f"{tensors[i].dim()}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i in range(n - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{_shape_str(ts[i].shape)} and {_shape_str(ts[i + 1].shape)} "
                               f"cannot be multiplied")
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    # classic matrix-chain order by dynamic programming
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best is None or c < best:
                    best, split[i][j] = c, k
            cost[i][j] = best

    def prod(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return mm(prod(i, k), prod(k + 1, j))
    r = prod(0, n - 1)
    if first_1d and last_1d:
        r = r.reshape(())
    elif first_1d:
        r = r.reshape(r.shape[1:])
    elif last_1d:
        r = r.reshape(r.shape[:1])
    else:
        r = r.view(r.shape)
    return _out(r, out)


@register(method=False)
def chain_matmul(*matrices, out=None):
    """Product of the 2-D ``matrices`` (deprecated in PyTorch: use
    :func:`ember.linalg.multi_dot`).

    Example::

        >>> ember.chain_matmul(ember.ones(2, 3), ember.ones(3, 4)).shape
        torch.Size([2, 4])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'chain_matmul', 'out', None)
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out)
    for i, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    return multi_dot(matrices, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along ``dim``: ``sum(conj(x) * y, dim)``.

    Example::

        >>> ember.linalg.vecdot(ember.ones(2, 3), ember.ones(2, 3))
        tensor([3., 3.])
    """
    return _out((_c(x) * y).sum(dim), out)


# PyTorch's names of what each node saves, by position (grad_fn._saved_<name>)
for _node_cls, _names in ((MmBackward0, ('self', 'mat2')), (MvBackward0, ('self', 'vec')),
               (DotBackward0, ('self', 'tensor')), (VdotBackward0, ('self', 'other')),
               (AddmmBackward0, ('mat1', 'mat2')), (AddbmmBackward0, ('batch1', 'batch2')),
               (AddmvBackward0, ('mat', 'vec')), (AddrBackward0, ('vec1', 'vec2')),
               (LinalgCrossBackward0, ('self', 'other'))):
    _node_cls._saved_names = _names
del _node_cls, _names


# ------------------------------------------------------------------ _scaled_mm
_FP8 = ('float8_e4m3fn', 'float8_e5m2', 'float8_e4m3fnuz', 'float8_e5m2fnuz')


def _is_fp8(dt):
    return str(dt).split('.')[-1] in _FP8


@register(method=False)
def _scaled_mm(input, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None,
               use_fast_accum=False, *, out=None):
    """The float8 matrix product ``(input @ mat2) * scale_a * scale_b (+ bias)``, accumulated
    in float32 and rounded to ``out_dtype`` (default: ``input``'s dtype; a float8 result
    saturates at that type's largest finite value).

    Args:
        input (Tensor): ``(m, k)``, a float8 dtype.
        mat2 (Tensor): ``(k, n)``, a float8 dtype.
        scale_a (Tensor): float32, one element (tensor-wise) or ``(m, 1)`` (row-wise).
        scale_b (Tensor): float32, one element or ``(1, n)``.
        bias (Tensor, optional): ``(n,)``, added to the scaled product. Default: None.
        scale_result (Tensor, optional): accepted; unused on the CPU (as in PyTorch).
        out_dtype (ember.dtype, optional): the result's dtype. Default: ``input``'s.
        use_fast_accum (bool, optional): accepted; the CPU always accumulates in float32.

    Example::

        >>> a = ember.eye(2).to(ember.float8_e4m3fn)
        >>> ember._scaled_mm(a, a, ember.tensor(2.), ember.tensor(3.),
        ...                  out_dtype=ember.float32)
        tensor([[6., 0.],
                [0., 6.]])
    """
    for t in (input, mat2, scale_a, scale_b):
        if not isinstance(t, Tensor):
            _args.tensor(t, '_scaled_mm')
    if input.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("mat1 must be a matrix" if input.dim() != 2 else
                           "mat2 must be a matrix")
    m, k = input.shape
    if mat2.shape[0] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    n = mat2.shape[1]
    f32 = D.float32
    tensorwise = scale_a.numel() == 1 and scale_b.numel() == 1
    rowwise = tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n)
    if not (_is_fp8(input.dtype) and _is_fp8(mat2.dtype) and scale_a.dtype is f32 and
            scale_b.dtype is f32 and (tensorwise or rowwise)):
        def nm(t):
            return _legacy_name(t.dtype)
        raise ValueError(
            "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be "
            "float8, scales should be float and singletons.\n- For RowWise scaling, a and b "
            f"should be float8, scales should be float, scale_a should be ({m}, 1) and "
            f"scale_b should be (1, {n}), and both should be contiguous.\nGot "
            f"mat_a.dtype()={nm(input)}, scale_a.dtype()={nm(scale_a)}, "
            f"scale_a.size()={list(scale_a.shape)}, scale_a.stride()={list(scale_a.stride())}, "
            f"mat_b.dtype()={nm(mat2)}, scale_b.dtype()={nm(scale_b)}, "
            f"scale_b.size()={list(scale_b.shape)} and "
            f"scale_b.stride()={list(scale_b.stride())}")
    odt = input.dtype if out_dtype is None else _args.as_dtype(out_dtype, '_scaled_mm')
    a, b = input._data, mat2._data
    xp = array_module(a)
    r = xp.matmul(a.astype('float32'), b.astype('float32'))
    r = r * scale_a._data.astype('float32') * scale_b._data.astype('float32')
    if bias is not None:
        r = r + bias._data.astype('float32')
    if _is_fp8(odt):
        big = float(D.finfo(odt).max)
        r = xp.clip(r, -big, big)
    res = wrap(xp.ascontiguousarray(r.astype(odt._np)))
    return res if out is None else write_out(res, out, '_scaled_mm')
