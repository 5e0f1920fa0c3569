"""Behaviour checks against torch for top-level names and Tensor methods that no other test
exercised by name: the in-place unary/binary forms, the arithmetic aliases, the ``unsafe_*``
splits, ``convolution``/``native_batch_norm``, ``trapz``/``unravel_index``, the legacy autocast
switches and a few Tensor predicates. Values, dtypes, shapes and error types are compared
with torch 2.13."""
import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)

RNG = np.random.default_rng(0)
POS = (RNG.random((3, 4)) * 0.8 + 0.1).astype(np.float32)      # in (0.1, 0.9)
ANY = RNG.standard_normal((3, 4)).astype(np.float32)

UNARY_INPLACE = {
    'acos_': POS, 'acosh_': POS + 1.5, 'arccos_': POS, 'arccosh_': POS + 1.5, 'arcsin_': POS,
    'arcsinh_': ANY, 'arctan_': ANY, 'arctanh_': POS, 'asin_': POS, 'asinh_': ANY,
    'atan_': ANY, 'atanh_': POS, 'ceil_': ANY, 'cos_': ANY, 'cosh_': ANY, 'deg2rad_': ANY,
    'erf_': ANY, 'erfc_': ANY, 'exp2_': ANY, 'expm1_': ANY, 'fix_': ANY * 3, 'floor_': ANY,
    'frac_': ANY * 3, 'log10_': POS, 'log1p_': POS, 'log2_': POS, 'log_': POS,
    'logit_': POS, 'negative_': ANY, 'rad2deg_': ANY, 'reciprocal_': POS, 'rsqrt_': POS,
    'sinh_': ANY, 'square_': ANY, 'tan_': ANY, 'trunc_': ANY * 3, 'absolute_': ANY,
    'digamma_': POS, 'erfinv_': POS, 'lgamma_': POS, 'sgn_': ANY, 'sign_': ANY,
}


def _pair(a):
    return ember.tensor(a.copy()), torch.tensor(a.copy())


@pytest.mark.parametrize('name', sorted(UNARY_INPLACE))
def test_unary_inplace_function_and_method(name):
    data = UNARY_INPLACE[name]
    for owner_e, owner_t in ((ember, torch), (None, None)):
        e, t = _pair(data)
        if owner_e is not None and hasattr(torch, name):
            re_, rt = getattr(ember, name)(e), getattr(torch, name)(t)
        else:
            re_, rt = getattr(e, name)(), getattr(t, name)()
        assert re_ is e                       # in place: the input itself comes back
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
        assert str(e.dtype) == str(t.dtype)


BINARY_INPLACE = ['addcdiv_', 'arctan2_', 'atan2_', 'bitwise_and_', 'bitwise_or_',
                  'bitwise_xor_', 'bitwise_left_shift_', 'bitwise_right_shift_', 'clamp_max_',
                  'copysign_', 'divide_', 'floor_divide_', 'fmod_', 'ge_', 'greater_',
                  'greater_equal_', 'gt_', 'heaviside_', 'hypot_', 'le_', 'less_',
                  'less_equal_', 'logical_and_', 'logical_or_', 'logical_xor_', 'lt_',
                  'multiply_', 'ne_', 'not_equal_', 'remainder_', 'subtract_', 'true_divide_',
                  'xlogy_', 'nextafter_', 'ldexp_', 'gcd_', 'lcm_']
INT_OPS = {'bitwise_and_', 'bitwise_or_', 'bitwise_xor_', 'bitwise_left_shift_',
           'bitwise_right_shift_', 'gcd_', 'lcm_'}


@pytest.mark.parametrize('name', BINARY_INPLACE)
def test_binary_inplace_method(name):
    if name in INT_OPS:
        a = RNG.integers(1, 20, (3, 4)).astype(np.int64)
        b = RNG.integers(1, 5, (3, 4)).astype(np.int64)
    else:
        a, b = POS * 4, (POS[::-1] + 0.5).copy()
    e, t = _pair(a)
    eb, tb = _pair(b)
    if name == 'addcdiv_':
        re_, rt = e.addcdiv_(eb, eb + 1, value=0.5), t.addcdiv_(tb, tb + 1, value=0.5)
    elif name == 'ldexp_':
        eb, tb = _pair(RNG.integers(-2, 3, (3, 4)).astype(np.float32))
        re_, rt = e.ldexp_(eb), t.ldexp_(tb)
    else:
        re_, rt = getattr(e, name)(eb), getattr(t, name)(tb)
    assert re_ is e
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
    assert str(e.dtype).split('.')[-1] == str(t.dtype).split('.')[-1]


