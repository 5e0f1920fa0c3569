"""nn.utils.stateless.functional_call vs torch: values, gradients to the given tensors,
buffers, tied weights (tie_weights), strict key checks, the module restored afterwards,
the deprecation warning."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ._common import both, close, sub


def _call(lib, *args, **kw):
    S = sub(lib, 'stateless')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        return S.functional_call(*args, **kw)


def test_functional_call_values_grads_restored():
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)

    def f(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        w = lib.ones(4, 3, requires_grad=True)
        rm = lib.zeros(4)
        params = {'0.weight': w, '1.running_mean': rm}
        y = _call(lib, m, params, (lib.from_numpy(x),))
        y.sum().backward()
        y2 = _call(lib, m, params, lib.from_numpy(x), {})
        return (y, w.grad, m[0].weight.grad, rm, m[1].running_mean, y2,
                type(m[0].weight).__name__, list(params))
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)


def test_kwargs_and_warning():
    def f(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(2))

            def forward(self, x, *, k=1.0):
                return self.w * x * k
        S = sub(lib, 'stateless')
        with pytest.warns(FutureWarning, match='torch.func.functional_call'):
            y = S.functional_call(Scale(), {'w': lib.tensor([2., 3.])}, (lib.ones(2),),
                                  {'k': 2.0})
        return y
    t, e = both(f)
    close(t, e)


@pytest.mark.parametrize('tie_weights', [True, False])
def test_tied_weights(tie_weights):
    def f(lib):
        m = lib.nn.Module()
        m.a = lib.nn.Linear(2, 2, bias=False)
        m.b = lib.nn.Linear(2, 2, bias=False)
        m.b.weight = m.a.weight
        m.forward = lambda x: m.b(m.a(x))
        y = _call(lib, m, {'a.weight': lib.eye(2) * 2}, (lib.ones(1, 2),),
                  tie_weights=tie_weights)
        return y
    t, e = both(f)
    close(t, e)

    def g(lib):
        m = lib.nn.Module()
        m.a = lib.nn.Linear(2, 2, bias=False)
        m.b = lib.nn.Linear(2, 2, bias=False)
        m.b.weight = m.a.weight
        _call(lib, m, {'a.weight': lib.eye(2), 'b.weight': lib.zeros(2, 2)}, (lib.ones(1, 2),))
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            g(lib)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_strict_and_errors():
    def run(lib, case):
        m = lib.nn.Linear(2, 2)
        if case == 'strict_missing':
            _call(lib, m, {'weight': lib.ones(2, 2)}, (lib.ones(1, 2),), strict=True)
        elif case == 'strict_unexpected':
            _call(lib, m, {'weight': lib.ones(2, 2), 'bias': lib.ones(2), 'x': lib.ones(1)},
                  (lib.ones(1, 2),), strict=True)
        elif case == 'bad_type':
            _call(lib, m, {'weight': 3}, (lib.ones(1, 2),))
        elif case == 'bad_path':
            _call(lib, m, {'foo.weight': lib.ones(2, 2)}, (lib.ones(1, 2),))
    for case, exc in (('strict_missing', RuntimeError), ('strict_unexpected', RuntimeError),
                      ('bad_type', TypeError), ('bad_path', AttributeError)):
        msgs = []
        for lib in (torch, ember):
            with pytest.raises(exc) as info:
                run(lib, case)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1], case
    # strict with exactly the keys works; the module keeps its own tensors afterwards
    for lib in (torch, ember):
        m = lib.nn.Linear(2, 2)
        w = m.weight
        y = _call(lib, m, {'weight': lib.zeros(2, 2), 'bias': lib.ones(2)}, (lib.ones(1, 2),),
                  strict=True)
        assert m.weight is w and y.tolist() == [[1.0, 1.0]]
