"""``ember.linalg`` solvers and decompositions: inverse, determinants, solve,
cholesky, qr, svd, eigh/eig, pinv/lstsq, matrix_power/matrix_rank.

Forward passes call the backend's LAPACK; backward formulas are written in ember ops. Each
backward class stands right above its forward and carries PyTorch's public name.
"""
from . import _args

import numpy as np

from .._tensor import Tensor, _Mode, _NoGrad as _NoGradCtx
from ..autograd.graph import _named
from ._util import wrap, Node, register, record, with_out
from .._backend import array_module
from ._linalg_common import (_LinAlgError, linalg_slogdet, slogdet_t, linalg_qr, qr_t,
    linalg_svd, svd_t, linalg_eigh, linalg_eig, linalg_inv_ex, linalg_cholesky_ex,
    linalg_solve_ex, linalg_lstsq, _st, _c, _mH, _eye_like, _shape_str, _fresh, _out)
from .products import mm, matmul


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


@with_out('linalg_inv_ex', exact=True)
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
        s = (g * _c(d)).unsqueeze(-1).unsqueeze(-1)     # det is holomorphic: g conj(det')
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
        A, sign = self.saved_tensors
        if not A.is_complex():
            return glog.unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))
        # d logabsdet = Re t, d sign = i sign Im t, t = tr(A^-1 dA): the gradient is
        # conj(c) A^-H with c = glog + i Im(conj(gsign) sign)
        c = glog if glog is not None else sign.real.new_zeros(sign.shape)
        c = c + 0j
        if gsign is not None:
            c = c + 1j * (_c(gsign) * sign).imag
        return _c(c).unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))


@with_out('linalg_slogdet', exact=True)
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
        record((sign, lad), node, (A,), save=(A, sign))
    return sign, lad


@register('slogdet')
@with_out('slogdet', exact=True)
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
    if s.dtype.kind == 'c':     # complex: log|det| + i arg(det), a complex result as torch's
        r = sign.log() + lad
        if (s == 0).any():      # torch: -inf + nan j for a singular matrix
            r = r + wrap(array_module(s).where(s == 0, complex(0, np.nan), 0).astype(s.dtype))
        return r
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
    for pos, (name, v) in enumerate((('A', A), ('B', B)), 1):
        if not isinstance(v, Tensor):
            _args.tensor(v, 'linalg_solve', name, pos)
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


@with_out('linalg_solve_ex', exact=True)
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
        P = _mH(L).matmul(gL)
        phi = P * _phi_mask(P)

        def sandwich(M):        # L^{-H} M L^{-1}
            X = solve_triangular(_mH(L), M, upper=True)
            return _mH(solve_triangular(_mH(L), _mH(X), upper=True))
        gA = sandwich(phi)
        gA = (gA + _mH(gA)) * 0.5
        if L.is_complex():
            # torch keeps the imaginary part of phi's diagonal as an anti-Hermitian term
            d = P.diagonal(0, -2, -1).imag * 0.5
            gA = gA + sandwich(d.diag_embed() * 1j)
        return gA


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


@with_out('linalg_cholesky_ex', exact=True)
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
def _copyltu(M):
    """``tril(M, -1) + tril(M, -1)^H`` plus the real part of ``M``'s diagonal (R's diagonal
    is real, so only that part of it moves)."""
    strict = M * _tri_mask(M, False, 0, True)
    d = M.diagonal(0, -2, -1)
    d = (d.real + 0j if M.is_complex() else d).diag_embed()
    return strict + _mH(strict) + d


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
            b = gQ + Q.matmul(_copyltu(M))
            # b R^{-H} = solve(R, b^H)^H   (R upper triangular)
            return _mH(solve_triangular(R, _mH(b), upper=True))
        # m < n: A = Q [X | Y], X square
        X = R[..., :, :m]
        Y = R[..., :, m:]
        gX = gR[..., :, :m]
        gY = gR[..., :, m:]
        gQ2 = gQ + Q.matmul(Y).matmul(_mH(gY))
        M = X.matmul(_mH(gX)) - _mH(gQ2).matmul(Q)
        b = gQ2 + Q.matmul(_copyltu(M))
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


