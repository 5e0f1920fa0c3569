"""Fake-quantize ops (ember/_ops/fake_quantize.py) against torch: outputs and
straight-through gradients bit-equal on random values, exact ties and the clamp edges;
the learnable forms' scale/zero-point gradients; the fused observer op; errors."""
import numpy as np
import pytest
import torch

import ember
from tests.oracle import errors_both, to_np

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered")

RANGES = [(0, 255), (-128, 127), (0, 15), (-3, 40)]


def _inputs(rng, scale, n=300):
    """Random values plus exact ties (k + 0.5) * scale and values beyond the clamp."""
    k = rng.integers(-300, 300, size=n)
    s32 = float(np.float32(scale))
    return np.concatenate([rng.normal(0, scale * 100, n), (k + 0.5) * scale, k * scale,
                           (k + 0.5) * s32, rng.normal(0, 1, 50),
                           [np.inf, -np.inf, np.nan, 1e30, -1e30, 0.0, -0.0]])


def _both(x_np, dtype, fn):
    """fn(module, x) on both libraries; output and x.grad (upstream gradient ones)."""
    res = []
    for m in (torch, ember):
        x = m.tensor(x_np, dtype=getattr(m, dtype), requires_grad=True)
        y = fn(m, x)
        y.backward(m.ones_like(y))
        res.append((to_np(y), to_np(x.grad),
                    str(y.dtype), type(y.grad_fn).__name__))
    return res


def _assert_bits(e, t):
    for a, b in zip(e[:2], t[:2]):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert e[2].replace('ember', 'torch') == t[2]
    assert e[3] == t[3]


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('tensor_qparams', [False, True])
def test_per_tensor_bits(dtype, tensor_qparams):
    rng = np.random.default_rng(0)
    for trial in range(12):
        scale = float(np.exp(rng.uniform(-8, 3)))
        qmin, qmax = RANGES[trial % 4]
        zp = int(np.clip(rng.integers(-10, 20), qmin, qmax))
        x = _inputs(rng, scale)

        def fn(m, t):
            if tensor_qparams:
                return m.fake_quantize_per_tensor_affine(t, m.tensor(scale), m.tensor(zp),
                                                         qmin, qmax)
            return m.fake_quantize_per_tensor_affine(t, scale, zp, qmin, qmax)
        t, e = _both(x, dtype, fn)
        _assert_bits(e, t)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('zp_kind', ['int32', 'float32', 'float16'])
def test_per_channel_bits(dtype, zp_kind):
    rng = np.random.default_rng(1)
    for trial in range(6):
        qmin, qmax = RANGES[trial % 3]
        C = 3
        s = np.exp(rng.uniform(-8, 2, C)).astype(np.float32)
        if zp_kind == 'int32':
            z = rng.integers(qmin, qmax + 1, C)
        else:
            z = rng.uniform(qmin - 5, qmax + 5, C)
        axis = trial % 2
        x = np.stack([_inputs(rng, float(si), 60) for si in s], axis)

        def fn(m, t):
            return m.fake_quantize_per_channel_affine(
                t, m.tensor(s), m.tensor(z, dtype=getattr(m, zp_kind)), axis, qmin, qmax)
        t, e = _both(x, dtype, fn)
        _assert_bits(e, t)


def test_non_contiguous_empty_zero_dim():
    x = np.random.default_rng(2).normal(size=(4, 6))
    for make in (lambda m: m.tensor(x, dtype=m.float32).t(),
                 lambda m: m.tensor(x, dtype=m.float32)[:, ::2],
                 lambda m: m.zeros(0, 3), lambda m: m.tensor(0.37)):
        t = torch.fake_quantize_per_tensor_affine(make(torch), 0.1, 3, 0, 255)
        e = ember.fake_quantize_per_tensor_affine(make(ember), 0.1, 3, 0, 255)
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(to_np(e), to_np(t))


