"""KL divergences registered for the discrete and multivariate distributions (every pair
PyTorch registers that involves one of them). Imported by ``ember.distributions``."""
import math

import ember
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .geometric import Geometric
from .kl import register_kl
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson

__all__ = []


def _inf_like(t):
    return ember.full_like(t, math.inf)


def _trace_XXT(bmat):
    """``trace(X X^T)`` of a batch of matrices (the sum of squares of each)."""
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(bmat.shape[:-2])


def _log_diag_sum(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    sp = ember.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (sp(q.logits) - sp(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # only defined for equal total counts; p.total_count > q.total_count gives inf
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    bigger = p.total_count > q.total_count
    kl[bigger] = _inf_like(kl[bigger])
    return kl


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sp, sq = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sp.lgamma() - sq.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sp.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


def _same_event(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with" + " " * 26
                         + "different event shapes cannot be computed")


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _same_event(p, q, "Low Rank Multivariate Normals")
    qW, qD, qC = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = _batch_lowrank_logdet(qW, qD, qC) - _batch_lowrank_logdet(pW, pD,
                                                                      p._capacitance_tril)
    term3 = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, qC)
    # trace(Sigma_q^{-1} Sigma_p) by Woodbury, split into four sums of squares
    A = ember.linalg.solve_triangular(qC, qW.mT / qD.unsqueeze(-2), upper=False)
    term21 = (pD / qD).sum(-1)
    term22 = _trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
    term23 = _trace_XXT(A * pD.sqrt().unsqueeze(-2))
    term24 = _trace_XXT(A.matmul(pW))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    qW, qD, qC = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril
    pL = p._unbroadcasted_scale_tril
    term1 = _batch_lowrank_logdet(qW, qD, qC) - 2 * _log_diag_sum(pL)
    term3 = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, qC)
    A = ember.linalg.solve_triangular(qC, qW.mT / qD.unsqueeze(-2), upper=False)
    term21 = _trace_XXT(pL * qD.rsqrt().unsqueeze(-1))
    term22 = _trace_XXT(A.matmul(pL))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    qL = q._unbroadcasted_scale_tril
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * _log_diag_sum(qL) - _batch_lowrank_logdet(pW, pD, p._capacitance_tril)
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    batch = tuple(ember.broadcast_shapes(qL.shape[:-2], pW.shape[:-2]))
    n = p.event_shape[0]
    qLb = qL.expand(batch + (n, n))
    pWb = pW.expand(batch + (n, p.cov_factor.size(-1)))
    pDb = ember.diag_embed(pD.sqrt()).expand(batch + (n, n))
    term21 = _trace_XXT(ember.linalg.solve_triangular(qLb, pWb, upper=False))
    term22 = _trace_XXT(ember.linalg.solve_triangular(qLb, pDb, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    _same_event(p, q, "Multivariate Normals")
    qL, pL = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    half_term1 = _log_diag_sum(qL) - _log_diag_sum(pL)
    batch = tuple(ember.broadcast_shapes(qL.shape[:-2], pL.shape[:-2]))
    n = p.event_shape[0]
    term2 = _trace_XXT(ember.linalg.solve_triangular(qL.expand(batch + (n, n)),
                                                     pL.expand(batch + (n, n)), upper=False))
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _inf_like(p.rate)
