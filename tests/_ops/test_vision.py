"""Vision ops beyond the op database: grad_fn names vs torch, double backward (second-order
gradients vs torch under random upstream gradients, and ember's gradgradcheck)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import rand


def _both(x):
    return (torch.from_numpy(x.copy()).requires_grad_(),
            ember.from_numpy(x.copy()).requires_grad_())


@pytest.mark.parametrize('shape,mode,kw', [
    ((1, 2, 5), 'nearest', {}), ((1, 2, 4, 5), 'nearest', {}), ((1, 2, 2, 3, 4), 'nearest', {}),
    ((1, 2, 5), 'nearest-exact', {}), ((1, 2, 4, 5), 'nearest-exact', {}),
    ((1, 2, 2, 3, 4), 'nearest-exact', {}), ((1, 2, 5), 'linear', {}),
    ((1, 2, 4, 5), 'bilinear', {}), ((1, 2, 4, 5), 'bicubic', {}),
    ((1, 2, 2, 3, 4), 'trilinear', {}), ((1, 2, 4, 5), 'area', {}),
    ((1, 2, 2, 3, 4), 'area', {}), ((1, 2, 5), 'area', {}),
    ((1, 2, 4, 5), 'bilinear', dict(antialias=True)),
    ((1, 2, 4, 5), 'bicubic', dict(antialias=True)),
    ((1, 2, 4, 5), 'lanczos', dict(antialias=True)),
])
def test_interpolate_grad_fn_names(shape, mode, kw):
    xt, xe = _both(rand(*shape, seed=0))
    size = (3, 7, 2)[:len(shape) - 2]
    yt = torch.nn.functional.interpolate(xt, size=size, mode=mode, **kw)
    ye = ember.nn.functional.interpolate(xe, size=size, mode=mode, **kw)
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__


# nearest is left out: its first-order gradients are constant in the input and the grid
# (ember records no graph for them; torch attaches a node whose derivatives are zero).
@pytest.mark.parametrize('nd,mode', [(2, 'bilinear'), (2, 'bicubic'), (3, 'bilinear')])
@pytest.mark.parametrize('pad', ['zeros', 'border', 'reflection'])
def test_grid_sample_double_backward_vs_torch(nd, mode, pad):
    rng = np.random.default_rng(nd)
    xs = (2, 3, 4, 5) if nd == 2 else (1, 2, 3, 4, 2)
    gs = (2, 3, 2, 2) if nd == 2 else (1, 2, 2, 3, 3)
    x = rng.standard_normal(xs)
    g = rng.uniform(-1.2, 1.2, gs)
    res = []
    for m in (torch, ember):
        xi = m.from_numpy(x.copy()).requires_grad_()
        gi = m.from_numpy(g.copy()).requires_grad_()
        y = m.nn.functional.grid_sample(xi, gi, mode=mode, padding_mode=pad,
                                        align_corners=False)
        up = m.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        dx, dg = m.autograd.grad(y, (xi, gi), up, create_graph=True)
        r1 = m.from_numpy(np.random.default_rng(2).standard_normal(xs))
        r2 = m.from_numpy(np.random.default_rng(3).standard_normal(gs))
        loss = (dx * r1).sum() + (dg * r2).sum()
        res.append([a.detach().numpy() if a is not None else None for a in
                    m.autograd.grad(loss, (xi, gi), allow_unused=True)])
        res[-1].append(type(y.grad_fn).__name__)
    (tx, tg, tn), (ex, eg, en) = res
    assert en == tn
    for a, b in ((ex, tx), (eg, tg)):
        if b is None or a is None:
            assert a is None or not np.any(a)
            assert b is None or not np.any(b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize('fn', [
    lambda F, x: F.interpolate(x, size=(5, 3), mode='bilinear', align_corners=True),
    lambda F, x: F.interpolate(x, scale_factor=1.5, mode='bicubic'),
    lambda F, x: F.interpolate(x, size=(2, 2), mode='bilinear', antialias=True),
    lambda F, x: F.unfold(x, 2, padding=1) ** 2,
    lambda F, x: F.fold(x.reshape(1, 12, 2), (2, 5), 2, stride=(1, 3)) ** 2,
    lambda F, x: F.pixel_unshuffle(x[:, :, 1:], 2) ** 3,
    lambda F, x: F.channel_shuffle(x, 2) ** 3,
])
def test_gradgradcheck(fn):
    x = ember.randn(1, 2, 3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda x: fn(ember.nn.functional, x), (x,))


def test_affine_grid_and_grid_sample_gradgradcheck():
    theta = ember.randn(1, 2, 3, dtype=ember.float64, requires_grad=True)
    x = ember.randn(1, 1, 3, 3, dtype=ember.float64, requires_grad=True)
    F = ember.nn.functional

    def f(theta, x):
        grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        return F.grid_sample(x, grid, mode='bicubic', align_corners=False)
    assert ember.autograd.gradgradcheck(f, (theta, x))


def test_align_corners_warning():
    x, g = ember.randn(1, 1, 2, 2), ember.zeros(1, 1, 1, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        ember.nn.functional.grid_sample(x, g)
        ember.nn.functional.affine_grid(ember.eye(2, 3)[None], (1, 1, 2, 2))
    assert len(w) == 2 and all('align_corners=False since 1.3.0' in str(r.message) for r in w)
    assert all(r.filename == __file__ for r in w)


def test_pixel_shuffle_factor_one_is_a_copy():
    # torch returns new memory even when nothing moves (issue 21)
    import ember
    p = ember.randn(1, 4, 2, 2)
    for f in (ember.nn.functional.pixel_shuffle, ember.nn.functional.pixel_unshuffle):
        q = f(p, 1)
        assert q.data_ptr() != p.data_ptr() and ember.equal(q, p)
    x = ember.randn(4, 6)
    assert x.ravel().data_ptr() == x.data_ptr()          # contiguous: a view
    assert x.t().ravel().data_ptr() != x.data_ptr()      # non-contiguous: a copy


# ------------------------------------------------------------------ aten::_upsample_bilinear2d_aa
@pytest.mark.parametrize('args,kw', [
    (([3, 3], False), {}), (([5, 5], False), {}), ((None, False), dict(scale_factors=[1.7, 0.9])),
    ((None, True), dict(scale_factors=[0.8, 1.0])), (([3, 3], False, 1.7, 0.9), {}),
    (([3, 3], True), dict(scales_h=1.7, scales_w=0.9)), ((None, False, [0.5, 0.4]), {}),
])
def test_upsample_bilinear2d_aa(args, kw):
    from oracle import check, gradcheck_ember
    x = np.random.default_rng(0).standard_normal((2, 3, 10, 20))
    check(lambda m, t: m.ops.aten._upsample_bilinear2d_aa(t, *args, **kw), [x], grad=True)
    check(lambda m, t: m.ops.aten._upsample_bilinear2d_aa((t * 40 + 128).clamp(0, 255)
                                                          .to(m.uint8), *args, **kw), [x])
    re, rt = check(lambda m, t: m.ops.aten._upsample_bilinear2d_aa(t, *args, **kw), [x],
                   grad=True)
    assert re.grad_fn.name() == rt.grad_fn.name() == 'UpsampleBilinear2DAaBackward0'
    gradcheck_ember(lambda m, t: m.ops.aten._upsample_bilinear2d_aa(t, *args, **kw),
                    [x[:1, :1, :5, :6]])
