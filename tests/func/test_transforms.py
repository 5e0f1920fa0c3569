"""ember.func grad/grad_and_value/vjp/jacrev/jacfwd/hessian/jvp/linearize vs torch.func."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def both(*arrays):
    return [torch.tensor(a) for a in arrays], [ember.tensor(a) for a in arrays]


def close(a, b, tol=1e-10):
    if isinstance(a, (tuple, list)):
        assert type(b) in (tuple, list) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            close(a[k], b[k], tol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


def F(T):
    return T.func


FUNCS = {
    'sin_mul': lambda T: lambda x: (x.sin() * x).sum(),
    'softmax': lambda T: lambda x: (x.softmax(-1) * x.exp()).sum(),
    'logsumexp': lambda T: lambda x: x.logsumexp(-1).pow(2).sum(),
    'norm': lambda T: lambda x: x.norm() * x.mean(),
}


@pytest.mark.parametrize('name', list(FUNCS))
def test_grad_hessian(name):
    (xt,), (xe,) = both(RNG.standard_normal((2, 3)))
    ft, fe = FUNCS[name](torch), FUNCS[name](ember)
    close(torch.func.grad(ft)(xt), ember.func.grad(fe)(xe))
    close(torch.func.hessian(ft)(xt), ember.func.hessian(fe)(xe))
    gt, vt = torch.func.grad_and_value(ft)(xt)
    ge, ve = ember.func.grad_and_value(fe)(xe)
    close((gt, vt), (ge, ve))
    assert not ge.requires_grad and not ve.requires_grad


def test_grad_argnums_has_aux_pytrees():
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    res = []
    for T in (torch, ember):
        x, y = T.tensor(a), T.tensor(b)

        def f(x, d, scale):
            out = (x * d['y'].exp()).sum() * scale + d['z'][0].sum()
            return out, {'aux': x.detach() * 2}
        d = {'y': y, 'z': (y * 3,)}
        g1, aux = T.func.grad(f, argnums=(0, 1), has_aux=True)(x, d, 2.0)
        g2, (v, aux2) = T.func.grad_and_value(f, argnums=1, has_aux=True)(x, d, 2.0)
        res.append((g1, aux['aux'], g2, v))
    close(res[0], res[1])


def test_nested_grad_and_closure():
    (xt,), (xe,) = both(RNG.standard_normal(4))

    def third(T):
        g = T.func.grad
        return g(lambda x: g(lambda y: g(lambda z: (z ** 4).sum())(y).sum())(x).sum())
    close(third(torch)(xt), third(ember)(xe))

    # gradient of a function of an inner gradient that closes over the outer variable
    def mixed(T):
        return T.func.grad(lambda x: T.func.grad(lambda y: (x * y.sin()).sum())(x.cos()).sum())
    close(mixed(torch)(xt), mixed(ember)(xe))


def test_grad_errors():
    for T in (torch, ember):
        x = T.randn(3)
        with pytest.raises(RuntimeError, match='Expected f\\(\\*args\\) to return a scalar'):
            T.func.grad(lambda x: x)(x)
        with pytest.raises(RuntimeError, match='Got argnum=2, but only 1 positional inputs'):
            T.func.grad(lambda x: x.sum(), argnums=2)(x)
        with pytest.raises(RuntimeError, match='to return a Tensor'):
            T.func.grad(lambda x: [x.sum()])(x)
        # output independent of the input: zeros
        close(torch.zeros(3), T.func.grad(lambda x: T.tensor(1.0))(x))


def test_vjp():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    ct1, ct2 = RNG.standard_normal(3), RNG.standard_normal((3, 4))
    res = []
    for T in (torch, ember):
        x, y = T.tensor(a), T.tensor(b)
        out, fn, aux = T.func.vjp(lambda x, y: ((x @ y, x * y), x.sum()), x, y, has_aux=True)
        g = fn((T.tensor(ct1), T.tensor(ct2)))
        g2 = fn((T.tensor(ct1), T.tensor(ct2)))   # callable twice
        o1, fn1 = T.func.vjp(T.sin, x)
        res.append((out, aux, g, g2, o1, fn1(T.ones(3, 4, dtype=T.float64))))
    close(res[0], res[1])


def test_jacrev_jacfwd_argnums_outputs():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    res = []
    for T in (torch, ember):
        x, y = T.tensor(a), T.tensor(b)

        def f(x, y):
            return (x * y).tanh(), (x @ y).exp()
        r = []
        for jac in (T.func.jacrev, T.func.jacfwd):
            r.append(jac(f, argnums=(0, 1))(x, y))
            r.append(jac(lambda x: x.cumsum(0) * x, argnums=0)(x))
            j, aux = jac(lambda x: (x.sum(0), x.max()), has_aux=True)(x)
            r.append((j, aux))
        r.append(T.func.jacrev(lambda x: x ** 2, chunk_size=2)(y))
        r.append(T.func.hessian(lambda x, y: (x.exp() @ y).sum(), argnums=1)(x, y))
        res.append(r)
    close(res[0], res[1])


JVP_OPS = {
    'pointwise': (lambda T: lambda x: (x.sin() * x.exp() + x.tanh() ** 2 - x.sigmoid()),
                  [(3, 4)]),
    'matmul': (lambda T: lambda x, w: x @ w, [(3, 4), (4, 5)]),
    'reductions': (lambda T: lambda x: (x.sum(0), x.mean(1), x.prod(), x.amax(0),
                                        x.logsumexp(1), x.var(0)), [(3, 4)]),
    'conv2d': (lambda T: lambda x, w, b: T.nn.functional.conv2d(x, w, b, padding=1, stride=2),
               [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    'softmax': (lambda T: lambda x: (x.softmax(-1), x.log_softmax(0)), [(3, 4)]),
    'layer_norm': (lambda T: lambda x, w, b: T.nn.functional.layer_norm(x, (4,), w, b),
                   [(3, 4), (4,), (4,)]),
    'max_pool': (lambda T: lambda x: T.nn.functional.max_pool2d(x, 2), [(1, 2, 4, 4)]),
    'gelu_linear': (lambda T: lambda x, w: T.nn.functional.gelu(T.nn.functional.linear(x, w)),
                    [(2, 3), (5, 3)]),
}


@pytest.mark.parametrize('name', list(JVP_OPS))
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_jvp_linearize_vs_torch(name, dtype):
    mk, shapes = JVP_OPS[name]
    prim = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    tang = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    res = []
    for T in (torch, ember):
        p = tuple(T.tensor(a) for a in prim)
        t = tuple(T.tensor(a) for a in tang)
        out, jv = T.func.jvp(mk(T), p, t)
        out2, fn = T.func.linearize(mk(T), *p)
        res.append((out, jv, out2, fn(*t)))
        if T is ember:
            assert not any(o.requires_grad for o in (jv if isinstance(jv, tuple) else (jv,)))
    tol = 1e-4 if dtype == 'float32' else 1e-10
    close(res[0], res[1], tol)


def test_jvp_has_aux_and_errors():
    res = []
    for T in (torch, ember):
        x = T.tensor([1., 2.], dtype=T.float64)
        res.append(T.func.jvp(lambda x: (x ** 2, x.sum()), (x,), (T.ones(2, dtype=T.float64),),
                              has_aux=True))
        with pytest.raises(RuntimeError, match='Expected primals to be a tuple'):
            T.func.jvp(T.sin, x, (x,))
        with pytest.raises(RuntimeError, match='same python structure'):
            T.func.jvp(T.sin, (x,), (x, x))
    close(res[0], res[1])


def test_jvp_of_grad_is_hvp():
    a, v = RNG.standard_normal(5), RNG.standard_normal(5)
    res = []
    for T in (torch, ember):
        f = lambda x: (x.sin() * x.cosh()).sum()
        res.append(T.func.jvp(T.func.grad(f), (T.tensor(a),), (T.tensor(v),)))
        res.append(T.func.grad(lambda x: T.func.jvp(f, (x,), (T.tensor(v),))[1])(T.tensor(a)))
    close(res[0:2], res[2:4])


def test_misc_names():
    m = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.BatchNorm1d(2))
    ember.func.replace_all_batch_norm_modules_(m)
    mt = torch.func.replace_all_batch_norm_modules_(
        torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)))
    assert m[1].running_mean is None and mt[1].running_mean is None
    assert m[1].track_running_stats is False
    x = ember.ones(2)
    assert ember.func.functionalize(lambda t: t * 2)(x).tolist() == [2., 2.]
    assert ember.func.debug_unwrap(x) is x
    assert set(torch.func.__all__) <= set(ember.func.__all__)


def test_closure_over_tensor_requiring_grad_stays_differentiable():
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    res = []
    for T in (torch, ember):
        w = T.tensor(b, requires_grad=True)
        x = T.tensor(a)
        g = T.func.grad(lambda x: (x.sin() * w).sum())(x)
        assert g.requires_grad
        (gw,) = T.autograd.grad((g * g).sum(), w)
        out, fn = T.func.vjp(lambda x: x.exp() * w, x)
        (v,) = fn(T.ones(3, dtype=T.float64))
        assert out.requires_grad and v.requires_grad
        # no outer dependency: plain tensors come back
        g2 = T.func.grad(lambda x: (x.sin() * w.detach()).sum())(x)
        assert not g2.requires_grad
        res.append((g, gw, out, v))
    close(res[0], res[1])


def _maml(T):
    """The meta-learning (MAML) pattern of torch.func's docs: an inner SGD step taken with
    ``grad`` on a parameter dict through ``functional_call``, the outer loss differentiated
    through that step (second order), vmapped over tasks."""
    g = np.random.default_rng(21)
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(1, 16), T.nn.Tanh(), T.nn.Linear(16, 1))
    params = {k: v.detach() for k, v in model.named_parameters()}
    xs = T.tensor(g.uniform(-3, 3, (4, 5, 1)).astype(np.float32))
    ys = T.sin(xs * 1.3)
    qx = T.tensor(g.uniform(-3, 3, (4, 5, 1)).astype(np.float32))
    qy = T.sin(qx * 1.3)

    def loss(p, x, y):
        return T.nn.functional.mse_loss(T.func.functional_call(model, p, (x,)), y)

    def adapted_loss(p, x, y, qx, qy):
        gr = T.func.grad(loss)(p, x, y)
        fast = {k: p[k] - 0.1 * gr[k] for k in p}
        return loss(fast, qx, qy)

    def meta_loss(p):
        return T.func.vmap(adapted_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, qx, qy).mean()
    return T.func.grad_and_value(meta_loss)(params)


def test_maml_pattern_matches_torch():
    (gt, lt), (ge, le) = _maml(torch), _maml(ember)
    np.testing.assert_allclose(le.numpy(), lt.numpy(), rtol=1e-5)
    for k in gt:
        np.testing.assert_allclose(ge[k].numpy(), gt[k].numpy(), rtol=1e-4, atol=1e-6)
