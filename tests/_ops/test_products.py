"""Products and contractions of ember/_ops/products.py vs torch: matmul and ``@`` in all
dimension cases, mm/bmm/mv/dot/vdot/inner/outer, the add-product family, einsum,
tensordot, kron, cross and chained products."""
import numpy as np
import pytest
import torch

import ember
from tests.oracle import check, check_error, gradcheck_ember, rand

DTYPES = [np.float32, np.float64]

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)), ((2, 5, 2, 3), (3, 4)),
    ((1, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((3,), (2, 5, 3, 4)), ((2, 5, 2, 3), (3,)),
    ((0, 3), (3, 2)), ((2, 0), (0, 4)), ((4, 0, 3), (3, 2)),
]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('sa,sb', MATMUL_SHAPES)
def test_matmul(sa, sb, dt):
    a, b = rand(*sa, dtype=dt, seed=1), rand(*sb, dtype=dt, seed=2)
    check(lambda m, x, y: m.matmul(x, y), [a, b], grad=True)
    check(lambda m, x, y: x @ y, [a, b], grad=True)


@pytest.mark.parametrize('sa,sb', MATMUL_SHAPES[:15])
def test_matmul_grad_fn_name(sa, sb):
    for rg in ((True, True), (True, False), (False, True)):
        names = []
        for m in (torch, ember):
            x = m.from_numpy(rand(*sa, dtype=np.float64)).requires_grad_(rg[0])
            y = m.from_numpy(rand(*sb, dtype=np.float64)).requires_grad_(rg[1])
            names.append((x @ y).grad_fn.name())
        assert names[0] == names[1], (sa, sb, rg, names)


def test_matmul_no_graph_without_grad():
    a = ember.from_numpy(rand(3, 4))
    b = ember.from_numpy(rand(4, 2)).requires_grad_()
    assert (a @ a.mT).grad_fn is None
    with ember.no_grad():
        assert (a @ b).grad_fn is None
    assert (a @ b).grad_fn.name() == 'MmBackward0'


def test_matmul_strided_and_rmatmul():
    a = rand(4, 6, seed=3)
    b = rand(6, 5, seed=4)
    check(lambda m, x, y: x[:, ::2] @ y[::2].mT.mT, [a, b], grad=True)
    check(lambda m, x, y: x.mT @ y.mT.mT, [a.T.copy(), b], grad=True)
    check(lambda m, x, y: x.__rmatmul__(y), [b, a])


@pytest.mark.parametrize('dt', [np.int64, np.int32])
def test_matmul_int(dt):
    check(lambda m, x, y: x @ y, [rand(2, 3, dtype=dt), rand(3, 4, dtype=dt)])
    check(lambda m, x, y: m.dot(x, y), [rand(3, dtype=dt), rand(3, dtype=dt)])


def test_matmul_lowp_and_complex():
    import ml_dtypes  # noqa: F401
    check(lambda m, x, y: (x.half() @ y.half()).float(), [rand(2, 3), rand(3, 4)], rtol=1e-2,
          atol=1e-2)
    check(lambda m, x, y: (x.bfloat16() @ y.bfloat16()), [rand(2, 3), rand(3, 4)], rtol=2e-2,
          atol=2e-2)
    check(lambda m, x, y: x @ y, [rand(2, 3, dtype=np.complex64), rand(3, 4, dtype=np.complex64)])


@pytest.mark.parametrize('fn,sa,sb,match', [
    (lambda m, x, y: x @ y, (2, 3), (4, 5), 'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)'),
    (lambda m, x, y: m.mm(x, y), (2, 3), (4, 5), 'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)'),
    (lambda m, x, y: x @ y, (3,), (4,), 'inconsistent tensor size'),
    (lambda m, x, y: x @ y, (2, 3), (4,), 'size mismatch, got input (2), mat (2x3), vec (4)'),
    (lambda m, x, y: x @ y, (3,), (4, 5), 'mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)'),
    (lambda m, x, y: x @ y, (5, 2, 3), (5, 4, 5), 'Expected size for first two dimensions of batch2'),
    (lambda m, x, y: x @ y, (5, 2, 3), (4, 3, 5), 'The size of tensor a (5) must match'),
    (lambda m, x, y: x @ y, (5, 2, 3), (4, 5), 'mat1 and mat2 shapes cannot be multiplied (10x3 and 4x5)'),
    (lambda m, x, y: m.bmm(x, y), (5, 2, 3), (4, 3, 5), 'Expected size for first two dimensions'),
    (lambda m, x, y: m.bmm(x, y), (2, 3), (4, 3, 5), 'batch1 must be a 3D tensor'),
    (lambda m, x, y: m.mm(x, y), (3,), (3, 5), 'self must be a matrix'),
    (lambda m, x, y: m.mv(x, y), (2, 3), (4,), 'size mismatch'),
    (lambda m, x, y: m.mv(x, y), (2, 3), (4, 1), 'vector + matrix @ vector expected'),
    (lambda m, x, y: m.dot(x, y), (3, 1), (3,), '1D tensors expected, but got 2D and 1D tensors'),
    (lambda m, x, y: m.dot(x, y.double()), (3,), (3,), 'expected both vectors to have same dtype'),
    (lambda m, x, y: m.mm(x, y.double()), (2, 3), (3, 5), 'expected m1 and m2 to have the same dtype'),
    (lambda m, x, y: x @ y.double(), (2, 3), (3, 5), 'expected m1 and m2 to have the same dtype'),
    (lambda m, x, y: x.sum() @ y, (2,), (2,), 'both arguments to matmul need to be at least 1D'),
    (lambda m, x, y: x.bool() @ y.bool(), (2, 3), (3, 5), 'not implemented for'),
    (lambda m, x, y: m.addmm(x, y, y.mT), (3, 5), (2, 3), 'The expanded size of the tensor'),
    (lambda m, x, y: m.inner(x, y), (2, 3), (4, 4), 'inner() the last dimension must match'),
    (lambda m, x, y: m.outer(x, y), (2, 3), (4,), 'outer: Expected 1-D argument self'),
    (lambda m, x, y: m.einsum('ij,jk', x, y), (2, 3), (4, 5), 'einsum(): subscript j has size 4'),
    (lambda m, x, y: m.einsum('ij,jk', x), (2, 3), (4, 5), 'fewer operands were provided'),
    (lambda m, x, y: m.einsum('ijk', x), (2, 3), (4, 5), 'does not match the number of dimensions'),
    (lambda m, x, y: m.linalg.cross(x, y), (3, 2), (3, 2), 'must have length 3'),
    (lambda m, x, y: m.linalg.multi_dot([x]), (3,), (3,), 'expected at least 2 tensors but got 1'),
    (lambda m, x, y: m.tensordot(x, y, dims=1), (2, 3), (4, 5), 'contracted dimensions need to match'),
])
def test_errors(fn, sa, sb, match):
    check_error(fn, [rand(*sa), rand(*sb)], match=match)


@pytest.mark.parametrize('dt', DTYPES)
def test_mm_bmm_mv_dot(dt):
    check(lambda m, x, y: m.mm(x, y), [rand(2, 3, dtype=dt), rand(3, 4, dtype=dt)], grad=True)
    check(lambda m, x, y: x.mm(y), [rand(2, 3, dtype=dt), rand(3, 4, dtype=dt)], grad=True)
    check(lambda m, x, y: m.bmm(x, y), [rand(5, 2, 3, dtype=dt), rand(5, 3, 4, dtype=dt)], grad=True)
    check(lambda m, x, y: m.mv(x, y), [rand(2, 3, dtype=dt), rand(3, dtype=dt)], grad=True)
    check(lambda m, x, y: m.dot(x, y), [rand(3, dtype=dt), rand(3, dtype=dt)], grad=True)
    check(lambda m, x, y: m.vdot(x, y), [rand(3, dtype=dt), rand(3, dtype=dt)], grad=True)
    check(lambda m, x, y: x.dot(y), [rand(0, dtype=dt), rand(0, dtype=dt)], grad=True)


def test_vdot_complex():
    check(lambda m, x, y: m.vdot(x, y), [rand(3, dtype=np.complex128, seed=1),
                                         rand(3, dtype=np.complex128, seed=2)])


@pytest.mark.parametrize('name', ['mm', 'bmm', 'mv', 'dot', 'vdot'])
def test_product_grad_fn(name):
    shapes = {'mm': ((2, 3), (3, 4)), 'bmm': ((2, 2, 3), (2, 3, 4)), 'mv': ((2, 3), (3,)),
              'dot': ((3,), (3,)), 'vdot': ((3,), (3,))}[name]
    ins = [rand(*s, dtype=np.float64) for s in shapes]
    e, t = check(lambda m, x, y: getattr(m, name)(x, y), ins, grad=True)
    assert e.grad_fn.name() == t.grad_fn.name()


ADD_CASES = [
    ('addmm', (2, 4), ((2, 3), (3, 4))), ('addmm', (4,), ((2, 3), (3, 4))),
    ('addmv', (2,), ((2, 3), (3,))), ('addmv', (), ((2, 3), (3,))),
    ('addr', (2, 3), ((2,), (3,))), ('addr', (1, 3), ((2,), (3,))),
    ('baddbmm', (5, 2, 4), ((5, 2, 3), (5, 3, 4))), ('baddbmm', (2, 4), ((5, 2, 3), (5, 3, 4))),
    ('addbmm', (2, 4), ((5, 2, 3), (5, 3, 4))), ('addbmm', (1,), ((5, 2, 3), (5, 3, 4))),
]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('beta,alpha', [(1, 1), (0.5, -2.0), (0, 1.5)])
@pytest.mark.parametrize('name,si,sm', ADD_CASES)
def test_add_products(name, si, sm, beta, alpha, dt):
    ins = [rand(*si, dtype=dt, seed=1)] + [rand(*s, dtype=dt, seed=i + 2) for i, s in enumerate(sm)]
    e, t = check(lambda m, i, x, y: getattr(m, name)(i, x, y, beta=beta, alpha=alpha), ins,
                 grad=True)
    assert e.grad_fn.name() == t.grad_fn.name()


def test_add_products_beta0_ignores_nan():
    i = np.full((2, 4), np.nan)
    check(lambda m, i, x, y: m.addmm(i, x, y, beta=0), [i, rand(2, 3, dtype=np.float64),
                                                         rand(3, 4, dtype=np.float64)])


@pytest.mark.parametrize('name,si,sm', [c for c in ADD_CASES if c[1] == c[1]][::2])
def test_add_products_inplace(name, si, sm):
    out_shape = {'addmm': (2, 4), 'addmv': (2,), 'addr': (2, 3), 'baddbmm': (5, 2, 4),
                 'addbmm': (2, 4)}[name]
    ins = [rand(*out_shape, dtype=np.float64, seed=1)] + \
        [rand(*s, dtype=np.float64, seed=i + 2) for i, s in enumerate(sm)]
    check(lambda m, i, x, y: getattr(i.clone(), name + '_')(x, y, beta=2, alpha=3), ins, grad=True)


@pytest.mark.parametrize('name,si,sm', ADD_CASES[::2])
def test_add_products_gradcheck(name, si, sm):
    ins = [rand(*si, dtype=np.float64, seed=1)] + \
        [rand(*s, dtype=np.float64, seed=i + 2) for i, s in enumerate(sm)]
    gradcheck_ember(lambda m, i, x, y: getattr(m, name)(i, x, y, beta=0.5, alpha=2), ins)


@pytest.mark.parametrize('sa,sb', [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (5, 4)),
                                   ((), (2, 3)), ((2, 3), ())])
