"""nn.functional: linear, relu, leaky_relu, l1_loss, mse_loss, pad (all modes) vs torch."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck_ember, rand


@pytest.mark.parametrize('xs', [(4, 3), (3,), (2, 5, 3), (2, 1, 2, 3), (0, 3)])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_linear(xs, bias, dtype):
    arrays = [rand(*xs, dtype=dtype, seed=1), rand(2, 3, dtype=dtype, seed=2)]
    if bias:
        arrays.append(rand(2, dtype=dtype, seed=3))
    r, t = check(lambda m, *a: m.nn.functional.linear(*a), arrays, grad=True)
    assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__ or r.grad_fn.name() == t.grad_fn.name()


def test_linear_grad_fn_graph():
    x = ember.randn(4, 3, requires_grad=True)
    w = ember.randn(2, 3, requires_grad=True)
    b = ember.randn(2, requires_grad=True)
    y = ember.nn.functional.linear(x, w, b)
    assert y.grad_fn.name() == 'AddmmBackward0'
    assert [n.name() for n, _ in y.grad_fn.next_functions] == [
        'torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad', 'TBackward0']
    assert ember.nn.functional.linear(x, w).grad_fn.name() == 'MmBackward0'
    assert ember.nn.functional.linear(ember.randn(5, 4, 3), w, b).grad_fn.name() == 'ViewBackward0'
    with ember.no_grad():
        assert ember.nn.functional.linear(x, w, b).grad_fn is None
    # only the weight requires grad
    y = ember.nn.functional.linear(ember.randn(4, 3), w, ember.randn(2))
    y.sum().backward()
    assert w.grad.shape == (2, 3)


def test_linear_mixed_and_broadcast_bias():
    check(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
          [rand(4, 3, seed=1), rand(2, 3, seed=2), rand(1, seed=3)], grad=True)
    check(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
          [rand(4, 3, dtype=np.float16, seed=1), rand(2, 3, dtype=np.float16, seed=2),
           rand(2, dtype=np.float16, seed=3)], rtol=2e-3, atol=2e-3)


def test_linear_double_backward():
    gradcheck_ember(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
                    [rand(3, 4, seed=1), rand(2, 4, seed=2), rand(2, seed=3)])

    def f(m, x, w, b):
        y = m.nn.functional.linear(x, w, b)
        g, = m.autograd.grad((y * y).sum(), w, create_graph=True)
        return g
    check(f, [rand(3, 4, dtype=np.float64, seed=1), rand(2, 4, dtype=np.float64, seed=2),
              rand(2, dtype=np.float64, seed=3)], grad=True)


def test_linear_errors():
    check_error(lambda m, x, w: m.nn.functional.linear(x, w), [rand(2, 5), rand(4, 3)],
                match='cannot be multiplied (2x5 and 3x4)')
    check_error(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
                [rand(2, 5), rand(4, 3), rand(4)], match='cannot be multiplied (2x5 and 3x4)')
    check_error(lambda m, x, w: m.nn.functional.linear(x, w),
                [rand(2, 3, dtype=np.float64), rand(4, 3)])
    check_error(lambda m, x, w, b: m.nn.functional.linear(x, w, b),
                [rand(2, 3), rand(4, 3), rand(5)])
    check_error(lambda m, w: m.nn.functional.linear(m.tensor(1.), w), [rand(4, 3)],
                match='both arguments to linear need to be at least 1D')


@pytest.mark.parametrize('shape', [(5,), (3, 4), (), (0, 2)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_relu_leaky_relu(shape, dtype):
    a = rand(*shape, dtype=dtype)
    check(lambda m, x: m.nn.functional.relu(x), [a], grad=True)
    check(lambda m, x: m.relu(x), [a], grad=True)
    for slope in (0.01, 0.2, -0.5):
        r, t = check(lambda m, x: m.nn.functional.leaky_relu(x, slope), [a], grad=True)
        if shape:
            assert r.grad_fn.name() == t.grad_fn.name() == 'LeakyReluBackward0'


def test_inplace_activations():
    def f(m, x):
        y = x * 1
        m.nn.functional.relu(y, inplace=True)
        z = y * 1
        m.nn.functional.leaky_relu(z, 0.3, inplace=True)
        return z
    r, t = check(f, [rand(4, 5)], grad=True)
    assert r.grad_fn.name() == t.grad_fn.name() == 'LeakyReluBackward1'

    def g(m, x):
        y = x * 1
        m.nn.functional.relu_(y)
        z = x * 2
        return y + m.nn.functional.leaky_relu_(z, 0.1)
    check(g, [rand(6)], grad=True)
    x = ember.tensor([-1., 2.])
    assert ember.nn.functional.relu(x, inplace=True) is x and x.tolist() == [0., 2.]


def test_activation_gradcheck():
    gradcheck_ember(lambda m, x: m.nn.functional.leaky_relu(x, 0.2), [rand(3, 4, seed=5)])


@pytest.mark.parametrize('loss', ['l1_loss', 'mse_loss'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('shapes', [((3, 4), (3, 4)), ((5,), (5,)), ((), ())])
def test_losses(loss, reduction, shapes):
    r, t = check(lambda m, x, y: getattr(m.nn.functional, loss)(x, y, reduction=reduction),
                 [rand(*shapes[0], seed=1), rand(*shapes[1], seed=2)], grad=True)
    if loss == 'mse_loss' and reduction != 'none':
        assert r.grad_fn.name() == t.grad_fn.name() == 'MseLossBackward0'


def test_losses_broadcast_warning_and_legacy_args():
    for loss in ('l1_loss', 'mse_loss'):
        with pytest.warns(UserWarning, match='Using a target size'):
            getattr(ember.nn.functional, loss)(ember.ones(3, 1), ember.zeros(3))
        with pytest.warns(UserWarning):
            r = getattr(ember.nn.functional, loss)(ember.ones(3), ember.zeros(3), size_average=False)
        assert r.item() == 3.0
        check(lambda m, x, y: getattr(m.nn.functional, loss)(x, y), [rand(3, 1), rand(3)],
              grad=True)
    check_error(lambda m, x, y: m.nn.functional.mse_loss(x, y, reduction='foo'), [rand(2), rand(2)],
                match='is not a valid value for reduction')


def test_mse_loss_gradcheck():
    gradcheck_ember(lambda m, x, y: m.nn.functional.mse_loss(x, y), [rand(3, 2, seed=1), rand(3, 2, seed=2)])
    gradcheck_ember(lambda m, x, y: m.nn.functional.mse_loss(x, y, reduction='sum'),
                    [rand(4, seed=1), rand(4, seed=2)])


@pytest.mark.parametrize('shape,pad', [((3,), (1, 2)), ((2, 3), (1, 1, 2, 0)), ((2, 3), (-1, 2)),
                                       ((1, 2, 3, 4), (0, 1, 1, 0, 2, 2)), ((2, 3), (0, 0, -1, -1)),
                                       ((2, 3), ())])
@pytest.mark.parametrize('value', [None, 2.5])
def test_pad_constant(shape, pad, value):
    r, t = check(lambda m, x: m.nn.functional.pad(x, pad, value=value), [rand(*shape)], grad=True)
    assert r.grad_fn is None or r.grad_fn.name() == t.grad_fn.name()


def test_pad_constant_int_and_errors():
    check(lambda m, x: m.nn.functional.pad(x, (1, 1), value=7), [rand(2, 3, dtype=np.int64)])
    check_error(lambda m, x: m.nn.functional.pad(x, (1,)), [rand(2, 3)],
                match='Padding length must be divisible by 2')
    check_error(lambda m, x: m.nn.functional.pad(x, (1, 1, 1, 1, 1, 1)), [rand(2, 3)],
                match='Padding length should be less than or equal to two times the input dimension')
    check_error(lambda m, x: m.nn.functional.pad(x, (1, 1), mode='foo'), [rand(2, 3)],
                match='Unrecognised padding mode foo')


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('shape,pad', [((2, 5), (2, 1)), ((1, 2, 5), (1, 3)), ((2, 4, 5), (1, 2, 2, 1)),
                                       ((1, 2, 4, 5), (2, 0, 1, 3)), ((2, 3, 4, 3), (1, 1, 2, 0, 1, 2)),
                                       ((1, 2, 3, 4, 3), (1, 2, 0, 1, 2, 1)), ((1, 2, 6), (-1, 2)),
                                       ((1, 2, 6), (2, -2))])
def test_pad_modes(mode, shape, pad):
    r, t = check(lambda m, x: m.nn.functional.pad(x, pad, mode=mode), [rand(*shape)], grad=True)
    if mode != 'circular':
        assert r.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
def test_pad_modes_gradcheck(mode):
    gradcheck_ember(lambda m, x: m.nn.functional.pad(x, (2, 1, 1, 2), mode=mode), [rand(1, 3, 4, seed=2)])


def test_pad_mode_errors():
    check_error(lambda m, x: m.nn.functional.pad(x, (5, 5), mode='reflect'), [rand(1, 2, 5)],
                match='Padding size should be less than the corresponding input dimension')
    check_error(lambda m, x: m.nn.functional.pad(x, (1, 1), mode='reflect'), [rand(5)],
                match='Padding size 2 is not supported for 1D input tensor')
    check_error(lambda m, x: m.nn.functional.pad(x, (6, 1), mode='circular'), [rand(1, 2, 5)],
                match='Padding value causes wrapping around more than once')
    check_error(lambda m, x: m.nn.functional.pad(x, (1, 1, 1, 1), mode='replicate'), [rand(5)])
