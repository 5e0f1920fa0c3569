"""Grad modes against torch (ember/autograd/grad_mode.py): no_grad, enable_grad,
set_grad_enabled, inference_mode as context managers and decorators (with and without
parentheses, on generators), nesting, state restored on exceptions."""
import pytest
import torch

import ember
from oracle import assert_same


def run_both(fn):
    rt = fn(torch)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    re = fn(ember)
    assert ember.is_grad_enabled() and not ember.is_inference_mode_enabled()
    assert_same(re, rt)
    return re, rt


def test_no_grad_context_and_nested_enable_grad():
    def f(m):
        x = m.ones(2, requires_grad=True)
        r = []
        with m.no_grad():
            y = x * 2
            r += [y.requires_grad, y.grad_fn is None, m.is_grad_enabled()]
            with m.enable_grad():
                z = x * 2
                r += [z.requires_grad, m.is_grad_enabled()]
            w = m.ones(2, requires_grad=True)
            r += [w.requires_grad, w.is_leaf, (w * 2).requires_grad]
            v = m.ones(2)
            v.requires_grad_()
            r += [v.requires_grad]
        r += [m.is_grad_enabled(), (x * 2).requires_grad]
        return r
    run_both(f)


def test_no_grad_results_are_detached_from_graph():
    def f(m):
        x = m.ones(2, requires_grad=True)
        with m.no_grad():
            a = x * 1
        b = a * x
        b.sum().backward()
        return a.requires_grad, b.requires_grad, x.grad
    run_both(f)


def test_decorators():
    def f(m):
        x = m.ones(2, requires_grad=True)

        @m.no_grad()
        def f1(a):
            """doc"""
            return a * 2, m.is_grad_enabled()

        @m.no_grad
        def f2(a):
            return a * 2

        @m.enable_grad()
        def g1(a):
            return a * 2

        @m.enable_grad
        def g2(a):
            return a * 2

        with m.no_grad():
            g = (g1(x).requires_grad, g2(x).requires_grad)
        return (f1(x)[0].requires_grad, f1(x)[1], f1.__name__, f1.__doc__,
                f2(x).requires_grad, g, m.is_grad_enabled())
    run_both(f)


def test_generator_decorator():
    def f(m):
        @m.no_grad()
        def gen():
            yield m.is_grad_enabled()
            x = yield m.is_grad_enabled()
            yield x

        g = gen()
        r = [next(g), m.is_grad_enabled(), next(g), g.send(5)]
        return r + [m.is_grad_enabled()]
    run_both(f)


def test_set_grad_enabled_function_context_decorator():
    def f(m):
        x = m.ones(2, requires_grad=True)
        r = []
        m.set_grad_enabled(False)
        r += [m.is_grad_enabled(), (x * 2).requires_grad]
        m.set_grad_enabled(True)
        r += [m.is_grad_enabled()]
        with m.set_grad_enabled(False):
            r += [m.is_grad_enabled(), (x * 2).requires_grad]
            with m.set_grad_enabled(True):
                r += [(x * 2).requires_grad]
        r += [m.is_grad_enabled()]

        @m.set_grad_enabled(False)
        def h(a):
            return a * 2
        r += [m.is_grad_enabled(), h(x).requires_grad, m.is_grad_enabled()]
        r += [type(m.set_grad_enabled(True)).__name__]
        return r
    run_both(f)


def test_state_restored_after_exception():
    def f(m):
        r = []
        for cm in (m.no_grad, m.enable_grad, lambda: m.set_grad_enabled(False),
                   m.inference_mode):
            with pytest.raises(ValueError):
                with m.no_grad():
                    with cm():
                        raise ValueError
            r.append((m.is_grad_enabled(), m.is_inference_mode_enabled()))
        return r
    run_both(f)


def test_inference_mode():
    def f(m):
        x = m.ones(2, requires_grad=True)
        r = []
        with m.inference_mode():
            y = x * 2
            r += [m.is_inference_mode_enabled(), m.is_grad_enabled(), y.requires_grad]
            with m.inference_mode(False):
                r += [m.is_inference_mode_enabled(), m.is_grad_enabled()]
            with m.enable_grad():
                r += [m.is_grad_enabled()]
        r += [m.is_inference_mode_enabled(), m.is_grad_enabled()]
        with m.no_grad():
            with m.inference_mode(mode=False):
                r += [m.is_inference_mode_enabled(), m.is_grad_enabled()]
        return r
    run_both(f)


def test_inference_mode_decorators():
    def f(m):
        x = m.ones(2, requires_grad=True)

        @m.inference_mode
        def i1(a):
            return a * 2, m.is_inference_mode_enabled()

        @m.inference_mode()
        def i2(a):
            return a * 2, m.is_inference_mode_enabled()

        @m.inference_mode(False)
        def i3(a):
            return a * 2, m.is_inference_mode_enabled()
        return (i1(x)[0].requires_grad, i1(x)[1], i2(x)[1], i3(x)[0].requires_grad, i3(x)[1],
                i1.__name__)
    run_both(f)


def test_backward_inside_no_grad_still_works():
    def f(m):
        x = m.ones(2, requires_grad=True)
        y = (x * x).sum()
        with m.no_grad():
            y.backward()
        return x.grad, m.is_grad_enabled()
    run_both(f)


def test_grad_mode_inside_backward_is_off_without_create_graph():
    def f(m):
        seen = []
        x = m.ones(2, requires_grad=True)
        h = x * 2
        h.register_hook(lambda g: seen.append(m.is_grad_enabled()))
        (h * h).sum().backward(retain_graph=True)
        (h * h).sum().backward(create_graph=True)
        return seen
    run_both(f)


def test_aliases():
    assert ember.autograd.no_grad is ember.no_grad
    assert ember.autograd.enable_grad is ember.enable_grad
    assert ember.autograd.set_grad_enabled is ember.set_grad_enabled
    assert ember.autograd.inference_mode is ember.inference_mode
    assert ember.autograd.grad_mode.no_grad is ember.no_grad
