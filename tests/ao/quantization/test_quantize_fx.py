"""FX graph mode quantization (fuse_fx, prepare_fx, prepare_qat_fx, convert_fx,
convert_to_reference_fx, backend_config) against torch 2.13 on an MLP, a small CNN with
BN/ReLU/maxpool/flatten/add and a model with functional relu and ``x + y``: module
structure, observer names and sharing, observers' statistics, state_dict keys, outputs
(integer-equal after lowering) and torch's deprecation warnings."""
import copy

import numpy as np
import pytest
import torch

import torch.ao.quantization.backend_config.utils  # noqa: F401  (torch's configs need it)
import torch.ao.quantization.quantize_fx  # noqa: F401

import ember
import ember.ao.quantization.quantize_fx  # noqa: F401
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, close, dyadic, dyadic_params, e_tensor, quiet, record, to_np


def _fx(T):
    return (torch.ao.quantization.quantize_fx if T is torch
            else ember.ao.quantization.quantize_fx)


def _q(T):
    return torch.ao.quantization if T is torch else ember.ao.quantization


def _mlp(T):
    nn = T.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))
    return MLP()


def _cnn(T):
    nn, F = T.nn, T.nn.functional

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.relu1 = nn.ReLU()
            self.pool = nn.MaxPool2d(2)
            self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(8)
            self.fc = nn.Linear(8 * 4 * 4, 10)

        def forward(self, x):
            x = self.pool(self.relu1(self.bn1(self.conv1(x))))
            y = self.bn2(self.conv2(x))
            x = F.relu(x + y)
            x = T.flatten(x, 1)
            return self.fc(x)
    return CNN()