def test_per_tensor_errors():
    x = lambda m: m.randn(5)  # noqa: E731
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(x(m), 0.1, 3, 10, 5),
                'should be less than or         equal to `quant_max`')
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(x(m), 0.1, 300, 0, 255),
                '`zero_point` must be between `quant_min` and `quant_max`.')
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(
        x(m), m.tensor([0.1, 0.2]), m.tensor([3, 3]), 0, 255),
        'a Tensor with 2 elements cannot be converted to Scalar')
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(
        x(m), m.tensor([0.1]), m.tensor([3]), 10, 5), 'should be less than or')
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(m.arange(3), 0.1, 3, 0, 255),
                '"fake_quantize_tensor_cachemask_kernel_type_handling" not implemented for '
                "'Long'")
    errors_both(lambda m: m.fake_quantize_per_tensor_affine(x(m), 0.1, 3.5, 0, 255))


def test_per_tensor_tensor_qparams_truncates_zero_point():
    # torch reads a float zero-point tensor as an int (3.7 -> 3) and does not check its range
    x = np.random.default_rng(3).normal(size=20).astype(np.float32) * 3
    for zp in (3.7, -3.0):
        t = torch.fake_quantize_per_tensor_affine(torch.tensor(x), torch.tensor(0.1),
                                                  torch.tensor(zp), 0, 255)
        e = ember.fake_quantize_per_tensor_affine(ember.tensor(x), ember.tensor(0.1),
                                                  ember.tensor(zp), 0, 255)
        np.testing.assert_array_equal(to_np(e), to_np(t))


def test_per_channel_errors():
    x = lambda m: m.randn(3, 4)  # noqa: E731
    s = lambda m: m.tensor([0.1, 0.2, 0.3])  # noqa: E731
    z = lambda m: m.tensor([3, 4, 5], dtype=m.int32)  # noqa: E731
    f = lambda m, *a: m.fake_quantize_per_channel_affine(*a)  # noqa: E731
    errors_both(lambda m: f(m, x(m), s(m), z(m), 0, 10, 5), 'should be less than or')
    errors_both(lambda m: f(m, x(m), s(m), z(m), 2, 0, 255), 'Dimension out of range')
    errors_both(lambda m: f(m, x(m), s(m), z(m), 1, 0, 255),
                'dimensions of scale and zero-point are not consistent with input tensor')
    errors_both(lambda m: f(m, x(m), s(m), z(m)[:2], 0, 0, 255),
                'scale and zero-point need to have the same dimensions')
    errors_both(lambda m: f(m, x(m), s(m), m.tensor([3, 4, 500], dtype=m.int32), 0, 0, 255),
                '`zero_point` must be between')
    errors_both(lambda m: f(m, x(m), s(m).double(), z(m), 0, 0, 255),
                'Scale must be Float or BFloat16, found Double')
    errors_both(lambda m: f(m, x(m), s(m), z(m).long(), 0, 0, 255),
                'Zero-point must be Int32, Float or Half, found Long')
    errors_both(lambda m: f(m, x(m), s(m).reshape(3, 1), z(m), 0, 0, 255),
                'scale should be a 1-D tensor')
    errors_both(lambda m: f(m, x(m), s(m), z(m).reshape(3, 1), 0, 0, 255),
                'zero point should be a 1-D tensor')
    errors_both(lambda m: f(m, m.randn(3, 3), s(m), z(m), -1, 0, 255),
                '`axis` must be between 0 and number of dimensions of input')
    errors_both(lambda m: f(m, m.arange(3).reshape(1, 3), m.tensor([0.1]),
                            m.tensor([3], dtype=m.int32), 0, 0, 255),
                '"fake_quantize_channel_cachemask_cpu_type_handling" not implemented')


