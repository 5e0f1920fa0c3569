"""Linear algebra: matmul and its relatives (mm, bmm, mv, dot, addmm, einsum, ...) and the
``ember.linalg`` functions (norms, inverse, determinants, solves, decompositions).

Forward passes call the backend's array module (NumPy's BLAS/LAPACK); every backward is
written in ember ops so that higher-order gradients work. Each backward class stands right
above its forward and carries PyTorch's public name.
"""
from . import _args
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _Mode, _wrap_dim, _NoGrad
from ..autograd.graph import _named
from ..return_types import _structseq
from ._util import wrap, Node, register, record, binary_arrays, write_out, with_out
from .._backend import array_module
from .pointwise import _make_inplace

__all__ = ['matmul', 'mm', 'bmm', 'mv', 'dot', 'vdot', 'inner', 'outer', 'addmm', 'addmv',
           'addbmm', 'baddbmm', 'addr', 'einsum', 'tensordot', 'kron', 'cross', 'chain_matmul',
           'multi_dot', 'vector_norm', 'matrix_norm', 'norm', 'inv', 'inv_ex', 'det', 'slogdet',
           'logdet', 'solve', 'solve_ex', 'solve_triangular', 'cholesky', 'cholesky_ex', 'qr',
           'svd', 'svdvals', 'eigh', 'eigvalsh', 'eig', 'eigvals', 'pinv', 'lstsq',
           'matrix_power', 'matrix_rank', 'linalg_cross', 'vecdot', 'LinAlgError']


class _LinAlgError(RuntimeError):
    """Raised when a linear algebra routine fails (singular or non positive-definite input)."""


_LinAlgError.__module__ = 'torch._C'   # shown as torch.linalg.LinAlgError in tracebacks
LinAlgError = _LinAlgError

# torch.return_types look-alikes
linalg_slogdet = _structseq('linalg_slogdet', ('sign', 'logabsdet'))
slogdet_t = _structseq('slogdet', ('sign', 'logabsdet'))
linalg_qr = _structseq('linalg_qr', ('Q', 'R'))
qr_t = _structseq('qr', ('Q', 'R'))
linalg_svd = _structseq('linalg_svd', ('U', 'S', 'Vh'))
svd_t = _structseq('svd', ('U', 'S', 'V'))
linalg_eigh = _structseq('linalg_eigh', ('eigenvalues', 'eigenvectors'))
linalg_eig = _structseq('linalg_eig', ('eigenvalues', 'eigenvectors'))
linalg_inv_ex = _structseq('linalg_inv_ex', ('inverse', 'info'))
linalg_cholesky_ex = _structseq('linalg_cholesky_ex', ('L', 'info'))
linalg_solve_ex = _structseq('linalg_solve_ex', ('result', 'info'))
linalg_lstsq = _structseq('linalg_lstsq', ('solution', 'residuals', 'rank', 'singular_values'))

# ScalarType names (``Float``) and C type names (``float``) used in PyTorch's messages
_ST_NAME = {'float32': 'Float', 'float64': 'Double', 'float16': 'Half', 'bfloat16': 'BFloat16',
            'int64': 'Long', 'int32': 'Int', 'int16': 'Short', 'int8': 'Char', 'uint8': 'Byte',
            'bool': 'Bool', 'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble',
            'uint16': 'UInt16', 'uint32': 'UInt32', 'uint64': 'UInt64'}
_C_NAME = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
           'bfloat16': 'c10::BFloat16', 'int64': 'long int', 'int32': 'int', 'int16': 'short int',
           'int8': 'signed char', 'uint8': 'unsigned char', 'bool': 'bool',
           'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>'}


def _st(a):
    return _ST_NAME.get(str(a.dtype), str(a.dtype))


def _cn(a):
    return _C_NAME.get(str(a.dtype), str(a.dtype))


def _c(t):
    """Conjugate for complex tensors, identity otherwise (real backward formulas stay cheap)."""
    return t.conj() if t._data.dtype.kind == 'c' else t


def _mH(t):
    return _c(t.mT)


def _const(arr):
    """A constant (non-differentiable) tensor from a fresh array."""
    return wrap(arr)


def _eye_like(t, n=None):
    a = t._data
    n = a.shape[-1] if n is None else n
    return wrap(array_module(a).eye(n, dtype=a.dtype))


def _shape_str(s):
    return 'x'.join(str(int(v)) for v in s)


def _fresh(r, xp, dt=None):
    """Numpy may return scalars (0-dim results) or another dtype (bfloat16 -> float32)."""
    if not isinstance(r, xp.ndarray):
        r = xp.asarray(r)
    if dt is not None and r.dtype != dt:
        r = r.astype(dt)
    return r


def _out(res, out, name='linalg'):
    """``out=`` of the linalg ops (see ``_util.write_out``)."""
    return res if out is None else write_out(res, out, name)


def _check_same_dtype(a, b):
    if a.dtype is not b.dtype and a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cn(a)} != {_cn(b)}")
    if a.dtype.kind == 'b' and a.size and b.size:     # an empty product is just zeros
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _matmul_arrays(a, b):
    """``a @ b`` for arrays (bfloat16 stays bfloat16)."""
    xp = array_module(a)
    r = xp.matmul(a, b)
    if r.dtype is not a.dtype:
        r = r.astype(a.dtype)
    return r


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
    if not isinstance(input, Tensor):
        _args.tensor(input, 'mm')
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
    if not isinstance(input, Tensor):
        _args.tensor(input, 'bmm')
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
    if not isinstance(input, Tensor):
        _args.tensor(input, 'dot')
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
                gb = _mH(A.expand(G.shape[:-2] + A.shape[-2:]).reshape(-1, k)).matmul(
                    G.reshape(-1, m))
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
    return _out(res, out)


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
    return wrap(array_module(a).sum(a, axis=0))


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
                 (addbmm, 'addbmm_'), (addr, 'addr_')):
    register(_nm, function=False)(_make_inplace(_fn, _nm))


