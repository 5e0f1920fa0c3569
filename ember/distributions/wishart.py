"""The Wishart distribution."""
import math
import warnings
from numbers import Number

import ember
from . import constraints
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvlgamma(x, p):
    """The multivariate log-gamma function of dimension ``p`` (elementwise)."""
    j = ember.arange(p, dtype=x.dtype, device=x.device).div(2)
    return (ember.lgamma(x.unsqueeze(-1) - j).sum(-1)
            + p * (p - 1) / 4 * math.log(math.pi))


def _mvdigamma(x, p):
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    j = ember.arange(p, dtype=x.dtype, device=x.device).div(2)
    return ember.digamma(x.unsqueeze(-1) - j.expand(tuple(x.shape) + (-1,))).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=ember.finfo(x.dtype).eps)


def _cholesky_solve(b, L):
    """``(L L^T)^{-1} b`` for a Cholesky factor ``L``. Solved through ``L L^T`` so that,
    as with PyTorch's ``cholesky_solve``, the gradient w.r.t. ``L`` is the full matrix
    ``-(Y X^T + X Y^T) L`` (not only its lower triangle)."""
    return ember.linalg.solve(ember.matmul(L, L.mT), b)


class Wishart(ExponentialFamily):
    r"""A Wishart distribution over positive-definite ``p x p`` matrices, with degrees
    of freedom :attr:`df` and a scale given by exactly one of
    :attr:`covariance_matrix`, :attr:`precision_matrix` or :attr:`scale_tril`.

    Samples come from the Bartlett decomposition and are reparameterised (Chi2 draws
    by the reparameterised Gamma sampler, normal draws below the diagonal); after the
    same seed they equal PyTorch's.

    NOTE: unlike PyTorch 2.13, gradients flow through :meth:`rsample` of a batch of
    samples (PyTorch's backward fails there: the mask of its redraw step is modified in
    place after being saved).

    Args:
        df (float or Tensor): degrees of freedom, ``> p - 1``.
        covariance_matrix (Tensor): the scale matrix (positive definite).
        precision_matrix (Tensor): the inverse of the scale matrix.
        scale_tril (Tensor): the lower Cholesky factor of the scale matrix.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = Wishart(ember.tensor([2.]), covariance_matrix=ember.eye(2))
        >>> m.sample().shape
        torch.Size([1, 2, 2])
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + \
                (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril)
                     if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = ember.Size(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = ember.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        from .chi2 import Chi2
        L = self._unbroadcasted_scale_tril
        shift = ember.arange(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return Chi2(df=self.df.unsqueeze(-1) - shift.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = ember.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._event_shape = self._event_shape
        new._dist_chi2 = new._chi2(batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = ember.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return _cholesky_solve(eye, L).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (V.pow(2) + d.unsqueeze(-1) *
                                                          d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=ember.Size()):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1)
        i, j = ember.tril_indices(p, p, offset=-1)
        noise[..., i, j] = ember.randn(ember.Size(sample_shape) + self._batch_shape
                                       + (int(p * (p - 1) / 2),),
                                       dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=ember.Size(), max_try_correction=None):
        r"""A reparameterised sample (or ``sample_shape`` samples).

        The Bartlett decomposition can give singular matrices; such samples are drawn
        again, up to ``max_try_correction`` times (default 10), and may still be singular
        (``log_prob`` is then ``-inf``).

        NOTE: as PyTorch 2.13 does, the first draw's *valid* samples are the ones marked
        for redrawing (with the warning "Singular sample detected."), so that samples
        equal PyTorch's after the same seed.
        """
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        redo = self.support.check(sample)
        if self._batch_shape:
            redo = redo.amax(self._batch_dims)
        if redo.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                new = self._bartlett_sampling(redo[redo].shape)
                sample[redo] = new
                still = ~self.support.check(new)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                redo[redo.clone()] = still
                if not redo.any():
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (-nu * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - _mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet
                - _cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + _mvlgamma(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
                + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-ember.linalg.slogdet(-2 * x).logabsdet + _log_2 * p)
                + _mvlgamma(y + (p + 1) / 2, p))