@with_out('linalg_qr', exact=True)
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
@with_out('qr', exact=True)
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
    k = S.shape[-1]
    m, n = U.shape[-2], Vh.shape[-1]
    if U.shape[-1] != k:
        U = U[..., :k]
        gU = gU[..., :k] if gU is not None else None
    if Vh.shape[-2] != k:
        Vh = Vh[..., :k, :]
        gVh = gVh[..., :k, :] if gVh is not None else None
    V = Vh.mH
    if gU is None and gVh is None:
        return U.matmul(gS.unsqueeze(-1) * Vh)
    cplx = U.is_complex()
    UhgU = U.mH.matmul(gU) if gU is not None else None
    gV = gVh.mH if gVh is not None else None
    VhgV = V.mH.matmul(gV) if gVh is not None else None
    if cplx:
        # a complex singular pair is defined up to a common phase: the loss must not
        # depend on it (Im diag(U^H gU) = -Im diag(V^H gV)), as torch checks
        zero = S.new_zeros(S.shape)
        imu = UhgU.diagonal(0, -2, -1).imag if gU is not None else zero
        imv = VhgV.diagonal(0, -2, -1).imag if gVh is not None else zero
        if not bool((imu + imv).abs().le(1e-2 + 1e-2 * imv.abs()).all()):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "phase term, making it ill-defined.")
    I = _eye_like(S, k)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + I     # E_ij = S_j^2 - S_i^2, 1 on the diagonal
    offdiag = 1 - I
    inner = (gS.unsqueeze(-1) * I) if gS is not None else None
    if gU is not None:
        skew = (UhgU - UhgU.mH) / E * offdiag
        t = skew * S.unsqueeze(-2)
        if cplx:    # the phase gauge fixed on U: i Im(diag(U^H gU)) / S on the diagonal
            t = t + (imu / S).unsqueeze(-1) * I * 1j
        inner = t if inner is None else inner + t
    if gVh is not None:
        skew = (VhgV - VhgV.mH) / E * offdiag
        t = S.unsqueeze(-1) * skew
        inner = t if inner is None else inner + t
    gA = U.matmul(inner).matmul(Vh)
    if gU is not None and m > k:
        gA = gA + (gU - U.matmul(UhgU)).div(S.unsqueeze(-2)).matmul(Vh)
    if gVh is not None and n > k:
        gA = gA + U.matmul(((gV - V.matmul(VhgV)).div(S.unsqueeze(-2))).mH)
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


@with_out('linalg_svd', exact=True)
def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh``.

    NOTE: like PyTorch, the singular vectors are only defined up to sign (a phase for complex
    inputs); the gradient needs distinct singular values and, for complex inputs, a loss
    that does not depend on that phase (for ``full_matrices=True`` the extra columns get no
    gradient). NOTE: unlike PyTorch (whose CPU build uses MKL), the signs are those of the
    LAPACK NumPy links (OpenBLAS): for a wide real matrix they may differ from PyTorch's.

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
@with_out('svd', exact=True)
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
        if gV is None:
            return V.matmul(gL.unsqueeze(-1) * V.mH)
        I = _eye_like(L)
        VhgV = V.mH.matmul(gV)
        if V.is_complex() and not bool(VhgV.diagonal(0, -2, -1).imag.abs().le(1e-2).all()):
            # an eigenvector is defined up to a phase: the loss must not depend on it
            raise RuntimeError(
                "linalg_eigh_backward: The eigenvectors in the complex case are specified up "
                "to multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined.")
        skew = (VhgV - VhgV.mH) * 0.5
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + I     # E_ij = L_j - L_i, 1 on the diagonal
        inner = skew / E * (1 - I)
        if gL is not None:
            inner = inner + gL.unsqueeze(-1) * I
        return V.matmul(inner).matmul(V.mH)


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


@with_out('linalg_eigh', exact=True)
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


class LinalgEigBackward0(Node):
    """``A = V diag(L) V^-1``: ``gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV)))
    / E*) V^H`` with ``E_ij = L_j - L_i`` off the diagonal (the eigenvectors are normalised
    to unit norm, which the ``Re(diag)`` term accounts for); the real part for a real A."""

    def backward(self, gL, gV):
        L, V = self.saved_tensors
        Vh = _mH(V)
        n = L.shape[-1]
        I = _eye_like(V, n)
        if gV is None:
            inner = gL.unsqueeze(-1) * I
        else:
            VhgV = Vh.matmul(gV)
            d = VhgV.diagonal(0, -2, -1).real
            inner = VhgV - Vh.matmul(V * d.unsqueeze(-2))
            Lc = L.conj()
            E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + I
            inner = inner / E * (1 - I)
            if gL is not None:
                inner = inner + gL.unsqueeze(-1) * I
        gA = solve(Vh, inner.matmul(Vh))
        return gA if self.complex_input else gA.real


