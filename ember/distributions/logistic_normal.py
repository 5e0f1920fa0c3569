"""The logistic-normal distribution."""
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """A logistic-normal distribution: ``StickBreakingTransform()(X)`` for
    ``X ~ Normal(loc, scale)`` (the event is a point of the simplex).

    Args:
        loc (float or Tensor): mean of the base distribution.
        scale (float or Tensor): standard deviation of the base distribution.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> import ember
        >>> LogisticNormal(ember.zeros(3), ember.ones(3)).sample().shape
        torch.Size([4])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
