"""nn.utils.parametrize vs torch: register_parametrization (right_inverse, unsafe,
chaining, several originals), remove_parametrizations (leave_parametrized), cached,
is_parametrized, type_before_parametrizations, transfer_parametrizations_and_params,
ParametrizationList; class names, parameter names, state_dict keys (loading into torch),
gradients through parametrized weights, errors."""
import copy

import numpy as np
import pytest
import torch

import ember
from ._common import both, close, sub, to_ember, to_torch


def _classes(lib):
    nn = lib.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    class Double(nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            return X + 1

    class Split(nn.Module):   # right_inverse returns two tensors
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class Wide(nn.Module):    # changes the shape
        def forward(self, X):
            return lib.cat([X, X], dim=0)

    class Half(nn.Module):    # changes the dtype
        def forward(self, X):
            return X.double()

    return Symmetric, Skew, Double, Counter, Split, Wide, Half


def test_register_symmetric_grads_names_state_dict():
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)

    def f(lib):
        P = sub(lib, 'parametrize')
        Symmetric = _classes(lib)[0]
        m = lib.nn.Linear(4, 4)
        orig_param = m.weight
        out = P.register_parametrization(m, 'weight', Symmetric())
        assert out is m and m.parametrizations.weight.original is orig_param
        y = m(lib.from_numpy(x))
        y.backward(lib.ones_like(y))
        return (type(m).__name__, type(m).__bases__[0].__name__,
                type(m.parametrizations).__name__, type(m.parametrizations.weight).__name__,
                list(m.state_dict()), [n for n, _ in m.named_parameters()],
                m.weight, y, m.parametrizations.weight.original.grad, m.bias.grad,
                P.is_parametrized(m), P.is_parametrized(m, 'weight'),
                P.is_parametrized(m, 'bias'), P.type_before_parametrizations(m).__name__,
                repr(m).replace('torch', 'ember'))
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)
    assert type(ember.nn.utils.parametrize.register_parametrization(
        ember.nn.Linear(2, 2), 'weight', _classes(ember)[0]())).__module__ == \
        'ember.nn.utils.parametrize'


def test_right_inverse_assignment_and_chaining():
    def f(lib):
        P = sub(lib, 'parametrize')
        Symmetric, Skew, Double, *_ = _classes(lib)
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, 'weight', Symmetric())
        P.register_parametrization(m, 'weight', Double())
        w1 = m.weight.clone()
        target = lib.arange(9.).view(3, 3)
        target = target + target.T
        m.weight = target
        orig = m.parametrizations.weight.original.clone()
        return (w1, m.weight, orig, len(m.parametrizations.weight),
                list(m.state_dict()), m.parametrizations.weight.unsafe)
    t, e = both(f)
    close(t, e, rtol=1e-6, atol=1e-6)