@with_out('linalg_eig', exact=True)
def eig(A, *, out=None):
    """Eigenvalues and eigenvectors of a general square matrix (complex results); the
    eigenvectors have unit norm, so gradients through them are defined up to their phase
    (as in PyTorch).

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
    L, V = wrap(w.astype(ct)), wrap(v.astype(ct))
    if _Mode.grad and A._rg:
        node = LinalgEigBackward0()
        node.complex_input = a.dtype.kind == 'c'
        record((L, V), node, (A,), save=(L, V))
    return linalg_eig((L, V))


@with_out('linalg_eigvals', exact=True)
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
    return _out(res, out, exact=False)


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
    R = wrap(resid)
    if _Mode.grad and (A._rg or B._rg):
        node = LinalgLstsqBackward0()
        node.vec = vec
        record(X, node, (A, B), save=(A, B))
        # residuals are differentiable too, as in torch: recomputed from the recorded
        # solution (the same values up to rounding); an empty one is an empty view of it
        if resid.size:
            Xm, Bm = (X.unsqueeze(-1), B.unsqueeze(-1)) if vec else (X, B)
            d = matmul(A, Xm) - Bm
            R = (d.abs() ** 2 if d.is_complex() else d * d).sum(-2)
        else:
            R = X.reshape(-1)[:0]
            R = R.abs() if R.is_complex() else R
    return linalg_lstsq((X, R, wrap(rank), wrap(sv)))


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
    return _out(wrap(xp.asarray((s > thr).sum(-1), dtype=np.int64)), out, exact=False)


# ------------------------------------------------------------------ matrix_exp, composites
def _expm_array(a, xp):
    """exp of a (batched) square array: scaling and squaring with a degree-18 Taylor sum."""
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    nrm = xp.abs(a).sum(-2).max(-1)
    s = int(max(0, np.ceil(np.log2(max(float(nrm.max()), 1e-300))) + 1)) if float(nrm.max()) > 0.5 else 0
    x = a / (2.0 ** s)
    eye = xp.eye(n, dtype=a.dtype)
    r = eye + x / 18.0
    for k in range(17, 0, -1):
        r = eye + (x @ r) / k
    for _ in range(s):
        r = r @ r
    return r


class LinalgMatrixExpBackward0(Node):
    def backward(self, g):
        A, = self.saved_tensors
        n = A.shape[-1]
        AH = _mH(A)
        z = g.new_zeros(A.shape) if hasattr(g, 'new_zeros') else g * 0
        top = _cat_last(AH, g)
        bot = _cat_last(z, AH)
        from .shape import cat
        big = cat([top, bot], -2)
        return (matrix_exp(big)[..., :n, n:],)


@register()
def matrix_exp(A):
    """Computes the matrix exponential of a square matrix or batch of matrices.

    Args:
        A (Tensor): tensor of shape `(*, n, n)`, float or complex.

    NOTE: unlike PyTorch 2.13 (whose CPU kernel returns wrong values for them), float16 and
    bfloat16 inputs get the exponential computed in float32 and rounded to their dtype.

    Example::

        >>> ember.linalg.matrix_exp(ember.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    _check_square(A, 'linalg.matrix_exp')
    a = A._data if hasattr(A, '_data') else A.numpy()
    xp = array_module(a)
    r = _expm_array(a, xp)
    res = wrap(r if r.dtype == a.dtype else r.astype(a.dtype))   # half precision: rounded
    if _Mode.grad and A.requires_grad:
        record(res, LinalgMatrixExpBackward0(), (A,), save=(A,))
    return res


def vander(x, *, N=None):
    """Generates a Vandermonde matrix: column ``i`` is ``x ** i`` (``i < N``).

    Args:
        x (Tensor): tensor of shape `(*, n)`.
        N (int, optional): number of columns. Default: `n`.

    Example::

        >>> ember.linalg.vander(ember.tensor([1., 2.]))
        tensor([[1., 1.],
                [1., 2.]])
    """
    if x.dim() == 0:            # as torch: a 0-d x is one sample
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError('N must be greater than 1.')
    from .shape import cat
    xs = x.unsqueeze(-1).expand(*x.shape, n - 1)
    return cat([x.unsqueeze(-1).pow(0), xs.cumprod(-1)], -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Alias of :func:`ember.diagonal` with linalg's defaults (the last two dimensions).

    Example::

        >>> ember.linalg.diagonal(ember.eye(2))
        tensor([1., 1.])
    """
    return A.diagonal(offset, dim1, dim2)


def tensorinv(A, ind=2, *, out=None):
    """Computes the multiplicative inverse of :func:`ember.tensordot`.

    Args:
        A (Tensor): tensor with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
        ind (int): index at which the inverse is split. Default: 2.

    Example::

        >>> A = ember.eye(4).reshape(4, 2, 2)
        >>> ember.linalg.tensorinv(A, ind=1).shape
        ember.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError('Expected a strictly positive integer for \'ind\', but got %d' % ind)
    lead, rest = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    m = int(np.prod(lead)) if lead else 1
    k = int(np.prod(rest)) if rest else 1
    if m != k:
        raise RuntimeError('Expected self to satisfy the requirement prod(self.shape[ind:]) == '
                           'prod(self.shape[:ind]), but got %d != %d' % (k, m))
    r = inv(A.reshape(m, k)).reshape(*rest, *lead)
    return _out(r, out, exact=False) if out is not None else r


def tensorsolve(A, B, dims=None, *, out=None):
    """Computes the solution `X` of ``tensordot(A, X, X.ndim) = B``.

    Args:
        A (Tensor): tensor to solve for; ``prod(A.shape[B.ndim:]) == B.numel()``.
        B (Tensor): right-hand side.
        dims (Tuple[int], optional): dimensions of `A` moved to the end first.

    Example::

        >>> A = ember.eye(6).reshape(2, 3, 6)
        >>> ember.linalg.tensorsolve(A, ember.ones(2, 3)).shape
        ember.Size([6])
    """
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        keep = [d for d in range(nd) if d not in dims]
        A = A.permute(*keep, *dims)
    rest = tuple(A.shape[B.dim():])
    k = int(np.prod(rest)) if rest else 1
    m = B.numel()
    if m != k:
        raise RuntimeError('Expected self to satisfy the requirement prod(self.shape[other.ndim:]) '
                           '== prod(self.shape[:other.ndim]), but got %d != %d' % (k, m))
    r = solve(A.reshape(m, k), B.reshape(m)).reshape(rest)
    return _out(r, out, exact=False) if out is not None else r


@register()
def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solves ``A X = B`` given the Cholesky factor `L` (or `U`) of the positive-definite `A`.

    Args:
        input (Tensor): right-hand side `B`, shape `(*, n, k)`.
        input2 (Tensor): Cholesky factor, shape `(*, n, n)`.
        upper (bool): whether `input2` is upper triangular. Default: `False`.

    Example::

        >>> L = ember.eye(2) * 2
        >>> ember.cholesky_solve(ember.ones(2, 1), L)
        tensor([[0.2500],
                [0.2500]])
    """
    if input.dim() < 2 or input2.dim() < 2:
        raise RuntimeError('b should have at least 2 dimensions, but has %d dimensions instead'
                           % input.dim() if input.dim() < 2 else
                           'u should have at least 2 dimensions, but has %d dimensions instead'
                           % input2.dim())
    with _NoGradCtx():
        if upper:
            y = solve_triangular(_mH(input2), input, upper=False)
            r = solve_triangular(input2, y, upper=True)
        else:
            y = solve_triangular(input2, input, upper=False)
            r = solve_triangular(_mH(input2), y, upper=True)
    r = wrap(r._data)
    if _Mode.grad and (input._rg or input2._rg):
        node = CholeskySolveBackward0()
        node.upper = bool(upper)
        record(r, node, (input, input2), save=(input2, r))
    return _out(r, out, exact=False) if out is not None else r


class CholeskySolveBackward0(Node):
    def backward(self, g):
        L, X = self.saved_tensors
        gB = cholesky_solve(g, L, self.upper)           # A^-1 g, A = L L^H Hermitian
        gL = None
        if self.needs[1]:
            c = gB.matmul(_mH(X))
            c = c + _mH(c)
            gL = -(L.matmul(c) if self.upper else c.matmul(L))
        return (gB if self.needs[0] else None), gL


class CholeskyInverseBackward0(Node):
    def backward(self, g):
        L, inv_ = self.saved_tensors
        c = inv_.matmul(g + _mH(g)).matmul(inv_)
        return -(L.matmul(c) if self.upper else c.matmul(L))


@register()
def cholesky_inverse(input, upper=False, *, out=None):
    """Computes the inverse of a positive-definite matrix from its Cholesky factor.

    Args:
        input (Tensor): Cholesky factor, shape `(*, n, n)`.
        upper (bool): whether `input` is upper triangular. Default: `False`.

    NOTE: unlike PyTorch, the result's grad_fn is that of the composition.

    Example::

        >>> ember.cholesky_inverse(ember.eye(2) * 2)
        tensor([[0.2500, 0.0000],
                [0.0000, 0.2500]])
    """
    _check_square(input, 'cholesky_inverse', 'input')
    from .creation import eye as _eye
    I = _eye(input.shape[-1], dtype=input.dtype).expand(*input.shape)
    with _NoGradCtx():
        r = cholesky_solve(I, input, upper)
    r = wrap(r._data)
    if _Mode.grad and input._rg:
        node = CholeskyInverseBackward0()
        node.upper = bool(upper)
        record(r, node, (input,), save=(input, r))
    return _out(r, out, exact=False) if out is not None else r


_REMOVED = {
    'lstsq': "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in the returned tuple (although it returns other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    'solve': "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)",
    'symeig': "This function was deprecated since version 1.9 and is now removed. The default behavior has changed from using the upper triangular portion of the matrix by default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    'eig': "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)",
}


def _removed(name):
    def fn(self, *args, **kwargs):
        raise RuntimeError(_REMOVED[name])
    fn.__name__ = name
    fn.__doc__ = (f'Removed in PyTorch 1.9+: raises RuntimeError pointing to ``torch.linalg``.\n\n'
                  f'    Example::\n\n        >>> ember.eye(2).{name}(ember.eye(2))\n'
                  f'        Traceback (most recent call last):\n        RuntimeError: ...\n')
    return fn


for _n in _REMOVED:
    if not hasattr(Tensor, _n):
        setattr(Tensor, _n, _removed(_n))


# ------------------------------------------------------------------ LU
from ._linalg_common import linalg_lu_factor, linalg_lu_factor_ex, linalg_lu, lu_unpack_t  # noqa: E402


def _lu_arrays(a):
    """Partial-pivoting LU of a (batched) array, as LAPACK's getrf: (LU, 1-based int32 pivots,
    int32 info). One loop over columns, vectorised over the batch and the rows."""
    xp = array_module(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    a2 = a.reshape((-1, m, n)).copy()
    nb = a2.shape[0]
    piv = xp.zeros((nb, k), dtype=np.int32)
    info = xp.zeros((nb,), dtype=np.int32)
    ar = xp.arange(nb)
    for j in range(k):
        col = a2[:, j:, j]
        # LAPACK's getrf picks the pivot by |re| + |im| for complex matrices (i?amax)
        p = (xp.abs(col.real) + xp.abs(col.imag) if col.dtype.kind == 'c' else
             xp.abs(col)).argmax(1) + j
        piv[:, j] = p + 1
        rj = a2[ar, j].copy()
        a2[ar, j] = a2[ar, p]
        a2[ar, p] = rj
        d = a2[:, j, j]
        zero = d == 0
        info[:] = xp.where(zero & (info == 0), j + 1, info)
        ds = xp.where(zero, xp.ones_like(d), d)
        if j + 1 < m:
            a2[:, j + 1:, j] /= ds[:, None]
            if j + 1 < n:
                a2[:, j + 1:, j + 1:] -= a2[:, j + 1:, j:j + 1] * a2[:, j:j + 1, j + 1:]
    return (a2.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch))


def _perm_from_pivots(piv, m):
    xp = array_module(piv)
    batch = piv.shape[:-1]
    nb = 1
    for b in batch:
        nb *= b
    p2 = piv.reshape((nb, piv.shape[-1])) - 1     # not -1: an empty batch or n = 0
    perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()
    ar = xp.arange(nb)
    for j in range(p2.shape[1]):
        t = perm[ar, j].copy()
        perm[ar, j] = perm[ar, p2[:, j]]
        perm[ar, p2[:, j]] = t
    return perm.reshape(batch + (m,))


def _p_matrix(perm, dtype):
    """P with ``A = P L U`` for rows permuted as ``A[perm] = L U``: ``P[perm[i], i] = 1``."""
    xp = array_module(perm)
    m = perm.shape[-1]
    eye = xp.eye(m, dtype=dtype)
    return xp.swapaxes(eye[perm], -1, -2)


def _split_lu(LU):
    from .shape import tril, triu
    m, n = LU.shape[-2:]
    k = min(m, n)
    from .creation import eye
    L = tril(LU[..., :, :k], -1) + eye(m, k, dtype=LU.dtype)
    U = triu(LU[..., :k, :])
    return L, U


class LinalgLuFactorExBackward0(Node):
    def backward(self, gLU, gpiv=None, ginfo=None):
        LU, P = self.saved_tensors
        m, n = LU.shape[-2:]
        from .shape import tril, triu, cat
        L, U = _split_lu(LU)
        if m == n:
            gL, gU = tril(gLU, -1), triu(gLU)
            phi = tril(_mH(L) @ gL, -1) + triu(gU @ _mH(U))
            y = solve_triangular(_mH(L), phi, upper=True, unitriangular=True)
            x = solve_triangular(_mH(U), y, upper=False, left=False)
            return (P @ x,)
        if m < n:
            # wide, U = [U1 U2]: with X = L^-1 P^T dA, gX1 = gU1 + tril(L^H gL - gU U^H, -1)
            # U1^-H, gX2 = gU2, and gA = P L^-H gX
            gL, gU = tril(gLU[..., :, :m], -1), triu(gLU)
            G = tril(_mH(L) @ gL - gU @ _mH(U), -1)
            gX1 = gU[..., :, :m] + solve_triangular(_mH(U[..., :, :m]), G, upper=False,
                                                   left=False)
            gX = cat([gX1, gU[..., :, m:]], -1)
            return (P @ solve_triangular(_mH(L), gX, upper=True, unitriangular=True),)
        # tall, L = [L1; L2]: with X = P^T dA U^-1, gX1 = gL1 + L1^-H triu(gU U^H - L^H gL),
        # gX2 = gL2, and gA = P gX U^-H
        gL, gU = tril(gLU, -1), triu(gLU[..., :n, :])
        H = triu(gU @ _mH(U) - _mH(L) @ gL)
        gX1 = gL[..., :n, :] + solve_triangular(_mH(L[..., :n, :]), H, upper=True,
                                                unitriangular=True)
        gX = cat([gX1, gL[..., n:, :]], -2)
        return (P @ solve_triangular(_mH(U), gX, upper=False, left=False),)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """Computes a compact LU factorization with partial pivoting, ``A = P L U``, and the
    LAPACK ``info`` code (``i > 0``: ``U[i-1, i-1]`` is exactly zero).

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        pivot (bool): must be `True` on the CPU.
        check_errors (bool): raise on a nonzero ``info``. Default: `False`.

    Returns:
        A named tuple `(LU, pivots, info)`; ``pivots`` are 1-based int32 as LAPACK's.

    Example::

        >>> LU, pivots, info = ember.linalg.lu_factor_ex(ember.eye(2))
        >>> pivots
        tensor([1, 2], dtype=torch.int32)
    """
    _check_float(A._data, 'linalg.lu_factor_ex')
    _check_matrix(A._data, 'torch.linalg.lu_factor_ex')
    if not pivot:
        raise RuntimeError('linalg.lu_factor: LU without pivoting is not implemented on the CPU')
    lu, piv, info = _lu_arrays(A._data)
    res = wrap(lu)
    if _Mode.grad and A.requires_grad:
        P = wrap(_p_matrix(_perm_from_pivots(piv, A.shape[-2]), lu.dtype))
        record(res, LinalgLuFactorExBackward0(), (A,), save=(res, P))
    r = linalg_lu_factor_ex((res, wrap(piv), wrap(info)))
    if check_errors:
        _raise_info(info, 'torch.linalg.lu_factor_ex')
    return _out(r, out) if out is not None else r


def _raise_info(info, name):
    bad = np.flatnonzero(np.asarray(info).reshape(-1) > 0)
    if bad.size:
        b = int(bad[0])
        i = int(np.asarray(info).reshape(-1)[b])
        pre = f'{name}: (Batch element {b}): ' if np.ndim(info) else f'{name}: '
        raise RuntimeError(f'{pre}U[{i},{i}] is zero and using it on lu_solve would result in a '
                           'division by zero. If you still want to perform the factorization, '
                           'consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)')


def lu_factor(A, *, pivot=True, out=None):
    """Computes a compact LU factorization with partial pivoting, ``A = P L U``.

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        pivot (bool): must be `True` on the CPU.

    NOTE: unlike PyTorch, the backward of a non-square factorization is not implemented.

    Example::

        >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=torch.int32)
    """
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_info(info._data, 'torch.linalg.lu_factor')
    r = linalg_lu_factor((LU, piv))
    return _out(r, out) if out is not None else r


@register(method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """Unpacks the compact LU factorization of :func:`ember.linalg.lu_factor` into `P, L, U`.

    Args:
        LU_data (Tensor): the packed LU factorization.
        LU_pivots (Tensor): the 1-based pivots.
        unpack_data (bool): whether to return `L` and `U`. Default: `True`.
        unpack_pivots (bool): whether to return `P`. Default: `True`.

    Example::

        >>> P, L, U = ember.lu_unpack(*ember.linalg.lu_factor(ember.eye(2)))
    """
    m = LU_data.shape[-2]
    if unpack_pivots:
        P = wrap(_p_matrix(_perm_from_pivots(LU_pivots._data, m), LU_data._data.dtype))
    else:
        P = wrap(array_module(LU_data._data).zeros((0,), dtype=LU_data._data.dtype))
    if unpack_data:
        L, U = _split_lu(LU_data)
    else:
        L = U = wrap(array_module(LU_data._data).zeros((0,), dtype=LU_data._data.dtype))
    r = lu_unpack_t((P, L, U))
    return _out(r, out) if out is not None else r


def lu(A, *, pivot=True, out=None):
    """Computes the LU decomposition with partial pivoting, ``A = P L U``.

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        pivot (bool): must be `True` on the CPU.

    Returns:
        A named tuple `(P, L, U)`.

    NOTE: unlike PyTorch, gradients flow through the square factorization's backward
    (grad_fn of L and U come from the unpacking), and non-square backward is not implemented.

    Example::

        >>> P, L, U = ember.linalg.lu(ember.tensor([[1., 2.], [3., 4.]]))
    """
    LU, piv, _ = lu_factor_ex(A, pivot=pivot)
    P, L, U = lu_unpack(LU, piv)
    r = linalg_lu((P, L, U))
    return _out(r, out) if out is not None else r


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solves ``A X = B`` given the LU factorization of `A` from :func:`lu_factor`.

    Args:
        LU (Tensor): packed factorization, shape `(*, n, n)`.
        pivots (Tensor): 1-based pivots, shape `(*, n)`.
        B (Tensor): right-hand side, shape `(*, n, k)`.
        left (bool): solve ``A X = B`` (True) or ``X A = B``. Default: `True`.
        adjoint (bool): solve with ``A^H`` instead. Default: `False`.

    Example::

        >>> A = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.linalg.lu_solve(*ember.linalg.lu_factor(A), ember.eye(2))
        tensor([[-2.0000,  1.0000],
                [ 1.5000, -0.5000]])
    """
    _check_square(LU, 'linalg.lu_solve', 'LU')
    n = LU.shape[-1]
    L, U = _split_lu(LU)
    P = wrap(_p_matrix(_perm_from_pivots(pivots._data, n), LU._data.dtype))
    # A = P L U
    if left and not adjoint:
        r = solve_triangular(U, solve_triangular(L, P.mT @ B, upper=False, unitriangular=True),
                             upper=True)
    elif left:      # A^H X = B: U^H L^H P^T X = B
        y = solve_triangular(_mH(U), B, upper=False)
        r = P @ solve_triangular(_mH(L), y, upper=True, unitriangular=True)
    elif not adjoint:   # X P L U = B
        y = solve_triangular(U, B, upper=True, left=False)
        r = solve_triangular(L, y, upper=False, left=False, unitriangular=True) @ P.mT
    else:           # X U^H L^H P^T = B
        y = solve_triangular(_mH(L), B @ P, upper=True, left=False, unitriangular=True)
        r = solve_triangular(_mH(U), y, upper=False, left=False)
    return _out(r, out) if out is not None else r


