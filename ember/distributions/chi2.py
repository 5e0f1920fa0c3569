"""The chi-squared distribution."""
from .gamma import Gamma
from . import constraints

__all__ = ["Chi2"]


class Chi2(Gamma):
    """A Chi-squared distribution with ``df`` degrees of freedom, i.e.
    ``Gamma(concentration=0.5 * df, rate=0.5)``.

    Args:
        df (float or Tensor): shape parameter of the distribution.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> import ember
        >>> Chi2(ember.tensor([1.0])).sample().shape
        torch.Size([1])
    """
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2
