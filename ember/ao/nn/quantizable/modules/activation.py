"""Quantizable MultiheadAttention: the projections as separate linear layers, the scaling
as a ``FloatFunctional``, stubs around the float attention core."""
import warnings

import ember
from ember import nn as _nn
from ember.nn import functional as F

__all__ = ['MultiheadAttention']


class MultiheadAttention(_nn.MultiheadAttention):
    r"""A quantizable multi-head attention
    (``torch.ao.nn.quantizable.MultiheadAttention``): ``linear_Q``, ``linear_K``,
    ``linear_V`` and ``out_proj`` linear layers, ``q_scaling_product`` (the query scaling),
    dequantize stubs before the float attention core (``bmm``, softmax) and quantize stubs
    after it; what ``prepare`` swaps in for ``nn.MultiheadAttention``.

    Args:
        embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn, kdim, vdim,
        batch_first, device, dtype: as :class:`ember.nn.MultiheadAttention`.

    Shape:
        - as :class:`ember.nn.MultiheadAttention` (no ``is_causal``).

    Example::

        >>> m = ember.ao.nn.quantizable.MultiheadAttention(4, 2)
        >>> x = ember.randn(3, 1, 4)
        >>> m(x, x, x)[0].shape
        torch.Size([3, 1, 4])
    """
    _FLOAT_MODULE = _nn.MultiheadAttention

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        from ember.ao.nn.quantized.modules.functional_modules import FloatFunctional
        from ember.ao.quantization.stubs import QuantStub, DeQuantStub
        kw = {'device': device, 'dtype': dtype}
        super().__init__(embed_dim, num_heads, dropout, bias, add_bias_kv, add_zero_attn,
                         kdim, vdim, batch_first, **kw)
        self.linear_Q = _nn.Linear(self.embed_dim, self.embed_dim, bias=bias, **kw)
        self.linear_K = _nn.Linear(self.kdim, self.embed_dim, bias=bias, **kw)
        self.linear_V = _nn.Linear(self.vdim, self.embed_dim, bias=bias, **kw)
        self.out_proj = _nn.Linear(self.embed_dim, self.embed_dim, bias=bias, **kw)
        self.q_scaling_product = FloatFunctional()
        self.quant_attn_output = QuantStub()
        self.quant_attn_output_weights = QuantStub()
        self.dequant_q = DeQuantStub()
        self.dequant_k = DeQuantStub()
        self.dequant_v = DeQuantStub()

    def _get_name(self):
        return 'QuantizableMultiheadAttention'

    @classmethod
    def from_float(cls, other):
        """The observed quantizable attention of a float ``nn.MultiheadAttention`` with a
        ``qconfig`` (projection weights split from ``in_proj_weight``), prepared."""
        if type(other) is not cls._FLOAT_MODULE:
            raise AssertionError(f"Expected type {cls._FLOAT_MODULE}, got {type(other)}")
        if not hasattr(other, 'qconfig'):
            raise AssertionError("The float module must have 'qconfig'")
        observed = cls(other.embed_dim, other.num_heads, other.dropout,
                       other.in_proj_bias is not None, other.bias_k is not None,
                       other.add_zero_attn, other.kdim, other.vdim, other.batch_first)
        observed.bias_k = other.bias_k
        observed.bias_v = other.bias_v
        observed.qconfig = other.qconfig
        observed.out_proj.weight = other.out_proj.weight
        observed.out_proj.bias = other.out_proj.bias
        P, E = _nn.Parameter, other.embed_dim
        b = other.in_proj_bias
        parts = ((observed.linear_Q, 0, E), (observed.linear_K, E, 2 * E),
                 (observed.linear_V, 2 * E, None))
        for (lin, lo, hi), w in zip(parts, (other.q_proj_weight, other.k_proj_weight,
                                            other.v_proj_weight)):
            if other._qkv_same_embed_dim:
                w = other.in_proj_weight[lo:hi, :]
                lin.weight = P(w, w.requires_grad)
            else:
                lin.weight = P(w)
            lin.bias = None if b is None else P(b[lo:hi], b.requires_grad)
        observed.eval()
        from ember.ao import quantization as Q
        return Q.prepare(observed, inplace=True)

    @classmethod
    def from_observed(cls, other):
        """Refused: an observed attention converts to ``nn.quantized.MultiheadAttention``."""
        raise NotImplementedError("It looks like you are trying to prepare an MHA module. "
                                  "Please, see the examples on quantizable MHAs.")

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attention of ``query`` over ``key``/``value``; returns ``(output, weights)``
        (weights ``None`` unless ``need_weights``)."""
        if attn_mask is not None and is_causal:
            raise AssertionError("Only allow causal mask or attn_mask")
        if is_causal:
            raise AssertionError("causal mask not supported by AO MHA module")
        if self.batch_first:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        tgt_len, bsz, embed = query.size()
        if self.embed_dim != embed:
            raise AssertionError(f"embed_dim mismatch: {self.embed_dim} != {embed}")
        if key.size(0) != value.size(0) or key.size(1) != value.size(1):
            raise AssertionError(f"key and value size mismatch: key.size()={key.size()}, "
                                 f"value.size()={value.size()}")
        H = self.num_heads
        head_dim = self.embed_dim // H
        if head_dim * H != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        q = self.q_scaling_product.mul_scalar(self.linear_Q(query), float(head_dim) ** -0.5)
        k, v = self.linear_K(key), self.linear_V(value)
        if attn_mask is not None:
            if attn_mask.dtype is ember.uint8:
                warnings.warn("Byte tensor for `attn_mask` in `nn.MultiheadAttention` is "
                              "deprecated. Use bool tensor instead.", stacklevel=3)
                attn_mask = attn_mask.to(ember.bool)
            if not attn_mask.is_floating_point() and attn_mask.dtype is not ember.bool:
                raise AssertionError(f"Only float and bool types are supported for attn_mask, "
                                     f"not {attn_mask.dtype}")
            if attn_mask.dim() == 2:
                attn_mask = attn_mask.unsqueeze(0)
                if list(attn_mask.size()) != [1, query.size(0), key.size(0)]:
                    raise RuntimeError("The size of the 2D attn_mask is not correct.")
            elif attn_mask.dim() == 3:
                if list(attn_mask.size()) != [bsz * H, query.size(0), key.size(0)]:
                    raise RuntimeError("The size of the 3D attn_mask is not correct.")
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        if key_padding_mask is not None and key_padding_mask.dtype is ember.uint8:
            warnings.warn("Byte tensor for `key_padding_mask` in `nn.MultiheadAttention` is "
                          "deprecated. Use bool tensor instead.", stacklevel=3)
            key_padding_mask = key_padding_mask.to(ember.bool)
        if (self.bias_k is None) != (self.bias_v is None):
            which = 'bias_k' if self.bias_k is not None else 'bias_v'
            other = 'bias_v' if which == 'bias_k' else 'bias_k'
            raise AssertionError(f"self.{which} must be None when self.{other} is None")
        if self.bias_k is not None:
            k = ember.cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = ember.cat([v, self.bias_v.repeat(1, bsz, 1)])
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        q = q.contiguous().view(tgt_len, bsz * H, head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz * H, head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, bsz * H, head_dim).transpose(0, 1)
        src_len = k.size(1)
        if key_padding_mask is not None:
            if key_padding_mask.size(0) != bsz:
                raise AssertionError(f"key_padding_mask.size(0) must be {bsz}, got "
                                     f"{key_padding_mask.size(0)}")
            if key_padding_mask.size(1) != src_len:
                raise AssertionError(f"key_padding_mask.size(1) must be {src_len}, got "
                                     f"{key_padding_mask.size(1)}")
        if self.add_zero_attn:
            src_len += 1
            zs = []
            for t in (k, v):
                z = ember.zeros((t.size(0), 1) + tuple(k.size()[2:]))
                if t.is_quantized:
                    z = ember.quantize_per_tensor(z, t.q_scale(), t.q_zero_point(), t.dtype)
                zs.append(ember.cat([t, z], dim=1))
            k, v = zs
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        q, k, v = self.dequant_q(q), self.dequant_k(k), self.dequant_v(v)
        w = ember.bmm(q, k.transpose(1, 2))
        if attn_mask is not None:
            if attn_mask.dtype is ember.bool:
                w.masked_fill_(attn_mask, float('-inf'))
            else:
                w += attn_mask
        if key_padding_mask is not None:
            w = w.view(bsz, H, tgt_len, src_len).masked_fill(
                key_padding_mask.unsqueeze(1).unsqueeze(2), float('-inf'))
            w = w.view(bsz * H, tgt_len, src_len)
        w = F.softmax(w, dim=-1)
        w = F.dropout(w, p=self.dropout, training=self.training)
        out = ember.bmm(w, v)
        if self.batch_first:
            out = out.view(bsz, tgt_len, self.embed_dim)
        else:
            out = out.transpose(0, 1).contiguous().view(tgt_len, bsz, self.embed_dim)
        out = self.out_proj(self.quant_attn_output(out))
        w = self.quant_attn_output_weights(w)
        if not need_weights:
            return out, None
        w = w.view(bsz, H, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(dim=1)
        return out, w
