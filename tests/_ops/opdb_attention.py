"""Op-database entries of the attention family (ember/_ops/attention.py):
``F.scaled_dot_product_attention`` (masks, causal, scale, grouped-query attention, dropout,
errors). ``multi_head_attention_forward`` is tested through ``nn.MultiheadAttention`` in
tests/nn/test_multihead.py."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, INF

OPS = []


def _sdpa(m, q, k, v, *a, **kw):
    return m.nn.functional.scaled_dot_product_attention(q, k, v, *a, **kw)


def _sdpa_seeded(m, q, k, v, *a, **kw):
    m.manual_seed(7)
    return m.nn.functional.scaled_dot_product_attention(q, k, v, *a, **kw)


def _qkv(mk, q, k, v):
    return mk(q), mk(k), mk(v)


def _samples(mk):
    # plain, batched 4-D / 3-D / 2-D / 5-D, broadcast batch dims
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)))
    yield S(*_qkv(mk, (2, 3, 5), (2, 4, 5), (2, 4, 3)))
    yield S(*_qkv(mk, (3, 4), (2, 4), (2, 2)))
    yield S(*_qkv(mk, (1, 2, 2, 3, 4), (1, 2, 2, 5, 4), (1, 2, 2, 5, 4)), gc=False)
    yield S(*_qkv(mk, (3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), gc=False)
    yield S(*_qkv(mk, (2, 3, 4, 5), (1, 3, 6, 5), (2, 1, 6, 7)), gc=False)
    # non-contiguous inputs
    yield S(*_qkv(mk, (2, 5, 4), (2, 5, 6), (2, 3, 6)), pre='t', gc=False)
    # empties
    yield S(*_qkv(mk, (2, 0, 5), (2, 4, 5), (2, 4, 3)))
    yield S(*_qkv(mk, (2, 3, 5), (2, 0, 5), (2, 0, 3)))
    # scale
    for sc in (0.7, -0.4, 0.0, 2):
        yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), scale=sc, gc=sc == 0.7)
    # is_causal (top-left aligned): L < S, L > S, square
    for L, Sl in ((3, 5), (5, 3), (4, 4)):
        yield S(*_qkv(mk, (2, 2, L, 3), (2, 2, Sl, 3), (2, 2, Sl, 3)), is_causal=True,
                gc=L == 3)
    yield S(*_qkv(mk, (4, 3), (4, 3), (4, 2)), is_causal=True, scale=0.5)
    # boolean masks (True = take part), broadcast shapes, fully masked rows -> zeros
    bm = mk((4, 6), dtype='bool')
    bm[1] = False
    bm[2] = True
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), attn_mask=bm, gc=False)
    bm2 = mk((2, 1, 4, 6), dtype='bool')
    bm2[0, 0, 3] = False
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), attn_mask=bm2, gc=False)
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)),
            attn_mask=mk((6,), dtype='bool'), gc=False)
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), attn_mask=mk(()))
    yield S(*_qkv(mk, (2, 4, 5), (2, 6, 5), (2, 6, 7)), attn_mask=mk((6,)), gc=False)
    yield S(*_qkv(mk, (2, 4, 5), (2, 6, 5), (2, 6, 7)), attn_mask=mk((), dtype='bool'))
    yield S(*_qkv(mk, (3, 2), (4, 2), (4, 2)), attn_mask=np.ones((3, 4), bool))
    # float masks (added; they get gradients too)
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), attn_mask=mk((4, 6)))
    yield S(*_qkv(mk, (2, 3, 2), (2, 3, 2), (2, 3, 2)), attn_mask=mk((2, 1, 3)))
    fm = mk((2, 1, 4, 6))
    if mk.is_float:
        fm[0, 0, 1] = -INF
        fm[1, 0, 2, :3] = -INF
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), attn_mask=fm, gc=False,
            desc='float mask with -inf rows')
    # small ones for float64 gradcheck: float mask, negative scale, causal with L < S
    yield S(*_qkv(mk, (1, 2, 2), (1, 3, 2), (1, 3, 2)), attn_mask=mk((2, 3)))
    yield S(*_qkv(mk, (2, 2), (3, 2), (3, 1)), scale=-0.6)
    yield S(*_qkv(mk, (1, 2, 2), (1, 4, 2), (1, 4, 2)), is_causal=True)
    # grouped-query attention
    yield S(*_qkv(mk, (2, 4, 3, 5), (2, 2, 6, 5), (2, 1, 6, 7)), enable_gqa=True, gc=False)
    yield S(*_qkv(mk, (1, 2, 3, 2), (1, 1, 4, 2), (1, 1, 4, 2)), enable_gqa=True)
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), enable_gqa=True, gc=False)
    yield S(*_qkv(mk, (2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 7)), enable_gqa=True,
            is_causal=True, gc=False)
    # errors
    yield S(mk((2, 3, 4)), mk((2, 5, 4), dtype=F64 if mk.dtype != F64 else F32),
            mk((2, 5, 3)), desc='dtype mismatch')
    yield S(*_qkv(mk, (4,), (4,), (4,)))
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), attn_mask=mk((3, 5), dtype=I64))
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)),
            attn_mask=mk((3, 5), dtype=F64), desc='float64 mask')
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), attn_mask=mk((3, 5), dtype=F32),
            desc='float32 mask')
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), attn_mask=mk((3, 5), dtype='float16'),
            grad=False)
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), attn_mask=mk((3, 5), dtype='bool'),
            is_causal=True)
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), attn_mask=mk((4, 5), dtype='bool'))
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)),
            attn_mask=mk((1, 1, 2, 3, 5), dtype='bool'))
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 3), (2, 5, 3)))
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 4, 3)))
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 2, 6, 5), (2, 2, 6, 7)))
    yield S(*_qkv(mk, (2, 3, 4, 5), (2, 2, 6, 5), (2, 2, 6, 7)), enable_gqa=True)
    yield S(*_qkv(mk, (4, 5), (6, 5), (6, 7)), enable_gqa=True)
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), dropout_p=1.5)
    yield S(*_qkv(mk, (2, 3, 4), (2, 5, 4), (2, 5, 3)), dropout_p=-0.5, desc='p < 0: no dropout')


def _fused_samples(mk):
    """4-D inputs of equal head dims, where PyTorch's CPU dispatcher takes its fused kernel
    (ScaledDotProductFlashAttentionForCpuBackward0)."""
    sh = ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5))
    yield S(*_qkv(mk, *sh), gc=False)
    yield S(*_qkv(mk, (1, 2, 2, 2), (1, 2, 3, 2), (1, 2, 3, 2)))
    yield S(*_qkv(mk, *sh), scale=-0.7, gc=False)
    yield S(*_qkv(mk, (2, 3, 6, 5), (2, 3, 4, 5), (2, 3, 4, 5)), is_causal=True, gc=False)
    yield S(*_qkv(mk, (1, 1, 3, 2), (1, 1, 4, 2), (1, 1, 4, 2)), is_causal=True, scale=0.4)
    bm = mk((4, 6), dtype='bool')
    bm[1] = False
    bm[:, 0] |= np.arange(4) != 1
    yield S(*_qkv(mk, *sh), attn_mask=bm, gc=False, desc='bool mask with a dead row')
    bm4 = mk((2, 1, 4, 6), dtype='bool')
    bm4[1, 0, 2] = False
    yield S(*_qkv(mk, *sh), attn_mask=bm4, gc=False)
    yield S(*_qkv(mk, *sh), attn_mask=mk((2, 3, 1, 1), dtype='bool'), gc=False)
    bs = np.array([[True, False, True], [False, False, False]])
    yield S(*_qkv(mk, (1, 2, 2, 2), (1, 2, 3, 2), (1, 2, 3, 2)), attn_mask=bs)
    # grouped-query attention in the fused kernel
    yield S(*_qkv(mk, (2, 4, 3, 5), (2, 2, 6, 5), (2, 1, 6, 5)), enable_gqa=True, gc=False)
    yield S(*_qkv(mk, (1, 2, 2, 2), (1, 1, 3, 2), (1, 1, 3, 2)), enable_gqa=True)
    yield S(*_qkv(mk, (2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5)), enable_gqa=True,
            attn_mask=mk((3, 6), dtype='bool'), gc=False)
    # non-contiguous (but unit last stride) inputs
    q = mk((2, 4, 3, 5)).transpose(0, 2, 1, 3)
    yield S(q, mk((2, 3, 6, 5)), mk((2, 3, 6, 5)), gc=False)
    # negative dropout: PyTorch's fused kernel refuses it
    yield S(*_qkv(mk, *sh), dropout_p=-0.5)


def _sdpa_const_mask(m, q, k, v, mask, **kw):
    # the mask travels as a nested list: a constant (no grad) of the query's dtype
    mask = m.tensor(mask, dtype=q.dtype)
    return m.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)


def _const_mask_samples(mk):
    """Float masks that do not require grad (the fused kernel takes them; a mask requiring
    grad goes to the reference computation)."""
    sh = ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5))
    yield S(*_qkv(mk, *sh), mk((4, 6)).tolist(), gc=False)
    fm = mk((2, 1, 4, 6))
    fm[0, 0, 1] = -INF
    fm[1, 0, 2, :3] = -INF
    yield S(*_qkv(mk, *sh), fm.tolist(), gc=False, desc='float mask with -inf rows')
    yield S(*_qkv(mk, (1, 1, 2, 2), (1, 1, 3, 2), (1, 1, 3, 2)), mk((2, 3)).tolist(),
            desc='small float mask')
    fm = mk((2, 3))
    fm[1] = -INF
    yield S(*_qkv(mk, (1, 2, 2, 2), (1, 2, 3, 2), (1, 2, 3, 2)), fm.tolist(),
            desc='small float mask, dead row')
    yield S(*_qkv(mk, (2, 3, 4), (2, 6, 4), (2, 6, 4)), mk((3, 6)).tolist(), gc=False)
    yield S(*_qkv(mk, *sh), mk((3, 4, 6)).tolist(), gc=False)
    yield S(*_qkv(mk, *sh), mk((4, 5)).tolist(), desc='bad mask shape')


def _dropout_samples(mk):
    for p in (0.3, 0.9, 1.0):
        yield S(*_qkv(mk, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), dropout_p=p, gc=False)
    yield S(*_qkv(mk, (1, 3, 2), (1, 4, 2), (1, 4, 2)), dropout_p=0.4)
    yield S(*_qkv(mk, (2, 4, 3), (2, 5, 3), (2, 5, 3)), dropout_p=0.5, is_causal=True,
            gc=False)
    bm = mk((4, 5), dtype='bool')
    bm[0] = False
    yield S(*_qkv(mk, (2, 4, 3), (2, 5, 3), (2, 5, 3)), dropout_p=0.5, attn_mask=bm, gc=False)
    yield S(*_qkv(mk, (2, 0, 3), (2, 5, 3), (2, 5, 3)), dropout_p=0.5, gc=False)


OPS += [
    OpInfo('F.scaled_dot_product_attention', _sdpa, _samples, dtypes=(F32, F64), gc_max=7),
    OpInfo('F.scaled_dot_product_attention:fused', _sdpa, _fused_samples, gc_max=4),
    OpInfo('F.scaled_dot_product_attention:const_mask', _sdpa_const_mask, _const_mask_samples,
           gc_max=2),
    OpInfo('F.scaled_dot_product_attention:dropout', _sdpa_seeded, _dropout_samples,
           dtypes=(F32, F64), gc_max=1),
]
