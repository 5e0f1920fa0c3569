"""Legacy and switch names of torch.autograd / torch.autograd.graph compared with torch 2.13:
Variable, variable, NestedIOFunction, set_multithreading_enabled, enforce_grad_layout_policy
and the stream/compile switches of autograd.graph."""
import numpy as np
import pytest
import torch

import ember


def test_variable_shares_data_and_sets_requires_grad():
    for mod in (ember, torch):
        t = mod.ones(2)
        v = mod.autograd.Variable(t)
        assert v is not t and v.data_ptr() == t.data_ptr() and not v.requires_grad
        v = mod.autograd.Variable(t, requires_grad=True)
        assert v.requires_grad and not t.requires_grad and v.is_leaf and v.grad_fn is None
        assert isinstance(t, mod.autograd.Variable)
        assert not isinstance(np.ones(2), mod.autograd.Variable)
        assert tuple(mod.autograd.Variable().shape) == (0,)
        with pytest.raises(TypeError, match='Variable data has to be a tensor, but got list'):
            mod.autograd.Variable([1, 2])
        with pytest.warns(UserWarning, match='volatile was removed'):
            v = mod.autograd.Variable(t, volatile=True)
        assert not v.requires_grad
        with pytest.raises(RuntimeError, match=r'variable\(...\) is deprecated'):
            mod.autograd.variable([1.0])
        assert issubclass(mod.autograd.NestedIOFunction, mod.autograd.Function)


def test_multithreading_switch_is_thread_local_and_restores():
    for mod in (ember, torch):
        assert mod.autograd.grad_mode._is_multithreading_enabled() if mod is ember else \
            torch._C._is_multithreading_enabled()
        with mod.autograd.set_multithreading_enabled(False):
            x = mod.ones(2, requires_grad=True)
            (x * 3).sum().backward()
            assert x.grad.tolist() == [3.0, 3.0]


def _permuted_leaf(mod):
    return mod.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).detach().requires_grad_()


def test_enforce_grad_layout_policy():
    # default: the first gradient of a permuted leaf gets the leaf's strides
    for mod in (ember, torch):
        p = _permuted_leaf(mod)
        (p.contiguous() * 2).sum().backward()
        assert p.grad.stride() == p.stride()
    # relaxed: a fresh gradient nobody else holds is kept with its own (contiguous) strides;
    # a gradient the caller holds is still copied into the contract's layout
    got = {}
    for mod in (ember, torch):
        p = _permuted_leaf(mod)
        with mod.autograd.enforce_grad_layout_policy(False):
            (p.contiguous() * 2).sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), np.full((4, 2, 3), 2.0))
        q = _permuted_leaf(mod)
        with mod.autograd.enforce_grad_layout_policy(False):
            q.backward(mod.ones(4, 2, 3))
        # the switch is restored on exit
        r = _permuted_leaf(mod)
        (r.contiguous() * 2).sum().backward()
        got[mod.__name__] = (p.grad.stride(), q.grad.stride(), r.grad.stride())
    assert got['ember'] == got['torch']
    assert got['torch'][0] == (6, 3, 1) and got['torch'][2] == (1, 12, 4)


def test_graph_switches_validate_like_torch():
    for G in (ember.autograd.graph, torch.autograd.graph):
        for f in (G.set_override_stale_capture_stream, G.set_warn_on_accumulate_grad_stream_mismatch):
            assert f(True) is None and f(False) is None
            with pytest.raises(RuntimeError, match='enabled must be a bool, but got str'):
                f('x')
        with pytest.raises(TypeError, match='expects a float, got str'):
            G.region_activation_memory_budget('a')
        with pytest.raises(ValueError, match=r'must be in \[0, 1\], got 2.0'):
            G.region_activation_memory_budget(2.0)
        with pytest.raises(RuntimeError, match='no effect in eager mode'):
            G.region_activation_memory_budget(0.5)
    G = ember.autograd.graph
    G.set_warn_on_accumulate_grad_stream_mismatch(True)
