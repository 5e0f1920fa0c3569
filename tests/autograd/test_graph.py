"""The backward graph against torch (ember/autograd/graph.py): grad_fn names and
next_functions structure, AccumulateGrad, Node.name/metadata/register_hook/
register_prehook, tensor hooks (leaves and non-leaves), retain_grad, post-accumulate-grad
hooks, RemovableHandle."""
import numpy as np
import pytest
import torch

import ember
from oracle import run_both


def T(m, a, rg=False):
    x = m.from_numpy(np.array(a, dtype=np.float32))
    return x.requires_grad_() if rg else x


A = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 + 0.5


def walk(fn):
    """Nested (name, [children]) description of a backward graph."""
    if fn is None:
        return None
    return (fn.name(), [(walk(n), i) for n, i in fn.next_functions])


# ------------------------------------------------------------------ names and structure
@pytest.mark.parametrize('expr', [
    lambda m, a, b: (a * b + a).sum(),
    lambda m, a, b: a * b - b / a,
    lambda m, a, b: -(a + b),
    lambda m, a, b: a.t(),
    lambda m, a, b: a.view(6),
    lambda m, a, b: a.reshape(3, 2),
    lambda m, a, b: a.select(0, 1),
    lambda m, a, b: a.transpose(0, 1).unsqueeze(0),
    lambda m, a, b: a.narrow(1, 0, 2).squeeze(),
    lambda m, a, b: a.expand(4, 2, 3),
    lambda m, a, b: a.permute(1, 0),
    lambda m, a, b: a.clone(),
    lambda m, a, b: a.sum(0),
    lambda m, a, b: a.double(),
    lambda m, a, b: a[0],
    lambda m, a, b: a[:, 1:],
    lambda m, a, b: a.matmul(b.t()),
    lambda m, a, b: a.tanh().exp(),
    lambda m, a, b: a.split(1)[1],
    lambda m, a, b: a.unbind(1)[2],
])
def test_grad_fn_graph_structure(expr):
    def f(m):
        a, b = T(m, A, True), T(m, A + 1, True)
        out = expr(m, a, b)
        return walk(out.grad_fn), out.is_leaf, out.requires_grad
    run_both(f)


def test_grad_fn_with_constant_input():
    def f(m):
        a, c = T(m, A, True), T(m, A)
        return walk((a * c).grad_fn), walk((c + a).grad_fn)
    run_both(f)


@pytest.mark.parametrize('expr', [
    lambda a: a * 2, lambda a: 2 * a, lambda a: a + 1, lambda a: 1 + a, lambda a: a - 1,
    lambda a: 1 - a, lambda a: a / 2, lambda a: 2 / a,
])
def test_grad_fn_with_python_scalar_operand(expr):
    # torch wraps the scalar as a tensor input: its edge is (None, 0)
    def f(m):
        return walk(expr(T(m, A, True)).grad_fn)
    run_both(f)


def test_accumulate_grad_node():
    def f(m):
        a = T(m, A, True)
        acc = (a * 2).grad_fn.next_functions[0][0]
        return (acc.variable is a, acc.name(), acc.next_functions,
                (a * 3).grad_fn.next_functions[0][0] is acc, type(acc).__name__)
    run_both(f)


def test_leaf_has_no_grad_fn_and_repr():
    def f(m):
        a = T(m, A, True)
        return a.grad_fn is None, repr(a.sum()).split('grad_fn=')[1]
    run_both(f)


def test_node_metadata_and_sequence():
    def f(m):
        a = T(m, A, True)
        fn1 = (a * 2).grad_fn
        fn2 = (a * 3).grad_fn
        md = fn1.metadata
        md['k'] = 1
        return (type(md).__name__, fn1.metadata, fn1._sequence_nr() < fn2._sequence_nr(),
                repr(fn1).startswith('<MulBackward0 object at 0x'))
    run_both(f)


# ------------------------------------------------------------------ tensor hooks
def test_tensor_hooks_leaf_and_non_leaf_order_and_values():
    def f(m):
        log = []
        a, b = T(m, [1., 2.], True), T(m, [3., 4.], True)
        h = a * b
        hh = h.register_hook(lambda g: (log.append(('h', g.tolist())), g * 10)[1])
        a.register_hook(lambda g: (log.append(('a', g.tolist())), g + 1)[1])
        a.register_hook(lambda g: log.append(('a2', g.tolist())))
        b.register_post_accumulate_grad_hook(lambda t: log.append(('post', t.grad.tolist())))
        (h * h).sum().backward()
        r = [list(log), a.grad, b.grad]
        log.clear()
        hh.remove()
        a.grad = b.grad = None
        (a * b * 2).sum().backward()
        return r + [list(log), a.grad, b.grad]
    run_both(f)


