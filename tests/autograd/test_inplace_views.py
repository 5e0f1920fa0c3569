"""In-place ops, views and autograd against torch: the cases the randomized tester
(tests/test_tensor_fuzz.py) found, written out (ember/_tensor.py inplace machinery,
ember/_ops/view.py CopySlices / view autograd state, ember/autograd/graph.py saved
tensors, ember/_ops/indexing.py __setitem__), plus memory release, double backward.
"""
import gc
import weakref

import numpy as np
import pytest
import torch

import ember
from oracle import run_both, errors_both

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
Z = RNG.standard_normal(12)


def leaf(m, a=A):
    return m.tensor(a, requires_grad=True)


def wts(m, shape):
    """Fixed weights of ``shape`` (the same under both modules)."""
    return m.tensor(np.cos(np.arange(int(np.prod(shape)))).reshape(shape))


def fn_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# ------------------------------------------------------------------ copy_ / setitem rebase
def test_copy_from_constant_into_non_leaf_keeps_it_non_leaf():
    def f(m):
        x = leaf(m)
        y = x * 2
        y.copy_(m.tensor(B))            # the new value does not depend on x
        r = [fn_name(y), y.is_leaf, y.requires_grad, y._version]
        (y * 3).sum().backward()
        return r + [x.grad]
    run_both(f)


@pytest.mark.parametrize('index', [(slice(None),), (slice(0, 3),), (slice(0, 9),), (slice(-3, None),),
                                   (0, slice(None)), (0, slice(0, 4)), (0, slice(-4, 4)), Ellipsis,
                                   slice(0, 3)])
@pytest.mark.parametrize('value', ['row', 'scalar_t', 'number'])
def test_setitem_grad_fn_and_grads(index, value):
    """PyTorch skips a slice that spans the whole dim when written as ``:`` / ``0:n``
    (then the write lands on the tensor itself, not a view) and ``fill_``-s a 0-dim
    value."""
    def f(m):
        x = leaf(m)
        z = leaf(m, Z)
        y = x * 1
        v = {'row': z[:4], 'scalar_t': z[0], 'number': 2.5}[value]
        y[index] = v
        r = [fn_name(y), y._version]
        (y * m.tensor(B)).sum().backward()
        return r + [x.grad, z.grad if value != 'number' else 0]
    run_both(f)


def test_getitem_slice_names():
    def f(m):
        y = leaf(m) * 1
        return [fn_name(y[i]) for i in (slice(None), (slice(None), 0), (0, slice(None)),
                                        (0, slice(0, 4)), (0, slice(0, 9)), (0, slice(-4, 4)),
                                        (Ellipsis, slice(None)))]
    run_both(f)


def test_setitem_number_into_0dim_uses_copy():
    def f(m):
        s = (leaf(m) * 1).sum()
        s[...] = 3.0
        return [fn_name(s), s]
    run_both(f)


def test_inplace_through_permuted_view_keeps_old_value_for_backward():
    """mul_ through a view saves the view's old value (a real copy)."""
    def f(m):
        w = m.tensor(np.arange(24.).reshape(2, 3, 4) * 0.5)
        z = leaf(m, Z)
        w.permute(1, 0, 2).mul_(z.sum())
        w.view(-1)[11].backward()
        return z.grad
    run_both(f)


# ------------------------------------------------------------------ views and requires_grad
def test_view_made_before_base_gets_history_requires_grad():
    def f(m):
        x = leaf(m)
        buf = m.zeros(3, 4, dtype=m.float64)
        row = buf[1]
        col = buf.t()[2]
        buf.copy_(x * 2)
        r = [row.requires_grad, fn_name(row), col.requires_grad, row.is_leaf]
        ((row * 3).sum() + (col * col).sum()).backward()
        return r + [x.grad]
    run_both(f)


def test_view_of_plain_tensor_written_through_sibling_view():
    def f(m):
        z = leaf(m, Z)
        w = m.tensor(A)
        a, b = w[0:2], w[1:3]
        a.mul_(z[:4])                   # w gets history; b (made before) requires grad now
        r = [b.requires_grad, fn_name(b), fn_name(w)]
        b.sum().backward()
        return r + [z.grad]
    run_both(f)


def test_no_grad_view_of_leaf():
    def f(m):
        x = leaf(m)
        with m.no_grad():
            v = x[0]
        r = [v.requires_grad, v.is_leaf, v.grad_fn is None]
        (v * 2).sum().backward()        # no edge back to x, no grad for the view
        return r + [x.grad is None, v.grad is None]
    run_both(f)


