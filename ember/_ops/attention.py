"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

Both are composed of ember ops (matmul, softmax, dropout, linear, ...), in the order
PyTorch's reference ("math") implementation takes on the CPU, so gradients, double
backward and the dropout random stream come for free and match PyTorch's.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import math
import warnings

from .._tensor import Tensor, _Mode, _new_tensor as wrap
from .._backend import array_module
from . import _args
from ._linalg_common import _C_NAME, _ST_NAME
from ._util import Node, check_broadcast, record

__all__ = ['scaled_dot_product_attention', 'multi_head_attention_forward']

def _cname(dt):
    """How PyTorch's C++ messages name a dtype (``float``, ``double``, ``long int``)."""
    n = dt._name
    return _C_NAME.get(n, n)


def _dropout(x, p):
    """``F.dropout(x, p, training=True)``: PyTorch's CPU dropout stream."""
    from .dropout import dropout
    return dropout(x, p, True)


def _float_mask(mask, dtype, masked):
    """A float mask of ``dtype`` from a boolean one: -inf where ``mask == masked``, 0
    elsewhere (a fresh tensor, outside autograd)."""
    m = mask._data
    out = array_module(m).zeros(m.shape, dtype._np)
    out[m if masked else ~m] = -math.inf
    return wrap(out)


def _causal_mask(L, S, like):
    """``(L, S)`` float mask of ``like``'s dtype: -inf above the diagonal (top-left
    aligned, as PyTorch's ``ones(L, S).tril()``)."""
    a = like._data
    xp = array_module(a)
    out = xp.zeros((L, S), a.dtype)
    if L and S:
        out[xp.triu(xp.ones((L, S), dtype=bool), 1)] = -math.inf
    return wrap(out)


