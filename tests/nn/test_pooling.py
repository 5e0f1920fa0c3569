"""Pooling layers (ember/nn/modules/pooling.py) vs torch: outputs, indices, input gradients
under a random upstream gradient, reprs, attributes, empty state_dicts, batched and
unbatched inputs, float32/float64, train and eval mode; FractionalMaxPool with fixed and
seeded random samples; MaxUnpool round trips; double backward; channels_last layouts."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, errors_both, rand

LAYERS = [
    # (constructor source, input spatial dims)
    ('MaxPool1d(3)', 1),
    ('MaxPool1d(3, 2, 1, return_indices=True)', 1),
    ('MaxPool1d(2, dilation=2, ceil_mode=True, return_indices=True)', 1),
    ('MaxPool2d(2)', 2),
    ('MaxPool2d((3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), return_indices=True)', 2),
    ('MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)', 2),
    ('MaxPool3d(2, return_indices=True)', 3),
    ('MaxPool3d(3, (1, 2, 2), 1, ceil_mode=True)', 3),
    ('AvgPool1d(3)', 1),
    ('AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False)', 1),
    ('AvgPool2d(2)', 2),
    ('AvgPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True)', 2),
    ('AvgPool2d(3, 1, 1, count_include_pad=False)', 2),
    ('AvgPool2d(3, 2, 1, divisor_override=4)', 2),
    ('AvgPool3d(2)', 3),
    ('AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False, divisor_override=None)', 3),
    ('LPPool1d(2, 3)', 1),
    ('LPPool1d(1.5, 3, 2, ceil_mode=True)', 1),
    ('LPPool2d(2, 2)', 2),
    ('LPPool2d(3, (3, 2), (2, 1))', 2),
    ('LPPool2d(float("inf"), 2)', 2),
    ('LPPool3d(2, 2)', 3),
    ('AdaptiveMaxPool1d(4)', 1),
    ('AdaptiveMaxPool1d(3, return_indices=True)', 1),
    ('AdaptiveMaxPool2d((3, 4), return_indices=True)', 2),
    ('AdaptiveMaxPool2d((None, 3))', 2),
    ('AdaptiveMaxPool3d((2, 3, None), return_indices=True)', 3),
    ('AdaptiveAvgPool1d(4)', 1),
    ('AdaptiveAvgPool2d((3, 4))', 2),
    ('AdaptiveAvgPool2d((None, 5))', 2),
    ('AdaptiveAvgPool2d(1)', 2),
    ('AdaptiveAvgPool3d((2, 3, 2))', 3),
]

SHAPES = {1: (7,), 2: (7, 6), 3: (5, 6, 7)}


def _input(src, nd, batched, dtype, seed=0):
    shape = ((2, 3) if batched else (3,)) + SHAPES[nd]
    if src.startswith('LPPool') and 'inf' not in src:
        return rand(*shape, dtype=dtype, seed=seed, low=0.1, high=2)   # x ** p of x >= 0
    return rand(*shape, dtype=dtype, seed=seed)


@pytest.mark.parametrize('src,nd', LAYERS, ids=[s for s, _ in LAYERS])
@pytest.mark.parametrize('batched', [True, False], ids=['batched', 'unbatched'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64], ids=['f32', 'f64'])
def test_layer_vs_torch(src, nd, batched, dtype):
    x = _input(src, nd, batched, dtype)
    mods = {}

    def f(m, x):
        mod = eval('m.nn.' + src)
        mods[m] = mod
        return mod(x)
    check(f, [x], grad=True, rtol=1e-5 if dtype == np.float32 else None,
          atol=1e-5 if dtype == np.float32 else None)
    e, t = mods[ember], mods[torch]
    assert repr(e) == repr(t)
    assert type(e).__module__ == 'ember.nn.modules.pooling'
    assert e.state_dict().keys() == t.state_dict().keys() == set()
    assert list(e.parameters()) == [] and list(e.buffers()) == []
    for name in getattr(type(t), '__constants__', ()):
        assert getattr(e, name) == getattr(t, name), name
    # no train/eval dependence, as in torch
    e.eval()
    t.eval()
    check(lambda m, x: (e if m is ember else t)(x), [x])


@pytest.mark.parametrize('nd', [2, 3])
def test_fractional_fixed_samples(nd):
    rng = np.random.default_rng(0)
    shape = (2, 3) + ((9, 11) if nd == 2 else (7, 8, 9))
    x = rand(*shape, seed=1)
    u = rng.uniform(0, 1, (2, 3, nd)).astype(np.float32)
    cls = f'FractionalMaxPool{nd}d'
    mods = {}

    def f(m, x):
        mod = getattr(m.nn, cls)(2, output_size=(4, 5, 6)[:nd], return_indices=True,
                                 _random_samples=m.from_numpy(u.copy()))
        mods[m] = mod
        return mod(x)
    check(f, [x], grad=True)
    e, t = mods[ember], mods[torch]
    assert repr(e) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys()) == ['_random_samples']
    for name in type(t).__constants__:
        assert getattr(e, name) == getattr(t, name), name
    # ratio form, unbatched
    xu = rand(*shape[1:], seed=2)
    check(lambda m, x: getattr(m.nn, cls)(2, output_ratio=0.5, _random_samples=m.from_numpy(
        u[:1].copy()))(x), [xu], grad=True)


@pytest.mark.parametrize('nd', [2, 3])
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
def test_fractional_seeded_matches_torch(nd, dtype):
    """Without ``_random_samples`` the samples come from the generator, as torch draws them:
    after the same seed the windows (indices) are torch's."""
    shape = (2, 3) + ((10, 12) if nd == 2 else (6, 7, 8))
    x = rand(*shape, dtype=dtype, seed=3)

    def f(m, x):
        m.manual_seed(7)
        pool = getattr(m.nn, f'FractionalMaxPool{nd}d')(2, output_ratio=0.6, return_indices=True)
        a = pool(x)
        b = pool(x[0])          # a second draw (unbatched)
        return a + b + (m.rand(2),)   # the generator advanced alike
    check(f, [x], grad=True)


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_max_unpool_round_trip(nd):
    shape = (2, 3) + ((6,), (6, 8), (4, 6, 8))[nd - 1]
    x = rand(*shape, seed=4)
    P, U = f'MaxPool{nd}d', f'MaxUnpool{nd}d'

    def f(m, x):
        pool = getattr(m.nn, P)(2, stride=2, return_indices=True)
        unpool = getattr(m.nn, U)(2, stride=2)
        v, i = pool(x)
        u1 = unpool(v, i, output_size=x.shape)     # the input's full size
        u2 = unpool(v, i)                          # the default size
        v2, i2 = pool(u1)                          # pooling the unpooled gives v back
        return u1, u2, v2, i2, v
    re, rt = check(f, [x], grad=True)
    u1, _, v2, i2, v = re
    # each window of the unpooled tensor holds its max (the rest is zeros)
    np.testing.assert_array_equal(v2.detach().numpy(), np.maximum(v.detach().numpy(), 0))
    assert repr(getattr(ember.nn, U)(2, stride=2)) == repr(getattr(torch.nn, U)(2, stride=2))
    # unbatched
    check(lambda m, x: getattr(m.nn, U)(2)(*getattr(m.nn, P)(2, return_indices=True)(x[0])),
          [x], grad=True)