def test_inner(sa, sb):
    check(lambda m, x, y: m.inner(x, y), [rand(*sa, seed=1), rand(*sb, seed=2)], grad=True)


def test_outer_ger():
    check(lambda m, x, y: m.outer(x, y), [rand(3), rand(4)], grad=True)
    check(lambda m, x, y: m.ger(x, y), [rand(3), rand(4)], grad=True)
    check(lambda m, x, y: x.outer(y), [rand(3, dtype=np.int64), rand(4)])
    check(lambda m, x, y: m.outer(x, y.double()), [rand(2), rand(4)], grad=True)


@pytest.mark.parametrize('sa,sb,dims', [
    ((3, 4, 5), (4, 5, 6), 2), ((3, 4), (4, 5), 1), ((2, 3), (4, 5), 0),
    ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((3, 4, 5), (5, 6), ([-1], [0])),
    ((3, 4), (3, 4), 2),
])
def test_tensordot(sa, sb, dims):
    check(lambda m, x, y: m.tensordot(x, y, dims=dims), [rand(*sa, seed=1), rand(*sb, seed=2)],
          grad=True)


@pytest.mark.parametrize('sa,sb', [((2, 3), (4, 5)), ((2,), (3,)), ((2, 3), (4,)), ((3,), (2, 2, 2)),
                                   ((2, 1, 2), (1, 3, 1))])