# ------------------------------------------------------------------ outer / inner / tensordot / kron
@register(aliases=('ger',))
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (with type promotion).

    Example::

        >>> ember.outer(ember.tensor([1, 2]), ember.tensor([1, 10]))
        tensor([[ 1, 10],
                [ 2, 20]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'outer')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'outer', 'out', None)
    if input.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return _out(input.unsqueeze(-1) * vec2, out)


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
            the first ``dims`` of ``b``, or the listed dimensions pairwise.

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
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim {y}")
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
    return _out((A * B).reshape([x * y for x, y in zip(sa, sb)]), out)


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


# ------------------------------------------------------------------ checks for linalg
def _check_float(a, name):
    if a.dtype.kind not in 'fc' or a.dtype.itemsize < 4 and a.dtype.kind == 'f':
        if a.dtype.kind in 'fV':
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_st(a)}")
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_st(a)}")


def _check_square(a, name, arg='A'):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _check_matrix(a, name, arg='A'):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def _la(name):
    """Context mapping NumPy's LinAlgError to ember's (PyTorch's) error."""
    return _LaCtx(name)


class _LaCtx:
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, tp, val, tb):
        if tp is not None and issubclass(tp, np.linalg.LinAlgError):
            n = self.name
            if n in ('linalg.cholesky', 'cholesky'):
                msg = (f"{n}: The factorization could not be completed because the input is not "
                       f"positive-definite.")
            elif n == 'linalg.solve':
                msg = ("torch.linalg.solve: The solver failed because the input matrix is "
                       "singular.")
            elif n in ('linalg.inv', 'inverse'):
                msg = (f"{n}: The inversion could not be completed because the input matrix is "
                       f"singular.")
            else:
                msg = f"{n}: The algorithm failed to converge: {val}"
            raise _LinAlgError(msg) from None
        return False


def _real_dtype(dt):
    return np.dtype(np.float32) if dt == np.complex64 else \
        np.dtype(np.float64) if dt == np.complex128 else dt


# ------------------------------------------------------------------ inverse
class LinalgInvExBackward0(Node):
    def backward(self, g, *_):
        (ainv,) = self.saved_tensors
        h = _mH(ainv)
        return -(h.matmul(g).matmul(h))


@with_out('linalg_inv_ex')
def inv_ex(A, *, check_errors=False, out=None):
    """Inverse of square matrices and an ``info`` tensor (0 where the inversion succeeded).

    NOTE: unlike PyTorch, for a singular matrix ``info`` is 1 (not the index of the zero
    pivot) and the inverse holds NaN.

    Example::

        >>> ember.linalg.inv_ex(ember.eye(2) * 2).inverse
        tensor([[0.5000, 0.0000],
                [0.0000, 0.5000]])
    """
    a = A._data
    _check_float(a, 'linalg.inv_ex')
    _check_square(a, 'linalg.inv_ex')
    xp = array_module(a)
    try:
        r = xp.linalg.inv(a)
        info = xp.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        if check_errors:
            raise _LinAlgError("linalg.inv_ex: The inversion could not be completed because the "
                               "input matrix is singular.") from None
        flat = a.reshape((-1,) + a.shape[-2:])
        r = xp.empty(flat.shape, a.dtype)
        info = xp.zeros(flat.shape[0], np.int32)
        for i in range(flat.shape[0]):
            try:
                r[i] = xp.linalg.inv(flat[i])
            except np.linalg.LinAlgError:
                r[i] = np.nan
                info[i] = 1
        r = r.reshape(a.shape)
        info = info.reshape(a.shape[:-2])
    res = wrap(_fresh(r, xp, a.dtype))
    inf = wrap(info)
    if _Mode.grad and A._rg:
        record((res, inf), LinalgInvExBackward0(), (A,), save=(res,))
    return linalg_inv_ex((res, inf))


def inv(A, *, out=None):
    """Inverse of a square matrix (or a batch of them).

    Raises ``torch.linalg.LinAlgError`` when the matrix is singular.

    Example::

        >>> ember.linalg.inv(ember.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    a = A._data
    _check_float(a, 'linalg.inv')
    _check_square(a, 'linalg.inv')
    xp = array_module(a)
    with _la('linalg.inv'):
        r = xp.linalg.inv(a)
    res = wrap(_fresh(r, xp, a.dtype))
    if _Mode.grad and A._rg:
        record(res, LinalgInvExBackward0(), (A,), save=(res,))
    return _out(res, out)


@register()
def inverse(input, *, out=None):
    """Alias of :func:`ember.linalg.inv`.

    Example::

        >>> ember.inverse(ember.eye(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'inverse')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'inverse', 'out', None)
    return inv(input, out=out)


# ------------------------------------------------------------------ determinants
class LinalgDetBackward0(Node):
    def backward(self, g):
        A, d = self.saved_tensors
        s = _c(g * d).unsqueeze(-1).unsqueeze(-1)
        return s * _mH(inv(A))


def det(A, *, out=None):
    """Determinant of a square matrix (or a batch of them).

    NOTE: unlike PyTorch, the gradient is only defined for invertible matrices.

    Example::

        >>> ember.linalg.det(ember.tensor([[2., 1.], [1., 2.]]))
        tensor(3.)
    """
    a = A._data
    _check_float(a, 'linalg.det')
    _check_square(a, 'linalg.det')
    xp = array_module(a)
    res = wrap(_fresh(xp.linalg.det(a), xp, a.dtype))
    if _Mode.grad and A._rg:
        record(res, LinalgDetBackward0(), (A,), save=(A, res))
    return _out(res, out)


class LinalgSlogdetBackward0(Node):
    def backward(self, gsign, glog):
        (A,) = self.saved_tensors
        if A.is_complex():
            raise RuntimeError("slogdet backward for complex inputs is not implemented in ember")
        return glog.unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))


@with_out('linalg_slogdet')
def slogdet(A, *, out=None):
    """Sign and natural log of the absolute value of the determinant.

    Returns:
        A named tuple ``(sign, logabsdet)``.

    Example::

        >>> ember.linalg.slogdet(ember.tensor([[-2., 0.], [0., 1.]]))
        torch.return_types.linalg_slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(0.6931))
    """
    return linalg_slogdet(_slogdet(A, 'linalg.slogdet'))


