"""Autocast vs torch 2.13: the dtypes ops produce inside ``autocast('cpu')``, state
functions, thread-locality, nesting, the weight-cast cache, custom_fwd/custom_bwd.

The end-to-end tests need the op dispatcher's interceptor (ember/_ops/_dispatch.py)."""
import threading
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.amp import autocast_mode as am

R = np.random.default_rng(0)


def _pair(*shape, dtype=np.float32):
    a = R.standard_normal(shape).astype(dtype)
    return torch.from_numpy(a.copy()), ember.from_numpy(a.copy())


# op name -> fn(m, F, make) where make(*shape) gives a float32 tensor of module m
CASES = {
    'mm': lambda m, F, t: m.mm(t(2, 3), t(3, 4)),
    'matmul': lambda m, F, t: m.matmul(t(2, 3), t(3, 4)),
    '@': lambda m, F, t: t(2, 3) @ t(3, 4),
    'bmm': lambda m, F, t: m.bmm(t(2, 2, 3), t(2, 3, 4)),
    'addmm': lambda m, F, t: m.addmm(t(2, 4), t(2, 3), t(3, 4)),
    'baddbmm': lambda m, F, t: m.baddbmm(t(2, 2, 4), t(2, 2, 3), t(2, 3, 4)),
    'addbmm': lambda m, F, t: m.addbmm(t(2, 4), t(2, 2, 3), t(2, 3, 4)),
    'linear': lambda m, F, t: F.linear(t(2, 3), t(4, 3), t(4)),
    'conv1d': lambda m, F, t: F.conv1d(t(1, 2, 5), t(3, 2, 2)),
    'conv2d': lambda m, F, t: F.conv2d(t(1, 2, 5, 5), t(3, 2, 2, 2)),
    'conv3d': lambda m, F, t: F.conv3d(t(1, 2, 3, 3, 3), t(3, 2, 2, 2, 2)),
    'conv_transpose1d': lambda m, F, t: F.conv_transpose1d(t(1, 2, 5), t(2, 3, 2)),
    'conv_transpose2d': lambda m, F, t: F.conv_transpose2d(t(1, 2, 4, 4), t(2, 3, 2, 2)),
    'conv_transpose3d': lambda m, F, t: F.conv_transpose3d(t(1, 2, 3, 3, 3), t(2, 3, 2, 2, 2)),
    'prelu': lambda m, F, t: F.prelu(t(2, 3), t(3)),
    'sdpa': lambda m, F, t: F.scaled_dot_product_attention(t(1, 2, 3, 4), t(1, 2, 3, 4),
                                                            t(1, 2, 3, 4)),
    # fp32 list: low-precision inputs come out float32
    'mse_loss': lambda m, F, t: F.mse_loss(t(2, 3).bfloat16(), t(2, 3).bfloat16()),
    'l1_loss': lambda m, F, t: F.l1_loss(t(2, 3).bfloat16(), t(2, 3).bfloat16()),
    'cross_entropy': lambda m, F, t: F.cross_entropy(t(2, 3).bfloat16(), m.tensor([0, 2])),
    'nll_loss': lambda m, F, t: F.nll_loss(t(2, 3).bfloat16(), m.tensor([0, 2])),
    'prod': lambda m, F, t: m.prod(t(2, 3).bfloat16()),
    'trace': lambda m, F, t: m.trace(t(3, 3).bfloat16()),
    'inverse': lambda m, F, t: m.inverse(t(3, 3).bfloat16()),
    # promote list: widest floating input
    'cat': lambda m, F, t: m.cat([t(2).bfloat16(), t(2)]),
    'stack': lambda m, F, t: m.stack([t(2).bfloat16(), t(2).bfloat16()]),
    # not in any list: unchanged
    'add': lambda m, F, t: t(2, 3) + t(2, 3),
    'relu': lambda m, F, t: F.relu(t(2, 3)),
    'softmax': lambda m, F, t: F.softmax(t(2, 3).bfloat16(), dim=1),
    'sum': lambda m, F, t: t(2, 3).bfloat16().sum(),
    'mm_float64': lambda m, F, t: m.mm(t(2, 3).double(), t(3, 4).double()),
    'mm_int': lambda m, F, t: m.mm(m.ones(2, 3, dtype=m.int64), m.ones(3, 4, dtype=m.int64)),
}


