"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d vs torch: outputs,
input and parameter gradients under a random upstream gradient (float32 and float64,
train and eval, batched and unbatched), grad_fn names, repr, state_dict keys, default init
after the same seed, errors, double backward, half precision."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check, check_error, gradcheck_ember, rand
from _util import pair, run_both, sync

ROOT = {torch.nn: torch, ember.nn: ember}

# name -> (factory(n, dtype, **kw), kwargs variants, input shapes, grad_fn name)
CASES = {
    'LayerNorm': (lambda n, dt, **kw: n.LayerNorm(5, dtype=dt, **kw),
                  [{}, dict(elementwise_affine=False), dict(bias=False), dict(eps=1e-2)],
                  [(4, 5), (2, 3, 5), (5,)], 'NativeLayerNormBackward0'),
    'LayerNorm2': (lambda n, dt, **kw: n.LayerNorm([3, 5], dtype=dt, **kw), [{}],
                   [(2, 3, 5), (3, 5)], 'NativeLayerNormBackward0'),
    'GroupNorm': (lambda n, dt, **kw: n.GroupNorm(2, 6, dtype=dt, **kw),
                  [{}, dict(affine=False), dict(bias=False), dict(eps=1e-3)],
                  [(3, 6), (2, 6, 4), (2, 6, 3, 2), (2, 6, 2, 2, 2)],
                  'NativeGroupNormBackward0'),
    'RMSNorm': (lambda n, dt, **kw: n.RMSNorm([2, 5], dtype=dt, **kw),
                [{}, dict(eps=1e-3), dict(elementwise_affine=False)],
                [(3, 2, 5), (2, 5)], 'MulBackward0'),
    'LocalResponseNorm': (lambda n, dt, **kw: n.LocalResponseNorm(3, **kw),
                          [dict(alpha=0.5, beta=0.6, k=2.), {}],
                          [(2, 5, 4), (2, 5, 3, 2), (1, 5, 2, 2, 2)], 'DivBackward0'),
    'CrossMapLRN2d': (lambda n, dt, **kw: n.CrossMapLRN2d(3, **kw),
                      [dict(alpha=0.5, beta=0.6, k=2.), {}], [(2, 5, 3, 2)],
                      'CrossMapLRN2dBackward'),
}


def _cases():
    for name, (_, kws, shapes, _) in CASES.items():
        for i, kw in enumerate(kws):
            for s in shapes:
                yield pytest.param(name, kw, s, id=f'{name}-{i}-{"x".join(map(str, s))}')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name,kw,shape', list(_cases()))
def test_layer_vs_torch(name, kw, shape, dtype):
    factory, _, _, fn_name = CASES[name]
    e, t = pair(lambda n: factory(n, getattr(ROOT[n], dtype), **kw))
    with torch.no_grad():       # parameters away from their 1 / 0 init
        for p in t.parameters():
            p.copy_(torch.from_numpy(rand(*p.shape, dtype=dtype, seed=p.numel())))
    sync(e, t)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-9, atol=1e-10)
    x = rand(*shape, dtype=dtype, seed=1) * 1.5 + 0.3
    ye, yt = run_both(e, t, x, **tol, seed=2)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__ == fn_name
    e.eval()
    t.eval()
    run_both(e, t, rand(*shape, dtype=dtype, seed=3), **tol, seed=4)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())


@pytest.mark.parametrize('name', list(CASES))
def test_default_init_after_seed(name):
    factory = CASES[name][0]
    torch.manual_seed(7)
    t = factory(torch.nn, torch.float32)
    rt = torch.rand(3)
    ember.manual_seed(7)
    e = factory(ember.nn, ember.float32)
    re = ember.rand(3)
    for (n1, a), (n2, b) in zip(e.state_dict().items(), t.state_dict().items()):
        assert n1 == n2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(re.numpy(), rt.numpy())   # no RNG draws in construction


