"""ember.fft.rfft of long float32 signals (power-of-two lengths >= 2**18 take the
four-step path of ember/_ops/fft.py) vs torch.fft: values against a float64 reference
(no worse than torch's own error), dtypes, shapes, the real DC/Nyquist bins, norms, batches,
gradients through rfft and through irfft (whose backward is a real transform), and the
lengths/dtypes/layouts that keep NumPy's transform."""
import numpy as np
import pytest
import torch

import ember
from ember._ops import fft as F

N = 1 << 18


def _sig(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _both(fn, x):
    e = fn(ember, ember.from_numpy(x.copy())).numpy(force=True)
    t = fn(torch, torch.from_numpy(x.copy())).numpy()
    return e, t


def _check_against_reference(e, t, x, norm=None):
    assert e.dtype == t.dtype and e.shape == t.shape
    ref = np.fft.rfft(x.astype(np.float64), norm=norm)
    scale = np.abs(ref).max()
    err_e = np.abs(e - ref).max() / scale
    err_t = np.abs(t - ref).max() / scale
    assert err_e < max(2 * err_t, 1e-6), (err_e, err_t)
    np.testing.assert_allclose(e, t, rtol=1e-4, atol=2e-6 * scale)


@pytest.mark.parametrize('norm', [None, 'backward', 'ortho', 'forward'])
def test_long_rfft_matches_torch(norm):
    x = _sig(N)
    assert F._long_rfft_ok(x, (0,))     # this test is about the four-step path
    e, t = _both(lambda m, a: m.fft.rfft(a, norm=norm), x)
    _check_against_reference(e, t, x, norm)
    assert e[0].imag == 0 and e[-1].imag == 0


@pytest.mark.parametrize('shape', [(2, 3, 2 * N), (1, N)])
def test_long_rfft_batched(shape):
    x = _sig(shape, seed=1)
    e, t = _both(lambda m, a: m.fft.rfft(a), x)
    _check_against_reference(e, t, x)
    assert np.all(e[..., 0].imag == 0) and np.all(e[..., -1].imag == 0)


def test_long_rfft_other_dim_and_n():
    x = _sig((N, 2), seed=2)     # along dim 0: not the last axis
    e, t = _both(lambda m, a: m.fft.rfft(a, dim=0), x)
    np.testing.assert_allclose(e, t, rtol=1e-4, atol=2e-6 * np.abs(t).max())
    y = _sig(N - 5, seed=3)      # n= pads up to a power of two
    e, t = _both(lambda m, a: m.fft.rfft(a, n=N), y)
    np.testing.assert_allclose(e, t, rtol=1e-4, atol=2e-6 * np.abs(t).max())


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_other_lengths_keep_numpy(dtype):
    for n in (N + 2, 3 * (1 << 16), N):
        x = _sig(n, dtype, seed=4)
        if dtype == np.float64 or n != N:
            assert not F._long_rfft_ok(x, (0,))
        e, t = _both(lambda m, a: m.fft.rfft(a), x)
        tol = 1e-10 if dtype == np.float64 else 1e-4
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol * 1e-2 * np.abs(t).max())
    assert not F._long_rfft_ok(np.empty(F._LONG_RFFT_MAX * 2, np.float32), (0,))  # too long
    xe = ember.from_numpy(_sig(2 * N, seed=5))[::2]       # not contiguous
    assert not F._long_rfft_ok(xe._data, (0,))
    np.testing.assert_allclose(ember.fft.rfft(xe).numpy(force=True),
                               np.fft.rfft(_sig(2 * N, seed=5)[::2].astype(np.float64)),
                               rtol=1e-4, atol=1e-3)


def test_long_rfft_gradients():
    x = _sig(N, seed=6)
    g = np.random.default_rng(7).standard_normal(N // 2 + 1).astype(np.float32) \
        + 1j * np.random.default_rng(8).standard_normal(N // 2 + 1).astype(np.float32)
    grads = []
    for m in (ember, torch):
        xi = m.from_numpy(x.copy()).requires_grad_()
        m.fft.rfft(xi).backward(m.from_numpy(g.astype(np.complex64)))
        grads.append(xi.grad.numpy(force=True) if m is ember else xi.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5 * np.abs(grads[1]).max())
    # irfft's backward transforms the (real, long) gradient forward: the four-step path
    h = np.random.default_rng(9).standard_normal(N).astype(np.float32)
    outs = []
    for m in (ember, torch):
        s = m.from_numpy(g.astype(np.complex64)).requires_grad_()
        m.fft.irfft(s, n=N).backward(m.from_numpy(h.copy()))
        outs.append(s.grad.numpy(force=True) if m is ember else s.grad.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5 * np.abs(outs[1]).max())
