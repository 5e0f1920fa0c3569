"""The ops on quantized tensors and ``ember.ops.quantized`` against PyTorch 2.13 (x86
engine): the integers, scales and zero points of every result, over every 8-bit input value
in vector and remainder positions, with rounding ties."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

# torch's and ember's once-per-process deprecation warning for quantized tensors
pytestmark = pytest.mark.filterwarnings('ignore:.*deprecated.*:UserWarning')

DT = [('quint8', np.uint8, 0, 255), ('qint8', np.int8, -128, 127)]
QP = [(0.05, 100, 3), (0.0371, 17, 17), (1 / 3, 200, -50), (0.013, 5, 5)]


def _q(ints, scale, zp):
    """The same quantized tensor in torch and ember."""
    t = torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints), scale, zp)
    e = ember._make_per_tensor_quantized_tensor(ember.tensor(ints), scale, zp)
    return t, e


def _same(t, e):
    assert e.is_quantized and t.is_quantized
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.q_scale() == t.q_scale() and e.q_zero_point() == t.q_zero_point()
    np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())


def _domain(npdt, lo, hi, n):
    """Every value of the dtype, forwards and backwards, cut or repeated to ``n``."""
    base = np.arange(lo, hi + 1).astype(npdt)
    return np.resize(np.concatenate([base, base[::-1], base[7:]]), n)


# expressions in M (torch or ember), F (its nn.functional), Q (its ops.quantized) and q;
# evaluated at call time (a binding taken before any quantized tensor exists does not see
# one, in ember, as an early ``f = ember.cat`` does not)
UNARY = {
    'relu': 'M.relu(q)',
    'F.relu': 'F.relu(q)',
    'relu6': 'F.relu6(q)',
    'hardtanh': 'F.hardtanh(q, -1.03, 2.01)',
    'clamp': 'M.clamp(q, -0.5, 1.5)',
    'clamp_min': 'q.clamp(min=0.26)',
    'leaky_relu': 'F.leaky_relu(q, 0.1)',
    'leaky_relu.3': 'F.leaky_relu(q, 0.3)',
    'sigmoid': 'M.sigmoid(q)',
    'tanh': 'M.tanh(q)',
    'hardsigmoid': 'F.hardsigmoid(q)',
    'gelu': 'F.gelu(q)',
    'threshold': 'F.threshold(q, 0.5, 1.0)',
    'hardswish': 'Q.hardswish(q, q.q_scale(), q.q_zero_point())',
    'hardswish.out': 'Q.hardswish(q, 0.02, 10)',
    'elu': 'Q.elu(q, q.q_scale(), q.q_zero_point(), 1.0, 1.0, 1.0)',
    'q.leaky_relu': 'Q.leaky_relu(q, 0.2, False, 0.03, 40)',
    'q.relu6': 'Q.relu6(q)',
    'q.sigmoid': 'Q.sigmoid(q, 1 / 256, 0 if q.dtype == M.quint8 else -128)',
}


def _run(expr, mod, q):
    F = torch.nn.functional if mod is torch else ember.nn.functional
    return eval(expr, {'M': mod, 'F': F, 'Q': mod.ops.quantized, 'q': q})


@pytest.mark.parametrize('name', list(UNARY))
@pytest.mark.parametrize('dt,npdt,lo,hi', DT)
def test_unary_every_value(name, dt, npdt, lo, hi):
    for s, zu, zs in QP:
        zp = zu if dt == 'quint8' else zs
        for n in (842, 127):       # vectors of 64 with a remainder; the remainder alone
            ints = _domain(npdt, lo, hi, n)
            t, e = _q(ints, s, zp)
            _same(_run(UNARY[name], torch, t), _run(UNARY[name], ember, e))


INPLACE = {
    'relu_': 'q.relu_()',
    'leaky_relu_': 'F.leaky_relu(q, 0.2, inplace=True)',
    'hardtanh_': 'F.hardtanh(q, -1.0, 1.0, inplace=True)',
    'F.relu_': 'F.relu(q, inplace=True)',
    'relu6_': 'F.relu6(q, inplace=True)',
}


@pytest.mark.parametrize('name', list(INPLACE))
def test_inplace(name):
    ints = _domain(np.uint8, 0, 255, 300)
    t, e = _q(ints, 0.05, 100)
    rt, re_ = _run(INPLACE[name], torch, t), _run(INPLACE[name], ember, e)
    assert re_ is e
    _same(rt, re_)
    _same(t, e)


def test_refused_like_torch():
    """clamp_ (type promotion) and relu of a per-channel tensor raise in PyTorch."""
    t, e = _q(_domain(np.uint8, 0, 255, 20), 0.05, 10)
    for mod, q in ((torch, t), (ember, e)):
        with pytest.raises(RuntimeError, match='promoteTypes with quantized numbers'):
            q.clamp_(0.1, 2.0)
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    for mod in (torch, ember):
        q = mod.quantize_per_channel(mod.tensor(x), mod.tensor([0.1, 0.2, 0.3]),
                                     mod.tensor([0, 2, 5]), 0, mod.quint8)
        with pytest.raises(RuntimeError, match='kPerTensorAffine'):
            mod.relu(q)


BINARY_SCALES = [(0.1, 0.1, 0.2), (0.25, 0.25, 0.5), (0.05, 0.15, 0.1), (0.1, 0.3, 0.7),
                 (0.013, 0.07, 0.031)]


@pytest.mark.parametrize('op', ['add', 'add_relu', 'mul', 'mul_relu'])
@pytest.mark.parametrize('dt,npdt,lo,hi', DT)
def test_binary(op, dt, npdt, lo, hi):
    rng = np.random.default_rng(3)
    for sa, sb, so in BINARY_SCALES:
        for n in (842, 127, 4096):
            ia = rng.integers(lo, hi + 1, n).astype(npdt)
            ib = rng.integers(lo, hi + 1, n).astype(npdt)
            za, zb, zo = (int(v) for v in rng.integers(lo // 2, hi // 2, 3))
            if op.startswith('mul'):
                so = so * sa
            ta, ea = _q(ia, sa, za)
            tb, eb = _q(ib, sb, zb)
            _same(getattr(torch.ops.quantized, op)(ta, tb, so, zo),
                  getattr(ember.ops.quantized, op)(ea, eb, so, zo))


def test_binary_broadcast_and_errors():
    ta, ea = _q(np.arange(12, dtype=np.uint8).reshape(3, 4), 0.1, 2)
    tb, eb = _q(np.arange(4, dtype=np.uint8) * 9, 0.2, 1)
    _same(torch.ops.quantized.add(ta, tb, 0.3, 4), ember.ops.quantized.add(ea, eb, 0.3, 4))
    _same(torch.ops.quantized.mul(ta, tb, 0.3, 4), ember.ops.quantized.mul(ea, eb, 0.3, 4))
    tc, ec = _q(np.arange(4, dtype=np.int8), 0.2, 1)
    with pytest.raises(RuntimeError):
        torch.ops.quantized.add(ta, tc, 0.3, 4)
    with pytest.raises(RuntimeError, match='same data type'):
        ember.ops.quantized.add(ea, ec, 0.3, 4)


@pytest.mark.parametrize('c', [0.0, 0.3, 1.0, 0.4999, -0.3, -5.0, 13.0, 0.025, 0.075, -13.0,
                               -10.0, 2.5])
@pytest.mark.parametrize('dt,npdt,lo,hi', DT)
def test_scalar_ops(c, dt, npdt, lo, hi):
    ints = _domain(npdt, lo, hi, 300)
    t, e = _q(ints, 0.05, 10)
    for op in ('add_scalar', 'mul_scalar', 'add_scalar_relu', 'mul_scalar_relu'):
        _same(getattr(torch.ops.quantized, op)(t, c), getattr(ember.ops.quantized, op)(e, c))


def test_cat():
    rng = np.random.default_rng(4)
    ia, ib = rng.integers(0, 256, (2, 3, 5)).astype(np.uint8)
    ta, ea = _q(ia, 0.1, 3)
    tb, eb = _q(ib, 0.07, 9)
    for dim in (0, 1, -1):
        _same(torch.ops.quantized.cat([ta, tb], dim, 0.13, 5),
              ember.ops.quantized.cat([ea, eb], dim, 0.13, 5))
    _same(torch.ops.quantized.cat_relu([ta, tb], 1, 0.13, 50),
          ember.ops.quantized.cat_relu([ea, eb], 1, 0.13, 50))


POOL = {
    'max_pool2d': lambda F, q: F.max_pool2d(q, 2),
    'max_pool2d.pad': lambda F, q: F.max_pool2d(q, 3, 2, 1, ceil_mode=True),
    'max_pool1d': lambda F, q: F.max_pool1d(q.flatten(2), 3, 2),
    'avg_pool2d': lambda F, q: F.avg_pool2d(q, 2),
    'avg_pool2d.pad': lambda F, q: F.avg_pool2d(q, 3, 2, 1),
    'avg_pool2d.nopad': lambda F, q: F.avg_pool2d(q, 3, 2, 1, count_include_pad=False),
    'avg_pool2d.ceil': lambda F, q: F.avg_pool2d(q, 2, ceil_mode=True),
    'avg_pool2d.div': lambda F, q: F.avg_pool2d(q, 2, divisor_override=3),
    'adaptive_avg_pool2d': lambda F, q: F.adaptive_avg_pool2d(q, (3, 4)),
    'adaptive_avg_pool2d.1': lambda F, q: F.adaptive_avg_pool2d(q, 1),
    'mean': lambda F, q: q.mean((2, 3)),
    'mean.all': lambda F, q: q.mean(),
    'mean.keepdim': lambda F, q: q.mean(1, keepdim=True),
    'nearest': lambda F, q: F.interpolate(q, size=(5, 13), mode='nearest'),
    'nearest.2': lambda F, q: F.interpolate(q, scale_factor=2, mode='nearest'),
    'bilinear': lambda F, q: F.interpolate(q, scale_factor=2, mode='bilinear'),
}


@pytest.mark.parametrize('name', list(POOL))
@pytest.mark.parametrize('dt,npdt,lo,hi', DT)
def test_pooling_and_averages(name, dt, npdt, lo, hi):
    rng = np.random.default_rng(5)
    for s, zp in ((0.05, 7), (0.1, 3), (0.37, 0)):
        ints = rng.integers(lo, hi + 1, (2, 3, 7, 9)).astype(npdt)
        t, e = _q(ints, s, zp)
        _same(POOL[name](TF, t), POOL[name](EF, e))


def test_writes():
    ints = _domain(np.uint8, 0, 255, 11)
    for f in (lambda q: q.fill_(0.333), lambda q: q.__setitem__(1, 0.333),
              lambda q: q.__setitem__(slice(1, 3), (torch if isinstance(q, torch.Tensor) else ember).tensor([0.333, 0.5])),
              lambda q: q.copy_((torch if isinstance(q, torch.Tensor) else ember).linspace(0, 1, 11))):
        t, e = _q(ints.copy(), 0.05, 10)
        f(t)
        f(e)
        _same(t, e)
    t, e = _q(ints.copy(), 0.05, 10)
    t2, e2 = _q(ints[::-1].copy(), 0.01, 3)
    t.copy_(t2)
    e.copy_(e2)
    _same(t, e)


def test_comparisons():
    x = np.linspace(-2, 3, 11).astype(np.float32)
    t = torch.quantize_per_tensor(torch.from_numpy(x), 0.05, 10, torch.quint8)
    t3 = torch.quantize_per_tensor(torch.from_numpy(x), 0.05, 11, torch.quint8)
    e = ember.quantize_per_tensor(ember.tensor(x), 0.05, 10, ember.quint8)
    e3 = ember.quantize_per_tensor(ember.tensor(x), 0.05, 11, ember.quint8)
    for f in (lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a == 0.5):
        np.testing.assert_array_equal(f(e, e3).numpy(), f(t, t3).numpy())
    assert ember.equal(e, e) == torch.equal(t, t) and ember.equal(e, e3) == torch.equal(t, t3)


def test_dropout():
    t, e = _q(_domain(np.uint8, 0, 255, 20), 0.05, 10)
    assert EF.dropout(e, 0.5, training=False) is e
    with pytest.raises(NotImplementedError, match='bernoulli'):
        TF.dropout(t, 0.5, training=True)
    with pytest.raises(NotImplementedError, match='bernoulli'):
        EF.dropout(e, 0.5, training=True)


def test_float_ops_still_refused():
    t, e = _q(_domain(np.uint8, 0, 255, 20), 0.05, 10)
    with pytest.raises(NotImplementedError, match="QuantizedCPU"):
        TF.hardswish(t)
    with pytest.raises(NotImplementedError, match="QuantizedCPU"):
        EF.hardswish(e)


# ------------------------------------------------------------------ linear and conv
def _weights(shape, per_channel, zp=0, seed=0):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    if per_channel:
        sc = rng.uniform(0.005, 0.02, shape[0])
        zps = np.zeros(shape[0], np.int64)
        tw = torch.quantize_per_channel(torch.from_numpy(w), torch.from_numpy(sc),
                                        torch.from_numpy(zps), 0, torch.qint8)
        ew = ember.quantize_per_channel(ember.tensor(w), ember.tensor(sc), ember.tensor(zps),
                                        0, ember.qint8)
    else:
        tw = torch.quantize_per_tensor(torch.from_numpy(w), 0.011, zp, torch.qint8)
        ew = ember.quantize_per_tensor(ember.tensor(w), 0.011, zp, ember.qint8)
    b = (rng.standard_normal(shape[0])).astype(np.float32)
    return tw, ew, torch.from_numpy(b), ember.tensor(b)


def _xq(shape, scale=0.05, zp=60, seed=1):
    ints = np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)
    return _q(ints, scale, zp)


@pytest.mark.parametrize('per_channel,wzp', [(False, 0), (False, 3), (True, 0)])
@pytest.mark.parametrize('bias', [True, False])
def test_linear(per_channel, wzp, bias):
    tw, ew, tb, eb = _weights((7, 20), per_channel, wzp)
    tp = torch.ops.quantized.linear_prepack(tw, tb if bias else None)
    ep = ember.ops.quantized.linear_prepack(ew, eb if bias else None)
    for a, b in zip(tp.unpack(), ep.unpack()):
        if a is None:
            assert b is None
        elif a.is_quantized:
            _same_weight(a, b)
        else:
            np.testing.assert_array_equal(b.numpy(), a.numpy())
    tx, ex = _xq((3, 5, 20))
    for op in ('linear', 'linear_relu'):
        _same(getattr(torch.ops.quantized, op)(tx, tp, 0.07, 100),
              getattr(ember.ops.quantized, op)(ex, ep, 0.07, 100))
    x = np.random.default_rng(2).standard_normal((4, 20)).astype(np.float32)
    for op in ('linear_dynamic', 'linear_relu_dynamic'):
        for rr in (False, True):
            np.testing.assert_array_equal(
                getattr(ember.ops.quantized, op)(ember.tensor(x), ep, rr).numpy(),
                getattr(torch.ops.quantized, op)(torch.from_numpy(x), tp, rr).numpy())


def _same_weight(a, b):
    assert str(a.qscheme()) == str(b.qscheme())
    np.testing.assert_array_equal(b.int_repr().numpy(), a.int_repr().numpy())
    if a.qscheme() == torch.per_tensor_affine:
        assert (b.q_scale(), b.q_zero_point()) == (a.q_scale(), a.q_zero_point())
    else:
        np.testing.assert_array_equal(b.q_per_channel_scales().numpy(),
                                      a.q_per_channel_scales().numpy())
        np.testing.assert_array_equal(b.q_per_channel_zero_points().numpy(),
                                      a.q_per_channel_zero_points().numpy())


def test_linear_errors():
    tw, ew, tb, eb = _weights((3, 4), False)
    tp, ep = torch.ops.quantized.linear_prepack(tw), ember.ops.quantized.linear_prepack(ew)
    for mod, p in ((torch, tp), (ember, ep)):
        x8 = mod.quantize_per_tensor(mod.ones(2, 4), 0.1, 2, mod.qint8)
        with pytest.raises(RuntimeError, match='Expected input data type QUInt8 but got QInt8'):
            mod.ops.quantized.linear(x8, p, 0.2, 3)
        x5 = mod.quantize_per_tensor(mod.ones(2, 5), 0.1, 2, mod.quint8)
        with pytest.raises(RuntimeError, match='packB should be equal to K'):
            mod.ops.quantized.linear(x5, p, 0.2, 3)
        wu = mod.quantize_per_tensor(mod.ones(3, 4), 0.1, 2, mod.quint8)
        with pytest.raises(RuntimeError, match='expected scalar type QInt8 but found QUInt8'):
            mod.ops.quantized.linear_prepack(wu)


CONV = [
    # nd, weight shape, stride, padding, dilation, groups, input shape
    (2, (6, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, (2, 3, 7, 6)),
    (2, (6, 2, 3, 2), [2, 1], [0, 1], [1, 2], 2, (1, 4, 9, 8)),
    (1, (5, 3, 3), [2], [1], [1], 1, (2, 3, 11)),
    (3, (4, 2, 2, 3, 2), [1, 2, 1], [1, 0, 1], [1, 1, 1], 1, (1, 2, 4, 7, 5)),
]


@pytest.mark.parametrize('nd,wshape,stride,padding,dilation,groups,xshape', CONV)
@pytest.mark.parametrize('per_channel', [False, True])
def test_conv(nd, wshape, stride, padding, dilation, groups, xshape, per_channel):
    tw, ew, tb, eb = _weights(wshape, per_channel, 0)
    tp = getattr(torch.ops.quantized, f'conv{nd}d_prepack')(tw, tb, stride, padding, dilation,
                                                           groups)
    ep = getattr(ember.ops.quantized, f'conv{nd}d_prepack')(ew, eb, stride, padding, dilation,
                                                           groups)
    _same_weight(tp.unpack()[0], ep.unpack()[0])
    for m in ('stride', 'padding', 'dilation', 'groups', 'transpose'):
        assert getattr(ep, m)() == getattr(tp, m)()
    tx, ex = _xq(xshape)
    # torch's x86 engine keeps the post-op of the first call in the packed weight (a later
    # conv2d_relu on the same pack gives no ReLU): each form gets a fresh pack
    for relu in ('', '_relu'):
        tp = getattr(torch.ops.quantized, f'conv{nd}d_prepack')(tw, tb, stride, padding,
                                                               dilation, groups)
        _same(getattr(torch.ops.quantized, f'conv{nd}d{relu}')(tx, tp, 0.09, 70),
              getattr(ember.ops.quantized, f'conv{nd}d{relu}')(ex, ep, 0.09, 70))


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_transpose(nd):
    wshape = (4, 3) + (3,) * nd
    tw, ew, _, _ = _weights(wshape, False, 0)
    b = np.linspace(-1, 1, 3).astype(np.float32)
    tb, eb = torch.from_numpy(b), ember.tensor(b)
    args = ([2] * nd, [1] * nd, [1] * nd, [1] * nd, 1)
    tp = getattr(torch.ops.quantized, f'conv_transpose{nd}d_prepack')(tw, tb, *args)
    ep = getattr(ember.ops.quantized, f'conv_transpose{nd}d_prepack')(ew, eb, *args)
    tx, ex = _xq((2, 4) + (5,) * nd)
    _same(getattr(torch.ops.quantized, f'conv_transpose{nd}d')(tx, tp, 0.09, 70),
          getattr(ember.ops.quantized, f'conv_transpose{nd}d')(ex, ep, 0.09, 70))


@pytest.mark.parametrize('mode,value', [('constant', None), ('constant', 0.55),
                                        ('constant', -3.0), ('reflect', None)])
def test_pad(mode, value):
    ints = _domain(np.uint8, 0, 255, 2 * 3 * 5).reshape(2, 3, 5)
    t, e = _q(ints, 0.1, 10)
    kw = {} if value is None else {'value': value}
    for pad in ((1, 2), (2, 1, 1, 0)):
        _same(TF.pad(t, pad, mode=mode, **kw), EF.pad(e, pad, mode=mode, **kw))


def test_pad_replicate_refused():
    t, e = _q(_domain(np.uint8, 0, 255, 6).reshape(1, 2, 3), 0.1, 10)
    for F, q in ((TF, t), (EF, e)):
        with pytest.raises(NotImplementedError, match='replication_pad1d'):
            F.pad(q, (1, 1), mode='replicate')


ORDER = ['q.sort()', 'q.sort(1, descending=True)', 'q.topk(2)', 'q.topk(2, 0, largest=False)',
         'q.max()', 'q.max(1)', 'q.min()', 'q.min(0, keepdim=True)', 'M.argsort(q, 1)']


@pytest.mark.parametrize('expr', ORDER)
def test_ordering(expr):
    ints = np.array([[5, 200, 3, 3, 77], [9, 9, 1, 250, 0]], np.uint8)
    t, e = _q(ints, 0.1, 7)
    rt, re_ = _run(expr, torch, t), _run(expr, ember, e)
    rt = rt if isinstance(rt, tuple) else (rt,)
    re_ = re_ if isinstance(re_, tuple) else (re_,)
    assert type(re_).__name__ == type(rt).__name__ or len(rt) == 1
    for a, b in zip(rt, re_):
        if a.is_quantized:
            _same(a, b)
        else:
            np.testing.assert_array_equal(b.numpy(), a.numpy())


def test_amax_refused():
    t, e = _q(np.arange(6, dtype=np.uint8), 0.1, 7)
    for q in (t, e):
        with pytest.raises(NotImplementedError, match="amax.out' with arguments from the "
                                                      "'QuantizedCPU'"):
            q.amax()


@pytest.mark.parametrize('expr', [
    'Q.softmax(q, 1, 1 / 256, 0)', 'Q.softmax(q, 0, 0.002, 3)',
    'Q.matmul(q, q.t(), 20.0, 7)', 'Q.celu(q, 0.05, 100, 1.5)',
    'Q.layer_norm(q, [9], None, None, 1e-5, 0.02, 128)',
    'Q.group_norm(q.reshape(2, 6, 3), 3, None, None, 1e-5, 0.02, 128)',
    'Q.instance_norm(q.reshape(2, 3, 6), None, None, 1e-5, 0.02, 128)',
])
def test_float_path_ops(expr):
    ints = np.random.default_rng(7).integers(0, 256, (4, 9)).astype(np.uint8)
    t, e = _q(ints, 0.05, 100)
    _same(_run(expr, torch, t), _run(expr, ember, e))


def test_embedding_bag_byte_rowwise():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((30, 17)).astype(np.float32)
    w[4] = 0.5                                  # a constant row
    tp = torch.ops.quantized.embedding_bag_byte_prepack(torch.from_numpy(w))
    ep = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor(w))
    np.testing.assert_array_equal(ep.numpy(), tp.numpy())
    np.testing.assert_array_equal(ember.ops.quantized.embedding_bag_byte_unpack(ep).numpy(),
                                  torch.ops.quantized.embedding_bag_byte_unpack(tp).numpy())
    idx = rng.integers(0, 30, 40)
    offs = np.array([0, 5, 6, 20, 33])
    psw = rng.standard_normal(40).astype(np.float32)
    for w_, last in ((None, False), (psw, False), (None, True)):
        o = np.append(offs, 40) if last else offs
        args_t = (torch.from_numpy(idx), torch.from_numpy(o), False, 0, False,
                  None if w_ is None else torch.from_numpy(w_), None, last)
        args_e = (ember.tensor(idx), ember.tensor(o), False, 0, False,
                  None if w_ is None else ember.tensor(w_), None, last)
        np.testing.assert_array_equal(
            ember.ops.quantized.embedding_bag_byte_rowwise_offsets(ep, *args_e).numpy(),
            torch.ops.quantized.embedding_bag_byte_rowwise_offsets(tp, *args_t).numpy())


def test_linear_fp16():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((7, 20)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    x = rng.standard_normal((3, 20)).astype(np.float32)
    tp = torch.ops.quantized.linear_prepack_fp16(torch.from_numpy(w), torch.from_numpy(b))
    ep = ember.ops.quantized.linear_prepack_fp16(ember.tensor(w), ember.tensor(b))
    np.testing.assert_array_equal(ember.ops.quantized.linear_unpack_fp16(ep)[0].numpy(),
                                  torch.ops.quantized.linear_unpack_fp16(tp)[0].numpy())
    for op in ('linear_dynamic_fp16', 'linear_relu_dynamic_fp16'):
        np.testing.assert_allclose(getattr(ember.ops.quantized, op)(ember.tensor(x), ep).numpy(),
                                   getattr(torch.ops.quantized, op)(torch.from_numpy(x), tp).numpy(),
                                   rtol=0, atol=2e-6)


# ------------------------------------------------------------------ layouts
# torch's quantized kernels give channels_last(_3d) results where the input suggests it
# (and walk them in memory order); conv outputs are channels-last; some ops give contiguous
LAYOUT = {
    'relu': 'F.relu(q)', 'hardtanh': 'F.hardtanh(q)', 'clamp': 'M.clamp(q, 0.1, 0.9)',
    'hardswish': 'Q.hardswish(q, 0.013, 3)', 'leaky': 'Q.leaky_relu(q, 0.1, False, 0.02, 9)',
    'sigmoid': 'M.sigmoid(q)', 'tanh': 'M.tanh(q)', 'gelu': 'F.gelu(q)',
    'elu': 'Q.elu(q, 0.02, 9)', 'celu': 'Q.celu(q, 0.02, 9)',
    'add': 'Q.add(q, q, 0.07, 3)', 'add_relu': 'Q.add_relu(q, q, 0.07, 3)',
    'mul': 'Q.mul(q, q, 0.3, 3)', 'add_scalar': 'Q.add_scalar(q, 0.5)',
    'mul_scalar': 'Q.mul_scalar(q, -2.0)', 'cat': 'M.cat([q, q], 1)',
    'qcat': 'Q.cat([q, q], 1, 0.04, 2)', 'max_pool': 'F.max_pool2d(q, 2)',
    'avg_pool': 'F.avg_pool2d(q, 2)', 'adaptive_avg': 'F.adaptive_avg_pool2d(q, 3)',
    'nearest': 'F.interpolate(q, scale_factor=2)', 'pad': 'F.pad(q, (1, 1, 1, 1))',
    'bilinear': 'F.interpolate(q, scale_factor=2, mode="bilinear")',
    'bn': 'Q.batch_norm2d(q, M.ones(6), M.zeros(6), M.zeros(6), M.ones(6), 1e-5, 0.02, 9)',
    'group_norm': 'Q.group_norm(q, 2, None, None, 1e-5, 0.02, 9)',
    'instance_norm': 'Q.instance_norm(q, None, None, 1e-5, 0.02, 9)',
    'layer_norm': 'Q.layer_norm(q, [7], None, None, 1e-5, 0.02, 9)',
    'softmax': 'Q.softmax(q, 1, 0.004, 0)', 'mean': 'q.mean((2, 3), keepdim=True)',
    'sort': 'M.sort(q, 1)[0]', 'topk': 'M.topk(q, 2, 1)[0]', 'clone': 'q.clone()',
    'clone_preserve': 'q.clone(memory_format=M.preserve_format)',
    'clone_contiguous': 'q.clone(memory_format=M.contiguous_format)',
    'int_repr': 'q.int_repr()', 'dequantize': 'q.dequantize()',
    'requantize': 'M.quantize_per_tensor(q.dequantize(), 0.03, 4, M.quint8)',
    'conv': 'M.ao.nn.quantized.Conv2d(6, 2, 1)(q)', 'conv_t': 'q.transpose(2, 3).clone()',
}


@pytest.mark.parametrize('name', list(LAYOUT))
def test_channels_last_layout_as_torch(name):
    ints = _domain(np.uint8, 0, 255, 2 * 6 * 7 * 7).reshape(2, 6, 7, 7)
    outs = []
    for M in (torch, ember):
        torch.manual_seed(0)
        ember.manual_seed(0)
        q = M._make_per_tensor_quantized_tensor(M.tensor(ints), 0.05, 100)
        q = q.contiguous(memory_format=M.channels_last)
        r = eval(LAYOUT[name], {'M': M, 'F': M.nn.functional, 'Q': M.ops.quantized, 'q': q})
        outs.append(r)
    t, e = outs
    assert tuple(e.stride()) == tuple(t.stride())
    if name != 'conv':          # (the conv's random weights differ)
        if t.is_quantized:
            _same(t, e)
        else:
            np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_output_is_channels_last_and_views_fail_as_torch(nd):
    outs = []
    for M in (torch, ember):
        w = M.quantize_per_tensor(M.ones(3, 2, *([2] * nd)), 0.1, 0, M.qint8)
        args = ([1] * nd, [0] * nd, [1] * nd, 1)
        p = getattr(M.ops.quantized, f'conv{nd}d_prepack')(w, None, *args)
        x = M.quantize_per_tensor(M.ones(2, 2, *([5] * nd)), 0.5, 0, M.quint8)
        y = getattr(M.ops.quantized, f'conv{nd}d')(x, p, 0.25, 3)
        pt = getattr(M.ops.quantized, f'conv_transpose{nd}d_prepack')(
            M.quantize_per_tensor(M.ones(3, 2, *([2] * nd)), 0.1, 0, M.qint8), None,
            [1] * nd, [0] * nd, [0] * nd, [1] * nd, 1)
        yt = getattr(M.ops.quantized, f'conv_transpose{nd}d')(y, pt, 0.25, 3)
        with pytest.raises(RuntimeError) as err:
            y.view(2, -1)
        outs.append((y, yt, str(err.value)))
    (t, tt, terr), (e, et, eerr) = outs
    _same(t, e)
    _same(tt, et)
    assert tuple(e.stride()) == tuple(t.stride()) and tuple(et.stride()) == tuple(tt.stride())
    assert eerr == terr


def test_adaptive_max_pool_refused_as_torch():
    for name in ('adaptive_max_pool1d', 'adaptive_max_pool2d'):
        errs = []
        for M in (torch, ember):
            q = M.quantize_per_tensor(M.ones(1, 2, 4, 4) if name.endswith('2d')
                                      else M.ones(1, 2, 4), 0.1, 0, M.quint8)
            with pytest.raises(NotImplementedError) as err:
                getattr(M.nn.functional, name)(q, 2)
            errs.append(str(err.value).split(' This could')[0])
        assert errs[0] == errs[1]


@pytest.mark.parametrize('dim', [1, 0, (1, 2), (2, 3), 3, -1, (0, 3)])
def test_mean_over_dims_as_torch(dim):
    # innermost dimensions: the integer average; others: torch averages the real values
    ints = np.random.RandomState(0).randint(0, 256, (2, 2, 5, 6)).astype(np.uint8)
    for scale, zp in ((0.0039, 0), (0.05, 10), (1 / 3, 100)):
        t, e = _q(ints, scale, zp)
        _same(t.mean(dim=dim), e.mean(dim=dim))
        _same(t.mean(dim=dim, keepdim=True), e.mean(dim=dim, keepdim=True))
