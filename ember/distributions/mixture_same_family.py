"""Mixtures whose components all come from one distribution family."""
import ember
from . import constraints
from .categorical import Categorical
from .constraints import MixtureSameFamilyConstraint
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    r"""A mixture distribution: a :class:`Categorical` :attr:`mixture_distribution`
    picks one of the ``k`` components of :attr:`component_distribution` (a batched
    distribution whose rightmost batch dimension indexes the components).

    Args:
        mixture_distribution (Categorical): the mixing weights, batch shape matching
            ``component_distribution.batch_shape[:-1]``.
        component_distribution (Distribution): the components, rightmost batch
            dimension of size ``k``.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> mix = Categorical(ember.ones(5))
        >>> comp = Normal(ember.randn(5), ember.rand(5))
        >>> gmm = MixtureSameFamily(mix, comp)
        >>> gmm.batch_shape, gmm.event_shape
        (torch.Size([]), torch.Size([]))
    """
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for s1, s2 in zip(reversed(mdbs), reversed(cdbs)):
            if s1 != 1 and s2 != 1 and s1 != s2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km is not None and kc is not None and km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = ember.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(
            batch_shape=batch_shape, event_shape=new._component_distribution.event_shape,
            validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return ember.sum(probs * self.component_distribution.mean,
                         dim=-1 - self._event_ndims)

    @property
    def variance(self):
        # law of total variance: E[Var(X|k)] + Var(E[X|k])
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        d = -1 - self._event_ndims
        mean_cond_var = ember.sum(probs * self.component_distribution.variance, dim=d)
        var_cond_mean = ember.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=d)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        x = self._pad(x)
        cdf_x = self.component_distribution.cdf(x)
        return ember.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self.component_distribution.log_prob(x)
        log_mix = ember.log_softmax(self.mixture_distribution.logits, dim=-1)
        return ember.logsumexp(log_prob_x + log_mix, dim=-1)

    def sample(self, sample_shape=ember.Size()):
        with ember.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = self.event_shape
            mix = self.mixture_distribution.sample(sample_shape)
            ms = mix.shape
            comp = self.component_distribution.sample(sample_shape)
            idx = mix.reshape(ms + ember.Size([1] * (len(es) + 1)))
            idx = idx.repeat(ember.Size([1] * len(ms)) + ember.Size([1]) + es)
            return ember.gather(comp, gather_dim, idx).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_nd = len(self.batch_shape)
        cat_nd = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_nd == 1 else dist_nd - cat_nd
        xs = x.shape
        return x.reshape(xs[:-1] + ember.Size(pad * [1]) + xs[-1:]
                         + ember.Size(self._event_ndims * [1]))

    def __repr__(self):
        return ("MixtureSameFamily(\n  " + repr(self.mixture_distribution) + ",\n  "
                + repr(self.component_distribution) + ")")
