"""nn.quantized modules against torch.ao.nn.quantized: the same weights and quantization
parameters give integer-equal outputs; repr, state_dict keys and values; state dicts load
both ways; from_float with observers."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
import torch.ao.nn.intrinsic.quantized as tnniq

import ember
import ember.ao.nn.quantized as ennq
import ember.ao.nn.intrinsic.quantized as enniq

# torch's and ember's once-per-process deprecation warning for quantized tensors
pytestmark = pytest.mark.filterwarnings('ignore:.*deprecated.*:UserWarning')


# ------------------------------------------------------------------ conversions
def to_ember(v):
    """A state-dict value of torch as ember's (quantized tensors keep their integers and
    parameters; dtypes and tuples converted)."""
    if isinstance(v, torch.Tensor):
        if v.is_quantized:
            ints = ember.tensor(v.int_repr().numpy())
            if v.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
                return ember._make_per_tensor_quantized_tensor(ints, v.q_scale(),
                                                               v.q_zero_point())
            if v.qscheme() == torch.per_channel_affine_float_qparams:
                from ember._quantized.tensor import _make
                return _make(v.int_repr().numpy().copy(), getattr(ember, str(v.dtype)[6:]),
                             (ember.per_channel_affine_float_qparams,
                              ember.tensor(v.q_per_channel_scales().numpy()),
                              ember.tensor(v.q_per_channel_zero_points().numpy()),
                              v.q_per_channel_axis()))
            return ember._make_per_channel_quantized_tensor(
                ints, ember.tensor(v.q_per_channel_scales().numpy()),
                ember.tensor(v.q_per_channel_zero_points().numpy()), v.q_per_channel_axis())
        return ember.tensor(v.detach().numpy())
    if isinstance(v, torch.dtype):
        return getattr(ember, str(v).split('.')[-1])
    if isinstance(v, tuple):
        return tuple(to_ember(x) for x in v)
    return v


def to_torch(v):
    """An ember state-dict value as torch's."""
    if isinstance(v, ember.Tensor):
        if v.is_quantized:
            ints = torch.from_numpy(v.int_repr().numpy())
            if str(v.qscheme()) == 'torch.per_tensor_affine':
                return torch._make_per_tensor_quantized_tensor(ints, v.q_scale(),
                                                               v.q_zero_point())
            if str(v.qscheme()) == 'torch.per_channel_affine_float_qparams':
                # torch makes these only by quantizing: requantize the exact float values
                return torch.quantize_per_channel(
                    torch.from_numpy(v.dequantize().numpy()),
                    torch.from_numpy(v.q_per_channel_scales().numpy()),
                    torch.from_numpy(v.q_per_channel_zero_points().numpy()),
                    v.q_per_channel_axis(), getattr(torch, str(v.dtype)[6:]))
            return torch._make_per_channel_quantized_tensor(
                ints, torch.from_numpy(v.q_per_channel_scales().numpy()),
                torch.from_numpy(v.q_per_channel_zero_points().numpy()),
                v.q_per_channel_axis())
        return torch.from_numpy(v.detach().numpy().copy())
    if isinstance(v, ember.dtype):
        return getattr(torch, str(v).split('.')[-1])
    if isinstance(v, tuple):
        return tuple(to_torch(x) for x in v)
    return v


def same_values(e, t, key=''):
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), key
        assert tuple(e.shape) == tuple(t.shape), key
        assert bool(e.is_quantized) == bool(t.is_quantized), key
        if t.is_quantized:
            np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy(),
                                          err_msg=key)
            assert str(e.dtype) == str(t.dtype), key
            assert str(e.qscheme()) == str(t.qscheme()), key
            if t.qscheme() == torch.per_tensor_affine:
                assert (e.q_scale(), e.q_zero_point()) == (t.q_scale(), t.q_zero_point()), key
            else:
                np.testing.assert_array_equal(e.q_per_channel_scales().numpy(),
                                              t.q_per_channel_scales().numpy())
        else:
            assert str(e.dtype) == str(t.dtype), key
            np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy(), err_msg=key)
    elif isinstance(t, tuple):
        assert isinstance(e, tuple) and len(e) == len(t), key
        for a, b in zip(e, t):
            same_values(a, b, key)
    elif isinstance(t, torch.dtype):
        assert str(e) == str(t), key
    else:
        assert e == t, key


