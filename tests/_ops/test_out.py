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
