"""The inverse-Gamma distribution."""
import math

import ember
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """An inverse-Gamma distribution: ``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Args:
        concentration (float or Tensor): shape parameter (alpha).
        rate (float or Tensor): scale parameter (beta).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> InverseGamma(ember.tensor([2.0]), ember.tensor([3.0])).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        res = self.rate / (self.concentration - 1)
        return ember.where(self.concentration > 1, res, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        res = self.rate.square() / ((c - 1).square() * (c - 2))
        return ember.where(c > 2, res, math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
