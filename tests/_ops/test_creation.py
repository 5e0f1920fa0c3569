"""Factories: tensor / as_tensor / asarray / from_numpy / zeros / ones / full / empty /
empty_strided / scalar_tensor / linspace / logspace / eye / complex / polar, vs torch."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, rand, run_both


# ------------------------------------------------------------------ ember.tensor
@pytest.mark.parametrize('data', [
    1, 1.5, True, 1 + 2j, [1, 2, 3], [1.0, 2], [True, False], [True, 1], [1, 2.0, 1j],
    [[1, 2], [3, 4]], [[[1.5]]], [], [[]], [[], []], (1, 2), [(1, 2), (3, 4)], range(4),
    -2 ** 63, 2 ** 62, [1e300], [0.1, 0.2],
])
def test_tensor_inference(data):
    run_both(lambda m: m.tensor(data))


@pytest.mark.parametrize('make', [
    lambda: np.float64(1.5), lambda: [np.float64(1.5)], lambda: np.int32(3), lambda: [np.int32(3)],
    lambda: [np.float32(1.), 2.5], lambda: [1, np.float64(2)], lambda: [np.int16(1), np.float16(2)],
    lambda: np.bool_(True), lambda: [np.bool_(True), np.bool_(False)],
])
def test_tensor_numpy_scalars(make):
    run_both(lambda m: m.tensor(make()))


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16',
                                   'int32', 'int64', 'uint8', 'bool', 'complex64', 'complex128'])
def test_tensor_dtype_arg(dtype):
    run_both(lambda m: m.tensor([[1, 2], [3, 0]], dtype=getattr(m, dtype)))
    run_both(lambda m: m.tensor([1.7, 0.2, 0.0], dtype=getattr(m, dtype)))
    run_both(lambda m: m.tensor(3, dtype=getattr(m, dtype)))


def test_tensor_from_tensor_and_array():
    a = rand(3, 4)
    run_both(lambda m: m.tensor(a))
    run_both(lambda m: m.tensor(a, dtype=m.float64))
    with pytest.warns(UserWarning, match='sourceTensor.detach'):
        e = ember.tensor(ember.ones(2))
    assert e.dtype is ember.float32
    run_both(lambda m: m.tensor([m.tensor(1.), 2]))
    # a copy: no memory sharing
    e = ember.tensor(a)
    e[0, 0] = 100.
    assert a[0, 0] != 100.


def test_tensor_requires_grad_and_device():
    t = ember.tensor([1., 2.], requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert ember.tensor([1.], device='cpu').device == ember.device('cpu')
    with pytest.raises(RuntimeError, match='floating point'):
        ember.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize('data,dtype,match', [
    ([[1, 2], [3]], None, 'expected sequence of length 2 at dim 1 (got 1)'),
    ([[1, 2], [3, 4, 5]], None, 'expected sequence of length 2 at dim 1 (got 3)'),
    ([[[1], [2]], [[1], [2, 3]]], None, 'at dim 2'),
    ([1, [2]], None, None),
    ([[1], 2], None, 'not a sequence'),
    (300, 'uint8', 'without overflow'),
    ([300], 'uint8', 'without overflow'),
    ([-129], 'int8', 'without overflow'),
    ([1.5, -0.2], 'uint8', 'without overflow'),
    (2 ** 63, None, 'Overflow when unpacking long'),
    ([1, 2 ** 63], None, 'Overflow when unpacking long'),
    (float('inf'), 'int64', 'without overflow'),
    (float('nan'), 'int32', 'without overflow'),
    ('a', None, "invalid data type 'str'"),
    (['a'], None, "too many dimensions 'str'"),
    (None, None, 'Could not infer dtype of NoneType'),
    (1 + 1j, 'float32', 'must be real number'),
])
def test_tensor_errors(data, dtype, match):
    check_error(lambda m: m.tensor(data, dtype=getattr(m, dtype) if dtype else None), match=match)


def test_tensor_unsigned_wraps_negative():
    run_both(lambda m: m.tensor(-1, dtype=m.uint8))
    run_both(lambda m: m.tensor([-255, 255], dtype=m.uint8))
    run_both(lambda m: m.tensor(2 ** 64 - 1, dtype=m.uint64))


# ------------------------------------------------------------------ memory sharing
def test_from_numpy_shares_memory():
    a = np.arange(6.).reshape(2, 3)
    t = ember.from_numpy(a)
    assert t.dtype is ember.float64 and t.shape == (2, 3)
    t[0, 0] = -5.
    assert a[0, 0] == -5.
    a[1, 2] = 42.
    assert t[1, 2].item() == 42.
    assert t.stride() == (3, 1)
    assert ember.from_numpy(a.T).stride() == (1, 3)


def test_from_numpy_errors():
    check_error(lambda m: m.from_numpy(np.arange(4)[::-1]), match='negative')
    check_error(lambda m: m.from_numpy(np.array(['a'])), match="can't convert np.ndarray of type numpy.str_")
    check_error(lambda m: m.from_numpy([1, 2]), match='expected np.ndarray')


def test_as_tensor_sharing():
    a = np.array([1., 2., 3.])
    t = ember.as_tensor(a)
    t[0] = 9.
    assert a[0] == 9.
    t2 = ember.as_tensor(a, dtype=ember.float32)     # needs a copy
    t2[1] = 7.
    assert a[1] == 2.
    x = ember.ones(3)
    assert ember.as_tensor(x) is x
    assert ember.as_tensor(x, dtype=ember.float64).dtype is ember.float64
    run_both(lambda m: m.as_tensor([1, 2], dtype=m.float64))
    check_error(lambda m: m.as_tensor(np.arange(4.)[::-1]), match='negative')
    run_both(lambda m: m.as_tensor(3.5))


def test_asarray():
    a = np.array([1., 2.])
    t = ember.asarray(a)
    t[0] = 5.
    assert a[0] == 5.
    c = ember.asarray(a, copy=True)
    c[1] = 8.
    assert a[1] == 2.
    x = ember.ones(2)
    assert ember.asarray(x).data_ptr() == x.data_ptr()
    assert ember.asarray(x, copy=True).data_ptr() != x.data_ptr()
    run_both(lambda m: m.asarray([1, 2, 3]))
    run_both(lambda m: m.asarray([1, 2, 3], dtype=m.float32))
    check_error(lambda m: m.asarray([1, 2], copy=False), match="can't alias arbitrary sequence")
    assert ember.asarray([1.], requires_grad=True).requires_grad


# ------------------------------------------------------------------ zeros / ones / full / empty
@pytest.mark.parametrize('name', ['zeros', 'ones', 'empty'])
@pytest.mark.parametrize('size', [(), (0,), (3,), (2, 3), (2, 0, 4)], ids=str)
def test_fill_factories(name, size):
    def f(m):
        r1 = getattr(m, name)(*size) if size else getattr(m, name)([])
        r2 = getattr(m, name)(size)
        r3 = getattr(m, name)(m.Size(size), dtype=m.int32)
        if name == 'empty':
            return [r.shape for r in (r1, r2, r3)] + [r3.dtype, r1.dtype]
        return r1, r2, r3
    run_both(f)


@pytest.mark.parametrize('name', ['zeros', 'ones'])
def test_fill_out(name):
    def f(m):
        out = m.full((1,), 7.)
        r = getattr(m, name)(2, 3, out=out)
        assert r is out
        out2 = m.full((2, 3), 7, dtype=m.int64)
        getattr(m, name)((2, 3), out=out2)
        return out, out2
    run_both(f)


def test_fill_errors():
    check_error(lambda m: m.zeros(-1), match='Dimension size must be non-negative')
    check_error(lambda m: m.ones(2, -3), match='Dimension size must be non-negative')
    check_error(lambda m: m.empty(-1), match='negative dimension')
    check_error(lambda m: m.zeros(2.0), match="must be tuple of ints, not float")
    check_error(lambda m: m.zeros((2, 3), 4))


@pytest.mark.parametrize('value,dtype', [
    (7, None), (7.5, None), (True, None), (1 + 2j, None), (1.5, 'int64'), (3, 'float64'),
    (0.5, 'float16'), (2, 'bool'), (-1, 'int8'), (1.0, 'complex128'),
])
def test_full(value, dtype):
    run_both(lambda m: m.full((2, 3), value, dtype=getattr(m, dtype) if dtype else None))
    run_both(lambda m: m.full([], value, dtype=getattr(m, dtype) if dtype else None))


def test_full_errors_and_default_dtype():
    check_error(lambda m: m.full(2, 1), match="must be tuple of ints, not int")
    check_error(lambda m: m.full((2,), 300, dtype=m.uint8), match='without overflow')
    run_both(lambda m: m.full((2,), m.tensor(3.)))
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        run_both(lambda m: m.full((2,), 1.5))
        run_both(lambda m: m.full((2,), 1j))
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)


def test_full_out_and_like():
    run_both(lambda m: m.full((2, 2), 3., out=m.zeros(5)))
    x = rand(2, 3)
    check(lambda m, a: (m.zeros_like(a), m.ones_like(a), m.full_like(a, 2.5),
                        m.full_like(a, 7, dtype=m.int64), m.empty_like(a).shape), [x])


def test_scalar_tensor():
    run_both(lambda m: m.scalar_tensor(1))
    run_both(lambda m: m.scalar_tensor(True))
    run_both(lambda m: m.scalar_tensor(2.5, dtype=m.float64))
    run_both(lambda m: m.scalar_tensor(3, dtype=m.int32))


def test_empty_strided():
    def f(m):
        t = m.empty_strided((2, 3), (1, 2))
        return (t.shape, t.stride(), t.untyped_storage().nbytes(), t.dtype,
                m.empty_strided((2, 3), (3, 1), dtype=m.int64).stride(),
                m.empty_strided((0, 3), (3, 1)).untyped_storage().nbytes(),
                m.empty_strided((4,), (0,)).stride())
    run_both(f)
    t = ember.empty_strided((3, 2), (1, 3))
    t.copy_(ember.arange(6.).reshape(3, 2))
    assert t.tolist() == [[0., 1.], [2., 3.], [4., 5.]]
    assert not t.is_contiguous()


# ------------------------------------------------------------------ linspace / logspace / eye
@pytest.mark.parametrize('start,end,steps', [
    (0, 1, 5), (0, 10, 11), (-3.5, 7.25, 7), (1, 0, 4), (0, 1, 1), (0, 1, 0), (2, 2, 3),
    (0, 1, 100), (-1e3, 1e3, 33)])
@pytest.mark.parametrize('dtype', [None, 'float64', 'int64', 'int32', 'float16'])
def test_linspace(start, end, steps, dtype):
    run_both(lambda m: m.linspace(start, end, steps, dtype=getattr(m, dtype) if dtype else None))


def test_linspace_misc():
    run_both(lambda m: m.linspace(0, 1j, 3))
    run_both(lambda m: m.linspace(m.tensor(0.), m.tensor(1.), 3))
    run_both(lambda m: m.linspace(0, 1, 4, out=m.zeros(1)))
    check_error(lambda m: m.linspace(0, 1, -1), match='number of steps must be non-negative')
    check_error(lambda m: m.linspace(0, 1))
    assert ember.linspace(0, 1, 3, requires_grad=True).requires_grad


@pytest.mark.parametrize('start,end,steps,base', [
    (0, 2, 3, 10.), (0, 2, 3, 2), (-2, 2, 9, 10.), (0, 1, 1, 10.), (1, -1, 5, 2.5), (0, 3, 0, 10.)])
@pytest.mark.parametrize('dtype', [None, 'float64', 'int64'])
def test_logspace(start, end, steps, base, dtype):
    run_both(lambda m: m.logspace(start, end, steps, base=base,
                              dtype=getattr(m, dtype) if dtype else None))


@pytest.mark.parametrize('args', [(0,), (1,), (3,), (2, 4), (4, 2), (3, 0)], ids=str)
@pytest.mark.parametrize('dtype', [None, 'int64', 'bool', 'float64', 'complex64'])
def test_eye(args, dtype):
    run_both(lambda m: m.eye(*args, dtype=getattr(m, dtype) if dtype else None))


def test_eye_errors_and_out():
    check_error(lambda m: m.eye(-1), match='n must be greater or equal to 0, got -1')
    check_error(lambda m: m.eye(2, -1), match='m must be greater or equal to 0, got -1')
    run_both(lambda m: m.eye(2, 3, out=m.ones(1)))


# ------------------------------------------------------------------ complex factories
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_complex_polar(dtype):
    re, im = rand(3, 1, dtype=dtype), rand(4, dtype=dtype, seed=1)
    check(lambda m, a, b: m.complex(a, b), [re, im], grad=True)
    r, th = np.abs(rand(2, 3, dtype=dtype)) + 0.1, rand(2, 3, dtype=dtype, seed=2)
    check(lambda m, a, b: m.polar(a, b), [r, th], grad=True)


def test_complex_errors():
    check_error(lambda m: m.complex(m.tensor([1]), m.tensor([2])),
                match='Expected both inputs to be Half, Float or Double tensors but got Long and Long')
    check_error(lambda m: m.complex(m.tensor([1.]), m.tensor([2.], dtype=m.float64)),
                match='Expected object of scalar type Float but got scalar type Double')


def test_arange():
    run_both(lambda m: (m.arange(5), m.arange(1, 4), m.arange(0, 1, 0.25), m.arange(1., 4.),
                    m.arange(5, dtype=m.float64), m.arange(10, 0, -3)))


# ------------------------------------------------------------------ integer linspace / logspace / arange
@pytest.mark.parametrize('dtype', ['int64', 'int16', 'int8', 'uint8'])
@pytest.mark.parametrize('ends', [(4.3, -3), (4.3, 0), (4.3, 50), (-3, 4.3), (-7.9, 1), (0, 10)])
def test_linspace_integer_ends_truncated_first(ends, dtype):
    # torch converts the ends to the integer dtype before stepping (issue 21)
    if dtype == 'uint8' and min(ends) < 0:
        return
    run_both(lambda m: [m.linspace(*ends, n, dtype=getattr(m, dtype)) for n in (1, 2, 7, 50)])


@pytest.mark.parametrize('ends', [(0.43, -0.3), (-0.79, 0.1), (0.43, 3.0), (2.1, 0.5)])
def test_logspace_integer_ends_truncated_first(ends):
    run_both(lambda m: [m.logspace(*ends, n, dtype=m.int64) for n in (1, 2, 7, 30)])


@pytest.mark.parametrize('args,dtype', [
    ((0.0, -8.000001, -4.0), 'int64'), ((1.0, 5.000001, 2.0), 'int64'),
    ((-0.9, 2.1, 2.0), 'int16'), ((-2.5, 3, 1.5), 'int64'), ((5, 0, -0.5), 'int32'),
    ((-1.5, 3, 0.7), 'uint8'), ((0.5, 3, 1), 'float16'), ((10, 1, -3), 'int64')])
def test_arange_integer_rounding(args, dtype):
    run_both(lambda m: m.arange(*args, dtype=getattr(m, dtype)))


def test_arange_errors():
    check_error(lambda m: m.arange(0, 64, 0.5, out=m.zeros(0, dtype=m.int64)),
                match='step must be nonzero')
    check_error(lambda m: m.arange(0.5, 3.7, 0.9, dtype=m.int64), match='step must be nonzero')
    check_error(lambda m: m.arange(0, 5, 0), match='step must be nonzero')
    check_error(lambda m: m.arange(0, float('inf'), 2), match='unsupported range: 0 -> inf')
    check_error(lambda m: m.arange(-float('inf'), 1, 2), match='unsupported range: -inf -> 1')
    check_error(lambda m: m.arange(0, 5, -1),
                match='upper bound and lower bound inconsistent with step sign')
    run_both(lambda m: m.arange(0, 5, 2, out=m.zeros(0, dtype=m.int64)))
