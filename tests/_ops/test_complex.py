"""Complex ops (ember/_ops/complex.py) and complex autograd through pointwise ops,
against torch (conjugate-Wirtinger convention)."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck_ember, rand

C64, C128 = np.complex64, np.complex128


def cz(*shape, dtype=C128, seed=0):
    return np.asarray(rand(*shape, dtype=dtype, seed=seed, low=-2, high=2))


def test_real_imag_values_and_grad():
    for dt in (C64, C128):
        check(lambda m, z: z.real, [cz(3, 4, dtype=dt)], grad=True)
        check(lambda m, z: z.imag, [cz(3, 4, dtype=dt)], grad=True)
        check(lambda m, z: m.real(z) * 2 + m.imag(z), [cz(2, 3, dtype=dt)], grad=True)
    check(lambda m, z: z.real, [cz()], grad=True)
    check(lambda m, z: z.imag, [cz(0, 2)], grad=True)


def test_real_imag_share_memory():
    for mod in (torch, ember):
        z = mod.tensor([1 + 2j, 3 - 1j])
        r, i = z.real, z.imag
        assert r.data_ptr() == z.data_ptr()
        assert i.data_ptr() == z.data_ptr() + 4
        assert r.stride() == (2,)
        r[0] = 10.
        i.mul_(2)
        assert z.tolist() == [(10 + 4j), (3 - 2j)]
        z.real = mod.tensor([0., 1.])
        z.imag = 5.
        assert z.tolist() == [5j, (1 + 5j)]


def test_real_of_real_and_imag_error():
    x = ember.tensor([1., 2.])
    assert x.real is x
    check_error(lambda m, x: x.imag, [np.array([1., 2.])], match='imag is not implemented')


def test_view_as_real_complex():
    for dt in (C64, C128):
        check(lambda m, z: m.view_as_real(z), [cz(3, 4, dtype=dt)], grad=True)
        check(lambda m, z: m.view_as_complex(m.view_as_real(z) * 2), [cz(3, dtype=dt)],
              grad=True)
    check(lambda m, x: m.view_as_complex(x), [rand(3, 2, dtype=np.float32)], grad=True)
    check(lambda m, x: m.view_as_complex(x), [rand(2, dtype=np.float64)], grad=True)
    check(lambda m: m.view_as_complex(m.zeros(0, 2)), [])
    check(lambda m, z: m.view_as_real(z), [cz()], grad=True)
    for mod in (torch, ember):
        z = mod.tensor([1 + 2j, 3 - 1j])
        v = mod.view_as_real(z)
        assert v.stride() == (2, 1) and v.data_ptr() == z.data_ptr()
        v[1, 1] = 7.
        assert z[1].item() == 3 + 7j
        w = mod.view_as_complex(v)
        assert w.data_ptr() == z.data_ptr()
        w[0] = 0j
        assert z[0].item() == 0j


def test_view_as_complex_errors():
    check_error(lambda m, x: m.view_as_complex(x), [np.zeros(3, np.float32)],
                match='last dimension of size 2')
    check_error(lambda m, x: m.view_as_complex(x[:, :2]), [np.zeros((3, 3), np.float32)],
                match='stride divisible by 2')
    check_error(lambda m, x: m.view_as_complex(x[:, ::2]), [np.zeros((3, 4), np.float32)],
                match='last dimension with stride 1')
    check_error(lambda m, x: m.view_as_complex(x[:, 1:3]), [np.zeros((2, 4), np.float32)],
                match='storage_offset divisible by 2')
    check_error(lambda m, x: m.view_as_real(x), [np.zeros(3, np.float32)],
                match='only supported for complex tensors')


def test_conj():
    check(lambda m, z: m.conj(z), [cz(3, 4)], grad=True)
    check(lambda m, z: z.conj() * z, [cz(3, 4)], grad=True)
    check(lambda m, z: m.conj_physical(z), [cz(3, 4)], grad=True)
    check(lambda m, z: z.conj().resolve_conj(), [cz(3)], grad=True)
    check(lambda m, z: m.resolve_neg(z), [cz(3)], grad=True)
    x = ember.tensor([1., 2.])
    assert x.conj() is x and x.conj_physical() is x
    z = ember.tensor([1 + 1j])
    assert not z.conj().is_conj() and not ember.is_conj(z) and not z.is_neg()
    check(lambda m, z: z.clone().conj_physical_(), [cz(3)], grad=True)


def test_angle():
    check(lambda m, z: m.angle(z), [cz(3, 4)], grad=True)
    check(lambda m, z: z.angle(), [np.array([1 + 1j, 0j, -2 + 0j])], grad=True)
    check(lambda m, x: m.angle(x), [np.array([-1., 0., 2., np.nan])], grad=True)
    check(lambda m, x: m.angle(x), [np.array([-1, 0, 2])])


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_polar_complex(dtype):
    a = rand(3, 4, dtype=dtype, seed=1, low=0.1, high=2)
    t = rand(4, dtype=dtype, seed=2)
    check(lambda m, r, th: m.polar(r, th), [a, t], grad=True)
    check(lambda m, x, y: m.complex(x, y), [a, t], grad=True)
    check_error(lambda m, x, y: m.complex(x, y), [a.astype(np.float32), t.astype(np.float64)])
    check_error(lambda m, x, y: m.complex(x, y), [np.array([1]), np.array([2])])


BINARY = {
    'add': lambda m, x, y: x + y, 'sub': lambda m, x, y: x - y, 'mul': lambda m, x, y: x * y,
    'div': lambda m, x, y: x / y, 'pow': lambda m, x, y: x ** y,
    'add_alpha': lambda m, x, y: m.add(x, y, alpha=2),
    'addcmul': lambda m, x, y: m.addcmul(x, x, y, value=0.5),
    'addcdiv': lambda m, x, y: m.addcdiv(x, x, y, value=2),
}


@pytest.mark.parametrize('name', sorted(BINARY))
@pytest.mark.parametrize('dtype', [C64, C128])
def test_complex_binary_grad(name, dtype):
    check(lambda m, x, y: BINARY[name](m, x, y), [cz(3, 4, dtype=dtype), cz(4, dtype=dtype,
                                                                            seed=1)], grad=True)


@pytest.mark.parametrize('s', [2, 0.5, 1 + 2j, -1j])
def test_complex_scalar_ops(s):
    z = cz(3, 4)
    for f in (lambda m, x: x * s, lambda m, x: s * x, lambda m, x: x / s, lambda m, x: s / x,
              lambda m, x: x + s, lambda m, x: s - x, lambda m, x: x ** 2, lambda m, x: x == s):
        check(f, [z], grad=True)
    # float tensor with a complex scalar promotes to complex
    check(lambda m, x: x * s, [rand(3, dtype=np.float32)], grad=True)


UNARY = ['exp', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tan', 'sinh', 'cosh', 'tanh', 'asin',
         'acos', 'atan', 'asinh', 'acosh', 'atanh', 'sigmoid', 'reciprocal', 'expm1', 'log1p',
         'log2', 'log10', 'exp2', 'abs', 'sgn', 'neg', 'square']


@pytest.mark.parametrize('name', UNARY)
@pytest.mark.parametrize('dtype', [C64, C128])
def test_complex_unary(name, dtype):
    check(lambda m, z: getattr(m, name)(z), [cz(3, 4, dtype=dtype)], grad=True,
          rtol=1e-4 if dtype == C64 else None, atol=1e-4 if dtype == C64 else None)


def test_complex_abs_sgn_at_zero():
    z = np.array([0j, 1 + 1j, -2j])
    check(lambda m, x: x.abs(), [z], grad=True)
    check(lambda m, x: x.sgn(), [z], grad=True)


def test_complex_mixed_graph():
    def f(m, z, w):
        u = (z * w.conj()).exp() + z.abs() * w
        return m.view_as_real(u).sum(-1) + u.real * u.imag - u.angle()
    check(f, [cz(3, 4), cz(3, 4, seed=1)], grad=True)


def test_complex_comparisons():
    a = np.array([1 + 1j, 2j, 3 + 0j])
    check(lambda m, x: x == x.conj(), [a])
    check(lambda m, x: m.ne(x, 3), [a])
    check(lambda m, x: m.isclose(x, x + 1e-9), [a])
    check(lambda m, x: m.isfinite(x), [np.array([1 + 1j, np.inf + 0j, np.nan * 1j])])
    check_error(lambda m, x: x > x, [a])


def test_complex_lerp_backward_as_torch():
    # lerp's complex gradients (conjugate slopes) now exist; they equal torch's
    import torch
    grads = []
    for m in (torch, ember):
        z = m.tensor([1 + 1j, 2 - 1j], requires_grad=True)
        w = m.tensor([0.5 + 0j, 1j], requires_grad=True)
        t = m.tensor([0.25 + 0.5j, -1j], requires_grad=True)
        (m.lerp(z, w, t) * m.tensor([1 - 2j, 3 + 1j])).real.sum().backward()
        grads.append([np.asarray(a.grad.detach().numpy()) for a in (z, w, t)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_complex_forward_errors():
    z = np.array([1 + 1j, 2 - 1j])
    for f in (lambda m, x: m.erf(x), lambda m, x: m.floor(x), lambda m, x: m.clamp(x, 0),
              lambda m, x: m.sign(x), lambda m, x: m.maximum(x, x), lambda m, x: m.atan2(x, x)):
        check_error(f, [z])


@pytest.mark.parametrize('fn', [
    lambda m, z, w: z * w, lambda m, z, w: z / w, lambda m, z, w: (z * w).exp(),
    lambda m, z, w: z.abs(), lambda m, z, w: z.real * w.imag, lambda m, z, w: z.conj() * w,
    lambda m, z, w: m.view_as_real(z), lambda m, z, w: z.angle(), lambda m, z, w: z.sgn(),
    lambda m, z, w: z.sqrt() + w.log(), lambda m, z, w: z ** 2 + 1 / w,
    lambda m, z, w: m.polar(z.abs(), w.real), lambda m, z, w: m.complex(z.real, w.imag),
])
def test_gradcheck_complex(fn):
    gradcheck_ember(fn, [cz(2, 3, seed=4), cz(2, 3, seed=5)])
