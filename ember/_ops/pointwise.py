"""Pointwise ops: the in-place ``op_`` forms and reflected dunders of the pointwise families
(``arithmetic``, ``unary``, ``comparison``, ``bitwise``), and PyTorch's names of their
saved tensors. Importing this module binds them all."""
import numpy as np

from .._tensor import Tensor, _Mode
from ._inplace import inplace, _check_partial_overlap
from ..autograd.graph import _named
from ._util import register
from ._pointwise_common import _make_inplace
from .unary import (neg, _UNARY, _UNARY_FNS, logit, _polygamma_method, round, nan_to_num)
from .comparison import (eq, ne, lt, le, gt, ge)
from .arithmetic import (AddBackwardScalar, SubBackwardScalar, RsubBackward1, add, _radd, sub,
    _rsub, rsub, MulBackwardScalar, mul, DivBackwardScalar, DivBackwardRScalar, div, _rdiv,
    floor_divide, _rfloordiv, remainder, _rmod, fmod, pow, _rpow, square, atan2, hypot,
    copysign, xlogy, heaviside, clamp, clamp_min, clamp_max, lerp, addcmul, addcdiv)
from .bitwise import (logical_and, logical_or, logical_xor, logical_not, bitwise_and,
    bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift, _invert, bitwise_not,
    _rlshift, _rrshift)


# ------------------------------------------------------------------ in-place forms, dunders
# (op, in-place names; the first is the canonical one, names in _INPLACE_FUNCS are also
# ember.<name> functions like in PyTorch)
_INPLACE = [
    (add, ('add_', '__iadd__')), (sub, ('sub_', '__isub__', 'subtract_')),
    (mul, ('mul_', '__imul__', 'multiply_')),
    (div, ('div_', '__itruediv__', 'divide_', 'true_divide_')),
    (floor_divide, ('floor_divide_', '__ifloordiv__')), (remainder, ('remainder_', '__imod__')),
    (fmod, ('fmod_',)), (pow, ('pow_', '__ipow__')),
    (neg, ('neg_', 'negative_')), (square, ('square_',)), (logit, ('logit_',)),
    (_polygamma_method, ('polygamma_',)), (round, ('round_',)), (nan_to_num, ('nan_to_num_',)),
    (atan2, ('atan2_', 'arctan2_')), (hypot, ('hypot_',)), (copysign, ('copysign_',)),
    (xlogy, ('xlogy_',)), (heaviside, ('heaviside_',)), (clamp, ('clamp_', 'clip_')),
    (clamp_min, ('clamp_min_',)), (clamp_max, ('clamp_max_',)), (lerp, ('lerp_',)),
    (addcmul, ('addcmul_',)), (addcdiv, ('addcdiv_',)),
    (eq, ('eq_',)), (ne, ('ne_', 'not_equal_')), (lt, ('lt_', 'less_')),
    (le, ('le_', 'less_equal_')), (gt, ('gt_', 'greater_')), (ge, ('ge_', 'greater_equal_')),
    (logical_and, ('logical_and_',)), (logical_or, ('logical_or_',)),
    (logical_xor, ('logical_xor_',)), (logical_not, ('logical_not_',)),
    (bitwise_and, ('bitwise_and_', '__iand__')), (bitwise_or, ('bitwise_or_', '__ior__')),
    (bitwise_xor, ('bitwise_xor_', '__ixor__')), (bitwise_not, ('bitwise_not_',)),
    (bitwise_left_shift, ('bitwise_left_shift_', '__ilshift__')),
    (bitwise_right_shift, ('bitwise_right_shift_', '__irshift__')),
] + [(_UNARY_FNS[e[0]], (e[0] + '_',) + tuple(a + '_' for a in e[6])) for e in _UNARY]

_INPLACE_FUNCS = {
    'neg_', 'negative_', 'abs_', 'sqrt_', 'rsqrt_', 'square_', 'reciprocal_', 'exp_', 'exp2_',
    'expm1_', 'log_', 'log2_', 'log10_', 'log1p_', 'sin_', 'cos_', 'tan_', 'asin_', 'acos_',
    'atan_', 'arcsin_', 'arccos_', 'arctan_', 'sinh_', 'cosh_', 'tanh_', 'asinh_', 'acosh_',
    'atanh_', 'arcsinh_', 'arccosh_', 'arctanh_', 'sigmoid_', 'logit_', 'erf_', 'erfc_',
    'xlogy_', 'floor_', 'ceil_', 'round_', 'trunc_', 'fix_', 'frac_', 'clamp_', 'clip_',
    'clamp_min_', 'clamp_max_', 'nan_to_num_', 'deg2rad_', 'rad2deg_', 'relu_'}