def test_hook_and_retain_grad_order():
    def f(m):
        a = T(m, [1., 2.], True)
        h = a * 2
        h.retain_grad()
        h.register_hook(lambda g: g * 3)
        (h * 1).sum().backward()
        r = [h.grad, a.grad]
        a.grad = None
        h = a * 2
        h.register_hook(lambda g: g * 3)
        h.retain_grad()
        (h * 1).sum().backward()
        return r + [h.grad, a.grad]
    run_both(f)


def test_hooks_apply_to_autograd_grad():
    def f(m):
        a = T(m, [1., 2.], True)
        h = a * 2
        h.register_hook(lambda g: g * 5)
        r1 = m.autograd.grad(h.sum(), a)
        a.register_hook(lambda g: g * 0)
        r2 = m.autograd.grad((a * 2).sum(), a)
        return r1, r2
    run_both(f)


def test_removable_handle_context_manager():
    def f(m):
        x = T(m, [1., 1.], True)
        with x.register_hook(lambda g: g * 100):
            pass
        (x * 1).sum().backward()
        return x.grad
    run_both(f)


def test_hook_on_tensor_later_modified_in_place():
    def f(m):
        log = []
        x = T(m, [1., 1.], True)
        y = x * 1
        y.register_hook(lambda g: log.append('y'))
        y.mul_(2)
        y.sum().backward()
        return log, x.grad
    run_both(f)


def test_hook_on_multi_output_op():
    def f(m):
        x = T(m, [1., 1., 1., 1.], True)
        p, q = (x * 1).split(2)
        p.register_hook(lambda g: g * 7)
        (p.sum() + q.sum()).backward()
        return x.grad
    run_both(f)


def test_post_accumulate_grad_hook_runs_each_backward():
    def f(m):
        log = []
        x = T(m, [1., 1.], True)
        hd = x.register_post_accumulate_grad_hook(lambda t: log.append(t.grad.tolist()))
        (x * 3).sum().backward()
        (x * 3).sum().backward()
        hd.remove()
        (x * 3).sum().backward()
        return log, x.grad
    run_both(f)


def test_hook_errors():
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that "
                                               "doesn't require gradient"):
            m.ones(2).register_hook(lambda g: g)
        with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be "
                                               "registered on non-leaf tensors"):
            (m.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: 0)


# ------------------------------------------------------------------ node hooks
def test_node_hooks():
    def f(m):
        log = []
        a, b = T(m, [1., 2.], True), T(m, [3., 4.], True)
        h = a * b
        y = (h * h).sum()
        fn = h.grad_fn
        r1 = fn.register_prehook(lambda go: (log.append(('pre', go[0].tolist())),
                                              (go[0] * 2,))[1])
        r2 = fn.register_hook(lambda gi, go: (log.append(
            ('post', [g.tolist() for g in gi], [g.tolist() for g in go])), None)[1])
        y.backward(retain_graph=True)
        r = [list(log), a.grad]
        log.clear()
        r1.remove()
        r2.remove()
        a.grad = None
        y.backward()
        return r + [list(log), a.grad]
    run_both(f)


def test_node_hook_replaces_grad_inputs():
    def f(m):
        a, b = T(m, [1., 2.], True), T(m, [3., 4.], True)
        h = a * b
        h.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1] * 2))
        h.sum().backward()
        return a.grad, b.grad
    run_both(f)


def test_hook_on_accumulate_grad_node():
    def f(m):
        log = []
        a = T(m, [1., 2.], True)
        acc = (a * 1).grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(('pre', go[0].tolist())))
        (a * 3).sum().backward()
        return log, a.grad
    run_both(f)


# ------------------------------------------------------------------ retain_grad
def test_retain_grad():
    def f(m):
        a = T(m, A, True)
        h = a * 2
        r = [h.retains_grad, a.retains_grad]
        h.retain_grad()
        h.retain_grad()
        r.append(h.retains_grad)
        (h * h).sum().backward(retain_graph=True)
        r += [h.grad, a.grad]
        (h * h).sum().backward()    # accumulates too
        r.append(h.grad)
        a.retain_grad()              # no-op on a leaf
        r.append(a.retains_grad)
        return r
    run_both(f)


def test_retain_grad_errors_and_warning():
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                               "requires_grad=False"):
            m.ones(2).retain_grad()
        h = m.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert h.grad is None


@pytest.mark.parametrize('value', [1, 0, 1.0, None, np.bool_(True), 'yes'])
def test_requires_grad_setter_takes_only_bool(value):
    from oracle import errors_both

    def f(m):
        m.ones(2).requires_grad = value
    errors_both(f, 'requires_grad must be a bool')


@pytest.mark.parametrize('value', [True, False])
def test_requires_grad_setter_bool(value):
    def f(m):
        x = m.ones(2)
        x.requires_grad = value
        return x.requires_grad
    run_both(f)
