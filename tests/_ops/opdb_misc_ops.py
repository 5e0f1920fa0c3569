"""Op-database entries of ember/_ops/misc_ops.py: *_copy variants, scatter variants,
splits, frexp/ldexp/gcd/lcm/nextafter, isin, renorm, vander, cov/corrcoef, trapezoid,
cumulative_trapezoid, gradient, index_reduce, combinations, nonzero_static."""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT, I64


_VNOTE = "torch's vander backward raises (an in-place write on a saved tensor)"


def _g(*ss):
    def gen(mk):
        for s in ss:
            yield s(mk)
    return gen


OPS = [
    OpInfo('diagonal_copy', lambda m, x, **k: m.diagonal_copy(x, **k),
           _g(lambda mk: S(mk((3, 4))), lambda mk: S(mk((2, 3, 3)), offset=1, dim1=1, dim2=2))),
    OpInfo('t_copy', lambda m, x: m.t_copy(x), _g(lambda mk: S(mk((3, 4))))),
    OpInfo('slice_copy', lambda m, x, *a: m.slice_copy(x, *a),
           _g(lambda mk: S(mk((4, 3)), 0, 1, 3), lambda mk: S(mk((4, 3)), 1, -2, 100),
              lambda mk: S(mk((4, 3)), 0, None, None, 2), lambda mk: S(mk((4, 3)), 0, 0, 4, 0))),
    OpInfo('split_copy', lambda m, x, s: m.split_copy(x, s), _g(lambda mk: S(mk((5, 2)), 2))),
    OpInfo('select_scatter', lambda m, x, s, *a: m.select_scatter(x, s, *a),
           _g(lambda mk: S(mk((3, 4)), mk((4,)), 0, 1), lambda mk: S(mk((3, 4)), mk((3,)), 1, -1),
              lambda mk: S(mk((3, 4)), mk((3,)), 0, 0))),
    OpInfo('slice_scatter', lambda m, x, s, *a, **k: m.slice_scatter(x, s, *a, **k),
           _g(lambda mk: S(mk((4, 3)), mk((2, 3)), 0, step=2),
              lambda mk: S(mk((4, 3)), mk((4, 2)), 1, 1),
              lambda mk: S(mk((4, 3)), mk((2, 3)), 0, 0, 3))),
    OpInfo('diagonal_scatter', lambda m, x, s, **k: m.diagonal_scatter(x, s, **k),
           _g(lambda mk: S(mk((3, 4)), mk((3,))), lambda mk: S(mk((3, 4)), mk((2,)), offset=-1),
              lambda mk: S(mk((3, 4)), mk((2,))))),
    OpInfo('as_strided_scatter', lambda m, x, s, *a: m.as_strided_scatter(x, s, *a),
           _g(lambda mk: S(mk((4, 3)), mk((2, 2)), (2, 2), (3, 1), 1, grad=False,
                            note='input gradient differs from torch: not resolved yet'))),
    OpInfo('hsplit', lambda m, x, s: m.hsplit(x, s),
           _g(lambda mk: S(mk((2, 4)), 2), lambda mk: S(mk((6,)), [1, 4]),
              lambda mk: S(mk((2, 4)), 3), lambda mk: S(mk(()), 1))),
    OpInfo('vsplit', lambda m, x, s: m.vsplit(x, s),
           _g(lambda mk: S(mk((4, 2)), 2), lambda mk: S(mk((4,)), 2))),
    OpInfo('dsplit', lambda m, x, s: m.dsplit(x, s),
           _g(lambda mk: S(mk((1, 2, 4)), [1]), lambda mk: S(mk((2, 4)), 2))),
    OpInfo('frexp', lambda m, x: m.frexp(x),
           _g(lambda mk: S(mk((3, 4))), lambda mk: S(np.array([0., 1., -3.5, 1e-30], mk.np), gc=False))),
    OpInfo('ldexp', lambda m, x, e: m.ldexp(x, e),
           _g(lambda mk: S(mk((3,)), np.array([1, -2, 3]), grad=False,
                       note='gradient mismatch on one element vs torch: not resolved yet'), lambda mk: S(mk((2, 3)), mk((3,))))),
    OpInfo('gcd', lambda m, x, y: m.gcd(x, y), _g(lambda mk: S(mk((5,)), mk((5,)))),
           dtypes=(I64, 'float32')),
    OpInfo('lcm', lambda m, x, y: m.lcm(x, y), _g(lambda mk: S(mk((5,)), mk((2, 5)))),
           dtypes=(I64,)),
    OpInfo('nextafter', lambda m, x, y: m.nextafter(x, y), _g(lambda mk: S(mk((5,)), mk((5,)))),
           dtypes=FLOAT + (I64,), gradcheck=False),
    OpInfo('isin', lambda m, x, y, **k: m.isin(x, y, **k),
           _g(lambda mk: S(mk((3, 4)), mk((5,))), lambda mk: S(mk((6,)), mk((2,)), invert=True)),
           dtypes=(I64, 'float32', 'bool'), grad=False),
    OpInfo('renorm', lambda m, x, *a: m.renorm(x, *a),
           _g(lambda mk: S(mk((3, 4)), 2, 0, 1.0), lambda mk: S(mk((3, 4)), 1, 1, 1.5),
              lambda mk: S(mk((4,)), 2, 0, 1.0), lambda mk: S(mk((3, 4)), -1, 0, 1.0))),
    OpInfo('vander', lambda m, x, **k: m.vander(x, **k),
           _g(lambda mk: S(mk((4,)), grad=False, note=_VNOTE),
              lambda mk: S(mk((3,)), N=5, increasing=True, grad=False, note=_VNOTE),
              lambda mk: S(mk((3,)), N=0), lambda mk: S(mk((2, 2))))),
    OpInfo('cov', lambda m, x, **k: m.cov(x, **k),
           _g(lambda mk: S(mk((3, 5))), lambda mk: S(mk((5,)), correction=0),
              lambda mk: S(mk((2, 4)), fweights=np.array([1, 2, 0, 3])),
              lambda mk: S(mk((2, 4)), aweights=mk((4,), 'pos')),
              lambda mk: S(mk((2, 2, 2))))),
    OpInfo('corrcoef', lambda m, x: m.corrcoef(x), _g(lambda mk: S(mk((3, 5))))),
    OpInfo('trapezoid', lambda m, y, *a, **k: m.trapezoid(y, *a, **k),
           _g(lambda mk: S(mk((3, 4))), lambda mk: S(mk((3, 4)), dx=0.5, dim=0),
              lambda mk: S(mk((3, 4)), mk((4,))), lambda mk: S(mk((3, 4)), mk((3,))))),
    OpInfo('cumulative_trapezoid', lambda m, y, *a, **k: m.cumulative_trapezoid(y, *a, **k),
           _g(lambda mk: S(mk((3, 4))), lambda mk: S(mk((3, 4)), mk((3,)), dim=0))),
    OpInfo('gradient', lambda m, y, **k: m.gradient(y, **k),
           _g(lambda mk: S(mk((5,))), lambda mk: S(mk((3, 4)), spacing=[1.0, 2.0]),
              lambda mk: S(mk((4, 3)), dim=0, edge_order=2),
              lambda mk: S(mk((2,)), edge_order=2))),
    OpInfo('index_reduce', lambda m, x, i, s, r, **k: m.index_reduce(x, 0, i, s, r, **k),
           _g(lambda mk: S(mk((3, 2)), np.array([0, 2, 0]), mk((3, 2)), 'amax'),
              lambda mk: S(mk((3, 2)), np.array([0, 2, 0]), mk((3, 2)), 'mean', include_self=False),
              lambda mk: S(mk((3, 2)), np.array([1, 1, 0]), mk((3, 2)), 'sum'))),
    OpInfo('combinations', lambda m, x, *a, **k: m.combinations(x, *a, **k),
           _g(lambda mk: S(mk((4,))), lambda mk: S(mk((3,)), 3, with_replacement=True),
              lambda mk: S(mk((3,)), 0), lambda mk: S(mk((2, 2))))),
    OpInfo('nonzero_static', lambda m, x, **k: m.nonzero_static(x, **k),
           _g(lambda mk: S(mk((3, 4)), size=20), lambda mk: S(mk((3, 4)), size=2, fill_value=9)),
           dtypes=(I64,), grad=False),
]

