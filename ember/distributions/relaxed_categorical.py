"""Relaxed (continuous) one-hot categorical distributions (the Concrete distribution)."""
import ember
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    r"""The log of a :class:`RelaxedOneHotCategorical` sample (the ExpConcrete
    distribution of Maddison et al., 2017), given by :attr:`temperature` and
    :attr:`probs` or :attr:`logits`. Samples are reparameterised log-probability
    vectors (``logsumexp`` of a sample is 0).

    Args:
        temperature (Tensor): the relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = ExpRelaxedCategorical(ember.tensor(0.5), ember.tensor([0.2, 0.8]))
        >>> m.rsample().exp().sum()
        tensor(1.)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = ember.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape,
                                                   validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=ember.Size()):
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(ember.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (ember.full_like(self.temperature, float(K)).lgamma()
                     - self.temperature.log().mul(-(K - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    r"""A relaxed one-hot categorical distribution on the simplex (the Concrete /
    Gumbel-softmax distribution): the exponential of an :class:`ExpRelaxedCategorical`.
    Samples are reparameterised; low temperatures push them towards one-hot vectors.

    Args:
        temperature (Tensor): the relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = RelaxedOneHotCategorical(ember.tensor([2.2]),
        ...                              ember.tensor([0.1, 0.2, 0.3, 0.4]))
        >>> m.sample().shape
        torch.Size([4])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
