"""``ember.jit`` against ``torch.jit`` run eagerly: scripted/traced models give the same
outputs, the decorators and predicates behave as in eager PyTorch, ``isinstance`` on
container types, ``fork``/``wait``, fusion settings, and the errors."""
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)
pytestmark = pytest.mark.filterwarnings('ignore')


def _model(m):
    m.manual_seed(0)

    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(4, 3)

        def forward(self, x):
            return self.helper(self.fc(x))

        @m.jit.ignore
        def helper(self, y):
            return y.relu()

        @m.jit.unused
        def debug(self, y):
            return y

        @m.jit.export
        def extra(self, y):
            return y + 1
    return Net()


def test_script_and_trace_give_eager_results():
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    outs = []
    for m in (ember, torch):
        net = _model(m).eval()
        s = m.jit.script(net)
        t = m.jit.trace(net, m.tensor(x))
        tm = m.jit.trace_module(net, {'forward': (m.tensor(x),)})
        f = m.jit.script(lambda a: a * 2) if m is ember else m.jit.script(_double)
        outs.append([s(m.tensor(x)).detach().numpy(), t(m.tensor(x)).detach().numpy(),
                     tm(m.tensor(x)).detach().numpy(), s.extra(m.tensor(x)).numpy(),
                     f(m.tensor(x)).numpy()])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _double(a: torch.Tensor) -> torch.Tensor:
    return a * 2


def test_predicates_and_pass_through_decorators():
    for m in (ember, torch):
        assert m.jit.is_scripting() is False
        assert m.jit.is_tracing() is False
        assert m.jit.annotate(List[int], [1]) == [1]

        def f(x):
            return x
        assert m.jit.ignore(f) is f
        assert m.jit.ignore(drop=True)(f)(3) == 3
        assert m.jit.unused(f)(4) == 4
        assert m.jit.export(f) is f
        assert m.jit.script_if_tracing(f)(5) == 5
        assert m.jit.Attribute(3, int) == (3, int)
        assert m.jit.Attribute(3, int).value == 3
        assert not isinstance(m.nn.Linear(1, 1), m.jit.ScriptModule)
        assert issubclass(m.jit.ScriptModule, m.nn.Module)
        assert issubclass(m.jit.Error, Exception)
        with m.jit.strict_fusion():
            pass


@pytest.mark.parametrize('obj,tp', [
    ([1, 2], List[int]), ([1, 'a'], List[int]), ([], List[int]), ([[1]], List[List[int]]),
    ({'a': 1}, Dict[str, int]), ({'a': 'b'}, Dict[str, int]), ({1: 1}, Dict[str, int]),
    (None, Optional[int]), (3, Optional[int]), ('x', Optional[int]),
    ((1, 'a'), Tuple[int, str]), ((1, 2), Tuple[int, str]), ((1,), Tuple[int, int]),
    (1, Union[int, str]), (1.5, Union[int, str]), (1, int), (True, int), ('s', str),
    ({1}, set), ([1], set), ({'k': [1.0]}, Dict[str, List[float]]),
])
def test_isinstance_like_torch(obj, tp):
    assert ember.jit.isinstance(obj, tp) == torch.jit.isinstance(obj, tp)


def test_isinstance_tensors_and_errors():
    assert ember.jit.isinstance([ember.ones(1)], List[ember.Tensor])
    assert torch.jit.isinstance([torch.ones(1)], List[torch.Tensor])
    assert not ember.jit.isinstance([1], List[ember.Tensor])
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="must be a type or a tuple of types"):
            m.jit.isinstance(1, 'int')
        with pytest.raises(TypeError):
            m.jit.isinstance(1, Any)
    for tp in (list, dict, tuple, List, Dict, Tuple, Optional):
        msgs = []
        for m in (ember, torch):
            with pytest.raises(RuntimeError, match="without") as e:
                m.jit.isinstance([1], tp)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


def test_fork_and_wait():
    for m in (ember, torch):
        fut = m.jit.fork(lambda a, b=0: a + b, 1, b=2)
        assert fut.done() and m.jit.wait(fut) == 3 and fut.value() == 3
        with pytest.raises(ZeroDivisionError):
            m.jit.fork(lambda: 1 / 0)