def test_view_made_leaf_by_requires_grad_accumulates_own_grad():
    def f(m):
        v = m.tensor(A).t().requires_grad_()
        (v * v).sum().backward()
        return [v.is_leaf, v.grad]
    run_both(f)


@pytest.mark.parametrize('make', ['unbind', 'split', 'chunk', 'iter'])
def test_inplace_on_output_of_multi_view_op_raises(make):
    def f(m):
        y = leaf(m) * 1
        p = {'unbind': lambda: y.unbind(0)[1], 'split': lambda: y.split(2)[1],
             'chunk': lambda: y.chunk(2, 1)[0], 'iter': lambda: next(iter(y))}[make]()
        p.mul_(2)
    errors_both(f, "This view is the output of a function that returns multiple views")


def test_multi_view_of_multi_view_raises_and_base_change_blocks_grad_fn():
    errors_both(lambda m: (leaf(m) * 1).unbind(0)[0][1:3].add_(1), "Output 0 of Slice is a view")

    def g(m):
        y = leaf(m) * 1
        p = y.split(2)[0]
        y.mul_(2)
        return p.grad_fn
    errors_both(g, "its base or another view of its base has been modified inplace")


def test_multi_view_without_grad_allowed_unless_grad_is_recorded():
    def f(m):
        w = m.tensor(A)
        p = w.unbind(0)[0]
        p.mul_(2)                        # nothing to record: fine
        return [w, fn_name(p)]
    run_both(f)
    errors_both(lambda m: m.tensor(A).split(2)[0].mul_(leaf(m, Z[:4])),
                "A view was created in no_grad mode")


def test_tensor_split_outputs_may_be_written():
    def f(m):
        x = leaf(m)
        y = x * 1
        y.tensor_split(2)[0].mul_(2)
        y.sum().backward()
        return [fn_name(y), x.grad]
    run_both(f)


def test_view_made_in_no_grad_then_written_with_grad_raises():
    def f(m):
        y = leaf(m) * 1
        with m.no_grad():
            v = y[0]
        v.mul_(2)
    errors_both(f, "A view was created in no_grad mode and is being modified inplace")

    def g(m):
        y = leaf(m) * 1
        with m.no_grad():
            v = y[0]
        y.mul_(2)
        return v.grad_fn
    errors_both(g, "its base or another view of its base has been modified inplace")


# ------------------------------------------------------------------ in-place view ops
@pytest.mark.parametrize('op', ['unsqueeze_', 'squeeze_', 'squeeze_d', 't_', 'transpose_'])
def test_inplace_view_ops(op):
    def f(m):
        x = m.tensor(A.reshape(3, 1, 4), requires_grad=True)
        y = x * 1
        v = y[0]
        call = {'unsqueeze_': lambda t: t.unsqueeze_(0), 'squeeze_': lambda t: t.squeeze_(),
                'squeeze_d': lambda t: t.squeeze_(1), 't_': lambda t: t.squeeze_().t_(),
                'transpose_': lambda t: t.transpose_(0, 2)}[op]
        r = call(y)
        out = [r is y, fn_name(y), y._version, tuple(y.shape), y.stride(), fn_name(v)]
        (y * wts(m, tuple(y.shape))).sum().backward()
        return out + [x.grad]
    run_both(f)


def test_inplace_view_op_on_leaf_and_on_view():
    errors_both(lambda m: leaf(m).t_(), "a leaf Variable that requires grad")
    errors_both(lambda m: leaf(m)[0:2].t_(), "a view of a leaf Variable")

    def f(m):
        x = leaf(m)
        y = x * 1
        v = y[0:2]
        v.t_()
        r = [fn_name(v), fn_name(y), v._version, v.stride()]
        (v * wts(m, (4, 2))).sum().backward()
        return r + [x.grad]
    run_both(f)


def test_reshape_of_non_contiguous_view_is_reshape_alias():
    def f(m):
        y = m.tensor(A.reshape(3, 2, 2), requires_grad=True) * 1
        return [fn_name(y.reshape(-1)), fn_name(y[:, :, 0].reshape(-1)),
                fn_name(y.narrow(2, 0, 1).flatten()), fn_name(y.permute(1, 0, 2).reshape(-1)),
                fn_name(y.permute(1, 0, 2).reshape(2, 3, 2))]
    run_both(f)


# ------------------------------------------------------------------ memory overlap
@pytest.mark.parametrize('op', ['add_', 'mul_t', 'clamp_', 'sin_', 'copy_', 'index_add_',
                                'fill_t', 'setitem_all'])
