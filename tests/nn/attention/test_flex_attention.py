"""ember.nn.attention.flex_attention vs torch 2.13's torch.nn.attention.flex_attention.

* BlockMask construction (create_block_mask over several shapes, block sizes and masks),
  its tensors, shape, sparsity, to_dense, to_string/str, repr, indexing, from_kv_blocks,
  to(), _adjust and the dQ write-order metadata; create_mask for mask_mods and score_mods.
* flex_attention's output and lse against torch's public function (which runs the unfused
  path on the CPU) for causal, sliding-window, document and prefix masks, score_mods, GQA,
  scale, fully masked rows and low-precision inputs.
* Gradients (for query, key, value, a learnable bias a score_mod reads, and through lse)
  against torch's reference implementation (``math_attention``, the computation torch's
  flex_attention runs without a compiler) differentiated by torch's autograd: torch's public
  function refuses backward on the CPU. float64 gradcheck of ember's own gradients.
* Errors and warnings.
"""
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.attention.flex_attention as TF
from torch._higher_order_ops.flex_attention import math_attention as _torch_math

import ember
import ember.nn.attention.flex_attention as EF
from oracle import assert_same, check_backend, on_backend, to_np


def E(t, requires_grad=False):
    """An ember tensor with the values of torch tensor ``t``."""
    e = on_backend(ember.from_numpy(to_np(t).copy()))
    return e.requires_grad_(requires_grad) if requires_grad else e


def T(e):
    return torch.from_numpy(to_np(e).copy())


