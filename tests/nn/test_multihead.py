"""nn.MultiheadAttention (ember/nn/modules/_multihead.py, exported as
ember.nn.modules.activation.MultiheadAttention) and F.multi_head_attention_forward against
torch, with torch's weights copied in: outputs, attention weights, input and parameter
gradients, masks, batch_first, kdim/vdim, bias_k/v, zero attention, unbatched inputs."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
from nn._util import pair

RTOL = {'float32': 2e-5, 'float64': 1e-10}
ATOL = {'float32': 2e-5, 'float64': 1e-10}


def _lib(m):
    return 'torch' if m is torch else 'ember'


def _as(m, a, grad=False):
    t = m.from_numpy(a.copy())
    return t.requires_grad_(True) if grad and a.dtype.kind == 'f' else t


def _close(a, b, dt, what):
    a = a.detach().numpy() if a is not None else None
    b = b.detach().numpy() if b is not None else None
    if b is None:
        assert a is None, what
        return
    assert a is not None, what
    assert a.shape == b.shape, (what, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=RTOL[dt], atol=ATOL[dt], err_msg=what)


def run_mha(ctor, q, k=None, v=None, *, mode='train', seed=None, dtype='float32', masks=None,
            **fwd):
    """Build ``ctor(nn)`` in both libraries (torch's weights copied), run forward on
    ``q, k, v`` (numpy arrays; ``k``/``v`` None: the query tensor itself, self-attention),
    compare the output and weights, then backward under a random upstream gradient and
    compare the input and parameter gradients."""
    e, t = pair(lambda nn: ctor(nn).to(getattr(torch if nn is torch.nn else ember, dtype)))
    for mod in (e, t):
        mod.train(mode == 'train')
    q = q.astype(dtype)
    k = None if k is None else k.astype(dtype)
    v = None if v is None else v.astype(dtype)
    masks = masks or {}
    res = {}
    for m, mod in ((torch, t), (ember, e)):
        qt = _as(m, q, True)
        kt = qt if k is None else _as(m, k, True)
        vt = kt if v is None else (kt if v is k else _as(m, v, True))
        kw = dict(fwd)
        for name, arr in masks.items():
            kw[name] = None if arr is None else \
                m.from_numpy(arr.astype(dtype) if arr.dtype.kind == 'f' else arr.copy())
        if seed is not None:
            m.manual_seed(seed)
        out, w = mod(qt, kt, vt, **kw)
        res[_lib(m)] = (mod, (qt, kt, vt), out, w)
    (_, _, oe, we), (_, _, ot, wt) = res['ember'], res['torch']
    _close(oe, ot, dtype, 'output')
    _close(we, wt, dtype, 'weights')
    rng = np.random.default_rng(0)
    go = rng.standard_normal(tuple(ot.shape)).astype(dtype)
    gw = None if wt is None else rng.standard_normal(tuple(wt.shape)).astype(dtype)
    for lib, m in (('torch', torch), ('ember', ember)):
        mod, ins, out, w = res[lib]
        loss = (out * m.from_numpy(go)).sum()
        if w is not None:
            loss = loss + (w * m.from_numpy(gw)).sum()
        loss.backward()
    ins_e, ins_t = res['ember'][1], res['torch'][1]
    for i, (a, b) in enumerate(zip(ins_e, ins_t)):
        _close(a.grad, b.grad, dtype, f'input {i} grad')
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        _close(pe.grad, pt.grad, dtype, f'{n}.grad')
    return oe, ot


R = np.random.default_rng(1)
X = R.standard_normal((5, 3, 8))          # (L, N, E)
KV = R.standard_normal((7, 3, 8))         # (S, N, E)
K4 = R.standard_normal((7, 3, 4))         # kdim 4
V6 = R.standard_normal((7, 3, 6))         # vdim 6


def _mha(**kw):
    return lambda nn: nn.MultiheadAttention(8, 2, **kw)


CONFIGS = [
    {}, {'bias': False}, {'add_bias_kv': True}, {'add_zero_attn': True},
    {'add_bias_kv': True, 'add_zero_attn': True}, {'kdim': 4, 'vdim': 6},
    {'kdim': 4, 'vdim': 6, 'add_bias_kv': True, 'bias': False},
]


@pytest.mark.parametrize('cfg', CONFIGS, ids=lambda c: ','.join(f'{k}={v}' for k, v in c.items())
                         or 'default')
@pytest.mark.parametrize('need_weights', [True, False])
def test_configs_cross_attention(cfg, need_weights):
    k, v = (K4, V6) if 'kdim' in cfg else (KV, KV)
    run_mha(_mha(**cfg), X, k, v, need_weights=need_weights)


@pytest.mark.parametrize('cfg', CONFIGS[:5], ids=str)
def test_configs_self_attention(cfg):
    run_mha(_mha(**cfg), X)


def test_key_is_value_encoder_decoder_path():
    run_mha(_mha(), X, KV, KV)         # k is v (one array -> one tensor): packed kv product
    run_mha(_mha(), X, KV, KV.copy())  # separate k and v


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('mode', ['train', 'eval'])
def test_dtypes_and_modes(dtype, mode):
    run_mha(_mha(dropout=0.5 if mode == 'eval' else 0.), X, dtype=dtype, mode=mode)
    run_mha(_mha(add_bias_kv=True), X, KV, KV, dtype=dtype, mode=mode,
            average_attn_weights=False)


@pytest.mark.parametrize('batch_first', [False, True])
def test_batch_first(batch_first):
    x = X.transpose(1, 0, 2) if batch_first else X
    kv = KV.transpose(1, 0, 2) if batch_first else KV
    run_mha(_mha(batch_first=batch_first), x)
    run_mha(_mha(batch_first=batch_first), x, kv, kv)
    run_mha(_mha(batch_first=batch_first, kdim=4, vdim=6), x,
            K4.transpose(1, 0, 2) if batch_first else K4,
            V6.transpose(1, 0, 2) if batch_first else V6, need_weights=False)


def test_batch_first_eval_no_grad():
    """Where torch takes its inference fast path (eval, no grad, batch_first, self-attention),
    the values still agree."""
    e, t = pair(_mha(batch_first=True))
    e.eval()
    t.eval()
    x = X.transpose(1, 0, 2).astype('float32')
    kpm = np.zeros((3, 5), bool)
    kpm[1, 3:] = True
    full = kpm.copy()
    full[2] = True                  # every key masked: NaN rows in torch's inference kernel
    for kw in ({}, {'key_padding_mask': kpm}, {'need_weights': False},
               {'key_padding_mask': full}, {'key_padding_mask': full, 'need_weights': False},
               {'attn_mask': np.ones((5, 5), bool), 'need_weights': False}):
        with torch.no_grad(), ember.no_grad():
            kt = {k: torch.from_numpy(v) for k, v in kw.items() if k.endswith('mask')}
            ke = {k: ember.from_numpy(v) for k, v in kw.items() if k.endswith('mask')}
            nw = kw.get('need_weights', True)
            xt, xe = torch.from_numpy(x), ember.from_numpy(x)
            ot, wt = t(xt, xt, xt, need_weights=nw, **kt)
            oe, we = e(xe, xe, xe, need_weights=nw, **ke)
        _close(oe, ot, 'float32', 'out')
        _close(we, wt, 'float32', 'weights')


def test_unbatched():
    run_mha(_mha(), X[:, 0])
    run_mha(_mha(), X[:, 0], KV[:, 0], KV[:, 0], average_attn_weights=False)
    run_mha(_mha(kdim=4, vdim=6, add_zero_attn=True), X[:, 0], K4[:, 0], V6[:, 0])
    kpm = np.zeros(7, bool)
    kpm[[1, 4]] = True
    am = R.standard_normal((2, 5, 7))
    run_mha(_mha(add_bias_kv=True), X[:, 0], KV[:, 0], KV[:, 0],
            masks={'key_padding_mask': kpm, 'attn_mask': am > 0.5})
    run_mha(_mha(batch_first=True), X[:, 0], need_weights=False,
            masks={'attn_mask': am[:, :, :5]})


def _bool_mask(shape, p=0.3, seed=2):
    m = np.random.default_rng(seed).uniform(size=shape) < p
    m[..., 0] = False                      # no fully masked rows
    return m


@pytest.mark.parametrize('need_weights', [True, False])
@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_masks(need_weights, kind):
    am2 = _bool_mask((5, 7))
    am3 = _bool_mask((6, 5, 7), seed=3)
    kpm = _bool_mask((3, 7), seed=4)
    if kind == 'float':
        am2 = np.where(am2, -np.inf, 0.)
        am3 = R.standard_normal((6, 5, 7))     # arbitrary additive scores
        kpm = np.where(kpm, -np.inf, 0.)
    nw = {'need_weights': need_weights}
    run_mha(_mha(), X, KV, KV, masks={'attn_mask': am2}, **nw)
    run_mha(_mha(), X, KV, KV, masks={'attn_mask': am3}, **nw)
    run_mha(_mha(), X, KV, KV, masks={'key_padding_mask': kpm}, **nw)
    run_mha(_mha(), X, KV, KV, masks={'key_padding_mask': kpm, 'attn_mask': am2}, **nw)
    run_mha(_mha(add_bias_kv=True, add_zero_attn=True), X, KV, KV,
            masks={'key_padding_mask': kpm, 'attn_mask': am3}, **nw)
    run_mha(_mha(batch_first=True), X.transpose(1, 0, 2),
            masks={'attn_mask': _bool_mask((5, 5)) if kind == 'bool' else
                   R.standard_normal((5, 5))}, **nw)


def test_fully_masked_rows():
    """A query row with every key masked: NaN with need_weights (plain softmax), zeros
    without (PyTorch's scaled_dot_product_attention)."""
    kpm = np.zeros((3, 7), bool)
    kpm[1] = True
    e, t = pair(_mha())
    for nw in (True, False):
        ot, _ = t(*(torch.from_numpy(X.astype('float32')),) * 3,
                  key_padding_mask=torch.from_numpy(kpm[:, :5].copy()), need_weights=nw)
        oe, _ = e(*(ember.from_numpy(X.astype('float32')),) * 3,
                  key_padding_mask=ember.from_numpy(kpm[:, :5].copy()), need_weights=nw)
        np.testing.assert_allclose(oe.detach().numpy(), ot.detach().numpy(), rtol=2e-5,
                                   atol=2e-5)


def test_causal():
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    for nw in (True, False):
        run_mha(_mha(), X, masks={'attn_mask': causal}, is_causal=True, need_weights=nw)
        run_mha(_mha(), X, masks={'attn_mask': causal, 'key_padding_mask': _bool_mask((3, 5))},
                is_causal=True, need_weights=nw)


def test_dropout_stream_matches_torch():
    """Training with dropout on the attention weights draws torch's random numbers."""
    for nw in (True, False):
        run_mha(_mha(dropout=0.4), X, KV, KV, seed=11, need_weights=nw)
    run_mha(_mha(dropout=0.3, batch_first=True), X.transpose(1, 0, 2), seed=5,
            need_weights=False, masks={'attn_mask': _bool_mask((5, 5))})


def test_functional_static_kv_and_separate_weights():
    rng = np.random.default_rng(5)
    E, H, N, L, S = 8, 2, 3, 5, 6
    arr = {
        'q': rng.standard_normal((L, N, E)), 'k': rng.standard_normal((S, N, E)),
        'w': rng.standard_normal((3 * E, E)) * .3, 'b': rng.standard_normal(3 * E),
        'ow': rng.standard_normal((E, E)) * .3, 'ob': rng.standard_normal(E),
        'sk': rng.standard_normal((N * H, S + 1, E // H)),
        'sv': rng.standard_normal((N * H, S + 1, E // H)),
        'qw': rng.standard_normal((E, E)) * .3, 'kw': rng.standard_normal((E, E)) * .3,
        'vw': rng.standard_normal((E, E)) * .3,
    }

    def run(m):
        t = {k: m.from_numpy(v.astype('float32')).requires_grad_() for k, v in arr.items()}
        F = m.nn.functional
        o1, w1 = F.multi_head_attention_forward(
            t['q'], t['k'], t['k'], E, H, t['w'], t['b'], None, None, False, 0., t['ow'],
            t['ob'], static_k=t['sk'], static_v=t['sv'])
        o2, w2 = F.multi_head_attention_forward(
            t['q'], t['k'], t['k'], E, H, None, t['b'], None, None, True, 0., t['ow'], None,
            use_separate_proj_weight=True, q_proj_weight=t['qw'], k_proj_weight=t['kw'],
            v_proj_weight=t['vw'], average_attn_weights=False, training=False)
        (o1.sum() + w1.square().sum() + o2.square().sum() + (w2 * w2).sum()).backward()
        return [o1, w1, o2, w2] + [t[k].grad for k in sorted(arr)]

    re, rt = run(ember), run(torch)
    for i, (a, b) in enumerate(zip(re, rt)):
        _close(a, b, 'float32', f'item {i}')


def test_state_dict_keys_and_init_equal_after_seed():
    for kw in ({}, {'add_bias_kv': True}, {'kdim': 4, 'vdim': 6}, {'bias': False},
               {'kdim': 3, 'add_bias_kv': True, 'add_zero_attn': True}):
        torch.manual_seed(42)
        t = torch.nn.MultiheadAttention(8, 2, **kw)
        ember.manual_seed(42)
        e = ember.nn.MultiheadAttention(8, 2, **kw)
        assert list(e.state_dict()) == list(t.state_dict())
        assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
        for (n, a), b in zip(e.state_dict().items(), t.state_dict().values()):
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)
        for attr in ('embed_dim', 'kdim', 'vdim', '_qkv_same_embed_dim', 'num_heads',
                     'dropout', 'batch_first', 'head_dim', 'add_zero_attn'):
            assert getattr(e, attr) == getattr(t, attr), attr
        assert (e.bias_k is None) == (t.bias_k is None)
        assert (e.in_proj_weight is None) == (t.in_proj_weight is None)
        # a state dict from torch loads into ember
        e2 = ember.nn.MultiheadAttention(8, 2, **kw)
        e2.load_state_dict({k: ember.from_numpy(v.numpy()) for k, v in t.state_dict().items()})


def test_dtype_device_factory_kwargs():
    e = ember.nn.MultiheadAttention(8, 2, kdim=4, add_bias_kv=True, dtype=ember.float64,
                                    device='cpu')
    assert all(p.dtype == ember.float64 for p in e.parameters())


def test_repr_module_names_and_pickle():
    for kw in ({}, {'kdim': 4}, {'bias': False}):
        assert repr(ember.nn.MultiheadAttention(8, 2, **kw)) == \
            repr(torch.nn.MultiheadAttention(8, 2, **kw))
    e = ember.nn.MultiheadAttention(8, 2)
    assert type(e).__module__ == 'ember.nn.modules.activation'
    assert ember.nn.modules.activation.MultiheadAttention is ember.nn.MultiheadAttention
    assert type(e.out_proj).__module__ == 'ember.nn.modules.linear'
    assert type(e.out_proj).__name__ == 'NonDynamicallyQuantizableLinear'
    assert isinstance(e.out_proj, ember.nn.Linear)
    e2 = pickle.loads(pickle.dumps(e))
    x = ember.randn(3, 2, 8)
    np.testing.assert_array_equal(e2(x, x, x)[0].detach().numpy(),
                                  e(x, x, x)[0].detach().numpy())
    e3 = copy.deepcopy(e)
    assert e3.in_proj_weight is not e.in_proj_weight


def _raises_both(fn, match=None):
    errs = []
    for m in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with pytest.raises(Exception) as ei:
                fn(m)
        errs.append(ei.value)
    et, ee = errs
    assert type(ee) is type(et), (ee, et)
    if match:
        assert match in str(et) and match in str(ee), (str(et), str(ee))


def test_errors():
    x = lambda m, *s: m.zeros(*s)  # noqa: E731
    _raises_both(lambda m: m.nn.MultiheadAttention(0, 2), 'must be greater than 0')
    _raises_both(lambda m: m.nn.MultiheadAttention(8, 3), 'divisible')
    mk = {}

    def mod(m, **kw):
        key = (m.__name__, tuple(sorted(kw.items())))
        if key not in mk:
            mk[key] = m.nn.MultiheadAttention(8, 2, **kw)
        return mk[key]

    _raises_both(lambda m: mod(m)(x(m, 5, 3, 8), x(m, 7, 8), x(m, 7, 8)), 'expected `key`')
    _raises_both(lambda m: mod(m)(x(m, 5, 8), x(m, 7, 3, 8), x(m, 7, 3, 8)), 'expected `key`')
    _raises_both(lambda m: mod(m)(x(m, 4, 5, 3, 8), x(m, 7, 3, 8), x(m, 7, 3, 8)),
                 'query should be unbatched 2D or batched 3D')
    _raises_both(lambda m: mod(m)(x(m, 5, 3, 6), x(m, 7, 3, 6), x(m, 7, 3, 6)),
                 'was expecting embedding dimension of 8')
    _raises_both(lambda m: mod(m)(x(m, 5, 3, 8), x(m, 7, 3, 8), x(m, 6, 3, 8)),
                 'does not match value shape')
    q = lambda m: (x(m, 5, 3, 8), x(m, 7, 3, 8), x(m, 7, 3, 8))  # noqa: E731
    _raises_both(lambda m: mod(m)(*q(m), attn_mask=m.zeros(5, 6)), 'The shape of the 2D attn_mask')
    _raises_both(lambda m: mod(m)(*q(m), attn_mask=m.zeros(2, 5, 7)),
                 'The shape of the 3D attn_mask')
    _raises_both(lambda m: mod(m)(*q(m), attn_mask=m.zeros(1, 2, 5, 7)), 'expected `attn_mask`')
    _raises_both(lambda m: mod(m)(*q(m), key_padding_mask=m.zeros(3, 6, dtype=m.bool)),
                 'Expected key_padded_mask.shape[1] to be 7')
    _raises_both(lambda m: mod(m)(*q(m), key_padding_mask=m.zeros(2, 7, dtype=m.bool)),
                 'Expected key_padded_mask.shape[0] to be 3')
    _raises_both(lambda m: mod(m)(*q(m), key_padding_mask=m.zeros(3, dtype=m.bool)),
                 'expected `key_padding_mask`')
    _raises_both(lambda m: mod(m)(*q(m), attn_mask=m.zeros(5, 7, dtype=m.int64)),
                 'only bool and floating types of attn_mask are supported')
    _raises_both(lambda m: mod(m)(*q(m), is_causal=True), 'Need attn_mask')
    _raises_both(lambda m: mod(m)(x(m, 5, 8), x(m, 7, 8), x(m, 7, 8),
                                  attn_mask=m.zeros(3, 5, 7)), 'Expected `attn_mask` shape')
    _raises_both(lambda m: mod(m, kdim=4)(x(m, 5, 3, 8), x(m, 7, 3, 4), x(m, 6, 3, 8)),
                 "key's sequence and batch dims")
    _raises_both(lambda m: mod(m, kdim=4)(x(m, 5, 3, 8), x(m, 7, 3, 5), x(m, 7, 3, 8)),
                 'expecting key weights shape')


def test_mismatched_mask_types_warn():
    for m in (torch, ember):
        mod = m.nn.MultiheadAttention(8, 2)
        xx = m.zeros(5, 3, 8)
        with pytest.warns(UserWarning, match='Support for mismatched key_padding_mask and '
                                             'attn_mask is deprecated'):
            mod(xx, xx, xx, key_padding_mask=m.zeros(3, 5, dtype=m.bool),
                attn_mask=m.zeros(5, 5))


def test_gradcheck_and_double_backward():
    """float64 finite differences, first and second order, through the weights path and the
    scaled_dot_product_attention path (composed of ember ops: double backward works)."""
    from ember.autograd import gradcheck, gradgradcheck
    F = ember.nn.functional
    rng = np.random.default_rng(6)
    E, H = 4, 2
    t = [ember.from_numpy(rng.standard_normal(s)).requires_grad_()
         for s in ((2, 1, E), (3 * E, E), (3 * E,), (E, E), (1, 1, E), (1, 1, E))]
    am = ember.from_numpy(np.triu(np.full((2, 2), -np.inf), 1) + rng.standard_normal((2, 2)))

    def f(x, w, b, ow, bk, bv, nw=True):
        out, wts = F.multi_head_attention_forward(x, x, x, E, H, w, b, bk, bv, False, 0., ow,
                                                  None, attn_mask=am, need_weights=nw)
        return (out, wts) if nw else out

    assert gradcheck(f, t)
    assert gradcheck(lambda *a: f(*a, nw=False), t)
    x, w = t[:2]
    assert gradgradcheck(lambda x, w: f(x, w, *t[2:]), (x, w))
    assert gradgradcheck(lambda x, w: f(x, w, *t[2:], nw=False), (x, w))
    q, k, v = (ember.from_numpy(rng.standard_normal(s)).requires_grad_()
               for s in ((1, 2, 3, 2), (1, 1, 4, 2), (1, 1, 4, 2)))
    mask = ember.from_numpy(np.array([[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 1]], bool))

    def g(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    assert gradcheck(g, (q, k, v)) and gradgradcheck(g, (q, k, v))


def test_sdpa_grad_fn_names_follow_torch_kernel_choice():
    """PyTorch's CPU dispatcher picks its fused kernel for 4-D inputs of equal head dims, no
    dropout, and a mask that does not require grad; ember's grad_fn names follow."""
    rng = np.random.default_rng(8)

    def arr(*s):
        return rng.standard_normal(s).astype('float32')
    q4, k4, v4, v7 = arr(2, 3, 4, 5), arr(2, 3, 6, 5), arr(2, 3, 6, 5), arr(2, 3, 6, 7)
    cases = [
        ((q4, k4, v4), {}), ((q4, k4, v7), {}), ((q4[0], k4[0], v4[0]), {}),
        ((q4[0, 0], k4[0, 0], v4[0, 0]), {}), ((q4, k4, v4), {'is_causal': True}),
        ((q4, k4, v4), {'dropout_p': 0.2}), ((q4, k4[:1], v4[:1]), {}),
        ((q4, k4, v4), {'mask': np.ones((4, 6), bool)}),
        ((q4, k4, v4), {'mask': arr(3, 4, 6)}), ((q4, k4, v4), {'mask': arr(4, 6)}),
        ((q4, k4, v4), {'mask': arr(4, 6), 'mask_grad': True}),
        ((arr(2, 6, 4, 5), k4, v4), {'enable_gqa': True}),
    ]
    for arrays, kw in cases:
        names, saved = [], []
        for m in (torch, ember):
            t = [m.from_numpy(a.copy()).requires_grad_() for a in arrays]
            kw2 = dict(kw)
            mask = kw2.pop('mask', None)
            if mask is not None:
                kw2['attn_mask'] = m.from_numpy(mask.copy()).requires_grad_(
                    kw2.pop('mask_grad', False))
            m.manual_seed(0)
            o = m.nn.functional.scaled_dot_product_attention(*t, **kw2)
            names.append(type(o.grad_fn).__name__)
            if names[-1].startswith('ScaledDotProductFlash'):
                saved.append((o.grad_fn._saved_scale, o.grad_fn._saved_is_causal,
                              o.grad_fn._saved_dropout_p))
        assert names[0] == names[1], (kw, [a.shape for a in arrays], names)
        assert len(set(saved)) <= 1, saved