@pytest.mark.parametrize('grad', [False, True])
def test_write_to_expanded_tensor_refused(op, grad):
    def f(m):
        y = leaf(m) * 1 if grad else m.tensor(A)
        e = y[0:1].expand(3, 4)
        {'add_': lambda: e.add_(1), 'mul_t': lambda: e.mul_(m.tensor(B)),
         'clamp_': lambda: e.clamp_(0, 1), 'sin_': lambda: e.sin_(),
         'copy_': lambda: e.copy_(m.tensor(B)),
         'index_add_': lambda: e.index_add_(0, m.tensor([0]), m.tensor(B[:1])),
         'fill_t': lambda: e.fill_(m.tensor(2.0, dtype=m.float64)),
         'setitem_all': lambda: e.__setitem__(Ellipsis, 2.0)}[op]()
    errors_both(f, "more than one element of the written-to tensor refers to a single memory")


@pytest.mark.parametrize('op', [
    'fill_', 'zero_',
    'index_put_', 'setitem_adv', 'setitem_row'])
def test_write_to_expanded_tensor_allowed(op):
    def f(m):
        y = m.tensor(A)
        e = y[0:1].expand(3, 4)
        {'fill_': lambda: e.fill_(2.0), 'zero_': lambda: e.zero_(),
         'index_put_': lambda: e.index_put_((m.tensor([1]),), m.tensor(5.0, dtype=m.float64)),
         'setitem_adv': lambda: e.__setitem__((m.tensor([0, 2]), m.tensor([1, 3])), 7.0),
         'setitem_row': lambda: e.__setitem__(1, m.tensor(B[0]))}[op]()
        return [y, e, y._version]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # torch: index_put_ on expanded tensors is deprecated
        run_both(f)


def test_expand_without_repeats_is_writable():
    def f(m):
        y = m.tensor(A)
        e = y.expand(3, 4)
        e.copy_(m.tensor(B))
        e.masked_fill_(m.tensor(A > 0), 1.0)
        return [y, e]
    run_both(f)


@pytest.mark.parametrize('op', ['add_t', 'mul_row', 'copy_row', 'setitem_shift', 'index_put_shift',
                                'index_add_self'])
def test_partial_overlap_refused(op):
    def f(m):
        y = leaf(m, A[:, :3]) * 1       # through the generic (autograd) path
        {'add_t': lambda: y.add_(y.t()), 'mul_row': lambda: y.mul_(y[2]),
         'copy_row': lambda: y.copy_(y[1]),
         'setitem_shift': lambda: y.__setitem__(slice(0, 2), y[1:3]),
         'index_put_shift': lambda: y.__setitem__([0, 1], y[1:3]),
         'index_add_self': lambda: y.index_add_(0, m.tensor([0]), y[2:3])}[op]()
    errors_both(f, "some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location")


@pytest.mark.parametrize('op', ['add_self', 'copy_self', 'copy_detached', 'fill_elem',
                                'setitem_same', 'add_nondense', 'masked_fill_elem',
                                'setitem_adv_copy'])
def test_overlap_allowed(op):
    def f(m):
        y = leaf(m, A[:, :3]) * 1
        {'add_self': lambda: y.add_(y), 'copy_self': lambda: y.copy_(y),
         'copy_detached': lambda: y.copy_(y.detach()), 'fill_elem': lambda: y.fill_(y[0, 0]),
         'setitem_same': lambda: y.__setitem__(0, y[0]),
         'add_nondense': lambda: y[:, 0:2].add_(y[:, 1:3]),
         'masked_fill_elem': lambda: y.masked_fill_(y > 0, y[0, 0]),
         'setitem_adv_copy': lambda: y.__setitem__([0, 1], y[[1, 2]])}[op]()
        return [y, y._version]
    run_both(f)


def test_write_through_expanded_view_fails_in_backward_when_base_has_history():
    def f(m):
        y = leaf(m) * 1
        e = y[0:1].expand(3, 4)
        e.masked_fill_(m.tensor(A > 0), 1.0)
        y.sum().backward()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        errors_both(f, "more than one element of the written-to tensor")

        def g(m):                         # the base had no history: nothing to write back
            w = m.tensor(A)
            z = leaf(m, Z)
            w[0:1].expand(3, 4)[[1]] = z[:4]
            w.sum().backward()
            return z.grad
        run_both(g)


def test_as_strided_window_past_its_input():
    def f(m):
        x = leaf(m)
        y = x * 1
        v = y[:, 1:3]
        s = v.as_strided([3], [1], 9)       # elements 9, 10 are in v, 11 is not
        e = y.narrow(0, 1, 0).as_strided([2], [3], 4)   # from an empty view
        ((s * m.tensor([1., 2., 3.])).sum() + (e * 2).sum()).backward()
        return [s, e, x.grad]
    run_both(f)