def test_unpool_after_fractional():
    x = rand(1, 2, 9, 9, seed=5)
    u = np.random.default_rng(1).uniform(0, 1, (1, 2, 2)).astype(np.float32)

    def f(m, x):
        v, i = m.nn.FractionalMaxPool2d(2, output_size=5, return_indices=True,
                                        _random_samples=m.from_numpy(u.copy()))(x)
        return m.nn.MaxUnpool2d(2)(v, i, output_size=(9, 9))
    check(f, [x], grad=True)


@pytest.mark.parametrize('src', ['MaxPool2d(3, 2, 1)', 'AvgPool2d(3, 2, 1)',
                                 'AdaptiveAvgPool2d((3, 4))', 'AdaptiveMaxPool2d((3, 4))',
                                 'MaxPool1d(2)', 'AvgPool3d(2)', 'LPPool2d(2, 2)',
                                 'MaxPool3d(2, 1)'])
def test_double_backward(src):
    nd = 1 if '1d' in src else 3 if '3d' in src else 2
    x = _input(src, nd, True, np.float64)

    def f(m, x):
        y = eval('m.nn.' + src)(x)
        g, = m.autograd.grad((y * y).sum(), x, create_graph=True)
        return g, type(g.grad_fn).__name__
    e, t = check(f, [x], grad=True)


