"""ember.distributions.utils against torch.distributions.utils."""
import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, errors_same

EU = ember.distributions.utils
TU = torch.distributions.utils


def test_broadcast_all():
    a = np.zeros((2, 1), np.float32)
    for args in ([a, 3.0], [1.0, 2.0], [a, np.ones(3, np.float64)], [2, a]):
        ea = [ember.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        ta = [torch.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        assert_same(list(EU.broadcast_all(*ea)), list(TU.broadcast_all(*ta)))
    em, tm = errors_same(lambda: EU.broadcast_all(ember.zeros(2), 'x'),
                         lambda: TU.broadcast_all(torch.zeros(2), 'x'))
    assert em == tm


@pytest.mark.parametrize('binary', [False, True])
def test_logits_probs(binary):
    x = np.random.RandomState(0).randn(3, 4)
    assert_same(EU.logits_to_probs(ember.tensor(x), binary),
                TU.logits_to_probs(torch.tensor(x), binary))
    p = np.array([[0.0, 0.2, 0.8, 1.0]])
    assert_same(EU.probs_to_logits(ember.tensor(p), binary),
                TU.probs_to_logits(torch.tensor(p), binary))
    for dt in ('float32', 'float64'):
        assert_same(EU.clamp_probs(ember.tensor(p.astype(dt))),
                    TU.clamp_probs(torch.tensor(p.astype(dt))))


@pytest.mark.parametrize('diag', [-2, -1, 0, 1])
def test_tril_packing(diag):
    m = np.random.RandomState(1).randn(2, 4, 4)
    ve, vt = EU.tril_matrix_to_vec(ember.tensor(m), diag), TU.tril_matrix_to_vec(
        torch.tensor(m), diag)
    assert_same(ve, vt)
    assert_same(EU.vec_to_tril_matrix(ve, diag), TU.vec_to_tril_matrix(vt, diag))


def test_tril_errors():
    em, tm = errors_same(lambda: EU.tril_matrix_to_vec(ember.zeros(3, 3), 3),
                         lambda: TU.tril_matrix_to_vec(torch.zeros(3, 3), 3))
    assert em == tm
    em, tm = errors_same(lambda: EU.vec_to_tril_matrix(ember.zeros(5)),
                         lambda: TU.vec_to_tril_matrix(torch.zeros(5)))
    assert em == tm


def test_lazy_property():
    calls = []

    class A:
        @EU.lazy_property
        def x(self):
            calls.append(1)
            return ember.ones(2)
    a = A()
    assert a.x is a.x and len(calls) == 1
    assert 'x' in a.__dict__
    assert isinstance(A.x, EU.lazy_property) and isinstance(A.x, property)
    with ember.no_grad():
        class B:
            @EU.lazy_property
            def y(self):
                return ember.is_grad_enabled()
        assert B().y is True


def test_all_names():
    assert sorted(EU.__all__) == sorted(TU.__all__)
    assert EU.euler_constant == TU.euler_constant
