"""nn.init vs torch: gains and fans exactly; distributions statistically; orthogonality;
eye/dirac exactly; generator reproducibility; return values; no_grad."""
import math

import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check_error

N = (400, 500)


@pytest.mark.parametrize('nl,param', [('linear', None), ('conv1d', None), ('conv2d', None),
                                      ('conv3d', None), ('conv_transpose1d', None),
                                      ('conv_transpose2d', None), ('conv_transpose3d', None),
                                      ('sigmoid', None), ('tanh', None), ('relu', None),
                                      ('leaky_relu', None), ('leaky_relu', 0.2), ('leaky_relu', 1),
                                      ('selu', None)])
def test_calculate_gain(nl, param):
    assert nn.init.calculate_gain(nl, param) == pytest.approx(torch.nn.init.calculate_gain(nl, param), abs=0)


def test_calculate_gain_errors():
    check_error(lambda m: m.nn.init.calculate_gain('foo'), match='Unsupported nonlinearity foo')
    check_error(lambda m: m.nn.init.calculate_gain('leaky_relu', 'x'), match='negative_slope x not a valid number')
    check_error(lambda m: m.nn.init.calculate_gain('leaky_relu', True))


@pytest.mark.parametrize('shape', [(3, 4), (5, 2, 3), (6, 4, 3, 2), (2, 3, 1, 2, 2), (0, 3)])
def test_fan_in_fan_out(shape):
    e = nn.init._calculate_fan_in_and_fan_out(ember.empty(*shape))
    t = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    assert e == t


def test_fan_errors():
    check_error(lambda m: m.nn.init._calculate_fan_in_and_fan_out(m.empty(3)),
                match='Fan in and fan out can not be computed for tensor with fewer than 2 dimensions')
    check_error(lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 4), mode='fan_avg'),
                match='Mode fan_avg not supported')


def _stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_uniform_normal_constant():
    t = ember.empty(*N)
    assert nn.init.uniform_(t, -2, 3) is t
    m, s, lo, hi = _stats(t)
    assert lo >= -2 and hi <= 3 and abs(m - 0.5) < 0.02 and abs(s - 5 / math.sqrt(12)) < 0.02
    assert nn.init.normal_(t, 1.5, 0.5) is t
    m, s, _, _ = _stats(t)
    assert abs(m - 1.5) < 0.005 and abs(s - 0.5) < 0.005
    assert nn.init.constant_(t, 0.3) is t and bool((t == 0.3).all())
    assert nn.init.ones_(t) is t and bool((t == 1).all())
    assert nn.init.zeros_(t) is t and bool((t == 0).all())


def test_trunc_normal():
    t = ember.empty(*N)
    assert nn.init.trunc_normal_(t, mean=0.5, std=1.0, a=-1.0, b=2.0) is t
    m, s, lo, hi = _stats(t)
    assert lo >= -1.0 and hi <= 2.0
    ref = torch.nn.init.trunc_normal_(torch.empty(*N, dtype=torch.float64), 0.5, 1.0, -1.0, 2.0)
    assert abs(m - ref.mean().item()) < 0.01 and abs(s - ref.std().item()) < 0.01
    t2 = nn.init.trunc_normal_(ember.empty(*N), std=0.02)
    m, s, lo, hi = _stats(t2)
    assert lo >= -2 and hi <= 2 and abs(s - 0.02) < 0.001


@pytest.mark.parametrize('shape', [(300, 200), (64, 32, 3, 3)])
def test_xavier(shape):
    fi, fo = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    t = ember.empty(*shape)
    assert nn.init.xavier_uniform_(t, gain=2.0) is t
    a = 2.0 * math.sqrt(6.0 / (fi + fo))
    m, s, lo, hi = _stats(t)
    assert lo >= -a and hi <= a and abs(s - a / math.sqrt(3)) < 0.03 * a
    assert nn.init.xavier_normal_(t) is t
    m, s, _, _ = _stats(t)
    assert abs(s - math.sqrt(2.0 / (fi + fo))) < 0.03 * s and abs(m) < 0.05 * s


@pytest.mark.parametrize('mode', ['fan_in', 'fan_out'])
@pytest.mark.parametrize('nl,a', [('relu', 0), ('leaky_relu', 0), ('leaky_relu', math.sqrt(5)),
                                  ('linear', 0)])
def test_kaiming(mode, nl, a):
    shape = (256, 128, 3)
    fan = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))[mode == 'fan_out']
    std = torch.nn.init.calculate_gain(nl, a) / math.sqrt(fan)
    t = ember.empty(*shape)
    assert nn.init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nl) is t
    m, s, lo, hi = _stats(t)
    bound = math.sqrt(3.0) * std
    assert lo >= -bound and hi <= bound and abs(s - std) < 0.03 * std
    assert nn.init.kaiming_normal_(t, a=a, mode=mode, nonlinearity=nl) is t
    m, s, _, _ = _stats(t)
    assert abs(s - std) < 0.03 * std and abs(m) < 0.05 * std