def same_state(e_mod, t_mod):
    es, ts = e_mod.state_dict(), t_mod.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        same_values(es[k], ts[k], k)


def convert_state(sd, f):
    """A state dict converted value by value, with its ``_metadata`` (the modules'
    versions, which both libraries read to pick the key layout)."""
    from collections import OrderedDict
    out = OrderedDict((k, f(v)) for k, v in sd.items())
    out._metadata = getattr(sd, '_metadata', None)
    return out


def check_state_both_ways(e_mod, t_mod, e_fresh, t_fresh):
    """torch's state loads into a fresh ember module and ember's into a fresh torch one,
    each giving the other's state."""
    e_fresh.load_state_dict(convert_state(t_mod.state_dict(), to_ember))
    same_state(e_fresh, t_mod)
    t_fresh.load_state_dict(convert_state(e_mod.state_dict(), to_torch))
    same_state(e_mod, t_fresh)


def qx(shape, scale=0.05, zp=60, seed=1):
    ints = np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)
    return (torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints), scale, zp),
            ember._make_per_tensor_quantized_tensor(ember.tensor(ints), scale, zp))


def same_q(e, t):
    assert e.is_quantized and t.is_quantized
    assert (e.q_scale(), e.q_zero_point()) == (t.q_scale(), t.q_zero_point())
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())


def qweight(shape, per_channel, seed=0, axis=0):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    if per_channel:
        n = shape[axis]
        sc = rng.uniform(0.005, 0.02, n)
        z = np.zeros(n, np.int64)
        tw = torch.quantize_per_channel(torch.from_numpy(w), torch.from_numpy(sc),
                                        torch.from_numpy(z), axis, torch.qint8)
    else:
        tw = torch.quantize_per_tensor(torch.from_numpy(w), 0.011, 0, torch.qint8)
    return tw, to_ember(tw)


# ------------------------------------------------------------------ Linear
@pytest.mark.parametrize('per_channel', [False, True])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('relu', [False, True])
def test_linear(per_channel, bias, relu):
    T, E = (tnniq.LinearReLU, enniq.LinearReLU) if relu else (tnnq.Linear, ennq.Linear)
    t, e = T(20, 7, bias), E(20, 7, bias)
    tw, ew = qweight((7, 20), per_channel)
    b = np.linspace(-1, 1, 7).astype(np.float32)
    t.set_weight_bias(tw, torch.from_numpy(b) if bias else None)
    e.set_weight_bias(ew, ember.tensor(b) if bias else None)
    t.scale, t.zero_point = 0.07, 100
    e.scale, e.zero_point = 0.07, 100
    assert repr(e) == repr(t)
    tx, ex = qx((3, 5, 20))
    same_q(e(ex), t(tx))
    same_state(e, t)
    check_state_both_ways(e, t, E(20, 7, bias), T(20, 7, bias))
    e2, t2 = E(20, 7, bias), T(20, 7, bias)
    e2.load_state_dict(convert_state(t.state_dict(), to_ember))
    t2.load_state_dict(t.state_dict())
    same_q(e2(ex), t2(tx))


def test_linear_defaults_and_errors():
    t, e = tnnq.Linear(4, 3), ennq.Linear(4, 3)
    assert repr(e) == repr(t)
    # torch's default weight is uninitialised memory: compare its layout only
    assert tuple(e.weight().shape) == tuple(t.weight().shape)
    assert (e.weight().q_scale(), e.weight().q_zero_point()) == (
        t.weight().q_scale(), t.weight().q_zero_point())
    assert list(e.state_dict()) == list(t.state_dict())
    bad = convert_state(t.state_dict(), to_ember)
    del bad['_packed_params._packed_params']
    with pytest.raises(RuntimeError, match='Missing key'):
        e.load_state_dict(bad)
    with pytest.raises(RuntimeError, match='Expected input data type QUInt8'):
        e(ember.quantize_per_tensor(ember.ones(2, 4), 0.1, 0, ember.qint8))


