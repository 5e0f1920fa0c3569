"""The eager workflow (propagate_qconfig_, prepare, prepare_qat, convert, quantize,
quantize_qat, quantize_dynamic, add_quant_dequant, QuantWrapper) against torch on small
models: the prepared/converted model's repr and state_dict keys, observers' statistics,
outputs, and torch 2.13's warnings."""
import re

import numpy as np
import pytest
import torch

import ember
import ember.ao.quantization as eq
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import (both, close, compare_state, dyadic, dyadic_params, e_tensor, quiet,
                            record, to_np)

tq = torch.ao.quantization


def _ns(T):
    return tq if T is torch else eq


def _small(T):
    nn, q = T.nn, _ns(T)

    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = nn.Conv2d(2, 3, 3)
            self.relu = nn.ReLU()
            self.drop = nn.Dropout(0.0)
            self.fc = nn.Linear(12, 4)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.relu(self.conv(self.quant(x)))
            x = self.drop(x)
            return self.dequant(self.fc(x.reshape(x.shape[0], -1)))
    return Small()


def _x(seed=0, shape=(4, 2, 4, 4)):
    return dyadic(shape, seed)


def _warn_kinds(warns):
    return [(c, m[:60]) for c, m in warns]


def test_stubs_and_wrapper_match_torch():
    e, t = both(lambda T: _ns(T).QuantWrapper(T.nn.Linear(3, 2)))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    close(e(e_tensor(_x(shape=(2, 3)))), t(torch.from_numpy(_x(shape=(2, 3)))))
    lin = ember.nn.Linear(3, 2).eval()
    lin.qconfig = eq.default_qconfig
    w = eq.QuantWrapper(lin)
    assert w.quant.qconfig is lin.qconfig and w.dequant.qconfig is lin.qconfig
    assert not w.training
    assert not hasattr(eq.QuantStub(), 'qconfig')


def test_propagate_qconfig_by_type_and_name():
    def run(T):
        m = _small(T)
        q = _ns(T)
        q.propagate_qconfig_(m, {T.nn.Conv2d: q.default_qconfig, 'fc': q.default_qat_qconfig})
        return {n: (None if getattr(mod, 'qconfig', None) is None else
                    'qat' if q.qconfig_equals(mod.qconfig, q.default_qat_qconfig)
                    else 'default')
                for n, mod in m.named_modules()}
    assert run(ember) == run(torch)
    assert run(ember)['conv'] == 'default' and run(ember)['fc'] == 'qat'


def test_prepare_observers_and_calibration_match_torch():
    e, t = both(_small)
    dyadic_params(e, t)
    e.eval(), t.eval()
    e.qconfig = eq.get_default_qconfig('x86')
    t.qconfig = tq.get_default_qconfig('x86')
    pe, we = record(eq.prepare, e)
    pt, wt = record(tq.prepare, t)
    assert _warn_kinds(we) == _warn_kinds(wt)
    assert we[0] == wt[0] and we[0][0] == 'DeprecationWarning'
    assert pe is not e and not hasattr(e.conv, 'activation_post_process')
    assert repr(pe) == repr(pt)
    assert list(pe.state_dict()) == list(pt.state_dict())
    for seed in range(3):
        close(pe(e_tensor(_x(seed))), pt(torch.from_numpy(_x(seed))), atol=1e-5)
    compare_state(pe, pt, atol=1e-5)     # observers' min/max and histograms
    for name in ('quant', 'conv', 'fc'):
        se = pe.get_submodule(name).activation_post_process.calculate_qparams()
        st = pt.get_submodule(name).activation_post_process.calculate_qparams()
        assert float(se[0]) == float(st[0]) and int(se[1]) == int(st[1]), name


def test_prepare_without_qconfig_warns_as_torch():
    (_, we), (_, wt) = record(eq.prepare, _small(ember)), record(tq.prepare, _small(torch))
    assert we == wt
    assert any('None of the submodule got qconfig applied' in m for _, m in we)


