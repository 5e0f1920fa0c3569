"""ember.export compared with torch.export: the structure of the exported program
(placeholders, signature, outputs, state, ranges), the module's outputs against the eager
ember module, dynamic shapes and their errors, and the .pt2 archive's round trip and its
refusal of hostile files."""
import io
import json
import zipfile

import numpy as np
import pytest
import torch

import ember
from ember.export import Dim, export
from ember.export._serialize import SerializeError


@pytest.fixture(autouse=True, scope='module')
def _restore_rng():
    """The tests build modules (and seed): both libraries' global RNG states are put back."""
    states = ember.get_rng_state(), torch.get_rng_state()
    yield
    ember.set_rng_state(states[0])
    torch.set_rng_state(states[1])


def _both(src):
    """Build the module ``src`` defines (names: ``nn``, ``torch``) under both libraries,
    with torch's weights copied into ember's."""
    out = []
    for lib in (torch, ember):
        ns = {'torch': lib, 'nn': lib.nn}
        exec(src, ns)
        out.append(ns['m'])
    t, e = out
    sd = {k: _e(v.detach().numpy()) for k, v in t.state_dict().items()}
    e.load_state_dict(sd)
    return e, t


def _e(a):
    """An ember tensor of numpy array ``a`` (made by ember's factory, so that it lives on
    the CPU device's array module, the strict one under --strict-backend)."""
    return ember.tensor(a.tolist(), dtype=getattr(ember, str(a.dtype)))


