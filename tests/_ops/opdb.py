"""The op database driving the generic oracle harness (tests/_ops/test_opdb.py).

Each :class:`OpInfo` names an op, says how to call it (``fn(m, *tensors, **kw)`` with ``m``
being ``ember`` or ``torch``), which dtypes to try, and yields :class:`S` samples for a
dtype: positional arguments (numpy arrays become tensors of both libraries, anything else
passes through unchanged), keyword arguments, and per-sample switches.

The harness runs every (entry, dtype, sample):

* where torch raises, ember must raise the same exception type;
* otherwise values, dtypes and shapes must match torch's, and for floating dtypes the
  gradients of every floating input under a random upstream gradient (a torch backward that
  raises must raise in ember too);
* for entries with ``gradcheck=True``, a few small float64 samples also run ember's
  finite-difference ``gradcheck``.

Differences from torch that are harmless are written next to the sample or entry they
concern (``note=``), with the reason; nothing is skipped silently.
"""
import zlib

import numpy as np

F32, F64, I64, BOOL = 'float32', 'float64', 'int64', 'bool'
FLOAT = (F32, F64)
NUM = (F32, F64, I64)
ALL = (F32, F64, I64, BOOL)
INF, NAN = float('inf'), float('nan')


class S:
    """A sample input.

    Args:
        *args: positional args of the op (numpy arrays become tensors).
        grad (bool): compare gradients (floating dtypes only).
        gc (bool): usable for float64 gradcheck.
        pre (str): ``'t'``: every tensor arg of >= 2 dims is passed transposed (``.mT``), a
            non-contiguous view (arrays are generated with the last two dims swapped).
        ref: ``ref(m, *args, **kw)`` run for torch instead of the op, where torch's own op
            has a documented quirk (see ``note``); ember still runs the op itself.
        note (str): why this sample is compared differently from the default.
        rtol, atol: tolerances overriding the entry's.
        **kw: keyword args of the op.
    """
    __slots__ = ('args', 'kw', 'grad', 'gc', 'pre', 'note', 'rtol', 'atol', 'desc', 'ref')

    def __init__(self, *args, grad=True, gc=True, pre=None, note=None, rtol=None, atol=None,
                 desc=None, ref=None, **kw):
        self.args, self.kw, self.grad, self.gc, self.pre = args, kw, grad, gc, pre
        self.ref = ref
        self.note, self.rtol, self.atol = note, rtol, atol
        self.desc = desc or _describe(args, kw, pre)


def _d1(a):
    if isinstance(a, np.ndarray):
        s = 'x'.join(map(str, a.shape)) if a.ndim else '0d'
        if a.dtype == np.int64:
            s = 'i' + s
        elif a.dtype == np.bool_:
            s = 'b' + s
        return s
    if isinstance(a, (list, tuple)):
        return '[' + ','.join(_d1(x) for x in a) + ']'
    if isinstance(a, float) and a != a:
        return 'nan'
    return repr(a)


def _describe(args, kw, pre):
    parts = [_d1(a) for a in args] + [f'{k}={_d1(v)}' for k, v in kw.items()]
    return ('T:' if pre == 't' else '') + ','.join(parts)


def with_note(gen, note, when=lambda mk, s: True, **changes):
    """Samples of ``gen`` with ``changes`` (grad=False, ref=..., ...) and ``note`` applied
    where ``when(mk, sample)`` holds."""
    def g(mk):
        for smp in gen(mk):
            if when(mk, smp):
                for k, v in changes.items():
                    setattr(smp, k, v)
                smp.note = note
            yield smp
    return g


class OpInfo:
    """One op of the database.

    Args:
        name: test id (the op's name, or a variant such as ``'div_floor'``).
        fn: ``fn(m, *args, **kw)`` runs the op with module ``m``.
        samples: ``samples(mk)`` yields :class:`S`; ``mk`` is a :class:`Maker` of the dtype.
        dtypes: dtypes to run (gradients are compared for floating ones only).
        grad: compare gradients at all.
        gradcheck: run float64 gradcheck on up to ``gc_max`` small samples.
        rtol, atol: tolerances (None: assert_close's per-dtype defaults).
        note: documented deviation that applies to the whole entry.
    """
    def __init__(self, name, fn, samples, dtypes=FLOAT, grad=True, gradcheck=True, gc_max=2,
                 rtol=None, atol=None, note=None):
        self.name, self.fn, self.samples, self.dtypes = name, fn, samples, dtypes
        self.grad, self.gradcheck, self.gc_max = grad, gradcheck, gc_max
        self.rtol, self.atol, self.note = rtol, atol, note

    def __repr__(self):
        return self.name


# ----------------------------------------------------------------------------- inputs

SPECIAL = [0., -0., 1., -1., 0.5, -0.5, 2.5, -2.5, 1e-30, 40., -40., INF, -INF, NAN]

# domain -> (float range, int range [lo, hi))
_RANGES = {
    'real': ((-2, 2), (-3, 4)), 'pos': ((0.2, 2.5), (1, 5)), 'unit': ((-0.9, 0.9), (-1, 2)),
    'gt1': ((1.2, 3.0), (1, 4)), 'prob': ((0.05, 0.95), (0, 2)), 'small': ((-1, 1), (-1, 2)),
    'shift': ((0, 3), (0, 4)),
}
# a representative (float, int) Python scalar of each domain
SCALAR = {'real': (-1.5, -2), 'pos': (1.5, 2), 'unit': (0.5, 0), 'gt1': (1.5, 2),
          'prob': (0.25, 0), 'away': (1.75, 2), 'nz': (-1.5, 3), 'small': (0.5, 1),
          'shift': (1.0, 1)}


