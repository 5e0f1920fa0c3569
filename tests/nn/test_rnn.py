"""RNN, LSTM, GRU and the cells vs torch: outputs, final states and every gradient (input,
h0/c0, all parameters) under random upstream gradients, on torch's weights copied in;
dense / batch_first / unbatched / packed inputs, float32 and float64, dropout masks in train
mode, default init after the same seed, repr, state_dict, errors, double backward."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import nn
from _util import pair, sync

TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}

KINDS = {
    'rnn_tanh': lambda n, **kw: n.RNN(3, 4, **kw),
    'rnn_relu': lambda n, **kw: n.RNN(3, 4, nonlinearity='relu', **kw),
    'lstm': lambda n, **kw: n.LSTM(3, 4, **kw),
    'lstm_proj': lambda n, **kw: n.LSTM(3, 4, proj_size=2, **kw),
    'gru': lambda n, **kw: n.GRU(3, 4, **kw),
}


def _np(t):
    return t.detach().numpy()


def _flat(out):
    """Tensors of a module result ``(output, h)`` / ``(output, (h, c))`` in order."""
    o, h = out
    if isinstance(o, (ember.nn.utils.rnn.PackedSequence, torch.nn.utils.rnn.PackedSequence)):
        o = o.data
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def _compare(e, t, args, dtype, seed=0):
    """Run both modules on numpy ``args`` (None passes through; tuples stay tuples),
    backward under random upstream gradients, compare everything."""
    def mk(m, a):
        if a is None:
            return None
        if isinstance(a, tuple):
            return tuple(mk(m, x) for x in a)
        return m.from_numpy(a.copy()).requires_grad_(True)
    ae = [mk(ember, a) for a in args]
    at = [mk(torch, a) for a in args]
    oe, ot = _flat(e(*ae)), _flat(t(*at))
    tol = TOL[dtype]
    rng = np.random.default_rng(seed)
    assert len(oe) == len(ot)
    for a, b in zip(oe, ot):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(_np(a), _np(b), **tol)
    gs = [rng.standard_normal(tuple(b.shape)).astype(dtype) for b in ot]
    ember.autograd.backward(oe, [ember.from_numpy(g.copy()) for g in gs])
    torch.autograd.backward(ot, [torch.from_numpy(g.copy()) for g in gs])

    def leaves(xs):
        for x in xs:
            if isinstance(x, tuple):
                yield from x
            elif x is not None:
                yield x
    for a, b in zip(leaves(ae), leaves(at)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), err_msg='input grad', **tol)
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), err_msg=n, **tol)
    return oe, ot


def _hidden(kind, L, D, B, dtype, rng):
    H, Hr = 4, (2 if kind == 'lstm_proj' else 4)
    shp = (L * D, B) if B is not None else (L * D,)
    h = rng.standard_normal(shp + (Hr,)).astype(dtype)
    if kind.startswith('lstm'):
        return (h, rng.standard_normal(shp + (H,)).astype(dtype))
    return h


@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('cfg', [dict(), dict(num_layers=2), dict(bidirectional=True),
                                 dict(num_layers=2, bidirectional=True, batch_first=True),
                                 dict(bias=False, batch_first=True)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('with_h0', [False, True])
def test_layer_vs_torch(kind, cfg, dtype, with_h0):
    dname = 'float64' if dtype == np.float64 else 'float32'
    e, t = pair(lambda n: KINDS[kind](
        n, dtype=getattr(torch if n is torch.nn else ember, dname), **cfg))
    rng = np.random.default_rng(1)
    T, B = 5, 3
    x = rng.standard_normal((B, T, 3) if cfg.get('batch_first') else (T, B, 3)).astype(dtype)
    L, D = cfg.get('num_layers', 1), 2 if cfg.get('bidirectional') else 1
    h0 = _hidden(kind, L, D, B, dtype, rng) if with_h0 else None
    _compare(e, t, [x, h0], dtype)


@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('with_h0', [False, True])
def test_unbatched(kind, with_h0):
    e, t = pair(lambda n: KINDS[kind](n, num_layers=2, bidirectional=True, batch_first=True))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    h0 = _hidden(kind, 2, 2, None, np.float32, rng) if with_h0 else None
    oe, ot = _compare(e, t, [x, h0], np.float32)
    assert oe[0].shape == (5, 8 if kind != 'lstm_proj' else 4)


@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('cfg', [dict(), dict(num_layers=2, bidirectional=True)])
@pytest.mark.parametrize('with_h0', [False, True])
def test_packed_vs_torch(kind, cfg, with_h0):
    """PackedSequence in and out (enforce_sorted=False: h0 permuted in, h_n permuted out)."""
    e, t = pair(lambda n: KINDS[kind](n, **cfg))
    rng = np.random.default_rng(3)
    lengths = [3, 5, 1, 4]
    x = rng.standard_normal((5, 4, 3)).astype(np.float64)
    L, D = cfg.get('num_layers', 1), 2 if cfg.get('bidirectional') else 1
    h0 = _hidden(kind, L, D, 4, np.float64, rng) if with_h0 else None
    e.double()
    t.double()
    res = {}
    for m, mod in ((ember, e), (torch, t)):
        xx = m.from_numpy(x.copy()).requires_grad_()
        hh = None if h0 is None else (tuple(m.from_numpy(a.copy()).requires_grad_() for a in h0)
                                      if isinstance(h0, tuple) else
                                      m.from_numpy(h0.copy()).requires_grad_())
        p = m.nn.utils.rnn.pack_padded_sequence(xx, lengths, enforce_sorted=False)
        out, hn = mod(p, hh)
        assert type(out).__name__ == 'PackedSequence'
        padded, lens = m.nn.utils.rnn.pad_packed_sequence(out)
        outs = [padded] + (list(hn) if isinstance(hn, tuple) else [hn])
        g = np.random.default_rng(4)
        grads = [m.from_numpy(g.standard_normal(tuple(o.shape))) for o in outs]
        m.autograd.backward(outs, grads)
        hl = [] if hh is None else (list(hh) if isinstance(hh, tuple) else [hh])
        res[m] = ([_np(o) for o in outs] + [_np(lens), _np(out.sorted_indices),
                                             xx.grad.numpy()]
                  + [h.grad.numpy() for h in hl] + [p_.grad.numpy() for p_ in mod.parameters()])
    for a, b in zip(res[ember], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize('kind', ['rnn_tanh', 'lstm', 'lstm_proj', 'gru'])
def test_dropout_train_masks_equal_torch(kind):
    """Train mode: dropout between layers draws the same masks as torch after the same seed;
    eval mode: no dropout."""
    e, t = pair(lambda n: KINDS[kind](n, num_layers=3, dropout=0.4, bidirectional=True))
    x = np.random.default_rng(5).standard_normal((4, 3, 3)).astype(np.float32)
    torch.manual_seed(7)
    ember.manual_seed(7)
    _compare(e, t, [x, None], np.float32)
    # the RNG streams advanced alike
    assert float(torch.rand(1)) == float(ember.rand(1))
    e.eval()
    t.eval()
    e.zero_grad()
    t.zero_grad()
    _compare(e, t, [x, None], np.float32)


@pytest.mark.parametrize('factory', [
    lambda n: n.RNN(5, 7, 2), lambda n: n.RNN(5, 7, nonlinearity='relu', bias=False),
    lambda n: n.LSTM(5, 7, 2, bidirectional=True), lambda n: n.LSTM(5, 7, 2, proj_size=3),
    lambda n: n.GRU(5, 7, 3, bidirectional=True, batch_first=True),
    lambda n: n.RNNCell(5, 7), lambda n: n.LSTMCell(5, 7), lambda n: n.GRUCell(5, 7, bias=False),
])
def test_init_state_dict_repr(factory):
    """Default init equals torch's after the same seed; state_dict keys, shapes, repr."""
    torch.manual_seed(11)
    ember.manual_seed(11)
    t, e = factory(torch.nn), factory(ember.nn)
    assert repr(e) == repr(t)
    se, st = e.state_dict(), t.state_dict()
    assert list(se) == list(st)
    for k in st:
        assert tuple(se[k].shape) == tuple(st[k].shape)
        np.testing.assert_array_equal(se[k].numpy(), st[k].numpy(), err_msg=k)
    if hasattr(t, '_flat_weights_names'):
        assert e._flat_weights_names == t._flat_weights_names
        assert [[tuple(p.shape) for p in ws] for ws in e.all_weights] == \
            [[tuple(p.shape) for p in ws] for ws in t.all_weights]
        assert [tuple(w.shape) for w in e._flat_weights] == \
            [tuple(w.shape) for w in t._flat_weights]
        assert e.flatten_parameters() is None
    # a torch state dict loads into ember
    e2 = factory(ember.nn)
    e2.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in st.items()})
    for k in st:
        np.testing.assert_array_equal(e2.state_dict()[k].numpy(), st[k].numpy())


