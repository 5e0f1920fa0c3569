"""Distance layers (ember/nn/modules/distance.py) vs torch: repr, constants, values and
gradients; plus the cdist paths the op database cannot reach (no-grad matrix-product
kernel) and grad_fn names."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, errors_both

rng = np.random.default_rng(0)


def R(*shape, dtype=np.float64):
    return rng.uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize('kw', [{}, {'p': 1.0}, {'p': 3.0, 'eps': 0.0, 'keepdim': True},
                                {'p': float('inf')}])
@pytest.mark.parametrize('shapes', [((4, 5), (4, 5)), ((5,), (5,)), ((4, 5), (5,))])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_pairwise_distance_layer(kw, shapes, dt):
    def fn(m, a, b):
        mod = m.nn.PairwiseDistance(**kw)
        return mod(a, b)
    check(fn, [R(*shapes[0], dtype=dt), R(*shapes[1], dtype=dt)], grad=True,
          rtol=1e-5 if dt == np.float32 else 1e-10, atol=1e-6 if dt == np.float32 else 1e-12)
    e, t = ember.nn.PairwiseDistance(**kw), torch.nn.PairwiseDistance(**kw)
    assert repr(e) == repr(t)
    assert (e.norm, e.eps, e.keepdim) == (t.norm, t.eps, t.keepdim)
    assert e.__constants__ == t.__constants__


@pytest.mark.parametrize('kw', [{}, {'dim': 0}, {'dim': -1, 'eps': 1e-3}])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_cosine_similarity_layer(kw, dt):
    def fn(m, a, b):
        return m.nn.CosineSimilarity(**kw)(a, b)
    check(fn, [R(4, 5, dtype=dt), R(4, 5, dtype=dt)], grad=True,
          rtol=1e-5 if dt == np.float32 else 1e-10, atol=1e-6 if dt == np.float32 else 1e-12)
    e, t = ember.nn.CosineSimilarity(**kw), torch.nn.CosineSimilarity(**kw)
    assert repr(e) == repr(t) and (e.dim, e.eps) == (t.dim, t.eps)
    assert type(e).__module__ == 'ember.nn.modules.distance'


def test_cdist_mm_no_grad_path_matches():
    for a, b in [(R(40, 6), R(30, 6)), (R(2, 40, 6), R(1, 3, 6)),
                 (R(1000, 64).astype(np.float32), R(1000, 64).astype(np.float32))]:
        with ember.no_grad():
            e = ember.cdist(ember.tensor(a), ember.tensor(b))
        t = torch.cdist(torch.tensor(a), torch.tensor(b))
        tol = 1e-4 if a.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=tol, atol=tol)


def test_grad_fn_names():
    a = ember.randn(3, 4, requires_grad=True)
    b = ember.randn(5, 4)
    ta, tb = torch.randn(3, 4, requires_grad=True), torch.randn(5, 4)
    assert ember.cdist(a, b).grad_fn.name() == torch.cdist(ta, tb).grad_fn.name() == \
        'CdistBackward0'
    assert ember.nn.functional.pdist(a).grad_fn.name() == 'PdistBackward0'
    big, tbig = ember.randn(30, 4, requires_grad=True), torch.randn(30, 4, requires_grad=True)
    assert ember.cdist(big, b).grad_fn.name() == torch.cdist(tbig, tb).grad_fn.name() == \
        'ViewBackward0'
    assert ember.dist(a, a.detach() + 1).grad_fn.name() == 'DistBackward0'
    assert a.dist(a.detach() + 1).grad_fn.name() == 'DistBackward0'


def test_cdist_double_backward():
    """NOTE: unlike PyTorch (no derivative of _cdist_backward), ember's cdist gradient is
    differentiable: checked with finite differences; the matrix-product path (composed of
    ember ops, as PyTorch's) against torch."""
    for p in (1.0, 2.0, 3.0):
        a = ember.tensor(R(3, 4), requires_grad=True)
        b = ember.tensor(R(5, 4), requires_grad=True)
        assert ember.autograd.gradgradcheck(lambda x, y: ember.cdist(x, y, p=p), (a, b))

    def fn(m, a, b):
        d = m.cdist(a, b, compute_mode='use_mm_for_euclid_dist')
        (g,) = m.autograd.grad(d.pow(3).sum(), a, create_graph=True)
        return g
    check(fn, [R(3, 4), R(5, 4)], grad=True, rtol=1e-9, atol=1e-10)


def test_functional_are_torch_level_functions():
    F = ember.nn.functional
    assert F.pdist is ember.pdist
    assert F.pairwise_distance is ember.pairwise_distance
    assert F.cosine_similarity is ember.cosine_similarity
    import importlib
    assert importlib.import_module('ember.functional').cdist is ember.cdist


def test_normalize_out():
    x = R(3, 4)
    out_e, out_t = ember.empty(3, 4, dtype=ember.float64), torch.empty(3, 4, dtype=torch.float64)
    ember.nn.functional.normalize(ember.tensor(x), dim=0, out=out_e)
    torch.nn.functional.normalize(torch.tensor(x), dim=0, out=out_t)
    np.testing.assert_allclose(out_e.numpy(), out_t.numpy(), rtol=1e-12)


def test_errors_wording():
    for fn, msg in [
        (lambda m: m.cdist(m.zeros(3), m.zeros(3, 3)), 'cdist only supports at least 2D tensors'),
        (lambda m: m.cdist(m.zeros(3, 2), m.zeros(3, 3)),
         'X1 and X2 must have the same number of columns. X1: 2 X2: 3'),
        (lambda m: m.cdist(m.zeros(3, 2), m.zeros(3, 2), p=-1),
         'cdist only supports non-negative p values'),
        (lambda m: m.cdist(m.zeros(3, 2), m.zeros(3, 2), compute_mode='x'),
         'x is not a valid value for compute_mode'),
        (lambda m: m.pdist(m.zeros(3)), 'pdist only supports 2D tensors, got: 1D'),
        (lambda m: m.cosine_similarity(m.ones(2, 3).long(), m.ones(2, 3).long()),
         'expected common dtype to be floating point, yet common dtype is Long'),
    ]:
        ee, et = errors_both(fn)
        assert msg in str(et) and msg in str(ee), (msg, str(ee))
