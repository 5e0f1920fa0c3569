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