def _make_fast_inplace(fn, name, ufunc):
    """In-place binary arithmetic with a direct ``ufunc(a, b, out=a)`` path when nothing
    requires grad and no promotion is involved (floating self, same-dtype tensor or
    Python number); everything else goes through the generic :func:`inplace`."""
    def f(self, other, *args, **kwargs):
        if not args and not kwargs and (not _Mode.grad or (
                not self._rg and not (isinstance(other, Tensor) and other._rg))):
            a = self._data
            if a.__class__ is np.ndarray and a.dtype.kind in 'fc':   # host arrays: NumPy's ufunc
                if isinstance(other, Tensor):
                    b = other._data
                    ok = b.dtype == a.dtype
                    if ok and other._st is not None and other._st is self._st:
                        _check_partial_overlap(self, other)
                else:
                    t = type(other)
                    b = other
                    ok = t is float or t is int or (t is complex and a.dtype.kind == 'c')
                if ok:
                    try:
                        ufunc(a, b, out=a)
                    except ValueError:
                        return inplace(self, fn, other)
                    st = self._st
                    if st is None:
                        st = self._storage_obj()
                    st._version += 1
                    return self
        return inplace(self, fn, other, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    return f


_FAST_INPLACE = {add: np.add, sub: np.subtract, mul: np.multiply}

for _fn, _names in _INPLACE:
    _f = (_make_fast_inplace(_fn, _names[0], _FAST_INPLACE[_fn]) if _fn in _FAST_INPLACE
          else _make_inplace(_fn, _names[0]))
    for _n in _names:
        register(_n, function=_n in _INPLACE_FUNCS)(_f)

for _c, _n in ((AddBackwardScalar, 'AddBackward0'), (SubBackwardScalar, 'SubBackward0'),
               (MulBackwardScalar, 'MulBackward0'), (DivBackwardScalar, 'DivBackward0'),
               (DivBackwardRScalar, 'MulBackward0'), (RsubBackward1, 'RsubBackward1')):
    _named(_c, _n)

register('__radd__', function=False)(_radd)
register('__rsub__', function=False)(_rsub)
register('__rtruediv__', function=False)(_rdiv)
register('__rdiv__', function=False)(_rdiv)
register('__div__', function=False)(div)
register('__idiv__', function=False)(_make_inplace(div, 'div_'))
register('__rfloordiv__', function=False)(_rfloordiv)
register('__rmod__', function=False)(_rmod)
register('__rpow__', function=False)(_rpow)
register('__rlshift__', function=False)(_rlshift)
register('__rrshift__', function=False)(_rrshift)
register('rsub', method=False)(rsub)
register('__invert__', function=False)(_invert)


from . import unary as _unary_mod, arithmetic as _arith_mod, comparison as _cmp_mod  # noqa: E402


# PyTorch's names of what each node saves, by position (grad_fn._saved_<name>)
def _name_saved(table):
    g = {}
    for m in (_unary_mod, _arith_mod, _cmp_mod):
        g.update(vars(m))
    for names, classes in table.items():
        for c in classes.split():
            g[c]._saved_names = names


_name_saved({
    ('self', 'other'): 'MulBackward0 DivBackward0 RemainderBackward1 FmodBackward1 '
                       'MaximumBackward0 MinimumBackward0 FmaxBackward0 FminBackward0',
    ('self',): 'PowBackward0 AbsBackward0 LogBackward0 Log2Backward0 Log10Backward0 '
               'Log1PBackward0 SinBackward0 CosBackward0 AsinBackward0 AcosBackward0 '
               'AtanBackward0 SinhBackward0 CoshBackward0 AsinhBackward0 AcoshBackward0 '
               'AtanhBackward0 ErfBackward0 ErfcBackward0 LgammaBackward0 DigammaBackward0 '
               'LogitBackward0 PolygammaBackward0 NanToNumBackward0 ClampBackward1 '
               'ClampMinBackward0 ClampMaxBackward0',
    ('result',): 'PowBackward2 SqrtBackward0 RsqrtBackward0 ReciprocalBackward0 ExpBackward0 '
                 'Exp2Backward0 Expm1Backward0 TanBackward0 TanhBackward0 SigmoidBackward0 '
                 'ErfinvBackward0 ReluBackward0',
    ('self', 'exponent', 'result'): 'PowBackward1',
    ('self', 'result'): 'SgnBackward0 CopysignBackward0 CopysignBackward1',
    ('self', 'other', 'result'): 'HypotBackward0',
    ('self', 'min', 'max'): 'ClampBackward0',
    ('self', 'min'): 'ClampMinBackward1',
    ('self', 'max'): 'ClampMaxBackward1',
    ('self', 'end', 'weight'): 'LerpBackward1',
    ('tensor1', 'tensor2'): 'AddcmulBackward0 AddcdivBackward0',
})