# ------------------------------------------------------------------ Conv
CONVS = [
    ('Conv2d', (3, 6, 3), dict(stride=1, padding=1), (2, 3, 7, 6)),
    ('Conv2d', (4, 6, (3, 2)), dict(stride=(2, 1), padding=(0, 1), dilation=(1, 2), groups=2),
     (1, 4, 9, 8)),
    ('Conv1d', (3, 5, 3), dict(stride=2, padding=1), (2, 3, 11)),
    ('Conv2d', (3, 4, 3), dict(padding=(1, 2), padding_mode='reflect'), (1, 3, 6, 7)),
    ('Conv3d', (2, 4, (2, 3, 2)), dict(padding=1), (1, 2, 4, 7, 5)),
    ('ConvTranspose2d', (4, 3, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 5, 5)),
    ('ConvTranspose1d', (4, 3, 3), dict(stride=2), (2, 4, 6)),
]


@pytest.fixture
def engine():
    """Sets torch's and ember's quantized engine for a test, giving both back after."""
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine

    def set_(name):
        torch.backends.quantized.engine = name
        ember.backends.quantized.engine = name
    yield set_
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


@pytest.mark.parametrize('name,args,kwargs,xshape', CONVS)
@pytest.mark.parametrize('per_channel', [False, True])
def test_conv(name, args, kwargs, xshape, per_channel, engine):
    if 'Transpose' in name:
        # torch's x86 engine runs transposed convolutions without output padding through
        # oneDNN, whose results are not conv_transpose's float semantics; ember computes as
        # fbgemm (and qnnpack) do
        engine('fbgemm')
        per_channel = False
    t, e = getattr(tnnq, name)(*args, **kwargs), getattr(ennq, name)(*args, **kwargs)
    assert repr(e) == repr(t)
    tw, ew = qweight(tuple(t.weight().shape), per_channel)
    b = np.linspace(-1, 1, t.out_channels).astype(np.float32)
    t.set_weight_bias(tw, torch.from_numpy(b))
    e.set_weight_bias(ew, ember.tensor(b))
    t.scale, t.zero_point = 0.09, 70
    e.scale, e.zero_point = 0.09, 70
    assert repr(e) == repr(t)
    tx, ex = qx(xshape)
    same_q(e(ex), t(tx))
    same_state(e, t)
    check_state_both_ways(e, t, getattr(ennq, name)(*args, **kwargs),
                          getattr(tnnq, name)(*args, **kwargs))


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_relu(nd):
    args, xshape = (3, 4, 3), (2, 3) + (6,) * nd
    T, E = getattr(tnniq, f'ConvReLU{nd}d'), getattr(enniq, f'ConvReLU{nd}d')
    t, e = T(*args, padding=1), E(*args, padding=1)
    tw, ew = qweight(tuple(t.weight().shape), nd == 2)
    t.set_weight_bias(tw, None)
    e.set_weight_bias(ew, None)
    t.scale, t.zero_point = 0.04, 90
    e.scale, e.zero_point = 0.04, 90
    assert repr(e) == repr(t)
    tx, ex = qx(xshape)
    same_q(e(ex), t(tx))


# ------------------------------------------------------------------ small modules
def test_quantize_dequantize():
    t, e = tnnq.Quantize(0.05, 3, torch.quint8), ennq.Quantize(0.05, 3, ember.quint8)
    assert repr(e) == repr(t)
    same_state(e, t)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    tq, eq = t(torch.from_numpy(x)), e(ember.tensor(x))
    same_q(eq, tq)
    np.testing.assert_array_equal(ennq.DeQuantize()(eq).numpy(), tnnq.DeQuantize()(tq).numpy())
    assert repr(ennq.DeQuantize()) == repr(tnnq.DeQuantize())
    t2, e2 = tnnq.Quantize(1.0, 0, torch.quint8), ennq.Quantize(1.0, 0, ember.quint8)
    t2.load_state_dict(t.state_dict())
    e2.load_state_dict(convert_state(t.state_dict(), to_ember))
    same_q(e2(ember.tensor(x)), t2(torch.from_numpy(x)))


