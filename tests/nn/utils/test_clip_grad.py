"""nn.utils.clip_grad vs torch: clip_grad_norm_ (norm types incl. inf, error_if_nonfinite,
foreach), clip_grad_value_, get_total_norm, clip_grads_with_norm_, clip_grad_norm."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from ._common import both, close


def _params(lib, dtype='float32', scale=1.0, none_grad=False):
    dt = getattr(lib, dtype)
    g = np.random.default_rng(1)
    ps = []
    for shape in [(3, 4), (5,), (2, 2, 2)]:
        p = lib.nn.Parameter(lib.from_numpy(g.standard_normal(shape)).to(dt))
        p.grad = lib.from_numpy(scale * g.standard_normal(shape)).to(dt)
        ps.append(p)
    if none_grad:
        ps.append(lib.nn.Parameter(lib.zeros(3, dtype=dt)))
    return ps


@pytest.mark.parametrize('norm_type', [2.0, 1, 3.5, 0.5, float('inf'), 'inf', -float('inf')])
@pytest.mark.parametrize('max_norm', [0.5, 100.0])
def test_clip_grad_norm_values(norm_type, max_norm):
    def f(lib):
        ps = _params(lib, none_grad=True)
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        return total, [p.grad for p in ps]
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('foreach', [None, True, False])
def test_clip_grad_norm_float64_single_tensor_foreach(foreach):
    def f(lib):
        p = _params(lib, 'float64', scale=10)[0]
        total = lib.nn.utils.clip_grad_norm_(p, 1.0, foreach=foreach)
        return total, p.grad
    t, e = both(f)
    close(t, e, rtol=1e-12, atol=1e-12)


def test_clip_grad_norm_returns_total_before_clipping_and_generator():
    def f(lib):
        lin = lib.nn.Linear(4, 3)
        lin(lib.ones(2, 4)).pow(2).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(lin.parameters(), max_norm=0.1)
        after = lib.nn.utils.get_total_norm([p.grad for p in lin.parameters()])
        return total, after, lin.weight.grad, lin.bias.grad
    t, e = both(f)
    close(t, e)
    assert abs(float(e[1]) - 0.1) < 1e-4


def test_nonfinite_error_and_no_error():
    for bad in (float('nan'), float('inf')):
        msgs = []
        for lib in (torch, ember):
            ps = _params(lib)
            ps[1].grad[0] = bad
            with pytest.raises(RuntimeError) as info:
                lib.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]
        assert 'is non-finite, so it cannot be clipped' in msgs[1]

    def f(lib):
        ps = _params(lib)
        ps[1].grad[0] = float('inf')
        total = lib.nn.utils.clip_grad_norm_(ps, 1.0)
        return total, [p.grad for p in ps]
    t, e = both(f)
    close(t, e)


def test_empty_generator_warns_and_empty_list():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match='empty generator'):
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert float(total) == 0.0
        assert float(lib.nn.utils.clip_grad_norm_([], 1.0)) == 0.0
        assert float(lib.nn.utils.get_total_norm([])) == 0.0


def test_get_total_norm_and_clip_grads_with_norm():
    def f(lib):
        ps = _params(lib, scale=3.0)
        grads = [p.grad for p in ps]
        n2 = lib.nn.utils.get_total_norm(grads)
        ninf = lib.nn.utils.get_total_norm(grads, norm_type='inf')
        n1 = lib.nn.utils.get_total_norm(grads[0], 1.0)
        lib.nn.utils.clip_grads_with_norm_(ps, 2.0, n2)
        return n2, ninf, n1, grads
    t, e = both(f)
    close(t, e)


def test_deprecated_clip_grad_norm():
    def f(lib):
        ps = _params(lib)
        with pytest.warns(FutureWarning, match='clip_grad_norm_'):
            total = lib.nn.utils.clip_grad_norm(ps, 0.5)
        return total, [p.grad for p in ps]
    t, e = both(f)
    close(t, e)


@pytest.mark.parametrize('foreach', [None, True])
def test_clip_grad_value(foreach):
    def f(lib):
        ps = _params(lib, scale=2.0, none_grad=True)
        out = lib.nn.utils.clip_grad_value_(ps, 0.7, foreach=foreach)
        assert out is None
        p = _params(lib)[0]
        lib.nn.utils.clip_grad_value_(p, 1)
        return [q.grad for q in ps] + [p.grad]
    t, e = both(f)
    close(t, e, exact=True)


def test_clip_under_grad_mode_builds_no_graph():
    p = ember.nn.Parameter(ember.ones(3))
    p.grad = ember.full((3,), 5.0)
    total = ember.nn.utils.clip_grad_norm_([p], 1.0)
    assert total.grad_fn is None and p.grad.grad_fn is None
    assert math.isclose(float(total), math.sqrt(75), rel_tol=1e-6)


def test_mixed_dtypes():
    def f(lib):
        ps = [lib.nn.Parameter(lib.ones(3)), lib.nn.Parameter(lib.ones(2, dtype=lib.float64)),
              lib.nn.Parameter(lib.ones(2, dtype=lib.float16))]
        for i, p in enumerate(ps):
            p.grad = lib.full_like(p, 2.0 + i)
        n = lib.nn.utils.clip_grad_norm_(ps, 1.0)
        return n, [p.grad for p in ps], lib.nn.utils.get_total_norm(
            [lib.ones(2, dtype=lib.bfloat16) * 3])
    t, e = both(f)
    close(t[:2], e[:2], rtol=1e-3, atol=1e-3)
    assert str(t[2].dtype) == str(e[2].dtype).replace('ember', 'torch')
    assert float(t[2]) == float(e[2])
