"""``out=``: one implementation (``_util.write_out``) with PyTorch's rules, honoured by every
function that accepts it. Compared with torch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)


def _out_like(m, t):
    return m.empty(0, dtype=t.dtype)


A = np.array([[2., 1.], [1., 3.]])
V = np.array([1., 2.5, 4.])

# (name, call(m, out), how to build out(m)) for functions that used to ignore out=
CASES = [
    ('arange', lambda m, o: m.arange(5, out=o), lambda m: m.empty(0, dtype=m.float64)),
    ('arange_int', lambda m, o: m.arange(0, 6, 2, out=o), lambda m: m.empty(0, dtype=m.int64)),
    ('searchsorted', lambda m, o: m.searchsorted(m.tensor(V), m.tensor([2., 5.]), out=o),
     lambda m: m.empty(0, dtype=m.int64)),
    ('bucketize', lambda m, o: m.bucketize(m.tensor([2., 5.]), m.tensor(V), out=o),
     lambda m: m.empty(0, dtype=m.int64)),
    ('linalg.qr', lambda m, o: m.linalg.qr(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.float64))),
    ('linalg.svd', lambda m, o: m.linalg.svd(m.tensor(A), out=o),
     lambda m: tuple(m.empty(0, dtype=m.float64) for _ in range(3))),
    ('linalg.eigh', lambda m, o: m.linalg.eigh(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.float64))),
    ('linalg.slogdet', lambda m, o: m.linalg.slogdet(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.float64))),
    ('linalg.inv_ex', lambda m, o: m.linalg.inv_ex(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int32))),
    ('linalg.cholesky_ex', lambda m, o: m.linalg.cholesky_ex(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int32))),
    ('linalg.solve_ex', lambda m, o: m.linalg.solve_ex(m.tensor(A), m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int32))),
    ('linalg.eigvals', lambda m, o: m.linalg.eigvals(m.tensor(A), out=o),
     lambda m: m.empty(0, dtype=m.complex128)),
    ('linalg.eig', lambda m, o: m.linalg.eig(m.tensor(A), out=o),
     lambda m: (m.empty(0, dtype=m.complex128), m.empty(0, dtype=m.complex128))),
    ('add', lambda m, o: m.add(m.tensor([1., 2.]), 1, out=o), lambda m: m.empty(0)),
    ('cat', lambda m, o: m.cat([m.ones(2), m.zeros(1)], out=o), lambda m: m.empty(0)),
    ('mm', lambda m, o: m.mm(m.tensor(A), m.tensor(A), out=o),
     lambda m: m.empty(0, dtype=m.float64)),
    ('sum', lambda m, o: m.sum(m.tensor(A), 0, out=o), lambda m: m.empty(0, dtype=m.float64)),
]


def _vals(r):
    if isinstance(r, tuple):
        return [_vals(x) for x in r]
    return (str(r.dtype), tuple(r.shape), np.round(r.numpy().astype(np.complex128), 6).tolist())


@pytest.mark.parametrize('name,call,make', CASES, ids=[c[0] for c in CASES])
def test_out_is_written_and_returned(name, call, make):
    res = {}
    for m in (torch, ember):
        o = make(m)
        r = call(m, o)
        outs = o if isinstance(o, tuple) else (o,)
        rs = tuple(r) if isinstance(r, tuple) else (r,)
        assert all(a is b for a, b in zip(rs, outs)), f"{m.__name__}: out not returned"
        res[m] = _vals(tuple(outs))
    if name.startswith(('linalg.svd', 'linalg.eig', 'linalg.qr', 'linalg.eigh')):
        # decompositions are unique up to signs/phases: compare dtypes and shapes
        assert [v[:2] for v in res[ember]] == [v[:2] for v in res[torch]]
    else:
        assert res[ember] == res[torch]


def _err(fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            fn()
        return 'ok', [str(x.message)[:60] for x in w]
    except Exception as e:   # noqa: BLE001
        return type(e).__name__, str(e)[:60]


@pytest.mark.parametrize('case', [
    lambda m: m.add(m.ones(2), 1.5, out=m.empty(2, dtype=m.int64)),        # category error
    lambda m: m.add(m.ones(2), 1, out=m.empty(3)),                         # resize warning
    lambda m: m.add(m.ones(2), 1, out=m.empty(0)),                         # silent resize
    lambda m: m.add(m.ones(2), 1, out=[1]),                                # not a tensor
    lambda m: m.add(m.ones(2, requires_grad=True), 1, out=m.empty(2)),     # autograd
    lambda m: m.mul(m.ones(2), 2, out=m.empty(2, dtype=m.float64)),        # widening ok
    lambda m: m.linalg.qr(m.eye(2), out=(m.empty(0),)),                    # wrong tuple size
    lambda m: m.exp(m.ones(2), out=m.empty(2, dtype=m.int32)),
    lambda m: m.arange(3, out=m.empty(2)),
])
def test_out_rules(case):
    e, t = _err(lambda: case(ember)), _err(lambda: case(torch))
    assert e[0] == t[0]
    if e[0] != 'ok':
        assert e[1][:30] == t[1][:30]
    else:
        assert len(e[1]) == len(t[1])


def test_out_bumps_version_and_keeps_identity():
    o = ember.empty(2)
    v = o._version
    r = ember.add(ember.ones(2), 1, out=o)
    assert r is o and o._version > v and o.tolist() == [2., 2.]


X = np.arange(12, dtype=np.float64).reshape(3, 4) % 5 + 0.5
REDUCTIONS = {
    'sum': (0,), 'mean': (0,), 'amax': (0,), 'amin': (1,), 'all': (0,), 'any': (1,),
    'cummax': (0,), 'cummin': (1,), 'cumprod': (0,), 'cumsum': (1,), 'logcumsumexp': (0,),
    'logsumexp': (1,), 'std': (0,), 'var': (1,), 'sort': (), 'topk': (2,), 'kthvalue': (2,),
    'mode': (), 'median': (0,), 'nanmedian': (1,), 'nanmean': (), 'nansum': (),
    'quantile': (0.5,), 'nanquantile': (0.25,), 'histc': (), 'argmax': (0,), 'argmin': (1,),
    'msort': (), 'diff': (),
}


@pytest.mark.parametrize('name', sorted(REDUCTIONS))
def test_reductions_and_scans_take_out(name):
    got = {}
    for m in (torch, ember):
        x = m.tensor(X)
        r = getattr(m, name)(x, *REDUCTIONS[name])
        rs = tuple(r) if isinstance(r, tuple) else (r,)
        outs = tuple(m.empty(0, dtype=t.dtype) for t in rs)
        r2 = getattr(m, name)(x, *REDUCTIONS[name], out=outs if isinstance(r, tuple) else outs[0])
        r2 = tuple(r2) if isinstance(r2, tuple) else (r2,)
        assert all(a is b for a, b in zip(r2, outs))
        got[m] = [_vals(o) for o in outs]
    assert got[ember] == got[torch]


# ------------------------------------------------------------------ named results with out=
from oracle import run_both, errors_both  # noqa: E402

_X3 = np.array([[1., 3., 2.], [4., 0., 5.], [2., 2., 1.]], dtype=np.float32)
NAMED_OUT = {
    'max': lambda m, x, o: m.max(x, 1, out=o),
    'max_keepdim': lambda m, x, o: m.max(x, dim=0, keepdim=True, out=o),
    'min': lambda m, x, o: m.min(x, 1, out=o),
    'sort': lambda m, x, o: m.sort(x, 1, out=o),
    'sort_desc': lambda m, x, o: m.sort(x, dim=0, descending=True, out=o),
    'topk': lambda m, x, o: m.topk(x, 2, out=o),
    'kthvalue': lambda m, x, o: m.kthvalue(x, 2, 1, out=o),
    'mode': lambda m, x, o: m.mode(x, 1, out=o),
    'median': lambda m, x, o: m.median(x, 1, out=o),
    'nanmedian': lambda m, x, o: m.nanmedian(x, 1, out=o),
    'cummax': lambda m, x, o: m.cummax(x, 1, out=o),
    'cummin': lambda m, x, o: m.cummin(x, 1, out=o),
}


@pytest.mark.parametrize('name', sorted(NAMED_OUT))
def test_named_tuple_out_filled(name):
    def f(m):
        x = m.tensor(_X3)
        o = (m.empty(0), m.empty(0, dtype=m.int64))
        r = NAMED_OUT[name](m, x, o)
        return (type(r).__name__, repr(r).replace('torch.', '').replace('ember.', ''),
                r[0] is o[0], r[1] is o[1], r.values is o[0], o)
    e, t = run_both(f)


@pytest.mark.parametrize('call', [
    lambda m, x: m.aminmax(x, dim=1, out=(m.empty(0), m.empty(0))),
    lambda m, x: m.frexp(x, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    lambda m, x: m.slogdet(x, out=(m.empty(0), m.empty(0))),
    lambda m, x: m.linalg.slogdet(x, out=(m.empty(0), m.empty(0))),
    lambda m, x: m.histogram(x, 3, out=(m.empty(0), m.empty(0))),
    lambda m, x: m.linalg.lu_factor(x, out=(m.empty(0), m.empty(0, dtype=m.int32))),
])
def test_other_named_out(call):
    def f(m):
        r = call(m, m.tensor(_X3))
        return type(r).__name__, tuple(r)
    run_both(f, rtol=1e-5, atol=1e-5)


def test_max_all_out():
    def f(m):
        o = m.empty(0)
        r = m.max(m.tensor(_X3), out=o)
        return r is o, o
    run_both(f)


def test_out_type_attribute():
    assert ember.return_types.max_out.__name__ == torch.return_types.max_out.__name__
    assert ember.return_types.sort_out._fields == ('values', 'indices')


@pytest.mark.parametrize('name', ['max', 'sort', 'topk', 'kthvalue', 'mode', 'median',
                                  'cummax'])
@pytest.mark.parametrize('dts', [('float64', 'int64'), ('float32', 'int32')])
def test_named_out_wrong_dtype(name, dts):
    def f(m):
        o = (m.empty(0, dtype=getattr(m, dts[0])), m.empty(0, dtype=getattr(m, dts[1])))
        NAMED_OUT[name](m, m.tensor(_X3), o)
    e, t = errors_both(f)
    if name in ('max', 'sort', 'topk'):
        assert str(e) == str(t)


@pytest.mark.parametrize('call', [
    lambda m, x: m.max(x, 1, out=m.empty(0)),
    lambda m, x: m.max(x, out=(m.empty(0),)),
])
def test_max_out_wrong_kind(call):
    errors_both(lambda m: call(m, m.tensor(_X3)), 'invalid combination of arguments')


# ------------------------------------------------------------------ out= sharing memory with inputs

def _overlap_cases(m):
    def t():
        return m.arange(6.)
    return {
        'add, out is an input': lambda: (lambda x: m.add(x, x, out=x))(t()),
        'add, partial': lambda: (lambda x: m.add(x[:3], 1, out=x[1:4]))(t()),
        'add, disjoint views': lambda: (lambda x: m.add(x[:3], x[3:], out=x[:3]))(t()),
        'exp, partial': lambda: (lambda x: m.exp(x[1:], out=x[:5]))(t()),
        'exp, out is the base': lambda: (lambda x: m.exp(x[1:], out=x))(t()),
        'atan2, partial': lambda: (lambda x: m.atan2(x[1:], x[:5], out=x[:5]))(t()),
        'clamp, partial': lambda: (lambda x: m.clamp(x[1:], 0, 1, out=x[:5]))(t()),
        'where, partial': lambda: (lambda x: m.where(x[1:] > 1, x[1:], x[:5], out=x[:5]))(t()),
        'lerp, partial': lambda: (lambda x: m.lerp(x[1:], x[:5], 0.5, out=x[:5]))(t()),
        'strided input (not checked)': lambda: (lambda x: m.add(x[::2], 1, out=x[:3]))(t()),
        'mm, out is an input (not checked)': lambda: (lambda x: m.mm(x, x, out=x))(m.ones(2, 2)),
        'sum into an element (not checked)': lambda: (lambda x: m.sum(x, 0, out=x[0]))(t()),
        'cat, any overlap': lambda: (lambda x: m.cat([x[:2], x[:2]], out=x[:4]))(t()),
        'cat, disjoint': lambda: (lambda x: m.cat([x[:2], x[:2]], out=x[2:6]))(t()),
        'cat, out is the input': lambda: (lambda x: m.cat([x], out=x))(t()),
        'stack, overlap': lambda: (lambda x: m.stack([x[:1], x[1:2]], out=x[:2].view(2, 1)))(t()),
        'index_select, out is the input': lambda: (lambda x: m.index_select(
            x, 0, m.tensor([0, 1, 2, 3, 4, 5]), out=x))(t()),
        'gather, overlap': lambda: (lambda x: m.gather(x, 0, m.tensor([1, 0]), out=x[:2]))(t()),
    }


def test_out_overlapping_inputs_as_torch():
    tc, ec = _overlap_cases(torch), _overlap_cases(ember)
    for name in tc:
        got = []
        for f in (tc[name], ec[name]):
            try:
                f()
                got.append('ok')
            except RuntimeError as e:
                assert 'refer to a single memory location' in str(e), (name, str(e))
                got.append('RuntimeError')
        assert got[0] == got[1], (name, got)


# ------------------------------------------------------------------ out= dtype rules per op family

def _dtype_cases(m):
    x = m.eye(3) + 0.1
    spd = x @ x.T
    v = m.ones(3)

    def o(*s, dtype=None):
        return m.zeros(*s, dtype=dtype or m.float64)
    LU, piv = m.linalg.lu_factor(x)
    return {
        # the very dtype, or torch's error
        'mm': lambda: m.mm(x, x, out=o(3, 3)),
        'bmm': lambda: m.bmm(x[None], x[None], out=o(1, 3, 3)),
        'matmul': lambda: m.matmul(x, x, out=o(3, 3)),
        'addmm': lambda: m.addmm(x, x, x, out=o(3, 3)),
        'baddbmm': lambda: m.baddbmm(x[None], x[None], x[None], out=o(1, 3, 3)),
        'mv': lambda: m.mv(x, v, out=o(3)),
        'dot': lambda: m.dot(v, v, out=o(())),
        'inv': lambda: m.linalg.inv(x, out=o(3, 3)),
        'det': lambda: m.linalg.det(x, out=o(())),
        'solve': lambda: m.linalg.solve(x, v, out=o(3)),
        'cholesky': lambda: m.linalg.cholesky(spd, out=o(3, 3)),
        'qr': lambda: m.linalg.qr(x, out=(o(3, 3), o(3, 3))),
        'slogdet': lambda: m.linalg.slogdet(x, out=(o(()), o(()))),
        'svdvals': lambda: m.linalg.svdvals(x, out=o(3)),
        'eigvalsh': lambda: m.linalg.eigvalsh(spd, out=o(3)),
        'vector_norm': lambda: m.linalg.vector_norm(v, out=o(())),
        'matrix_power': lambda: m.linalg.matrix_power(x, 2, out=o(3, 3)),
        'lu_solve': lambda: m.linalg.lu_solve(LU, piv, x, out=o(3, 3)),
        'solve_triangular': lambda: m.linalg.solve_triangular(x.triu(), x, upper=True,
                                                              out=o(3, 3)),
        'cross': lambda: m.linalg.cross(v, v, out=o(3)),
        'gather': lambda: m.gather(v, 0, m.tensor([0]), out=o(1)),
        'index_select': lambda: m.index_select(v, 0, m.tensor([0]), out=o(1)),
        'where': lambda: m.where(m.tensor([True]), v[:1], v[:1], out=o(1)),
        'softmax': lambda: m.softmax(v, 0, out=o(3)),
        'log_softmax': lambda: m.log_softmax(v, 0, out=o(3)),
        # these cast
        'pinv': lambda: m.linalg.pinv(x, out=o(3, 3)),
        'outer': lambda: m.outer(v, v, out=o(3, 3)),
        'kron': lambda: m.kron(x, x, out=o(9, 9)),
        'addr': lambda: m.addr(x, v, v, out=o(3, 3)),
        'cond': lambda: m.linalg.cond(x, out=o(())),
        'tensorinv': lambda: m.linalg.tensorinv(x, 1, out=o(3, 3)),
        'cholesky_inverse': lambda: m.cholesky_inverse(x, out=o(3, 3)),
        'matrix_rank into int32': lambda: m.linalg.matrix_rank(x, out=o((), dtype=m.int32)),
        'cat into float64': lambda: m.cat([v], out=o(3)),
        # compute in out's dtype
        'sum into int64': lambda: m.sum(v * 0.6, 0, out=o((), dtype=m.int64)),
        'cumsum into int64': lambda: m.cumsum(v * 0.6, 0, out=o(3, dtype=m.int64)),
        'prod into int64': lambda: m.prod(v * 1.5, 0, out=o((), dtype=m.int64)),
        'cumsum into float64': lambda: m.cumsum(v * 0.1, 0, out=o(3)),
        # refused
        'cat into int64': lambda: m.cat([v], out=o(3, dtype=m.int64)),
        'stack into int64': lambda: m.stack([v], out=o(1, 3, dtype=m.int64)),
        'exp into int64': lambda: m.exp(v, out=o(3, dtype=m.int64)),
    }


# same class, other words: torch's mv and dot check their out dtype inside the kernel
# (addmv's operand check, dot's result-dtype check, the triangular solve's scalar-type
# check); ember says the generic out= message
OTHER_WORDING = {'mv', 'dot', 'solve_triangular'}


def test_out_dtype_rules_as_torch():
    tc, ec = _dtype_cases(torch), _dtype_cases(ember)
    for name in tc:
        got = []
        for f in (tc[name], ec[name]):
            try:
                r = f()
                got.append(('ok', [t.tolist() for t in (r if isinstance(r, tuple) else (r,))]))
            except (RuntimeError, TypeError) as e:
                got.append((type(e).__name__, str(e).split('\n')[0]))
        assert got[0][0] == got[1][0], (name, got)
        if got[0][0] != 'ok':
            assert name in OTHER_WORDING or got[0][1] == got[1][1], (name, got)
        else:
            np.testing.assert_allclose(np.array(got[1][1][0], dtype=float),
                                       np.array(got[0][1][0], dtype=float), rtol=1e-5,
                                       err_msg=name)


@pytest.mark.parametrize('fn', [
    lambda m, o: m.add(m.ones(3), 1, out=o(3)),
    lambda m, o: m.gather(m.ones(6), 0, m.tensor([0, 1, 2]), out=o(3)),
    lambda m, o: m.index_select(m.ones(3, 6), 1, m.tensor([0, 1]), out=o(2, 6)),
    lambda m, o: m.take(m.ones(6), m.tensor([0, 1, 2]), out=o(3)),
    lambda m, o: m.masked_select(m.ones(6), m.ones(6, dtype=m.bool), out=o(6)),
    lambda m, o: m.bernoulli(m.ones(6) * 0.5, out=o(6)),
    lambda m, o: m.mm(m.ones(2, 2), m.ones(2, 2), out=o(2, 2)),
])
def test_out_with_internal_overlap(fn):
    # an expanded out (two elements, one memory location) is refused with torch's error
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match='more than one element of the written-to '
                                               'tensor refers to a single memory location'):
            fn(m, lambda *shape: m.zeros((1,) * len(shape)).expand(*shape))
