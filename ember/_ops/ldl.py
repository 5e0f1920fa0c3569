"""The LDL factorization of symmetric / Hermitian matrices (Bunch-Kaufman pivoting, as
LAPACK's ``sytrf``/``hetrf`` that PyTorch calls): ``linalg.ldl_factor``,
``linalg.ldl_factor_ex`` and ``linalg.ldl_solve``, computed on the host with PyTorch's
``LD``/``pivots`` layout. PyTorch defines no derivative for them: their nodes raise."""
from . import _args

import numpy as np

from .._tensor import Tensor, _Mode
from ._util import wrap, Node, record
from .._backend import array_module
from ._linalg_common import _st, _out
from .decompositions import _check_float, _check_square
from ..return_types import _structseq

linalg_ldl_factor = _structseq('linalg_ldl_factor', ('LD', 'pivots'))
linalg_ldl_factor_ex = _structseq('linalg_ldl_factor_ex', ('LD', 'pivots', 'info'))

_BK_ALPHA = (1. + 17 ** 0.5) / 8.


def _prod(shape):
    r = 1
    for v in shape:
        r *= int(v)
    return r


def _cabs1(v, xp):
    """LAPACK's cheap modulus of complex numbers (|re| + |im|); abs for real ones."""
    if v.dtype.kind == 'c':
        return xp.abs(v.real) + xp.abs(v.imag)
    return xp.abs(v)


def _first_argmax(v, xp):
    """Index of the first largest element (as LAPACK's i?amax), ``v`` non-empty."""
    return int(xp.argmax(v))


def _bk_factor(a, herm, xp):
    """Bunch-Kaufman factorization of one symmetric (``herm``: Hermitian) matrix from its
    lower triangle, with the pivoting and the arithmetic of LAPACK's unblocked ``?sytf2`` /
    ``?hetf2`` (lower): ``a`` (n, n) is overwritten with ``D`` and the multipliers of ``L``;
    returns ``(a, ipiv, info)`` with ``ipiv`` 1-based, negative for 2x2 blocks.

    The matrix is kept fully (upper = lower transposed, conjugated when Hermitian) so that a
    symmetric interchange is a swap of rows and columns; after every update the upper
    triangle is refreshed from the lower one, which LAPACK's arithmetic produced."""
    n = a.shape[0]
    cplx = a.dtype.kind == 'c'
    conj = (lambda v: v.conj()) if (herm and cplx) else (lambda v: v)
    ipiv = [0] * n
    info = 0
    rdt = a.real.dtype.type if cplx else a.dtype.type
    alpha = rdt(_BK_ALPHA)
    k = 0
    while k < n:
        kstep = 1
        akk = a[k, k]
        absakk = rdt(abs(akk.real)) if herm and cplx else rdt(_cabs1(akk, xp))
        if k < n - 1:
            col = _cabs1(a[k + 1:, k], xp)
            imax = k + 1 + _first_argmax(col, xp)
            colmax = rdt(col[imax - k - 1])
        else:
            imax, colmax = k, rdt(0)
        if max(absakk, colmax) == 0 or absakk != absakk:
            if info == 0:
                info = k + 1
            ipiv[k] = k + 1
            k += 1
            continue
        if absakk >= alpha * colmax:
            kp = k
        else:
            row = _cabs1(a[imax, k:imax], xp)
            rowmax = rdt(row.max())
            if imax < n - 1:
                c2 = _cabs1(a[imax + 1:, imax], xp)
                rowmax = max(rowmax, rdt(c2[_first_argmax(c2, xp)]))
            aii = a[imax, imax]
            absaii = rdt(abs(aii.real)) if herm and cplx else rdt(_cabs1(aii, xp))
            if absakk >= alpha * colmax * (colmax / rowmax):
                kp = k
            elif absaii >= alpha * rowmax:
                kp = imax
            else:
                kp = imax
                kstep = 2
        kk = k + kstep - 1
        if kp != kk:          # symmetric interchange of rows/columns kk and kp (trailing part)
            s = a[k:, k:]
            i, j = kk - k, kp - k
            s[[i, j], :] = s[[j, i], :]
            s[:, [i, j]] = s[:, [j, i]]
        if kstep == 1:
            if k < n - 1:
                x = a[k + 1:, k].copy()
                if herm and cplx:
                    r1 = rdt(1) / a[k, k].real
                    tmp = (-r1) * x.conj()
                else:
                    d11 = a.dtype.type(1) / a[k, k]
                    tmp = (-d11) * x
                a[k + 1:, k + 1:] += x[:, None] * tmp[None, :]
                a[k + 1:, k] = x * (r1 if herm and cplx else d11)
                if herm and cplx:
                    dg = xp.arange(k + 1, n)
                    a[dg, dg] = a[dg, dg].real
        else:
            if k < n - 2:
                ak, ak1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                if herm and cplx:
                    d = rdt(abs(a[k + 1, k]))
                    d11 = a[k + 1, k + 1].real / d
                    d22 = a[k, k].real / d
                    tt = rdt(1) / (d11 * d22 - rdt(1))
                    d21 = a[k + 1, k] / d
                    d = tt / d
                    wk = d * (d11 * ak - d21 * ak1)
                    wkp1 = d * (d22 * ak1 - d21.conj() * ak)
                    a[k + 2:, k + 2:] -= ak[:, None] * wk.conj()[None, :]
                    a[k + 2:, k + 2:] -= ak1[:, None] * wkp1.conj()[None, :]
                    dg = xp.arange(k + 2, n)
                    a[dg, dg] = a[dg, dg].real
                else:
                    d21 = a[k + 1, k]
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = a.dtype.type(1) / (d11 * d22 - a.dtype.type(1))
                    d21 = t / d21
                    wk = d21 * (d11 * ak - ak1)
                    wkp1 = d21 * (d22 * ak1 - ak)
                    a[k + 2:, k + 2:] -= ak[:, None] * wk[None, :]
                    a[k + 2:, k + 2:] -= ak1[:, None] * wkp1[None, :]
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
        # refresh the upper triangle of the trailing part from the lower one
        s = a[k + kstep:, k + kstep:]
        if s.shape[0] > 1:
            iu = xp.triu_indices(s.shape[0], 1)
            s[iu] = conj(s.T[iu])
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return a, ipiv, info