def _slogdet(A, name):
    a = A._data
    _check_float(a, name)
    _check_square(a, name)
    xp = array_module(a)
    s, l = xp.linalg.slogdet(a)
    sign = wrap(_fresh(s, xp, a.dtype))
    lad = wrap(_fresh(l, xp, _real_dtype(a.dtype)))
    if _Mode.grad and A._rg:
        node = LinalgSlogdetBackward0()
        record((sign, lad), node, (A,), save=(A,))
    return sign, lad


@register('slogdet')
def _slogdet_top(input):
    """Sign and log absolute determinant (see :func:`ember.linalg.slogdet`).

    Example::

        >>> ember.slogdet(ember.eye(2)).logabsdet
        tensor(0.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'slogdet')
    return slogdet_t(_slogdet(input, 'linalg.slogdet'))


@register('det')
def _det_top(input):
    """Determinant (see :func:`ember.linalg.det`).

    Example::

        >>> ember.det(ember.eye(3))
        tensor(1.)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'det')
    return det(input)


@register()
def logdet(input):
    """Log determinant: NaN where the determinant is negative, ``-inf`` where it is 0.

    Example::

        >>> ember.logdet(ember.eye(2) * 2)
        tensor(1.3863)
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'logdet')
    sign, lad = _slogdet(input, 'linalg.slogdet')
    s = sign._data
    if (s > 0).all():
        return lad
    fix = array_module(s).where(s < 0, np.nan, 0).astype(lad._data.dtype)
    return lad + wrap(fix)


# ------------------------------------------------------------------ solve
def _is_vector_rhs(a, b):
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


class LinalgSolveExBackward0(Node):
    def backward(self, g, *_):
        A, X = self.saved_tensors
        vec = self.vec
        gB = solve(_mH(A), g)
        gA = None
        if self.needs[0]:
            if vec:
                gA = -(gB.unsqueeze(-1) * _c(X).unsqueeze(-2))
            else:
                gA = -gB.matmul(_mH(X))
        return gA, (gB if self.needs[1] else None)


def solve(A, B, *, left=True, out=None):
    """Solves ``A X = B`` (or ``X A = B`` with ``left=False``) for square, invertible ``A``.
    ``B`` may be a vector (or batch of vectors) and batch dimensions broadcast.

    Example::

        >>> ember.linalg.solve(ember.tensor([[2., 0.], [0., 4.]]), ember.tensor([2., 4.]))
        tensor([1., 1.])
    """
    if not left:
        return _out(solve(A.mT, B.mT).mT, out)
    a, b = A._data, B._data
    _check_float(a, 'linalg.solve')
    _check_square(a, 'linalg.solve')
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {_st(a)} and B of type {_st(b)} instead")
    vec = _is_vector_rhs(a, b)
    bb = b[..., None] if vec else b
    if bb.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({_shape_str(a.shape[-2:])} and {_shape_str(bb.shape[-2:])})")
    xp = array_module(a)
    with _la('linalg.solve'):
        try:
            r = xp.linalg.solve(a, bb)
        except np.linalg.LinAlgError:
            raise
        except ValueError:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"AX = B ({_shape_str(a.shape)} and {_shape_str(bb.shape)})") from None
    if vec:
        r = r[..., 0]
    res = wrap(_fresh(r, xp, a.dtype) if r.base is None else r.copy())
    if _Mode.grad and (A._rg or B._rg):
        node = LinalgSolveExBackward0()
        node.vec = vec
        record(res, node, (A, B), save=(A, res if A._rg else None))
    return _out(res, out)


@with_out('linalg_solve_ex')
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """:func:`solve` returning ``(result, info)``.

    Example::

        >>> ember.linalg.solve_ex(ember.eye(2), ember.ones(2)).result
        tensor([1., 1.])
    """
    r = solve(A, B, left=left)
    return linalg_solve_ex((r, wrap(array_module(r._data).zeros(A.shape[:-2], np.int32))))


class LinalgSolveTriangularBackward0(Node):
    def backward(self, g):
        A, X = self.saved_tensors
        upper, left, uni = self.upper, self.left, self.unitriangular
        gB = solve_triangular(_mH(A), g, upper=not upper, left=left, unitriangular=uni)
        gA = None
        if self.needs[0]:
            gA = -(gB.matmul(_mH(X)) if left else _mH(X).matmul(gB))
            gA = gA * _tri_mask(gA, upper, -1 if upper else 1, uni)
        return gA, (gB if self.needs[1] else None)


def _tri_mask(t, upper, k, uni=False):
    """Constant mask of the (strict when ``uni``) triangle."""
    n, m = t.shape[-2], t.shape[-1]
    xp = array_module(t._data)
    ones = xp.ones((n, m), dtype=t._data.dtype)
    if upper:
        return wrap(xp.triu(ones, 1 if uni else 0))
    return wrap(xp.tril(ones, -1 if uni else 0))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solves a triangular system ``A X = B`` (``X A = B`` with ``left=False``); only the
    triangle of ``A`` named by ``upper`` is read.

    Example::

        >>> ember.linalg.solve_triangular(ember.tensor([[2., 1.], [0., 1.]]), ember.ones(2, 1),
        ...                               upper=True)
        tensor([[0.],
                [1.]])
    """
    a, b = A._data, B._data
    _check_float(a, 'linalg.solve_triangular')
    _check_square(a, 'linalg.solve_triangular')
    xp = array_module(a)
    t = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    with _la('linalg.solve_triangular'):
        if left:
            r = xp.linalg.solve(t, b)
        else:
            r = xp.swapaxes(xp.linalg.solve(xp.swapaxes(t, -1, -2), xp.swapaxes(b, -1, -2)), -1, -2)
            r = r.copy()
    res = wrap(_fresh(r, xp, a.dtype))
    if _Mode.grad and (A._rg or B._rg):
        node = LinalgSolveTriangularBackward0()
        node.upper, node.left, node.unitriangular = upper, left, unitriangular
        record(res, node, (A, B), save=(A, res))
    return _out(res, out)


