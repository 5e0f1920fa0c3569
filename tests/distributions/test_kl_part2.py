"""kl_divergence of every pair torch registers that involves a part-2 distribution."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ._part2_util import compare_grads, errors_like_torch, same

ED, TD = ember.distributions, torch.distributions
rng = np.random.RandomState(4)
P1 = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
P2 = np.array([[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]])
A = rng.randn(2, 3, 3)
COV = A @ A.transpose(0, 2, 1) + np.eye(3)
B = rng.randn(3, 3)
COV2 = B @ B.T + np.eye(3)
LOC, LOC2 = rng.randn(2, 3), rng.randn(3)
W, D = rng.randn(2, 3, 2), rng.rand(2, 3) + 0.5
W2, D2 = rng.randn(3, 1), rng.rand(3) + 0.5


def _mk(D_, m, spec, rg):
    name, args = spec
    ts = [m.tensor(a, requires_grad=rg) if isinstance(a, np.ndarray) else a for a in args]
    return getattr(D_, name)(*ts), [t for t in ts if hasattr(t, "requires_grad")
                                    and t.requires_grad]


PAIRS = {
    "bernoulli": (("Bernoulli", (P1,)), ("Bernoulli", (P2,))),
    "binomial": (("Binomial", (5, P1)), ("Binomial", (5, P2))),
    "categorical": (("Categorical", (P1,)), ("Categorical", (P2,))),
    "onehot": (("OneHotCategorical", (P1,)), ("OneHotCategorical", (P2,))),
    "geometric": (("Geometric", (P1,)), ("Geometric", (P2,))),
    "poisson": (("Poisson", (P1 * 3,)), ("Poisson", (P2 * 2,))),
    "dirichlet": (("Dirichlet", (P1 * 3,)), ("Dirichlet", (P2 * 2,))),
    "bernoulli_poisson": (("Bernoulli", (P1,)), ("Poisson", (P2 * 2,))),
    "mvn_mvn": (("MultivariateNormal", (LOC, COV)), ("MultivariateNormal", (LOC2, COV2))),
    "mvn_lowrank": (("MultivariateNormal", (LOC, COV)),
                    ("LowRankMultivariateNormal", (LOC2, W2, D2))),
    "lowrank_mvn": (("LowRankMultivariateNormal", (LOC, W, D)),
                    ("MultivariateNormal", (LOC2, COV2))),
    "lowrank_lowrank": (("LowRankMultivariateNormal", (LOC, W, D)),
                        ("LowRankMultivariateNormal", (LOC2, W2, D2))),
    "wishart": (("Wishart", (np.array([4.0, 5.0]), COV)), ("Wishart", (np.array(6.0), COV2))),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_kl_pair(pair, dtype):
    sp, sq = PAIRS[pair]
    cast = lambda spec: (spec[0], tuple(a.astype(dtype) if isinstance(a, np.ndarray) else a
                                        for a in spec[1]))
    sp, sq = cast(sp), cast(sq)
    ep, el1 = _mk(ED, ember, sp, True)
    eq, el2 = _mk(ED, ember, sq, True)
    tp, tl1 = _mk(TD, torch, sp, True)
    tq, tl2 = _mk(TD, torch, sq, True)
    tol = dict(rtol=2e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-8, atol=1e-9)
    e, t = ED.kl_divergence(ep, eq), TD.kl_divergence(tp, tq)
    same(e, t, path="kl", **tol)
    compare_grads(e, t, el1 + el2, tl1 + tl2, **tol)


def test_infinite_and_degenerate_cases():
    for p, q in [(("Poisson", (P1,)), ("Bernoulli", (P2,))),
                 (("Poisson", (P1,)), ("Binomial", (5, P2))),
                 (("Bernoulli", (np.array([0., 1., 0.5]),)), ("Bernoulli", (np.array([0.5, 1., 0.]),))),
                 (("Categorical", (np.array([[0.5, 0.5, 0.]]),)),
                  ("Categorical", (np.array([[0.5, 0., 0.5]]),))),
                 (("Binomial", (np.array([5., 6.]), np.array([0.3, 0.4]))),
                  ("Binomial", (np.array([5., 3.]), np.array([0.5, 0.4]))))]:
        e = ED.kl_divergence(_mk(ED, ember, p, False)[0], _mk(ED, ember, q, False)[0])
        t = TD.kl_divergence(_mk(TD, torch, p, False)[0], _mk(TD, torch, q, False)[0])
        same(e, t, path=f"kl {p[0]} {q[0]}")


def test_errors():
    errors_like_torch(
        lambda: ED.kl_divergence(ED.Binomial(3, ember.tensor(0.3)),
                                 ED.Binomial(5, ember.tensor(0.3))),
        lambda: TD.kl_divergence(TD.Binomial(3, torch.tensor(0.3)),
                                 TD.Binomial(5, torch.tensor(0.3))),
        "q.total_count > p.total_count is not implemented")
    for a, b in [("MultivariateNormal", "MultivariateNormal"),
                 ("MultivariateNormal", "LowRankMultivariateNormal"),
                 ("LowRankMultivariateNormal", "MultivariateNormal"),
                 ("LowRankMultivariateNormal", "LowRankMultivariateNormal")]:
        def mk(D_, m, name, n):
            if name == "MultivariateNormal":
                return getattr(D_, name)(m.zeros(n), m.eye(n))
            return getattr(D_, name)(m.zeros(n), m.ones(n, 1), m.ones(n))
        errors_like_torch(lambda: ED.kl_divergence(mk(ED, ember, a, 2), mk(ED, ember, b, 3)),
                          lambda: TD.kl_divergence(mk(TD, torch, a, 2), mk(TD, torch, b, 3)),
                          "different event shapes cannot be computed")
    errors_like_torch(
        lambda: ED.kl_divergence(ED.Dirichlet(ember.ones(3)), ED.Categorical(ember.ones(3))),
        lambda: TD.kl_divergence(TD.Dirichlet(torch.ones(3)), TD.Categorical(torch.ones(3))),
        "No KL(p || q) is implemented")
