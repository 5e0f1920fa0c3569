"""nn.utils.parametrizations vs torch: orthogonal (matrix_exp / cayley / householder, with
and without trivialization, tall / wide / square / batched / complex, assignment),
weight_norm (original0 / original1, loading old weight_g / weight_v state dicts),
spectral_norm (_u / _v drawn as torch draws them, train vs eval, 1-D weights); values,
gradients, state_dict keys, errors; and the private matrix_exp / householder_product."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.utils import parametrizations as EP
from ._common import both, close, sub, to_ember, to_torch


@pytest.mark.parametrize('orthogonal_map', [None, 'matrix_exp', 'cayley', 'householder'])
@pytest.mark.parametrize('shape', [(5, 5), (6, 3), (3, 6)])
@pytest.mark.parametrize('triv', [True, False])
def test_orthogonal(orthogonal_map, shape, triv):
    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = lib.nn.Linear(shape[1], shape[0], dtype=lib.float64)
        PZ.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=triv)
        W = m.weight
        up = lib.from_numpy(np.random.default_rng(2).standard_normal(shape))
        (W * up).sum().backward()
        Q = W.detach()
        k = min(shape)
        gram = Q.T @ Q if shape[0] >= shape[1] else Q @ Q.T
        return (W, m.parametrizations.weight.original.grad, list(m.state_dict()),
                type(m).__name__, gram, lib.eye(k, dtype=lib.float64))
    t, e = both(f)
    close(t, e, rtol=1e-8, atol=1e-10)
    close(e[4], e[5], rtol=1e-10, atol=1e-10)


def test_orthogonal_float32_batched_and_assignment():
    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = lib.nn.Module()
        m.register_parameter('w', lib.nn.Parameter(lib.randn(2, 4, 4)))
        PZ.orthogonal(m, 'w')
        w0 = m.w
        q, _ = lib.linalg.qr(lib.randn(2, 4, 4))
        m.w = q      # an orthogonal matrix becomes the new base
        lin = lib.nn.Linear(4, 4)
        PZ.orthogonal(lin, orthogonal_map='householder', use_trivialization=False)
        lin.weight = q[0]
        return w0, m.w, m.parametrizations.w[0].base, lin.weight, list(m.state_dict())
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-5)


def test_orthogonal_complex():
    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = lib.nn.Module()
        m.register_parameter('w', lib.nn.Parameter(lib.randn(3, 3, dtype=lib.complex128)))
        PZ.orthogonal(m, 'w')
        W = m.w
        return W, W.mH @ W
    t, e = both(f)
    close(t, e, rtol=1e-8, atol=1e-10)


def test_orthogonal_errors():
    def run(lib, case):
        PZ = sub(lib, 'parametrizations')
        if case == 'no_tensor':
            PZ.orthogonal(lib.nn.Linear(2, 2), 'foo')
        elif case == '1d':
            PZ.orthogonal(lib.nn.Linear(2, 2), 'bias')
        elif case == 'map':
            PZ.orthogonal(lib.nn.Linear(2, 2), orthogonal_map='qr')
        elif case == 'complex_householder':
            m = lib.nn.Module()
            m.register_parameter('w', lib.nn.Parameter(lib.randn(3, 2, dtype=lib.complex64)))
            PZ.orthogonal(m, 'w', orthogonal_map='householder')
        elif case == 'shape':
            m = PZ.orthogonal(lib.nn.Linear(2, 2))
            m.weight = lib.eye(3)
        elif case == 'assign_exp':
            m = PZ.orthogonal(lib.nn.Linear(2, 2), use_trivialization=False)
            m.weight = lib.eye(2)
    for case, exc in (('no_tensor', ValueError), ('1d', ValueError), ('map', ValueError),
                      ('complex_householder', ValueError), ('shape', ValueError),
                      ('assign_exp', NotImplementedError)):
        msgs = []
        for lib in (torch, ember):
            with pytest.raises(exc) as info:
                run(lib, case)
            msgs.append(str(info.value).replace('torch.', '').replace('ember.', ''))
        assert msgs[0] == msgs[1], case


@pytest.mark.parametrize('dim', [0, 1, None, -1])
def test_weight_norm(dim):
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)

    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = PZ.weight_norm(lib.nn.Linear(5, 4), dim=dim)
        y = m(lib.from_numpy(x))
        y.backward(lib.ones_like(y) * lib.arange(4.))
        pl = m.parametrizations.weight
        return (y, m.weight, pl.original0, pl.original1, pl.original0.grad, pl.original1.grad,
                list(m.state_dict()), type(m).__name__)
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)


def test_weight_norm_loads_old_state_dict_and_into_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        old = ember.nn.utils.weight_norm(ember.nn.Linear(3, 2))
    new = EP.weight_norm(ember.nn.Linear(3, 2))
    new.load_state_dict(old.state_dict())
    close(old.weight_g, new.parametrizations.weight.original0, exact=True)
    close(old(ember.ones(1, 3)), new(ember.ones(1, 3)), rtol=1e-6, atol=1e-6)
    tm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
    tm.load_state_dict({k: to_torch(v) for k, v in new.state_dict().items()})
    close(tm(torch.ones(1, 3)), new(ember.ones(1, 3)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('factory,kw,xshape', [
    (lambda nn: nn.Linear(20, 40), {}, (3, 20)),
    (lambda nn: nn.Conv2d(3, 5, 3), {'n_power_iterations': 2}, (2, 3, 5, 5)),
    (lambda nn: nn.ConvTranspose1d(3, 4, 2), {}, (1, 3, 4)),
    (lambda nn: nn.Linear(6, 4), {'dim': -1, 'eps': 1e-5}, (2, 6)),
])
def test_spectral_norm(factory, kw, xshape):
    x = np.random.default_rng(0).standard_normal(xshape).astype(np.float32)

    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = PZ.spectral_norm(factory(lib.nn), **kw)
        sn = m.parametrizations.weight[0]
        u0 = sn._u.clone()
        xs = lib.from_numpy(x)
        y = m(xs)
        y.backward(lib.ones_like(y))
        m.eval()
        u1 = sn._u.clone()
        y2 = m(xs)
        return (u0, u1, sn._v, sn._u, y, y2, m.parametrizations.weight.original.grad,
                list(m.state_dict()), sn.dim)
    t, e = both(f)
    close(t, e, rtol=2e-4, atol=1e-5)


def test_spectral_norm_1d_and_errors():
    def f(lib):
        PZ = sub(lib, 'parametrizations')
        m = PZ.spectral_norm(lib.nn.Linear(3, 4), name='bias')
        return m.bias, list(m.state_dict())
    t, e = both(f)
    close(t, e, rtol=1e-6, atol=1e-6)
    for args, exc in ((dict(dim=2), IndexError), (dict(n_power_iterations=0), ValueError),
                      (dict(name='nope'), ValueError)):
        msgs = []
        for lib in (torch, ember):
            with pytest.raises(exc) as info:
                sub(lib, 'parametrizations').spectral_norm(lib.nn.Linear(3, 4), **args)
            msgs.append(str(info.value).replace('torch.', '').replace('ember.', ''))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize('scale', [1e-3, 0.2, 1.0, 3.0, 30.0])
def test_private_matrix_exp(scale):
    g = np.random.default_rng(4).standard_normal((2, 5, 5)) * scale
    A = ember.from_numpy(g).requires_grad_()
    E = EP._matrix_exp(A)
    T = torch.linalg.matrix_exp(torch.from_numpy(g).requires_grad_())
    close(T, E, rtol=1e-10, atol=1e-10 * max(1.0, float(T.detach().abs().max())))
    up = np.random.default_rng(5).standard_normal((2, 5, 5))
    E.backward(ember.from_numpy(up))
    tA = torch.from_numpy(g).requires_grad_()
    torch.linalg.matrix_exp(tA).backward(torch.from_numpy(up))
    close(tA.grad, A.grad, rtol=1e-8, atol=1e-8 * max(1.0, float(tA.grad.abs().max())))


def test_private_householder_product_and_geqrf():
    g = np.random.default_rng(6).standard_normal((3, 6, 4))
    A, tau = EP._geqrf(ember.from_numpy(g))
    tA, ttau = torch.geqrf(torch.from_numpy(g))
    close(tA, A, rtol=1e-12, atol=1e-12)
    close(ttau, tau, rtol=1e-12, atol=1e-12)
    Ae = A.clone().requires_grad_()
    taue = tau.clone().requires_grad_()
    Q = EP._householder_product(Ae, taue)
    tAr, ttaur = tA.clone().requires_grad_(), ttau.clone().requires_grad_()
    tQ = torch.linalg.householder_product(tAr, ttaur)
    close(tQ, Q, rtol=1e-12, atol=1e-12)
    up = np.random.default_rng(7).standard_normal((3, 6, 4))
    Q.backward(ember.from_numpy(up))
    tQ.backward(torch.from_numpy(up))
    close(tAr.grad, Ae.grad, rtol=1e-9, atol=1e-9)
    close(ttaur.grad, taue.grad, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize('which', ['matrix_exp', 'householder', 'orthogonal_cayley',
                                   'weight_norm', 'spectral_norm'])
def test_gradcheck_float64(which):
    g = np.random.default_rng(8)
    if which == 'matrix_exp':
        fn, inputs = EP._matrix_exp, (g.standard_normal((2, 3, 3)) * 2,)
    elif which == 'householder':
        fn, inputs = EP._householder_product, (g.standard_normal((4, 3)), g.uniform(1, 2, 3))
    elif which == 'orthogonal_cayley':
        orth = EP._Orthogonal(ember.zeros(4, 3), EP._OrthMaps.cayley, use_trivialization=False)
        fn, inputs = orth, (g.standard_normal((4, 3)),)
    elif which == 'weight_norm':
        wn = EP._WeightNorm(1)
        fn, inputs = wn, (g.uniform(1, 2, (1, 3)), g.standard_normal((4, 3)))
    else:
        sn = EP._SpectralNorm(ember.ones(4, 3, dtype=ember.float64)).eval()
        fn, inputs = sn, (g.standard_normal((4, 3)),)
    ts = tuple(ember.from_numpy(a).requires_grad_() for a in inputs)
    assert ember.autograd.gradcheck(fn, ts, eps=1e-6, atol=1e-6)


_STRICT_SCRIPT = r'''
import warnings; warnings.simplefilter('ignore')
import ember
from ember import nn
ember.manual_seed(0)
P, PZ = nn.utils.prune, nn.utils.parametrizations
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 4 * 4, 5))
P.global_unstructured([(net[0], 'weight'), (net[2], 'weight')], pruning_method=P.L1Unstructured,
                      amount=0.3)
P.random_structured(net[2], 'weight', 0.3, dim=0)
P.ln_structured(net[0], 'weight', 1, n=2, dim=1)
P.random_unstructured(net[0], 'bias', 2)
net(ember.randn(2, 3, 6, 6)).sum().backward()
nn.utils.clip_grad_norm_(net.parameters(), 1.0)
nn.utils.clip_grad_value_(net.parameters(), 0.1)
nn.utils.vector_to_parameters(nn.utils.parameters_to_vector(net.parameters()), net.parameters())
for mp in ['matrix_exp', 'cayley', 'householder']:
    for triv in (True, False):
        lin = PZ.orthogonal(nn.Linear(3, 5), orthogonal_map=mp, use_trivialization=triv)
        lin(ember.randn(2, 3)).sum().backward()
for fn in (PZ.spectral_norm, PZ.weight_norm, nn.utils.spectral_norm, nn.utils.weight_norm):
    fn(nn.Linear(3, 4))(ember.randn(2, 3)).sum().backward()
nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval())(ember.randn(2, 3))
nn.utils.convert_conv2d_weight_memory_format(net, ember.channels_last)
nn.utils.stateless._functional_call(net[2], {'bias': ember.zeros(5)}, ember.randn(1, 64))
print(type(PZ._make_orthogonal(ember.randn(4, 4))._data).__name__,
      type(net[0].weight._data).__name__)
'''


def test_on_strict_backend():
    """Every nn.utils path computes through its inputs' array module (the strict check
    backend refuses NumPy module functions on tensor data)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, EMBER_STRICT_BACKEND='1', OMP_NUM_THREADS='1')
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    out = subprocess.run([sys.executable, '-c', _STRICT_SCRIPT], env=env, cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ['StrictArray', 'StrictArray']
