"""Shared helpers of the part-2 distribution tests (discrete and multivariate): build
the same distribution on ember and on torch from numpy parameters and compare what they
compute: shapes, repr, constraints, moments, log_prob, entropy, enumerate_support,
expand, samples after the same seed, and gradients under a random upstream gradient."""
import importlib
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, to_np


def classes(module, name):
    """(ember class, torch class) ``name`` from ``distributions.<module>``."""
    e = getattr(importlib.import_module(f"ember.distributions.{module}"), name)
    t = getattr(importlib.import_module(f"torch.distributions.{module}"), name)
    return e, t


def tensors(values, dtype=None, requires_grad=False):
    """Numpy arrays (or numbers / None) -> (ember values, torch values)."""
    e, t = [], []
    for a in values:
        if isinstance(a, np.ndarray):
            if dtype is not None and a.dtype.kind == 'f':
                a = a.astype(dtype)
            rg = requires_grad and a.dtype.kind == 'f'
            e.append(ember.tensor(a, requires_grad=rg))
            t.append(torch.tensor(a, requires_grad=rg))
        else:
            e.append(a)
            t.append(a)
    return e, t


def build(module, name, args=(), kwargs=None, dtype=None, requires_grad=False, **opts):
    """(ember dist, torch dist, ember leaf params, torch leaf params)."""
    E, T = classes(module, name)
    kwargs = kwargs or {}
    ea, ta = tensors(list(args), dtype, requires_grad)
    ek, tk = tensors(list(kwargs.values()), dtype, requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ed = E(*ea, **dict(zip(kwargs, ek)), **opts)
        td = T(*ta, **dict(zip(kwargs, tk)), **opts)
    leaves_e = [x for x in ea + ek if isinstance(x, ember.Tensor) and x.requires_grad]
    leaves_t = [x for x in ta + tk if isinstance(x, torch.Tensor) and x.requires_grad]
    return ed, td, leaves_e, leaves_t


def compare_grads(e_out, t_out, e_params, t_params, rtol=None, atol=None, seed=0):
    """Backward of both outputs under the same random upstream gradient; the gradients
    of every leaf parameter must agree."""
    if not t_params or not (isinstance(t_out, torch.Tensor) and t_out.requires_grad):
        return
    g = np.random.RandomState(seed).standard_normal(tuple(t_out.shape))
    g = g.astype(str(t_out.dtype).replace('torch.', ''))
    tg = torch.autograd.grad(t_out, t_params, torch.tensor(g), allow_unused=True,
                             retain_graph=True)
    assert e_out.requires_grad, "ember result does not require grad"
    eg = ember.autograd.grad(e_out, e_params, ember.tensor(g), allow_unused=True,
                             retain_graph=True)
    for i, (a, b) in enumerate(zip(eg, tg)):
        if b is None:
            assert a is None or not bool(a.abs().sum() > 0), f"grad {i}: torch has none"
            continue
        assert a is not None, f"grad of param {i}: ember has none"
        assert_same(a, b, rtol, atol, path=f"grad of param {i}")


def same(e, t, rtol=None, atol=None, path='out'):
    assert_same(e, t, rtol, atol, path=path)


def attr_both(ed, td, attr, args=()):
    """``(ember value, torch value)`` of an attribute or method; both must raise the same
    error type when torch raises. Returns None when both raised."""
    try:
        t = getattr(td, attr)
        t = t(*args) if callable(t) else t
    except (NotImplementedError, ValueError, RuntimeError) as ex:
        with pytest.raises(type(ex)):
            e = getattr(ed, attr)
            e(*args) if callable(e) else e
        return None
    e = getattr(ed, attr)
    e = e(*args) if callable(e) else e
    return e, t


def _dtype_of(td):
    """The numpy dtype of the distribution's first floating parameter (values given to
    log_prob are cast to it, so both libraries compute in one precision)."""
    for d in (td, getattr(td, "base_dist", None), getattr(td, "_categorical", None)):
        for v in vars(d or object).values() if d is not None else ():
            if isinstance(v, torch.Tensor) and v.is_floating_point():
                return np.dtype(str(v.dtype).replace("torch.", ""))
    return None


def check_common(ed, td, ep, tp, values=(), rtol=None, atol=None,
                 attrs=('mean', 'mode', 'variance', 'stddev', 'entropy', 'perplexity'),
                 grad=True):
    """Shapes, repr, constraints, moments/entropy and log_prob (with gradients)."""
    assert tuple(ed.batch_shape) == tuple(td.batch_shape)
    assert tuple(ed.event_shape) == tuple(td.event_shape)
    assert repr(ed) == repr(td)
    assert ed.has_rsample == td.has_rsample
    assert ed.has_enumerate_support == td.has_enumerate_support
    assert sorted(ed.arg_constraints) == sorted(td.arg_constraints)
    for k, c in td.arg_constraints.items():
        assert type(ed.arg_constraints[k]).__name__ == type(c).__name__, k
    assert type(ed.support).__name__ == type(td.support).__name__
    assert ed.support.event_dim == td.support.event_dim
    assert ed.support.is_discrete == td.support.is_discrete
    for a in attrs:
        r = attr_both(ed, td, a)
        if r is not None:
            same(r[0], r[1], rtol, atol, path=a)
            if grad:
                compare_grads(r[0], r[1], ep, tp, rtol, atol)
    for v in values:
        ev, tv = tensors([v], _dtype_of(td))
        t = td.log_prob(tv[0])
        e = ed.log_prob(ev[0])
        same(e, t, rtol, atol, path='log_prob')
        if grad:
            compare_grads(e, t, ep, tp, rtol, atol, seed=1)


def check_enumerate(ed, td):
    assert td.has_enumerate_support
    for expand in (True, False):
        same(ed.enumerate_support(expand), td.enumerate_support(expand),
             path=f"enumerate_support({expand})")
    # log_prob of the whole support sums to 1 (exp) over the enumeration dim
    s = ed.enumerate_support()
    same(ed.log_prob(s), td.log_prob(td.enumerate_support()), rtol=1e-5, atol=1e-6,
         path='log_prob(support)')


def check_expand(ed, td, batch_shape, values=(), rtol=None, atol=None):
    ee, te = ed.expand(batch_shape), td.expand(batch_shape)
    assert type(ee) is type(ed)
    assert tuple(ee.batch_shape) == tuple(te.batch_shape) == tuple(batch_shape)
    assert tuple(ee.event_shape) == tuple(te.event_shape)
    assert ee._validate_args == te._validate_args
    for a in ('mean', 'variance'):
        r = attr_both(ee, te, a)
        if r is not None:
            same(r[0], r[1], rtol, atol, path=f"expanded {a}")
    for v in values:
        ev, tv = tensors([v], _dtype_of(td))
        same(ee.log_prob(ev[0]), te.log_prob(tv[0]), rtol, atol, path='expanded log_prob')
    return ee, te


def check_sample_equal(ed, td, shapes=((), (3,), (2, 2)), method='sample', rtol=0,
                       atol=0):
    """After the same seed, ember draws the same samples as torch."""
    for s in shapes:
        ember.manual_seed(123)
        torch.manual_seed(123)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = getattr(ed, method)(s)
            t = getattr(td, method)(s)
        same(e, t, rtol, atol, path=f"{method}{s}")
        # and the generators are left in the same state
        assert float(ember.rand(())) == float(torch.rand(()))


def check_rsample_grad(ed, td, ep, tp, shape=(3,), rtol=None, atol=None):
    ember.manual_seed(7)
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = ed.rsample(shape)
        t = td.rsample(shape)
    same(e, t, rtol, atol, path='rsample')
    compare_grads(e, t, ep, tp, rtol, atol, seed=2)
    return e, t


def errors_like_torch(fn_e, fn_t, match=None):
    """Both raise the same exception type; torch's message contains ``match`` and so
    does ember's."""
    with pytest.raises(Exception) as te:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value).__name__ == type(te.value).__name__, (ee.value, te.value)
    if match is not None:
        assert match in str(te.value), str(te.value)
        assert match in str(ee.value), str(ee.value)
    return ee.value, te.value


def check_validation(module, name, args, kwargs=None, match="Expected parameter"):
    """Constructing with invalid parameters and ``validate_args=True`` raises the same
    error in both (with torch's wording)."""
    E, T = classes(module, name)
    kwargs = kwargs or {}
    ea, ta = tensors(list(args))
    ek, tk = tensors(list(kwargs.values()))
    return errors_like_torch(
        lambda: E(*ea, **dict(zip(kwargs, ek)), validate_args=True),
        lambda: T(*ta, **dict(zip(kwargs, tk)), validate_args=True), match)


def check_bad_value(ed, td, value, match="Expected value argument"):
    """``log_prob`` of a value outside the support (validate_args on) raises alike."""
    ev, tv = tensors([value])
    return errors_like_torch(lambda: ed.log_prob(ev[0]), lambda: td.log_prob(tv[0]), match)


def moments_close(samples, mean, var, n_sigma=6.0):
    """Sample mean within ``n_sigma`` standard errors of ``mean`` (per element)."""
    s = to_np(samples).astype(np.float64)
    n = s.shape[0]
    m = s.mean(0)
    se = np.sqrt(np.asarray(var, np.float64) / n) + 1e-12
    assert np.all(np.abs(m - mean) <= n_sigma * se), (m, mean, se)
