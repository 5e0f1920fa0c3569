"""Custom ``ember.autograd.Function`` (ember/autograd/function.py) against torch:
forward/backward, ctx features (saved tensors, needs_input_grad, mark_dirty,
mark_non_differentiable, materialize grads), non-tensor inputs/outputs, multiple outputs,
once_differentiable, errors, and float64 gradcheck."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import gradcheck_ember, run_both, errors_both

def T(m, a, rg=False, dtype=None):
    arr = np.asarray(a, dtype=dtype or np.float32)
    t = m.from_numpy(arr.copy())
    return t.requires_grad_(rg) if rg else t


# ------------------------------------------------------------------ the seed's example
def linear_function(m):
    """PyTorch's documented LinearFunction, as in the seed (section 7)."""
    class LinearFunction(m.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore', DeprecationWarning)
                input, weight, bias = ctx.saved_variables
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0).squeeze(0)
            return grad_input, grad_weight, grad_bias
    return LinearFunction


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal((5, 3))
B = RNG.standard_normal(5)
G = RNG.standard_normal((4, 5))


@pytest.mark.parametrize('with_bias', [True, False])
def test_linear_function_matches_torch(with_bias):
    def f(m):
        Lin = linear_function(m)
        x, w, b = T(m, X, True), T(m, W, True), T(m, B, True)
        out = Lin.apply(x, w, b) if with_bias else Lin.apply(x, w)
        out.backward(T(m, G))
        return (out, x.grad, w.grad, b.grad if with_bias else T(m, 0.), out.grad_fn.name(),
                type(out.grad_fn).__name__, out.is_leaf, out.requires_grad)
    re, rt = run_both(f)
    assert re[4] == 'LinearFunctionBackward'


def test_linear_function_needs_input_grad_partial():
    def f(m):
        Lin = linear_function(m)
        seen = []
        x, w, b = T(m, X), T(m, W, True), T(m, B)
        out = Lin.apply(x, w, b)
        seen.append(out.grad_fn.needs_input_grad)
        out.sum().backward()
        return w.grad, x.grad is None, b.grad is None, seen
    run_both(f)


def test_linear_function_gradcheck():
    def f(m, x, w, b):
        return linear_function(m).apply(x, w, b)
    gradcheck_ember(f, [X, W, B])
    Lin = linear_function(ember)
    ins = tuple(ember.from_numpy(a.copy()).requires_grad_() for a in (X, W, B))
    assert ember.autograd.gradcheck(Lin.apply, ins, eps=1e-6, atol=1e-4)
    assert ember.autograd.gradgradcheck(Lin.apply, ins)


def test_linear_function_module_wrapper():
    # the seed wraps the function in an nn.Module-like callable
    Lin = linear_function(ember)
    x = ember.from_numpy(X.copy()).requires_grad_()
    w = ember.from_numpy(W.copy()).requires_grad_()
    y = Lin.apply(x, w)
    assert tuple(y.shape) == (4, 5)
    assert y.dtype is ember.float64


