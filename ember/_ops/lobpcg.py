"""``ember.lobpcg``: a few extreme eigenpairs of a symmetric positive-definite (generalized)
eigenproblem ``A X = B X diag(E)`` by the locally optimal block preconditioned conjugate
gradient method (Knyazev 2001), in the two variants PyTorch offers: ``'basic'`` (Rayleigh-Ritz
on the span of ``[X, P, W]`` through a Cholesky transform) and ``'ortho'`` (the span kept
B-orthonormal by repeated SVQB orthogonalization; Duersch et al. 2018), with converged leading
pairs locked (hard locking) and PyTorch's stopping rule.

The iteration runs on arrays; the gradient with respect to ``A`` (dense, real, ``B`` not
given: the cases PyTorch differentiates) is that of the ``k`` computed eigenpairs of the
symmetrized ``A`` by PyTorch's formula (a Sylvester-equation solution through the
characteristic polynomial of the eigenvalues), written in ember ops.
"""
from . import _args
from .._tensor import Tensor, _Mode
from .. import _dtype as D
from .._backend import array_module
from ._util import wrap, Node, register, record

__all__ = []

_FEPS = {'float32': 1.2e-07, 'float64': 2.23e-16}


class _Worker:
    """One LOBPCG run on one matrix (arrays of the module ``xp``)."""

    def __init__(self, xp, A, B, X, iK, n, k, niter, tol, largest, method, ortho):
        self.xp, self.A, self.B, self.iK = xp, A, B, iK
        self.n, self.k, self.niter, self.tol = n, k, niter, tol
        self.largest, self.method = largest, method
        self.ortho = ortho
        m = A.shape[-1]
        self.m = m
        self.X = X.copy()
        self.E = xp.zeros((n,), X.dtype)
        self.R = xp.zeros((m, n), X.dtype)
        self.S = xp.zeros((m, 3 * n), X.dtype)
        self.step = 0
        self.nc = 0           # converged (locked) leading pairs
        self.ns = 0           # columns of S in use

    # -- small helpers
    def _B(self, U):
        return U if self.B is None else self.B @ U

    def _eig(self, M):
        """Eigenpairs of the symmetric ``M`` (upper triangle), largest first if asked."""
        E, Z = self.xp.linalg.eigh(M, UPLO='U')
        if self.largest:
            E, Z = E[::-1], Z[:, ::-1]
        return E, Z

    def _fro(self, M):
        return float(self.xp.sqrt((M * M).sum()))

    def _rr_transform(self, S):
        """``Ri`` with ``Ri^T S^T B S Ri = I``: a scaled inverse Cholesky factor."""
        xp = self.xp
        SBS = S.T @ self._B(S)
        d = xp.diagonal(SBS) ** -0.5
        from .decompositions import _la
        with _la('linalg.cholesky'):        # LinAlgError as PyTorch's
            C = xp.linalg.cholesky((SBS * d[None, :]) * d[:, None])   # lower: R = C^T
        return xp.linalg.solve(C, xp.diag(d).T).T                  # diag(d) @ inv(C^T)

    def _svqb(self, U, drop, tau):
        xp = self.xp
        if U.size == 0:
            return U
        UBU = U.T @ self._B(U)
        d = xp.diagonal(UBU)
        nz = xp.flatnonzero(d != 0)
        if nz.shape[0] < d.shape[0]:
            U = U[:, nz]
            if U.size == 0:
                return U
            UBU = U.T @ self._B(U)
            d = xp.diagonal(UBU)
        dc = d ** -0.5
        E, Z = xp.linalg.eigh((UBU * dc[:, None]) * dc[None, :], UPLO='U')
        t = tau * float(xp.abs(E).max())
        if drop:                     # drop the directions that add little to the span
            keep = xp.flatnonzero(E > t)
            E, Z = E[keep], Z[:, keep]
        else:                        # or lift the small ones to the threshold
            E = xp.where(E < t, E.dtype.type(t), E)
        return (U * dc[None, :]) @ (Z * E[None, :] ** -0.5)

    def _ortho(self, U, V):
        """Columns spanning ``U``'s directions, B-orthonormal and B-orthogonal to ``V``."""
        xp = self.xp
        o = self.ortho
        tau, tau_drop, tau_rep = o['ortho_tol'], o['ortho_tol_drop'], o['ortho_tol_replace']
        BV_norm = self._fro(self._B(V))
        BU = self._B(U)
        VBU = V.T @ BU
        for _ in range(o['ortho_i_max']):
            U = U - V @ VBU
            drop, tau_s = False, tau_drop
            for _ in range(o['ortho_j_max']):
                if o['ortho_use_drop']:
                    U = self._svqb(U, drop, tau_s)
                    drop, tau_s = True, tau_rep
                else:
                    U = self._svqb(U, False, tau_rep)
                if U.size == 0:
                    return U
                BU = self._B(U)
                UBU = U.T @ BU
                err = self._fro(UBU - xp.eye(UBU.shape[-1], dtype=UBU.dtype)) / (
                    self._fro(BU) * self._fro(U))
                if err < tau:
                    break
            VBU = V.T @ BU
            if self._fro(VBU) / (BV_norm * self._fro(U)) < tau:
                break
            if self.m < U.shape[-1] + V.shape[-1]:
                raise ValueError(f"Overdetermined shape of U: #B-cols(={self.m}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold")
        return U

    def _residual(self):
        self.R = self.A @ self.X - self._B(self.X) * self.E[None, :]

    def _count_converged(self):
        xp = self.xp
        X, R, E = self.X, self.R, self.E
        rn = xp.sqrt((R * R).sum(0))
        xn = xp.sqrt((X * X).sum(0))
        rerr = rn / (xn * (self.A_norm + xp.abs(E[:X.shape[-1]]) * self.B_norm))
        ok = (rerr < self.tol).tolist()
        c = 0
        for b in ok:
            if not b:
                break
            c += 1
        self.nc = c
        return c

    # -- the iteration
    def _start(self):
        xn = self._fro(self.X)
        self.A_norm = self._fro(self.A @ self.X) / xn
        self.B_norm = self._fro(self._B(self.X)) / xn

    def update(self):
        if self.step == 0:
            self._start()
        (self._ortho_step if self.method == 'ortho' else self._basic_step)()
        self.step += 1

    def _basic_step(self):
        n, nc, ns = self.n, self.nc, self.ns
        if self.step == 0:
            Ri = self._rr_transform(self.X)
            M = Ri.T @ (self.X.T @ self.A @ self.X) @ Ri
            E, Z = self._eig(M)
            self.X = self.X @ (Ri @ Z)
            self.E = E.copy()
            np_ = 0
            self._residual()
            self._count_converged()
            self.S[:, :n] = self.X
            W = self.R if self.iK is None else self.iK @ self.R
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._rr_transform(S_)
            M = Ri.T @ (S_.T @ self.A @ S_) @ Ri
            E_, Z = self._eig(M)
            self.X[:, nc:] = S_ @ (Ri @ Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = S_ @ (Ri @ Z[:, n:2 * n - nc])
            np_ = P.shape[-1]
            self._residual()
            nc = self._count_converged()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            R = self.R[:, nc:]
            W = R if self.iK is None else self.iK @ R
        self.ns = n + np_ + W.shape[-1]
        self.S[:, n + np_:self.ns] = W

    def _ortho_step(self):
        xp = self.xp
        n, nc, ns = self.n, self.nc, self.ns
        if self.step == 0:
            Ri = self._rr_transform(self.X)
            M = Ri.T @ (self.X.T @ self.A @ self.X) @ Ri
            _, Z = self._eig(M)
            self.X = self.X @ (Ri @ Z)
            self._residual()          # E is still zero here, as in PyTorch
            np_ = 0
            self._count_converged()
            self.S[:, :n] = self.X
            W = self._ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = self._eig(S_.T @ self.A @ S_)
            self.X[:, nc:] = S_ @ Z[:, :n - nc]
            self.E[nc:] = E_[:n - nc]
            Q = xp.linalg.qr(Z[:n - nc, n - nc:].T)[0]
            P = S_ @ (Z[:, n - nc:] @ Q)
            np_ = P.shape[-1]
            self._residual()
            nc = self._count_converged()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            W = self._ortho(self.R[:, nc:], self.S[:, :n + np_])
        self.ns = n + np_ + W.shape[-1]
        self.S[:, n + np_:self.ns] = W

    def run(self):
        left = self.niter
        self.update()
        left -= 1
        while not (left == 0 or self.nc >= self.k):
            self.update()
            left -= 1
        return self.E[:self.k], self.X[:, :self.k]


class LOBPCGAutogradFunctionBackward(Node):
    """Gradient of the ``k`` computed eigenpairs ``(D, U)`` of the symmetric ``A``.

    The part in ``span(U)`` is the eigen-decomposition derivative restricted to the computed
    pairs. The part in the orthogonal complement solves the Sylvester equation of the
    eigenvector perturbation without the rest of the spectrum, through the characteristic
    polynomial ``p`` of ``D`` (Hu & Cheng 2006): with ``Q`` a basis of the complement,
    ``- Q (Q^T p(A) Q)^{-1} Q^T S U^T`` where ``S = sum_j A^(j-1) gU q_j(D)`` and ``q_j`` are
    the tails of ``p``'s coefficients: the formula PyTorch differentiates with, so the
    gradients agree also where the pairs are converged only to ``tol``."""

    def backward(self, gD, gU):
        from .decompositions import eigh, solve
        A, D, U = self.saved_tensors
        if self.is_complex:
            raise ValueError("lobpcg.backward does not support complex input yet. Note that "
                             "lobpcg.forward does though.")
        if self.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        m, k = A.shape[-1], D.shape[-1]
        gD = gD if gD is not None else D.new_zeros(D.shape)
        gU = gU if gU is not None else U.new_zeros(U.shape)
        eye_k, eye_m = _eye(k, D), _eye(m, A)
        F = D.unsqueeze(-2) - D.unsqueeze(-1)
        Finv = (1 - eye_k) / (F + eye_k)        # 1 / (d_j - d_i) off the diagonal, 0 on it
        Ut = U.mT
        res = U @ (gD.diag_embed() + (Ut @ gU) * Finv) @ Ut
        if k == m:
            return (res,) + ((None,) if self.has_B else ())
        # a basis of the orthogonal complement of span(U)
        _, V = eigh(eye_m - U @ Ut)
        Q = V[..., k:]
        # coefficients c[0..k] of p(x) = prod_j (x - D_j), c[k] = 1
        c = [D.new_ones(D.shape[:-1])]
        for j in range(k):
            r = D[..., j]
            c = [-r * c[0]] + [c[i - 1] - r * c[i] for i in range(1, len(c))] + [c[-1]]
        acc = gU.new_zeros(gU.shape)
        G = gU
        for j in range(1, k + 1):
            q = c[k].unsqueeze(-1).expand(D.shape)
            for l in range(k - 1, j - 1, -1):
                q = q * D + c[l].unsqueeze(-1)
            acc = acc + G * q.unsqueeze(-2)
            G = A @ G
        pA = eye_m * c[k].unsqueeze(-1).unsqueeze(-1)
        for l in range(k - 1, -1, -1):
            pA = A @ pA + eye_m * c[l].unsqueeze(-1).unsqueeze(-1)
        M = Q.mT @ pA @ Q
        res = res - Q @ solve(M, Q.mT @ acc) @ Ut
        return (res,) + ((None,) if self.has_B else ())


def _eye(m, like):
    from .creation import eye
    return eye(m, dtype=like.dtype, device=like.device)


def _mat_arg(v, name, pos):
    if v is not None and not isinstance(v, Tensor):
        _args.tensor(v, 'lobpcg', name, pos)
    return v


@register(method=False)
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """Find the ``k`` largest (or smallest) eigenvalues and eigenvectors of the symmetric
    positive-definite generalized eigenproblem ``A X = B X diag(E)`` by LOBPCG.

    Args:
        A (Tensor): symmetric input of shape `(*, m, m)`.
        k (int, optional): number of requested eigenpairs (default: the columns of ``X``, or
            1). At most ``n``.
        B (Tensor, optional): symmetric positive-definite ``(*, m, m)``; the identity when
            not given.
        X (Tensor, optional): initial approximation `(*, m, n)` (default: ``randn``, drawn
            from the default generator as PyTorch draws it).
        n (int, optional): size of the block of approximations when ``X`` is not given
            (default ``k``). ``m >= 3 n`` is required.
        iK (Tensor, optional): preconditioner `(m, m)` applied to the residuals (used by the
            ``'basic'`` method).
        niter (int, optional): maximum number of iterations (default 1000; -1: until
            convergence).
        tol (float, optional): residual tolerance for convergence (default: the square root
            of the dtype's machine epsilon).
        largest (bool, optional): largest (default) or smallest eigenvalues.
        method (str, optional): ``'ortho'`` (default) or ``'basic'``.
        tracker: accepted for compatibility; must be None.
        ortho_iparams, ortho_fparams, ortho_bparams (dict, optional): settings of the
            ``'ortho'`` method (``ortho_i_max``, ``ortho_j_max``, ``ortho_tol``,
            ``ortho_tol_drop``, ``ortho_tol_replace``, ``ortho_use_drop``).

    Returns:
        ``(E, X)``: eigenvalues `(*, k)` (largest first when ``largest``) and eigenvectors
        `(*, m, k)`.

    When ``A`` requires grad, the eigenpairs of ``(A + A^T) / 2`` are computed and
    differentiated (real dense ``A``, no ``B``: PyTorch's supported case).

    NOTE: unlike PyTorch, ``tracker`` is not supported (a callable raises
    NotImplementedError), sparse ``A``/``B`` do not exist in ember, and a given ``X`` is not
    overwritten by the ``'basic'`` method (PyTorch's updates it in place).

    Example::

        >>> A = ember.diag(ember.tensor([1., 2., 3., 4., 5., 6.]))
        >>> E, X = ember.lobpcg(A, k=1, X=ember.ones(6, 1))
        >>> E
        tensor([6.0000])
    """
    if not isinstance(A, Tensor):
        _args.tensor(A, 'lobpcg', 'A', 1)
    for v, nm, pos in ((B, 'B', 3), (X, 'X', 4), (iK, 'iK', 6)):
        _mat_arg(v, nm, pos)
    if tracker is not None:
        raise NotImplementedError("ember.lobpcg: tracker is not supported")
    grad = _Mode.grad and (A.requires_grad or (B is not None and B.requires_grad))
    if grad:     # differentiate the eigenpairs of the symmetrized matrices
        A = (A + A.mT) / 2
        B = (B + B.mT) / 2 if B is not None else None
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dt = A.dtype if A.dtype in (D.float16, D.float32, D.float64) else D.float32
    if tol is None:
        if str(dt).replace('torch.', '') not in _FEPS:
            raise KeyError(dt)
        tol = _FEPS[str(dt).replace('torch.', '')] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = 'ortho' if method is None else method
    niter = 1000 if niter is None else niter
    largest = True if largest is None else largest
    ortho = {'ortho_i_max': 3, 'ortho_j_max': 3, 'ortho_tol': tol, 'ortho_tol_drop': tol,
             'ortho_tol_replace': tol, 'ortho_use_drop': False}
    if method == 'ortho':
        for extra in (ortho_iparams, ortho_fparams, ortho_bparams):
            if extra:
                ortho.update(extra)
    a = A._data
    xp = array_module(a)
    b = None if B is None else B._data
    ik = None if iK is None else iK._data
    npd = dt._np
    batch = tuple(a.shape[:-2])
    nb = 1
    for s in batch:
        nb *= s
    Es, Xs = [], []
    ab = a.reshape((nb, m, m))
    bb = None if b is None else b.reshape((nb, m, m))
    xb = None if X is None or not batch else X._data.reshape((nb,) + tuple(X.shape[-2:]))
    for i in range(nb):
        if X is None:
            from .random_ops import randn
            x0 = randn((m, n), dtype=dt, device=A.device)._data
        else:
            x0 = xb[i] if batch else X._data
        if not (x0.ndim == 2 and tuple(x0.shape) == (m, n)):
            raise AssertionError(f"X shape mismatch: got {_size(x0.shape)}, expected {(m, n)}")
        w = _Worker(xp, ab[i], None if bb is None else bb[i], x0.astype(npd), ik, n, k,
                    niter, tol, largest, method, ortho)
        e, v = w.run()
        Es.append(e)
        Xs.append(v)
    E = wrap(xp.stack(Es).reshape(batch + (k,)).astype(npd))
    U = wrap(xp.stack(Xs).reshape(batch + (m, k)).astype(npd))
    if grad:
        node = LOBPCGAutogradFunctionBackward()
        node.largest = largest
        node.has_B = B is not None
        node.is_complex = A.dtype.is_complex or (B is not None and B.dtype.is_complex)
        record((E, U), node, (A,) if B is None else (A, B), save=(A, E, U))
    return E, U


def _size(shape):
    from .._tensor import Size
    return Size(shape)
