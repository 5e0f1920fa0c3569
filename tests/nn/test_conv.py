"""Conv1d/2d/3d and ConvTranspose1d/2d/3d (+ lazy forms) vs torch; conv ops gradcheck."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error, gradcheck_ember, rand
from _util import pair, run_both

CONV = {1: 'Conv1d', 2: 'Conv2d', 3: 'Conv3d'}
CONVT = {1: 'ConvTranspose1d', 2: 'ConvTranspose2d', 3: 'ConvTranspose3d'}


def _x(nd, n=2, c=4, size=6, dtype=np.float32, seed=0):
    return rand(*((n, c) + (size,) * nd), dtype=dtype, seed=seed)


@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('kw', [
    dict(), dict(stride=2), dict(padding=1), dict(padding=(1,)), dict(dilation=2),
    dict(groups=2), dict(groups=2, bias=False), dict(padding="same"), dict(padding='valid'),
    dict(stride=2, padding=2, dilation=2, groups=2),
])
def test_conv_vs_torch(nd, kw):
    e, t = pair(lambda nn: getattr(nn, CONV[nd])(4, 6, 3, **kw))
    run_both(e, t, _x(nd))


@pytest.mark.parametrize('nd', [1, 2])
@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('padding', [1, 2, 'same'])
def test_conv_padding_modes(nd, mode, padding):
    e, t = pair(lambda nn: getattr(nn, CONV[nd])(4, 3, 3, padding=padding, padding_mode=mode,
                                                 dilation=1 if padding != 'same' else 2))
    run_both(e, t, _x(nd))
    assert repr(e) == repr(t)


def test_conv_same_even_kernel():
    e, t = pair(lambda nn: nn.Conv2d(4, 3, (2, 4), padding='same', dilation=(1, 2)))
    run_both(e, t, _x(2, size=7))


@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('kw', [
    dict(), dict(stride=2), dict(stride=2, output_padding=1), dict(padding=1),
    dict(groups=2), dict(dilation=2, stride=2, output_padding=1), dict(bias=False),
    dict(stride=3, padding=1, groups=2, dilation=2, output_padding=2),
])
def test_conv_transpose_vs_torch(nd, kw):
    e, t = pair(lambda nn: getattr(nn, CONVT[nd])(4, 6, 3, **kw))
    run_both(e, t, _x(nd, size=4))


def test_conv_transpose_output_size():
    e, t = pair(lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1))
    x = _x(2, size=5)
    for size in [(9, 9), (10, 10), [1, 2, 10, 9]]:
        ye = e(ember.from_numpy(x), output_size=size)
        yt = t(torch.from_numpy(x), output_size=size)
        assert tuple(ye.shape) == tuple(yt.shape)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    check_error(lambda m, x: (_m := (e if m is ember else t))(x, output_size=(12, 12)), [x])


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_unbatched(nd):
    e, t = pair(lambda nn: getattr(nn, CONV[nd])(4, 2, 3))
    run_both(e, t, rand(*((4,) + (5,) * nd), seed=3))
    e, t = pair(lambda nn: getattr(nn, CONVT[nd])(4, 2, 3))
    run_both(e, t, rand(*((4,) + (3,) * nd), seed=3))


def test_conv_float64_and_dtype_device_kwargs():
    e, t = pair(lambda nn: nn.Conv2d(2, 3, 3, dtype=torch.float64 if nn is torch.nn else ember.float64,
                                     device='cpu'))
    assert e.weight.dtype == ember.float64 and e.bias.device == ember.device('cpu')
    run_both(e, t, _x(2, c=2, dtype=np.float64))


@pytest.mark.parametrize('cls', ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d',
                                 'ConvTranspose2d', 'ConvTranspose3d'])
def test_repr_and_attributes(cls):
    for kw in [dict(), dict(stride=2, padding=1, bias=False), dict(groups=2, dilation=2)]:
        e = getattr(ember.nn, cls)(4, 6, 3, **kw)
        t = getattr(torch.nn, cls)(4, 6, 3, **kw)
        assert repr(e) == repr(t)
        assert e.weight.shape == t.weight.shape
        for a in ('kernel_size', 'stride', 'padding', 'dilation', 'output_padding', 'groups',
                  'transposed', 'padding_mode', 'in_channels', 'out_channels'):
            assert getattr(e, a) == getattr(t, a), a
        assert list(e.state_dict()) == list(t.state_dict())


def test_default_init_bounds():
    ember.manual_seed(0)
    m = ember.nn.Conv2d(8, 16, 3)
    bound = 1 / np.sqrt(8 * 9)
    assert m.weight.abs().max().item() <= bound + 1e-7
    assert m.bias.abs().max().item() <= bound + 1e-7
    assert m.weight.std().item() == pytest.approx(bound / np.sqrt(3), rel=0.15)


@pytest.mark.parametrize('lazy,nd', [('LazyConv1d', 1), ('LazyConv2d', 2), ('LazyConv3d', 3),
                                     ('LazyConvTranspose1d', 1), ('LazyConvTranspose2d', 2),
                                     ('LazyConvTranspose3d', 3)])
def test_lazy_conv(lazy, nd):
    m = getattr(ember.nn, lazy)(6, 3, stride=1)
    assert isinstance(m.weight, ember.nn.UninitializedParameter)
    x = ember.from_numpy(_x(nd, size=4))
    y = m(x)
    regular = lazy.replace('Lazy', '')
    assert type(m).__name__ == regular
    assert m.in_channels == 4
    t = getattr(torch.nn, regular)(4, 6, 3)
    assert m.weight.shape == t.weight.shape and m.bias.shape == t.bias.shape
    assert y.shape == t(torch.from_numpy(_x(nd, size=4))).shape
    assert repr(m) == repr(t)


def test_lazy_conv_no_bias_and_state_dict_load():
    m = ember.nn.LazyConv2d(3, 2, bias=False)
    assert m.bias is None
    src = ember.nn.Conv2d(5, 3, 2, bias=False)
    m.load_state_dict(src.state_dict())
    assert m.weight.shape == (3, 5, 2, 2) and ember.equal(m.weight, src.weight)


@pytest.mark.parametrize('fn,shapes,kw', [
    ('conv1d', [(2, 4, 7), (4, 2, 3), (4,)], dict(stride=2, padding=1, groups=2)),
    ('conv2d', [(1, 2, 5, 6), (4, 2, 2, 3), (4,)], dict(padding=(1, 0), dilation=(1, 2))),
    ('conv3d', [(1, 2, 3, 4, 3), (2, 1, 2, 2, 2), None], dict(groups=2)),
    ('conv_transpose1d', [(2, 4, 4), (4, 3, 3), (3,)], dict(stride=2, output_padding=1)),
    ('conv_transpose2d', [(1, 4, 3, 3), (4, 1, 2, 3), (2,)], dict(stride=(2, 1), groups=2, padding=1)),
    ('conv_transpose3d', [(1, 2, 2, 2, 2), (2, 2, 2, 1, 2), None], dict(dilation=2)),
])
def test_conv_ops_gradcheck(fn, shapes, kw):
    arrays = [rand(*s, dtype=np.float64, seed=i) for i, s in enumerate(shapes) if s is not None]
    if shapes[2] is None:
        f = lambda m, x, w: getattr(m.nn.functional, fn)(x, w, None, **kw)  # noqa: E731
    else:
        f = lambda m, x, w, b: getattr(m.nn.functional, fn)(x, w, b, **kw)  # noqa: E731
    gradcheck_ember(f, arrays)


def test_conv_double_backward_vs_torch():
    from oracle import check
    x, w = rand(1, 2, 5, 5, dtype=np.float64, seed=1), rand(3, 2, 3, 3, dtype=np.float64, seed=2)

    def f(m, x, w):
        y = m.nn.functional.conv2d(x, w, padding=1)
        g, = m.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(f, [x, w], grad=True)


def test_grad_fn_name():
    y = ember.nn.Conv2d(2, 2, 3)(ember.randn(1, 2, 4, 4))
    assert y.grad_fn.name() == 'ConvolutionBackward0'
    y = ember.nn.ConvTranspose2d(2, 2, 3)(ember.randn(1, 2, 4, 4))
    assert y.grad_fn.name() == 'ConvolutionBackward0'


def test_errors():
    check_error(lambda m, x: m.nn.Conv2d(2, 3, 3)(x), [rand(1, 3, 5, 5)], match='expected input[1, 3, 5, 5] to have 2 channels')
    check_error(lambda m, x: m.nn.Conv2d(2, 3, 3)(x), [rand(5, 5)],
                match='Expected 3D (unbatched) or 4D (batched) input to conv2d')
    check_error(lambda m, x: m.nn.Conv2d(2, 3, 3)(x), [rand(1, 2, 2, 2)],
                match="Kernel size can't be greater than actual input size")
    check_error(lambda m: m.nn.Conv2d(2, 3, 3, padding_mode='foo'),
                match="padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}")
    check_error(lambda m: m.nn.Conv2d(2, 3, 3, padding='foo'), match="Invalid padding string 'foo'")
    check_error(lambda m: m.nn.Conv2d(2, 3, 3, padding='same', stride=2),
                match="padding='same' is not supported for strided convolutions")
    check_error(lambda m: m.nn.ConvTranspose2d(2, 3, 3, padding_mode='reflect'),
                match='Only "zeros" padding mode is supported for ConvTranspose2d')
    check_error(lambda m: m.nn.Conv2d(3, 3, 3, groups=2), match='in_channels must be divisible by groups')
    check_error(lambda m: m.nn.Conv2d(4, 3, 3, groups=2), match='out_channels must be divisible by groups')
    check_error(lambda m: m.nn.Conv2d(4, 4, 3, groups=0), match='groups must be a positive integer')
    check_error(lambda m, x, w: m.nn.functional.conv2d(x, w), [rand(1, 2, 4, 4),
                                                             rand(3, 2, 3, 3, dtype=np.float64)])


@pytest.mark.parametrize('stride', [(0,), (-1,)])
def test_conv_non_positive_stride(stride):
    # torch's error for every convolution (issue 21)
    from oracle import check_error
    for f, x, w in (('conv1d', (1, 1, 4), (1, 1, 2)), ('conv2d', (1, 1, 4, 4), (1, 1, 2, 2)),
                    ('conv3d', (1, 1, 4, 4, 4), (1, 1, 2, 2, 2)),
                    ('conv_transpose2d', (1, 1, 4, 4), (1, 1, 2, 2))):
        check_error(lambda m: getattr(m.nn.functional, f)(m.ones(x), m.ones(w), stride=stride),
                    match='non-positive stride is not supported')
