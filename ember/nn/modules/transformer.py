"""Transformer layers: ``TransformerEncoderLayer``, ``TransformerDecoderLayer``,
``TransformerEncoder``, ``TransformerDecoder`` and ``Transformer`` (the architecture of
"Attention Is All You Need"), with PyTorch's submodule names so that state dicts
interchange."""
import copy
import warnings

from ... import _ops
from ..._ops.attention import _canonical_mask, _none_or_dtype
from ..._tensor import _Mode, _new_tensor
from .. import functional as F
from .. import init
from .container import ModuleList
from .linear import Linear
from .module import Module
from ._multihead import MultiheadAttention

__all__ = ['Transformer', 'TransformerEncoder', 'TransformerDecoder',
           'TransformerEncoderLayer', 'TransformerDecoderLayer']


def _layers():
    """``(Dropout, LayerNorm)`` (looked up on use: their modules are siblings)."""
    from .dropout import Dropout
    from .normalization import LayerNorm
    return Dropout, LayerNorm


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    return _ops.creation.full((sz, sz), float('-inf'), dtype=dtype, device=device).triu(1)


def _get_seq_len(src, batch_first):
    if getattr(src, 'is_nested', False):
        return None
    s = src.size()
    if len(s) == 2:
        return s[0]
    return s[1 if batch_first else 0]


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == 'relu':
        return F.relu
    if activation == 'gelu':
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """``is_causal`` when given; otherwise (None) whether ``mask`` equals the causal mask of
    ``size`` (default its own size(-2))."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal.size():
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _requires_grad_now(tensors):
    return _Mode.grad and any(t is not None and t.requires_grad for t in tensors)


class Transformer(Module):
    r"""A transformer model: an encoder stack and a decoder stack of attention and
    feed-forward layers (Vaswani et al., 2017).

    Args:
        d_model (int): features of the encoder/decoder inputs. Default: 512.
        nhead (int): heads of the attention layers. Default: 8.
        num_encoder_layers (int): encoder layers. Default: 6.
        num_decoder_layers (int): decoder layers. Default: 6.
        dim_feedforward (int): width of the feed-forward networks. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a unary callable.
            Default: ``F.relu``.
        custom_encoder, custom_decoder (Module, optional): used instead of the default stacks.
        layer_norm_eps (float): eps of the layer norms. Default: 1e-5.
        batch_first (bool): tensors are ``(batch, seq, feature)``. Default: ``False``.
        norm_first (bool): layer norm before (not after) attention and feed-forward.
            Default: ``False``.
        bias (bool): ``Linear`` and ``LayerNorm`` layers learn an additive bias.
            Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - src: ``(S, E)``, ``(S, N, E)`` or (batch_first) ``(N, S, E)``.
        - tgt: ``(T, E)``, ``(T, N, E)`` or ``(N, T, E)``.
        - src_mask ``(S, S)`` or ``(N * nhead, S, S)``; tgt_mask ``(T, T)`` or
          ``(N * nhead, T, T)``; memory_mask ``(T, S)``; key padding masks ``(N, S)``,
          ``(N, T)``, ``(N, S)`` (or without ``N`` for unbatched input).
        - Output: ``(T, E)``, ``(T, N, E)`` or ``(N, T, E)``.

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1,
        ...                        num_decoder_layers=1, dim_feedforward=32)
        >>> model(ember.rand(10, 4, 16), ember.rand(7, 4, 16)).shape
        torch.Size([7, 4, 16])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        fk = {'device': device, 'dtype': dtype}
        super().__init__()
        _, LayerNorm = _layers()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **fk)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias, **fk)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src``, decode ``tgt`` against the encoding.

        Args:
            src, tgt (Tensor): the encoder and decoder inputs.
            src_mask, tgt_mask, memory_mask (Tensor, optional): attention masks.
            src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask (Tensor,
                optional): key padding masks.
            src_is_causal, tgt_is_causal (bool, optional): hints that ``src_mask`` /
                ``tgt_mask`` are causal (None: detect).
            memory_is_causal (bool): hint that ``memory_mask`` is causal.

        Returns:
            Tensor: the decoder's output.
        """
        is_batched = src.dim() == 3
        if is_batched and src.size(0 if self.batch_first else 1) != \
                tgt.size(0 if self.batch_first else 1):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A ``(sz, sz)`` causal mask: ``-inf`` above the diagonal, 0 elsewhere.

        Args:
            sz (int): sequence length.
            device, dtype: of the mask (default: the defaults).

        Example::

            >>> nn.Transformer.generate_square_subsequent_mask(3)
            tensor([[0., -inf, -inf],
                    [0., 0., -inf],
                    [0., 0., 0.]])
        """
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    r"""A stack of ``num_layers`` copies of ``encoder_layer`` (deep copies: they start with
    equal parameters), optionally followed by ``norm``.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): number of layers.
        norm (Module, optional): applied to the output of the last layer.
        enable_nested_tensor (bool): let evaluation with a key padding mask skip padded
            positions (their outputs are zero before ``norm``, as in PyTorch's nested-tensor
            path). Default: ``True``.
        mask_check (bool): check that the padding mask is left aligned before doing so.
            Default: ``True``.

    Shape:
        see :class:`Transformer`.

    NOTE: unlike PyTorch, no nested tensors are built; where PyTorch would take its
    nested-tensor path, ember computes the padded batch and zeroes the padded positions,
    which gives the same values.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        >>> enc(ember.rand(10, 4, 16)).shape
        torch.Size([10, 4, 16])
    """
    __constants__ = ['norm']

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = ''
        el = 'encoder_layer'
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why = f"{el} was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why = f"{el}.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why = (f"{el}.self_attn.batch_first was not True(use batch_first for better "
                   f"inference performance)")
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why = f"{el}.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why = f"{el}.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why = f"{el}.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why = f"{el}.norm1.eps was not equal to {el}.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why = f"{el}.self_attn.num_heads is odd"
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def _padded_positions(self, src, mask, src_key_padding_mask):
        """The boolean ``(N, S)`` padding of ``src`` where PyTorch would run its
        nested-tensor path (evaluation, no grad, batched, left-aligned padding), else None."""
        if (not getattr(self, 'use_nested_tensor', False) or self.layers[0].training
                or src.dim() != 3 or src_key_padding_mask is None or mask is not None):
            return None
        first = self.layers[0]
        sa = first.self_attn
        args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
                first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                first.linear1.weight, first.linear1.bias, first.linear2.weight,
                first.linear2.bias)
        if _requires_grad_now(args):
            return None
        pad = src_key_padding_mask._data != 0       # float masks: -inf marks padding
        if getattr(self, 'mask_check', True):
            keep = ~pad
            # left aligned: each row's kept positions form a prefix
            if bool((keep[:, 1:] & ~keep[:, :-1]).any()):
                return None
        return pad

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Pass ``src`` through the layers in turn (then ``norm``).

        Args:
            src (Tensor): the input sequence.
            mask (Tensor, optional): attention mask.
            src_key_padding_mask (Tensor, optional): key padding mask.
            is_causal (bool, optional): hint that ``mask`` is causal (None: detect).

        Returns:
            Tensor: same shape as ``src``.
        """
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, 'src_key_padding_mask',
                                               _none_or_dtype(mask), 'mask', src.dtype)
        mask = _canonical_mask(mask, 'mask', None, '', src.dtype, False)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        padded = self._padded_positions(src, mask, src_key_padding_mask)
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        out = src
        if padded is not None:
            # PyTorch drops the padded positions (nested tensors): the layers see only the
            # kept keys, and the padded outputs are zeros
            src_key_padding_mask = _canonical_mask(_new_tensor(padded), 'src_key_padding_mask',
                                                   None, '', src.dtype)
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=is_causal,
                      src_key_padding_mask=src_key_padding_mask)
        if padded is not None:
            m = padded if batch_first else padded.T
            out = out.masked_fill(_new_tensor(m[..., None]), 0.)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoder(Module):
    r"""A stack of ``num_layers`` copies of ``decoder_layer``, optionally followed by
    ``norm``.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy.
        num_layers (int): number of layers.
        norm (Module, optional): applied to the output of the last layer.

    Shape:
        see :class:`Transformer`.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> dec = nn.TransformerDecoder(layer, num_layers=2)
        >>> dec(ember.rand(7, 4, 16), ember.rand(10, 4, 16)).shape
        torch.Size([7, 4, 16])
    """
    __constants__ = ['norm']

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Pass ``tgt`` (attending to ``memory``) through the layers in turn (then ``norm``).

        Args:
            tgt (Tensor): the decoder input.
            memory (Tensor): the encoder output.
            tgt_mask, memory_mask (Tensor, optional): attention masks.
            tgt_key_padding_mask, memory_key_padding_mask (Tensor, optional): key padding
                masks.
            tgt_is_causal (bool, optional): hint that ``tgt_mask`` is causal (None: detect).
            memory_is_causal (bool): hint that ``memory_mask`` is causal.

        Returns:
            Tensor: same shape as ``tgt``.
        """
        out = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            out = self.norm(out)
        return out


