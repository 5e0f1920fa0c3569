"""Autograd engine semantics against torch (ember/autograd/engine.py, __init__.py,
ember/_tensor.py autograd parts): requires_grad and leaves, .grad accumulation,
Tensor.backward / autograd.backward / autograd.grad options, higher-order gradients,
error messages, in-place correctness (incl. writes through views), memory release and
deep graphs."""
import gc
import warnings
import weakref

import numpy as np
import pytest
import torch

import ember
from oracle import run_both, errors_both

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3)).astype(np.float32)
Bm = RNG.standard_normal((2, 3)).astype(np.float32)
W = RNG.standard_normal((3, 4)).astype(np.float32)


def T(m, a, rg=False, dtype=np.float32):
    x = m.from_numpy(np.array(a, dtype=dtype))
    return x.requires_grad_() if rg else x


# ------------------------------------------------------------------ leaves and requires_grad
def test_requires_grad_and_leaves():
    def f(m):
        a = T(m, A)
        r = [a.requires_grad, a.is_leaf, a.grad_fn is None, a.grad is None]
        a.requires_grad_()
        r += [a.requires_grad, a.is_leaf]
        b = a * 2
        r += [b.requires_grad, b.is_leaf, b.grad_fn is not None]
        c = T(m, A) * 2
        r += [c.requires_grad, c.is_leaf]
        c.requires_grad = True     # a result of ops on tensors not requiring grad is a leaf
        r += [c.requires_grad, c.is_leaf, (c * 2).is_leaf]
        d = b.detach()
        r += [d.requires_grad, d.is_leaf]
        e = T(m, A)
        e.requires_grad = True
        r += [e.requires_grad, (e + c).requires_grad, (c + c).requires_grad]
        r += [m.ones(2, requires_grad=True).is_leaf, m.zeros(2, requires_grad=True).requires_grad]
        a.requires_grad_(False)
        r += [a.requires_grad]
        return r
    run_both(f)


def test_grad_accumulates_over_two_backward_calls():
    def f(m):
        a = T(m, A, True)
        (a * a).sum().backward()
        g1 = a.grad.clone()
        (a * 3).sum().backward()
        r = (g1, a.grad)
        a.grad = None
        (a * 2).sum().backward()
        return r + (a.grad,)
    run_both(f)


def test_grad_is_not_aliased_to_upstream():
    def f(m):
        a = T(m, A, True)
        g = T(m, np.ones_like(A))
        a.backward(g)
        a.grad.add_(1)
        return g, a.grad
    run_both(f)


def test_zero_grad_in_place_then_accumulate():
    def f(m):
        a = T(m, A, True)
        (a * 2).sum().backward()
        a.grad.zero_()
        (a * a).sum().backward()
        return a.grad
    run_both(f)


def test_shared_input_and_diamond_graph():
    def f(m):
        a = T(m, A, True)
        b = a * 2
        c = b * b + b * 3 - a
        c.backward(T(m, Bm))
        return a.grad
    run_both(f)


def test_broadcasting_grads_reduced_to_input_shape():
    def f(m):
        a = T(m, A, True)
        b = T(m, [1., 2., 3.], True)
        s = T(m, 2.0, True)
        (a * b + s).backward(T(m, Bm))
        return a.grad, b.grad, s.grad
    run_both(f)


def test_dtype_promotion_grads_in_input_dtype():
    def f(m):
        a = T(m, A, True)
        b = T(m, [1., 2., 3.], True, np.float64)
        c = a * b
        c.sum().backward()
        return c.dtype, a.grad, b.grad
    run_both(f)


# ------------------------------------------------------------------ Tensor.backward options
def test_backward_with_gradient_argument():
    def f(m):
        a = T(m, A, True)
        (a * a).backward(T(m, Bm))
        return a.grad
    run_both(f)


