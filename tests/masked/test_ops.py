"""``ember.masked``'s reductions and normalizations vs ``torch.masked``: values, dtypes and
gradients on random inputs and masks, including fully masked-out rows."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, errors_both

warnings.filterwarnings('ignore', message='.*masked.*prototype.*')

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5)).astype(np.float32)
MASK = RNG.random((4, 5)) > 0.4
MASK[1] = False                     # a fully masked-out row
MASK[:, 2] = False                  # and a fully masked-out column
X3 = RNG.standard_normal((2, 3, 4))
MASK3 = RNG.random((2, 3, 4)) > 0.5
XI = RNG.integers(-5, 6, (4, 5))


def _t(m, a, grad=False):
    t = m.tensor(a)
    return t.requires_grad_() if grad else t


def _compare(call, x=X, mask=MASK, grad=True, rtol=None, atol=None):
    """Run ``call(m, x, mask)`` on both libraries; compare results and, for float input,
    the gradient of the result under a fixed upstream gradient."""
    outs = []
    for m in (torch, ember):
        xt = _t(m, x, grad and x.dtype.kind == 'f')
        mt = None if mask is None else m.tensor(mask)
        y = call(m, xt, mt)
        g = None
        if grad and x.dtype.kind == 'f' and y.requires_grad:
            up = np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)).astype(np.float64)
            finite = m.tensor(np.isfinite(up))  # noqa: F841
            yv = y.masked_fill(~y.isfinite(), 0) if y.dtype.is_floating_point else y
            (yv * m.tensor(up).to(y.dtype)).sum().backward()
            g = xt.grad
        outs.append((y, g))
    (ty, tg), (ey, eg) = outs
    assert_same(ey, ty, rtol, atol)
    if tg is not None or eg is not None:
        assert_same(eg, tg, rtol, atol, path='grad')


REDUCTIONS = ['sum', 'prod', 'amax', 'amin', 'mean', 'logsumexp', 'norm', 'var', 'std']


@pytest.mark.parametrize('name', REDUCTIONS)
@pytest.mark.parametrize('dim', [1, 0, None, (0, 1), -1])
@pytest.mark.parametrize('keepdim', [False, True])
def test_reductions(name, dim, keepdim):
    def call(m, x, mask):
        f = getattr(m.masked, name)
        if name == 'norm':
            return f(x, 2.0, dim, keepdim=keepdim, mask=mask)
        return f(x, dim, keepdim=keepdim, mask=mask)
    _compare(call)


@pytest.mark.parametrize('name', REDUCTIONS + ['argmax', 'argmin', 'median'])
def test_no_mask_and_broadcast_mask(name):
    def call(m, x, mask):
        f = getattr(m.masked, name)
        args = (x, 2.0, 1) if name == 'norm' else (x, 1)
        return f(*args, mask=mask)
    _compare(call, mask=None)
    _compare(call, mask=MASK[0])                # broadcast over rows
    _compare(call, mask=MASK.astype(np.float32))  # any dtype reads as bool


@pytest.mark.parametrize('name', ['argmax', 'argmin', 'median'])
@pytest.mark.parametrize('dim', [0, 1, -1])
@pytest.mark.parametrize('keepdim', [False, True])
def test_index_reductions(name, dim, keepdim):
    _compare(lambda m, x, mask: getattr(m.masked, name)(x, dim, keepdim=keepdim, mask=mask))


def test_argmax_flat_and_dtype():
    _compare(lambda m, x, mask: m.masked.argmax(x, mask=mask))
    _compare(lambda m, x, mask: m.masked.argmin(x, None, keepdim=True, mask=mask))
    _compare(lambda m, x, mask: m.masked.argmax(x, 1, mask=mask, dtype=m.int64))


def test_median_dim_none_reads_dim0():
    _compare(lambda m, x, mask: m.masked.median(x, None, mask=mask))


@pytest.mark.parametrize('name', ['sum', 'prod', 'amax', 'amin', 'argmax', 'logsumexp'])
def test_integer_input(name):
    _compare(lambda m, x, mask: getattr(m.masked, name)(x, 1, mask=mask), x=XI, grad=False)


def test_integer_median_and_var():
    mask = MASK.copy()
    mask[1] = True
    mask[:, 2] = True
    _compare(lambda m, x, mask: m.masked.median(x, 1, mask=mask), x=XI, mask=mask, grad=False)
    _compare(lambda m, x, mask: m.masked.var(x, 1, mask=mask), x=XI, mask=mask, grad=False)


@pytest.mark.parametrize('call, match', [
    (lambda m, x, mask: m.masked.mean(x, 1, mask=mask), 'Could not infer output dtype'),
    (lambda m, x, mask: m.masked.median(x, 1, mask=mask), 'no fully masked out rows'),
    (lambda m, x, mask: m.masked.sum(x, 1, mask=mask[None, None]), 'broadcastable mask'),
    (lambda m, x, mask: m.masked.amax(x > 0, 1, mask=mask), 'identity of amax'),
    (lambda m, x, mask: m.masked.var(x.float(), 1, unbiased=True, correction=1, mask=mask),
     'Only one of unbiased and correction may be given'),
])
def test_errors(call, match):
    errors_both(lambda m: call(m, m.tensor(XI), m.tensor(MASK)), match)


@pytest.mark.parametrize('name', ['cumsum', 'cumprod', 'softmax', 'log_softmax', 'softmin'])
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_scans_and_softmax(name, dim):
    _compare(lambda m, x, mask: getattr(m.masked, name)(x, dim, mask=mask))


@pytest.mark.parametrize('name', ['cumsum', 'softmax', 'log_softmax'])
def test_scans_and_softmax_dtype(name):
    _compare(lambda m, x, mask: getattr(m.masked, name)(x, 1, mask=mask, dtype=m.float64))


@pytest.mark.parametrize('ord', [2.0, 1.0, float('inf'), float('-inf'), 0.0, 3.0])
def test_norm_orders(ord):
    _compare(lambda m, x, mask: m.masked.norm(x, ord, 1, mask=mask), grad=ord != 0.0)


@pytest.mark.parametrize('kw', [dict(), dict(unbiased=False), dict(correction=0),
                                dict(correction=2), dict(correction=5)])
def test_var_std_corrections(kw):
    _compare(lambda m, x, mask: m.masked.var(x, 1, mask=mask, **kw))
    _compare(lambda m, x, mask: m.masked.std(x, (0, 1), keepdim=True, mask=mask, **kw))


@pytest.mark.parametrize('ord, eps', [(2.0, 1e-12), (1.0, 0.5), (float('inf'), 1e-12)])
def test_normalize(ord, eps):
    _compare(lambda m, x, mask: m.masked.normalize(x, ord, 1, eps=eps, mask=mask))


def test_logaddexp():
    other = RNG.standard_normal((4, 5)).astype(np.float32)
    mo = RNG.random((4, 5)) > 0.5

    def call(m, x, mask):
        return m.masked.logaddexp(x, m.tensor(other), input_mask=mask, other_mask=m.tensor(mo))
    _compare(call)
    _compare(lambda m, x, mask: m.masked.logaddexp(x, x * 2, input_mask=mask))


def test_three_dims_and_float64():
    for name in ('sum', 'mean', 'amax', 'var', 'logsumexp'):
        _compare(lambda m, x, mask: getattr(m.masked, name)(x, (0, 2), mask=mask), x=X3,
                 mask=MASK3)
    _compare(lambda m, x, mask: m.masked.softmax(x, 1, mask=mask), x=X3, mask=MASK3)


def test_sum_dtype_arg():
    _compare(lambda m, x, mask: m.masked.sum(x, 1, mask=mask, dtype=m.float64))
    _compare(lambda m, x, mask: m.masked.mean(x, 0, mask=mask, dtype=m.float64))


def test_gradcheck_float64():
    x = ember.tensor(X.astype(np.float64), requires_grad=True)
    mask = ember.tensor(MASK)
    full_rows = ember.tensor(MASK | np.eye(4, 5, dtype=bool) | np.eye(4, 5, 1, dtype=bool))
    for f in (lambda t: ember.masked.sum(t, 1, mask=mask),
              lambda t: ember.masked.mean(t, 0, mask=mask).nan_to_num(),
              lambda t: ember.masked.var(t, 1, mask=full_rows),
              lambda t: ember.masked.softmax(t, 1, mask=mask).nan_to_num(),
              lambda t: ember.masked.norm(t, 2.0, 1, mask=mask),
              lambda t: ember.masked.normalize(t, 2.0, 1, mask=mask),
              lambda t: ember.masked.logsumexp(t, 1, mask=mask.logical_or(
                  ember.tensor([[True, False, False, False, False]] * 4)))):
        assert ember.autograd.gradcheck(f, (x,))


def test_cumulative_keep_dtype_and_empty_dim_reduces_all():
    _t, _e = torch, ember
    for fn in (lambda m, x: m.masked.cumsum(x, 0, mask=x > 1),
               lambda m, x: m.masked.cumprod(x, 1, mask=x > 1),
               lambda m, x: m.masked.prod(x, dim=()),
               lambda m, x: m.masked.prod(x > 1, dim=(), keepdim=True),
               lambda m, x: m.masked.prod(m.tensor(True), dim=())):
        r = [fn(m, m.tensor([[1, 2], [3, 4]], dtype=m.int16)) for m in (_t, _e)]
        assert str(r[1].dtype) == str(r[0].dtype) and r[1].tolist() == r[0].tolist()
    for m in (_t, _e):      # an explicit bool dtype has no kernel
        with pytest.raises(NotImplementedError, match='"cumsum_out_cpu" not implemented'):
            m.tensor([True]).cumsum(0, dtype=m.bool)
        with pytest.raises(NotImplementedError, match='"cumprod_out_cpu" not implemented'):
            m.masked.cumprod(m.tensor([True, False]), 0)


def test_complex_var_std_mean_logsumexp():
    # complex in, complex out for var/std (as torch); 0-d inputs reduce over dim 0;
    # masked-out complex elements are -inf for logsumexp
    x = np.array([[1 + 1j, 2 - 1j], [0.5j, 3]])
    k = np.array([[True, False], [True, True]])
    for fn in (lambda m, t, q: m.masked.var(t), lambda m, t, q: m.masked.std(t, 1),
               lambda m, t, q: m.masked.mean(t[0, 0], dim=0, keepdim=True),
               lambda m, t, q: m.masked.logsumexp(t[0, 0], 0, mask=q[0, 0]),
               lambda m, t, q: m.masked.logsumexp(t, 1, mask=q),
               lambda m, t, q: m.masked.std(t, 0, mask=q)):
        r = [fn(m, m.tensor(x), m.tensor(k)) for m in (torch, ember)]
        assert_same(r[1], r[0])