def _func(T):
    nn, F = T.nn, T.nn.functional

    class Func(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.b = nn.Linear(4, 4)

        def forward(self, x):
            y = F.relu(self.a(x))
            z = self.b(x)
            return y + z
    return Func()


def _misc(T):
    nn, F = T.nn, T.nn.functional

    class Misc(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(2, 4, 1)
            self.c2 = nn.Conv2d(2, 4, 1)
            self.bn = nn.BatchNorm2d(8)
            self.hs = nn.Hardswish()
            self.elu = nn.ELU()
            self.avg = nn.AdaptiveAvgPool2d(1)
            self.c3 = nn.Conv1d(8, 2, 1)

        def forward(self, x):
            y = T.cat([F.relu(self.c1(x)), self.c2(x)], 1)
            y = self.bn(y)
            y = self.hs(y) * self.elu(y)
            y = self.avg(y).reshape(y.shape[0], 8, 1)
            y = self.c3(y)
            return T.sigmoid(y.squeeze(-1)) + y.mean()
    return Misc()


MODELS = {'misc': (_misc, (2, 2, 4, 4)), 'mlp': (_mlp, (6, 8)), 'cnn': (_cnn, (4, 3, 8, 8)), 'func': (_func, (6, 4))}


def _pair(name, train=False):
    factory, shape = MODELS[name]
    e, t = both(factory)
    dyadic_params(e, t)
    if name == 'cnn':       # give the batch norms non-trivial (dyadic) statistics
        with torch.no_grad():
            for bn in (t.bn1, t.bn2):
                bn.running_mean.copy_(torch.arange(8.) / 8 - 0.5)
                bn.running_var.copy_(torch.arange(8.) / 4 + 0.5)
        from ao._quant_util import copy_state
        copy_state(e, t)
    (e.train() if train else e.eval()), (t.train() if train else t.eval())
    return e, t, shape


def _names(gm):
    return [n for n, _ in gm.named_modules()]


def _apps(gm):
    mods = dict(gm.named_modules(remove_duplicate=False))
    return {n: m for n, m in mods.items() if n.startswith('activation_post_process_')
            and '.' not in n}


@pytest.mark.parametrize('name', ['mlp', 'cnn', 'func'])
def test_fuse_fx_matches_torch(name):
    e, t, shape = _pair(name)
    fe, we = record(_fx(ember).fuse_fx, e)
    ft, wt = record(_fx(torch).fuse_fx, t)
    assert repr(fe).split('\n\n\n')[0] == repr(ft).split('\n\n\n')[0]
    assert list(fe.state_dict()) == list(ft.state_dict())
    x = dyadic(shape)
    close(fe(e_tensor(x)), ft(torch.from_numpy(x)), atol=1e-5)
    assert [c for c, _ in we] == [c for c, _ in wt] == []



def _prepare_both(name, qat=False, backend='x86'):
    e, t, shape = _pair(name, train=qat)
    out = []
    for T, m in ((ember, e), (torch, t)):
        q = _q(T)
        mapping = (q.get_default_qat_qconfig_mapping(backend) if qat
                   else q.get_default_qconfig_mapping(backend))
        fn = _fx(T).prepare_qat_fx if qat else _fx(T).prepare_fx
        x = dyadic(shape)
        xin = e_tensor(x) if T is ember else torch.from_numpy(x)
        out.append(record(fn, m, mapping, (xin,)))
    (pe, we), (pt, wt) = out
    return pe, pt, we, wt, shape


@pytest.mark.parametrize('name', ['mlp', 'cnn', 'func'])
def test_prepare_fx_observers_as_torch(name):
    pe, pt, we, wt, shape = _prepare_both(name)
    assert _names(pe) == _names(pt)
    ae, at = _apps(pe), _apps(pt)
    assert list(ae) == list(at)
    # which observers are one module under several names (ops sharing their input's)
    assert [[m for m in ae if ae[m] is ae[n]] for n in ae] == \
        [[m for m in at if at[m] is at[n]] for n in at]
    assert [type(m).__name__ for m in ae.values()] == [type(m).__name__ for m in at.values()]
    # the call order of observers and modules in the graph
    seq = lambda gm: [n.target for n in gm.graph.nodes if n.op == 'call_module']  # noqa: E731
    assert seq(pe) == seq(pt)
    assert sorted({c for c, _ in we}) == sorted({c for c, _ in wt})
    assert [m for c, m in we if c == 'DeprecationWarning'] == \
        [m for c, m in wt if c == 'DeprecationWarning']
    for i in range(2):
        x = dyadic(shape, seed=i + 1)
        close(pe(e_tensor(x)), pt(torch.from_numpy(x)), atol=1e-5)
    for n in ae:
        if hasattr(at[n], 'min_val'):
            np.testing.assert_allclose(to_np(ae[n].min_val), to_np(at[n].min_val), atol=1e-6)
            np.testing.assert_allclose(to_np(ae[n].max_val), to_np(at[n].max_val), atol=1e-6)


def test_prepare_qat_fx_fake_quant_as_torch():
    pe, pt, we, wt, shape = _prepare_both('cnn', qat=True)
    assert _names(pe) == _names(pt)
    assert [type(m).__name__ for m in pe.modules()] == [type(m).__name__ for m in pt.modules()]
    assert list(pe.state_dict()) == list(pt.state_dict())
    assert [c for c, _ in we if c == 'DeprecationWarning'] == \
        [c for c, _ in wt if c == 'DeprecationWarning']
    x = dyadic(shape, seed=3)
    close(pe(e_tensor(x)), pt(torch.from_numpy(x)), atol=1e-4)
    ae, at = _apps(pe), _apps(pt)
    for n in ae:
        np.testing.assert_allclose(to_np(ae[n].activation_post_process.min_val),
                                   to_np(at[n].activation_post_process.min_val), atol=1e-5)
        np.testing.assert_allclose(to_np(ae[n].scale), to_np(at[n].scale), rtol=1e-5)


def _calibrated(name, backend='x86'):
    pe, pt, _, _, shape = _prepare_both(name, backend=backend)
    for i in range(3):
        x = dyadic(shape, seed=10 + i)
        pe(e_tensor(x))
        pt(torch.from_numpy(x))
    return pe, pt, shape


@pytest.mark.parametrize('name', ['mlp', 'cnn', 'func'])
def test_convert_to_reference_fx_matches_torch(name):
    pe, pt, shape = _calibrated(name)
    re_, we = record(_fx(ember).convert_to_reference_fx, pe)
    rt, wt = record(_fx(torch).convert_to_reference_fx, pt)
    assert repr(re_).split('\n\n\n')[0] == repr(rt).split('\n\n\n')[0]
    es, ts = re_.state_dict(), rt.state_dict()
    assert list(es) == list(ts)
    for k, v in ts.items():
        if isinstance(v, torch.Tensor):
            np.testing.assert_allclose(to_np(es[k]), to_np(v), rtol=1e-6, err_msg=k)
        else:
            assert str(es[k]) == str(v), k
    assert [c for c, _ in we if c == 'DeprecationWarning'] == \
        [c for c, _ in wt if c == 'DeprecationWarning']
    for i in range(2):
        x = dyadic(shape, seed=20 + i)
        close(re_(e_tensor(x)), rt(torch.from_numpy(x)), atol=1e-5)


@pytest.mark.parametrize('name,backend', [('mlp', 'x86'), ('cnn', 'x86'), ('func', 'x86'),
                                          ('cnn', 'fbgemm')])
def test_convert_fx_integer_equal_to_torch(name, backend):
    pe, pt, shape = _calibrated(name, backend)
    ce, we = record(_fx(ember).convert_fx, pe)
    ct, wt = record(_fx(torch).convert_fx, pt)
    assert repr(ce).split('\n\n\n')[0] == repr(ct).split('\n\n\n')[0]
    assert list(ce.state_dict()) == list(ct.state_dict())
    assert [m for c, m in we if c == 'DeprecationWarning'] == \
        [m for c, m in wt if c == 'DeprecationWarning']
    mods_t = dict(ct.named_modules())
    for n, m in ce.named_modules():
        if hasattr(mods_t[n], 'scale') and not callable(mods_t[n].scale):
            assert float(m.scale) == float(mods_t[n].scale), n
            assert int(m.zero_point) == int(mods_t[n].zero_point), n
    for i in range(2):
        x = dyadic(shape, seed=30 + i)
        ye, yt = ce(e_tensor(x)), ct(torch.from_numpy(x))
        np.testing.assert_array_equal(to_np(ye), to_np(yt))


def test_qconfig_mapping_none_leaves_module_float():
    out = []
    for T in (ember, torch):
        m = _mlp(T).eval()
        q = _q(T)
        mapping = q.get_default_qconfig_mapping().set_module_name('fc2', None)
        x = dyadic((2, 8))
        xin = e_tensor(x) if T is ember else torch.from_numpy(x)
        p = quiet(_fx(T).prepare_fx, m, mapping, (xin,))
        p(xin)
        c = quiet(_fx(T).convert_fx, p)
        out.append((list(_apps(p)), [type(m).__name__ for m in c.modules()]))
    assert out[0] == out[1]


def test_convert_fx_rejects_non_graph_module():
    with pytest.raises(ValueError, match='input model must be a GraphModule') as ee:
        quiet(_fx(ember).convert_fx, ember.nn.Linear(2, 2))
    with pytest.raises(ValueError, match='input model must be a GraphModule') as et:
        quiet(_fx(torch).convert_fx, torch.nn.Linear(2, 2))
    assert str(ee.value).replace('ember', 'torch') == str(et.value)


def test_backend_config_api():
    from ember.ao.quantization import backend_config as eb
    from torch.ao.quantization import backend_config as tb
    for fn in ('get_native_backend_config', 'get_fbgemm_backend_config',
               'get_qnnpack_backend_config'):
        assert getattr(eb, fn)().name == getattr(tb, fn)().name
    for B in (eb, tb):
        T = ember if B is eb else torch
        c = (B.BackendPatternConfig((T.nn.Linear, T.nn.ReLU))
             .set_observation_type(B.ObservationType.OUTPUT_SHARE_OBSERVER_WITH_INPUT)
             .add_dtype_config(B.DTypeConfig(input_dtype=T.quint8, output_dtype=T.quint8)))
        bc = B.BackendConfig('b').set_backend_pattern_config(c)
        assert len(bc.configs) == 1 and bc.configs[0].pattern == (T.nn.Linear, T.nn.ReLU)
        d = c.dtype_configs[0]
        assert str(d.input_dtype) == 'torch.quint8' and d.weight_dtype is None
    e_pats = {str(c.pattern).replace('ember', 'torch') for c in eb.get_native_backend_config().configs
              if isinstance(c.pattern, tuple) and c.fused_module is not None}
    t_pats = {str(c.pattern) for c in tb.get_native_backend_config().configs
              if isinstance(c.pattern, tuple) and c.fused_module is not None}
    for p in ("(<class 'torch.nn.modules.conv.Conv2d'>, <class 'torch.nn.modules.batchnorm.BatchNorm2d'>)",
              "(<class 'torch.nn.modules.linear.Linear'>, <class 'torch.nn.modules.activation.ReLU'>)"):
        assert p in t_pats and p in e_pats


@pytest.mark.parametrize('name', ['mlp', 'cnn'])
def test_qat_convert_fx_matches_torch(name):
    pe, pt, _, _, shape = _prepare_both(name, qat=True)
    for i in range(3):                      # training-mode passes update the fake-quants
        x = dyadic(shape, seed=40 + i)
        pe(e_tensor(x))
        pt(torch.from_numpy(x))
    pe.eval()
    pt.eval()
    ce, ct = quiet(_fx(ember).convert_fx, pe), quiet(_fx(torch).convert_fx, pt)
    assert list(ce.state_dict()) == list(ct.state_dict())
    assert [type(m).__name__ for m in ce.modules()] == [type(m).__name__ for m in ct.modules()]
    mods_t = dict(ct.named_modules())
    # the MLP's float path is exact; the CNN's training-mode batch-norm statistics
    # (sums over the batch) may differ from torch's by float32 round-off
    rtol = 0 if name == 'mlp' else 1e-6
    for n, m in ce.named_modules():
        if hasattr(mods_t[n], 'scale') and not callable(mods_t[n].scale):
            np.testing.assert_allclose(float(m.scale), float(mods_t[n].scale), rtol=rtol)
            assert int(m.zero_point) == int(mods_t[n].zero_point), n
    x = dyadic(shape, seed=50)
    ye, yt = ce(e_tensor(x)), ct(torch.from_numpy(x))
    if name == 'mlp':
        np.testing.assert_array_equal(to_np(ye), to_np(yt))
    else:
        close(ye, yt, atol=1e-5)


def test_prepare_fx_qnnpack_backend_config():
    out = []
    e, t, _ = _pair('mlp')
    for T, m in ((ember, e), (torch, t)):
        q = _q(T)
        from importlib import import_module
        bc = import_module(q.__name__ + '.backend_config').get_qnnpack_backend_config()
        x = dyadic((3, 8))
        xin = e_tensor(x) if T is ember else torch.from_numpy(x)
        p = quiet(_fx(T).prepare_fx, m, q.get_default_qconfig_mapping('qnnpack'), (xin,),
                  backend_config=bc)
        p(xin)
        c = quiet(_fx(T).convert_fx, p, backend_config=bc)
        out.append((list(_apps(p)), list(c.state_dict()), to_np(c(xin))))
    assert out[0][:2] == out[1][:2]
    np.testing.assert_array_equal(out[0][2], out[1][2])


def test_misc_ops_prepare_and_convert_as_torch():
    """cat (inputs share the first input's observer), standalone batch norm, hardswish,
    elu, mul, adaptive pooling, reshape by a traced size (not observed), Conv1d, squeeze,
    sigmoid (fixed qparams), mean, add."""
    pe, pt, _, _, shape = _prepare_both('misc')
    ae, at = _apps(pe), _apps(pt)
    assert list(ae) == list(at)
    assert [[m for m in ae if ae[m] is ae[n]] for n in ae] == \
        [[m for m in at if at[m] is at[n]] for n in at]
    assert [type(m).__name__ for m in ae.values()] == [type(m).__name__ for m in at.values()]
    for i in range(3):
        x = dyadic(shape, seed=60 + i)
        pe(e_tensor(x))
        pt(torch.from_numpy(x))
    re_ = quiet(_fx(ember).convert_to_reference_fx, copy.deepcopy(pe))
    rt = quiet(_fx(torch).convert_to_reference_fx, copy.deepcopy(pt))
    assert list(re_.state_dict()) == list(rt.state_dict())
    ce, ct = quiet(_fx(ember).convert_fx, pe), quiet(_fx(torch).convert_fx, pt)
    assert repr(ce).split('\n\n\n')[0].count('\n') == repr(ct).split('\n\n\n')[0].count('\n')
    assert [type(m).__name__ for m in ce.modules()] == [type(m).__name__ for m in ct.modules()]
    assert list(ce.state_dict()) == list(ct.state_dict())
    # Conv1d's float input is not dyadic here: its output observer may differ by an ulp
    mods_t = dict(ct.named_modules())
    for n, m in ce.named_modules():
        if hasattr(mods_t[n], 'scale') and not callable(mods_t[n].scale):
            np.testing.assert_allclose(float(m.scale), float(mods_t[n].scale), rtol=1e-6)
            assert int(m.zero_point) == int(mods_t[n].zero_point), n
    x = dyadic(shape, seed=70)
    close(re_(e_tensor(x)), rt(torch.from_numpy(x)), atol=1e-6)
    close(ce(e_tensor(x)), ct(torch.from_numpy(x)), atol=1e-6)


def _functional(T):
    nn, F = T.nn, T.nn.functional

    class Functional(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(T.randn(3, 4))
            self.b = nn.Parameter(T.randn(3))

        def forward(self, x, y):
            return F.relu(F.linear(x, self.w, self.b)), F.linear(x, self.w) + y
    return Functional()


def test_functional_linear_as_torch():
    """F.linear: input and weight observers (weight per channel), quantize_per_channel of
    the weight in the reference model, quantized.linear(_relu) on a prepacked weight after
    lowering (saved in the state dict as torch saves it)."""
    e, t = both(_functional)
    dyadic_params(e, t)
    e.eval()
    t.eval()
    xs = [(dyadic((2, 4), seed=80 + i), dyadic((2, 3), seed=90 + i)) for i in range(3)]
    res = []
    for T, m in ((ember, e), (torch, t)):
        conv = (lambda a: e_tensor(a)) if T is ember else torch.from_numpy
        p = quiet(_fx(T).prepare_fx, m, _q(T).get_default_qconfig_mapping(),
                  tuple(conv(a) for a in xs[0]))
        apps = [(n, type(o).__name__) for n, o in _apps(p).items()]
        for x, y in xs:
            p(conv(x), conv(y))
        r = quiet(_fx(T).convert_to_reference_fx, copy.deepcopy(p))
        c = quiet(_fx(T).convert_fx, p)
        x, y = xs[1]
        res.append((apps, list(r.state_dict()), [to_np(o) for o in r(conv(x), conv(y))],
                    list(c.state_dict()), [to_np(o) for o in c(conv(x), conv(y))]))
    (ae, rse, roe, cse, coe), (at, rst, rot, cst, cot) = res
    assert ae == at and rse == rst and cse == cst
    for a, b in zip(roe, rot):
        np.testing.assert_allclose(a, b, atol=1e-6)
    for a, b in zip(coe, cot):
        np.testing.assert_array_equal(a, b)


def test_custom_configs_as_torch():
    from ember.ao.quantization.fx import custom_config as ec
    from torch.ao.quantization.fx import custom_config as tc
    for C in (ec, tc):
        T = ember if C is ec else torch
        p = (C.PrepareCustomConfig().set_non_traceable_module_names(['fc2'])
             .set_non_traceable_module_classes([T.nn.ReLU]).set_preserved_attributes(['tag'])
             .set_input_quantized_indexes([0]))
        d = p.to_dict()
        assert d == {'non_traceable_module_name': ['fc2'],
                     'non_traceable_module_class': [T.nn.ReLU],
                     'input_quantized_idxs': [0], 'preserved_attributes': ['tag']}
        assert C.PrepareCustomConfig.from_dict(d).to_dict() == d
        assert C.ConvertCustomConfig().set_preserved_attributes(['tag']).to_dict() == \
            {'preserved_attributes': ['tag']}
        assert C.FuseCustomConfig().to_dict() == {}
    # preserved attributes survive prepare and convert
    e, t, _ = _pair('mlp')
    for T, m in ((ember, e), (torch, t)):
        m.tag = 'v1'
        x = dyadic((2, 8))
        xin = e_tensor(x) if T is ember else torch.from_numpy(x)
        cfg = (ec if T is ember else tc).PrepareCustomConfig().set_preserved_attributes(['tag'])
        p = quiet(_fx(T).prepare_fx, m, _q(T).get_default_qconfig_mapping(), (xin,),
                  prepare_custom_config=cfg)
        assert p.tag == 'v1'
        p.tag = 'v2'
        c = quiet(_fx(T).convert_fx, p, convert_custom_config={'preserved_attributes': ['tag']})
        assert c.tag == 'v2'


def test_prepare_fx_bad_qconfig_mapping_and_dict_form():
    for T in (ember, torch):
        m = _mlp(T).eval()
        x = (e_tensor(dyadic((2, 8))) if T is ember else torch.from_numpy(dyadic((2, 8))),)
        for bad in (None, _q(T).default_qconfig):
            with pytest.raises(AssertionError, match='qconfig_mapping must be a QConfigMapping'):
                quiet(_fx(T).prepare_fx, m, bad, x)
        _, w = record(_fx(T).prepare_fx, m, {'': _q(T).default_qconfig}, x)
        assert [c for c, msg in w if 'QConfig dictionary' in msg] == ['FutureWarning']


def test_fuse_fx_train_mode_conv_bn_error_as_torch():
    for T in (ember, torch):
        m = T.nn.Sequential(T.nn.Conv2d(1, 1, 1), T.nn.BatchNorm2d(1)).train()
        with pytest.raises(AssertionError, match='Fusion only for eval!'):
            _fx(T).fuse_fx(m)


def test_dynamic_linear_as_torch():
    """A dynamic qconfig on Linear (and ReLU, so the fused LinearReLU shares it): dynamic
    placeholder observers on the inputs only, quantize_per_tensor_dynamic in the reference
    model, nn.quantized.dynamic modules after lowering."""
    e, t, shape = _pair('mlp')
    res = []
    for T, m in ((ember, e), (torch, t)):
        q = _q(T)
        mapping = (q.QConfigMapping().set_object_type(T.nn.Linear, q.default_dynamic_qconfig)
                   .set_object_type(T.nn.ReLU, q.default_dynamic_qconfig))
        conv = (lambda a: e_tensor(a)) if T is ember else torch.from_numpy
        x = dyadic(shape, seed=5)
        p = quiet(_fx(T).prepare_fx, m, mapping, (conv(x),))
        apps = [(n, type(o).__name__) for n, o in _apps(p).items()]
        p(conv(x))
        r = quiet(_fx(T).convert_to_reference_fx, copy.deepcopy(p))
        c = quiet(_fx(T).convert_fx, p)
        res.append((apps, list(r.state_dict()), to_np(r(conv(x))),
                    repr(c).split('\n\n\n')[0], list(c.state_dict()), to_np(c(conv(x)))))
    (ae, rse, roe, ce, cse, coe), (at, rst, rot, ct, cst, cot) = res
    assert ae == at and rse == rst and ce == ct and cse == cst
    np.testing.assert_allclose(roe, rot, atol=1e-6)
    np.testing.assert_array_equal(coe, cot)


def test_fused_parts_need_one_object_type_qconfig():
    for T in (ember, torch):
        q = _q(T)
        mapping = q.QConfigMapping().set_object_type(T.nn.Linear, q.default_qconfig)
        x = (e_tensor(dyadic((2, 8))) if T is ember else torch.from_numpy(dyadic((2, 8))),)
        with pytest.raises(LookupError, match='same qconfigs for all module types in') as ei:
            quiet(_fx(T).prepare_fx, _mlp(T).eval(), mapping, x)
        assert 'offending type' in str(ei.value) and 'ReLU' in str(ei.value)


def _nested(T):
    nn, F = T.nn, T.nn.functional

    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return F.relu(self.lin(x)) + x

    class Nested(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub1 = Sub()
            self.sub2 = Sub()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(self.sub2(self.sub1(x)) * x)
    return Nested()


@pytest.mark.parametrize('variant', ['name', 'regex', 'order', 'function'])
def test_qconfig_mapping_styles_as_torch(variant):
    """Module names through traced-through submodules, name regexes, the
    module-name/object-type/call-index style and function object types."""
    import operator
    e, t = both(_nested)
    dyadic_params(e, t)
    e.eval()
    t.eval()
    res = []
    for T, m in ((ember, e), (torch, t)):
        q = _q(T)
        mapping = q.get_default_qconfig_mapping()
        if variant == 'name':
            mapping.set_module_name('sub1', None)
        elif variant == 'regex':
            mapping.set_module_name_regex('sub2.*', None)
        elif variant == 'order':
            mapping.set_module_name_object_type_order('sub2', operator.add, 0, None)
        else:
            mapping.set_object_type(operator.mul, None)
        conv = (lambda a: e_tensor(a)) if T is ember else torch.from_numpy
        x = dyadic((3, 4), seed=7)
        p = quiet(_fx(T).prepare_fx, m, mapping, (conv(x),))
        apps = [(n, type(o).__name__, [n2 for n2, o2 in _apps(p).items() if o2 is o][0])
                for n, o in _apps(p).items()]
        seq = [n.target for n in p.graph.nodes if n.op == 'call_module']
        p(conv(x))
        c = quiet(_fx(T).convert_fx, p)
        res.append((apps, seq, [type(o).__name__ for o in c.modules()], list(c.state_dict()),
                    to_np(c(conv(x)))))
    for a, b in zip(res[0][:4], res[1][:4]):
        assert a == b
    np.testing.assert_allclose(res[0][4], res[1][4], atol=1e-6)


def _norms(T):
    nn, F = T.nn, T.nn.functional

    class Norms(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 8)
            self.ln = nn.LayerNorm(8)
            self.d = nn.Dropout(0.1)
            self.lr = nn.LeakyReLU(0.1)
            self.b = nn.Linear(8, 2)

        def forward(self, x):
            return self.b(self.lr(self.d(F.layer_norm(self.ln(self.a(x)), (8,)))))
    return Norms()


def test_layer_norm_dropout_leaky_relu_as_torch():
    """LayerNorm (float weight from the default mapping's qconfig) and F.layer_norm,
    Dropout and LeakyReLU lowered as torch lowers them."""
    e, t = both(_norms)
    dyadic_params(e, t)
    e.eval()
    t.eval()
    res = []
    for T, m in ((ember, e), (torch, t)):
        conv = (lambda a: e_tensor(a)) if T is ember else torch.from_numpy
        p = quiet(_fx(T).prepare_fx, m, _q(T).get_default_qconfig_mapping(),
                  (conv(dyadic((3, 4))),))
        apps = [type(o).__name__ for o in _apps(p).values()]
        for i in range(2):
            p(conv(dyadic((3, 4), seed=i)))
        c = quiet(_fx(T).convert_fx, p)
        ops = [str(n.target).split('.')[-1] for n in c.graph.nodes if n.op == 'call_function']
        res.append((apps, repr(c).split('\n\n\n')[0].count('Quantized'), list(c.state_dict()),
                    ops, to_np(c(conv(dyadic((3, 4), seed=9))))))
    assert res[0][:3] == res[1][:3]
    assert [o for o in res[0][3] if 'layer_norm' in o] == ['layer_norm']
    assert [o for o in res[1][3] if 'layer_norm' in o] == ['layer_norm']
    # the float layer norm's round-off may move an observer by an ulp
    np.testing.assert_allclose(res[0][4], res[1][4], atol=1e-6)


def test_skipped_modules_and_preserved_attrs_helpers_as_torch():
    from ember.ao.quantization.fx import custom_config as ec
    from torch.ao.quantization.fx import custom_config as tc
    out = []
    for T, C in ((ember, ec), (torch, tc)):
        c = C.PrepareCustomConfig().set_non_traceable_module_names(['head'])
        names, classes = _fx(T).get_skipped_module_name_and_classes(c, False)
        gm = T.fx.symbolic_trace(T.nn.ReLU())
        _fx(T).attach_preserved_attrs_to_model(gm, {'version': 2})
        out.append((names, classes, gm.version, gm.meta.get('_user_preserved_attributes')))
    assert out[0] == out[1]
