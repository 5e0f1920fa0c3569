"""Embedding and EmbeddingBag vs torch: default init after the same seed, outputs and
weight gradients (padding_idx, scale_grad_by_freq, per_sample_weights, modes, offsets,
include_last_offset, 2-D input), max_norm's in-place renormalisation, from_pretrained,
repr, state_dict keys, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import errors_both
from _util import sync

IDX = np.array([[1, 2, 4, 5], [4, 3, 2, 9]])
FLAT = np.array([1, 2, 4, 5, 4, 3, 2, 9, 9, 0])


def _grad(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _both(factory, call, dtype=np.float32, rtol=1e-6, atol=1e-6):
    """Build with factory(nn) in both, copy torch's weight, run call(m, mod) forward and
    backward under a random upstream gradient; compare outputs, weights (max_norm writes
    them) and weight gradients."""
    res = []
    for m in (torch, ember):
        mod = factory(m.nn)
        if dtype == np.float64:
            mod = mod.double()
        res.append(mod)
    e, t = sync(res[1], res[0]), res[0]
    yt, ye = call(torch, t), call(ember, e)
    assert tuple(ye.shape) == tuple(yt.shape) and str(ye.dtype) == str(yt.dtype)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    g = _grad(tuple(yt.shape), dtype)
    yt.backward(torch.from_numpy(g.copy()))
    ye.backward(ember.from_numpy(g.copy()))
    assert ye.grad_fn.name() == yt.grad_fn.name()
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(),
                               rtol=rtol, atol=atol)
    if t.weight.grad is None:
        assert e.weight.grad is None
    else:
        gt, ge = t.weight.grad, e.weight.grad
        assert ge.is_sparse == gt.is_sparse   # Embedding(sparse=True): a sparse COO grad
        if gt.is_sparse:
            assert repr(ge._indices()) == repr(gt._indices())
            gt, ge = gt.to_dense(), ge.to_dense()
        np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=rtol, atol=atol)
    return e, t


def _idx(m, a, dtype=None):
    return m.from_numpy(a.astype(dtype or np.int64))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('kw', [dict(), dict(padding_idx=2), dict(padding_idx=-1),
                                dict(scale_grad_by_freq=True),
                                dict(padding_idx=4, scale_grad_by_freq=True),
                                dict(sparse=True), dict(max_norm=1.0),
                                dict(max_norm=0.5, norm_type=1.0, padding_idx=3)])
def test_embedding(dtype, kw):
    for shape_idx in (IDX, IDX[0], np.array(3), np.zeros((0, 2), np.int64)):
        _both(lambda nn: nn.Embedding(10, 3, **kw),
              lambda m, mod: mod(_idx(m, shape_idx)), dtype=dtype)
    _both(lambda nn: nn.Embedding(10, 3, **kw), lambda m, mod: mod(_idx(m, IDX, np.int32)),
          dtype=dtype)


def test_embedding_max_norm_in_place():
    for m in (torch, ember):
        m.manual_seed(0)
    e, t = _both(lambda nn: nn.Embedding(10, 4, max_norm=1.0), lambda m, mod: mod(_idx(m, IDX)))
    ne = e.weight.detach().norm(dim=1).numpy()
    looked = np.unique(IDX)
    assert (ne[looked] <= 1.0 + 1e-6).all()
    assert e.weight._version > 0
    # rows not looked up keep their norm
    others = np.setdiff1d(np.arange(10), looked)
    np.testing.assert_allclose(ne[others], t.weight.detach().norm(dim=1).numpy()[others],
                               rtol=1e-6)
    for m in (torch, ember):
        w = m.tensor([[3., 4.], [0.3, 0.4], [6., 8.]])
        r = m.embedding_renorm_(w, m.tensor([0, 1, 0]), 1.0, 2.0)
        assert r is w
        np.testing.assert_allclose(w.numpy(), [[0.6, 0.8], [0.3, 0.4], [6., 8.]], rtol=1e-6)


@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_embedding_bag_modes(mode, dtype):
    cases = [
        (dict(), FLAT, np.array([0, 4, 4, 7])),
        (dict(include_last_offset=True), FLAT, np.array([0, 3, 3, 10])),
        (dict(padding_idx=2), FLAT, np.array([0, 1, 4])),
        (dict(padding_idx=-1), FLAT, np.array([0, 6])),
        (dict(), IDX, None),
        (dict(padding_idx=4), IDX, None),
    ]
    if mode != 'max':
        cases.append((dict(scale_grad_by_freq=True), FLAT, np.array([0, 4, 7])))
        cases.append((dict(scale_grad_by_freq=True, padding_idx=4), IDX, None))
        cases.append((dict(max_norm=1.2), FLAT, np.array([0, 5])))
    for kw, inp, off in cases:
        _both(lambda nn: nn.EmbeddingBag(10, 3, mode=mode, **kw),
              lambda m, mod: mod(_idx(m, inp), None if off is None else _idx(m, off)),
              dtype=dtype)


def test_embedding_bag_per_sample_weights():
    psw = np.random.default_rng(3).random(FLAT.shape).astype(np.float32)
    for kw, inp, off, p in ((dict(), FLAT, np.array([0, 3, 8]), psw),
                            (dict(padding_idx=9), FLAT, np.array([0, 3]), psw),
                            (dict(), IDX, None, psw[:8].reshape(2, 4))):
        grads = []
        for m in (torch, ember):
            pw = m.from_numpy(p.copy()).requires_grad_(True)
            grads.append(pw)
        it = iter(grads)

        def call(m, mod):
            return mod(_idx(m, inp), None if off is None else _idx(m, off),
                       per_sample_weights=next(it))
        _both(lambda nn: nn.EmbeddingBag(10, 3, mode='sum', **kw), call)
        np.testing.assert_allclose(grads[1].grad.numpy(), grads[0].grad.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_torch_level_embedding_bag_outputs():
    w = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
    for mode in (0, 1, 2):
        for pidx in (None, 2):
            for off, last in (([0, 4, 4], False), ([0, 4, 4, 10], True)):
                for it, ot in ((np.int64, np.int64), (np.int32, np.int32), (np.int32, np.int64)):
                    rs = [m.embedding_bag(m.from_numpy(w.copy()), _idx(m, FLAT, it),
                                          _idx(m, np.array(off), ot), False, mode, False,
                                          None, last, pidx) for m in (torch, ember)]
                    for a, b in zip(*rs):
                        assert str(a.dtype) == str(b.dtype) and a.shape == b.shape
                        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)


def test_default_init_same_seed():
    for kw in (dict(), dict(padding_idx=3)):
        for cls in ('Embedding', 'EmbeddingBag'):
            ws = []
            for m in (torch, ember):
                m.manual_seed(7)
                ws.append(getattr(m.nn, cls)(20, 5, **kw).weight.detach().numpy())
            np.testing.assert_allclose(ws[1], ws[0], rtol=0, atol=1e-6)
            if kw:
                assert not ws[1][3].any()
    e = ember.nn.Embedding(4, 2, dtype=ember.float64)
    assert e.weight.dtype == ember.float64


def test_repr_state_dict_from_pretrained():
    for cls, kws in (('Embedding', [dict(), dict(padding_idx=-1, max_norm=2.0),
                                    dict(norm_type=1.0, scale_grad_by_freq=True, sparse=True)]),
                     ('EmbeddingBag', [dict(), dict(mode='max', padding_idx=2, max_norm=1.0),
                                       dict(norm_type=3, scale_grad_by_freq=True)])):
        for kw in kws:
            e, t = getattr(ember.nn, cls)(6, 3, **kw), getattr(torch.nn, cls)(6, 3, **kw)
            assert repr(e) == repr(t)
            assert list(e.state_dict()) == list(t.state_dict())
            assert e.padding_idx == t.padding_idx
        assert getattr(ember.nn, cls).__module__ == 'ember.nn.modules.sparse'
        assert getattr(ember.nn, cls).__constants__ == getattr(torch.nn, cls).__constants__
    base = np.arange(6, dtype=np.float32).reshape(3, 2)
    for freeze in (True, False):
        mods = [m.nn.Embedding.from_pretrained(m.from_numpy(base.copy()), freeze=freeze,
                                               padding_idx=1) for m in (torch, ember)]
        assert mods[0].weight.requires_grad == mods[1].weight.requires_grad == (not freeze)
        np.testing.assert_array_equal(mods[1].weight.detach().numpy(), base)  # not zeroed
        bags = [m.nn.EmbeddingBag.from_pretrained(m.from_numpy(base.copy()), freeze=freeze,
                                                  mode='sum') for m in (torch, ember)]
        assert bags[0].weight.requires_grad == bags[1].weight.requires_grad
        assert repr(bags[0]) == repr(bags[1])
    src = ember.ones(3, 2)
    assert ember.nn.Embedding.from_pretrained(src).weight.data_ptr() == src.data_ptr()
    _ = ember.nn.Embedding(3, 2, _weight=ember.zeros(3, 2), _freeze=True)
    assert not _.weight.requires_grad and not _.weight.any()


def test_padding_row_gets_zero_grad_and_double_backward():
    w = ember.randn(6, 3, dtype=ember.float64, requires_grad=True)
    idx = ember.tensor([[0, 2, 2], [5, 2, 1]])
    y = ember.nn.functional.embedding(idx, w, padding_idx=2, scale_grad_by_freq=True)
    (gw,) = ember.autograd.grad((y * y).sum(), w, create_graph=True)
    assert not gw[2].any() and not gw[3].any()
    (ggw,) = ember.autograd.grad(gw.sum(), w)
    np.testing.assert_allclose(ggw.numpy()[[0, 5, 1]], 2 * np.ones((3, 3)))
    assert ember.autograd.gradcheck(
        lambda w: ember.nn.functional.embedding(idx, w, scale_grad_by_freq=False), (w,))
    assert ember.autograd.gradgradcheck(
        lambda w: ember.nn.functional.embedding(idx, w) ** 2, (w,))
    psw = ember.rand(6, dtype=ember.float64, requires_grad=True)
    flat, off = ember.tensor([0, 1, 1, 4, 3, 5]), ember.tensor([0, 2])
    for mode in ('sum', 'mean', 'max'):
        assert ember.autograd.gradcheck(
            lambda w: ember.nn.functional.embedding_bag(flat, w, off, mode=mode), (w,))
    assert ember.autograd.gradcheck(
        lambda w, p: ember.nn.functional.embedding_bag(flat, w, off, mode='sum',
                                                       per_sample_weights=p), (w, psw))


def test_errors():
    W = np.ones((10, 3), np.float32)

    def w(m):
        return m.from_numpy(W.copy())
    F = 'nn.functional'
    fe = lambda m: getattr(m.nn, 'functional')  # noqa: E731
    errors_both(lambda m: fe(m).embedding(m.tensor([1., 2.]), w(m)), 'Long, Int')
    errors_both(lambda m: fe(m).embedding(m.tensor([1, 20]), w(m)), 'index out of range')
    errors_both(lambda m: fe(m).embedding(m.tensor([1, -1]), w(m)), 'index out of range')
    errors_both(lambda m: fe(m).embedding(m.tensor([1]), m.ones(10)), "'weight' must be 2-D")
    errors_both(lambda m: fe(m).embedding(m.tensor([1]), w(m), padding_idx=10), 'Padding_idx')
    errors_both(lambda m: fe(m).embedding(m.tensor([1]), w(m), padding_idx=-11), 'Padding_idx')
    errors_both(lambda m: fe(m).embedding([1, 2], w(m)))
    errors_both(lambda m: m.nn.Embedding(5, 2, padding_idx=5), 'Padding_idx')
    errors_both(lambda m: m.nn.EmbeddingBag(5, 2, padding_idx=-6), 'padding_idx')
    errors_both(lambda m: m.nn.Embedding(5, 2, _weight=m.ones(4, 2)), 'Shape of weight')
    errors_both(lambda m: m.nn.Embedding.from_pretrained(m.ones(4)), '2-dimensional')
    i, o = (lambda m: m.tensor([1, 2, 4, 5, 4, 3, 2, 9])), (lambda m: m.tensor([0, 4]))
    eb = lambda m, *a, **k: fe(m).embedding_bag(*a, **k)  # noqa: E731
    for fn, match in (
            (lambda m: eb(m, i(m), w(m), m.tensor([1, 4])), 'offsets[0] has to be 0'),
            (lambda m: eb(m, i(m), w(m), m.tensor([0, 9])), 'offsets[-1] can not be greater'),
            (lambda m: eb(m, m.tensor([1, 20]), w(m), m.tensor([0])), 'valid range [0, 10)'),
            (lambda m: eb(m, i(m).float(), w(m), o(m)), 'Long, Int'),
            (lambda m: eb(m, i(m), w(m)), 'offsets has to be a 1D Tensor but got None'),
            (lambda m: eb(m, i(m), w(m), o(m)[None]), 'offsets has to be a 1D Tensor'),
            (lambda m: eb(m, i(m)[None, None], w(m)), 'input has to be 1D or 2D'),
            (lambda m: eb(m, i(m).view(2, 4), w(m), o(m)), 'offsets has to be None'),
            (lambda m: eb(m, i(m), w(m), o(m), mode='foo'), 'mode has to be one of'),
            (lambda m: eb(m, i(m), w(m), o(m), mode='max', scale_grad_by_freq=True),
             'max mode does not support scaling'),
            (lambda m: eb(m, i(m), w(m), o(m), mode='max', sparse=True),
             'max mode does not support sparse'),
            (lambda m: eb(m, i(m), w(m), o(m), per_sample_weights=m.rand(8)),
             'per_sample_weights is only supported'),
            (lambda m: eb(m, i(m), w(m), o(m), mode='sum', per_sample_weights=m.rand(7)),
             'must have the same shape as the input'),
            (lambda m: eb(m, i(m), w(m), o(m), mode='sum',
                          per_sample_weights=m.rand(8, dtype=m.float64)), 'same type'),
            (lambda m: eb(m, i(m), w(m)[0], o(m)), 'weight has to be a 2D Tensor'),
            (lambda m: eb(m, i(m), w(m), o(m), padding_idx=10), 'padding_idx must be within'),
    ):
        errors_both(fn, match)
    del F


def test_one_hot():
    for args in ((np.array([1, 2, 0]),), (np.array([[1, 2], [3, 0]]), 5), (np.array(2), 3),
                 (np.zeros(0, np.int64), 3)):
        rs = [m.nn.functional.one_hot(m.from_numpy(args[0].copy()), *args[1:])
              for m in (torch, ember)]
        assert str(rs[0].dtype) == str(rs[1].dtype) and rs[0].shape == rs[1].shape
        np.testing.assert_array_equal(rs[1].numpy(), rs[0].numpy())
    oh = lambda m: m.nn.functional.one_hot  # noqa: E731
    errors_both(lambda m: oh(m)(m.tensor([1, 2]), 2), 'smaller than num_classes')
    errors_both(lambda m: oh(m)(m.tensor([1, -2]), 4), 'non-negative')
    errors_both(lambda m: oh(m)(m.tensor([1., 2.])), 'LongTensor')
    errors_both(lambda m: oh(m)(m.tensor([1, 2], dtype=m.int32), 3), 'LongTensor')
    errors_both(lambda m: oh(m)(m.tensor([], dtype=m.int64)), 'empty tensor')
    assert not hasattr(ember, 'one_hot') and not hasattr(ember.Tensor, 'one_hot')
