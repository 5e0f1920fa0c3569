"""Loss layers (ember/nn/modules/loss.py) vs torch: repr, buffers/state_dict, forward values
and gradients under a random upstream gradient (float32/float64, batched and unbatched),
deprecated arguments, constructor errors, grad_fn names; plus the CTC gradient w.r.t. raw
log_probs, double backward, and the speed-relevant paths."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, errors_both, gradcheck_ember

rng = np.random.default_rng(0)


def R(*shape, dtype=np.float32, lo=-2, hi=2):
    return rng.uniform(lo, hi, shape).astype(dtype)


def P(*shape, dtype=np.float32):
    return rng.uniform(0.05, 0.95, shape).astype(dtype)


def SGN(*shape, dtype=np.float32):
    return np.where(rng.standard_normal(shape) > 0, 1.0, -1.0).astype(dtype)


def IDX(high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


# (name, constructor kwargs (module-level names; tensors are built per library), inputs,
#  indices of the inputs that get gradients)
def _cases(dt):
    return [
        ('L1Loss', {}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1)),
        ('L1Loss', {'reduction': 'sum'}, [R(5, dtype=dt), R(5, dtype=dt)], (0, 1)),
        ('MSELoss', {'reduction': 'none'}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1)),
        ('CrossEntropyLoss', {}, [R(4, 5, dtype=dt), IDX(5, 4)], (0,)),
        ('CrossEntropyLoss', {'weight': 'W5', 'ignore_index': 1, 'label_smoothing': 0.1},
         [R(4, 5, dtype=dt), np.array([0, 1, 4, 2])], (0,)),
        ('CrossEntropyLoss', {'reduction': 'none'}, [R(2, 5, 3, 2, dtype=dt), IDX(5, 2, 3, 2)],
         (0,)),
        ('CrossEntropyLoss', {}, [R(5, dtype=dt), np.array(3)], (0,)),
        ('CrossEntropyLoss', {'label_smoothing': 0.2}, [R(4, 5, dtype=dt), P(4, 5, dtype=dt)],
         (0, 1)),
        ('NLLLoss', {'weight': 'W5'}, [R(4, 5, dtype=dt), IDX(5, 4)], (0,)),
        ('NLLLoss', {'reduction': 'sum'}, [R(2, 5, 3, dtype=dt), IDX(5, 2, 3)], (0,)),
        ('PoissonNLLLoss', {}, [R(3, 4, dtype=dt), P(3, 4, dtype=dt) * 3], (0, 1)),
        ('PoissonNLLLoss', {'log_input': False, 'full': True},
         [P(3, 4, dtype=dt), P(3, 4, dtype=dt) * 3], (0, 1)),
        ('GaussianNLLLoss', {'full': True}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt),
                                             P(3, 1, dtype=dt)], (0, 1, 2)),
        ('KLDivLoss', {'reduction': 'batchmean'}, [R(3, 4, dtype=dt), P(3, 4, dtype=dt)],
         (0, 1)),
        ('KLDivLoss', {'reduction': 'sum', 'log_target': True},
         [R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1)),
        ('BCELoss', {'weight': 'W4'}, [P(3, 4, dtype=dt), P(3, 4, dtype=dt)], (0, 1)),
        ('BCEWithLogitsLoss', {'pos_weight': 'W4'}, [R(3, 4, dtype=dt), P(3, 4, dtype=dt)],
         (0, 1)),
        ('BCEWithLogitsLoss', {'weight': 'W4', 'reduction': 'none'},
         [R(3, 4, dtype=dt), P(3, 4, dtype=dt)], (0, 1)),
        ('HingeEmbeddingLoss', {'margin': 0.5}, [R(3, 4, dtype=dt), SGN(3, 4, dtype=dt)], (0,)),
        ('MultiLabelMarginLoss', {}, [R(2, 4, dtype=dt), np.array([[1, 2, -1, 0], [3, -1, 0, 0]])],
         (0,)),
        ('SmoothL1Loss', {'beta': 0.5}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1)),
        ('HuberLoss', {'delta': 0.7}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1)),
        ('SoftMarginLoss', {}, [R(3, 4, dtype=dt), SGN(3, 4, dtype=dt)], (0,)),
        ('MultiLabelSoftMarginLoss', {'weight': 'W4'},
         [R(3, 4, dtype=dt), (P(3, 4) > 0.5).astype(dt)], (0, 1)),
        ('CosineEmbeddingLoss', {'margin': 0.2}, [R(3, 4, dtype=dt), R(3, 4, dtype=dt),
                                                  np.array([1, -1, -1])], (0, 1)),
        ('MarginRankingLoss', {'margin': 0.1}, [R(5, dtype=dt), R(5, dtype=dt), SGN(5, dtype=dt)],
         (0, 1)),
        ('MultiMarginLoss', {'p': 2, 'margin': 0.8, 'weight': 'W4'},
         [R(3, 4, dtype=dt), IDX(4, 3)], (0,)),
        ('TripletMarginLoss', {'margin': 2.0, 'p': 1.0, 'swap': True},
         [R(3, 4, dtype=dt), R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1, 2)),
        ('TripletMarginWithDistanceLoss', {'margin': 2.0},
         [R(3, 4, dtype=dt), R(3, 4, dtype=dt), R(3, 4, dtype=dt)], (0, 1, 2)),
        ('TripletMarginWithDistanceLoss', {'reduction': 'none'},
         [R(4, dtype=dt), R(4, dtype=dt), R(4, dtype=dt)], (0, 1, 2)),
    ]


def _kw(m, kw, dt):
    out = {}
    for k, v in kw.items():
        if v == 'W5':
            v = m.tensor([0.5, 2.0, 1.0, 1.5, 0.7], dtype=getattr(m, dt))
        elif v == 'W4':
            v = m.tensor([0.5, 2.0, 1.0, 1.5], dtype=getattr(m, dt))
        out[k] = v
    return out


def _ids():
    return [f'{c[0]}-{i}' for i, c in enumerate(_cases(np.float32))]


@pytest.mark.parametrize('dt', ['float32', 'float64'])
@pytest.mark.parametrize('i', range(len(_cases(np.float32))), ids=_ids())
def test_loss_layer_vs_torch(i, dt):
    name, kw, arrays, gi = _cases(np.dtype(dt))[i]
    arrays = [a.astype(dt) if a.dtype.kind == 'f' else a for a in arrays]
    mods = {}

    def fn(m, *xs):
        mod = getattr(m.nn, name)(**_kw(m, kw, dt))
        mods[m.__name__] = mod
        xs = [x if (j in gi or not isinstance(x, (torch.Tensor, ember.Tensor)) or
                    not x.is_floating_point()) else x.detach() for j, x in enumerate(xs)]
        return mod(*xs)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        re, rt = check(fn, arrays, grad=True, rtol=1e-5 if dt == 'float32' else 1e-10,
                       atol=1e-6 if dt == 'float32' else 1e-12)
    e, t = mods['ember'], mods['torch']
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert e.reduction == t.reduction
    assert re.grad_fn.name() == rt.grad_fn.name() or name in (
        'CrossEntropyLoss', 'TripletMarginWithDistanceLoss', 'KLDivLoss', 'GaussianNLLLoss')


ALL = ['L1Loss', 'NLLLoss', 'PoissonNLLLoss', 'GaussianNLLLoss', 'KLDivLoss', 'MSELoss',
       'BCELoss', 'BCEWithLogitsLoss', 'HingeEmbeddingLoss', 'MultiLabelMarginLoss',
       'SmoothL1Loss', 'HuberLoss', 'SoftMarginLoss', 'CrossEntropyLoss',
       'MultiLabelSoftMarginLoss', 'CosineEmbeddingLoss', 'MarginRankingLoss',
       'MultiMarginLoss', 'TripletMarginLoss', 'TripletMarginWithDistanceLoss', 'CTCLoss']


@pytest.mark.parametrize('name', ALL)
def test_defaults_repr_constants(name):
    e, t = getattr(ember.nn, name)(), getattr(torch.nn, name)()
    assert repr(e) == repr(t)
    assert type(e).__module__ == 'ember.nn.modules.loss'
    assert list(getattr(type(e), '__constants__', [])) == list(getattr(type(t), '__constants__',
                                                                        []))
    for k, v in vars(t).items():
        if not k.startswith('_') and k != 'training':
            assert getattr(e, k) == v or isinstance(v, torch.nn.Module), k
    assert list(e.state_dict()) == list(t.state_dict())


def test_weight_buffers_state_dict():
    for name, kw in [('CrossEntropyLoss', 'weight'), ('NLLLoss', 'weight'), ('BCELoss', 'weight'),
                     ('MultiLabelSoftMarginLoss', 'weight'), ('MultiMarginLoss', 'weight'),
                     ('BCEWithLogitsLoss', 'pos_weight')]:
        e = getattr(ember.nn, name)(**{kw: ember.ones(4)})
        t = getattr(torch.nn, name)(**{kw: torch.ones(4)})
        assert list(e.state_dict()) == list(t.state_dict()), name
        e.load_state_dict({k: ember.from_numpy(v.numpy()) for k, v in t.state_dict().items()})


def test_deprecated_size_average_reduce():
    for sa, rd, want in [(False, None, 'sum'), (None, False, 'none'), (True, True, 'mean'),
                         (False, True, 'sum')]:
        with pytest.warns(UserWarning, match=f"reduction='{want}'"):
            e = ember.nn.L1Loss(size_average=sa, reduce=rd)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            t = torch.nn.L1Loss(size_average=sa, reduce=rd)
        assert e.reduction == t.reduction == want
    with pytest.warns(UserWarning, match="reduction='none'"):
        ember.nn.functional.mse_loss(ember.ones(2), ember.zeros(2), reduce=False)


def test_nllloss2d_deprecated():
    with pytest.warns(FutureWarning, match='NLLLoss2d'):
        e = ember.nn.NLLLoss2d(ignore_index=3)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t = torch.nn.NLLLoss2d(ignore_index=3)
    assert repr(e) == repr(t) and e.ignore_index == 3
    assert isinstance(e, ember.nn.NLLLoss)


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="'batchmean'"):
        ember.nn.KLDivLoss()(ember.zeros(2, 3), ember.ones(2, 3) / 3)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        ember.nn.KLDivLoss(reduction='batchmean')(ember.zeros(2, 3), ember.ones(2, 3) / 3)


def test_constructor_errors():
    errors_both(lambda m: m.nn.MultiMarginLoss(p=3), 'only p == 1 and p == 2 supported')
    errors_both(lambda m: m.nn.MultiMarginLoss(weight=m.ones(2, 2)), 'expected weight to be None')
    errors_both(lambda m: m.nn.TripletMarginLoss(margin=0), 'expected margin to be greater')
    errors_both(lambda m: m.nn.TripletMarginWithDistanceLoss(margin=-1),
                'expected margin to be greater')
    errors_both(lambda m: m.nn.HuberLoss(delta='a'), 'delta must be a float or int')
    errors_both(lambda m: m.nn.LinearCrossEntropyLoss(3, 4, weight=m.ones(3)),
                'expected weight shape')
    errors_both(lambda m: m.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
                'expected label_smoothing')
    errors_both(lambda m: m.nn.LinearCrossEntropyOptions(acc_policy='x'), 'invalid acc_policy')
    errors_both(lambda m: m.nn.LinearCrossEntropyOptions(chunking_method='y'),
                'invalid chunking_method')
    errors_both(lambda m: m.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
                'batch_chunk_size must be positive')


def test_forward_errors_wording():
    F = 'nn.functional'
    cases = [
        (lambda m: m.nn.functional.nll_loss(m.zeros(3, 4), m.tensor([0, 1])),
         'Expected input batch_size (3) to match target batch_size (2).'),
        (lambda m: m.nn.functional.nll_loss(m.zeros(3, 4), m.tensor([0, 1, 4])),
         'Target 4 is out of bounds.'),
        (lambda m: m.nn.functional.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 2]).int()),
         'expected target dtype to be Long or Byte, but got Int'),
        (lambda m: m.nn.functional.cross_entropy(m.zeros(3, 4), m.zeros(3, 4).long()),
         'Expected floating point type for target with class probabilities, got Long'),
        (lambda m: m.nn.functional.cross_entropy(m.zeros(3, 4), m.tensor([0, 1, 2]),
                                                 label_smoothing=1.5),
         'label_smoothing must be between 0.0 and 1.0. Got: 1.5'),
        (lambda m: m.nn.functional.binary_cross_entropy(m.ones(2) * 2, m.ones(2)),
         'all elements of input should be between 0 and 1'),
        (lambda m: m.nn.functional.binary_cross_entropy(m.ones(2, 1) / 2, m.ones(2)),
         'is deprecated. Please ensure they have the same size.'),
        (lambda m: m.nn.functional.binary_cross_entropy_with_logits(m.ones(2, 1), m.ones(2)),
         'Target size (torch.Size([2])) must be the same as input size (torch.Size([2, 1]))'),
        (lambda m: m.nn.functional.huber_loss(m.ones(2), m.ones(2), delta=0.),
         'huber_loss does not support non-positive values for delta.'),
        (lambda m: m.nn.functional.multi_margin_loss(m.zeros(3, 4), m.tensor([0, 1, 9])),
         'target out of range'),
        (lambda m: m.nn.functional.multilabel_margin_loss(m.zeros(3, 4), m.zeros(2, 4).long()),
         'inconsistent target size: [2, 4] for input of size: [3, 4]'),
        (lambda m: m.nn.functional.gaussian_nll_loss(m.zeros(3, 4), m.zeros(3, 4), m.ones(4)),
         'var is of incorrect size'),
        (lambda m: m.nn.functional.l1_loss(m.zeros(3), m.zeros(3), reduction='x'),
         'x is not a valid value for reduction'),
        (lambda m: m.nn.functional.cosine_embedding_loss(m.zeros(3, 4), m.zeros(3, 4),
                                                         m.ones(3, 1)),
         '0D or 1D target tensor expected, multi-target not supported'),
        (lambda m: m.nn.functional.margin_ranking_loss(m.zeros(3), m.zeros(3), m.ones(3, 1)),
         'All input tensors should have same dimension'),
        (lambda m: m.nn.functional.ctc_loss(m.zeros(5, 1, 3), m.tensor([[1, 2]]), [6], [2]),
         'Expected input_lengths to have value at most 5, but got value 6'),
        (lambda m: m.nn.functional.ctc_loss(m.zeros(5, 1, 3), m.tensor([[1, 2]]), [5], [2],
                                            blank=3),
         'blank must be in label range'),
    ]
    for fn, msg in cases:
        ee, et = errors_both(fn)
        assert msg in str(et), (msg, str(et))
        assert msg in str(ee), (msg, str(ee))
    del F


def test_weight_requires_grad_refused():
    w = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    for m in (torch, ember):
        ww = m.tensor(w, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            m.nn.functional.cross_entropy(m.zeros(2, 4, requires_grad=True), m.tensor([0, 1]),
                                          weight=ww)
        with m.no_grad():   # allowed without grad mode
            m.nn.functional.cross_entropy(m.zeros(2, 4), m.tensor([0, 1]), weight=ww)


# ----------------------------------------------------------------------------- ctc

def _ctc_inputs(dt=np.float64):
    T, N, C = 7, 3, 5
    x = rng.standard_normal((T, N, C)).astype(dt)
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    tg = np.array([[1, 2, 2, 3], [3, 1, 0, 0], [4, 4, 1, 0]])
    return lp.astype(dt), tg


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_ctc_raw_log_probs_gradient(reduction, dt):
    """PyTorch's CTC gradient w.r.t. log_probs themselves (exp(lp) - posterior)."""
    lp, tg = _ctc_inputs(dt)

    def fn(m, x, t):
        return m.nn.CTCLoss(reduction=reduction)(x, t, [7, 6, 5], [4, 2, 3])
    re, rt = check(fn, [lp, tg], grad=True, rtol=1e-5 if dt == np.float32 else 1e-9,
                   atol=1e-5 if dt == np.float32 else 1e-10)
    assert re.grad_fn.name() == rt.grad_fn.name()


