"""The multinomial distribution."""
import math

import ember
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    r"""A multinomial distribution: the counts of each of ``K`` categories in
    :attr:`total_count` independent categorical draws, given by :attr:`probs` or
    :attr:`logits` (normalised over the last dimension as :class:`Categorical` does).

    :meth:`sample` needs a single integer :attr:`total_count`; :meth:`log_prob` works
    for any counts (it does not check that they sum to :attr:`total_count`).

    Args:
        total_count (int): the number of draws.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = Multinomial(100, ember.tensor([1., 1., 1., 1.]))
        >>> m.sample()
        tensor([21., 24., 30., 25.])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = ember.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        draws = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
        # the draws' leading dim moves last, then is counted per category
        order = list(range(1, draws.dim())) + [0]
        draws = draws.permute(*order)
        counts = draws.new_zeros(self._extended_shape(sample_shape))
        counts.scatter_add_(-1, draws, ember.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = ember.tensor(self.total_count)
        t1 = n * self._categorical.entropy() - ember.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        bp = ember.exp(self._binomial.log_prob(support))
        t2 = (bp * ember.lgamma(support + 1)).sum([0, -1])
        return t1 + t2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=ember.contiguous_format)
        lfn = ember.lgamma(value.sum(-1) + 1)
        lfx = ember.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        return lfn - lfx + (logits * value).sum(-1)
