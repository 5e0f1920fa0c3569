"""The small names of torch.nn.functional that ember/_ops/nn_misc.py provides, vs torch:
constants, typing names, note dicts, enums, boolean_dispatch, assert_int_or_pair, the
__torch_function__ helpers; plus double backward of the nn_misc ops and grouped_mm's
bfloat16 path."""
import typing

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F


def test_every_name_is_exported():
    from ember._ops import nn_misc
    for n in nn_misc.__all__:
        assert hasattr(F, n), n
        assert n in F.__all__, n


def test_constants_and_typing_names():
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert F.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES
    assert F.TYPE_CHECKING is TF.TYPE_CHECKING is False
    assert F.Callable is TF.Callable and F.Optional is TF.Optional is typing.Optional
    assert F.DType is TF.DType
    for n in ('reproducibility_notes', 'sparse_support_notes', 'tf32_notes'):
        assert list(getattr(F, n)) == list(getattr(TF, n))
        assert all(isinstance(v, str) for v in getattr(F, n).values())
    for n in ('BroadcastingList1', 'BroadcastingList2', 'BroadcastingList3'):
        assert getattr(F, n)[int] is getattr(TF, n)[int] is None


def test_enums():
    for n in ('ScalingType', 'SwizzleType'):
        e, t = getattr(F, n), getattr(TF, n)
        assert e.__name__ == t.__name__
        assert list(e.__members__) == list(t.__members__)
        for k, v in t.__members__.items():
            assert int(e.__members__[k]) == int(v) and str(e.__members__[k]) == str(v)


def test_torch_function_helpers_are_overrides():
    for n in ('has_torch_function', 'has_torch_function_unary', 'has_torch_function_variadic',
              'handle_torch_function'):
        assert getattr(F, n) is getattr(ember.overrides, n)
    assert not F.has_torch_function_unary(ember.ones(1))
    assert not F.has_torch_function_variadic(ember.ones(1), None)


def test_boolean_dispatch():
    for m in (TF, F):
        def yes(x, flag=False):
            """doc of yes"""
            return ('yes', x)

        def no(x, flag=False):
            return ('no', x)
        f = m.boolean_dispatch('flag', 1, False, yes, no, 'my.mod', 'f')
        assert (f(1), f(1, True), f(1, flag=True), f(1, flag=False)) == \
            (('no', 1), ('yes', 1), ('yes', 1), ('no', 1))
        assert (f.__name__, f.__module__, f.__doc__) == ('f', 'my.mod', 'doc of yes')
        assert no.__doc__ == 'doc of yes'      # the docstring is shared
        with pytest.raises(RuntimeError, match='only one function can have a docstring'):
            m.boolean_dispatch('flag', 1, True, yes, no, 'm', 'g')

    def yes(x, flag=False):
        """doc of yes"""

    def also(x, flag=False):
        """doc"""
    with pytest.raises(Exception) as et:
        TF.boolean_dispatch('flag', 1, False, yes, also, 'm', 'h')
    with pytest.raises(Exception) as ee:
        F.boolean_dispatch('flag', 1, False, yes, also, 'm', 'h')
    assert type(ee.value) is type(et.value)


def test_assert_int_or_pair():
    for m in (TF, F):
        m.assert_int_or_pair(3, 'k', '{} bad')
        m.assert_int_or_pair([1, 2], 'k', '{} bad')
        with pytest.raises(AssertionError, match='k must be int or pair'):
            m.assert_int_or_pair([1, 2, 3], 'k', '{} must be int or pair')


def test_double_backward():
    r = np.random.default_rng(0)

    def T(*s):
        return ember.from_numpy(r.standard_normal(s)).requires_grad_(True)
    assert ember.autograd.gradgradcheck(lambda a, b, w: F.bilinear(a, b, w), (T(2, 3), T(2, 2), T(2, 3, 2)))
    assert ember.autograd.gradgradcheck(lambda x, w, b: F.conv_tbc(x, w, b, 1),
                                        (T(3, 1, 2), T(2, 2, 2), T(2)))
    x, w = T(4, 3), T(2, 3, 2)
    (g,) = ember.autograd.grad(F.bilinear(x, x[:, :2], w).pow(2).sum(), x, create_graph=True)
    assert g.grad_fn is not None


def test_grouped_mm_low_precision_and_grad_fn():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((6, 8)).astype(np.float32), rng.standard_normal((3, 8, 8)).astype(np.float32)
    offs = np.array([2, 4, 6], np.int32)
    outs = []
    for m in (torch, ember):
        A = m.from_numpy(a.copy()).to(m.bfloat16).requires_grad_(True)
        B = m.from_numpy(b.copy()).to(m.bfloat16)
        y = m.nn.functional.grouped_mm(A, B, offs=m.from_numpy(offs.copy()))
        y.float().sum().backward()
        outs.append((y.float().detach().numpy(), A.grad.float().numpy(), y.grad_fn.name(),
                     str(y.dtype)))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=2e-2, atol=2e-2)
    assert outs[0][2:] == outs[1][2:]
