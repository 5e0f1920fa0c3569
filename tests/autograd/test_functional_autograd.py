"""``ember.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) against
``torch.autograd.functional``: values, output structures, create_graph, strict mode,
errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import run_both, errors_both

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, 3)
Y = RNG.uniform(-1, 1, (2, 3))
V3 = RNG.uniform(-1, 1, 3)
V23 = RNG.uniform(-1, 1, (2, 3))


def t(m, a, rg=False):
    return m.from_numpy(np.array(a, dtype=np.float64)).requires_grad_(rg)


# functions of (m, *inputs)
F_ONE = lambda x: x * x * 2 + x                            # noqa: E731
F_SCALAR = lambda x: (x * x * x).sum()                       # noqa: E731
F_TWO = lambda x, y: ((x * y).sum(0) * 2, y.sum() * x)      # noqa: E731
F_TWO_SCALAR = lambda x, y: ((x * x).sum() * (y * y).sum())  # noqa: E731


# ------------------------------------------------------------------ jacobian
@pytest.mark.parametrize('case', [
    ('tensor_in_tensor_out', lambda m: (F_ONE, t(m, X))),
    ('tuple_in_tensor_out', lambda m: (F_ONE, (t(m, X),))),
    ('tuple_in_tuple_out', lambda m: (F_TWO, (t(m, X), t(m, Y)))),
    ('tensor_in_tuple_out', lambda m: (lambda x: (x * 2, x.sum()), t(m, X))),
    ('matrix_to_scalar', lambda m: (lambda y: (y * y).sum(), t(m, Y))),
    ('matrix_to_matrix', lambda m: (lambda y: y.t() * 3, t(m, Y))),
    ('unused_input', lambda m: (lambda x, y: x * 2, (t(m, X), t(m, Y)))),
    ('zero_dim', lambda m: (lambda x: x * x, t(m, 1.5))),
], ids=lambda c: c[0])
def test_jacobian(case):
    def f(m):
        fn, inp = case[1](m)
        return m.autograd.functional.jacobian(fn, inp)
    re, _ = run_both(f)


def test_jacobian_input_with_requires_grad_untouched():
    def f(m):
        x = t(m, X, True)
        J = m.autograd.functional.jacobian(F_ONE, x)
        return J, J.requires_grad, x.grad is None
    run_both(f)


def test_jacobian_create_graph():
    def f(m):
        w = t(m, V3, True)
        J = m.autograd.functional.jacobian(lambda a: a * w * a, t(m, X), create_graph=True)
        r = (J, J.requires_grad)
        J.sum().backward()
        return r + (w.grad,)
    run_both(f)


def test_jacobian_strict():
    errors_both(lambda m: m.autograd.functional.jacobian(lambda a: m.ones(2), t(m, X),
                                                         strict=True),
                "Output 0 of the user-provided function does not require gradients")
    errors_both(lambda m: m.autograd.functional.jacobian(lambda a, b: a * 2,
                                                         (t(m, X), t(m, X)), strict=True),
                "is independent of input 1")


def test_jacobian_type_errors():
    errors_both(lambda m: m.autograd.functional.jacobian(lambda a: 3, t(m, X)),
                "must be either a Tensor or a tuple of Tensors")
    errors_both(lambda m: m.autograd.functional.jacobian(F_ONE, [t(m, X)]),
                "The inputs given to jacobian must be either a Tensor or a tuple of Tensors")


# ------------------------------------------------------------------ hessian
@pytest.mark.parametrize('case', [
    ('tensor', lambda m: (F_SCALAR, t(m, X))),
    ('matrix', lambda m: (lambda y: (y * y * y).sum(), t(m, Y))),
    ('tuple', lambda m: (F_TWO_SCALAR, (t(m, X), t(m, V3)))),
    ('tuple_single', lambda m: (F_SCALAR, (t(m, X),))),
], ids=lambda c: c[0])
def test_hessian(case):
    def f(m):
        fn, inp = case[1](m)
        return m.autograd.functional.hessian(fn, inp)
    run_both(f)


def test_hessian_requires_single_element():
    errors_both(lambda m: m.autograd.functional.hessian(F_ONE, t(m, X)),
                "should contain a single element")


# ------------------------------------------------------------------ vjp / jvp
def test_vjp():
    def f(m):
        F = m.autograd.functional
        return (F.vjp(F_ONE, t(m, X), t(m, V3)),
                F.vjp(F_SCALAR, t(m, X)),
                F.vjp(F_TWO, (t(m, X), t(m, Y)), (t(m, V3), t(m, X))),
                F.vjp(lambda a, b: a * 2, (t(m, X), t(m, Y)), t(m, V3)))
    run_both(f)


def test_jvp():
    def f(m):
        F = m.autograd.functional
        return (F.jvp(F_ONE, t(m, X), t(m, V3)),
                F.jvp(lambda x: x * x, t(m, 2.0)),
                F.jvp(F_TWO, (t(m, X), t(m, Y)), (t(m, V3), t(m, V23))))
    run_both(f)


def test_vjp_jvp_create_graph():
    def f(m):
        F = m.autograd.functional
        w = t(m, V3, True)
        out, v = F.vjp(lambda a: a * a * w, t(m, X), t(m, V3), create_graph=True)
        out2, j = F.jvp(lambda a: a * a * w, t(m, X), t(m, V3), create_graph=True)
        r = (out.requires_grad, v.requires_grad, j.requires_grad)
        (v.sum() + j.sum()).backward()
        return r + (w.grad,)
    run_both(f)


def test_vjp_results_detached_without_create_graph():
    def f(m):
        w = t(m, V3, True)
        out, v = m.autograd.functional.vjp(lambda a: a * w, t(m, X), t(m, V3))
        return out.requires_grad, v.requires_grad
    run_both(f)


def test_v_errors():
    errors_both(lambda m: m.autograd.functional.vjp(F_ONE, t(m, X)),
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element.")
    errors_both(lambda m: m.autograd.functional.jvp(F_ONE, t(m, X)),
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element.")
    errors_both(lambda m: m.autograd.functional.vjp(F_ONE, t(m, X), t(m, [1., 2.])),
                "v has invalid size: should be torch.Size([3]) but got torch.Size([2]).")
    errors_both(lambda m: m.autograd.functional.vjp(lambda a: m.ones(3), t(m, X), t(m, V3),
                                                    strict=True),
                "does not require gradients")


# ------------------------------------------------------------------ hvp / vhp
def test_hvp_vhp():
    def f(m):
        F = m.autograd.functional
        return (F.hvp(F_SCALAR, t(m, X), t(m, V3)),
                F.vhp(F_SCALAR, t(m, X), t(m, V3)),
                F.hvp(F_TWO_SCALAR, (t(m, X), t(m, V3)), (t(m, V3), t(m, X))),
                F.vhp(F_TWO_SCALAR, (t(m, X), t(m, V3)), (t(m, V3), t(m, X))),
                F.hvp(lambda y: (y * y * y).sum(), t(m, Y), t(m, V23)))
    run_both(f)


def test_hvp_requires_single_element():
    errors_both(lambda m: m.autograd.functional.hvp(F_ONE, t(m, X), t(m, V3)),
                "should contain a single element")


def test_hessian_matches_jacobian_of_gradient():
    x = t(ember, X)
    H = ember.autograd.functional.hessian(F_SCALAR, x)
    J = ember.autograd.functional.jacobian(
        lambda a: ember.autograd.grad(F_SCALAR(a), a, create_graph=True)[0], x)
    np.testing.assert_allclose(H.numpy(), J.numpy())
    np.testing.assert_allclose(H.numpy(), np.diag(6 * X))
