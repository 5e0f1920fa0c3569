"""Op-database entries of the loss functions (ember/_ops/loss.py).

Class weights and other arguments that PyTorch does not differentiate are made inside the
entry's function (``m.tensor(...)``), so that the harness does not give them
``requires_grad``; targets that PyTorch does not differentiate either are integer arrays or
made inside the function too.
"""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT

W4 = [0.5, 2.0, 1.0, 1.5]
W3 = [0.5, 2.0, 1.5]


def F(m):
    return m.nn.functional


def _sign(mk, shape):
    return np.where(mk(shape) > 0, 1.0, -1.0).astype(mk.np)


def _w(m, w, x):
    return None if w is None else m.tensor(w, dtype=x.dtype)


# ----------------------------------------------------------------------------- samples

REDS = ('mean', 'sum', 'none')


def pair_samples(dom_x='real', dom_t='real', shapes=((3, 4), (5,), (), (2, 3, 2), (0, 3))):
    def gen(mk):
        for sh in shapes:
            for r in REDS:
                yield S(mk(sh, dom_x), mk(sh, dom_t), reduction=r)
        yield S(mk((3, 4), dom_x), mk((4,), dom_t), desc='broadcast')
    return gen


def l1_samples(mk):
    yield from pair_samples()(mk)
    yield S(mk((3, 4)), mk((3, 4)), reduction='bad', grad=False)
    yield S(mk((3, 4)), mk((3, 4)), size_average=False)
    yield S(mk((3, 4)), mk((3, 4)), reduce=False)
    yield S(mk((3, 4)), mk((3, 4)), reduce=True, size_average=True)


def weighted_pair(name):
    def fn(m, x, t, reduction='mean'):
        w = m.linspace(0.5, 2, x.numel(), dtype=x.dtype).reshape(tuple(x.shape))
        return getattr(F(m), name)(x, t, reduction=reduction, weight=w)

    def gen(mk):
        for r in REDS:
            yield S(mk((3, 4)), mk((3, 4)), reduction=r)
    return fn, gen


def ce_fn(m, x, t, weight=None, **kw):
    return F(m).cross_entropy(x, t, weight=_w(m, weight, x), **kw)


def nll_fn(m, x, t, weight=None, **kw):
    return F(m).nll_loss(x, t, weight=_w(m, weight, x), **kw)


def nll_samples(mk):
    for r in REDS:
        yield S(mk((5, 4)), mk.index(4, (5,)), reduction=r)
        yield S(mk((5, 4)), mk.index(4, (5,)), reduction=r, weight=W4)
        yield S(mk((4, 4)), np.array([0, -100, 3, -100]), reduction=r, weight=W4)
        yield S(mk((4, 4)), np.array([0, 2, 3, 1]), reduction=r, ignore_index=2)
        yield S(mk((2, 3, 2, 2)), mk.index(3, (2, 2, 2)), reduction=r, desc=f'4d-{r}')
        yield S(mk((2, 3, 4)), mk.index(3, (2, 4)), reduction=r, weight=W3, desc=f'3d-{r}')
        yield S(mk((2, 3, 2, 1, 2)), mk.index(3, (2, 2, 1, 2)), reduction=r, desc=f'5d-{r}')
        yield S(mk((4,)), np.array(2), reduction=r, desc=f'unbatched-{r}')
        yield S(mk((4,)), np.array([1]), reduction=r, desc=f'unbatched1-{r}')
    yield S(mk((3, 4)), np.array([-100, -100, -100]), desc='all ignored: nan')
    yield S(mk((0, 4)), np.zeros(0, np.int64), desc='empty: nan')
    yield S(mk((0, 4)), np.zeros(0, np.int64), reduction='sum')
    yield S(mk((3, 4)), np.array([0, 1, 2], np.uint8), desc='byte target')
    yield S(mk((3, 4)), np.array([0, 1, 2]), size_average=False)
    yield S(mk((3, 4)), np.array([0, 1, 2]), reduction='elementwise_mean')
    # errors
    yield S(mk((3, 4)), np.array([0, 1]), desc='err batch')
    yield S(mk((3, 4)), np.array([0, 1, 4]), desc='err bounds')
    yield S(mk((3, 4)), np.array([0, 1, -1]), desc='err negative')
    yield S(mk((3, 4)), np.array([0, 1, 2], np.int32), desc='err int32')
    yield S(mk((3, 4)), mk((3,)), desc='err float target')
    yield S(mk((3, 4)), np.array([0, 1, 2]), weight=W3, desc='err weight')
    yield S(mk(()), np.array(0), desc='err 0d')
    yield S(mk((4,)), np.array([0, 1]), desc='err 1d target 2')
    yield S(mk((3, 4, 1)), np.array([[0, 1], [1, 1], [1, 1]]), desc='err 3d target')
    yield S(mk((3, 4, 1, 1)), np.array([[0], [1], [1]]), desc='err 4d target dims')
    yield S(mk((3, 4, 1, 1)), np.zeros((3, 1, 2), np.int64), desc='err 4d target size')
    yield S(mk((3, 4)), np.array([0, 1, 2]), reduction='bad', grad=False)