def test_grad_fn_names():
    x = rand(2, 3, 6, 6, dtype=np.float64)
    names = {}
    for m in (ember, torch):
        xx = (ember.from_numpy(x) if m is ember else torch.from_numpy(x)).requires_grad_()
        F = m.nn.functional
        outs = [F.max_pool2d(xx, 2), F.max_pool3d(xx[None], 2), F.avg_pool2d(xx, 2),
                F.avg_pool3d(xx[None], 2), F.adaptive_avg_pool2d(xx, 4),
                F.adaptive_avg_pool3d(xx[None], 4), F.adaptive_max_pool2d(xx, 4),
                F.adaptive_max_pool3d(xx[None], 4),
                F.fractional_max_pool2d(xx, 2, output_size=3),
                F.fractional_max_pool3d(xx[None], 2, output_size=(1, 2, 2)),
                F.max_unpool2d(*F.max_pool2d(xx, 2, return_indices=True), 2),
                F.max_unpool3d(*F.max_pool3d(xx[None], 2, return_indices=True), 2),
                F.max_pool1d(xx[0], 2), F.adaptive_avg_pool2d(xx, 1)]
        names[m] = [type(o.grad_fn).__name__ for o in outs]
        names[m].append(type(m.max_pool2d(xx, 2).grad_fn).__name__)
    assert names[ember] == names[torch]


@pytest.mark.parametrize('fn', [
    lambda m, x: m.nn.MaxPool2d(2)(x),
    lambda m, x: m.nn.MaxPool2d(3, 2, 1, return_indices=True)(x),
    lambda m, x: m.nn.AvgPool2d(3, 2, 1)(x),
    lambda m, x: m.nn.AdaptiveAvgPool2d(3)(x),
    lambda m, x: m.nn.AdaptiveMaxPool2d(3, return_indices=True)(x),
    lambda m, x: m.nn.MaxPool3d(2)(x.unsqueeze(0)),
])
def test_channels_last_outputs(fn):
    x = rand(2, 3, 8, 8, seed=6)

    def f(m, x):
        xc = x.contiguous(memory_format=m.channels_last)
        r = fn(m, xc)
        r = r if isinstance(r, tuple) else (r,)
        return tuple(o.stride() for o in r), fn(m, x)
    check(f, [x], grad=True)


def test_module_errors():
    for src in ['FractionalMaxPool2d(2)', 'FractionalMaxPool2d(2, output_ratio=1.5)',
                'FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)',
                'FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0))']:
        e, t = errors_both(lambda m: eval('m.nn.' + src))
        assert str(e) == str(t)
    x = rand(4, seed=0)
    for src in ['MaxPool2d(2)', 'AvgPool1d(2)', 'AdaptiveAvgPool2d(2)', 'MaxPool3d(2)',
                'AdaptiveMaxPool1d(2)', 'LPPool2d(2, 2)']:
        e, t = errors_both(lambda m: eval('m.nn.' + src)(m.from_numpy(x)))
    x = rand(1, 2, 4, 4, seed=0)
    for src in ['MaxPool2d(2, padding=2)', 'MaxPool2d(5)', 'AvgPool2d(3, padding=2)',
                'AvgPool2d(2, divisor_override=0)', 'MaxPool2d(0)', 'AdaptiveAvgPool2d(-1)']:
        e, t = errors_both(lambda m: eval('m.nn.' + src)(m.from_numpy(x)))
        assert str(e) == str(t), src


