"""Randomized low-rank factorizations: ``ember.svd_lowrank`` and ``ember.pca_lowrank``
(PyTorch's ``torch/_lowrank.py``).

Both follow the randomized range finder of Halko, Martinsson and Tropp (2009): a Gaussian
test matrix drawn from the default generator (so a seeded program draws what PyTorch draws),
``niter`` rounds of subspace (power) iteration, each orthonormalized by a QR factorization,
and a small SVD of the projected matrix. They are composed of ember ops (``matmul``,
``linalg.qr``, ``linalg.svd``), so autograd differentiates them through those ops, as
PyTorch does: there is no node of their own.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ._util import register
from .products import matmul
from .decompositions import qr as _linalg_qr, svd as _linalg_svd
from .random_ops import randn

__all__ = []


def _is_sparse(A):
    return getattr(A, 'layout', None) is not None and str(A.layout) != 'torch.strided'


def _check_A(A, name):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def _range_basis(A, q, niter, M):
    """An orthonormal ``m x q`` basis approximating the range of ``A - M``: a Gaussian
    sketch refined by ``niter`` rounds of (orthonormalized) power iteration."""
    niter = 2 if niter is None else niter
    dt = A.dtype if A.dtype.is_floating_point or A.dtype.is_complex else D.float32
    R = randn(A.shape[-1], q, dtype=dt, device=A.device)

    def project(Z, adjoint):
        # (A - M) @ Z, or its adjoint, without forming A - M
        B, N = (A.mH, None if M is None else M.mH) if adjoint else (A, M)
        Y = matmul(B, Z)
        return Y if N is None else Y - matmul(N, Z)

    Q = _linalg_qr(project(R, False)).Q
    for _ in range(niter):
        Q = _linalg_qr(project(Q, True)).Q
        Q = _linalg_qr(project(Q, False)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:                    # work on the tall adjoint; swap U and V at the end
        A = A.mH
        M = None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    Qh = Q.mH
    B = matmul(Qh, A)
    if M is not None:
        B = B - matmul(Qh, M)
    U, S, Vh = _linalg_svd(B, full_matrices=False)
    U, V = matmul(Q, U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


@register(method=False)
def svd_lowrank(A, q=6, niter=2, M=None):
    r"""An approximate, randomized singular value decomposition of rank ``q``:
    ``A - M ~= U diag(S) V^H``.

    The range of ``A - M`` is sketched with a ``n x q`` Gaussian matrix drawn from the
    default generator, refined by ``niter`` rounds of subspace iteration, and the SVD of
    the projection of ``A - M`` onto it gives the factors (Halko et al., 2009, Algorithm
    5.1). The result is random: seed the generator for reproducible factors. Gradients flow
    through the ops it is made of.

    Args:
        A (Tensor): the input of shape ``(*, m, n)``.
        q (int, optional): the rank of the approximation (a slight overestimate of the rank
            of ``A`` is best). Default: 6.
        niter (int, optional): the number of subspace iterations. Default: 2.
        M (Tensor, optional): a tensor broadcastable to ``A``'s shape, subtracted from
            ``A`` (without forming ``A - M``). Default: None.

    Returns:
        A tuple ``(U, S, V)`` of shapes ``(*, m, q)``, ``(*, q)`` and ``(*, n, q)``.

    Example::

        >>> _ = ember.manual_seed(0)
        >>> A = ember.randn(6, 2) @ ember.randn(2, 5)
        >>> U, S, V = ember.svd_lowrank(A, q=2)
        >>> ember.allclose(U @ ember.diag(S) @ V.mT, A, atol=1e-4)
        True
    """
    _check_A(A, 'svd_lowrank')
    return _svd_lowrank(A, q, niter, M)


@register(method=False)
def pca_lowrank(A, q=None, center=True, niter=2):
    r"""A randomized principal component analysis of the rows of ``A``: the rank-``q``
    :func:`svd_lowrank` of ``A`` with its column means subtracted (``center=True``).

    The columns of ``V`` are the principal directions, ``S ** 2 / (m - 1)`` the variances
    along them, and ``U`` the (scaled) coordinates of the rows.

    Args:
        A (Tensor): the input of shape ``(*, m, n)``.
        q (int, optional): the rank of the approximation, at most ``min(m, n)``. Default:
            ``min(6, m, n)``.
        center (bool, optional): subtract the column means of ``A`` first. Default: True.
        niter (int, optional): the number of subspace iterations. Default: 2.

    Returns:
        A tuple ``(U, S, V)`` of shapes ``(*, m, q)``, ``(*, q)`` and ``(*, n, q)``.

    NOTE: unlike PyTorch, a sparse ``A`` is densified for centering.

    Example::

        >>> _ = ember.manual_seed(0)
        >>> U, S, V = ember.pca_lowrank(ember.randn(10, 3), q=2)
        >>> V.shape
        torch.Size([3, 2])
    """
    _check_A(A, 'pca_lowrank')
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    if _is_sparse(A):
        A = A.to_dense()
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)