def ce_samples(mk):
    yield from nll_samples(mk)
    for r in REDS:
        # class probabilities
        yield S(mk((3, 4)), mk((3, 4), 'prob'), reduction=r, desc=f'probs-{r}')
        yield S(mk((3, 4)), mk((3, 4), 'prob'), reduction=r, weight=W4, desc=f'probsw-{r}')
        yield S(mk((2, 3, 2, 2)), mk((2, 3, 2, 2), 'prob'), reduction=r, desc=f'probs4d-{r}')
        yield S(mk((4,)), mk((4,), 'prob'), reduction=r, desc=f'probs1d-{r}')
        yield S(mk((3, 4)), mk((3, 4), 'prob'), reduction=r, label_smoothing=0.2,
                weight=W4, desc=f'probs-ls-{r}')
        # label smoothing with indices
        yield S(mk((5, 4)), mk.index(4, (5,)), reduction=r, label_smoothing=0.1)
        yield S(mk((4, 4)), np.array([0, -100, 3, 1]), reduction=r, label_smoothing=0.3,
                weight=W4)
        yield S(mk((2, 3, 2, 2)), mk.index(3, (2, 2, 2)), reduction=r, label_smoothing=0.2,
                desc=f'ls4d-{r}')
    yield S(mk((0, 4)), mk((0, 4), 'prob'), desc='probs empty: nan')
    yield S(mk((3, 4)), np.array([-100, -100, -100]), label_smoothing=0.1,
            desc='ls all ignored: nan')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), label_smoothing=-0.5, desc='negative ls: no-op')
    # errors
    yield S(mk((3, 4)), mk.index(4, (3, 4)), desc='err long probs')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), ignore_index=1, desc='err probs ignore_index')
    yield S(mk((3, 4)), np.array([0, 1, 2]), label_smoothing=1.5, desc='err ls')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), label_smoothing=1.5, desc='err probs ls')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), weight=W3, desc='err probs weight')
    yield S(mk(()), np.array(1), desc='err 0d')


def _bce_samples(mk):
    for sh in ((3, 4), (5,), (), (0, 2)):
        for r in REDS:
            yield S(mk(sh, 'prob'), mk(sh, 'prob'), reduction=r)
    yield S(np.array([0.0, 1.0, 0.5, 1e-30], mk.np), np.array([0.0, 1.0, 0.3, 0.0], mk.np),
            reduction='none', desc='edges (log clamp at -100; unclamped target gradient)')
    yield S(mk((3, 4), 'prob'), mk((3, 4), 'prob'), size_average=False)
    yield S(mk((3, 4)), mk((3, 4), 'prob'), desc='err range')
    yield S(mk((3, 4), 'prob'), mk((4,), 'prob'), desc='err size')
    yield S(mk((3, 4), 'prob'), mk((3, 4), 'prob').astype(np.float64 if mk.dtype == 'float32'
                                                           else np.float32), desc='err dtype')