def test_several_originals_and_buffers():
    def f(lib):
        P = sub(lib, 'parametrize')
        Split = _classes(lib)[4]
        m = lib.nn.BatchNorm1d(3)
        P.register_parametrization(m, 'weight', Split())
        P.register_parametrization(m, 'running_mean', _classes(lib)[2]())
        y = m(lib.arange(6.).view(2, 3))
        y.sum().backward()
        pl = m.parametrizations.weight
        with pytest.raises(ValueError) as info:
            P.remove_parametrizations(m, 'weight', leave_parametrized=False)
        return (list(m.state_dict()), [n for n, _ in m.named_parameters()],
                [n for n, _ in m.named_buffers()], pl.original0, pl.original1,
                pl.original0.grad, pl.is_tensor, pl.ntensors, m.weight, m.running_mean,
                str(info.value))
    t, e = both(f)
    close(t, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('leave', [True, False])
def test_remove_parametrizations(leave):
    def f(lib):
        P = sub(lib, 'parametrize')
        Symmetric, Skew, Double, *_ = _classes(lib)
        m = lib.nn.Linear(3, 3)
        w_obj = m.weight
        P.register_parametrization(m, 'weight', Skew())
        P.register_parametrization(m, 'bias', Double())
        P.remove_parametrizations(m, 'weight', leave_parametrized=leave)
        name1 = type(m).__name__
        P.remove_parametrizations(m, 'bias', leave_parametrized=leave)
        return (name1, type(m).__name__, m.weight is w_obj, m.weight, m.bias,
                list(m.state_dict()), hasattr(m, 'parametrizations'),
                isinstance(m.weight, lib.nn.Parameter))
    t, e = both(f)
    close(t, e, exact=True)


def test_cached():
    def f(lib):
        P = sub(lib, 'parametrize')
        Counter = _classes(lib)[3]
        m = lib.nn.Linear(2, 2)
        c = Counter()
        P.register_parametrization(m, 'weight', c, unsafe=True)
        calls0 = c.calls
        with P.cached():
            a = m.weight
            b = m.weight
            with P.cached():
                m.weight
            same = a is b
        m.weight
        return calls0, c.calls, same
    t, e = both(f)
    assert t == e


def test_transfer_and_deepcopy():
    def f(lib):
        P = sub(lib, 'parametrize')
        Symmetric, Skew, Double, *_ = _classes(lib)
        src = lib.nn.Linear(3, 3)
        P.register_parametrization(src, 'weight', Symmetric())
        P.register_parametrization(src, 'weight', Double())
        dst = lib.nn.Linear(3, 3)
        P.transfer_parametrizations_and_params(src, dst)
        shared = dst.parametrizations.weight.original is src.parametrizations.weight.original
        dst2 = lib.nn.Linear(3, 3)
        P.transfer_parametrizations_and_params(src, dst2, 'weight')
        cp = copy.deepcopy(src)
        return (type(dst).__name__, shared, dst.weight, dst2.weight, list(dst.state_dict()),
                type(cp).__name__, cp.weight, cp.parametrizations.weight.original is
                src.parametrizations.weight.original)
    t, e = both(f)
    close(t, e, exact=True)


def test_state_dict_loads_into_torch():
    Se = _classes(ember)[0]
    St = _classes(torch)[0]
    ember.manual_seed(0)
    m = ember.nn.Linear(4, 4)
    ember.nn.utils.parametrize.register_parametrization(m, 'weight', Se())
    tm = torch.nn.Linear(4, 4)
    torch.nn.utils.parametrize.register_parametrization(tm, 'weight', St())
    tm.load_state_dict({k: to_torch(v) for k, v in m.state_dict().items()})
    close(tm.weight, m.weight, exact=True)
    m2 = ember.nn.Linear(4, 4)
    ember.nn.utils.parametrize.register_parametrization(m2, 'weight', Se())
    m2.load_state_dict({k: to_ember(v) for k, v in tm.state_dict().items()})
    close(tm.weight, m2.weight, exact=True)


def test_errors():
    def run(lib, case):
        P = sub(lib, 'parametrize')
        Symmetric, Skew, Double, Counter, Split, Wide, Half = _classes(lib)
        m = lib.nn.Linear(2, 2)
        if case == 'missing':
            P.register_parametrization(m, 'foo', Double())
        elif case == 'shape':
            P.register_parametrization(m, 'weight', Wide())
        elif case == 'dtype':
            P.register_parametrization(m, 'weight', Half())
        elif case == 'chain_shape':
            P.register_parametrization(m, 'weight', Double())
            P.register_parametrization(m, 'weight', Wide())
        elif case == 'remove':
            P.remove_parametrizations(m, 'weight')
        elif case == 'no_right_inverse':
            P.register_parametrization(m, 'weight', Skew())
            m.weight = lib.zeros(2, 2)
        elif case == 'empty':
            P.ParametrizationList([], m.weight)
        elif case == 'assign_param':
            P.register_parametrization(m, 'weight', Double())
            m.weight = lib.nn.Parameter(lib.zeros(2, 2))
    for case, exc in (('missing', ValueError), ('shape', ValueError), ('dtype', ValueError),
                      ('chain_shape', ValueError), ('remove', ValueError),
                      ('no_right_inverse', RuntimeError), ('empty', ValueError),
                      ('assign_param', KeyError)):
        msgs = []
        for lib in (torch, ember):
            with pytest.raises(exc) as info:
                run(lib, case)
            msgs.append(str(info.value).replace('torch.', '').replace('ember.', ''))
        assert msgs[0] == msgs[1], case
    # unsafe lets the shape change
    for lib in (torch, ember):
        m = lib.nn.Linear(2, 2)
        sub(lib, 'parametrize').register_parametrization(m, 'weight', _classes(lib)[5](),
                                                         unsafe=True)
        assert tuple(m.weight.shape) == (4, 2)


def test_parametrized_module_pickling_refused():
    import io
    import pickle
    msgs = []
    for lib in (torch, ember):
        m = lib.nn.Linear(2, 2)
        sub(lib, 'parametrize').register_parametrization(m, 'weight', _classes(lib)[2]())
        with pytest.raises(RuntimeError) as a:
            pickle.dumps(m)
        with pytest.raises(RuntimeError) as b:
            lib.save(m, io.BytesIO())
        msgs.append((str(a.value), str(b.value)))
    assert msgs[0] == msgs[1]
    assert 'only supported through state_dict()' in msgs[1][0]