def _learn_both(x_np, s_np, z_np, fn, upstream):
    out = []
    for m in (torch, ember):
        x = m.tensor(x_np, dtype=m.float32, requires_grad=True)
        s = m.tensor(s_np, dtype=m.float32, requires_grad=True)
        z = m.tensor(z_np, dtype=m.float32, requires_grad=True)
        y = fn(m, x, s, z)
        y.backward(m.tensor(upstream, dtype=m.float32))
        out.append([to_np(y), to_np(x.grad), to_np(s.grad), to_np(z.grad),
                    type(y.grad_fn).__name__])
    return out


@pytest.mark.parametrize('grad_factor', [1.0, 0.37])
def test_learnable_per_tensor(grad_factor):
    rng = np.random.default_rng(4)
    for trial in range(8):
        qmin, qmax = RANGES[trial % 4]
        scale = float(np.exp(rng.uniform(-5, 1)))
        zp = rng.uniform(qmin - 4, qmax + 4)
        x = _inputs(rng, scale, 100)[:-7]
        up = rng.normal(size=x.shape)

        def fn(m, x, s, z):
            return m._fake_quantize_learnable_per_tensor_affine(x, s, z, qmin, qmax,
                                                                grad_factor)
        t, e = _learn_both(x, [scale], [zp], fn, up)
        for a, b in zip(e[:2], t[:2]):
            np.testing.assert_array_equal(a, b)
        # scale/zero-point gradients are sums over the elements (summation order differs)
        for a, b in zip(e[2:4], t[2:4]):
            assert a.shape == b.shape == (1,)
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)
        assert e[4] == t[4] == 'FakeQuantizeLearnablePerTensorAffineBackward0'


def test_learnable_per_channel():
    rng = np.random.default_rng(5)
    for trial in range(6):
        qmin, qmax = RANGES[trial % 3]
        s = np.exp(rng.uniform(-5, 1, 3))
        z = rng.uniform(qmin - 4, qmax + 4, 3)
        axis = trial % 2
        x = np.stack([_inputs(rng, float(si), 30)[:-7] for si in s], axis)
        up = rng.normal(size=x.shape)

        def fn(m, x, sc, zp):
            return m._fake_quantize_learnable_per_channel_affine(x, sc, zp, axis, qmin, qmax,
                                                                 0.5)
        t, e = _learn_both(x, s, z, fn, up)
        for a, b in zip(e[:2], t[:2]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(e[2:4], t[2:4]):
            assert a.shape == b.shape == (3,)
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)
        assert e[4] == t[4] == 'FakeQuantizeLearnablePerChannelAffineBackward0'


def test_learnable_backward_needs_float32():
    def fn(m):
        x = m.randn(2, 5, dtype=m.float64, requires_grad=True)
        s = m.tensor([0.1], dtype=m.float64, requires_grad=True)
        z = m.tensor([3.0], dtype=m.float64, requires_grad=True)
        y = m._fake_quantize_learnable_per_tensor_affine(x, s, z, 0, 255, 1.0)
        assert y.dtype == m.float64
        y.sum().backward()
    errors_both(fn, 'Expected dY_.scalar_type() == ScalarType::Float')


@pytest.mark.parametrize('reduce_range', [False, True])
def test_choose_qparams_per_tensor(reduce_range):
    rng = np.random.default_rng(6)
    cases = [rng.normal(size=50) * 10 ** rng.uniform(-6, 3)
             + rng.normal() * 10 ** rng.uniform(-3, 2) for _ in range(40)] + [np.zeros(4), np.full(3, 2.5), np.full(3, -1e-7),
                                    np.array([-1e-6, 1e-6]), np.array([0.0, 1e-9])]
    for c in cases:
        c = c.astype(np.float32)
        t = torch._choose_qparams_per_tensor(torch.tensor(c), reduce_range)
        e = ember._choose_qparams_per_tensor(ember.tensor(c), reduce_range)
        assert e == t, (c, e, t)


@pytest.mark.parametrize('per_channel,symmetric', [(False, False), (False, True),
                                                   (True, False), (True, True)])