def test_kron(sa, sb):
    check(lambda m, x, y: m.kron(x, y), [rand(*sa, seed=1), rand(*sb, seed=2)], grad=True)


def test_kron_int():
    check(lambda m, x, y: x.kron(y), [rand(2, 2, dtype=np.int64), rand(2, dtype=np.int64)])


@pytest.mark.parametrize('sa,sb,dim', [((3,), (3,), -1), ((4, 3), (4, 3), -1), ((3, 4), (3, 4), 0),
                                       ((1, 3), (5, 3), -1), ((2, 3, 2), (2, 3, 1), 1)])
def test_cross(sa, sb, dim):
    a, b = rand(*sa, seed=1, dtype=np.float64), rand(*sb, seed=2, dtype=np.float64)
    e, t = check(lambda m, x, y: m.linalg.cross(x, y, dim=dim), [a, b], grad=True)
    assert e.grad_fn.name() == t.grad_fn.name() == 'LinalgCrossBackward0'
    check(lambda m, x, y: m.cross(x, y, dim=dim), [a, b], grad=True)
    check(lambda m, x, y: x.cross(y, dim), [a, b], grad=True)
    gradcheck_ember(lambda m, x, y: m.linalg.cross(x, y, dim=dim), [a, b])


def test_cross_default_dim():
    with pytest.warns(UserWarning, match='without specifying the dim'):
        check(lambda m, x, y: m.cross(x, y), [rand(4, 3), rand(4, 3)], grad=True)


