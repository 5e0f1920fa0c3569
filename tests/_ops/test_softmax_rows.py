"""softmax / log_softmax on long rows (>= 512 elements: the kernels' unbuffered row-wise
broadcasts, ember/_ops/activation.py) vs torch: values and gradients, on the last and on
another dim, on the shifted (large logits) and the shift-free paths, in float32/float64;
NumPy's ufunc buffer size is left as it was, also when the kernel raises."""
import numpy as np
import pytest
import torch

import ember
from oracle import check


def _logits(shape, dtype, scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape,dim', [((6, 1000), -1), ((2, 3, 600), 2), ((700, 5), 0),
                                       ((4, 512), 1), ((3, 511), 1)])
@pytest.mark.parametrize('scale', [1.0, 60.0])   # 60: exp overflows without the shift
def test_long_rows_match_torch(name, dtype, shape, dim, scale):
    a = _logits(shape, dtype, scale)
    check(lambda m, x: getattr(m, name)(x, dim), [a], grad=True)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
def test_one_dominant_logit(name):
    # a row where one logit dominates: log_softmax keeps the precision of values near 0
    a = _logits((4, 800), np.float32, seed=1)
    a[:, 3] = 40.0
    check(lambda m, x: getattr(m, name)(x, -1), [a], grad=True, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('top', [15.0, 9.0, 2.0, 0.5])
def test_log_softmax_near_zero(top):
    # moderate row sums with one element near probability 1: its result is near 0, with
    # an absolute error of the float32 row sum of 1 + many small terms (BLAS order: up to
    # ~50 ulps of 1 here; torch's vectorised sum gets ~1), not one of ulps of the maximum
    a = np.full((3, 700), -12.0, np.float32)
    a[:, 5] = top
    a[1, 7] = top - 14
    e = ember.log_softmax(ember.tensor(a), -1).numpy(force=True)
    t = torch.log_softmax(torch.tensor(a), -1).numpy()
    a64 = a.astype(np.float64)
    exact = a64 - np.log(np.exp(a64).sum(-1, keepdims=True))
    assert np.abs(e[:, 5] - exact[:, 5]).max() <= 8e-6
    assert np.all(e[:, 5] <= 0)
    np.testing.assert_allclose(e, t, rtol=2e-6, atol=8e-6)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
def test_float16_long_rows(name):
    # float16 results may differ from torch's by an ulp (~0.004 near -7); log_softmax's
    # gradient g - exp(y) * sum(g) carries that through a row sum of ~30: hence the atol
    a = _logits((3, 900), np.float16)
    check(lambda m, x: getattr(m, name)(x, -1), [a], grad=True, rtol=1e-3, atol=3e-3)


def test_buffer_size_is_restored(monkeypatch):
    before = np.getbufsize()
    x = ember.tensor(_logits((2, 1000), np.float32), requires_grad=True)
    ember.log_softmax(x, -1).sum().backward()
    ember.softmax(x, -1).backward(ember.ones(2, 1000))
    assert np.getbufsize() == before
    # an error inside the kernel leaves it as it was too
    from ember._ops import activation

    def boom(*args):
        assert np.getbufsize() != before   # inside the unbuffered section
        raise FloatingPointError('boom')
    monkeypatch.setattr(activation, '_sum_keep', boom)
    with pytest.raises(FloatingPointError, match='boom'):
        ember.softmax(x, -1)
    assert np.getbufsize() == before
