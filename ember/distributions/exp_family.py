"""Base class of exponential-family distributions."""
import ember
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of distributions of the exponential family,
    ``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))`` with sufficient statistic
    ``t``, natural parameters ``theta``, log normalizer ``F`` and carrier measure ``k``.

    A subclass gives ``_natural_params``, ``_log_normalizer`` and
    ``_mean_carrier_measure``; then :meth:`entropy` and the KL divergence between two
    members of the same family come from the Bregman divergence of ``F``.

    Example::

        >>> from ember.distributions import Normal
        >>> d = Normal(ember.tensor([0.0]), ember.tensor([2.0]))
        >>> ExponentialFamily.entropy(d)      # the same as d.entropy()
        tensor([2.1121], grad_fn=<SubBackward0>)
    """

    @property
    def _natural_params(self):
        """Tuple of the natural parameters."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer ``F`` at ``natural_params``."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """The expected carrier measure ``E[k(x)]``."""
        raise NotImplementedError

    def entropy(self):
        """Entropy from the Bregman divergence of the log normalizer."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg = self._log_normalizer(*nparams)
        grads = ember.autograd.grad(lg.sum(), nparams, create_graph=True)
        result = result + lg
        for p, g in zip(nparams, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
