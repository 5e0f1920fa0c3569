"""ember.fft, window functions and stft/istft against torch 2.13: values, dtypes,
gradients under a random upstream gradient, float64 gradcheck, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, errors_both, gradcheck_ember, run_both

rng = np.random.default_rng(0)


def _arr(shape, dt):
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == 'c':
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


ONE_D = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft']
N_D = ['fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn']
TWO_D = ['fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2']
REAL_ONLY = {'rfft', 'ihfft', 'rfftn', 'ihfftn', 'rfft2', 'ihfft2'}


def _dts(name):
    return ('float32', 'float64') if name in REAL_ONLY else \
        ('float32', 'float64', 'complex64', 'complex128')


@pytest.mark.parametrize('name', ONE_D)
@pytest.mark.parametrize('n', [None, 5, 8, 11])
@pytest.mark.parametrize('norm', [None, 'backward', 'ortho', 'forward'])
def test_1d(name, n, norm):
    for dt in _dts(name):
        for dim in (-1, 0):
            check(lambda m, x: getattr(m.fft, name)(x, n=n, dim=dim, norm=norm),
                  [_arr((6, 7), dt)], grad=True, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', N_D + TWO_D)
@pytest.mark.parametrize('s,dim', [(None, None), ((3, 5), None), ((5, -1), (0, 2)),
                                   (None, (2, 0)), ((4,), (1,))])
@pytest.mark.parametrize('norm', [None, 'ortho', 'forward'])
def test_nd(name, s, dim, norm):
    if name in TWO_D and ((s is not None and len(s) != 2) or (dim is not None and len(dim) != 2)):
        return
    kw = dict(s=s) if dim is None else dict(s=s, dim=dim)
    for dt in _dts(name):
        check(lambda m, x: getattr(m.fft, name)(x, norm=norm, **kw), [_arr((3, 4, 6), dt)],
              grad=True, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', ONE_D + N_D)
def test_gradcheck(name):
    for dt in _dts(name)[1::2]:
        gradcheck_ember(lambda m, x: getattr(m.fft, name)(x), [_arr((3, 4), dt)])


@pytest.mark.parametrize('name', ['fft', 'rfft', 'irfft', 'hfftn'])
def test_grad_fn_and_int_promotion(name):
    e, t = run_both(lambda m: getattr(m.fft, name)(m.arange(6)))
    x = ember.randn(6, requires_grad=True)
    assert type(getattr(ember.fft, name)(x).grad_fn).__name__ == \
        type(getattr(torch.fft, name)(torch.randn(6, requires_grad=True)).grad_fn).__name__


def test_double_backward():
    gradcheck_ember(lambda m, x: m.fft.rfft(x).abs().sum(), [_arr((8,), 'float64')])
    x = ember.from_numpy(_arr((6,), 'float64')).requires_grad_()
    assert ember.autograd.gradgradcheck(lambda a: ember.fft.irfft(ember.fft.rfft(a) ** 2), (x,))


@pytest.mark.parametrize('fn', [
    lambda m, x: m.fft.fft(x, n=0), lambda m, x: m.fft.fft(x, dim=2),
    lambda m, x: m.fft.fft(x, norm='foo'), lambda m, x: m.fft.fft(m.ones(0)),
    lambda m, x: m.fft.fft(m.tensor(1.)), lambda m, x: m.fft.fftn(x, s=(3,), dim=(0, 1)),
    lambda m, x: m.fft.fftn(x, dim=(0, 0)), lambda m, x: m.fft.fftn(x, s=(3, 4, 5)),
    lambda m, x: m.fft.fft2(m.ones(3)), lambda m, x: m.fft.rfft(x.to(m.complex64)),
    lambda m, x: m.fft.rfftn(x.to(m.complex64)), lambda m, x: m.fft.irfft(m.ones(1)),
    lambda m, x: m.fft.fft(x.half()), lambda m, x: m.fft.fft(x, 3.5),
    lambda m, x: m.fft.fftfreq(4, dtype=m.int64), lambda m, x: m.fft.fftfreq(-1),
    lambda m, x: m.fft.fftshift(x, dim=5), lambda m, x: m.fft.fftshift(m.tensor(1.)),
])
def test_errors(fn):
    errors_both(lambda m: fn(m, m.ones(4, 6)))


def test_freq_shift_out():
    for n in (0, 1, 4, 5):
        run_both(lambda m: m.fft.fftfreq(n))
        run_both(lambda m: m.fft.rfftfreq(n, 0.1))
        run_both(lambda m: m.fft.fftfreq(n, d=2, dtype=m.float64))
    x = _arr((4, 5), 'float32')
    for dim in (None, 0, (0, 1), -1):
        check(lambda m, a: m.fft.fftshift(a, dim), [x], grad=True)
        check(lambda m, a: m.fft.ifftshift(a, dim), [x], grad=True)
    run_both(lambda m: m.fft.fft(m.arange(4.), out=m.empty(4, dtype=m.complex64)))


@pytest.mark.parametrize('name', ['hann_window', 'hamming_window', 'bartlett_window',
                                  'blackman_window', 'kaiser_window'])
def test_windows(name):
    for n in (0, 1, 2, 5, 8):
        for p in (True, False):
            run_both(lambda m: getattr(m, name)(n, p), atol=1e-6)
            run_both(lambda m: getattr(m, name)(n, p, dtype=m.float64))
    errors_both(lambda m: getattr(m, name)(-1))
    errors_both(lambda m: getattr(m, name)(5, dtype=m.int64))
    assert ember.hann_window(4, requires_grad=True).requires_grad


@pytest.mark.parametrize('kw', [dict(), dict(center=False), dict(hop_length=3, win_length=12),
                                dict(normalized=True), dict(onesided=False),
                                dict(pad_mode='constant'), dict(win='hann')])
def test_stft_istft(kw):
    kw = dict(kw)
    win = kw.pop('win', None)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for shape in ((64,), (2, 50)):
            def f(m, x):
                w = m.hann_window(kw.get('win_length', 16), dtype=x.dtype) if win or \
                    'win_length' in kw else None
                return m.stft(x, 16, window=w, return_complex=True, **kw)
            check(f, [_arr(shape, 'float64')], grad=True)
            check(f, [_arr(shape, 'float32')], rtol=1e-4, atol=1e-4)
            if kw.get('center', True):
                def g(m, x):
                    w = m.hann_window(kw.get('win_length', 16), dtype=x.dtype)
                    s = m.stft(x, 16, window=w, return_complex=True, **{
                        k: v for k, v in kw.items() if k != 'pad_mode'})
                    return m.istft(s, 16, window=w, length=x.shape[-1], **{
                        k: v for k, v in kw.items() if k not in ('pad_mode',)})
                e, _ = check(g, [_arr(shape, 'float64')], grad=True)


def test_stft_errors():
    x = lambda m: m.ones(64)  # noqa: E731
    errors_both(lambda m: m.stft(x(m), 16), match='return_complex')
    errors_both(lambda m: m.stft(x(m), 16, hop_length=0, return_complex=True), 'hop_length')
    errors_both(lambda m: m.stft(x(m), 16, win_length=20, return_complex=True), 'win_length')
    errors_both(lambda m: m.stft(x(m), 100, center=False, return_complex=True), 'n_fft')
    errors_both(lambda m: m.istft(m.ones(9, 5), 16), 'complex-valued')
    errors_both(lambda m: m.istft(m.ones(7, 5, dtype=m.complex64), 16), 'n_fft / 2 + 1')
    w = lambda m: m.hann_window(16)  # noqa: E731
    errors_both(lambda m: m.istft(m.stft(x(m), 16, window=w(m), return_complex=True,
                                         center=False), 16, window=w(m), center=False),
                'window overlap add min')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        run_both(lambda m: m.stft(x(m), 16, return_complex=False))
        run_both(lambda m: x(m).stft(16, return_complex=True).istft(16))
