"""Op-database entries of the pooling family (ember/_ops/pooling.py): max/avg/LP/adaptive/
fractional pooling, max-unpooling, and the torch-level ``torch.max_pool*d``,
``torch.avg_pool1d``, ``torch.adaptive_avg_pool1d`` / ``adaptive_max_pool1d``.

Samples are small, batched and unbatched, with stride/padding/dilation/ceil_mode variants,
``return_indices`` (the int64 indices are compared exactly), ties (int64 inputs hold many
equal values: the first maximum of a window wins), NaN windows, and the argument/shape
errors (same exception type as torch)."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, FLOAT, NAN

OPS = []


def _F(name):
    return lambda m, x, *a, **kw: getattr(m.nn.functional, name)(x, *a, **kw)


def _T(name):
    return lambda m, x, *a, **kw: getattr(m, name)(x, *a, **kw)


def _nan(mk, shape):
    a = mk(shape)
    if mk.is_float:
        a.reshape(-1)[::5] = NAN
    return a


# ----------------------------------------------------------------------------- max pooling
def _max1d(mk):
    yield S(mk((1, 2, 6)), 2)
    yield S(mk((2, 3, 9)), 3, 2, 1)
    yield S(mk((3, 9)), 3, 2, 1)
    yield S(mk((2, 3, 10)), 3, 1, 1, 2, True)
    yield S(mk((2, 2, 8)), 2, ceil_mode=True, stride=3)
    yield S(mk((2, 3, 7)), kernel_size=(3,), stride=(2,), padding=(1,), dilation=(1,))
    yield S(mk((0, 3, 7)), 2, grad=False)
    if mk.is_float:
        yield S(_nan(mk, (2, 3, 9)), 3, 2, 1, desc='nan windows')
    yield S(mk((3,)), 2)                      # 1-d input
    yield S(mk((2, 3, 4)), 2, padding=2)      # padding > half the kernel
    yield S(mk((2, 3, 1)), 2)                 # output too small
    yield S(mk((2, 3, 4)), 0)                 # kernel 0


def _max2d(mk):
    yield S(mk((1, 2, 4, 4)), 2)
    yield S(mk((2, 3, 7, 8)), 3, 2, 1)
    yield S(mk((3, 7, 8)), 3, 2, 1)
    yield S(mk((2, 3, 7, 8)), (3, 2), (2, 1), (1, 0), (2, 2), True)
    yield S(mk((2, 2, 9, 9)), 3, 2, 1, ceil_mode=True)
    yield S(mk((2, 2, 6, 7)), 2, 1)
    yield S(mk((2, 2, 6, 7)), kernel_size=[2, 3], stride=[3, 2], dilation=[2, 1])
    yield S(mk((3, 4, 5)), (3, 4), pre='t')
    yield S(mk((0, 2, 4, 4)), 2, grad=False)
    yield S(mk((2, 2, 11, 10)), 5, 2, 2, desc='25-element windows (window-view path)')
    yield S(mk((2, 2, 12, 12)), (5, 4), 3, (2, 1), 2, True)
    if mk.is_float:
        yield S(_nan(mk, (2, 3, 7, 8)), 3, 2, 1, desc='nan windows')
        yield S(_nan(mk, (2, 3, 11, 10)), 5, 2, 2, desc='nan in 25-element windows')
        yield S(np.full((1, 2, 5, 5), -np.inf, mk.np), 3, 2, 1, grad=False,
                desc='all -inf windows (first in-bounds index)')
        yield S(np.full((1, 2, 9, 9), -np.inf, mk.np), 5, 2, 2, grad=False,
                desc='all -inf 25-element windows')
    yield S(mk((3, 4)), 2)                    # 2-d input
    yield S(mk((2, 3, 4, 4)), 3, padding=2)   # padding too large
    yield S(mk((2, 3, 1, 1)), 2)              # output too small
    yield S(mk((1, 2, 4, 4)), 2, stride=0)
    yield S(mk((1, 2, 4, 4)), 2, dilation=0)
    yield S(mk((1, 2, 4, 4)), (2, 2, 2))
    yield S(mk((2, 0, 4, 4)), 2, grad=False)


def _max3d(mk):
    yield S(mk((1, 1, 3, 3, 4)), 2)
    yield S(mk((2, 2, 5, 6, 7)), 3, (1, 2, 2), 1)
    yield S(mk((2, 5, 6, 7)), 3, (1, 2, 2), 1, ceil_mode=True)
    yield S(mk((1, 2, 6, 6, 6)), 2, 2, 0, 2)
    yield S(mk((1, 2, 6, 7, 8)), 3, 2, 1, desc='27-element windows')
    if mk.is_float:
        yield S(_nan(mk, (1, 2, 4, 5, 6)), 2, 1, desc='nan windows')
        yield S(_nan(mk, (1, 2, 6, 7, 8)), 3, 2, 1, desc='nan in 27-element windows')
    yield S(mk((2, 3, 4)), 2)                 # 3-d input
    yield S(mk((1, 1, 1, 1, 1)), 2)           # output too small


for _n, _g in (('max_pool1d', _max1d), ('max_pool2d', _max2d), ('max_pool3d', _max3d)):
    OPS.append(OpInfo(f'F.{_n}', _F(_n), _g, dtypes=(F32, F64, I64)))
    OPS.append(OpInfo(f'F.{_n}:indices',
                      lambda m, x, *a, _n=_n, **kw: getattr(m.nn.functional, _n)(
                          x, *a, return_indices=True, **kw), _g, dtypes=(F32, F64, I64)))
    OPS.append(OpInfo(f'F.{_n}_with_indices', _F(f'{_n}_with_indices'), _g, dtypes=FLOAT,
                      gradcheck=False))


def _torch_max(mk):
    yield S(mk((2, 3, 9)), 3, 2, 1)
    yield S(mk((3, 9)), 2)
    yield S(mk((2, 3, 10)), 3, 1, 1, 2, True)


def _torch_max2(mk):
    yield S(mk((2, 3, 7, 8)), 3, 2, 1)
    yield S(mk((3, 7, 8)), 2)


def _torch_max3(mk):
    yield S(mk((1, 2, 4, 5, 6)), 2, 1, 1)


OPS += [
    OpInfo('torch.max_pool1d', _T('max_pool1d'), _torch_max, gradcheck=False),
    OpInfo('torch.max_pool1d_with_indices', _T('max_pool1d_with_indices'), _torch_max,
           gradcheck=False),
    OpInfo('torch.max_pool2d', _T('max_pool2d'), _torch_max2, gradcheck=False),
    OpInfo('torch.max_pool3d', _T('max_pool3d'), _torch_max3, gradcheck=False),
]


# ----------------------------------------------------------------------------- avg pooling
def _avg1d(mk):
    yield S(mk((1, 2, 6)), 2)
    yield S(mk((2, 3, 9)), 3, 2, 1)
    yield S(mk((3, 9)), 3, 2, 1, True, False)
    yield S(mk((2, 3, 10)), 4, 3, 2, ceil_mode=True)
    yield S(mk((2, 2, 8)), (3,), (1,), (1,), count_include_pad=False)
    yield S(mk((0, 2, 8)), 2, grad=False)
    yield S(mk((3,)), 2)
    yield S(mk((2, 3, 4)), 3, padding=2)
    yield S(mk((2, 3, 1)), 2)


def _avg2d(mk):
    yield S(mk((1, 2, 4, 4)), 2)
    yield S(mk((2, 3, 7, 8)), 3, 2, 1)
    yield S(mk((3, 7, 8)), 3, 2, 1, True, False)
    yield S(mk((2, 2, 7, 8)), (3, 2), (2, 1), (1, 0), True, True)
    yield S(mk((2, 2, 9, 9)), 3, 2, 1, ceil_mode=True, count_include_pad=False)
    yield S(mk((2, 2, 6, 7)), 3, 1, 1, divisor_override=5)
    yield S(mk((2, 2, 6, 7)), 2, 1)
    yield S(mk((2, 2, 10, 12)), 5, desc='large tiling windows')
    yield S(mk((2, 2, 11, 13)), (5, 6), ceil_mode=True)
    yield S(mk((3, 4, 5)), (3, 4), pre='t')
    yield S(mk((0, 2, 4, 4)), 2, grad=False)
    yield S(mk((2, 3, 4, 4)), 3, padding=2)
    yield S(mk((2, 3, 1, 1)), 2)
    yield S(mk((1, 2, 4, 4)), 2, divisor_override=0)
    yield S(mk((1, 2, 4, 4)), 2, 0)
    yield S(mk((1, 2, 4, 4)), (2, 2, 2))


def _avg3d(mk):
    yield S(mk((1, 1, 3, 3, 4)), 2)
    yield S(mk((2, 2, 5, 6, 7)), 3, (1, 2, 2), 1)
    yield S(mk((2, 5, 6, 7)), 3, (1, 2, 2), 1, ceil_mode=True, count_include_pad=False)
    yield S(mk((1, 2, 4, 5, 6)), 2, 1, 1, divisor_override=3)
    yield S(mk((2, 3, 4)), 2)


OPS += [
    OpInfo('F.avg_pool1d', _F('avg_pool1d'), _avg1d, dtypes=(F32, F64, I64)),
    OpInfo('torch.avg_pool1d', _T('avg_pool1d'), _avg1d, gradcheck=False),
    OpInfo('F.avg_pool2d', _F('avg_pool2d'), _avg2d, dtypes=(F32, F64, I64)),
    OpInfo('F.avg_pool3d', _F('avg_pool3d'), _avg3d, dtypes=(F32, F64, I64)),
]


# ----------------------------------------------------------------------------- LP pooling
def _lp1d(mk):
    yield S(mk((1, 2, 6), 'pos'), 2., 2)
    yield S(mk((2, 3, 9), 'pos'), 1.5, 3, 2)
    yield S(mk((3, 9), 'pos'), 3, 2, 3, True)
    yield S(mk((2, 3, 9)), 2, 3, 2)
    yield S(mk((2, 3, 8)), float('inf'), 2)
    yield S(mk((3,)), 2, 2)


def _lp2d(mk):
    yield S(mk((1, 2, 4, 4), 'pos'), 2., 2)
    yield S(mk((2, 3, 7, 8), 'pos'), 1.5, 3, 2)
    yield S(mk((3, 7, 8), 'pos'), 2, (3, 2), (2, 1), True)
    yield S(mk((2, 3, 6, 7)), 2, 2)
    yield S(mk((2, 3, 6, 7)), float('inf'), 3, 2)
    yield S(mk((1, 2, 4, 4)), 2, 5)


def _lp3d(mk):
    yield S(mk((1, 1, 3, 3, 4), 'pos'), 2., 2)
    yield S(mk((2, 2, 5, 6, 7), 'pos'), 1.5, 3, 2, True)
    yield S(mk((2, 5, 6, 7)), 2, 2)


OPS += [
    OpInfo('F.lp_pool1d', _F('lp_pool1d'), _lp1d, rtol=1e-5, atol=1e-5),
    OpInfo('F.lp_pool2d', _F('lp_pool2d'), _lp2d, rtol=1e-5, atol=1e-5),
    OpInfo('F.lp_pool3d', _F('lp_pool3d'), _lp3d, rtol=1e-5, atol=1e-5),
]


# ----------------------------------------------------------------------------- adaptive
def _ad1d(mk):
    yield S(mk((1, 2, 7)), 3)
    yield S(mk((2, 3, 10)), 4)
    yield S(mk((3, 9)), 9)
    yield S(mk((2, 3, 8)), 4)
    yield S(mk((2, 3, 5)), 1)
    yield S(mk((2, 3, 5)), 8)
    yield S(mk((2, 3, 6)), (2,))
    yield S(mk((0, 3, 5)), 2, grad=False)
    yield S(mk((3,)), 2)


def _ad2d(mk):
    yield S(mk((1, 2, 4, 5)), (3, 2))
    yield S(mk((2, 3, 7, 8)), (3, 5))
    yield S(mk((3, 7, 8)), 4)
    yield S(mk((2, 3, 6, 8)), (3, 4))
    yield S(mk((2, 3, 7, 8)), (None, 3))
    yield S(mk((2, 3, 5, 4)), 1)
    yield S(mk((2, 3, 9, 10)), (2, 3))
    yield S(mk((2, 3, 10, 12)), (2, 2), desc='regular 5x6 windows')
    yield S(mk((2, 2, 3, 4)), (5, 6))
    yield S(mk((2, 3, 5, 4)), (1, None))
    yield S(mk((3, 4, 5)), (2, 3), pre='t')
    yield S(mk((0, 2, 4, 4)), 2, grad=False)
    if mk.is_float:
        yield S(_nan(mk, (2, 3, 7, 8)), (3, 5), desc='nan windows')
        yield S(_nan(mk, (2, 3, 9, 10)), (2, 1), desc='nan in long windows')
    yield S(mk((3,)), 2)
    yield S(mk((1, 2, 4, 4)), (2, 2, 2))
    yield S(mk((1, 2, 0, 4)), 2, grad=False)


def _ad3d(mk):
    yield S(mk((1, 1, 3, 3, 4)), (2, 2, 3))
    yield S(mk((2, 2, 5, 6, 7)), (2, 4, 3))
    yield S(mk((2, 5, 6, 7)), (None, 3, 4))
    yield S(mk((1, 2, 4, 4, 6)), 2)
    yield S(mk((2, 2, 3, 4, 5)), 1)
    yield S(mk((1, 2, 4)), 2)


def _neg_size(mk):
    yield S(mk((1, 2, 4, 4)), -1)
    yield S(mk((1, 2, 4, 4)), 0, grad=False)


for _d, _g in ((1, _ad1d), (2, _ad2d), (3, _ad3d)):
    OPS.append(OpInfo(f'F.adaptive_avg_pool{_d}d', _F(f'adaptive_avg_pool{_d}d'), _g))
    OPS.append(OpInfo(f'F.adaptive_max_pool{_d}d', _F(f'adaptive_max_pool{_d}d'), _g))
    OPS.append(OpInfo(f'F.adaptive_max_pool{_d}d:indices',
                      lambda m, x, o, _d=_d: getattr(m.nn.functional,
                                                     f'adaptive_max_pool{_d}d')(
                          x, o, return_indices=True), _g, gradcheck=False))
    OPS.append(OpInfo(f'F.adaptive_max_pool{_d}d_with_indices',
                      _F(f'adaptive_max_pool{_d}d_with_indices'), _g, gradcheck=False))
OPS += [
    OpInfo('torch.adaptive_avg_pool1d', _T('adaptive_avg_pool1d'), _ad1d, gradcheck=False),
    OpInfo('torch.adaptive_max_pool1d', _T('adaptive_max_pool1d'), _ad1d, gradcheck=False),
    OpInfo('F.adaptive_avg_pool2d:negative', _F('adaptive_avg_pool2d'), _neg_size,
           gradcheck=False),
    OpInfo('F.adaptive_max_pool2d:negative', _F('adaptive_max_pool2d'), _neg_size,
           gradcheck=False),
]


# ----------------------------------------------------------------------------- fractional
def _samples(rng, n, c, d):
    return rng.uniform(0, 1, (n, c, d)).round(6).tolist()


def _frac(nd):
    name = f'fractional_max_pool{nd}d'

    def fn(m, x, k, u=None, **kw):
        if u is not None:
            kw['_random_samples'] = m.tensor(u, dtype=x.dtype)
        return getattr(m.nn.functional, name)(x, k, return_indices=True, **kw)
    return fn


def _frac2d(mk):
    r = np.random.default_rng(3)
    yield S(mk((1, 2, 5, 5)), 2, output_size=3, u=_samples(r, 1, 2, 2))
    yield S(mk((2, 3, 9, 11)), 3, output_size=(4, 5), u=_samples(r, 2, 3, 2))
    yield S(mk((3, 9, 11)), (2, 3), output_size=(5, 4), u=_samples(r, 1, 3, 2))
    yield S(mk((2, 3, 10, 12)), 2, output_ratio=(0.5, 0.7), u=_samples(r, 2, 3, 2))
    yield S(mk((2, 2, 8, 8)), 2, output_size=7, u=_samples(r, 3, 2, 2),
            desc='more samples than the batch')
    yield S(mk((2, 2, 8, 8)), 2, output_size=1, u=_samples(r, 2, 2, 2))
    if mk.is_float:
        yield S(_nan(mk, (2, 3, 9, 11)), 3, output_size=(4, 5), u=_samples(r, 2, 3, 2),
                desc='nan windows')
    yield S(mk((1, 2, 4, 4)), 2)                                      # no size or ratio
    yield S(mk((1, 2, 4, 4)), 3, output_size=3, u=_samples(r, 1, 2, 2))   # pool too large
    yield S(mk((1, 2, 4, 4)), 2, output_size=2, u=_samples(r, 1, 2, 3))
    yield S(mk((2, 2, 4, 4)), 2, output_size=2, u=_samples(r, 1, 2, 2))
    yield S(mk((1, 2, 4, 4)), 2, output_size=2, u=_samples(r, 1, 3, 2))
    yield S(mk((1, 2, 4, 4)), 2, output_ratio=(0.5, 0.5, 0.5))
    yield S(mk((2, 4)), 2, output_size=1)


def _frac3d(mk):
    r = np.random.default_rng(4)
    yield S(mk((1, 1, 4, 4, 5)), 2, output_size=(2, 3, 3), u=_samples(r, 1, 1, 3))
    yield S(mk((2, 2, 7, 8, 9)), 2, output_size=(4, 5, 6), u=_samples(r, 2, 2, 3))
    yield S(mk((2, 7, 8, 9)), (3, 2, 2), output_ratio=(0.5, 0.5, 0.6), u=_samples(r, 1, 2, 3))
    yield S(mk((1, 2, 4, 4)), 2, output_size=2)
    yield S(mk((1, 2, 4, 4, 4)), 2, output_size=2, u=_samples(r, 1, 2, 2))


OPS += [
    OpInfo('F.fractional_max_pool2d', _frac(2), _frac2d),
    OpInfo('F.fractional_max_pool3d', _frac(3), _frac3d),
    OpInfo('F.fractional_max_pool2d_with_indices',
           lambda m, x, k, u, **kw: m.nn.functional.fractional_max_pool2d_with_indices(
               x, k, _random_samples=m.tensor(u, dtype=x.dtype), **kw),
           lambda mk: (s for s in _frac2d(mk) if 'u' in s.kw), gradcheck=False),
    OpInfo('F.fractional_max_pool3d_with_indices',
           lambda m, x, k, u, **kw: m.nn.functional.fractional_max_pool3d_with_indices(
               x, k, _random_samples=m.tensor(u, dtype=x.dtype), **kw),
           lambda mk: (s for s in _frac3d(mk) if 'u' in s.kw), gradcheck=False),
]


# ----------------------------------------------------------------------------- unpooling
def _unpool_fn(nd):
    def fn(m, x, k, s=None, p=0, output_size=None):
        F = m.nn.functional
        v, i = getattr(F, f'max_pool{nd}d')(x, k, s, p, return_indices=True)
        return getattr(F, f'max_unpool{nd}d')(v, i, k, s, p, output_size=output_size)
    return fn


def _unpool1d(mk):
    yield S(mk((1, 2, 6)), 2)
    yield S(mk((2, 3, 9)), 3, 2, 1)
    yield S(mk((3, 9)), 2, output_size=[9])
    yield S(mk((2, 3, 9)), 2, output_size=[2, 3, 9])
    yield S(mk((2, 3, 9)), 2, output_size=[20])                   # out of range
    yield S(mk((2, 3, 9)), 2, output_size=[9, 9])                 # wrong length


def _unpool2d(mk):
    yield S(mk((1, 2, 4, 4)), 2)
    yield S(mk((2, 3, 7, 8)), 3, 2, 1)
    yield S(mk((3, 7, 8)), 2, output_size=(7, 8))
    yield S(mk((2, 2, 6, 6)), (2, 3), (2, 1), (1, 0))
    yield S(mk((2, 3, 5, 5)), 2)                                  # indices out of range
    yield S(mk((1, 1, 4, 4)), 2, output_size=(9, 9))


def _unpool3d(mk):
    yield S(mk((1, 1, 2, 4, 4)), 2)
    yield S(mk((2, 2, 4, 6, 6)), 3, 2, 1)
    yield S(mk((2, 4, 6, 6)), 2, output_size=(5, 7, 7))


def _unpool_direct(mk):
    r = np.random.default_rng(5)
    idx = np.stack([r.permutation(16)[:4] for _ in range(6)]).reshape(2, 3, 2, 2)
    yield S(mk((2, 3, 2, 2)), idx, 2)
    yield S(mk((3, 2, 2)), idx[0], 2)
    yield S(mk((2, 3, 2, 2)), idx, 2, output_size=(5, 5))
    yield S(mk((2, 3, 2, 2)), idx * 2, 2)                         # invalid index
    yield S(mk((2, 3, 2, 2)), idx[..., :1], 2)                    # shape mismatch
    yield S(mk((2, 3, 2, 2)), idx.astype(np.float64), 2)          # float indices
    yield S(mk((2, 2)), idx[0, 0], 2)                             # 2-d input


OPS += [
    OpInfo('F.max_unpool1d', _unpool_fn(1), _unpool1d, dtypes=(F32, F64, I64)),
    OpInfo('F.max_unpool2d', _unpool_fn(2), _unpool2d, dtypes=(F32, F64, I64)),
    OpInfo('F.max_unpool3d', _unpool_fn(3), _unpool3d, dtypes=(F32, F64, I64)),
    OpInfo('F.max_unpool2d:direct', _F('max_unpool2d'), _unpool_direct),
]