ACTS = [
    ('ReLU6', (), {}),
    ('ReLU6', (True,), {}),
    ('Hardswish', (0.03, 40), {}),
    ('ELU', (0.03, 40), {'alpha': 0.7}),
    ('LeakyReLU', (0.03, 40), {'negative_slope': 0.2}),
    ('Sigmoid', (1 / 256, 0), {}),
    ('Dropout', (0.3,), {}),
    ('Softmax', (1, 1 / 256, 0), {}),
    ('Softmax', (0, 0.002, 3), {}),
]


@pytest.mark.parametrize('name,args,kwargs', ACTS)
def test_activations(name, args, kwargs):
    t, e = getattr(tnnq, name)(*args, **kwargs), getattr(ennq, name)(*args, **kwargs)
    assert repr(e) == repr(t)
    same_state(e, t)
    tx, ex = qx((3, 300), 0.05, 100)
    same_q(e(ex), t(tx))
    if name in ('Hardswish', 'LeakyReLU'):
        t2, e2 = getattr(tnnq, name)(1.0, 0), getattr(ennq, name)(1.0, 0)
        check_state_both_ways(e, t, e2, t2)
        same_q(e2(ex), t2(tx))


def test_float_functional_and_qfunctional():
    t, e = tnnq.FloatFunctional(), ennq.FloatFunctional()
    assert repr(e) == repr(t)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    tx, ex = torch.from_numpy(x), ember.tensor(x)
    for op, args in (('add', (1,)), ('mul', (1,)), ('add_relu', (1,)), ('add_scalar', (0.5,)),
                     ('mul_scalar', (2.0,))):
        ta = (tx,) if args == (1,) else args
        ea = (ex,) if args == (1,) else args
        np.testing.assert_array_equal(getattr(e, op)(ex, *ea).numpy(),
                                      getattr(t, op)(tx, *ta).numpy())
    np.testing.assert_array_equal(e.cat([ex, ex], 1).numpy(), t.cat([tx, tx], 1).numpy())
    with pytest.raises(RuntimeError, match='not intended to use'):
        e(ex)
    tq, eq = tnnq.QFunctional(), ennq.QFunctional()
    tq.scale, tq.zero_point = 0.1, 50
    eq.scale, eq.zero_point = 0.1, 50
    assert repr(eq) == repr(tq)
    same_state(eq, tq)
    ta, ea = qx((4, 70), 0.05, 60, 1)
    tb, eb = qx((4, 70), 0.07, 20, 2)
    for op in ('add', 'mul', 'add_relu'):
        same_q(getattr(eq, op)(ea, eb), getattr(tq, op)(ta, tb))
    for op, c in (('add_scalar', 0.35), ('mul_scalar', -1.5)):
        same_q(getattr(eq, op)(ea, c), getattr(tq, op)(ta, c))
    same_q(eq.cat([ea, eb], 1), tq.cat([ta, tb], 1))
    t2, e2 = tnnq.QFunctional(), ennq.QFunctional()
    check_state_both_ways(eq, tq, e2, t2)
    fx = ennq.FXFloatFunctional()
    np.testing.assert_array_equal(fx.add(ex, ex).numpy(),
                                  tnnq.FXFloatFunctional().add(tx, tx).numpy())


# ------------------------------------------------------------------ normalization
@pytest.mark.parametrize('name,nd,relu', [('BatchNorm2d', 4, False), ('BatchNorm3d', 5, False),
                                          ('BNReLU2d', 4, True)])