# ------------------------------------------------------------------ cholesky
class LinalgCholeskyExBackward0(Node):
    def backward(self, gL, *_):
        (L,) = self.saved_tensors
        if self.upper:
            L, gL = _mH(L), _mH(gL)
        phi = _mH(L).matmul(gL)
        phi = phi * _phi_mask(phi)
        # gA = L^{-H} phi L^{-1}, then symmetrised
        X = solve_triangular(_mH(L), phi, upper=True)
        gA = _mH(solve_triangular(_mH(L), _mH(X), upper=True))
        return (gA + _mH(gA)) * 0.5


CholeskyBackward0 = _named(type('CholeskyBackward0', (LinalgCholeskyExBackward0,), {}),
                           'CholeskyBackward0')


def _phi_mask(t):
    n = t.shape[-1]
    xp = array_module(t._data)
    m = xp.tril(xp.ones((n, n), dtype=t._data.dtype))
    m[np.arange(n), np.arange(n)] = 0.5
    return wrap(m)


def _cholesky(A, upper, name, node_cls):
    a = A._data
    _check_float(a, name)
    _check_square(a, name)
    xp = array_module(a)
    with _la(name):
        r = xp.linalg.cholesky(a)
    if upper:
        r = xp.swapaxes(r, -1, -2).conj() if r.dtype.kind == 'c' else xp.swapaxes(r, -1, -2)
        r = r.copy()
    res = wrap(_fresh(r, xp, a.dtype))
    if _Mode.grad and A._rg:
        node = node_cls()
        node.upper = upper
        record(res, node, (A,), save=(res,))
    return res


def cholesky(A, *, upper=False, out=None):
    """Cholesky factor ``L`` (lower triangular) with ``A = L L^H``, or ``U = L^H`` with
    ``upper=True``. Only the lower triangle of ``A`` is read.

    Example::

        >>> ember.linalg.cholesky(ember.tensor([[4., 2.], [2., 2.]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    return _out(_cholesky(A, upper, 'linalg.cholesky', LinalgCholeskyExBackward0), out)


@with_out('linalg_cholesky_ex')
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """:func:`cholesky` returning ``(L, info)``; ``info`` is 0 on success.

    NOTE: unlike PyTorch, a failed factorization gives ``info = 1`` (not the order of the
    failing leading minor) and NaN in ``L``.

    Example::

        >>> ember.linalg.cholesky_ex(ember.eye(2)).info
        tensor(0, dtype=torch.int32)
    """
    try:
        L = _cholesky(A, upper, 'linalg.cholesky', LinalgCholeskyExBackward0)
        info = 0
    except _LinAlgError:
        if check_errors:
            raise
        a = A._data
        L = wrap(array_module(a).full(a.shape, np.nan, a.dtype))
        info = 1
    return linalg_cholesky_ex((L, wrap(array_module(L._data).full(A.shape[:-2], info, np.int32))))


@register('cholesky')
def _cholesky_top(input, upper=False, *, out=None):
    """Cholesky factor (deprecated in PyTorch in favour of :func:`ember.linalg.cholesky`).

    Example::

        >>> ember.cholesky(ember.eye(2) * 4)
        tensor([[2., 0.],
                [0., 2.]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'cholesky')
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'cholesky', 'out', None)
    return _out(_cholesky(input, upper, 'cholesky', CholeskyBackward0), out)


# ------------------------------------------------------------------ qr
class LinalgQrBackward0(Node):
    def backward(self, gQ, gR):
        Q, R = self.saved_tensors
        mode = self.mode
        if mode == 'r':
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if mode == 'complete' and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if m >= n:
            # gA = [gQ + Q copyltu(M)] R^{-H},  M = R gR^H - gQ^H Q
            M = R.matmul(_mH(gR)) - _mH(gQ).matmul(Q)
            low = M * _tri_mask(M, False, 0)
            strict = M * _tri_mask(M, False, 0, True)
            b = gQ + Q.matmul(low + _mH(strict))
            # b R^{-H} = solve(R, b^H)^H   (R upper triangular)
            return _mH(solve_triangular(R, _mH(b), upper=True))
        # m < n: A = Q [X | Y], X square
        X = R[..., :, :m]
        Y = R[..., :, m:]
        gX = gR[..., :, :m]
        gY = gR[..., :, m:]
        gQ2 = gQ + Q.matmul(Y).matmul(_mH(gY))
        M = X.matmul(_mH(gX)) - _mH(gQ2).matmul(Q)
        low = M * _tri_mask(M, False, 0)
        strict = M * _tri_mask(M, False, 0, True)
        b = gQ2 + Q.matmul(low + _mH(strict))
        gAX = _mH(solve_triangular(X, _mH(b), upper=True))
        gAY = Q.matmul(gY)
        return _cat_last(gAX, gAY)


def _cat_last(a, b):
    from .shape import cat
    return cat([a, b], -1)


def _qr(A, mode, tp):
    a = A._data
    _check_float(a, 'linalg.qr')
    if a.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if mode not in ('reduced', 'r', 'complete'):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    xp = array_module(a)
    if mode == 'r':
        r = xp.linalg.qr(a, mode='r')
        q = xp.empty((0,), a.dtype)
    else:
        q, r = xp.linalg.qr(a, mode=mode)
    Q, R = wrap(_fresh(q, xp, a.dtype)), wrap(_fresh(r, xp, a.dtype))
    if _Mode.grad and A._rg:
        node = LinalgQrBackward0()
        node.mode = mode
        record((Q, R), node, (A,), save=(Q, R))
    return tp((Q, R))


@with_out('linalg_qr')
def qr(A, mode='reduced', *, out=None):
    """QR decomposition ``A = Q R`` (``mode``: ``'reduced'``, ``'complete'`` or ``'r'``).

    Returns:
        A named tuple ``(Q, R)``.

    Example::

        >>> Q, R = ember.linalg.qr(ember.tensor([[3., 0.], [4., 5.]]))
        >>> (Q @ R).round()
        tensor([[3., 0.],
                [4., 5.]])
    """
    return _qr(A, mode, linalg_qr)


