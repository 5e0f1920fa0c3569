"""The multivariate normal distribution."""
import math

import ember
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Batched matrix-vector product (``bmat`` and ``bvec`` broadcast over batch dims)."""
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _prod(t):
    p = 1
    for s in t:
        p *= s
    return p


def _batch_mahalanobis(bL, bx):
    """Squared Mahalanobis distances ``|L^{-1} x|^2`` for lower-triangular ``bL``
    (``... x n x n``) and vectors ``bx`` (``... x n``), whose trailing batch dims
    broadcast with ``bL``'s. ``bL`` is not expanded over ``bx``'s extra leading dims: they
    become extra right-hand sides of one triangular solve per matrix."""
    n = bx.size(-1)
    k = bL.dim() - 2
    xb = tuple(bx.shape[:-1])
    if len(xb) < k:
        bx = bx.expand(tuple(bL.shape[:-2])[:k - len(xb)] + tuple(bx.shape))
        xb = tuple(bx.shape[:-1])
    outer, inner = xb[:len(xb) - k], xb[len(xb) - k:]
    lb = tuple(ember.broadcast_shapes(tuple(bL.shape[:-2]), inner))
    if lb != tuple(bL.shape[:-2]):
        bL = bL.expand(lb + (n, n))
    if lb != inner:
        bx = bx.expand(outer + lb + (n,))
    no, ni = len(outer), len(lb)
    # (outer, inner, n) -> (inner, n, outer): one solve per matrix, outer as columns
    perm = list(range(no, no + ni)) + [no + ni] + list(range(no))
    rhs = bx.permute(perm).reshape(_prod(lb), n, _prod(outer))
    sol = ember.linalg.solve_triangular(bL.reshape(-1, n, n), rhs, upper=False)
    m = sol.pow(2).sum(-2)                                  # (inner, outer)
    m = m.reshape(lb + outer)
    back = list(range(ni, ni + no)) + list(range(ni))
    return m.permute(back) if back != list(range(len(back))) else m


def _precision_to_scale_tril(P):
    # the lower Cholesky factor of P^{-1}, from the Cholesky factor of P with its rows and
    # columns reversed (so no explicit inverse of P is formed)
    Lf = ember.linalg.cholesky(ember.flip(P, (-2, -1)))
    L_inv = ember.transpose(ember.flip(Lf, (-2, -1)), -2, -1)
    eye = ember.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return ember.linalg.solve_triangular(L_inv, eye, upper=False)


def _cholesky_inverse(L):
    """``(L L^T)^{-1}`` from a Cholesky factor ``L`` (inverted through ``L L^T``, so the
    gradient w.r.t. ``L`` is the full matrix, as PyTorch's ``cholesky_inverse`` gives)."""
    return ember.linalg.inv(ember.matmul(L, L.mT))


class MultivariateNormal(Distribution):
    r"""A multivariate normal (Gaussian) distribution with mean :attr:`loc` and a
    covariance given by exactly one of :attr:`covariance_matrix` (positive definite),
    :attr:`precision_matrix` (its inverse) or :attr:`scale_tril` (the lower-triangular
    Cholesky factor of the covariance, with positive diagonal). ``scale_tril`` is the
    cheapest; the others are factorised by Cholesky.

    Args:
        loc (Tensor): the mean (``... x n``).
        covariance_matrix (Tensor): the covariance (``... x n x n``).
        precision_matrix (Tensor): the precision (``... x n x n``).
        scale_tril (Tensor): the lower Cholesky factor of the covariance.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = MultivariateNormal(ember.zeros(2), ember.eye(2))
        >>> m.sample()
        tensor([-0.2102, -0.5429])
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + \
                (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = ember.broadcast_shapes(scale_tril.shape[:-2], loc.shape[:-1])
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = ember.broadcast_shapes(covariance_matrix.shape[:-2], loc.shape[:-1])
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = ember.broadcast_shapes(precision_matrix.shape[:-2], loc.shape[:-1])
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = ember.Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return ember.matmul(L, L.mT).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        return _cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._full())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