def _activation_code(activation):
    """PyTorch's ``activation_relu_or_gelu``: 1 for relu, 2 for gelu, else 0."""
    from .activation import ReLU
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    gelu = getattr(F, 'gelu', None)
    from . import activation as _act
    GELU = getattr(_act, 'GELU', None)
    if (gelu is not None and activation is gelu) or \
            (GELU is not None and isinstance(activation, GELU)):
        return 2
    return 0


class TransformerEncoderLayer(Module):
    r"""Self-attention followed by a feed-forward network, each with a residual connection
    and layer norm (after, or with ``norm_first`` before, the block).

    Args:
        d_model (int): features of the input.
        nhead (int): attention heads.
        dim_feedforward (int): width of the feed-forward network. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a unary callable.
            Default: ``F.relu``.
        layer_norm_eps (float): eps of the layer norms. Default: 1e-5.
        batch_first (bool): tensors are ``(batch, seq, feature)``. Default: ``False``.
        norm_first (bool): layer norm before the blocks. Default: ``False``.
        bias (bool): ``Linear`` and ``LayerNorm`` layers learn an additive bias.
            Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        see :class:`Transformer`.

    NOTE: unlike PyTorch, there is no separate fused inference kernel
    (``_transformer_encoder_layer_fwd``); where PyTorch would use it, ember computes the same
    values in the general way (including NaN rows where every key is masked, and the
    ``is_causal`` hint being ignored there, as PyTorch's kernel does).

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> layer(ember.rand(10, 4, 16)).shape
        torch.Size([10, 4, 16])
    """
    __constants__ = ['norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        fk = {'device': device, 'dtype': dtype}
        super().__init__()
        Dropout, LayerNorm = _layers()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = _activation_code(activation)
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, 'activation'):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """Self-attention block then feed-forward block.

        Args:
            src (Tensor): the input sequence.
            src_mask (Tensor, optional): attention mask.
            src_key_padding_mask (Tensor, optional): key padding mask.
            is_causal (bool): hint that ``src_mask`` is causal.

        Returns:
            Tensor: same shape as ``src``.
        """
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, 'src_key_padding_mask',
                                               _none_or_dtype(src_mask), 'src_mask', src.dtype)
        src_mask = _canonical_mask(src_mask, 'src_mask', None, '', src.dtype, False)
        sa = self._sa_block
        if self._inference_fast_path(src):
            # PyTorch's fused inference kernel: plain softmax (rows with every key masked
            # give NaN), the is_causal hint unused; the weights path computes the same
            def sa(x, attn_mask, key_padding_mask, is_causal=False):
                return self.self_attn(x, x, x, attn_mask=attn_mask,
                                      key_padding_mask=key_padding_mask, need_weights=True,
                                      average_attn_weights=False)[0]
        x = src
        if self.norm_first:
            x = x + sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + sa(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _inference_fast_path(self, src):
        """Whether PyTorch would run its fused inference kernel
        (``_transformer_encoder_layer_fwd``) for this call."""
        sa = self.self_attn
        if (self.training or src.dim() != 3 or not sa.batch_first or sa.in_proj_bias is None
                or not sa._qkv_same_embed_dim or not self.activation_relu_or_gelu
                or self.norm1.eps != self.norm2.eps or sa.num_heads % 2):
            return False
        if any(getattr(m, '_forward_hooks', None) or getattr(m, '_forward_pre_hooks', None)
               for m in self.modules()):
            return False
        return not _requires_grad_now((
            src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
            self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias,
            self.linear1.weight, self.linear1.bias, self.linear2.weight, self.linear2.bias))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    r"""Self-attention, attention over the encoder's output (``memory``), and a
    feed-forward network, each with a residual connection and layer norm.

    Args:
        d_model (int): features of the input.
        nhead (int): attention heads.
        dim_feedforward (int): width of the feed-forward network. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a unary callable.
            Default: ``F.relu``.
        layer_norm_eps (float): eps of the layer norms. Default: 1e-5.
        batch_first (bool): tensors are ``(batch, seq, feature)``. Default: ``False``.
        norm_first (bool): layer norm before the blocks. Default: ``False``.
        bias (bool): ``Linear`` and ``LayerNorm`` layers learn an additive bias.
            Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        see :class:`Transformer`.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> layer(ember.rand(7, 4, 16), ember.rand(10, 4, 16)).shape
        torch.Size([7, 4, 16])
    """
    __constants__ = ['norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        fk = {'device': device, 'dtype': dtype}
        super().__init__()
        Dropout, LayerNorm = _layers()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) \
            else activation

    def __setstate__(self, state):
        if 'activation' not in state:
            state['activation'] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """Self-attention block, attention over ``memory``, feed-forward block.

        Args:
            tgt (Tensor): the decoder input.
            memory (Tensor): the encoder output.
            tgt_mask, memory_mask (Tensor, optional): attention masks.
            tgt_key_padding_mask, memory_key_padding_mask (Tensor, optional): key padding
                masks.
            tgt_is_causal, memory_is_causal (bool): hints that the masks are causal.

        Returns:
            Tensor: same shape as ``tgt``.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
