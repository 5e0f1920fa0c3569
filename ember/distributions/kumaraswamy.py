"""The Kumaraswamy distribution."""
import math

import ember
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """The ``n``-th moment of Kumaraswamy(a, b): ``b * B(1 + n / a, b)``."""
    arg1 = 1 + n / a
    log_value = ember.lgamma(arg1) + ember.lgamma(b) - ember.lgamma(arg1 + b)
    return b * ember.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Samples from a Kumaraswamy distribution:
    ``(1 - U ** (1 / concentration0)) ** (1 / concentration1)``.

    Args:
        concentration1 (float or Tensor): 1st concentration parameter (alpha).
        concentration0 (float or Tensor): 2nd concentration parameter (beta).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> Kumaraswamy(ember.tensor([1.0]), ember.tensor([1.0])).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(ember.full_like(self.concentration0, 0),
                       ember.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        c0, c1 = self.concentration0, self.concentration1
        log_mode = c0.reciprocal() * (-c0).log1p() - (-c0 * c1).log1p()
        log_mode[(c0 < 1) | (c1 < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        return (_moments(self.concentration1, self.concentration0, 2)
                - ember.pow(self.mean, 2))

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = ember.digamma(self.concentration0 + 1) + euler_constant
        return (t0 + t1 * H0 - ember.log(self.concentration1)
                - ember.log(self.concentration0))