def _arr(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _pair(a):
    return _e(a), torch.from_numpy(a.copy())


LINEAR = '''
class M(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(4, 3); self.relu = nn.ReLU()
    def forward(self, x):
        return self.relu(self.lin(x))
m = M()
'''

CONVBN = '''
m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
m.train()
'''

STATE = '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('nb', torch.ones(2), persistent=False)
        self.c = torch.ones(2) * 3
    def forward(self, x):
        return x + self.nb + self.c + torch.ones(2)
m = M()
'''

NESTED = '''
class M(nn.Module):
    def forward(self, xs, d, *, scale=None):
        return xs[0] + xs[1] * d['a'] + scale, xs[0].sum()
m = M()
'''

VIEW = '''
class M(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(4, 3)
    def forward(self, x):
        return self.lin(x).view(x.shape[0], -1).relu()
m = M()
'''


def _structure(ep):
    sig = ep.graph_signature
    return {
        'placeholders': [n.target for n in ep.graph.nodes if n.op == 'placeholder'],
        'inputs': [(s.kind.name, s.arg.name, s.target, s.persistent)
                   for s in sig.input_specs],
        'output_kinds': [(s.kind.name, s.target) for s in sig.output_specs],
        'parameters': sig.parameters, 'buffers': sig.buffers,
        'user_inputs': sig.user_inputs,
        'inputs_to_parameters': dict(sig.inputs_to_parameters),
        'inputs_to_buffers': dict(sig.inputs_to_buffers),
        'non_persistent_buffers': sig.non_persistent_buffers,
        'lifted_tensor_constants': sig.lifted_tensor_constants,
        'state_dict': list(ep.state_dict), 'constants': sorted(ep.constants),
        'range_constraints': [(r.lower, str(r.upper)) for r in ep.range_constraints.values()],
        'call_graph': [e.fqn for e in ep.module_call_graph],
        'forward_arg_names': ep.module_call_graph[0].signature.forward_arg_names,
        'example_kwargs': sorted(ep.example_inputs[1]),
    }


@pytest.fixture(scope='module')
def linear():
    e, t = _both(LINEAR)
    xe, xt = _pair(_arr((2, 4)))
    return e, export(e, (xe,)), torch.export.export(t, (xt,))


@pytest.fixture(scope='module')
def convbn():
    e, t = _both(CONVBN)
    xe, xt = _pair(_arr((2, 1, 5, 5)))
    return e, export(e, (xe,)), torch.export.export(t, (xt,))


def test_linear_structure_as_torch(linear):
    e, ep, tp = linear
    assert _structure(ep) == _structure(tp)
    assert str(ep.graph_signature) == str(tp.graph_signature)
    assert ep.graph_signature.user_outputs == tp.graph_signature.user_outputs == ('relu',)
    assert [n.name for n in ep.graph.nodes] == [n.name for n in tp.graph.nodes]
    # the printed program has torch's layout (only the ops' names differ)
    s = str(ep)
    assert s.startswith('ExportedProgram:\n    class GraphModule(torch.nn.Module):\n'
                        '        def forward(self, p_lin_weight: "f32[3, 4]", '
                        'p_lin_bias: "f32[3]", x: "f32[2, 4]"):')
    assert s.split('Graph signature: ')[1] == str(tp).split('Graph signature: ')[1]


def test_linear_module_matches_eager(linear):
    e, ep, tp = linear
    m = ep.module()
    x = _e(_arr((2, 4), seed=3))
    assert ember.equal(m(x), e(x))
    assert list(m.state_dict()) == list(tp.module().state_dict())
    assert m.lin.weight is e.lin.weight      # shared, as in torch
    import copy
    m2 = copy.deepcopy(m)
    assert m2.lin.weight is not e.lin.weight and ember.equal(m2(x), e(x))
    with pytest.raises(ValueError):
        m2(x, x)
    assert ep.state_dict['lin.weight'] is e.lin.weight


def test_module_outputs_structure_and_mode_as_torch():
    src = '''
class M(nn.Module):
    def __init__(self):
        super().__init__(); self.bn = nn.BatchNorm1d(2)
    def forward(self, x):
        return {'a': self.bn(x), 'n': None, 'k': 3, 't': (x.sum(), 2.5)}
m = M()
'''
    e, t = _both(src)
    xe, xt = _pair(_arr((3, 2)))
    ep, tp = export(e, (xe,)), torch.export.export(t, (xt,))
    assert str(ep.graph_signature) == str(tp.graph_signature)
    out = ep.module()(xe)
    assert list(out) == ['a', 'n', 'k', 't'] and out['n'] is None and out['k'] == 3
    assert ember.allclose(out['t'][0], xe.sum()) and out['t'][1] == 2.5
    for name in ('train', 'eval'):
        with pytest.raises(NotImplementedError) as a:
            getattr(ep.module(), name)()
        with pytest.raises(NotImplementedError) as b:
            getattr(tp.module(), name)()
        assert str(a.value) == str(b.value)


def test_preserved_module_call_signature_as_torch():
    e, t = _both(LINEAR)
    xe, xt = _pair(_arr((2, 4)))
    ep = export(e, (xe,), preserve_module_call_signature=('lin',))
    tp = torch.export.export(t, (xt,), preserve_module_call_signature=('lin',))
    assert repr(ep.module_call_graph[1]) == repr(tp.module_call_graph[1])
    assert ep.module_call_graph[2].signature is None
    ep2 = ember.export.load(io.BytesIO(_roundtrip(ep)))
    assert repr(ep2.module_call_graph) == repr(ep.module_call_graph)
    import copy
    ep3 = copy.deepcopy(ep)
    assert str(ep3) == str(ep) and ep3.state_dict['lin.weight'] is not e.lin.weight


def test_call_raises_as_torch(linear):
    e, ep, tp = linear
    x, xt = _pair(_arr((2, 4)))
    with pytest.raises(RuntimeError) as a:
        ep(x)
    with pytest.raises(RuntimeError) as b:
        tp(xt)
    assert str(a.value) == str(b.value)


def test_convbn_training_ir_and_decompositions(convbn):
    e, ep, tp = convbn
    assert _structure(ep) == _structure(tp)
    assert str(ep.graph_signature) == str(tp.graph_signature)
    # export leaves the module's state as it was (BatchNorm's statistics untouched)
    assert int(e[1].num_batches_tracked) == 0
    assert float(e[1].running_mean.abs().sum()) == 0
    ed, td = ep.run_decompositions(), tp.run_decompositions()
    assert _structure(ed) == _structure(td)
    assert list(ed.graph_signature.buffers_to_mutate.values()) == \
        list(td.graph_signature.buffers_to_mutate.values())
    assert [s.kind.name for s in ed.graph_signature.output_specs] == \
        ['BUFFER_MUTATION'] * 3 + ['USER_OUTPUT']
    assert ep.graph_signature.buffers_to_mutate == {}      # training IR: mutations in place
    # no in-place op is left in the functional graph
    assert not any(getattr(n.target, '__name__', '').endswith('_')
                   for n in ed.graph.nodes if n.op == 'call_function')


def test_convbn_module_updates_buffers_as_eager():
    import copy
    for decompose in (False, True):
        e, _ = _both(CONVBN)
        ref = copy.deepcopy(e)
        ep = export(e, (_e(_arr((2, 1, 5, 5))),))
        if decompose:
            ep = ep.run_decompositions()
        m = ep.module()
        for s in (1, 2):
            x = _e(_arr((2, 1, 5, 5), seed=s))
            assert ember.allclose(m(x), ref(x))
        for k, v in ref.state_dict().items():
            assert ember.allclose(m.state_dict()[k].double(), v.double()), k
            assert ember.allclose(e.state_dict()[k].double(), v.double()), k


def test_nonpersistent_buffer_and_constants_as_torch():
    e, t = _both(STATE)
    xe, xt = _pair(_arr((2,)))
    ep, tp = export(e, (xe,)), torch.export.export(t, (xt,))
    assert _structure(ep) == _structure(tp)
    assert str(ep.graph_signature) == str(tp.graph_signature)
    m = ep.module()
    assert list(m.state_dict()) == list(tp.module().state_dict()) == []
    assert [k for k, _ in m.named_buffers()] == [k for k, _ in tp.module().named_buffers()]
    assert ember.equal(m(xe), e(xe))


def test_nested_inputs_names_and_output_structure():
    e, t = _both(NESTED)
    a, b, c, d = (_pair(_arr((2,), seed=i)) for i in range(4))
    ep = export(e, ([a[0], b[0]], {'a': c[0]}), {'scale': d[0]})
    tp = torch.export.export(t, ([a[1], b[1]], {'a': c[1]}), {'scale': d[1]})
    assert _structure(ep) == _structure(tp)
    args = ([b[0], a[0]], {'a': d[0]})
    out, ref = ep.module()(*args, scale=c[0]), e(*args, scale=c[0])
    assert isinstance(out, tuple) and len(out) == 2
    assert all(ember.equal(x, y) for x, y in zip(out, ref))


def test_module_call_checks_structure_as_torch(linear):
    class M2(torch.nn.Module):
        def forward(self, x, y):
            return x + y
    ex = ember.ones(2)
    ep = export(_Add(), (ex, ex))
    tp = torch.export.export(M2(), (torch.ones(2), torch.ones(2)))
    for call in (lambda m, lib: m(lib.ones(2)),
                 lambda m, lib: m(lib.ones(2), y=lib.ones(2))):
        with pytest.raises(ValueError) as a:
            call(ep.module(), ember)
        with pytest.raises(ValueError) as b:
            call(tp.module(), torch)
        assert str(a.value).split(':')[0] == str(b.value).split(':')[0]


class _Add(ember.nn.Module):
    def forward(self, x, y):
        return x + y


def test_number_input_is_specialized_as_torch():
    class E(ember.nn.Module):
        def forward(self, x, n):
            return x * n

    class T(torch.nn.Module):
        def forward(self, x, n):
            return x * n
    ep = export(E(), (ember.ones(2), 3))
    tp = torch.export.export(T(), (torch.ones(2), 3))
    assert _structure(ep) == _structure(tp)
    assert [type(s.arg).__name__ for s in ep.graph_signature.input_specs] == \
        [type(s.arg).__name__ for s in tp.graph_signature.input_specs]
    assert ember.equal(ep.module()(ember.ones(2), 3), ember.full((2,), 3.))
    with pytest.raises(AssertionError) as a:
        ep.module()(ember.ones(2), 4)
    with pytest.raises(AssertionError) as b:
        tp.module()(torch.ones(2), 4)
    assert str(a.value) == str(b.value)


# -- dynamic shapes -------------------------------------------------------------------------
def test_dim_repr_and_errors_as_torch():
    for kw in ({}, {'min': 2}, {'min': 3}, {'max': 10}, {'min': 0, 'max': 5}):
        assert repr(Dim('a', **kw)) == repr(torch.export.Dim('a', **kw))
        assert (Dim('a', **kw).min, str(Dim('a', **kw).max)) == \
            (torch.export.Dim('a', **kw).min, str(torch.export.Dim('a', **kw).max))
    for h in ('AUTO', 'STATIC', 'DYNAMIC'):
        assert repr(getattr(Dim, h)) == repr(getattr(torch.export.Dim, h))
    assert [repr(d) for d in ember.export.dims('a', 'b', min=2)] == \
        [repr(d) for d in torch.export.dims('a', 'b', min=2)]
    b = Dim('b', min=2, max=64)
    tb = torch.export.Dim('b', min=2, max=64)
    assert str(b + 1) == str(tb + 1) and str(2 * b) == str(2 * tb)
    with pytest.raises(AssertionError, match='inconsistent min=5, max=2'):
        Dim('x', min=5, max=2)
    with pytest.raises(AssertionError, match='inconsistent min=5, max=2'):
        torch.export.Dim('x', min=5, max=2)
    for lib in (ember, torch):
        b = lib.export.Dim('b')
        assert str(b - 1) == 'b - 1'
    for make in (lambda lib: lib.export.Dim('1a'), lambda lib: lib.export.Dim('b') + 1.5,
                 lambda lib: lib.export.Dim('b') * 0, lambda lib: 3 - lib.export.Dim('b')):
        errs = []
        for lib in (ember, torch):
            with pytest.raises((AssertionError, NotImplementedError)) as info:
                make(lib)
            errs.append((type(info.value), str(info.value)))
        assert errs[0] == errs[1]


@pytest.fixture(scope='module')
def dynamic():
    e, t = _both(VIEW)
    xe, xt = _pair(_arr((3, 4)))
    ep = export(e, (xe,), dynamic_shapes={'x': {0: Dim('batch', min=2, max=64)}})
    tp = torch.export.export(t, (xt,), dynamic_shapes={
        'x': {0: torch.export.Dim('batch', min=2, max=64)}})
    return e, t, ep, tp


def test_dynamic_dim_structure_and_run(dynamic):
    e, t, ep, tp = dynamic
    assert _structure(ep) == _structure(tp)
    (r,) = ep.range_constraints.values()
    assert repr(r) == 'VR[2, 64]'
    assert 'x: "f32[s0, 4]"' in str(ep) and 'relu: "f32[s0, 3]"' in str(ep)
    # the size read in forward is recorded, not baked in
    assert any(getattr(n.target, '__name__', '') == 'sym_size' for n in ep.graph.nodes)
    m = ep.module()
    for n in (5, 64, 2):
        x = _e(_arr((n, 4), seed=n))
        assert ember.equal(m(x), e(x))


def test_dynamic_guards_as_torch(dynamic):
    e, t, ep, tp = dynamic
    static = export(e, (ember.ones(3, 4),))
    tstatic = torch.export.export(t, (torch.ones(3, 4),))
    for prog, tprog, shape in ((ep, tp, (5, 5)), (ep, tp, (65, 4)),
                               (static, tstatic, (5, 4))):
        with pytest.raises(AssertionError) as a:
            prog.module()(ember.ones(*shape))
        with pytest.raises(AssertionError) as b:
            tprog.module()(torch.ones(*shape))
        assert str(a.value) == str(b.value)           # 'Guard failed: x.size()[0] <= 64'


def test_dynamic_min_and_equal_dims_guards_as_torch():
    class A(ember.nn.Module):
        def forward(self, x, y):
            return x + y

    class B(torch.nn.Module):
        def forward(self, x, y):
            return x + y
    d, td = Dim('n', min=3, max=10), torch.export.Dim('n', min=3, max=10)
    ep = export(A(), (ember.ones(4, 2), ember.ones(4, 2)), dynamic_shapes=({0: d}, {0: d}))
    tp = torch.export.export(B(), (torch.ones(4, 2), torch.ones(4, 2)),
                             dynamic_shapes=({0: td}, {0: td}))
    assert len(ep.range_constraints) == len(tp.range_constraints) == 1
    assert ep.module()(ember.ones(7, 2), ember.ones(7, 2)).shape == (7, 2)
    for shapes in (((2, 2), (2, 2)), ((5, 2), (6, 2))):
        with pytest.raises(AssertionError) as a:
            ep.module()(*(ember.ones(*s) for s in shapes))
        with pytest.raises(AssertionError) as b:
            tp.module()(*(torch.ones(*s) for s in shapes))
        assert str(a.value) == str(b.value)


def _spec_error(lib, spec, shapes=((3, 4), (3,))):
    class M(lib.nn.Module):
        def forward(self, x, y):
            return x.sum() + y
    args = tuple(lib.ones(*s) for s in shapes)
    try:
        lib.export.export(M(), args, dynamic_shapes=spec(lib))
    except Exception as exc:   # noqa: BLE001 - compared below
        return type(exc).__name__, str(exc).split('For more information')[0].strip()
    return None


@pytest.mark.parametrize('spec', [
    lambda lib: {'y': {0: lib.export.Dim('b')}},
    lambda lib: ({0: lib.export.Dim('b')},),
    lambda lib: ({0: 'q'}, None),
    lambda lib: ({5: lib.export.Dim('b')}, None),
    lambda lib: ([lib.export.Dim('b')], None),
    lambda lib: ({0: lib.export.Dim('a', min=5)}, None),
    lambda lib: ({0: lib.export.Dim('a', max=2)}, None),
    lambda lib: ({0: 4}, None),
    lambda lib: ({0: 2 * lib.export.Dim('a')}, None),
    lambda lib: ({0: lib.export.Dim('a')}, {0: lib.export.Dim('a', max=9)}),
], ids=['keys', 'length', 'value', 'index', 'rank', 'min', 'max', 'static', 'derived',
        'redefined'])
def test_dynamic_shapes_spec_errors_as_torch(spec):
    got, want = _spec_error(ember, spec), _spec_error(torch, spec)
    assert want is not None and got == want


def test_dynamic_hints_and_derived_dims_as_torch():
    for spec in (lambda lib: ({0: lib.export.Dim.AUTO, 1: lib.export.Dim.DYNAMIC}, None),
                 lambda lib: ({0: lib.export.Dim.STATIC}, None),
                 lambda lib: ({0: lib.export.Dim('b', min=2, max=64) + 1}, None)):
        assert _spec_error(ember, spec) is None
    class M(ember.nn.Module):
        def forward(self, x, y):
            return x.sum() + y
    ep = export(M(), (ember.ones(3, 4), ember.ones(3)),
                dynamic_shapes=({0: Dim.AUTO, 1: Dim.DYNAMIC}, None))
    assert [repr(r) for r in ep.range_constraints.values()] == ['VR[2, int_oo]'] * 2
    assert ep.module()(ember.ones(5, 6), ember.ones(3)).shape == (3,)
    b = Dim('b', min=2, max=64)
    ep = export(M(), (ember.ones(3, 4), ember.ones(3)), dynamic_shapes=({0: b + 1}, None))
    assert sorted(repr(r) for r in ep.range_constraints.values()) == ['VR[2, 64]', 'VR[3, 65]']


def _violation(lib, body, shapes, spec):
    ns = {'lib': lib}
    exec(f'class M(lib.nn.Module):\n    def forward(self, {", ".join("xyz"[:len(shapes)])}):'
         f' return {body}', ns)
    try:
        ep = lib.export.export(ns['M'](), tuple(lib.ones(*s) for s in shapes),
                               dynamic_shapes=spec(lib))
    except Exception as exc:   # noqa: BLE001 - compared below
        return type(exc).__name__, str(exc).split('\nThe error above')[0].strip()
    return [tuple(n.meta['val'].shape) for n in ep.graph.nodes if n.op == 'placeholder']


@pytest.mark.parametrize('body, shapes, spec', [
    ('x.view(3, -1)', [(3, 4)], lambda lib: ({0: lib.export.Dim('batch')},)),
    ('x * len(x)', [(3, 4)], lambda lib: ({0: lib.export.Dim('batch')},)),
    ('x + y', [(3, 4), (3, 4)], lambda lib: ({0: lib.export.Dim('a')},
                                             {0: lib.export.Dim('b')})),
    ('x.view(3, -1)', [(3, 4)], lambda lib: ({0: lib.export.Dim.DYNAMIC},)),
    ('x.view(3, -1)', [(3, 4)], lambda lib: ({0: lib.export.Dim.AUTO},)),
], ids=['constant', 'len', 'equal', 'dynamic-hint', 'auto-becomes-static'])
def test_specialized_dynamic_dims_raise_as_torch(body, shapes, spec):
    assert _violation(ember, body, shapes, spec) == _violation(torch, body, shapes, spec)


@pytest.mark.parametrize('body, dim', [
    ('x * 2 if x.shape[0] > 2 else x', lambda lib: lib.export.Dim('batch')),
    ('x * 2 if x.shape[0] > 2 else x', lambda lib: lib.export.Dim('batch', max=64)),
    ('x * 2 if x.shape[0] < 6 else x', lambda lib: lib.export.Dim('batch', min=2, max=10)),
    ('x * 2 if 3 < x.shape[0] < 9 else x', lambda lib: lib.export.Dim('batch')),
], ids=['min', 'min-max', 'max', 'interval'])
def test_guard_on_dynamic_dim_raises_as_torch(body, dim):
    n = 5 if '3 <' in body else 3
    assert _violation(ember, body, [(n, 2)], lambda lib: ({0: dim(lib)},)) == \
        _violation(torch, body, [(n, 2)], lambda lib: ({0: dim(lib)},))


def test_guard_on_dynamic_hint_narrows_its_range_as_torch():
    got = []
    for lib in (ember, torch):
        ns = {'lib': lib}
        exec('class C(lib.nn.Module):\n    def forward(self, x):\n'
             '        return x * 2 if x.shape[0] > 2 else x', ns)
        ep = lib.export.export(ns['C'](), (lib.ones(3, 2),),
                               dynamic_shapes=({0: lib.export.Dim.DYNAMIC},))
        with pytest.raises(AssertionError) as info:
            ep.module()(lib.ones(2, 2))
        got.append(([repr(r) for r in ep.range_constraints.values()], str(info.value),
                    tuple(ep.module()(lib.ones(7, 2)).shape)))
    assert got[0] == got[1]


def test_dynamic_layers_run_at_other_sizes():
    ember.manual_seed(0)
    B, S = Dim('batch', max=64), Dim('seq', max=128)
    cases = [(ember.nn.LSTM(4, 5, batch_first=True), (2, 6, 4), {0: B, 1: S}, (3, 9, 4)),
             (ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(),
              (2, 6, 8), {0: B, 1: S}, (3, 9, 8))]
    for m, shape, spec, other in cases:
        ep = export(m, (ember.randn(*shape),), dynamic_shapes=(spec,))
        x = ember.randn(*other)
        out = ember.utils._pytree.tree_leaves(ep.module()(x))
        ref = ember.utils._pytree.tree_leaves(m(x))
        assert all(ember.allclose(a, b, atol=1e-6) for a, b in zip(out, ref))


def test_constant_made_from_a_dynamic_size_is_refused():
    from ember._ops.creation import zeros as raw_zeros      # not seen by the capture

    class M(ember.nn.Module):
        def forward(self, x):
            return x + raw_zeros(x.shape[0], 1)
    from ember._dynamo.exc import UserError
    with pytest.raises(UserError, match='specialized it to be a constant'):
        export(M(), (ember.ones(3, 2),), dynamic_shapes=({0: Dim('b')},))


def test_size_arithmetic_is_recorded():
    class E(ember.nn.Module):
        def forward(self, x):
            return x.reshape(x.shape[0] * x.shape[1]) + x.size(1) - len(x.shape)
    ep = export(E(), (ember.ones(3, 4),),
                dynamic_shapes=({0: Dim('b'), 1: Dim('c', max=8)},))
    assert 'x: "f32[s0, s1]"' in str(ep) and '"Sym(s1)"' in str(ep)
    x = _e(_arr((5, 6)))
    assert ember.equal(ep.module()(x), E()(x))


def test_shapes_collection_and_additional_inputs_as_torch():
    got = []
    for lib in (ember, torch):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return x.sum(0) + y
        x, y = lib.ones(3, 4), lib.ones(4)
        sc = lib.export.ShapesCollection()
        sc[x] = {0: lib.export.Dim('b')}
        ai = lib.export.AdditionalInputs()
        ai.add((lib.ones(5, 4), lib.ones(4)))
        ai.add((lib.ones(2, 4), lib.ones(4)))
        eps = [lib.export.export(M(), (x, y), dynamic_shapes=d)
               for d in (sc.dynamic_shapes(M(), (x, y)), ai)]
        ai.verify(eps[1])
        got.append((repr(sc.dynamic_shapes(M(), (x, y))), repr(ai.dynamic_shapes(M(), (x, y))),
                    [[repr(r) for r in ep.range_constraints.values()] for ep in eps]))
    assert got[0] == got[1]


# -- run_decompositions, unflatten ----------------------------------------------------------
def test_run_decompositions_functionalizes_input_mutation():
    class U(ember.nn.Module):
        def forward(self, x):
            x.add_(1)
            x[0] = 5.0
            return x * 2
    ep = export(U(), (ember.zeros(3),))
    ed = ep.run_decompositions()
    assert [s.kind.name for s in ed.graph_signature.output_specs] == \
        ['USER_INPUT_MUTATION', 'USER_OUTPUT']
    assert ed.graph_signature.user_inputs_to_mutate == {ed.graph_signature.output_specs[0]
                                                        .arg.name: 'x'}
    a = ember.zeros(3)
    assert ember.equal(ed.module()(a), ember.tensor([10., 2., 2.]))
    assert ember.equal(a, ember.tensor([5., 1., 1.]))      # written back as eager does


def test_run_decompositions_identity_without_mutation(linear):
    e, ep, tp = linear
    ed = ep.run_decompositions()
    assert [n.name for n in ed.graph.nodes] == [n.name for n in ep.graph.nodes]
    assert ember.export.default_decompositions() == {}


def test_run_decompositions_with_a_table(linear):
    e, ep, tp = linear
    F = ember.nn.functional
    table = ember.export.CustomDecompTable()
    table[F.relu] = lambda x, inplace=False: ember.clamp(x, min=0)
    table[F.linear] = lambda x, w, b=None: x @ w.t() + b
    ed = ep.run_decompositions(table)
    names = [getattr(n.target, '__name__', '') for n in ed.graph.nodes
             if n.op == 'call_function']
    assert 'linear' not in names and 'relu' not in names and 'clamp' in names
    x = _e(_arr((2, 4), seed=5))
    assert ember.allclose(ed.module()(x), e(x))
    assert str(ember.export.load(io.BytesIO(_roundtrip(ed)))) == str(ed)


def test_unflatten(linear):
    e, ep, tp = linear
    um = ember.export.unflatten(ep)
    tum = torch.export.unflatten(tp)
    assert sorted(um.state_dict()) == sorted(tum.state_dict())
    assert um.lin.weight is e.lin.weight
    x = _e(_arr((2, 4), seed=1))
    assert ember.equal(um(x), e(x))


def test_other_layers_capture():
    ember.manual_seed(0)
    cases = [(ember.nn.LSTM(4, 5, batch_first=True), (ember.randn(2, 3, 4),)),
             (ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(),
              (ember.randn(2, 3, 8),)),
             (ember.nn.Sequential(ember.nn.Embedding(10, 4), ember.nn.LayerNorm(4)),
              (ember.tensor([[1, 2], [3, 4]]),))]
    for m, args in cases:
        ep = export(m, args)
        out = ember.utils._pytree.tree_leaves(ep.module()(*args))
        ref = ember.utils._pytree.tree_leaves(m(*args))
        assert all(ember.allclose(a, b) for a, b in zip(out, ref))


def test_layers_holding_raw_ops_are_captured():
    # nn.Softmax keeps its op as a class staticmethod, ConvTranspose calls it through the
    # op family module: both are observed while capturing, and put back afterwards
    import types
    before = (ember.nn.Softmax.__dict__['_fn'], ember.nn.modules.conv.C)
    ember.manual_seed(0)
    m = ember.nn.Sequential(ember.nn.ConvTranspose2d(2, 3, 3, stride=2),
                            ember.nn.AdaptiveAvgPool2d((1, 1)), ember.nn.Flatten(),
                            ember.nn.Softmax(-1))
    x = ember.randn(1, 2, 4, 4)
    ep = export(m, (x,))
    names = [getattr(n.target, '__name__', '') for n in ep.graph.nodes]
    assert 'conv_transpose2d' in names and 'softmax' in names
    assert ember.allclose(ep.module()(x), m(x))
    assert (ember.nn.Softmax.__dict__['_fn'], ember.nn.modules.conv.C) == before
    assert isinstance(ember.nn.modules.conv.C, types.ModuleType)


def test_untracked_computation_is_reported():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return ember.from_numpy(x.detach()._data * 2)     # outside ember's ops

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Raw(ember.nn.Module):
        def forward(self, x):
            return x + Double.apply(x)
    with pytest.raises(RuntimeError, match='would be frozen'):
        export(Raw(), (ember.ones(2),))
    # values read into Python from what the program computes, as torch refuses them
    for body in ('ember.from_numpy(x.numpy() * 2)', 'x * 2 if x.sum() > 0 else x',
                 'x * float(x.sum())'):
        ns = {'ember': ember}
        exec(f'class N(ember.nn.Module):\n    def forward(self, x): return {body}', ns)
        with pytest.raises(RuntimeError, match='cannot be captured'):
            export(ns['N'](), (ember.ones(3),))


def test_item_is_recorded():
    class M(ember.nn.Module):
        def forward(self, x):
            return x * x.sum().item() / x.shape[0], x.abs().max().item()
    ep = export(M(), (ember.ones(3, 2),), dynamic_shapes=({0: Dim('b')},))
    x = _e(_arr((5, 2)))
    (a, b), (ra, rb) = ep.module()(x), M()(x)
    assert ember.allclose(a, ra) and b == rb
    assert ep.graph_signature.output_specs[1].arg == \
        ember.export.graph_signature.SymFloatArgument(list(ep.graph.nodes)[-2].name)


# -- save / load ----------------------------------------------------------------------------
def _roundtrip(ep, **kw):
    buf = io.BytesIO()
    ember.export.save(ep, buf, **kw)
    return buf.getvalue()


def test_save_load_roundtrip(dynamic):
    e, _ = _both(CONVBN)           # its own module: running the programs updates its buffers
    cb = export(e, (_e(_arr((2, 1, 5, 5))),))
    for ep in (cb, cb.run_decompositions(), dynamic[2]):
        data = _roundtrip(ep, extra_files={'note': 'hi'})
        extra = {'note': ''}
        ep2 = ember.export.load(io.BytesIO(data), extra_files=extra)
        assert extra == {'note': 'hi'}
        assert str(ep2) == str(ep)
        assert _structure(ep2)['inputs'] == _structure(ep)['inputs']
        n = 5 if ep.range_constraints else 2
        shape = (n, 4) if ep.range_constraints else (2, 1, 5, 5)
        x = _e(_arr(shape, seed=7))
        m1, m2 = ep.module(), ep2.module()
        assert ember.equal(m2(x), m1(x))
        assert list(m2.state_dict()) == list(m1.state_dict())


def test_save_to_path(tmp_path, linear):
    p = tmp_path / 'm.pt2'
    ember.export.save(linear[1], p)
    ep = ember.export.load(str(p))
    x = ember.ones(2, 4)
    assert ember.equal(ep.module()(x), linear[0](x))


def _tamper(data, fn):
    """Rewrite the archive with ``fn(name, bytes) -> bytes`` applied to each entry."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            z.writestr(info.filename, fn(info.filename, src.read(info)))
    return out.getvalue()


def _edit_program(data, edit):
    def fn(name, raw):
        if name.endswith('program.json'):
            prog = json.loads(raw)
            edit(prog)
            return json.dumps(prog).encode()
        return raw
    return _tamper(data, fn)


def test_load_refuses_hostile_archives(linear):
    data = _roundtrip(linear[1])

    def target(p):
        next(n for n in p['nodes'] if n['op'] == 'call_function')['target'] = ['os', 'system']

    def shape(p):
        p['tensors'][0]['shape'] = [10 ** 6, 10 ** 6]

    def nbytes(p):
        p['tensors'][0]['shape'] = [3, 5]

    def dtype(p):
        p['tensors'][0]['dtype'] = '__class__'

    def ref(p):
        p['state_dict']['lin.weight'] = 99

    def node(p):
        p['nodes'][-1]['args'] = [{'node': 'nope'}]

    def getattr_chain(p):
        n = next(n for n in p['nodes'] if n['op'] == 'call_function')
        n['target'] = ['builtins', 'getattr']
        n['args'] = {'tuple': [{'node': 'x'}, '__class__']}
        n['kwargs'] = {'dict': []}

    def higher_order(p):
        next(n for n in p['nodes'] if n['op'] == 'call_function')['target'] = ['ember', 'cond']

    def name(p):
        p['nodes'][0]['target'] = 'import'

    for edit in (target, shape, nbytes, dtype, ref, node, getattr_chain, higher_order, name):
        with pytest.raises(SerializeError):
            ember.export.load(io.BytesIO(_edit_program(data, edit)))
    # a compressed (possibly inflating) entry, a non-JSON program, a missing entry
    comp = io.BytesIO()
    with zipfile.ZipFile(comp, 'w', zipfile.ZIP_DEFLATED) as z:
        for info in zipfile.ZipFile(io.BytesIO(data)).infolist():
            z.writestr(info.filename, zipfile.ZipFile(io.BytesIO(data)).read(info))
    with pytest.raises(SerializeError):
        ember.export.load(io.BytesIO(comp.getvalue()))
    bad = _tamper(data, lambda n, r: b'{"nodes": [' * 5000 if n.endswith('.json') else r)
    with pytest.raises(SerializeError):
        ember.export.load(io.BytesIO(bad))
    with pytest.raises(zipfile.BadZipFile):
        ember.export.load(io.BytesIO(data[:len(data) // 2]))      # truncated
    flipped = bytearray(data)
    flipped[data.find(b'ember_pt2/data/0') + 40] ^= 0xFF          # a tensor's bytes
    with pytest.raises(SerializeError, match='CRC'):
        ember.export.load(io.BytesIO(bytes(flipped)))
    with pytest.raises(zipfile.BadZipFile):
        ember.export.load(io.BytesIO(b'garbage'))
    with pytest.raises(zipfile.BadZipFile):
        torch.export.load(io.BytesIO(b'garbage'))


def test_torch_archive_is_refused_clearly(linear):
    buf = io.BytesIO()
    torch.export.save(linear[2], buf)
    with pytest.raises(SerializeError, match='PyTorch .pt2'):
        ember.export.load(io.BytesIO(buf.getvalue()))


def test_public_names():
    import torch.export as te
    for name in te.__all__:
        assert hasattr(ember.export, name), name
    for name in ('InputKind', 'OutputKind', 'InputSpec', 'OutputSpec', 'TensorArgument',
                 'ConstantArgument', 'SymIntArgument'):
        assert getattr(ember.export.graph_signature, name).__name__ == name
    assert [k.name for k in ember.export.graph_signature.InputKind] == \
        [k.name for k in te.graph_signature.InputKind]
    assert [k.value for k in ember.export.graph_signature.OutputKind] == \
        [k.value for k in te.graph_signature.OutputKind]
