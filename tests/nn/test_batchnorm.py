"""BatchNorm1d/2d/3d (+ lazy forms) and F.batch_norm vs torch: outputs, gradients,
running statistics (momentum and cumulative average), eval mode, buffers, repr, errors."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from oracle import check, check_error, gradcheck_ember, rand
from _util import pair, run_both

SHAPES = {'BatchNorm1d': [(8, 3), (4, 3, 5)], 'BatchNorm2d': [(4, 3, 5, 2)], 'BatchNorm3d': [(2, 3, 2, 3, 2)]}


def _cases():
    for cls, shapes in SHAPES.items():
        for s in shapes:
            yield cls, s


def _cmp_buffers(e, t):
    for (n, a), (_, b) in zip(e.named_buffers(), t.named_buffers()):
        assert a.dtype.__str__() == b.dtype.__str__(), n
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=n)


@pytest.mark.parametrize('cls,shape', list(_cases()))
@pytest.mark.parametrize('kw', [dict(), dict(affine=False), dict(momentum=None), dict(momentum=0.5, eps=1e-3),
                                dict(track_running_stats=False), dict(bias=False)])
def test_train_then_eval(cls, shape, kw):
    e, t = pair(lambda n: getattr(n, cls)(3, **kw))
    for step in range(3):
        ye, yt = run_both(e, t, rand(*shape, seed=step) * 2 + 1, rtol=1e-4, atol=1e-5, seed=step)
        assert ye.grad_fn.name() == yt.grad_fn.name() == 'NativeBatchNormBackward0'
        _cmp_buffers(e, t)
    e.eval()
    t.eval()
    run_both(e, t, rand(*shape, seed=9), rtol=1e-4, atol=1e-5)
    _cmp_buffers(e, t)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())


def test_buffers_and_dtypes():
    m = nn.BatchNorm2d(3, dtype=ember.half)
    assert str(m.running_mean) == 'tensor([0., 0., 0.], dtype=torch.float16)'
    assert m.num_batches_tracked.dtype == ember.int64
    assert str(m.num_batches_tracked) == str(torch.nn.BatchNorm2d(3).num_batches_tracked) == 'tensor(0)'
    assert str(nn.BatchNorm1d(2).state_dict()) == str(torch.nn.BatchNorm1d(2).state_dict())
    x = ember.randn(4, 3, 2, 2, dtype=ember.half)
    y = m(x)
    assert y.dtype == ember.float16 and m.running_var.dtype == ember.float16
    assert m.num_batches_tracked.item() == 1
    m = nn.BatchNorm1d(4, dtype=ember.float64, device='cpu')
    assert m.weight.dtype == ember.float64 and m.running_mean.dtype == ember.float64
    m.double()
    m.half()
    assert m.num_batches_tracked.dtype == ember.int64


def test_cumulative_average():
    e, t = pair(lambda n: n.BatchNorm1d(2, momentum=None))
    xs = [rand(5, 2, seed=i) * (i + 1) for i in range(4)]
    for x in xs:
        e(ember.from_numpy(x))
        t(torch.from_numpy(x))
    _cmp_buffers(e, t)
    np.testing.assert_allclose(e.running_mean.numpy(), np.mean([x.mean(0) for x in xs], 0), rtol=1e-5)


def test_functional_batch_norm():
    x, rm, rv, w, b = rand(6, 3, 4, seed=1), rand(3, seed=2), rand(3, seed=3, low=0.5, high=2), \
        rand(3, seed=4), rand(3, seed=5)
    for training in (False, True):
        check(lambda m, x, rm, rv, w, b: m.nn.functional.batch_norm(x, rm.detach(), rv.detach(), w, b,
                                                                   training=training, momentum=0.3),
              [x, rm, rv, w, b], grad=True, rtol=1e-4, atol=1e-5)
    check(lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), [x], grad=True,
          rtol=1e-4, atol=1e-5)

    def stats(m, x, rm, rv):
        rm, rv = rm.detach().clone(), rv.detach().clone()
        m.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.2)
        return rm, rv
    check(stats, [x, rm, rv])


def test_batch_norm_gradcheck_and_double_backward():
    gradcheck_ember(lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
                    [rand(4, 3, seed=1), rand(3, seed=2), rand(3, seed=3)])
    gradcheck_ember(lambda m, x, w: m.nn.functional.batch_norm(
        x, m.ones(2, dtype=m.float64) * 0.5, m.ones(2, dtype=m.float64) * 2, w, None, training=False),
        [rand(3, 2, 2, seed=1), rand(2, seed=2)])

    def f(m, x, w):
        y = m.nn.functional.batch_norm(x, None, None, w, None, training=True)
        g, = m.autograd.grad((y ** 3).sum(), x, create_graph=True)
        return g
    check(f, [rand(5, 2, dtype=np.float64, seed=1), rand(2, dtype=np.float64, seed=2)], grad=True,
          rtol=1e-6, atol=1e-8)


def test_errors():
    check_error(lambda m, x: m.nn.BatchNorm2d(3)(x), [rand(2, 3, 4)], match='expected 4D input (got 3D input)')
    check_error(lambda m, x: m.nn.BatchNorm1d(3)(x), [rand(2, 3, 4, 5)], match='expected 2D or 3D input (got 4D input)')
    check_error(lambda m, x: m.nn.BatchNorm3d(3)(x), [rand(2, 3, 4, 5)], match='expected 5D input (got 4D input)')
    check_error(lambda m, x: m.nn.BatchNorm1d(3)(x), [rand(1, 3)],
                match='Expected more than 1 value per channel when training, got input size torch.Size([1, 3])')
    check_error(lambda m, x: m.nn.BatchNorm1d(3)(x), [rand(2, 4)], match='running_mean should contain 4 elements not 3')
    check_error(lambda m, x: m.nn.functional.batch_norm(x, None, None), [rand(2, 3)],
                match='running_mean must be defined in evaluation mode')
    check_error(lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), [rand(3)])
    m = nn.BatchNorm1d(3).eval()
    assert m(ember.randn(1, 3)).shape == (1, 3)     # one value per channel is fine in eval


def test_reset_and_load_state_dict():
    m = nn.BatchNorm1d(3)
    m(ember.randn(4, 3))
    sd = m.state_dict()
    m2 = nn.BatchNorm1d(3)
    m2.load_state_dict(sd)
    assert m2.num_batches_tracked.item() == 1 and ember.equal(m2.running_mean, m.running_mean)
    old = {k: v for k, v in sd.items() if k != 'num_batches_tracked'}
    from collections import OrderedDict
    old = OrderedDict(old)
    old._metadata = OrderedDict({'': {'version': 1}})
    m3 = nn.BatchNorm1d(3)
    assert repr(m3.load_state_dict(old)) == '<All keys matched successfully>'
    m.reset_running_stats()
    assert m.running_mean.tolist() == [0.] * 3 and m.running_var.tolist() == [1.] * 3
    assert m.num_batches_tracked.item() == 0
    with ember.no_grad():
        m.weight.fill_(3)
    m.reset_parameters()
    assert m.weight.tolist() == [1.] * 3


@pytest.mark.parametrize('lazy,shape', [('LazyBatchNorm1d', (4, 5)), ('LazyBatchNorm2d', (2, 5, 3, 3)),
                                         ('LazyBatchNorm3d', (2, 5, 2, 2, 2))])
def test_lazy(lazy, shape):
    m = getattr(nn, lazy)()
    assert repr(m) == repr(getattr(torch.nn, lazy)())
    assert isinstance(m.running_mean, nn.UninitializedBuffer)
    assert isinstance(m.weight, nn.UninitializedParameter)
    m(ember.randn(*shape))
    regular = lazy.replace('Lazy', '')
    assert type(m).__name__ == regular and m.num_features == 5
    assert repr(m) == repr(getattr(torch.nn, regular)(5))
    assert m.running_mean.shape == (5,) and m.num_batches_tracked.item() == 1
    assert list(m.state_dict()) == list(getattr(torch.nn, regular)(5).state_dict())


def test_lazy_no_affine_no_stats():
    m = nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
    m(ember.randn(4, 3))
    t = torch.nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
    t(torch.randn(4, 3))
    assert m.weight is None and m.running_mean is None
    assert repr(m) == repr(t)     # nothing to infer: num_features stays 0, as in torch


# ----------------------------------------------------------------------------- SyncBatchNorm

@pytest.mark.parametrize('shape', [(8, 3), (4, 3, 5), (2, 3, 4, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize('kw', [dict(), dict(momentum=None), dict(affine=False, eps=1e-3),
                                dict(track_running_stats=False), dict(bias=False)])
def test_sync_batch_norm_single_process(shape, kw):
    """Without a process group to sync over, SyncBatchNorm is batch norm (torch too)."""
    e, t = pair(lambda n: n.SyncBatchNorm(3, **kw))
    for step in range(2):
        ye, yt = run_both(e, t, rand(*shape, seed=step) * 2 + 1, rtol=1e-4, atol=1e-5, seed=step)
        assert ye.grad_fn.name() == yt.grad_fn.name() == 'NativeBatchNormBackward0'
        _cmp_buffers(e, t)
    e.eval()
    t.eval()
    run_both(e, t, rand(*shape, seed=9), rtol=1e-4, atol=1e-5)
    _cmp_buffers(e, t)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert e.process_group is None
    assert type(e).__module__ == 'ember.nn.modules.batchnorm'


def test_sync_batch_norm_errors():
    check_error(lambda m, x: m.nn.SyncBatchNorm(3)(x), [rand(3)],
                match='expected at least 2D input (got 1D input)')
    check_error(lambda m, x: m.nn.SyncBatchNorm(3)(x), [rand(2, 0, 3)],
                match='SyncBatchNorm number of input channels should be non-zero')
    check_error(lambda m, x: m.nn.SyncBatchNorm(3)(x), [rand(1, 3)],
                match='Expected more than 1 value per channel when training')


def test_convert_sync_batchnorm():
    def build(n):
        torch.manual_seed(0)
        ember.manual_seed(0)
        net = n.Sequential(n.Linear(4, 3), n.BatchNorm1d(3, momentum=0.3),
                           n.Sequential(n.BatchNorm2d(3, affine=False),
                                        n.BatchNorm3d(3, track_running_stats=False)))
        net[2][0].eval()
        return net
    e_net, t_net = build(nn), build(torch.nn)
    w, rm = e_net[1].weight, e_net[1].running_mean
    e = nn.SyncBatchNorm.convert_sync_batchnorm(e_net, process_group='pg')
    t = torch.nn.SyncBatchNorm.convert_sync_batchnorm(t_net)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert type(e[0]).__name__ == 'Linear'
    assert [type(m).__name__ for m in (e[1], e[2][0], e[2][1])] == ['SyncBatchNorm'] * 3
    assert e[1].weight is w and e[1].running_mean is rm      # shared, not copied
    assert e[1].momentum == 0.3 and e[1].process_group == 'pg'
    assert [m.training for m in (e[1], e[2][0], e[2][1])] == [True, False, True]
    assert e[2][0].weight is None and e[2][1].running_mean is None
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm2d(5, bias=False))
    assert isinstance(single, nn.SyncBatchNorm) and single.bias is None
    lin = nn.Linear(2, 2)
    assert nn.SyncBatchNorm.convert_sync_batchnorm(lin) is lin


@pytest.mark.parametrize('cls,shape', [('BatchNorm1d', (0, 3)), ('BatchNorm2d', (0, 3, 4, 4))])
def test_batchnorm_training_empty_batch_keeps_running_stats(cls, shape):
    # an empty batch in training mode leaves running_mean / running_var as they were
    # (num_batches_tracked still counts), and gives zero parameter gradients (issue 21)
    def f(m):
        bn = getattr(m.nn, cls)(3).double()
        bn.running_mean.fill_(0.5)
        x = m.zeros(shape, dtype=m.float64, requires_grad=True)
        y = bn(x)
        y.sum().backward()
        return (y, bn.running_mean, bn.running_var, bn.num_batches_tracked, x.grad,
                bn.weight.grad, bn.bias.grad)
    from oracle import run_both as rb
    rb(f)