# ------------------------------------------------------------------ basics
def scale_function(m):
    class Scale(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.grad_enabled_in_forward = m.is_grad_enabled()
            return x * k * y

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k, None, g * x
    return Scale


def test_non_tensor_input_and_ctx_attributes():
    def f(m):
        Scale = scale_function(m)
        x, y = T(m, [1., 2.], True), T(m, [3., 4.])
        o = Scale.apply(x, 3, y)
        fn = o.grad_fn
        names = [None if n is None else n.name() for n, _ in fn.next_functions]
        r = (o, fn.name(), fn.k, fn.grad_enabled_in_forward, fn.needs_input_grad, names,
             len(fn.next_functions), fn.saved_tensors[0] is x)
        o.sum().backward()
        return r + (x.grad,)
    run_both(f)


def test_grad_fn_repr_like_torch():
    Scale = scale_function(ember)
    o = Scale.apply(ember.ones(2, requires_grad=True), 2, ember.ones(2))
    assert repr(o.grad_fn).startswith('<torch.autograd.function.ScaleBackward object at 0x')
    assert 'grad_fn=<ScaleBackward>' in repr(o)


def test_both_tensor_inputs_require_grad():
    def f(m):
        Scale = scale_function(m)
        x, y = T(m, [1., 2.], True), T(m, [3., 4.], True)
        o = Scale.apply(x, 2.5, y)
        o.backward(T(m, [1., -1.]))
        return o, x.grad, y.grad, o.grad_fn.needs_input_grad
    run_both(f)


def test_setup_context_form():
    def f(m):
        class Mul(m.autograd.Function):
            @staticmethod
            def forward(x, y, k=1.0):
                return x * y * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, y, k = inputs
                ctx.save_for_backward(x, y)
                ctx.k = k

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * y * ctx.k, g * x * ctx.k, None
        x, y = T(m, [1., 2.], True), T(m, [3., 5.], True)
        o = Mul.apply(x, y, 2.0)
        o2 = Mul.apply(x, y, k=3.0)
        (o + o2).sum().backward()
        return o, o2, x.grad, y.grad, o.grad_fn.name()
    run_both(f)


def test_apply_with_kwargs_and_defaults():
    def f(m):
        class Kw(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2.0):
                ctx.k = k
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None
        x = T(m, [1., 2.], True)
        a, b = Kw.apply(x), Kw.apply(x, k=5.0)
        (a + b).sum().backward()
        return a, b, x.grad
    run_both(f)


def test_forward_runs_without_grad_and_apply_under_no_grad():
    def f(m):
        Scale = scale_function(m)
        x = T(m, [1., 2.], True)
        with m.no_grad():
            o = Scale.apply(x, 2, T(m, [1., 1.]))
        return o, o.requires_grad, o.grad_fn is None
    run_both(f)


def test_no_input_requires_grad():
    def f(m):
        Scale = scale_function(m)
        o = Scale.apply(T(m, [1., 2.]), 2, T(m, [1., 1.]))
        return o, o.requires_grad, o.grad_fn is None
    run_both(f)


# ------------------------------------------------------------------ ctx features
def test_saved_tensors_version_check():
    def f(m):
        Scale = scale_function(m)
        a = T(m, [1., 2.], True)
        b = a * 1
        o = Scale.apply(b, 2, T(m, [1., 1.]))
        b.add_(1)
        o.sum().backward()
    errors_both(f, "modified by an inplace operation")


def test_saved_tensors_freed_after_backward():
    def f(m):
        Scale = scale_function(m)
        o = Scale.apply(T(m, [1., 2.], True) * 1, 2, T(m, [1., 1.]))
        o.sum().backward()
        return o.grad_fn.saved_tensors
    errors_both(f, "Trying to backward through the graph a second time")


def test_save_output_for_backward():
    def f(m):
        class Exp(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * x + 1
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y
        x = T(m, [1., 2.], True)
        o = Exp.apply(x)
        saved_fn = o.grad_fn.saved_tensors[0].grad_fn.name()
        o.sum().backward()
        return o, x.grad, saved_fn
    run_both(f)


def test_save_for_backward_rejects_non_tensors():
    def f(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        Bad.apply(T(m, [1.], True))
    errors_both(f, "save_for_backward can only save variables")


def test_save_none_for_backward():
    def f(m):
        class N(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, n = ctx.saved_tensors
                return g * 2 + (0 if n is None else 100)
        x = T(m, [1., 2.], True)
        N.apply(x).sum().backward()
        return x.grad
    run_both(f)


def dirty_function(m):
    class Double_(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Double_


def test_mark_dirty_leaf_raises():
    def f(m):
        dirty_function(m).apply(T(m, [1., 2.], True))
    errors_both(f, "a leaf Variable that requires grad has been used in an in-place operation.")


def test_mark_dirty_non_leaf():
    def f(m):
        a = T(m, [1., 2.], True)
        b = a * 3
        o = dirty_function(m).apply(b)
        r = (o is b, b.grad_fn.name(), b._version, b)
        (o * o).sum().backward()
        return r + (a.grad,)
    run_both(f)


def test_mark_dirty_no_grad_input():
    def f(m):
        a = T(m, [1., 2.])
        o = dirty_function(m).apply(a)
        return o is a, a, a._version, o.requires_grad
    run_both(f)


def test_mark_dirty_through_view_rebases_base():
    def f(m):
        a = T(m, np.arange(6.).reshape(2, 3), True)
        b = a * 1
        o = dirty_function(m).apply(b.select(0, 1))
        r = (b, o, o.grad_fn.name(), b.grad_fn.name())
        (b * T(m, np.arange(6.).reshape(2, 3) + 1)).sum().backward()
        return r + (a.grad,)
    run_both(f)


def test_return_input_unchanged():
    def f(m):
        class Ident(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3
        a = T(m, [1., 2.], True)
        o = Ident.apply(a)
        r = (o is a, o.is_leaf, o.grad_fn.name(), a.is_leaf)
        o.sum().backward()
        return r + (a.grad,)
    run_both(f)


def test_mark_non_differentiable():
    def f(m):
        class MaxIdx(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = (x > 2).to(m.int64)
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(idx)
                return x * 2, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                (idx,) = ctx.saved_tensors
                ctx.seen = (g_idx.dtype, g_idx.tolist())
                return g * 2 + idx
        x = T(m, [1., 3., 2.], True)
        v, i = MaxIdx.apply(x)
        r = (v, i, v.requires_grad, i.requires_grad, i.grad_fn is None)
        fn = v.grad_fn
        v.sum().backward()
        return r + (x.grad, fn.seen)
    run_both(f)


def test_non_differentiable_float_output_gets_zero_grad():
    def f(m):
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                aux = x * 10
                ctx.mark_non_differentiable(aux)
                return x * 2, aux

            @staticmethod
            def backward(ctx, g, g_aux):
                ctx.seen = g_aux.tolist()
                return g * 2
        x = T(m, [1., 3.], True)
        v, aux = Two.apply(x)
        fn = v.grad_fn
        v.sum().backward()
        return aux.requires_grad, x.grad, fn.seen
    run_both(f)


def test_integer_output_not_differentiable():
    def f(m):
        class Int(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.long(), x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                ctx.seen = (g1.dtype, g1.tolist())
                return g2 * 2
        x = T(m, [1.5, 2.5], True)
        p, q = Int.apply(x)
        fn = q.grad_fn
        q.sum().backward()
        return p, p.requires_grad, q.requires_grad, x.grad, fn.seen
    run_both(f)


@pytest.mark.parametrize('materialize', [True, False])
def test_set_materialize_grads(materialize):
    def f(m):
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                ctx.seen = (g1 is None, None if g2 is None else g2.tolist())
                if g2 is None:
                    return g1
                return g1 + 2 * g2
        x = T(m, [1., 2.], True)
        p, q = Two.apply(x)
        fn = p.grad_fn
        r = (p.grad_fn is q.grad_fn, len(fn.next_functions))
        p.sum().backward()
        return r + (x.grad, fn.seen)
    run_both(f)


def test_multiple_outputs_both_used():
    def f(m):
        class SumDiff(m.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b, a - b

            @staticmethod
            def backward(ctx, gs, gd):
                return gs + gd, gs - gd
        a, b = T(m, [1., 2.], True), T(m, [5., 7.], True)
        s, d = SumDiff.apply(a, b)
        (s * 2 + d * d).sum().backward()
        return s, d, a.grad, b.grad
    run_both(f)


def test_non_tensor_output_passes_through():
    def f(m):
        class WithInfo(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 'info', 7

            @staticmethod
            def backward(ctx, g, g_info, g_seven):
                return g * 2
        x = T(m, [1., 2.], True)
        y, s, k = WithInfo.apply(x)
        y.sum().backward()
        return y, s, k, x.grad
    run_both(f)


def test_only_non_tensor_output():
    def f(m):
        class Three(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return 3

            @staticmethod
            def backward(ctx, g):
                return g
        return Three.apply(T(m, [1.], True))
    run_both(f)


# ------------------------------------------------------------------ backward return checks
def _bad_backward(m, ret, n_in=1):
    class Bad(m.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            return xs[0] * 2

        @staticmethod
        def backward(ctx, g):
            return ret(g)
    return Bad


def test_too_few_gradients():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: g).apply(x, x).sum().backward()
    errors_both(f, "returned an incorrect number of gradients (expected 2, got 1)")


def test_too_many_gradients():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: (g, g)).apply(x).sum().backward()
    errors_both(f, "returned an incorrect number of gradients (expected 1, got 2)")


def test_extra_none_gradients_allowed():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: (g * 2, None, None)).apply(x).sum().backward()
        return x.grad
    run_both(f)


def test_gradient_for_non_tensor_input():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: (g, g)).apply(x, 2).sum().backward()
    errors_both(f, "returned a gradient different than None at position 2, but the "
                   "corresponding forward input was not a Variable")


def test_invalid_gradient_shape():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: m.ones(3)).apply(x).sum().backward()
    ee, et = errors_both(f, "returned an invalid gradient at index 0 - got [3] but expected "
                            "shape compatible with [2]")
    assert str(ee) == str(et)


def test_broadcastable_gradient_is_summed():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: g.expand(3, 2)).apply(x).sum().backward()
        return x.grad
    run_both(f)


def test_gradient_dtype_cast_to_input():
    def f(m):
        x = T(m, [1., 2.], True)
        _bad_backward(m, lambda g: g.double() * 2).apply(x).sum().backward()
        return x.grad
    run_both(f)


# ------------------------------------------------------------------ higher order
def cube_function(m, once=False):
    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.grad_mode = m.is_grad_enabled()
            return g * 3 * x * x
    if once:
        Cube.backward = staticmethod(
            __import__(m.__name__ + '.autograd.function', fromlist=['x'])
            .once_differentiable(Cube.backward))
    return Cube


def test_double_backward_through_custom_function():
    def f(m):
        x = T(m, [1., -2., 0.5], True, np.float64)
        y = cube_function(m).apply(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        r = (g, g.requires_grad, y.grad_fn.grad_mode)
        (gg,) = m.autograd.grad(g.sum(), x)
        return r + (gg,)
    run_both(f)


def test_custom_function_gradgradcheck():
    Cube = cube_function(ember)
    x = ember.tensor([1., -2., 0.5], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(Cube.apply, (x,))
    assert ember.autograd.gradgradcheck(Cube.apply, (x,))


def test_once_differentiable_plain_grad():
    def f(m):
        x = T(m, [1., 2.], True)
        y = cube_function(m, once=True).apply(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g, g.requires_grad, g.grad_fn is None, y.grad_fn.grad_mode
    run_both(f)


def test_once_differentiable_double_backward_raises():
    def f(m):
        x = T(m, [1., 2.], True)
        y = cube_function(m, once=True).apply(x)
        (g,) = m.autograd.grad(y, x, T(m, [1., 1.], True), create_graph=True)
        assert g.requires_grad and g.grad_fn.name().endswith('Error')
        g.sum().backward()
    errors_both(f, "trying to differentiate twice a function that was marked with "
                   "@once_differentiable")


# ------------------------------------------------------------------ misc API
def test_legacy_instance_call_raises():
    def f(m):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            scale_function(m)()(T(m, [1.]), 2, T(m, [1.]))
    errors_both(f, "Legacy autograd function with non-static forward method is deprecated")


def test_instantiation_warns():
    Scale = scale_function(ember)
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        Scale()


def test_saved_variables_deprecated():
    seen = []

    class F(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                (x,) = ctx.saved_variables
            seen.extend(w)
            return g * 2
    F.apply(ember.ones(2, requires_grad=True)).sum().backward()
    assert any(issubclass(w.category, DeprecationWarning) for w in seen)


def test_node_hooks_on_custom_function():
    def f(m):
        Scale = scale_function(m)
        x, y = T(m, [1., 2.], True), T(m, [3., 4.], True)
        o = Scale.apply(x, 2, y)
        log = []
        o.grad_fn.register_prehook(lambda go: log.append(('pre', go[0].tolist())))
        o.grad_fn.register_hook(
            lambda gi, go: (log.append(('post', len(gi))), (gi[0] * 10, gi[1]))[1])
        o.sum().backward()
        return x.grad, y.grad, log
    run_both(f)


def test_function_with_view_output():
    def f(m):
        class First(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.shape = x.shape
                return x.select(0, 0) * 1

            @staticmethod
            def backward(ctx, g):
                r = m.zeros(ctx.shape)
                r[0] = g
                return r
        x = T(m, np.arange(6.).reshape(2, 3), True)
        o = First.apply(x)
        (o * T(m, [1., 2., 3.])).sum().backward()
        return o, x.grad
    run_both(f)


def test_exports():
    from ember.autograd import Function, once_differentiable  # noqa: F401
    from ember.autograd.function import FunctionCtx, InplaceFunction  # noqa: F401
    assert ember.autograd.Function is Function


def test_identity_function_over_many_inputs_like_backward_hooks():
    # the pattern nn's full backward hooks use: return the inputs, mark the ones that need
    # no grad as non-differentiable, and see the gradients flowing through
    def f(m):
        class Hook(m.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                return args

            @staticmethod
            def backward(ctx, *grads):
                ctx.seen = [None if g is None else g.tolist() for g in grads]
                return tuple(None if g is None else g * 10 for g in grads)
        x, y = T(m, [1., 2.], True), T(m, [3., 4.])
        a, b = Hook.apply(x * 1, y)
        fn = a.grad_fn
        r = (a, b, a.grad_fn.name(), a.requires_grad, b.requires_grad, b.grad_fn is None)
        (a * b).sum().backward()
        return r + (x.grad, fn.seen)
    run_both(f)
