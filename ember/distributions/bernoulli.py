"""The Bernoulli distribution."""
from numbers import Number
import math

import ember
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


def _bce_logits(logits, target):
    return ember.nn.functional.binary_cross_entropy_with_logits(logits, target,
                                                                reduction="none")


class Bernoulli(ExponentialFamily):
    r"""A Bernoulli distribution, given by :attr:`probs` or by :attr:`logits` (exactly
    one of them).

    A sample is ``1`` with probability ``p`` and ``0`` with probability ``1 - p``
    (in the parameter's floating dtype).

    Args:
        probs (Number, Tensor): the probability of drawing ``1``.
        logits (Number, Tensor): the log-odds of drawing ``1``.
        validate_args (bool, optional): check the arguments. Default: the class default.

    Example::

        >>> m = Bernoulli(ember.tensor([0.3]))
        >>> m.sample()  # 1 with probability 0.3
        tensor([0.])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
        else:
            scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = ember.Size() if scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = ember.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        p = self.probs
        m = (p >= 0.5).to(p)
        m[p == 0.5] = math.nan
        return m

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

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
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_logits(logits, value)

    def entropy(self):
        return _bce_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        vals = ember.arange(2, dtype=self._param.dtype, device=self._param.device)
        vals = vals.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            vals = vals.expand((-1,) + tuple(self._batch_shape))
        return vals

    @property
    def _natural_params(self):
        return (ember.logit(self.probs),)

    def _log_normalizer(self, x):
        return ember.log1p(ember.exp(x))
