"""The abstract base class of every probability distribution."""
import warnings

import ember
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _size(shape):
    return shape if isinstance(shape, ember.Size) else ember.Size(shape)


class Distribution:
    """Distribution is the abstract base class for probability distributions.

    Args:
        batch_shape (ember.Size): the shape over which parameters are batched.
        event_shape (ember.Size): the shape of a single sample (without batching).
        validate_args (bool, optional): check parameters (and values given to
            ``log_prob``/``cdf``/``icdf``) against their constraints.  Default: the
            class default, set with :meth:`set_default_validate_args` (``__debug__``).

    Example::

        >>> d = ember.distributions.Normal(ember.zeros(3), 1.0)
        >>> d.batch_shape, d.event_shape
        (torch.Size([3]), torch.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off by default (on unless ``python -O``).

        Args:
            value (bool): whether to validate.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=ember.Size(), event_shape=ember.Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    "Please set `arg_constraints = {}` or initialize the distribution "
                    "with `validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution (or ``_instance``, filled in) whose parameters are
        expanded to ``batch_shape`` (views, no copies; no new argument checks).

        Args:
            batch_shape (ember.Size): the desired batch shape.
            _instance: an instance supplied by a subclass's ``expand``.
        """
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """Dict from parameter name to the :class:`Constraint` it must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The :class:`Constraint` describing the distribution's support."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=ember.Size()):
        """Draw a sample (or a batch of ``sample_shape`` samples), without gradient."""
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=ember.Size()):
        """Draw a reparameterized sample (gradients flow to the parameters)."""
        raise NotImplementedError

    def sample_n(self, n):
        """Draw ``n`` samples (deprecated: use ``sample((n,))``)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(ember.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density/mass at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete support, along a new leading dim.

        Args:
            expand (bool): expand over the batch dims to ``batch_shape``.
        """
        raise NotImplementedError

    def entropy(self):
        """The entropy, a tensor of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``, a tensor of shape ``batch_shape``."""
        return ember.exp(self.entropy())

    def _extended_shape(self, sample_shape=ember.Size()):
        return ember.Size(tuple(_size(sample_shape)) + tuple(self._batch_shape)
                          + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = len(value.size()) - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                "sample validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not bool(support.check(value).all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return type(self).__name__ + "(" + ", ".join(parts) + ")"
