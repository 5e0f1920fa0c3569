"""The eager workflow (propagate_qconfig_, prepare, prepare_qat, convert, quantize,
quantize_qat, quantize_dynamic, add_quant_dequant, QuantWrapper) against torch on small
models: the prepared/converted model's repr and state_dict keys, observers' statistics,
outputs, and torch 2.13's warnings."""
import numpy as np
import pytest
import torch

import ember
import ember.ao.quantization as eq
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