def test_error_messages():
    """The wording of the common shape errors is torch's."""
    cases = [
        lambda m: m.nn.functional.max_pool2d(m.zeros(2, 3, 1, 1), 2),
        lambda m: m.nn.functional.max_pool2d(m.zeros(3, 4), 2),
        lambda m: m.nn.functional.max_pool2d(m.zeros(1, 2, 4, 4), 2, dilation=0),
        lambda m: m.nn.functional.max_pool2d(m.zeros(1, 2, 4, 4), 2, padding=-1),
        lambda m: m.nn.functional.avg_pool1d(m.zeros(3), 2),
        lambda m: m.nn.functional.adaptive_avg_pool2d(m.zeros(1, 2, 0, 4), 2),
        lambda m: m.nn.functional.adaptive_max_pool3d(m.zeros(1, 4), 2),
        lambda m: m.nn.functional.fractional_max_pool2d(m.zeros(1, 2, 4, 4), 3, output_size=3),
        lambda m: m.nn.functional.max_unpool2d(m.zeros(1, 1, 2, 2),
                                               m.tensor([[[[0, 1], [2, 30]]]]), 2),
        lambda m: m.nn.functional.max_unpool2d(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 2), 2),
        lambda m: m.nn.functional.max_unpool2d(m.zeros(1, 1, 2, 2),
                                               m.zeros(1, 1, 2, 2, dtype=m.long), 2,
                                               output_size=(9, 9)),
        lambda m: m.nn.functional.max_pool2d(m.zeros(1, 2, 4, 4, dtype=m.bool), 2),
        # the values-only 1-d kernel's own checks
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), (2, 2)),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 2, stride=(1, 2)),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 2, padding=(1, 1)),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 2, stride=0),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 3, padding=2),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 2, dilation=-1),
        lambda m: m.nn.functional.max_pool1d(m.zeros(1, 2, 4), 5),
        lambda m: m.nn.functional.max_pool1d(m.zeros(2, 0, 4), 2),
        lambda m: m.max_pool1d(m.zeros(1, 2, 4, dtype=m.long), 2),
        lambda m: m.nn.functional.avg_pool3d(m.zeros(1, 1, 2, 2, 2, dtype=m.float16), 2),
        lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 2, 2, dtype=m.int32), 2),
        lambda m: m.nn.functional.max_unpool2d(m.zeros(1, 1, 2, 2, dtype=m.long),
                                               m.zeros(1, 1, 2, 2, dtype=m.long), 2),
    ]
    for fn in cases:
        e, t = errors_both(fn)
        assert str(e) == str(t)


def test_lenet_pool_shapes():
    x = rand(64, 1, 28, 28, seed=8)
    check(lambda m, x: m.nn.MaxPool2d(2)(m.nn.MaxPool2d(2)(x)), [x], grad=True)


@pytest.mark.parametrize('dt', ['float16', 'bfloat16'])
@pytest.mark.parametrize('fn', [
    lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
    lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1),
    lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (3, 5)),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (3, 5), return_indices=True),
    lambda m, x: m.nn.functional.fractional_max_pool2d(
        x, 2, output_size=(4, 5), return_indices=True,
        _random_samples=m.tensor([[[0.123, 0.777]] * 3] * 2, dtype=x.dtype)),
])
def test_low_precision(dt, fn):
    x = rand(2, 3, 9, 11, seed=9)
    check(lambda m, x: fn(m, x.to(getattr(m, dt))), [x], grad=True, rtol=1e-2, atol=1e-2)