def bce_w_fn(m, x, t, w=None, **kw):
    return F(m).binary_cross_entropy(x, t, weight=None if w is None else
                                     m.tensor(w, dtype=x.dtype), **kw)


def bce_w_samples(mk):
    for r in REDS:
        yield S(mk((3, 4), 'prob'), mk((3, 4), 'prob'), w=W4, reduction=r)
        yield S(mk((3, 4), 'prob'), mk((3, 4), 'prob'), w=[[1.0], [2.0], [0.5]], reduction=r)
    yield S(mk((3, 4), 'prob'), mk((3, 4), 'prob'), w=W3, desc='err weight shape')


def bcel_fn(m, x, t, w=None, pw=None, **kw):
    return F(m).binary_cross_entropy_with_logits(
        x, t, weight=None if w is None else m.tensor(w, dtype=x.dtype),
        pos_weight=None if pw is None else m.tensor(pw, dtype=x.dtype), **kw)


def bcel_samples(mk):
    for sh in ((3, 4), (5,), (), (0, 4)):
        for r in REDS:
            yield S(mk(sh), mk(sh, 'prob'), reduction=r)
    for r in REDS:
        yield S(mk((3, 4)), mk((3, 4), 'prob'), pw=W4, reduction=r)
        yield S(mk((3, 4)), mk((3, 4), 'prob'), w=W4, pw=[2.0], reduction=r)
        yield S(mk((3, 4)), mk((3, 4), 'prob'), w=[[1.0], [2.0], [0.5]], reduction=r)
    yield S(np.array([-60., 60., 0., 30.], mk.np), np.array([1., 0., 0.5, 1.], mk.np),
            desc='large logits')
    other = np.float64 if mk.dtype == 'float32' else np.float32
    yield S(mk((3, 4)), mk((3, 4), 'prob').astype(other), desc='mixed dtypes: promoted')
    yield S(mk((3, 4)), mk((4,), 'prob'), desc='err size')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), pw=W3, desc='err pos_weight')


def huber_samples(mk):
    yield from pair_samples()(mk)
    for d in (0.5, 2.0):
        yield S(mk((3, 4)), mk((3, 4)), delta=d)
        yield S(mk((3, 4)), mk((3, 4)), delta=d, reduction='none')
    yield S(mk((3, 4)), mk((3, 4)), delta=0.0, desc='err delta')
    other = np.float64 if mk.dtype == 'float32' else np.float32
    yield S(mk((3, 4)), mk((3, 4)).astype(other), desc='mixed dtypes: backward refused')
    yield S(mk((3, 4)), mk((3, 4)), delta=-1.0, desc='err delta')


def sl1_samples(mk):
    yield from pair_samples()(mk)
    for b in (0.5, 2.0, 0.0):
        yield S(mk((3, 4), 'away'), mk((3, 4), 'away'), beta=b)
        yield S(mk((3, 4), 'away'), mk((3, 4), 'away'), beta=b, reduction='none')
    yield S(mk((3, 4)), mk((3, 4)), beta=-1.0, desc='err beta')
    other = np.float64 if mk.dtype == 'float32' else np.float32
    yield S(mk((3, 4)), mk((3, 4)).astype(other), desc='mixed dtypes: promoted')


def soft_fn(m, x, t, **kw):
    if not isinstance(t, list):      # a tensor made by the harness, requiring grad
        return F(m).soft_margin_loss(x, t, **kw)
    return F(m).soft_margin_loss(x, m.tensor(t, dtype=x.dtype), **kw)


def soft_samples(mk):
    for sh in ((3, 4), (5,), (), (0, 2)):
        for r in REDS:
            yield S(mk(sh), _sign(mk, sh).tolist(), reduction=r)
    yield S(mk((3, 4)), _sign(mk, (3, 4)).tolist(), size_average=False)
    yield S(mk((3, 4)), _sign(mk, (4,)).tolist(), desc='broadcast target')
    yield S(mk((3, 4)), _sign(mk, (3, 4)), desc='err target requires grad')
    yield S(mk((4,)), _sign(mk, (3, 4)).tolist(), desc='err broadcast output')