@register('qr')
@with_out('qr')
def _qr_top(input, some=True, *, out=None):
    """QR decomposition (deprecated in PyTorch: use :func:`ember.linalg.qr`).

    Example::

        >>> ember.qr(ember.eye(2)).R.shape
        torch.Size([2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'qr')
    return _qr(input, 'reduced' if some else 'complete', qr_t)


# ------------------------------------------------------------------ svd
class LinalgSvdBackward0(Node):
    def backward(self, gU, gS, gVh):
        U, S, Vh = self.saved_tensors
        if U is None:   # svdvals: only S was returned
            gU = gVh = None
        return _svd_backward(U, S, Vh, gU, gS, gVh)


class _SvdvalsBackward(LinalgSvdBackward0):
    def backward(self, gS):
        U, S, Vh = self.saved_tensors
        return _svd_backward(U, S, Vh, None, gS, None)


_named(_SvdvalsBackward, 'LinalgSvdBackward0')


def _svd_backward(U, S, Vh, gU, gS, gVh):
    if U.is_complex():
        raise RuntimeError("svd backward for complex inputs is not implemented in ember")
    k = S.shape[-1]
    m, n = U.shape[-2], Vh.shape[-1]
    if U.shape[-1] != k:
        U = U[..., :k]
        gU = gU[..., :k] if gU is not None else None
    if Vh.shape[-2] != k:
        Vh = Vh[..., :k, :]
        gVh = gVh[..., :k, :] if gVh is not None else None
    V = Vh.mT
    if gU is None and gVh is None:
        return U.matmul(gS.unsqueeze(-1) * Vh)
    I = _eye_like(S, k)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + I     # E_ij = S_j^2 - S_i^2, 1 on the diagonal
    offdiag = 1 - I
    inner = (gS.unsqueeze(-1) * I) if gS is not None else None
    gA = None
    if gU is not None:
        UhgU = U.mT.matmul(gU)
        skew = (UhgU - UhgU.mT) / E * offdiag
        t = skew * S.unsqueeze(-2)
        inner = t if inner is None else inner + t
    if gVh is not None:
        gV = gVh.mT
        VhgV = V.mT.matmul(gV)
        skew = (VhgV - VhgV.mT) / E * offdiag
        t = S.unsqueeze(-1) * skew
        inner = t if inner is None else inner + t
    gA = U.matmul(inner).matmul(Vh)
    if gU is not None and m > k:
        gA = gA + (gU - U.matmul(UhgU)).div(S.unsqueeze(-2)).matmul(Vh)
    if gVh is not None and n > k:
        gA = gA + U.matmul(((gV - V.matmul(VhgV)).div(S.unsqueeze(-2))).mT)
    return gA


def _svd_arrays(A, full_matrices, name):
    a = A._data
    _check_float(a, name)
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    xp = array_module(a)
    with _la(name):
        u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return (_fresh(u, xp, a.dtype), _fresh(s, xp, _real_dtype(a.dtype)),
            _fresh(vh, xp, a.dtype))


@with_out('linalg_svd')
def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh``.

    NOTE: like PyTorch, the singular vectors are only defined up to sign; the gradient is
    implemented for real inputs with distinct singular values (for ``full_matrices=True`` the
    extra columns get no gradient).

    Returns:
        A named tuple ``(U, S, Vh)``.

    Example::

        >>> ember.linalg.svd(ember.tensor([[3., 0.], [0., 4.]])).S
        tensor([4., 3.])
    """
    u, s, vh = _svd_arrays(A, full_matrices, 'linalg.svd')
    U, S, Vh = wrap(u), wrap(s), wrap(vh)
    if _Mode.grad and A._rg:
        record((U, S, Vh), LinalgSvdBackward0(), (A,), save=(U, S, Vh))
    return linalg_svd((U, S, Vh))


def svdvals(A, *, driver=None, out=None):
    """Singular values of ``A``, in descending order.

    Example::

        >>> ember.linalg.svdvals(ember.tensor([[3., 0.], [0., 4.]]))
        tensor([4., 3.])
    """
    if _Mode.grad and A._rg:
        u, s, vh = _svd_arrays(A, False, 'linalg.svdvals')
        U, S, Vh = wrap(u), wrap(s), wrap(vh)
        record(S, _SvdvalsBackward(), (A,), save=(U, S, Vh))
        return _out(S, out)
    a = A._data
    _check_float(a, 'linalg.svdvals')
    if a.ndim < 2:
        raise RuntimeError("linalg.svdvals: The input tensor A must have at least 2 dimensions.")
    xp = array_module(a)
    with _la('linalg.svdvals'):
        s = xp.linalg.svd(a, compute_uv=False)
    return _out(wrap(_fresh(s, xp, _real_dtype(a.dtype))), out)


