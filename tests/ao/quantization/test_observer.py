"""ember.ao.quantization.observer against torch.ao.quantization.observer: the same
calibration data give bit-equal min/max buffers, histograms, scales and zero points (values
and dtypes); reprs, state dicts (keys, values, versions; saved by one library and loaded by
the other), the default observer factories, warnings and errors."""
import io
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as TQ

import ember
import ember.ao.quantization as EQ
from tests.oracle import errors_both

pytestmark = pytest.mark.filterwarnings("ignore:Please use quant_min")

RNG = np.random.default_rng(0)
DATA = [(RNG.normal(size=(4, 8, 3)) * s + o).astype(np.float32)
        for s, o in [(1, 0), (3, 1), (0.5, -2), (10, 0.3), (0.1, 0.0)]]


def _conv(v, m):
    """A torch dtype/qscheme argument as the same-named object of module ``m``."""
    if isinstance(v, (torch.dtype, torch.qscheme)):
        return getattr(m, str(v).split('.')[-1])
    return v


def _make(m, name, kw):
    Q = TQ if m is torch else EQ
    return getattr(Q, name)(**{k: _conv(v, m) for k, v in kw.items()})


def _state(obs):
    s, z = obs.calculate_qparams()
    out = [s.numpy(), z.numpy(), str(s.dtype).replace('ember', 'torch'), str(z.dtype)]
    for b in ('min_val', 'max_val', 'histogram'):
        if hasattr(obs, b):
            out.append(getattr(obs, b).numpy())
    out.append(repr(obs))
    return out


def _compare(name, kw, data=DATA):
    res = []
    for m in (torch, ember):
        obs = _make(m, name, kw)
        for d in data:
            obs(m.tensor(d))
        res.append(_state(obs))
    t, e = res
    assert len(t) == len(e)
    for a, b in zip(e, t):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


PER_TENSOR = [{}, {'dtype': torch.qint8}, {'qscheme': torch.per_tensor_symmetric},
              {'dtype': torch.qint8, 'qscheme': torch.per_tensor_symmetric},
              {'quant_min': 0, 'quant_max': 15}, {'dtype': torch.qint32},
              {'reduce_range': True},
              {'quant_min': -8, 'quant_max': 7, 'dtype': torch.qint8,
               'qscheme': torch.per_tensor_symmetric},
              {'quant_min': 0, 'quant_max': 15, 'qscheme': torch.per_tensor_symmetric},
              {'eps': 0.5}]


@pytest.mark.parametrize('kw', PER_TENSOR)
@pytest.mark.parametrize('name', ['MinMaxObserver', 'MovingAverageMinMaxObserver'])
def test_per_tensor_observers(name, kw):
    _compare(name, kw)


def test_moving_average_constant():
    _compare('MovingAverageMinMaxObserver', {'averaging_constant': 0.37})
    _compare('MovingAverageMinMaxObserver', {'averaging_constant': 1, 'is_dynamic': True})


PER_CHANNEL = [{}, {'dtype': torch.qint8, 'qscheme': torch.per_channel_symmetric},
               {'ch_axis': 1}, {'ch_axis': 2, 'qscheme': torch.per_channel_affine_float_qparams},
               {'ch_axis': -1}, {'dtype': torch.quint4x2,
                                 'qscheme': torch.per_channel_affine_float_qparams},
               {'quant_min': -127, 'quant_max': 127, 'dtype': torch.qint8,
                'qscheme': torch.per_channel_symmetric, 'eps': 2 ** -12}]


@pytest.mark.parametrize('kw', PER_CHANNEL)
@pytest.mark.parametrize('name', ['PerChannelMinMaxObserver',
                                  'MovingAveragePerChannelMinMaxObserver'])
def test_per_channel_observers(name, kw):
    _compare(name, kw)


@pytest.mark.parametrize('kw', [{}, {'bins': 256}, {'reduce_range': True},
                                {'dtype': torch.qint8, 'qscheme': torch.per_tensor_symmetric},
                                {'quant_min': 0, 'quant_max': 127}])
def test_histogram_observer(kw):
    # ranges that widen, shrink and repeat exercise the histogram combination paths
    data = DATA + [DATA[0], np.full((3,), 0.25, np.float32)]
    _compare('HistogramObserver', kw, data)