EINSUM = [
    ('ij,jk->ik', [(2, 3), (3, 4)]), ('ij,jk', [(2, 3), (3, 4)]), ('bij,bjk->bik', [(5, 2, 3), (5, 3, 4)]),
    ('ii->i', [(3, 3)]), ('ii', [(3, 3)]), ('ij->ji', [(2, 3)]), ('ij->', [(2, 3)]), ('ij->j', [(2, 3)]),
    ('i,j->ij', [(2,), (3,)]), ('i,i->', [(3,), (3,)]), ('...ij,...jk->...ik', [(2, 5, 2, 3), (5, 3, 4)]),
    ('...ij->...ji', [(2, 3, 4)]), ('b...,b...->b', [(2, 3, 4), (2, 3, 4)]),
    ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)]), ('ijk,ikl->ijl', [(2, 1, 3), (2, 3, 4)]),
    ('ij,ij->ij', [(2, 3), (1, 3)]), ('iij->j', [(2, 2, 3)]), ('ij,kl->ijkl', [(2, 3), (1, 2)]),
    ('i,ij->j', [(3,), (3, 2)]), ('bn,anm,bm->ba', [(2, 3), (4, 3, 5), (2, 5)]), ('i->', [(0,)]),
    ('ij,jk->ik', [(2, 0), (0, 3)]), ('...->...', [()]), ('ba,ij->bi', [(2, 3), (4, 5)]),
]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('eq,shapes', EINSUM)
def test_einsum(eq, shapes, dt):
    ins = [rand(*s, dtype=dt, seed=i) for i, s in enumerate(shapes)]
    check(lambda m, *xs: m.einsum(eq, *xs), ins, grad=True, rtol=1e-5 if dt == np.float32 else None)


@pytest.mark.parametrize('eq,shapes', [EINSUM[i] for i in (0, 3, 10, 13, 15, 16, 19, 23)])
def test_einsum_gradcheck(eq, shapes):
    gradcheck_ember(lambda m, *xs: m.einsum(eq, *xs),
                    [rand(*s, dtype=np.float64, seed=i) for i, s in enumerate(shapes)])