def pois_samples(mk):
    for r in REDS:
        yield S(mk((3, 4)), mk((3, 4), 'shift'), reduction=r)
        yield S(mk((3, 4)), mk((3, 4), 'shift'), reduction=r, full=True)
        yield S(mk((3, 4), 'pos'), mk((3, 4), 'shift'), reduction=r, log_input=False)
        yield S(mk((3, 4), 'pos'), mk((3, 4), 'shift'), reduction=r, log_input=False, full=True,
                eps=1e-3)
    yield S(mk(()), mk((), 'shift'))
    yield S(mk((3, 4)), mk((3, 4), 'shift'), reduce=False)
    yield S(mk((3, 4)), mk((3, 4), 'shift'), reduction='bad', grad=False)


def gauss_samples(mk):
    for r in REDS:
        yield S(mk((3, 4)), mk((3, 4)), mk((3, 4), 'pos'), reduction=r)
        yield S(mk((3, 4)), mk((3, 4)), mk((3,), 'pos'), reduction=r, full=True)
        yield S(mk((3, 4)), mk((3, 4)), mk((3, 1), 'pos'), reduction=r)
        yield S(mk((2, 3, 4)), mk((2, 3, 4)), mk((2, 1, 4), 'pos'), reduction=r)
    yield S(mk((3, 4)), mk((3, 4)), 0.5, desc='float var')
    yield S(mk((3, 4)), mk((3, 4)), np.full((3, 4), 1e-9, mk.np), eps=1e-3, desc='clamped var')
    yield S(mk((3, 4)), mk((3, 4)), mk((4,), 'pos'), desc='err var size')
    yield S(mk((3, 4)), mk((3, 4)), mk((3, 4)), desc='err negative var')
    yield S(mk((3, 4)), mk((3, 4)), -0.5, desc='err negative float var')
    yield S(mk((3, 4)), mk((3, 4)), mk((3, 4), 'pos'), reduction='bad', grad=False)


def kl_samples(mk):
    for r in ('mean', 'sum', 'none', 'batchmean'):
        yield S(mk((3, 4)), mk((3, 4), 'prob'), reduction=r)
        yield S(mk((3, 4)), mk((3, 4)), reduction=r, log_target=True)
    yield S(mk(()), mk((), 'prob'), reduction='batchmean')
    yield S(mk((3, 4)), np.array([[0., 0.5, 0.2, 0.3]] * 3, mk.np), reduction='sum',
            desc='zero target')
    yield S(mk((3, 4)), mk((3, 4), 'prob'), size_average=False)
    yield S(mk((3, 4)), mk((3, 4), 'prob'), reduction='bad', grad=False)
    yield S(mk((3, 4)), mk.index(3, (3, 4)), reduction='sum', desc='err int target')


def mrl_fn(m, a, b, t, **kw):
    return F(m).margin_ranking_loss(a, b, m.tensor(t, dtype=a.dtype), **kw)


def mrl_samples(mk):
    for r in REDS:
        yield S(mk((5,), 'away'), mk((5,), 'away'), [1., -1., 1., 1., -1.], reduction=r)
        yield S(mk((5,), 'away'), mk((5,), 'away'), [1., -1., 1., 1., -1.], reduction=r,
                margin=0.5)
    yield S(mk((), 'away'), mk((), 'away'), -1.0)
    yield S(mk((5,)), mk((5,)), [[1.] * 5], desc='err dims')


def hinge_fn(m, x, t, **kw):
    return F(m).hinge_embedding_loss(x, m.tensor(t, dtype=x.dtype), **kw)


def hinge_samples(mk):
    t = [[1., -1., -1., 1.], [-1., 1., -1., 1.], [1., 1., -1., -1.]]
    for r in REDS:
        yield S(mk((3, 4), 'away'), t, reduction=r)
        yield S(mk((3, 4), 'away'), t, reduction=r, margin=2.0)
    yield S(mk((3, 4), 'away'), [1., -1., 1., -1.], desc='broadcast target')


