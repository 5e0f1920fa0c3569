"""Op-database entries of the histograms: ``histc``, ``histogram`` (function and Tensor
method; int or tensor bins, range, weight, density) and ``histogramdd`` (int, list of int or
list of tensor bins). Neither has a derivative: where an input requires grad torch's backward
raises ("derivative for aten::... is not implemented"), and the harness checks that ember's
raises too."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, FLOAT, INF, NAN

OPS = []


def _vals(mk, shape, lo=-2., hi=2.):
    return np.asarray(mk.rng.uniform(lo, hi, shape), mk.np)


def _hist_samples(mk):
    x = _vals(mk, (40,))
    yield S(x, 5)
    yield S(x, 7, range=(-1., 1.5))
    yield S(_vals(mk, (3, 4)), 4, density=True)
    yield S(x, 6, weight=_vals(mk, (40,), 0., 1.))
    yield S(x, 6, weight=_vals(mk, (40,), 0., 1.), density=True, range=(-3, 3))
    yield S(_vals(mk, (2, 5)), 3, weight=_vals(mk, (10,), 0., 1.), desc='2x5 weight flat')
    yield S(np.array([1., 1., 1.], mk.np), 3, desc='zero-width range')
    yield S(np.array([0., 1., 2., 3., 4.], mk.np), 4, desc='values on the edges')
    yield S(np.arange(10, dtype=mk.np) / 10, 10, desc='tenths (float rounding at edges)')
    yield S(np.zeros(0, mk.np), 3, desc='empty')
    yield S(np.array(1.5, mk.np), 2, desc='0-dim')
    yield S(x, np.array([-2., -0.5, 0., 0.1, 2.], mk.np), desc='tensor bins')
    yield S(x, np.array([-1., 0., 1.], mk.np), weight=_vals(mk, (40,), 0., 1.), density=True)
    yield S(x, np.array([-1., 1., 0., 2.], mk.np), desc='unsorted tensor bins')
    # errors
    yield S(x, 0, desc='bins=0')
    yield S(x, -2, desc='bins<0')
    yield S(x, 3, range=(2., 1.), desc='min > max')
    yield S(x, 3, range=(0., INF), desc='infinite range')
    yield S(np.array([1., NAN], mk.np), 3, desc='nan data')
    yield S(np.array([1., INF], mk.np), 3, desc='inf data')
    yield S(x, np.array([[0., 1.]], mk.np), desc='2-D bins')
    yield S(x, np.array([0.], mk.np), desc='one edge')
    yield S(x, np.array([0., 1.], np.float64 if mk.dtype == F32 else np.float32),
            desc='bins dtype')
    yield S(x, 3, weight=_vals(mk, (39,)), desc='weight shape')
    yield S(x, 3, weight=_vals(mk, (40,)).astype(np.float64 if mk.dtype == F32 else
                                                 np.float32), desc='weight dtype')
    yield S(x, 2.5, desc='float bins')


def _int_samples(mk):
    yield S(np.arange(6, dtype=np.int64), 3, desc='int input')


def _histdd(m, x, *a, **kw):
    r = m.histogramdd(x, *a, **kw)
    return (r.hist,) + tuple(r.bin_edges)


def _histdd_t(m, x, *edges, **kw):
    r = m.histogramdd(x, list(edges), **kw)
    return (r.hist,) + tuple(r.bin_edges)


def _dd_samples(mk):
    p = _vals(mk, (30, 2))
    yield S(p, 3)
    yield S(p, [2, 4])
    yield S(p, (3, 2), range=[-1., 1., -2., 0.5], density=True)
    yield S(_vals(mk, (4, 5, 3)), [2, 3, 2], weight=_vals(mk, (4, 5), 0., 1.))
    yield S(np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.]], mk.np), [3, 3],
            weight=np.array([1., 2., 4., 8.], mk.np), desc='points on edges')
    yield S(np.zeros((0, 2), mk.np), [2, 2], desc='no points')
    yield S(_vals(mk, (10, 1)), 4, desc='1-D')
    yield S(np.zeros((3, 0), mk.np), [], desc='0 dims')
    # errors
    yield S(p, [2], desc='too few bins')
    yield S(p, [2, 0], desc='zero bins')
    yield S(p, [2, 2], range=[0., 1.], desc='short range')
    yield S(_vals(mk, (5,)), [2], desc='1-D input')
    yield S(p, [2, 2], weight=_vals(mk, (29,)), desc='weight shape')


def _dd_t_samples(mk):
    p = _vals(mk, (30, 2))
    e0 = np.array([-2., -1., 0., 2.], mk.np)
    e1 = np.array([-1., 1.], mk.np)
    yield S(p, e0, e1)
    yield S(p, e0, e1, weight=_vals(mk, (30,), 0., 1.), density=True)
    yield S(p, e0, desc='one edge list for 2 dims')
    yield S(p, e0, np.array([1.], mk.np), desc='one edge')


def _histc_samples(mk):
    yield S(_vals(mk, (40,)), 6, -1, 1)
    yield S(np.arange(10, dtype=mk.np) / 10, 10, desc='tenths')
    yield S(np.arange(100, dtype=mk.np) / 7, 13, 0.3, 11.7, desc='rounding at edges')
    yield S(np.array([0.1, 0.2, 0.3, 0.7, 0.9], mk.np), 10, 0.1, 0.9)
    yield S(np.array([2., 2.], mk.np), 4, desc='zero-width data range')
    yield S(_vals(mk, (2, 3)), 3, min=1.5, desc='2-D, min only')
    yield S(np.zeros(0, mk.np), 3, desc='empty')
    yield S(np.array([1., INF, 2.], mk.np), 3, 0, 3, desc='inf outside the range')
    # errors
    yield S(np.array([1., NAN, 2.], mk.np), 3, desc='nan in the data range')
    yield S(np.array([1., INF, 2.], mk.np), 3, desc='inf in the data range')
    yield S(_vals(mk, (4,)), 3, 3, 1, desc='min > max')
    yield S(_vals(mk, (4,)), 3, 0, INF, desc='infinite max')
    yield S(_vals(mk, (4,)), 0, desc='bins=0')


_NODERIV = "neither op has a derivative: the harness checks that both backwards raise"
OPS += [
    OpInfo('histogram', lambda m, *a, **kw: tuple(m.histogram(*a, **kw)), _hist_samples,
           dtypes=FLOAT, gradcheck=False, note=_NODERIV),
    OpInfo('histogram.method', lambda m, x, *a, **kw: tuple(x.histogram(*a, **kw)),
           lambda mk: (s for i, s in enumerate(_hist_samples(mk)) if i < 4), dtypes=(F32,),
           gradcheck=False),
    OpInfo('histogram:int', lambda m, *a, **kw: tuple(m.histogram(*a, **kw)), _int_samples,
           dtypes=(I64,), gradcheck=False),
    OpInfo('histogramdd', _histdd, _dd_samples, dtypes=FLOAT, gradcheck=False, note=_NODERIV),
    OpInfo('histogramdd:tensor_bins', _histdd_t, _dd_t_samples, dtypes=FLOAT, gradcheck=False,
           note=_NODERIV),
    OpInfo('histc:more', lambda m, *a, **kw: m.histc(*a, **kw), _histc_samples,
           dtypes=FLOAT, gradcheck=False),
]