# ------------------------------------------------------------------ memory
def _collect_disabled(fn):
    gc.collect()
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()


def test_outputs_saved_by_their_node_are_freed_without_gc():
    """A node saving its own output (exp, tanh, sigmoid, a custom Function) must not form
    a reference cycle with it."""
    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r

    def f():
        x = ember.tensor(A, requires_grad=True)
        refs = []
        for mk in (lambda: x.exp(), lambda: x.tanh(), lambda: x.sigmoid(), lambda: x.sqrt(),
                   lambda: Exp.apply(x)):
            y = mk()
            refs.append(weakref.ref(y))
            del y
        return [r() is None for r in refs]
    assert all(_collect_disabled(f))


def test_saved_output_still_differentiable_and_version_checked():
    def f(m):
        x = leaf(m)
        g, = m.autograd.grad(x.exp().sum(), x, create_graph=True)
        g2, = m.autograd.grad((g * g).sum(), x)
        return g2
    run_both(f)

    def h(m):
        y = leaf(m).exp()
        y.mul_(2)
        y.sum().backward()
    errors_both(h, "which is output 0 of Exp, is at version 1; expected version 0 instead")


def test_leaf_and_graph_freed_without_gc():
    def f():
        x = ember.tensor(A, requires_grad=True)
        y = x * 1
        v = y[0]
        v.mul_(2)
        y.t_()
        s = (y.exp() * y).sum()
        s.backward()
        refs = [weakref.ref(t) for t in (x, y, v, s)]
        del x, y, v, s
        return [r() is None for r in refs]
    assert all(_collect_disabled(f))


def test_saved_tensors_freed_after_backward_through_views():
    x = ember.tensor(A, requires_grad=True)
    y = x.exp()
    z = y[1:].sin()
    ref = weakref.ref(y)
    node = z.grad_fn
    del y
    z.sum().backward()
    assert ref() is None and node._saved == ()


# ------------------------------------------------------------------ double backward
@pytest.mark.parametrize('op', ['tanh', 'exp', 'sin', 'sigmoid', 'mulself', 'pow3', 'div',
                                'matmul', 'log', 'inplace_chain', 'setitem'])
def test_second_derivative_matches_torch(op):
    W = RNG.standard_normal((4, 2))

    def f(m):
        x = m.tensor(np.abs(A) + 0.5, requires_grad=True)
        fn = {'tanh': lambda t: t.tanh(), 'exp': lambda t: t.exp(), 'sin': lambda t: t.sin(),
              'sigmoid': lambda t: t.sigmoid(), 'mulself': lambda t: t * t,
              'pow3': lambda t: t ** 3, 'div': lambda t: 1 / t, 'log': lambda t: t.log(),
              'matmul': lambda t: (t @ m.tensor(W)) ** 2,
              'inplace_chain': lambda t: (t * 1).mul_(t).add_(t.sin()),
              'setitem': _setitem_op}[op]
        y = fn(x)
        g, = m.autograd.grad((y * wts(m, tuple(y.shape))).sum(), x, create_graph=True)
        (g * g).sum().backward()
        return [g, x.grad]
    run_both(f)


def _setitem_op(t):
    y = t * 1
    y[1] = t[0] ** 2
    return y


def test_grad_accumulates_across_backward_calls_through_inplace_views():
    def f(m):
        x = leaf(m)
        for k in range(2):
            y = x * (k + 1)
            y[0].mul_(3)
            y[1:].add_(y[0])
            (y * y).sum().backward()
        return x.grad
    run_both(f)


def test_retain_graph_through_copyslices():
    def f(m):
        x = leaf(m)
        z = leaf(m, Z)
        y = x * 1
        y[1:3, 0] = z[:2]
        s = (y * y).sum()
        s.backward(retain_graph=True)
        s.backward()
        return [x.grad, z.grad]
    run_both(f)
    errors_both(lambda m: [(s := (leaf(m).exp()[0] * 2).sum()).backward(), s.backward()],
                "Trying to backward through the graph a second time")


# ------------------------------------------------------------------ known differences
# Found by the randomized tester in files owned by other modules; kept strict so that they
# turn into failures (and get promoted to plain tests) once fixed.
def test_known_clone_of_permuted_tensor_copies():
    y = ember.tensor(np.arange(24.).reshape(2, 3, 4)).permute(1, 0, 2)
    c = y.clone()
    assert c.data_ptr() != y.data_ptr()


def test_known_fast_inplace_partial_overlap():
    errors_both(lambda m: (lambda y: y.add_(y.t()))(m.tensor(A[:, :3])), "some elements")
