"""Seed 004's model-optimization chapter on ember: its LeNet5 through ``half()``, dynamic
quantization, post-training static quantization and quantization-aware training, as
printed (where the printed code misses a piece, ember fails or warns exactly as torch does)
and in working form (with QuantStub/DeQuantStub and a calibration pass). Each snippet is
written once, against a ``torch`` argument, and run on ember and on torch with the same
weights and inputs; outputs, the converted models' repr and state_dict keys and the
warnings are compared."""
import re

import numpy as np
import pytest
import torch as real_torch

import ember
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import compare_state, dyadic, dyadic_params, e_tensor, record, to_np


# ------------------------------------------------------------------ the seed's code
def seed_lenet5(torch):
    """Seed 004's LeNet5, verbatim (``from torch import nn``; ``import torch.nn.functional
    as F``)."""
    nn = torch.nn
    F = torch.nn.functional

    class LeNet5(nn.Module):
        def __init__(self):
            super(LeNet5, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(
                F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(
                F.relu(self.conv2(x)), 2)
            x = x.view(-1,
                       int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x
    return LeNet5


def seed_dynamic(torch, model):
    quantized_model = \
        torch.quantization.quantize_dynamic(
            model,
            {torch.nn.Linear},
            dtype=torch.qint8)
    return quantized_model


def seed_static(torch, LeNet5):
    static_quant_model = LeNet5()
    static_quant_model.qconfig = \
        torch.quantization.get_default_qconfig('fbgemm')
    torch.quantization.prepare(
        static_quant_model, inplace=True)
    torch.quantization.convert(
        static_quant_model, inplace=True)
    return static_quant_model


def seed_qat(torch, LeNet5):
    # the printed snippet, with its typo (``qat_mode``) kept
    qat_model = LeNet5()
    qat_mode.qconfig = \
        torch.quantization.get_default_qat_qconfig('fbgemm')  # noqa: F821
    torch.quantization.prepare_qat(
        qat_model, inplace=True)
    torch.quantization.convert(
        qat_model, inplace=True)
    return qat_model


def seed_qat_fixed_name(torch, LeNet5):
    # the printed snippet with the typo read as ``qat_model``... on a model still without
    # QuantStub/DeQuantStub
    qat_model = LeNet5()
    qat_model.qconfig = \
        torch.quantization.get_default_qat_qconfig('fbgemm')
    torch.quantization.prepare_qat(
        qat_model, inplace=True)
    torch.quantization.convert(
        qat_model, inplace=True)
    return qat_model


def stubbed_lenet5(torch, reshape=False):
    """The working form: LeNet5 between a QuantStub and a DeQuantStub. With
    ``reshape=True`` its ``x.view(...)`` is ``x.reshape(...)``: a quantized convolution
    returns a channels-last tensor (torch's kernels do), which ``view`` cannot flatten."""
    Base = seed_lenet5(torch)
    F = torch.nn.functional

    class QuantLeNet5(Base):
        def __init__(self):
            super().__init__()
            self.quant = torch.quantization.QuantStub()
            self.dequant = torch.quantization.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            if not reshape:
                return self.dequant(super().forward(x))
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.reshape(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.dequant(self.fc3(x))
    return QuantLeNet5


def _same_weights(make):
    """``make(lib)`` for both libraries, torch's parameters (rounded to multiples of 1/64,
    so that the float layers compute exactly) copied into ember's."""
    real_torch.manual_seed(0)
    t = make(real_torch)
    e = make(ember)
    dyadic_params(e, t)
    return e, t


def _quantized_both(prepare_and_run, reshape=True):
    """``prepare_and_run(lib, model, tensor)`` on the stubbed LeNet5 of each library (same
    weights); returns the converted models and their outputs on ``X`` (or the error
    raised)."""
    e, t = _same_weights(lambda lib: stubbed_lenet5(lib, reshape)())
    out = {}
    for name, lib, m in (('ember', ember, e), ('torch', real_torch, t)):
        tensor = e_tensor if lib is ember else real_torch.from_numpy
        q = prepare_and_run(lib, m, tensor)
        try:
            out[name] = (q, q(tensor(X)))
        except RuntimeError as exc:
            out[name] = (q, exc)
    (qe, ye), (qt, yt) = out['ember'], out['torch']
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    return qe, ye, qt, yt


def _static(lib, m, tensor):
    m.eval()
    m.qconfig = lib.quantization.get_default_qconfig('fbgemm')
    record(lib.quantization.prepare, m, inplace=True)
    for seed in range(3):                         # calibration
        m(tensor(dyadic((8, 3, 32, 32), seed=10 + seed)))
    return record(lib.quantization.convert, m)[0]


def _kinds(warns):
    """The warnings' categories and first words, without torch's once-per-process warning
    that quantized tensor creation is deprecated (whether it shows depends on what ran
    before in the process)."""
    return [(c, m.split()[0]) for c, m in warns
            if not m.startswith('torch.quantize_per_tensor, torch.quantize_per_channel')]


X = dyadic((4, 3, 32, 32), seed=1)


# ------------------------------------------------------------------ half()
def test_half_as_printed():
    e, t = _same_weights(lambda lib: seed_lenet5(lib)())
    e, t = e.half(), t.half()
    names = [(n, str(p.dtype)) for n, p in e.named_parameters()]
    assert names == [(n, str(p.dtype)) for n, p in t.named_parameters()]
    assert all(d == 'torch.float16' for _, d in names)
    ye = e(e_tensor(X).half())
    yt = t(real_torch.from_numpy(X).half())
    assert str(ye.dtype) == str(yt.dtype) == 'torch.float16'
    np.testing.assert_allclose(to_np(ye).astype(np.float32), to_np(yt).astype(np.float32),
                               rtol=1e-2, atol=2e-3)


# ------------------------------------------------------------------ dynamic
def test_dynamic_as_printed_on_the_half_model():
    e, t = _same_weights(lambda lib: seed_lenet5(lib)())
    e, t = e.half(), t.half()
    qe, we = record(seed_dynamic, ember, e)
    qt, wt = record(seed_dynamic, real_torch, t)
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    assert _kinds(we) == _kinds(wt)
    # as in torch, the half model's int8 linear layers then refuse half inputs
    with pytest.raises(RuntimeError) as te:
        qt(real_torch.from_numpy(X).half())
    with pytest.raises(RuntimeError) as ee:
        qe(e_tensor(X).half())
    assert str(ee.value) == str(te.value)


def test_dynamic_on_the_float_model():
    e, t = _same_weights(lambda lib: seed_lenet5(lib)())
    qe, _ = record(seed_dynamic, ember, e)
    qt, _ = record(seed_dynamic, real_torch, t)
    assert qe is not e and type(e.fc1) is ember.nn.Linear    # not in place
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    for k in ('fc1', 'fc2', 'fc3'):
        we, wt = qe.get_submodule(k).weight(), qt.get_submodule(k).weight()
        np.testing.assert_array_equal(we.int_repr().numpy(), wt.int_repr().numpy())
    ye, yt = qe(e_tensor(X)), qt(real_torch.from_numpy(X))
    np.testing.assert_array_equal(to_np(ye), to_np(yt))


# ------------------------------------------------------------------ static
def test_static_as_printed():
    e, t = _same_weights(lambda lib: seed_lenet5(lib)())
    qe, we = record(seed_static, ember, lambda: e)
    qt, wt = record(seed_static, real_torch, lambda: t)
    assert repr(qe) == repr(qt)          # uncalibrated: scale=1.0, zero_point=0
    assert list(qe.state_dict()) == list(qt.state_dict())
    assert _kinds(we) == _kinds(wt)
    # without a QuantStub, the quantized conv gets a float tensor: torch's error
    with pytest.raises(NotImplementedError) as te:
        qt(real_torch.from_numpy(X))
    with pytest.raises(NotImplementedError) as ee:
        qe(e_tensor(X))
    for exc in (te.value, ee.value):
        assert "Could not run '" in str(exc) and "from the 'CPU' backend" in str(exc)


def test_static_working_form_with_calibration():
    qe, ye, qt, yt = _quantized_both(_static)
    np.testing.assert_array_equal(to_np(ye), to_np(yt))


def test_static_seed_view_fails_as_torch():
    qe, ye, qt, yt = _quantized_both(_static, reshape=False)
    assert isinstance(yt, RuntimeError) and 'view size is not compatible' in str(yt)
    assert isinstance(ye, RuntimeError) and str(ye) == str(yt)


# ------------------------------------------------------------------ QAT
def test_qat_as_printed_fails_on_its_typo():
    for lib in (real_torch, ember):
        with pytest.raises(NameError, match="name 'qat_mode' is not defined"):
            seed_qat(lib, seed_lenet5(lib))


def test_qat_without_stubs_as_torch():
    e, t = _same_weights(lambda lib: seed_lenet5(lib)())
    qe, we = record(seed_qat_fixed_name, ember, lambda: e)
    qt, wt = record(seed_qat_fixed_name, real_torch, lambda: t)
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    assert _kinds(we) == _kinds(wt)
    with pytest.raises(NotImplementedError):
        qt(real_torch.from_numpy(X))
    with pytest.raises(NotImplementedError):
        qe(e_tensor(X))


def test_qat_working_form_train_then_convert():
    e, t = _same_weights(lambda lib: stubbed_lenet5(lib, reshape=True)())
    for lib, m in ((ember, e), (real_torch, t)):
        m.train()
        m.qconfig = record(lib.quantization.get_default_qat_qconfig, 'fbgemm')[0]
        record(lib.quantization.prepare_qat, m, inplace=True)
        tensor = e_tensor if lib is ember else real_torch.from_numpy
        opt = lib.optim.SGD(m.parameters(), lr=0.01)
        labels = np.arange(8) % 10
        for seed in range(2):                         # a little QAT training
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(
                m(tensor(dyadic((8, 3, 32, 32), seed=20 + seed))), tensor(labels))
            loss.backward()
            opt.step()
        m.eval()
    num = re.compile(r'-?[0-9]+[.][0-9]+(e-?[0-9]+)?')
    assert num.sub(lambda m: f'{float(m.group()):.4g}', repr(e)) == \
        num.sub(lambda m: f'{float(m.group()):.4g}', repr(t))   # observers' min/max
    # the trained weights and the fake-quantize statistics agree within float round-off (a
    # value that lands on the other side of a rounding boundary moves a gradient a little)
    compare_state(e, t, atol=1e-4)
    # converted from the same QAT state, the quantized models are integer-equal
    e.load_state_dict({k: e_tensor(v) for k, v in t.state_dict().items()})
    qe, _ = record(ember.quantization.convert, e)
    qt, _ = record(real_torch.quantization.convert, t)
    assert repr(qe) == repr(qt)
    assert list(qe.state_dict()) == list(qt.state_dict())
    ye, yt = qe(e_tensor(X)), qt(real_torch.from_numpy(X))
    np.testing.assert_array_equal(to_np(ye), to_np(yt))
