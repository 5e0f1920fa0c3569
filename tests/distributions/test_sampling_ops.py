"""The random ops torch.distributions draws from (ember/_ops/random_ops.py):
binomial, _standard_gamma (+ _standard_gamma_grad), _sample_dirichlet, _dirichlet_grad:
same draws as torch after the same seed, and torch's reparameterised gradients."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, errors_both, to_np

ALPHA = np.array([0.01, 0.3, 0.5, 1.0, 2.0, 5.0, 9.0, 20.0, 150.0, 0.0])


def _both(fn, seed=11):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    e, t = fn(ember), fn(torch)
    assert float(ember.rand(())) == float(torch.rand(()))     # same stream position
    return e, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_equals_torch(dtype):
    a = np.tile(ALPHA, 3).reshape(3, 10)
    e, t = _both(lambda m: m._standard_gamma(m.tensor(a, dtype=getattr(m, dtype))))
    assert_same(e, t, rtol=0, atol=0)
    # interleaved with a cached normal of the generator (normal_distribution<double>)
    e, t = _both(lambda m: (m.normal(0.0, 1.0, (1,)),
                            m._standard_gamma(m.tensor(a, dtype=getattr(m, dtype)))))
    assert_same(e, t, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_gradient(dtype):
    a = np.exp(np.random.RandomState(0).randn(400) * 2)
    ea = ember.tensor(a, dtype=getattr(ember, dtype), requires_grad=True)
    ta = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    ember.manual_seed(1)
    torch.manual_seed(1)
    e, t = ember._standard_gamma(ea), torch._standard_gamma(ta)
    assert_same(e, t, rtol=0, atol=0)
    assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__ == "StandardGammaBackward0"
    g = np.random.RandomState(2).rand(400)
    e.backward(ember.tensor(g, dtype=e.dtype))
    t.backward(torch.tensor(g, dtype=t.dtype))
    assert_same(ea.grad, ta.grad, rtol=1e-5 if dtype == "float32" else 1e-12)
    assert_same(ember._standard_gamma_grad(ea.detach(), e.detach()),
                torch._standard_gamma_grad(ta.detach(), t.detach()),
                rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_equals_torch(dtype):
    n = np.array([0., 1., 5., 10., 20., 40., 100., 1000., 7., 30., 3., 12., 1e4, 25.])
    p = np.array([.1, .5, .9, .3, .7, .01, .99, .5, .4, .6, 1., 0., .37, .85])
    e, t = _both(lambda m: m.binomial(m.tensor(np.tile(n, (3, 1)), dtype=getattr(m, dtype)),
                                      m.tensor(np.tile(p, (3, 1)), dtype=getattr(m, dtype))))
    assert_same(e, t, rtol=0, atol=0)
    # broadcasting count against prob
    e, t = _both(lambda m: m.binomial(m.tensor([[5.], [50.]]), m.tensor([0.2, 0.5, 0.8])))
    assert_same(e, t, rtol=0, atol=0)


def test_binomial_moments_and_grad_fn():
    ember.manual_seed(0)
    s = ember.binomial(ember.full((20000,), 40.), ember.full((20000,), 0.3))
    s = to_np(s)
    assert abs(s.mean() - 12) < 6 * np.sqrt(8.4 / 20000)
    assert abs(s.var() / 8.4 - 1) < 0.05
    p = ember.tensor([0.3, 0.5], requires_grad=True)
    r = ember.binomial(ember.tensor([3., 4.]), p)
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        r.sum().backward()


def test_errors():
    errors_both(lambda m: m.binomial(m.tensor([3, 4]), m.tensor([.3, .5])),
                match="binomial only supports floating-point dtypes for count, got: Long")
    errors_both(lambda m: m.binomial(m.tensor([3., 4.]), m.tensor([1, 0])),
                match="binomial only supports floating-point dtypes for prob, got: Long")
    errors_both(lambda m: m.binomial(m.tensor([3., 4.]), m.tensor([.3, .5], dtype=m.float64)),
                match="Found dtype Double but expected Float")
    errors_both(lambda m: m._standard_gamma(m.tensor([1, 2])),
                match='"gamma_cpu" not implemented for \'Long\'')
    errors_both(lambda m: m._sample_dirichlet(m.tensor([1, 2])),
                match='"dirichlet" not implemented for \'Long\'')
    errors_both(lambda m: m.binomial(m.tensor([3., 4.]), m.tensor([.3, .5, .5])),
                match="must match the size")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sample_dirichlet_equals_torch(dtype):
    a = np.array([[0.5, 2.0, 3.0], [1.0, 1.0, 1.0], [0.01, 0.02, 0.03], [40., 1., 7.]])
    e, t = _both(lambda m: m._sample_dirichlet(m.tensor(a, dtype=getattr(m, dtype))))
    assert_same(e, t, rtol=0, atol=0)
    e, t = _both(lambda m: m._sample_dirichlet(m.tensor([-1.0, 2.0], dtype=getattr(m, dtype))))
    assert_same(e, t, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_grad(dtype):
    torch.manual_seed(0)
    al = torch.exp(torch.randn(3000, 4, dtype=getattr(torch, dtype)) * 1.5)
    x = torch._sample_dirichlet(al)
    tot = al.sum(-1, True).expand_as(al).contiguous()
    t = torch._dirichlet_grad(x, al, tot)
    e = ember._dirichlet_grad(*[ember.tensor(v.numpy()) for v in (x, al, tot)])
    if dtype == "float64":
        assert_same(e, t, rtol=1e-9, atol=1e-12)
    else:
        # torch's float32 kernel runs its series near 0 and 1 in float: ember in double
        r = np.abs(to_np(e) - t.numpy()) / (np.abs(t.numpy()) + 1e-30)
        assert np.quantile(r, 0.99) < 1e-5 and r.max() < 1e-3