def _ldl_arrays(A, herm, name):
    a = A._data
    _check_float(a, name)
    _check_square(a, name)
    xp = array_module(a)
    n = a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((_prod(batch), n, n))
    LD = xp.zeros(flat.shape, a.dtype)
    piv = xp.zeros((flat.shape[0], n), np.int32)
    info = xp.zeros((flat.shape[0],), np.int32)
    for b in range(flat.shape[0]):
        m = xp.array(flat[b], copy=True)
        if n:
            iu = xp.triu_indices(n, 1)
            m[iu] = m.T[iu].conj() if herm else m.T[iu]
            if herm and m.dtype.kind == 'c':
                m[xp.arange(n), xp.arange(n)] = m.diagonal().real
        m, p, inf = _bk_factor(m, herm, xp)
        LD[b] = xp.tril(m)
        piv[b] = xp.asarray(p, np.int32) if n else piv[b]
        info[b] = inf
    return LD.reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


class LinalgLdlFactorExBackward0(Node):
    """``linalg_ldl_factor_ex`` has no derivative (as in PyTorch): backward raises."""

    def backward(self, *g):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _ldl_no_grad(outs, A, node_cls):
    if _Mode.grad and A.requires_grad:
        node = node_cls()
        for t in outs:
            record(t, node, (A,))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """Compact LDL factorization of a symmetric (or, with ``hermitian=True``, Hermitian)
    matrix by Bunch-Kaufman diagonal pivoting, ``A = P L D L^H P^T``, with LAPACK's ``info``.

    Only the lower triangle of ``A`` is read. ``LD`` holds ``L`` below the diagonal (its unit
    diagonal is not stored) and the 1x1 / 2x2 diagonal blocks of ``D`` on and just below the
    diagonal; ``pivots`` are LAPACK's (``?sytrf``/``?hetrf``, lower): 1-based, ``pivots[k] >
    0`` means a 1x1 block after swapping rows/columns ``k`` and ``pivots[k] - 1``, and
    ``pivots[k] = pivots[k + 1] = -p < 0`` a 2x2 block after swapping ``k + 1`` and
    ``p - 1``. The pivots and ``LD`` equal PyTorch's for the same input.

    Args:
        A (Tensor): tensor of shape `(*, n, n)` of symmetric or Hermitian matrices.
        hermitian (bool): treat complex ``A`` as Hermitian instead of symmetric.
        check_errors (bool): raise when ``info`` is nonzero. Default: `False`.
        out (tuple, optional): ``(LD, pivots, info)`` tensors to write into.

    Returns:
        A named tuple `(LD, pivots, info)`: ``info[...] = k > 0`` when ``D[k-1, k-1]`` is
        exactly zero (D singular); ``pivots`` and ``info`` are int32.

    NOTE: unlike PyTorch, whose LAPACK switches to a blocked algorithm for matrices larger
    than its block size (64), ember always runs the unblocked algorithm: the same pivots, with
    values that can differ from PyTorch's by rounding for n > 64.

    Example::

        >>> A = ember.tensor([[0., 1.], [1., 0.]])
        >>> ember.linalg.ldl_factor_ex(A).pivots
        tensor([-2, -2], dtype=torch.int32)
    """
    name = 'torch.linalg.ldl_factor_ex'
    if not isinstance(A, Tensor):
        _args.tensor(A, 'linalg_ldl_factor_ex', 'A')
    LD, piv, info = _ldl_arrays(A, hermitian, name)
    res = linalg_ldl_factor_ex((wrap(LD), wrap(piv), wrap(info)))
    _ldl_no_grad(res, A, LinalgLdlFactorExBackward0)
    if check_errors:
        _ldl_raise(info, name)
    return _out(res, out) if out is not None else res


