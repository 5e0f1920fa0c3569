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
