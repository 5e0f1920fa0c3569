"""nn.utils.weight_norm / remove_weight_norm vs torch: weight_g / weight_v parameters, the
forward pre-hook, values and gradients for several dims, removal, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ._common import both, close


@pytest.mark.parametrize('factory,dim,xshape', [
    (lambda nn: nn.Linear(5, 4), 0, (3, 5)),
    (lambda nn: nn.Linear(5, 4), 1, (3, 5)),
    (lambda nn: nn.Linear(5, 4), None, (3, 5)),
    (lambda nn: nn.Conv2d(2, 3, 2), 0, (1, 2, 4, 4)),
    (lambda nn: nn.Conv2d(2, 3, 2), -2, (1, 2, 4, 4)),
    (lambda nn: nn.ConvTranspose1d(2, 3, 2), 1, (1, 2, 5)),
])
def test_weight_norm_values_and_grads(factory, dim, xshape):
    x = np.random.default_rng(0).standard_normal(xshape).astype(np.float32)
    up = None

    def f(lib):
        nonlocal up
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', FutureWarning)
            m = lib.nn.utils.weight_norm(factory(lib.nn), dim=dim)
        y = m(lib.from_numpy(x))
        if up is None:
            up = np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(lib.from_numpy(up))
        return (y, m.weight, m.weight_g, m.weight_v, m.weight_g.grad, m.weight_v.grad,
                m.bias.grad, list(m.state_dict()), [n for n, _ in m.named_parameters()])
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-5)


def test_weight_norm_warns_hook_and_remove():
    def f(lib):
        with pytest.warns(FutureWarning, match='parametrizations.weight_norm'):
            m = lib.nn.utils.weight_norm(lib.nn.Linear(20, 40), name='weight')
        hooks = [type(h).__name__ for h in m._forward_pre_hooks.values()]
        with lib.no_grad():
            m.weight_g.mul_(2)
        y = m(lib.ones(1, 20))
        w = m.weight
        out = lib.nn.utils.remove_weight_norm(m)
        assert out is m
        return (hooks, m.weight_g if hasattr(m, 'weight_g') else None, m.weight, y,
                isinstance(m.weight, lib.nn.Parameter), list(m.state_dict()), w)
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)


def test_weight_norm_errors():
    msgs = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', FutureWarning)
            m = lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
            with pytest.raises(RuntimeError) as a:
                lib.nn.utils.weight_norm(m)
            with pytest.raises(ValueError) as b:
                lib.nn.utils.remove_weight_norm(m, 'bias')
            with pytest.raises(ValueError) as c:
                lib.nn.utils.weight_norm(lib.nn.LazyLinear(3))
        msgs.append((str(a.value), str(b.value).split(' not found')[0], str(c.value)))
    assert msgs[0] == msgs[1]
