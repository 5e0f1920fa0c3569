"""The LKJ distribution over Cholesky factors of correlation matrices."""
import math

import ember
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


def _mvlgamma(x, p):
    j = ember.arange(p, dtype=x.dtype, device=x.device).div(2)
    return (ember.lgamma(x.unsqueeze(-1) - j).sum(-1)
            + p * (p - 1) / 4 * math.log(math.pi))


class LKJCholesky(Distribution):
    r"""The LKJ distribution (Lewandowski, Kurowicka and Joe, 2009) over lower
    Cholesky factors ``L`` of ``dim x dim`` correlation matrices: the density of the
    correlation matrix ``M = L L^T`` is proportional to ``det(M)^(concentration - 1)``
    (``concentration = 1``: uniform over correlation matrices). Samples are drawn by the
    onion method.

    Args:
        dim (int): the matrix dimension (``>= 2``).
        concentration (float or Tensor): the shape parameter (``> 0``).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> l = LKJCholesky(3, 0.5)
        >>> l.sample().shape
        torch.Size([3, 3])
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = ember.Size((dim, dim))
        # the squared norms of the rows below the first are Beta draws (onion method)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype,
                              device=self.concentration.device)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=ember.Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u = ember.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                        device=y.device).tril(-1)
        u = u / u.norm(dim=-1, keepdim=True)
        u[..., 0, :].fill_(0.0)
        w = ember.sqrt(y) * u
        tiny = ember.finfo(w.dtype).tiny
        diag = ember.clamp(1 - ember.sum(w ** 2, dim=-1), min=tiny).sqrt()
        w += ember.diag_embed(diag)
        return w

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ember.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnorm = ember.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize = 0.5 * dm1 * math.log(math.pi) + _mvlgamma(alpha - 0.5, dm1) \
            - ember.lgamma(alpha) * dm1
        return unnorm - normalize
