"""Op-database entries of ``ember.special`` (ember/_ops/special.py and the torch.special
names bound to ops of other families), and the ``torch.*``/Tensor forms i0, sinc, igamma,
igammac, mvlgamma with their in-place variants."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, BOOL, FLOAT, INF, NAN

OPS = []
NUMS = (F32, F64, I64)


def _sp(name, *pa, **kw):
    """``m.special.<name>(*sample_args, *pa, **kw)``."""
    return lambda m, *a: getattr(m.special, name)(*a, *pa, **kw)


def _arr(mk, lo, hi, shape):
    return np.asarray(mk.rng.uniform(lo, hi, shape), mk.np)


_EDGE = [0., -0., 1e-30, 0.5, -0.5, 1., -1., 2., -2., 5., -5., 8., 20., -20., 31., -31., 45.,
         100., -100., 700., INF, -INF, NAN]


_RTOL32_NOTE = (
    "float32 gradient: the formula exp(-(log_ndtr(x) + x**2 / 2)) cancels for x << 0; "
    "torch's float32 log_ndtr and ember's (float64 rounded to float32) differ in the last "
    "bit, which the cancellation amplifies: rtol 1e-4")


def unary(lo, hi, edge=True, grad_edge=False, ints=(-3, 6), rtol32=None, edge_values=None):
    """Samples over shapes with values in [lo, hi), plus the edge values (forward only
    unless ``grad_edge``: nan/inf/poles give meaningless gradients there)."""
    def gen(mk):
        for smp in _gen(mk):
            if rtol32 and mk.dtype == F32:
                smp.rtol = rtol32
                smp.note = smp.note or _RTOL32_NOTE
            yield smp

    def _gen(mk):
        if mk.dtype in (I64, BOOL):
            yield S(mk.rng.integers(ints[0], ints[1], (2, 3)).astype(mk.np)
                    if mk.dtype == I64 else mk((2, 3)))
            yield S(mk.rng.integers(ints[0], ints[1], ()).astype(mk.np) if mk.dtype == I64
                    else mk(()))
            return
        for sh in ((), (0,), (5,), (2, 3)):
            yield S(_arr(mk, lo, hi, sh))
        yield S(_arr(mk, lo, hi, (3, 2)), pre='t')
        yield S(_arr(mk, lo, hi, (40,)), gc=False, desc='wide')
        if edge:
            yield S(np.array(_EDGE if edge_values is None else edge_values, mk.np),
                    grad=grad_edge, gc=False, desc='edge',
                    note=None if grad_edge else
                    'edge values (inf, nan, poles): values compared, gradients not')
    return gen


_NOGRAD = ('airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'modified_bessel_i0',
           'modified_bessel_i1', 'modified_bessel_k0', 'modified_bessel_k1',
           'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1', 'spherical_bessel_j0')

UNARY = [  # name, lo, hi, dtypes, entry options
    ('airy_ai', -30., 30., NUMS, dict(atol=5e-6, note=(
        "torch's airy_ai is off by up to 3e-6 (absolute) on -9 < x < -2.09 (checked against "
        "scipy.special.airy, which agrees with ember to 1e-14): compared with atol 5e-6")),
    ),
    ('bessel_j0', -40., 40., NUMS, {}),
    ('bessel_j1', -40., 40., NUMS, {}),
    ('bessel_y0', 0.1, 40., NUMS, {}),
    ('bessel_y1', 0.1, 40., NUMS, {}),
    ('modified_bessel_i0', -30., 30., NUMS, {}),
    ('modified_bessel_i1', -30., 30., NUMS, {}),
    ('modified_bessel_k0', 0.05, 30., NUMS, {}),
    ('modified_bessel_k1', 0.05, 30., NUMS, {}),
    ('scaled_modified_bessel_k0', 0.05, 60., NUMS, {}),
    ('scaled_modified_bessel_k1', 0.05, 60., NUMS, {}),
    ('spherical_bessel_j0', -20., 20., NUMS, {}),
    ('i0', -30., 30., NUMS, {}),
    ('i0e', -60., 60., NUMS, {}),
    ('i1', -30., 30., NUMS, {}),
    ('i1e', -60., 60., NUMS, {}),
    ('erfcx', -5., 30., NUMS, {}),
    ('ndtr', -8., 8., NUMS, {}),
    ('log_ndtr', -30., 8., NUMS, dict(rtol32=1e-4)),
    ('ndtri', 0.001, 0.999, NUMS, {}),
    ('entr', 0.01, 5., NUMS, {}),
    ('sinc', -4., 4., NUMS + (BOOL,), {}),
    ('expit', -5., 5., NUMS, {}),
    ('gammaln', 0.1, 20., NUMS, {}),
    ('psi', 0.1, 20., NUMS, {}),
    ('digamma', 0.1, 20., NUMS, {}),
    ('erf', -4., 4., NUMS, {}),
    ('erfc', -4., 8., NUMS, {}),
    ('erfinv', -0.99, 0.99, NUMS, {}),
    ('exp2', -5., 5., NUMS, {}),
    ('expm1', -5., 5., NUMS, {}),
    ('log1p', -0.9, 5., NUMS, {}),
    ('logit', 0.05, 0.95, NUMS, {}),
]

for _n, _lo, _hi, _dts, _o in UNARY:
    if _n in _NOGRAD:       # torch records no gradient for these (nor does ember)
        _o = dict(_o, gradcheck=False)
    OPS.append(OpInfo('special.' + _n, _sp(_n), unary(_lo, _hi, rtol32=_o.pop('rtol32', None)),
                      dtypes=_dts, **_o))


# the torch.* and Tensor forms
def _t(name, *pa, **kw):
    return lambda m, *a: getattr(m, name)(*a, *pa, **kw)


def _meth(name, *pa, **kw):
    return lambda m, x, *a: getattr(x, name)(*a, *pa, **kw)


def _inpl(name, *pa, **kw):
    return lambda m, x, *a: getattr(x.clone(), name)(*a, *pa, **kw)


def _inpl_fn(name):
    return lambda m, x, *a: getattr(m, name)(x.clone(), *a)


OPS += [
    OpInfo('i0', _t('i0'), unary(-30., 30.), dtypes=NUMS),
    OpInfo('i0.method', _meth('i0'), unary(-5., 5., edge=False), dtypes=(F32,), gradcheck=False),
    OpInfo('i0_', _inpl('i0_'), unary(-5., 5., edge=False), dtypes=(F32, F64), gc_max=1),
    OpInfo('i0_.fn', _inpl_fn('i0_'), unary(-5., 5., edge=False), dtypes=(F32,), gc_max=1),
    OpInfo('sinc', _t('sinc'), unary(-4., 4.), dtypes=NUMS),
    OpInfo('sinc.method', _meth('sinc'), unary(-4., 4., edge=False), dtypes=(F32,),
           gradcheck=False),
    OpInfo('sinc_', _inpl('sinc_'), unary(-4., 4., edge=False), dtypes=(F32, F64), gc_max=1),
    OpInfo('sinc_.fn', _inpl_fn('sinc_'), unary(-4., 4., edge=False), dtypes=(F32,), gc_max=1),
]


def _sinc_complex(mk):
    r = mk.rng
    yield S((r.uniform(-2, 2, (2, 3)) + 1j * r.uniform(-1, 1, (2, 3))).astype(mk.np))
    yield S(np.array([0j, 1 + 0j, 0.5 + 0.5j], mk.np), gc=False)


OPS.append(OpInfo('sinc:complex', _t('sinc'), _sinc_complex, dtypes=('complex128',),
                  gc_max=1))


# --------------------------------------------------------------------- complex inputs raise
def _cplx(mk):
    yield S(np.array([1 + 1j, 2j], 'complex64'), grad=False, desc='complex64')


for _n in ('airy_ai', 'bessel_j0', 'bessel_y1', 'modified_bessel_k0', 'i0', 'i0e', 'i1',
           'i1e', 'erfcx', 'ndtr', 'log_ndtr', 'ndtri', 'entr', 'spherical_bessel_j0'):
    OPS.append(OpInfo(f'special.{_n}:complex', _sp(_n), _cplx, dtypes=(F32,), grad=False))


# --------------------------------------------------------------------- multigammaln
def _mvl_samples(p):
    def gen(mk):
        lo = (p - 1) / 2 + 0.1
        if mk.dtype == I64:
            yield S(mk.rng.integers(p, p + 4, (2, 3)).astype(mk.np))
            return
        for sh in ((), (0,), (2, 3)):
            yield S(_arr(mk, lo, lo + 6, sh))
        yield S(_arr(mk, lo, lo + 6, (3, 2)), pre='t')
        yield S(np.array([lo, 1e3, INF, NAN], mk.np), grad=False, gc=False,
                note='edge values: forward only')
    return gen


for _p in (1, 2, 3, 5):
    OPS.append(OpInfo(f'special.multigammaln:{_p}', _sp('multigammaln', _p),
                      _mvl_samples(_p), dtypes=NUMS))
    OPS.append(OpInfo(f'mvlgamma:{_p}', lambda m, x, _p=_p: m.mvlgamma(x, p=_p),
                      _mvl_samples(_p), dtypes=(F32, F64), gc_max=1))
OPS += [
    OpInfo('mvlgamma.method', lambda m, x: x.mvlgamma(2), _mvl_samples(2), dtypes=(F32,),
           gradcheck=False),
    OpInfo('mvlgamma_', lambda m, x: x.clone().mvlgamma_(2), _mvl_samples(2),
           dtypes=(F32, F64), gc_max=1),
    OpInfo('special.multigammaln:p0', _sp('multigammaln', 0), _mvl_samples(1), dtypes=(F32,)),
]


# --------------------------------------------------------------------- binary ops
_BIN_SHAPES = (((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((), ()),
               ((0, 3), (3,)))


def binary(da, db, scalars=True, edge=None, ints=None):
    """``da``/``db``: (lo, hi) of each operand; ``edge``: (a-values, b-values) pairs
    compared forward-only."""
    def gen(mk):
        if mk.dtype == I64:
            lo, hi = ints or (1, 5)
            yield S(mk.rng.integers(lo, hi, (2, 3)).astype(mk.np),
                    mk.rng.integers(lo, hi, (3,)).astype(mk.np))
            if scalars:
                yield S(mk.rng.integers(lo, hi, (2, 3)).astype(mk.np), 2)
            return
        for sa, sb in _BIN_SHAPES:
            yield S(_arr(mk, *da, sa), _arr(mk, *db, sb))
        yield S(_arr(mk, *da, (3, 2)), _arr(mk, *db, (3, 2)), pre='t')
        yield S(_arr(mk, *da, (2, 3)), _arr(mk, *db, (4,)))            # not broadcastable
        if scalars:
            yield S(_arr(mk, *da, (2, 3)), float(np.mean(db)))
            yield S(float(np.mean(da)), _arr(mk, *db, (2, 3)))
            yield S(_arr(mk, *da, (2, 3)), int(round(np.mean(db))))
            yield S(_arr(mk, *da, (3,)), _arr(mk, *db, (3,)).astype(np.float64),
                    desc='mixed dtypes')
        if edge is not None:
            a, b = edge
            yield S(np.array(a, mk.np), np.array(b, mk.np), grad=False, gc=False, desc='edge',
                    note='edge values (inf, nan, poles, domain ends): forward only')
    return gen


_ZETA_EDGE = ([1., 0.5, 2., 2., 2., 3., 2., INF, 2., NAN, 2.5, -1., 2., 30., 1.5, 4.],
              [1., 1., 0., -1., -0.5, -1.5, INF, 2., 1e-30, 1., -0.5, 2., NAN, 0.5, 1e4, -7.5])
_IGAMMA_EDGE = ([NAN, INF, -1., 0., 0., 0.5, 2., INF, 3., 1., 100., 0.01, 1e3, 40., 5.],
                [1., 1., 1., 0., 2., 0., INF, INF, -1., NAN, 90., 3., 1.01e3, 1e-3, 5.])
_XLOG1PY_EDGE = ([0., 0., 1., 0., 2., NAN, 0., -1.], [-1., NAN, -1., -2., INF, 0., INF, 0.5])

OPS += [
    OpInfo('special.zeta', _sp('zeta'), binary((1.5, 6.), (0.5, 4.), edge=_ZETA_EDGE,
                                               ints=(2, 5)), dtypes=NUMS),
    OpInfo('special.xlog1py', _sp('xlog1py'), binary((-2., 2.), (-0.9, 3.),
                                                     edge=_XLOG1PY_EDGE, ints=(0, 4)),
           dtypes=NUMS),
    OpInfo('special.xlogy', _sp('xlogy'), binary((-2., 2.), (0.1, 3.)), dtypes=NUMS),
    OpInfo('special.gammainc', _sp('gammainc'),
           binary((0.2, 6.), (0.1, 8.), scalars=False, edge=_IGAMMA_EDGE), dtypes=NUMS),
    OpInfo('special.gammaincc', _sp('gammaincc'),
           binary((0.2, 6.), (0.1, 8.), scalars=False, edge=_IGAMMA_EDGE), dtypes=NUMS),
    OpInfo('igamma', _t('igamma'), binary((0.2, 6.), (0.1, 8.), scalars=False), dtypes=NUMS),
    OpInfo('igammac', _t('igammac'), binary((0.2, 6.), (0.1, 8.), scalars=False),
           dtypes=NUMS),
    OpInfo('igamma.method', _meth('igamma'), binary((0.2, 6.), (0.1, 8.), scalars=False),
           dtypes=(F32,), gradcheck=False),
    OpInfo('igammac_', _inpl('igammac_'), binary((0.2, 6.), (0.1, 8.), scalars=False),
           dtypes=(F32,), gc_max=1),
    OpInfo('igamma_', _inpl('igamma_'), binary((0.2, 6.), (0.1, 8.), scalars=False),
           dtypes=(F32,), gc_max=1),
]


# orthogonal polynomials: x, integer-valued degrees (as tensors of x's dtype or numbers)
def poly(lo, hi):
    def gen(mk):
        r = mk.rng
        if mk.dtype == I64:
            yield S(r.integers(-2, 3, (2, 3)).astype(mk.np), r.integers(0, 6, (3,)))
            yield S(r.integers(-2, 3, (2, 3)).astype(mk.np), 3)
            yield S(2, r.integers(0, 6, (3,)))
            return
        n = np.array([0., 1., 2., 3., 4., 5., 6., 7., 9., 12.], mk.np)
        yield S(_arr(mk, lo, hi, (10,)), n, grad=False)
        yield S(_arr(mk, lo, hi, (3, 1)), n[None, :6], grad=False)
        yield S(_arr(mk, lo, hi, (2, 3)), 4, grad=False)
        yield S(_arr(mk, lo, hi, (2, 3)), 2.7, grad=False)
        yield S(0.25, n, grad=False)
        yield S(_arr(mk, lo, hi, ()), np.array(3., mk.np), grad=False)
        yield S(_arr(mk, lo, hi, (0,)), n[:1], grad=False)
        yield S(_arr(mk, lo, hi, (2, 3)), n[:4], grad=False)           # not broadcastable
        # degrees < 0, non-finite, fractional; x at +-1, 0, outside [-1, 1], nan
        x = np.array([-2., -1., -0.5, 0., 0.3, 1., 2., 1.5, NAN, INF], mk.np)
        d = np.array([-1., NAN, INF, 2.7, 3., 7., 10., 25., 5., 3.], mk.np)
        yield S(x[:, None], d[None, :], grad=False, desc='edge grid')
        yield S(np.array([0., 0.5, 1., -0.5, 0.25], mk.np), 30., grad=False, desc='n=30')
    return gen


_POLYS = ['chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v',
          'chebyshev_polynomial_w', 'shifted_chebyshev_polynomial_t',
          'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
          'shifted_chebyshev_polynomial_w', 'hermite_polynomial_h', 'hermite_polynomial_he',
          'laguerre_polynomial_l', 'legendre_polynomial_p']
for _n in _POLYS:
    _lo, _hi = (0., 1.) if _n.startswith('shifted') else (-1.2, 1.2)
    OPS.append(OpInfo('special.' + _n, _sp(_n), poly(_lo, _hi), dtypes=NUMS, rtol=1e-5,
                      atol=1e-5, note='float32: torch evaluates the recurrence in float32, '
                      'ember in float64 (both round to float32 at the end)'))


# --------------------------------------------------------------------- re-exported ops
def _dim_samples(mk):
    for sh, dim in (((2, 3), 1), ((2, 3), 0), ((4,), -1), ((), 0), ((0, 3), 1)):
        yield S(mk(sh), dim)
    yield S(mk((2, 3)), 2)


OPS += [
    OpInfo('special.softmax', _sp('softmax'), _dim_samples, dtypes=(F32, F64)),
    OpInfo('special.log_softmax', _sp('log_softmax'), _dim_samples, dtypes=(F32, F64)),
    OpInfo('special.softmax:dtype', lambda m, x, d: m.special.softmax(x, d, dtype=m.float64),
           _dim_samples, dtypes=(F32,)),
    OpInfo('special.logsumexp', _sp('logsumexp'), _dim_samples, dtypes=(F32, F64)),
    OpInfo('special.logsumexp:keepdim', _sp('logsumexp', keepdim=True), _dim_samples,
           dtypes=(F32,)),
    OpInfo('special.polygamma', lambda m, x: m.special.polygamma(2, x),
           unary(0.2, 5., edge_values=[v for v in _EDGE if v != INF]), dtypes=(F32, F64),
           note="edge values without +inf: ember.polygamma(2, inf) is -0, torch's nan "
                "(ember.polygamma is not this family's op)"),
    OpInfo('special.round', _sp('round'), unary(-5., 5., edge=False), dtypes=NUMS),
    OpInfo('special.round:decimals', _sp('round', decimals=2), unary(-5., 5., edge=False),
           dtypes=(F32, F64)),
    OpInfo('special.logit:eps', _sp('logit', eps=0.2), unary(0.05, 0.95, edge=False),
           dtypes=(F32, F64)),
]
