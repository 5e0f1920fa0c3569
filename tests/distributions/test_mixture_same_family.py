"""ember.distributions.MixtureSameFamily against torch.distributions.MixtureSameFamily."""
import numpy as np
import pytest
import torch

import ember
from ._part2_util import check_sample_equal, errors_like_torch, same, compare_grads

ED, TD = ember.distributions, torch.distributions
rng = np.random.RandomState(2)


def _pair(kind, requires_grad=True):
    w = rng.rand(2, 3) + 0.1
    arrays = {"w": w}
    if kind == "normal":
        arrays.update(loc=rng.randn(2, 3), scale=rng.rand(2, 3) + 0.5)
    else:
        arrays.update(loc=rng.randn(2, 3, 2), cov=np.eye(2) * (rng.rand(2, 3, 1, 1) + 0.5))
    e = {k: ember.tensor(v, requires_grad=requires_grad) for k, v in arrays.items()}
    t = {k: torch.tensor(v, requires_grad=requires_grad) for k, v in arrays.items()}

    def make(D, p):
        if kind == "normal":
            comp = D.Normal(p["loc"], p["scale"])
        else:
            comp = D.MultivariateNormal(p["loc"], p["cov"])
        return D.MixtureSameFamily(D.Categorical(p["w"]), comp)
    return make(ED, e), make(TD, t), list(e.values()), list(t.values())


@pytest.mark.parametrize("kind", ["normal", "mvn"])
def test_values_and_grads(kind):
    ed, td, ep, tp = _pair(kind)
    assert tuple(ed.batch_shape) == tuple(td.batch_shape)
    assert tuple(ed.event_shape) == tuple(td.event_shape)
    assert repr(ed) == repr(td)
    for a in ("mean", "variance", "stddev"):
        same(getattr(ed, a), getattr(td, a), rtol=1e-9, atol=1e-10, path=a)
        compare_grads(getattr(ed, a), getattr(td, a), ep, tp, rtol=1e-9, atol=1e-10)
    x = rng.randn(5, 2) if kind == "normal" else rng.randn(5, 2, 2)
    e, t = ed.log_prob(ember.tensor(x)), td.log_prob(torch.tensor(x))
    same(e, t, rtol=1e-9, atol=1e-10, path="log_prob")
    compare_grads(e, t, ep, tp, rtol=1e-9, atol=1e-10)
    if kind == "normal":
        same(ed.cdf(ember.tensor(x)), td.cdf(torch.tensor(x)), rtol=1e-9, path="cdf")
    check_sample_equal(ed, td, shapes=((), (4,)), rtol=1e-12, atol=1e-12)
    ee, te = ed.expand((3, 2)), td.expand((3, 2))
    assert tuple(ee.batch_shape) == tuple(te.batch_shape)
    same(ee.log_prob(ember.tensor(x[:1])), te.log_prob(torch.tensor(x[:1])), rtol=1e-9)
    assert type(ed.support).__name__ == type(td.support).__name__


def test_broadcast_mixture():
    # one set of mixture weights for a batch of component sets
    loc, w = rng.randn(4, 3), rng.rand(3) + 0.1
    ed = ED.MixtureSameFamily(ED.Categorical(ember.tensor(w)),
                              ED.Normal(ember.tensor(loc), 1.0))
    td = TD.MixtureSameFamily(TD.Categorical(torch.tensor(w)),
                              TD.Normal(torch.tensor(loc), 1.0))
    same(ed.mean, td.mean)
    same(ed.variance, td.variance)
    same(ed.log_prob(ember.tensor(loc[:, 0])), td.log_prob(torch.tensor(loc[:, 0])))
    # sampling such a mixture fails in torch 2.13 (gather of mismatched ranks): alike
    errors_like_torch(lambda: ed.sample((2,)), lambda: td.sample((2,)),
                      "Index tensor must have the same number of dimensions")


def test_errors():
    errors_like_torch(
        lambda: ED.MixtureSameFamily(ED.Normal(0., 1.), ED.Normal(ember.zeros(3), 1.)),
        lambda: TD.MixtureSameFamily(TD.Normal(0., 1.), TD.Normal(torch.zeros(3), 1.)),
        "needs to be an  instance of torch.distributions.Categorical")
    errors_like_torch(
        lambda: ED.MixtureSameFamily(ED.Categorical(ember.ones(3)), "x"),
        lambda: TD.MixtureSameFamily(TD.Categorical(torch.ones(3)), "x"),
        "The Component distribution needs to be an instance")
    errors_like_torch(
        lambda: ED.MixtureSameFamily(ED.Categorical(ember.ones(3)),
                                     ED.Normal(ember.zeros(4), 1.)),
        lambda: TD.MixtureSameFamily(TD.Categorical(torch.ones(3)),
                                     TD.Normal(torch.zeros(4), 1.)),
        "does not equal `component_distribution.batch_shape[-1]`")
    errors_like_torch(
        lambda: ED.MixtureSameFamily(ED.Categorical(ember.ones(2, 3)),
                                     ED.Normal(ember.zeros(4, 3), 1.)),
        lambda: TD.MixtureSameFamily(TD.Categorical(torch.ones(2, 3)),
                                     TD.Normal(torch.zeros(4, 3), 1.)),
        "is not compatible with")