def test_fused_moving_avg_obs_fake_quant(per_channel, symmetric):
    qmin, qmax = (-128, 127) if symmetric else (0, 255)
    state = {}
    for m in (torch, ember):
        if per_channel:
            mn, mx = m.empty(0), m.empty(0)
            s, z = m.ones(1), m.zeros(1, dtype=m.int32)
        else:
            mn, mx = m.tensor(float('inf')), m.tensor(float('-inf'))
            s, z = m.ones(1), m.zeros(1, dtype=m.int32)
        state[m] = (mn, mx, s, z)
    r = np.random.default_rng(8)
    for step in range(6):
        x = (r.normal(size=(4, 3, 2)) * r.uniform(0.01, 5) + r.normal()).astype(np.float32)
        obs_on, fq_on = (1, 1) if step != 3 else (0, 1)
        if step == 4:
            obs_on, fq_on = 1, 0
        outs = []
        for m in (torch, ember):
            xt = m.tensor(x, requires_grad=True)
            y = m.fused_moving_avg_obs_fake_quant(
                xt, m.tensor([obs_on]), m.tensor([fq_on]), *state[m], 0.25, qmin, qmax, 0,
                per_channel, symmetric)
            y.backward(m.ones_like(y))
            assert type(y.grad_fn).__name__ == 'FusedMovingAvgObsFqHelperBackward0'
            outs.append([to_np(y), to_np(xt.grad)]
                        + [to_np(v) for v in state[m]])
        for a, b in zip(outs[1], outs[0]):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('enabled', [0, 1])
def test_cachemask_tensor_qparams(enabled):
    x = _inputs(np.random.default_rng(9), 0.05, 40).astype(np.float32)
    out = []
    for m in (torch, ember):
        xt = m.tensor(x, requires_grad=True)
        r = m._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            xt, m.tensor([0.05]), m.tensor([7], dtype=m.int32), m.tensor([enabled]), 0, 255)
        r.output.backward(m.ones_like(r.output))
        out.append((to_np(r.output), to_np(r.mask), to_np(xt.grad),
                    type(r).__name__, type(r.output.grad_fn).__name__))
    for a, b in zip(out[1], out[0]):
        np.testing.assert_array_equal(a, b) if isinstance(b, np.ndarray) else None
        assert isinstance(b, np.ndarray) or a == b
    r = ember._fused_moving_avg_obs_fq_helper(
        ember.tensor([1.0]), ember.tensor([1]), ember.tensor([1]), ember.tensor(float('inf')),
        ember.tensor(float('-inf')), ember.ones(1), ember.zeros(1, dtype=ember.int32), 0.01, 0,
        255, 0)
    assert type(r).__name__ == '_fused_moving_avg_obs_fq_helper' and r.mask.dtype == ember.bool


def test_choose_qparams_optimized():
    rng = np.random.default_rng(10)
    for t in range(25):
        x = (rng.normal(size=int(rng.integers(5, 80))) * rng.uniform(0.1, 5)).astype(np.float32)
        if t % 5 == 0:
            x[0] = 30.0   # an outlier to cut off
        nb, ratio, bw = int(rng.choice([50, 200])), float(rng.choice([0.16, 0.5])), \
            int(rng.choice([4, 8]))
        tx = torch.choose_qparams_optimized(torch.tensor(x), x.size, nb, ratio, bw)
        ex = ember.choose_qparams_optimized(ember.tensor(x), x.size, nb, ratio, bw)
        for a, b in zip(ex, tx):
            assert a.dtype == ember.float32 and tuple(a.shape) == (1,)
            assert a.item() == b.item()
    errors_both(lambda m: m.choose_qparams_optimized(m.randn(5).double(), 5, 100, 0.16, 8),
                'expected scalar type Float but found Double')
    errors_both(lambda m: m.choose_qparams_optimized(m.randn(0), 0, 100, 0.16, 8),
                'input tensor is empty and has no data')