def _run(m, name, **ac):
    F = m.nn.functional
    rng = np.random.default_rng(1)

    def t(*shape):
        return m.from_numpy(rng.standard_normal(shape).astype(np.float32))
    with m.autocast('cpu', **ac):
        return CASES[name](m, F, t)


@pytest.mark.parametrize('name', sorted(CASES))
def test_autocast_cpu_dtype_end_to_end(name):
    want = _run(torch, name)
    got = _run(ember, name)
    assert str(got.dtype) == str(want.dtype), name
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.float().detach().numpy(), want.float().detach().numpy(),
                               rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize('name', ['mm', 'linear', 'conv2d', 'cat'])
def test_autocast_cpu_float16(name):
    if name == 'cat':   # bfloat16 + float32 inputs under float16 autocast: torch raises
        with pytest.raises(RuntimeError, match="Unexpected floating ScalarType"):
            _run(torch, name, dtype=torch.float16)
        with pytest.raises(RuntimeError, match="Unexpected floating ScalarType"):
            _run(ember, name, dtype=ember.float16)
        return
    want = _run(torch, name, dtype=torch.float16)
    got = _run(ember, name, dtype=ember.float16)
    assert str(got.dtype) == str(want.dtype)


@pytest.mark.parametrize('name', ['mm', 'linear', 'mse_loss'])
def test_autocast_disabled_region(name):
    want = _run(torch, name, enabled=False)
    got = _run(ember, name, enabled=False)
    assert str(got.dtype) == str(want.dtype)


def test_autocast_backward_gives_float32_grads():
    for m in (torch, ember):
        w = m.ones(3, 4, requires_grad=True)
        x = m.ones(2, 3)
        with m.autocast('cpu'):
            y = x @ w
            assert y.dtype == m.bfloat16
        y.float().sum().backward()
        assert w.grad.dtype == m.float32
        assert w.grad.tolist() == [[2.0] * 4] * 3


def test_nested_regions_and_state():
    for m in (torch, ember):
        assert not m.is_autocast_enabled('cpu')
        assert m.get_autocast_dtype('cpu') == m.bfloat16
        assert m.get_autocast_dtype('cuda') == m.float16
        with m.autocast('cpu'):
            assert m.is_autocast_enabled('cpu')
            assert not m.is_autocast_enabled()          # CUDA's, without an argument
            with m.autocast('cpu', enabled=False):
                assert not m.is_autocast_enabled('cpu')
                a = m.ones(2, 2)
                assert (a @ a).dtype == m.float32
            with m.autocast('cpu', dtype=m.float16):
                assert m.get_autocast_dtype('cpu') == m.float16
            assert m.get_autocast_dtype('cpu') == m.bfloat16
            assert m.is_autocast_enabled('cpu')
        assert not m.is_autocast_enabled('cpu')


def test_decorator():
    for m in (torch, ember):
        @m.autocast('cpu')
        def f(a):
            return a @ a
        assert f(m.ones(2, 2)).dtype == m.bfloat16
        assert (m.ones(2, 2) @ m.ones(2, 2)).dtype == m.float32


def test_amp_autocast_is_the_same_class():
    assert ember.amp.autocast is ember.autocast
    with ember.amp.autocast(device_type='cpu'):
        assert ember.is_autocast_enabled('cpu')


def test_deprecated_aliases_warn_like_torch():
    for m in (torch, ember):
        with pytest.warns(FutureWarning, match=r"torch\.cpu\.amp\.autocast"):
            ctx = m.cpu.amp.autocast()
        with ctx:
            assert m.is_autocast_enabled('cpu')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with m.cuda.amp.autocast():
                assert not m.is_autocast_enabled('cuda')   # no CUDA: disabled
        with pytest.warns(DeprecationWarning):
            assert m.is_autocast_cpu_enabled() is False