def _ldl_raise(info, name):
    flat = info.reshape(-1).tolist()
    bad = [i for i, v in enumerate(flat) if v != 0]
    if bad:
        b = bad[0]
        c = int(flat[b])
        pre = f'{name}: (Batch element {b}): ' if info.ndim else f'{name}: '
        raise RuntimeError(f'{pre}Unknown error code: {c} (D[{c - 1}, {c - 1}] is exactly '
                           'zero: D is singular).')


def ldl_factor(A, *, hermitian=False, out=None):
    """Compact LDL factorization of a symmetric (or Hermitian) matrix with Bunch-Kaufman
    pivoting; see :func:`ldl_factor_ex` for the layout of ``LD`` and ``pivots``.

    Args:
        A (Tensor): tensor of shape `(*, n, n)`; only its lower triangle is read.
        hermitian (bool): treat complex ``A`` as Hermitian instead of symmetric.
        out (tuple, optional): ``(LD, pivots)`` tensors to write into.

    Returns:
        A named tuple `(LD, pivots)`.

    Raises:
        RuntimeError: where ``D`` is singular (as PyTorch, which reports LAPACK's code).

    Example::

        >>> LD, pivots = ember.linalg.ldl_factor(ember.tensor([[4., 2.], [2., 3.]]))
        >>> LD
        tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]])
    """
    if not isinstance(A, Tensor):
        _args.tensor(A, 'linalg_ldl_factor', 'A')
    LD, piv, info = _ldl_arrays(A, hermitian, 'torch.linalg.ldl_factor_ex')
    _ldl_raise(info, 'torch.linalg.ldl_factor')
    res = linalg_ldl_factor((wrap(LD), wrap(piv)))
    _ldl_no_grad(res, A, LinalgLdlFactorExBackward0)
    return _out(res, out) if out is not None else res


