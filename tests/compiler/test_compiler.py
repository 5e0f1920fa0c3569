"""``ember.compiler`` against ``torch.compiler`` outside compilation: predicates, the
pass-through decorators, ``substitute_in_graph``, ``wrap_numpy``, settings."""
import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings('ignore')


def test_predicates_and_decorators_like_torch():
    for m in (ember, torch):
        C = m.compiler
        assert (C.is_compiling(), C.is_dynamo_compiling(), C.is_exporting()) == (
            False, False, False)

        def f(x):
            return x + 1
        assert C.allow_in_graph(f) is f
        assert C.assume_constant_result(f) is f
        assert C.disable(reason='eager')(f)(1) == 2
        assert C.disable(f)(1) == 2
        assert C.nested_compile_region(f)(1) == 2
        assert C.nested_compile_region()(f)(1) == 2
        assert C.compile(f)(1) == 2
        C.reset()
        C.cudagraph_mark_step_begin()
        with C.set_stance('force_eager'):
            assert f(1) == 2
        assert 'inductor' in C.list_backends()
        assert C.get_default_backend() == 'inductor'


def test_compiled_module_gives_eager_values():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    outs = []
    for m in (ember, torch):
        m.manual_seed(0)
        lin = m.nn.Linear(4, 2)
        outs.append(m.compiler.compile(lin)(m.tensor(x)).detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


def test_guard_collectives_returns_previous():
    for m in (ember, torch):
        C = m.compiler
        assert [C.set_enable_guard_collectives(v) for v in (False, True, False)] == [
            False, False, True]


def test_substitute_in_graph_calls_the_original_eagerly():
    for m in (ember, torch):
        def orig(x, y=1):       # torch registers each original once
            return x + y

        @m.compiler.substitute_in_graph(orig)
        def rep(x, y=1):
            return x * 100
        assert rep(1) == 2 and rep.__name__ == 'rep'
        with pytest.raises(TypeError, match="Signature mismatch"):
            m.compiler.substitute_in_graph(orig)(lambda x: x)
        def orig2(x, y):
            return x - y
        assert m.compiler.substitute_in_graph(orig2, skip_signature_check=True)(
            lambda x: x)(1, 2) == -1
        with pytest.raises(TypeError, match="expects a function"):
            m.compiler.substitute_in_graph(3)


def test_wrap_numpy_like_torch():
    res = []
    for m in (ember, torch):
        @m.compiler.wrap_numpy
        def f(a, scale=1.0):
            return a * scale, [np.sum(a)], {'n': a.shape[0]}
        t, lst, d = f(m.tensor([1., 2.]), scale=3.0)
        res.append((type(t).__name__, t.tolist(), type(lst[0]).__name__, d))
    assert res[0] == res[1]


def _compiled_pair(m):
    m.manual_seed(0)
    lin = m.nn.Linear(2, 3)
    return lin, m.compile(lin, backend='eager')


def test_compile_wraps_modules_like_torch():
    res = []
    for m in (ember, torch):
        lin, c = _compiled_pair(m)
        seen = []
        c.register_forward_hook(lambda mod, i, o: seen.append(type(mod).__name__))
        y = c(m.ones(1, 2))
        c.eval()
        after_eval = (c.training, lin.training)
        c.train()
        c.extra_attr = 3                       # written on the original
        res.append((type(c).__name__, list(c.state_dict()),
                    [n for n, _ in c.named_parameters()], [n for n, _ in c.named_modules()],
                    c._orig_mod is lin, c.weight is lin.weight, c.in_features, seen,
                    after_eval, (c.training, lin.training), getattr(lin, 'extra_attr', None),
                    repr(c), list(m.nn.Sequential(c).state_dict()),
                    y.detach().numpy().round(6).tolist()))
    assert res[0] == res[1]


def test_compiled_state_dict_loads_in_torch(tmp_path):
    _, c = _compiled_pair(ember)
    ember.save(c.state_dict(), tmp_path / 'c.pt')
    _, tc = _compiled_pair(torch)
    sd = torch.load(tmp_path / 'c.pt')
    assert list(sd) == list(tc.state_dict())
    tc.load_state_dict(sd)
    np.testing.assert_array_equal(tc._orig_mod.weight.detach().numpy(),
                                  c._orig_mod.weight.detach().numpy())


def test_compile_functions_and_module_compile():
    for m in (ember, torch):
        def f(x):
            return x * 2
        cf = m.compile(f, backend='eager')
        assert cf is not f and cf._torchdynamo_orig_callable is f and cf(3) == 6
        assert m.compile(f, disable=True) is f
        lin = m.nn.Linear(2, 2)
        assert lin.compile(backend='eager') is None
        assert list(lin.state_dict()) == ['weight', 'bias']
        assert lin._compiled_call_impl is not None


def _entries(m):
    from types import SimpleNamespace as E

    def src(nn, builtin):
        return E(is_unspecialized_nn_module=lambda: nn,
                 is_unspecialized_builtin_nn_module=lambda: builtin)
    return [E(guard_type=gt, is_global=g, value=v, orig_guard=E(source=src(nn, b)))
            for gt, g, v, nn, b in [
                ('TENSOR_MATCH', False, m.ones(1), False, False),
                ('TENSOR_MATCH', True, m.nn.Parameter(m.ones(1)), True, True),
                ('TENSOR_MATCH', False, m.nn.Parameter(m.ones(1)), True, False),
                ('GLOBAL_STATE', True, None, False, False),
                ('SHAPE_ENV', False, None, False, False),
                ('ID_MATCH', True, None, True, False),
                ('ID_MATCH', False, None, False, False)]]


@pytest.mark.parametrize('name', ['keep_portable_guards_unsafe', 'keep_tensor_guards_unsafe',
                                  'skip_all_guards_unsafe',
                                  'skip_guard_on_all_nn_modules_unsafe',
                                  'skip_guard_on_globals_unsafe',
                                  'skip_guard_on_inbuilt_nn_modules_unsafe'])
def test_guard_filters_like_torch(name):
    e = getattr(ember.compiler, name)(_entries(ember))
    t = getattr(torch.compiler, name)(_entries(torch))
    assert e == t
    if name == 'keep_tensor_guards_unsafe':
        assert ember.compiler.keep_tensor_guards_unsafe(_entries(ember), keep_parameters=True) \
            == torch.compiler.keep_tensor_guards_unsafe(_entries(torch), keep_parameters=True)


def test_cache_artifacts_none_without_compiled_code():
    import subprocess
    import sys
    assert ember.compiler.save_cache_artifacts() is None
    code = "import torch; print(torch.compiler.save_cache_artifacts())"   # nothing compiled
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.strip() == 'None', r.stderr
    assert ember.compiler.load_cache_artifacts(b'') is None
    with pytest.raises(TypeError):
        ember.compiler.load_cache_artifacts('not bytes')


def test_guard_filter_option_accepted():
    lin = ember.nn.Linear(2, 2)
    c = ember.compile(lin, options={'guard_filter_fn': ember.compiler.skip_guard_on_globals_unsafe})
    assert c(ember.ones(1, 2)).shape == (1, 2)