def test_prepare_qat_matches_torch_and_trains_alike():
    e, t = both(_small)
    e.qconfig = quiet(eq.get_default_qat_qconfig, 'x86')
    t.qconfig = quiet(tq.get_default_qat_qconfig, 'x86')
    pe, we = record(eq.prepare_qat, e)
    pt, wt = record(tq.prepare_qat, t)
    assert _warn_kinds(we) == _warn_kinds(wt)
    assert [c for c, _ in we].count('DeprecationWarning') == 3     # prepare_qat, convert, prepare
    assert repr(pe) == repr(pt)
    assert list(pe.state_dict()) == list(pt.state_dict())
    oe = ember.optim.SGD(pe.parameters(), lr=0.1)
    ot = torch.optim.SGD(pt.parameters(), lr=0.1)
    for seed in range(3):
        ye, yt = pe(e_tensor(_x(seed))), pt(torch.from_numpy(_x(seed)))
        close(ye, yt, atol=1e-5)
        ye.square().sum().backward(), yt.square().sum().backward()
        oe.step(), ot.step()
        oe.zero_grad(), ot.zero_grad()
    compare_state(pe, pt, atol=1e-5)


def test_prepare_qat_needs_training_mode():
    for T in (torch, ember):
        m = _small(T).eval()
        with pytest.raises(AssertionError, match='prepare_qat only works on models in training'):
            quiet(_ns(T).prepare_qat, m)


def test_add_quant_dequant_as_torch():
    def run(T):
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU(), T.nn.Sequential(T.nn.Linear(2, 2)))
        m[0].qconfig = _ns(T).default_qconfig
        m[2][0].qconfig = _ns(T).default_qconfig
        return _ns(T).add_quant_dequant(m)
    e, t = run(ember), run(torch)
    assert repr(e) == repr(t)
    lin = ember.nn.Linear(2, 2)
    lin.qconfig = eq.default_qconfig
    assert type(eq.add_quant_dequant(lin)) is eq.QuantWrapper


def test_deprecation_warning_points_at_the_caller():
    m = _small(ember).eval()
    m.qconfig = eq.default_qconfig
    _, w = record(eq.prepare, m)
    assert w[0][0] == 'DeprecationWarning'
    assert w[0][1] == tq.quantize.__deprecated__
    import warnings
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        eq.prepare(_small(ember))
    assert ws[0].filename == __file__
    # quantize_dynamic warns twice (itself, then convert inside it), as torch
    for q, T in ((eq, ember), (tq, torch)):
        lin = T.nn.Sequential(T.nn.Linear(2, 2))
        _, w = record(q.quantize_dynamic, lin)
        assert [c for c, _ in w].count('DeprecationWarning') == 2


@pytest.mark.parametrize('spec', [None, 'set'])
def test_quantize_dynamic_unknown_dtype_as_torch(spec):
    errs = []
    for T in (torch, ember):
        m = T.nn.Sequential(T.nn.Linear(2, 2))
        qs = None if spec is None else {T.nn.Linear}
        with pytest.raises(Exception) as ex:
            quiet(_ns(T).quantize_dynamic, m, qs, dtype=T.float32)
        errs.append((type(ex.value), str(ex.value)))
    assert errs[0] == errs[1]