def _safe_softmax(scores):
    """Softmax over the last dim where a row that is entirely ``-inf`` (nothing may be
    attended to) gives zeros rather than NaN, as PyTorch's ``_safe_softmax``; the gradient
    through such rows is zero."""
    a = scores._data
    rows = (a == -math.inf).all(-1, keepdims=True)
    if not rows.any():
        return scores.softmax(-1)
    rows = wrap(rows)
    return scores.masked_fill(rows, 0.).softmax(-1).masked_fill(rows, 0.)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    r"""Scaled dot-product attention:
    ``softmax(query @ key.mT * scale + mask) @ value``, with optional dropout on the
    attention weights.

    Args:
        query (Tensor): ``(N, ..., Hq, L, E)``.
        key (Tensor): ``(N, ..., H, S, E)``.
        value (Tensor): ``(N, ..., H, S, Ev)``.
        attn_mask (Tensor, optional): broadcastable to ``(N, ..., Hq, L, S)``. A boolean
            mask says which elements take part (``True``) in the attention; a float mask (of
            the query's dtype) is added to the scores. Default: None.
        dropout_p (float): dropout probability on the attention weights (applied whenever
            > 0: pass 0 in evaluation). Default: 0.
        is_causal (bool): apply a causal mask (lower triangular, top-left aligned); an
            explicit ``attn_mask`` must not be given with it. Default: False.
        scale (float, optional): scale of the scores; default ``1 / sqrt(E)``.
        enable_gqa (bool): grouped-query attention: ``key``/``value`` heads (dim -3) are
            repeated to the query's number of heads, which they must divide.
            Default: False.

    Returns:
        Tensor: ``(N, ..., Hq, L, Ev)``.

    NOTE: like PyTorch's reference implementation, query and key are each scaled by
    ``sqrt(scale)`` before the product, and rows where every score is ``-inf`` give zeros.
    NOTE: unlike PyTorch, integer inputs are refused (PyTorch computes some of them in
    integer arithmetic and refuses others).

    Example::

        >>> q = k = v = ember.ones(2, 3, 4, 8)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        torch.Size([2, 3, 4, 8])
    """
    name = 'scaled_dot_product_attention'
    for i, (arg, t) in enumerate((('query', query), ('key', key), ('value', value))):
        if not isinstance(t, Tensor):
            _args.tensor(t, name, arg, i + 1)
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(f"{name}(): argument 'attn_mask' must be Tensor, not "
                        f"{_args.type_name(attn_mask)}")
    qd, kd, vd = query.dtype, key.dtype, value.dtype
    if not (qd == kd == vd):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cname(qd)} key.dtype: {_cname(kd)} and value.dtype: {_cname(vd)} instead.")
    if not (query.device == key.device == value.device):
        raise RuntimeError(
            f"Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device} key.device: {key.device} and value.device: "
            f"{value.device} instead.")
    nq, nk, nv = query.dim(), key.dim(), value.dim()
    if nq < 2 or nk < 2 or nv < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {nq} key.dim: {nk} and value.dim: {nv} instead.")
    if attn_mask is not None:
        md = attn_mask.dtype
        if str(md) not in ('torch.bool', 'torch.float32') and md != qd:
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_cname(md)} and  query.dtype: {_cname(qd)} instead.")
        if attn_mask.device != query.device:
            raise RuntimeError(
                f"Expected attn_mask device to match query device, but got attn_mask.device: "
                f"{attn_mask.device} and query.device: {query.device} instead.")
        if attn_mask.dim() < 2 and nq == nk == nv == 4 and not attn_mask.requires_grad:
            # PyTorch's fused-kernel selection reads size(-2) of such a mask
            raise IndexError("Dimension specified as -2 but tensor has no dimensions"
                             if attn_mask.dim() == 0 else "Dimension out of range (expected "
                             "to be in range of [-1, 0], but got -2)")
    if not qd.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found "
                           f"{_ST_NAME.get(qd._name, qd._name)}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                           f"{float(dropout_p)}")
    rk = rv = 1
    if enable_gqa:
        for t in (query, key, value):
            if t.dim() < 3:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[-{t.dim()}, {t.dim() - 1}], but got -3)")
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in query")
        rk, rv = hq // hk, hq // hv
    if _flash_eligible(query, key, value, attn_mask, rk, rv):
        if dropout_p < 0:
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not "
                               "support dropout > 0")
        if dropout_p == 0 and query._data.dtype.kind == 'f' and query._data.dtype.itemsize >= 4:
            return _sdpa_fused(query, key, value, attn_mask, is_causal, scale, rk, rv)
    if rk != 1:
        key = key.repeat_interleave(rk, -3)
    if rv != 1:
        value = value.repeat_interleave(rv, -3)

    L, S = query.shape[-2], key.shape[-2]
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    f = math.sqrt(abs(s))
    q = query * (-f if s < 0 else f)
    scores = q.matmul(key.transpose(-2, -1) * f)
    if is_causal:
        attn_mask = _causal_mask(L, S, scores)
    elif attn_mask is not None:
        if str(attn_mask.dtype) == 'torch.bool':
            attn_mask = _float_mask(attn_mask, qd, False)   # True: takes part
        _check_mask_shape(tuple(scores.shape), tuple(attn_mask.shape))
    if attn_mask is not None:
        scores = scores + attn_mask
        attn = _safe_softmax(scores)
    else:
        attn = scores.softmax(-1)
    if dropout_p > 0:
        attn = _dropout(attn, dropout_p)
    return attn.matmul(value)


def _check_mask_shape(ss, ms):
    """The mask (shape ``ms``) must broadcast to the scores (shape ``ss``) without growing
    them (PyTorch adds it in place)."""
    if ms == ss:
        return
    check_broadcast(ss, ms)
    if len(ms) > len(ss) or any(m != 1 and m != d for m, d in zip(ms[::-1], ss[::-1])):
        n = max(len(ss), len(ms))
        b = [max(x, y) for x, y in zip((1,) * (n - len(ss)) + ss, (1,) * (n - len(ms)) + ms)]
        raise RuntimeError(f"output with shape [{', '.join(map(str, ss))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, b))}]")


