"""repr/str of tensors must be identical to PyTorch's."""
import math

import ml_dtypes
import numpy as np
import pytest
import torch

import ember


def _pair(a):
    """The same array as a torch and an ember tensor."""
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16), ember.from_numpy(a.copy())
    return torch.from_numpy(a.copy()), ember.from_numpy(a.copy())


def same_repr(a):
    t, e = _pair(np.asarray(a))
    assert repr(e) == repr(t), f"\nember:\n{e!r}\ntorch:\n{t!r}"
    assert str(e) == str(t)


@pytest.fixture(autouse=True)
def _reset_options():
    yield
    torch.set_printoptions(profile='default')
    ember.set_printoptions(profile='default')
    torch.set_default_dtype(torch.float32)
    ember.set_default_dtype(ember.float32)


SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (2, 2, 2, 3), (30,), (7, 12), (1001,), (40, 40),
          (3, 20, 20), (2, 1, 3, 1)]
MAGS = [1e-9, 1e-3, 0.5, 1.0, 123.0, 1e5, 1e21]


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_random_floats(shape, dtype):
    rng = np.random.default_rng(abs(hash((shape, dtype))) % 2 ** 32)
    npdt = ml_dtypes.bfloat16 if dtype == 'bfloat16' else np.dtype(dtype)
    for mag in MAGS:
        x = rng.standard_normal(shape) * mag
        with np.errstate(over='ignore'):
            same_repr(np.asarray(x).astype(npdt))
            same_repr(np.asarray(np.round(x)).astype(npdt))          # integer mode
            same_repr(np.asarray(np.abs(x)).astype(npdt))            # no minus signs


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('dtype', ['int64', 'int32', 'int16', 'int8', 'uint8', 'bool'])
def test_random_ints(shape, dtype):
    rng = np.random.default_rng(abs(hash((shape, dtype))) % 2 ** 32)
    if dtype == 'bool':
        same_repr(rng.random(shape) > 0.5)
        same_repr(np.ones(shape, bool))
        return
    info = np.iinfo(dtype)
    for hi in (2, 100, 10 ** 6, 2 ** 62):
        hi = min(hi, int(info.max))
        lo = max(-hi, int(info.min))
        same_repr(np.asarray(rng.integers(lo, hi, shape, endpoint=True)).astype(dtype))


@pytest.mark.parametrize('shape', [(), (3,), (2, 3), (1001,), (20, 60)], ids=str)
@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_complex(shape, dtype):
    rng = np.random.default_rng(1)
    for mag in (1e-6, 1.0, 50.0, 1e10):
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * mag
        same_repr(np.asarray(x).astype(dtype))
        same_repr(np.asarray(np.round(x)).astype(dtype))
    same_repr(np.array([1 + 0j, -0.0 - 1j, 2.5 + 1e-3j], dtype))


@pytest.mark.parametrize('vals', [
    [1.0, 2.0], [1e10, 1.0], [1e-5, 1.0], [1e8, 1.0], [1e9], [0.0, 0.0], [-0.0, 0.0],
    [np.nan], [np.inf, -np.inf], [np.nan, 1.5, -np.inf], [np.nan, 1.0, 2.0], [1e-10],
    [123456.789], [1000.5, 1.0], [1000.5, 1.5], [-1.0, 1.0], [0.1, 0.25], [1e300, 1e-300],
    [5e-324], [3.0e38], [99999.99999], [9.99995], [0.00009999]])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_special_values(vals, dtype):
    with np.errstate(over='ignore', under='ignore'):
        same_repr(np.array(vals, dtype))
        same_repr(np.array(vals[0], dtype))


@pytest.mark.parametrize('shape', [(0,), (0, 3), (2, 0), (2, 0, 1), (0, 0)], ids=str)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64', 'int32', 'bool', 'complex64'])
def test_empty(shape, dtype):
    same_repr(np.zeros(shape, dtype))


def test_autograd_suffixes():
    for m in (torch, ember):
        pass
    x_t = torch.tensor([1., 2.], requires_grad=True)
    x_e = ember.tensor([1., 2.], requires_grad=True)
    assert repr(x_e) == repr(x_t)
    assert repr(x_e * 2) == repr(x_t * 2)
    assert repr(x_e + 1) == repr(x_t + 1)
    assert repr((x_e * 2).sum()) == repr((x_t * 2).sum())
    d_t = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    d_e = ember.tensor([1., 2.], dtype=ember.float64, requires_grad=True)
    assert repr(d_e * 3) == repr(d_t * 3)
    assert repr(x_e.detach()) == repr(x_t.detach())
    big_t = torch.arange(40.).reshape(4, 10).requires_grad_()
    big_e = ember.arange(40.).reshape(4, 10).requires_grad_()
    assert repr(big_e * 1.5) == repr(big_t * 1.5)


