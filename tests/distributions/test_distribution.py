"""The Distribution base class against torch's."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, errors_same

E, T = ember.distributions, torch.distributions


def test_set_default_validate_args():
    old = E.Distribution._validate_args
    try:
        E.Distribution.set_default_validate_args(False)
        E.Normal(0.0, -1.0)          # no error
        E.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            E.Normal(0.0, -1.0)
        with pytest.raises(ValueError):
            E.Distribution.set_default_validate_args(2)
    finally:
        E.Distribution._validate_args = old
    assert E.Distribution._validate_args is True


def test_validate_message_equals_torch():
    em, tm = errors_same(lambda: E.Normal(ember.tensor([0.0, 1.0]), ember.tensor([1.0, -2.0])),
                         lambda: T.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, -2.0])))
    assert em == tm
    assert "Expected parameter scale (Tensor of shape (2,))" in em
    em, tm = errors_same(lambda: E.Normal(0.0, 1.0).log_prob(ember.full((2, 3), float('nan'))),
                         lambda: T.Normal(0.0, 1.0).log_prob(torch.full((2, 3), float('nan'))))
    assert em == tm


def test_base_not_implemented():
    for mod in (E, T):
        d = mod.Distribution(validate_args=False)
        for a in ('mean', 'variance', 'support', 'arg_constraints'):
            with pytest.raises(NotImplementedError):
                getattr(d, a)
        for m in ('rsample', 'entropy', 'enumerate_support'):
            with pytest.raises(NotImplementedError):
                getattr(d, m)()
        for m in ('log_prob', 'cdf', 'icdf'):
            with pytest.raises(NotImplementedError):
                getattr(d, m)(1.0)
        with pytest.raises(NotImplementedError):
            d.expand((2,))
    with pytest.raises(NotImplementedError) as ee:
        E.Distribution(validate_args=False).mode
    with pytest.raises(NotImplementedError) as te:
        T.Distribution(validate_args=False).mode
    assert str(ee.value).replace('ember.', 'torch.') == str(te.value)


def test_missing_arg_constraints_and_support_warn():
    class D(E.Distribution):
        pass

    class DT(T.Distribution):
        pass
    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        d = D(validate_args=True)
    with pytest.warns(UserWarning, match="does not define `support`"):
        d._validate_sample(ember.zeros(()))
    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        DT(validate_args=True)


def test_custom_init_requires_expand():
    class N(E.Normal):
        def __init__(self, a):
            super().__init__(a, 1.0)

    class NT(T.Normal):
        def __init__(self, a):
            super().__init__(a, 1.0)
    em, tm = errors_same(lambda: N(ember.zeros(2)).expand((3, 2)),
                         lambda: NT(torch.zeros(2)).expand((3, 2)), exc=NotImplementedError)
    assert em.replace('N of', 'NT of') == tm


def test_extended_shape_and_sample_shapes():
    d, dt = E.Normal(ember.zeros(2), 1.0), T.Normal(torch.zeros(2), 1.0)
    assert d._extended_shape((3, 4)) == (3, 4, 2)
    assert type(d._extended_shape([3])) is ember.Size
    assert tuple(d.sample(ember.Size([5])).shape) == tuple(dt.sample(torch.Size([5])).shape)
    assert tuple(d.sample().shape) == (2,)


def test_lazy_params_not_validated():
    # ContinuousBernoulli's logits is lazy when built from probs: not computed by validation
    d = E.ContinuousBernoulli(probs=ember.tensor([0.3]), validate_args=True)
    assert 'logits' not in d.__dict__
