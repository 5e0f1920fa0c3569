"""ember.ao.quantization.fake_quantize (and _learnable_fake_quantize) against torch: the
same inputs give bit-equal outputs, gradients, scales and zero points over several steps;
enable/disable switches, state dicts (keys, dtypes, values; across libraries through
files), reprs and errors."""
import io

import numpy as np
import pytest
import torch
import torch.ao.quantization as TQ
from torch.ao.quantization._learnable_fake_quantize import _LearnableFakeQuantize as TL

import ember
import ember.ao.quantization as EQ
from ember.ao.quantization._learnable_fake_quantize import _LearnableFakeQuantize as EL
from tests.oracle import errors_both

pytestmark = pytest.mark.filterwarnings("ignore:Please use quant_min")

RNG = np.random.default_rng(0)
STEPS = [(RNG.normal(size=(3, 4, 2)) * s + o).astype(np.float32)
         for s, o in [(1, 0), (2, 0.5), (0.3, -1), (5, 0), (1, 1)]]

FACTORIES = ['default_fake_quant', 'default_weight_fake_quant', 'default_dynamic_fake_quant',
             'default_fixed_qparams_range_neg1to1_fake_quant',
             'default_fixed_qparams_range_0to1_fake_quant',
             'default_per_channel_weight_fake_quant', 'default_embedding_fake_quant',
             'default_embedding_fake_quant_4bit', 'default_histogram_fake_quant',
             'default_fused_act_fake_quant', 'default_fused_wt_fake_quant',
             'default_fused_per_channel_wt_fake_quant',
             'fused_wt_fake_quant_range_neg_127_to_127',
             'fused_per_channel_wt_fake_quant_range_neg_127_to_127']


def _run(m, fq, steps, toggles=None):
    outs = []
    for i, d in enumerate(steps):
        if toggles and i in toggles:
            toggles[i](fq)
        x = m.tensor(d, requires_grad=True)
        y = fq(x)
        y.backward(m.tensor(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(y.shape)))
        outs += [y.detach().numpy(), x.grad.numpy(), fq.scale.detach().numpy().copy(),
                 fq.zero_point.detach().numpy().copy()]
    return outs


def _assert_all_equal(e, t):
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('name', FACTORIES)
def test_default_fake_quants_bit_equal(name):
    steps = STEPS if 'histogram' not in name else STEPS[:2]
    if 'embedding' in name:
        steps = [d.reshape(6, 4) for d in steps]
    t = _run(torch, getattr(TQ, name)(), steps)
    e = _run(ember, getattr(EQ, name)(), steps)
    _assert_all_equal(e, t)


def test_state_dict_keys_dtypes_and_repr():
    for name in FACTORIES:
        t, e = getattr(TQ, name)(), getattr(EQ, name)()
        tsd, esd = t.state_dict(), e.state_dict()
        assert list(esd) == list(tsd), name
        for k in tsd:
            assert str(esd[k].dtype) == str(tsd[k].dtype), (name, k)
            np.testing.assert_array_equal(esd[k].numpy(), tsd[k].numpy())
        assert repr(e) == repr(t), name


def _toggles(Q):
    return {1: Q.disable_observer, 2: Q.disable_fake_quant, 3: Q.enable_fake_quant,
            4: Q.enable_observer}


@pytest.mark.parametrize('name', ['default_fake_quant', 'default_fused_act_fake_quant',
                                  'default_per_channel_weight_fake_quant',
                                  'default_fused_per_channel_wt_fake_quant'])
def test_enable_disable(name):
    t = _run(torch, getattr(TQ, name)(), STEPS, _toggles(TQ))
    e = _run(ember, getattr(EQ, name)(), STEPS, _toggles(EQ))
    _assert_all_equal(e, t)
    for m, Q in ((torch, TQ), (ember, EQ)):
        net = m.nn.Sequential(getattr(Q, name)(), m.nn.ReLU())
        net.apply(Q.disable_fake_quant)
        net.apply(Q.disable_observer)
        assert net[0].fake_quant_enabled.item() == 0 and net[0].observer_enabled.item() == 0


@pytest.mark.parametrize('name', ['default_fake_quant', 'default_per_channel_weight_fake_quant',
                                  'default_fused_per_channel_wt_fake_quant'])
