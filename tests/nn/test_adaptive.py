"""AdaptiveLogSoftmaxWithLoss (ember/nn/modules/adaptive.py) vs torch: parameter names and
initial values after the same seed, repr, forward (output, loss) and gradients, log_prob,
predict, unbatched inputs, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both

rng = np.random.default_rng(0)


def _pair(**kw):
    args = dict(in_features=16, n_classes=20, cutoffs=[4, 10, 15])
    args.update(kw)
    torch.manual_seed(7)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(**args)
    ember.manual_seed(7)
    e = ember.nn.AdaptiveLogSoftmaxWithLoss(**args)
    return e, t


@pytest.mark.parametrize('kw', [{}, {'head_bias': True, 'div_value': 2.0},
                                {'cutoffs': [8], 'dtype': 'float64'}])
def test_init_names_repr(kw):
    if kw.get('dtype'):
        e, t = _pair(cutoffs=[8], dtype=None)
        e, t = e.double(), t.double()
    else:
        e, t = _pair(**kw)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    for (n, a), (_, b) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, err_msg=n)
    for k in ('in_features', 'n_classes', 'cutoffs', 'div_value', 'head_bias',
              'shortlist_size', 'n_clusters', 'head_size'):
        assert getattr(e, k) == getattr(t, k), k


@pytest.mark.parametrize('dt', ['float32', 'float64'])
@pytest.mark.parametrize('kw', [{}, {'head_bias': True}])
def test_forward_backward(dt, kw):
    e, t = _pair(**kw)
    e, t = e.to(getattr(ember, dt)), t.to(getattr(torch, dt))
    x = rng.standard_normal((9, 16)).astype(dt)
    y = np.array([0, 3, 4, 9, 10, 14, 15, 19, 2])
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    oe, ot = e(xe, ember.tensor(y)), t(xt, torch.tensor(y))
    assert type(oe).__name__ == '_ASMoutput' and oe._fields == ('output', 'loss')
    tol = dict(rtol=1e-5, atol=1e-6) if dt == 'float32' else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(oe.output.detach().numpy(), ot.output.detach().numpy(), **tol)
    np.testing.assert_allclose(oe.loss.item(), ot.loss.item(), **tol)
    g = rng.standard_normal(9).astype(dt)
    (oe.output * ember.tensor(g)).sum().add(oe.loss).backward()
    (ot.output * torch.tensor(g)).sum().add(ot.loss).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), **tol)
    for (n, a), (_, b) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), err_msg=n, **tol)
    # log_prob and predict
    np.testing.assert_allclose(e.log_prob(ember.tensor(x)).detach().numpy(),
                               t.log_prob(torch.tensor(x)).detach().numpy(), **tol)
    np.testing.assert_array_equal(e.predict(ember.tensor(x)).numpy(),
                                  t.predict(torch.tensor(x)).numpy())


def test_unbatched_and_predict_branches():
    e, t = _pair()
    x = rng.standard_normal(16).astype(np.float32)
    oe, ot = e(ember.tensor(x), ember.tensor(2)), t(torch.tensor(x), torch.tensor(2))
    assert tuple(oe.output.shape) == tuple(ot.output.shape) == ()
    np.testing.assert_allclose(oe.loss.item(), ot.loss.item(), rtol=1e-5)
    for tg in (5, 12, 17):       # one row in a tail cluster
        oe, ot = e(ember.tensor(x), ember.tensor(tg)), t(torch.tensor(x), torch.tensor(tg))
        np.testing.assert_allclose(oe.output.item(), ot.output.item(), rtol=1e-5)
        np.testing.assert_allclose(oe.loss.item(), ot.loss.item(), rtol=1e-5)
    # torch 2.13's log_prob of an unbatched input raises too (log_softmax over dim 1 of a
    # 1-D tensor); ember gives the batched result's row
    np.testing.assert_allclose(e.log_prob(ember.tensor(x)).detach().numpy(),
                               t.log_prob(torch.tensor(x)[None])[0].detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(IndexError):
        t.log_prob(torch.tensor(x))
    assert e.predict(ember.tensor(x)).item() == t.predict(torch.tensor(x)[None])[0].item()
    assert e.predict(ember.tensor(x)).shape == ()
    # predict: all rows in the shortlist / none / mixed (head bias steers the argmax)
    for bias in ([10.0] * 4 + [0.0] * 3, [0.0] * 4 + [10.0] * 3, None):
        e2, t2 = _pair(head_bias=True)
        if bias is not None:
            with torch.no_grad():
                t2.head.bias.copy_(torch.tensor(bias))
            with ember.no_grad():
                e2.head.bias.copy_(ember.tensor(bias))
        xs = rng.standard_normal((12, 16)).astype(np.float32) * 3
        np.testing.assert_array_equal(e2.predict(ember.tensor(xs)).numpy(),
                                      t2.predict(torch.tensor(xs)).numpy())


def test_errors():
    def mk(m):
        m.manual_seed(0)
        return m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])
    for fn, msg in [
        (lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []), 'cutoffs should be a sequence'),
        (lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 2]), 'cutoffs should be a sequence'),
        (lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [10]), 'cutoffs should be a sequence'),
        (lambda m: mk(m)(m.zeros(3, 8), m.tensor([0, 1])), 'same size in the batch dimension'),
        (lambda m: mk(m)(m.zeros(8), m.zeros(8).long()), '1D target tensor expects 2D input'),
        (lambda m: mk(m)(m.zeros(8), m.tensor([0])), 'same size in the batch dimension'),
        (lambda m: mk(m)(m.zeros(2, 8), m.tensor(1)), '0D target tensor expects 1D input'),
        (lambda m: mk(m)(m.zeros(2, 8), m.zeros(2, 1).long()), '0D or 1D target tensor'),
        (lambda m: mk(m)(m.zeros(2, 8), m.tensor([0, 10])), 'Target values should be in [0, 9]'),
    ]:
        ee, et = errors_both(fn)
        assert msg in str(ee) and msg in str(et), (msg, str(ee))