def test_retain_graph_allows_second_backward():
    def f(m):
        a = T(m, A, True)
        y = (a * a).sum()
        y.backward(retain_graph=True)
        y.backward()
        return a.grad
    run_both(f)


def test_backward_inputs_argument():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        y = (a * b).sum()
        y.backward(inputs=[a])
        r = (a.grad, b.grad is None)
        y2 = (a * b * b).sum()
        y2.backward(inputs=b)
        return r + (b.grad, a.grad)
    run_both(f)


def test_backward_inputs_non_leaf():
    def f(m):
        a = T(m, A, True)
        h = a * 2
        y = (h * h).sum()
        y.backward(inputs=[h])
        return h.grad, a.grad is None
    run_both(f)


def test_backward_create_graph_gives_differentiable_grad():
    def f(m):
        a = T(m, A, True)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')    # torch: reference cycle warning
            (a * a * a).sum().backward(create_graph=True)
        g = a.grad
        r = (g, g.requires_grad, g.grad_fn is not None)
        ga = m.autograd.grad(g.sum(), a)[0]
        return r + (ga,)
    run_both(f)


def test_autograd_backward_multiple_roots():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        y1, y2 = a * b, (a + b).sum()
        m.autograd.backward([y1, y2], [T(m, np.ones_like(A)), None])
        return a.grad, b.grad
    run_both(f)


def test_autograd_backward_grad_tensors_keyword():
    def f(m):
        a = T(m, A, True)
        y = a * 3
        m.autograd.backward(y, grad_tensors=T(m, Bm))
        return a.grad
    run_both(f)


# ------------------------------------------------------------------ autograd.grad
def test_grad_basic_does_not_touch_dot_grad():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        y = (a * b).sum()
        ga, gb = m.autograd.grad(y, (a, b))
        return ga, gb, a.grad is None, b.grad is None
    run_both(f)


def test_grad_outputs_and_single_input():
    def f(m):
        a = T(m, A, True)
        (g,) = m.autograd.grad(a * a, a, grad_outputs=T(m, Bm))
        return g
    run_both(f)


def test_grad_multiple_outputs():
    def f(m):
        a = T(m, A, True)
        y1, y2 = (a * a).sum(), (a * 3).sum()
        return m.autograd.grad([y1, y2], [a])
    run_both(f)


def test_grad_allow_unused_and_materialize():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        y = (a * 2).sum()
        r1 = m.autograd.grad(y, [a, b], retain_graph=True, allow_unused=True)
        r2 = m.autograd.grad(y, [a, b], materialize_grads=True)
        return r1[0], r1[1] is None, r2
    run_both(f)


def test_grad_unused_raises():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        m.autograd.grad((a * 2).sum(), [a, b])
    errors_both(f, "The differentiated Tensor at index 1 appears to not have been used in the "
                   "graph. Set allow_unused=True if this is the desired behavior.")


def test_grad_materialize_with_allow_unused_false():
    def f(m):
        a, b = T(m, A, True), T(m, Bm, True)
        m.autograd.grad((a * 2).sum(), [a, b], allow_unused=False, materialize_grads=True)
    errors_both(f, "Expected allow_unused to be True or not passed when materialize_grads=True")


def test_grad_of_intermediate():
    def f(m):
        a = T(m, A, True)
        h = a * a
        y = (h * 3).sum()
        (gh,) = m.autograd.grad(y, h, retain_graph=True)
        (ga,) = m.autograd.grad(y, a)
        return gh, ga
    run_both(f)


def test_grad_retain_graph_default_frees():
    def f(m):
        a = T(m, A, True)
        y = (a * a).sum()
        m.autograd.grad(y, a)
        m.autograd.grad(y, a)
    errors_both(f, "Trying to backward through the graph a second time")


