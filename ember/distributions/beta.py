"""The Beta distribution."""
from numbers import Number

import ember
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution parameterized by ``concentration1`` and ``concentration0``
    (a two-component :class:`Dirichlet` seen through its first component).

    Args:
        concentration1 (float or Tensor): 1st concentration parameter (alpha).
        concentration0 (float or Tensor): 2nd concentration parameter (beta).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> Beta(ember.tensor([0.5]), ember.tensor([0.5])).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Number) and isinstance(concentration0, Number):
            c10 = ember.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            c10 = ember.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(c10, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = ember.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(ember.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        r = self._dirichlet.concentration[..., 0]
        return ember.tensor([r]) if isinstance(r, Number) else r

    @property
    def concentration0(self):
        r = self._dirichlet.concentration[..., 1]
        return ember.tensor([r]) if isinstance(r, Number) else r

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return ember.lgamma(x) + ember.lgamma(y) - ember.lgamma(x + y)