def test_ctc_zero_infinity_and_repeats():
    lp, tg = _ctc_inputs()

    def fn(m, x, t):
        return m.nn.CTCLoss(zero_infinity=True, reduction='none')(x, t, [7, 1, 5], [4, 2, 3])
    check(fn, [lp, tg], grad=True, rtol=1e-9, atol=1e-10)

    def fn2(m, x, t):
        return m.nn.CTCLoss(reduction='none')(x, t, [7, 1, 5], [4, 2, 3])
    re, rt = check(fn2, [lp, tg], grad=False)
    assert np.isinf(re.numpy()[1])


def test_ctc_unbatched_and_tensor_lengths():
    lp, tg = _ctc_inputs()

    def fn(m, x, t):
        return m.nn.functional.ctc_loss(x[:, 0], t[0], m.tensor([7]), m.tensor([4]),
                                        reduction='none')
    check(fn, [lp, tg], grad=True, rtol=1e-9, atol=1e-10)
    errors_both(lambda m: m.nn.functional.ctc_loss(m.tensor(lp), m.tensor(tg), m.tensor([7, 6, 5]),
                                                   [4, 2, 3]))


def test_ctc_gradcheck_through_log_softmax_and_no_double_backward():
    lp, tg = _ctc_inputs()
    gradcheck_ember(lambda m, x, t: m.nn.functional.ctc_loss(x.log_softmax(2), t, [7, 6, 5],
                                                             [4, 2, 3]), [lp, tg])
    x = ember.tensor(lp, requires_grad=True)
    loss = ember.nn.functional.ctc_loss(x, ember.tensor(tg), [7, 6, 5], [4, 2, 3])
    (g,) = ember.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(RuntimeError, match='_ctc_loss_backward is not implemented'):
        g.sum().backward()