@register('svd')
@with_out('svd')
def _svd_top(input, some=True, compute_uv=True, *, out=None):
    """SVD returning ``(U, S, V)`` (note ``V``, not ``Vh``); ``some=False`` gives full
    matrices. Prefer :func:`ember.linalg.svd`.

    Example::

        >>> ember.svd(ember.eye(2)).V.shape
        torch.Size([2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'svd')
    if not compute_uv:
        S = svdvals(input)
        a = input._data
        xp = array_module(a)
        m, n = a.shape[-2], a.shape[-1]
        U = wrap(xp.zeros(a.shape[:-2] + (m, m if not some else min(m, n)), a.dtype))
        V = wrap(xp.zeros(a.shape[:-2] + (n, n if not some else min(m, n)), a.dtype))
        return svd_t((U, S, V))
    U, S, Vh = svd(input, full_matrices=not some)
    return svd_t((U, S, _mH(Vh)))


# ------------------------------------------------------------------ eigh
class LinalgEighBackward0(Node):
    def backward(self, gL, gV):
        L, V = self.saved_tensors
        if V.is_complex():
            raise RuntimeError("eigh backward for complex inputs is not implemented in ember")
        if gV is None:
            return V.matmul(gL.unsqueeze(-1) * V.mT)
        I = _eye_like(L)
        VhgV = V.mT.matmul(gV)
        skew = (VhgV - VhgV.mT) * 0.5
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + I     # E_ij = L_j - L_i, 1 on the diagonal
        inner = skew / E * (1 - I)
        if gL is not None:
            inner = inner + gL.unsqueeze(-1) * I
        return V.matmul(inner).matmul(V.mT)


class _EigvalshBackward(LinalgEighBackward0):
    def backward(self, gL):
        return LinalgEighBackward0.backward(self, gL, None)


_named(_EigvalshBackward, 'LinalgEighBackward0')


def _eigh_arrays(A, UPLO, name):
    a = A._data
    _check_float(a, name)
    _check_square(a, name)
    if UPLO not in ('L', 'U'):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    xp = array_module(a)
    with _la(name):
        w, v = xp.linalg.eigh(a, UPLO=UPLO)
    return _fresh(w, xp, _real_dtype(a.dtype)), _fresh(v, xp, a.dtype)


@with_out('linalg_eigh')
def eigh(A, UPLO='L', *, out=None):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian/symmetric matrix; only the
    triangle named by ``UPLO`` is read.

    Returns:
        A named tuple ``(eigenvalues, eigenvectors)``.

    Example::

        >>> ember.linalg.eigh(ember.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    w, v = _eigh_arrays(A, UPLO, 'linalg.eigh')
    L, V = wrap(w), wrap(v)
    if _Mode.grad and A._rg:
        record((L, V), LinalgEighBackward0(), (A,), save=(L, V))
    return linalg_eigh((L, V))


def eigvalsh(A, UPLO='L', *, out=None):
    """Eigenvalues (ascending) of a Hermitian/symmetric matrix.

    Example::

        >>> ember.linalg.eigvalsh(ember.tensor([[2., 0.], [0., 1.]]))
        tensor([1., 2.])
    """
    w, v = _eigh_arrays(A, UPLO, 'linalg.eigvalsh')
    L = wrap(w)
    if _Mode.grad and A._rg:
        record(L, _EigvalshBackward(), (A,), save=(L, wrap(v)))
    return _out(L, out)


@with_out('linalg_eig')
def eig(A, *, out=None):
    """Eigenvalues and eigenvectors of a general square matrix (complex results).

    NOTE: unlike PyTorch, no gradient is implemented.

    Example::

        >>> ember.linalg.eig(ember.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([2.+0.j, 1.+0.j])
    """
    a = A._data
    _check_float(a, 'linalg.eig')
    _check_square(a, 'linalg.eig')
    xp = array_module(a)
    ct = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    with _la('linalg.eig'):
        w, v = xp.linalg.eig(a)
    return linalg_eig((wrap(w.astype(ct)), wrap(v.astype(ct))))


@with_out('linalg_eigvals')
def eigvals(A, *, out=None):
    """Eigenvalues of a general square matrix (complex).

    Example::

        >>> ember.linalg.eigvals(ember.tensor([[2., 0.], [0., 1.]]))
        tensor([2.+0.j, 1.+0.j])
    """
    return eig(A)[0]


# ------------------------------------------------------------------ pinv / lstsq
class LinalgPinvBackward0(Node):
    def backward(self, g):
        A, P = self.saved_tensors
        return _pinv_backward(A, P, g)


def _pinv_backward(A, P, gP):
    """VJP of the pseudo-inverse ``P = pinv(A)``:
    ``-P^H gP P^H + (I - A P)(gP)^H... `` in its three terms (Golub & Pereyra)."""
    Ph = _mH(P)
    m, n = A.shape[-2], A.shape[-1]
    gA = -Ph.matmul(gP).matmul(Ph)
    # (I - A P) gP^H P P^H
    gPh = _mH(gP)
    t1 = gPh.matmul(P).matmul(Ph)
    gA = gA + t1 - A.matmul(P.matmul(t1))
    # P^H P gP^H (I - P A)
    t2 = Ph.matmul(P).matmul(gPh)
    gA = gA + t2 - t2.matmul(P).matmul(A)
    return gA


def _pinv_arrays(a, atol, rtol, hermitian, xp):
    if isinstance(atol, Tensor):
        atol = atol._data[..., None]
    if isinstance(rtol, Tensor):
        rtol = rtol._data[..., None]
    if hermitian:
        w, v = xp.linalg.eigh(a)
        s = xp.abs(w)
        smax = s.max(-1, keepdims=True) if s.shape[-1] else s
    else:
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        smax = s[..., :1]
    if rtol is None:
        rtol = 0.0 if atol is not None and (not np.isscalar(atol) or atol > 0) else \
            np.finfo(s.dtype).eps * max(a.shape[-2], a.shape[-1])
    tol = rtol * smax
    if atol is not None:
        tol = xp.maximum(tol, atol)
    keep = s > tol
    with np.errstate(divide='ignore'):
        sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
    if hermitian:
        wi = xp.where(keep, 1 / xp.where(keep, w, 1), 0).astype(s.dtype)
        vh = xp.swapaxes(v, -1, -2).conj()
        return xp.matmul(v * wi[..., None, :], vh)
    return xp.matmul(xp.swapaxes(vh, -1, -2).conj() * sinv[..., None, :],
                     xp.swapaxes(u, -1, -2).conj())


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse. Singular values below
    ``max(atol, rtol * largest)`` are treated as zero (default ``rtol`` is
    ``eps * max(m, n)`` when neither is given).

    Example::

        >>> ember.linalg.pinv(ember.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    a = A._data
    _check_float(a, 'linalg.pinv')
    _check_matrix(a, 'linalg.pinv')
    xp = array_module(a)
    with _la('linalg.pinv'):
        r = _pinv_arrays(a, atol, rtol, hermitian, xp)
    res = wrap(_fresh(r, xp, a.dtype))
    if _Mode.grad and A._rg:
        record(res, LinalgPinvBackward0(), (A,), save=(A, res))
    return _out(res, out)


@register()
def pinverse(input, rcond=1e-15):
    """Pseudo-inverse with relative tolerance ``rcond`` (see :func:`ember.linalg.pinv`).

    Example::

        >>> ember.pinverse(ember.eye(2) * 2)
        tensor([[0.5000, 0.0000],
                [0.0000, 0.5000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'pinverse')
    return pinv(input, rtol=rcond)


class LinalgLstsqBackward0(Node):
    def backward(self, gX, *_):
        A, B = self.saved_tensors
        vec = self.vec
        P = pinv(A)
        if vec:
            gX = gX.unsqueeze(-1)
            B = B.unsqueeze(-1)
        gA = gB = None
        if self.needs[0]:
            gA = _pinv_backward(A, P, gX.matmul(_mH(B)))
        if self.needs[1]:
            gB = _mH(P).matmul(gX)
            if vec:
                gB = gB.squeeze(-1)
        return gA, gB


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B``.

    NOTE: unlike PyTorch, no gradient flows from ``residuals``.

    Returns a named tuple ``(solution, residuals, rank, singular_values)``. As in PyTorch,
    with the default driver ``'gelsy'`` only ``solution`` and ``rank`` are filled;
    ``'gelsd'``/``'gelss'`` also give singular values, and ``residuals`` (squared residual
    norms per column) when ``m > n`` and ``A`` has full rank.

    Example::

        >>> ember.linalg.lstsq(ember.tensor([[1.], [1.]]), ember.tensor([[1.], [3.]])).solution
        tensor([[2.]])
    """
    a, b = A._data, B._data
    _check_float(a, 'linalg.lstsq')
    _check_matrix(a, 'linalg.lstsq')
    if driver is None:
        driver = 'gelsy'
    if driver not in ('gels', 'gelsy', 'gelsd', 'gelss'):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                           f"(gels, gelsy, gelsd, gelss)")
    if a.dtype != b.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {_st(a)} and other's dtype {_st(b)}")
    vec = b.ndim == a.ndim - 1
    bb = b[..., None] if vec else b
    if bb.shape[-2] != a.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    xp = array_module(a)
    m, n = a.shape[-2:]
    batch = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    aa = xp.broadcast_to(a, batch + a.shape[-2:]).reshape((-1, m, n))
    bq = xp.broadcast_to(bb, batch + bb.shape[-2:]).reshape((-1, m, bb.shape[-1]))
    if rcond is None:
        rcond = np.finfo(_real_dtype(a.dtype)).eps * max(m, n)
    sols, ranks, svs, res = [], [], [], []
    for i in range(aa.shape[0]):
        x, r, k, s = xp.linalg.lstsq(aa[i], bq[i], rcond=rcond)
        sols.append(x)
        ranks.append(k)
        svs.append(s)
        res.append(r)
    k_ = bb.shape[-1]
    sol = xp.stack(sols).reshape(batch + (n, k_)) if sols else xp.zeros(batch + (n, k_), a.dtype)
    if vec:
        sol = sol[..., 0]
    rank = xp.asarray(ranks, dtype=np.int64).reshape(batch)
    rdt = _real_dtype(a.dtype)
    if driver in ('gelsd', 'gelss'):
        sv = xp.stack(svs).astype(rdt).reshape(batch + (min(m, n),))
    else:
        sv = xp.empty((0,), rdt)
    if driver != 'gelsy' and m > n and all(int(k) == n for k in ranks):
        resid = xp.stack([r if r.size else xp.zeros(k_, rdt) for r in res]).astype(rdt)
        resid = resid.reshape(batch + (k_,))
    else:
        resid = xp.empty((0,), rdt)
    if driver == 'gels':
        rank = xp.empty((0,), np.int64)
    X = wrap(sol.astype(a.dtype, copy=True))
    out = (X, wrap(resid), wrap(rank), wrap(sv))
    if _Mode.grad and (A._rg or B._rg):
        node = LinalgLstsqBackward0()
        node.vec = vec
        record(out, node, (A, B), save=(A, B))
        for t in out[1:]:
            t._rg, t._grad_fn = False, None
    return linalg_lstsq(out)


# ------------------------------------------------------------------ matrix_power / rank
@register()
def matrix_power(A, n, *, out=None):
    """``A`` multiplied by itself ``n`` times (``n < 0`` uses the inverse; ``n == 0`` the
    identity).

    Example::

        >>> ember.linalg.matrix_power(ember.tensor([[1., 1.], [0., 1.]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    if out is not None and not isinstance(out, Tensor):
        _args.tensor(out, 'matrix_power', 'out', None)
    a = A._data
    _check_square(a, 'linalg.matrix_power')
    if n == 0:
        xp = array_module(a)
        r = wrap(xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape).copy())
        if _Mode.grad and A._rg:   # the identity, but connected to A (zero gradient)
            r = A * 0 + r
        return _out(r, out)
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return _out(A.clone(), out)
    prod = matmul if a.ndim > 2 else mm
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else prod(result, base)
        n >>= 1
        if n:
            base = prod(base, base)
    return _out(result, out)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """Numerical rank: the number of singular values above ``max(atol, rtol * largest)``.

    Example::

        >>> ember.linalg.matrix_rank(ember.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
    """
    a = A._data
    _check_float(a, 'linalg.matrix_rank')
    _check_matrix(a, 'linalg.matrix_rank')
    xp = array_module(a)
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh(a))
        smax = s.max(-1, keepdims=True) if s.shape[-1] else s
    else:
        s = xp.linalg.svd(a, compute_uv=False)
        smax = s[..., :1]
    if isinstance(atol, Tensor):
        atol = atol._data[..., None]
    if isinstance(rtol, Tensor):
        rtol = rtol._data[..., None]
    if rtol is None:
        rtol = 0.0 if atol is not None and (not np.isscalar(atol) or atol > 0) else \
            np.finfo(s.dtype).eps * max(a.shape[-2], a.shape[-1])
    thr = rtol * smax
    if atol is not None:
        thr = xp.maximum(thr, atol)
    return _out(wrap(xp.asarray((s > thr).sum(-1), dtype=np.int64)), out)


# ------------------------------------------------------------------ norms
class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        x, n = self.saved_tensors
        ord, dims, keepdim = self.ord, self.dims, self.keepdim
        if not keepdim and x.dim():
            for d in dims:
                g = g.unsqueeze(d)
                n = n.unsqueeze(d)
        xd = x._data
        xp = array_module(xd)
        if ord == 0:
            return wrap(xp.zeros_like(xd))
        if xd.dtype.kind == 'c':
            ax = x.abs()
            sgn = x / (ax + wrap((ax._data == 0).astype(ax._data.dtype)))
        else:       # sign with sign(nan) = 0, as PyTorch's
            sgn = wrap((xd > 0).astype(xd.dtype) - (xd < 0).astype(xd.dtype))
        if ord == 1:
            return g * sgn
        if ord == 2:
            safe = n + wrap((n._data == 0).astype(n._data.dtype))
            return g * x / safe
        if ord == math.inf or ord == -math.inf:
            ad = xp.abs(xd)
            mask = (ad == xp.broadcast_to(n._data, ad.shape)).astype(ad.dtype)
            cnt = mask.sum(axis=dims if xd.ndim else None, keepdims=True)
            return g * sgn * wrap(mask / xp.maximum(cnt, 1))   # NaN norm: no element gets it
        # general p: sign(x) |x|^(p-1) / n^(p-1)
        ax = x * sgn if xd.dtype.kind != 'c' else x.abs()
        safe = n + wrap((n._data == 0).astype(n._data.dtype))
        return g * sgn * (ax / safe).pow(ord - 1)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ``ord``-norm over ``dim`` (all elements when ``None``).

    Args:
        ord (float): ``2`` (default), ``1``, ``inf``, ``-inf``, ``0`` (count of non-zeros) or
            any other real ``p``: ``sum(|x|^p)^(1/p)``.

    Example::

        >>> ember.linalg.vector_norm(ember.tensor([3., 4.]))
        tensor(5.)
    """
    a = x._data
    if a.dtype.kind not in 'fcV':
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_st(a)}")
    if dtype is not None:
        x = x.to(dtype)
        a = x._data
    if isinstance(ord, str) or (isinstance(ord, complex)):
        raise RuntimeError(f"linalg.vector_norm: Expected a float but got {ord}")
    nd = a.ndim
    if dim is None:
        dims = tuple(range(nd))
    else:
        if isinstance(dim, int):
            dim = (dim,)
        dims = tuple(sorted(_wrap_dim(d, nd) for d in dim))
        for i in range(1, len(dims)):
            if dims[i] == dims[i - 1]:
                raise RuntimeError(f"dim {dims[i]} appears multiple times in the list of dims")
        if not dims:
            dims = tuple(range(nd))
    xp = array_module(a)
    ad = xp.abs(a)
    rdt = _real_dtype(a.dtype)
    ax = dims if nd else None
    if ord == math.inf or ord == -math.inf:
        if any(a.shape[d] == 0 for d in dims) if nd else a.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                               f"tensor because the operation does not have an identity")
        r = (xp.max if ord > 0 else xp.min)(ad, axis=ax, keepdims=keepdim and nd > 0)
    elif ord == 0:
        r = (ad != 0).sum(axis=ax, keepdims=keepdim and nd > 0).astype(rdt)
    elif ord == 1:
        r = ad.sum(axis=ax, keepdims=keepdim and nd > 0)
    elif ord == 2:
        r = xp.sqrt((ad * ad).sum(axis=ax, keepdims=keepdim and nd > 0))
    else:
        with np.errstate(divide='ignore'):
            r = (ad ** ord).sum(axis=ax, keepdims=keepdim and nd > 0) ** (1.0 / ord)
    res = wrap(_fresh(r, xp, rdt))
    if _Mode.grad and x._rg:
        node = LinalgVectorNormBackward0()
        node.ord, node.dims, node.keepdim = ord, dims, keepdim
        record(res, node, (x,), save=(x, res))
    return _out(res, out)


def _reduce_extreme(t, d, largest, keepdim):
    return t.amax(d, keepdim=keepdim) if largest else t.amin(d, keepdim=keepdim)


def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dimensions ``dim``.

    Args:
        ord: ``'fro'`` (default), ``'nuc'``, ``inf``, ``-inf``, ``1``, ``-1``, ``2``, ``-2``.

    Example::

        >>> ember.linalg.matrix_norm(ember.tensor([[3., 0.], [0., 4.]]), ord=2)
        tensor(4.)
    """
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.dtype.kind not in 'fcV':
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_st(a)}")
    if dtype is not None:
        A = A.to(dtype)
    nd = a.ndim
    d0, d1 = (_wrap_dim(d, nd) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == 'fro':
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ('nuc', 2, -2):
        M = A.movedim((d0, d1), (-2, -1))
        s = svdvals(M)
        if ord == 'nuc':
            r = s.sum(-1)
        else:
            r = _reduce_extreme(s, -1, ord == 2, False)
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return _out(r, out)
    if ord in (1, -1, math.inf, -math.inf):
        red, ext = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = vector_norm(A, 1, red, keepdim=keepdim)
        if not keepdim and red < ext:
            ext -= 1
        return _out(_reduce_extreme(s, ext, ord > 0, keepdim), out)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a vector norm when ``dim`` is an int (or ``A`` is 1-D), a
    matrix norm when ``dim`` is a 2-tuple (or ``A`` is 2-D with ``ord`` given); with
    ``ord=None`` and ``dim=None`` the 2-norm of the flattened input.

    Example::

        >>> ember.linalg.norm(ember.tensor([[1., 2.], [2., 4.]]))
        tensor(5.)
    """
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        if len(dim) == 2:
            return matrix_norm(A, 'fro' if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. Got "
                           f"{list(dim)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                       f"or 2D. Got {A.dim()}D.")


# PyTorch's names of what each node saves, by position (grad_fn._saved_<name>)
for _node_cls, _names in ((MmBackward0, ('self', 'mat2')), (MvBackward0, ('self', 'vec')),
               (DotBackward0, ('self', 'tensor')), (VdotBackward0, ('self', 'other')),
               (AddmmBackward0, ('mat1', 'mat2')), (AddbmmBackward0, ('batch1', 'batch2')),
               (AddmvBackward0, ('mat', 'vec')), (AddrBackward0, ('vec1', 'vec2')),
               (LinalgCrossBackward0, ('self', 'other'))):
    _node_cls._saved_names = _names
del _node_cls, _names