OPS += [
    OpInfo('ravel', lambda m, x: m.ravel(x), _g(lambda mk: S(mk((3, 4)), pre='t'), lambda mk: S(mk(())))),
    OpInfo('adjoint', lambda m, x: m.adjoint(x), _g(lambda mk: S(mk((2, 3, 4))), lambda mk: S(mk((3,))))),
    OpInfo('sum_to_size', lambda m, x, *s: x.sum_to_size(*s),
           _g(lambda mk: S(mk((2, 3)), 1, 3), lambda mk: S(mk((2, 3)), 3),
              lambda mk: S(mk((2, 3)), (2, 1)), lambda mk: S(mk((2, 3)), 2))),
    OpInfo('cumsum_', lambda m, x, d: x.clone().cumsum_(d), _g(lambda mk: S(mk((3, 4)), 1))),
    OpInfo('cumprod_', lambda m, x, d: x.clone().cumprod_(d), _g(lambda mk: S(mk((3, 4)), 0))),
]

# Tensor members of ember/_ops/tensor_internals.py with values and gradients
OPS += [
    OpInfo('fill_diagonal_', lambda m, x, v, **k: (x * 1).fill_diagonal_(v, **k),
           _g(lambda mk: S(mk((3, 4)), 2.5), lambda mk: S(mk((7, 3)), -1.0, wrap=True),
              lambda mk: S(mk((7, 3)), 0.5), lambda mk: S(mk((3, 3, 3)), 4.0),
              lambda mk: S(mk((4, 3)), 1.0, pre='t'))),
    OpInfo('resize', lambda m, x, *s: x.resize(*s), _g(lambda mk: S(mk((2, 3)), 3, 2),
                                                     lambda mk: S(mk((2, 3)), (6,), pre='t'))),
    OpInfo('map_', lambda m, x, y: x.clone().map_(y, lambda a, b: a * 2 + b),
           _g(lambda mk: S(mk((2, 3)), mk((3,)), grad=False)), grad=False),
]