# ----------------------------------------------------------------------------- fused kernel
def _flash_eligible(q, k, v, mask, rk, rv):
    """Whether PyTorch's CPU dispatcher picks its fused ("flash") kernel: 4-D inputs of equal
    batch, heads (up to grouped-query repetition) and head dims, no empty sizes, unit last
    stride, and a 2-D or 4-D mask that does not require grad (dropout is checked by the
    caller)."""
    qs, ks, vs = q.shape, k.shape, v.shape
    if len(qs) != 4 or len(ks) != 4 or len(vs) != 4:
        return False
    B, H, L, E = qs
    if ks[0] != B or vs[0] != B or ks[1] * rk != H or vs[1] * rv != H:
        return False
    if ks[3] != E or vs[3] != E or ks[2] != vs[2] or not (B and H and L and ks[2] and E):
        return False
    if mask is not None and (mask.requires_grad or mask.dim() not in (2, 4)):
        return False
    return q.stride(-1) == 1 and k.stride(-1) == 1 and v.stride(-1) == 1


def _repeat_heads(a, r, xp):
    """Array ``(B, Hk, S, E)`` with each head repeated ``r`` times: ``(B, Hk * r, S, E)``."""
    if r == 1:
        return a
    B, h, S, E = a.shape
    return xp.broadcast_to(a[:, :, None], (B, h, r, S, E)).reshape(B, h * r, S, E)


