"""ReLU / LeakyReLU modules vs torch."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from _util import run_both, sync
from oracle import rand


@pytest.mark.parametrize('make', [lambda n: n.ReLU(), lambda n: n.LeakyReLU(),
                                  lambda n: n.LeakyReLU(0.2), lambda n: n.LeakyReLU(-1.5)])
@pytest.mark.parametrize('shape', [(5,), (2, 3, 4), ()])
def test_forward_backward(make, shape):
    ye, yt = run_both(make(ember.nn), make(torch.nn), rand(*shape, seed=2))
    assert ye.grad_fn.name() == yt.grad_fn.name()


@pytest.mark.parametrize('make', [lambda n: n.ReLU(), lambda n: n.ReLU(inplace=True),
                                  lambda n: n.LeakyReLU(), lambda n: n.LeakyReLU(0.2, True),
                                  lambda n: n.LeakyReLU(negative_slope=1e-3)])
def test_repr(make):
    assert repr(make(ember.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize('cls,args', [('ReLU', ()), ('LeakyReLU', (0.3,))])
def test_inplace(cls, args):
    a = rand(3, 4, seed=7)
    outs = []
    for m in (ember, torch):
        x = m.from_numpy(a.copy()).requires_grad_()
        y = x * 1
        r = getattr(m.nn, cls)(*args, inplace=True)(y)
        assert r is y
        g = m.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
        r.backward(g)
        outs.append((r.detach().numpy().copy(), x.grad.numpy().copy(), r.grad_fn.name()))
    np.testing.assert_allclose(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1])
    assert outs[0][2] == outs[1][2]


def test_no_parameters_and_dtypes():
    for m in (nn.ReLU(), nn.LeakyReLU()):
        assert list(m.parameters()) == [] and list(m.state_dict()) == []
        x = ember.tensor([-1., 0., 2.], dtype=ember.float64)
        assert m(x).dtype == ember.float64
    assert nn.ReLU()(ember.tensor([-1, 2])).tolist() == [0, 2]
    assert nn.LeakyReLU(0.5)(ember.tensor([-2., 2.])).tolist() == [-1., 2.]


# ----------------------------------------------------------------------------- softmax layers
@pytest.mark.parametrize('make', [lambda n: n.Softmax(1), lambda n: n.Softmax(dim=-1),
                                  lambda n: n.Softmin(0), lambda n: n.LogSoftmax(2),
                                  lambda n: n.Softmax2d()])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_softmax_layers(make, dtype):
    ye, yt = run_both(make(ember.nn), make(torch.nn), rand(2, 3, 4, seed=3, dtype=dtype))
    assert ye.grad_fn.name() == yt.grad_fn.name()
    assert repr(make(ember.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize('cls', ['Softmax', 'Softmin', 'LogSoftmax'])
@pytest.mark.parametrize('shape', [(), (5,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_softmax_implicit_dim_warns(cls, shape):
    """dim=None: PyTorch's implicit choice (0 for 0/1/3-dim inputs, else 1) with its
    UserWarning, the same from the layer and the function."""
    x = rand(*shape, seed=4)
    res = []
    for m in (ember, torch):
        with pytest.warns(UserWarning, match='Implicit dimension choice for ' +
                          {'Softmax': 'softmax', 'Softmin': 'softmin',
                           'LogSoftmax': 'log_softmax'}[cls]):
            y = getattr(m.nn, cls)()(m.from_numpy(x.copy()))
        fname = {'Softmax': 'softmax', 'Softmin': 'softmin', 'LogSoftmax': 'log_softmax'}[cls]
        with pytest.warns(UserWarning) as rec:
            getattr(m.nn.functional, fname)(m.from_numpy(x.copy()))
        assert rec[0].filename == __file__    # points at the caller (stacklevel 3)
        res.append(y.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6, atol=1e-7)
    assert repr(getattr(nn, cls)()) == repr(getattr(torch.nn, cls)())


def test_softmax2d_errors_and_constants():
    for m in (ember, torch):
        with pytest.raises(ValueError, match='Softmax2d: expected input to be 3D or 4D, got 2D'):
            m.nn.Softmax2d()(m.zeros(2, 2))
    assert nn.Softmax.__constants__ == torch.nn.Softmax.__constants__
    assert nn.Softmax.__module__ == 'ember.nn.modules.activation'
    s = nn.LogSoftmax(1)
    del s.__dict__['dim']
    s.__setstate__(dict(s.__dict__))
    assert s.dim is None


def test_softmax_large_logits_stable():
    x = ember.tensor([[1e4, 0., -1e4], [-1e30, -1e30, -1e30]])
    y = ember.nn.functional.log_softmax(x, 1)
    assert bool(ember.isfinite(y).all())
    np.testing.assert_allclose(y.numpy()[0], [0., -1e4, -2e4])
    np.testing.assert_allclose(ember.softmax(x, 1).numpy()[1], [1 / 3] * 3, rtol=1e-6)


# ----------------------------------------------------------------------------- all layers
_LAYERS = [
    lambda n: n.ELU(), lambda n: n.ELU(0.5), lambda n: n.CELU(), lambda n: n.CELU(2.),
    lambda n: n.SELU(), lambda n: n.GELU(), lambda n: n.GELU('tanh'),
    lambda n: n.Hardshrink(), lambda n: n.Hardshrink(1.), lambda n: n.Softshrink(),
    lambda n: n.Softshrink(0.2), lambda n: n.Hardsigmoid(), lambda n: n.Hardswish(),
    lambda n: n.Hardtanh(), lambda n: n.Hardtanh(-0.5, 1.5), lambda n: n.ReLU6(),
    lambda n: n.LogSigmoid(), lambda n: n.Sigmoid(), lambda n: n.Tanh(), lambda n: n.SiLU(),
    lambda n: n.Mish(), lambda n: n.Softplus(), lambda n: n.Softplus(2., 1.),
    lambda n: n.Softsign(), lambda n: n.Tanhshrink(), lambda n: n.Threshold(0.1, -3.),
    lambda n: n.RReLU().eval(), lambda n: n.RReLU(0.2, 0.5).eval(), lambda n: n.PReLU(),
    lambda n: n.PReLU(3, 0.1), lambda n: n.GLU(), lambda n: n.GLU(1),
]


@pytest.mark.parametrize('k', range(len(_LAYERS)))
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(2, 3, 4), (3, 4), (4,)])
def test_layer_vs_torch(k, dtype, shape):
    """Forward values, input (and PReLU weight) gradients under a random upstream gradient,
    grad_fn names, batched and unbatched inputs, float32 and float64."""
    make = _LAYERS[k]
    t = make(torch.nn).to(getattr(torch, np.dtype(dtype).name))
    e = make(ember.nn).to(getattr(ember, np.dtype(dtype).name))
    if isinstance(t, torch.nn.PReLU) and t.num_parameters != 1 and \
            (len(shape) < 2 or shape[1] != 3):
        shape = (2, 3) + shape[2:]
    if isinstance(t, torch.nn.GLU) and t.dim == 1:     # needs an even dim 1
        shape = {(2, 3, 4): (2, 4, 3), (4,): (3, 4)}.get(shape, shape)
    ye, yt = run_both(e, t, rand(*shape, seed=k, dtype=dtype) * 3)
    assert ye.grad_fn.name() == yt.grad_fn.name()
    assert str(ye.dtype) == str(yt.dtype)


_REPRS = [
    lambda n: n.ELU(alpha=0.5, inplace=True), lambda n: n.CELU(2, True), lambda n: n.SELU(True),
    lambda n: n.GELU(approximate='tanh'), lambda n: n.Hardshrink(2), lambda n: n.Softshrink(1),
    lambda n: n.Hardsigmoid(True), lambda n: n.Hardswish(True), lambda n: n.Hardtanh(-2, 3, True),
    lambda n: n.ReLU6(True), lambda n: n.SiLU(True), lambda n: n.Mish(True),
    lambda n: n.Softplus(beta=2, threshold=10), lambda n: n.Threshold(0.1, 20, True),
    lambda n: n.RReLU(0.1, 0.3, True), lambda n: n.PReLU(num_parameters=3, init=0.1),
    lambda n: n.GLU(dim=0), lambda n: n.Sequential(n.Linear(2, 2), n.GELU(), n.Softmax(-1)),
]


@pytest.mark.parametrize('make', _LAYERS + _REPRS)
def test_layer_repr_and_constants(make):
    e, t = make(ember.nn), make(torch.nn)
    assert repr(e) == repr(t)
    assert getattr(type(e), '__constants__', None) == getattr(type(t), '__constants__', None)
    assert type(e).__module__ == type(t).__module__.replace('torch', 'ember')
    assert list(e.state_dict()) == list(t.state_dict())
    assert [k for k in vars(e) if not k.startswith('_')] == \
        [k for k in vars(t) if not k.startswith('_')]


_INPLACE = [
    ('ELU', (0.5,), 'EluBackward1'), ('CELU', (1.5,), 'CeluBackward1'),
    ('SELU', (), 'EluBackward1'),
    ('Hardsigmoid', (), 'HardsigmoidBackward0'), ('Hardswish', (), 'HardswishBackward0'),
    ('Hardtanh', (-0.5, 0.7), 'HardtanhBackward0'), ('ReLU6', (), 'HardtanhBackward0'),
    ('SiLU', (), 'SiluBackward0'), ('Mish', (), 'MishBackward0'),
    ('Threshold', (0.2, -1.), 'ThresholdBackward1'),
    ('RReLU', (0.1, 0.4), 'RreluWithNoiseBackward1'),
    ('LeakyReLU', (0.2,), 'LeakyReluBackward1'), ('ReLU', (), 'ReluBackward0'),
]


@pytest.mark.parametrize('cls,args,node', _INPLACE)
@pytest.mark.parametrize('train', [False, True])
def test_inplace_layers(cls, args, node, train):
    """inplace=True writes into the input (the same object comes back, its version moves),
    records PyTorch's in-place node, and gives torch's gradients."""
    a = rand(3, 4, seed=7) * 3
    g = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    outs = []
    for m in (ember, torch):
        m.manual_seed(5)
        x = m.from_numpy(a.copy()).requires_grad_()
        y = x * 1
        v = y._version
        layer = getattr(m.nn, cls)(*args, inplace=True).train(train)
        r = layer(y)
        assert r is y and y._version > v
        assert r.grad_fn.name() == node
        r.backward(m.from_numpy(g.copy()))
        outs.append((r.detach().numpy().copy(), x.grad.numpy().copy()))
        # a fresh leaf that requires grad cannot be written in place
        with pytest.raises(RuntimeError, match='leaf Variable that requires grad'):
            layer(m.from_numpy(a.copy()).requires_grad_())
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('fn', [
    lambda m, y: m.nn.functional.elu_(y, -0.5), lambda m, y: m.nn.functional.celu_(y, -2.),
    lambda m, y: m.nn.functional.leaky_relu_(y, -0.1),
    lambda m, y: m.nn.functional.rrelu_(y, -0.5, -0.1)])
def test_inplace_negative_slope_backward_refused(fn):
    """PyTorch refuses the backward of an in-place ELU/CELU/leaky ReLU with a negative slope
    (it would need the input, which the result no longer tells); so does ember."""
    for m in (ember, torch):
        x = m.tensor([-1., 2.], requires_grad=True)
        y = fn(m, x * 1)
        with pytest.raises(RuntimeError, match='negative slope'):
            y.sum().backward()


def test_prelu_parameters_and_init():
    for n, init in ((1, 0.25), (3, 0.1)):
        e, t = nn.PReLU(n, init), torch.nn.PReLU(n, init)
        assert list(e.state_dict()) == ['weight'] and tuple(e.weight.shape) == (n,)
        np.testing.assert_array_equal(e.weight.detach().numpy(), t.weight.detach().numpy())
        assert e.weight.requires_grad and e.init == init
    e = nn.PReLU(3, dtype=ember.float64)
    assert e.weight.dtype == ember.float64
    e.weight.data.fill_(0.)
    e.reset_parameters()
    assert e.weight.tolist() == [0.25] * 3
    # per-channel weight: channel dim 1, broadcast over the rest; its gradient sums them
    t = torch.nn.PReLU(3)
    with torch.no_grad():
        t.weight.copy_(torch.tensor([0.1, -0.2, 0.3]))
    e = nn.PReLU(3)
    sync(e, t)
    for shape in ((2, 3), (2, 3, 5), (2, 3, 2, 2), (1, 3, 1, 1, 2)):
        run_both(e, t, rand(*shape, seed=len(shape)))
        e.zero_grad()
        t.zero_grad()
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='Mismatch of parameter numbers and input '
                                               'channel size'):
            m.nn.PReLU(3)(m.zeros(2, 4))


def test_prelu_weight_dtype_mismatch():
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='Type promoting not supported'):
            m.nn.PReLU()(m.zeros(2, 3, dtype=m.float64))


@pytest.mark.parametrize('lower,upper', [(1 / 8, 1 / 3), (0.1, 0.9), (0.3, 0.3)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_rrelu_training_matches_torch_stream(lower, upper, dtype):
    """In training, the random slopes are PyTorch's: after the same seed the outputs,
    the gradients and the random stream afterwards are bit-identical."""
    a = rand(4, 5, 6, seed=3, dtype=dtype)
    g = np.random.default_rng(2).standard_normal(a.shape).astype(dtype)
    res = []
    for m in (ember, torch):
        m.manual_seed(11)
        x = m.from_numpy(a.copy()).requires_grad_()
        y = m.nn.RReLU(lower, upper)(x)          # a new module is in training mode
        y.backward(m.from_numpy(g.copy()))
        res.append((y.detach().numpy(), x.grad.numpy(), m.rand(3).numpy(), y.grad_fn.name()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])
    np.testing.assert_array_equal(res[0][2], res[1][2])
    assert res[0][3] == res[1][3]
    neg = a <= 0
    slope = res[0][0][neg] / a[neg]
    assert (slope >= np.float32(lower) - 1e-6).all() and (slope <= upper + 1e-6).all()


def test_rrelu_eval_and_noncontiguous_train():
    a = rand(3, 4, seed=9)
    for m in (ember, torch):
        m.manual_seed(0)
    ye = nn.RReLU(0.1, 0.3).eval()(ember.from_numpy(a.copy()))
    yt = torch.nn.RReLU(0.1, 0.3).eval()(torch.from_numpy(a.copy()))
    np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-6)
    assert ember.rand(2).tolist() == torch.rand(2).tolist()    # eval draws nothing
    # a transposed input draws in the (contiguous) index order of its values
    ember.manual_seed(4)
    torch.manual_seed(4)
    ye = ember.nn.functional.rrelu(ember.from_numpy(a.copy()).t(), training=True)
    yt = torch.nn.functional.rrelu(torch.from_numpy(a.copy()).t(), training=True)
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())


def test_rrelu_bounds_and_generator():
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='Lower bound should be less than or equal'):
            m.nn.functional.rrelu(m.zeros(2), 0.5, 0.1, training=True)
    a = rand(10, seed=1)
    ge, gt = ember.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    ye = ember.rrelu(ember.from_numpy(a.copy()), 0.1, 0.5, True, generator=ge)
    yt = torch.rrelu(torch.from_numpy(a.copy()), 0.1, 0.5, True, generator=gt)
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())


@pytest.mark.parametrize('hard', [False, True])
@pytest.mark.parametrize('tau,dim', [(1., -1), (0.5, 0), (2., 1)])
def test_gumbel_softmax_matches_torch(hard, tau, dim):
    a = rand(4, 5, seed=6)
    g = np.random.default_rng(3).standard_normal(a.shape).astype(np.float32)
    res = []
    for m in (ember, torch):
        m.manual_seed(21)
        x = m.from_numpy(a.copy()).requires_grad_()
        y = m.nn.functional.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)
        y.backward(m.from_numpy(g.copy()))
        res.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-5)
    assert res[0][2] == res[1][2]
    if hard:
        assert (res[0][0].sum(dim) == 1).all()
    with pytest.warns(UserWarning, match='`eps` parameter is deprecated'):
        ember.nn.functional.gumbel_softmax(ember.zeros(3), eps=1e-5)


def test_layer_errors():
    for m in (ember, torch):
        with pytest.raises(AssertionError, match=r'max_val \(-1\) must be greater than min_val'):
            m.nn.Hardtanh(1, -1)
        with pytest.raises(RuntimeError, match='Halving dimension must be even'):
            m.nn.GLU()(m.zeros(2, 3))
        with pytest.raises(RuntimeError, match='approximate argument must be either none or tanh'):
            m.nn.GELU('exact')(m.zeros(2))
        with pytest.raises(ValueError, match='min_val cannot be greater than max_val'):
            m.nn.functional.hardtanh(m.zeros(2), 1., 0.)
        with pytest.warns(FutureWarning, match='`min_value` is deprecated'):
            h = m.nn.Hardtanh(min_value=-2.)
        assert h.min_val == -2.


@pytest.mark.parametrize('fn', [
    lambda m, x: m.nn.functional.gelu(x), lambda m, x: m.nn.functional.gelu(x, approximate='tanh'),
    lambda m, x: m.nn.functional.elu(x), lambda m, x: m.nn.functional.selu(x),
    lambda m, x: m.nn.functional.softplus(x, 2.), lambda m, x: m.nn.functional.mish(x),
    lambda m, x: m.nn.functional.silu(x), lambda m, x: m.nn.functional.logsigmoid(x),
    lambda m, x: m.softmax(x, -1), lambda m, x: m.log_softmax(x, 0),
    lambda m, x: m.nn.functional.glu(x, -1)])
def test_double_backward(fn):
    """Backward is written in ember ops: second derivatives (create_graph) equal torch's."""
    a = rand(3, 4, seed=5, dtype=np.float64) * 2
    v = np.random.default_rng(0).standard_normal(a.shape)
    res = []
    for m in (ember, torch):
        x = m.from_numpy(a.copy()).requires_grad_()
        y = fn(m, x)
        g = m.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        (gx,) = m.autograd.grad(y, x, g, create_graph=True)
        (ggx,) = m.autograd.grad(gx, x, m.from_numpy(v.copy()))
        res.append((gx.detach().numpy(), ggx.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8, atol=1e-10)


def test_torch_level_names():
    """The activation ops PyTorch has as ``torch.*`` / Tensor methods are there too."""
    for n in ('celu', 'celu_', 'selu', 'selu_', 'rrelu', 'rrelu_', 'threshold', 'threshold_',
              'prelu', 'hardshrink', 'softmax', 'log_softmax'):
        assert callable(getattr(ember, n)), n
    for n in ('softmax', 'log_softmax', 'hardshrink', 'prelu'):
        assert callable(getattr(ember.Tensor, n)), n
    F = ember.nn.functional
    for n in ('elu', 'elu_', 'celu', 'celu_', 'selu', 'selu_', 'gelu', 'glu', 'hardshrink',
              'hardsigmoid', 'hardswish', 'hardtanh', 'hardtanh_', 'logsigmoid', 'mish', 'prelu',
              'relu6', 'rrelu', 'rrelu_', 'sigmoid', 'silu', 'softmax', 'softmin', 'softplus',
              'softshrink', 'softsign', 'tanh', 'tanhshrink', 'threshold', 'threshold_',
              'log_softmax', 'gumbel_softmax', 'relu', 'relu_', 'leaky_relu', 'leaky_relu_'):
        assert n in F.__all__ and callable(getattr(F, n)), n
    x = ember.tensor([-1., 2.])
    assert ember.celu(x).tolist() == pytest.approx(torch.celu(torch.tensor([-1., 2.])).tolist())


@pytest.mark.parametrize('fn', [
    lambda m, x: m.nn.functional.hardtanh(x), lambda m, x: m.nn.functional.relu6(x),
    lambda m, x: m.nn.functional.threshold(x, 0.1, 2.), lambda m, x: m.nn.functional.leaky_relu(x),
    lambda m, x: m.nn.functional.hardshrink(x), lambda m, x: m.nn.functional.softshrink(x),
    lambda m, x: m.nn.functional.rrelu(x), lambda m, x: m.nn.functional.rrelu(x, training=True),
    lambda m, x: m.nn.functional.prelu(x, m.tensor([0.25], dtype=x.dtype))])
def test_piecewise_linear_double_backward(fn):
    """The gradient of a piecewise-linear activation is still linked to its input (a zero
    second derivative, PyTorch's ``...BackwardBackward0`` node), not cut off from it."""
    res = []
    for m in (ember, torch):
        x = m.tensor([-1.5, -0.2, 0.3, 2.], dtype=m.float64, requires_grad=True)
        (gx,) = m.autograd.grad(fn(m, x), x, m.ones(4, dtype=m.float64), create_graph=True)
        (ggx,) = m.autograd.grad(gx, x, m.ones(4, dtype=m.float64))
        res.append((gx.requires_grad, gx.grad_fn.name(), ggx.tolist()))
    assert res[0] == res[1]


def test_softmax_modules_and_conv_transpose_reach_modes():
    # the modules call their functional op at call time, so a TorchFunctionMode sees it
    from ember.overrides import TorchFunctionMode
    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, '__name__', ''))
            return func(*args, **(kwargs or {}))

    mods = [ember.nn.Softmax(1), ember.nn.Softmin(1), ember.nn.LogSoftmax(1)]
    ct = ember.nn.ConvTranspose2d(1, 1, 2)
    x, y = ember.ones(2, 2), ember.ones(1, 1, 3, 3)
    with Mode():
        for m in mods:
            m(x)
        ct(y)
    for name in ('softmax', 'softmin', 'log_softmax', 'conv_transpose2d'):
        assert name in seen, (name, seen)