def test_batch_norm(name, nd, relu):
    mods_t, mods_e = (tnniq, enniq) if relu else (tnnq, ennq)
    t, e = getattr(mods_t, name)(5), getattr(mods_e, name)(5)
    rng = np.random.default_rng(0)
    with torch.no_grad():
        t.weight.copy_(torch.from_numpy(rng.uniform(0.5, 2, 5).astype(np.float32)))
        t.bias.copy_(torch.from_numpy(rng.standard_normal(5).astype(np.float32)))
        t.running_mean.copy_(torch.from_numpy(rng.standard_normal(5).astype(np.float32)))
        t.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 2, 5).astype(np.float32)))
    t.scale, t.zero_point = torch.tensor(0.07), torch.tensor(80)
    t.eval()
    e.load_state_dict(convert_state(t.state_dict(), to_ember))
    e.eval()
    assert repr(e) == repr(t)
    assert e.scale.item() == t.scale.item() and e.zero_point.item() == 80
    tx, ex = qx((2, 5) + (4,) * (nd - 2))
    same_q(e(ex), t(tx))
    same_state(e, t)


def test_layer_group_instance_norm():
    rng = np.random.default_rng(0)
    w = rng.uniform(0.5, 2, 6).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    tp = lambda a: torch.nn.Parameter(torch.from_numpy(a))  # noqa: E731
    ep = lambda a: ember.nn.Parameter(ember.tensor(a))  # noqa: E731
    cases = [
        (lambda M, P: M.LayerNorm([6], P(w), P(b), 0.03, 120), (3, 4, 6)),
        (lambda M, P: M.GroupNorm(3, 6, P(w), P(b), 0.03, 120), (2, 6, 5)),
        (lambda M, P: M.InstanceNorm1d(6, P(w), P(b), 0.03, 120), (2, 6, 9)),
        (lambda M, P: M.InstanceNorm2d(6, P(w), P(b), 0.03, 120), (2, 6, 3, 4)),
    ]
    for make, shape in cases:
        t, e = make(tnnq, tp), make(ennq, ep)
        assert repr(e) == repr(t)
        same_state(e, t)
        tx, ex = qx(shape)
        same_q(e(ex), t(tx))


# ------------------------------------------------------------------ functional
def test_functional():
    import torch.ao.nn.quantized.functional as tF
    import ember.ao.nn.quantized.functional as eF
    tx, ex = qx((2, 3, 8, 8))
    tw, ew = qweight((4, 3, 3, 3), False)
    same_q(eF.conv2d(ex, ew, None, padding=1, scale=0.2, zero_point=10),
           tF.conv2d(tx, tw, None, padding=1, scale=0.2, zero_point=10))
    tw2, ew2 = qweight((5, 8), True)
    tl, el = qx((3, 8))
    same_q(eF.linear(el, ew2, None, 0.1, 30), tF.linear(tl, tw2, None, 0.1, 30))
    for f in ('max_pool2d', 'avg_pool2d'):
        same_q(getattr(eF, f)(ex, 2), getattr(tF, f)(tx, 2))
    same_q(eF.adaptive_avg_pool2d(ex, 3), tF.adaptive_avg_pool2d(tx, 3))
    same_q(eF.hardswish(ex, 0.02, 10), tF.hardswish(tx, 0.02, 10))
    same_q(eF.leaky_relu(ex, 0.1, scale=0.02, zero_point=10),
           tF.leaky_relu(tx, 0.1, scale=0.02, zero_point=10))
    same_q(eF.elu(ex, 0.02, 10), tF.elu(tx, 0.02, 10))
    same_q(eF.hardtanh(ex, -0.5, 0.5), tF.hardtanh(tx, -0.5, 0.5))
    same_q(eF.clamp(ex, -0.5, 0.5), tF.clamp(tx, -0.5, 0.5))
    same_q(eF.threshold(ex, 0.1, 0.3), tF.threshold(tx, 0.1, 0.3))
    same_q(eF.interpolate(ex, scale_factor=2), tF.interpolate(tx, scale_factor=2))
    with pytest.raises(ValueError, match="must be quantized"):
        eF.hardswish(ember.ones(2), 0.1, 0)


