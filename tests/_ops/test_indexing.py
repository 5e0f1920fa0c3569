"""Tests of ember/_ops/indexing.py against torch: __getitem__/__setitem__, gather/scatter,
index_* ops, masked ops, take/put, where, nonzero, fill_/zero_."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck_ember, rand

X = rand(3, 4, 5, dtype=np.float64, seed=1)
MASK34 = rand(3, 4, dtype=bool, seed=2)
MASK3 = np.array([True, False, True])


def _chain(t):
    """grad_fn class names from the output back to the leaf."""
    r = []
    f = t.grad_fn
    while f is not None and type(f).__name__ != 'AccumulateGrad':
        r.append(type(f).__name__)
        f = f.next_functions[0][0] if f.next_functions else None
    return r


# ------------------------------------------------------------------ getitem: basic (views)
BASIC = [
    lambda m, x: x[0],
    lambda m, x: x[-1],
    lambda m, x: x[1:],
    lambda m, x: x[-2:],
    lambda m, x: x[:-1],
    lambda m, x: x[-10:2],
    lambda m, x: x[:5],
    lambda m, x: x[::2],
    lambda m, x: x[:, 1:4:2],
    lambda m, x: x[None],
    lambda m, x: x[..., 0],
    lambda m, x: x[0, ...],
    lambda m, x: x[...],
    lambda m, x: x[:],
    lambda m, x: x[:, :],
    lambda m, x: x[0, 1],
    lambda m, x: x[0, 1, 2],
    lambda m, x: x[0:2, None, 1],
    lambda m, x: x[1, ..., None],
    lambda m, x: x[None, None],
    lambda m, x: x[..., None],
    lambda m, x: x[:, 0],
    lambda m, x: x[0, :, 1],
    lambda m, x: x[(0,)],
    lambda m, x: x[m.tensor(1)],
    lambda m, x: x[2:1],
    lambda m, x: x[:, 3:1],
    lambda m, x: x[np.int64(1)],
    lambda m, x: x[1:3, 2:, ::3],
]


@pytest.mark.parametrize('fn', BASIC, ids=range(len(BASIC)))
def test_getitem_basic(fn):
    re, rt = check(fn, [X], grad=True)
    assert _chain(re) == [type(f).__name__ for f in [rt.grad_fn]] or \
        _chain(re) == _torch_chain(rt)


def _torch_chain(t):
    r = []
    f = t.grad_fn
    while f is not None and type(f).__name__ != 'AccumulateGrad':
        r.append(type(f).__name__)
        f = f.next_functions[0][0]
    return r


@pytest.mark.parametrize('fn', BASIC, ids=range(len(BASIC)))
def test_getitem_basic_grad_fn_chain(fn):
    xe = ember.from_numpy(X.copy()).requires_grad_()
    xt = torch.from_numpy(X.copy()).requires_grad_()
    assert _chain(fn(ember, xe)) == _torch_chain(fn(torch, xt))


@pytest.mark.parametrize('fn', BASIC, ids=range(len(BASIC)))
def test_getitem_basic_is_view(fn):
    x = ember.from_numpy(X.copy())
    y = fn(ember, x)
    assert y._base is x
    if y.numel():
        y.fill_(123.)      # writes through the view
        assert (x.numpy() == 123.).sum() == y.numel()
        assert x._version > 0


def test_getitem_0dim():
    check(lambda m, x: x[None], [np.array(5.)], grad=True)
    check(lambda m, x: x[...], [np.array(5.)], grad=True)
    check(lambda m, x: x[True], [np.array(5.)], grad=True)
    check(lambda m, x: x[False], [np.array(5.)], grad=True)
    check_error(lambda m, x: x[0], [np.array(5.)], match="invalid index of a 0-dim tensor")


def test_getitem_empty():
    e = np.zeros((0, 3))
    check(lambda m, x: x[:, 1], [e], grad=True)
    check(lambda m, x: x[m.tensor([], dtype=m.int64)], [e], grad=True)
    check(lambda m, x: x[1:, [0, 2]], [e], grad=True)


# ------------------------------------------------------------------ getitem: advanced
ADV = [
    lambda m, x: x[[0, 2]],
    lambda m, x: x[[0]],
    lambda m, x: x[[-1, 0, 0]],
    lambda m, x: x[m.tensor([0, 2, 0])],
    lambda m, x: x[m.tensor([[0, 1], [2, 2]])],
    lambda m, x: x[m.tensor([0, 1], dtype=m.int32)],
    lambda m, x: x[0, [1, 2]],
    lambda m, x: x[:, [0, 1], [1, 2]],
    lambda m, x: x[[0, 1], :, [1, 2]],
    lambda m, x: x[[0, 1], 1:3],
    lambda m, x: x[1:2, [0, 1]],
    lambda m, x: x[0, :, [1, 2]],
    lambda m, x: x[None, [0, 1]],
    lambda m, x: x[[0, 1], None],
    lambda m, x: x[[0, 1], None, [0, 1]],
    lambda m, x: x[:, :, [1]],
    lambda m, x: x[..., [4, 0]],
    lambda m, x: x[m.tensor([[0], [2]]), m.tensor([1, 3])],
    lambda m, x: x[True],
    lambda m, x: x[False],
    lambda m, x: x[m.tensor(True)],
    lambda m, x: x[[True, False, True]],
    lambda m, x: x[m.tensor([True, False, True])],
    lambda m, x: x[1, m.tensor([True, False, True, True])],
    lambda m, x: x[:, m.tensor([True, False, True, True]), 2:],
]


@pytest.mark.parametrize('fn', ADV, ids=range(len(ADV)))
def test_getitem_advanced(fn):
    re, rt = check(fn, [X], grad=True)
    assert re._base is None
    assert type(re.grad_fn).__name__ == type(rt.grad_fn).__name__ == 'IndexBackward0'


@pytest.mark.parametrize('fn', ADV[:12], ids=range(12))
def test_getitem_advanced_chain(fn):
    xe = ember.from_numpy(X.copy()).requires_grad_()
    xt = torch.from_numpy(X.copy()).requires_grad_()
    assert _chain(fn(ember, xe)) == _torch_chain(fn(torch, xt))


def test_getitem_mask_tensor():
    check(lambda m, x, k: x[k], [X, MASK34], grad=True)
    check(lambda m, x, k: x[k, 1:], [X, MASK34], grad=True)
    check(lambda m, x, k: x[k], [X, MASK3], grad=True)
    check(lambda m, x, k: x[:, :, 2][k], [X, MASK34], grad=True)
    check(lambda m, x: x[m.from_numpy(X > 0)], [X], grad=True)


def test_getitem_int_dtypes_and_values():
    for dt in (np.int64, np.int32, np.uint8, np.bool_, np.float32):
        a = rand(4, 3, dtype=dt, seed=3, low=0, high=9)
        check(lambda m, x: x[[1, 3], 1:], [a])
        check(lambda m, x: x[1], [a])


GETITEM_ERRORS = [
    (lambda m, x: x[5], "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda m, x: x[-4], "index -4 is out of bounds for dimension 0 with size 3"),
    (lambda m, x: x[0, 7], "index 7 is out of bounds for dimension 1 with size 4"),
    (lambda m, x: x[[5]], "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda m, x: x[:, [0, 9]], "index 9 is out of bounds for dimension 1 with size 4"),
    (lambda m, x: x[m.tensor([1.])], "tensors used as indices must be long, int, byte or bool"),
    (lambda m, x: x[::-1], "step must be greater than zero"),
    (lambda m, x: x[:, ::-2], "step must be greater than zero"),
    (lambda m, x: x[0, 0, 0, 0], "too many indices for tensor of dimension 3"),
    (lambda m, x: x[m.tensor([True, False])], "The shape of the mask [2] at index 0 does not match"),
    (lambda m, x: x[1.5], "only integers, slices"),
    (lambda m, x: x[m.tensor([[0, 1], [1, 2]]), m.tensor([0, 1, 2])],
     "shape mismatch: indexing tensors could not be broadcast together"),
]


@pytest.mark.parametrize('fn,match', GETITEM_ERRORS, ids=range(len(GETITEM_ERRORS)))
def test_getitem_errors(fn, match):
    check_error(fn, [X], match=match)


# ------------------------------------------------------------------ setitem
def _set(idx, val_is_tensor=True):
    def f(m, x, z):
        y = x.clone()
        y[idx(m) if callable(idx) else idx] = z if val_is_tensor else 2.5
        return y
    return f


SETITEM = [
    (0, (5,)), (0, (4, 5)), (0, (1, 4, 5)), (-1, (4, 1)), (slice(1, None), (5,)),
    ((slice(None), 1), (3, 5)), ((0, 1), ()), ((Ellipsis, 0), (3, 4)), (Ellipsis, (5,)),
    ((slice(None), slice(1, 3)), (1, 5)), ((None, 0), (5,)), (slice(0, 3, 2), (1, 1, 5)),
    ([0, 2], (5,)), ([0, 2], (2, 4, 5)), ((0, [1, 3]), (2, 5)), ((slice(None), [0, 1], [1, 2]), (3, 2)),
    ((slice(1, None), [0]), (5,)), ((lambda m: m.tensor([True, False, True])), (5,)),
    ((lambda m: (m.tensor([0, 0, 1]), m.tensor([1, 2, 1]))), (3, 5)),
]


@pytest.mark.parametrize('idx,vshape', SETITEM, ids=range(len(SETITEM)))
def test_setitem_autograd(idx, vshape):
    z = rand(*vshape, dtype=np.float64, seed=5) if vshape else np.array(1.5)
    re, rt = check(_set(idx), [X, z], grad=True)
    assert type(re.grad_fn).__name__ == type(rt.grad_fn).__name__


@pytest.mark.parametrize('idx,vshape', SETITEM, ids=range(len(SETITEM)))
def test_setitem_scalar(idx, vshape):
    re, rt = check(_set(idx, False), [X, np.array(0.)], grad=True)
    assert type(re.grad_fn).__name__ == type(rt.grad_fn).__name__


def test_setitem_mask():
    check(lambda m, x, k: _setmask(x.clone(), k, 0.), [X, MASK34], grad=True)
    check(lambda m, x, k, z: _setmask(x.clone(), k, z), [X, MASK34, np.array(3.)], grad=True)


def _setmask(y, k, v):
    y[k] = v
    return y


def test_setitem_inplace_through_view():
    def f(m, x):
        y = x.clone()
        y[:, 1].mul_(2)
        y[0, 1:3].add_(y[1, 1:3])
        return y * y
    check(f, [X], grad=True)


def test_setitem_cast_and_broadcast():
    a = np.arange(12).reshape(3, 4)

    def f(m, x):
        x[0] = 2.7
        x[[1]] = 3.9
        x[2, 1:] = m.tensor([1.5, 2.5, 3.5])
        x[:, 0] = m.tensor(9, dtype=m.int32)
        return x
    check(f, [a])

    def g(m, x):
        x[1] = m.tensor([[5.5]], dtype=m.float64)
        x[m.tensor([True, False, True])] = 7
        return x
    check(g, [X.astype(np.float32)])


def test_setitem_grad_value_into_plain_tensor():
    def f(m, z):
        y = m.zeros(3, 4, dtype=m.float64)
        y[0] = z
        y[[1, 2], 1:3] = z[:2] * 2
        return y
    re, rt = check(f, [rand(4, dtype=np.float64, seed=1)], grad=True)
    assert type(re.grad_fn).__name__ == type(rt.grad_fn).__name__


def test_setitem_transposed_and_nested_views():
    def f(m, x, z):
        y = x.clone().transpose(0, 1)       # (4, 3, 5), not contiguous
        y[1:, [0, 2]] = z
        v = y[2]
        v[:, 1:4:2] = 0.
        v[0].mul_(3)
        return y
    check(f, [X, rand(5, dtype=np.float64, seed=2)], grad=True)


def test_list_index_read_as_tuple():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for i in ([[0, 1], [1, 2]], [0, slice(1, 3)], [None, 0], [[True, False, True]], [2, 0]):
            check(lambda m, x: x[i], [X], grad=True)

            def f(m, x):
                y = x.clone()
                y[i] = 4.
                return y
            check(f, [X], grad=True)


def test_setitem_shares_memory_and_version():
    x = ember.zeros(3, 4)
    v = x[1]
    x[1, 2] = 5.
    assert v[2].item() == 5.
    assert x._version >= 1
    x[[0, 2]] = 1.
    assert x.sum().item() == 13.


def test_setitem_errors():
    check_error(lambda m, x: x.__setitem__(0, m.ones(3)), [X.copy()])
    check_error(lambda m, x: x.__setitem__([0], m.ones(2, 3)), [X.copy()], match="shape mismatch")
    check_error(lambda m, x: x.__setitem__(5, 1.), [X.copy()], match="index 5 is out of bounds")
    xe = ember.ones(2, requires_grad=True)
    xt = torch.ones(2, requires_grad=True)
    for mod, x in ((ember, xe), (torch, xt)):
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            x[0] = 1.
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            x[[0]] = 1.


def test_setitem_no_grad_leaf_ok():
    x = ember.ones(3, requires_grad=True)
    with ember.no_grad():
        x[0] = 5.
        x[[1]] = 4.
    assert x.tolist() == [5., 4., 1.]


# ------------------------------------------------------------------ fill_ / zero_
def test_fill_zero():
    def f(m, x, v):
        y = x * 1
        y[0].fill_(2.)
        y[1].fill_(v)
        y[2, :2].zero_()
        return y
    re, rt = check(f, [X, np.array(3.)], grad=True)
    check(lambda m, x: x.clone().fill_(1.), [X], grad=True)
    check(lambda m, x, v: x.clone().fill_(v), [X, np.array(3.)], grad=True)
    check(lambda m, x: x.clone().zero_(), [X], grad=True)
    check(lambda m, x: x.fill_(2.7), [np.arange(3)])
    check(lambda m, x: x.fill_(True), [np.zeros(3)])
    check(lambda m, x: x.zero_(), [np.arange(3)])
    for fn, name in ((lambda m, x: x.clone().fill_(1.), 'FillBackward2'),
                     (lambda m, x: x.clone().zero_(), 'ZeroBackward0')):
        assert type(fn(ember, ember.ones(2, requires_grad=True)).grad_fn).__name__ == name
    check_error(lambda m, x: x.fill_(m.ones(2)), [X.copy()], match="fill_ only supports 0-dimension")
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ember.ones(2, requires_grad=True).fill_(1.)


# ------------------------------------------------------------------ gather / scatter
IX = np.array([[0, 1, 2, 0], [2, 0, 0, 1]])          # dim 0 into (3, 4)
IX1 = np.array([[3, 0], [1, 1], [2, 3]])              # dim 1 into (3, 4)
A = rand(3, 4, dtype=np.float64, seed=7)


@pytest.mark.parametrize('dim,ix', [(0, IX), (1, IX1), (-1, IX1), (0, IX[:1, :2])])
def test_gather(dim, ix):
    re, rt = check(lambda m, x, i: m.gather(x, dim, i), [A, ix], grad=True)
    assert type(re.grad_fn).__name__ == 'GatherBackward0'
    check(lambda m, x, i: x.gather(dim, i.int()), [A.astype(np.float32), ix])


def test_gather_seed_formulas():
    """out[i][j][k] = input[index[i][j][k]][j][k] (dim 0), and likewise for dims 1, 2."""
    x = rand(3, 4, 5, dtype=np.float64, seed=8)
    rng = np.random.default_rng(0)
    for dim in range(3):
        ix = rng.integers(0, x.shape[dim], (2, 3, 4))
        out = ember.gather(ember.from_numpy(x), dim, ember.from_numpy(ix)).numpy()
        for i, j, k in np.ndindex(*ix.shape):
            src = [i, j, k]
            src[dim] = ix[i, j, k]
            assert out[i, j, k] == x[tuple(src)]
        check(lambda m, a, b: m.gather(a, dim, b), [x, ix], grad=True)


def test_gather_0dim_and_empty():
    check(lambda m, x, i: m.gather(x, 0, i), [np.array(5.), np.array(0)], grad=True)
    check(lambda m, x, i: m.gather(x, 1, i), [A, np.zeros((3, 0), np.int64)], grad=True)


@pytest.mark.parametrize('fn,match', [
    (lambda m, x: x.gather(0, m.tensor([[5]])), "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda m, x: x.gather(0, m.tensor([[-1]])), "out of bounds"),
    (lambda m, x: x.gather(0, m.tensor([0])), "same number of dimensions"),
    (lambda m, x: x.gather(0, m.tensor([[0, 0, 0, 0, 0]])), "Size does not match at dimension 1"),
    (lambda m, x: x.gather(0, m.tensor([[0.]])), None),
    (lambda m, x: x.gather(2, m.tensor([[0]])), "Dimension out of range"),
])
def test_gather_errors(fn, match):
    check_error(fn, [A], match=match)


SRC = rand(2, 4, dtype=np.float64, seed=9)
IXU = np.array([[0, 1, 2, 0], [2, 0, 1, 1]])          # unique per column
IXU1 = np.array([[3, 0], [1, 2], [2, 3]])             # unique per row


@pytest.mark.parametrize('dim,ix,src', [(0, IXU, SRC), (1, IXU1, rand(3, 2, dtype=np.float64)),
                                        (0, IXU[:1], SRC[:1])])
def test_scatter(dim, ix, src):
    re, rt = check(lambda m, x, i, s: x.scatter(dim, i, s), [A, ix, src], grad=True)
    assert type(re.grad_fn).__name__ == 'ScatterBackward0'
    re, rt = check(lambda m, x, i: m.scatter(x, dim, i, 2.5), [A, ix], grad=True)
    assert type(re.grad_fn).__name__ == 'ScatterBackward1'
    check(lambda m, x, i: x.scatter(dim, i, value=-1.), [A, ix], grad=True)
    check(lambda m, x, i, s: x.clone().scatter_(dim, i, s), [A, ix, src], grad=True)
    check(lambda m, x, i, s: m.scatter_add(x, dim, i, s), [A, ix, src], grad=True)


def test_scatter_src_larger_than_index():
    check(lambda m, x, i, s: x.scatter(0, i, s), [A, IXU[:1, :2], rand(3, 5, dtype=np.float64, seed=1)])
    check(lambda m, x, i, s: x.scatter_add(0, i, s), [A, IX[:, :3], rand(3, 5, dtype=np.float64, seed=1)])


def test_scatter_add_duplicates():
    re, rt = check(lambda m, x, i, s: x.scatter_add(0, i, s), [A, IX, SRC], grad=True)
    assert type(re.grad_fn).__name__ == 'ScatterAddBackward0'
    check(lambda m, x, i, s: x.clone().scatter_add_(0, i, s), [A, IX, SRC], grad=True)
    check(lambda m, x, i, s: x.scatter_add(1, i, s), [np.zeros((2, 3), np.int64),
                                                       np.array([[0, 0, 2], [1, 1, 1]]),
                                                       np.arange(6).reshape(2, 3)])


@pytest.mark.parametrize('reduce', ['add', 'multiply'])
def test_scatter_reduce_arg(reduce):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda m, x, i, s: x.scatter(0, i, s, reduce=reduce), [A, IX, SRC])
        check(lambda m, x, i: x.scatter(0, i, 2., reduce=reduce), [A, IX])
        y = ember.from_numpy(A.copy()).requires_grad_().scatter(0, ember.from_numpy(IX), 2.,
                                                                reduce=reduce)
    assert type(y.grad_fn).__name__ == 'NotImplemented'
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


@pytest.mark.parametrize('fn,match', [
    (lambda m, x: x.scatter(0, m.tensor([[5]]), 1.), "index 5 is out of bounds"),
    (lambda m, x: x.scatter(0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)), "Expected self.dtype"),
    (lambda m, x: x.scatter(0, m.tensor([[0]]), 1., reduce='foo'), "reduce argument must be"),
    (lambda m, x: x.scatter(0, m.tensor([0]), 1.), "same number of dimensions"),
    (lambda m, x: x.scatter_add(0, m.tensor([[0, 0, 0, 0, 0]]), m.ones(1, 5)), "to be no larger than self"),
    (lambda m, x: x.scatter_add(0, m.tensor([[0, 0]]), m.ones(1, 1)), None),
    (lambda m, x: x.scatter_reduce(0, m.tensor([[0]]), x, 'foo'), "reduce argument must be either sum"),
])
def test_scatter_errors(fn, match):
    check_error(fn, [A.astype(np.float32)], match=match)


@pytest.mark.parametrize('reduce', ['sum', 'prod', 'mean', 'amax', 'amin'])
@pytest.mark.parametrize('include_self', [True, False])
def test_scatter_reduce(reduce, include_self):
    re, rt = check(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
                   [A, IX, SRC], grad=True)
    assert type(re.grad_fn).__name__ == 'ScatterReduceBackward0'
    check(lambda m, x, i, s: x.scatter_reduce(1, i, s, reduce, include_self=include_self),
          [A, IX1, rand(3, 2, dtype=np.float64, seed=4)], grad=True)
    check(lambda m, x, i, s: x.clone().scatter_reduce_(0, i, s, reduce, include_self=include_self),
          [A, IX, SRC], grad=True)
    ai = np.arange(12).reshape(3, 4) - 5
    check(lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, reduce, include_self=include_self),
          [ai, IX, np.arange(8).reshape(2, 4) - 3])


def test_scatter_reduce_prod_zeros():
    x = np.array([2., 0., 3., 4.])
    ix = np.array([0, 0, 1, 1, 2, 3, 3])
    s = np.array([0., 5., 6., 7., 0., 0., 0.])
    for inc in (True, False):
        check(lambda m, a, i, b: a.scatter_reduce(0, i, b, 'prod', include_self=inc),
              [x, ix, s], grad=True)


# ------------------------------------------------------------------ index_select / add / copy / fill
IDX = np.array([2, 0, 2])


@pytest.mark.parametrize('dim', [0, 1, -1])
def test_index_select(dim):
    re, rt = check(lambda m, x, i: m.index_select(x, dim, i), [A, IDX], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexSelectBackward0'
    check(lambda m, x, i: x.index_select(dim, i.int()), [A, IDX])
    check(lambda m, x, i: x.index_select(dim, i), [A, np.array(1)], grad=True)
    check(lambda m, x, i: x.index_select(dim, i), [A, np.zeros(0, np.int64)], grad=True)


def test_index_select_0dim():
    check(lambda m, x, i: x.index_select(0, i), [np.array(5.), np.array([0])], grad=True)


@pytest.mark.parametrize('fn,match', [
    (lambda m, x: x.index_select(0, m.tensor([5])), "index out of range in self"),
    (lambda m, x: x.index_select(0, m.tensor([-1])), "index out of range in self"),
    (lambda m, x: x.index_select(0, m.tensor([0.])), "Expected dtype int32 or int64 for index"),
    (lambda m, x: x.index_select(0, m.tensor([[0]])), "Index is supposed to be a vector"),
])
def test_index_select_errors(fn, match):
    check_error(fn, [A], match=match)


@pytest.mark.parametrize('dim', [0, 1])
@pytest.mark.parametrize('alpha', [1, 2.5])
def test_index_add(dim, alpha):
    src = rand(*(3, 4)[:dim], 3, *(3, 4)[dim + 1:], dtype=np.float64, seed=11)
    re, rt = check(lambda m, x, i, s: x.index_add(dim, i, s, alpha=alpha), [A, IDX, src], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexAddBackward0'
    check(lambda m, x, i, s: x.clone().index_add_(dim, i, s, alpha=alpha), [A, IDX, src], grad=True)
    check(lambda m, x, i, s: m.index_add(x, dim, i, s), [np.arange(12).reshape(3, 4), IDX,
                                                         np.ones(src.shape, np.int64)])


@pytest.mark.parametrize('dim', [0, 1])
def test_index_copy_fill(dim):
    src = rand(*(3, 4)[:dim], 2, *(3, 4)[dim + 1:], dtype=np.float64, seed=12)
    i2 = np.array([2, 0])
    re, rt = check(lambda m, x, i, s: x.index_copy(dim, i, s), [A, i2, src], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexCopyBackward0'
    check(lambda m, x, i, s: x.clone().index_copy_(dim, i, s), [A, i2, src], grad=True)
    re, rt = check(lambda m, x, i: x.index_fill(dim, i, -1.), [A, IDX], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexFillBackward0'
    re, rt = check(lambda m, x, i, v: x.index_fill(dim, i, v), [A, IDX, np.array(4.)], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexFillBackward1'
    check(lambda m, x, i: x.clone().index_fill_(dim, i, 2), [A, IDX], grad=True)
    check(lambda m, x, i: x.index_fill(dim, i, 2.7), [np.arange(12).reshape(3, 4), IDX])


@pytest.mark.parametrize('fn,match', [
    (lambda m, x: x.index_add(0, m.tensor([0]), m.ones(2, 4)), "Number of indices (1)"),
    (lambda m, x: x.index_add(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)), "same scalar type"),
    (lambda m, x: x.index_add(0, m.tensor([-1]), m.ones(1, 4)), "out of bounds"),
    (lambda m, x: x.index_copy(0, m.tensor([0, 1]), m.ones(1, 4)), "Number of indices (2)"),
    (lambda m, x: x.index_copy(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)), "same dtype"),
    (lambda m, x: x.index_fill(0, m.tensor([0]), m.ones(2)), "0-dimensional value tensor"),
])
def test_index_op_errors(fn, match):
    check_error(fn, [A.astype(np.float32)], match=match)


# ------------------------------------------------------------------ index_put
def test_index_put():
    v = rand(2, 4, dtype=np.float64, seed=13)
    i = np.array([2, 0])
    re, rt = check(lambda m, x, i, v: x.index_put((i,), v), [A, i, v], grad=True)
    assert type(re.grad_fn).__name__ == 'IndexPutBackward0'
    check(lambda m, x, i, v: m.index_put(x, (i,), v, accumulate=True), [A, np.array([2, 2]), v],
          grad=True)
    check(lambda m, x, i, j, v: x.index_put((i, j), v, True), [A, np.array([0, 0, 1]),
                                                                np.array([1, 1, 3]),
                                                                np.array(2.)], grad=True)
    check(lambda m, x, k, v: x.index_put((k,), v), [A, MASK34, np.array(2.)], grad=True)
    check(lambda m, x, i, v: x.clone().index_put_((i,), v), [A, i, v], grad=True)
    check(lambda m, x, i, v: x.clone().index_put_((i,), v, accumulate=True), [A, np.array([1, 1]), v],
          grad=True)
    check_error(lambda m, x: x.index_put_((m.tensor([0]),), m.ones(5, dtype=m.float64)), [A],
                match="shape mismatch: value tensor of shape [5] cannot be broadcast")
    check_error(lambda m, x: x.index_put_((m.tensor([0]),), m.ones(4)), [A],
                match="Index put requires the source and destination dtypes match")


# ------------------------------------------------------------------ take / put / take_along_dim
def test_take_put():
    i = np.array([[0, 11], [5, -1]])
    re, rt = check(lambda m, x, i: x.take(i), [A, i], grad=True)
    assert type(re.grad_fn).__name__ == 'TakeBackward0'
    check(lambda m, x, i: m.take(x, i), [A, np.array([3, 3, 3])], grad=True)
    s = rand(2, 2, dtype=np.float64, seed=14)
    re, rt = check(lambda m, x, i, s: x.clone().put_(i, s), [A, np.array([[0, 11], [5, 1]]), s],
                   grad=True)
    assert type(re.grad_fn).__name__ == 'PutBackward0'
    check(lambda m, x, i, s: x.clone().put_(i, s, accumulate=True), [A, i, s], grad=True)
    check(lambda m, x, i, s: m.put(x, i, s, accumulate=True), [A, np.array([[1, 1], [1, -12]]), s],
          grad=True)
    check_error(lambda m, x: x.take(m.tensor([12])), [A], match="out of range: tried to access index 12")
    check_error(lambda m, x: x.take(m.tensor([-13])), [A], match="tried to access index -13")
    check_error(lambda m, x: x.put_(m.tensor([12]), m.ones(1, dtype=m.float64)), [A],
                match="out of range")


@pytest.mark.parametrize('dim,ishape', [(0, (2, 4)), (1, (3, 2)), (1, (1, 3)), (-1, (3, 1)), (None, (5,))])
def test_take_along_dim(dim, ishape):
    rng = np.random.default_rng(1)
    hi = 12 if dim is None else A.shape[dim]
    i = rng.integers(0, hi, ishape)
    check(lambda m, x, i: m.take_along_dim(x, i, dim), [A, i], grad=True)
    check(lambda m, x, i: x.take_along_dim(i, dim=dim), [A, i], grad=True)


# ------------------------------------------------------------------ masked ops
def test_masked_fill():
    re, rt = check(lambda m, x, k: x.masked_fill(k, -1.), [A, MASK34], grad=True)
    assert type(re.grad_fn).__name__ == 'MaskedFillBackward0'
    re, rt = check(lambda m, x, k, v: x.masked_fill(k, v), [A, MASK34, np.array(3.)], grad=True)
    assert type(re.grad_fn).__name__ == 'MaskedFillBackward1'
    check(lambda m, x, k: m.masked_fill(x, k, 2), [A, MASK34[0]], grad=True)
    check(lambda m, x, k: m.masked_fill(x, k, 2.), [A[0], MASK34], grad=True)
    check(lambda m, x, k: x.clone().masked_fill_(k, 5.), [A, MASK34], grad=True)
    check(lambda m, x, k: x.masked_fill_(k, 5.5), [np.arange(12).reshape(3, 4), MASK34])
    check(lambda m, x, k: x.masked_fill(k, 1.), [A, np.array(True)], grad=True)
    check_error(lambda m, x, k: x.masked_fill(k.long(), 1.), [A, MASK34], match="only supports boolean masks")
    check_error(lambda m, x: x.masked_fill(m.ones(5, dtype=m.bool), 1.), [A], match="must match the size")
    check_error(lambda m, x, k: x.masked_fill(k, m.ones(2)), [A, MASK34], match="0-dimensional value")
    check_error(lambda m, x, k: x.masked_fill_(k, 1.), [A[0], MASK34])


def test_masked_select_scatter():
    re, rt = check(lambda m, x, k: x.masked_select(k), [A, MASK34], grad=True)
    assert type(re.grad_fn).__name__ == 'MaskedSelectBackward0'
    check(lambda m, x, k: m.masked_select(x, k), [A[0], MASK34], grad=True)
    check(lambda m, x, k: m.masked_select(x, k), [A, MASK34[1]], grad=True)
    src = rand(4, 4, dtype=np.float64, seed=15)
    re, rt = check(lambda m, x, k, s: x.masked_scatter(k, s), [A, MASK34, src], grad=True)
    assert type(re.grad_fn).__name__ == 'MaskedScatterBackward0'
    check(lambda m, x, k, s: x.clone().masked_scatter_(k, s), [A, MASK34, src], grad=True)
    check(lambda m, x, k, s: x.masked_scatter(k, s), [A, MASK34[2], src], grad=True)
    check_error(lambda m, x, k: x.masked_select(k.long()), [A, MASK34])
    check_error(lambda m, x, k: x.masked_scatter(k, m.ones(2, dtype=m.float64)),
                [A, np.ones((3, 4), bool)], match="Number of elements of source < number of ones")


# ------------------------------------------------------------------ where / nonzero / argwhere
def test_where():
    b = rand(4, dtype=np.float64, seed=16)
    re, rt = check(lambda m, c, x, y: m.where(c, x, y), [MASK34, A, b], grad=True)
    assert type(re.grad_fn).__name__ == 'WhereBackward0'
    check(lambda m, c, x: m.where(c, x, 1.), [MASK34, A], grad=True)
    check(lambda m, c, y: m.where(c, 2., y), [MASK34, b], grad=True)
    check(lambda m, c, x, y: x.where(c, y), [MASK34, A, b], grad=True)
    check(lambda m, c: m.where(c, 1., 0), [MASK34])
    check(lambda m, c: m.where(c, 1, 0), [MASK34])
    check(lambda m, c: m.where(c, True, False), [MASK34])
    i32 = np.arange(4, dtype=np.int32)
    check(lambda m, c, x: m.where(c, x, 2), [MASK34, i32])
    check(lambda m, c, x: m.where(c, x, 2.5), [MASK34, i32])
    check(lambda m, c, x, y: m.where(c, x, y), [MASK34, i32, A.astype(np.float32)])
    check(lambda m, c, x, y: m.where(c, x, y), [MASK34, A.astype(np.float32), np.array(2.)], grad=True)
    check(lambda m, c, x, y: m.where(c, x, y), [np.array(True), np.array(1.), np.zeros((2, 0))])
    check_error(lambda m, x: m.where(x, x, x), [A], match="where expected condition to be a boolean tensor")
    check_error(lambda m, c, x: m.where(c, x, m.ones(5, dtype=m.float64)), [MASK34, A],
                match="must match the size")


@pytest.mark.parametrize('a', [A > 0, np.array([0, 3, 0, 4]), np.array(3.), np.array(0.),
                               np.zeros((2, 0)), rand(2, 3, 2, dtype=np.int64, low=-1, high=2, seed=3)],
                         ids=range(6))
def test_nonzero(a):
    check(lambda m, x: m.nonzero(x), [a])
    check(lambda m, x: x.nonzero(as_tuple=True), [a])
    check(lambda m, x: m.argwhere(x), [a])
    check(lambda m, x: m.where(x.bool()), [a])


# ------------------------------------------------------------------ double backward / gradcheck
GRADCHECK = [
    (lambda m, x: x[[0, 2, 0], 1:3] * 1, [A]),
    (lambda m, x: x[:, [1, 1]].sin(), [A]),
    (lambda m, x, i: m.gather(x, 1, i), [A, IX1]),
    (lambda m, x, s, i: x.scatter(0, i, s), [A, SRC, IXU]),
    (lambda m, x, s, i: x.scatter_add(0, i, s), [A, SRC, IX]),
    (lambda m, x, i: x.index_select(1, i), [A, IDX]),
    (lambda m, x, s, i: x.index_add(0, i, s, alpha=2.), [A, rand(3, 4, dtype=np.float64), IDX]),
    (lambda m, x, s, i: x.index_copy(1, i, s), [A, rand(3, 2, dtype=np.float64), np.array([3, 0])]),
    (lambda m, x, v, k: x.masked_fill(k, v), [A, np.array(2.), MASK34]),
    (lambda m, x, k: x.masked_select(k), [A, MASK34]),
    (lambda m, x, s, k: x.masked_scatter(k, s), [A, rand(12, dtype=np.float64), MASK34]),
    (lambda m, x, y, k: m.where(k, x, y), [A, A[0], MASK34]),
    (lambda m, x, i: x.take(i), [A, np.array([0, 0, 5])]),
    (lambda m, x, s, i: x.put(i, s, accumulate=True), [A, np.array([1., 2.]), np.array([3, 3])]),
    (lambda m, x, s, i: x.index_put((i,), s, accumulate=True), [A, rand(2, 4, dtype=np.float64),
                                                                np.array([0, 0])]),
    (lambda m, x, s, i: x.scatter_reduce(0, i, s, 'mean', include_self=False), [A, SRC, IX]),
    (lambda m, x, s, i: x.scatter_reduce(0, i, s, 'amax'), [A, SRC, IX]),
    (lambda m, x, s, i: x.scatter_reduce(0, i, s, 'prod'), [A, SRC, IX]),
    (lambda m, x, z: _set_clone(x, z), [A, rand(4, dtype=np.float64, seed=3)]),
]


def _set_clone(x, z):
    y = x * 2
    y[1] = z
    y[[0, 2], 1:3] = z[:2] * 3
    return y


@pytest.mark.parametrize('fn,arrays', GRADCHECK, ids=range(len(GRADCHECK)))
def test_gradcheck(fn, arrays):
    gradcheck_ember(fn, arrays)


@pytest.mark.parametrize('fn,arrays', GRADCHECK, ids=range(len(GRADCHECK)))
def test_double_backward(fn, arrays):
    """Second derivatives through the backward formulas (written in ember ops) vs torch."""
    def second(m, *ts):
        out = fn(m, *ts)
        ins = [t for t in ts if t.requires_grad]
        w = m.from_numpy(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gs = m.autograd.grad((out * out * w).sum(), ins, create_graph=True)
        return sum((g * g).sum() for g in gs)
    check(second, arrays, grad=True)


# ------------------------------------------------------------------ empty list / array index
@pytest.mark.parametrize('key', [
    lambda m: [], lambda m: (slice(None), []), lambda m: ([], []), lambda m: (Ellipsis, []),
    lambda m: ([], 1), lambda m: np.array([], dtype=np.float64),
    lambda m: np.array([], dtype=np.int32),
])
def test_empty_list_index(key):
    from oracle import run_both

    def f(m):
        x = m.arange(6.).reshape(2, 3).requires_grad_()
        y = x[key(m)]
        y.sum().backward()
        z = x.detach().clone()
        z[key(m)] = 5.
        return y, x.grad, z
    run_both(f)


def test_empty_float_tensor_index_still_errors():
    check_error(lambda m: m.arange(3)[m.tensor([])], match='tensors used as indices must be')


def test_gather_int32_and_empty_index_of_any_dtype():
    # torch: int32 index works; an empty index may have any integer dtype (issue 21)
    x = rand(5, dtype=np.float64)
    check(lambda m, a: m.gather(a, 0, m.tensor([1, 4], dtype=m.int32)), [x], grad=True)
    check(lambda m, a: (m.gather(a, 0, m.zeros(0, dtype=m.uint8)),
                        m.gather(a, 0, m.zeros(2, 0, dtype=m.uint8).reshape(0))), [x])
    check_error(lambda m, a: m.gather(a, 0, m.zeros(1, dtype=m.int16)), [x],
                match='gather(): Expected dtype int32/int64 for index')
    check_error(lambda m, a: a.scatter_add(0, m.zeros(1, dtype=m.int16), a[:1]), [x],
                match='scatter(): Expected dtype int32/int64 for index')


def test_take_along_dim_negative_indices():
    # along a dim, negative indices count from the end as in torch (issue 21)
    x = rand(5, 5, dtype=np.float64)
    idx = np.array([[-5, -1], [0, 4], [-2, 3], [1, -3], [2, 2]])
    check(lambda m, a, i: (m.take_along_dim(a, i, 1), m.take_along_dim(a, i[:, :1], 0)),
          [x, idx], grad=True)


def test_put_backward_of_a_zero_dim_source():
    # the source's gradient keeps the source's own shape (issue 21)
    for acc in (True, False):
        check(lambda m, x, s: x.put(m.tensor([0]), s, accumulate=acc),
              [np.array(1.5), np.array(2.5)], grad=True)


def test_index_add_source_shape_must_match():
    check_error(lambda m: m.zeros(3, 2).index_add(0, m.tensor([0, 1]), m.ones(2)),
                match='source tensor shape must match self tensor shape, excluding the '
                      'specified dimension. Got self.shape = [3, 2] source.shape = [2]')


@pytest.mark.parametrize('dtype,value', [('uint8', 1000), ('int8', 200), ('int8', 2.5e10),
                                         ('float16', 1e6), ('float32', 1e300)])
def test_masked_fill_value_overflow(dtype, value):
    # torch converts the value with an overflow check, a 0-d tensor's value too (issue 21)
    for v in (value, 'tensor'):
        def f(m, inplace):
            x = m.zeros(2, dtype=getattr(m, dtype))
            val = m.tensor(value) if v == 'tensor' else value
            mask = m.tensor([True, False])
            return x.masked_fill_(mask, val) if inplace else x.masked_fill(mask, val)
        if v == 'tensor' and dtype == 'float32':
            continue    # a Python float tensor is float32 already (inf)
        check_error(lambda m: f(m, False), match='without overflow')
        check_error(lambda m: f(m, True), match='without overflow')
    check(lambda m, x: x.masked_fill(m.tensor([True, False]), m.tensor(-1)),
          [np.zeros(2, np.uint8)])


def test_gather_empty_index_of_another_ndim():
    check(lambda m, x: m.gather(x, 0, m.zeros(2, 0, dtype=m.int64)), [rand(5, dtype=np.float64)],
          grad=True)


def test_take_out():
    # torch.take takes out= (issue 21): written in place, its dtype checked, overlap refused
    from oracle import run_both
    run_both(lambda m: (lambda o: (m.take(m.arange(6.), m.tensor([0, 2]), out=o), o))(
        m.zeros(2)))
    check_error(lambda m: m.take(m.arange(6.), m.tensor([0, 2]), out=m.zeros(2, dtype=m.int64)),
                match='take(): self and out expected to have the same dtype')
    check_error(lambda m: (lambda x: m.take(x, m.tensor([0, 2, 4]), out=x[1:4]))(m.arange(6.)),
                match='unsupported operation')


# ------------------------------------------------------------------ _unsafe_masked_index(_put_accumulate)
def _masked_index_case():
    rng = np.random.default_rng(2)
    i0 = rng.integers(-1, 6, 4).reshape(4, 1)          # out of range where masked out
    i1 = rng.integers(0, 7, 3).reshape(1, 3)
    mask = (i0 >= 0) & (i0 < 3) & (i1 < 4)
    return rng.standard_normal((3, 4)), mask, i0, i1


def test_unsafe_masked_index():
    x, mask, i0, i1 = _masked_index_case()
    check(lambda m, x, k, a, b: m._unsafe_masked_index(x, k, [a, b], -1.5), [x, mask, i0, i1],
          grad=True)
    check(lambda m, x, k, a, b: m._unsafe_masked_index((x > 0), k, [a, b], True),
          [x, mask, i0, i1])
    gradcheck_ember(lambda m, x: m._unsafe_masked_index(
        x, m.tensor(mask), [m.tensor(i0), m.tensor(i1)], 0.), [x])
    t = ember.tensor(x, requires_grad=True)
    r = ember._unsafe_masked_index(t, ember.tensor(mask), [ember.tensor(i0), ember.tensor(i1)], 0)
    assert r.grad_fn.name() == 'UnsafeMaskedIndexBackward0'
    check_error(lambda m, x, k, a: m._unsafe_masked_index(x, k, [a, None], 0.), [x, mask, i0],
                'expected Tensor as element 1 in argument 2, but got NoneType')


def test_unsafe_masked_index_put_accumulate():
    x, mask, i0, i1 = _masked_index_case()
    v = np.random.default_rng(3).standard_normal((4, 3))
    check(lambda m, x, k, a, b, v: m._unsafe_masked_index_put_accumulate(x, k, [a, b], v),
          [x, mask, i0, i1, v], grad=True)
    check(lambda m, x, k, a, b, v: m._unsafe_masked_index_put_accumulate(x > 0, k, [a, b], v > 0),
          [x, mask, i0, i1, v])
    gradcheck_ember(lambda m, x, v: m._unsafe_masked_index_put_accumulate(
        x, m.tensor(mask), [m.tensor(i0), m.tensor(i1)], v), [x, v])
    t = ember.tensor(x, requires_grad=True)
    r = ember._unsafe_masked_index_put_accumulate(t, ember.tensor(mask),
                                                  [ember.tensor(i0), ember.tensor(i1)],
                                                  ember.tensor(v))
    assert r.grad_fn.name() == 'UnsafeMaskedIndexPutAccumulateBackward0'
