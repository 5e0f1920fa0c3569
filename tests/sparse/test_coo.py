"""Sparse COO tensors (ember/sparse/_coo.py, ember/sparse/__init__.py) against torch:
construction, accessors, printing, coalesce, to_dense/to_sparse, the sparse ops and their
gradients, and torch's errors (dense ops refuse sparse inputs)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from tests.oracle import errors_both, run_both, to_np

I2 = [[0, 1, 1, 0], [2, 0, 2, 2]]          # uncoalesced: (0, 2) twice
V2 = [3., 4., 5., 6.]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message='Sparse invariant checks')
        yield


def same_sparse(e, t):
    assert e.is_sparse and t.is_sparse
    assert e.layout is ember.sparse_coo and t.layout is torch.sparse_coo
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype)
    assert e.is_coalesced() == t.is_coalesced()
    assert (e._nnz(), e.sparse_dim(), e.dense_dim()) == (t._nnz(), t.sparse_dim(), t.dense_dim())
    np.testing.assert_array_equal(to_np(e._indices()), to_np(t._indices()))
    np.testing.assert_allclose(to_np(e._values().detach()), to_np(t._values().detach()),
                               rtol=1e-6, atol=1e-6)
    assert str(e._indices().dtype) == 'torch.int64'
    assert repr(e) == repr(t)


def both(fn):
    return fn(ember), fn(torch)


def mk(m, i=I2, v=V2, size=(2, 3), **kw):
    return m.sparse_coo_tensor(m.tensor(i), m.tensor(v, dtype=kw.pop('vdtype', None)), size,
                               **kw)


def test_construct_accessors_and_print():
    e, t = both(mk)
    same_sparse(e, t)
    assert e.is_sparse and not ember.ones(1).is_sparse
    assert isinstance(e, ember.Tensor)
    for f in (lambda s: s.to_dense(), lambda s: s.coalesce().indices(),
              lambda s: s.coalesce().values()):
        a, b = f(e), f(t)
        np.testing.assert_allclose(to_np(a), to_np(b))
        assert str(a.dtype) == str(b.dtype)
    same_sparse(e.coalesce(), t.coalesce())
    # inferred size, dense dims, int values, float64, requires_grad printing
    same_sparse(*both(lambda m: m.sparse_coo_tensor([[0, 3]], [1, 2])))
    same_sparse(*both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]),
                                                     m.tensor([[1., 2.], [3., 4.]]))))
    same_sparse(*both(lambda m: mk(m, vdtype=m.float64, requires_grad=True)))
    same_sparse(*both(lambda m: mk(m, dtype=m.float64)))
    same_sparse(*both(lambda m: m.sparse_coo_tensor(m.zeros(2, 0, dtype=m.int64),
                                                     m.zeros(0), (2, 3))))
    same_sparse(*both(lambda m: mk(m, i=[[0, 1], [1, 0]], v=[1., 2.], is_coalesced=True)))
    same_sparse(*both(lambda m: m.sparse_coo_tensor([[1]], [1.], (3,))))   # nnz 1: coalesced


def test_dense_members_and_to_sparse():
    x = np.array([[0., 2., 0.], [3., 0., 0.]], dtype=np.float32)
    for sd in (None, 1, 2):
        same_sparse(*both(lambda m: m.tensor(x).to_sparse(sd) if sd is not None
                          else m.tensor(x).to_sparse()))
    same_sparse(*both(lambda m: m.tensor(x).to_sparse(layout=m.sparse_coo)))
    run_both(lambda m: m.tensor(x).to_dense())
    run_both(lambda m: (m.ones(2, 3).sparse_dim(), m.ones(2, 3).dense_dim()))
    e = ember.tensor(x).to_sparse()
    assert e.to_sparse() is e
    errors_both(lambda m: m.ones(2, 3).is_coalesced(), match='is_coalesced expected sparse')
    errors_both(lambda m: m.ones(2, 3).indices(), match='indices expected sparse')
    errors_both(lambda m: m.ones(2, 3)._nnz(), match="Could not run 'aten::_nnz'")
    errors_both(lambda m: m.ones(2, 2).to_sparse(3),
                match='dense_to_sparse: sparse_dim argument must be in [0,2] range, but 3')
    errors_both(lambda m: m.ones(2, 2).to_sparse(0), match='must be in >0 when self.dim()>0')
    same_sparse(*both(lambda m: m.tensor(2.).to_sparse()))


def test_uncoalesced_accessors_raise():
    errors_both(lambda m: mk(m).indices(), match='Cannot get indices on an uncoalesced tensor')
    errors_both(lambda m: mk(m).values(), match='Cannot get values on an uncoalesced tensor')


def test_arith():
    same_sparse(*both(lambda m: mk(m) * 2))
    same_sparse(*both(lambda m: 2.5 * mk(m)))
    same_sparse(*both(lambda m: mk(m) / 2))
    same_sparse(*both(lambda m: -mk(m)))
    same_sparse(*both(lambda m: mk(m) + mk(m)))
    same_sparse(*both(lambda m: mk(m) - mk(m, v=[1., 1., 1., 1.])))
    same_sparse(*both(lambda m: mk(m).coalesce() + mk(m).coalesce()))
    same_sparse(*both(lambda m: mk(m).coalesce() + mk(m, i=[[1, 0], [1, 1]], v=[7., 8.])))
    same_sparse(*both(lambda m: m.add(mk(m), mk(m, i=[[1, 1], [2, 0]], v=[1., 2.]), alpha=3)))
    run_both(lambda m: m.ones(2, 3) + mk(m))
    same_sparse(*both(lambda m: mk(m).double()))
    same_sparse(*both(lambda m: mk(m).to(m.float64)))
    same_sparse(*both(lambda m: mk(m).clone()))
    errors_both(lambda m: mk(m) + m.ones(2, 3), match='add(sparse, dense) is not supported')
    errors_both(lambda m: mk(m) + mk(m, size=(3, 3)), match="add: expected sizes of 'self'")


def test_mm_sum():
    d = np.arange(6, dtype=np.float32).reshape(3, 2)
    run_both(lambda m: m.sparse.mm(mk(m), m.tensor(d)))
    run_both(lambda m: m.mm(mk(m), m.tensor(d)))
    run_both(lambda m: mk(m) @ m.tensor(d))
    run_both(lambda m: m.mm(m.tensor(d.T.copy()), mk(m, size=(2, 3)).to_dense().T.to_sparse()))
    run_both(lambda m: m.sparse.addmm(m.ones(2, 2), mk(m), m.tensor(d), beta=2, alpha=3))
    run_both(lambda m: m.sparse.sum(mk(m)))
    run_both(lambda m: m.sparse.sum(mk(m), (0, 1)))
    run_both(lambda m: m.sparse.sum(mk(m), dtype=m.float64))
    run_both(lambda m: mk(m).sum())
    for dim in (0, 1, -1):
        same_sparse(*both(lambda m: m.sparse.sum(mk(m), dim)))
    same_sparse(*both(lambda m: m.sum(mk(m), 0)))
    s3 = lambda m: m.sparse_coo_tensor(m.tensor([[0, 1, 0]]),  # noqa: E731
                                       m.tensor([[1., 2.], [3., 4.], [5., 6.]]), (2, 2))
    same_sparse(*both(lambda m: m.sparse.sum(s3(m), 0 + 1)))
    run_both(lambda m: m.sparse.sum(s3(m), 0))
    errors_both(lambda m: m.sparse.mm(mk(m), m.ones(2, 2)),
                match='addmm: Argument #3 (dense): Expected dim 0 size 3, got 2')
    errors_both(lambda m: m.sparse.sum(mk(m), 5), match='Dimension out of range')


def test_grads():
    rng = np.random.default_rng(0)
    d = rng.standard_normal((3, 2))
    g = rng.standard_normal((2, 2))
    res = {}
    for m in (ember, torch):
        v = m.tensor(V2, dtype=m.float64, requires_grad=True)
        D = m.tensor(d, requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor(I2), v, (2, 3))
        (m.sparse.mm(s, D) * m.tensor(g)).sum().backward()
        res[m.__name__] = (to_np(v.grad), to_np(D.grad))
    for a, b in zip(res['ember'], res['torch']):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # to_dense, sparse * scalar, sparse + sparse back to the values; a sparse leaf's grad
    r = rng.standard_normal((2, 3))
    out = {}
    for m in (ember, torch):
        v = m.tensor(V2, dtype=m.float64, requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor(I2), v, (2, 3))
        ((s * 3 + s).to_dense() * m.tensor(r)).sum().backward()
        leaf = m.sparse_coo_tensor(m.tensor(I2), m.tensor(V2, dtype=m.float64), (2, 3),
                                   requires_grad=True)
        (leaf.to_dense() * m.tensor(r)).sum().backward()
        x = m.tensor(r, requires_grad=True)
        (x.to_sparse().to_dense() * 2).sum().backward()
        out[m.__name__] = (to_np(v.grad), leaf.grad, to_np(x.grad))
    np.testing.assert_allclose(out['ember'][0], out['torch'][0], rtol=1e-12)
    same_sparse(out['ember'][1], out['torch'][1])
    np.testing.assert_allclose(out['ember'][2], out['torch'][2])


def test_gradcheck():
    D = ember.tensor(np.random.default_rng(1).standard_normal((3, 2)), requires_grad=True)
    v = ember.tensor(V2, dtype=ember.float64, requires_grad=True)
    i = ember.tensor(I2)
    f = lambda v, D: ember.sparse.mm(ember.sparse_coo_tensor(i, v, (2, 3)), D)  # noqa: E731
    assert ember.autograd.gradcheck(f, (v, D))
    g = lambda v: ember.sparse.sum(  # noqa: E731
        ember.sparse_coo_tensor(i, v, (2, 3)).coalesce() * 2, 1).to_dense()
    assert ember.autograd.gradcheck(g, (v,))


def test_construction_errors():
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 5]]), m.tensor([1., 2.]), (3,),
                                              check_invariants=True),
                match='size is inconsistent with indices: for dim 0, size is 3 but found '
                      'index 5')
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, -1]]), m.tensor([1., 2.]), (3,),
                                              check_invariants=True),
                match='found negative index -1 for dim 0')
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1., 2., 3.]),
                                              (3,)),
                match='indices and values must have same nnz, but got nnz from indices: 2, '
                      'nnz from values: 3')
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([[1., 2.],
                                              [3., 4.]]), (3, 3)),
                match='values has incorrect size, expected [2, 3], got [2, 2]')
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1, 2]), (3,),
                                              requires_grad=True),
                match='Only Tensors of floating point and complex dtype can require gradients')
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1., 2.]), (3, 3)),
                match='')
    # not checked by default (torch's default too): out-of-bounds indices are kept
    same_sparse(*both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 5]]), m.tensor([1., 2.]),
                                                     (3,))))


def test_dense_ops_refuse_sparse():
    errors_both(lambda m: m.exp(mk(m)), match="Could not run 'aten::exp' with arguments from "
                                              "the 'SparseCPU' backend")
    errors_both(lambda m: mk(m).view(6), match="with arguments from the 'SparseCPU' backend")
    errors_both(lambda m: m.softmax(mk(m), 0), match="the 'SparseCPU' backend")
    errors_both(lambda m: mk(m).numpy(), match="can't convert Sparse layout tensor to numpy")
    errors_both(lambda m: mk(m).data_ptr(), match="Cannot access data pointer")
    errors_both(lambda m: mk(m).untyped_storage(), match="Cannot access storage of "
                                                         "SparseTensorImpl")
    assert mk(ember).size() == torch.Size([2, 3]) and mk(ember).dim() == 2
    assert mk(ember).is_contiguous() is False


def test_transpose_add_inplace_deepcopy_to():
    import copy
    same_sparse(*both(lambda m: mk(m).coalesce().t()))
    same_sparse(*both(lambda m: mk(m).transpose(0, 1)))
    errors_both(lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]),
                                              m.tensor([[1., 2.], [3., 4.]]),
                                              (2, 2)).transpose(0, 1),
                match='sparse transpose: transposed dimensions must be sparse')
    run_both(lambda m: m.zeros(2, 3).add_(mk(m), alpha=2))
    same_sparse(*both(lambda m: copy.deepcopy(mk(m).coalesce())))
    same_sparse(*both(lambda m: mk(m).to('cpu')))
    same_sparse(*both(lambda m: mk(m).to(m.float64)))


def test_embedding_sparse_grad_and_optimizers():
    res = {}
    for m in (torch, ember):
        m.manual_seed(0)
        e = m.nn.Embedding(5, 2, sparse=True, padding_idx=1)
        (e(m.tensor([[0, 1, 3], [3, 4, 0]])) * m.arange(6.).reshape(2, 3, 1)).sum().backward()
        g1 = e.weight.grad
        e(m.tensor([2])).sum().backward()            # accumulates: torch's merge order
        g2 = e.weight.grad
        m.optim.SGD(e.parameters(), lr=0.1).step()
        w1 = to_np(e.weight).copy()
        opt = m.optim.SparseAdam(e.parameters(), lr=0.1)
        opt.step()
        w2 = to_np(e.weight)
        opt.zero_grad(set_to_none=False)
        res[m.__name__] = (g1, g2, w1, w2, e.weight.grad)
    for a, b in zip(res['ember'], res['torch']):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:
            same_sparse(a, b)
    errors_both(lambda m: m.nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True)(
        m.tensor([1, 1])).sum().backward(), match='scale_grad_by_freq not supported with sparse')


def test_softmax_log_softmax():
    s3 = lambda m: m.sparse_coo_tensor(m.tensor([[0, 1, 0]]),  # noqa: E731
                                       m.tensor([[1., 2.], [3., 4.], [5., 6.]]), (2, 2))
    for f in ('softmax', 'log_softmax'):
        for dim in (0, 1, -1):
            same_sparse(*both(lambda m: getattr(m.sparse, f)(mk(m), dim)))
        for dim in (0, 1):
            same_sparse(*both(lambda m: getattr(m.sparse, f)(s3(m), dim)))
        same_sparse(*both(lambda m: getattr(m.sparse, f)(mk(m), 1, dtype=m.float64)))
    r = np.arange(6.).reshape(2, 3)
    grads = []
    for m in (ember, torch):
        v = m.tensor(V2, dtype=m.float64, requires_grad=True)
        s = m.sparse_coo_tensor(m.tensor(I2), v, (2, 3))
        ((m.sparse.softmax(s, 1).to_dense() + m.sparse.log_softmax(s, 0).to_dense()) *
         m.tensor(r)).sum().backward()
        grads.append(to_np(v.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)
    v = ember.tensor(V2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.sparse.log_softmax(
        ember.sparse_coo_tensor(ember.tensor(I2), v, (2, 3)), 0)._values(), (v,))


def test_pickle_round_trip_stays_sparse():
    import pickle
    s = ember.sparse_coo_tensor([[0, 1, 0]], [1., 2., 3.], (3,))
    r = pickle.loads(pickle.dumps(s))
    assert r.is_sparse and repr(r) == repr(s) and not r.is_coalesced()
    del s
    with pytest.raises(NotImplementedError, match="'SparseCPU' backend"):
        ember.exp(r)
