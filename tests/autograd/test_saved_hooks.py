"""Saved-tensor hooks, ``grad_fn._saved_*`` and the autograd.graph helpers, vs torch."""
import threading

import pytest
import torch

import ember

torch.set_num_threads(1)


def _pair(m):
    x = m.tensor([1., 2., 3.], requires_grad=True)
    y = m.tensor([4., -5., 6.], requires_grad=True)
    return x, y


@pytest.mark.parametrize('expr,names', [
    ('x * y', ('self', 'other')), ('x / y', ('self', 'other')), ('x.exp()', ('result',)),
    ('x.sin()', ('self',)), ('x.tanh()', ('result',)), ('x.sigmoid()', ('result',)),
    ('x.log()', ('self',)), ('x.sqrt()', ('result',)), ('x ** 2', ('self',)),
    ('m.maximum(x, y)', ('self', 'other')), ('x.relu()', ('result',)),
    ('m.mm(x[None], y[:, None])', ('self', 'mat2')), ('m.dot(x, y)', ('self', 'tensor')),
    ('m.mv(x.expand(2, 3), y)', ('self', 'vec')),
])
def test_saved_names_match_torch(expr, names):
    def run(m):
        x, y = _pair(m)
        out = eval(expr)
        return [getattr(out.grad_fn, '_saved_' + n).detach().reshape(-1).tolist() for n in names]
    e, t = run(ember), run(torch)
    assert [pytest.approx(v, rel=1e-6) for v in t] == e and len(e) == len(names)


def test_saved_scalar_attribute_and_missing_name():
    x, _ = _pair(ember)
    out = x.pow(3)
    assert out.grad_fn._saved_self.tolist() == [1., 2., 3.]
    with pytest.raises(AttributeError):
        out.grad_fn._saved_nonexistent


def test_saved_tensors_hooks_pack_unpack_counts_and_grads():
    def run(m):
        x, y = _pair(m)
        log = []

        def pack(t):
            log.append(('pack', tuple(t.shape)))
            return t.detach().clone()

        def unpack(t):
            log.append(('unpack', tuple(t.shape)))
            return t
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            z = (x * y).exp().sum()
        z.backward()
        return log, x.grad.tolist(), y.grad.tolist()
    e, t = run(ember), run(torch)
    assert sorted(e[0]) == sorted(t[0])
    assert e[1] == pytest.approx(t[1]) and e[2] == pytest.approx(t[2])


def test_hooks_can_move_storage_and_change_values():
    def run(m):
        x, _ = _pair(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().numpy().copy(),
                                                  lambda a: m.from_numpy(a) * 2):
            z = (x * x).sum()
        z.backward()
        return x.grad.tolist()
    assert run(ember) == run(torch)


def test_inner_hooks_win_and_exit_restores():
    def run(m):
        x, _ = _pair(m)
        seen = []
        with m.autograd.graph.saved_tensors_hooks(lambda t: seen.append('outer') or t,
                                                  lambda t: t):
            with m.autograd.graph.saved_tensors_hooks(lambda t: seen.append('inner') or t,
                                                      lambda t: t):
                x.sin()
            x.cos()
        x.tan()
        return seen
    assert run(ember) == run(torch)


def test_unpack_must_return_tensor():
    def run(m):
        x, _ = _pair(m)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 1):
            z = x.sin().sum()
        with pytest.raises(TypeError) as ei:
            z.backward()
        return type(ei.value).__name__
    assert run(ember) == run(torch)


def test_disable_saved_tensors_hooks():
    def run(m):
        with m.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
        return True
    assert run(ember) and run(torch)


def test_saved_hooks_are_per_thread():
    x, _ = _pair(ember)
    packed = []
    done = threading.Event()
    result = {}

    def other():
        done.wait(5)
        result['z'] = (x * x).sum()   # no hooks in this thread
    t = threading.Thread(target=other)
    t.start()
    with ember.autograd.graph.saved_tensors_hooks(lambda v: packed.append(1) or v, lambda v: v):
        done.set()
        t.join()
    assert packed == []
    result['z'].backward()
    assert x.grad.tolist() == [2., 4., 6.]


def test_raw_saved_register_hooks():
    def run(m):
        x, y = _pair(m)
        out = x * y
        out.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t)
        with pytest.raises(RuntimeError, match="already been set"):
            out.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        out.sum().backward(retain_graph=True)
        g1 = y.grad.tolist()
        return g1, x.grad.tolist()
    assert run(ember) == run(torch)


def test_raw_saved_after_free():
    def run(m):
        x, _ = _pair(m)
        out = x.sin()
        out.sum().backward()
        with pytest.raises(RuntimeError, match="after it has been freed"):
            out.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        return True
    assert run(ember) and run(torch)


def test_save_on_cpu_and_allow_mutation():
    def run(m):
        x, _ = _pair(m)
        with m.autograd.graph.save_on_cpu():
            z = (x * x.exp()).sum()
        z.backward()
        g = x.grad.tolist()
        x.grad = None
        with m.autograd.graph.allow_mutation_on_saved_tensors():
            a = x.clone()
            out = (a * a).sum()
            a.mul_(100)
            out.backward()
        return g, x.grad.tolist()
    e, t = run(ember), run(torch)
    assert e[0] == pytest.approx(t[0]) and e[1] == t[1]


def test_gradient_edge_and_increment_version():
    def run(m):
        x, _ = _pair(m)
        y = x * 2
        e = m.autograd.graph.get_gradient_edge(y)
        v0 = y._version
        m.autograd.graph.increment_version(y)
        with pytest.raises(RuntimeError):
            m.autograd.graph.get_gradient_edge(m.ones(1))
        return e.node.name(), e.output_nr, y._version - v0
    assert run(ember) == run(torch)


@pytest.mark.parametrize('mode', ['all', 'any'])
def test_register_multi_grad_hook(mode):
    def run(m):
        a = m.tensor([1., 2.], requires_grad=True)
        b = m.tensor([3., 4.], requires_grad=True)
        c = m.tensor([5., 6.], requires_grad=True)
        got = []

        def fn(g):
            if mode == 'all':
                got.append([None if x is None else x.tolist() for x in g])
            else:
                got.append(g.tolist())
        h = m.autograd.graph.register_multi_grad_hook((a, b, c), fn, mode=mode)
        (a * b).sum().backward()
        (a * 3).sum().backward()
        h.remove()
        (a * b).sum().backward()
        return got
    assert run(ember) == run(torch)


def test_queue_callback_outside_backward():
    with pytest.raises(RuntimeError, match="during backward"):
        ember.autograd.engine.queue_callback(lambda: None)