def test_freeze_and_optimize_for_inference():
    net = ember.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
        ember.jit.freeze(ember.jit.script(net))
    assert net.training                                    # nothing changed
    assert ember.jit.freeze(ember.jit.script(net.eval())) is net
    net.train()
    out = ember.jit.optimize_for_inference(ember.jit.script(net))
    assert out is net and not net.training
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule"):
            m.jit.freeze(object())
        with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule"):
            m.jit.optimize_for_inference(object())


def test_fusion_settings_like_torch():
    for m in (ember, torch):
        old = m.jit.set_fusion_strategy([('STATIC', 3)])
        try:
            assert m.jit.set_fusion_strategy([('DYNAMIC', 1)]) == [('STATIC', 3)]
            with pytest.raises(ValueError, match="only supported 'STATIC' or 'DYNAMIC'"):
                m.jit.set_fusion_strategy([('BAD', 1)])
        finally:
            m.jit.set_fusion_strategy(old)
        assert old == [('STATIC', 2), ('DYNAMIC', 10)]
        assert m.jit.onednn_fusion_enabled() is False
        m.jit.enable_onednn_fusion(True)
        assert m.jit.onednn_fusion_enabled() is True
        m.jit.enable_onednn_fusion(False)


def test_trace_argument_errors_like_torch():
    for m in (ember, torch):
        lin = m.nn.Linear(2, 2)
        with pytest.raises(RuntimeError, match="example_kwarg_inputs should be a dict"):
            m.jit.trace(lin)
        with pytest.raises(RuntimeError, match="example_kwarg_inputs should be a dict"):
            m.jit.trace(lin, example_kwarg_inputs=[1])
        with pytest.raises(AttributeError, match="expected torch.nn.Module"):
            m.jit.trace_module(lambda x: x, {'forward': m.ones(1, 2)})
        with pytest.raises(AttributeError, match="expected a dictionary"):
            m.jit.trace_module(lin, [m.ones(1, 2)])
    # tracing runs the model once on the inputs: a bad shape fails as the call does
    with pytest.raises(RuntimeError):
        ember.jit.trace(ember.nn.Linear(2, 2), ember.ones(1, 3))


def test_no_torchscript_archives(tmp_path):
    net = ember.nn.Linear(2, 2)
    with pytest.raises(NotImplementedError, match="ember.save"):
        ember.jit.save(net, tmp_path / 'm.pt')
    assert not (tmp_path / 'm.pt').exists()
    with pytest.raises(NotImplementedError, match="ember.load"):
        ember.jit.load(tmp_path / 'm.pt')
    with pytest.raises(NotImplementedError):
        ember.jit.CompilationUnit("def f(x):\n    return x\n")
    with pytest.raises(NotImplementedError):
        ember.jit.export_opnames(net)


def test_private_decorators_and_annotations_like_torch():
    """The spellings torchvision uses: ``_script_if_tracing``, ``_overload_method``,
    ``jit.annotations.BroadcastingList2``."""
    import torch.jit.annotations as TA
    import ember.jit.annotations as EA

    def f(x):
        return x + 1

    for m in (ember, torch):
        g = m.jit._script_if_tracing(f)
        assert g(1) == 2

        class M(m.nn.Module):
            @m.jit._overload_method
            def forward(self, x: int) -> int:
                ...

            def forward(self, x):  # noqa: F811
                return x * 2

        assert M()(3) == 6
    for n in ('BroadcastingList1', 'BroadcastingList2', 'BroadcastingList3'):
        assert getattr(EA, n)[int] is None and getattr(TA, n)[int] is None
    for n in ('List', 'Tuple', 'Optional', 'Dict'):
        assert getattr(EA, n) is getattr(TA, n)


def test_top_level_script_module():
    """``torch.ScriptModule`` (lightning imports it from torch): ember's is the
    ``jit.ScriptModule`` class."""
    assert ember.ScriptModule is ember.jit.ScriptModule
    assert isinstance(torch.ScriptModule, type) and issubclass(ember.ScriptModule,
                                                               ember.nn.Module)