# ------------------------------------------------------------------ higher order
def test_second_derivative_of_tanh():
    def f(m):
        x = T(m, [-1.5, 0., 0.3, 2.], True, np.float64)
        y = x.tanh()
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = m.autograd.grad(gg.sum(), x)
        return g, gg, ggg
    re, _ = run_both(f)
    x = np.array([-1.5, 0., 0.3, 2.])
    t = np.tanh(x)
    np.testing.assert_allclose(re[1].detach().numpy(), -2 * t * (1 - t * t), rtol=1e-12)


def test_gradient_penalty_backprops_to_weights():
    def f(m):
        x = T(m, A, True)
        w = T(m, W, True)
        out = (x.matmul(w)).tanh().sum()
        (gx,) = m.autograd.grad(out, x, create_graph=True)
        penalty = (gx * gx).sum()
        penalty.backward()
        return gx, penalty, w.grad, x.grad
    run_both(f)


def test_double_backward_of_polynomial():
    def f(m):
        x = T(m, A, True, np.float64)
        y = (x * x * x - x * 2).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), x)
        return g, h
    run_both(f)


# ------------------------------------------------------------------ errors
def test_backward_through_freed_graph_twice():
    def f(m):
        a = T(m, A, True)
        y = (a * a).sum()
        y.backward()
        y.backward()
    errors_both(f, "Trying to backward through the graph a second time (or directly access "
                   "saved tensors after they have already been freed)")


@pytest.mark.parametrize('op', ['add_', 'mul_'])
def test_inplace_change_of_saved_tensor(op):
    def f(m):
        a = T(m, A, True)
        b = a * 1
        c = b * b
        getattr(b, op)(2)
        c.sum().backward()
    ee, et = errors_both(f, "modified by an inplace operation")
    assert str(ee) == str(et)


def test_inplace_change_of_saved_leaf_data():
    def f(m):
        a = T(m, A, True)
        c = a * a
        a.detach().add_(1)   # detach() shares the version counter
        c.sum().backward()
    ee, et = errors_both(f, "modified by an inplace operation")
    assert str(ee) == str(et)


def test_inplace_change_through_dot_data_not_tracked():
    def f(m):
        a = T(m, A, True)
        c = a * a
        a.data.add_(1)       # .data has its own version counter: autograd does not see it
        c.sum().backward()
        return a._version, a.grad
    run_both(f)


def test_dot_data_assignment():
    def f(m):
        a = T(m, A, True)
        a.data = T(m, Bm)
        (a * 2).sum().backward()
        return a, a.grad, a.requires_grad, a.is_leaf
    run_both(f)


def test_inplace_on_leaf_requiring_grad():
    errors_both(lambda m: T(m, A, True).add_(1),
                "a leaf Variable that requires grad is being used in an in-place operation.")