class Maker:
    """Makes arrays of one dtype with values in a named domain, reproducibly."""

    def __init__(self, dtype, seed):
        self.dtype = dtype
        self.np = np.dtype(dtype)
        self.is_float = self.np.kind in 'fc'
        self.rng = np.random.default_rng(seed)

    def __call__(self, shape, dom='real', dtype=None):
        dt = np.dtype(dtype or self.dtype)
        rng = self.rng
        if dt.kind == 'b':
            if dom in ('nz', 'pos', 'gt1'):
                return np.ones(shape, bool)
            return rng.integers(0, 2, shape).astype(bool)
        if dt.kind in 'iu':
            if dom == 'uniq':       # distinct values: no ties
                n = int(np.prod(shape))
                return (rng.permutation(n) - n // 2).reshape(shape).astype(dt)
            if dom in ('away', 'real', 'uniq'):
                return rng.integers(-3, 4, shape).astype(dt)
            if dom == 'nz':
                return (rng.integers(1, 4, shape) * rng.choice([-1, 1], shape)).astype(dt)
            lo, hi = _RANGES[dom][1]
            return rng.integers(lo, hi, shape).astype(dt)
        if dt.kind == 'c':
            lo, hi = _RANGES.get(dom, _RANGES['real'])[0]
            return np.asarray(rng.uniform(lo, hi, shape) + 1j * rng.uniform(-1, 1, shape), dt)
        if dom in ('away', 'nz'):
            # away from integers and zero: kinks of abs/floor/round/relu/sign lie elsewhere
            a = np.floor(rng.uniform(-3, 3, shape)) + 0.25 + 0.5 * rng.uniform(0, 1, shape)
            return np.asarray(a, dt)
        lo, hi = _RANGES['real' if dom == 'uniq' else dom][0]
        return np.asarray(rng.uniform(lo, hi, shape), dt)

    def special(self):
        return np.array(SPECIAL, self.np)

    def scalar(self, dom='real', kind=float):
        f, i = SCALAR[dom]
        return f if kind is float else i

    def index(self, high, shape):
        return self.rng.integers(0, high, shape).astype(np.int64)

    def perm(self, n):
        return self.rng.permutation(n).astype(np.int64)


def seed_of(name, dtype):
    return zlib.crc32(f'{name}/{dtype}'.encode())


# ----------------------------------------------------------------------------- pointwise

UNARY_SHAPES = ((), (0,), (3,), (2, 3), (2, 1, 4))


_SPECIAL_GRAD_NOTE = (
    "special values (inf, nan, +-0, ...) outside the op's domain: values are compared, "
    "gradients are not (where the output is nan the gradient is meaningless, and torch's "
    "formulas return arbitrary finite numbers there, e.g. acosh at x < -1, or digamma's "
    "gradient polygamma(1, x) at the poles x = -1, -40 from its reflection formula)")


def unary_samples(dom='real', special=True, special_grad=None, **kw):
    if special_grad is None:
        special_grad = dom in ('real', 'away', 'small')

    def gen(mk):
        for sh in UNARY_SHAPES:
            yield S(mk(sh, dom), **kw)
        yield S(mk((3, 2), dom), pre='t', **kw)
        if special and mk.is_float:
            yield S(mk.special(), gc=False, grad=special_grad,
                    note=None if special_grad else _SPECIAL_GRAD_NOTE, **kw)
    return gen


def _m(name):
    return lambda m, *a, **kw: getattr(m, name)(*a, **kw)


def _meth(name):
    return lambda m, x, *a, **kw: getattr(x, name)(*a, **kw)


def _inplace(name):
    # clone first: in-place on a leaf that requires grad raises in both libraries
    return lambda m, x, *a, **kw: getattr(x.clone(), name)(*a, **kw)


def _few(dom='real'):
    """A short sample list for variants (in-place forms, extra keyword args)."""
    def gen(mk):
        yield S(mk((2, 3), dom))
        yield S(mk((), dom))
        yield S(mk((0, 2), dom))
    return gen


UNARY = [  # name, domain
    ('abs', 'away'), ('neg', 'real'), ('positive', 'real'), ('sign', 'away'),
    ('sgn', 'away'), ('sqrt', 'pos'), ('rsqrt', 'pos'), ('square', 'real'),
    ('reciprocal', 'nz'), ('exp', 'real'), ('exp2', 'real'), ('expm1', 'real'),
    ('log', 'pos'), ('log2', 'pos'), ('log10', 'pos'), ('log1p', 'pos'), ('sin', 'real'),
    ('cos', 'real'), ('tan', 'unit'), ('asin', 'unit'), ('acos', 'unit'), ('atan', 'real'),
    ('sinh', 'real'), ('cosh', 'real'), ('tanh', 'real'), ('asinh', 'real'),
    ('acosh', 'gt1'), ('atanh', 'unit'), ('sigmoid', 'real'), ('logit', 'prob'),
    ('erf', 'real'), ('erfc', 'real'), ('erfinv', 'unit'), ('lgamma', 'away'),
    ('digamma', 'away'), ('floor', 'away'), ('ceil', 'away'), ('round', 'away'),
    ('trunc', 'away'), ('fix', 'away'), ('frac', 'away'), ('deg2rad', 'real'),
    ('rad2deg', 'real'), ('relu', 'away'), ('nan_to_num', 'real'), ('isnan', 'real'),
    ('isinf', 'real'), ('isfinite', 'real'), ('logical_not', 'real'),
    ('bitwise_not', 'real'), ('angle', 'away'), ('signbit', 'away'), ('isposinf', 'real'),
    ('isneginf', 'real'), ('isreal', 'real'),
]

OPS = []

for _n, _dom in UNARY:
    OPS.append(OpInfo(_n, _m(_n), unary_samples(_dom, special_grad=False if _n == 'digamma'
                                                else None), dtypes=ALL))
    OPS.append(OpInfo(_n + '.method', _meth(_n), _few(_dom), dtypes=(F32,), gradcheck=False))


_UNARY_INPLACE = [n for n, _ in UNARY if n not in (
    'positive', 'isnan', 'isinf', 'isfinite', 'angle', 'signbit', 'isposinf', 'isneginf',
    'isreal')]
_NO_TORCH_INPLACE_GRAD = (
    "torch has no derivative for the in-place {0}_ ('the derivative for inplace version of "
    "{0} is not implemented'); ember's {0}_ is differentiable, its gradient is compared with "
    "torch's out-of-place {0}")
_LOGICAL_INPLACE_NOTE = (
    "torch records no autograd node for in-place logical ops on float tensors, so its gradient "
    "passes through {0}_ unchanged (wrong); ember treats the result as constant: forward only")
for _n, _dom in UNARY:
    if _n in _UNARY_INPLACE:
        _g = _few(_dom)
        _gr = True
        if _n in ('asinh', 'acosh', 'atanh'):
            _g = with_note(_g, _NO_TORCH_INPLACE_GRAD.format(_n), lambda mk, s: mk.is_float,
                           ref=_m(_n))
        if _n == 'logical_not':
            _g = with_note(_g, _LOGICAL_INPLACE_NOTE.format(_n), lambda mk, s: mk.is_float,
                           grad=False)
        OPS.append(OpInfo(_n + '_', _inplace(_n + '_'), _g, dtypes=(F32, I64, BOOL),
                          gc_max=1))


def _kw_unary(name, dom, *kws, dtypes=FLOAT, **opts):
    def gen(mk):
        for kw in kws:
            for sh in ((2, 3), ()):
                yield S(mk(sh, dom), **kw)
    return OpInfo(name, opts.pop('fn', _m(name.split(':')[0])), gen, dtypes=dtypes, **opts)


OPS += [
    _kw_unary('round:decimals', 'real', dict(decimals=1), dict(decimals=-1), dtypes=ALL),
    OpInfo('round:decimals0', _m('round'), with_note(
        lambda mk: iter([S(mk((2, 3), 'away'), decimals=0), S(mk((), 'away'), decimals=0)]),
        "torch.round(int_tensor, decimals=0) raises NotImplementedError while "
        "torch.round(int_tensor) works; ember treats decimals=0 as plain round()",
        lambda mk, s: mk.dtype == I64, ref=lambda m, x, decimals: m.round(x)), dtypes=ALL),
    _kw_unary('logit:eps', 'prob', dict(eps=0.1), dict(eps=0.4)),
    _kw_unary('nan_to_num:kw', 'real', dict(nan=1.5), dict(posinf=9.0, neginf=-9.0)),
    _kw_unary('clamp:scalar', 'away', dict(min=-0.5), dict(max=0.5), dict(min=-1, max=1),
              dict(min=1.0, max=-1.0), dict(min=0.1, max=0.1), dtypes=ALL),
    _kw_unary('clamp_min', 'away', dict(min=0.5), dtypes=NUM),
    _kw_unary('clamp_max', 'away', dict(max=0.5), dtypes=NUM),
    _kw_unary('clip', 'away', dict(min=-0.5, max=0.5), dtypes=NUM),
    _kw_unary('clamp_:scalar', 'away', dict(min=-0.5, max=0.5), dtypes=NUM,
              fn=_inplace('clamp_')),
    _kw_unary('pow:scalar', 'pos', dict(exponent=2), dict(exponent=0.5), dict(exponent=-1),
              dict(exponent=0), dict(exponent=3.0), dict(exponent=-2), dtypes=ALL),
    _kw_unary('float_power:scalar', 'pos', dict(exponent=2), dict(exponent=-0.5),
              dtypes=NUM),
]


def _polygamma(n):
    return lambda m, x: m.polygamma(n, x)


for _k in (0, 1, 2, 3):
    OPS.append(OpInfo(f'polygamma:{_k}', _polygamma(_k), unary_samples('pos', special=False),
                      dtypes=NUM))

# --------------------------------------------------------------------- binary pointwise

BIN_SHAPES = (((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((), ()),
              ((0, 3), (3,)), ((2, 1, 4), (3, 1)))


_F64_0D_GRAD = ("the float64 0-dim operand's gradient is a sum of float32 gradients: torch "
                "sums in float32 then casts, ember sums in float64 (tolerance 2e-6)")


def binary_samples(da='real', db='real', scalars=True, left=True, mixed=True):
    def gen(mk):
        for sa, sb in BIN_SHAPES:
            yield S(mk(sa, da), mk(sb, db))
        yield S(mk((3, 2), da), mk((3, 2), db), pre='t')
        yield S(mk((2, 3), da), mk((4,), db))                       # not broadcastable
        if scalars:
            yield S(mk((2, 3), da), mk.scalar(db, float))
            yield S(mk((2, 3), da), mk.scalar(db, int))
            yield S(mk((), da), mk.scalar(db, float))
        if left:
            yield S(mk.scalar(da, float), mk((2, 3), db))
            yield S(mk.scalar(da, int), mk((3,), db))
        if mixed:
            # a 0-dim float64 tensor does not outrank a dimensioned tensor of the same category
            yield S(mk((2, 3), da), mk((), db, dtype=F64), rtol=2e-6, note=_F64_0D_GRAD)
            yield S(mk((3,), da), mk((3,), db, dtype=I64))
            yield S(mk((3,), da, dtype=F32), mk((3,), db))
    return gen


BINARY = [  # name, domain a, domain b, dtypes, options
    ('add', 'real', 'real', ALL, {}), ('sub', 'real', 'real', ALL, {}),
    ('mul', 'real', 'real', ALL, {}), ('div', 'real', 'nz', ALL, {}),
    ('true_divide', 'real', 'nz', NUM, {}),
    ('floor_divide', 'away', 'nz', ALL, {}), ('remainder', 'away', 'nz', ALL, {}),
    ('fmod', 'away', 'nz', ALL, {}), ('pow', 'pos', 'real', ALL, {}),
    ('float_power', 'pos', 'real', ALL, {}), ('atan2', 'real', 'real', ALL, {}),
    ('hypot', 'real', 'real', ALL, {}), ('xlogy', 'real', 'pos', ALL, {}),
    ('maximum', 'real', 'real', ALL, {}), ('minimum', 'real', 'real', ALL, {}),
    ('fmax', 'real', 'real', ALL, {}), ('fmin', 'real', 'real', ALL, {}),
    ('logaddexp', 'real', 'real', ALL, {}), ('logaddexp2', 'real', 'real', ALL, {}),
    ('copysign', 'real', 'nz', ALL, {}), ('heaviside', 'away', 'real', ALL, {}),
    ('eq', 'small', 'small', ALL, {}), ('ne', 'small', 'small', ALL, {}),
    ('lt', 'small', 'small', ALL, {}), ('le', 'small', 'small', ALL, {}),
    ('gt', 'small', 'small', ALL, {}), ('ge', 'small', 'small', ALL, {}),
    ('logical_and', 'small', 'small', ALL, {}), ('logical_or', 'small', 'small', ALL, {}),
    ('logical_xor', 'small', 'small', ALL, {}),
    ('bitwise_and', 'real', 'real', ALL, {}), ('bitwise_or', 'real', 'real', ALL, {}),
    ('bitwise_xor', 'real', 'real', ALL, {}),
    ('bitwise_left_shift', 'real', 'shift', ALL, {}),
    ('bitwise_right_shift', 'real', 'shift', ALL, {}),
    ('isclose', 'small', 'small', ALL, {}),
]

for _n, _da, _db, _dts, _o in BINARY:
    OPS.append(OpInfo(_n, _m(_n), binary_samples(_da, _db), dtypes=_dts, **_o))


def _inplace_bin(da, db):
    def gen(mk):
        yield S(mk((2, 3), da), mk((2, 3), db))
        yield S(mk((2, 3), da), mk((3,), db))
        yield S(mk((3,), da), mk((2, 3), db))            # would need to resize self: error
        yield S(mk((2, 3), da), mk.scalar(db, float))
        yield S(mk((2, 3), da), mk.scalar(db, int))
        yield S(mk((), da), mk((), db))
        yield S(mk((2, 3), da), mk((3,), db, dtype=F64))
        yield S(mk((3,), da), mk((3,), db, dtype=I64))
    return gen


_HAS_INPLACE = {'add', 'sub', 'mul', 'div', 'true_divide', 'floor_divide', 'remainder',
                'fmod', 'pow', 'float_power', 'atan2', 'hypot', 'xlogy', 'copysign',
                'heaviside', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or',
                'logical_xor', 'bitwise_and', 'bitwise_or', 'bitwise_xor',
                'bitwise_left_shift', 'bitwise_right_shift'}
_CMP_INPLACE_NOTE = (
    "torch's in-place comparison {0}_ on a float tensor gives zero-filled gradients; ember's "
    "result is constant (None gradient for `other`): forward compared only")
for _n, _da, _db, _dts, _o in BINARY:
    if _n in _HAS_INPLACE:
        _g = _inplace_bin(_da, _db)
        if _n.startswith('logical_'):
            _g = with_note(_g, _LOGICAL_INPLACE_NOTE.format(_n), lambda mk, s: mk.is_float,
                           grad=False)
        elif _n in ('eq', 'ne', 'lt', 'le', 'gt', 'ge'):
            _g = with_note(_g, _CMP_INPLACE_NOTE.format(_n), lambda mk, s: mk.is_float,
                           grad=False)
        OPS.append(OpInfo(_n + '_', _inplace(_n + '_'), _g, dtypes=tuple(
            d for d in _dts if d != F64), gc_max=1))


def _kw_binary(name, da, db, *kws, dtypes=ALL, fn=None, **opts):
    def gen(mk):
        for kw in kws:
            yield S(mk((2, 3), da), mk((3,), db), **kw)
            yield S(mk((), da), mk((2, 1), db), **kw)
            yield S(mk((2, 3), da), mk.scalar(db, float), **kw)
            yield S(mk((2, 3), da), mk.scalar(db, int), **kw)
    return OpInfo(name, fn or _m(name.split(':')[0]), gen, dtypes=dtypes, **opts)


OPS += [
    _kw_binary('add:alpha', 'real', 'real', dict(alpha=2), dict(alpha=-0.5), dict(alpha=True)),
    _kw_binary('sub:alpha', 'real', 'real', dict(alpha=2), dict(alpha=0.5)),
    _kw_binary('div:trunc', 'real', 'nz', dict(rounding_mode='trunc')),
    _kw_binary('div:floor', 'real', 'nz', dict(rounding_mode='floor')),
    _kw_binary('div:none', 'real', 'nz', dict(rounding_mode=None)),
    _kw_binary('div:bad', 'real', 'nz', dict(rounding_mode='nearest'), dtypes=(F32,)),
    _kw_binary('isclose:tol', 'small', 'small', dict(rtol=0.5, atol=0.1),
               dict(rtol=0, atol=0, equal_nan=True)),
    _kw_binary('allclose', 'small', 'small', dict(), dict(rtol=10.0, atol=1.0),
               dtypes=NUM),
    _kw_binary('equal', 'small', 'small', dict(), dtypes=ALL),
    _kw_binary('div_:floor', 'real', 'nz', dict(rounding_mode='floor'), dtypes=NUM,
               fn=_inplace('div_')),
    _kw_binary('sub_:alpha', 'real', 'real', dict(alpha=2), dtypes=NUM, fn=_inplace('sub_')),
]


def _special_binary(mk):
    v = mk.special()
    yield S(v[:, None], v[None, :], gc=False)


for _n in ('add', 'mul', 'div', 'floor_divide', 'remainder', 'fmod', 'pow', 'atan2',
           'hypot', 'xlogy', 'maximum', 'minimum', 'fmax', 'fmin', 'logaddexp',
           'logaddexp2', 'copysign', 'heaviside', 'eq', 'lt', 'isclose', 'float_power'):
    OPS.append(OpInfo(_n + ':special', _m(_n), _special_binary, dtypes=FLOAT,
                      gradcheck=False))


def _same_values(mk):
    """Ties (equal operands): where max/min/fmax/clamp split or route the gradient."""
    a = mk((2, 3), 'small')
    b = a.copy()
    b[0] += 1
    yield S(a, b, gc=False)


for _n in ('maximum', 'minimum', 'fmax', 'fmin', 'hypot', 'atan2', 'logaddexp', 'xlogy'):
    OPS.append(OpInfo(_n + ':ties', _m(_n), _same_values, dtypes=FLOAT, gradcheck=False))

# operators, incl. reflected ones with a Python scalar on the left


def _op_samples(da='real', db='real', ints=False):
    def gen(mk):
        yield S(mk((2, 3), da), mk((3,), db))
        yield S(mk((0, 3), da), mk((1,), db))
        yield S(mk((2, 3), da), mk.scalar(db, float))
        yield S(mk((2, 3), da), mk.scalar(db, int))
        yield S(mk((2, 3), da), True)
        yield S(mk.scalar(da, float), mk((2, 3), db))
        yield S(mk.scalar(da, int), mk((2, 3), db))
        yield S(False, mk((3,), db))
        yield S(mk((), da), mk.scalar(db, float))
        yield S(mk.scalar(da, int), mk((), db))
    return gen


OPERATORS = [
    ('+', lambda m, a, b: a + b, 'real', 'real'), ('-', lambda m, a, b: a - b, 'real', 'real'),
    ('*', lambda m, a, b: a * b, 'real', 'real'), ('/', lambda m, a, b: a / b, 'nz', 'nz'),
    ('//', lambda m, a, b: a // b, 'nz', 'nz'), ('%', lambda m, a, b: a % b, 'nz', 'nz'),
    ('**', lambda m, a, b: a ** b, 'pos', 'pos'),
    ('&', lambda m, a, b: a & b, 'real', 'real'), ('|', lambda m, a, b: a | b, 'real', 'real'),
    ('^', lambda m, a, b: a ^ b, 'real', 'real'),
    ('<<', lambda m, a, b: a << b, 'shift', 'shift'),
    ('>>', lambda m, a, b: a >> b, 'shift', 'shift'),
    ('==', lambda m, a, b: a == b, 'small', 'small'),
    ('!=', lambda m, a, b: a != b, 'small', 'small'),
    ('<', lambda m, a, b: a < b, 'small', 'small'),
    ('<=', lambda m, a, b: a <= b, 'small', 'small'),
    ('>', lambda m, a, b: a > b, 'small', 'small'),
    ('>=', lambda m, a, b: a >= b, 'small', 'small'),
]
for _n, _f, _da, _db in OPERATORS:
    _g = _op_samples(_da, _db)
    if _n == '**':
        _g = with_note(_g, "torch's backward of `False ** tensor` (a bool Python scalar base) "
                       "fails with an internal assert (a torch bug): forward only",
                       lambda mk, s: s.args[0] is False, grad=False)
    OPS.append(OpInfo('op' + _n, _f, _g, dtypes=ALL, gradcheck=False))
OPS += [
    OpInfo('op-x', lambda m, a: -a, unary_samples('real', False), dtypes=ALL, gradcheck=False),
    OpInfo('op~x', lambda m, a: ~a, unary_samples('real', False), dtypes=ALL, gradcheck=False),
    OpInfo('op+x', lambda m, a: +a, _few(), dtypes=ALL, gradcheck=False),
    OpInfo('op abs(x)', lambda m, a: abs(a), _few('away'), dtypes=ALL, gradcheck=False),
]

# ternary pointwise


def _ternary(da, db, dc, scalar_c=True):
    def gen(mk):
        yield S(mk((2, 3), da), mk((2, 3), db), mk((2, 3), dc))
        yield S(mk((2, 3), da), mk((3,), db), mk((2, 1), dc))
        yield S(mk((), da), mk((2, 1), db), mk((3,), dc))
        yield S(mk((0, 3), da), mk((3,), db), mk((1,), dc))
        yield S(mk((3,), da), mk((2, 3), db), mk((2, 3), dc))
        if scalar_c:
            yield S(mk((2, 3), da), mk((3,), db), mk.scalar(dc, float))
    return gen


def _addc(name, dc):
    def gen(mk):
        yield from _ternary('real', 'real', dc, scalar_c=False)(mk)
        yield S(mk((2, 3)), mk((3,)), mk((2, 3), dc), value=0.5)
        yield S(mk((2, 3)), mk((3,)), mk((2, 3), dc), value=2)
    return OpInfo(name, _m(name), gen, dtypes=ALL)


OPS += [
    OpInfo('lerp', _m('lerp'), _ternary('real', 'real', 'prob'), dtypes=ALL),
    _addc('addcmul', 'real'), _addc('addcdiv', 'nz'),
    OpInfo('clamp:tensor', lambda m, x, lo, hi: m.clamp(x, lo, hi),
           with_note(_ternary('real', 'small', 'pos', scalar_c=False),
                     "torch's clamp backward fails when the bounds broadcast the input to a "
                     "larger shape ('output with shape [2, 1] doesn't match the broadcast "
                     "shape'): forward only", lambda mk, s: s.args[0].ndim == 0, grad=False),
           dtypes=NUM),
    OpInfo('clamp:tensor_min', lambda m, x, lo: m.clamp(x, min=lo),
           binary_samples('real', 'small', scalars=False, left=False), dtypes=NUM),
    OpInfo('clamp:tensor_max', lambda m, x, hi: m.clamp(x, max=hi),
           binary_samples('real', 'small', scalars=False, left=False), dtypes=NUM),
    OpInfo('clamp:none', lambda m, x: m.clamp(x), _few(), dtypes=(F32,)),
    OpInfo('lerp_', _inplace('lerp_'), _ternary('real', 'real', 'prob'), dtypes=FLOAT),
    OpInfo('addcmul_', lambda m, x, a, b: x.clone().addcmul_(a, b, value=0.5),
           _ternary('real', 'real', 'real', scalar_c=False), dtypes=NUM),
]


# ----------------------------------------------------------------------------- reductions

def red_samples(dom='real', nodim=True, int_dim=True, tuple_dim=True, none_dim=True,
                keepdim=True, empty=True, empty_full=True, noncontig=True, nan=True,
                nan_note=None, none_ref=None, **kw):
    """Samples of a reduction ``op(x, dim=..., keepdim=...)``.

    ``nan_note``: NaN samples compare values only, for that reason. ``none_ref``: the
    explicit ``dim=None`` sample is compared with this torch call (torch rejects dim=None)."""
    nan_kw = dict(grad=False, note=nan_note) if nan_note else {}

    def gen(mk):
        if nodim:
            yield S(mk((2, 3), dom), **kw)
            yield S(mk((), dom), **kw)
            yield S(mk((2, 1, 4), dom), **kw)
            if empty_full:
                yield S(mk((0,), dom), **kw)
                yield S(mk((2, 0), dom), **kw)
            if nan and mk.is_float:
                v = mk((2, 3), dom)
                v[0, 1] = NAN
                yield S(v, gc=False, **nan_kw, **kw)
        if int_dim:
            yield S(mk((2, 3, 4), dom), dim=1, **kw)
            yield S(mk((2, 3), dom), dim=-1, **kw)
            if keepdim:
                yield S(mk((2, 3), dom), dim=0, keepdim=True, **kw)
            yield S(mk((), dom), dim=0, **kw)
            yield S(mk((), dom), dim=-1, keepdim=True, **kw)
            yield S(mk((2, 3), dom), dim=2, **kw)                # out of range
            if empty:
                yield S(mk((2, 0), dom), dim=1, **kw)             # reduce the empty dim
                yield S(mk((0, 3), dom), dim=1, keepdim=True, **kw)  # keep an empty dim
            if noncontig:
                yield S(mk((4, 3), dom), dim=0, pre='t', **kw)
            if nan and mk.is_float:
                v = mk((2, 3), dom)
                v[1, 0] = NAN
                yield S(v, dim=1, gc=False, **nan_kw, **kw)
        if tuple_dim:
            yield S(mk((2, 3, 4), dom), dim=(0, 2), **kw)
            yield S(mk((2, 3, 4), dom), dim=(-1, 0), keepdim=True, **kw)
            yield S(mk((2, 3), dom), dim=(0, 0), **kw)            # repeated dim
        if none_dim:
            yield S(mk((2, 3), dom), dim=None, ref=none_ref, note=_NONE_DIM_NOTE if none_ref
                    else None, **kw)
    return gen


_NONE_DIM_NOTE = ("torch rejects an explicit dim=None here (TypeError: invalid combination of "
                  "arguments); ember accepts it as 'reduce all dims', compared with the call "
                  "without dim")


_AMAX_NAN = ("where the result is NaN torch's amax/amin backward spreads NaN over every "
             "element (x == NaN never holds, so it divides by a zero count); ember sends the "
             "gradient to the NaN element, as max() does: values compared only")
# mode: NaN samples are not generated: torch's mode of a row holding NaN depends on where
# the NaN is ([1, nan, .5] -> .5 but [nan, 1.6, .3] -> nan), so there is nothing to match.


def _median(name):
    def f(m, x, **kw):
        if m.__name__ == 'torch' and x.dtype == m.bool and x.numel() == 0 and not kw:
            # torch's median of an empty bool tensor is an undocumented True (its "lowest
            # value" fill for integers is iinfo.min); ember gives False, the lowest bool
            return m.tensor(False)
        return getattr(m, name)(x, **kw)
    return f


def _red(name, dtypes=ALL, fn=None, **opts):
    sample_opts = {k: opts.pop(k) for k in list(opts) if k in (
        'dom', 'nodim', 'int_dim', 'tuple_dim', 'none_dim', 'keepdim', 'empty', 'empty_full',
        'noncontig', 'nan', 'nan_note', 'none_ref')}
    kw = opts.pop('kw', {})
    return OpInfo(name, fn or _m(name.split(':')[0]), red_samples(**sample_opts, **kw),
                  dtypes=dtypes, **opts)


OPS += [
    _red('sum'), _red('mean'), _red('nansum'), _red('nanmean'),
    _red('prod', none_ref=lambda m, x, dim: m.prod(x)),
    _red('amax', nan_note=_AMAX_NAN), _red('amin', nan_note=_AMAX_NAN),
    _red('max', none_ref=lambda m, x, dim: m.max(x)),
    _red('min', none_ref=lambda m, x, dim: m.min(x)),
    _red('aminmax', tuple_dim=False, nan_note=_AMAX_NAN),
    _red('argmax', tuple_dim=False), _red('argmin', tuple_dim=False),
    _red('std'), _red('var'), _red('std_mean'), _red('var_mean'),
    _red('std:c0', kw=dict(correction=0), dtypes=FLOAT),
    _red('var:c2', kw=dict(correction=2), nan=False, dtypes=FLOAT),
    _red('var:unbiased', nodim=False, kw=dict(unbiased=False), dtypes=(F64,)),
    _red('logsumexp', nodim=False, none_dim=False),
    _red('all'), _red('any'), _red('count_nonzero', keepdim=False),
    _red('median', fn=_median('median'), tuple_dim=False, none_dim=False, dom='away'),
    _red('nanmedian', fn=_median('nanmedian'), tuple_dim=False, none_dim=False, dom='away'),
    _red('mode', tuple_dim=False, none_dim=False, dom='away', nodim=False, nan=False),
    _red('norm', dtypes=NUM), _red('norm:p1', kw=dict(p=1), dom='away', dtypes=FLOAT),
    _red('norm:pinf', kw=dict(p=INF), dom='away', dtypes=FLOAT),
    _red('norm:p3', kw=dict(p=3), dom='away', tuple_dim=False, dtypes=(F64,)),
    _red('norm:fro', kw=dict(p='fro'), dtypes=(F32,)),
    _red('norm:p0', kw=dict(p=0), dtypes=FLOAT, int_dim=False, tuple_dim=False),
]


def _sum_dtype(m, x, **kw):
    return m.sum(x, dtype=m.float64, **kw)


def _mean_dtype(m, x, **kw):
    return x.mean(dtype=m.float64, **kw)


OPS += [
    _red('sum:dtype', fn=_sum_dtype, tuple_dim=False, nan=False, empty=False),
    _red('mean:dtype', fn=_mean_dtype, tuple_dim=False, nan=False, empty=False),
    OpInfo('sum:empty_dims', lambda m, x: m.sum(x, dim=()), _few(), dtypes=ALL),
    OpInfo('mean:empty_dims', lambda m, x: m.mean(x, dim=[]), _few(), dtypes=FLOAT),
]


def scan_samples(dom='real', **kw):
    """Samples of a scan ``op(x, dim)`` (cumsum, cummax, ...)."""
    def gen(mk):
        yield S(mk((2, 3), dom), 1, **kw)
        yield S(mk((2, 3, 4), dom), 0, **kw)
        yield S(mk((2, 3), dom), -1, **kw)
        yield S(mk((), dom), 0, **kw)
        yield S(mk((0,), dom), 0, **kw)
        yield S(mk((2, 0), dom), 0, **kw)
        yield S(mk((4, 3), dom), 0, pre='t', **kw)
        yield S(mk((2, 3), dom), 2, **kw)                             # out of range
        if mk.is_float:
            v = mk((5,), dom)
            v[2] = NAN
            yield S(v, 0, gc=False, **kw)
    return gen


OPS += [
    OpInfo('cumsum', _m('cumsum'), scan_samples(), dtypes=ALL),
    OpInfo('cumprod', _m('cumprod'), scan_samples('away'), dtypes=ALL),
    OpInfo('cummax', _m('cummax'), scan_samples(), dtypes=ALL),
    OpInfo('cummin', _m('cummin'), scan_samples(), dtypes=ALL),
    OpInfo('logcumsumexp', _m('logcumsumexp'), scan_samples(), dtypes=ALL),
    OpInfo('cumsum:dtype', lambda m, x, d: m.cumsum(x, d, dtype=m.float64), scan_samples(),
           dtypes=(F32, I64)),
]


def _cumprod_zeros(mk):
    yield S(np.array([2., 0., 3., 0., 4.], mk.np), 0, gc=True)
    yield S(np.array([[1.5, 0., -2.], [0., 0., 2.]], mk.np), 1)


OPS.append(OpInfo('cumprod:zeros', _m('cumprod'), _cumprod_zeros, dtypes=FLOAT))


def _ties(mk):
    """Inputs with repeated values (the index a tie returns is what differs)."""
    yield S(np.array([3, 1, 3, 2, 1, 3], mk.np))
    yield S(np.array([[2, 2, 1], [0, 5, 5]], mk.np), dim=1)
    yield S(np.array([[2, 2, 1], [0, 5, 5]], mk.np), dim=0)


for _n in ('argmax', 'argmin'):
    OPS.append(OpInfo(_n + ':ties', _m(_n), _ties, dtypes=ALL, grad=False))


def _ties_dim(mk):
    yield S(np.array([[2, 2, 1], [0, 5, 5]], mk.np), 1)
    yield S(np.array([[2, 2, 1], [0, 5, 5], [1, 1, 1]], mk.np), 0)
    yield S(np.array([3, 1, 3, 2, 1, 3], mk.np), 0)


for _n in ('max', 'min', 'cummax', 'cummin', 'mode', 'median'):
    OPS.append(OpInfo(_n + ':ties', _m(_n), _ties_dim, dtypes=NUM, gradcheck=False))
OPS.append(OpInfo('kthvalue:k1:ties', lambda m, x, d: m.kthvalue(x, 1, d).values, _ties_dim,
                  dtypes=NUM, grad=False,
                  note="among equal values torch's kthvalue returns whichever index its "
                       "quickselect meets (e.g. the 3rd of three equal minima in one column, "
                       "the 1st in another); ember returns the first: values compared only"))


def _full_ties(mk):
    yield S(np.array([[2, 2, 1], [0, 5, 5]], mk.np))
    yield S(np.array([1, 4, 4, 0], mk.np))


for _n in ('max', 'min', 'amax', 'amin', 'median', 'nanmedian'):
    OPS.append(OpInfo(_n + ':full_ties', _m(_n), _full_ties, dtypes=NUM, gradcheck=False))
OPS.append(OpInfo('amax:dim_ties', lambda m, x: m.amax(x, dim=1), _full_ties, dtypes=NUM,
                  gradcheck=False))


def _quantile(mk):
    yield S(mk((5,)), 0.3)
    yield S(mk((2, 5)), 0.5, dim=1)
    yield S(mk((2, 5)), 0.25, dim=0, keepdim=True)
    yield S(mk((2, 5)), np.array([0.1, 0.5, 0.9], mk.np), dim=1)
    yield S(mk((2, 5)), np.array([0.2, 0.7], mk.np))
    yield S(mk(()), 0.5)
    for interp in ('lower', 'higher', 'nearest', 'midpoint'):
        yield S(mk((2, 5)), 0.4, dim=1, interpolation=interp)
    yield S(mk((5,)), 1.5)                                          # q out of range
    yield S(mk((0,)), 0.5)
    if mk.is_float:
        v = mk((2, 5))
        v[0, 1] = NAN
        yield S(v, 0.5, dim=1, gc=False)


def _float_only_q(name):
    return OpInfo(name, _m(name), _quantile, dtypes=(F32, F64, I64))


OPS += [_float_only_q('quantile'), _float_only_q('nanquantile')]


def _topk(mk):
    yield S(mk((5,)), 2)
    yield S(mk((2, 5)), 3, dim=1)
    yield S(mk((2, 5)), 1, dim=0)
    yield S(mk((2, 5)), 2, largest=False)
    yield S(mk((2, 5)), 5, dim=-1, sorted=True)
    yield S(mk((2, 5)), 0)
    yield S(mk((2, 5)), 6)                                            # k too large
    yield S(mk(()), 1)
    yield S(mk((0,)), 0)


def _sort(mk):
    yield S(mk((5,)))
    yield S(mk((2, 5)), dim=0)
    yield S(mk((2, 5)), descending=True)
    yield S(mk((2, 5)), dim=1, stable=True)
    yield S(mk(()))
    yield S(mk((0, 3)), dim=0)
    yield S(mk((4, 3)), dim=1, pre='t')
    yield S(np.array([1, 3, 1, 2, 3, 1], mk.np), stable=True)
    yield S(np.array([1, 3, 1, 2, 3, 1], mk.np), stable=True, descending=True)
    if mk.is_float:
        yield S(np.array([1., NAN, -INF, 2., INF], mk.np), gc=False)
        yield S(np.array([1., NAN, -INF, 2., INF], mk.np), descending=True, gc=False)


def _kth(mk):
    # distinct values: which index of equal values kthvalue returns is unspecified (its
    # ties are exercised, values only, by 'kthvalue:k1:ties')
    yield S(mk((5,), 'uniq'), 2)
    yield S(mk((2, 5), 'uniq'), 1, dim=0)
    yield S(mk((2, 5), 'uniq'), 5, dim=1, keepdim=True)
    yield S(mk((2, 5), 'uniq'), 6)
    yield S(mk((), 'uniq'), 1)


OPS += [
    OpInfo('topk', _m('topk'), _topk, dtypes=NUM),
    OpInfo('sort', _m('sort'), _sort, dtypes=ALL),
    OpInfo('argsort', _m('argsort'), _sort, dtypes=ALL),
    OpInfo('msort', _m('msort'), lambda mk: (s for s in _sort(mk) if not s.kw), dtypes=ALL),
    OpInfo('kthvalue', _m('kthvalue'), _kth, dtypes=NUM),
]


def _unique(mk):
    a = np.array([[1, 3, 1], [2, 3, 1]], mk.np)
    yield S(a)
    yield S(a, sorted=True, return_inverse=True)
    yield S(a, return_counts=True)
    yield S(a, return_inverse=True, return_counts=True)
    yield S(a, dim=1, return_inverse=True, return_counts=True)
    yield S(np.array([[1, 2], [1, 2], [0, 5]], mk.np), dim=0, return_inverse=True)
    yield S(np.zeros((0,), mk.np), return_counts=True)
    yield S(np.array(2, mk.np), return_inverse=True)


def _unique_consec(mk):
    yield S(np.array([1, 1, 2, 2, 3, 1, 1, 2], mk.np))
    yield S(np.array([1, 1, 2, 2, 3, 1], mk.np), return_inverse=True, return_counts=True)
    yield S(np.array([[1, 1, 2], [1, 1, 2]], mk.np), dim=1, return_counts=True)
    yield S(np.array([[1, 2], [1, 2], [0, 5]], mk.np), dim=0, return_inverse=True)
    yield S(np.zeros((0,), mk.np))


OPS += [
    OpInfo('unique', _m('unique'), _unique, dtypes=ALL, grad=False),
    OpInfo('unique_consecutive', _m('unique_consecutive'), _unique_consec, dtypes=ALL,
           grad=False),
]


def _bincount(mk):
    yield S(np.array([0, 1, 1, 3, 5], np.int64))
    yield S(np.array([0, 1, 1, 3], np.int64), mk((4,), 'pos'), grad=False,
            note="torch's weighted bincount output requires grad but its backward raises "
                 "(not implemented); ember's output does not require grad: values only")
    yield S(np.array([2, 0], np.int64), minlength=5)
    yield S(np.zeros((0,), np.int64))
    yield S(np.zeros((0,), np.int64), minlength=3)
    yield S(np.array([1, -1], np.int64))                               # negative: error
    yield S(np.array([[1, 2]], np.int64))                              # 2-D: error


def _histc(mk):
    yield S(mk((10,)), bins=4)
    yield S(mk((2, 5)), bins=5, min=-1, max=1)
    yield S(mk((0,)), bins=3, min=0, max=1)
    yield S(mk((6,)), bins=3, min=0, max=0)


def _searchsorted(mk):
    seq = np.sort(mk((6,)))
    yield S(seq, mk((4,)))
    yield S(seq, mk((2, 3)), right=True)
    yield S(seq, mk((3,)), side='right')
    yield S(np.sort(mk((2, 5)), axis=-1), mk((2, 3)))
    yield S(seq, mk(()))
    yield S(np.array([1, 2, 2, 2, 3], mk.np), np.array([2, 0, 5], mk.np))
    yield S(np.array([1, 2, 2, 2, 3], mk.np), np.array([2, 0, 5], mk.np), right=True)
    yield S(seq, mk((3,)), out_int32=True)
    yield S(np.zeros((0,), mk.np), mk((3,)))
    yield S(np.sort(mk((2, 5)), axis=-1), mk((3, 3)))                  # batch mismatch


def _bucketize(mk):
    bnd = np.sort(mk((5,)))
    yield S(mk((2, 3)), bnd)
    yield S(mk((4,)), bnd, right=True)
    yield S(np.array([1, 2, 2, 3], mk.np), np.array([1, 2, 3], mk.np))
    yield S(np.array([1, 2, 2, 3], mk.np), np.array([1, 2, 3], mk.np), right=True)
    yield S(mk(()), bnd)
    yield S(mk((3,)), bnd, out_int32=True)


def _bucketize_scalar(mk):
    yield S(np.sort(mk((5,))))


def _diff(mk):
    yield S(mk((5,)))
    yield S(mk((2, 4)), dim=0)
    yield S(mk((2, 4)), n=2)
    yield S(mk((2, 4)), n=5)
    yield S(mk((2, 4)), prepend=mk((2, 1)), append=mk((2, 2)))
    yield S(mk((4,)), n=1, dim=-1, prepend=mk(()))                   # 0-dim prepend: error
    yield S(mk(()))                                                   # 0-dim: error
    yield S(mk((0, 3)), dim=1)


OPS += [
    OpInfo('bincount', _m('bincount'), _bincount, dtypes=(F64,)),
    OpInfo('histc', _m('histc'), _histc, dtypes=(F32, F64, I64), grad=False),
    OpInfo('searchsorted', _m('searchsorted'), _searchsorted, dtypes=NUM),
    OpInfo('bucketize', _m('bucketize'), _bucketize, dtypes=NUM),
    OpInfo('bucketize:scalar', lambda m, b: m.bucketize(0.3, b), _bucketize_scalar,
           dtypes=FLOAT),
    OpInfo('diff', _m('diff'), _diff, dtypes=ALL),
]

# ----------------------------------------------------------------------------- linalg


def _mat(mk, *shapes, dom='real'):
    return [mk(s, dom) for s in shapes]


def _matmul(mk):
    for a, b in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 3, 4), (4,)),
                 ((2, 1, 2, 3), (3, 3, 2)), ((2, 2, 3), (2, 3, 2)), ((0, 3), (3, 2)),
                 ((2, 0), (0, 3)), ((0,), (0,)), ((2, 3), (4, 2)), ((), (3,)),
                 ((2, 2, 3), (3, 3, 1))]:
        yield S(mk(a), mk(b))
    yield S(mk((3, 2)), mk((4, 3)), pre='t')
    yield S(mk((2, 3)), mk((3,), dtype=F64))                          # dtype mismatch


def _two(shapes, extra=()):
    def gen(mk):
        for sa, sb in shapes:
            yield S(mk(sa), mk(sb))
        for s in extra:
            yield s(mk)
    return gen


def _addmm_like(name, shapes):
    def gen(mk):
        for sh in shapes:
            yield S(*[mk(s) for s in sh])
        sh = shapes[0]
        yield S(*[mk(s) for s in sh], beta=0.5, alpha=2)
        yield S(*[mk(s) for s in sh], beta=0)
        if mk.is_float:
            a = [mk(s) for s in sh]
            a[0][...] = NAN
            yield S(*a, beta=0, gc=False)                                 # beta=0 ignores NaN
    return OpInfo(name, _m(name), gen, dtypes=NUM)


def _einsum(eq):
    return lambda m, *ts: m.einsum(eq, *ts)


_EINSUM = [
    ('ij,jk->ik', (2, 3), (3, 4)), ('ij->ji', (2, 3)), ('ii->i', (3, 3)), ('ii', (3, 3)),
    ('bij,bjk->bik', (2, 2, 3), (2, 3, 2)), ('i,j->ij', (2,), (3,)), ('i,i->', (3,), (3,)),
    ('ij->', (2, 3)), ('...ij,...jk', (2, 2, 3), (3, 2)), ('ij,ij->i', (2, 3), (2, 3)),
    ('i,ij,j', (2,), (2, 3), (3,)), ('bij->j', (2, 3, 4)), ('ij,jk', (0, 3), (3, 2)),
    ('ij,kj->ik', (2, 3), (4, 3)), ('i j , j k -> i k', (2, 3), (3, 4)),
    ('ij,jk->ik', (2, 3), (4, 2)),
]
for _k, (_eq, *_shapes) in enumerate(_EINSUM):
    OPS.append(OpInfo(f'einsum:{_k}:{_eq}', _einsum(_eq),
                      (lambda shapes: lambda mk: iter([S(*[mk(s) for s in shapes])]))(_shapes),
                      dtypes=NUM))
OPS.append(OpInfo('einsum:list', lambda m, a, b: m.einsum('ij,jk->ik', [a, b]),
                  _two([((2, 3), (3, 2))]), dtypes=FLOAT))


def _tensordot(mk):
    yield S(mk((2, 3, 4)), mk((3, 4, 2)), dims=2)
    yield S(mk((2, 3)), mk((3, 2)), dims=1)
    yield S(mk((2, 3)), mk((4, 5)), dims=0)
    yield S(mk((2, 3, 4)), mk((4, 2, 3)), dims=([1, 2], [2, 0]))
    yield S(mk((2, 3)), mk((3, 2)), dims=[[0], [1]])
    yield S(mk((2, 3)), mk((2, 3)), dims=([0, 1], [0, 1]))
    yield S(mk((2, 3)), mk((4, 2)), dims=([1], [0]))                  # size mismatch


def _kron(mk):
    for a, b in [((2, 2), (2, 3)), ((3,), (2,)), ((2, 1, 2), (2, 2)), ((), (2,)),
                 ((0, 2), (2, 2))]:
        yield S(mk(a), mk(b))


def _cross(mk):
    yield S(mk((3,)), mk((3,)))
    yield S(mk((2, 3)), mk((2, 3)), dim=1)
    yield S(mk((3, 2)), mk((3, 2)), dim=0)
    yield S(mk((2, 3)), mk((1, 3)), dim=-1)
    yield S(mk((2, 4)), mk((2, 4)), dim=1)                            # size 4: error


def _trace(mk):
    for s in ((3, 3), (2, 4), (4, 2), (0, 0)):
        yield S(mk(s))
    yield S(mk((3,)))                                                 # 1-D: error


def _tri(mk):
    for s in ((3, 3), (2, 4), (2, 3, 3), (0, 2)):
        yield S(mk(s))
    yield S(mk((3, 4)), diagonal=1)
    yield S(mk((3, 4)), diagonal=-1)
    yield S(mk((3, 4)), diagonal=5)
    yield S(mk((3,)))                                                 # 1-D: error


def _diag(mk):
    yield S(mk((3,)))
    yield S(mk((3,)), 1)
    yield S(mk((3,)), -2)
    yield S(mk((3, 4)))
    yield S(mk((3, 4)), 1)
    yield S(mk((3, 4)), -2)
    yield S(mk((3, 4)), 7)
    yield S(mk((0,)))
    yield S(mk(()))                                                   # 0-dim: error
    yield S(mk((2, 2, 2)))                                            # 3-D: error


def _diag_embed(mk):
    yield S(mk((3,)))
    yield S(mk((2, 3)))
    yield S(mk((2, 3)), offset=1)
    yield S(mk((2, 3)), offset=-1, dim1=0, dim2=2)
    yield S(mk((2, 3)), dim1=-1, dim2=0)
    yield S(mk((0,)))


def _diagflat(mk):
    yield S(mk((3,)))
    yield S(mk((2, 2)))
    yield S(mk((3,)), 1)
    yield S(mk((2, 2)), -1)
    yield S(mk(()))


OPS += [
    OpInfo('matmul', _m('matmul'), _matmul, dtypes=ALL, gc_max=4),
    OpInfo('op@', lambda m, a, b: a @ b, _two([((2, 3), (3,)), ((2, 3), (3, 2)),
                                               ((3,), (3, 2))]), dtypes=NUM),
    OpInfo('mm', _m('mm'), _two([((2, 3), (3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
                                 ((2, 3), (4, 2)), ((3,), (3, 2)), ((2, 2, 2), (2, 2))]),
           dtypes=ALL),
    OpInfo('bmm', _m('bmm'), _two([((2, 2, 3), (2, 3, 4)), ((0, 2, 3), (0, 3, 1)),
                                   ((2, 2, 3), (1, 3, 4)), ((2, 3), (3, 4))]), dtypes=NUM),
    OpInfo('mv', _m('mv'), _two([((2, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,)),
                                 ((2, 3), (4,)), ((3,), (3,))]), dtypes=NUM),
    OpInfo('dot', _m('dot'), _two([((3,), (3,)), ((0,), (0,)), ((3,), (4,)),
                                   ((2, 3), (3,))]), dtypes=ALL),
    OpInfo('vdot', _m('vdot'), _two([((3,), (3,)), ((0,), (0,)), ((3,), (2,))]), dtypes=NUM),
    OpInfo('inner', _m('inner'), _two([((3,), (3,)), ((2, 3), (4, 3)), ((), (2, 3)),
                                       ((2, 2, 3), (3,)), ((2, 3), (2,))]), dtypes=NUM),
    OpInfo('outer', _m('outer'), _two([((3,), (2,)), ((0,), (2,)), ((3, 1), (2,))]),
           dtypes=ALL),
    _addmm_like('addmm', [((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)),
                          ((), (2, 3), (3, 4)), ((2, 4), (2, 0), (0, 4))]),
    _addmm_like('addmv', [((2,), (2, 3), (3,)), ((), (2, 3), (3,)), ((2,), (2, 0), (0,))]),
    _addmm_like('addbmm', [((2, 4), (3, 2, 3), (3, 3, 4)), ((4,), (3, 2, 3), (3, 3, 4))]),
    _addmm_like('baddbmm', [((3, 2, 4), (3, 2, 3), (3, 3, 4)), ((2, 4), (3, 2, 3), (3, 3, 4))]),
    _addmm_like('addr', [((2, 3), (2,), (3,)), ((3,), (2,), (3,))]),
    OpInfo('tensordot', _m('tensordot'), _tensordot, dtypes=NUM),
    OpInfo('kron', _m('kron'), _kron, dtypes=ALL),
    OpInfo('cross', _m('cross'), _cross, dtypes=NUM),
    OpInfo('linalg.cross', lambda m, a, b, **kw: m.linalg.cross(a, b, **kw), _cross,
           dtypes=NUM),
    OpInfo('trace', _m('trace'), _trace, dtypes=ALL),
    OpInfo('tril', _m('tril'), _tri, dtypes=ALL),
    OpInfo('triu', _m('triu'), _tri, dtypes=ALL),
    OpInfo('tril_', _inplace('tril_'), _tri, dtypes=NUM),
    OpInfo('diag', _m('diag'), _diag, dtypes=ALL),
    OpInfo('diag_embed', _m('diag_embed'), _diag_embed, dtypes=ALL),
    OpInfo('diagflat', _m('diagflat'), _diagflat, dtypes=ALL),
]


def _la(name):
    f = name.split(':')[0].split('.')
    return lambda m, *a, **kw: getattr(getattr(m, f[0]), f[1])(*a, **kw)


def _spd(mk, n, batch=()):
    a = mk(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(mk.np)


def _wellcond(mk, n, batch=()):
    return (mk(batch + (n, n)) + 3 * np.eye(n)).astype(mk.np)


def _square(mk):
    yield S(_wellcond(mk, 3))
    yield S(_wellcond(mk, 2, (2,)))
    yield S(_wellcond(mk, 1))
    yield S(np.zeros((0, 0), mk.np))
    yield S(mk((2, 3)))                                              # not square: error


def _la_norm(mk):
    yield S(mk((2, 3)))
    yield S(mk((4,)))
    yield S(mk((2, 3)), ord='fro')
    yield S(mk((2, 3)), ord='nuc', gc=False)
    yield S(mk((2, 3), 'away'), ord=1)
    yield S(mk((2, 3), 'away'), ord=INF)
    yield S(mk((2, 3), 'away'), ord=-1)
    yield S(mk((2, 3)), ord=2)
    yield S(mk((4,)), ord=3)
    yield S(mk((4,), 'away'), ord=1)
    yield S(mk((4,), 'away'), ord=-INF)
    yield S(mk((2, 3, 4)), dim=(1, 2))
    yield S(mk((2, 3, 4)), dim=1, keepdim=True)
    yield S(mk((2, 3, 4)))
    yield S(mk((2, 3, 4)), ord=2)                                     # 3-D with ord: error


def _vector_norm(mk):
    yield S(mk((2, 3)))
    yield S(mk((2, 3, 4), 'away'), ord=1, dim=(0, 2))
    yield S(mk((2, 3), 'away'), ord=INF, dim=1)
    yield S(mk((2, 3), 'away'), ord=-INF)
    yield S(mk((2, 3), 'away'), ord=0)
    yield S(mk((2, 3)), ord=3, dim=-1, keepdim=True)
    yield S(mk((2, 3)), ord=0.5)
    yield S(mk(()))
    yield S(mk((0,)))
    yield S(mk((2, 0)), dim=1)
    yield S(mk((0, 2)), ord=INF)                                       # empty inf-norm: error
    yield S(mk((2, 3)), dtype=None)


def _matrix_norm(mk):
    yield S(mk((2, 3)))
    yield S(mk((2, 3), 'away'), ord=1)
    yield S(mk((2, 3), 'away'), ord=-1)
    yield S(mk((2, 3), 'away'), ord=INF)
    yield S(mk((2, 3), 'away'), ord=-INF)
    yield S(mk((2, 3)), ord=2)
    yield S(mk((2, 3)), ord=-2)
    yield S(mk((2, 3)), ord='nuc')
    yield S(mk((2, 2, 3)), dim=(0, 2), keepdim=True)
    yield S(mk((3,)))                                                  # 1-D: error
    yield S(mk((2, 3)), ord=3)                                         # bad ord: error


def _solve(mk):
    yield S(_wellcond(mk, 3), mk((3,)))
    yield S(_wellcond(mk, 3), mk((3, 2)))
    yield S(_wellcond(mk, 2, (2,)), mk((2, 2, 1)))
    yield S(_wellcond(mk, 2, (2,)), mk((2, 2)))
    yield S(_wellcond(mk, 2), mk((3, 2, 1)))
    yield S(_wellcond(mk, 3), mk((3, 2)), left=False, desc='left=False (3x3 with 3x2): error')
    yield S(_wellcond(mk, 3), mk((2, 3)), left=False)
    yield S(np.zeros((3, 3), mk.np), mk((3,)))                         # singular: error


def _cholesky(mk):
    yield S(_spd(mk, 3))
    yield S(_spd(mk, 2, (2,)))
    yield S(_spd(mk, 3), upper=True)
    yield S(-np.eye(2, dtype=mk.np))                                   # not PD: error


def _cholesky_sym(m, a, **kw):
    return m.linalg.cholesky((a + a.mT) / 2, **kw)


def _qr(mk):
    yield S(mk((3, 3)))
    yield S(mk((4, 3)))
    yield S(mk((2, 3, 3)))
    yield S(mk((4, 3)), mode='complete')
    yield S(mk((3, 3)), mode='complete')
    yield S(mk((3, 4)), mode='r')


def _qr_fn(m, a, **kw):
    r = m.linalg.qr(a, **kw)
    return tuple(r)


def _svd_fn(m, a, full_matrices=False):
    u, s, vh = m.linalg.svd(a, full_matrices=full_matrices)
    # singular vectors are unique up to sign: compare gauge-invariant functions of them
    k = s.shape[-1]
    return s, (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], u[..., :k].abs()


def _svd(mk):
    yield S(mk((3, 3)))
    yield S(mk((4, 2)))
    yield S(mk((2, 2, 3)))
    yield S(mk((2, 3)), full_matrices=True)
    yield S(mk((0, 2)))


def _eigh_fn(m, a, **kw):
    w, v = m.linalg.eigh(a + a.mT, **kw)
    return w, v.abs()


def _eigvalsh_fn(m, a, **kw):
    return m.linalg.eigvalsh(a + a.mT, **kw)


def _sym(mk):
    yield S(mk((3, 3)))
    yield S(mk((2, 2, 2)))
    yield S(mk((3, 3)), UPLO='U')
    yield S(mk((1, 1)))


def _pinv(mk):
    yield S(mk((3, 3)) + 2 * np.eye(3, dtype=mk.np))
    yield S(mk((2, 3)))
    yield S(mk((3, 2)))
    yield S(mk((2, 2, 3)))
    yield S(_spd(mk, 3), hermitian=True)


def _lstsq_fn(m, a, b, **kw):
    return m.linalg.lstsq(a, b, **kw).solution


def _lstsq(mk):
    yield S(mk((4, 3)), mk((4, 2)))
    yield S(mk((3, 3)) + 3 * np.eye(3, dtype=mk.np), mk((3, 1)))
    yield S(mk((2, 4, 3)), mk((2, 4, 2)))
    yield S(mk((4, 3)), mk((3, 2)))                                     # rows mismatch


def _matrix_power(mk):
    for n in (0, 1, 2, 3, -1, -2):
        yield S(_wellcond(mk, 3), n)
    yield S(_wellcond(mk, 2, (2,)), 2)
    yield S(mk((2, 3)), 2)                                             # not square: error


def _matrix_rank(mk):
    yield S(mk((3, 3)))
    yield S(np.outer(mk((3,)), mk((4,))).astype(mk.np))
    yield S(mk((2, 3, 2)))
    yield S(mk((3, 3)), hermitian=True)
    yield S(np.zeros((2, 2), mk.np))


def _slogdet_fn(m, a):
    return tuple(m.linalg.slogdet(a))


def _det_sample(mk):
    yield from _square(mk)
    yield S(mk((2, 2, 2)))
    yield S(np.array([[1., 2.], [2., 4.]], mk.np), gc=False, grad=False,
            note="torch's det backward on an exactly singular matrix may fail ('linalg.inv: "
                 "the input matrix is singular') depending on rounding: values only")


LA_F = (F32, F64, I64)
OPS += [
    OpInfo('linalg.norm', _la('linalg.norm'), _la_norm, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.vector_norm', _la('linalg.vector_norm'), _vector_norm, dtypes=LA_F),
    OpInfo('linalg.matrix_norm', _la('linalg.matrix_norm'), _matrix_norm, dtypes=LA_F,
           rtol=1e-4, atol=1e-5),
    OpInfo('linalg.inv', _la('linalg.inv'), _square, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('inverse', _m('inverse'), _square, dtypes=FLOAT, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.det', _la('linalg.det'), _det_sample, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('det', _m('det'), _square, dtypes=FLOAT, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.slogdet', _slogdet_fn, _det_sample, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('logdet', _m('logdet'), _square, dtypes=FLOAT, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.solve', _la('linalg.solve'), _solve, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.cholesky', _cholesky_sym, _cholesky, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('cholesky', lambda m, a, upper=False: m.cholesky((a + a.mT) / 2, upper=upper),
           _cholesky, dtypes=FLOAT, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.qr', _qr_fn, _qr, dtypes=LA_F, rtol=1e-4, atol=1e-5,
           note='Q and R are compared directly: both libraries use LAPACK geqrf sign '
                'conventions (R has the sign LAPACK gives)'),
    OpInfo('linalg.svd', _svd_fn, _svd, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.svdvals', _la('linalg.svdvals'), _svd, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.eigh', _eigh_fn, _sym, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.eigvalsh', _eigvalsh_fn, _sym, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.pinv', _la('linalg.pinv'), _pinv, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.lstsq', _lstsq_fn, _lstsq, dtypes=LA_F, rtol=1e-4, atol=1e-5),
    OpInfo('linalg.matrix_power', _la('linalg.matrix_power'), _matrix_power, dtypes=ALL,
           rtol=1e-4, atol=1e-5),
    OpInfo('matrix_power', _m('matrix_power'), _matrix_power, dtypes=NUM, rtol=1e-4,
           atol=1e-5),
    OpInfo('linalg.matrix_rank', _la('linalg.matrix_rank'), _matrix_rank, dtypes=LA_F),
]


# ----------------------------------------------------------------------------- shape / combining

def _cat(mk):
    yield S(mk((2, 3)), mk((1, 3)))
    yield S(mk((2, 3)), mk((2, 2)), dim=1)
    yield S(mk((2, 3)), mk((2, 3)), mk((2, 3)), dim=-1)
    yield S(mk((2, 3)), mk((0,)))               # legacy: a 1-D empty tensor is skipped
    yield S(mk((0, 3)), mk((2, 3)))
    yield S(mk((3,)))
    yield S(mk((2, 3)), mk((2, 3), dtype=F64))
    yield S(mk((2, 3)), mk((2, 3), dtype=I64))
    yield S(mk((2, 3)), mk((2, 2)))                                   # size mismatch
    yield S(mk(()), mk(()))                                           # 0-dim: error
    yield S(mk((2, 3)), mk((3,)))                                     # ndim mismatch
    yield S(mk((2, 3)), mk((2, 3)), dim=2)                            # dim out of range


def _stack(mk):
    yield S(mk((2, 3)), mk((2, 3)))
    yield S(mk((2, 3)), mk((2, 3)), dim=2)
    yield S(mk((2, 3)), mk((2, 3)), dim=-1)
    yield S(mk(()), mk(()))
    yield S(mk((0,)), mk((0,)))
    yield S(mk((3,)), mk((3,), dtype=F64))
    yield S(mk((2, 3)), mk((3, 2)))                                   # shape mismatch


def _xstack(mk):
    yield S(mk((2, 3)), mk((2, 3)))
    yield S(mk((3,)), mk((3,)))
    yield S(mk(()), mk(()))
    yield S(mk((2, 3, 2)), mk((2, 3, 2)))
    yield S(mk((3,)), mk((3,), dtype=I64))


def _col_stack(mk):
    yield S(mk((3,)), mk((3, 2)))
    yield S(mk(()), mk((1,)))
    yield S(mk((2, 3)), mk((2, 1)))


def _list_fn(name):
    return lambda m, *ts, **kw: getattr(m, name)(ts, **kw)


def _flip(mk):
    yield S(mk((2, 3)), (0,))
    yield S(mk((2, 3, 4)), (0, 2))
    yield S(mk((2, 3)), (-1,))
    yield S(mk(()), ())
    yield S(mk((0, 2)), (1,))
    yield S(mk((3, 2)), (0, 1), pre='t')
    yield S(mk((2, 3)), (0, 0))                                       # repeated dim: error


def _flip2(mk):
    yield S(mk((2, 3)))
    yield S(mk((2, 3, 4)))
    yield S(mk((3,)))                                                 # 1-D: error for fliplr


def _roll(mk):
    yield S(mk((5,)), 2)
    yield S(mk((2, 3)), 1)
    yield S(mk((2, 3)), -1, 0)
    yield S(mk((2, 3)), (1, 2), (0, 1))
    yield S(mk((2, 3)), 7, 1)
    yield S(mk(()), 1)
    yield S(mk((0, 3)), 1, 1)
    yield S(mk((2, 3)), (1, 2), (0,))                                 # length mismatch


def _rot90(mk):
    for k in (0, 1, 2, 3, -1, 5):
        yield S(mk((2, 3)), k)
    yield S(mk((2, 3, 4)), 1, (1, 2))
    yield S(mk((2, 3)), 1, (0, 0))                                    # same dims: error


def _repeat(mk):
    yield S(mk((2, 3)), 2, 1)
    yield S(mk((3,)), 2, 2)
    yield S(mk(()), 3)
    yield S(mk((2, 3)), 0, 2)
    yield S(mk((2, 3)), 2)                                            # fewer dims: error


def _repeat_fn(m, x, *reps):
    return x.repeat(*reps)


def _repeat_interleave(mk):
    yield S(mk((2, 3)), 2)
    yield S(mk((2, 3)), 2, dim=1)
    yield S(mk((2, 3)), np.array([1, 0], np.int64), dim=0)
    yield S(mk((2, 3)), np.array([1, 2, 3], np.int64), dim=-1)
    yield S(mk(()), 3)
    yield S(mk((0,)), 2)
    yield S(mk((2, 3)), np.array([1, 2], np.int64), dim=1)            # size mismatch


def _tile(mk):
    yield S(mk((2, 3)), (2,))
    yield S(mk((2, 3)), (2, 1, 2))
    yield S(mk((3,)), (2, 2))
    yield S(mk(()), (3,))
    yield S(mk((2, 3)), (0, 1))


def _meshgrid(m, *ts, **kw):
    return m.meshgrid(*ts, **kw)


def _mesh(mk):
    yield S(mk((3,)), mk((2,)), indexing='ij')
    yield S(mk((3,)), mk((2,)), indexing='xy')
    yield S(mk((3,)), mk((2,)), mk((4,)), indexing='xy')
    yield S(mk(()), mk((2,)), indexing='ij')
    yield S(mk((0,)), mk((2,)), indexing='ij')


def _cartesian(mk):
    yield S(mk((3,)), mk((2,)))
    yield S(mk((2,)))
    yield S(mk((2,)), mk((0,)))
    yield S(mk((2,)), mk((2,)), mk((2,)))


def _atleast(mk):
    yield S(mk(()))
    yield S(mk((3,)))
    yield S(mk((2, 3)))
    yield S(mk((2, 3, 4)))
    yield S(mk(()), mk((3,)))


def _block_diag(mk):
    yield S(mk((2, 3)), mk((1, 2)))
    yield S(mk((2,)), mk(()))
    yield S(mk((2, 2)), mk((0, 2)), mk((1, 1)))
    yield S(mk((2, 2)), mk((2,), dtype=F64))


def _tri_indices(mk):
    for args in ((3, 3), (3, 4, 1), (4, 3, -1), (0, 3), (2, 2, 5)):
        yield S(*args, grad=False)


def _broadcast_tensors(mk):
    yield S(mk((2, 3)), mk((3,)))
    yield S(mk((2, 1)), mk((1, 3)), mk(()))
    yield S(mk((0, 1)), mk((3,)))
    yield S(mk((2, 3)), mk((2,)))                                     # not broadcastable


def _broadcast_shapes(mk):
    yield S((2, 1), (3,))
    yield S((1,), (4, 1, 2), ())
    yield S(3, (2, 1))
    yield S((0, 1), (3,))
    yield S((2,), (3,))


def _broadcast_to(mk):
    yield S(mk((3,)), (2, 3))
    yield S(mk(()), (2, 2))
    yield S(mk((2, 1)), (2, -1))
    yield S(mk((2, 1)), (2, 0))
    yield S(mk((2, 3)), (3,))                                         # cannot shrink


OPS += [
    OpInfo('cat', _list_fn('cat'), _cat, dtypes=ALL, gc_max=3),
    OpInfo('concat', _list_fn('concat'), _cat, dtypes=(F32,)),
    OpInfo('concatenate', lambda m, *ts, **kw: m.concatenate(ts, **kw), _cat, dtypes=(F64,)),
    OpInfo('stack', _list_fn('stack'), _stack, dtypes=ALL),
    OpInfo('hstack', _list_fn('hstack'), _xstack, dtypes=ALL),
    OpInfo('vstack', _list_fn('vstack'), _xstack, dtypes=ALL),
    OpInfo('row_stack', _list_fn('row_stack'), _xstack, dtypes=(F64,)),
    OpInfo('dstack', _list_fn('dstack'), _xstack, dtypes=ALL),
    OpInfo('column_stack', _list_fn('column_stack'), _col_stack, dtypes=ALL),
    OpInfo('flip', _m('flip'), _flip, dtypes=ALL),
    OpInfo('fliplr', _m('fliplr'), _flip2, dtypes=ALL),
    OpInfo('flipud', _m('flipud'), _flip2, dtypes=ALL),
    OpInfo('roll', _m('roll'), _roll, dtypes=ALL),
    OpInfo('rot90', _m('rot90'), _rot90, dtypes=ALL),
    OpInfo('repeat', _repeat_fn, _repeat, dtypes=ALL),
    OpInfo('repeat_interleave', _m('repeat_interleave'), _repeat_interleave, dtypes=ALL),
    OpInfo('repeat_interleave:tensor', lambda m, r: m.repeat_interleave(r),
           lambda mk: iter([S(np.array([2, 0, 1], np.int64)), S(np.zeros((0,), np.int64))]),
           dtypes=(I64,)),
    OpInfo('tile', _m('tile'), _tile, dtypes=ALL),
    OpInfo('meshgrid', _meshgrid, _mesh, dtypes=ALL),
    OpInfo('cartesian_prod', _m('cartesian_prod'), _cartesian, dtypes=ALL),
    OpInfo('atleast_1d', _m('atleast_1d'), _atleast, dtypes=ALL),
    OpInfo('atleast_2d', _m('atleast_2d'), _atleast, dtypes=ALL),
    OpInfo('atleast_3d', _m('atleast_3d'), _atleast, dtypes=ALL),
    OpInfo('block_diag', _m('block_diag'), _block_diag, dtypes=ALL),
    OpInfo('tril_indices', _m('tril_indices'), _tri_indices, dtypes=(I64,)),
    OpInfo('triu_indices', _m('triu_indices'), _tri_indices, dtypes=(I64,)),
    OpInfo('broadcast_tensors', _m('broadcast_tensors'), _broadcast_tensors, dtypes=ALL),
    OpInfo('broadcast_shapes', _m('broadcast_shapes'), _broadcast_shapes, dtypes=(I64,),
           grad=False),
    OpInfo('broadcast_to', _m('broadcast_to'), _broadcast_to, dtypes=ALL),
]


# ----------------------------------------------------------------------------- indexing

def _i(*v):
    return np.array(v, np.int64)


def _index_select(mk):
    yield S(mk((3, 4)), 0, _i(2, 0, 2))
    yield S(mk((3, 4)), 1, _i(3))
    yield S(mk((3, 4)), -1, _i(1, 1))
    yield S(mk((3,)), 0, np.zeros((0,), np.int64))
    yield S(mk(()), 0, _i(0))
    yield S(mk((3, 4)), 0, _i(5))                                      # out of range
    yield S(mk((3, 4)), 0, np.array([[0, 1]], np.int64))               # 2-D index: error
    yield S(mk((3, 4)), 0, _i(0, 1).astype(np.float32))               # float index: error


def _masked_select(mk):
    m = np.array([[True, False, True], [False, False, True]])
    yield S(mk((2, 3)), m)
    yield S(mk((3,)), m)
    yield S(mk((2, 3)), np.array([True, False, True]))
    yield S(mk(()), np.array(True))
    yield S(mk((0, 3)), np.array([True, False, True]))
    yield S(mk((2, 3)), m.astype(np.int64))                            # non-bool mask


def _masked_fill(mk):
    m = np.array([[True, False, True], [False, False, True]])
    yield S(mk((2, 3)), m, 1.5)
    yield S(mk((2, 3)), np.array([False, True, False]), -2)
    yield S(mk((2, 3)), m, mk((), dtype=F64), rtol=2e-6, note=_F64_0D_GRAD)
    yield S(mk(()), np.array(True), 0.5)
    yield S(mk((2, 3)), m, mk((2,)))                                   # value not 0-dim
    yield S(mk((3,)), m, 1.0)                                          # mask larger: error


def _masked_scatter(mk):
    m = np.array([[True, False, True], [False, False, True]])
    yield S(mk((2, 3)), m, mk((2, 3)))
    yield S(mk((2, 3)), np.array([True, False, True]), mk((5,)))
    yield S(mk((2, 3)), m, mk((2,)))                                   # source too small


def _gather(mk):
    yield S(mk((3, 4)), 1, _i(0, 3, 3, 1, 0, 2).reshape(3, 2))
    yield S(mk((3, 4)), 0, _i(2, 2, 0, 1).reshape(1, 4))
    yield S(mk((3, 4)), -1, _i(1, 1).reshape(2, 1))
    yield S(mk(()), 0, np.array(0, np.int64))
    yield S(mk((3, 4)), 1, np.zeros((3, 0), np.int64))
    yield S(mk((3, 4)), 1, _i(0, 4).reshape(2, 1))                     # out of range
    yield S(mk((3, 4)), 1, _i(0, 1))                                   # ndim mismatch


def _scatter(mk, src=True):
    idx0 = np.stack([np.random.default_rng(1).permutation(3)[:2] for _ in range(4)], 1)
    idx1 = np.stack([np.random.default_rng(2).permutation(4)[:2] for _ in range(3)], 0)
    v = (lambda s: mk(s)) if src else (lambda s: 1.5)
    yield S(mk((3, 4)), 0, idx0.astype(np.int64), v((2, 4)))
    yield S(mk((3, 4)), 1, idx1.astype(np.int64), v((3, 3)))
    yield S(mk((3, 4)), -1, idx1.astype(np.int64), v((3, 2)))
    yield S(mk(()), 0, np.array(0, np.int64), v(()))
    yield S(mk((3, 4)), 0, np.zeros((0, 4), np.int64), v((0, 4)))
    yield S(mk((3, 4)), 0, _i(5).reshape(1, 1), v((1, 1)))              # out of range


def _scatter_dup(mk):
    # duplicate indices: only accumulating forms are deterministic
    idx = _i(0, 0, 2, 2, 1, 0, 0, 0).reshape(2, 4)
    yield S(mk((3, 4)), 0, idx, mk((2, 4)))
    yield S(mk((3, 4)), 1, _i(1, 1, 1, 0, 3, 3).reshape(3, 2), mk((3, 2)))
    yield S(mk((3, 4)), 1, _i(1, 1, 1, 0).reshape(2, 2), mk((3, 3)))   # src larger: ok


def _scatter_reduce_fn(reduce, include_self=True):
    return lambda m, x, d, i, s: m.scatter_reduce(x, d, i, s, reduce,
                                                  include_self=include_self)


def _scatter_reduce_samples(mk):
    yield from _scatter_dup(mk)
    yield from _scatter(mk)


def _index_add(mk):
    yield S(mk((3, 4)), 0, _i(0, 2, 0), mk((3, 4)))
    yield S(mk((3, 4)), 1, _i(3, 1), mk((3, 2)))
    yield S(mk((3, 4)), 0, _i(1), mk((1, 4)), alpha=2)
    yield S(mk(()), 0, _i(0), mk(()))
    yield S(mk((3, 4)), 0, np.zeros((0,), np.int64), mk((0, 4)))
    yield S(mk((3, 4)), 0, _i(0, 1), mk((3, 4)))                      # source size mismatch


def _index_copy(mk):
    yield S(mk((3, 4)), 0, _i(2, 0), mk((2, 4)))
    yield S(mk((3, 4)), 1, _i(3, 1), mk((3, 2)))
    yield S(mk((3, 4)), 0, np.zeros((0,), np.int64), mk((0, 4)))
    yield S(mk((3, 4)), 0, _i(0, 1), mk((3, 4)))                      # source size mismatch


def _index_fill(mk):
    yield S(mk((3, 4)), 0, _i(2, 0), 1.5)
    yield S(mk((3, 4)), 1, _i(3, 3), -1)
    yield S(mk((3, 4)), 1, _i(1), mk((), dtype=F64), rtol=2e-6, note=_F64_0D_GRAD)
    yield S(mk((3, 4)), 0, np.zeros((0,), np.int64), 2.0)
    yield S(mk(()), 0, _i(0), 2.0)


def _index_put_fn(acc):
    return lambda m, x, i, j, v: m.index_put(x, (i, j), v, accumulate=acc)


def _index_put_fn1(acc):
    return lambda m, x, i, v: m.index_put(x, (i,), v, accumulate=acc)


def _index_put(mk, dup=False):
    yield S(mk((3, 4)), _i(0, 2), _i(1, 3), mk((2,)))
    yield S(mk((3, 4)), _i(0, 2), _i(1, 3), mk(()))
    yield S(mk((3, 4)), _i(2), _i(0, 1, 3), mk((3,)))
    if dup:
        yield S(mk((3, 4)), _i(0, 0, 1), _i(1, 1, 1), mk((3,)))


def _index_put1(mk, dup=False):
    yield S(mk((3, 4)), _i(1, 2), mk((2, 4)))
    yield S(mk((3, 4)), np.array([True, False, True]), mk((4,)))
    yield S(mk((3, 4)), _i(2), mk(()))
    if dup:
        yield S(mk((3, 4)), _i(1, 1, 0), mk((3, 4)))


def _take(mk):
    yield S(mk((3, 4)), _i(0, 11, 5))
    yield S(mk((3, 4)), _i(-1, 0).reshape(2, 1))
    yield S(mk(()), _i(0))
    yield S(mk((3,)), np.zeros((0, 2), np.int64))
    yield S(mk((3, 4)), _i(12))                                         # out of range


def _take_along_dim(mk):
    yield S(mk((3, 4)), _i(0, 3, 3, 1, 0, 2).reshape(3, 2), dim=1)
    yield S(mk((3, 4)), _i(2, 0, 1, 1).reshape(1, 4), dim=0)
    yield S(mk((3, 4)), _i(0, 5, 11))
    yield S(mk((3, 4)), _i(1, 2).reshape(1, 2, 1), dim=2)               # dim out of range
    yield S(mk((3, 4)), _i(1, 2).reshape(2, 1), dim=-1)


def _put(mk):
    yield S(mk((3, 4)), _i(0, 11, 5), mk((3,)))
    yield S(mk((3, 4)), _i(1, 1), mk((2,)), accumulate=True)
    yield S(mk((3, 4)), _i(-1, 0).reshape(2, 1), mk((2, 1)))
    yield S(mk((3, 4)), _i(12), mk((1,)))                               # out of range


def _where3(mk):
    c = np.array([[True, False, True], [False, False, True]])
    yield S(c, mk((2, 3)), mk((2, 3)))
    yield S(c, mk((3,)), mk((2, 1)))
    yield S(np.array(True), mk(()), mk((2,)))
    yield S(c, mk((2, 3)), 1.5)
    yield S(c, 2, mk((2, 3)))
    yield S(c, mk((2, 3)), mk((2, 3), dtype=F64))
    yield S(c, mk((2, 3)), mk((), dtype=F64), rtol=2e-6, note=_F64_0D_GRAD)
    yield S(np.zeros((0, 3), bool), mk((3,)), mk((0, 1)))
    yield S(c.astype(np.int64), mk((2, 3)), mk((2, 3)))                  # int condition
    yield S(c, mk((2, 3)), mk((4,)))                                     # not broadcastable


def _where_scalars(mk):
    c = np.array([[True, False, True], [False, False, True]])
    yield S(c, 1.0, 0.0)
    yield S(c, 1, 0)
    yield S(c, True, False)
    yield S(c, 1, 0.5)


def _nonzero(mk):
    yield S(mk((2, 3), 'small'))
    yield S(mk((5,), 'small'))
    yield S(mk((), 'small'))
    yield S(np.ones((), mk.np))
    yield S(mk((0, 3), 'small'))
    yield S(mk((2, 3), 'small'), as_tuple=True)
    yield S(np.ones((), mk.np), as_tuple=True)
    yield S(mk((2, 1, 3), 'small'), as_tuple=True)


OPS += [
    OpInfo('index_select', _m('index_select'), _index_select, dtypes=ALL),
    OpInfo('masked_select', _m('masked_select'), _masked_select, dtypes=ALL),
    OpInfo('masked_fill', _m('masked_fill'), _masked_fill, dtypes=ALL),
    OpInfo('masked_fill_', _inplace('masked_fill_'), _masked_fill, dtypes=NUM),
    OpInfo('masked_scatter', _m('masked_scatter'), _masked_scatter, dtypes=ALL),
    OpInfo('masked_scatter_', _inplace('masked_scatter_'), _masked_scatter, dtypes=NUM),
    OpInfo('gather', _m('gather'), _gather, dtypes=ALL),
    OpInfo('scatter', _m('scatter'), _scatter, dtypes=ALL),
    OpInfo('scatter:value', _m('scatter'), lambda mk: _scatter(mk, src=False), dtypes=ALL),
    OpInfo('scatter_', _inplace('scatter_'), _scatter, dtypes=NUM),
    OpInfo('scatter:add', lambda m, *a: m.scatter(*a, reduce='add'), _scatter_dup,
           dtypes=NUM, grad=False,
           note="torch does not implement the backward of scatter with reduce=: "
                "forward compared only"),
    OpInfo('scatter:multiply', lambda m, *a: m.scatter(*a, reduce='multiply'), _scatter_dup,
           dtypes=NUM, grad=False,
           note="torch does not implement the backward of scatter with reduce=: "
                "forward compared only"),
    OpInfo('scatter_add', _m('scatter_add'), _scatter_reduce_samples, dtypes=ALL),
    OpInfo('scatter_add_', _inplace('scatter_add_'), _scatter_dup, dtypes=NUM),
    OpInfo('index_add', _m('index_add'), _index_add, dtypes=ALL),
    OpInfo('index_add_', _inplace('index_add_'), _index_add, dtypes=NUM),
    OpInfo('index_copy', _m('index_copy'), _index_copy, dtypes=ALL),
    OpInfo('index_copy_', _inplace('index_copy_'), _index_copy, dtypes=NUM),
    OpInfo('index_fill', _m('index_fill'), _index_fill, dtypes=ALL),
    OpInfo('index_fill_', _inplace('index_fill_'), _index_fill, dtypes=NUM),
    OpInfo('index_put', _index_put_fn(False), _index_put, dtypes=ALL),
    OpInfo('index_put:acc', _index_put_fn(True),
           lambda mk: _index_put(mk, dup=True), dtypes=NUM),
    OpInfo('index_put:1', _index_put_fn1(False), _index_put1, dtypes=ALL),
    OpInfo('index_put:1acc', _index_put_fn1(True),
           lambda mk: _index_put1(mk, dup=True), dtypes=NUM),
    OpInfo('index_put_', lambda m, x, i, j, v: x.clone().index_put_((i, j), v), _index_put,
           dtypes=NUM),
    OpInfo('take', _m('take'), _take, dtypes=ALL),
    OpInfo('take_along_dim', _m('take_along_dim'), _take_along_dim, dtypes=ALL),
    OpInfo('put_', _inplace('put_'), _put, dtypes=NUM),
    OpInfo('put', _m('put'), _put, dtypes=NUM),
    OpInfo('where', _m('where'), _where3, dtypes=ALL),
    OpInfo('where:scalars', _m('where'), _where_scalars, dtypes=(BOOL,)),
    OpInfo('where:1', _m('where'), lambda mk: (s for s in _nonzero(mk) if not s.kw),
           dtypes=ALL),
    OpInfo('nonzero', _m('nonzero'), _nonzero, dtypes=ALL),
    OpInfo('argwhere', _m('argwhere'), lambda mk: (s for s in _nonzero(mk) if not s.kw),
           dtypes=ALL),
]
for _red_name in ('sum', 'prod', 'mean', 'amax', 'amin'):
    for _inc in (True, False):
        OPS.append(OpInfo(f'scatter_reduce:{_red_name}:{_inc}',
                          _scatter_reduce_fn(_red_name, _inc), _scatter_reduce_samples,
                          dtypes=(F64, I64), gradcheck=_red_name != 'prod' or _inc))


# ----------------------------------------------------------------------------- complex
# A few ops on complex128 (gradients use the conjugate-Wirtinger convention, as torch's).
C128 = 'complex128'


def _cplx_unary(mk):
    r = np.random.default_rng(7)
    for sh in ((), (3,), (2, 3)):
        yield S(np.asarray(r.uniform(0.3, 1.5, sh) + 1j * r.uniform(-1, 1, sh), np.complex128))


def _cplx_binary(mk):
    r = np.random.default_rng(8)

    def c(*sh):
        return np.asarray(r.uniform(0.3, 1.5, sh) + 1j * r.uniform(-1, 1, sh), np.complex128)
    yield S(c(2, 3), c(3))
    yield S(c(), c(2, 1))
    yield S(c(2, 3), 1.5)
    yield S(c(2, 3), 2 - 1j)
    yield S(1j, c(3))
    yield S(c(3), np.array([1., -2., .5]))


for _n in ('exp', 'log', 'sqrt', 'abs', 'sin', 'tanh', 'reciprocal', 'neg', 'conj', 'angle',
           'sgn', 'square', 'rsqrt', 'sigmoid', 'real', 'imag'):
    OPS.append(OpInfo('complex:' + _n, _m(_n), _cplx_unary, dtypes=(C128,), gc_max=1))
for _n in ('add', 'sub', 'mul', 'div', 'pow', 'eq'):
    OPS.append(OpInfo('complex:' + _n, _m(_n), _cplx_binary, dtypes=(C128,), gc_max=1))
OPS += [
    OpInfo('complex:sum', lambda m, x: x.sum(-1), _cplx_unary, dtypes=(C128,), gc_max=1),
    OpInfo('complex:mean', lambda m, x: x.mean(), _cplx_unary, dtypes=(C128,), gc_max=1),
    OpInfo('complex:matmul', _m('matmul'), _two([((2, 3), (3,)), ((2, 3), (3, 2))]),
           dtypes=(C128,), gc_max=1),
]


def _family_entries():
    """Entries of the family databases ``tests/_ops/opdb_<family>.py`` (each defines ``OPS``,
    a list of :class:`OpInfo`, importing ``OpInfo``/``S``/... from this module)."""
    import importlib
    import pkgutil
    import os
    here = os.path.dirname(__file__)
    for m in sorted(pkgutil.iter_modules([here]), key=lambda m: m.name):
        if m.name.startswith('opdb_'):
            yield from importlib.import_module(f'_ops.{m.name}').OPS


OPS += list(_family_entries())

_names = [op.name for op in OPS]
assert len(_names) == len(set(_names)), sorted(n for n in _names if _names.count(n) > 1)
