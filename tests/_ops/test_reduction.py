"""Oracle tests of ember/_ops/reduction.py against PyTorch."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, errors_both, gradcheck_ember, rand as _rand


def rand(*shape, **kw):
    return np.asarray(_rand(*shape, **kw))

F32, F64 = np.float32, np.float64
warnings.filterwarnings('ignore', message='.*degrees of freedom.*')


A = np.asarray


def distinct(*shape, dtype=F64, seed=0):
    """Values without ties (so max/min/median/sort indices are well defined)."""
    n = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(seed)
    v = (rng.permutation(n) - n / 2) * 0.37 + rng.uniform(0, 0.1)
    return np.asarray(v.reshape(shape).astype(dtype))


# shape, dim: reductions accepting an int, a tuple or None
DIMS = [((), None), ((), 0), ((), -1), ((5,), 0), ((5,), None), ((3, 4), None), ((3, 4), 1),
        ((3, 4), -2), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)), ((2, 3, 4), 1)]
EMPTY_DIMS = [((0, 3), 1), ((0, 3), 0), ((0, 3), None), ((2, 0), (0, 1))]


# ------------------------------------------------------------------ sum / mean / nansum / prod
@pytest.mark.parametrize('shape,dim', DIMS + EMPTY_DIMS)
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', ['sum', 'mean', 'nansum', 'nanmean', 'logsumexp'])
def test_sum_like(op, shape, dim, keepdim):
    x = rand(*shape, dtype=F64, seed=1)
    if op == 'logsumexp' and dim is None:
        dim = tuple(range(len(shape))) or 0
    if dim is None:
        if keepdim:
            check(lambda m, t: getattr(t, op)(dim=None, keepdim=True), [x], grad=True)
        else:
            check(lambda m, t: getattr(m, op)(t), [x], grad=True)
        return
    check(lambda m, t: getattr(m, op)(t, dim, keepdim), [x], grad=True)
    check(lambda m, t: getattr(t, op)(dim, keepdim=keepdim), [x.astype(F32)], grad=True)


@pytest.mark.parametrize('dtype', [np.int32, np.int64, np.uint8, np.bool_, np.int16])
@pytest.mark.parametrize('op', ['sum', 'nansum', 'prod', 'cumsum', 'cumprod'])
def test_integer_accumulation_is_int64(op, dtype):
    x = rand(3, 4, dtype=dtype, seed=2, low=0, high=4)
    if op.startswith('cum'):
        check(lambda m, t: getattr(m, op)(t, 1), [x])
        check(lambda m, t: getattr(m, op)(t, 0, dtype=m.float64), [x])
    else:
        check(lambda m, t: getattr(m, op)(t), [x])
        check(lambda m, t: getattr(m, op)(t, 1, True), [x])
        check(lambda m, t: getattr(m, op)(t, dtype=m.float32), [x])


def test_sum_dtype_and_names():
    x = rand(3, 4, dtype=F32, seed=3)
    check(lambda m, t: t.sum(1, dtype=m.float64), [x], grad=True)
    check(lambda m, t: t.mean(dtype=m.float64), [x], grad=True)
    check(lambda m: m.mean(m.from_numpy(np.arange(6).reshape(2, 3)), 0, dtype=m.float32), [])
    check(lambda m, t: t.sum(()), [x], grad=True)
    check(lambda m, t: t.mean(()), [x], grad=True)
    for expr in ['t.sum()', 't.sum(0)', 't.sum(())', 't.sum(None, True)', 't.mean()', 't.mean(1)',
                 't.nansum()', 't.nanmean(0)', 't.prod()', 't.prod(1)', 't.amax()', 't.amin(0)',
                 't.max()', 't.min()', 't.max(0)[0]', 't.min(1)[0]', 't.std()', 't.var(0)',
                 't.logsumexp(0)', 't.median()', 't.median(0)[0]', 't.nanmedian()',
                 't.nanmedian(1)[0]', 't.mode(0)[0]', 't.cumsum(0)', 't.cumprod(1)',
                 't.cummax(0)[0]', 't.cummin(0)[0]', 't.logcumsumexp(0)', 't.topk(2)[0]',
                 't.sort()[0]', 't.kthvalue(2)[0]', 't.msort()', 't.norm()', 't.norm(1, 0)',
                 't.diff()', 'm.std_mean(t)[0]', 'm.var_mean(t, 0)[1]', 'm.aminmax(t)[0]',
                 't.norm(float("inf"))']:
        te = ember.from_numpy(x.copy()).requires_grad_()
        tt = torch.from_numpy(x.copy()).requires_grad_()
        ne = eval(expr, {'t': te, 'm': ember}).grad_fn.name()
        nt = eval(expr, {'t': tt, 'm': torch}).grad_fn.name()
        assert ne == nt, (expr, ne, nt)


def test_float16_sum_mean_accumulate():
    x = (np.arange(3000) % 7).astype(np.float16)
    check(lambda m, t: t.sum(), [x])
    check(lambda m, t: t.mean(), [x])


def test_nan_reductions():
    x = rand(3, 4, seed=4)
    x[0, 1] = np.nan
    x[2, :] = np.nan
    check(lambda m, t: t.nansum(1), [x], grad=True)
    check(lambda m, t: t.nanmean(1), [x], grad=True)
    check(lambda m, t: t.nanmean(), [x], grad=True)
    check(lambda m, t: t.sum(0), [x])
    check(lambda m, t: t.max(), [x])
    check(lambda m, t: t.amax(1), [x])


def test_mean_errors():
    check_error(lambda m, t: t.mean(), [np.arange(3)], match='mean(): could not infer output dtype')
    check_error(lambda m, t: t.mean(dtype=m.int64), [np.arange(3.)])
    check_error(lambda m, t: m.nanmean(t), [np.arange(3)])
    check_error(lambda m, t: t.sum(5), [rand(2, 3)])
    check_error(lambda m, t: t.sum((0, 0)), [rand(2, 3)], match='appears multiple times')
    check_error(lambda m, t: t.prod((0, 1)), [rand(2, 3)])


@pytest.mark.parametrize('case', ['nozero', 'onezero', 'twozeros', 'allzero'])
@pytest.mark.parametrize('dim', [None, 0, 1, -1])
@pytest.mark.parametrize('keepdim', [False, True])
def test_prod_grad_with_zeros(case, dim, keepdim):
    x = rand(3, 4, dtype=F64, seed=5)
    if case in ('onezero', 'twozeros'):
        x[1, 2] = 0
    if case == 'twozeros':
        x[1, 0] = 0
        x[2, 2] = 0
    if case == 'allzero':
        x[:] = 0
    if dim is None:
        if keepdim:
            return
        check(lambda m, t: t.prod(), [x], grad=True)
    else:
        check(lambda m, t: m.prod(t, dim, keepdim), [x], grad=True)
        check(lambda m, t: t.prod(dim, keepdim=keepdim, dtype=m.float32), [x], grad=True)


@pytest.mark.parametrize('shape', [(), (4,), (0,), (2, 3)])
def test_prod_shapes(shape):
    x = rand(*shape, dtype=F64, seed=6)
    check(lambda m, t: t.prod(), [x], grad=True)
    if shape:
        check(lambda m, t: t.prod(-1, True), [x], grad=True)


# ------------------------------------------------------------------ max / min family
@pytest.mark.parametrize('shape,dim', [((), 0), ((), -1), ((5,), 0), ((3, 4), 1), ((3, 4), -2),
                                       ((2, 3, 4), 1), ((0, 3), 1)])
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', ['max', 'min', 'median', 'nanmedian', 'mode', 'argmax', 'argmin'])
def test_value_index_reductions(op, shape, dim, keepdim):
    x = distinct(*shape, seed=7)
    check(lambda m, t: getattr(m, op)(t, dim, keepdim), [x], grad=True)
    check(lambda m, t: getattr(t, op)(dim=dim, keepdim=keepdim), [x.astype(F32)], grad=True)
    if op in ('max', 'min', 'argmax', 'argmin') and len(shape) < 3:
        check(lambda m, t: getattr(t, op)(dim, keepdim), [A(np.round(x * 4)).astype(np.int64)])


@pytest.mark.parametrize('op', ['max', 'min'])
def test_max_named_tuple(op):
    x = distinct(3, 4, seed=8)
    re, rt = check(lambda m, t: getattr(t, op)(1), [x])
    assert type(re).__name__ == op and re.values is re[0] and re.indices is re[1]
    v, i = re
    assert repr(re).startswith(f'torch.return_types.{op}(\nvalues=tensor(')
    assert isinstance(re, tuple) and len(re) == 2
    assert type(re) is getattr(ember.return_types, op)
    check(lambda m, t: getattr(m, op)(t, 1, True).indices, [x])
    check(lambda m, t: getattr(m, op)(t, dim=0).values, [x], grad=True)


@pytest.mark.parametrize('op', ['max', 'min'])
@pytest.mark.parametrize('shapes', [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 2))])
def test_binary_max_min(op, shapes):
    a, b = rand(*shapes[0], seed=9), rand(*shapes[1], seed=10)
    if not hasattr(ember, 'maximum'):
        pytest.fail("ember.maximum/minimum (pointwise family) missing")
    check(lambda m, x, y: getattr(m, op)(x, y), [a, b], grad=True)
    check(lambda m, x, y: getattr(x, op)(y), [a, b], grad=True)


@pytest.mark.parametrize('shape', [(), (5,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize('dtype', [F32, F64, np.int64, np.int32, np.bool_])
def test_full_max_min_argmax(shape, dtype):
    x = distinct(*shape, seed=11).astype(dtype) if dtype != np.bool_ else rand(*shape, dtype=dtype)
    g = dtype in (F32, F64)
    for op in ('max', 'min', 'amax', 'amin'):
        check(lambda m, t: getattr(t, op)(), [x], grad=g)
    if dtype != np.bool_:
        for op in ('argmax', 'argmin'):
            check(lambda m, t: getattr(t, op)(), [x])
            check(lambda m, t: getattr(m, op)(t, keepdim=True), [x])


@pytest.mark.parametrize('op', ['amax', 'amin', 'max', 'min', 'median', 'nanmedian'])
def test_ties_split_gradient_evenly(op):
    x = np.array([[1., 3., 3.], [2., 2., 0.], [5., 5., 5.]])
    if op in ('amax', 'amin'):
        check(lambda m, t: getattr(t, op)(), [x], grad=True)
        check(lambda m, t: getattr(t, op)(1), [x], grad=True)
        check(lambda m, t: getattr(t, op)((0, 1), True), [x], grad=True)
    else:
        check(lambda m, t: getattr(t, op)(), [x], grad=True)
    check(lambda m, t: m.aminmax(t), [x], grad=True)
    check(lambda m, t: m.aminmax(t, dim=1, keepdim=True), [x], grad=True)


@pytest.mark.parametrize('shape,dim', DIMS + [((0, 3), 1)])
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', ['amax', 'amin'])
def test_amax_amin(op, shape, dim, keepdim):
    x = distinct(*shape, seed=12)
    dim = () if dim is None else dim
    check(lambda m, t: getattr(m, op)(t, dim, keepdim), [x], grad=True)
    check(lambda m, t: getattr(t, op)(dim, keepdim), [A(np.round(x)).astype(np.int32)])


@pytest.mark.parametrize('shape,dim', [((5,), None), ((3, 4), 1), ((3, 4), -2), ((), None),
                                       ((2, 3, 4), 0)])
@pytest.mark.parametrize('keepdim', [False, True])
def test_aminmax(shape, dim, keepdim):
    x = distinct(*shape, seed=13)
    re, _ = check(lambda m, t: m.aminmax(t, dim=dim, keepdim=keepdim), [x], grad=True)
    assert re.min is re[0] and re.max is re[1]
    check(lambda m, t: t.aminmax(dim=dim, keepdim=keepdim), [A(np.round(x)).astype(np.int64)])


def test_max_min_errors():
    e = np.zeros(0, F32)
    e2 = np.zeros((0, 3), F32)
    check_error(lambda m, t: t.max(), [e], match='Expected reduction dim to be specified')
    check_error(lambda m, t: t.min(), [e])
    check_error(lambda m, t: t.amax(), [e], match='amax(): Expected reduction dim')
    check_error(lambda m, t: t.amin(0), [e2], match='amin(): Expected reduction dim 0')
    check_error(lambda m, t: t.max(0), [e2], match='max(): Expected reduction dim 0 to have non-zero size')
    check_error(lambda m, t: t.argmax(), [e], match='argmax(): Expected reduction dim')
    check_error(lambda m, t: t.argmin(0), [e2])
    check_error(lambda m, t: m.aminmax(t), [e], match='aminmax(): cannot compute')
    check_error(lambda m, t: t.max((0, 1)), [rand(2, 2)])
    check_error(lambda m, t: t.max(2), [rand(2, 2)])
    check(lambda m, t: t.median(), [np.zeros(0, np.int64)])
    check_error(lambda m, t: t.median(1), [np.zeros((2, 0), F32)], match='non-zero size')
    check_error(lambda m, t: t.mode(), [e])


def test_median_no_dim_and_nan():
    for x in (np.array([4., 1., 3., 2.]), np.array([5., 1., 3.]), np.array(7.), np.zeros(0),
              np.array([1., np.nan, 3., 2.]), np.array([np.nan, np.nan])):
        check(lambda m, t: t.median(), [x])
        check(lambda m, t: t.nanmedian(), [x])
    x = np.array([[1., np.nan, 2., np.nan], [3., 1., 2., 0.], [np.nan, 2., 1., 5.]])
    check(lambda m, t: t.median(1), [x])
    check(lambda m, t: t.nanmedian(1), [x])
    check(lambda m, t: t.nanmedian(1, True), [x[1:2]], grad=True)
    check(lambda m, t: m.median(t, -1), [np.array([3, 1, 2, 4])])


def test_mode():
    x = np.array([[3, 1, 3, 1, 2], [5, 5, 4, 4, 4], [7, 8, 9, 6, 0]])
    check(lambda m, t: t.mode(), [x])
    check(lambda m, t: t.mode(1, True), [x])
    check(lambda m, t: m.mode(t, 0), [x[:2]])
    check(lambda m, t: t.mode(0), [np.array([[1., 2.], [1., 3.], [0., 2.]])], grad=True)
    check(lambda m, t: t.mode(), [np.array([2., 1., 3.])], grad=True)


# ------------------------------------------------------------------ var / std
@pytest.mark.parametrize('shape,dim', DIMS + [((0, 3), 1), ((0, 3), 0)])
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', ['std', 'var', 'std_mean', 'var_mean'])
def test_var_std(op, shape, dim, keepdim):
    x = rand(*shape, dtype=F64, seed=14)
    check(lambda m, t: getattr(m, op)(t, dim, keepdim=keepdim), [x], grad=True)
    check(lambda m, t: getattr(m, op)(t, dim, correction=0, keepdim=keepdim), [x.astype(F32)],
          grad=True)
    check(lambda m, t: getattr(m, op)(t, dim=dim, correction=2, keepdim=keepdim), [x], grad=True)


def test_var_std_positional_forms():
    x = rand(3, 4, dtype=F64, seed=15)
    check(lambda m, t: t.std(0, True, True), [x], grad=True)
    check(lambda m, t: t.std(1, False), [x], grad=True)
    check(lambda m, t: t.var(False), [x], grad=True)
    check(lambda m, t: m.std(t, True), [x], grad=True)
    check(lambda m, t: m.var(t, (0, 1), False, True), [x], grad=True)
    check(lambda m, t: m.var(t, unbiased=False), [x], grad=True)
    check(lambda m, t: m.std(t, dim=1, unbiased=True), [x], grad=True)
    check(lambda m, t: m.std_mean(t, 1, False, True), [x], grad=True)
    check(lambda m, t: t.std(correction=0.5), [x], grad=True)
    # constant input: std is 0, its gradient must not be NaN
    check(lambda m, t: t.std(1), [np.ones((2, 3))], grad=True)
    # complex input: real result
    c = rand(3, 4, dtype=np.complex128, seed=16)
    check(lambda m, t: t.var(1), [c])
    check(lambda m, t: t.std(), [c])


def test_var_std_errors():
    check_error(lambda m, t: t.std(), [np.arange(3)], match='std and var only support floating point and complex dtypes')
    check_error(lambda m, t: t.var(unbiased=True, correction=1), [rand(3)])


# ------------------------------------------------------------------ norms
@pytest.mark.parametrize('p', ['fro', 2, 1, 3, 0.5, 0, math.inf, -math.inf, 2.5])
@pytest.mark.parametrize('shape,dim', [((5,), None), ((3, 4), None), ((3, 4), 1), ((3, 4), (0, 1)),
                                       ((2, 3, 4), -1), ((), None)])
@pytest.mark.parametrize('keepdim', [False, True])
def test_norm(p, shape, dim, keepdim):
    if p == 'fro' and isinstance(dim, int):
        dim = (dim,)
    x = A(distinct(*shape, seed=17) + 0.05)
    check(lambda m, t: m.norm(t, p, dim, keepdim), [x], grad=True)
    check(lambda m, t: t.norm(p=p, dim=dim, keepdim=keepdim), [x.astype(F32)], grad=True)


def test_norm_misc():
    x = rand(3, 4, dtype=F64, seed=18)
    check(lambda m, t: t.norm('nuc'), [x], grad=True)
    check(lambda m, t: m.norm(t, 'nuc', dim=(1, 0), keepdim=True), [x], grad=True)
    check(lambda m, t: t.norm(dtype=m.float64), [x.astype(F32)], grad=True)
    z = x.copy()
    z[1] = 0
    for p in (2, 1, 3, math.inf):
        check(lambda m, t: t.norm(p, 1), [z], grad=True)
    check(lambda m, t: t.norm(), [np.zeros((2, 2))], grad=True)
    check(lambda m, t: t.norm(), [np.zeros((0, 3))])
    check(lambda m, t: t.norm(), [rand(3, dtype=np.complex128)])
    check_error(lambda m, t: t.norm(), [np.arange(3)], match='Expected a floating point or complex tensor')
    check_error(lambda m, t: t.norm(math.inf), [np.zeros(0)], match='does not have an identity')


# ------------------------------------------------------------------ logical
@pytest.mark.parametrize('shape,dim', DIMS + EMPTY_DIMS)
@pytest.mark.parametrize('dtype', [np.bool_, np.uint8, F32, np.int64])
def test_all_any_count_nonzero(shape, dim, dtype):
    x = A(rand(*shape, dtype=np.bool_, seed=19).astype(dtype) * (np.array(3).astype(dtype) if dtype != np.bool_ else True))
    for op in ('all', 'any'):
        if dim is None:
            check(lambda m, t: getattr(t, op)(), [x])
        else:
            check(lambda m, t: getattr(m, op)(t, dim), [x])
            check(lambda m, t: getattr(t, op)(dim, True), [x])
    check(lambda m, t: m.count_nonzero(t, dim), [x])


def test_logsumexp_int_and_inf():
    check(lambda m, t: t.logsumexp(1), [np.arange(6).reshape(2, 3)])
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.], [1000., 1000.]])
    check(lambda m, t: t.logsumexp(1), [x])


# ------------------------------------------------------------------ sorting and selection
@pytest.mark.parametrize('shape,dim', [((), 0), ((6,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2),
                                       ((0, 3), 1), ((3, 0), 1)])
@pytest.mark.parametrize('descending', [False, True])
def test_sort_argsort(shape, dim, descending):
    x = distinct(*shape, seed=20)
    re, _ = check(lambda m, t: m.sort(t, dim, descending), [x], grad=True)
    assert type(re).__name__ == 'sort'
    check(lambda m, t: t.sort(dim=dim, descending=descending, stable=True), [x.astype(F32)], grad=True)
    check(lambda m, t: t.argsort(dim, descending), [x])
    check(lambda m, t: m.argsort(t, dim=dim, descending=descending), [A(np.round(x * 10)).astype(np.int32)] if len(set(np.round(x * 10).ravel().tolist())) == x.size else [x])


@pytest.mark.parametrize('descending', [False, True])
def test_sort_stable_with_ties_and_nan(descending):
    x = np.array([[2., 1., 2., np.nan, 1., 3., np.nan, 2.], [0., 0., 1., 1., 0., 1., 0., 1.]])
    check(lambda m, t: t.sort(dim=1, descending=descending, stable=True), [x])
    check(lambda m, t: m.argsort(t, dim=1, descending=descending, stable=True), [x])
    check(lambda m, t: t.sort(dim=0, descending=descending, stable=True), [x.T.copy()])
    b = np.array([True, False, True, False, True])
    check(lambda m, t: t.sort(stable=True, descending=descending), [b])
    check(lambda m, t: t.sort(stable=True, descending=descending), [np.array([3, 1, 3, 1, 2])])
    check(lambda m, t: m.msort(t), [x.T.copy()])


@pytest.mark.parametrize('shape,dim,k', [((6,), 0, 3), ((3, 5), 1, 2), ((3, 5), 0, 3), ((3, 5), -1, 0),
                                         ((2, 3, 4), 1, 1), ((), 0, 1), ((4,), 0, 4)])
@pytest.mark.parametrize('largest', [True, False])
def test_topk(shape, dim, k, largest):
    x = distinct(*shape, seed=21)
    re, _ = check(lambda m, t: m.topk(t, k, dim, largest), [x], grad=True)
    assert re.values is re[0]
    check(lambda m, t: t.topk(k, dim=dim, largest=largest, sorted=True), [x.astype(F32)], grad=True)
    check(lambda m, t: t.topk(k, dim, largest), [A(np.round(x * 100)).astype(np.int64)])


@pytest.mark.parametrize('shape,dim,k', [((6,), 0, 3), ((3, 5), 1, 1), ((3, 5), 0, 3), ((2, 3, 4), -1, 4),
                                         ((), 0, 1)])
@pytest.mark.parametrize('keepdim', [False, True])
def test_kthvalue(shape, dim, k, keepdim):
    x = distinct(*shape, seed=22)
    check(lambda m, t: m.kthvalue(t, k, dim, keepdim), [x], grad=True)
    check(lambda m, t: t.kthvalue(k, dim=dim, keepdim=keepdim), [A(np.round(x * 100)).astype(np.int64)])


def test_sort_select_errors():
    x = rand(2, 3)
    check_error(lambda m, t: t.topk(4), [x], match='selected index k out of range')
    check_error(lambda m, t: t.kthvalue(4), [x], match='kthvalue(): selected number k out of range')
    check_error(lambda m, t: t.kthvalue(0), [x])
    check_error(lambda m, t: t.kthvalue(1, 1), [np.zeros((2, 0), F32)], match='non-zero size')
    check_error(lambda m, t: t.sort(2), [x])


# ------------------------------------------------------------------ quantiles
@pytest.mark.parametrize('interp', ['linear', 'lower', 'higher', 'midpoint', 'nearest'])
@pytest.mark.parametrize('shape,dim', [((7,), None), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2),
                                       ((3, 4), None), ((), None), ((), 0)])
@pytest.mark.parametrize('keepdim', [False, True])
def test_quantile(interp, shape, dim, keepdim):
    x = distinct(*shape, seed=23)
    for q in (0.3, 0.5, 1.0):
        check(lambda m, t: m.quantile(t, q, dim, keepdim, interpolation=interp), [x], grad=True)
    qs = np.array([0., 0.25, 0.5, 0.7, 1.])
    check(lambda m, t, qq: t.quantile(qq, dim=dim, keepdim=keepdim, interpolation=interp),
          [x.astype(F32), qs.astype(F32)], grad=True)
    check(lambda m, t, qq: t.nanquantile(qq, dim=dim, keepdim=keepdim, interpolation=interp),
          [x, qs], grad=True)


def test_quantile_nan_and_errors():
    x = np.array([[1., np.nan, 3., 2.], [4., 1., 2., 0.], [np.nan, np.nan, np.nan, np.nan]])
    for interp in ('linear', 'nearest', 'midpoint'):
        check(lambda m, t: t.quantile(0.4, 1, interpolation=interp), [x])
        check(lambda m, t: t.nanquantile(0.4, 1, interpolation=interp), [x])
    check(lambda m, t: t.quantile(0.5), [x])
    check(lambda m, t: t.nanquantile(0.5), [x])
    check_error(lambda m, t: t.quantile(1.5), [rand(3)], match='q must be in the range [0, 1] but got 1.5')
    check_error(lambda m, t: t.quantile(0.5), [np.arange(3)], match='input tensor must be either float or double dtype')
    check_error(lambda m, t: t.quantile(0.5), [np.zeros(0)], match='non-empty')
    check_error(lambda m, t: t.quantile(0.5, interpolation='bad'), [rand(3)])


# ------------------------------------------------------------------ cumulative ops
@pytest.mark.parametrize('shape,dim', [((), 0), ((6,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1),
                                       ((0, 3), 1), ((0, 3), 0)])
@pytest.mark.parametrize('op', ['cumsum', 'cumprod', 'logcumsumexp', 'cummax', 'cummin'])
def test_cumulative(op, shape, dim):
    x = A(distinct(*shape, seed=24) / 3)
    check(lambda m, t: getattr(m, op)(t, dim), [x], grad=True)
    check(lambda m, t: getattr(t, op)(dim=dim), [x.astype(F32)], grad=True)
    if op in ('cumsum', 'cumprod'):
        check(lambda m, t: getattr(t, op)(dim, dtype=m.float64), [x.astype(F32)], grad=True)


@pytest.mark.parametrize('zeros', [[(0, 0)], [(1, 2)], [(1, 2), (1, 3)], [(0, 3), (2, 0), (2, 1)]])
@pytest.mark.parametrize('dim', [0, 1])
def test_cumprod_grad_with_zeros(zeros, dim):
    x = rand(3, 5, dtype=F64, seed=25)
    for i, j in zeros:
        x[i, j] = 0
    check(lambda m, t: t.cumprod(dim), [x], grad=True)


def test_cummax_ties_and_nan():
    x = np.array([[1., 3., 3., 2., 5., 5.], [np.nan, 1., np.nan, 2., 0., 7.]])
    check(lambda m, t: t.cummax(1), [x])
    check(lambda m, t: t.cummin(1), [x])
    check(lambda m, t: t.cummax(0), [np.array([1, 3, 3, 2, 5, 5])])
    check(lambda m, t: t.cummin(0), [np.array([4, 3, 3, 5, 1, 1])])
    check(lambda m, t: t.cummax(1), [np.array([[1., 3., 3., 2., 5., 5.]])], grad=True)
    check(lambda m, t: t.logcumsumexp(1), [np.array([[-1000., 0., 1000., -np.inf]])])
    check_error(lambda m, t: t.logcumsumexp(0), [np.arange(3)])


# ------------------------------------------------------------------ unique / counting
@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('cnt', [False, True])
def test_unique(inv, cnt):
    x = np.array([[3, 1, 2], [1, 2, 2], [3, 1, 2], [0, 0, 0]])
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt), [x])
    check(lambda m, t: t.unique(sorted=True, return_inverse=inv, return_counts=cnt), [x.astype(F32)])
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt, dim=0), [x])
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt, dim=1), [x])
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt, dim=0), [x[:0]])
    check_error(lambda m, t: m.unique(t, dim=-1), [x[:0]], match="aren't selected")
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt), [np.array([True, False, True])])
    y = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    check(lambda m, t: m.unique_consecutive(t, return_inverse=inv, return_counts=cnt), [y])
    check(lambda m, t: t.unique_consecutive(return_inverse=inv, return_counts=cnt, dim=0), [x[[0, 0, 1, 0, 3, 3]]])
    check(lambda m, t: m.unique_consecutive(t, return_inverse=inv, return_counts=cnt), [np.zeros(0, np.int64)])
    check(lambda m, t: m.unique(t, return_inverse=inv, return_counts=cnt), [np.array(5.)])


def test_bincount_histc():
    x = np.array([0, 1, 1, 3, 5, 1])
    check(lambda m, t: t.bincount(), [x])
    check(lambda m, t: m.bincount(t, minlength=10), [x])
    check(lambda m, t: m.bincount(t, minlength=3), [np.zeros(0, np.int64)])
    for w in (rand(6, dtype=F32), rand(6, dtype=F64), np.arange(6, dtype=np.int32)):
        check(lambda m, t, ww: t.bincount(ww), [x, w])
    check(lambda m, t: t.bincount(), [x.astype(np.uint8)])
    # float32 weights add in float32, in input order (30000 * 0.1 is not 3000 there)
    check(lambda m, t, ww: m.bincount(t, ww, minlength=3),
          [np.zeros(30000, np.int64), np.full(30000, 0.1, np.float32)])
    check_error(lambda m, t: t.bincount(), [np.array([-1, 2])], match='bincount only supports 1-d non-negative integral inputs.')
    check_error(lambda m, t: t.bincount(), [np.array([[1, 2]])])
    check_error(lambda m, t: t.bincount(), [np.array([1., 2.])])
    y = rand(200, dtype=F32, seed=26)
    check(lambda m, t: t.histc(), [y])
    check(lambda m, t: m.histc(t, bins=7, min=-1, max=1), [y])
    check(lambda m, t: m.histc(t, bins=5, min=0, max=3), [np.array([0., 1., 1.5, 3., 2.999, 4., -1.])])
    check(lambda m, t: t.histc(4), [rand(30, dtype=F64, seed=27)])
    check(lambda m, t: t.histc(3), [np.ones(4, F32)])
    check_error(lambda m, t: t.histc(0), [y], match='bins must be > 0')
    check_error(lambda m, t: t.histc(), [np.arange(3)])


def test_searchsorted_bucketize():
    s = np.array([1, 3, 5, 7, 9])
    v = np.array([[3, 6, 9], [0, 10, 1]])
    for right in (False, True):
        check(lambda m, a, b: m.searchsorted(a, b, right=right), [s, v])
        check(lambda m, a, b: m.searchsorted(a, b, side='right' if right else 'left'), [s, v])
        check(lambda m, a, b: m.bucketize(b, a, right=right), [s, v])
        check(lambda m, a: m.bucketize(5, a, right=right), [s])
        check(lambda m, a: m.searchsorted(a, 5, right=right), [s])
    check(lambda m, a, b: m.searchsorted(a, b, out_int32=True), [s, v])
    check(lambda m, a, b: m.bucketize(b, a, out_int32=True), [s, v])
    s2 = np.array([[1., 2., 3.], [0., 5., 9.]])
    v2 = np.array([[2.5, 0.], [6., 9.]])
    check(lambda m, a, b: m.searchsorted(a, b), [s2, v2])
    check(lambda m, a, b: m.searchsorted(a, b, side='right'), [s2, v2])
    u = np.array([9, 1, 5, 3, 7])
    check(lambda m, a, b, o: m.searchsorted(a, b, sorter=o), [u, v, np.argsort(u)])
    check_error(lambda m, a, b: m.searchsorted(a, b, right=True, side='left'), [s, v],
                match="side and right can't be set to opposites")
    check_error(lambda m, a, b: m.searchsorted(a, b), [s2, np.zeros((3, 2))])


@pytest.mark.parametrize('shape,dim', [((6,), -1), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), 1)])
@pytest.mark.parametrize('n', [1, 2, 3])
def test_diff(shape, dim, n):
    x = rand(*shape, dtype=F64, seed=28)
    check(lambda m, t: m.diff(t, n, dim), [x], grad=True)
    check(lambda m, t: t.diff(n=n, dim=dim), [np.round(x * 5).astype(np.int64)])
    check(lambda m, t: t.diff(n=n, dim=dim), [x > 0])
    pre_shape = list(shape)
    pre_shape[dim] = 2
    p = rand(*pre_shape, dtype=F64, seed=29)
    check(lambda m, t, pp: m.diff(t, n, dim, prepend=pp, append=pp), [x, p], grad=True)


def test_diff_edge():
    check(lambda m, t: t.diff(n=5), [rand(3)])
    check_error(lambda m, t: t.diff(), [np.array(1.)])


# ------------------------------------------------------------------ double backward
def _second(op):
    def fn(m, x, w):
        y = op(m, x)
        (g,) = m.autograd.grad((y * w).sum(), x, create_graph=True)
        return g
    return fn


@pytest.mark.parametrize('name,op,outshape', [
    ('sum', lambda m, x: x.sum(1), (3,)),
    ('mean', lambda m, x: x.mean(0, True), (1, 4)),
    ('prod', lambda m, x: x.prod(1), (3,)),
    ('prod0', lambda m, x: x.prod(), ()),
    ('var', lambda m, x: x.var(1), (3,)),
    ('std', lambda m, x: x.std(0), (4,)),
    ('norm', lambda m, x: x.norm(dim=1), (3,)),
    ('norm3', lambda m, x: x.norm(3, 1), (3,)),
    ('logsumexp', lambda m, x: x.logsumexp(1), (3,)),
    ('cumsum', lambda m, x: x.cumsum(1), (3, 4)),
    ('cumprod', lambda m, x: x.cumprod(1), (3, 4)),
    ('logcumsumexp', lambda m, x: x.logcumsumexp(1), (3, 4)),
    ('sort', lambda m, x: x.sort(1)[0] ** 2, (3, 4)),
    ('max', lambda m, x: x.max(1)[0] * x.max(1)[0], (3,)),
])
def test_double_backward(name, op, outshape):
    x = distinct(3, 4, seed=30) / 3
    w = rand(*outshape, dtype=F64, seed=31)
    check(_second(op), [x, w], grad=True)


def test_prod_double_backward_with_zero():
    x = rand(3, 4, dtype=F64, seed=32)
    x[1, 1] = 0
    check(_second(lambda m, t: t.prod(1)), [x, rand(3, dtype=F64)], grad=True)


# ------------------------------------------------------------------ finite differences
@pytest.mark.parametrize('fn', [
    lambda m, x: x.sum((0, 2)), lambda m, x: x.mean(1, True), lambda m, x: x.prod(1),
    lambda m, x: x.amax(1), lambda m, x: x.max(2)[0], lambda m, x: x.min(),
    lambda m, x: x.std(1), lambda m, x: x.var((0, 1), correction=0), lambda m, x: m.std_mean(x, 2)[0],
    lambda m, x: x.norm(), lambda m, x: x.norm(3, 2), lambda m, x: x.norm(math.inf, 1),
    lambda m, x: x.logsumexp(2), lambda m, x: x.median(1)[0], lambda m, x: x.kthvalue(2, 1)[0],
    lambda m, x: x.cumsum(1), lambda m, x: x.cumprod(2), lambda m, x: x.cummax(1)[0],
    lambda m, x: x.logcumsumexp(0), lambda m, x: x.sort(2, True)[0], lambda m, x: x.topk(2, 1)[0],
    lambda m, x: x.quantile(0.3, 1), lambda m, x: x.diff(dim=1), lambda m, x: x.nansum(0),
    lambda m, x: x.nanmean(0),
])
def test_gradcheck(fn):
    gradcheck_ember(fn, [distinct(2, 3, 4, seed=33) / 5])


def test_gradcheck_prod_cumprod_zeros():
    x = distinct(3, 4, seed=34) / 5
    x[1, 2] = 0
    x[2, 0] = 0
    gradcheck_ember(lambda m, t: t.prod(1), [x])
    gradcheck_ember(lambda m, t: t.cumprod(1), [x])
    gradcheck_ember(lambda m, t: t.cumprod(0), [x])


def test_diff_order_zero_is_a_copy_and_negative_order_raises():
    # torch: n=0 gives a copy of input (prepend/append unused); n < 0 raises (issue 21)
    x = _rand(5, 5, dtype=np.float64)
    check(lambda m, a, p: m.diff(a, n=0, dim=0, prepend=p), [x, _rand(1, 5, dtype=np.float64)],
          grad=True)
    e = ember.from_numpy(x)
    assert ember.diff(e, n=0).data_ptr() != e.data_ptr()
    check_error(lambda m, a: m.diff(a, n=-1), [x], match='order must be non-negative but got -1')


def test_searchsorted_empty_batches():
    check(lambda m, s, v: m.searchsorted(s, v), [np.zeros((0, 0)), np.zeros((0, 0))])
    check(lambda m, s, v: m.searchsorted(s, v, right=True), [np.zeros((2, 0)), _rand(2, 3)])


def test_sum_keeps_an_explicit_integer_dtype():
    x = _rand(2, 3, dtype=np.int32)
    check(lambda m, a: (a.sum(1, dtype=m.int32), a.sum(dtype=m.int16), a.sum(0, keepdim=True,
                                                                              dtype=m.uint8),
                        a.sum()), [x])


def test_prod_cumprod_complex_gradients():
    # holomorphic: g * conj(derivative), as torch (issue 21)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    xz = x.copy()
    xz[1, 2] = 0
    for a in (x, xz):
        check(lambda m, t: (m.prod(t, 1), m.cumprod(t, 1), t.prod()), [a], grad=True)
    gradcheck_ember(lambda m, t: (m.prod(t, 0), m.cumprod(t, 1)), [x])


# ------------------------------------------------------------------ segment_reduce
_SEG_X = np.array([[1., 3, 3, 0], [2, 0, 0, 5], [np.nan, 1, 2, 2], [4, 4, -1, 7]])


@pytest.mark.parametrize('reduce', ['sum', 'mean', 'prod', 'max', 'min', 'amax', 'amin'])
@pytest.mark.parametrize('initial', [None, 3.])
def test_segment_reduce_lengths_offsets(reduce, initial):
    # ties, zeros, a NaN, an empty segment; values and gradients (split among ties)
    L = np.array([3, 0, 1])
    off = np.concatenate([[0], np.cumsum(L)])
    check(lambda m, x: (m.segment_reduce(x, reduce, lengths=m.tensor(L), initial=initial),
                        m._segment_reduce(x.mT, reduce, offsets=m.tensor(np.tile(off, (4, 1))),
                                          axis=1, unsafe=True, initial=initial)),
          [_SEG_X], grad=True)


@pytest.mark.parametrize('reduce', ['sum', 'mean', 'prod', 'max', 'min'])
def test_segment_reduce_nd_lengths_unsafe(reduce):
    x = rand(3, 6, 2, dtype=F64, seed=4)
    L = np.array([[2, 0, 4], [1, 3, 2], [0, 6, 0]])            # per row, along axis 1
    check(lambda m, x: (m.segment_reduce(x, reduce, lengths=m.tensor(L), axis=1),
                        m.segment_reduce(x, reduce, lengths=m.tensor([1, 0, 1]),
                                         unsafe=True, initial=0.5)), [x], grad=True)
    gradcheck_ember(lambda m, x: m.segment_reduce(x, reduce, lengths=m.tensor(L), axis=1,
                                                  initial=1.5), [x])


def test_segment_reduce_half_sequential():
    # torch accumulates half-precision sums one element at a time in half precision
    x = (rand(40, 3, dtype=F32, seed=2) * 3).astype(np.float16)
    check(lambda m, x: m.segment_reduce(x, 'mean', lengths=m.tensor([25, 0, 15]),
                                        initial=1), [x], rtol=0, atol=0)


@pytest.mark.parametrize('kw,match', [
    (dict(), 'Either lengths or offsets must be defined'),
    (dict(indices=[1]), 'indices based reduction is not supported yet'),
    (dict(lengths=[2, 2], reduce='foo'), 'reduce argument must be either sum, prod, mean'),
    (dict(lengths=[2, 0, 2]), 'Expected all rows of lengths along axis to sum'),
    (dict(lengths=[4, -1, 0]), 'lengths contains negative value!'),
    (dict(lengths=[4, -1, 0], unsafe=True), 'Expected segment_length >= 0'),
    (dict(lengths=[2, 1], axis=1), 'Expected axis to be the last dimension of lengths'),
    (dict(offsets=[[0, 1, 3]]), 'Expected axis to be the last dimension of offsets'),
    (dict(offsets=[0, 2, 1, 3]), 'Expected segment_length >= 0'),
    (dict(lengths=[2.0, 1.0]), 'not implemented for'),
    (dict(lengths=[2, 1], data='int'), '"_segment_reduce_cpu" not implemented for'),
])
def test_segment_reduce_errors(kw, match):
    kw = dict(kw)
    reduce = kw.pop('reduce', 'max')
    as_int = kw.pop('data', None) == 'int'

    def f(m):
        d = m.arange(12.).reshape(3, 4)
        d = d.long() if as_int else d
        k = {n: (m.tensor(v) if isinstance(v, list) else v) for n, v in kw.items()}
        return m.segment_reduce(d, reduce, **k)
    errors_both(f, match)


# ------------------------------------------------------------------ hash_tensor
@pytest.mark.parametrize('dtype', [F64, F32, np.float16, np.int8, np.int64, np.uint8, np.bool_])
def test_hash_tensor(dtype):
    x = (rand(3, 4, 2, dtype=F64, seed=5) * 50).astype(dtype)
    check(lambda m, t: (m.hash_tensor(t), t.hash_tensor(1), m.hash_tensor(t, (0, 2), keepdim=True),
                        m.hash_tensor(t[0, 0, 0]), m.hash_tensor(t.mT, None),
                        m.hash_tensor(t, 0, out=m.empty(0, dtype=m.uint64))), [x])


@pytest.mark.parametrize('fn,match', [
    (lambda m: m.hash_tensor(m.zeros(0, 3)), 'Expected reduction dim to be specified for'),
    (lambda m: m.hash_tensor(m.zeros(0, 3), 0), 'Expected reduction dim 0 to have non-zero'),
    (lambda m: m.hash_tensor(m.zeros(2), mode=1), 'Unknown hash_tensor mode: 1'),
    (lambda m: m.hash_tensor(m.zeros(2, dtype=m.complex64)), 'not implemented for'),
    (lambda m: m.hash_tensor(m.zeros(2), out=m.zeros(1)), 'Expected result to be of dtype uint64'),
    (lambda m: m.hash_tensor(m.zeros(2, 2), 2), 'Dimension out of range'),
])
def test_hash_tensor_errors(fn, match):
    errors_both(fn, match)


def test_hash_tensor_empty_rows():
    check(lambda m, t: m.hash_tensor(t, 1), [np.zeros((0, 3))])


def test_nansum_nanmean_bfloat16():
    x = np.array([[1., np.nan, 2.5], [np.nan, np.nan, -3.]])
    check(lambda m, t: (m.nansum(t.bfloat16()), m.nansum(t.bfloat16(), 1),
                        m.nanmean(t.bfloat16(), 0)), [x], rtol=0, atol=0)


@pytest.mark.parametrize('dim', [0, 1, -1])
def test_logcumsumexp_complex(dim):
    # large real parts too: the backward sums in (complex) log space
    rng = np.random.default_rng(dim + 5)
    x = rng.standard_normal((4, 3, 5)) * 3 + 1j * rng.standard_normal((4, 3, 5))
    x[0, 0, 0] = 1e4 + 0.5j
    check(lambda m, t: m.logcumsumexp(t, dim), [x], grad=True)
    gradcheck_ember(lambda m, t: m.logcumsumexp(t, dim), [x[1:, :2, :3]])


def test_logsumexp_complex_grad():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    check(lambda m, t: (m.logsumexp(t, 1), m.logsumexp(t, (0, 1), keepdim=True)), [x],
          grad=True)
    gradcheck_ember(lambda m, t: m.logsumexp(t, 0), [x])