def test_qparams_that_require_grad():
    def args(m):
        return (m.tensor([[1.0, 2.0]], requires_grad=True), m.tensor([0.1], requires_grad=True),
                m.tensor([1.0], requires_grad=True))
    for fn, match in [
            (lambda m, x, s, z: m.fake_quantize_per_tensor_affine(x, s, m.tensor([1]), 0, 255),
             "'_fake_quantize_per_tensor_affine_cachemask_tensor_qparams' is not "
             "differentiable with respect to argument 'scale'"),
            (lambda m, x, s, z: m.fake_quantize_per_tensor_affine(x, s.detach(), z, 0, 255),
             "with respect to argument 'zero_point'"),
            (lambda m, x, s, z: m.fake_quantize_per_channel_affine(
                x, s, m.tensor([1], dtype=m.int32), 0, 0, 255),
             "'fake_quantize_per_channel_affine_cachemask' is not differentiable"),
            (lambda m, x, s, z: m._fused_moving_avg_obs_fq_helper(
                x, m.tensor([1]), m.tensor([1]), m.tensor(float('inf')),
                m.tensor(float('-inf')), s, m.zeros(1, dtype=m.int32), 0.01, 0, 255, 0),
             "'_fused_moving_avg_obs_fq_helper' is not differentiable")]:
        errors_both(lambda m: fn(m, *args(m)), match)
    for m in (torch, ember):   # under no_grad they are accepted; edges: the input only
        x, s, z = args(m)
        with m.no_grad():
            m.fake_quantize_per_tensor_affine(x, s, m.tensor([1]), 0, 255)
        y = m.fake_quantize_per_channel_affine(x, s.detach(), m.tensor([1], dtype=m.int32),
                                               0, 0, 255)
        assert len(y.grad_fn.next_functions) == 1
        y = m._fake_quantize_learnable_per_tensor_affine(x, s, z, 0, 255, 1.0)
        assert len(y.grad_fn.next_functions) == 3


@pytest.mark.parametrize('ch_axis,observe,ndim', [(1, 1, 3), (1, 0, 3), (3, 1, 3), (-1, 1, 3),
                                                  (-3, 1, 3), (0, 1, 1), (-1, 1, 2)])
def test_fused_per_channel_axis_handling(ch_axis, observe, ndim):
    def run(m):
        mn, mx = m.empty(0), m.empty(0)
        s, z = m.ones(1), m.zeros(1, dtype=m.int32)
        try:
            y = m.fused_moving_avg_obs_fake_quant(
                m.ones(*[4, 3, 2][:ndim]), m.tensor([observe]), m.tensor([1]), mn, mx, s, z,
                0.01, -128, 127, ch_axis, True, True)
            return ('ok', tuple(mn.shape), tuple(s.shape), y.sum().item())
        except Exception as e:   # noqa: BLE001 - the same error as torch's is the point
            return (type(e).__name__, str(e), tuple(mn.shape))
    assert run(ember) == run(torch)


@pytest.mark.parametrize('observe', [0, 1])
@pytest.mark.parametrize('per_channel', [False, True])
def test_fused_half_input(observe, per_channel):
    x = np.random.default_rng(11).normal(size=(2, 3)).astype(np.float32)

    def run(m):
        n = 2 if per_channel else 1
        mn = m.zeros(2) - 1 if per_channel else m.tensor(-1.0)
        mx = m.ones(2) if per_channel else m.tensor(1.0)
        y = m.fused_moving_avg_obs_fake_quant(
            m.tensor(x).half(), m.tensor([observe]), m.tensor([1]), mn, mx, m.ones(n),
            m.zeros(n, dtype=m.int32), 0.01, 0, 255, 0, per_channel, False)
        return to_np(y)
    if observe:
        errors_both(run, 'expected scalar type Float but found Half')
    else:
        np.testing.assert_array_equal(run(ember), run(torch))