def test_inplace_on_view_of_leaf_requiring_grad():
    errors_both(lambda m: T(m, A, True).select(0, 0).mul_(2),
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.")


def test_inplace_on_leaf_under_no_grad_allowed():
    def f(m):
        a = T(m, A, True)
        with m.no_grad():
            a.mul_(2)
        return a, a.requires_grad, a.is_leaf, a._version
    run_both(f)


def test_set_requires_grad_on_non_leaf():
    def f(m):
        b = T(m, A, True) * 2
        b.requires_grad = False
    errors_both(f, "you can only change requires_grad flags of leaf variables.")


def test_requires_grad_on_integer_tensor():
    errors_both(lambda m: m.ones(2, dtype=m.int64).requires_grad_(),
                "only Tensors of floating point")


def test_numpy_on_tensor_requiring_grad():
    errors_both(lambda m: T(m, A, True).numpy(),
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")


def test_backward_non_scalar_without_gradient():
    errors_both(lambda m: (T(m, A, True) * 2).backward(),
                "grad can be implicitly created only for scalar outputs")


def test_backward_of_tensor_not_requiring_grad():
    errors_both(lambda m: T(m, A).sum().backward(),
                "element 0 of tensors does not require grad and does not have a grad_fn")


def test_grad_wrt_tensor_not_requiring_grad():
    errors_both(lambda m: m.autograd.grad((T(m, A, True) * 2).sum(), T(m, A)),
                "One of the differentiated Tensors does not require grad")


def test_backward_gradient_shape_mismatch():
    errors_both(lambda m: (T(m, A, True) * 2).backward(T(m, [1., 2.])),
                "Mismatch in shape")


def test_backward_empty_inputs():
    errors_both(lambda m: (T(m, A, True) * 2).sum().backward(inputs=[]),
                "cannot be empty")


# ------------------------------------------------------------------ in-place correctness
def test_inplace_chain_on_non_leaf():
    def f(m):
        x = T(m, A, True)
        y = x * 1
        y.add_(1)
        y.mul_(2)
        y.sub_(x)
        y.div_(T(m, [1., 2., 4.]))
        r = (y, y.grad_fn.name(), y._version)
        y.backward(T(m, Bm))
        return r + (x.grad,)
    run_both(f)


def test_inplace_with_other_requiring_grad():
    def f(m):
        x, z = T(m, A, True), T(m, Bm, True)
        y = x * 1
        y.mul_(z)
        y.add_(z, alpha=2)
        (y * y).sum().backward()
        return y, x.grad, z.grad
    run_both(f)


def test_inplace_on_tensor_not_requiring_grad_with_grad_other():
    def f(m):
        x = T(m, A, True)
        y = T(m, Bm)
        y.mul_(x)
        r = (y.requires_grad, y.is_leaf, y.grad_fn.name())
        y.sum().backward()
        return r + (x.grad,)
    run_both(f)


def test_inplace_mul_by_itself_saves_modified_tensor():
    # torch saves `self` for mul_'s backward, so y.mul_(y) cannot be differentiated
    def f(m):
        x = T(m, A, True)
        y = x + 0
        y.mul_(y)
        y.backward(T(m, Bm))
    ee, et = errors_both(f, "modified by an inplace operation")
    assert str(ee) == str(et)


def test_inplace_mul_by_other_uses_original_value():
    def f(m):
        x, z = T(m, A, True), T(m, Bm, True)
        y = x * 3
        y.mul_(z * 1)
        y.add_(y.detach())
        y.backward(T(m, Bm))
        return y, x.grad, z.grad
    run_both(f)


def test_inplace_through_select_view():
    def f(m):
        x = T(m, A, True)
        y = x * 1
        y.select(1, 1).mul_(2)
        y[:, 2].add_(y[:, 0])
        r = (y.grad_fn.name(),)
        y.backward(T(m, Bm))
        return r + (x.grad,)
    run_both(f)


def test_inplace_through_transpose_view():
    def f(m):
        x = T(m, A, True)
        y = x * 1
        y.transpose(0, 1).add_(T(m, [[1., 2.], [3., 4.], [5., 6.]]))
        (y * y).backward(T(m, Bm))
        return y, x.grad
    run_both(f)


def test_inplace_through_narrow_view_with_grad_source():
    def f(m):
        x, z = T(m, A, True), T(m, [[7.], [8.]], True)
        y = x * 2
        v = y.narrow(1, 0, 1)
        v.mul_(z)
        r = (v.grad_fn.name(), y.grad_fn.name())
        (y * T(m, Bm)).sum().backward()
        return r + (y, x.grad, z.grad)
    run_both(f)


def test_inplace_view_copy_from_other():
    def f(m):
        x, z = T(m, A, True), T(m, [10., 20., 30.], True)
        y = x.clone()
        y.select(0, 0).copy_(z)
        (y * T(m, Bm)).sum().backward()
        return y, x.grad, z.grad
    run_both(f)


def test_setitem_rebases_history():
    def f(m):
        x, z = T(m, A, True), T(m, [10., 20., 30.], True)
        y = x.clone()
        y[0] = z
        y[1, 1:] = z[:2] * 2
        (y * T(m, Bm)).sum().backward()
        return y, x.grad, z.grad
    run_both(f)


def test_view_grad_fn_after_base_inplace():
    def f(m):
        x = T(m, A, True)
        y = x * 1
        v = y.select(0, 1)
        y.mul_(3)
        r = (v.grad_fn.name(),)
        v.sum().backward()
        return r + (x.grad,)
    run_both(f)


def test_multiple_views_written():
    def f(m):
        x = T(m, A, True)
        y = x * 1
        a, b = y.select(0, 0), y.select(0, 1)
        a.mul_(2)
        b.add_(a)
        y.backward(T(m, Bm))
        return y, x.grad
    run_both(f)


# ------------------------------------------------------------------ memory and deep graphs
def test_saved_tensors_released_after_backward():
    a = ember.ones(3, requires_grad=True)
    h = a * 2
    y = (h * h).sum()
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is not None          # kept alive by the graph (saved for backward)
    y.backward()
    gc.collect()
    assert ref() is None               # released by backward without retain_graph


def test_retain_graph_keeps_saved_tensors():
    a = ember.ones(3, requires_grad=True)
    h = a * 2
    y = (h * h).sum()
    ref = weakref.ref(h)
    del h
    y.backward(retain_graph=True)
    gc.collect()
    assert ref() is not None
    y.backward()
    gc.collect()
    assert ref() is None


def test_graph_freed_with_output():
    a = ember.ones(3, requires_grad=True)
    h = a * 2
    y = (h * h).sum()
    ref = weakref.ref(h)
    del h, y
    gc.collect()
    assert ref() is None


def test_long_chain_no_recursion_error():
    x = ember.ones(1, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1
    y = y * 2
    y.backward()
    assert x.grad.tolist() == [2.0]
    # and the graph can be dropped without recursion either
    del y
    gc.collect()


def test_long_chain_grad_and_create_graph():
    x = ember.ones(1, dtype=ember.float64, requires_grad=True)
    y = x
    for _ in range(2000):
        y = y * 1.001
    (g,) = ember.autograd.grad((y * y).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2 * 1.001 ** 4000])
    assert g.requires_grad
    (gg,) = ember.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2 * 1.001 ** 4000])