def mlm_samples(mk):
    t = np.array([[1, 2, -1, 0], [3, 3, -1, 1], [-1, 0, 0, 0], [0, 1, 2, 3]])
    for r in REDS:
        yield S(mk((4, 4), 'uniq'), t, reduction=r)
        yield S(mk((4,), 'uniq'), np.array([2, 0, -1, 1]), reduction=r)
    yield S(mk((3, 4)), t[:2], desc='err target size')
    yield S(mk((3, 4)), t[:3] + 4, desc='err target range')
    yield S(mk((3,)), np.array([0, -1, 3]), desc='err range after -1')
    yield S(mk((3,)), np.array([0, -2, 1]), desc='err below -1')
    yield S(mk((3, 4)), t[:3].astype(np.int32), desc='err int32')
    yield S(mk((3, 2, 2)), np.zeros((3, 2, 2), np.int64), desc='err 3d')


def mm_fn(m, x, t, w=None, **kw):
    return F(m).multi_margin_loss(x, t, weight=None if w is None else m.tensor(w, dtype=x.dtype),
                                  **kw)


def mm_samples(mk):
    for r in REDS:
        for p in (1, 2):
            yield S(mk((5, 4), 'uniq'), mk.index(4, (5,)), p=p, reduction=r)
            yield S(mk((5, 4), 'uniq'), mk.index(4, (5,)), p=p, margin=0.6, w=W4, reduction=r)
        yield S(mk((4,), 'uniq'), np.array(1), reduction=r, desc=f'unbatched-{r}')
        yield S(mk((4,), 'uniq'), np.array([2]), reduction=r, desc=f'unbatched1-{r}')
    yield S(mk((3, 4)), np.array([0, 1]), desc='err target size')
    yield S(mk((3, 4)), np.array([0, 1, 4]), desc='err target range')
    yield S(mk((3, 4)), np.array([0, 1, 2]), w=W3, desc='err weight size')
    yield S(mk((3, 4)), np.array([0, 1, 2]), p=3, desc='err p')
    yield S(mk((3, 4)), np.array([0, 1, 2]), w=[W4], desc='err weight dims')
    yield S(mk((3, 2, 2)), np.array([0, 1, 1]), desc='err 3d')
    yield S(mk((3, 4)), np.array([0, 1, 2], np.int32), desc='err int32')


def mlsm_fn(m, x, t, w=None, **kw):
    return F(m).multilabel_soft_margin_loss(
        x, t, weight=None if w is None else m.tensor(w, dtype=x.dtype), **kw)


def mlsm_samples(mk):
    for r in REDS:
        yield S(mk((3, 4)), (mk((3, 4), 'prob') > 0.5).astype(mk.np), reduction=r)
        yield S(mk((3, 4)), (mk((3, 4), 'prob') > 0.5).astype(mk.np), w=W4, reduction=r)
        yield S(mk((4,)), (mk((4,), 'prob') > 0.5).astype(mk.np), reduction=r)
    yield S(mk((3, 4)), mk((3, 4)), reduction='bad', grad=False)


def cos_fn(m, a, b, t, **kw):
    return F(m).cosine_embedding_loss(a, b, m.tensor(t), **kw)


def cos_samples(mk):
    for r in REDS:
        yield S(mk((4, 5)), mk((4, 5)), [1, -1, 1, -1], reduction=r)
        yield S(mk((4, 5)), mk((4, 5)), [1, -1, -1, -1], margin=-0.3, reduction=r)
        yield S(mk((5,)), mk((5,)), -1, reduction=r)
        yield S(mk((5,)), mk((5,)), 1, reduction=r)
    yield S(mk((4, 5)), mk((4, 5)), [[1, -1, 1, -1]], desc='err 2d target')
    yield S(mk((4, 5)), mk((4, 5)), 1, desc='err 0d target 2d inputs')
    yield S(mk((5,)), mk((5,)), [1], desc='err 1d target 1d inputs')


def trip_samples(mk):
    for r in REDS:
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r)
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r, swap=True, margin=2.0)
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r, p=1, eps=0.0)
        yield S(mk((5,)), mk((5,)), mk((5,)), reduction=r, p=3, margin=4.0)
    yield S(mk((4, 5)), mk((4, 5)), mk((5,)), desc='err dims')
    yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), margin=0.0, desc='err margin')


