"""ember.testing.assert_close / make_tensor, compared with torch.testing's behaviour."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember


def outcome(m, f):
    try:
        f(m)
        return 'OK'
    except Exception as e:   # noqa: BLE001
        return type(e).__name__, str(e).replace("<class 'ember._tensor.Tensor'>", "<class 'torch.Tensor'>")


CASES = [
    lambda m: m.testing.assert_close(m.tensor([1., 2., 3.]), m.tensor([1., 2., 4.])),
    lambda m: m.testing.assert_close(m.tensor([[1., 2.], [3., 5]]), m.tensor([[1., 2.5], [3., 4]])),
    lambda m: m.testing.assert_close(m.tensor([1, 2, 3]), m.tensor([1, 2, 4])),
    lambda m: m.testing.assert_close(m.tensor(1.), m.tensor(2.)),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.], dtype=m.float64)),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1., 2.])),
    lambda m: m.testing.assert_close(1.0, 1.1),
    lambda m: m.testing.assert_close(1, 2),
    lambda m: m.testing.assert_close(1.0, 1),
    lambda m: m.testing.assert_close([1.0, 2.0], [1.0, 2.5]),
    lambda m: m.testing.assert_close({'a': m.tensor(1.)}, {'a': m.tensor(2.)}),
    lambda m: m.testing.assert_close(m.tensor([math.nan]), m.tensor([math.nan])),
    lambda m: m.testing.assert_close(m.tensor([math.nan]), m.tensor([math.nan]), equal_nan=True),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.]), rtol=1e-3),
    lambda m: m.testing.assert_close(m.tensor([1.]), np.array([1.], dtype=np.float32)),
    lambda m: m.testing.assert_close(m.tensor([True]), m.tensor([False])),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), msg='custom'),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), msg=lambda s: 'X' + s),
    lambda m: m.testing.assert_close(m.tensor([0.]), m.tensor([1e-6])),
    lambda m: m.testing.assert_close(m.arange(10.), m.tensor([0., 1, 2, 3, 4, 5, 6, 7, 8, 10])),
    lambda m: m.testing.assert_close(m.tensor([1. + 1j]), m.tensor([1. + 2j])),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.0001])),
    lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1], dtype=m.int64), check_dtype=False),
    lambda m: m.testing.assert_close(m.tensor([]), m.tensor([])),
    lambda m: m.testing.assert_close(m.tensor([1.], dtype=m.float16), m.tensor([1.001], dtype=m.float16)),
    lambda m: m.testing.assert_close(m.tensor([1.], dtype=m.float16), m.tensor([1.1], dtype=m.float16)),
    lambda m: m.testing.assert_close(m.tensor([1., 2], dtype=m.bfloat16), m.tensor([1.01, 2.5], dtype=m.bfloat16)),
    lambda m: m.testing.assert_close(m.tensor([1, 2], dtype=m.int32), m.tensor([1, 5], dtype=m.int32)),
    lambda m: m.testing.assert_close(m.tensor([1., 2, 3]), m.tensor([1., 2, 3.5]), rtol=0, atol=0.1),
    lambda m: m.testing.assert_close(m.tensor([1., 2, 3]), m.tensor([1., 2, 3.5]), rtol=0.1),
    lambda m: m.testing.assert_close(m.tensor([math.inf]), m.tensor([math.inf])),
    lambda m: m.testing.assert_close(m.tensor([math.inf]), m.tensor([-math.inf])),
    lambda m: m.testing.assert_close(None, None),
    lambda m: m.testing.assert_close(None, 1),
    lambda m: m.testing.assert_close('a', 'a'),
    lambda m: m.testing.assert_close(m.tensor([1., 2]), m.tensor([1., 3]), rtol=0, atol=0),
    lambda m: m.testing.assert_close(m.tensor([1., 2]), m.tensor([1., 3], dtype=m.float64), check_dtype=False),
    lambda m: m.testing.assert_close(m.tensor([1, 2]), m.tensor([1., 3]), check_dtype=False),
    lambda m: m.testing.assert_close(np.array([1., 2]), np.array([1., 3])),
    lambda m: m.testing.assert_close(np.array([1., 2]), np.array([1., 2.])),
    lambda m: m.testing.assert_close(m.ones(2, 2).t().reshape(-1)[:1] if False else m.ones(2, 2).t(), m.ones(2, 2), check_stride=True),
    lambda m: m.testing.assert_close(m.tensor([[[1.]]]), m.tensor([[[2.]]])),
    lambda m: m.testing.assert_close([m.tensor(1.), [m.tensor(2.)]], [m.tensor(1.), [m.tensor(3.)]]),
    lambda m: m.testing.assert_close([1, 2], [1]),
    lambda m: m.testing.assert_close({'a': 1}, {'b': 1}),
    lambda m: m.testing.assert_close(m.tensor(1., requires_grad=True), m.tensor(1.)),
    lambda m: m.testing.assert_close(1 + 1j, 1 + 2j),
    lambda m: m.testing.assert_close(True, False),
    lambda m: m.testing.assert_close(m.tensor([1.]), 1.),
    lambda m: m.testing.assert_close(m.tensor([1., math.nan]), m.tensor([1.1, 2])),
    lambda m: m.testing.assert_close(m.tensor([3], dtype=m.uint8), m.tensor([5], dtype=m.uint8)),
    lambda m: m.testing.assert_close(m.tensor([1.5, 2.5], dtype=m.float64), m.tensor([1.5, 2.5], dtype=m.float64) + 1e-8),
    lambda m: m.testing.assert_close(m.tensor([1., 2.]), m.tensor([1., 2.]) * (1 + 1e-6)),
]


@pytest.mark.parametrize('i', range(len(CASES)))
def test_assert_close_like_torch(i):
    assert outcome(ember, CASES[i]) == outcome(torch, CASES[i])


def test_assert_close_message_phrases():
    with pytest.raises(AssertionError, match='Mismatched elements: 1 / 3'):
        ember.testing.assert_close(ember.tensor([1., 2., 3.]), ember.tensor([1., 2., 4.]))


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32',
                                   'int8', 'uint8', 'bool', 'complex64', 'complex128'])
@pytest.mark.parametrize('shape', [(), (5,), (3, 4), (2, 0), (2, 3, 4)], ids=str)
def test_make_tensor(dtype, shape):
    dt = getattr(ember, dtype)
    t = ember.testing.make_tensor(shape, dtype=dt, device='cpu')
    assert t.dtype is dt and t.shape == shape
    t2 = ember.testing.make_tensor(*shape, dtype=dt, device='cpu')
    assert t2.shape == shape
    a = np.asarray(t.float().numpy() if dtype == 'bfloat16' else t.numpy())
    if a.size and dtype not in ('bool',):
        if dt.is_complex:
            assert (np.abs(a.real) <= 9).all() and (np.abs(a.imag) <= 9).all()
        elif dtype == 'uint8':
            assert a.min() >= 0 and a.max() < 10
        else:
            assert a.min() >= -9 and a.max() <= 9
    lo, hi = (2, 5)
    if dtype != 'bool':
        t = ember.testing.make_tensor(shape, dtype=dt, device='cpu', low=lo, high=hi)
        a = np.asarray(t.float().numpy() if dtype == 'bfloat16' else t.numpy())
        if a.size:
            re = a.real if dt.is_complex else a
            assert re.min() >= lo and re.max() <= hi


def test_make_tensor_options():
    mt = ember.testing.make_tensor
    t = mt(4, 5, dtype=ember.float32, device='cpu', noncontiguous=True)
    assert not t.is_contiguous() and t.shape == (4, 5)
    t = mt(3, dtype=ember.float32, device='cpu', requires_grad=True)
    assert t.requires_grad and t.is_leaf
    t = mt(1000, dtype=ember.int64, device='cpu', low=-1, high=1, exclude_zero=True)
    assert (t.numpy() != 0).all()
    t = mt(1000, dtype=ember.float32, device='cpu', exclude_zero=True)
    assert (t.numpy() != 0).all()
    with pytest.raises(ValueError):
        mt(3, dtype=ember.float32, device='cpu', low=2, high=1)
    with pytest.raises(ValueError):
        mt(3, dtype=ember.float32, device='cpu', low=math.nan)
    t = mt(3, dtype=ember.uint8, device='cpu', low=-100, high=3)
    assert t.min().item() >= 0
    ember.manual_seed(0)
    a = mt(5, dtype=ember.float32).tolist()
    ember.manual_seed(0)
    assert mt(5, dtype=ember.float32).tolist() == a


@pytest.mark.parametrize('case', [
    ([1.0, 2.0], [1.0, 2.0], 'float32'),
    ([1.0, 2.0], [1.0, 2.00001], 'float32'),
    ([1.0, 2.0], [1.0, 2.1], 'float32'),
    ([1.0, float('nan')], [1.0, float('nan')], 'float64'),
    ([1.0, 2.0], [1.0, 2.000001], 'float64'),
    ([1, 2], [1, 3], 'int64'),
])
def test_assert_allclose_legacy(case):
    a, b, dt = case
    results = []
    for mod in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try:
                mod.testing.assert_allclose(mod.tensor(a, dtype=getattr(mod, dt)), b)
                results.append(None)
            except AssertionError as e:
                results.append(str(e).splitlines()[0])
        assert any(issubclass(x.category, FutureWarning) and 'deprecated since 1.12'
                   in str(x.message) for x in w)
    assert results[0] == results[1]
