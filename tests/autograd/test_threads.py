"""Thread-local autograd state against torch (ember/autograd/grad_mode.py, engine.py,
anomaly_mode.py): grad and inference mode are per thread (a new thread starts with
grad on, whatever its parent does; crossed-order exits in two threads leave each as it
was), backward sets grad mode in its own thread only, anomaly mode is process-wide (as
torch 2.13), and stress runs: threads training their own models, threads toggling
no_grad in tight loops, concurrent backward calls on independent and shared graphs,
all equal to the sequential results."""
import sys
import threading

import numpy as np
import pytest
import torch

import ember

BOTH = pytest.mark.parametrize('m', [torch, ember], ids=['torch', 'ember'])
TIMEOUT = 30


def run_threads(*fns):
    """Run each fn in its own thread; re-raise the first failure; return the results."""
    res = [None] * len(fns)
    errs = []

    def body(i, f):
        try:
            res[i] = f()
        except BaseException as e:   # noqa: BLE001 - reported in the main thread
            errs.append(e)

    ts = [threading.Thread(target=body, args=(i, f), daemon=True) for i, f in enumerate(fns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(TIMEOUT)
        assert not t.is_alive(), "thread hung"
    if errs:
        raise errs[0]
    return res


@pytest.fixture
def fast_switch():
    """Switch threads very often so that the interleavings below really happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def default_state(m):
    return m.is_grad_enabled(), m.is_inference_mode_enabled()


# ---------------------------------------------------------------- semantics vs torch

@BOTH
def test_new_thread_starts_with_defaults(m):
    out = {}
    with m.no_grad():
        out['no_grad'] = run_threads(lambda: default_state(m))[0]
    with m.inference_mode():
        out['inference'] = run_threads(lambda: default_state(m))[0]
    m.set_grad_enabled(False)
    try:
        out['set_false'] = run_threads(lambda: default_state(m))[0]
    finally:
        m.set_grad_enabled(True)
    assert out == {k: (True, False) for k in out}


@BOTH
def test_set_grad_enabled_in_thread_leaves_main(m):
    def child():
        m.set_grad_enabled(False)   # never restored: the thread just ends
        x = m.ones(2, requires_grad=True)
        return m.is_grad_enabled(), (x * 2).requires_grad
    assert run_threads(child)[0] == (False, False)
    x = m.ones(2, requires_grad=True)
    assert m.is_grad_enabled() and (x * 2).requires_grad


@BOTH
def test_modes_held_by_one_thread_invisible_to_another(m):
    inside, done = threading.Event(), threading.Event()

    def holder(cm):
        def f():
            with cm():
                inside.set()
                assert done.wait(TIMEOUT)
                return default_state(m)
        return f

    for cm, held in [(m.no_grad, (False, False)), (m.inference_mode, (False, True)),
                     (lambda: m.set_grad_enabled(False), (False, False))]:
        inside.clear()
        done.clear()
        seen = []

        def watcher():
            assert inside.wait(TIMEOUT)
            x = m.ones(2, requires_grad=True)
            seen.append((default_state(m), (x * 3).requires_grad))
            done.set()
        r = run_threads(holder(cm), watcher)
        assert r[0] == held
        assert seen == [((True, False), True)]
        assert default_state(m) == (True, False)


@BOTH
@pytest.mark.parametrize('kind', ['no_grad', 'inference_mode', 'set_grad_enabled',
                                  'enable_grad_in_no_grad'])
def test_crossed_order_exits_leave_each_thread_as_it_was(m, kind):
    """A enters, B enters, A exits, B exits: with one global flag the first exit would
    restore B's view of A's old state, and B's exit would leave grad off for good."""
    steps = [threading.Event() for _ in range(4)]

    def cm():
        if kind == 'no_grad':
            return m.no_grad()
        if kind == 'inference_mode':
            return m.inference_mode()
        if kind == 'set_grad_enabled':
            return m.set_grad_enabled(False)
        return m.enable_grad()

    def thread(enter_after, exit_after, signal_in, signal_out, start_off):
        def f():
            if start_off:
                m.set_grad_enabled(False)
            before = default_state(m)
            if enter_after is not None:
                assert steps[enter_after].wait(TIMEOUT)
            with cm():
                during = default_state(m)
                steps[signal_in].set()
                assert steps[exit_after].wait(TIMEOUT)
                during2 = default_state(m)
            after = default_state(m)
            steps[signal_out].set()
            return before, during, during2, after
        return f

    off = kind == 'enable_grad_in_no_grad'
    a = thread(None, 1, 0, 2, off)     # A: enter, signal 0; exit after B entered (1)
    b = thread(0, 2, 1, 3, off)        # B: enter after 0; exit after A exited (2)
    ra, rb = run_threads(a, b)
    for before, during, during2, after in (ra, rb):
        assert before == after
        assert during == during2
    assert ra == rb
    assert default_state(m) == (True, False)


@BOTH
def test_backward_sets_grad_mode_in_its_own_thread_only(m):
    """While a backward pass runs in one thread (grad off inside it), another thread
    still records graphs; with create_graph the backward thread has grad on."""
    for create_graph in (False, True):
        in_bw, checked = threading.Event(), threading.Event()
        log = {}

        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 1

            @staticmethod
            def backward(ctx, g):
                log['backward'] = m.is_grad_enabled()
                in_bw.set()
                assert checked.wait(TIMEOUT)
                return g

        def trainer():
            x = m.ones(3, requires_grad=True)
            F.apply(x).sum().backward(create_graph=create_graph)
            log['after'] = m.is_grad_enabled()

        def watcher():
            assert in_bw.wait(TIMEOUT)
            y = m.ones(2, requires_grad=True) * 2
            log['other'] = (m.is_grad_enabled(), y.requires_grad)
            checked.set()
        run_threads(trainer, watcher)
        assert log == {'backward': create_graph, 'after': True, 'other': (True, True)}


@BOTH
def test_thread_started_inside_backward_has_grad_on(m):
    log = {}

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            log['child'] = run_threads(lambda: m.is_grad_enabled())[0]
            log['self'] = m.is_grad_enabled()
            return g
    F.apply(m.ones(2, requires_grad=True)).sum().backward()
    assert log == {'child': True, 'self': False}


@BOTH
def test_backward_in_no_grad_thread_and_failure_restore(m):
    def f():
        x = m.ones(2, requires_grad=True)
        y = (x * x).sum()
        with m.no_grad():
            g, = m.autograd.grad(y, x, create_graph=True, retain_graph=True)
            r = [m.is_grad_enabled(), g.requires_grad]

        def bad(_):
            raise ValueError("boom")
        x.register_hook(bad)
        with m.no_grad():
            with pytest.raises(ValueError):
                y.backward(create_graph=True)
            r.append(m.is_grad_enabled())
        r.append(m.is_grad_enabled())
        return r
    assert run_threads(f)[0] == [False, True, False, True]
    assert m.is_grad_enabled()


def test_set_multithreading_enabled_is_thread_local():
    gm = ember.autograd.grad_mode
    with gm.set_multithreading_enabled(False):
        assert not gm._is_multithreading_enabled()
        assert run_threads(gm._is_multithreading_enabled)[0]
    assert gm._is_multithreading_enabled()


@BOTH
def test_anomaly_mode_is_process_wide_as_torch(m):
    """torch 2.13 keeps anomaly mode in one process-wide flag: a thread that turns it
    on turns it on for all."""
    assert not m.is_anomaly_enabled()
    try:
        run_threads(lambda: m.autograd.set_detect_anomaly(True, check_nan=False))
        assert m.is_anomaly_enabled() and not m.is_anomaly_check_nan_enabled()
        assert run_threads(m.is_anomaly_enabled)[0]
    finally:
        m.autograd.set_detect_anomaly(False)
    assert not m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()


@BOTH
def test_no_grad_decorated_function_called_from_threads(m):
    @m.no_grad()
    def f(x):
        return (x * 2).requires_grad, m.is_grad_enabled()

    x = m.ones(2, requires_grad=True)
    barrier = threading.Barrier(4)

    def body():
        out = []
        for _ in range(20):
            barrier.wait(TIMEOUT)
            out.append(f(x))
            out.append(((x * 2).requires_grad, m.is_grad_enabled()))
        return out
    for r in run_threads(*[body] * 4):
        assert r == [(False, False), (True, True)] * 20


def test_nested_backward_in_hooks_from_threads(fast_switch):
    """Backward run inside a tensor hook and inside a custom Function backward, in
    several threads at once."""
    class Inner(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            with ember.enable_grad():
                b = a.detach().requires_grad_()
                gb, = ember.autograd.grad((b ** 3).sum(), b)   # nested pass
            return g * 2 + gb

    def body(k):
        def f():
            out = []
            for i in range(15):
                x = ember.full((3,), float(k + i), requires_grad=True)
                side = ember.full((3,), 1.0, requires_grad=True)

                def hook(g):
                    with ember.enable_grad():   # hooks run with grad off (as torch)
                        (side * side).sum().backward()   # nested pass from a hook
                    return g
                x.register_hook(hook)
                Inner.apply(x).sum().backward()
                out.append((x.grad.tolist(), side.grad.tolist(), ember.is_grad_enabled()))
            return out
        return f
    res = run_threads(*[body(k) for k in range(4)])
    for k, r in enumerate(res):
        for i, (gx, gs, on) in enumerate(r):
            v = float(k + i)
            assert gx == [2 + 3 * v * v] * 3 and gs == [2.0] * 3 and on


# ---------------------------------------------------------------- stress

class _Net(ember.nn.Module):
    def __init__(self, g):
        super().__init__()

        def p(*shape):
            return ember.nn.Parameter(ember.tensor(g.standard_normal(shape).astype(np.float32)))
        self.w1, self.b1, self.w2, self.b2 = p(8, 4), p(8), p(1, 8), p(1)

    def forward(self, x):
        h = ember.nn.functional.linear(x, self.w1, self.b1).tanh()
        return ember.nn.functional.linear(h, self.w2, self.b2)


def _train(seed, steps, barrier=None, eval_every=0):
    g = np.random.default_rng(seed)
    net = _Net(g)
    opt = ember.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    xs = ember.tensor(g.standard_normal((steps, 16, 4)).astype(np.float32))
    ys = ember.tensor(g.standard_normal((steps, 16, 1)).astype(np.float32))
    losses, evals = [], []
    for s in range(steps):
        if barrier is not None:
            barrier.wait(TIMEOUT)
        opt.zero_grad()
        loss = ((net(xs[s]) - ys[s]) ** 2).mean()
        assert loss.requires_grad and ember.is_grad_enabled()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if eval_every and s % eval_every == 0:
            with ember.no_grad():
                e = net(xs[0]).sum()
                assert not e.requires_grad
            evals.append(e.item())
    return losses, evals, [p.detach().numpy().copy() for p in net.parameters()]


def _same(a, b):
    la, ea, pa = a
    lb, eb, pb = b
    assert la == lb and ea == eb
    for x, y in zip(pa, pb):
        np.testing.assert_array_equal(x, y)


def test_threads_training_separate_models_match_sequential(fast_switch):
    n, steps = 6, 40
    seq = [_train(k, steps, eval_every=(k % 3)) for k in range(n)]
    barrier = threading.Barrier(n)
    par = run_threads(*[(lambda k=k: _train(k, steps, barrier, eval_every=(k % 3)))
                        for k in range(n)])
    for a, b in zip(seq, par):
        _same(a, b)
    assert ember.is_grad_enabled()


def test_togglers_do_not_disturb_backward(fast_switch):
    """Threads spin through no_grad / inference_mode / set_grad_enabled while others
    build graphs and run backward; everyone sees only their own mode."""
    stop = threading.Event()
    start = threading.Barrier(5)   # trainers begin once every toggler is spinning
    running = [2]
    lock = threading.Lock()

    def toggler(kind):
        def f():
            n = 0
            while n == 0 or (not stop.is_set() and n < 20000):
                n += 1
                if n == 2:
                    start.wait(TIMEOUT)
                if kind == 0:
                    with ember.no_grad():
                        assert not ember.is_grad_enabled()
                elif kind == 1:
                    with ember.inference_mode():
                        assert not ember.is_grad_enabled() and ember.is_inference_mode_enabled()
                else:
                    ember.set_grad_enabled(False)
                    assert not ember.is_grad_enabled()
                    ember.set_grad_enabled(True)
                assert ember.is_grad_enabled() and not ember.is_inference_mode_enabled()
            return n
        return f

    def trainer(k):
        def f():
            start.wait(TIMEOUT)
            try:
                out = []
                for i in range(40):
                    x = ember.full((5,), float(k + i), requires_grad=True)
                    y = (x * x * x).sum()
                    assert y.requires_grad and y.grad_fn is not None
                    g, = ember.autograd.grad(y, x, create_graph=(i % 2 == 0))
                    assert g.requires_grad == (i % 2 == 0)
                    assert ember.is_grad_enabled()
                    y2 = (x * 2).sum()
                    y2.backward()
                    out.append((g.tolist(), x.grad.tolist()))
                return out
            finally:
                with lock:
                    running[0] -= 1
                    if not running[0]:
                        stop.set()
        return f

    res = run_threads(trainer(0), trainer(1), toggler(0), toggler(1), toggler(2))
    for k in (0, 1):
        for i, (g, xg) in enumerate(res[k]):
            v = float(k + i)
            assert g == [3 * v * v] * 5 and xg == [2.0] * 5
    assert all(n > 1 for n in res[2:])
    assert default_state(ember) == (True, False)


def test_concurrent_backward_on_independent_graphs(fast_switch):
    n, rounds = 6, 25
    rng = np.random.default_rng(0)
    data = [rng.standard_normal((8, 8)).astype(np.float32) for _ in range(n)]

    def build(k):
        w = ember.tensor(data[k], requires_grad=True)
        h = w
        for _ in range(6):
            h = (h @ w).tanh() * 0.5 + h.sin()
        return w, h.sum()

    expected = []
    for k in range(n):
        w, y = build(k)
        y.backward()
        expected.append(w.grad.numpy().copy())

    barrier = threading.Barrier(n)

    def body(k):
        def f():
            for _ in range(rounds):
                w, y = build(k)
                barrier.wait(TIMEOUT)   # every thread enters backward together
                y.backward()
                np.testing.assert_array_equal(w.grad.numpy(), expected[k])
            return True
        return f
    assert all(run_threads(*[body(k) for k in range(n)]))


def test_concurrent_backward_into_shared_leaf_adds_up(fast_switch):
    """Several threads backpropagate through one graph (retain_graph) into one leaf,
    also through a retained non-leaf grad: no gradient is lost."""
    n, rounds = 6, 60
    w = ember.ones(4, requires_grad=True)
    mid = w * 3
    mid.retain_grad()
    y = (mid * mid).sum()
    barrier = threading.Barrier(n)

    def body():
        for _ in range(rounds):
            barrier.wait(TIMEOUT)
            y.backward(retain_graph=True)
    run_threads(*[body] * n)
    total = n * rounds
    assert w.grad.tolist() == [18.0 * total] * 4   # dy/dw = 2 * 3w * 3
    assert mid.grad.tolist() == [6.0 * total] * 4