def _bk_solve(ld, ipiv, b, herm, xp):
    """Solve ``A X = B`` for one factored matrix (LAPACK ``?sytrs``/``?hetrs``, lower);
    ``b`` (n, k) is overwritten."""
    n = ld.shape[0]
    cplx = ld.dtype.kind == 'c'
    hc = herm and cplx
    cj = (lambda v: v.conj()) if hc else (lambda v: v)
    one = ld.dtype.type(1)
    k = 0
    while k < n:                      # L D Y = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1:] -= ld[k + 1:, k][:, None] * b[k][None, :]
            d = ld[k, k].real if hc else ld[k, k]
            b[k] = b[k] * (d.dtype.type(1) / d)
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2:] -= ld[k + 2:, k][:, None] * b[k][None, :]
                b[k + 2:] -= ld[k + 2:, k + 1][:, None] * b[k + 1][None, :]
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / cj(akm1k)
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - one
            bkm1 = b[k] / cj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                     # L^H X = Y
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
                b[k - 1] -= cj(ld[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


class LinalgLdlSolveBackward0(Node):
    """``linalg_ldl_solve`` has no derivative (as in PyTorch): backward raises."""

    def backward(self, *g):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solve ``A X = B`` given the factorization ``(LD, pivots)`` of ``A`` from
    :func:`ldl_factor` (batched, broadcasting the batch dimensions).

    Args:
        LD (Tensor): `(*, n, n)` compact factor from :func:`ldl_factor`.
        pivots (Tensor): `(*, n)` integer pivots from :func:`ldl_factor`.
        B (Tensor): right-hand sides of shape `(*, n, k)`, of ``LD``'s dtype.
        hermitian (bool): the factorization was of a Hermitian matrix (as passed to
            :func:`ldl_factor`).
        out (Tensor, optional): output tensor.

    Example::

        >>> A = ember.tensor([[4., 2.], [2., 3.]])
        >>> LD, piv = ember.linalg.ldl_factor(A)
        >>> ember.linalg.ldl_solve(LD, piv, ember.tensor([[6.], [5.]]))
        tensor([[1.],
                [1.]])
    """
    name = 'torch.linalg.ldl_solve'
    for v, arg in ((LD, 'LD'), (pivots, 'pivots'), (B, 'B')):
        if not isinstance(v, Tensor):
            _args.tensor(v, 'linalg_ldl_solve', arg)
    ld, p, b = LD._data, pivots._data, B._data
    if ld.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LD must have at least 2 dimensions.")
    if ld.shape[-1] != ld.shape[-2]:
        raise RuntimeError(f"{name}: LD must be batches of square matrices, but they are "
                           f"{ld.shape[-2]} by {ld.shape[-1]} matrices")
    if b.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(b.ndim, 1)}"
                         f", {max(b.ndim, 1) - 1}], but got -2)")
    if b.shape[-2] != ld.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is "
                           f"{ld.shape[-1]} by {ld.shape[-1]} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")
    if p.shape != ld.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(p.shape)} instead")
    if p.dtype.kind not in 'iu':
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_st(p)}")
    _check_float(ld, name)
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_st(b)} and A of type {_st(ld)} instead.")
    xp = array_module(ld)
    n = ld.shape[-1]
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    nb = _prod(batch)
    ldb = xp.broadcast_to(ld, batch + ld.shape[-2:]).reshape((nb, n, n))
    pb = xp.broadcast_to(p, batch + (n,)).reshape((nb, n))
    bb = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]).reshape((nb,) + b.shape[-2:]),
                  copy=True)
    pl = pb.tolist() if hasattr(pb, 'tolist') else list(pb)
    for i in range(bb.shape[0]):
        _bk_solve(ldb[i], [int(v) for v in pl[i]], bb[i], hermitian, xp)
    res = wrap(bb.reshape(batch + b.shape[-2:]))
    if _Mode.grad and (LD.requires_grad or B.requires_grad):
        record(res, LinalgLdlSolveBackward0(), (LD, B))
    return _out(res, out) if out is not None else res