# ----------------------------------------------------------------------------- linear cross entropy

def test_linear_cross_entropy_layer_init_and_grads():
    for kw in [dict(), dict(bias=True, out_features=(2,), label_smoothing=0.1)]:
        torch.manual_seed(3)
        t = torch.nn.LinearCrossEntropyLoss(5, 4, **kw)
        ember.manual_seed(3)
        e = ember.nn.LinearCrossEntropyLoss(5, 4, **kw)
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())
        for (n, a), (_, b) in zip(e.named_parameters(), t.named_parameters()):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6,
                                       err_msg=n)
        x = R(3, 5)
        tg = IDX(4, 3, *kw.get('out_features', ()))
        xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        le, lt = e(xe, ember.tensor(tg)), t(xt, torch.tensor(tg))
        np.testing.assert_allclose(le.item(), lt.item(), rtol=1e-5)
        le.backward()
        lt.backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(e.linear.weight.grad.numpy(), t.linear.weight.grad.numpy(),
                                   rtol=1e-4, atol=1e-6)


def test_linear_cross_entropy_options_accepted():
    o = ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert o.batch_chunk_size == 2
    ot = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert repr(o) == repr(ot)
    assert o == ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert hash(o) == hash(ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    with pytest.raises(AttributeError):
        o.acc_policy = 'compact'
    import copy
    import pickle
    assert copy.deepcopy(o) == o and pickle.loads(pickle.dumps(o)) == o
    m = ember.nn.LinearCrossEntropyLoss(3, 4, options=o)
    assert repr(m) == repr(torch.nn.LinearCrossEntropyLoss(3, 4, options=ot))
    x, w, tg = R(4, 3), R(5, 3), IDX(5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        lt = torch.nn.functional.linear_cross_entropy(
            torch.tensor(x), torch.tensor(w), torch.tensor(tg),
            options=torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    le = ember.nn.functional.linear_cross_entropy(ember.tensor(x), ember.tensor(w),
                                                  ember.tensor(tg), options=o)
    np.testing.assert_allclose(le.item(), lt.item(), rtol=1e-5)


# ----------------------------------------------------------------------------- autograd details

def test_grad_fn_names():
    x = ember.randn(3, 4, requires_grad=True)
    t = ember.tensor([0, 1, 2])
    F = ember.nn.functional
    assert F.nll_loss(x, t).grad_fn.name() == 'NllLossBackward0'
    assert F.cross_entropy(x, t).grad_fn.name() == 'NllLossBackward0'
    assert F.nll_loss(x.view(3, 4, 1, 1), t.view(3, 1, 1)).grad_fn.name() == 'NllLoss2DBackward0'
    p = x.sigmoid()
    assert F.binary_cross_entropy(p, p.detach()).grad_fn.name() == 'BinaryCrossEntropyBackward0'
    assert F.binary_cross_entropy_with_logits(x, p.detach()).grad_fn.name() == \
        'BinaryCrossEntropyWithLogitsBackward0'
    assert F.huber_loss(x, p).grad_fn.name() == 'HuberLossBackward0'
    assert F.smooth_l1_loss(x, p).grad_fn.name() == 'SmoothL1LossBackward0'
    assert F.soft_margin_loss(x, p.detach()).grad_fn.name() == 'SoftMarginLossBackward0'
    assert F.multi_margin_loss(x, t).grad_fn.name() == 'MultiMarginLossBackward0'
    assert F.multilabel_margin_loss(x, t.expand(3, 3).contiguous().view(3, 3).new_zeros(
        3, 4)).grad_fn.name() == 'MultilabelMarginLossBackward0'
    assert F.mse_loss(x, p).grad_fn.name() == 'MseLossBackward0'


@pytest.mark.parametrize('name', ['cross_entropy', 'huber_loss',
                                  'binary_cross_entropy_with_logits', 'smooth_l1_loss'])
def test_double_backward_vs_torch(name):
    x = R(3, 4, dtype=np.float64)
    tgt = {'cross_entropy': IDX(4, 3), 'nll_loss': IDX(4, 3), 'multi_margin_loss': IDX(4, 3),
           'multilabel_margin_loss': np.array([[1, 2, -1, 0], [3, -1, 0, 0], [0, 1, 2, 3]]),
           'huber_loss': R(3, 4, dtype=np.float64),
           'binary_cross_entropy_with_logits': P(3, 4, dtype=np.float64),
           'smooth_l1_loss': R(3, 4, dtype=np.float64)}[name]
    kw = {'multi_margin_loss': {'p': 2}}.get(name, {})

    def fn(m, a, b):
        b = b.detach() if b.is_floating_point() else b
        loss = getattr(m.nn.functional, name)(a, b, **kw)
        (g,) = m.autograd.grad(loss, a, create_graph=True)
        return (g * g).sum()
    check(fn, [x, tgt], grad=True, rtol=1e-9, atol=1e-12)



def test_double_backward_beyond_torch():
    """NOTE: unlike PyTorch (no derivative of multi_margin_loss_backward /
    multilabel_margin_loss_backward), ember differentiates these gradients: checked with
    finite differences."""
    x = R(3, 4, dtype=np.float64)
    for name, tg, kw in [('multi_margin_loss', IDX(4, 3), {'p': 2}),
                         ('multilabel_margin_loss',
                          np.array([[1, 2, -1, 0], [3, -1, 0, 0], [0, 1, 2, 3]]), {})]:
        xe = ember.tensor(x, requires_grad=True)
        f = getattr(ember.nn.functional, name)
        assert ember.autograd.gradgradcheck(lambda a: f(a, ember.tensor(tg), **kw), (xe,))