def test_repr_variants():
    for f in [lambda n: n.LSTM(3, 4, 2, bias=False, batch_first=True, dropout=0.5,
                               bidirectional=True, proj_size=2),
              lambda n: n.RNN(3, 4, nonlinearity='relu', dropout=0.25, num_layers=2),
              lambda n: n.RNNCell(3, 4, nonlinearity='relu', bias=False),
              lambda n: n.Sequential(n.GRU(3, 4), n.LSTMCell(2, 3))]:
        assert repr(f(ember.nn)) == repr(f(torch.nn))
    assert nn.LSTM.__module__ == 'ember.nn.modules.rnn'
    assert nn.RNNBase('GRU', 3, 4).mode == 'GRU'


def test_flat_weights_follow_reassignment():
    e = nn.LSTM(3, 4)
    w = nn.Parameter(ember.zeros(16, 3))
    e.weight_ih_l0 = w
    assert e._flat_weights[0] is w
    e.float()
    assert e._flat_weights[0] is e.weight_ih_l0
    out, _ = e(ember.ones(2, 1, 3))
    assert out.shape == (2, 1, 4)


@pytest.mark.parametrize('cell', ['RNNCell', 'RNNCell_relu', 'LSTMCell', 'GRUCell'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('batched', [True, False])
@pytest.mark.parametrize('with_h', [False, True])
def test_cells_vs_torch(cell, dtype, batched, with_h):
    name = cell.split('_')[0]
    kw = {'nonlinearity': 'relu'} if cell.endswith('relu') else {}
    e, t = pair(lambda n: getattr(n, name)(3, 4, **kw))
    if dtype == np.float64:
        e.double()
        t.double()
    rng = np.random.default_rng(6)
    shp = (2,) if batched else ()
    x = rng.standard_normal(shp + (3,)).astype(dtype)
    h = None
    if with_h:
        h = rng.standard_normal(shp + (4,)).astype(dtype)
        if name == 'LSTMCell':
            h = (h, rng.standard_normal(shp + (4,)).astype(dtype))

    class W:   # cells return h or (h, c): adapt to _compare's (output, hidden) form
        def __init__(self, m):
            self.m = m

        def __call__(self, *a):
            r = self.m(*a)
            return (r[0], r[1]) if isinstance(r, tuple) else (r, ())

        def named_parameters(self):
            return self.m.named_parameters()
    _compare(W(e), W(t), [x, h], dtype)


def test_lstm_cell_unrolled_vs_torch():
    """A loop of LSTMCell steps (a graph of many cell nodes) against torch."""
    e, t = pair(lambda n: n.LSTMCell(3, 5))
    xs = np.random.default_rng(8).standard_normal((6, 2, 3)).astype(np.float32)
    res = {}
    for m, c in ((ember, e), (torch, t)):
        x = m.from_numpy(xs.copy()).requires_grad_()
        h = cc = None
        outs = []
        for i in range(6):
            h, cc = c(x[i], None if h is None else (h, cc))
            outs.append(h)
        y = m.stack(outs)
        (y * m.arange(y.numel(), dtype=y.dtype).view(y.shape).cos()).sum().backward()
        res[m] = [_np(y), x.grad.numpy()] + [p.grad.numpy() for p in c.parameters()]
    for a, b in zip(res[ember], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('kind', ['rnn_tanh', 'rnn_relu', 'lstm', 'lstm_proj', 'gru'])
def test_gradcheck_and_double_backward(kind):
    """float64 finite differences for first derivatives (every input and parameter) and
    second derivatives (one layer: input, states and two weights; the backward under create_graph
    recomputes the activations with ember ops)."""
    ember.manual_seed(0)
    proj = kind == 'lstm_proj'
    m = {'rnn_tanh': lambda: nn.RNN(2, 2, 2, bidirectional=True),
         'rnn_relu': lambda: nn.RNN(2, 2, 2, nonlinearity='relu', bidirectional=True),
         'lstm': lambda: nn.LSTM(1, 2, 2, bidirectional=True),
         'lstm_proj': lambda: nn.LSTM(1, 2, 2, bidirectional=True, proj_size=1),
         'gru': lambda: nn.GRU(1, 2, 2, bidirectional=True)}[kind]().double()
    fn = {'rnn_tanh': ember.rnn_tanh, 'rnn_relu': ember.rnn_relu,
          'gru': ember.gru}.get(kind, ember.lstm)
    x = ember.randn(2, 1, m.input_size, dtype=ember.float64, requires_grad=True)
    h0 = ember.randn(4, 1, 1 if proj else 2, dtype=ember.float64, requires_grad=True)
    c0 = ember.randn(4, 1, 2, dtype=ember.float64, requires_grad=True)
    ps = [p.detach().clone() for p in m.parameters()]
    n = len(ps) // 4

    def f_all(x, h0, c0, *ps):
        hx = (h0, c0) if kind.startswith('lstm') else h0
        return fn(x, hx, list(ps), True, 2, 0.0, False, True, False)
    assert ember.autograd.gradcheck(f_all, (x, h0, c0, *[p.requires_grad_() for p in ps]))

    def f_some(x, h0, c0, w_ih0, w_hh0r):   # one bidirectional layer; two of its weights
        q = list(ps[:2 * n])
        q[0], q[n + 1] = w_ih0, w_hh0r
        hx = (h0, c0) if kind.startswith('lstm') else h0
        return fn(x, hx, q, True, 1, 0.0, False, True, False)
    ws = (ps[0].detach().clone().requires_grad_(), ps[n + 1].detach().clone().requires_grad_())
    for p in ps:
        p.requires_grad_(False)
    h0, c0 = h0.detach()[:2].requires_grad_(), c0.detach()[:2].requires_grad_()
    assert ember.autograd.gradgradcheck(f_some, (x, h0, c0) + ws)


def test_double_backward_matches_torch():
    """grad of a gradient (create_graph=True) equals torch's."""
    e, t = pair(lambda n: n.GRU(2, 3, 2, bidirectional=True))
    e.double()
    t.double()
    xs = np.random.default_rng(9).standard_normal((4, 2, 2))
    res = {}
    for m, mod in ((ember, e), (torch, t)):
        x = m.from_numpy(xs.copy()).requires_grad_()
        out, h = mod(x)
        g, = m.autograd.grad((out.tanh().sum() + (h * h).sum()), x, create_graph=True)
        (g * g).sum().backward()
        res[m] = [g.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in mod.parameters()]
    for a, b in zip(res[ember], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize('factory', [
    lambda n: n.LSTM(3, 4), lambda n: n.LSTM(3, 4, 2), lambda n: n.LSTM(3, 4, bidirectional=True),
    lambda n: n.LSTM(3, 4, batch_first=True), lambda n: n.GRU(3, 4, bidirectional=True),
    lambda n: n.RNN(3, 4, 2, bidirectional=True)])
def test_grad_fn_names(factory):
    """grad_fn names where ember's graph has torch's shape (NOTE in the ops: the GRU and RNN
    layers of one direction are ember's own nodes, ``GruLayerBackward0``...)."""
    e, t = pair(factory)
    x = np.ones((2, 1, 3), np.float32)
    for xs in (x, x[:, 0]):
        oe, he = e(ember.from_numpy(xs.copy()).requires_grad_())
        ot, ht = t(torch.from_numpy(xs.copy()).requires_grad_())
        assert oe.grad_fn.name() == ot.grad_fn.name()
        he, ht = (he[0], ht[0]) if isinstance(he, tuple) else (he, ht)
        assert he.grad_fn.name() == ht.grad_fn.name()


def _err(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            fn(torch)
        except Exception as et:   # noqa: BLE001
            with pytest.raises(type(et)) as ee:
                fn(ember)
            assert str(ee.value) == str(et), (str(ee.value), str(et))
            return
    raise AssertionError('torch did not raise')


@pytest.mark.parametrize('fn', [
    lambda m: m.nn.LSTM(10, 4)(m.randn(3, 2, 5)),
    lambda m: m.nn.GRU(3, 4)(m.randn(3, 2, 3), m.randn(1, 3, 4)),
    lambda m: m.nn.RNN(3, 4)(m.randn(3, 2, 3), m.randn(2, 2, 4)),
    lambda m: m.nn.LSTM(3, 4)(m.randn(3, 2, 3), (m.randn(1, 2, 4), m.randn(1, 2, 5))),
    lambda m: m.nn.LSTM(3, 4, proj_size=2)(m.randn(3, 2, 3), (m.randn(1, 2, 4), m.randn(1, 2, 4))),
    lambda m: m.nn.LSTM(3, 4)(m.randn(3, 2, 3), (m.randn(2, 4), m.randn(2, 4))),
    lambda m: m.nn.LSTM(3, 4)(m.randn(3, 3), (m.randn(1, 2, 4), m.randn(1, 2, 4))),
    lambda m: m.nn.GRU(3, 4)(m.randn(3, 2, 3), m.randn(2, 4)),
    lambda m: m.nn.GRU(3, 4)(m.randn(3, 3), m.randn(1, 2, 4)),
    lambda m: m.nn.RNN(3, 4)(m.randn(3, 2, 3, 1)),
    lambda m: m.nn.LSTM(3, 4)(m.randn(3)),
    lambda m: m.nn.GRU(3, 4)(m.randn(3, 2, 3, dtype=m.float64)),
    lambda m: m.nn.RNN(3, 4, proj_size=2),
    lambda m: m.nn.GRU(3, 4, proj_size=2),
    lambda m: m.nn.RNN(3, 4, nonlinearity='gelu'),
    lambda m: m.nn.LSTM(3, 4, dropout=1.5),
    lambda m: m.nn.LSTM(3, 4, dropout=True),
    lambda m: m.nn.LSTM(3, 4, proj_size=4),
    lambda m: m.nn.LSTM(3, 4, proj_size=-1),
    lambda m: m.nn.LSTM(0, 4),
    lambda m: m.nn.LSTM(3, 0),
    lambda m: m.nn.LSTM(3, 4, num_layers=0),
    lambda m: m.nn.LSTM(3.0, 4),
    lambda m: m.nn.LSTM(3, 4, bias=1),
    lambda m: m.nn.LSTM(3, 4, batch_first=None),
    lambda m: m.nn.RNNBase('FOO', 3, 4),
    lambda m: m.nn.RNNCell(3, 4)(m.randn(2, 2, 3)),
    lambda m: m.nn.RNNCell(3, 4)(m.randn(2, 3), m.randn(1, 2, 4)),
    lambda m: m.nn.GRUCell(3, 4)(m.randn(2, 2, 3)),
    lambda m: m.nn.LSTMCell(3, 4)(m.randn(2, 2, 3)),
    lambda m: m.nn.LSTMCell(3, 4)(m.randn(2, 3), (m.randn(2, 4), m.randn(1, 2, 4))),
    lambda m: m.nn.LSTMCell(3, 4)(m.randn(2, 5)),
    lambda m: m.nn.GRUCell(3, 4)(m.randn(2, 3), m.randn(3, 4)),
    lambda m: m.nn.RNNCell(3, 4, nonlinearity='gelu')(m.randn(2, 3)),
    lambda m: m.nn.LSTM(3, 4)(m.randn(0, 2, 3)),
    lambda m: m.nn.GRU(3, 4, batch_first=True)(m.randn(2, 0, 3)),
])
def test_errors_like_torch(fn):
    _err(fn)


@pytest.mark.parametrize('kind', list(KINDS))
def test_empty_batch(kind):
    e, t = pair(lambda n: KINDS[kind](n, num_layers=2, bidirectional=True))
    _compare(e, t, [np.zeros((3, 0, 3), np.float32), None], np.float32)


def test_dropout_warning_single_layer():
    for m in (torch, ember):
        with pytest.warns(UserWarning, match='num_layers greater than 1, but got dropout=0.5 '
                                             'and num_layers=1'):
            m.nn.LSTM(3, 4, dropout=0.5)


def test_pickle_and_to():
    e = nn.GRU(3, 4, 2)
    e2 = pickle.loads(pickle.dumps(e))
    assert [n for n, _ in e2.named_parameters()] == [n for n, _ in e.named_parameters()]
    x = ember.randn(2, 1, 3)
    np.testing.assert_allclose(_np(e2(x)[0]), _np(e(x)[0]))
    e.double()
    assert all(w.dtype == ember.float64 for w in e._flat_weights)
    assert e(x.double())[0].dtype == ember.float64


def test_no_grad_builds_nothing():
    e = nn.LSTM(3, 4, 2, bidirectional=True)
    with ember.no_grad():
        out, (h, c) = e(ember.randn(4, 2, 3))
    assert out.grad_fn is None and h.grad_fn is None and not out.requires_grad


def test_half_precision_runs():
    """float16/bfloat16 run (computed in float32, as a NOTE in the ops says)."""
    e, t = pair(lambda n: n.GRU(3, 4))
    x = np.random.default_rng(10).standard_normal((3, 2, 3)).astype(np.float32)
    e.to(ember.bfloat16)
    out, h = e(ember.from_numpy(x).to(ember.bfloat16))
    assert out.dtype == ember.bfloat16
    ref, _ = t(torch.from_numpy(x))
    np.testing.assert_allclose(out.float().detach().numpy(), _np(ref), atol=0.05)


def test_functional_names_registered():
    for n in ('rnn_tanh', 'rnn_relu', 'lstm', 'gru', 'rnn_tanh_cell', 'rnn_relu_cell',
              'lstm_cell', 'gru_cell'):
        assert callable(getattr(ember, n))


def test_sync_helper_roundtrip():
    e, t = pair(lambda n: n.LSTM(2, 3, proj_size=1))
    sync(e, t)
    for (a, p), (b, q) in zip(e.named_parameters(), t.named_parameters()):
        assert a == b
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_retain_graph_hooks_and_inplace_weight_error():
    """The layer node keeps its tensors like any node: retain_graph backs twice, the second
    backward without it raises, saved-tensor hooks see them, an in-place weight change
    before backward raises (torch's behaviour for each)."""
    for m in (ember, torch):
        net = m.nn.LSTM(3, 4, 2)
        x = m.randn(3, 2, 3, requires_grad=True)
        out, _ = net(x)
        out.sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 2 * g1.numpy(), rtol=1e-6)
        with pytest.raises(RuntimeError):
            out.sum().backward()
        packed = []

        def pack(t):
            packed.append(t)
            return t
        with m.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out, _ = net(x)
        assert packed
        out.sum().backward()
        out, _ = net(x)
        with m.no_grad():
            net.weight_hh_l1.mul_(2)
        with pytest.raises(RuntimeError):
            out.sum().backward()


@pytest.mark.parametrize('kind', ['lstm', 'gru'])
def test_dropout_masks_packed(kind):
    """Train-mode dropout on packed data draws torch's masks too."""
    e, t = pair(lambda n: KINDS[kind](n, num_layers=3, dropout=0.5, bidirectional=True))
    x = np.random.default_rng(0).standard_normal((4, 3, 3)).astype(np.float32)
    res = {}
    for m, mod in ((ember, e), (torch, t)):
        m.manual_seed(5)
        p = m.nn.utils.rnn.pack_padded_sequence(m.from_numpy(x.copy()), [4, 2, 3],
                                                enforce_sorted=False)
        o, h = mod(p)
        res[m] = [_np(o.data)] + [_np(a) for a in (h if isinstance(h, tuple) else (h,))]
    for a, b in zip(res[ember], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
