"""Independent against torch."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, compare_grads, errors_same

E, T = ember.distributions, torch.distributions
R = np.random.RandomState(0)


@pytest.mark.parametrize('n', [0, 1, 2])
def test_values(n):
    loc, sc = R.randn(2, 3, 4), R.rand(2, 3, 4) + 0.5
    el, es = ember.tensor(loc, requires_grad=True), ember.tensor(sc, requires_grad=True)
    tl, ts = torch.tensor(loc, requires_grad=True), torch.tensor(sc, requires_grad=True)
    de, dt = E.Independent(E.Normal(el, es), n), T.Independent(T.Normal(tl, ts), n)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape)
    assert tuple(de.event_shape) == tuple(dt.event_shape)
    assert repr(de) == repr(dt)
    assert repr(de.support) == repr(dt.support)
    assert de.has_rsample and de.has_enumerate_support == dt.has_enumerate_support
    x = R.randn(5, 2, 3, 4)
    le, lt = de.log_prob(ember.tensor(x)), dt.log_prob(torch.tensor(x))
    assert_same(le, lt)
    compare_grads(le, lt, [el, es], [tl, ts])
    assert_same(de.entropy(), dt.entropy())
    assert_same(de.mean, dt.mean)
    assert_same(de.variance, dt.variance)
    assert_same(de.mode, dt.mode)
    ember.manual_seed(0)
    torch.manual_seed(0)
    assert_same(de.rsample((2,)), dt.rsample((2,)))
    ee, te = de.expand((6,) + tuple(dt.batch_shape)), dt.expand((6,) + tuple(dt.batch_shape))
    assert tuple(ee.batch_shape) == tuple(te.batch_shape)
    assert tuple(ee.base_dist.batch_shape) == tuple(te.base_dist.batch_shape)


def test_errors():
    em, tm = errors_same(lambda: E.Independent(E.Normal(ember.zeros(3), 1.0), 2),
                         lambda: T.Independent(T.Normal(torch.zeros(3), 1.0), 2))
    assert em == tm
    with pytest.raises(NotImplementedError, match="cartesian product"):
        E.Independent(E.Normal(ember.zeros(3), 1.0), 1).enumerate_support()