def test_histogram_constant_first_then_wider():
    data = [np.full((5,), 1.5, np.float32), RNG.normal(size=200).astype(np.float32) * 4]
    _compare('HistogramObserver', {'bins': 128}, data)


def test_histogram_skewed_search():
    # long tails: the L2 search moves both ends
    x = np.concatenate([RNG.normal(size=3000), RNG.standard_cauchy(size=200)]).astype(
        np.float32)
    _compare('HistogramObserver', {}, [x[:1500], x[1500:]])


def test_histogram_ignores_inf():
    res = []
    for m in (torch, ember):
        obs = _make(m, 'HistogramObserver', {'bins': 64})
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            obs(m.tensor([1.0, float('inf'), -2.0, 3.0]))
            obs(m.tensor([float('-inf')]))
        res.append(([str(x.message) for x in w], _state(obs)[:-1]))
    (we, se), (wt, st) = res[1], res[0]
    assert we == wt == ['torch.inf detected in input tensor, ignoring input'] * 2
    for a, b in zip(se, st):
        np.testing.assert_array_equal(a, b) if isinstance(b, np.ndarray) else None


def test_uninitialized_defaults_warn():
    for name in ('MinMaxObserver', 'PerChannelMinMaxObserver', 'HistogramObserver'):
        out = []
        for m in (torch, ember):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                s, z = _make(m, name, {}).calculate_qparams()
            out.append((s.tolist(), z.tolist(), str(z.dtype), [str(x.message) for x in w]))
        assert out[0][:2] == out[1][:2] and out[1][3] == out[0][3]


def test_empty_input_is_ignored():
    for name in ('MinMaxObserver', 'PerChannelMinMaxObserver', 'HistogramObserver'):
        e = _make(ember, name, {})
        x = ember.zeros(0, 3)
        assert e(x) is x
        assert e.min_val.numel() in (0, 1)


def test_forward_returns_input_and_no_grad_tape():
    x = ember.randn(3, requires_grad=True)
    obs = EQ.MinMaxObserver()
    assert obs(x) is x
    assert not obs.min_val.requires_grad


def test_reset_min_max_vals():
    for m in (torch, ember):
        obs = _make(m, 'MinMaxObserver', {})
        obs(m.tensor([1.0, 2.0]))
        obs.reset_min_max_vals()
        assert obs.min_val.item() == float('inf') and obs.max_val.item() == float('-inf')
        pc = _make(m, 'PerChannelMinMaxObserver', {})
        pc(m.ones(2, 2))
        pc.reset_min_max_vals()
        assert pc.min_val.shape == (0,)


def test_fixed_qparams_and_placeholders():
    for m in (torch, ember):
        Q = TQ if m is torch else EQ
        f = Q.default_fixed_qparams_range_neg1to1_observer()
        s, z = f.calculate_qparams()
        assert (s.item(), z.item(), str(z.dtype).split('.')[-1]) == (2 / 256, 128, 'int32')
        assert f(m.ones(2)) is not None
        p = Q.default_dynamic_quant_observer()
        assert (p.dtype == m.quint8, p.is_dynamic, p.quant_min, p.quant_max) == \
            (True, True, 0, 255)
        assert repr(Q.PlaceholderObserver(dtype=m.float16)) == \
            'PlaceholderObserver(dtype=torch.float16, is_dynamic=False)'
        r = Q.RecordingObserver()
        r(m.ones(2))
        assert len(r.get_tensor_value()) == 1
        assert Q.NoopObserver().dtype == m.float16
        assert Q.ReuseInputObserver().dtype == m.quint8
    for name in ('PlaceholderObserver', 'RecordingObserver', 'NoopObserver',
                 'ReuseInputObserver'):
        errors_both(lambda m: _make(m, name, {}).calculate_qparams(),
                    f'calculate_qparams should not be called for {name}')


def test_with_args_and_callable_args():
    calls = []

    def make_eps():
        calls.append(1)
        return 0.25
    for m in (torch, ember):
        Q = TQ if m is torch else EQ
        ctor = Q.MinMaxObserver.with_args(dtype=m.qint8).with_args(quant_min=-8, quant_max=7)
        a, b = ctor(), ctor()
        assert a is not b and (a.quant_min, a.quant_max, a.dtype == m.qint8) == (-8, 7, True)
        cc = Q.MinMaxObserver.with_callable_args(eps=make_eps).with_args(dtype=m.qint8)
        assert cc().eps.item() == 0.25
        assert cc(eps=0.5).eps.item() == 0.5   # an explicit keyword wins
    assert len(calls) == 2