def test_state_dict_across_libraries(name):
    t, e = getattr(TQ, name)(), getattr(EQ, name)()
    for d in STEPS[:3]:
        t(torch.tensor(d))
        e(ember.tensor(d))
    buf = io.BytesIO()
    torch.save(t.state_dict(), buf)
    buf.seek(0)
    e2 = getattr(EQ, name)()
    e2.load_state_dict(ember.load(buf))
    buf = io.BytesIO()
    ember.save(e.state_dict(), buf)
    buf.seek(0)
    t2 = getattr(TQ, name)()
    t2.load_state_dict(torch.load(buf))
    for a, b in ((e2, t), (t2, t)):
        for k, v in b.state_dict().items():
            np.testing.assert_array_equal(a.state_dict()[k].numpy(), v.numpy())
    x = STEPS[4]
    _assert_all_equal([e2(ember.tensor(x)).numpy()], [t2(torch.tensor(x)).numpy()])


def test_fake_quantize_custom_args_and_errors():
    kw = dict(quant_min=-8, quant_max=7, dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)
    t = _run(torch, TQ.FakeQuantize(**kw), STEPS)
    ekw = dict(kw, dtype=ember.qint8, qscheme=ember.per_tensor_symmetric)
    e = _run(ember, EQ.FakeQuantize(**ekw), STEPS)
    _assert_all_equal(e, t)
    Q = lambda m: TQ if m is torch else EQ  # noqa: E731
    errors_both(lambda m: Q(m).FakeQuantize(quant_min=5, quant_max=1),
                'quant_min must be less than or equal to quant_max')
    errors_both(lambda m: Q(m).FakeQuantize(quant_min=-5, quant_max=1), 'quant_min out of bound')
    errors_both(lambda m: Q(m).FakeQuantize(quant_min=0, quant_max=300),
                'quant_max out of bound')
    errors_both(lambda m: Q(m).FakeQuantize(
        observer=Q(m).MinMaxObserver.with_args(dtype=m.qint8), quant_min=-200, quant_max=0),
        'quant_min out of bound')
    errors_both(lambda m: Q(m).FixedQParamsFakeQuantize(Q(m).MinMaxObserver),
                "FixedQParamsFakeQuantize's observer must be a FixedQParamsObserver")
    errors_both(lambda m: Q(m).FusedMovingAvgObsFakeQuantize(observer=Q(m).MinMaxObserver),
                'Fused observer+fake_quant module only works with MovingAverageMinMaxObserver')


def test_histogram_fake_quant_resizes_on_load():
    # per-channel scale/zero_point buffers start with one element; loading resizes them
    e = EQ.default_per_channel_weight_fake_quant()
    t = TQ.default_per_channel_weight_fake_quant()
    t(torch.tensor(STEPS[0]))
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert tuple(e.scale.shape) == tuple(t.scale.shape) == (3,)


@pytest.mark.parametrize('kind', ['per_tensor', 'per_channel', 'symmetric', 'grad_scaling'])
def test_learnable_fake_quantize(kind):
    def build(m, L, Q):
        if kind == 'per_channel':
            return L(Q.MovingAveragePerChannelMinMaxObserver, quant_min=0, quant_max=255,
                     channel_len=3, ch_axis=0)
        if kind == 'symmetric':
            return L(Q.MovingAverageMinMaxObserver, quant_min=-128, quant_max=127,
                     dtype=m.qint8, qscheme=m.per_tensor_symmetric)
        return L(Q.MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                 use_grad_scaling=kind == 'grad_scaling')
    res = []
    for m, L, Q in ((torch, TL, TQ), (ember, EL, EQ)):
        fq = build(m, L, Q)
        out = [fq.bitwidth, list(fq.state_dict())]
        for i, d in enumerate(STEPS):
            if i == 2:
                fq.enable_param_learning()
            if i == 4:
                fq.enable_static_observation()
            x = m.tensor(d, requires_grad=True)
            y = fq(x)
            y.sum().backward()
            out += [y.detach().numpy(), x.grad.numpy(), fq.scale.detach().numpy().copy(),
                    fq.zero_point.detach().numpy().copy()]
            if fq.scale.grad is not None:
                out.append(fq.scale.grad.numpy().copy())
                out.append(fq.zero_point.grad.numpy().copy())
                fq.scale.grad = None
                fq.zero_point.grad = None
        s, z = fq.calculate_qparams()
        out += [s.numpy(), z.numpy()]
        res.append(out)
    t, e = res
    assert e[:2] == t[:2]
    assert len(e) == len(t)
    for a, b in zip(e[2:], t[2:]):
        assert a.dtype == b.dtype and a.shape == b.shape
        # parameter gradients are float32 sums: summation order differs from torch
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
    errors_both(lambda m: (TL if m is torch else EL)(
        (TQ if m is torch else EQ).MovingAverageMinMaxObserver, quant_min=5, quant_max=5),
        'quant_min must be strictly less than quant_max.')
    errors_both(lambda m: (TL if m is torch else EL)(
        (TQ if m is torch else EQ).MovingAverageMinMaxObserver, channel_len=0),
        'Channel size must be a positive integer.')