def test_inplace_result_dtype_error_as_torch():
    # an in-place op whose result type cannot be cast back to the integer input
    e, t = ember.tensor([1, 2]), torch.tensor([1, 2])
    with pytest.raises(RuntimeError) as te:
        t.divide_(torch.tensor([2, 2]))
    with pytest.raises(RuntimeError) as ee:
        e.divide_(ember.tensor([2, 2]))
    assert 'can\'t be cast' in str(te.value) and 'can\'t be cast' in str(ee.value)


@pytest.mark.parametrize('name', ['divide', 'subtract', 'multiply', 'true_divide', 'negative'])
def test_arithmetic_aliases(name):
    e, t = _pair(ANY)
    eb, tb = _pair(POS)
    if name == 'negative':
        re_, rt = getattr(ember, name)(e), getattr(torch, name)(t)
    elif name == 'subtract':
        re_, rt = ember.subtract(e, eb, alpha=2), torch.subtract(t, tb, alpha=2)
    elif name == 'divide':
        re_ = ember.divide(e, eb, rounding_mode='floor')
        rt = torch.divide(t, tb, rounding_mode='floor')
        np.testing.assert_allclose(e.divide(eb).numpy(), t.divide(tb).numpy(), rtol=1e-6)
    else:
        re_, rt = getattr(ember, name)(e, eb), getattr(torch, name)(t, tb)
    np.testing.assert_allclose(re_.numpy(), rt.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('fn', ['unsafe_chunk', 'unsafe_split', 'unsafe_split_with_sizes'])
def test_unsafe_splits(fn):
    arg = {'unsafe_chunk': 3, 'unsafe_split': 2, 'unsafe_split_with_sizes': [1, 3, 1]}[fn]
    a = RNG.standard_normal((5, 2)).astype(np.float32)
    for te, tt in ((getattr(ember, fn)(ember.tensor(a), arg, 0),
                    getattr(torch, fn)(torch.tensor(a), arg, 0)),
                   (getattr(ember.tensor(a), fn)(arg), getattr(torch.tensor(a), fn)(arg))):
        assert len(te) == len(tt)
        for x, y in zip(te, tt):
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_trapz_and_unravel_index():
    y = RNG.standard_normal((3, 5))
    x = np.sort(RNG.standard_normal(5))
    np.testing.assert_allclose(ember.trapz(ember.tensor(y), ember.tensor(x)).numpy(),
                               torch.trapz(torch.tensor(y), torch.tensor(x)).numpy())
    np.testing.assert_allclose(ember.trapz(ember.tensor(y), dx=0.5, dim=0).numpy(),
                               torch.trapz(torch.tensor(y), dx=0.5, dim=0).numpy())
    idx = [0, 5, 11, 23]
    re_ = ember.unravel_index(ember.tensor(idx), (2, 3, 4))
    rt = torch.unravel_index(torch.tensor(idx), (2, 3, 4))
    assert len(re_) == len(rt)
    for a, b in zip(re_, rt):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert str(a.dtype) == str(b.dtype) == 'torch.int64'
    # out-of-range and negative indices wrap around as in torch (no range check)
    for a, b in zip(ember.unravel_index(ember.arange(-30, 31), (2, 3, 4)),
                    torch.unravel_index(torch.arange(-30, 31), (2, 3, 4))):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for bad, exc in (([1.5], TypeError),):
        with pytest.raises(exc):
            torch.unravel_index(torch.tensor(bad), (2, 3))
        with pytest.raises(exc):
            ember.unravel_index(ember.tensor(bad), (2, 3))
    with pytest.raises(ValueError):
        torch.unravel_index(torch.tensor([1]), (2, -3))
    with pytest.raises(ValueError):
        ember.unravel_index(ember.tensor([1]), (2, -3))


def test_convolution_general_form():
    x = RNG.standard_normal((2, 4, 7, 7)).astype(np.float32)
    w = RNG.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    args = ([2, 1], [1, 0], [1, 2], False, [0, 0], 2)
    re_ = ember.convolution(ember.tensor(x), ember.tensor(w), ember.tensor(b), *args)
    rt = torch.convolution(torch.tensor(x), torch.tensor(w), torch.tensor(b), *args)
    np.testing.assert_allclose(re_.numpy(), rt.numpy(), rtol=1e-4, atol=1e-5)
    wt = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    targs = ([2, 2], [1, 1], [1, 1], True, [1, 1], 1)
    re_ = ember.convolution(ember.tensor(x), ember.tensor(wt), None, *targs)
    rt = torch.convolution(torch.tensor(x), torch.tensor(wt), None, *targs)
    assert tuple(re_.shape) == tuple(rt.shape)
    np.testing.assert_allclose(re_.numpy(), rt.numpy(), rtol=1e-4, atol=1e-5)


def test_native_batch_norm_outputs():
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    w, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    for training in (True, False):
        rm_e, rv_e = ember.zeros(3), ember.ones(3)
        rm_t, rv_t = torch.zeros(3), torch.ones(3)
        re_ = ember.native_batch_norm(ember.tensor(x), ember.tensor(w), ember.tensor(b), rm_e,
                                      rv_e, training, 0.1, 1e-5)
        rt = torch.native_batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), rm_t,
                                     rv_t, training, 0.1, 1e-5)
        assert len(re_) == len(rt) == 3
        for a, c in zip(re_, rt):
            assert tuple(a.shape) == tuple(c.shape)
            np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(rm_e.numpy(), rm_t.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(rv_e.numpy(), rv_t.numpy(), rtol=1e-5, atol=1e-6)


def test_legacy_autocast_switches_round_trip():
    for mod in (ember, torch):
        before = mod.get_autocast_cpu_dtype()
        assert str(before).split('.')[-1] == 'bfloat16'
        mod.set_autocast_cpu_dtype(mod.float16)
        assert mod.get_autocast_cpu_dtype() == mod.float16
        mod.set_autocast_cpu_dtype(before)
        assert mod.is_autocast_cache_enabled() is True
        mod.set_autocast_cache_enabled(False)
        assert mod.is_autocast_cache_enabled() is False
        mod.set_autocast_cache_enabled(True)
        mod.clear_autocast_cache()
    assert str(ember.get_autocast_gpu_dtype()).split('.')[-1] == \
        str(torch.get_autocast_gpu_dtype()).split('.')[-1]


def test_tensor_predicates_and_small_methods():
    a = ember.arange(6.).view(2, 3)
    ta = torch.arange(6.).view(2, 3)
    assert a.ndimension() == ta.ndimension() == 2
    assert ember.is_same_size(a, a.t().t()) == torch.is_same_size(ta, ta.t().t()) is True
    assert ember.is_same_size(a, a.t()) == torch.is_same_size(ta, ta.t()) is False
    assert a.is_same_size(a) and ta.is_same_size(ta)
    assert ember.is_distributed(a) is torch.is_distributed(ta) is False
    assert a.is_distributed() is ta.is_distributed() is False
    assert a.is_mkldnn is ta.is_mkldnn is False
    assert a.is_nested is ta.is_nested is False
    assert a.is_set_to(a) and ta.is_set_to(ta)
    assert not a.is_set_to(a.t()) and not ta.is_set_to(ta.t())
    assert not a.is_set_to(a.clone()) and not ta.is_set_to(ta.clone())
    r, tr = a.type_as(ember.zeros(1, dtype=ember.int32)), ta.type_as(torch.zeros(1, dtype=torch.int32))
    assert str(r.dtype) == str(tr.dtype) == 'torch.int32'
    b, tb = a.clone(), ta.clone()
    b.swapdims_(0, 1)
    tb.swapdims_(0, 1)
    assert tuple(b.shape) == tuple(tb.shape) and b.stride() == tb.stride()
    np.testing.assert_array_equal(ember.is_nonzero(ember.tensor([1.5])),
                                  torch.is_nonzero(torch.tensor([1.5])))
    with pytest.raises(RuntimeError):
        torch.is_nonzero(torch.tensor([1., 2.]))
    with pytest.raises(RuntimeError):
        ember.is_nonzero(ember.tensor([1., 2.]))


def test_set_num_interop_threads_validation():
    with pytest.raises(RuntimeError):
        torch.set_num_interop_threads(0)
    with pytest.raises(RuntimeError):
        ember.set_num_interop_threads(0)