def test_constructor_forms_and_attributes():
    for ns in (4, [4], (2, 4), torch.Size([2, 4])):
        nse = ns if not isinstance(ns, torch.Size) else ember.Size(ns)
        e, t = nn.LayerNorm(nse), torch.nn.LayerNorm(ns)
        assert e.normalized_shape == t.normalized_shape and repr(e) == repr(t)
        assert nn.RMSNorm(nse).normalized_shape == torch.nn.RMSNorm(ns).normalized_shape
    m = nn.LayerNorm(3, device='cpu', dtype=ember.float64)
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64
    assert m.weight.requires_grad
    assert nn.LayerNorm.__constants__ == torch.nn.LayerNorm.__constants__
    assert nn.GroupNorm.__constants__ == torch.nn.GroupNorm.__constants__
    assert nn.RMSNorm.__constants__ == torch.nn.RMSNorm.__constants__
    assert nn.LocalResponseNorm.__constants__ == torch.nn.LocalResponseNorm.__constants__
    for cls in ('LayerNorm', 'GroupNorm', 'RMSNorm', 'LocalResponseNorm', 'CrossMapLRN2d'):
        assert getattr(nn, cls).__module__ == 'ember.nn.modules.normalization'
    g = nn.GroupNorm(3, 6, affine=False)
    assert g.weight is None and g.bias is None and list(g.state_dict()) == []
    assert (g.num_groups, g.num_channels, g.eps, g.affine) == (3, 6, 1e-5, False)


def test_layer_errors():
    with pytest.raises(ValueError, match=r'num_channels \(3\) must be divisible by num_groups '
                                         r'\(2\)'):
        nn.GroupNorm(2, 3)
    check_error(lambda m, x: m.nn.LayerNorm(4)(x), [rand(2, 3)],
                match='Given normalized_shape=[4], expected input with shape [*, 4], but got '
                      'input of size[2, 3]')
    check_error(lambda m, x: m.nn.RMSNorm([2, 4])(x), [rand(2, 3)],
                match='Given normalized_shape=[2, 4], expected input with shape [*2, 4], but '
                      'got input of size[2, 3]')
    check_error(lambda m, x: m.nn.GroupNorm(2, 4)(x), [rand(2, 6, 3)],
                match='Expected weight to be a vector of size equal to the number of channels')
    check_error(lambda m, x: m.nn.GroupNorm(2, 4)(x), [rand(4)],
                match='Expected at least 2 dimensions for input tensor but received 1')
    check_error(lambda m, x: m.nn.GroupNorm(4, 4)(x), [rand(1, 4)],
                match='Expected more than 1 value per channel when training')
    check_error(lambda m, x: m.nn.LocalResponseNorm(2)(x), [rand(2, 3)],
                match='Expected 3D or higher dimensionality')
    check_error(lambda m, x: m.nn.CrossMapLRN2d(3)(x), [rand(2, 3, 4)],
                match='CrossMapLRN2d: Expected input to be 4D, got 3D instead.')
    check_error(lambda m, x: m.layer_norm(x, [3], m.ones(3, dtype=m.float64)), [rand(2, 3)],
                match='mixed dtype (CPU): expect parameter to have scalar type of Float')
    check_error(lambda m, x: m.group_norm(x.double(), 1, m.ones(3)), [rand(2, 3)],
                match='mixed dtype (CPU): all inputs must share same datatype.')
    check_error(lambda m, x: m.layer_norm(x.long(), [3]), [rand(2, 3)],
                match='"LayerNormKernelImpl" not implemented for \'Long\'')
    check_error(lambda m, x: m.group_norm(x.long(), 1), [rand(2, 3)],
                match='"GroupNormKernelImpl" not implemented for \'Long\'')
    check_error(lambda m, x: m.rms_norm(x.long(), [3]), [rand(2, 3)],
                match='"rms_norm" not implemented for \'Long\'')
    check_error(lambda m, x: m.layer_norm(x, 3), [rand(2, 3)],
                match="argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    check_error(lambda m, x: m.nn.functional.layer_norm(x, [3], [1., 1., 1.]), [rand(2, 3)])


def test_native_statistics():
    x = rand(2, 3, 4, dtype=np.float64, seed=5)

    def ln(m, x, w):
        out, mean, rstd = m.native_layer_norm(x, [3, 4], w, None, 1e-5)
        assert not mean.requires_grad and mean.grad_fn is None and rstd.grad_fn is None
        assert out.grad_fn.name() == 'NativeLayerNormBackward0'
        return out, mean, rstd
    check(ln, [x, rand(3, 4, dtype=np.float64, seed=6)], grad=True)

    def gn(m, x):
        out, mean, rstd = m.native_group_norm(x, None, None, 2, 3, 4, 3, 1e-5)
        assert all(t.grad_fn.name() == 'NativeGroupNormBackward0' for t in (out, mean, rstd))
        assert mean.shape == (2, 3)
        return out, mean, rstd
    check(gn, [x], grad=True)


def test_group_norm_statistics_gradients_as_torch():
    """torch counts the gradients reaching mean / rstd only when the output's and both
    statistics' gradients are defined (then exactly), else drops them; only-statistics
    gives no gradient at all."""
    x = rand(2, 4, 3, dtype=np.float64, seed=1)
    w = rand(4, dtype=np.float64, seed=2)
    gs = [rand(2, 4, 3, dtype=np.float64, seed=3), rand(2, 2, dtype=np.float64, seed=4),
          rand(2, 2, dtype=np.float64, seed=5)]
    for which in ((0,), (0, 1), (0, 2), (0, 1, 2), (1,), (1, 2)):
        res = []
        for m in (ember, torch):
            xt = m.tensor(x, requires_grad=True)
            outs = m.native_group_norm(xt, m.tensor(w), None, 2, 4, 3, 2, 1e-5)
            g = m.autograd.grad([outs[i] for i in which], xt, [m.tensor(gs[i]) for i in which],
                                allow_unused=True)[0]
            res.append(None if g is None else g.detach().numpy())
        if res[1] is None:
            assert res[0] is None or not res[0].any(), which
        else:
            np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-10, err_msg=str(which))


