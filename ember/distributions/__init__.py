"""ember.distributions: parameterizable probability distributions and sampling
functions, with the names and behaviour of ``torch.distributions``.

Reparameterized sampling (``rsample``) lets gradients flow through samples
(pathwise derivative); ``log_prob`` gives score-function (REINFORCE) estimators.

Example::

    >>> m = ember.distributions.Normal(ember.tensor([0.0]), ember.tensor([1.0]))
    >>> m.log_prob(ember.tensor([0.0]))
    tensor([-0.9189])
"""
from . import constraints, transforms
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .transforms import *  # noqa: F401,F403
from .constraint_registry import biject_to, transform_to
from .kl import kl_divergence, register_kl
from .transformed_distribution import TransformedDistribution
from .independent import Independent
from .normal import Normal
from .uniform import Uniform
from .exponential import Exponential
from .laplace import Laplace
from .cauchy import Cauchy
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .log_normal import LogNormal
from .gumbel import Gumbel
from .gamma import Gamma
from .chi2 import Chi2
from .beta import Beta
from .studentT import StudentT
from .pareto import Pareto
from .weibull import Weibull
from .kumaraswamy import Kumaraswamy
from .von_mises import VonMises
from .continuous_bernoulli import ContinuousBernoulli
from .fishersnedecor import FisherSnedecor
from .logistic_normal import LogisticNormal
from .inverse_gamma import InverseGamma
from .generalized_pareto import GeneralizedPareto

# --- part 2 ---
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .geometric import Geometric
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .negative_binomial import NegativeBinomial
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .wishart import Wishart
from .lkj_cholesky import LKJCholesky
from . import _kl_part2  # noqa: F401  (registers the KL pairs of these distributions)
# --- end part 2 ---

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor",
    "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal",
    "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial",
    "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform", "VonMises", "Weibull",
    "Wishart", "TransformedDistribution", "biject_to", "kl_divergence", "register_kl",
    "transform_to",
]
__all__.extend(transforms.__all__)
__all__ = [n for n in __all__ if n in globals()]  # part 2's names once its block fills in
