"""ember.autograd.forward_ad (dual tensors) vs torch.autograd.forward_ad."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(3)


def _tangents(T, fn, prims, tans):
    fw = T.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(T.tensor(p), T.tensor(t)) for p, t in zip(prims, tans)]
        out = fn(T)(*duals)
        outs = out if isinstance(out, tuple) else (out,)
        res = [fw.unpack_dual(o) for o in outs]
        return [(r.primal.detach().numpy(), r.tangent.numpy()) for r in res]


OPS = {
    'pointwise': (lambda T: lambda x, y: (x.sin() * y.exp() / (1 + x ** 2), x.abs().sqrt(),
                                          T.where(x > 0, x, y).clamp(-0.5, 0.5)),
                  [(3, 4), (3, 4)]),
    'matmul': (lambda T: lambda a, b: (a @ b, T.bmm(a.unsqueeze(0), b.unsqueeze(0))),
               [(3, 4), (4, 2)]),
    'reductions': (lambda T: lambda x: (x.sum(), x.mean(0), x.std(1), x.norm(), x.amax(1),
                                        x.cumsum(1)), [(3, 4)]),
    'conv2d': (lambda T: lambda x, w: T.nn.functional.conv2d(x, w, padding=1),
               [(2, 3, 5, 5), (4, 3, 3, 3)]),
    'softmax': (lambda T: lambda x: (x.softmax(1), x.log_softmax(0)), [(3, 5)]),
    'layer_norm': (lambda T: lambda x, w: T.nn.functional.layer_norm(x, (4,), w),
                   [(3, 4), (4,)]),
    'views': (lambda T: lambda x: (x.t().reshape(-1)[::2], x[1:, :2].exp(), x.permute(1, 0)),
              [(3, 4)]),
    'mlp': (lambda T: lambda x, w1, w2: T.tanh(x @ w1).relu() @ w2, [(2, 5), (5, 6), (6, 3)]),
}


@pytest.mark.parametrize('name', list(OPS))
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_tangents_match_torch(name, dtype):
    fn, shapes = OPS[name]
    prims = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    tans = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    ref = _tangents(torch, fn, prims, tans)
    got = _tangents(ember, fn, prims, tans)
    tol = 1e-4 if dtype == 'float32' else 1e-10
    for (rp, rt), (gp, gt) in zip(ref, got):
        np.testing.assert_allclose(gp, rp, rtol=tol, atol=tol)
        np.testing.assert_allclose(gt, rt, rtol=tol, atol=tol)
        assert gt.dtype == rt.dtype


def test_api_behaviour_like_torch():
    for T in (torch, ember):
        fw = T.autograd.forward_ad
        x = T.randn(3)
        with pytest.raises(RuntimeError, match='no level exists'):
            fw.make_dual(x, x)
        p, t = fw.unpack_dual(x)
        assert t is None and p is x or (p == x).all()
        assert fw.UnpackedDualTensor._fields == ('primal', 'tangent')
        with fw.dual_level() as lvl:
            assert lvl == 0
            with pytest.raises(RuntimeError, match='Nested forward mode AD'):
                fw.enter_dual_level()
            with pytest.raises(RuntimeError, match='different size'):
                fw.make_dual(x, T.ones(4))
            with pytest.raises(ValueError, match='Expected primal to be floating point'):
                fw.make_dual(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64))
            d = fw.make_dual(x, T.ones(3))
            assert fw.unpack_dual(d).tangent is not None
            assert fw.unpack_dual(x * 2).tangent is None       # not computed from a dual
            y = d * 3
            u = fw.unpack_dual(y)
            assert isinstance(u, fw.UnpackedDualTensor)
            assert u.tangent.tolist() == [3., 3., 3.]
        assert fw.unpack_dual(y).tangent is None             # level exited
        lvl = fw.enter_dual_level()
        fw.exit_dual_level(level=lvl)
        with pytest.raises(RuntimeError):
            fw.exit_dual_level()


def test_forward_over_reverse():
    """Tangent of a reverse-mode gradient: Hessian-vector product."""
    a, v = RNG.standard_normal(4), RNG.standard_normal(4)
    res = []
    for T in (torch, ember):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(T.tensor(a), T.tensor(v))
            if T is torch:
                x.requires_grad_()
            (g,) = T.autograd.grad((x.sin() * x.exp()).sum(), x, create_graph=True)
            res.append(fw.unpack_dual(g).tangent.detach().numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-10)


def _function_jvp_case(m):
    fwAD = m.autograd.forward_ad

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x ** 3 * k

        @staticmethod
        def jvp(ctx, t, _):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * t * ctx.k * 2   # deliberately not the true derivative

    class Both(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos() + 1.0

    x = m.tensor([0.5, 1.0, 2.0], dtype=m.float64)
    v = m.tensor([1.0, -1.0, 0.5], dtype=m.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        y = Cube.apply(d.exp(), 2.0).sum() * 3
        z = Both.apply(d * 2)
        out = [fwAD.unpack_dual(y).tangent, fwAD.unpack_dual(z).tangent,
               fwAD.unpack_dual(z).primal]
    # outside forward AD, backward is used as usual
    w = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
    Both.apply(w).sum().backward()
    return out + [w.grad]


def test_custom_function_jvp_is_used_like_torch():
    for a, b in zip(_function_jvp_case(torch), _function_jvp_case(ember)):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