def test_group_norm_bias_without_weight():
    """torch's backward fails here ('tensor does not have a device'); ember's gradient is
    the exact one: the composite formula's."""
    x, b, g = rand(2, 4, 3, seed=1), rand(4, seed=2), rand(2, 4, 3, seed=3)
    xe, be = ember.tensor(x, requires_grad=True), ember.tensor(b, requires_grad=True)
    gx, gb = ember.autograd.grad(ember.group_norm(xe, 2, None, be), (xe, be), ember.tensor(g))
    xt, bt = torch.tensor(x, requires_grad=True), torch.tensor(b, requires_grad=True)
    xg = xt.reshape(2, 2, 6)
    ref = ((xg - xg.mean(-1, keepdim=True)) / (xg.var(-1, unbiased=False, keepdim=True)
                                                + 1e-5).sqrt()).reshape(2, 4, 3) + bt[:, None]
    rx, rb = torch.autograd.grad(ref, (xt, bt), torch.tensor(g))
    np.testing.assert_allclose(gx.numpy(), rx.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), rb.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('fn,arrays', [
    (lambda m, x, w, b: m.nn.functional.layer_norm(x, [3], w, b), [(2, 3), (3,), (3,)]),
    (lambda m, x, w: m.nn.functional.layer_norm(x, [2, 2], w), [(2, 2, 2), (2, 2)]),
    (lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), [(2, 4, 2), (4,), (4,)]),
    (lambda m, x: m.nn.functional.group_norm(x, 1), [(2, 2, 3)]),
    (lambda m, x, w: m.nn.functional.rms_norm(x, [3], w), [(2, 3), (3,)]),
    (lambda m, x: m.nn.functional.local_response_norm(x, 2, alpha=0.5), [(1, 3, 2)]),
], ids=['layer_norm', 'layer_norm2d', 'group_norm', 'group_norm_plain', 'rms_norm', 'lrn'])
def test_double_backward(fn, arrays):
    arrs = [rand(*s, dtype=np.float64, seed=i + 1) for i, s in enumerate(arrays)]
    ins = [ember.tensor(a, requires_grad=True) for a in arrs]
    assert ember.autograd.gradgradcheck(lambda *xs: fn(ember, *xs), tuple(ins))

    def second(m, *xs):     # grads of a grad, compared with torch's
        y = fn(m, *xs)
        gs = m.autograd.grad((y ** 3).sum(), xs, create_graph=True)
        return sum((g * g).sum() for g in gs)
    check(second, arrs, grad=True, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize('dt', ['float16', 'bfloat16'])
def test_half_precision(dt):
    x = rand(3, 4, 6, seed=1)
    for fn in (lambda m, x: m.nn.functional.layer_norm(x.to(getattr(m, dt)), [6]),
               lambda m, x: m.native_layer_norm(x.to(getattr(m, dt)), [6], m.ones(6),
                                                m.zeros(6), 1e-5),
               lambda m, x: m.native_group_norm(x.to(getattr(m, dt)), None, None, 3, 4, 6, 2,
                                                1e-5),
               lambda m, x: m.nn.functional.group_norm(x.to(getattr(m, dt)), 2, m.ones(4)),
               lambda m, x: m.nn.functional.rms_norm(x.to(getattr(m, dt)), [6])):
        check(fn, [x], rtol=2e-2, atol=2e-2)


def test_group_norm_channels_last():
    x = rand(2, 4, 3, 3, seed=1)
    for m in (torch, ember):
        xt = m.tensor(x).to(memory_format=m.channels_last)
        y = m.nn.functional.group_norm(xt, 2)
        assert y.is_contiguous(memory_format=m.channels_last), m.__name__
    check(lambda m, x: m.nn.functional.group_norm(x.to(memory_format=m.channels_last), 2),
          [x], grad=True)


def test_cross_map_lrn2d_as_torch():
    """The legacy window keeps channel 0 in every running sum and the backward is not the
    exact derivative: both reproduced; size 1 fails in backward as in torch."""
    for size in (2, 3, 4, 5):
        check(lambda m, x: m.nn.CrossMapLRN2d(size, alpha=0.7, beta=0.6, k=1.5)(x),
              [rand(2, 6, 2, 3, dtype=np.float64, seed=size)], grad=True)
    x = rand(1, 3, 2, 2, seed=1)
    for m in (torch, ember):
        y = m.nn.CrossMapLRN2d(1)(m.tensor(x, requires_grad=True))
        with pytest.raises(RuntimeError, match=r'start \(1\) \+ length \(3\) exceeds dimension '
                                               r'size \(3\)'):
            y.sum().backward()


def test_local_response_norm_empty_returns_input():
    x = ember.ones(2, 0, 3)
    assert nn.LocalResponseNorm(2)(x) is x


def test_benchmark_shapes():
    """The fused kernels handle the benchmark shapes (timing lives in bench/)."""
    ln, gn = nn.LayerNorm(128), nn.GroupNorm(8, 64)
    x = ember.randn(16, 64, 128, requires_grad=True)
    ln(x).sum().backward()
    assert x.grad.shape == x.shape and abs(float(x.grad.sum())) < 1e-2
    x = ember.randn(4, 64, 7, 7, requires_grad=True)
    gn(x).sum().backward()
    assert abs(float(x.grad.sum())) < 1e-2 and gn.weight.grad.shape == (64,)


def test_gradcheck_layers():
    gradcheck_ember(lambda m, x, w, b: m.nn.functional.layer_norm(x, [4], w, b, eps=1e-3),
                    [rand(3, 4, seed=1), rand(4, seed=2), rand(4, seed=3)])
    gradcheck_ember(lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b),
                    [rand(2, 6, 2, seed=1), rand(6, seed=2), rand(6, seed=3)])
    gradcheck_ember(lambda m, x, w: m.nn.functional.rms_norm(x, [2, 3], w),
                    [rand(2, 2, 3, seed=1), rand(2, 3, seed=2)])


def test_saved_values_introspection():
    x = rand(2, 4, 3, seed=1)
    res = []
    for m in (ember, torch):
        xt = m.tensor(x, requires_grad=True)
        f = m.layer_norm(xt, [3], m.ones(3, requires_grad=True)).grad_fn
        g = m.group_norm(xt, 2).grad_fn
        res.append((f._saved_normalized_shape, tuple(f._saved_result1.shape),
                    tuple(f._saved_result2.shape), tuple(f._saved_input.shape),
                    g._saved_N, g._saved_C, g._saved_HxW, g._saved_group, g._saved_eps,
                    tuple(g._saved_result1.shape)))
    assert res[0] == res[1]
