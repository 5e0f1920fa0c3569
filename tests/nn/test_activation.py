"""ReLU / LeakyReLU modules vs torch."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from _util import run_both
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
