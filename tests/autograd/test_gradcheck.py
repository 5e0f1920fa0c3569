"""``ember.autograd.gradcheck`` / ``gradgradcheck`` (ember/autograd/gradcheck.py): passes
on correct gradients, fails (GradcheckError, or False) on wrong ones like torch, checks
complex functions, validates its inputs."""
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.autograd.gradcheck import GradcheckError
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError
from oracle import gradcheck_ember

RNG = np.random.default_rng(0)
A = RNG.uniform(0.5, 2, (2, 3))
Bv = RNG.uniform(0.5, 2, 3)


def d(a, rg=True):
    return ember.from_numpy(np.array(a, dtype=np.float64)).requires_grad_(rg)


def wrong_backward(m, factor):
    class Wrong(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x * factor
    return Wrong


@pytest.mark.parametrize('fn', [
    lambda a, b: a * b,
    lambda a, b: a / (b * b + 1),
    lambda a, b: (a - b).sum(),
    lambda a, b: (a * b, a + b),
    lambda a, b: (a * b).sum(0),
    lambda a, b: a.t() * 2,
    lambda a, b: a.reshape(3, 2).transpose(0, 1) * b.unsqueeze(1).narrow(0, 0, 2),
])
def test_passes_on_correct_gradients(fn):
    assert ember.autograd.gradcheck(fn, (d(A), d(Bv)))


def test_oracle_helper_signature():
    gradcheck_ember(lambda m, a, b: a * b + a, [A, Bv])


def test_single_tensor_input_and_scalar_output():
    assert ember.autograd.gradcheck(lambda a: (a * a).sum(), d(A))


def test_non_tensor_and_non_differentiable_inputs():
    assert ember.autograd.gradcheck(lambda a, k, b: a * k * b, (d(A), 3.0, d(Bv, False)))


def test_fails_like_torch_with_message():
    x = [1., 2., 3.]
    with pytest.raises(TorchGradcheckError) as et:
        torch.autograd.gradcheck(wrong_backward(torch, 3).apply,
                                 (torch.tensor(x, dtype=torch.float64, requires_grad=True),))
    with pytest.raises(GradcheckError) as ee:
        ember.autograd.gradcheck(wrong_backward(ember, 3).apply, (d(x),))
    assert isinstance(ee.value, RuntimeError)
    assert str(ee.value).startswith("Jacobian mismatch for output 0 with respect to input 0,")
    # same layout (inputs x outputs) and printing as torch
    assert str(ee.value).split('analytical:')[1] == str(et.value).split('analytical:')[1]


def test_raise_exception_false():
    x = d([1., 2.])
    assert ember.autograd.gradcheck(wrong_backward(ember, 3).apply, (x,),
                                    raise_exception=False) is False
    assert ember.autograd.gradcheck(wrong_backward(ember, 2).apply, (x,)) is True


def test_tolerances_are_used():
    x = d([1., 2.])
    # 0.1% error is accepted by rtol=1e-2 but not by the default rtol=1e-3 / atol=1e-5
    f = wrong_backward(ember, 2.01).apply
    assert ember.autograd.gradcheck(f, (x,), rtol=1e-2)
    assert not ember.autograd.gradcheck(f, (x,), raise_exception=False)


def test_detects_wrong_gradient_for_second_input_only():
    class Half(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a * 0.5
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        ember.autograd.gradcheck(Half.apply, (d(Bv), d(Bv + 1)))


def test_missing_gradient_detected():
    class Drop(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2 + b

        @staticmethod
        def backward(ctx, g):
            return g * 2, None
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        ember.autograd.gradcheck(Drop.apply, (d(Bv), d(Bv)))


def test_multiple_outputs_wrong_second():
    class Two(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 4
    with pytest.raises(GradcheckError, match="for output 1 with respect to input 0"):
        ember.autograd.gradcheck(Two.apply, (d(Bv),))


def test_no_input_requires_grad():
    for m, x in ((torch, torch.ones(2, dtype=torch.float64)), (ember, d([1., 1.], False))):
        with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
            m.autograd.gradcheck(lambda a: a * 2, (x,))


def test_warns_for_single_precision():
    x = ember.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision"):
        ember.autograd.gradcheck(lambda a: a * 2, (x,), raise_exception=False)


def test_stride_zero_input_rejected():
    x = d([1.]).expand(3)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(RuntimeError, match="stride 0"):
            ember.autograd.gradcheck(lambda a: a * 2, (x,))


def test_non_contiguous_input():
    x = d(A).detach().t().requires_grad_()
    assert not x.is_contiguous()
    assert ember.autograd.gradcheck(lambda a: a * a, (x,))


def test_output_not_requiring_grad_must_be_constant():
    x = d(Bv)
    assert ember.autograd.gradcheck(lambda a: (a * 2, ember.ones(3, dtype=ember.float64)), (x,))
    # a non-differentiable output that does depend on the input is reported
    assert not ember.autograd.gradcheck(lambda a: (a * 2, a.detach() * 3), (x,),
                                        raise_exception=False)


def test_inputs_restored_after_check():
    x = d(A)
    before = x.detach().clone()
    ember.autograd.gradcheck(lambda a: a * a, (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before.numpy())
    assert x.grad is None


def test_complex_input_and_output():
    z = ember.from_numpy(np.array([1 + 2j, -0.5 + 1j])).requires_grad_()
    w = ember.from_numpy(np.array([0.3 - 1j, 2 + 0.5j])).requires_grad_()
    assert ember.autograd.gradcheck(lambda a, b: a * b, (z, w))
    assert ember.autograd.gradcheck(lambda a, b: a * b + a, (z, w))


def test_complex_wrong_gradient_detected():
    class NoConj(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a   # missing conj()
    z = ember.from_numpy(np.array([1 + 2j, -0.5 + 1j])).requires_grad_()
    w = ember.from_numpy(np.array([0.3 - 1j, 2 + 0.5j])).requires_grad_()
    assert not ember.autograd.gradcheck(NoConj.apply, (z, w), raise_exception=False)


def test_real_to_complex_and_complex_to_real():
    x = d(Bv)
    c = ember.from_numpy(np.array([1j, 1j, 1j]))
    assert ember.autograd.gradcheck(lambda a: a * c, (x,))
    z = ember.from_numpy(np.array([1 + 2j, -0.5 + 1j])).requires_grad_()
    assert ember.autograd.gradcheck(lambda a: (a * a.conj()).real, (z,))


# ------------------------------------------------------------------ gradgradcheck
@pytest.mark.parametrize('fn', [
    lambda a, b: a * b * a,
    lambda a, b: a / b,
    lambda a, b: (a * a).sum() * b,
])
def test_gradgradcheck_passes(fn):
    assert ember.autograd.gradgradcheck(fn, (d(Bv), d(Bv + 1)))


def test_gradgradcheck_with_grad_outputs():
    go = d([0.5, -1., 2.])
    assert ember.autograd.gradgradcheck(lambda a: a * a * a, (d(Bv),), (go,))


def test_gradgradcheck_detects_wrong_double_backward():
    class BadDouble(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            # right value, wrong derivative: x.detach() cuts the second-order term
            return g * 3 * x * x.detach()
    x = d(Bv)
    assert ember.autograd.gradcheck(BadDouble.apply, (x,))
    with pytest.raises(GradcheckError):
        ember.autograd.gradgradcheck(BadDouble.apply, (x,))


def test_signature_matches_torch():
    import inspect
    for name in ('gradcheck', 'gradgradcheck'):
        pt = inspect.signature(getattr(torch.autograd, name))
        pe = inspect.signature(getattr(ember.autograd, name))
        assert list(pe.parameters) == list(pt.parameters)
        for k, p in pt.parameters.items():
            assert pe.parameters[k].kind == p.kind, k
            assert pe.parameters[k].default == p.default, k
