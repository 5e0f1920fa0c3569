"""InstanceNorm1d/2d/3d (+ lazy forms) vs torch: outputs, input and parameter gradients,
running statistics in train and eval mode, batched and unbatched inputs, buffers and
state_dict keys, repr, default init after the same seed, warnings and errors."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check, check_error, rand
from _util import pair, run_both, sync

SHAPES = {'InstanceNorm1d': [(4, 3, 5), (3, 5)], 'InstanceNorm2d': [(2, 3, 4, 2), (3, 4, 2)],
          'InstanceNorm3d': [(2, 3, 2, 3, 2), (3, 2, 2, 3)]}
KWS = [dict(), dict(affine=True), dict(track_running_stats=True),
       dict(affine=True, track_running_stats=True, momentum=0.4),
       dict(track_running_stats=True, momentum=None), dict(affine=True, bias=False, eps=1e-3)]


def _cmp_buffers(e, t):
    for (n, a), (_, b) in zip(e.named_buffers(), t.named_buffers()):
        assert str(a.dtype) == str(b.dtype), n
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=n)


def _cases():
    for cls, shapes in SHAPES.items():
        for s in shapes:
            for i, kw in enumerate(KWS):
                yield pytest.param(cls, s, kw, id=f'{cls}-{"x".join(map(str, s))}-{i}')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('cls,shape,kw', list(_cases()))
def test_train_then_eval(cls, shape, kw, dtype):
    root = {torch.nn: torch, ember.nn: ember}
    e, t = pair(lambda n: getattr(n, cls)(3, dtype=getattr(root[n], dtype), **kw))
    if e.affine:
        with torch.no_grad():
            for p in t.parameters():
                p.copy_(torch.from_numpy(rand(*p.shape, dtype=dtype, seed=3)))
        sync(e, t)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-9, atol=1e-10)
    for step in range(2):
        x = rand(*shape, dtype=dtype, seed=step) * (step + 1) + 0.5
        ye, yt = run_both(e, t, x, **tol, seed=step)
        assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
        _cmp_buffers(e, t)
    e.eval()
    t.eval()
    run_both(e, t, rand(*shape, dtype=dtype, seed=9), **tol)
    _cmp_buffers(e, t)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    if e.track_running_stats:
        assert e.num_batches_tracked.item() == t.num_batches_tracked.item() == 0


@pytest.mark.parametrize('cls', list(SHAPES))
def test_defaults_and_init_after_seed(cls):
    torch.manual_seed(3)
    t = getattr(torch.nn, cls)(4, affine=True, track_running_stats=True)
    rt = torch.rand(2)
    ember.manual_seed(3)
    e = getattr(nn, cls)(4, affine=True, track_running_stats=True)
    re = ember.rand(2)
    assert list(e.state_dict()) == list(t.state_dict()) == [
        'weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    for (n, a), (_, b) in zip(e.state_dict().items(), t.state_dict().items()):
        assert str(a.dtype) == str(b.dtype), n
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(re.numpy(), rt.numpy())
    d = getattr(nn, cls)(4)
    assert (d.affine, d.track_running_stats, d.weight, d.running_mean) == (False, False, None,
                                                                           None)
    assert list(d.state_dict()) == []
    assert repr(d) == repr(getattr(torch.nn, cls)(4))
    assert getattr(nn, cls).__module__ == 'ember.nn.modules.instancenorm'


def test_channel_mismatch_warns_or_raises():
    x = rand(2, 4, 5)
    for m in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            m.nn.InstanceNorm1d(3)(m.tensor(x))
        msgs = [str(a.message) for a in w if issubclass(a.category, UserWarning)]
        assert any("input's size at dim=1 does not match num_features" in s for s in msgs), msgs
    check_error(lambda m, x: m.nn.InstanceNorm1d(3, affine=True)(x), [x],
                match="expected input's size at dim=1 to match num_features (3), but got: 4.")
    check_error(lambda m, x: m.nn.InstanceNorm2d(3, affine=True)(x), [rand(4, 5, 6)],
                match="expected input's size at dim=0 to match num_features (3), but got: 4.")


def test_errors():
    check_error(lambda m, x: m.nn.InstanceNorm1d(3)(x), [rand(2, 3, 4, 5)],
                match='expected 2D or 3D input (got 4D input)')
    check_error(lambda m, x: m.nn.InstanceNorm2d(3)(x), [rand(3, 4)],
                match='expected 3D or 4D input (got 2D input)')
    check_error(lambda m, x: m.nn.InstanceNorm3d(3)(x), [rand(2, 3, 4, 5, 6, 7)],
                match='expected 4D or 5D input (got 6D input)')
    check_error(lambda m, x: m.nn.InstanceNorm1d(3)(x), [rand(2, 3, 1)],
                match='Expected more than 1 spatial element when training, got input size')
    check_error(lambda m, x: m.nn.functional.instance_norm(x, None, None, use_input_stats=False),
                [rand(2, 3, 4)], match='Expected running_mean and running_var to be defined')
    check_error(lambda m, x, rm: m.nn.functional.instance_norm(x, rm.requires_grad_(),
                                                                        m.ones(3)),
                [rand(2, 3, 4), rand(3)], match="is not differentiable with respect to argument "
                                                "'running_mean'")
    m = nn.InstanceNorm1d(3, track_running_stats=True).eval()
    assert m(ember.randn(2, 3, 1)).shape == (2, 3, 1)   # eval: running stats, no size check


def test_functional_running_stats():
    x, rm, rv = rand(3, 2, 5, seed=1), rand(2, seed=2), rand(2, seed=3, low=0.5, high=2)

    def f(m, x, rm, rv):
        rm, rv = rm.detach().clone(), rv.detach().clone()
        y = m.nn.functional.instance_norm(x, rm, rv, momentum=0.3)
        return y, rm, rv
    check(f, [x, rm, rv], grad=True, rtol=1e-5, atol=1e-6)
    check(lambda m, x, rm, rv: m.nn.functional.instance_norm(
        x, rm.detach(), rv.detach(), use_input_stats=False), [x, rm, rv], grad=True)


@pytest.mark.parametrize('lazy,shape', [('LazyInstanceNorm1d', (4, 5, 3)),
                                        ('LazyInstanceNorm2d', (2, 5, 3, 3)),
                                        ('LazyInstanceNorm3d', (2, 5, 2, 2, 2))])
def test_lazy(lazy, shape):
    e, t = getattr(nn, lazy)(), getattr(torch.nn, lazy)()
    assert repr(e) == repr(t)
    assert isinstance(e.weight, nn.UninitializedParameter)
    assert isinstance(e.running_mean, nn.UninitializedBuffer)
    x = rand(*shape, seed=1)
    ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    regular = lazy.replace('Lazy', '')
    assert type(e).__name__ == regular and e.num_features == 5
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    _cmp_buffers(e, t)
    f = getattr(nn, lazy)(affine=False, track_running_stats=False)
    assert repr(f) == repr(getattr(torch.nn, lazy)(affine=False, track_running_stats=False))


def test_old_checkpoint_running_stats_rejected():
    m = nn.InstanceNorm1d(3)
    sd = OrderedDict(running_mean=ember.zeros(3), running_var=ember.ones(3))
    sd._metadata = OrderedDict({'': {}})     # no version: a checkpoint from before 0.4.0
    with pytest.raises(RuntimeError, match=r'Unexpected running stats buffer\(s\) '
                                           r'"running_mean" and "running_var" for '
                                           r'InstanceNorm1d with track_running_stats=False'):
        m.load_state_dict(sd)
    m2 = nn.InstanceNorm1d(3, track_running_stats=True)
    m2.load_state_dict(nn.InstanceNorm1d(3, track_running_stats=True).state_dict())


def test_unbatched_matches_batched():
    e = nn.InstanceNorm2d(3, affine=True)
    x = ember.randn(3, 4, 5)
    np.testing.assert_allclose(e(x).detach().numpy(), e(x.unsqueeze(0))[0].detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    assert e(x).shape == (3, 4, 5)