# ------------------------------------------------------------------ from_float
def _observed(make, qconfig='default_qconfig', seed=0):
    """The same float module in torch and ember (dyadic weights, so the observers see the
    same numbers), with a qconfig and an activation observer fed the same dyadic data."""
    with torch.random.fork_rng():           # the global generator is given back after
        torch.manual_seed(seed)
        t = make(torch)
    e = make(ember)
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.round(p * 64) / 64)
    with ember.no_grad():
        tp = dict(t.named_parameters())
        tp.update(dict(t.named_buffers()))
        for n, p in list(e.named_parameters()) + list(e.named_buffers()):
            p.copy_(ember.tensor(tp[n].detach().numpy()).to(p.dtype))
    act = (np.round(np.random.default_rng(seed).standard_normal(64) * 8) / 8).astype(np.float32)
    for m, M in ((t, torch), (e, ember)):
        m.qconfig = getattr(M.ao.quantization, qconfig)
        for c in m.children():             # as propagate_qconfig_ leaves a fused module
            c.qconfig = m.qconfig
        m.activation_post_process = m.qconfig.activation()
        m.activation_post_process(M.tensor(act))
    return e, t


FROM_FLOAT = [
    ('Linear', lambda M: M.nn.Linear(8, 5), 'default_qconfig', None),
    ('Linear', lambda M: M.nn.Linear(8, 5), 'default_per_channel_qconfig', None),
    ('Conv2d', lambda M: M.nn.Conv2d(2, 3, 3, padding=1), 'default_per_channel_qconfig', None),
    ('Conv1d', lambda M: M.nn.Conv1d(2, 3, 3), 'default_qconfig', None),
    ('Hardswish', lambda M: M.nn.Hardswish(), 'default_qconfig', None),
    ('LeakyReLU', lambda M: M.nn.LeakyReLU(0.2), 'default_qconfig', None),
    ('ELU', lambda M: M.nn.ELU(0.5), 'default_qconfig', None),
    ('BatchNorm2d', lambda M: M.nn.BatchNorm2d(3).eval(), 'default_qconfig', None),
    ('LayerNorm', lambda M: M.nn.LayerNorm(4), 'default_qconfig', None),
    ('Dropout', lambda M: M.nn.Dropout(0.2), 'default_qconfig', None),
    ('ReLU6', lambda M: M.nn.ReLU6(), 'default_qconfig', None),
    ('ConvReLU2d', lambda M: M.ao.nn.intrinsic.ConvReLU2d(M.nn.Conv2d(2, 3, 3),
                                                           M.nn.ReLU()), 'default_qconfig',
     'intrinsic'),
    ('LinearReLU', lambda M: M.ao.nn.intrinsic.LinearReLU(M.nn.Linear(8, 5), M.nn.ReLU()),
     'default_qconfig', 'intrinsic'),
]


@pytest.mark.parametrize('name,make,qconfig,pkg', FROM_FLOAT)
def test_from_float(name, make, qconfig, pkg):
    e, t = _observed(make, qconfig)
    te, tt = (enniq, tnniq) if pkg else (ennq, tnnq)
    qe, qt = getattr(te, name).from_float(e), getattr(tt, name).from_float(t)
    assert repr(qe) == repr(qt)
    same_state(qe, qt)
    shapes = {'Linear': (3, 8), 'LinearReLU': (3, 8), 'Conv2d': (2, 2, 5, 5),
              'ConvReLU2d': (2, 2, 5, 5), 'Conv1d': (2, 2, 6), 'BatchNorm2d': (2, 3, 4, 4),
              'LayerNorm': (3, 4)}
    tx, ex = qx(shapes.get(name, (4, 50)))
    same_q(qe(ex), qt(tx))


def test_quantize_and_qfunctional_from_float():
    obs_t, obs_e = torch.ao.quantization.MinMaxObserver(), ember.ao.quantization.MinMaxObserver()
    x = (np.round(np.random.default_rng(0).standard_normal(32) * 8) / 8).astype(np.float32)
    obs_t(torch.from_numpy(x))
    obs_e(ember.tensor(x))
    ft, fe = tnnq.FloatFunctional(), ennq.FloatFunctional()
    ft.activation_post_process, fe.activation_post_process = obs_t, obs_e
    qt, qe = tnnq.QFunctional.from_float(ft), ennq.QFunctional.from_float(fe)
    assert repr(qe) == repr(qt)
    stub_t, stub_e = torch.nn.Module(), ember.nn.Module()
    stub_t.activation_post_process, stub_e.activation_post_process = obs_t, obs_e
    assert repr(ennq.Quantize.from_float(stub_e)) == repr(tnnq.Quantize.from_float(stub_t))