def test_einsum_forms_and_names():
    a, b = rand(2, 3, dtype=np.float64), rand(3, 4, dtype=np.float64)
    check(lambda m, x, y: m.einsum('ij,jk->ik', [x, y]), [a, b], grad=True)
    check(lambda m, x, y: m.einsum(x, [0, 1], y, [1, 2], [0, 2]), [a, b], grad=True)
    check(lambda m, x, y: m.einsum(x, [Ellipsis, 1], y, [1, 2]), [a, b], grad=True)
    for eq, ins in (('ij,jk->ik', [a, b]), ('ij->ji', [a]), ('ij->', [a]), ('ii->i', [a[:2, :2]])):
        e, t = check(lambda m, *xs: m.einsum(eq, *xs), ins, grad=True)
        assert e.grad_fn.name() == t.grad_fn.name()


def test_einsum_view_input_is_copied():
    x = ember.from_numpy(rand(3, 3))
    y = ember.einsum('ij->ji', x)
    y.numpy()[...] += 1    # writes through y's memory only
    assert np.allclose(x.numpy().T + 1, y.numpy())


def test_einsum_double_backward():
    a, b = rand(2, 3, dtype=np.float64), rand(3, 4, dtype=np.float64)

    def f(m, x, y):
        z = m.einsum('ij,jk->ik', x, y)
        g, = m.autograd.grad((z * z).sum(), x, create_graph=True)
        return g
    check(f, [a, b], grad=True)


@pytest.mark.parametrize('shapes', [[(2, 3), (3, 4)], [(2, 3), (3, 10), (10, 1)],
                                    [(3,), (3, 4), (4, 2)], [(2, 3), (3, 4), (4,)],
                                    [(3,), (3, 4), (4,)], [(5, 1), (1, 4), (4, 6), (6, 2)]])
def test_multi_dot(shapes):
    ins = [rand(*s, dtype=np.float64, seed=i) for i, s in enumerate(shapes)]
    check(lambda m, *xs: m.linalg.multi_dot(list(xs)), ins, grad=True)
    if all(len(s) == 2 for s in shapes):
        check(lambda m, *xs: m.chain_matmul(*xs), ins, grad=True)


def test_multi_dot_errors():
    check_error(lambda m, x, y: m.linalg.multi_dot([x, y]), [rand(2, 3), rand(4, 5)])
    check_error(lambda m, x, y: m.linalg.multi_dot([x, y]), [rand(2, 3, 3), rand(3, 5)])


@pytest.mark.parametrize('fn,shapes', [
    (lambda m, x, y: m.matmul(x, y), [(3,), (3,)]), (lambda m, x, y: m.matmul(x, y), [(2, 3), (3,)]),
    (lambda m, x, y: m.matmul(x, y), [(3,), (3, 4)]), (lambda m, x, y: m.matmul(x, y), [(2, 3), (3, 4)]),
    (lambda m, x, y: m.matmul(x, y), [(2, 2, 3), (3, 4)]),
    (lambda m, x, y: m.matmul(x, y), [(3,), (2, 3, 4)]),
    (lambda m, x, y: m.matmul(x, y), [(2, 1, 2, 3), (3, 3, 4)]),
    (lambda m, x, y: m.bmm(x, y), [(2, 2, 3), (2, 3, 4)]),
    (lambda m, x, y: m.mv(x, y), [(2, 3), (3,)]), (lambda m, x, y: m.dot(x, y), [(3,), (3,)]),
    (lambda m, x, y: m.kron(x, y), [(2, 2), (2, 3)]),
    (lambda m, x, y: m.tensordot(x, y, dims=([0], [1])), [(3, 2), (2, 3)]),
])
def test_products_gradcheck(fn, shapes):
    gradcheck_ember(fn, [rand(*s, dtype=np.float64, seed=i) for i, s in enumerate(shapes)])


def test_matmul_double_backward():
    a, b = rand(3, 2, 4, dtype=np.float64), rand(4, 5, dtype=np.float64)

    def f(m, x, y):
        z = x @ y
        gx, gy = m.autograd.grad((z ** 2).sum(), (x, y), create_graph=True)
        return gx.sum() + (gy * gy).sum()
    check(f, [a, b], grad=True)


