"""ember.utils.checkpoint vs torch.utils.checkpoint."""
import gc
import tracemalloc
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.utils import checkpoint as ecp


def _mlp(T, depth=3, width=16, p=0.5):
    layers = [T.nn.Linear(8, width), T.nn.Tanh(), T.nn.Dropout(p)]
    for _ in range(depth - 2):
        layers += [T.nn.Linear(width, width), T.nn.ReLU(), T.nn.Dropout(p)]
    layers.append(T.nn.Linear(width, 4))
    return T.nn.Sequential(*layers)


def _run(T, use_reentrant, how='checkpoint', dtype=None):
    T.manual_seed(0)
    m = _mlp(T)
    if dtype is not None:
        m = m.to(getattr(T, dtype))
    x = T.randn(5, 8, requires_grad=True, dtype=getattr(T, dtype or 'float32'))
    g = T.randn(5, 4, dtype=getattr(T, dtype or 'float32'))
    if how == 'checkpoint':
        y = T.utils.checkpoint.checkpoint(m, x, use_reentrant=use_reentrant)
    elif how == 'sequential':
        y = T.utils.checkpoint.checkpoint_sequential(m, 3, x, use_reentrant=use_reentrant)
    else:
        y = m(x)
    after = T.rand(3)   # the outer RNG stream continues as without recomputation
    y.backward(g)
    after2 = T.rand(3)
    return [y.detach().numpy(), x.grad.numpy(), after.numpy(), after2.numpy()] + \
        [p.grad.numpy() for p in m.parameters()]


@pytest.mark.parametrize('how', ['checkpoint', 'sequential'])
@pytest.mark.parametrize('use_reentrant', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_dropout_mlp_matches_torch(use_reentrant, how, dtype):
    ref = _run(torch, use_reentrant, how, dtype)
    got = _run(ember, use_reentrant, how, dtype)
    plain = _run(ember, use_reentrant, 'plain', dtype)
    tol = 1e-5 if dtype == 'float32' else 1e-12
    for a, b, c in zip(ref, got, plain):
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)
        np.testing.assert_allclose(b, c, rtol=tol, atol=tol)


def test_use_reentrant_must_be_explicit():
    x = ember.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match='use_reentrant parameter should be passed'):
        ecp.checkpoint(lambda a: a.sin(), x)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        ecp.checkpoint(lambda a: a.sin(), x, use_reentrant=False)


def test_errors_like_torch():
    for T in (torch, ember):
        x = T.randn(3, requires_grad=True)
        with pytest.raises(ValueError, match='Unexpected keyword arguments: k'):
            T.utils.checkpoint.checkpoint(lambda a, k=1: a * k, x, use_reentrant=True, k=2)
        with pytest.raises(ValueError, match='only supported when use_reentrant=False'):
            T.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=True, debug=True)


def test_non_reentrant_kwargs_grad_and_double_backward():
    res = []
    for T in (torch, ember):
        T.manual_seed(0)
        x = T.randn(4, dtype=T.float64, requires_grad=True)
        w = T.randn(4, dtype=T.float64, requires_grad=True)

        def f(a, scale=1.0):
            return (a.tanh() * w).exp() * scale

        y = T.utils.checkpoint.checkpoint(f, x, use_reentrant=False, scale=3.0).sum()
        gx, gw = T.autograd.grad(y, (x, w), create_graph=True)
        (hx,) = T.autograd.grad(gx.sum(), x)
        res.append([t.detach().numpy() for t in (y, gx, gw, hx)])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_nested_checkpoint_and_context_fn():
    calls = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            calls.append(self.name)

        def __exit__(self, *a):
            return False

    x = ember.randn(3, requires_grad=True)
    inner = lambda a: ecp.checkpoint(lambda b: b.sin().exp(), a, use_reentrant=False)
    y = ecp.checkpoint(lambda a: inner(a).cos(), x, use_reentrant=False,
                       context_fn=lambda: (Ctx('fwd'), Ctx('rec')))
    y.sum().backward()
    xe = x.detach().numpy()
    ref = -np.sin(np.exp(np.sin(xe))) * np.exp(np.sin(xe)) * np.cos(xe)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-5)
    assert calls == ['fwd', 'rec']


def test_determinism_check():
    n = [0]

    def f(a):
        n[0] += 1
        return a.sin() if n[0] == 1 else a[:2].sin()

    x = ember.randn(3, requires_grad=True)
    y = ecp.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(ecp.CheckpointError, match='different metadata'):
        y.sum().backward()


def test_helpers():
    x = ember.randn(2, requires_grad=True)
    (d,) = ecp.detach_variable((x,))
    assert d.requires_grad and d.grad_fn is None and d is not x
    with pytest.raises(RuntimeError, match='Only tuple of tensors'):
        ecp.detach_variable([x])
    assert ecp.get_device_states(x) == ([], [])
    assert [p.name for p in ecp.CheckpointPolicy] == [p.name for p in torch.utils.checkpoint.CheckpointPolicy]
    a, b = ecp.noop_context_fn()
    with a, b:
        pass
    with pytest.warns(UserWarning, match='None of the inputs have requires_grad'):
        ecp.checkpoint(lambda a: a * 2, ember.ones(2), use_reentrant=True)
    assert ecp.DefaultDeviceType.get_device_type() == 'cuda'


def _held_after_forward(use_cp):
    ember.manual_seed(0)
    layers = [ember.nn.Sequential(ember.nn.Linear(64, 64), ember.nn.Tanh()) for _ in range(20)]
    x = ember.randn(2048, 64, requires_grad=True)   # activations dominate the weights
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    model = ember.nn.Sequential(*layers)
    h = ecp.checkpoint_sequential(model, 4, x, use_reentrant=False) if use_cp else model(x)
    held = tracemalloc.get_traced_memory()[0] - base
    h.sum().backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return held, peak, x.grad.numpy().copy()


def test_checkpointed_20_layer_mlp_keeps_less_memory():
    held_plain, peak_plain, g_plain = _held_after_forward(False)
    held_cp, peak_cp, g_cp = _held_after_forward(True)
    np.testing.assert_allclose(g_cp, g_plain, rtol=1e-5, atol=1e-6)
    # plain keeps every layer's output (20 activations); checkpointed in 4 segments keeps
    # the segment inputs and the last segment's activations (~9)
    assert held_cp < 0.6 * held_plain, (held_cp, held_plain)
    assert peak_cp < 0.8 * peak_plain, (peak_cp, peak_plain)