def test_default_factories_match():
    names = [n for n in TQ.observer.__all__ if n.startswith(('default_', 'per_channel_w',
                                                              'weight_obs'))]
    for n in names:
        t, e = getattr(TQ.observer, n)(), getattr(EQ.observer, n)()
        assert type(e).__name__ == type(t).__name__, n
        for attr in ('dtype', 'qscheme', 'quant_min', 'quant_max', 'reduce_range', 'ch_axis',
                     'is_dynamic', 'has_customized_qrange'):
            if hasattr(t, attr):
                assert str(getattr(e, attr)) == str(getattr(t, attr)), (n, attr)
        if hasattr(t, 'eps') and isinstance(t.eps, torch.Tensor):
            assert e.eps.item() == t.eps.item()
        assert list(e.state_dict()) == list(t.state_dict())


def _sd_np(sd):
    return {k: v.numpy() for k, v in sd.items()}


@pytest.mark.parametrize('name,kw', [('MinMaxObserver', {}),
                                     ('PerChannelMinMaxObserver', {'ch_axis': 1}),
                                     ('MovingAveragePerChannelMinMaxObserver', {}),
                                     ('HistogramObserver', {'bins': 32})])
def test_state_dict_round_trip_through_files(name, kw):
    t_obs, e_obs = _make(torch, name, kw), _make(ember, name, kw)
    for d in DATA[:3]:
        t_obs(torch.tensor(d))
        e_obs(ember.tensor(d))
    tsd, esd = t_obs.state_dict(), e_obs.state_dict()
    assert list(esd) == list(tsd)
    for k in tsd:
        assert tuple(esd[k].shape) == tuple(tsd[k].shape)
        np.testing.assert_array_equal(esd[k].numpy(), tsd[k].numpy())
    assert esd._metadata[''] == tsd._metadata[''] == {'version': 3}
    # torch -> file -> ember, into a fresh (uninitialised) observer
    buf = io.BytesIO()
    torch.save(tsd, buf)
    buf.seek(0)
    fresh = _make(ember, name, kw)
    fresh.load_state_dict(ember.load(buf))
    np.testing.assert_array_equal(fresh.calculate_qparams()[0].numpy(),
                                  t_obs.calculate_qparams()[0].numpy())
    # ember -> file -> torch
    buf = io.BytesIO()
    ember.save(esd, buf)
    buf.seek(0)
    fresh_t = _make(torch, name, kw)
    fresh_t.load_state_dict(torch.load(buf))
    for k, v in _sd_np(fresh_t.state_dict()).items():
        np.testing.assert_array_equal(v, tsd[k].numpy())


def test_per_channel_loads_old_names():
    obs = EQ.PerChannelMinMaxObserver()
    sd = {'eps': ember.tensor([1e-7]), 'min_vals': ember.tensor([1.0, 2.0]),
          'max_vals': ember.tensor([3.0, 4.0])}
    tobs = TQ.PerChannelMinMaxObserver()
    tsd = {k: torch.tensor(v.numpy()) for k, v in sd.items()}
    for o, s in ((obs, sd), (tobs, tsd)):
        o._load_from_state_dict(s, '', {'version': 2}, False, [], [], [])
    assert obs.min_val.shape == tobs.min_val.shape == (2,)


def test_histogram_v2_state_dict():
    out = []
    for m in (torch, ember):
        obs = _make(m, 'HistogramObserver', {'bins': 8})
        sd = {'eps': m.tensor([1e-7]), 'min_val': m.tensor([]), 'max_val': m.tensor([]),
              'histogram': m.zeros(8)}
        obs._load_from_state_dict(sd, '', {'version': 2}, True, [], [], [])
        out.append((obs.min_val.shape, obs.min_val.item(), obs.max_val.item()))
    assert out[0] == out[1]


