"""``ember._dynamo`` (the eager face of ``torch._dynamo``) against ``torch._dynamo`` outside
compilation: marks, decorators, config flags and ``patch``, exception types, support
checks, ``TransformGetItemToIndex``."""
import importlib

import pytest
import torch
import torch._dynamo as TD

import ember
import ember._dynamo as ED

pytestmark = pytest.mark.filterwarnings('ignore')


def _marks(t):
    return dict(vars(t))


def _norm(d):
    return {k: (sorted((r.dim, r.min, r.max) for r in v) if k == '_dynamo_dynamic_range' else v)
            for k, v in d.items()}


def test_marks_recorded_as_torch():
    calls = [('mark_dynamic', (0,), {}), ('mark_dynamic', ([1],), {'min': 2, 'max': 9}),
             ('mark_dynamic', (5,), {'hint_override': 4}), ('maybe_mark_dynamic', (1,), {}),
             ('mark_static', (0,), {}), ('mark_static_address', (), {}),
             ('mark_static_address', (), {'guard': True})]
    for name, args, kw in calls:
        te, tt = ember.ones(3, 4), torch.ones(3, 4)
        getattr(ED, name)(te, *args, **kw)
        getattr(TD, name)(tt, *args, **kw)
        assert _norm(_marks(te)) == _norm(_marks(tt)), name
    te, tt = ember.ones(3, 4), torch.ones(3, 4)
    ED.mark_static(te)
    TD.mark_static(tt)
    assert _marks(te) == _marks(tt)
    for m, nn in ((ED, ember.nn), (TD, torch.nn)):
        class Net(nn.Module):
            pass

        assert m.mark_static(Net) is Net and Net._dynamo_marked_static is True
        with pytest.raises(TypeError, match='mark_static_address expects a tensor'):
            m.mark_static_address([1])


def test_decorators_leave_functions_eager():
    def f(x):
        return x * 2

    for m in (ED, TD):
        for deco in ('forbid_in_graph', 'nonstrict_trace', 'allow_in_graph',
                     'assume_constant_result'):
            g = getattr(m, deco)(f)
            assert g(3) == 6
        assert m.is_compiling() is False
        assert m.graph_break() is None
        assert m.optimize('eager')(f)(2) == 4
        assert m.run(f)(2) == 4
    lin = ember.nn.Linear(2, 2)
    assert isinstance(ED.optimize('eager')(lin), ED.OptimizedModule)
    assert ED.eval_frame.OptimizedModule is ED.OptimizedModule is ember.compiler.OptimizedModule
    with pytest.raises(ED.exc.InvalidBackend):
        ED.optimize('no_such_backend')
    with pytest.raises(TD.exc.InvalidBackend):
        TD.optimize('no_such_backend')


def test_config_flags_and_patch():
    EC, TC = ED.config, TD.config
    for name in ('capture_scalar_outputs', 'cache_size_limit', 'recompile_limit',
                 'accumulated_cache_size_limit', 'skip_fwd_side_effects_in_bwd_under_checkpoint',
                 'suppress_errors', 'verbose', 'automatic_dynamic_shapes', 'optimize_ddp',
                 'inline_inbuilt_nn_modules', 'specialize_int', 'trace_numpy',
                 'numpy_default_float', 'capture_dynamic_output_shape_ops'):
        assert getattr(EC, name) == getattr(TC, name), name
    for C, prefix in ((EC, 'ember'), (TC, 'torch')):
        with pytest.raises(AttributeError, match=f'{prefix}._dynamo.config.nope does not exist'):
            C.nope = 1
        with pytest.raises(AttributeError, match='does not exist'):
            C.nope
        with pytest.raises(AttributeError, match='does not exist'):
            with C.patch(nope=1, verbose=True):
                pass
        assert C.verbose is False
        with C.patch(capture_scalar_outputs=True, recompile_limit=3):
            assert C.capture_scalar_outputs is True and C.cache_size_limit == 3
        assert C.capture_scalar_outputs is False and C.cache_size_limit == 8

        @C.patch('verbose', True)
        def read():
            return C.verbose

        assert read() is True and C.verbose is False
        with C.patch({'suppress_errors': True}):
            assert C.suppress_errors is True
        assert C.suppress_errors is False


def test_exceptions_like_torch():
    for name in ('TorchDynamoException', 'Unsupported', 'UserError', 'InternalTorchDynamoError',
                 'BackendCompilerFailed', 'InvalidBackend', 'SkipFrame', 'RestartAnalysis',
                 'TorchRuntimeError', 'ResetRequired', 'RecompileError'):
        e_cls, t_cls = getattr(ED.exc, name), getattr(TD.exc, name)
        e_chain = [c.__name__ for c in e_cls.__mro__]
        t_chain = [c.__name__ for c in t_cls.__mro__]
        assert e_chain == t_chain, name
    e, t = ED.exc.Unsupported('nope'), TD.exc.Unsupported('nope')
    assert isinstance(e, RuntimeError) and str(e) == str(t) and e.msg == t.msg
    e = ED.exc.UserError(ED.exc.UserErrorType.DYNAMIC_DIM, 'bad dim')
    t = TD.exc.UserError(TD.exc.UserErrorType.DYNAMIC_DIM, 'bad dim')
    assert str(e) == str(t) and e.error_type.name == t.error_type.name
    assert [m.name for m in ED.exc.UserErrorType] == [m.name for m in TD.exc.UserErrorType]


def test_support_checks_like_torch_cpu():
    assert ED.eval_frame.is_dynamo_supported() == TD.eval_frame.is_dynamo_supported()
    for dev in ('cpu', 'cuda', 'xpu', 'mps'):
        assert ED.utils.is_compile_supported(dev) == TD.utils.is_compile_supported(dev), dev


def test_lazy_namespace_and_torch_spelling():
    assert ember._dynamo is importlib.import_module('ember._dynamo')
    assert ED.config is importlib.import_module('ember._dynamo.config')


def test_transform_getitem_to_index_gathers():
    from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex as TT
    from ember._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex as ET
    xe = ember.arange(24.).view(2, 3, 4).requires_grad_()
    xt = torch.arange(24.).view(2, 3, 4).requires_grad_()
    for idx in ((1,), (1, 2), ('t1', 2), ('t1', 't0', 3), (True,)):
        def conv(m, i):
            return m.tensor(int(i[1:])) if isinstance(i, str) else i
        with ET():
            ye = xe[tuple(conv(ember, i) for i in idx)]
        with TT():
            yt = xt[tuple(conv(torch, i) for i in idx)]
        assert ye.shape == yt.shape and ye.tolist() == yt.tolist(), idx
        assert ye._base is None and yt._base is None, idx       # a gather, not a view
        ge, gt = ember.ones(ye.shape), torch.ones(yt.shape)
        ye.backward(ge)
        yt.backward(gt)
        assert xe.grad.tolist() == xt.grad.tolist(), idx
        xe.grad = xt.grad = None
    with ET():
        ye = xe[0:1]          # a slice is not converted: still a view
    assert ye._is_view()
