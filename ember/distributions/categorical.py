"""The categorical distribution."""
import math

import ember
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    r"""A categorical distribution over ``{0, ..., K-1}`` (``K = probs.size(-1)``),
    given by :attr:`probs` or :attr:`logits` (exactly one of them); the same
    distribution :func:`ember.multinomial` draws from.

    ``probs`` (non-negative, finite, non-zero sum) is normalised to sum to 1 over the
    last dimension; ``logits`` are unnormalised log-probabilities, normalised likewise.
    Leading dimensions are batch dimensions.

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = Categorical(ember.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample()  # 0, 1, 2 or 3 with equal probability
        tensor(3)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else ember.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = ember.Size(batch_shape)
        pshape = batch_shape + ember.Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(pshape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(pshape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return ember.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                          device=self.probs.device)

    def sample(self, sample_shape=ember.Size()):
        if not isinstance(sample_shape, ember.Size):
            sample_shape = ember.Size(sample_shape)
        p2 = self.probs.reshape(-1, self._num_events)
        s2 = ember.multinomial(p2, sample_shape.numel(), True).T
        return s2.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = ember.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        lg = ember.clamp(self.logits, min=ember.finfo(self.logits.dtype).min)
        return -(lg * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        k = self._num_events
        vals = ember.arange(k, dtype=ember.long, device=self._param.device)
        vals = vals.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            vals = vals.expand((-1,) + tuple(self._batch_shape))
        return vals
