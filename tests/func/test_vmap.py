"""ember.func.vmap, functional_call and stack_module_state vs torch.func (incl. the
per-sample-gradient and model-ensembling recipes)."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(1)


def close(a, b, tol=1e-10):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            close(a[k], b[k], tol)
        return
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


def test_vmap_in_out_dims_nested():
    a, b, c = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 3)), RNG.standard_normal(4)
    res = []
    for T in (torch, ember):
        x, y, v = T.tensor(a), T.tensor(b), T.tensor(c)
        vm = T.func.vmap
        r = [vm(T.dot)(x, y.T),
             vm(T.dot, in_dims=(0, None))(x, v),
             vm(T.dot, in_dims=(1, None))(y, v),
             vm(lambda p, q: (p * q, p.sum()), in_dims=(0, 1), out_dims=(1, 0))(x, y),
             vm(vm(lambda p, q: p * q, in_dims=(0, None)), in_dims=(None, 0))(v, x),
             vm(lambda d: d['a'] @ d['b'], in_dims=({'a': 0, 'b': None},))({'a': x, 'b': v}),
             vm(lambda p, k: p * k, in_dims=(0, None))(x, 3.0),
             vm(lambda p: p.sum(), in_dims=-1)(x),
             vm(lambda p, s: p * s, chunk_size=2)(x, v[:3]),
             vm(lambda p: (p, 5), out_dims=(0, None))(v)]
        res.append(r)
    close(res[0][:-1], res[1][:-1])
    assert res[1][-1][1] == 5


def test_vmap_errors_like_torch():
    for T in (torch, ember):
        vm = T.func.vmap
        with pytest.raises(ValueError, match='same size in the mapped dimension'):
            vm(lambda x, y: x + y)(T.randn(3), T.randn(4))
        with pytest.raises(ValueError, match='expected in_dim to satisfy -1 <= in_dim < 1'):
            vm(lambda x: x.sum(), in_dims=2)(T.randn(3))
        with pytest.raises(RuntimeError, match='randomness error mode'):
            vm(lambda x: T.rand(2) + x)(T.randn(3, 2))
        with pytest.raises(ValueError, match='must only return Tensors'):
            vm(lambda x: 1.0)(T.randn(3))
        with pytest.raises(ValueError, match='in_dims is not compatible'):
            vm(lambda x, y: x, in_dims=(0,))(T.randn(3), T.randn(3))


def test_vmap_randomness_same_different():
    e = ember.func.vmap(lambda x: ember.rand(2) + x * 0, randomness='same')(ember.zeros(3, 2))
    assert (e[0] == e[1]).all() and (e[1] == e[2]).all()
    d = ember.func.vmap(lambda x: ember.rand(2) + x * 0, randomness='different')(ember.zeros(3, 2))
    assert not (d[0] == d[1]).all()


def test_vmap_of_jacrev_and_grad():
    a = RNG.standard_normal((5, 3))
    res = []
    for T in (torch, ember):
        x = T.tensor(a)
        res.append(T.func.vmap(T.func.jacrev(lambda v: v.sin() * v.sum()))(x))
        res.append(T.func.vmap(T.func.grad(lambda v: (v ** 3).sum()))(x))
        res.append(T.func.jacrev(T.func.vmap(lambda v: (v.exp() * v).sum()))(x))
    close(res[:3], res[3:])


def _mlp(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(784, 128), T.nn.ReLU(), T.nn.Linear(128, 10))


def _per_sample_grads(T, B=8):
    model = _mlp(T)
    g = np.random.default_rng(5)
    x = T.tensor(g.standard_normal((B, 784)).astype(np.float32))
    y = T.tensor(g.integers(0, 10, B))
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def loss(params, buffers, sample, target):
        out = T.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return T.nn.functional.cross_entropy(out, target.unsqueeze(0))
    return T.func.vmap(T.func.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)


def test_per_sample_gradients_recipe():
    close(_per_sample_grads(torch), _per_sample_grads(ember), tol=1e-5)


def test_model_ensembling_recipe(spy):
    res = []
    g = np.random.default_rng(2)
    data = g.standard_normal((4, 6, 5)).astype(np.float32)
    for T in (torch, ember):
        T.manual_seed(0)
        models = [T.nn.Sequential(T.nn.Linear(5, 7), T.nn.Tanh(), T.nn.Linear(7, 3))
                  for _ in range(4)]
        params, buffers = T.func.stack_module_state(models)
        assert params['0.weight'].requires_grad and params['0.weight'].is_leaf
        base = models[0]

        def fmodel(params, buffers, x):
            return T.func.functional_call(base, (params, buffers), (x,))
        x = T.tensor(data)
        same_minibatch = T.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x[0])
        different = T.func.vmap(fmodel)(params, buffers, x)
        different.sum().backward()
        res.append((params, same_minibatch, different, params['2.bias'].grad))
    close(res[0], res[1], tol=1e-5)
    assert spy == [True, True]


def test_functional_call_dicts_and_errors():
    res = []
    for T in (torch, ember):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2))
        w = T.ones(2, 3, requires_grad=True)
        x = T.arange(12.).reshape(4, 3)
        out = T.func.functional_call(m, ({'0.weight': w}, {'1.running_mean': T.ones(2)}), x)
        out.sum().backward()
        res.append((out, w.grad, m[0].weight))
        with pytest.raises(ValueError, match='appeared in multiple dictionaries'):
            T.func.functional_call(m, ({'0.weight': w}, {'0.weight': w}), (x,))
        with pytest.raises(RuntimeError, match='Missing key'):
            T.func.functional_call(m, {'0.weight': w}, (x,), strict=True)
        out2 = T.func.functional_call(m, {'0.weight': w}, (), {'input': x})
        res.append(out2)
    close(res[0], res[2], tol=1e-5)
    close(res[1], res[3], tol=1e-5)


def test_stack_module_state_errors():
    for T in (torch, ember):
        with pytest.raises(RuntimeError, match='Expected at least one model'):
            T.func.stack_module_state([])
        a, b = T.nn.Linear(2, 2), T.nn.Linear(2, 2).eval()
        with pytest.raises(RuntimeError, match='same training/eval mode'):
            T.func.stack_module_state([a, b])


@pytest.fixture
def spy(monkeypatch):
    import ember.func._vmap as V
    seen = []
    orig = V._try_batched

    def tb(*a, **k):
        r = orig(*a, **k)
        seen.append(r is not None)
        return r
    monkeypatch.setattr(V, '_try_batched', tb)
    return seen


def test_batched_fast_path_used_and_correct(spy):
    a, b, w = RNG.standard_normal((5, 3, 4)), RNG.standard_normal((5, 4)), RNG.standard_normal((6, 4))
    fns = [
        lambda T: (lambda x, v: (x @ v).softmax(-1).sum(), (0, 0)),
        lambda T: (lambda x, v: T.nn.functional.linear(x, T.tensor(w), None).relu().mean(0), (0, None)),
        lambda T: (lambda x, v: (x * v).logsumexp(1).unsqueeze(0).expand(2, 3).t().reshape(-1), (0, 0)),
        lambda T: (lambda x, v: T.nn.functional.mse_loss(x.sum(0), v), (0, 0)),
        lambda T: (lambda x, v: (x.permute(1, 0).flatten() ** 2, v.tanh()), (0, 0)),
    ]
    for mk in fns:
        spy.clear()
        res = []
        for T in (torch, ember):
            f, dims = mk(T)
            v = T.tensor(b) if dims[1] == 0 else T.tensor(b[0])
            res.append(T.func.vmap(f, in_dims=dims)(T.tensor(a), v))
        close(res[0], res[1])
        assert spy == [True]


def test_batched_path_falls_back(spy):
    x = ember.randn(4, 3)
    calls = []

    def uses_shape(v):           # a shape query the batched attempt would get wrong
        calls.append(1)
        return v.reshape(v.shape[0], 1) * 2
    r = ember.func.vmap(uses_shape)(x)
    np.testing.assert_allclose(r.numpy(), x.numpy().reshape(4, 3, 1) * 2, rtol=1e-6)
    assert spy == [False]
    spy.clear()
    r = ember.func.vmap(lambda v: v.sort()[0])(x)          # no batching rule
    np.testing.assert_allclose(r.numpy(), np.sort(x.numpy(), 1))
    assert spy == [False]
    spy.clear()
    buf = ember.zeros(3)
    ember.func.vmap(lambda v: buf.add_(1) + v)(x)            # in-place: loop only, 4 updates
    assert buf.tolist() == [4., 4., 4.] and spy == [False]
    spy.clear()

    def setitem(v):
        buf[0] += 1
        return v * 2
    ember.func.vmap(setitem)(x)
    assert buf.tolist() == [8., 4., 4.] and spy == [False]


def test_per_sample_gradients_batched(spy):
    close(_per_sample_grads(torch, 16), _per_sample_grads(ember, 16), tol=1e-5)
    assert spy == [True]


def test_batched_second_order_per_sample(spy):
    g = np.random.default_rng(0)
    W, X = g.standard_normal((3, 4)), g.standard_normal((5, 4))
    res = []
    for T in (torch, ember):
        w, x = T.tensor(W), T.tensor(X)
        inner = T.func.grad(lambda w, x: T.nn.functional.linear(x.unsqueeze(0), w).tanh().sum())
        res.append(T.func.vmap(T.func.grad(lambda w, x: (inner(w, x) ** 2).sum()),
                               in_dims=(None, 0))(w, x))
    close(res[0], res[1])
    assert spy == [True]


def test_rule_covered_function_runs_once_like_torch():
    # when every op on a batched tensor goes through a batching rule and nothing reads a
    # batched tensor's shape, vmap runs the function once (as torch does), without the
    # guard's per-sample run; a shape query brings the guard (and the right answer) back
    x = RNG.standard_normal((6, 4))
    counts = []
    for T in (torch, ember):
        calls = []

        def f(v, T=T, calls=calls):
            calls.append(1)
            return T.nn.functional.linear(v, T.ones(3, 4, dtype=v.dtype)).relu().sum()
        r = T.func.vmap(f)(T.tensor(x))
        counts.append(len(calls))
        np.testing.assert_allclose(r.numpy(), np.maximum(x @ np.ones((4, 3)), 0).sum(1))
    assert counts[1] == counts[0] == 1
    calls = []

    def g(v):
        calls.append(1)
        return v.reshape(v.shape[-1], 1)   # the batched attempt sees the batch dim here
    r = ember.func.vmap(g)(ember.tensor(x))
    np.testing.assert_allclose(r.numpy(), x.reshape(6, 4, 1))
    assert len(calls) > 1


def test_bindings_linger_after_vmap_then_return_to_plain():
    from ember._ops import _dispatch
    _dispatch.settle()
    raw_add = ember.add
    assert not _dispatch.observing()
    ember.func.vmap(lambda v: v * 2)(ember.ones(3, 2))
    # a loop of vmap calls keeps the observing bindings instead of rebinding every op twice
    assert _dispatch.observing() and ember.add is not raw_add
    x = ember.ones(2)
    for _ in range(_dispatch._LINGER_CALLS + 1):
        x.add(1)
    assert not _dispatch.observing() and ember.add is raw_add
    ember.func.vmap(lambda v: v * 2)(ember.ones(3, 2))
    _dispatch.settle()
    assert not _dispatch.observing() and ember.add is raw_add


def test_rebound_name_survives_switching_bindings(monkeypatch):
    from ember._ops import _dispatch
    _dispatch.settle()
    raw = ember.nn.functional.relu

    def my_relu(x, inplace=False):
        return raw(x) * 3
    monkeypatch.setattr(ember.nn.functional, 'relu', my_relu)
    ember.func.vmap(lambda v: v * 2)(ember.ones(3, 2))   # observing, lingering
    _dispatch.settle()                                    # plain again
    assert ember.nn.functional.relu is my_relu
    assert ember.nn.functional.relu(ember.tensor([-1., 1.])).tolist() == [0., 3.]
    monkeypatch.undo()                                    # the user restores the op
    ember.func.vmap(lambda v: v * 2)(ember.ones(3, 2))
    assert ember.nn.functional.relu is not raw            # observed again while lingering
    _dispatch.settle()
    assert ember.nn.functional.relu is raw


_G = np.random.default_rng(11)
_IMG = _G.standard_normal((3, 2, 6, 6))           # vmapped over 3 samples of (2, 6, 6)
_IMGS = _G.standard_normal((3, 4, 2, 6, 6))       # 3 samples of a batch of 4 images
_W = _G.standard_normal((5, 2, 3, 3))
_V = _G.standard_normal((3, 4, 5))
_IDX = np.array([2, 0, 3])


def _rule_cases():
    F = lambda T: T.nn.functional  # noqa: E731
    return [
        # indexing
        (lambda T: lambda x: x[1], _V),
        (lambda T: lambda x: x[:, 1:4:2], _V),
        (lambda T: lambda x: x[None, ..., 0], _V),
        (lambda T: lambda x: x[T.tensor(_IDX)], _V),
        (lambda T: lambda x: x[1:, T.tensor([4, 0])], _V),
        (lambda T: lambda x: x.index_select(1, T.tensor([4, 1, 1])), _V),
        (lambda T: lambda x: x.gather(1, T.tensor([[0, 1], [2, 2], [4, 3], [1, 0]])), _V),
        # joining and splitting
        (lambda T: lambda x: T.cat([x, T.ones(4, 5, dtype=x.dtype)], 0), _V),
        (lambda T: lambda x: T.stack([x, x * 2], -1), _V),
        (lambda T: lambda x: T.cat(x.split(2, 1)[::-1], 1), _V),
        (lambda T: lambda x: x.chunk(2, 0)[1] + x.unbind(0)[2], _V),
        # layers with shared weights
        (lambda T: lambda x: F(T).conv2d(x, T.tensor(_W), None, 1, 1), _IMG),
        (lambda T: lambda x: F(T).conv2d(x, T.tensor(_W), T.tensor(_W[:, 0, 0, 0]), 2), _IMGS),
        (lambda T: lambda x: F(T).max_pool2d(x, 2), _IMGS),
        (lambda T: lambda x: F(T).avg_pool2d(x, 3, 1, 1), _IMG),
        (lambda T: lambda x: F(T).adaptive_avg_pool2d(x, (2, 3)), _IMGS),
        (lambda T: lambda x: F(T).layer_norm(x, (5,), T.tensor(_W[0, 0, 0, :3].repeat(2)[:5]),
                                             None), _V),
        (lambda T: lambda i: F(T).embedding(i, T.tensor(_V[0])),
         np.array([[1, 0, 2, 3], [3, 3, 0, 1], [2, 2, 2, 2]])),
        # element-wise and class losses, per-sample reductions
        (lambda T: lambda x: F(T).l1_loss(x, T.zeros(4, 5, dtype=x.dtype)), _V),
        (lambda T: lambda x: F(T).smooth_l1_loss(x, x * 0.5, reduction='sum', beta=0.5), _V),
        (lambda T: lambda x: F(T).binary_cross_entropy_with_logits(
            x, T.ones(4, 5, dtype=x.dtype) * 0.3), _V),
        (lambda T: lambda x: F(T).binary_cross_entropy(x.sigmoid(), T.ones(4, 5, dtype=x.dtype)
                                                       * 0.7, reduction='none'), _V),
        (lambda T: lambda x: F(T).nll_loss(x.log_softmax(1), T.tensor([1, 0, 4, 2])), _V),
        (lambda T: lambda x: F(T).mse_loss(x, x.mean(0, keepdim=True).expand(4, 5)), _V),
    ]


@pytest.mark.parametrize('i', range(len(_rule_cases())))
def test_batching_rules_match_torch_in_one_batched_call(i, spy):
    mk, data = _rule_cases()[i]
    res = [T.func.vmap(mk(T))(T.tensor(data)) for T in (torch, ember)]
    close(res[0], res[1], tol=1e-9)
    assert spy == [True]


def test_batching_rules_grad_of_conv_per_sample():
    w, x = _W, _IMG

    def run(T):
        F = T.nn.functional

        def loss(w, x):
            return F.max_pool2d(F.conv2d(x.unsqueeze(0), w, None, 1, 1).relu(), 2).sum()
        return T.func.vmap(T.func.grad(loss), in_dims=(None, 0))(T.tensor(w), T.tensor(x))
    close(run(torch), run(ember), tol=1e-9)


@pytest.mark.parametrize('case', range(7))
def test_vmap_type_promotion_sees_samples_as_0_dim(case):
    """A sample of rank 0 promotes as a 0-dim tensor (the batched rule must not treat the
    batch that holds it as dimensioned)."""
    def run(m):
        c = m.tensor(2.0, dtype=m.float64)
        w = m.tensor([1.5, 2.5, 3.5], dtype=m.float32)
        fns = [(lambda s: s * c, m.ones(3)),
               (lambda s: s + m.tensor(1, dtype=m.int64), m.ones(3, dtype=m.int32)),
               (lambda s: s * w, m.ones(4, dtype=m.float64)),
               (lambda s: c * s, m.ones(3)),
               (lambda s: s > c, m.full((3,), 2.5)),
               (lambda s: s * c, m.ones(3, 2)),
               (lambda s: m.maximum(s, c), m.arange(3.))]
        f, x = fns[case]
        r = m.vmap(f)(x)
        return str(r.dtype).split('.')[-1], r.tolist()
    assert run(ember) == run(torch)