def test_observer_state_dict_helpers():
    def build(m):
        Q = TQ if m is torch else EQ
        net = m.nn.Sequential(m.nn.Linear(3, 2))
        net.activation_post_process = Q.MinMaxObserver()
        net[0].activation_post_process = Q.HistogramObserver(bins=16)
        return net, Q
    res = []
    for m in (torch, ember):
        net, Q = build(m)
        net.activation_post_process(m.tensor(DATA[0]))
        net[0].activation_post_process(m.tensor(DATA[1]))
        sd = Q.get_observer_state_dict(net)
        net2, _ = build(m)
        Q.load_observer_state_dict(net2, sd)
        res.append((list(sd), net2.activation_post_process.min_val.item(),
                    net2[0].activation_post_process.histogram.numpy()))
    assert res[0][0] == res[1][0] and res[0][1] == res[1][1]
    np.testing.assert_array_equal(res[0][2], res[1][2])
    for m in (torch, ember):   # eager observers load non-strictly: nothing is reported
        net, Q = build(m)
        Q.load_observer_state_dict(net, {})
        assert net.activation_post_process.min_val.item() == float('inf')


def test_constructor_errors_and_warnings():
    cases = [
        ('MinMaxObserver', {'qscheme': torch.per_channel_affine}, "qscheme only support"),
        ('MovingAverageMinMaxObserver', {'qscheme': torch.per_channel_affine}, 'but got'),
        ('PerChannelMinMaxObserver', {'qscheme': torch.per_tensor_affine}, 'qscheme only'),
        ('HistogramObserver', {'qscheme': torch.per_channel_affine}, 'qscheme only support'),
        ('MinMaxObserver', {'qscheme': torch.per_tensor_symmetric, 'reduce_range': True},
         'Cannot reduce range for symmetric'),
        ('MinMaxObserver', {'dtype': torch.float32}, 'Default Observer only works for'),
        ('MinMaxObserver', {'quant_min': 1, 'quant_max': 5}, 'must include 0'),
        ('MinMaxObserver', {'quant_min': 0, 'quant_max': 0}, 'strictly less than qmax'),
        ('MinMaxObserver', {'dtype': torch.qint8, 'quant_min': -200, 'quant_max': 200},
         'maximum bit range (=256)'),
        ('HistogramObserver', {'is_dynamic': True}, "doesn't support dynamic"),
        ('PerChannelMinMaxObserver', {'is_dynamic': True}, "doesn't support dynamic"),
        ('MovingAverageMinMaxObserver', {'is_dynamic': True}, 'averaging constant of 0.01'),
        ('FixedQParamsObserver', {'scale': 1.0, 'zero_point': 0, 'is_dynamic': True},
         "doesn't support dynamic"),
    ]
    for name, kw, match in cases:
        e, t = errors_both(lambda m: _make(m, name, kw), match)
        assert str(e) == str(t)
    for m in (torch, ember):
        with pytest.warns(UserWarning, match='reduce_range will be deprecated'):
            _make(m, 'MinMaxObserver', {'reduce_range': True})
        with pytest.warns(UserWarning, match='`compute_dtype` will be deprecated'):
            _make(m, 'PlaceholderObserver', {'compute_dtype': torch.float32})


def test_affine_quantized_helpers():
    for g, shape in [(TQ.observer.PerTensor(), (4, 8)), (TQ.observer.PerAxis(1), (4, 8)),
                     (TQ.observer.PerRow(), (2, 3, 4)), (TQ.observer.PerGroup(4), (4, 8)),
                     (TQ.observer.PerToken(), (2, 3, 4))]:
        eg = getattr(EQ.observer, type(g).__name__)(*[getattr(g, f) for f in
                                                      getattr(g, '__dataclass_fields__', {})])
        assert EQ.observer.get_block_size(shape, eg) == TQ.observer.get_block_size(shape, g)
    errors_both(lambda m: (TQ if m is torch else EQ).observer.get_block_size(
        (2, 3, 4), (TQ if m is torch else EQ).observer.PerGroup(2)), 'Expecting input shape')


def test_histogram_merges_sum_in_float32_order():
    # post-ReLU data shifted down, in widening batches: the upscaled histogram's big first
    # bin is summed in float32, element by element, as torch's bincount does
    rng = np.random.default_rng(3)
    for _ in range(4):
        data = [np.maximum(rng.normal(size=(16, 6, 28, 28)) * rng.uniform(0.5, 2)
                           + rng.normal() * 0.3, 0).astype(np.float32) - 0.5 for _ in range(3)]
    _compare('HistogramObserver', {}, data)