def test_out_arg():
    a, b = rand(2, 3, dtype=np.float64), rand(3, 4, dtype=np.float64)

    def f(m, x, y):
        o = m.empty(0, dtype=m.float64)
        r = m.matmul(x, y, out=o)
        return o, r
    check(f, [a, b])


def test_tensordot_size_one_dims_broadcast():
    # a contracted dim of size 1 broadcasts against its partner, as torch (issue 21)
    check(lambda m, a, b: m.tensordot(a, b, dims=((0, 1), (2, 0))),
          [rand(1, 1, 1, dtype=np.float64), rand(2, 1, 2, dtype=np.float64)], grad=True)
    check(lambda m, a, b: m.tensordot(a, b, dims=([0], [0])),
          [rand(1, 2, dtype=np.float64), rand(3, 4, dtype=np.float64)], grad=True)
    check(lambda m, a, b: m.tensordot(a, b, dims=([1], [0])),
          [rand(2, 3, dtype=np.float64), rand(1, 4, dtype=np.float64)], grad=True)
    check_error(lambda m, a, b: m.tensordot(a, b, dims=([0], [0])),
                [rand(3, 2), rand(2, 4)], match='contracted dimensions need to match')


def test_matmul_backward_empty_inner_dims():
    check(lambda m, a, b: m.matmul(a, b), [rand(5, 5, 0, dtype=np.float64),
                                           rand(0, 5, dtype=np.float64)], grad=True)
    check(lambda m, a, b: m.matmul(a, b), [rand(0, 5, dtype=np.float64),
                                           rand(5, 5, 0, dtype=np.float64)], grad=True)


def test_addbmm_int32_and_addr_bool():
    # int32 stays int32; bool addr reads beta/alpha as bools (issue 21)
    check(lambda m, x, a, b: (m.addbmm(x, a, b), m.baddbmm(a @ b, a, b), x.clone().addbmm_(a, b)),
          [rand(5, 10, dtype=np.int32), rand(5, 5, 5, dtype=np.int32),
           rand(5, 5, 10, dtype=np.int32)])
    for beta, alpha in ((3, 2), (0, 1), (False, True), (1, 0)):
        check(lambda m, x, u, v: m.addr(x, u, v, beta=beta, alpha=alpha),
              [rand(4, 3, dtype=bool), rand(4, dtype=bool, seed=1), rand(3, dtype=bool, seed=2)])
    check(lambda m, a, b: m.tensordot(a, b, dims=((0, 1), (2, 0))),
          [rand(1, 1, 1, dtype=np.int32), rand(2, 1, 2, dtype=np.int32)])


def test_linalg_cross_needs_equal_ndim():
    check_error(lambda m, a, b: m.linalg.cross(a, b), [rand(5, 5, 3), rand(5, 3)],
                match='linalg.cross: inputs must have the same number of dimensions.')


@pytest.mark.parametrize('shape', [(1, 10), (10,), (5, 10)])
def test_addbmm_inplace_resizes_a_broadcast_self(shape):
    # torch's addbmm_ resizes a self that only broadcasts to the result (issue 21); (a
    # (5, 1) self reads torch's partly overwritten memory: not compared)
    from tests.oracle import run_both
    x, a, b = rand(*shape), rand(5, 5, 5), rand(5, 5, 10)

    def f(m):    # m.tensor: resizable storage (from_numpy's is not, in torch either)
        t = m.tensor(x)
        r = t.addbmm_(m.tensor(a), m.tensor(b), beta=0.5)
        return r, t, r is t
    run_both(f, rtol=1e-5, atol=1e-5)
    check_error(lambda m: m.ones(3, 10).addbmm_(m.ones(5, 5, 5), m.ones(5, 5, 10)),
                match='must match the existing size')


# ------------------------------------------------------------------ _scaled_mm
def _fp8_pair(seed, da, db):
    g = torch.Generator().manual_seed(seed)
    a = (torch.randn(15, 16, generator=g) * 2).to(da)
    b = (torch.randn(16, 32, generator=g) * 2).to(db)
    return a, b


@pytest.mark.parametrize('da,db', [('float8_e4m3fn', 'float8_e4m3fn'),
                                   ('float8_e4m3fn', 'float8_e5m2'),
                                   ('float8_e5m2', 'float8_e4m3fnuz')])
