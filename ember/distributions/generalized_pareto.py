"""The generalized Pareto distribution."""
import math
from numbers import Number, Real

import ember
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """A generalized Pareto distribution parameterized by ``loc``, ``scale`` and
    ``concentration`` (support ``[loc, inf)`` for ``concentration >= 0``, else
    ``[loc, loc - scale / concentration]``).

    Args:
        loc (float or Tensor): location parameter.
        scale (float or Tensor): scale parameter.
        concentration (float or Tensor): shape parameter.
        validate_args (bool, optional): check the arguments.

    NOTE: unlike PyTorch 2.13, whose ``log_prob``/``cdf`` raise "Double did not match
    Float" for float64 parameters (it compares with a float32 zero), ember computes them.

    Example::

        >>> GeneralizedPareto(ember.tensor([0.0]), 1.0, 0.5).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if isinstance(loc, Number) and isinstance(scale, Number) and \
                isinstance(concentration, Number):
            batch_shape = ember.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = ember.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _safe(self):
        c = self.concentration
        eq0 = ember.isclose(c, ember.tensor(0.0))
        return eq0, ember.where(eq0, ember.ones_like(c), c)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq0, safe = self._safe()
        y = 1 / safe + ember.ones_like(z)
        nonzero = ember.where(y == 0, y, y * ember.log1p(safe * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - ember.where(eq0, z, nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq0, safe = self._safe()
        return ember.where(eq0, -z, -ember.log1p(safe * z) / safe)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        c = self.concentration
        eq0 = ember.isclose(c, ember.zeros_like(c))
        safe = ember.where(eq0, ember.ones_like(c), c)
        logu = ember.log1p(-value)
        nonzero = self.loc + self.scale / safe * ember.expm1(-safe * logu)
        return ember.where(eq0, self.loc - self.scale * logu, nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        c = self.concentration
        valid = c < 1
        safe = ember.where(valid, c, 0.5)
        return ember.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        c = self.concentration
        valid = c < 0.5
        safe = ember.where(valid, c, 0.25)
        res = self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return ember.where(valid, res, math.nan)

    def entropy(self):
        return ember.broadcast_to(ember.log(self.scale) + self.concentration + 1,
                                  self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ember.where(self.concentration < 0, lower - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(lower, upper)