def test_from_float_errors():
    with pytest.raises(AssertionError, match='nnq.Linear.from_float only works for Linear'):
        ennq.Linear.from_float(ember.nn.Conv1d(1, 1, 1))
    with pytest.raises(AssertionError, match='must have qconfig defined'):
        ennq.Linear.from_float(ember.nn.Linear(2, 2))
    with pytest.raises(AssertionError, match='nnq.Conv2d.from_float only works for Conv2d'):
        ennq.Conv2d.from_float(ember.nn.Linear(2, 2))


# ------------------------------------------------------------------ embeddings
@pytest.mark.parametrize('bag', [False, True])
def test_embedding_from_float(bag):
    name = 'EmbeddingBag' if bag else 'Embedding'
    e, t = _observed(lambda M: getattr(M.nn, name)(30, 16), 'float_qparams_weight_only_qconfig')
    with torch.no_grad():     # non-dyadic rows: the row-wise ranges are not round numbers
        t.weight.copy_(torch.randn(30, 16, generator=torch.Generator().manual_seed(3)))
    with ember.no_grad():
        e.weight.copy_(ember.tensor(t.weight.detach().numpy()))
    qe, qt = getattr(ennq, name).from_float(e), getattr(tnnq, name).from_float(t)
    assert repr(qe) == repr(qt)
    same_state(qe, qt)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 30, 40)
    if bag:
        offs = np.array([0, 5, 6, 20, 33, 40])
        psw = rng.standard_normal(40).astype(np.float32)
        for kw_t, kw_e in (({}, {}),
                           ({'per_sample_weights': torch.from_numpy(psw)},
                            {'per_sample_weights': ember.tensor(psw)})):
            np.testing.assert_array_equal(
                qe(ember.tensor(idx), ember.tensor(offs), **kw_e).numpy(),
                qt(torch.from_numpy(idx), torch.from_numpy(offs), **kw_t).numpy())
        i2 = idx.reshape(8, 5)
        np.testing.assert_array_equal(qe(ember.tensor(i2)).numpy(),
                                      qt(torch.from_numpy(i2)).numpy())
    else:
        i2 = idx.reshape(5, 8)
        np.testing.assert_array_equal(qe(ember.tensor(i2)).numpy(),
                                      qt(torch.from_numpy(i2)).numpy())
    check_state_both_ways(qe, qt, getattr(ennq, name)(30, 16), getattr(tnnq, name)(30, 16))


def test_checkpoint_files_both_ways(tmp_path):
    """A quantized model's state dict saved by torch loads in ember and back (packed
    linear parameters, conv weights, dtypes, scales)."""
    t_lin, t_conv = tnnq.Linear(4, 3), tnnq.Conv2d(2, 3, 3)
    tw, _ = qweight((3, 4), True)
    t_lin.set_weight_bias(tw, torch.linspace(-1, 1, 3))
    t_lin.scale, t_lin.zero_point = 0.2, 5
    cw, _ = qweight((3, 2, 3, 3), False)
    t_conv.set_weight_bias(cw, None)
    torch.save({'lin': t_lin.state_dict(), 'conv': t_conv.state_dict()}, tmp_path / 't.pt')
    sd = ember.load(tmp_path / 't.pt', weights_only=True)
    e_lin, e_conv = ennq.Linear(4, 3), ennq.Conv2d(2, 3, 3)
    e_lin.load_state_dict(sd['lin'])
    e_conv.load_state_dict(sd['conv'])
    t_lin2, t_conv2 = tnnq.Linear(4, 3), tnnq.Conv2d(2, 3, 3)
    t_lin2.load_state_dict(t_lin.state_dict())
    t_conv2.load_state_dict(t_conv.state_dict())
    same_state(e_lin, t_lin2)
    same_state(e_conv, t_conv2)
    ember.save({'lin': e_lin.state_dict(), 'conv': e_conv.state_dict()}, tmp_path / 'e.pt')
    sd2 = torch.load(tmp_path / 'e.pt', weights_only=True)
    t_lin3, t_conv3 = tnnq.Linear(4, 3), tnnq.Conv2d(2, 3, 3)
    t_lin3.load_state_dict(sd2['lin'])
    t_conv3.load_state_dict(sd2['conv'])
    same_state(e_lin, t_lin3)
    same_state(e_conv, t_conv3)
    tx, ex = qx((2, 4))
    same_q(e_lin(ex), t_lin3(tx))


