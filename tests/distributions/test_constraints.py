"""ember.distributions.constraints against torch.distributions.constraints."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, errors_same

EC = ember.distributions.constraints
TC = torch.distributions.constraints

R = np.random.RandomState(0)
SPD = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.5]])
NONPD = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
CORR_L = np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]]))


def _c(mod, spec):
    C = mod.distributions.constraints
    if isinstance(spec, str):
        return getattr(C, spec)
    name, *args = spec
    if name == 'independent':
        return C.independent(_c(mod, args[0]), args[1])
    if name in ('cat', 'stack'):
        return getattr(C, name)([_c(mod, a) for a in args[0]], *args[1:])
    if name == 'msf':
        return C.MixtureSameFamilyConstraint(_c(mod, args[0]))
    return getattr(C, name)(*args)


CASES = [
    ('real', np.array([0.0, np.inf, np.nan, -3.0])),
    ('positive', np.array([0.0, 1.0, -1.0, np.inf])),
    ('nonnegative', np.array([0.0, 1.0, -1.0])),
    ('unit_interval', np.array([0.0, 1.0, 1.5, -0.1, 0.5])),
    ('boolean', np.array([0.0, 1.0, 0.5, 2.0])),
    ('nonnegative_integer', np.array([0.0, 1.0, 1.5, -1.0, 7.0])),
    ('positive_integer', np.array([0.0, 1.0, 1.5, 3.0])),
    (('integer_interval', 1, 4), np.array([0.0, 1.0, 4.0, 2.5, 5.0])),
    (('greater_than', 1.5), np.array([1.5, 2.0, 1.0])),
    (('greater_than_eq', 1.5), np.array([1.5, 2.0, 1.0])),
    (('less_than', 1.5), np.array([1.5, 2.0, 1.0])),
    (('interval', -1.0, 2.0), np.array([-1.0, 2.0, 3.0])),
    (('half_open_interval', -1.0, 2.0), np.array([-1.0, 2.0, 1.9])),
    ('real_vector', np.array([[0.0, 1.0], [np.nan, 1.0]])),
    ('simplex', np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])),
    ('one_hot', np.array([[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])),
    (('multinomial', 3), np.array([[1.0, 2.0], [2.0, 2.0], [-1.0, 0.0]])),
    ('lower_triangular', np.stack([np.tril(R.randn(3, 3)), R.randn(3, 3)])),
    ('lower_cholesky', np.stack([CORR_L, -CORR_L, R.randn(3, 3)])),
    ('corr_cholesky', np.stack([CORR_L, CORR_L * 2, np.eye(3)])),
    ('square', np.zeros((2, 3, 3))),
    ('square', np.zeros((2, 3, 4))),
    ('symmetric', np.stack([SPD, R.randn(3, 3)])),
    ('positive_definite', np.stack([SPD, NONPD])),
    ('positive_semidefinite', np.stack([SPD, NONPD, np.zeros((3, 3))])),
    (('independent', 'positive', 1), np.array([[1.0, 2.0], [1.0, -2.0]])),
    (('independent', ('interval', 0.0, 1.0), 2), np.array([[[0.5, 0.2]], [[0.5, 1.2]]])),
    (('cat', ['positive', 'real'], 0, [1, 2]), np.array([1.0, -2.0, 3.0])),
    (('cat', ['positive', 'real'], -1, [2, 1]), np.array([[1.0, -2.0, 3.0], [1.0, 2.0, 3.0]])),
    (('stack', ['positive', 'real'], 1), np.array([[1.0, -2.0], [-1.0, 2.0]])),
    (('msf', 'positive'), np.array([1.0, -2.0])),
]


@pytest.mark.parametrize('spec,v', CASES, ids=[str(c[0]) for c in CASES])
def test_check_and_attributes(spec, v):
    ce, ct = _c(ember, spec), _c(torch, spec)
    assert repr(ce) == repr(ct)
    assert ce.is_discrete == ct.is_discrete
    assert ce.event_dim == ct.event_dim
    assert type(ce).__name__ == type(ct).__name__
    assert_same(ce.check(ember.tensor(v)), ct.check(torch.tensor(v)))


def test_dependent():
    assert EC.is_dependent(EC.dependent) and not EC.is_dependent(EC.real)
    for C in (EC, TC):
        with pytest.raises(ValueError, match="Cannot determine validity"):
            C.dependent.check(1)
        with pytest.raises(NotImplementedError):
            C.dependent.event_dim
        d = C.dependent(is_discrete=True, event_dim=1)
        assert d.is_discrete is True and d.event_dim == 1
    assert repr(EC.dependent) == repr(TC.dependent)

    class D:
        @EC.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return EC.positive

        @EC.dependent_property
        def other(self):
            return EC.real
    assert D().support is EC.positive and D().other is EC.real
    assert EC.is_dependent(D.support) and D.support.event_dim == 0


def test_constructor_errors():
    for C in (EC, TC):
        with pytest.raises(AssertionError):
            C.independent(1, 1)
        with pytest.raises(AssertionError):
            C.independent(C.real, -1)
        with pytest.raises(AssertionError):
            C.cat([C.real], 0, [1, 2])
        with pytest.raises(AssertionError):
            C.stack([1])
    em, tm = errors_same(lambda: EC.independent(EC.real, 2).check(ember.zeros(3)),
                         lambda: TC.independent(TC.real, 2).check(torch.zeros(3)))
    assert em == tm


def test_all_names():
    assert sorted(EC.__all__) == sorted(TC.__all__)