@register('lu_solve')
def _lu_solve_top(input, LU_data, LU_pivots, *, out=None):
    """Solves ``A X = b`` (deprecated form of :func:`ember.linalg.lu_solve`: ``b`` first).

    Example::

        >>> A = ember.tensor([[1., 2.], [3., 4.]])
        >>> ember.lu_solve(ember.eye(2), *ember.linalg.lu_factor(A)).shape
        torch.Size([2, 2])
    """
    return lu_solve(LU_data, LU_pivots, input, out=out)


@register('lu')
def _lu_top(A, pivot=True, get_infos=False, out=None):
    """Computes the LU factorization (deprecated form of :func:`ember.linalg.lu_factor`).

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        pivot (bool): must be `True` on the CPU.
        get_infos (bool): also return the ``info`` tensor. Default: `False`.

    Example::

        >>> A_LU, pivots = ember.lu(ember.eye(2))
    """
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


@register()
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Solves ``A X = b`` for triangular `A` (deprecated form of
    :func:`ember.linalg.solve_triangular`).

    Args:
        input (Tensor): right-hand side `b`, shape `(*, m, k)`.
        A (Tensor): triangular matrix, shape `(*, m, m)`.
        upper (bool): `A` is upper triangular. Default: `True`.
        transpose (bool): solve with ``A^T``. Default: `False`.
        unitriangular (bool): assume a unit diagonal. Default: `False`.

    Returns:
        A named tuple `(solution, cloned_coefficient)`.

    Example::

        >>> ember.triangular_solve(ember.ones(2, 1), ember.eye(2) * 2).solution
        tensor([[0.5000],
                [0.5000]])
    """
    from ._linalg_common import triangular_solve_t
    M = A.mT if transpose else A
    x = solve_triangular(M, input, upper=(upper != transpose), unitriangular=unitriangular)
    r = triangular_solve_t((x, A.clone()))
    return _out(r, out) if out is not None else r


@register()
def geqrf(input, *, out=None):
    """Computes a QR decomposition in LAPACK's compact ``geqrf`` form: `R` on and above the
    diagonal of ``a``, the Householder vectors below it, their scales in ``tau``.

    NOTE: as in PyTorch, this function has no gradient.

    Example::

        >>> a, tau = ember.geqrf(ember.eye(2))
    """
    from ._linalg_common import geqrf_t
    if input.dim() < 2:
        raise RuntimeError(f'torch.geqrf: input must have at least 2 dimensions.')
    arr = input._data
    xp = array_module(arr)
    m, n = arr.shape[-2:]
    if arr.size == 0:
        h = arr.copy()
        tau = xp.zeros(arr.shape[:-2] + (min(m, n),), dtype=arr.dtype)
    else:
        h, tau = xp.linalg.qr(arr, mode='raw')
        h = xp.ascontiguousarray(xp.swapaxes(h, -1, -2))
    r = geqrf_t((wrap(h), wrap(tau)))
    return _out(r, out, exact=False) if out is not None else r


def householder_product(A, tau, *, out=None):
    """Computes the first `n` columns of the product of Householder matrices
    ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with the ``v_i`` read below the diagonal
    of `A` (unit diagonal implied), as LAPACK's orgqr/ungqr.

    Args:
        A (Tensor): tensor of shape `(*, m, n)`.
        tau (Tensor): tensor of shape `(*, k)`, ``k <= n``.

    NOTE: unlike PyTorch, the result's grad_fn is that of the composition (not
    LinalgHouseholderProductBackward0).

    Example::

        >>> ember.linalg.householder_product(*ember.geqrf(ember.eye(2))).shape
        torch.Size([2, 2])
    """
    from .creation import eye
    if A.dim() < 2:
        raise RuntimeError('torch.linalg.householder_product: input must have at least 2 '
                           'dimensions.')
    m, n = A.size(-2), A.size(-1)
    k = tau.size(-1)
    if m < n:
        raise RuntimeError('torch.linalg.householder_product: input.shape[-2] must be greater '
                           'than or equal to input.shape[-1]')
    if k > n:
        raise RuntimeError('torch.linalg.householder_product: input.shape[-1] must be greater '
                           'than or equal to tau.shape[-1]')
    E = eye(m, n, dtype=A.dtype)
    V = A.tril(-1) + E
    Q = E.expand(*A.shape[:-2], m, n)
    if k == 0 and (A.requires_grad or tau.requires_grad):
        # no reflector: still a result of A and tau for autograd (zero gradients), as torch
        Q = Q + A[..., :0, :].sum(-2, keepdim=True) + tau[..., :0].sum(-1, keepdim=True)[..., None]
    for i in range(k - 1, -1, -1):
        v = V[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        Q = Q - (t * v) @ (_mH(v) @ Q)
    return _out(Q, out, exact=False) if out is not None else Q


@register()
def orgqr(input, tau):
    """Alias of :func:`ember.linalg.householder_product`.

    Example::

        >>> ember.orgqr(*ember.geqrf(ember.eye(2))).shape
        torch.Size([2, 2])
    """
    return householder_product(input, tau)


@register()
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """Multiplies ``input3`` by the full `Q` of a :func:`ember.geqrf` factorization.

    Args:
        input (Tensor): Householder vectors, shape `(*, mn, k)`.
        input2 (Tensor): their scales ``tau``, shape `(*, k)`.
        input3 (Tensor): the matrix to multiply, shape `(*, m, n)`.
        left (bool): compute ``op(Q) @ input3`` (True) or ``input3 @ op(Q)``. Default: `True`.
        transpose (bool): ``op(Q)`` is ``Q^H`` (True) or `Q`. Default: `False`.

    NOTE: unlike PyTorch, the result's grad_fn is that of the composition.

    Example::

        >>> a, tau = ember.geqrf(ember.eye(2))
        >>> ember.ormqr(a, tau, ember.eye(2)).shape
        torch.Size([2, 2])
    """
    from .shape import cat
    for t, what in ((input, 'input'), (input3, 'other')):
        if isinstance(t, Tensor) and t.dim() < 2:
            raise RuntimeError(f"torch.ormqr: {what} must have at least 2 dimensions.")
    if input2.dim() >= 1 and input2.shape[-1] != min(input3.shape[-2 if left else -1],
                                                     input.shape[-1]):
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], "
                           "input.shape[-1])")
    mn, k = input.shape[-2], input.shape[-1]
    A = input
    if k < mn:
        A = cat([input, input.new_zeros(tuple(input.shape[:-2]) + (mn, mn - k))], -1)
    else:
        A = input[..., :mn]
    Q = householder_product(A, input2)
    if transpose:
        Q = _mH(Q)
    r = Q @ input3 if left else input3 @ Q
    return _out(r, out) if out is not None else r