def _static_model(T, eps=0.0):
    nn, q = T.nn, _ns(T)

    class Static(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = nn.Conv2d(2, 4, 3)
            self.bn = nn.BatchNorm2d(4, eps=eps)   # with running_var 4 the folding is exact
            self.bn.running_var.fill_(4.0)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(4, 4, 1)
            self.relu2 = nn.ReLU()
            self.fc = nn.Linear(16, 5)
            self.relu3 = nn.ReLU()
            self.fc2 = nn.Linear(5, 3)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.relu(self.bn(self.conv(self.quant(x))))
            x = self.relu2(self.conv2(x))
            x = self.relu3(self.fc(x.reshape(x.shape[0], -1)))
            return self.dequant(self.fc2(x))
    return Static()


STATIC_FUSE = [['conv', 'bn', 'relu'], ['conv2', 'relu2'], ['fc', 'relu3']]


@pytest.mark.parametrize('backend', ['x86', 'fbgemm', 'qnnpack'])
def test_static_flow_converted_model_matches_torch(backend):
    e, t = both(_static_model)
    dyadic_params(e, t)
    res = {}
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m.eval()
        m = q.fuse_modules(m, STATIC_FUSE)
        m.qconfig = quiet(q.get_default_qconfig, backend)
        prepared = quiet(q.prepare, m)
        tensor = e_tensor if T is ember else torch.from_numpy
        for seed in range(2):
            prepared(tensor(_x(seed, (4, 2, 4, 4))))
        converted, w = record(q.convert, prepared)
        res[T.__name__] = (converted, converted(tensor(_x(9, (4, 2, 4, 4)))), w)
    (ce, ye, we), (ct, yt, wt) = res['ember'], res['torch']
    assert repr(ce) == repr(ct)
    assert list(ce.state_dict()) == list(ct.state_dict())
    assert _warn_kinds(we) == _warn_kinds(wt)
    np.testing.assert_array_equal(to_np(ye), to_np(yt))
    assert not hasattr(ce, 'qconfig') and not hasattr(ce.conv, 'activation_post_process')


def test_quantize_one_call_and_inplace():
    e, t = both(_static_model)
    dyadic_params(e, t)
    outs = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m.qconfig = quiet(q.get_default_qconfig, 'x86')
        tensor = e_tensor if T is ember else torch.from_numpy
        calib = lambda model, xs: [model(x) for x in xs]
        qm, w = record(q.quantize, m, calib, ([tensor(_x(s, (4, 2, 4, 4))) for s in range(2)],))
        assert [c for c, _ in w].count('DeprecationWarning') == 3
        assert type(m.conv).__name__ == 'Conv2d'          # a copy
        outs.append((qm, qm(tensor(_x(5, (4, 2, 4, 4))))))
    assert repr(outs[0][0]) == repr(outs[1][0])
    np.testing.assert_array_equal(to_np(outs[0][1]), to_np(outs[1][1]))


def test_quantize_qat_one_call():
    e, t = both(lambda T: _static_model(T, eps=1e-5))
    dyadic_params(e, t)
    outs = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m.qconfig = quiet(q.get_default_qat_qconfig, 'x86')
        tensor = e_tensor if T is ember else torch.from_numpy
        run = lambda model, x: model(x)
        qm, w = record(q.quantize_qat, m, run, (tensor(_x(1, (4, 2, 4, 4))),))
        assert [c for c, _ in w].count('DeprecationWarning') == 5
        qm.eval()
        outs.append((qm, qm(tensor(_x(5, (4, 2, 4, 4))))))
    # the training pass normalizes with batch statistics: float round-off may move the
    # qparams by an ulp, so the numbers are compared to 4 digits, the outputs to one step
    num = re.compile(r'-?[0-9]+[.][0-9]+(e-?[0-9]+)?')
    reprs = [num.sub(lambda m: f'{float(m.group()):.4g}', repr(qm)) for qm, _ in outs]
    assert reprs[0] == reprs[1]
    np.testing.assert_allclose(to_np(outs[0][1]), to_np(outs[1][1]), rtol=0,
                               atol=float(outs[1][0].fc2.scale) * 1.01)


def _dyn_model(T):
    nn = T.nn
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(),
                         nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 4)))


@pytest.mark.parametrize('spec,dtype', [
    (None, 'qint8'), ('set', 'qint8'), ('set', 'float16'), ('names', 'qint8'),
    ('dict', 'qint8'), ('fused', 'qint8')])
