"""The binomial distribution."""
import ember
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    r"""A binomial distribution: the number of successes in :attr:`total_count`
    independent trials, each succeeding with probability :attr:`probs` (or log-odds
    :attr:`logits`; exactly one of them). :attr:`total_count` broadcasts with the
    probabilities.

    NOTE: unlike PyTorch, :meth:`sample` draws in Python, one rejection sampler call per
    element (the same values as PyTorch after the same seed, but slower for large
    batches).

    Args:
        total_count (int or Tensor): the number of trials.
        probs (Tensor): the probability of success of each trial.
        logits (Tensor): the log-odds of success.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = Binomial(100, ember.tensor([0., .2, .8, 1.]))
        >>> m.sample()
        tensor([  0.,  22.,  71., 100.])
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        lgn = ember.lgamma(n + 1)
        lgk = ember.lgamma(value + 1)
        lgnk = ember.lgamma(n - value + 1)
        lg = self.logits
        # n * log(1 + exp(logits)), written to stay finite for large |logits|
        norm = n * _clamp_by_zero(lg) + n * ember.log1p(ember.exp(-ember.abs(lg))) - lgn
        return value * lg - lgk - lgnk - norm

    def _homogeneous_count(self, what):
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def entropy(self):
        self._homogeneous_count("entropy")
        lp = self.log_prob(self.enumerate_support(False))
        return -(ember.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        n = self._homogeneous_count("enumerate_support")
        vals = ember.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        vals = vals.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            vals = vals.expand((-1,) + tuple(self._batch_shape))
        return vals
