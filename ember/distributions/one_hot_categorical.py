"""One-hot categorical distributions."""
import ember
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    r"""A categorical distribution whose samples are one-hot vectors of size
    ``K = probs.size(-1)``, given by :attr:`probs` or :attr:`logits` (normalised over
    the last dimension as :class:`Categorical` does).

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments.

    Example::

        >>> m = OneHotCategorical(ember.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample()
        tensor([0., 0., 0., 1.])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = ember.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        p = self._categorical.probs
        return ember.nn.functional.one_hot(p.argmax(dim=-1), num_classes=p.shape[-1]).to(p)

    @property
    def variance(self):
        p = self._categorical.probs
        return p * (1 - p)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=ember.Size()):
        sample_shape = ember.Size(sample_shape)
        p = self._categorical.probs
        idx = self._categorical.sample(sample_shape)
        return ember.nn.functional.one_hot(idx, self._categorical._num_events).to(p)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        vals = ember.eye(n, dtype=self._param.dtype, device=self._param.device)
        vals = vals.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            vals = vals.expand((n,) + tuple(self.batch_shape) + (n,))
        return vals


class OneHotCategoricalStraightThrough(OneHotCategorical):
    r"""A :class:`OneHotCategorical` with a straight-through gradient estimator
    (Bengio et al., 2013): :meth:`rsample` returns the one-hot sample in the forward
    pass, with the gradient of :attr:`probs` in the backward pass.

    Example::

        >>> p = ember.tensor([0.2, 0.8], requires_grad=True)
        >>> OneHotCategoricalStraightThrough(p).rsample().requires_grad
        True
    """
    has_rsample = True

    def rsample(self, sample_shape=ember.Size()):
        s = self.sample(sample_shape)
        p = self._categorical.probs
        return s + (p - p.detach())