def test_kaiming_zero_element_warns():
    with pytest.warns(UserWarning, match='Initializing zero-element tensors is a no-op'):
        nn.init.kaiming_uniform_(ember.empty(0, 3))


@pytest.mark.parametrize('shape', [(5, 5), (3, 7), (7, 3), (4, 2, 3)])
def test_orthogonal(shape):
    t = ember.empty(*shape)
    assert nn.init.orthogonal_(t, gain=2.0) is t
    q = t.detach().numpy().reshape(shape[0], -1).astype(np.float64) / 2.0
    if q.shape[0] <= q.shape[1]:
        np.testing.assert_allclose(q @ q.T, np.eye(q.shape[0]), atol=1e-5)
    else:
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-5)
    check_error(lambda m: m.nn.init.orthogonal_(m.empty(3)), match='Only tensors with 2 or more dimensions are supported')


@pytest.mark.parametrize('shape', [(3, 3), (2, 5), (5, 2)])
def test_eye_exact(shape):
    e = nn.init.eye_(ember.empty(*shape))
    t = torch.nn.init.eye_(torch.empty(*shape))
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    check_error(lambda m: m.nn.init.eye_(m.empty(2, 2, 2)), match='Only tensors with 2 dimensions are supported')


@pytest.mark.parametrize('shape,groups', [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 4, 3, 3, 3), 1),
                                          ((6, 3, 5), 3), ((2, 5, 4, 4), 1)])
def test_dirac_exact(shape, groups):
    e = nn.init.dirac_(ember.empty(*shape), groups)
    t = torch.nn.init.dirac_(torch.empty(*shape), groups)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    check_error(lambda m: m.nn.init.dirac_(m.empty(2, 2)), match='Only tensors with 3, 4, or 5 dimensions are supported')
    check_error(lambda m: m.nn.init.dirac_(m.empty(3, 2, 2), 2), match='dim 0 must be divisible by groups')


def test_sparse():
    t = ember.empty(100, 40)
    assert nn.init.sparse_(t, sparsity=0.3, std=0.5) is t
    a = t.numpy()
    assert all((a[:, c] == 0).sum() >= 30 for c in range(40))
    nz = a[a != 0]
    assert abs(nz.std() - 0.5) < 0.05
    check_error(lambda m: m.nn.init.sparse_(m.empty(3, 3, 3), 0.1), match='Only tensors with 2 dimensions are supported')


@pytest.mark.parametrize('fn,args', [('uniform_', ()), ('normal_', ()), ('trunc_normal_', ()),
                                     ('xavier_uniform_', ()), ('xavier_normal_', ()),
                                     ('kaiming_uniform_', ()), ('kaiming_normal_', ()),
                                     ('orthogonal_', ()), ('sparse_', (0.5,))])
def test_generator_reproducible(fn, args):
    f = getattr(nn.init, fn)
    g1 = ember.Generator().manual_seed(7)
    g2 = ember.Generator().manual_seed(7)
    a = f(ember.empty(6, 5), *args, generator=g1)
    b = f(ember.empty(6, 5), *args, generator=g2)
    assert ember.equal(a, b)
    c = f(ember.empty(6, 5), *args, generator=g1)
    assert not ember.equal(a, c)


def test_runs_under_no_grad_on_parameters():
    p = nn.Parameter(ember.empty(4, 3))
    for fn in ('uniform_', 'normal_', 'trunc_normal_', 'xavier_uniform_', 'xavier_normal_',
               'kaiming_uniform_', 'kaiming_normal_', 'orthogonal_', 'ones_', 'zeros_', 'eye_'):
        r = getattr(nn.init, fn)(p)
        assert r is p and p.grad_fn is None and p.requires_grad and p.is_leaf
    nn.init.constant_(p, 2.)
    nn.init.sparse_(p, 0.5)
    nn.init.dirac_(nn.Parameter(ember.empty(2, 2, 3)))
    assert p.grad_fn is None


def test_float64_and_half():
    t = nn.init.normal_(ember.empty(100, 100, dtype=ember.float64))
    assert t.dtype == ember.float64
    h = nn.init.kaiming_uniform_(ember.empty(50, 50, dtype=ember.float16))
    assert h.dtype == ember.float16 and h.abs().max().item() <= math.sqrt(6 / 50) * 1.001


def test_deprecated_aliases():
    with pytest.warns(FutureWarning):
        nn.init.uniform(ember.empty(2, 2))


@pytest.mark.parametrize('name,shape', [('eye', (3, 4)), ('dirac', (2, 2, 3)), ('sparse', (6, 4))])
def test_deprecated_eye_dirac_sparse_warn_and_match(name, shape):
    import torch
    kw = {'sparsity': 0.5} if name == 'sparse' else {}
    out = []
    for lib in (ember, torch):
        lib.manual_seed(3)
        with pytest.warns(FutureWarning, match=f"nn.init.{name}` is now deprecated"):
            out.append(getattr(lib.nn.init, name)(lib.zeros(*shape), **kw).numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-6)
