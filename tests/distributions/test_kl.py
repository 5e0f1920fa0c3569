"""kl_divergence / register_kl against torch (every pair registered among part 1's
distributions; part 2's pairs are tested in its own files)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ._part1_util import assert_same, compare_grads, errors_same

R = np.random.RandomState(0)


def _p(*s, lo=0.5, k=1.0):
    return (R.rand(*s) + lo) * k


# constructors: name -> list of numpy params (batch shape (4,))
FACT = {
    'Normal': [R.randn(4), _p(4)],
    'Uniform': [R.randn(4) - 3, R.randn(4) + 3],
    'Exponential': [_p(4)],
    'Laplace': [R.randn(4), _p(4)],
    'Cauchy': [R.randn(4), _p(4)],
    'Gumbel': [R.randn(4), _p(4)],
    'Gamma': [_p(4, k=2), _p(4)],
    'Beta': [_p(4, k=2), _p(4, k=2)],
    'Pareto': [_p(4), _p(4, lo=2.5)],
    'HalfNormal': [_p(4)],
    'ContinuousBernoulli': [R.rand(4) * 0.8 + 0.1],
    'Chi2': [_p(4, k=3)],
    'LogNormal': [R.randn(4), _p(4)],
    'Weibull': [_p(4), _p(4)],
}
# second parameter sets so that KL(p || p') is not trivially 0, incl. infinite regimes
FACT2 = {
    'Uniform': [R.randn(4) - 5, R.randn(4) + 5],
    'Pareto': [np.array([0.1, 0.2, 2.0, 0.3]), np.array([0.5, 1.5, 3.0, 2.5])],
}
FACT2_P = {'Pareto': [np.array([0.5, 0.5, 0.5, 0.5]), np.array([0.8, 1.5, 2.5, 3.0])]}
MINE = set(FACT) | {'TransformedDistribution', 'Independent', 'ExponentialFamily'}


def make(name, which, mod, grad=False):
    params = {0: FACT2_P, 1: FACT2}[which].get(name, FACT[name])
    ts = [mod.tensor(p, requires_grad=grad) for p in params]
    return getattr(mod.distributions, name)(*ts, validate_args=False), ts


def torch_pairs():
    from torch.distributions.kl import _KL_REGISTRY
    out = []
    for tp, tq in _KL_REGISTRY:
        if tp.__name__ in FACT and tq.__name__ in FACT:
            out.append((tp.__name__, tq.__name__))
    return sorted(out)


PAIRS = torch_pairs()


def test_every_part1_pair_registered():
    from ember.distributions.kl import _KL_REGISTRY
    from torch.distributions.kl import _KL_REGISTRY as T
    mine = {(p.__name__, q.__name__) for p, q in _KL_REGISTRY}
    want = {(p.__name__, q.__name__) for p, q in T if p.__name__ in MINE and q.__name__ in MINE}
    assert want <= mine, want - mine
    assert len(PAIRS) > 60


@pytest.mark.parametrize('pq', PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_pair_values_and_grads(pq):
    a, b = pq
    pe, pe_t = make(a, 0, ember, grad=True)
    qe, qe_t = make(b, 1, ember, grad=True)
    pt, pt_t = make(a, 0, torch, grad=True)
    qt, qt_t = make(b, 1, torch, grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('error')   # no ambiguity warnings for registered pairs
        ke = ember.distributions.kl_divergence(pe, qe)
    kt = torch.distributions.kl_divergence(pt, qt)
    assert_same(ke, kt, rtol=1e-6, atol=1e-9)
    if kt.requires_grad and bool(torch.isfinite(kt).all()):
        compare_grads(ke, kt, pe_t + qe_t, pt_t + qt_t, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize('name', ['Normal', 'Gamma', 'Beta', 'Exponential',
                                  'ContinuousBernoulli'])
def test_self_kl_zero_and_expfamily_bregman(name):
    pe, _ = make(name, 0, ember)
    assert float(ember.distributions.kl_divergence(pe, pe).abs().max()) < 1e-6
    from ember.distributions.kl import _kl_expfamily_expfamily
    qe, _ = make(name, 1, ember)
    pt, _ = make(name, 0, torch)
    qt, _ = make(name, 1, torch)
    from torch.distributions.kl import _kl_expfamily_expfamily as texp
    assert_same(_kl_expfamily_expfamily(pe, qe).detach(), texp(pt, qt).detach(),
                rtol=1e-6, atol=1e-9)


def test_independent_and_transformed():
    E, T = ember.distributions, torch.distributions
    loc, sc = R.randn(2, 3), _p(2, 3)
    ke = E.kl_divergence(E.Independent(E.Normal(ember.tensor(loc), ember.tensor(sc)), 1),
                         E.Independent(E.Normal(ember.tensor(loc + 1), ember.tensor(sc)), 1))
    kt = T.kl_divergence(T.Independent(T.Normal(torch.tensor(loc), torch.tensor(sc)), 1),
                         T.Independent(T.Normal(torch.tensor(loc + 1), torch.tensor(sc)), 1))
    assert_same(ke, kt)
    ke = E.kl_divergence(E.LogNormal(ember.tensor(loc), ember.tensor(sc)),
                         E.LogNormal(ember.tensor(loc + 1), ember.tensor(sc)))
    kt = T.kl_divergence(T.LogNormal(torch.tensor(loc), torch.tensor(sc)),
                         T.LogNormal(torch.tensor(loc + 1), torch.tensor(sc)))
    assert_same(ke, kt)
    with pytest.raises(NotImplementedError):
        E.kl_divergence(E.Independent(E.Normal(ember.zeros(2, 3), 1.0), 1),
                        E.Independent(E.Normal(ember.zeros(2, 3), 1.0), 2))


def test_not_implemented_message():
    E, T = ember.distributions, torch.distributions
    em, tm = errors_same(lambda: E.kl_divergence(E.VonMises(0.0, 1.0), E.Normal(0.0, 1.0)),
                         lambda: T.kl_divergence(T.VonMises(torch.tensor(0.0), 1.0),
                                                 T.Normal(0.0, 1.0)), exc=NotImplementedError)
    assert em == tm
    with pytest.raises(NotImplementedError, match="different exponential families"):
        E.kl_divergence(E.ContinuousBernoulli(0.3), E.Gamma(1.0, 1.0))


def test_register_kl_most_specific_and_ambiguity_warning():
    E = ember.distributions
    from ember.distributions import kl as K

    class A(E.Normal):
        pass

    class B(E.Normal):
        pass

    try:
        @E.register_kl(A, E.Normal)
        def f1(p, q):
            return ember.tensor(1.0)

        @E.register_kl(E.Normal, B)
        def f2(p, q):
            return ember.tensor(2.0)
        assert float(E.kl_divergence(A(0.0, 1.0), E.Normal(0.0, 1.0))) == 1.0
        assert float(E.kl_divergence(E.Normal(0.0, 1.0), B(0.0, 1.0))) == 2.0
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(A, B\). "
                                                r"Please register_kl\(A, B\)"):
            assert float(E.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))) == 1.0

        @E.register_kl(A, B)
        def f3(p, q):
            return ember.tensor(3.0)
        assert float(E.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))) == 3.0
    finally:
        for k in [(A, E.Normal), (E.Normal, B), (A, B)]:
            K._KL_REGISTRY.pop(k, None)
        K._KL_MEMOIZE.clear()
