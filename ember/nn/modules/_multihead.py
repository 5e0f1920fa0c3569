"""MultiheadAttention, written beside the transformer layers' needs but exported (and named,
``__module__``) as ``ember.nn.modules.activation.MultiheadAttention``, where PyTorch has it:
checkpoints and pickled models name it there.

Its output projection is a :class:`NonDynamicallyQuantizableLinear` (a plain ``Linear``
that quantization tools leave alone), named ``ember.nn.modules.linear`` as PyTorch's is."""
from ..._ops.attention import _canonical_mask, _none_or_dtype
from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from . import linear as _linear
from ..._tensor import _Mode
from .linear import Linear
from .module import Module

__all__ = ['MultiheadAttention']


def _grad_needed(tensors):
    """Grad mode is on and one of ``tensors`` requires grad."""
    return _Mode.grad and any(t is not None and t.requires_grad for t in tensors)


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` layer that dynamic quantization does not convert (the output
    projection of :class:`MultiheadAttention`).

    Args:
        in_features, out_features, bias, device, dtype: as :class:`Linear`.

    Example::

        >>> from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
        >>> NonDynamicallyQuantizableLinear(4, 2)
        NonDynamicallyQuantizableLinear(in_features=4, out_features=2, bias=True)
    """


NonDynamicallyQuantizableLinear.__module__ = 'ember.nn.modules.linear'
# where PyTorch has it (and pickles name it): ember.nn.modules.linear
_linear.NonDynamicallyQuantizableLinear = NonDynamicallyQuantizableLinear


class MultiheadAttention(Module):
    r"""Attends to a set of key-value pairs from each query, with ``num_heads`` parallel
    heads: ``MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O`` where
    ``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)``.

    Args:
        embed_dim (int): total dimension of the model.
        num_heads (int): number of parallel heads (``embed_dim`` is split across them, so it
            must be divisible by ``num_heads``).
        dropout (float): dropout probability on the attention weights. Default: 0.
        bias (bool): add biases to the input/output projections. Default: ``True``.
        add_bias_kv (bool): add a learned bias to the key and value sequences (dim 0).
            Default: ``False``.
        add_zero_attn (bool): append a batch of zeros to the key and value sequences.
            Default: ``False``.
        kdim (int): features of the keys (default ``embed_dim``).
        vdim (int): features of the values (default ``embed_dim``).
        batch_first (bool): inputs and output are ``(batch, seq, feature)``.
            Default: ``False`` (``(seq, batch, feature)``).
        device, dtype: factory arguments of the parameters.

    Shape:
        - query: ``(L, E)``, ``(L, N, E)`` or (batch_first) ``(N, L, E)``.
        - key: ``(S, Ek)``, ``(S, N, Ek)`` or ``(N, S, Ek)``; value likewise with ``Ev``.
        - key_padding_mask: ``(N, S)`` or ``(S)``; attn_mask: ``(L, S)`` or
          ``(N * num_heads, L, S)``; True (bool) marks positions not to attend to, a float
          mask is added to the scores.
        - Output: ``(L, E)``, ``(L, N, E)`` or ``(N, L, E)``; weights ``(N, L, S)`` (averaged)
          or ``(N, num_heads, L, S)``, without ``N`` for unbatched input.

    NOTE: unlike PyTorch, there is no separate fused inference kernel (PyTorch's
    ``_native_multi_head_attention``); where PyTorch would use it, ember computes the same
    values in the general way (including NaN rows where every key is masked).

    Example::

        >>> mha = nn.MultiheadAttention(16, 4)
        >>> x = ember.randn(5, 2, 16)
        >>> out, w = mha(x, x, x)
        >>> out.shape, w.shape
        (torch.Size([5, 2, 16]), torch.Size([2, 5, 5]))
    """
    __constants__ = ['batch_first']

    def __init__(self, embed_dim, num_heads, dropout=0., bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        fk = {'device': device, 'dtype': dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **fk))
            self.register_parameter('q_proj_weight', None)
            self.register_parameter('k_proj_weight', None)
            self.register_parameter('v_proj_weight', None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **fk))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **fk))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **fk))
            self.register_parameter('in_proj_weight', None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **fk))
        else:
            self.register_parameter('in_proj_bias', None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **fk))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **fk))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """PyTorch's default init: Xavier-uniform projections, zero biases, Xavier-normal
        ``bias_k``/``bias_v`` (the output projection keeps ``Linear``'s weight init)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.)
            init.constant_(self.out_proj.bias, 0.)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        # modules pickled before kdim/vdim existed have packed projections
        if '_qkv_same_embed_dim' not in state:
            state['_qkv_same_embed_dim'] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attention output and (with ``need_weights``) the attention weights.

        Args:
            query, key, value (Tensor): see the class's Shape.
            key_padding_mask (Tensor, optional): keys to ignore (True or -inf).
            need_weights (bool): also return the attention weights. Default: True.
            attn_mask (Tensor, optional): positions not to attend to (True or -inf), or
                float scores to add.
            average_attn_weights (bool): average the weights over heads. Default: True.
            is_causal (bool): hint that ``attn_mask`` is the causal mask.

        Returns:
            (Tensor, Tensor or None): output and attention weights.
        """
        is_batched = query.dim() == 3
        fast = self._inference_fast_path(query, key, value, attn_mask, key_padding_mask)
        key_padding_mask = _canonical_mask(key_padding_mask, 'key_padding_mask',
                                             _none_or_dtype(attn_mask), 'attn_mask',
                                             query.dtype)
        attn_mask = _canonical_mask(attn_mask, 'attn_mask', None, '', query.dtype, False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        # PyTorch's inference kernel uses a plain softmax (rows with every key masked give
        # NaN, not zeros): the weights path computes the same
        kw = dict(training=self.training, key_padding_mask=key_padding_mask,
                  need_weights=need_weights or fast, attn_mask=attn_mask,
                  average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            kw.update(use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                      k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, **kw)
        if fast and not need_weights:
            weights = None
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def _inference_fast_path(self, query, key, value, attn_mask, key_padding_mask):
        """Whether PyTorch would run its fused inference kernel for this call (evaluation,
        no gradient, batch_first self-attention with packed projections and biases, an even
        number of heads, no float masks)."""
        if (self.training or query.dim() != 3 or not self.batch_first
                or query is not key or key is not value or self.num_heads % 2
                or self.in_proj_weight is None or self.in_proj_bias is None
                or self.bias_k is not None or self.bias_v is not None or self.add_zero_attn
                or not self._qkv_same_embed_dim):
            return False
        if any(m is not None and m.dtype.is_floating_point
               for m in (attn_mask, key_padding_mask)):
            return False
        if query.dtype != self.in_proj_weight.dtype or query.dtype != self.in_proj_bias.dtype:
            return False
        return not _grad_needed((query, self.in_proj_weight, self.in_proj_bias,
                                 self.out_proj.weight, self.out_proj.bias))

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """Combine ``attn_mask`` and ``key_padding_mask`` (float masks) into one
        ``(N, num_heads, L, L)`` mask for self-attention over ``query`` ``(N, L, E)``.

        Returns:
            (Tensor or None, int or None): the merged mask and its type (1: key padding
            mask only, 2: attention mask, None: no mask).
        """
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            n, L, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(n, -1, L, L)
            else:
                merged = attn_mask.view(1, 1, L, L).expand(n, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(n, 1, 1, L).expand(
                    -1, self.num_heads, -1, -1)
        return merged, mask_type


MultiheadAttention.__module__ = 'ember.nn.modules.activation'