def _sum_heads(a, r):
    """Gradient ``(B, Hk * r, S, E)`` summed back over the repeated heads."""
    if r == 1:
        return a
    B, H, S, E = a.shape
    return a.reshape(B, H // r, r, S, E).sum(2)


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """Backward of the fused attention kernel: with ``P`` the attention weights and ``O`` the
    output, ``dV = P^T g``, ``dS = P * (g V^T - rowsum(g * O))``, ``dQ = scale dS K``,
    ``dK = scale dS^T Q``. Under ``create_graph`` the weights are recomputed from the
    saved inputs in ember ops, so the gradient is itself differentiable."""
    _saved_names = ('query', 'key', 'value', 'attn_mask', 'output')

    def backward(self, g):
        q, k, v, mask, out = self.saved_tensors
        rk, rv, sc = self.rk, self.rv, self.sc
        if _Mode.grad:
            return self._backward_graph(g, q, k, v, mask, sc)
        ga = g._data
        xp = array_module(ga)
        p = self.p
        need = self.needs
        dq = dk = dv = None
        if need[2]:
            dv = wrap(_sum_heads(xp.matmul(p.swapaxes(-1, -2), ga), rv))
        if need[0] or need[1]:
            va = _repeat_heads(v._data, rv, xp)
            ds = xp.matmul(ga, va.swapaxes(-1, -2))
            ds -= (ga * out._data).sum(-1, keepdims=True)
            ds *= p
            if need[0]:
                dq = xp.matmul(ds, _repeat_heads(k._data, rk, xp))
                dq *= sc
                dq = wrap(dq)
            if need[1]:
                dk = _sum_heads(xp.matmul(ds.swapaxes(-1, -2), q._data), rk)
                dk *= sc
                dk = wrap(dk)
        return dq, dk, dv

    def _backward_graph(self, g, q, k, v, mask, sc):
        rk, rv = self.rk, self.rv
        ke = k.repeat_interleave(rk, -3) if rk != 1 else k
        ve = v.repeat_interleave(rv, -3) if rv != 1 else v
        scores = q.matmul(ke.transpose(-2, -1)) * sc
        if mask is not None:
            scores = scores + mask
        p = _safe_softmax(scores) if mask is not None else scores.softmax(-1)
        dv = p.transpose(-2, -1).matmul(g)
        dp = g.matmul(ve.transpose(-2, -1))
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = ds.matmul(ke) * sc
        dk = ds.transpose(-2, -1).matmul(q) * sc
        if rk != 1:
            dk = dk.unflatten(-3, (dk.shape[-3] // rk, rk)).sum(-3)
        if rv != 1:
            dv = dv.unflatten(-3, (dv.shape[-3] // rv, rv)).sum(-3)
        return dq, dk, dv


def _sdpa_fused(query, key, value, attn_mask, is_causal, scale, rk, rv):
    """Attention of 4-D inputs in one pass over arrays (PyTorch's fused CPU kernel's
    choice): ``softmax(Q K^T * scale + mask) V`` with fully masked rows giving zeros."""
    qa = query._data
    xp = array_module(qa)
    dt = qa.dtype
    L, S, E = qa.shape[2], key.shape[2], qa.shape[3]
    sc = 1.0 / math.sqrt(E) if scale is None else float(scale)
    ka = _repeat_heads(key._data, rk, xp)
    va = _repeat_heads(value._data, rv, xp)
    p = xp.matmul(qa, ka.swapaxes(-1, -2))
    p *= dt.type(sc)
    fmask = None
    if is_causal:
        fmask = _causal_mask(L, S, query)
    elif attn_mask is not None:
        fmask = _float_mask(attn_mask, query.dtype, False) \
            if str(attn_mask.dtype) == 'torch.bool' else attn_mask
        _check_mask_shape(tuple(p.shape), tuple(fmask.shape))
    if fmask is not None:
        p += fmask._data
        m = p.max(-1, keepdims=True)
        dead = m == -math.inf            # every key masked: zeros, as PyTorch
        if dead.any():
            m[dead] = 0
        else:
            dead = None
    else:
        m, dead = p.max(-1, keepdims=True), None
    p -= m
    xp.exp(p, out=p)
    den = p.sum(-1, keepdims=True)
    if dead is not None:
        den[dead] = 1
    p /= den
    out = wrap(xp.matmul(p, va))
    if _Mode.grad and (query._rg or key._rg or value._rg):
        node = ScaledDotProductFlashAttentionForCpuBackward0()
        node.p, node.sc, node.rk, node.rv = p, sc, rk, rv
        node.scale, node.dropout_p, node.is_causal = scale, 0.0, bool(is_causal)
        record(out, node, (query, key, value), save=(query, key, value, fmask, out))
    return out


# ----------------------------------------------------------------------------- multi-head
def _mha_is_batched(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Checks the ranks of the inputs of multi-head attention as PyTorch does; True for a
    batched (3-D) query, False for an unbatched (2-D) one."""
    qd = query.dim()
    if qd == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 f"respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 f"instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if qd == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 f"respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 f"instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     f"instead")
            if attn_mask.dim() == 3:
                want = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != want:
                    raise AssertionError(f"Expected `attn_mask` shape to be {want} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                         f"{qd}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask (True = masked out) as a float mask of ``target_type`` (-inf where
    True, 0 elsewhere); float masks pass unchanged. Warns, as PyTorch does, when the mask's
    type differs from ``other_type``."""
    if mask is None:
        return None
    md = mask.dtype
    is_bool = str(md) == 'torch.bool'
    if not is_bool and not md.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and md != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", UserWarning, stacklevel=3)
    return _float_mask(mask, target_type, True) if is_bool else mask


def _none_or_dtype(t):
    if t is None:
        return None
    if isinstance(t, Tensor):
        return t.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection_packed(q, k, v, w, b):
    """q, k, v projected with the packed ``(3E, E)`` weight: one product for
    self-attention, two (q; k and v together) for encoder-decoder attention."""
    from .linear import linear
    E = q.shape[-1]
    if k is v:
        if q is k:
            p = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2) \
                .squeeze(-2).contiguous()
            return p[0], p[1], p[2]
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2) \
            .squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    """q, k, v projected with separate weights (key/value dims may differ)."""
    from .linear import linear
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for nm, w, want in (('query', w_q, (Eq, Eq)), ('key', w_k, (Eq, Ek)),
                        ('value', w_v, (Eq, Ev))):
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {nm} weights shape of {want}, but got {w.shape}")
    for nm, bb in (('query', b_q), ('key', b_k), ('value', b_v)):
        if bb is not None and tuple(bb.shape) != (Eq,):
            raise AssertionError(f"expecting {nm} bias shape of {(Eq,)}, but got {bb.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _pad_last(t):
    """``t`` with one zero column appended on the last dim."""
    from .padding import pad
    return pad(t, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    r"""The computation of :class:`~ember.nn.MultiheadAttention`: project query, key and
    value, attend with ``num_heads`` heads, project the result.

    Args:
        query, key, value (Tensor): ``(L, N, E)``, ``(S, N, Ek)``, ``(S, N, Ev)``, or
            unbatched ``(L, E)``, ``(S, Ek)``, ``(S, Ev)``.
        embed_dim_to_check (int): the expected ``E``.
        num_heads (int): number of heads (must divide ``E``).
        in_proj_weight, in_proj_bias (Tensor): packed ``(3E, E)`` input projection and its
            ``(3E)`` bias (None without bias).
        bias_k, bias_v (Tensor): ``(1, 1, E)`` biases appended to the key and value sequences.
        add_zero_attn (bool): append a batch of zeros to the key and value sequences.
        dropout_p (float): dropout on the attention weights (in training).
        out_proj_weight, out_proj_bias (Tensor): output projection.
        training (bool): apply dropout. Default: True.
        key_padding_mask (Tensor, optional): ``(N, S)`` (or ``(S)``); True (or -inf) marks
            keys to ignore; a float mask is added.
        need_weights (bool): also return the attention weights. Default: True.
        attn_mask (Tensor, optional): ``(L, S)`` or ``(N * num_heads, L, S)``; True marks
            positions that may not be attended to; a float mask is added.
        use_separate_proj_weight (bool): use ``q_proj_weight``, ``k_proj_weight``,
            ``v_proj_weight`` instead of ``in_proj_weight``.
        q_proj_weight, k_proj_weight, v_proj_weight (Tensor): separate projections.
        static_k, static_v (Tensor): ``(N * num_heads, S, E / num_heads)`` key/value used as
            they are (no projection).
        average_attn_weights (bool): average the returned weights over heads.
            Default: True.
        is_causal (bool): hint that ``attn_mask`` is the causal mask. Default: False.

    Returns:
        (Tensor, Tensor or None): the output ``(L, N, E)`` (or ``(L, E)``) and the weights
        ``(N, L, S)`` (``(N, num_heads, L, S)`` without averaging), or None.

    Example::

        >>> E, H = 8, 2
        >>> x = ember.randn(5, 3, E)
        >>> w, b, ow = ember.randn(3 * E, E), ember.zeros(3 * E), ember.randn(E, E)
        >>> out, wts = F.multi_head_attention_forward(x, x, x, E, H, w, b, None, None,
        ...                                           False, 0., ow, None)
        >>> out.shape, wts.shape
        (torch.Size([5, 3, 8]), torch.Size([3, 5, 5]))
    """
    from .linear import linear
    is_batched = _mha_is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, 'key_padding_mask',
                                       _none_or_dtype(attn_mask), 'attn_mask', query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, 'attn_mask', None, '', query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for nm, w in (('q', q_proj_weight), ('k', k_proj_weight), ('v', v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {nm}_proj_weight "
                                     f"is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        nd = attn_mask.dim()
        if nd == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif nd == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {want}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {nd} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        from .shape import cat
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    bh = bsz * num_heads
    q = q.view(tgt_len, bh, head_dim).transpose(0, 1)
    for nm, st in (('k', static_k), ('v', static_v)):
        if st is not None:
            if st.size(0) != bh:
                raise AssertionError(f"expecting static_{nm}.size(0) of {bh}, but got "
                                     f"{st.size(0)}")
            if st.size(2) != head_dim:
                raise AssertionError(f"expecting static_{nm}.size(2) of {head_dim}, but got "
                                     f"{st.size(2)}")
    k = k.view(k.shape[0], bh, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.view(v.shape[0], bh, head_dim).transpose(0, 1) if static_v is None else static_v

    if add_zero_attn:
        from .shape import cat
        from .creation import zeros
        k = cat([k, zeros((bh, 1, head_dim), dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros((bh, 1, head_dim), dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.size(1)
    if key_padding_mask is not None:
        ks = tuple(key_padding_mask.shape)
        if ks[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{ks[0]}")
        if ks[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{ks[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len) \
            .expand(-1, num_heads, -1, -1).reshape(bh, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        kt = k.transpose(-2, -1)
        if attn_mask is not None:
            w = _baddbmm(attn_mask, q_scaled, kt)
        else:
            w = q_scaled.bmm(kt)
        w = w.softmax(-1)
        if dropout_p > 0.0:
            w = _dropout(w, dropout_p)
        out = w.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        w = w.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(dim=1)
        if not is_batched:
            out, w = out.squeeze(1), w.squeeze(0)
        return out, w

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _baddbmm(mask, a, b):
    """``mask + a @ b`` for a mask that broadcasts to the batch of products."""
    from .products import baddbmm
    return baddbmm(mask, a, b)