def test_quantize_dynamic_matches_torch(spec, dtype):
    e, t = both(_dyn_model)
    dyadic_params(e, t)
    outs = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        kw = {'dtype': getattr(T, dtype)}
        if spec == 'set':
            kw['qconfig_spec'] = {T.nn.Linear}
        elif spec == 'names':
            kw['qconfig_spec'] = {'0', '2.1'}
        elif spec == 'dict':
            kw['qconfig_spec'] = {'2': q.per_channel_dynamic_qconfig,
                                  T.nn.Linear: q.default_dynamic_qconfig}
        elif spec == 'fused':
            m = q.fuse_modules(m.eval(), ['0', '1'])
        qm, w = record(q.quantize_dynamic, m, **kw)
        assert [c for c, _ in w].count('DeprecationWarning') == 2
        tensor = e_tensor if T is ember else torch.from_numpy
        outs.append((qm, qm(tensor(_x(3, (5, 6)))), m))
    (qe, ye, me), (qt, yt, mt) = outs
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    if spec == 'names':      # '2.0' stays a float Linear: float round-off after it
        np.testing.assert_allclose(to_np(ye), to_np(yt), rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(to_np(ye), to_np(yt))
    assert me[0] is not qe[0]       # not in place by default


def test_quantize_dynamic_inplace_and_mapping():
    m = _dyn_model(ember)
    q, _ = record(eq.quantize_dynamic, m, {ember.nn.Linear}, inplace=True)
    assert q is m and m[0]._get_name() == 'DynamicQuantizedLinear'
    m = _dyn_model(ember)
    q, _ = record(eq.quantize_dynamic, m, {ember.nn.Linear}, mapping={})
    assert type(q[0]) is ember.nn.Linear


def test_swap_module_keeps_user_hooks():
    lin = ember.nn.Linear(4, 4)
    lin.qconfig = eq.default_dynamic_qconfig
    seen = []
    lin.register_forward_pre_hook(lambda m, a: seen.append('pre'))
    lin.register_forward_hook(lambda m, a, o: seen.append('post'))
    new = eq.swap_module(lin, eq.get_default_dynamic_quant_module_mappings(), {})
    assert new._get_name() == 'DynamicQuantizedLinear'
    new(ember.randn(2, 4))
    assert seen == ['pre', 'post']


def _bn_model(T):
    nn, q = T.nn, _ns(T)

    class BN(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = q.QuantStub()
            self.conv = nn.Conv2d(2, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(4, 4, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(4)
            self.fc = nn.Linear(16, 5)
            self.bn3 = nn.BatchNorm1d(5)
            self.dequant = q.DeQuantStub()

        def forward(self, x):
            x = self.bn2(self.conv2(self.relu(self.bn(self.conv(self.quant(x))))))
            return self.dequant(self.bn3(self.fc(x.reshape(x.shape[0], -1))))
    return BN()


def test_qat_conv_bn_flow_matches_torch():
    """fuse_modules_qat -> prepare_qat -> training passes -> convert, with the batch norms
    folded: QAT state within round-off; converted from the same state, integer-equal."""
    e, t = both(_bn_model)
    groups = [['conv', 'bn', 'relu'], ['conv2', 'bn2'], ['fc', 'bn3']]
    models = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m = q.fuse_modules_qat(m.train(), groups)
        m.qconfig = quiet(q.get_default_qat_qconfig, 'x86')
        m = quiet(q.prepare_qat, m)
        tensor = e_tensor if T is ember else torch.from_numpy
        for seed in range(3):
            m(tensor(_x(seed, (6, 2, 4, 4))))
        models.append(m.eval())
    me, mt = models
    assert type(me.conv).__name__ == 'ConvBnReLU2d' and type(me.fc).__name__ == 'LinearBn1d'
    assert list(me.state_dict()) == list(mt.state_dict())
    compare_state(me, mt, atol=1e-4)
    me.load_state_dict({k: e_tensor(v) for k, v in mt.state_dict().items()})
    ce, ct = quiet(eq.convert, me), quiet(tq.convert, mt)
    assert repr(ce) == repr(ct)
    assert list(ce.state_dict()) == list(ct.state_dict())
    ye, yt = ce(e_tensor(_x(7, (3, 2, 4, 4)))), ct(torch.from_numpy(_x(7, (3, 2, 4, 4))))
    np.testing.assert_array_equal(to_np(ye), to_np(yt))


def test_embedding_qat_and_weight_only_flows_match_torch():
    e, t = both(lambda T: T.nn.Sequential(T.nn.Embedding(10, 4), T.nn.Linear(4, 2)))
    idx = np.arange(6).reshape(2, 3) % 10
    res = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m[0].qconfig = q.default_embedding_qat_qconfig
        p = quiet(q.prepare_qat, m.train(), mapping=q.get_embedding_qat_module_mappings())
        x = T.tensor(idx)
        p(x)
        c = quiet(q.convert, p.eval(), mapping=q.get_embedding_static_quant_module_mappings())
        d = quiet(q.quantize_dynamic, T.nn.Sequential(c[1], T.nn.EmbeddingBag(10, 4)),
                  dtype=T.quint8)
        res.append((c, c[0](x), d))
    (ce, ye, de), (ct, yt, dt) = res
    assert repr(ce) == repr(ct) and repr(de) == repr(dt)
    assert list(ce.state_dict()) == list(ct.state_dict())
    np.testing.assert_array_equal(to_np(ye), to_np(yt))


def test_float_functional_is_observed_and_converted_as_torch():
    def make(T):
        nn, q = T.nn, _ns(T)
        nnq = torch.ao.nn.quantized if T is torch else ember.ao.nn.quantized

        class Add(nn.Module):
            def __init__(self):
                super().__init__()
                self.quant = q.QuantStub()
                self.fc = nn.Linear(4, 4)
                self.add = nnq.FloatFunctional()
                self.dequant = q.DeQuantStub()

            def forward(self, x):
                x = self.quant(x)
                return self.dequant(self.add.add(self.fc(x), x))
        return Add()
    e, t = both(make)
    dyadic_params(e, t)
    res = []
    for T, m in ((ember, e), (torch, t)):
        q = _ns(T)
        m.eval().qconfig = q.default_qconfig
        p = quiet(q.prepare, m)
        tensor = e_tensor if T is ember else torch.from_numpy
        p(tensor(_x(0, (5, 4))))
        c = quiet(q.convert, p)
        res.append((p, c, c(tensor(_x(1, (5, 4))))))
    (pe, ce, ye), (pt, ct, yt) = res
    assert repr(pe) == repr(pt) and repr(ce) == repr(ct)
    assert list(ce.state_dict()) == list(ct.state_dict())
    np.testing.assert_array_equal(to_np(ye), to_np(yt))


def test_prepare_qat_gives_sigmoid_and_tanh_fixed_qparams_as_torch():
    def make(T):
        return T.nn.Sequential(_ns(T).QuantStub(), T.nn.Linear(3, 3), T.nn.Sigmoid(),
                               T.nn.Linear(3, 3), T.nn.Tanh(), _ns(T).DeQuantStub())
    e, t = both(make)
    for T, m in ((ember, e), (torch, t)):
        m.qconfig = quiet(_ns(T).get_default_qat_qconfig, 'x86')
    pe, pt = quiet(eq.prepare_qat, e), quiet(tq.prepare_qat, t)
    assert repr(pe) == repr(pt)
    assert type(pe[2].activation_post_process).__name__ == 'FixedQParamsFakeQuantize'
    close(pe(e_tensor(_x(0, (4, 3)))), pt(torch.from_numpy(_x(0, (4, 3)))), atol=1e-6)


def test_quantize_dynamic_default_spec_takes_rnns_as_torch():
    class Net:
        @staticmethod
        def make(T):
            nn = T.nn

            class RNNNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(4, 5, batch_first=True)
                    self.cell = nn.GRUCell(5, 3)
                    self.fc = nn.Linear(3, 2)

                def forward(self, x):
                    y, _ = self.lstm(x)
                    return self.fc(self.cell(y[:, -1]))
            return RNNNet()
    e, t = both(Net.make)
    qe, qt = quiet(eq.quantize_dynamic, e), quiet(tq.quantize_dynamic, t)
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    x = _x(2, (3, 6, 4))
    close(qe(e_tensor(x)), qt(torch.from_numpy(x)), atol=1e-5)