@pytest.mark.parametrize('out_dtype', [None, 'float32', 'bfloat16', 'float16', 'float8_e5m2'])
def test_scaled_mm(da, db, out_dtype):
    ta, tb = _fp8_pair(1, getattr(torch, da), getattr(torch, db))
    tb = tb.t().contiguous().t()

    def run(m, a, b, sa, sb, **kw):
        if out_dtype is not None:
            kw['out_dtype'] = getattr(m, out_dtype)
        return m._scaled_mm(a, b, sa, sb, **kw)

    ea, eb = (ember.tensor(t.float().numpy()).to(getattr(ember, str(t.dtype).split('.')[-1]))
              for t in (ta, tb))
    for sa, sb, kw in [(0.7, 1.3, {}), (100., 1.3, {}),          # saturating float8 results
                       ([[0.5]] * 15, [[0.25] * 32], {}),        # row-wise scales
                       (0.7, 1.3, dict(bias='b'))]:
        if kw.get('bias') and out_dtype not in ('bfloat16', 'float32'):
            continue
        rs = []
        for m, a, b in ((torch, ta, tb), (ember, ea, eb)):
            k = dict(kw)
            if 'bias' in k:
                k['bias'] = m.linspace(-1, 1, 32, dtype=getattr(m, out_dtype))
            rs.append(run(m, a, b, m.tensor(sa), m.tensor(sb), **k))
        t, e = rs
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        # float32 accumulation in another order: within a few float32 ulps, then rounded to
        # the output dtype (at most one of its ulps apart)
        tol = {'float32': 1e-5, 'bfloat16': 8e-3, 'float16': 1e-3}.get(out_dtype, 0.13)
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=tol, atol=1e-4)


def test_scaled_mm_errors():
    ta, tb = _fp8_pair(2, torch.float8_e4m3fn, torch.float8_e4m3fn)
    ea, eb = (ember.tensor(t.float().numpy()).to(ember.float8_e4m3fn) for t in (ta, tb))
    for (ma, mb), (m, x, y) in zip([(torch, torch), (ember, ember)], [(torch, ta, tb),
                                                                       (ember, ea, eb)]):
        with pytest.raises(ValueError, match='Invalid scaling configuration'):
            m._scaled_mm(x.float(), y, m.tensor(1.), m.tensor(1.))
        with pytest.raises(ValueError, match=r'scale_a should be \(15, 1\)'):
            m._scaled_mm(x, y, m.tensor(1.).double(), m.tensor(1.))


def test_einsum_bfloat16():
    # NumPy's einsum has no bfloat16 loops: computed in float32, rounded once, as torch
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    y = np.cos(np.arange(12.)).reshape(3, 4)
    check(lambda m, a, b: (m.einsum('ij->', a.bfloat16()), m.einsum('ij,kj->ik', a.bfloat16(),
                                                                    b.bfloat16()),
                           m.einsum('ij,ij->i', a.bfloat16(), b.bfloat16())), [x, y],
          rtol=0, atol=0)


@pytest.mark.parametrize('eq,shapes', [('i->', [(3,)]), ('i,i->', [(3,), (3,)]),
                                       ('ij,jk->ik', [(2, 2), (2, 2)]), ('ij->j', [(2, 2)]),
                                       ('ij->ji', [(2, 2)]), ('ii->i', [(2, 2)]),
                                       ('...ik,...j->ij', [(1, 2, 3), (3,)]),
                                       ('ik,j->ij', [(2, 3), (2,)])])
@pytest.mark.parametrize('dt', [np.int16, np.int8, np.bool_])
def test_einsum_integer_dtypes(eq, shapes, dt):
    # one operand summed over is torch's sum(): integers and bool give int64
    arrs = [(np.arange(int(np.prod(s))).reshape(s) % 3).astype(dt) for s in shapes]
    if dt is np.bool_ and eq in ('i,i->', 'ij,jk->ik'):   # contracted by bmm: no bool kernel
        check_error(lambda m, *ts: m.einsum(eq, *ts), arrs, '"bmm" not implemented for')
        return
    check(lambda m, *ts: m.einsum(eq, *ts), arrs)