def test_create_graph_grad_of_linear_function_is_constant():
    def f(m):
        x = T(m, A, True)
        (g,) = m.autograd.grad((x * 2).sum(), x, create_graph=True)
        return g, g.requires_grad
    run_both(f)


def test_leaf_takes_a_fresh_unshared_gradient_without_a_copy():
    # as torch's AccumulateGrad steals a gradient that only the engine holds
    w = ember.randn(3, 4, requires_grad=True)
    x = ember.randn(4)
    y = w * x
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(id(gi[0])))
    y.sum().backward()
    assert id(w.grad) == seen[0]
    np.testing.assert_allclose(w.grad.numpy(), np.broadcast_to(x.numpy(), (3, 4)))


def test_shared_or_user_held_gradients_are_copied():
    a = ember.randn(3, requires_grad=True)
    b = ember.randn(3, requires_grad=True)
    gy = ember.ones(3)
    (a + b).backward(gy)                 # both leaves get the same gradient object (the user's)
    assert a.grad is not b.grad and a.grad is not gy and b.grad is not gy
    a.grad.mul_(5)
    assert b.grad.tolist() == [1., 1., 1.] and gy.tolist() == [1., 1., 1.]
    c = ember.randn(2, requires_grad=True)
    gc = ember.full((2,), 3.)
    c.backward(gc)                       # a leaf as the root: the user keeps gc
    assert c.grad is not gc
    c.grad.zero_()
    assert gc.tolist() == [3., 3.]
    kept = []
    d = ember.randn(2, requires_grad=True)
    e = d * 2
    e.register_hook(lambda g: kept.append(g))
    e.sum().backward()
    assert d.grad.tolist() == [2., 2.] and kept[0].tolist() == [1., 1.]