def tripd_fn(m, a, p, n, dist=None, **kw):
    df = None
    if dist == 'cos':
        def df(x, y):
            return 1.0 - F(m).cosine_similarity(x, y)
    elif dist == 'l1':
        df = m.nn.PairwiseDistance(p=1)
    return F(m).triplet_margin_with_distance_loss(a, p, n, distance_function=df, **kw)


def tripd_samples(mk):
    for r in REDS:
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r)
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r, swap=True, dist='cos',
                margin=0.5)
        yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction=r, dist='l1', margin=3.0)
    yield S(mk((4, 5)), mk((4, 5)), mk((5,)), desc='err dims')
    yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), margin=-1.0, desc='err margin')
    yield S(mk((4, 5)), mk((4, 5)), mk((4, 5)), reduction='bad', grad=False)


def lce_fn(m, x, w, t, b=None, cw=None, **kw):
    return F(m).linear_cross_entropy(x, w, t, linear_bias=b,
                                     weight=None if cw is None else m.tensor(cw, dtype=x.dtype),
                                     **kw)


def lce_samples(mk):
    for r in REDS:
        yield S(mk((5, 3)), mk((4, 3)), mk.index(4, (5,)), reduction=r)
        yield S(mk((5, 3)), mk((4, 3)), mk.index(4, (5,)), b=mk((4,)), cw=W4, reduction=r,
                label_smoothing=0.1)
        yield S(mk((2, 3)), mk((4, 2, 3)), mk.index(4, (2, 2)), b=mk((4, 2)), reduction=r,
                ignore_index=1)
        yield S(mk((3,)), mk((4, 3)), np.array(2), reduction=r)
        yield S(mk((5, 3)), mk((4, 3)), mk((5, 4), 'prob'), reduction=r)
    yield S(mk((5, 3)), mk((4, 3)), mk((5, 4), 'prob'), ignore_index=1, desc='err probs ii')
    yield S(mk((5, 3)), mk((4, 2)), mk.index(4, (5,)), desc='err in_features')
    yield S(mk((2, 5, 3)), mk((4, 3)), mk.index(4, (2, 5)), desc='err input dims')
    yield S(mk((3,)), mk((4, 2, 3)), mk.index(4, (2,)), desc='err kdim unbatched')
    yield S(mk((5, 3)), mk((4, 3)), mk.index(4, (5,)), b=mk((3,)), desc='err bias')


def ctc_fn(m, x, t, il, tl, log_softmax=True, **kw):
    """``x`` are logits: a log_softmax feeds the loss as in practice (PyTorch's CTC gradient
    is exact only for that; the raw-log_probs gradient is compared in tests/nn)."""
    lp = x.log_softmax(-1) if log_softmax else x
    return F(m).ctc_loss(lp, t, il, tl, **kw)