def test_nn_aliases_are_the_ao_modules():
    """``ember.nn.quantized`` & co. are the ``ember.ao.nn`` packages (as torch.nn.quantized
    re-exports torch.ao.nn.quantized): same classes, importable by either name."""
    import importlib
    import ember.nn.quantized.dynamic as d
    from ember.nn.intrinsic.quantized import ConvReLU2d
    assert d is importlib.import_module('ember.ao.nn.quantized.dynamic')
    assert d.LSTM is ennqd_lstm()
    assert ConvReLU2d is enniq.ConvReLU2d
    assert ember.nn.quantized.Linear is ennq.Linear
    assert ember.nn.quantized.functional.conv2d is importlib.import_module(
        'ember.ao.nn.quantized.functional').conv2d
    assert ember.nn.intrinsic.ConvReLU2d is importlib.import_module(
        'ember.ao.nn.intrinsic.modules.fused').ConvReLU2d
    assert ember.nn.qat.Linear.__module__.startswith('ember.ao.nn.qat')
    assert torch.nn.quantized.Linear is tnnq.Linear
    with pytest.raises(AttributeError):
        ember.nn.no_such_alias


def ennqd_lstm():
    import ember.ao.nn.quantized.dynamic as d
    return d.LSTM


QAT = [
    ('Linear', lambda M, qc: M.ao.nn.qat.Linear(8, 5, qconfig=qc), (3, 8), None),
    ('Conv2d', lambda M, qc: M.ao.nn.qat.Conv2d(2, 3, 3, qconfig=qc), (2, 2, 6, 6), None),
    ('ConvReLU2d', lambda M, qc: M.ao.nn.intrinsic.qat.ConvBnReLU2d(2, 3, 3, qconfig=qc),
     (2, 2, 6, 6), 'intrinsic'),
    ('Conv2d', lambda M, qc: M.ao.nn.intrinsic.qat.ConvBn2d(2, 3, 3, qconfig=qc),
     (2, 2, 6, 6), None),
]


@pytest.mark.parametrize('name,make,xshape,pkg', QAT)
def test_from_float_qat(name, make, xshape, pkg):
    """QAT modules (weight_fake_quant; ConvBn folded first) convert as torch's."""
    mods = {}
    for M in (torch, ember):
        qc = M.ao.quantization.get_default_qat_qconfig('x86')
        if M is torch:
            with torch.random.fork_rng():
                torch.manual_seed(0)
                mods[M] = make(M, qc)
        else:
            mods[M] = make(M, qc)
    t, e = mods[torch], mods[ember]
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.round(p * 64) / 64)
    with ember.no_grad():
        tp = dict(t.named_parameters())
        tp.update(dict(t.named_buffers()))
        for n, p in list(e.named_parameters()) + list(e.named_buffers()):
            if n in tp and tuple(p.shape) == tuple(tp[n].shape):
                # a copy: a numpy view would pin torch's storage (its fused fake-quant
                # resizes its buffers on first use)
                p.copy_(ember.tensor(tp[n].detach().clone().numpy()).to(p.dtype))
    x = (np.round(np.random.default_rng(0).standard_normal(xshape) * 8) / 8).astype(np.float32)
    for m, M in ((t, torch), (e, ember)):
        m.activation_post_process = m.qconfig.activation()
        m.eval()
        m.activation_post_process(m(M.tensor(x)))
    te, tt = (enniq, tnniq) if pkg else (ennq, tnnq)
    qe, qt = getattr(te, name).from_float(e), getattr(tt, name).from_float(t)
    assert repr(qe) == repr(qt)
    same_state(qe, qt)
    tx, ex = qx(xshape)
    same_q(qe(ex), qt(tx))
