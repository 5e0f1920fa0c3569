"""Shared helpers of the part-1 distribution tests: build the same distribution on
ember and on torch from numpy parameters, and compare what they compute."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, to_np

ED = ember.distributions
TD = torch.distributions


def tensors(arrays, requires_grad=False):
    """Numpy arrays (or numbers) -> (ember tensors, torch tensors)."""
    e, t = [], []
    for a in arrays:
        if isinstance(a, np.ndarray):
            e.append(ember.tensor(a, requires_grad=requires_grad and a.dtype.kind == 'f'))
            t.append(torch.tensor(a, requires_grad=requires_grad and a.dtype.kind == 'f'))
        else:
            e.append(a)
            t.append(a)
    return e, t


def build(name, params, kwargs=None, requires_grad=False, **opts):
    """(ember dist, torch dist, ember params, torch params)."""
    kwargs = kwargs or {}
    ep, tp = tensors(params, requires_grad)
    ek, tk = tensors(list(kwargs.values()), requires_grad)
    ed = getattr(ED, name)(*ep, **dict(zip(kwargs, ek)), **opts)
    td = getattr(TD, name)(*tp, **dict(zip(kwargs, tk)), **opts)
    return ed, td, ep + ek, tp + tk


def leaves(ts):
    return [(i, t) for i, t in enumerate(ts) if isinstance(t, (ember.Tensor, torch.Tensor))
            and t.requires_grad]


def compare_grads(e_out, t_out, e_params, t_params, rtol=None, atol=None, seed=0):
    """Backward under the same random upstream gradient; compare parameter grads."""
    g = np.random.RandomState(seed).standard_normal(tuple(t_out.shape)).astype(
        str(t_out.dtype).replace('torch.', ''))
    tl = leaves(t_params)
    el = leaves(e_params)
    if not tl:
        return
    try:
        tg = torch.autograd.grad(t_out, [t for _, t in tl], torch.tensor(g), allow_unused=True,
                                 retain_graph=True)
    except (NotImplementedError, RuntimeError) as exc:
        with pytest.raises(type(exc)):
            ember.autograd.grad(e_out, [t for _, t in el], ember.tensor(g), allow_unused=True,
                                retain_graph=True)
        return
    eg = ember.autograd.grad(e_out, [t for _, t in el], ember.tensor(g), allow_unused=True,
                             retain_graph=True)
    for (i, _), a, b in zip(tl, eg, tg):
        if b is None:
            assert a is None or float(a.abs().sum()) == 0, f"grad {i}: torch none"
            continue
        assert a is not None, f"grad of param {i}: ember none"
        assert_same(a, b, rtol, atol, path=f"grad param {i}")


def same_attr(ed, td, attr, rtol=None, atol=None, grad=True, e_params=(), t_params=()):
    try:
        t = getattr(td, attr)
        t = t() if callable(t) else t
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            e = getattr(ed, attr)
            e() if callable(e) else e
        return None
    e = getattr(ed, attr)
    e = e() if callable(e) else e
    assert_same(e, t, rtol, atol, path=attr)
    if grad and isinstance(t, torch.Tensor) and t.requires_grad:
        compare_grads(e, t, e_params, t_params, rtol, atol)
    return e


def check_dist(name, params, values, kwargs=None, methods=('log_prob', 'cdf', 'icdf'),
               attrs=('mean', 'mode', 'variance', 'stddev', 'entropy'), probs=None,
               rtol=None, atol=None, grad=True):
    """Compare shapes, constraints, properties and methods (+ their gradients)."""
    ed, td, ep, tp = build(name, params, kwargs, requires_grad=grad)
    assert tuple(ed.batch_shape) == tuple(td.batch_shape)
    assert tuple(ed.event_shape) == tuple(td.event_shape)
    assert type(ed.batch_shape) is ember.Size
    assert ed.has_rsample == td.has_rsample
    assert repr(ed.support) == repr(td.support)
    assert {k: repr(v) for k, v in ed.arg_constraints.items()} == \
        {k: repr(v) for k, v in td.arg_constraints.items()}
    for a in attrs:
        same_attr(ed, td, a, rtol, atol, grad, ep, tp)
    for m in methods:
        v = probs if m == 'icdf' and probs is not None else values
        if v is None:
            continue
        ev, tv = tensors([v])
        try:
            t = getattr(td, m)(tv[0])
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(ed, m)(ev[0])
            continue
        e = getattr(ed, m)(ev[0])
        assert_same(e, t, rtol, atol, path=m)
        if grad and t.requires_grad:
            compare_grads(e, t, ep, tp, rtol, atol)
    return ed, td


def check_sample_equal(name, params, kwargs=None, shape=(3,), seed=0, rsample=True,
                       rtol=None, atol=None):
    """After the same seed, ember's samples equal torch's (and so do rsample grads)."""
    ed, td, ep, tp = build(name, params, kwargs, requires_grad=rsample)
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    e, t = ed.sample(shape), td.sample(shape)
    assert_same(e, t, rtol, atol, path='sample')
    assert not e.requires_grad
    if rsample and td.has_rsample:
        ember.manual_seed(seed + 1)
        torch.manual_seed(seed + 1)
        e, t = ed.rsample(shape), td.rsample(shape)
        assert_same(e, t, rtol, atol, path='rsample')
        compare_grads(e, t, ep, tp, rtol, atol)
    # the streams stay in step afterwards
    assert_same(ember.rand(2), torch.rand(2), path='next draw')
    return ed, td


def check_expand(name, params, new_batch, kwargs=None, values=None):
    ed, td, _, _ = build(name, params, kwargs)
    ee, te = ed.expand(new_batch), td.expand(new_batch)
    assert type(ee) is type(ed)
    assert tuple(ee.batch_shape) == tuple(te.batch_shape)
    assert tuple(ee.event_shape) == tuple(te.event_shape)
    assert ee._validate_args == te._validate_args
    for a in ('mean', 'variance'):
        try:
            t = getattr(te, a)
        except NotImplementedError:
            continue
        assert_same(getattr(ee, a), t, path=a, equal_nan=True)
    if values is not None:
        values = np.broadcast_to(values, tuple(new_batch) + tuple(te.event_shape)).copy()
        ev, tv = tensors([values])
        assert_same(ee.log_prob(ev[0]), te.log_prob(tv[0]), path='expanded log_prob')
    ember.manual_seed(3)
    torch.manual_seed(3)
    es, ts = ee.sample((2,)), te.sample((2,))
    assert tuple(es.shape) == tuple(ts.shape)


def errors_same(fe, ft, exc=ValueError):
    """Both raise ``exc``; return the two messages."""
    with pytest.raises(exc) as te:
        ft()
    with pytest.raises(exc) as ee:
        fe()
    return str(ee.value), str(te.value)


def check_validate(name, bad_params, kwargs=None, bad_value=None, good_params=None):
    """Invalid parameters / values: same exception and same message as torch."""
    ep, tp = tensors(bad_params)
    ek, tk = tensors(list((kwargs or {}).values()))
    em, tm = errors_same(
        lambda: getattr(ED, name)(*ep, **dict(zip(kwargs or {}, ek)), validate_args=True),
        lambda: getattr(TD, name)(*tp, **dict(zip(kwargs or {}, tk)), validate_args=True))
    assert em == tm.replace('torch.', 'torch.'), (em, tm)
    if bad_value is not None:
        ed, td, _, _ = build(name, good_params, kwargs, validate_args=True)
        ev, tv = tensors([bad_value])
        em, tm = errors_same(lambda: ed.log_prob(ev[0]), lambda: td.log_prob(tv[0]))
        assert em == tm, (em, tm)


def ks_stat(samples, cdf):
    """Kolmogorov-Smirnov statistic of 1-D samples against a CDF (numpy)."""
    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = x.size
    c = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


def standard(name, params, values=None, probs=None, bad=None, bad_value=None,
             expand_to=(2, 2, 3), sample_equal=True, attrs=None, methods=None, tol=None,
             dtypes=('float32', 'float64')):
    """The standard battery for one distribution, as test functions (module globals).

    ``params(R, dt)`` / ``values(R, dt)`` / ``probs(R, dt)`` build numpy inputs from a
    RandomState and a dtype name; ``bad`` gives invalid parameters (ValueError with
    torch's message), ``bad_value`` a value outside the support.
    """
    kw = {}
    if attrs is not None:
        kw['attrs'] = attrs
    if methods is not None:
        kw['methods'] = methods

    @pytest.mark.parametrize('dt', dtypes)
    def test_values_and_grads(dt):
        R = np.random.RandomState(0)
        rt, at = (tol or {}).get(dt, (None, None))
        check_dist(name, params(R, dt), None if values is None else values(R, dt),
                   probs=None if probs is None else probs(R, dt), rtol=rt, atol=at, **kw)

    @pytest.mark.parametrize('dt', ['float32', 'float64'])
    def test_samples_equal_torch(dt):
        R = np.random.RandomState(1)
        if sample_equal:
            check_sample_equal(name, params(R, dt), shape=(4,),
                               rtol=2e-5 if dt == 'float32' else 1e-9,
                               atol=1e-6 if dt == 'float32' else 1e-12)

    def test_expand_and_shapes():
        R = np.random.RandomState(2)
        p = params(R, 'float32')
        check_expand(name, p, expand_to, values=None if values is None else values(R, 'float32'))

    def test_validate_args():
        R = np.random.RandomState(3)
        if bad is not None:
            check_validate(name, bad(R), bad_value=None if bad_value is None else bad_value(R),
                           good_params=params(R, 'float32'))

    def test_module_and_repr():
        R = np.random.RandomState(4)
        ed, td, _, _ = build(name, params(R, 'float32'))
        assert type(ed).__name__ == type(td).__name__
        assert type(ed).__module__ == type(td).__module__.replace('torch.', 'ember.')
        assert repr(ed) == repr(td)

    return {'test_values_and_grads': test_values_and_grads,
            'test_samples_equal_torch': test_samples_equal_torch,
            'test_expand_and_shapes': test_expand_and_shapes,
            'test_validate_args': test_validate_args,
            'test_module_and_repr': test_module_and_repr}