def test_random_configurations():
    """Max/avg pooling, 1-3d, over random kernel/stride/padding/dilation/ceil_mode/
    count_include_pad: values, input gradients (float64) and errors equal torch's."""
    rng = np.random.default_rng(0)
    done = 0
    for trial in range(150):
        nd = int(rng.integers(1, 4))
        k = tuple(int(v) for v in rng.integers(1, 5, nd))
        s = tuple(int(v) for v in rng.integers(1, 5, nd))
        d = tuple(int(v) for v in rng.integers(1, 3, nd))
        p = tuple(int(rng.integers(0, ((k[i] - 1) * d[i] + 1) // 2 + 1)) for i in range(nd))
        ceil = bool(rng.integers(0, 2))
        sp = tuple(int(v) for v in rng.integers(1, 10, nd))
        is_max = bool(rng.integers(0, 2))
        if nd == 3 and is_max and ceil:
            ceil = False     # torch's max_pool3d can corrupt memory on some of these
        x = rng.standard_normal((2, 2) + sp)

        def fn(m, x):
            F = m.nn.functional
            if is_max:
                return getattr(F, f'max_pool{nd}d')(x, k, s, p, d, ceil_mode=ceil,
                                                     return_indices=True)
            return getattr(F, f'avg_pool{nd}d')(x, k, s, p, ceil_mode=ceil,
                                                 count_include_pad=bool(trial % 2))
        try:
            with ember.no_grad():
                r = fn(ember, ember.from_numpy(x))
        except RuntimeError:
            errors_both(lambda m: fn(m, m.from_numpy(x)))
            continue
        r = r[0] if is_max else r
        if np.isinf(r.numpy()).any():
            continue   # a window of padding only: torch's backward writes out of bounds
        check(fn, [x], grad=True)
        done += 1
    assert done > 60


def test_saved_attributes():
    """``grad_fn._saved_*`` (the saved arguments and tensors) read as torch's."""
    x = rand(1, 2, 6, 6, dtype=np.float64)
    u = [[[0.3, 0.6], [0.1, 0.9]]]
    res = {}
    for m in (ember, torch):
        xx = (ember.from_numpy(x) if m is ember else torch.from_numpy(x)).requires_grad_()
        F = m.nn.functional
        outs = [F.max_pool2d(xx, 3, 2, 1, return_indices=True)[0], F.max_pool2d(xx, 2),
                F.max_pool3d(xx[None], 2), F.avg_pool2d(xx, 3, 2, 1, True, False, 3),
                F.avg_pool2d(xx, 2), F.adaptive_avg_pool2d(xx, 4),
                F.adaptive_max_pool2d(xx, 4),
                F.fractional_max_pool2d(xx, 2, output_size=3,
                                        _random_samples=m.tensor(u, dtype=m.float64)),
                F.max_unpool2d(*F.max_pool2d(xx, 2, return_indices=True), 2),
                F.max_pool1d(xx[0], 3, 1)]
        r = []
        for o in outs:
            fn = o.grad_fn
            if type(fn).__name__.startswith('Squeeze'):
                fn = fn.next_functions[0][0]
            d = {}
            for n in ('kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode',
                      'count_include_pad', 'divisor_override', 'output_size'):
                if hasattr(fn, '_saved_' + n):
                    d[n] = tuple(getattr(fn, '_saved_' + n)) if isinstance(
                        getattr(fn, '_saved_' + n), (tuple, list)) else getattr(fn, '_saved_' + n)
            for n in ('self', 'result1', 'indices'):
                if hasattr(fn, '_saved_' + n):
                    d[n] = tuple(getattr(fn, '_saved_' + n).shape)
            r.append((type(fn).__name__, d))
        res[m] = r
    assert res[ember] == res[torch]


def test_inplace_change_of_saved_input_raises():
    x = rand(1, 2, 6, 6)
    for fn in (lambda m, y: m.nn.functional.max_pool2d(y, 2),
               lambda m, y: m.nn.functional.avg_pool2d(y, 2),
               lambda m, y: m.nn.functional.adaptive_avg_pool2d(y, 4)):
        def f(m):
            xx = m.from_numpy(x.copy()).requires_grad_()
            y = xx * 1
            out = fn(m, y)
            y.add_(1)
            out.sum().backward()
        errors_both(f)
