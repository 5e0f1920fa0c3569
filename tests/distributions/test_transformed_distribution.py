"""TransformedDistribution against torch."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, compare_grads, errors_same

E, T = ember.distributions, torch.distributions
R = np.random.RandomState(0)


def _logistic(mod, lo, hi):
    D = mod.distributions
    base = D.Uniform(mod.tensor(lo), mod.tensor(hi))
    return D.TransformedDistribution(base, [D.SigmoidTransform().inv,
                                            D.AffineTransform(mod.tensor(0.5), mod.tensor(2.0))])


def test_logistic_values_samples_cdf():
    lo, hi = np.zeros(3), np.ones(3)
    de, dt = _logistic(ember, lo, hi), _logistic(torch, lo, hi)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape)
    assert repr(de.support) == repr(dt.support)
    x = R.randn(4, 3)
    assert_same(de.log_prob(ember.tensor(x)), dt.log_prob(torch.tensor(x)))
    assert_same(de.cdf(ember.tensor(x)), dt.cdf(torch.tensor(x)))
    u = R.rand(4, 3) * 0.9 + 0.05
    assert_same(de.icdf(ember.tensor(u)), dt.icdf(torch.tensor(u)))
    ember.manual_seed(1)
    torch.manual_seed(1)
    assert_same(de.sample((5,)), dt.sample((5,)))
    assert_same(de.rsample((5,)), dt.rsample((5,)))


def test_decreasing_transform_cdf():
    D = {m: m.distributions for m in (ember, torch)}
    out = []
    xs = R.randn(3)
    for m in (ember, torch):
        d = D[m].TransformedDistribution(D[m].Normal(m.zeros(3, dtype=m.float64), 1.0),
                                         D[m].AffineTransform(1.0, -2.0))
        x = m.tensor(xs)
        out.append((d.cdf(x), d.icdf(m.tensor([0.2, 0.5, 0.9], dtype=m.float64))))
    assert_same(list(out[0]), list(out[1]))


def test_event_dims_and_expand():
    loc, sc = R.randn(2, 3), R.rand(2, 3) + 0.5
    el, es = ember.tensor(loc, requires_grad=True), ember.tensor(sc, requires_grad=True)
    tl, ts = torch.tensor(loc, requires_grad=True), torch.tensor(sc, requires_grad=True)
    de = E.TransformedDistribution(E.Normal(el, es), [E.StickBreakingTransform()])
    dt = T.TransformedDistribution(T.Normal(tl, ts), [T.StickBreakingTransform()])
    assert tuple(de.event_shape) == tuple(dt.event_shape) == (4,)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape) == (2,)
    assert repr(de.support) == repr(dt.support)
    y = dt.sample((3,)).numpy()
    le, lt = de.log_prob(ember.tensor(y)), dt.log_prob(torch.tensor(y))
    assert_same(le, lt, rtol=1e-9)
    compare_grads(le, lt, [el, es], [tl, ts], rtol=1e-9)
    ee, te = de.expand((5, 2)), dt.expand((5, 2))
    assert tuple(ee.batch_shape) == tuple(te.batch_shape)
    assert tuple(ee.base_dist.batch_shape) == tuple(te.base_dist.batch_shape)
    # a reshape transform reinterprets base batch dims as event dims
    de = E.TransformedDistribution(E.Normal(ember.zeros(3, 4), 1.0),
                                   E.ReshapeTransform((4,), (2, 2)))
    dt = T.TransformedDistribution(T.Normal(torch.zeros(3, 4), 1.0),
                                   T.ReshapeTransform((4,), (2, 2)))
    assert tuple(de.event_shape) == tuple(dt.event_shape)
    assert type(de.base_dist).__name__ == type(dt.base_dist).__name__ == 'Independent'


def test_errors():
    for fe, ft in [
        (lambda: E.TransformedDistribution(E.Normal(0.0, 1.0), [1]),
         lambda: T.TransformedDistribution(T.Normal(0.0, 1.0), [1])),
        (lambda: E.TransformedDistribution(E.Normal(0.0, 1.0), 3),
         lambda: T.TransformedDistribution(T.Normal(0.0, 1.0), 3)),
        (lambda: E.TransformedDistribution(E.Normal(0.0, 1.0), E.StickBreakingTransform()),
         lambda: T.TransformedDistribution(T.Normal(0.0, 1.0), T.StickBreakingTransform())),
    ]:
        em, tm = errors_same(fe, ft)
        assert em == tm


def test_no_transforms():
    de = E.TransformedDistribution(E.Normal(ember.zeros(2), 1.0), [])
    assert de.support is E.constraints.real
    assert_same(de.log_prob(ember.zeros(2)),
                T.TransformedDistribution(T.Normal(torch.zeros(2), 1.0), []).log_prob(
                    torch.zeros(2)))