def ctc_samples(mk):
    T, N, C = 6, 3, 5
    tg = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    for r in REDS:
        yield S(mk((T, N, C)), tg, [6, 5, 6], [3, 2, 1], reduction=r)
        yield S(mk((T, N, C)), np.array([1, 2, 2, 3, 1, 4]), [6, 5, 6], [3, 2, 1], reduction=r,
                desc=f'concatenated-{r}')
        yield S(mk((T, C)), np.array([1, 3]), [6], [2], reduction=r, desc=f'unbatched-{r}')
        yield S(mk((T, N, C)), tg, [6, 2, 6], [3, 3, 0], reduction=r, zero_infinity=True,
                desc=f'zero_inf-{r}')
        yield S(mk((T, N, C)), tg % 4, [6, 6, 4], [3, 2, 2], reduction=r, blank=4,
                desc=f'blank4-{r}')
    yield S(mk((T, N, C)), tg, [6, 2, 6], [3, 3, 0], reduction='none', grad=False,
            desc='impossible: inf')
    yield S(mk((T, N, C)), tg, np.array([6, 5, 6]), np.array([3, 2, 1]), desc='tensor lengths')
    yield S(mk((T, N, C)), tg, [6, 5, 7], [3, 2, 1], desc='err input length')
    yield S(mk((T, N, C)), tg, [6, 5], [3, 2, 1], desc='err input_lengths size')
    yield S(mk((T, N, C)), tg, [6, 5, 6], [3, 2, 4], desc='err target length')
    yield S(mk((T, N, C)), tg, [6, 5, 6], [3, 2, 1], blank=5, desc='err blank')
    yield S(mk((T, N, C)), np.array([1, 2, 2]), [6, 5, 6], [3, 2, 1], desc='err concat size')
    yield S(mk((T, N, C, 2)), tg, [6, 5, 6], [3, 2, 1], log_softmax=False, desc='err 4d')
    yield S(mk((T,)), tg[:1], [6], [3], log_softmax=False, desc='err 1d')
    yield S(mk((T, N, C)), tg, np.array([6., 5., 6.]), np.array([3, 2, 1]), desc='err float lengths')
    yield S(mk((T, N, C)), tg, np.array([6, 5, 6]), [3, 2, 1], desc='err mixed lengths')


def _defaults(mk):
    x, y, s = mk((5,), 'away'), mk((5,), 'away'), _sign(mk, (5,))
    yield S('margin_ranking_loss', x, y, s.tolist(), desc='margin_ranking_loss')
    yield S('kl_div', mk((3, 4)), mk((3, 4), 'prob'), desc='kl_div')
    yield S('binary_cross_entropy_with_logits', mk((3, 4)), mk((3, 4), 'prob'), desc='bce')
    yield S('triplet_margin_loss', mk((4, 5)), mk((4, 5)), mk((4, 5)), desc='triplet')


def defaults_call(m, name, *args):
    """A torch-level loss called with its defaults: PyTorch's bindings then reduce nothing
    (the documented default, Mean, is not what its argument parser applies)."""
    args = [m.tensor(a, dtype=args[0].dtype) if isinstance(a, list) else a for a in args]
    return getattr(m, name)(*args)