def _rand(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def _quiet_torch(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return fn(*a, **k)


# masks (the same functions run under both libraries: they use tensor operations only)
def causal(b, h, q, kv):
    return q >= kv


def sliding(b, h, q, kv):
    return (q >= kv) & (q - kv <= 3)


def prefix(b, h, q, kv):
    return kv < 5


def diagonal(b, h, q, kv):
    return q == kv


def _document(m, L):
    ids = m.tensor([0] * 6 + [1] * 7 + [2] * (L - 13))

    def document(b, h, q, kv):
        return ids[q] == ids[kv]
    return document


MASKS = {
    'causal': lambda m, L: causal,
    'sliding': lambda m, L: sliding,
    'prefix_lm': lambda m, L: TF.or_masks(prefix, causal) if m is torch else
    EF.or_masks(prefix, causal),
    'document_causal': lambda m, L: (TF if m is torch else EF).and_masks(_document(m, L), causal),
    'noop': lambda m, L: (TF if m is torch else EF).noop_mask,
    'batch_head': lambda m, L: batch_head,
}


def batch_head(b, h, q, kv):        # a layout that differs by batch entry and head
    return (q - kv >= -4 * b) & (q - kv <= 8 + 4 * h)


def _same_block_mask(e, t, tensors_only=False):
    for a in TF.BlockMask._TENSOR_ATTRS:
        x, y = getattr(e, a), getattr(t, a)
        assert (x is None) == (y is None), a
        if y is not None:
            assert_same(x, y, path=a)
    assert e.shape == t.shape and e.seq_lengths == t.seq_lengths
    assert tuple(e.BLOCK_SIZE) == tuple(t.BLOCK_SIZE)
    assert e.dq_kv_order_spt == t.dq_kv_order_spt
    if not tensors_only:
        assert e.sparsity() == pytest.approx(t.sparsity())
        assert e.numel() == t.numel()
        assert repr(e) == repr(t)
        assert str(e) == str(t)


# ---------------------------------------------------------------------------------------
# BlockMask


@pytest.mark.parametrize('mask', list(MASKS))
@pytest.mark.parametrize('B,H,L,S,bs', [(2, 3, 20, 36, (8, 16)), (None, None, 16, 16, 4),
                                        (1, 2, 24, 24, 128), (2, 1, 13, 7, 3)])
def test_create_block_mask(mask, B, H, L, S, bs):
    t = TF.create_block_mask(MASKS[mask](torch, max(L, S)), B, H, L, S, device='cpu',
                             BLOCK_SIZE=bs)
    e = EF.create_block_mask(MASKS[mask](ember, max(L, S)), B, H, L, S, device='cpu',
                             BLOCK_SIZE=bs)
    _same_block_mask(e, t)
    assert_same(e.to_dense(), t.to_dense())
    for grid in (-1, 2, (3, 1)):
        assert e.to_string(grid_size=grid, limit=2) == t.to_string(grid_size=grid, limit=2)
    te, tt = e.as_tuple(), t.as_tuple()
    assert len(te) == len(tt) and te[:2] == tt[:2] and te[-4:-1] == tt[-4:-1]
    assert te[-1] is e.mask_mod
    assert e.as_tuple(flatten=False)[0] == t.as_tuple(flatten=False)[0]


@pytest.mark.parametrize('kw', [dict(separate_full_blocks=False),
                                dict(compute_dq_write_order=True),
                                dict(compute_dq_write_order=True, dq_kv_order=False)])
def test_create_block_mask_options(kw):
    t = TF.create_block_mask(sliding, 2, 2, 24, 20, device='cpu', BLOCK_SIZE=(4, 8), **kw)
    e = EF.create_block_mask(sliding, 2, 2, 24, 20, device='cpu', BLOCK_SIZE=(4, 8), **kw)
    _same_block_mask(e, t)
    # the slice of a mask with write-order metadata recomputes it
    _same_block_mask(e[1, :, 1:], t[1, :, 1:])


@pytest.mark.parametrize('index', [0, -1, (1, 2), (slice(None), slice(1, 3)), (0, -2),
                                   (slice(0, 2), 1, 'rows'), (slice(None), -1, 'rows')])
def test_block_mask_getitem(index):
    t = TF.create_block_mask(causal, 2, 3, 16, 24, device='cpu', BLOCK_SIZE=4)
    e = EF.create_block_mask(causal, 2, 3, 16, 24, device='cpu', BLOCK_SIZE=4)
    ix = index if isinstance(index, tuple) else (index,)
    it = tuple(torch.tensor([1, 3]) if i == 'rows' else i for i in ix)
    ie = tuple(ember.tensor([1, 3]) if i == 'rows' else i for i in ix)
    st, se = t[it], e[ie]
    _same_block_mask(se, st)
    assert se.mask_mod.__name__ == st.mask_mod.__name__ == '_sliced_mask_mod_error'
    with pytest.raises(RuntimeError, match='Cannot use mask_mod from a sliced BlockMask'):
        se.mask_mod(*(ember.tensor(0),) * 4)


def test_from_kv_blocks_to_adjust():
    num = torch.tensor([[[1, 2, 0], [2, 1, 1]]], dtype=torch.int32)
    idx = torch.tensor([[[[0, 2, 1], [1, 0, 2], [2, 1, 0]],
                         [[2, 0, 1], [1, 2, 0], [0, 1, 2]]]], dtype=torch.int32)
    fnum = torch.tensor([[[0, 0, 1], [0, 1, 0]]], dtype=torch.int32)
    fidx = torch.tensor([[[[0, 1, 2], [0, 1, 2], [0, 1, 2]],
                          [[0, 1, 2], [0, 1, 2], [0, 1, 2]]]], dtype=torch.int32)
    for args, kw in [((num, idx), {}), ((num, idx, fnum, fidx), dict(BLOCK_SIZE=(2, 4))),
                     ((num[0], idx[0]), dict(BLOCK_SIZE=8, seq_lengths=(20, 17))),
                     ((num, idx), dict(compute_q_blocks=False, mask_mod=causal))]:
        t = TF.BlockMask.from_kv_blocks(*args, **kw)
        e = EF.BlockMask.from_kv_blocks(*(E(a) for a in args), **kw)
        _same_block_mask(e, t)
        assert_same(e.to_dense(), t.to_dense())
        _same_block_mask(e.to('cpu'), t.to('cpu'))
    t = TF.BlockMask.from_kv_blocks(num, idx, fnum, fidx, BLOCK_SIZE=4)
    e = EF.BlockMask.from_kv_blocks(E(num), E(idx), E(fnum), E(fidx), BLOCK_SIZE=4)
    for ql, kl in [(8, 12), (5, 9), (12, 3)]:
        _same_block_mask(e._adjust(ql, kl), t._adjust(ql, kl))
    # the plain constructor keeps what it is given
    t = TF.BlockMask((8, 8), num, idx, None, None, None, None, None, None, BLOCK_SIZE=(4, 4))
    e = EF.BlockMask((8, 8), E(num), E(idx), None, None, None, None, None, None,
                     BLOCK_SIZE=(4, 4))
    _same_block_mask(e, t)


@pytest.mark.parametrize('fn', ['causal', 'document', 'score_inf', 'noop'])
def test_create_mask(fn):
    def score_inf(s, b, h, q, kv):
        return torch.where(q >= kv, s, -float('inf')) if isinstance(s, torch.Tensor) else \
            ember.where(q >= kv, s, -float('inf'))
    make = {'causal': lambda m: causal, 'document': lambda m: _document(m, 16),
            'score_inf': lambda m: score_inf,
            'noop': lambda m: (TF if m is torch else EF).noop_mask}[fn]
    t = TF.create_mask(make(torch), 2, 3, 16, 16, device='cpu')
    e = EF.create_mask(make(ember), 2, 3, 16, 16, device='cpu')
    check_backend(e)
    assert_same(e, t)
    if fn == 'causal':
        assert e.stride() == t.stride()
    assert_same(EF.create_mask(causal, None, None, 3, 5), TF.create_mask(causal, None, None, 3, 5))


# ---------------------------------------------------------------------------------------
# flex_attention vs torch's public function (forward)


def _run_public(m, q, k, v, **kw):
    if m is torch:
        return _quiet_torch(TF.flex_attention, q, k, v, **kw)
    return EF.flex_attention(q, k, v, **kw)


def _rel_bias(s, b, h, q, kv):
    return s + (q - kv) * 0.1 * (h + 1)


def test_forward_vs_public_api():
    q, k, v = _rand(2, 3, 24, 8, seed=1), _rand(2, 3, 24, 8, seed=2), _rand(2, 3, 24, 5, seed=3)
    for mask, score_mod, scale, H in [('causal', None, None, 1), ('sliding', _rel_bias, 0.3, 1),
                                      ('document_causal', None, 1.7, None),
                                      (None, _rel_bias, None, 1), ('batch_head', None, None, 3),
                                      ('batch_head', _rel_bias, None, 3)]:
        bt = be = None
        if mask:
            bt = TF.create_block_mask(MASKS[mask](torch, 24), 2, H, 24, 24, device='cpu',
                                      BLOCK_SIZE=8)
            be = EF.create_block_mask(MASKS[mask](ember, 24), 2, H, 24, 24, device='cpu',
                                      BLOCK_SIZE=8)
        ot, aux_t = _run_public(torch, q, k, v, score_mod=score_mod, block_mask=bt, scale=scale,
                                return_aux=TF.AuxRequest(lse=True))
        oe, aux_e = _run_public(ember, E(q), E(k), E(v), score_mod=score_mod, block_mask=be,
                                scale=scale, return_aux=EF.AuxRequest(lse=True))
        check_backend([oe, aux_e.lse])
        assert type(aux_e).__name__ == 'AuxOutput' and aux_e.max_scores is None
        assert_same(oe, ot, rtol=1e-5, atol=1e-5)
        assert_same(aux_e.lse, aux_t.lse, rtol=1e-5, atol=1e-5)


def test_forward_gqa_masked_rows_lowp():
    q, k, v = _rand(1, 4, 12, 6, seed=4), _rand(1, 2, 12, 6, seed=5), _rand(1, 2, 12, 3, seed=6)

    def holes(b, h, q_, kv):            # rows 3 and 7 attend to nothing; head 1 also row 0
        return (q_ >= kv) & (q_ != 3) & (q_ != 7) & ((h != 1) | (q_ != 0))
    bt = TF.create_block_mask(holes, 1, 4, 12, 12, device='cpu', BLOCK_SIZE=4)
    be = EF.create_block_mask(holes, 1, 4, 12, 12, device='cpu', BLOCK_SIZE=4)
    ot, lt = _run_public(torch, q, k, v, block_mask=bt, enable_gqa=True,
                         return_aux=TF.AuxRequest(lse=True))
    oe, le = _run_public(ember, E(q), E(k), E(v), block_mask=be, enable_gqa=True,
                         return_aux=EF.AuxRequest(lse=True))
    assert_same(oe, ot, rtol=1e-5, atol=1e-5)
    assert_same(le.lse, lt.lse, rtol=1e-5, atol=1e-5)
    assert (to_np(oe)[0, :, 3] == 0).all() and np.isneginf(to_np(le.lse)[0, :, 7]).all()
    # float16 query/key/value: scores in float32, output float16, lse float32; a key of
    # another dtype than the query is accepted
    for kd, vd in [(torch.float16, torch.float16), (torch.float16, torch.float64)]:
        ot, lt = _run_public(torch, q.half(), k.to(kd), v.to(vd), enable_gqa=True,
                             return_aux=TF.AuxRequest(lse=True))
        oe, le = _run_public(ember, E(q.half()), E(k.to(kd)), E(v.to(vd)), enable_gqa=True,
                             return_aux=EF.AuxRequest(lse=True))
        assert_same(oe, ot, rtol=2e-3, atol=2e-3)
        assert_same(le.lse, lt.lse, rtol=1e-5, atol=1e-5)


def test_forward_layout_and_batch_broadcast():
    # a (B, L, H, E) query seen as (B, H, L, E): the output keeps that memory layout
    q = _rand(2, 10, 3, 4, seed=7).transpose(1, 2)
    ot = _run_public(torch, q, q, q)
    qe = E(q.transpose(1, 2)).transpose(1, 2)
    oe = _run_public(ember, qe, qe, qe)
    assert_same(oe, ot, rtol=1e-5, atol=1e-5)
    assert oe.stride() == ot.stride()
    for shape, perm in [((1, 4, 1, 8), (0, 2, 1, 3)), ((2, 3, 4, 5), (1, 0, 2, 3)),
                        ((2, 3, 4, 5), (0, 1, 3, 2)), ((2, 1, 4, 5), (1, 0, 2, 3))]:
        x = _rand(*shape)
        ot = _run_public(torch, *(x.permute(*perm),) * 3)
        oe = _run_public(ember, *(E(x).permute(*perm),) * 3)
        assert oe.stride() == ot.stride(), (shape, perm)
    # key/value with batch 1 broadcast over the query's batch when a block_mask is given
    q, k = _rand(3, 2, 8, 4, seed=8), _rand(1, 2, 8, 4, seed=9)
    bt = TF.create_block_mask(causal, 3, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
    be = EF.create_block_mask(causal, 3, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
    assert_same(_run_public(ember, E(q), E(k), E(k), block_mask=be),
                _run_public(torch, q, k, k, block_mask=bt), rtol=1e-5, atol=1e-5)
    # return_lse (deprecated) gives (out, lse); an empty query
    ot, lt = _run_public(torch, q, q, q, return_lse=True)
    with pytest.warns(FutureWarning, match='return_lse is deprecated'):
        EF._WARNINGS_SHOWN.discard('deprecated_return_lse')
        oe, le = _run_public(ember, E(q), E(q), E(q), return_lse=True)
    assert_same((oe, le), (ot, lt), rtol=1e-5, atol=1e-5)
    z = _rand(2, 2, 0, 4)
    assert_same(_run_public(ember, E(z), E(q[:2]), E(q[:2])), _run_public(torch, z, q[:2], q[:2]))


def test_autocast():
    # under autocast, query/key/value are cast to the autocast dtype (float64 left alone)
    q, k = _rand(1, 2, 8, 4, seed=20), _rand(1, 2, 8, 4, seed=21, dtype=torch.float64)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        ot, lt = _run_public(torch, q, q, k, return_aux=TF.AuxRequest(lse=True))
    with ember.autocast('cpu', dtype=ember.bfloat16):
        oe, le = _run_public(ember, E(q), E(q), E(k), return_aux=EF.AuxRequest(lse=True))
    assert_same(oe, ot, rtol=1e-2, atol=1e-2)
    assert_same(le.lse, lt.lse, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------
# mods that do not broadcast


def test_mods_mapped_elementwise():
    q = _rand(1, 2, 6, 4, seed=10)
    bt = _rand(2, 6, 6, seed=11)
    be = E(bt)

    def chained(bias):          # per-element indexing that broadcast indices would break
        return lambda s, b, h, qi, kv: s + bias[h][qi][kv]

    def scalar_scale(c):        # a 0-dim float64 captured tensor: per element, float64 wins
        return lambda s, b, h, qi, kv: s * c

    for mt, me in [(chained(bt), chained(be)),
                   (scalar_scale(torch.tensor(0.5, dtype=torch.float64)),
                    scalar_scale(ember.tensor(0.5, dtype=ember.float64)))]:
        ot, lt = _run_public(torch, q, q, q, score_mod=mt, return_aux=TF.AuxRequest(lse=True))
        oe, le = _run_public(ember, E(q), E(q), E(q), score_mod=me,
                             return_aux=EF.AuxRequest(lse=True))
        assert_same(oe, ot, rtol=1e-5, atol=1e-5)
        assert_same(le.lse, lt.lse, rtol=1e-5, atol=1e-5)     # dtype included

    # Python control flow on the indices: mapped element-wise in ember (torch's vmap
    # refuses it; its tensor form gives the expected values)
    def branchy(s, b, h, qi, kv):
        if qi > kv:
            return s
        return s * 2
    ot = _run_public(torch, q, q, q, score_mod=lambda s, b, h, qi, kv:
                     torch.where(qi > kv, s, s * 2))
    assert_same(_run_public(ember, E(q), E(q), E(q), score_mod=branchy), ot,
                rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------
# gradients vs torch's reference computation (differentiated by torch)


def _torch_reference(q, k, v, score_mod, block_mask, scale, mask_mod=None):
    if block_mask is None:
        block_mask = TF.BlockMask.from_kv_blocks(
            torch.ones(1, 1, 1, dtype=torch.int32), torch.zeros(1, 1, 1, 1, dtype=torch.int32),
            BLOCK_SIZE=1 << 30, seq_lengths=(1, 1))
    out, lse, _ = _torch_math(q, k, v, score_mod or (lambda s, b, h, qi, kv: s),
                              block_mask.as_tuple(), scale, {})
    return out, lse * math.log(2)


CASES = {
    'causal': dict(mask='causal'),
    'sliding_relbias': dict(mask='sliding', score_mod='rel'),
    'document': dict(mask='document_causal', scale=0.7),
    'prefix_lm_bias': dict(mask='prefix_lm', score_mod='bias'),
    'gqa_bias': dict(mask='causal', score_mod='bias', hq=4, hkv=2),
    'masked_rows': dict(mask='holes', score_mod='bias'),
    'no_mask_softcap': dict(score_mod='softcap'),
}


def _holes(b, h, q, kv):
    return (q >= kv) & (q != 2) & (q != 9)


@pytest.mark.parametrize('case', list(CASES))
def test_gradients_vs_torch(case):
    c = CASES[case]
    hq, hkv, L, Ed = c.get('hq', 2), c.get('hkv', 2), 16, 8
    scale = c.get('scale', 1 / math.sqrt(Ed))
    q, k, v = _rand(2, hq, L, Ed, seed=12), _rand(2, hkv, L, Ed, seed=13), _rand(2, hkv, L, 6,
                                                                                seed=14)
    bias = _rand(hq, L, L, seed=15)
    ins_t = [x.clone().requires_grad_() for x in (q, k, v, bias)]
    ins_e = [E(x, True) for x in (q, k, v, bias)]

    def mods(m, bias_):
        mask = {'holes': lambda m_, L_: _holes}.get(c.get('mask'), MASKS.get(c.get('mask')))
        mm = mask(m, L) if mask else None
        sm = {None: None, 'rel': _rel_bias,
              'bias': lambda s, b, h, qi, kv: s + bias_[h, qi, kv],
              'softcap': lambda s, b, h, qi, kv: 2.0 * (s / 2.0).tanh() + bias_[h, qi, kv]
              }[c.get('score_mod')]
        lib = TF if m is torch else EF
        bm = lib.create_block_mask(mm, 2, hq, L, L, device='cpu', BLOCK_SIZE=4) if mm else None
        return sm, bm

    sm, bm = mods(torch, ins_t[3])
    ot, lt = _torch_reference(*ins_t[:3], sm, bm, scale)
    sm, bm = mods(ember, ins_e[3])
    oe, aux = EF.flex_attention(*ins_e[:3], score_mod=sm, block_mask=bm, scale=scale,
                                enable_gqa=hq != hkv, return_aux=EF.AuxRequest(lse=True))
    assert_same(oe, ot, rtol=1e-5, atol=1e-5)
    assert_same(aux.lse, lt, rtol=1e-5, atol=1e-5)
    go, gl = _rand(*ot.shape, seed=16), _rand(*lt.shape, seed=17)
    # rows that attend to nothing have lse -inf: no gradient flows back through them
    gl = torch.where(torch.isinf(lt), 0., gl)
    gt = torch.autograd.grad((ot, lt), ins_t, (go, gl), allow_unused=True)
    ge = ember.autograd.grad((oe, aux.lse), ins_e, (E(go), E(gl)), allow_unused=True)
    check_backend([g for g in ge if g is not None], 'grad')
    names = ('query', 'key', 'value', 'bias')
    for n, a, b in zip(names, ge, gt):
        if b is None:
            assert a is None or not np.any(to_np(a)), n
            continue
        assert_same(a, b, rtol=1e-4, atol=1e-5, path=n)


def test_gradcheck_float64():
    rng = np.random.default_rng(0)
    q, k, v = (on_backend(ember.from_numpy(rng.standard_normal(s))).requires_grad_()
               for s in [(1, 2, 5, 3), (1, 1, 5, 3), (1, 1, 5, 2)])
    bias = on_backend(ember.from_numpy(rng.standard_normal((2, 5, 5)))).requires_grad_()

    def mask(b, h, qi, kv):
        return (qi >= kv) & (qi != 1)
    bm = EF.create_block_mask(mask, 1, 2, 5, 5, device='cpu', BLOCK_SIZE=2)

    def fn(q, k, v, bias):
        out, aux = EF.flex_attention(
            q, k, v, score_mod=lambda s, b, h, qi, kv: s + bias[h, qi, kv], block_mask=bm,
            enable_gqa=True, scale=0.8, return_aux=EF.AuxRequest(lse=True, max_scores=True))
        lse = aux.lse.masked_fill(aux.lse.isinf(), 0.)
        return out, lse
    assert ember.autograd.gradcheck(fn, (q, k, v, bias))
    out = fn(q, k, v, bias)[0]
    assert out.dtype is ember.float64
    # second order (create_graph): the backward is made of ember ops too
    q2, k2, v2 = (x.detach()[..., :4, :].requires_grad_() for x in (q, k, v))
    bm2 = EF.create_block_mask(causal, 1, 2, 4, 4, device='cpu', BLOCK_SIZE=2)
    assert ember.autograd.gradgradcheck(
        lambda q, k, v: EF.flex_attention(q, k, v, block_mask=bm2, enable_gqa=True,
                                          score_mod=lambda s, b, h, qi, kv: s * (h + 1)),
        (q2, k2, v2))


def test_max_scores_on_cpu():
    # NOTE: torch refuses max_scores on the CPU; compare with its reference computation
    q = _rand(1, 2, 8, 4, seed=18)
    bt = TF.create_block_mask(_holes, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4)
    be = EF.create_block_mask(_holes, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4)
    _, _, mt = _torch_math(q, q, q, lambda s, b, h, qi, kv: s, bt.as_tuple(), 0.5, {})
    _, aux = EF.flex_attention(E(q), E(q), E(q), block_mask=be, scale=0.5,
                               return_aux=EF.AuxRequest(max_scores=True))
    assert aux.lse is None
    assert_same(aux.max_scores, mt * math.log(2), rtol=1e-5, atol=1e-6)
    # lse of rows masked whole (a mask that is the same for every head)
    ot, lt = _run_public(torch, q, q, q, block_mask=bt, return_lse=True)
    oe, aux = EF.flex_attention(E(q), E(q), E(q), block_mask=be,
                                return_aux=EF.AuxRequest(lse=True))
    assert_same((oe, aux.lse), (ot, lt), rtol=1e-5, atol=1e-5)
    assert np.isneginf(to_np(aux.lse)[0, :, 2]).all()


def test_block_layout_batch_mismatch():
    # torch's uncompiled path never reads the layout, so it does not check it; ember
    # reads it and refuses a layout whose batch/head dims do not broadcast to the query's
    be = EF.create_block_mask(causal, 3, 1, 8, 8, device='cpu', BLOCK_SIZE=4)
    q = E(_rand(2, 2, 8, 4))
    with pytest.raises(ValueError, match='do not broadcast'):
        EF.flex_attention(q, q, q, block_mask=be)


def test_block_layout_is_honoured():
    # NOTE: torch's uncompiled path applies only mask_mod and ignores the block layout;
    # ember applies the layout as torch's compiled kernels do. Expected values: torch's
    # scaled_dot_product_attention with the element mask the layout stands for.
    num = torch.tensor([[[1, 1, 2]]], dtype=torch.int32)
    idx = torch.tensor([[[[0, 1, 2], [1, 0, 2], [0, 2, 1]]]], dtype=torch.int32)
    fnum = torch.tensor([[[0, 1, 0]]], dtype=torch.int32)
    fidx = torch.tensor([[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]], dtype=torch.int32)
    q = _rand(1, 2, 12, 4, seed=19)
    blocks = torch.zeros(3, 3, dtype=torch.bool)
    blocks[0, 0] = blocks[1, 1] = blocks[2, 0] = blocks[2, 2] = True          # partial
    full = torch.zeros(3, 3, dtype=torch.bool)
    full[1, 0] = True
    el = lambda m: m.repeat_interleave(4, 0).repeat_interleave(4, 1)         # noqa: E731
    qi, ki = torch.arange(12)[:, None], torch.arange(12)[None, :]
    for mm_t, mm_e, keep in [(None, None, el(blocks) | el(full)),
                             (causal, causal, (el(blocks) & (qi >= ki)) | el(full))]:
        be = EF.BlockMask.from_kv_blocks(E(num), E(idx), E(fnum), E(fidx), BLOCK_SIZE=4,
                                         mask_mod=mm_e)
        ref = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=keep)
        assert_same(EF.flex_attention(E(q), E(q), E(q), block_mask=be), ref,
                    rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------
# errors and warnings


def _errors(fn_t, fn_e, match):
    with pytest.raises(Exception) as et:
        _quiet_torch(fn_t)
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value).__name__ == type(et.value).__name__, (ee.value, et.value)
    assert match in str(et.value), et.value
    assert match in str(ee.value), ee.value


def test_errors():
    r = _rand
    bt = TF.create_block_mask(causal, 2, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
    be = EF.create_block_mask(causal, 2, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
    cases = [
        (((2, 8, 4),) * 3, {}, 'NYI: query, key, and value must be 4D'),
        (((4,),) * 3, {}, 'at least 2 dimensional'),
        (((1, 2, 8, 4), (1, 2, 8, 5), (1, 2, 8, 4)), {}, 'same embedding dimension'),
        (((1, 2, 8, 4), (1, 3, 8, 4), (1, 3, 8, 4)), {}, 'Try setting enable_gqa=True'),
        (((1, 4, 8, 4), (1, 3, 8, 4), (1, 3, 8, 4)), dict(enable_gqa=True),
         'multiple of kv heads'),
        (((2, 2, 8, 4), (1, 2, 8, 4), (1, 2, 8, 4)), {}, 'or non-none block_mask'),
        (((2, 2, 8, 4), (3, 2, 8, 4), (3, 2, 8, 4)), dict(block_mask=1),
         'Bq and Bkv must broadcast'),
        (((2, 2, 16, 4), (2, 2, 8, 4), (2, 2, 8, 4)), dict(block_mask=1),
         'created for a smaller length'),
        (((2, 2, 4, 4), (2, 2, 8, 4), (2, 2, 8, 4)), dict(block_mask=1),
         'created for a larger length'),
        (((2, 2, 8, 4),) * 3, dict(block_mask='sliced'), 'Cannot use mask_mod from a sliced'),
        (((2, 2, 8, 4),) * 3, dict(return_lse=True, return_aux='lse'),
         'Cannot specify both return_lse and return_aux'),
        (((2, 2, 8, 4),) * 3, dict(kernel_options={'BACKEND': 'X'}), 'Invalid BACKEND value'),
        (((2, 2, 8, 4),) * 3, dict(kernel_options={'BACKEND': 'AUTO',
                                                   'FORCE_USE_FLEX_ATTENTION': True}),
         'BACKEND cannot be combined'),
        (((2, 2, 8, 4),) * 3, dict(kernel_options={'OUTPUT_LOGSUMEXP': True}),
         'OUTPUT_LOGSUMEXP must not be in kernel_options'),
        (((2, 2, 8, 4), (2, 2, 0, 4), (2, 2, 0, 4)), {}, 'to have non-zero size'),
        (((2, 2, 8, 4),) * 3, dict(block_mask=1, score_mod='bad'),
         'Expected 4 or 5 positional args'),
    ]
    for shapes, kw, match in cases:
        kt, ke = dict(kw), dict(kw)
        if kw.get('block_mask') == 1:
            kt['block_mask'], ke['block_mask'] = bt, be
        if kw.get('block_mask') == 'sliced':
            kt['block_mask'], ke['block_mask'] = bt[0], be[0]
        if kw.get('return_aux') == 'lse':
            kt['return_aux'], ke['return_aux'] = TF.AuxRequest(lse=True), EF.AuxRequest(lse=True)
        if kw.get('score_mod') == 'bad':   # a mask_mod of the wrong arity in a block mask
            kt.pop('score_mod'), ke.pop('score_mod')
            _errors(lambda: TF.create_block_mask(lambda b, h: b, 1, 1, 8, 8, device='cpu'),
                    lambda: EF.create_block_mask(lambda b, h: b, 1, 1, 8, 8, device='cpu'),
                    match)
            continue
        ts = [r(*s) for s in shapes]
        _errors(lambda: TF.flex_attention(*ts, **kt),
                lambda: EF.flex_attention(*(E(t) for t in ts), **ke), match)
    meta = [ember.empty(2, 2, 8, 4, device='meta')] * 3
    _errors(lambda: TF.flex_attention(*[torch.empty(2, 2, 8, 4, device='meta')] * 3),
            lambda: EF.flex_attention(*meta), 'only supported on CUDA, CPU')
    _errors(lambda: TF.create_block_mask(lambda s, b, h, q, kv: s, 1, 1, 8, 8, device='cpu'),
            lambda: EF.create_block_mask(lambda s, b, h, q, kv: s, 1, 1, 8, 8, device='cpu'),
            'create-block_mask requires a mask_mod function')
    _errors(lambda: TF.and_masks(causal, 3), lambda: EF.and_masks(causal, 3),
            'All inputs should be callable mask_mods')
    _errors(lambda: TF.or_masks(1), lambda: EF.or_masks(1),
            'All inputs should be callable mask_mods')
    one = torch.ones(3, dtype=torch.int32)
    _errors(lambda: TF.BlockMask.from_kv_blocks(one, one), lambda: EF.BlockMask.from_kv_blocks(
        E(one), E(one)), 'at least 2 dimensions')
    n, i = torch.ones(1, 3, dtype=torch.int32), torch.zeros(1, 3, 3, dtype=torch.int32)
    _errors(lambda: TF.BlockMask.from_kv_blocks(n, i, n),
            lambda: EF.BlockMask.from_kv_blocks(E(n), E(i), E(n)), 'both provided or omitted')
    _errors(lambda: TF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', dq_kv_order=1),
            lambda: EF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', dq_kv_order=1),
            'dq_kv_order must be a bool')
    # a mask_mod that does not give bool
    _errors(lambda: TF.create_block_mask(lambda b, h, q, kv: (q >= kv).float(), 1, 1, 8, 8,
                                         device='cpu'),
            lambda: EF.create_block_mask(lambda b, h, q, kv: (q >= kv).float(), 1, 1, 8, 8,
                                         device='cpu'),
            'mask.dtype must be torch.bool, got torch.float32')
    bt = TF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4)
    be = EF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4)
    bt.mask_mod = be.mask_mod = lambda b, h, q, kv: (q >= kv).float()
    x = r(1, 1, 8, 4)
    _errors(lambda: TF.flex_attention(x, x, x, block_mask=bt),
            lambda: EF.flex_attention(E(x), E(x), E(x), block_mask=be),
            'where expected condition to be a boolean tensor')


def test_warnings():
    q = E(_rand(1, 1, 4, 2))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        EF.flex_attention(q, q, q)
    assert not w        # NOTE: no 'called without torch.compile' warning in ember
    EF._WARNINGS_SHOWN.discard('deprecated_return_lse')
    with pytest.warns(FutureWarning, match='return_aux=AuxRequest'):
        EF.flex_attention(q, q, q, return_lse=True)
    with warnings.catch_warnings(record=True) as w:     # once per process, as in torch
        warnings.simplefilter('always')
        EF.flex_attention(q, q, q, return_lse=True)
    assert not w
    with pytest.warns(DeprecationWarning, match='_compile flag on create_block_mask'):
        e = EF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4, _compile=True)
    _same_block_mask(e, TF.create_block_mask(causal, 1, 1, 8, 8, device='cpu', BLOCK_SIZE=4))


def test_namespace():
    assert sorted(EF.__all__) == sorted(TF.__all__)
    assert EF.AuxRequest() == (False, False) and EF.AuxRequest._fields == TF.AuxRequest._fields
    assert EF.AuxOutput._fields == TF.AuxOutput._fields
    assert set(EF.FlexKernelOptions.__annotations__) == set(TF.FlexKernelOptions.__annotations__)
    import ember.nn.attention as A
    assert A.flex_attention is EF