def test_suffix_wrapping():
    # long rows push dtype= / grad_fn= onto their own line
    a = np.arange(12, dtype=np.float64) * 1.123456
    same_repr(a)
    same_repr(a.reshape(3, 4))
    b = np.arange(15, dtype=np.int32) * 1000000
    same_repr(b)
    same_repr(np.arange(2000, dtype=np.float64).reshape(20, 100))


@pytest.mark.parametrize('opts', [
    dict(precision=2), dict(precision=8), dict(precision=0), dict(threshold=5),
    dict(threshold=5, edgeitems=1), dict(edgeitems=0, threshold=5), dict(linewidth=40),
    dict(linewidth=200), dict(sci_mode=True), dict(sci_mode=False), dict(profile='short'),
    dict(profile='full'), dict(profile='short', precision=6), dict(precision=3, sci_mode=True)])
def test_printoptions(opts):
    torch.set_printoptions(**opts)
    ember.set_printoptions(**opts)
    rng = np.random.default_rng(3)
    for shape in [(), (4,), (3, 5), (12,), (30, 3), (2, 3, 4)]:
        for mag in (1e-6, 1.0, 1e6):
            same_repr(np.asarray(rng.standard_normal(shape) * mag).astype(np.float32))
        same_repr(np.asarray(rng.integers(-50, 50, shape)))
        same_repr(np.asarray(rng.standard_normal(shape) + 1j).astype(np.complex64))
    if opts.get('profile') != 'full':
        same_repr(np.arange(2000, dtype=np.float32))
    torch.set_printoptions(profile='default')
    ember.set_printoptions(profile='default')


def test_set_printoptions_resets_sci_mode():
    ember.set_printoptions(sci_mode=True)
    assert ember._tensor_str.get_printoptions()['sci_mode'] is True
    ember.set_printoptions(precision=4)
    assert ember._tensor_str.get_printoptions()['sci_mode'] is None
    with ember._tensor_str.printoptions(precision=1):
        assert repr(ember.tensor([1.25, 2.5])) == 'tensor([1.2, 2.5])'
    assert ember._tensor_str.get_printoptions()['precision'] == 4


def test_default_dtype_float64():
    torch.set_default_dtype(torch.float64)
    ember.set_default_dtype(ember.float64)
    same_repr(np.array([1.5, 2.0]))
    same_repr(np.array([1.5, 2.0], np.float32))
    same_repr(np.array([1 + 2j]))
    same_repr(np.array([1 + 2j], np.complex64))
    same_repr(np.zeros((0,), np.float32))
    same_repr(np.zeros((0,), np.float64))


def test_views_and_noncontiguous():
    a = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
    t, e = _pair(a)
    assert repr(e.t()) == repr(t.t())
    assert repr(e[::2] if hasattr(e, '__getitem__') else e) == repr(t[::2] if hasattr(e, '__getitem__') else t)
    assert repr(e.transpose(0, 1).reshape(-1)) == repr(t.transpose(0, 1).reshape(-1))


def test_factories_repr():
    for name, args in [('zeros', (2, 3)), ('ones', (4,)), ('eye', (3,)), ('arange', (10,))]:
        assert repr(getattr(ember, name)(*args)) == repr(getattr(torch, name)(*args))
    assert repr(ember.tensor(3.5)) == repr(torch.tensor(3.5))
    assert repr(ember.tensor(3)) == repr(torch.tensor(3))
    assert repr(ember.tensor(True)) == repr(torch.tensor(True))
    assert repr(ember.tensor([], dtype=ember.int64)) == repr(torch.tensor([], dtype=torch.int64))
    assert repr(ember.tensor(2.5, dtype=ember.float16)) == repr(torch.tensor(2.5, dtype=torch.float16))


def test_str_equals_repr_and_format():
    e = ember.tensor([1.5, 2.0])
    assert str(e) == repr(e)
    assert f"{ember.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"


def test_subclass_repr():
    class MyT(ember.Tensor):
        pass

    class MyT2(torch.Tensor):
        pass
    MyT2.__name__ = 'MyT'
    e = ember.tensor([1., 2.]).as_subclass(MyT)
    t = torch.tensor([1., 2.]).as_subclass(MyT2)
    assert repr(e) == repr(t)


def test_parameter_repr():
    from ember.nn import Parameter
    p_e = Parameter(ember.ones(2, 2))
    p_t = torch.nn.Parameter(torch.ones(2, 2))
    assert repr(p_e) == repr(p_t)
    assert repr(Parameter(ember.ones(3), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.ones(3), requires_grad=False))


def test_large_summarised_layouts():
    rng = np.random.default_rng(7)
    for shape in [(1001,), (2, 501), (11, 11, 11), (3, 4, 100), (1, 2000), (2000, 1),
                  (5, 5, 5, 5, 5)]:
        same_repr(np.asarray(rng.standard_normal(shape)).astype(np.float32))
        same_repr(np.asarray(rng.integers(-1000, 1000, shape)))
