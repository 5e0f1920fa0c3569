"""ember._quantized.kernels against torch 2.13's quantized CPU kernels, integer for integer."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

import torch

from ember._quantized.kernels import _pointwise as PW
from ember._quantized import kernels as K

TORCH_INT = {'quint8': torch.uint8, 'qint8': torch.int8, 'qint32': torch.int32}
TORCH_Q = {'quint8': torch.quint8, 'qint8': torch.qint8, 'qint32': torch.qint32}


@pytest.fixture(autouse=True)
def _torch_state():
    threads = torch.get_num_threads()
    engine = torch.backends.quantized.engine
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # torch 2.13's quantized-dtype deprecation
        yield
    torch.backends.quantized.engine = engine
    torch.set_num_threads(threads)


def _pt(q, scale, zp):
    return torch._make_per_tensor_quantized_tensor(torch.from_numpy(np.ascontiguousarray(q)),
                                                   float(scale), int(zp))


def _pc(q, scales, zps, axis):
    return torch._make_per_channel_quantized_tensor(
        torch.from_numpy(np.ascontiguousarray(q)), torch.tensor(np.asarray(scales, np.float64)),
        torch.tensor(np.asarray(zps, np.int64)), axis)


# --------------------------------------------------------------------------- fma


def _exact_f32_round(v):
    """Round the Fraction v to float32, ties to even (reference)."""
    f = np.float32(float(v))
    lo, hi = (f, np.nextafter(f, np.float32(np.inf))) if Fraction(float(f)) <= v else (
        np.nextafter(f, np.float32(-np.inf)), f)
    dl, dh = v - Fraction(float(lo)), Fraction(float(hi)) - v
    if dl < dh:
        return lo
    if dh < dl:
        return hi
    return lo if (lo.view(np.uint32) & 1) == 0 else hi


def test_fma_f32_is_correctly_rounded_at_double_rounding_ties():
    rng = np.random.default_rng(0)
    a, b, c = [], [], []
    for _ in range(300):
        # a*b + c exactly halfway between two float32 plus a tiny tail below float64's reach
        x = np.float32(rng.uniform(1, 2))
        y = np.float32(rng.uniform(1, 2))
        p = Fraction(float(x)) * Fraction(float(y))
        target = _exact_f32_round(p + 100)                      # a float32 near p + 100
        half_ulp = Fraction(float(np.spacing(target))) / 2
        cc = np.float32(float(Fraction(float(target)) + half_ulp - p))
        a.append(x), b.append(y), c.append(cc)
    a, b, c = (np.array(v, np.float32) for v in (a, b, c))
    a = np.concatenate([a, rng.standard_normal(200).astype(np.float32)])
    b = np.concatenate([b, rng.standard_normal(200).astype(np.float32)])
    c = np.concatenate([c, (rng.standard_normal(200) * 1e-30).astype(np.float32)])
    got = K._fma_f32(a, b, c)
    want = [_exact_f32_round(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
            for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(want, np.float32))


# --------------------------------------------------------------------------- quantize


def _values(rng, n, scale):
    k = rng.integers(-400, 400, n)
    x = ((k + 0.5) * np.float32(scale)).astype(np.float32)           # near-ties
    x[::3] = (rng.standard_normal(n) * rng.uniform(0.1, 300) * scale).astype(np.float32)[::3]
    return x


@pytest.mark.parametrize('dtype', ['quint8', 'qint8', 'qint32'])
def test_quantize_per_tensor(dtype):
    rng = np.random.default_rng(1)
    _, qmin, qmax = K.QTYPES[dtype]
    for it in range(300):
        scale = float(np.exp(rng.uniform(-12, 3)))
        zp = int(rng.integers(-1000, 1000) if dtype == 'qint32' else rng.integers(qmin, qmax + 1))
        if it % 10 == 0:
            zp = qmin if dtype != 'qint32' else 0
        x = _values(rng, int(rng.integers(1, 70)), scale)
        want = torch.quantize_per_tensor(torch.from_numpy(x), scale, zp, TORCH_Q[dtype])
        np.testing.assert_array_equal(K.quantize_per_tensor(x, scale, zp, dtype),
                                      want.int_repr().numpy())


@pytest.mark.parametrize('dtype', ['quint8', 'qint8', 'qint32'])
def test_quantize_special_values(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1e10, -1e10, 0.0] * 3, np.float32)
    for n in (1, 3, len(x)):
        for zp in (0, 5, 100):
            want = torch.quantize_per_tensor(torch.from_numpy(x[:n]), 0.1, zp, TORCH_Q[dtype])
            np.testing.assert_array_equal(K.quantize_per_tensor(x[:n], 0.1, zp, dtype),
                                          want.int_repr().numpy())
            want = torch.quantize_per_channel(torch.from_numpy(x[:n]), torch.full((n,), 0.1),
                                              torch.full((n,), zp), 0, TORCH_Q[dtype])
            np.testing.assert_array_equal(
                K.quantize_per_channel(x[:n], np.full(n, 0.1), np.full(n, zp), 0, dtype),
                want.int_repr().numpy())


@pytest.mark.parametrize('dtype', ['quint8', 'qint8', 'qint32'])
def test_quantize_per_channel(dtype):
    rng = np.random.default_rng(2)
    _, qmin, qmax = K.QTYPES[dtype]
    for it in range(150):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(v) for v in rng.integers(1, 6, ndim))
        axis = int(rng.integers(0, ndim))
        C = shape[axis]
        scales = np.exp(rng.uniform(-12, 3, C))
        zps = (rng.integers(-1000, 1000, C) if dtype == 'qint32'
               else rng.integers(qmin, qmax + 1, C))
        bshape = [1] * ndim
        bshape[axis] = C
        k = rng.integers(-300, 300, shape)
        x = ((k + 0.5) * scales.astype(np.float32).reshape(bshape)).astype(np.float32)
        if it % 2:
            x = (x * np.float32(rng.uniform(0.5, 2))).astype(np.float32)
        want = torch.quantize_per_channel(torch.from_numpy(x), torch.tensor(scales),
                                          torch.tensor(zps), axis, TORCH_Q[dtype])
        np.testing.assert_array_equal(K.quantize_per_channel(x, scales, zps, axis, dtype),
                                      want.int_repr().numpy())


@pytest.mark.parametrize('dtype', ['quint8', 'qint8', 'qint32'])
def test_dequantize(dtype):
    rng = np.random.default_rng(3)
    np_dt, qmin, qmax = K.QTYPES[dtype]
    for _ in range(100):
        C = int(rng.integers(1, 5))
        q = rng.integers(qmin, qmax + 1, (6, C), dtype=np.int64).astype(np_dt)
        q[0, 0] = qmax
        q[-1, -1] = qmin
        scales = np.exp(rng.uniform(-12, 3, C))
        zps = (rng.integers(-10 ** 6, 10 ** 6, C) if dtype == 'qint32'
               else rng.integers(qmin, qmax + 1, C))
        want = _pt(q, scales[0], zps[0]).dequantize().numpy()
        np.testing.assert_array_equal(K.dequantize_per_tensor(q, scales[0], zps[0]), want)
        want = _pc(q, scales, zps, 1).dequantize().numpy()
        np.testing.assert_array_equal(K.dequantize_per_channel(q, scales, zps, 1), want)


def test_choose_qparams():
    rng = np.random.default_rng(4)
    for it in range(600):
        n = int(rng.integers(1, 40))
        x = (rng.standard_normal(n) * np.exp(rng.uniform(-20, 10))).astype(np.float32)
        mode = it % 6
        if mode == 1:
            x = np.abs(x)
        elif mode == 2:
            x = -np.abs(x)
        elif mode == 3:
            x[:] = x[0]
        elif mode == 4:
            x = x + np.float32(rng.uniform(-100, 100))
        elif mode == 5 and it % 12 == 5:
            x[:] = 0
        for rr in (False, True):
            want = torch._choose_qparams_per_tensor(torch.from_numpy(x), rr)
            mn, mx = K.tensor_min_max(x)
            assert K.choose_qparams(mn, mx, 0, 255, rr) == want


# --------------------------------------------------------------------------- linear


def _rand_weight(rng, n, k, per_channel, nonzero_zp):
    wq = rng.integers(-128, 128, (n, k)).astype(np.int8)
    if per_channel:
        ws = np.exp(rng.uniform(-8, -2, n))
        wz = rng.integers(-20, 20, n) if nonzero_zp else np.zeros(n, np.int64)
        return wq, ws, wz, _pc(wq, ws, wz, 0)
    ws = float(np.exp(rng.uniform(-8, -2)))
    wz = int(rng.integers(-20, 20)) if nonzero_zp else 0
    return wq, ws, wz, _pt(wq, ws, wz)


@pytest.mark.parametrize('engine', ['fbgemm', 'x86'])
def test_linear_static_and_dynamic(engine):
    torch.backends.quantized.engine = engine
    rng = np.random.default_rng(5)
    for it in range(120):
        M, Kd, N = int(rng.integers(1, 6)), int(rng.integers(1, 1500)), int(rng.integers(1, 12))
        if it < 4:
            Kd = 2100                                  # more than one exact float32 chunk
        wq, ws, wz, w = _rand_weight(rng, N, Kd, it % 2 == 0, it % 4 == 1)
        b = None if it % 5 == 0 else (rng.standard_normal(N) * 3).astype(np.float32)
        relu = it % 3 == 0
        packed = torch.ops.quantized.linear_prepack(w, None if b is None else torch.from_numpy(b))
        # static
        xs = float(np.exp(rng.uniform(-6, 0)))
        xz = int(rng.choice([0, 255, int(rng.integers(0, 256))]))
        xq = rng.integers(0, 256, (M, Kd)).astype(np.uint8)
        os_ = float(np.exp(rng.uniform(-10, 2)))
        oz = int(rng.choice([0, 255, int(rng.integers(0, 256))]))
        op = torch.ops.quantized.linear_relu if relu else torch.ops.quantized.linear
        want = op(_pt(xq, xs, xz), packed, os_, oz).int_repr().numpy()
        got = K.linear_static(xq, xs, xz, wq, ws, wz, b, os_, oz, relu)
        np.testing.assert_array_equal(got, want)
        # dynamic
        x = (rng.standard_normal((M, Kd)) * np.exp(rng.uniform(-3, 3))
             + rng.uniform(-1, 1)).astype(np.float32)
        if it % 7 == 3:
            x = np.abs(x)
        rr = it % 3 != 1
        op = torch.ops.quantized.linear_relu_dynamic if relu else torch.ops.quantized.linear_dynamic
        want = op(torch.from_numpy(x), packed, rr).numpy()
        got = K.linear_dynamic(x, K.PackedLinearWeight(wq, ws, wz, b), reduce_range=rr,
                               relu=relu)
        np.testing.assert_array_equal(got, want)


def test_linear_static_saturation_and_overflow():
    torch.backends.quantized.engine = 'fbgemm'
    rng = np.random.default_rng(6)
    wq = rng.integers(-128, 128, (8, 64)).astype(np.int8)
    w = _pt(wq, 0.05, 0)
    b = (rng.standard_normal(8) * 1e3).astype(np.float32)
    xq = rng.integers(0, 256, (3, 64)).astype(np.uint8)
    for out_scale in (1e-12, 1e-6, 1e-3, 1.0, 1e6):       # tiny scales overflow int32
        for bias in (None, b):
            packed = torch.ops.quantized.linear_prepack(w, None if bias is None
                                                        else torch.from_numpy(bias))
            for relu in (False, True):
                op = torch.ops.quantized.linear_relu if relu else torch.ops.quantized.linear
                want = op(_pt(xq, 0.5, 3), packed, out_scale, 7).int_repr().numpy()
                got = K.linear_static(xq, 0.5, 3, wq, 0.05, 0, bias, out_scale, 7, relu)
                np.testing.assert_array_equal(got, want)


def test_linear_batch_dims():
    torch.backends.quantized.engine = 'fbgemm'
    rng = np.random.default_rng(7)
    wq, ws, wz, w = _rand_weight(rng, 5, 9, True, False)
    packed = torch.ops.quantized.linear_prepack(w, None)
    xq = rng.integers(0, 256, (2, 3, 9)).astype(np.uint8)
    want = torch.ops.quantized.linear(_pt(xq, 0.1, 9), packed, 0.3, 100).int_repr().numpy()
    np.testing.assert_array_equal(K.linear_static(xq, 0.1, 9, wq, ws, wz, None, 0.3, 100), want)
    x = rng.standard_normal((2, 3, 9)).astype(np.float32)
    want = torch.ops.quantized.linear_dynamic(torch.from_numpy(x), packed, True).numpy()
    np.testing.assert_array_equal(K.linear_dynamic(x, wq, ws, wz, None), want)


# --------------------------------------------------------------------------- conv


def _conv_case(rng, it, nd, engine):
    g = int(rng.choice([1, 1, 2, 3]))
    cin, cout = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
    if it % 10 == 0:
        g = cin = cout = 4                                          # depthwise
    if it % 10 == 1:
        g, cin, cout = 1, 130, 3                                    # > 1024 columns: chunked
    k = tuple(int(v) for v in rng.integers(1, 4, nd))
    st = tuple(int(v) for v in rng.integers(1, 3, nd))
    pd = tuple(int(v) for v in rng.integers(0, 2, nd))
    dl = tuple(int(v) for v in rng.integers(1, 3, nd))
    sp = tuple(int(v) for v in rng.integers(5, 8, nd))
    xq = rng.integers(0, 256, (int(rng.integers(1, 3)), cin) + sp).astype(np.uint8)
    wq = rng.integers(-128, 128, (cout, cin // g) + k).astype(np.int8)
    nonzero_zp = it % 4 == 1 and engine != 'onednn'
    if it % 2 == 0:
        ws = np.exp(rng.uniform(-8, -2, cout))
        wz = rng.integers(-5, 5, cout) if nonzero_zp else np.zeros(cout, np.int64)
        w = _pc(wq, ws, wz, 0)
    else:
        ws, wz = float(np.exp(rng.uniform(-8, -2))), int(rng.integers(-5, 5)) if nonzero_zp else 0
        w = _pt(wq, ws, wz)
    b = None if it % 5 == 0 else rng.standard_normal(cout).astype(np.float32)
    return xq, wq, ws, wz, w, b, st, pd, dl, g


@pytest.mark.parametrize('engine', ['fbgemm', 'x86', 'onednn'])
@pytest.mark.parametrize('nd', [1, 2, 3])
def test_conv_static(engine, nd):
    torch.backends.quantized.engine = engine
    rng = np.random.default_rng(10 + nd)
    for it in range(25):
        xq, wq, ws, wz, w, b, st, pd, dl, g = _conv_case(rng, it, nd, engine)
        xs, xz = float(np.exp(rng.uniform(-6, 0))), int(rng.choice([0, 255, rng.integers(0, 256)]))
        os_, oz = float(np.exp(rng.uniform(-8, 2))), int(rng.choice([0, 255, rng.integers(0, 256)]))
        relu = it % 3 == 0
        prep = getattr(torch.ops.quantized, f'conv{nd}d_prepack')(
            w, None if b is None else torch.from_numpy(b), list(st), list(pd), list(dl), g)
        op = getattr(torch.ops.quantized, f'conv{nd}d_relu' if relu else f'conv{nd}d')
        want = op(_pt(xq, xs, xz), prep, os_, oz).int_repr().numpy()
        packed = K.PackedConvWeight(wq, ws, wz, b, st, pd, dl, g)
        got = K.conv_static(xq, xs, xz, packed, os_, oz, relu)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------- elementwise

# scales with short binary expansions make halfway cases frequent: the SIMD body and the
# scalar tail of torch's kernels round those differently, and the tests see which is which
TIE_SCALES = [0.5, 0.25, 0.1, 0.05, 0.3, 0.0625, 0.02, 1.7]
LENGTHS = [1, 5, 63, 64, 65, 127, 128, 129, 200, 300]


def _elementwise_cases(seed, count):
    rng = np.random.default_rng(seed)
    for it in range(count):
        dtype = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dtype]
        n = int(rng.choice(LENGTHS))
        q = rng.integers(qmin, qmax + 1, n).astype(np_dt)
        q2 = rng.integers(qmin, qmax + 1, n).astype(np_dt)
        s, s2, so = (float(v) for v in rng.choice(TIE_SCALES, 3))
        z, z2, zo = (int(v) for v in rng.integers(qmin, qmax + 1, 3))
        yield rng, dtype, q, s, z, q2, s2, z2, so, zo


def test_unary_activations():
    F = torch.nn.functional
    for rng, dt, q, s, z, _, _, _, so, zo in _elementwise_cases(12, 150):
        x = _pt(q, s, z)
        np.testing.assert_array_equal(K.relu(q, z), torch.relu(x).int_repr().numpy())
        np.testing.assert_array_equal(K.relu6(q, s, z, dt),
                                      torch.ops.quantized.relu6(x).int_repr().numpy())
        np.testing.assert_array_equal(K.clamp(q, s, z, -1.0, 1.0, dt),
                                      F.hardtanh(x).int_repr().numpy())
        np.testing.assert_array_equal(K.clamp(q, s, z, -0.7, 3.3, dt),
                                      torch.clamp(x, -0.7, 3.3).int_repr().numpy())
        np.testing.assert_array_equal(
            K.leaky_relu(q, s, z, 0.01, so, zo, dt),
            torch.ops.quantized.leaky_relu(x, 0.01, False, so, zo).int_repr().numpy())
        np.testing.assert_array_equal(
            K.hardswish(q, s, z, so, zo, dt),
            torch.ops.quantized.hardswish(x, so, zo).int_repr().numpy())
        np.testing.assert_array_equal(
            K.elu(q, s, z, so, zo, 0.5, dt),
            torch.ops.quantized.elu(x, so, zo, 0.5, 1.0, 1.0).int_repr().numpy())
        for ours, theirs in ((K.hardsigmoid, F.hardsigmoid), (K.sigmoid, torch.sigmoid),
                             (K.tanh, torch.tanh)):
            got, got_scale, got_zp = ours(q, s, z, dt)
            want = theirs(x)
            np.testing.assert_array_equal(got, want.int_repr().numpy())
            assert (got_scale, got_zp) == (want.q_scale(), want.q_zero_point())


def test_unary_body_and_tail_differ():
    # the split matters: all-SIMD or all-scalar arithmetic disagrees with torch somewhere
    mismatches = {}
    for simd in (1, 1 << 20):
        old = PW.SIMD_BYTES
        PW.SIMD_BYTES = simd
        try:
            for rng, dt, q, s, z, _, _, _, so, zo in _elementwise_cases(13, 60):
                want = torch.ops.quantized.leaky_relu(_pt(q, s, z), 0.01, False, so, zo)
                mismatches[simd] = mismatches.get(simd, 0) + (not np.array_equal(
                    K.leaky_relu(q, s, z, 0.01, so, zo, dt), want.int_repr().numpy()))
        finally:
            PW.SIMD_BYTES = old
    assert mismatches[1] > 0 and mismatches[1 << 20] > 0


def test_binary_ops():
    Q = torch.ops.quantized
    for rng, dt, a, sa, za, b, sb, zb, so, zo in _elementwise_cases(14, 120):
        A, B = _pt(a, sa, za), _pt(b, sb, zb)
        for relu in (False, True):
            np.testing.assert_array_equal(
                K.add(a, sa, za, b, sb, zb, so, zo, relu, dt),
                (Q.add_relu if relu else Q.add)(A, B, so, zo).int_repr().numpy())
            np.testing.assert_array_equal(
                K.mul(a, sa, za, b, sb, zb, so, zo, relu, dt),
                (Q.mul_relu if relu else Q.mul)(A, B, so, zo).int_repr().numpy())
            c = float(rng.choice([0.0, 1.0, -1.0, 3.7, -20.0, 100.0, 0.26, -0.3]))
            for ours, theirs in ((K.add_scalar, Q.add_scalar_relu if relu else Q.add_scalar),
                                 (K.mul_scalar, Q.mul_scalar_relu if relu else Q.mul_scalar)):
                got, got_scale, got_zp = ours(a, sa, za, c, relu, dt)
                want = theirs(A, c)
                np.testing.assert_array_equal(got, want.int_repr().numpy())
                assert (got_scale, got_zp) == (want.q_scale(), want.q_zero_point())


# --------------------------------------------------------------------------- pooling


def test_pooling():
    F = torch.nn.functional
    rng = np.random.default_rng(15)
    checked = 0
    for it in range(120):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        nd = 2 if it % 3 else 3
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(
            int(v) for v in rng.integers(3, 9, nd))
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        z = int(rng.integers(qmin, qmax + 1))
        x = _pt(q, 0.1, z)
        k = tuple(int(v) for v in rng.integers(1, 4, nd))
        st = tuple(int(v) for v in rng.integers(1, 3, nd))
        pd = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in k)
        dl = tuple(int(v) for v in rng.integers(1, 3, nd))
        cm = it % 4 == 0
        try:
            want = (F.max_pool2d if nd == 2 else F.max_pool3d)(x, k, st, pd, dl, cm)
        except RuntimeError:          # torch: output too small
            want = None
        if want is not None:
            got = K.max_pool(q, k, st, pd, dl, cm)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want.int_repr().numpy())
            checked += 1
        cip, dov = it % 3 == 0, None if it % 5 else int(rng.integers(1, 10))
        try:
            want = (F.avg_pool2d if nd == 2 else F.avg_pool3d)(x, k, st, pd, cm, cip, dov)
        except RuntimeError:
            want = None
        if want is not None:
            got = K.avg_pool(q, z, k, st, pd, cm, cip, dov)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want.int_repr().numpy())
        osz = tuple(int(rng.integers(1, v + 2)) for v in shape[2:])
        want = (F.adaptive_avg_pool2d if nd == 2 else F.adaptive_avg_pool3d)(x, osz)
        np.testing.assert_array_equal(K.adaptive_avg_pool(q, osz), want.int_repr().numpy())
    assert checked > 60


# --------------------------------------------------------------------------- norm, cat


def test_batch_norm():
    rng = np.random.default_rng(16)
    f32 = np.float32
    for it in range(90):
        C = int(rng.choice([1, 3, 16, 63, 64, 65, 130]))
        nd = int(rng.choice([1, 2, 3]))
        shape = (2, C) + tuple(int(v) for v in rng.integers(1, 4, nd))
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        s, os_ = (float(v) for v in rng.uniform(0.01, 1, 2))
        z, oz = (int(v) for v in rng.integers(qmin, qmax + 1, 2))
        w, b, mean = (rng.standard_normal(C).astype(f32) for _ in range(3))
        var = rng.uniform(0.1, 2, C).astype(f32)
        relu = it % 3 == 0
        name = f'batch_norm{nd}d' + ('_relu' if relu else '')
        want = getattr(torch.ops.quantized, name)(
            _pt(q, s, z), *(torch.from_numpy(v) for v in (w, b, mean, var)), 1e-5, os_, oz)
        got = K.batch_norm(q, s, z, w, b, mean, var, 1e-5, os_, oz, relu, dt)
        np.testing.assert_array_equal(got, want.int_repr().numpy())


def test_cat():
    rng = np.random.default_rng(17)
    for it in range(80):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        nd = int(rng.integers(1, 5))
        axis = int(rng.integers(0, nd))
        base = [int(v) for v in rng.integers(1, 5, nd)]
        qs, ss, zs = [], [], []
        for _ in range(int(rng.integers(1, 4))):
            shape = list(base)
            shape[axis] = int(rng.integers(1, 4))
            qs.append(rng.integers(qmin, qmax + 1, shape).astype(np_dt))
            ss.append(float(rng.choice(TIE_SCALES)))
            zs.append(int(rng.integers(qmin, qmax + 1)))
        os_, oz = float(rng.choice(TIE_SCALES)), int(rng.integers(qmin, qmax + 1))
        relu = it % 3 == 0
        op = torch.ops.quantized.cat_relu if relu else torch.ops.quantized.cat
        want = op([_pt(q, s, z) for q, s, z in zip(qs, ss, zs)], axis, os_, oz)
        np.testing.assert_array_equal(K.cat(qs, ss, zs, axis, os_, oz, relu, dt),
                                      want.int_repr().numpy())


# --------------------------------------------------------------------------- embeddings


def test_embedding_8bit_rowwise():
    rng = np.random.default_rng(18)
    qconfig = torch.ao.quantization.float_qparams_weight_only_qconfig
    for it in range(40):
        R, D = int(rng.integers(1, 20)), int(rng.integers(1, 40))
        w = (rng.standard_normal((R, D)) * rng.uniform(0.01, 10)).astype(np.float32)
        sc = (np.ptp(w, axis=1) / 255).astype(np.float32) + np.float32(1e-8)
        zp = (-w.min(axis=1) / sc).astype(np.float32)
        tq = torch.quantize_per_channel(torch.from_numpy(w), torch.from_numpy(sc),
                                        torch.from_numpy(zp), 0, torch.quint8)
        np.testing.assert_array_equal(K.quantize_per_channel_float_qparams(w, sc, zp, 0),
                                      tq.int_repr().numpy())
        np.testing.assert_array_equal(K.dequantize_per_channel(tq.int_repr().numpy(), sc, zp, 0),
                                      tq.dequantize().numpy())
        emb = torch.nn.Embedding(R, D)
        emb.weight.data = torch.from_numpy(w)
        emb.qconfig = qconfig
        qe = torch.ao.nn.quantized.Embedding.from_float(emb)
        qw = qe.weight()
        q, s2, z2 = (qw.int_repr().numpy(), qw.q_per_channel_scales().numpy(),
                     qw.q_per_channel_zero_points().numpy())
        idx = rng.integers(0, R, (3, 4))
        np.testing.assert_array_equal(K.embedding_byte(q, s2, z2, idx),
                                      qe(torch.from_numpy(idx)).numpy())
        bag = torch.nn.EmbeddingBag(R, D, mode='sum')
        bag.weight.data = torch.from_numpy(w)
        bag.qconfig = qconfig
        qbag = torch.ao.nn.quantized.EmbeddingBag.from_float(bag)
        n = int(rng.integers(0, 12))
        idx = rng.integers(0, R, n)
        offs = np.sort(rng.integers(0, n + 1, int(rng.integers(1, 5))))
        offs[0] = 0
        psw = rng.standard_normal(n).astype(np.float32) if it % 2 else None
        want = qbag(torch.from_numpy(idx), torch.from_numpy(offs),
                    None if psw is None else torch.from_numpy(psw)).numpy()
        np.testing.assert_array_equal(K.embedding_bag_byte(q, s2, z2, idx, offs, psw), want)


def test_layer_group_instance_norm():
    rng = np.random.default_rng(20)
    f32 = np.float32

    def T(a):
        return None if a is None else torch.from_numpy(a)
    for it in range(60):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        xs, ys = float(rng.uniform(0.01, 1)), float(rng.uniform(0.005, 0.1))
        xz, yz = (int(v) for v in rng.integers(qmin, qmax + 1, 2))
        nshape = tuple(int(v) for v in rng.choice([1, 3, 20, 64, 70, 130],
                                                   int(rng.integers(1, 3))))
        q = rng.integers(qmin, qmax + 1, (int(rng.integers(1, 4)),) + nshape).astype(np_dt)
        gamma = rng.standard_normal(nshape).astype(f32) if it % 3 else None
        beta = rng.standard_normal(nshape).astype(f32) if it % 3 else None
        want = torch.ops.quantized.layer_norm(_pt(q, xs, xz), list(nshape), T(gamma), T(beta),
                                              1e-5, ys, yz)
        np.testing.assert_array_equal(
            K.layer_norm(q, xs, xz, nshape, gamma, beta, 1e-5, ys, yz, dt),
            want.int_repr().numpy())
        G = int(rng.choice([1, 2, 3]))
        C = G * int(rng.integers(1, 4))
        shape = (int(rng.integers(1, 3)), C) + tuple(
            int(v) for v in rng.integers(1, 30, int(rng.integers(1, 3))))
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        w, b = rng.standard_normal(C).astype(f32), rng.standard_normal(C).astype(f32)
        x = _pt(q, xs, xz)
        np.testing.assert_array_equal(
            K.group_norm(q, xs, xz, G, w, b, 1e-5, ys, yz, dt),
            torch.ops.quantized.group_norm(x, G, T(w), T(b), 1e-5, ys, yz).int_repr().numpy())
        np.testing.assert_array_equal(
            K.instance_norm(q, xs, xz, w, b, 1e-5, ys, yz, dt),
            torch.ops.quantized.instance_norm(x, T(w), T(b), 1e-5, ys, yz).int_repr().numpy())


# --------------------------------------------------------------------------- qnnpack


def test_qnnpack_linear_conv():
    torch.backends.quantized.engine = 'qnnpack'
    rng = np.random.default_rng(21)
    differs_from_fbgemm = 0
    for it in range(80):
        per_channel = it % 2 == 0
        N, Kd, M = int(rng.integers(1, 12)), int(rng.integers(1, 300)), int(rng.integers(1, 6))
        wq, ws, wz, w = _rand_weight(rng, N, Kd, per_channel, False)
        b = None if it % 5 == 0 else (rng.standard_normal(N) * 3).astype(np.float32)
        relu = it % 3 == 0
        xs, xz = float(np.exp(rng.uniform(-6, 0))), int(rng.integers(0, 256))
        os_, oz = float(np.exp(rng.uniform(-6, 2))), int(rng.integers(0, 256))
        xq = rng.integers(0, 256, (M, Kd)).astype(np.uint8)
        packed = torch.ops.quantized.linear_prepack(w, None if b is None else torch.from_numpy(b))
        op = torch.ops.quantized.linear_relu if relu else torch.ops.quantized.linear
        want = op(_pt(xq, xs, xz), packed, os_, oz).int_repr().numpy()
        np.testing.assert_array_equal(
            K.linear_static(xq, xs, xz, wq, ws, wz, b, os_, oz, relu, engine='qnnpack'), want)
        x = (rng.standard_normal((M, Kd)) * 2).astype(np.float32)
        op = torch.ops.quantized.linear_relu_dynamic if relu else torch.ops.quantized.linear_dynamic
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            want = op(torch.from_numpy(x), packed, True).numpy()
        np.testing.assert_array_equal(
            K.linear_dynamic(x, wq, ws, wz, b, True, relu, engine='qnnpack'), want)
        # conv
        g = int(rng.choice([1, 1, 2]))
        cin, cout = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        k = (int(rng.integers(1, 4)),) * 2
        st, pd = (int(rng.integers(1, 3)),) * 2, (int(rng.integers(0, 2)),) * 2
        cq, cs, cz, cw = (lambda r: r)(_rand_weight(rng, cout, cin // g * k[0] * k[1],
                                                    per_channel, False))
        cq = cq.reshape((cout, cin // g) + k)
        cw = _pc(cq, cs, cz, 0) if per_channel else _pt(cq, cs, cz)
        cb = None if it % 5 == 0 else (rng.standard_normal(cout) * 3).astype(np.float32)
        xq = rng.integers(0, 256, (int(rng.integers(1, 3)), cin, 7, 7)).astype(np.uint8)
        prep = torch.ops.quantized.conv2d_prepack(
            cw, None if cb is None else torch.from_numpy(cb), list(st), list(pd), [1, 1], g)
        op = torch.ops.quantized.conv2d_relu if relu else torch.ops.quantized.conv2d
        want = op(_pt(xq, xs, xz), prep, os_, oz).int_repr().numpy()
        p = K.PackedConvWeight(cq, cs, cz, cb, st, pd, (1, 1), g)
        np.testing.assert_array_equal(
            K.conv_static(xq, xs, xz, p, os_, oz, relu, engine='qnnpack'), want)
        differs_from_fbgemm += not np.array_equal(K.conv_static(xq, xs, xz, p, os_, oz, relu),
                                                  want)
    assert differs_from_fbgemm > 0


def test_qnnpack_avg_pools():
    torch.backends.quantized.engine = 'qnnpack'
    F = torch.nn.functional
    rng = np.random.default_rng(4)
    checked = 0
    for it in range(100):
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(2, 12)),
                 int(rng.integers(2, 12)))
        q = rng.integers(0, 256, shape).astype(np.uint8)
        s, z = float(rng.choice(TIE_SCALES)), int(rng.integers(0, 256))
        x = _pt(q, s, z)
        osz = (int(rng.integers(1, shape[2] + 1)), int(rng.integers(1, shape[3] + 1)))
        np.testing.assert_array_equal(K.adaptive_avg_pool(q, osz, s, z, 'qnnpack'),
                                      F.adaptive_avg_pool2d(x, osz).int_repr().numpy())
        k = (int(rng.integers(1, 4)), int(rng.integers(2, 4)))
        st = (int(rng.integers(1, 3)),) * 2
        pd = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
        try:
            want = F.avg_pool2d(x, k, st, pd, False, it % 2 == 0, None if it % 3 else 5)
        except RuntimeError:            # torch: output too small for QNNPACK
            continue
        checked += 1
        np.testing.assert_array_equal(K.avg_pool_qnnpack(q, s, z, k, st, pd),
                                      want.int_repr().numpy())
    assert checked > 50


def test_pooling_channels_last():
    F = torch.nn.functional
    rng = np.random.default_rng(30)
    differs = 0
    for it in range(120):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        C = int(rng.choice([1, 3, 8, 15, 16, 17, 25, 33]))
        shape = (int(rng.integers(1, 3)), C, int(rng.integers(2, 9)), int(rng.integers(2, 9)))
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        s, z = float(rng.choice(TIE_SCALES)), int(rng.integers(qmin, qmax + 1))
        x = _pt(q, s, z).contiguous(memory_format=torch.channels_last)
        k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        st = (int(rng.integers(1, 3)),) * 2
        pd = (int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1)))
        args = (k, st, pd, it % 4 == 0, it % 2 == 0, None if it % 3 else 5)
        want = F.avg_pool2d(x, *args).int_repr().numpy()
        got = K.avg_pool(q, z, *args, channels_last=True)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        if want.size:
            differs += not np.array_equal(K.avg_pool(q, z, *args), want)
        osz = (int(rng.integers(1, shape[2] + 1)), int(rng.integers(1, shape[3] + 1)))
        np.testing.assert_array_equal(K.adaptive_avg_pool(q, osz, s, z, channels_last=True),
                                      F.adaptive_avg_pool2d(x, osz).int_repr().numpy())
    assert differs > 0


def test_conv_transpose_static():
    torch.backends.quantized.engine = 'fbgemm'
    rng = np.random.default_rng(41)
    for it in range(45):
        nd = [1, 2, 3][it % 3]
        g = int(rng.choice([1, 1, 2]))
        cin, cout = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        k = tuple(int(v) for v in rng.integers(1, 4, nd))
        st = tuple(int(v) for v in rng.integers(1, 3, nd))
        pd = tuple(int(rng.integers(0, kk)) for kk in k)
        dl = tuple(int(v) for v in rng.integers(1, 3, nd))
        op_ = tuple(int(rng.integers(0, max(a, b))) for a, b in zip(st, dl))
        sp = tuple(int(v) for v in rng.integers(2, 6, nd))
        xq = rng.integers(0, 256, (int(rng.integers(1, 3)), cin) + sp).astype(np.uint8)
        wq = rng.integers(-128, 128, (cin, cout // g) + k).astype(np.int8)
        ws, wz = float(np.exp(rng.uniform(-8, -2))), int(rng.integers(-3, 4)) if it % 4 else 0
        b = None if it % 5 == 0 else rng.standard_normal(cout).astype(np.float32)
        xs, xz = float(np.exp(rng.uniform(-6, 0))), int(rng.integers(0, 256))
        os_, oz = float(np.exp(rng.uniform(-6, 2))), int(rng.integers(0, 256))
        prep = getattr(torch.ops.quantized, f'conv_transpose{nd}d_prepack')(
            _pt(wq, ws, wz), None if b is None else torch.from_numpy(b), list(st), list(pd),
            list(op_), list(dl), g)
        want = getattr(torch.ops.quantized, f'conv_transpose{nd}d')(_pt(xq, xs, xz), prep,
                                                                    os_, oz).int_repr().numpy()
        got = K.conv_transpose_static(xq, xs, xz, wq, ws, wz, b, st, pd, op_, dl, g, os_, oz)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_prelu_threshold_softmax_matmul_nearest():
    F = torch.nn.functional
    rng = np.random.default_rng(51)
    for it in range(80):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        C = int(rng.integers(1, 5))
        shape = (int(rng.integers(1, 3)), C, int(rng.integers(2, 9)), int(rng.integers(1, 9)))
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        s, so = (float(v) for v in rng.choice(TIE_SCALES, 2))
        z, zo = (int(v) for v in rng.integers(qmin, qmax + 1, 2))
        x = _pt(q, s, z)
        wq = rng.integers(qmin, qmax + 1, C if it % 2 else 1).astype(np_dt)
        ws, wz = float(rng.choice(TIE_SCALES)), int(rng.integers(qmin, qmax + 1))
        np.testing.assert_array_equal(
            K.prelu(q, s, z, wq, ws, wz, so, zo, dt),
            torch.ops.quantized.prelu(x, _pt(wq, ws, wz), so, zo).int_repr().numpy())
        th, val = (float(v) for v in rng.uniform(-3, 3, 2))
        np.testing.assert_array_equal(K.threshold(q, s, z, th, val, dt),
                                      torch.threshold(x, th, val).int_repr().numpy())
        ozp = 0 if dt == 'quint8' else -128
        np.testing.assert_array_equal(
            K.softmax(q, s, z, 1, 1 / 256, ozp, dt),
            torch.ops.quantized.softmax(x, 1, 1 / 256, ozp).int_repr().numpy())
        osz = (int(rng.integers(1, 17)), int(rng.integers(1, 17)))
        np.testing.assert_array_equal(K.upsample_nearest(q, osz),
                                      F.interpolate(x, size=osz, mode='nearest').int_repr().numpy())
        M, Kd, N = (int(v) for v in rng.integers(1, 20, 3))
        a = rng.integers(qmin, qmax + 1, (M, Kd)).astype(np_dt)
        b = rng.integers(qmin, qmax + 1, (Kd, N)).astype(np_dt)
        sa, sb = (float(v) for v in rng.uniform(0.001, 0.1, 2))
        np.testing.assert_array_equal(
            K.matmul(a, sa, z, b, sb, zo, so, z, dt),
            torch.ops.quantized.matmul(_pt(a, sa, z), _pt(b, sb, zo), so, z).int_repr().numpy())


def test_elementwise_channels_last_memory_order():
    rng = np.random.default_rng(40)
    for _ in range(40):
        a = rng.integers(0, 256, (1, 3, 7, 5)).astype(np.uint8)
        b = rng.integers(0, 256, (1, 3, 7, 5)).astype(np.uint8)
        sa, sb, so = (float(v) for v in rng.choice(TIE_SCALES, 3))
        za, zb, zo = (int(v) for v in rng.integers(0, 256, 3))
        cl = torch.channels_last
        want = torch.ops.quantized.add(_pt(a, sa, za).contiguous(memory_format=cl),
                                       _pt(b, sb, zb).contiguous(memory_format=cl), so, zo)
        nhwc = [np.ascontiguousarray(np.moveaxis(v, 1, -1)) for v in (a, b)]
        got = np.moveaxis(K.add(nhwc[0], sa, za, nhwc[1], sb, zb, so, zo), -1, 1)
        np.testing.assert_array_equal(got, want.int_repr().numpy())


def test_embedding_4bit_rowwise():
    rng = np.random.default_rng(19)
    qconfig = torch.ao.quantization.float_qparams_weight_only_qconfig_4bit
    for it in range(30):
        R, D = int(rng.integers(1, 10)), 2 * int(rng.integers(1, 20))
        w = (rng.standard_normal((R, D)) * rng.uniform(0.1, 5)).astype(np.float32)
        sc = (np.ptp(w, axis=1) / 15).astype(np.float32) + np.float32(1e-8)
        zp = (-w.min(axis=1) / sc).astype(np.float32)
        tq = torch.quantize_per_channel(torch.from_numpy(w), torch.from_numpy(sc),
                                        torch.from_numpy(zp), 0, torch.quint4x2)
        q4 = K.quantize_per_channel_float_qparams(w, sc, zp, 0, 'quint4x2')
        np.testing.assert_array_equal(K.pack_4bit(q4).reshape(-1), tq.int_repr().numpy())
        np.testing.assert_array_equal(K.unpack_4bit(K.pack_4bit(q4)), q4)
        bag = torch.nn.EmbeddingBag(R, D, mode='sum')
        bag.weight.data = torch.from_numpy(w)
        bag.qconfig = qconfig
        qbag = torch.ao.nn.quantized.EmbeddingBag.from_float(bag)
        qw = qbag.weight()
        q = K.unpack_4bit(qw.int_repr().numpy().reshape(R, D // 2))
        s2, z2 = qw.q_per_channel_scales().numpy(), qw.q_per_channel_zero_points().numpy()
        np.testing.assert_array_equal(K.dequantize_per_channel(q, s2, z2, 0),
                                      qw.dequantize().numpy())
        n = int(rng.integers(0, 10))
        idx = rng.integers(0, R, n)
        offs = np.sort(rng.integers(0, n + 1, int(rng.integers(1, 4))))
        offs[0] = 0
        psw = rng.standard_normal(n).astype(np.float32) if it % 2 else None
        want = qbag(torch.from_numpy(idx), torch.from_numpy(offs),
                    None if psw is None else torch.from_numpy(psw)).numpy()
        np.testing.assert_array_equal(K.embedding_bag_byte(q, s2, z2, idx, offs, psw, bits=4),
                                      want)
        idx = rng.integers(0, R, (2, 3))
        want = torch.ops.quantized.embedding_4bit(qbag._packed_params._packed_weight,
                                                  torch.from_numpy(idx), False)
        np.testing.assert_array_equal(K.embedding_byte(q, s2, z2, idx, bits=4), want.numpy())


def test_elementwise_thread_ranges():
    # from 32768 elements on, each of torch's threads rounds its own range's tail
    rng = np.random.default_rng(60)
    for threads in (2, 3):
        torch.set_num_threads(threads)       # the fixture gives the count back
        for _ in range(3):
            n = int(rng.integers(40000, 140000))
            a, b = (rng.integers(0, 256, n).astype(np.uint8) for _ in range(2))
            sa, sb, so = (float(v) for v in rng.choice(TIE_SCALES, 3))
            za, zb, zo = (int(v) for v in rng.integers(0, 256, 3))
            want = torch.ops.quantized.add(_pt(a, sa, za), _pt(b, sb, zb), so, zo)
            np.testing.assert_array_equal(
                K.add(a, sa, za, b, sb, zb, so, zo, num_threads=threads), want.int_repr().numpy())
            want = torch.ops.quantized.leaky_relu(_pt(a, sa, za), 0.01, False, so, zo)
            np.testing.assert_array_equal(
                K.leaky_relu(a, sa, za, 0.01, so, zo, num_threads=threads),
                want.int_repr().numpy())


def test_linear_dynamic_non_finite_inputs():
    torch.backends.quantized.engine = 'fbgemm'
    rng = np.random.default_rng(61)
    wq = rng.integers(-128, 128, (3, 5)).astype(np.int8)
    b = rng.standard_normal(3).astype(np.float32)
    packed = torch.ops.quantized.linear_prepack(_pt(wq, 0.01, 0), torch.from_numpy(b))
    for bad in (np.inf, -np.inf, np.nan, 3e38):
        for pos in ((0, 0), (0, 1), (1, 4)):
            x = rng.standard_normal((2, 5)).astype(np.float32)
            x[pos] = bad
            for rr in (True, False):
                try:
                    want = torch.ops.quantized.linear_dynamic(torch.from_numpy(x), packed, rr)
                except RuntimeError as e:            # a NaN first value: min > max
                    with pytest.raises(RuntimeError, match='min should be less than'):
                        K.linear_dynamic(x, wq, 0.01, 0, b, rr)
                    assert 'min should be less than' in str(e)
                    continue
                np.testing.assert_array_equal(K.linear_dynamic(x, wq, 0.01, 0, b, rr),
                                              want.numpy())


def test_upsample_bilinear_and_nearest():
    F = torch.nn.functional
    rng = np.random.default_rng(71)
    for it in range(120):
        dt = ['quint8', 'qint8'][it % 2]
        np_dt, qmin, qmax = K.QTYPES[dt]
        C = int(rng.choice([1, 2, 3, 16, 17, 33]))
        shape = (int(rng.integers(1, 3)), C, int(rng.integers(1, 8)), int(rng.integers(1, 8)))
        q = rng.integers(qmin, qmax + 1, shape).astype(np_dt)
        z = int(rng.integers(qmin, qmax + 1))
        x = _pt(q, 0.1, z)
        if it % 3 == 0:
            x = x.contiguous(memory_format=torch.channels_last)
        ac = it % 2 == 0
        if it % 4:
            osz, sc = (int(rng.integers(1, 15)), int(rng.integers(1, 15))), None
            want = F.interpolate(x, size=osz, mode='bilinear', align_corners=ac)
        else:
            sf = float(rng.choice([1.5, 2.0, 2.5, 3.0]))
            want = F.interpolate(x, scale_factor=sf, mode='bilinear', align_corners=ac)
            osz, sc = want.shape[2:], (sf, sf)
        # torch takes its channels-last kernel for any channels-last-contiguous input
        cl = x.is_contiguous(memory_format=torch.channels_last)
        got = K.upsample_bilinear(q, z, osz, ac, sc, dt, channels_last=cl)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want.int_repr().numpy())
        want = F.interpolate(x, size=osz, mode='nearest')
        np.testing.assert_array_equal(K.upsample_nearest(q, osz), want.int_repr().numpy())