OPS = [
    OpInfo('torch_level_defaults', defaults_call, _defaults),
    OpInfo('ctc_loss:defaults', lambda m, x, t: m.ctc_loss(x.log_softmax(2), t, [4, 3], [2, 1]),
           lambda mk: [S(mk((4, 2, 3)), np.array([[1, 2], [2, 0]]))]),
    OpInfo('hinge_embedding_loss:defaults',
           lambda m, x, t: m.hinge_embedding_loss(x, m.tensor(t, dtype=x.dtype)),
           lambda mk: [S(mk((4,), 'away'), [1., -1., 1., -1.])]),
    OpInfo('cosine_embedding_loss:defaults',
           lambda m, a, b: m.cosine_embedding_loss(a, b, m.tensor([1, -1])),
           lambda mk: [S(mk((2, 3)), mk((2, 3)))]),
    OpInfo('nn.functional.l1_loss', lambda m, *a, **k: F(m).l1_loss(*a, **k), l1_samples),
    OpInfo('nn.functional.l1_loss:weight', *weighted_pair('l1_loss')),
    OpInfo('nn.functional.mse_loss', lambda m, *a, **k: F(m).mse_loss(*a, **k), l1_samples),
    OpInfo('nn.functional.mse_loss:weight', *weighted_pair('mse_loss')),
    OpInfo('nn.functional.nll_loss', nll_fn, nll_samples),
    OpInfo('nn.functional.cross_entropy', ce_fn, ce_samples, gc_max=4),
    OpInfo('nn.functional.binary_cross_entropy',
           lambda m, *a, **k: F(m).binary_cross_entropy(*a, **k), _bce_samples),
    OpInfo('nn.functional.binary_cross_entropy:weight', bce_w_fn, bce_w_samples),
    OpInfo('nn.functional.binary_cross_entropy_with_logits', bcel_fn, bcel_samples, gc_max=4),
    OpInfo('binary_cross_entropy_with_logits',
           lambda m, x, t, r=1: m.binary_cross_entropy_with_logits(x, t, None, None, r),
           lambda mk: (S(mk((3, 4)), mk((4,), 'prob'), r) for r in (0, 1, 2))),
    OpInfo('nn.functional.huber_loss', lambda m, *a, **k: F(m).huber_loss(*a, **k),
           huber_samples),
    OpInfo('nn.functional.huber_loss:weight', *weighted_pair('huber_loss')),
    OpInfo('nn.functional.smooth_l1_loss', lambda m, *a, **k: F(m).smooth_l1_loss(*a, **k),
           sl1_samples),
    OpInfo('nn.functional.soft_margin_loss', soft_fn, soft_samples),
    OpInfo('nn.functional.poisson_nll_loss', lambda m, *a, **k: F(m).poisson_nll_loss(*a, **k),
           pois_samples),
    OpInfo('poisson_nll_loss', lambda m, x, t, r: m.poisson_nll_loss(x, t, True, False, 1e-8, r),
           lambda mk: (S(mk((3, 4)), mk((3, 4), 'shift'), r) for r in (0, 1, 2))),
    OpInfo('nn.functional.gaussian_nll_loss',
           lambda m, *a, **k: F(m).gaussian_nll_loss(*a, **k), gauss_samples),
    OpInfo('nn.functional.kl_div', lambda m, *a, **k: F(m).kl_div(*a, **k), kl_samples),
    OpInfo('kl_div', lambda m, x, t, r, **k: m.kl_div(x, t, r, **k),
           lambda mk: (S(mk((3, 4)), mk((3, 4), 'prob'), r, log_target=lt)
                       for r in (0, 1, 2) for lt in (False, True))),
    OpInfo('nn.functional.margin_ranking_loss', mrl_fn, mrl_samples),
    OpInfo('margin_ranking_loss', lambda m, a, b, t: m.margin_ranking_loss(a, b, t, 0.2, 2),
           lambda mk: [S(mk((5,), 'away'), mk((5,), 'away'), _sign(mk, (5,)))]),
    OpInfo('nn.functional.hinge_embedding_loss', hinge_fn, hinge_samples),
    OpInfo('hinge_embedding_loss',
           lambda m, x, t: m.hinge_embedding_loss(x, m.tensor(t, dtype=x.dtype), 0.5, 0),
           lambda mk: [S(mk((4,), 'away'), [1., -1., 1., -1.])]),
    OpInfo('nn.functional.multilabel_margin_loss',
           lambda m, *a, **k: F(m).multilabel_margin_loss(*a, **k), mlm_samples),
    OpInfo('nn.functional.multi_margin_loss', mm_fn, mm_samples, gc_max=4),
    OpInfo('nn.functional.multilabel_soft_margin_loss', mlsm_fn, mlsm_samples),
    OpInfo('nn.functional.cosine_embedding_loss', cos_fn, cos_samples),
    OpInfo('cosine_embedding_loss',
           lambda m, a, b: m.cosine_embedding_loss(a, b, m.tensor([1, -1]), 0.1, 0),
           lambda mk: [S(mk((2, 3)), mk((2, 3)))]),
    OpInfo('nn.functional.triplet_margin_loss',
           lambda m, *a, **k: F(m).triplet_margin_loss(*a, **k), trip_samples),
    OpInfo('triplet_margin_loss',
           lambda m, a, p, n: m.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, True, 0),
           lambda mk: [S(mk((4, 5)), mk((4, 5)), mk((4, 5)))]),
    OpInfo('nn.functional.triplet_margin_with_distance_loss', tripd_fn, tripd_samples),
    OpInfo('nn.functional.linear_cross_entropy', lce_fn, lce_samples),
    OpInfo('nn.functional.ctc_loss', ctc_fn, ctc_samples, gc_max=3),
    OpInfo('ctc_loss', lambda m, x, t: m.ctc_loss(x.log_softmax(2), t, [4, 3], [2, 1], 0, 2,
                                                   False),
           lambda mk: [S(mk((4, 2, 3)), np.array([[1, 2], [2, 0]]))]),
]