def test_unsupported_dtype_and_device_like_torch():
    for m in (torch, ember):
        with pytest.warns(UserWarning, match="CPU Autocast only supports"):
            with m.autocast('cpu', dtype=m.float32):
                assert not m.is_autocast_enabled('cpu')
        with pytest.warns(UserWarning, match="CUDA is not available"):
            with m.autocast('cuda'):
                assert not m.is_autocast_enabled('cuda')
        with pytest.raises(RuntimeError, match="Expected one of"):
            m.autocast('foo')
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            m.autocast(m.device('cpu'))
        assert m.amp.is_autocast_available('cpu')
        assert m.amp.is_autocast_available('cuda')
        assert not m.amp.is_autocast_available('meta')


def test_state_is_thread_local():
    res = {}
    ready = threading.Event()
    go = threading.Event()

    def worker():
        res['enabled'] = ember.is_autocast_enabled('cpu')
        a = ember.ones(2, 2)
        res['dtype'] = (a @ a).dtype
        ready.set()
        go.wait(5)
        with ember.autocast('cpu'):
            res['inner'] = (a @ a).dtype

    with ember.autocast('cpu'):
        th = threading.Thread(target=worker)
        th.start()
        ready.wait(5)
        a = ember.ones(2, 2)
        assert (a @ a).dtype == ember.bfloat16
    go.set()
    th.join()
    assert res == {'enabled': False, 'dtype': ember.float32, 'inner': ember.bfloat16}
    assert not ember.is_autocast_enabled('cpu')


def test_cast_args_identity_when_off():
    a = ember.ones(2, 2)
    args, kw = (a, a), {}
    assert am.cast_args('mm', args, kw) == (args, kw)
    with ember.autocast('cpu'):
        (x, y), _ = am.cast_args('mm', args, kw)
        assert x.dtype == ember.bfloat16 and y.dtype == ember.bfloat16
        (x,), _ = am.cast_args('add', (a,), {})
        assert x is a
        (x, y), _ = am.cast_args('cat', ([a.bfloat16(), a],), {})[0][0], None
        assert x.dtype == ember.float32 and y.dtype == ember.float32


def test_weight_cast_cache():
    w = ember.ones(3, 3, requires_grad=True)
    with ember.autocast('cpu'):
        (c1,), _ = am.cast_args('mm', (w,), {})
        (c2,), _ = am.cast_args('mm', (w,), {})
        assert c1 is c2
        assert am._cache
    assert not am._cache      # cleared when the outermost region exits
    with ember.autocast('cpu', cache_enabled=False):
        (c1,), _ = am.cast_args('mm', (w,), {})
        (c2,), _ = am.cast_args('mm', (w,), {})
        assert c1 is not c2


def test_set_autocast_enabled_direct():
    for m in (torch, ember):
        m.set_autocast_enabled('cpu', True)
        try:
            a = m.ones(2, 2)
            assert (a @ a).dtype == m.bfloat16
        finally:
            m.set_autocast_enabled('cpu', False)
        assert (m.ones(2, 2) @ m.ones(2, 2)).dtype == m.float32


def _custom(m):
    class MM(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type='cpu', cast_inputs=m.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.inner = m.is_autocast_enabled('cpu')
            return a.mm(b)

        @staticmethod
        @m.amp.custom_bwd(device_type='cpu')
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g.mm(b.t()), a.t().mm(g)

    class Plain(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type='cpu')
        def forward(ctx, a, b):
            return a.mm(b)

        @staticmethod
        @m.amp.custom_bwd(device_type='cpu')
        def backward(ctx, g):
            return g, g
    return MM, Plain


def test_custom_fwd_bwd_like_torch():
    out = {}
    for m in (torch, ember):
        MM, Plain = _custom(m)
        a = m.ones(2, 3, requires_grad=True)
        b = m.ones(3, 2, requires_grad=True)
        with m.autocast('cpu'):
            y = MM.apply(a.bfloat16(), b)
            z = Plain.apply(a, b)
        out[m.__name__] = (str(y.dtype), str(z.dtype))
        y.sum().backward()
        assert a.grad.dtype == m.float32
    assert out['ember'] == out['torch']
    with pytest.raises(ValueError):
        ember.amp.custom_fwd(device_type=ember.device('cpu'))
