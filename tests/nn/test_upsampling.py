"""Upsample / UpsamplingNearest2d / UpsamplingBilinear2d vs torch: repr, attributes,
outputs and input gradients in every mode (float32/float64), grad_fn names, the
deprecation warnings of F.upsample*, double backward, and the bilinear x2 workload."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import errors_both, rand
from _util import pair, run_both

CASES = [
    (dict(scale_factor=2), (2, 3, 4, 5)),
    (dict(scale_factor=2, mode='nearest'), (2, 3, 5)),
    (dict(size=(3, 7), mode='nearest-exact'), (2, 3, 4, 5)),
    (dict(size=7, mode='linear', align_corners=True), (2, 3, 5)),
    (dict(scale_factor=(1.5, 0.5), mode='bilinear'), (2, 3, 4, 6)),
    (dict(size=(5, 9), mode='bilinear', align_corners=True), (2, 3, 4, 5)),
    (dict(scale_factor=1.7, mode='bicubic', recompute_scale_factor=True), (2, 3, 4, 5)),
    (dict(size=(3, 4, 5), mode='trilinear'), (1, 2, 2, 3, 4)),
    (dict(scale_factor=0.5, mode='area'), (2, 3, 6, 8)),
    (dict(size=(2, 3, 1), mode='area'), (1, 2, 4, 5, 3)),
]


@pytest.mark.parametrize('kw,shape', CASES)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_upsample_vs_torch(kw, shape, dtype):
    e, t = pair(lambda nn: nn.Upsample(**kw))
    assert repr(e) == repr(t)
    for a in ('size', 'scale_factor', 'mode', 'align_corners', 'recompute_scale_factor',
              'name'):
        assert getattr(e, a) == getattr(t, a), a
    ye, yt = run_both(e, t, rand(*shape, dtype=dtype, seed=len(shape)))
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__


@pytest.mark.parametrize('cls', ['UpsamplingNearest2d', 'UpsamplingBilinear2d'])
@pytest.mark.parametrize('kw', [dict(scale_factor=2), dict(size=(5, 3)), dict(size=7)])
def test_fixed_mode_layers(cls, kw):
    e, t = pair(lambda nn: getattr(nn, cls)(**kw))
    assert repr(e) == repr(t)
    assert (e.mode, e.align_corners) == (t.mode, t.align_corners)
    run_both(e, t, rand(2, 3, 4, 5, seed=1))
    assert type(e).__module__ == 'ember.nn.modules.upsampling'


def test_repr_forms():
    for kw in (dict(scale_factor=(2, 3)), dict(size=(4, 5), mode='bicubic'),
               dict(scale_factor=0.5, mode='area'), dict(size=3)):
        assert repr(ember.nn.Upsample(**kw)) == repr(torch.nn.Upsample(**kw))


def test_errors():
    x = rand(2, 3, 4, 5, seed=2)
    errors_both(lambda m: m.nn.Upsample(scale_factor=2, mode='linear')(m.from_numpy(x)),
                'linear mode needs 3D input')
    errors_both(lambda m: m.nn.Upsample(size=3, mode='nearest', align_corners=True)(
        m.from_numpy(x)), 'align_corners option can only be set')
    errors_both(lambda m: m.nn.Upsample()(m.from_numpy(x)),
                'either size or scale_factor should be defined')
    errors_both(lambda m: m.nn.functional.interpolate(m.from_numpy(x), size=(0, 2)),
                'Input and output sizes should be greater than 0')


@pytest.mark.parametrize('name,kw', [('upsample', dict(mode='bilinear')),
                                     ('upsample_nearest', {}), ('upsample_bilinear', {})])
def test_deprecated_functions_warn(name, kw):
    x = rand(1, 2, 3, 4, seed=4)
    outs = []
    for m in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            outs.append(getattr(m.nn.functional, name)(m.from_numpy(x), scale_factor=2, **kw))
        msgs = [str(r.message) for r in w]
        assert any(f'nn.functional.{name}` is deprecated' in s for s in msgs), msgs
        assert w[0].filename == __file__          # stacklevel: the caller's line
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('mode,shape', [('nearest', (1, 2, 3, 4)), ('bilinear', (1, 2, 3, 4)),
                                        ('bicubic', (1, 1, 3, 3)), ('trilinear', (1, 1, 2, 2, 3)),
                                        ('area', (1, 2, 5, 4))])
def test_double_backward(mode, shape):
    x = ember.randn(*shape, dtype=ember.float64, requires_grad=True)
    size = (5, 3, 4)[:len(shape) - 2]
    f = lambda x: ember.nn.functional.interpolate(x, size=size, mode=mode)  # noqa: E731
    assert ember.autograd.gradgradcheck(f, (x,))


def test_bilinear_x2_workload():
    """The benchmark shape (16x64x56x56 -> x2, forward + backward), smaller batch here."""
    e, t = pair(lambda nn: nn.Upsample(scale_factor=2, mode='bilinear'))
    run_both(e, t, rand(2, 8, 56, 56, seed=5), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('mode', ['nearest', 'bilinear', 'bicubic', 'nearest-exact'])
def test_channels_last_in_channels_last_out(mode):
    x = rand(2, 3, 4, 5, seed=6)
    ye = ember.nn.Upsample(size=(6, 7), mode=mode)(
        ember.from_numpy(x).to(memory_format=ember.channels_last))
    yt = torch.nn.Upsample(size=(6, 7), mode=mode)(
        torch.from_numpy(x).to(memory_format=torch.channels_last))
    assert ye.stride() == yt.stride()
    np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=1e-5, atol=1e-6)


def test_half_precision_computes_in_float32():
    x = rand(2, 3, 4, 5, seed=7).astype(np.float16)
    ye = ember.nn.functional.interpolate(ember.from_numpy(x), size=(7, 9), mode='bilinear')
    yt = torch.nn.functional.interpolate(torch.from_numpy(x), size=(7, 9), mode='bilinear')
    assert ye.dtype == ember.float16
    np.testing.assert_allclose(ye.float().numpy(), yt.float().numpy(), rtol=1e-3, atol=1e-3)
