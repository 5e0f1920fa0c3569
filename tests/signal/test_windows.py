"""ember.signal.windows against torch.signal.windows: values (float32/float64, symmetric
and periodic, each window's parameters), dtypes, shapes, autograd flags and errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_backend

NAMES = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine',
         'general_hamming', 'hamming', 'hann', 'kaiser', 'nuttall']

# each window's own parameters (besides M and sym)
PARAMS = {
    'bartlett': [{}],
    'blackman': [{}],
    'cosine': [{}],
    'exponential': [{}, {'tau': 0.5}, {'tau': 3.0}],
    'gaussian': [{}, {'std': 0.3}, {'std': 4.5}],
    'general_cosine': [{'a': [0.46, 0.23, 0.31]}, {'a': (1.0,)}, {'a': [0.5, 0.5]}],
    'general_hamming': [{}, {'alpha': 0.6}, {'alpha': 0.5}],
    'hamming': [{}],
    'hann': [{}],
    'kaiser': [{}, {'beta': 0.0}, {'beta': 4.0}, {'beta': 30.0}],
    'nuttall': [{}],
}
CASES = [(n, kw) for n in NAMES for kw in PARAMS[n]]


def _both(name, *args, **kw):
    e = getattr(ember.signal.windows, name)(*args, **kw)
    tkw = {k: (getattr(torch, str(v).split('.')[-1]) if isinstance(v, ember.dtype) else v)
           for k, v in kw.items()}
    t = getattr(torch.signal.windows, name)(*args, **tkw)
    return e, t


@pytest.mark.parametrize('name,params', CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                   enumerate(CASES)])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_values_match_torch(name, params, dtype):
    for M in (0, 1, 2, 3, 4, 7, 16, 51):
        for sym in (True, False):
            e, t = _both(name, M, sym=sym, dtype=getattr(ember, dtype), **params)
            tol = (1e-5, 1e-6) if dtype == 'float32' else (1e-12, 1e-14)
            assert_same(e, t, rtol=tol[0], atol=tol[1], path=f"{name}({M}, sym={sym})")
            assert e.requires_grad is False and e.is_contiguous()
            check_backend(e)


def test_exponential_center_for_periodic_windows():
    for M in (1, 4, 9):
        for center in (0.0, 1.5, 7.0):
            e, t = _both('exponential', M, sym=False, center=center, tau=1.7)
            assert_same(e, t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', NAMES)
def test_default_dtype_and_requires_grad(name):
    params = PARAMS[name][0]
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        e, t = _both(name, 6, **params)
        assert_same(e, t, rtol=1e-12, atol=1e-14)
    finally:
        ember.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)
    e, t = _both(name, 6, **params)
    assert e.dtype is ember.float32 and t.dtype is torch.float32
    for M in (0, 1, 5):
        e, t = _both(name, M, requires_grad=True, **params)
        assert e.requires_grad == t.requires_grad
        assert e.is_leaf == t.is_leaf
        assert type(e.grad_fn).__name__ == type(t.grad_fn).__name__
        assert_same(e.detach(), t.detach(), rtol=1e-5, atol=1e-6)


BAD = [
    ('hann', (-1,), {}),
    ('bartlett', (-3,), {}),
    ('kaiser', (-1,), {}),
    ('blackman', (-1,), {}),
    ('general_cosine', (-1,), {'a': [1.0]}),
    ('cosine', (4,), {'dtype': 'int64'}),
    ('gaussian', (4,), {'dtype': 'float16'}),
    ('nuttall', (4,), {'dtype': 'bfloat16'}),
    ('exponential', (4,), {'dtype': 'complex64'}),
    ('exponential', (4,), {'tau': 0}),
    ('exponential', (4,), {'tau': -1.0}),
    ('exponential', (4,), {'center': 1.0}),
    ('exponential', (4,), {'center': 1.0, 'sym': True}),
    ('exponential', (-1,), {'tau': -1.0}),
    ('gaussian', (4,), {'std': 0.0}),
    ('gaussian', (0,), {'std': -2.0}),
    ('kaiser', (4,), {'beta': -0.5}),
    ('general_cosine', (4,), {'a': []}),
    ('general_cosine', (4,), {'a': 3}),
    ('hann', (4,), {'layout': None}),
]


@pytest.mark.parametrize('name,args,kw', BAD)
def test_errors_match_torch(name, args, kw):
    def run(mod):
        k = {key: (getattr(mod, v) if key == 'dtype' else v) for key, v in kw.items()}
        with pytest.raises(Exception) as info:
            getattr(mod.signal.windows, name)(*args, **k)
        return info.type, str(info.value).replace('torch.', '')
    assert run(ember) == run(torch)


def test_coefficient_errors_only_past_trivial_lengths():
    # torch checks the coefficients after the M == 0 / M == 1 shortcuts: same here
    for M in (0, 1):
        e, t = _both('general_cosine', M, a=[])
        assert_same(e, t)


def test_namespace():
    import ember.signal.windows as W
    assert sorted(W.__all__) == sorted(torch.signal.windows.__all__) == NAMES
    assert ember.signal.windows is W
    assert ember.signal.__all__ == ['windows']
    assert np.allclose(W.hann(8, sym=False).numpy(force=True), np.hanning(9)[:-1])
