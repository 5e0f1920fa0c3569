"""``ember.nn.attention.flex_attention``: attention with a user-written score modification
(``score_mod``) and a block-sparse mask (``BlockMask``), as PyTorch's FlexAttention.

PyTorch generates a fused kernel for FlexAttention under ``torch.compile``; called plainly
it runs a reference implementation that builds the whole ``(B, H, L, S)`` score matrix.
Ember has no compiler, so that reference computation is the implementation here: the
scores are ``query @ key^T * scale``, ``score_mod`` rewrites them, the mask sets the
excluded ones to ``-inf``, a softmax that gives zeros for rows with nothing to attend to
weights ``value``. Every step is an ember op, so gradients reach ``query``, ``key``,
``value`` and any tensor ``score_mod`` reads (a learnable bias, say).

How the mods are called: PyTorch maps ``score_mod(score, b, h, q_idx, kv_idx)`` and
``mask_mod(b, h, q_idx, kv_idx)`` over every element (with ``vmap``), so a mod sees 0-dim
tensors. Ember calls a mod once, with the index tensors shaped to broadcast,
``b: (B, 1, 1, 1)``, ``h: (1, H, 1, 1)``, ``q_idx: (1, 1, L, 1)``, ``kv_idx: (1, 1, 1, S)``
(int64, as PyTorch's reference passes them) and ``score: (B, H, L, S)``; a mod written
with tensor operations and indexing (``bias[h, q_idx, kv_idx]``, ``doc_id[b, q_idx]``)
gives the same values (one that reduces over its arguments, ``score.max()`` say, does
not: PyTorch's reduces one element). When that call fails, or gives a result that does not
broadcast to ``(B, H, L, S)``, the mod is mapped element-wise with
:func:`ember.func.vmap` instead, as PyTorch does (so Python control flow on the indices
works, where PyTorch raises). A result whose dtype differs from that of one call on 0-dim
arguments (a captured 0-dim float64 tensor, say) is cast to the latter, the dtype PyTorch
gives.

NOTE: unlike PyTorch, ember does not warn that ``flex_attention`` runs without
``torch.compile`` (there is nothing else to run), ``flex_attention`` supports backward on
the CPU (PyTorch raises ``NotImplementedError`` for inputs that require grad there) and
returns ``max_scores`` on the CPU, and the attention honours the block layout of a
``BlockMask`` as PyTorch's compiled kernels do (blocks that are not listed are excluded,
``mask_mod`` decides inside partial blocks, full blocks are attended whole): PyTorch's
uncompiled path applies ``mask_mod`` alone. For a mask from :func:`create_block_mask`
both give the same result.
"""
import functools
import inspect
import itertools
import math
import operator
import warnings
from typing import Callable, Literal, NamedTuple, Optional, TypedDict

from ..._tensor import Tensor
from ... import _dtype as D
from ..._ops.creation import arange, zeros, tensor as _tensor
from ..._ops.indexing import where
from ..._ops.reduction import argsort

__all__ = ['BlockMask', 'flex_attention', 'AuxOutput', 'AuxRequest', 'FlexKernelOptions',
           'create_block_mask', 'create_mask', 'or_masks', 'and_masks', 'noop_mask']

# Kept for code written for PyTorch, where it turns off the internal compilation so that a
# mod can be debugged; ember never compiles, so it has no effect.
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False

_WARNINGS_SHOWN = set()

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30
_BACKENDS = ('AUTO', 'TRITON', 'FLASH', 'TRITON_DECODE')

_score_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]
_mask_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]


def _warn_once(key, message, category=UserWarning):
    if key not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(key)
        warnings.warn(message, category, stacklevel=3)


class FlexKernelOptions(TypedDict, total=False):
    """Tuning options for PyTorch's FlexAttention kernels, as a typed dict (every key is
    optional). Keys may carry a ``fwd_`` or ``bwd_`` prefix to aim at one pass.

    Keys: ``num_warps``, ``num_stages``, ``BLOCK_M``, ``BLOCK_N``, ``BLOCK_M1``,
    ``BLOCK_N1``, ``BLOCK_M2``, ``BLOCK_N2``, ``PRESCALE_QK``, ``ROWS_GUARANTEED_SAFE``,
    ``BLOCKS_ARE_CONTIGUOUS``, ``WRITE_DQ``, ``FORCE_USE_FLEX_ATTENTION``, ``USE_TMA``,
    ``kpack``, ``matrix_instr_nonkdim``, ``waves_per_eu`` and ``BACKEND`` (one of
    ``"AUTO"``, ``"TRITON"``, ``"FLASH"``, ``"TRITON_DECODE"``).

    NOTE: unlike PyTorch, ember has no generated kernels: :func:`flex_attention` checks
    ``BACKEND`` (a bad value, or ``BACKEND`` together with ``FORCE_USE_FLEX_ATTENTION``,
    raises as in PyTorch) and otherwise ignores the options.

    Example::

        >>> from ember.nn.attention.flex_attention import FlexKernelOptions
        >>> opts: FlexKernelOptions = {"BLOCK_M": 64, "PRESCALE_QK": False}
        >>> sorted(opts)
        ['BLOCK_M', 'PRESCALE_QK']
    """
    num_warps: int
    num_stages: int
    BLOCK_M: int
    BLOCK_N: int
    BLOCK_M1: int
    BLOCK_N1: int
    BLOCK_M2: int
    BLOCK_N2: int
    PRESCALE_QK: bool
    ROWS_GUARANTEED_SAFE: bool
    BLOCKS_ARE_CONTIGUOUS: bool
    WRITE_DQ: bool
    FORCE_USE_FLEX_ATTENTION: bool
    USE_TMA: bool
    kpack: int
    matrix_instr_nonkdim: int
    waves_per_eu: int
    BACKEND: Literal['AUTO', 'TRITON', 'FLASH', 'TRITON_DECODE']


class AuxRequest(NamedTuple):
    """Which extra outputs :func:`flex_attention` should return (``return_aux=``).

    Args:
        lse (bool): the log-sum-exp of each query row's modified, masked scores (natural
            log). Default: ``False``.
        max_scores (bool): each query row's largest modified, masked score. Default:
            ``False``.

    Example::

        >>> from ember.nn.attention.flex_attention import AuxRequest
        >>> AuxRequest(lse=True)
        AuxRequest(lse=True, max_scores=False)
    """
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """The extra outputs of :func:`flex_attention` asked for by an :class:`AuxRequest`; a
    field not asked for is ``None``.

    Args:
        lse (Tensor, optional): shape :math:`(B, H_q, L)`, ``-inf`` on rows that attend
            to nothing.
        max_scores (Tensor, optional): shape :math:`(B, H_q, L)`.

    Example::

        >>> import ember
        >>> from ember.nn.attention.flex_attention import flex_attention, AuxRequest
        >>> q = ember.ones(1, 1, 2, 4)
        >>> out, aux = flex_attention(q, q, q, return_aux=AuxRequest(lse=True))
        >>> aux.lse.shape, aux.max_scores
        (torch.Size([1, 1, 2]), None)
    """
    lse: Optional[Tensor] = None
    max_scores: Optional[Tensor] = None


# ---------------------------------------------------------------------------------------
# mods


def _positional_count(fn):
    """How many positional parameters without a default ``fn`` takes."""
    code = getattr(fn, '__code__', None)
    if code is not None:
        return code.co_argcount - len(getattr(fn, '__defaults__', None) or ())
    return sum(1 for p in inspect.signature(fn).parameters.values()
               if p.default is inspect.Parameter.empty)


def _is_score_mod(fn):
    """True for a score_mod (5 positional args), False for a mask_mod (4); raises
    otherwise, as PyTorch does."""
    n = _positional_count(fn)
    if n not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {n}")
    return n == 5


def _identity(score, batch, head, token_q, token_kv):
    return score


def noop_mask(batch, head, token_q, token_kv):
    """A ``mask_mod`` that keeps every position: a 0-dim ``True`` tensor on ``batch``'s
    device.

    Args:
        batch, head, token_q, token_kv (Tensor): the index tensors of a mask_mod.

    Example::

        >>> import ember
        >>> from ember.nn.attention.flex_attention import noop_mask, create_mask
        >>> bool(create_mask(noop_mask, 1, 1, 2, 3, device='cpu').all())
        True
    """
    return batch.new_ones((), dtype=D.bool)


def _sliced_mask_mod_error(batch, head, token_q, token_kv):
    """The mask_mod of a sliced BlockMask: calling it is an error."""
    raise RuntimeError(
        "Cannot use mask_mod from a sliced BlockMask. When you slice a BlockMask with [], "
        "its mask_mod is reset; take the mask_mod of the original (unsliced) BlockMask "
        "instead, e.g. sliced.mask_mod = apply_offset(base.mask_mod, offset).")


def or_masks(*mask_mods):
    """A ``mask_mod`` that keeps a position when any of ``mask_mods`` keeps it.

    Args:
        *mask_mods (callable): mask_mods ``(b, h, q_idx, kv_idx) -> bool Tensor``.

    Example::

        >>> from ember.nn.attention.flex_attention import or_masks, create_mask
        >>> diag = lambda b, h, q, kv: q == kv
        >>> first = lambda b, h, q, kv: kv == 0
        >>> create_mask(or_masks(diag, first), 1, 1, 3, 3, device='cpu')[0, 0].int()
        tensor([[1, 0, 0],
                [1, 1, 0],
                [1, 0, 1]], dtype=torch.int32)
    """
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=D.bool)
        for m in mask_mods:
            result = result | m(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods):
    """A ``mask_mod`` that keeps a position when all of ``mask_mods`` keep it.

    Args:
        *mask_mods (callable): mask_mods ``(b, h, q_idx, kv_idx) -> bool Tensor``.

    Example::

        >>> from ember.nn.attention.flex_attention import and_masks, create_mask
        >>> causal = lambda b, h, q, kv: q >= kv
        >>> window = lambda b, h, q, kv: q - kv <= 1
        >>> create_mask(and_masks(causal, window), 1, 1, 3, 3, device='cpu')[0, 0].int()
        tensor([[1, 0, 0],
                [1, 1, 0],
                [0, 1, 1]], dtype=torch.int32)
    """
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=D.bool)
        for m in mask_mods:
            result = result & m(b, h, q_idx, kv_idx)
        return result
    return and_mask


def _broadcasts_to(shape, full):
    if len(shape) > len(full):
        return False
    return all(s == 1 or s == f for s, f in zip(reversed(shape), reversed(full)))


def _apply_mod(fn, score, B, H, L, S, device):
    """``fn`` applied to every ``(b, h, q_idx, kv_idx)`` of a ``(B, H, L, S)`` grid, with
    ``score`` (a ``(B, H, L, S)`` tensor, or None for a mask_mod) as first argument.
    The result broadcasts to ``(B, H, L, S)`` (it may have size-1 dims)."""
    full = (B, H, L, S)
    lead = () if score is None else (score,)
    idx = [arange(n, device=device) for n in full]
    shaped = [i.view([n if d == k else 1 for k in range(4)])
              for d, (i, n) in enumerate(zip(idx, full))]
    out = None
    try:
        res = fn(*lead, *shaped)
        if isinstance(res, Tensor) and _broadcasts_to(tuple(res.shape), full):
            out = res
    except Exception:        # not written for broadcasting: map it element-wise below
        out = None
    if out is not None and B * H * L * S:
        # 0-dim arguments may promote otherwise (a captured 0-dim float64 tensor wins over
        # a 0-dim float32 score, not over a (B, H, L, S) one): one call on 0-dim arguments
        # gives the dtype PyTorch's element-wise mapping gives
        try:
            z = [i[0] for i in idx]
            probe = fn(*(() if score is None else (score.reshape(-1)[0],)), *z)
        except Exception:
            probe = None
        if isinstance(probe, Tensor) and probe.dtype != out.dtype:
            out = out.to(probe.dtype)
    if out is None:
        from ...func import vmap
        mapped = fn
        pre = () if score is None else (0,)
        for dims in ((None, None, None, 0), (None, None, 0, None), (None, 0, None, None),
                     (0, None, None, None)):
            mapped = vmap(mapped, in_dims=pre + dims)
        out = mapped(*lead, *idx)
    return out


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    r"""The dense boolean mask of a ``mask_mod`` (True: attend), or of a ``score_mod``
    (True where it does not give ``-inf`` for a zero score).

    Args:
        mod_fn (callable): a mask_mod ``(b, h, q_idx, kv_idx) -> bool`` or a score_mod
            ``(score, b, h, q_idx, kv_idx) -> score``.
        B (int or None): batch size (``None``: 1).
        H (int or None): number of query heads (``None``: 1).
        Q_LEN (int): query length.
        KV_LEN (int): key/value length.
        device (str or device, optional): where to build the mask. Default: the current
            accelerator if there is one, else the CPU.

    Shape:
        - Output: :math:`(B, H, Q\_LEN, KV\_LEN)`, dtype ``bool``.

    Example::

        >>> from ember.nn.attention.flex_attention import create_mask
        >>> causal = lambda b, h, q, kv: q >= kv
        >>> create_mask(causal, 1, 1, 2, 3, device='cpu')
        tensor([[[[ True, False, False],
                  [ True,  True, False]]]])
    """
    device = _default_device(device)
    B = 1 if B is None else B
    H = 1 if H is None else H
    if _is_score_mod(mod_fn):
        score = zeros(B, H, Q_LEN, KV_LEN, device=device)
        out = _apply_mod(mod_fn, score, B, H, Q_LEN, KV_LEN, device)
        return (out != -math.inf).expand(B, H, Q_LEN, KV_LEN)
    # dims the mod does not depend on stay expanded (stride 0), as PyTorch's vmap leaves them
    return _apply_mod(mod_fn, None, B, H, Q_LEN, KV_LEN, device).expand(B, H, Q_LEN, KV_LEN)


def _default_device(device):
    if device is not None:
        return device
    from ... import accelerator
    return accelerator.current_accelerator() or 'cpu'


# ---------------------------------------------------------------------------------------
# block layouts: (num_blocks (..., R), indices (..., R, C)) <-> dense (..., R, C) 0/1


def _ordered_to_dense(num_blocks, indices, num_cols):
    """The ``(..., R, num_cols)`` int32 0/1 layout listed by ``num_blocks``/``indices``:
    row r holds the first ``num_blocks[..., r]`` entries of ``indices[..., r, :]``."""
    c = indices.shape[-1]
    listed = arange(c, device=indices.device) < num_blocks.unsqueeze(-1)
    cols = where(listed, indices.long(), num_cols)        # unlisted: one spare column
    dense = zeros(*indices.shape[:-1], num_cols + 1, dtype=D.int32, device=indices.device)
    dense.scatter_(-1, cols, 1)
    return dense[..., :num_cols].contiguous()


def _dense_to_ordered(dense):
    """``(num_blocks, indices)`` (int32) of a 0/1 layout: the listed columns first, in
    ascending order, then the others."""
    dense = dense.to(D.int32)
    num = dense.sum(-1).to(D.int32)
    order = argsort(dense, dim=-1, descending=True, stable=True).to(D.int32)
    return num.contiguous(), order.contiguous()


def _transpose_ordered(num_blocks, indices):
    dense = _ordered_to_dense(num_blocks, indices, indices.shape[-1])
    return _dense_to_ordered(dense.transpose(-2, -1))


def _adjust_num_blocks_and_indices(num_blocks, indices, rows, cols):
    indices = indices[:, :, :rows, :cols]
    num_blocks = num_blocks[:, :, :rows].clamp(max=cols)
    num_blocks = (indices < num_blocks[:, :, :, None]).sum(-1).to(D.int32)
    return num_blocks, indices


def _write_order(block_mask, descending):
    """The dQ write-order metadata of a block mask (for PyTorch's deterministic FLASH
    backward): for each (kv block, listed q block) the rank of that kv block among the q
    block's kv blocks, ascending or descending."""
    qn, qi = block_mask.q_num_blocks, block_mask.q_indices
    if qn is None or qi is None:
        raise ValueError(
            "BlockMask must have q_num_blocks and q_indices to compute dq_write_order")
    kvi = block_mask.kv_indices
    shapes = [tuple(kvi.shape[:2]), tuple(qi.shape[:2])]
    if block_mask.full_kv_indices is not None:
        shapes.append(tuple(block_mask.full_kv_indices.shape[:2]))
    if block_mask.full_q_indices is not None:
        shapes.append(tuple(block_mask.full_q_indices.shape[:2]))
    from ..._ops.shape import broadcast_shapes
    B, H = broadcast_shapes(*shapes)
    m, n = kvi.shape[2], qi.shape[2]
    ex = lambda t: t.expand(B, H, *t.shape[2:])
    dense = _ordered_to_dense(ex(block_mask.kv_num_blocks), ex(kvi), n)
    has_full = block_mask.full_kv_num_blocks is not None
    if has_full:
        dense = (dense + _ordered_to_dense(ex(block_mask.full_kv_num_blocks),
                                           ex(block_mask.full_kv_indices), n)).clamp(max=1)
    csum = dense.cumsum(-1)
    rank = (csum - dense).to(D.int32)
    if descending:
        rank = (csum[..., -1:] - 1 - rank).to(D.int32)
    dev = kvi.device

    def gather(bwd):
        bi = arange(B, device=dev).view(B, 1, 1, 1)
        hi = arange(H, device=dev).view(1, H, 1, 1)
        ni = arange(bwd.shape[2], device=dev).view(1, 1, -1, 1)
        return rank[bi, hi, bwd.long().clamp(0, m - 1), ni].to(D.int32)

    full = None
    if has_full and block_mask.full_q_indices is not None:
        full = gather(block_mask.full_q_indices)
    return gather(qi), full


def _shape_or_none(t):
    return None if t is None else t.shape


class BlockMask:
    r"""A block-sparse attention mask: which ``(Q_BLOCK_SIZE, KV_BLOCK_SIZE)`` tiles of
    the ``(L, S)`` score matrix take part in the attention, plus the ``mask_mod`` that
    decides inside the tiles that are only partly kept.

    The layout is stored per query-block row, compressed as in BCSR: ``kv_num_blocks[...,
    r]`` says how many kv blocks row ``r`` lists, and ``kv_indices[..., r, :kv_num_blocks[
    ..., r]]`` which ones (the entries after those are unspecified). Up to four such pairs:

    * ``kv_num_blocks``/``kv_indices``: the partial blocks (``mask_mod`` applies);
    * ``full_kv_num_blocks``/``full_kv_indices`` (optional): blocks kept whole;
    * ``q_num_blocks``/``q_indices`` and ``full_q_num_blocks``/``full_q_indices``: the
      same layouts by kv-block column (derived; PyTorch's backward kernels read them).

    Leading dims are batch and head (each may be 1 to broadcast). Build one with
    :func:`create_block_mask` or :meth:`from_kv_blocks`.

    Args:
        seq_lengths (tuple[int, int]): ``(Q_LEN, KV_LEN)``.
        kv_num_blocks, kv_indices (Tensor): the partial-block layout.
        full_kv_num_blocks, full_kv_indices (Tensor or None): the full-block layout.
        q_num_blocks, q_indices, full_q_num_blocks, full_q_indices (Tensor or None): the
            column layouts.
        BLOCK_SIZE (tuple[int, int]): ``(Q_BLOCK_SIZE, KV_BLOCK_SIZE)``. Default:
            ``(128, 128)``.
        mask_mod (callable): Default: :func:`noop_mask`.
        dq_write_order, dq_write_order_full, dq_kv_order, dq_kv_order_spt: metadata for
            PyTorch's deterministic FLASH backward (carried, unused by ember).

    Example::

        >>> from ember.nn.attention.flex_attention import create_block_mask
        >>> causal = lambda b, h, q, kv: q >= kv
        >>> bm = create_block_mask(causal, 1, 1, 4, 4, device='cpu', BLOCK_SIZE=2)
        >>> bm.shape, bm.sparsity()
        ((1, 1, 4, 4), 25.0)
        >>> bm.to_dense()
        tensor([[[[1, 0],
                  [1, 1]]]], dtype=torch.int32)
    """
    _TENSOR_ATTRS = ['kv_num_blocks', 'kv_indices', 'full_kv_num_blocks', 'full_kv_indices',
                     'q_num_blocks', 'q_indices', 'full_q_num_blocks', 'full_q_indices',
                     'dq_write_order', 'dq_write_order_full', 'dq_kv_order']
    _CONTEXT_ATTRS = ['seq_lengths', 'BLOCK_SIZE', 'mask_mod', 'dq_kv_order_spt']

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks,
                 full_q_indices, BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE,
                                             _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod=noop_mask, *, dq_write_order=None, dq_write_order_full=None,
                 dq_kv_order=None, dq_kv_order_spt=None):
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if kv_num_blocks is None:
            raise AssertionError("kv_num_blocks must be provided")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        if (full_q_num_blocks is None) != (full_q_indices is None):
            raise AssertionError(
                "full_q_num_blocks and full_q_indices must be both provided or omitted")
        if dq_write_order_full is not None and dq_write_order is None:
            raise ValueError("dq_write_order_full requires dq_write_order")
        self.seq_lengths = seq_lengths
        self.kv_num_blocks = kv_num_blocks
        self.kv_indices = kv_indices
        self.full_kv_num_blocks = full_kv_num_blocks
        self.full_kv_indices = full_kv_indices
        self.q_num_blocks = q_num_blocks
        self.q_indices = q_indices
        self.full_q_num_blocks = full_q_num_blocks
        self.full_q_indices = full_q_indices
        self.dq_write_order = dq_write_order
        self.dq_write_order_full = dq_write_order_full
        self.dq_kv_order = dq_kv_order
        self.dq_kv_order_spt = dq_kv_order_spt
        self.BLOCK_SIZE = BLOCK_SIZE
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None,
                       full_kv_indices=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod=None, seq_lengths=None, compute_q_blocks=True, *,
                       dq_write_order=None, dq_write_order_full=None, dq_kv_order=None):
        r"""A :class:`BlockMask` from its kv-block layouts; the q-block (column) layouts
        are derived.

        Args:
            kv_num_blocks (Tensor): ``(..., Q_BLOCKS)`` how many partial kv blocks each
                query-block row lists.
            kv_indices (Tensor): ``(..., Q_BLOCKS, KV_BLOCKS)`` which ones.
            full_kv_num_blocks, full_kv_indices (Tensor, optional): the same for the
                blocks kept whole (both or neither).
            BLOCK_SIZE (int or tuple[int, int]): tile size. Default: 128.
            mask_mod (callable, optional): Default: :func:`noop_mask`.
            seq_lengths (tuple[int, int], optional): ``(Q_LEN, KV_LEN)``. Default: the
                number of blocks times the block size.
            compute_q_blocks (bool): derive ``q_num_blocks``/``q_indices`` (and the full
                ones). Default: ``True``.
            dq_write_order, dq_write_order_full (Tensor, optional), dq_kv_order (bool or
                Tensor, optional): PyTorch's deterministic-backward metadata, carried.

        Example::

            >>> import ember
            >>> from ember.nn.attention.flex_attention import BlockMask
            >>> num = ember.tensor([[[1, 1]]], dtype=ember.int32)
            >>> idx = ember.tensor([[[[0, 1], [1, 0]]]], dtype=ember.int32)
            >>> bm = BlockMask.from_kv_blocks(num, idx, BLOCK_SIZE=4)
            >>> bm.shape, bm.q_indices.shape
            ((1, 1, 8, 8), torch.Size([1, 1, 2, 2]))
        """
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        q_num = q_idx = fq_num = fq_idx = None
        if compute_q_blocks:
            q_num, q_idx = _transpose_ordered(kv_num_blocks, kv_indices)
            if full_kv_num_blocks is not None:
                fq_num, fq_idx = _transpose_ordered(full_kv_num_blocks, full_kv_indices)
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        if mask_mod is None:
            mask_mod = noop_mask
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0],
                           kv_indices.shape[-1] * BLOCK_SIZE[1])
        if dq_kv_order is not None and not isinstance(dq_kv_order, (bool, Tensor)):
            raise ValueError("dq_kv_order must be a bool, Tensor, or None")
        return cls(seq_lengths=seq_lengths, kv_num_blocks=kv_num_blocks,
                   kv_indices=kv_indices, full_kv_num_blocks=full_kv_num_blocks,
                   full_kv_indices=full_kv_indices, q_num_blocks=q_num, q_indices=q_idx,
                   full_q_num_blocks=fq_num, full_q_indices=fq_idx, BLOCK_SIZE=BLOCK_SIZE,
                   mask_mod=mask_mod, dq_write_order=dq_write_order,
                   dq_write_order_full=dq_write_order_full,
                   dq_kv_order=dq_kv_order if isinstance(dq_kv_order, Tensor) else None,
                   dq_kv_order_spt=dq_kv_order if isinstance(dq_kv_order, bool) else None)

    def as_tuple(self, flatten=True):
        """The fields as a tuple: the sequence lengths, the eleven tensor fields (in the
        order of ``BlockMask._TENSOR_ATTRS``), ``dq_kv_order_spt``, the block size and
        ``mask_mod``.

        Args:
            flatten (bool): spread ``seq_lengths`` and ``BLOCK_SIZE`` into two ints each
                (else keep them as pairs). Default: ``True``.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> bm = create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 4, 4,
            ...                        device='cpu', BLOCK_SIZE=2)
            >>> len(bm.as_tuple()), bm.as_tuple()[:2], bm.as_tuple(False)[0]
            (17, (4, 4), (4, 4))
        """
        if flatten:
            size = (self.BLOCK_SIZE[0], self.BLOCK_SIZE[1])
            lens = (self.seq_lengths[0], self.seq_lengths[1])
        else:
            size = (self.BLOCK_SIZE,)
            lens = (self.seq_lengths,)
        return (*lens, *(getattr(self, a) for a in self._TENSOR_ATTRS),
                self.dq_kv_order_spt, *size, self.mask_mod)

    @property
    def shape(self):
        """``(*batch_dims, Q_LEN, KV_LEN)``: the leading dims of ``kv_indices`` and the
        sequence lengths."""
        return tuple(self.kv_indices.shape[:-2]) + tuple(self.seq_lengths)

    def __str__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                + self.to_string().strip() + "\n)")

    def __repr__(self):
        mm = self.mask_mod
        name = mm.__name__ if hasattr(mm, '__name__') else mm
        fields = [('kv_num_blocks', self.kv_num_blocks.shape),
                  ('kv_indices', self.kv_indices.shape)]
        fields += [(a, _shape_or_none(getattr(self, a))) for a in self._TENSOR_ATTRS[2:8]]
        fields += [('BLOCK_SIZE', self.BLOCK_SIZE), ('shape', self.shape),
                   ('sparsity', f'{self.sparsity():.2f}%')]
        body = ''.join(f"    {k}={v},\n" for k, v in fields)
        return f"BlockMask(\n{body}    mask_mod={name}\n)"

    def __getitem__(self, index):
        """A BlockMask of the selected batch entries, heads and query-block rows.

        Integers keep their dimension (``bm[0]`` has a batch dim of size 1); slices and
        index tensors select as in tensor indexing. The result's ``mask_mod`` raises when
        called: set it from the original mask if needed.

        Args:
            index (int, slice, Tensor or tuple of them): up to three indices, for the
                batch, head and query-block dims.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> bm = create_block_mask(lambda b, h, q, kv: q >= kv, 2, 3, 8, 8,
            ...                        device='cpu', BLOCK_SIZE=4)
            >>> bm[0].kv_num_blocks.shape, bm[1, 1:].kv_indices.shape
            (torch.Size([1, 3, 2]), torch.Size([1, 2, 2, 2]))
        """
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Slicing BlockMask with tensor dq_kv_order is not supported yet. "
                "Construct a new BlockMask with matching precomputed dq_write_order "
                "metadata.")
        index = index if isinstance(index, tuple) else (index,)
        padded = (*index, slice(None), slice(None), slice(None))[:3]
        sizes = self.kv_num_blocks.shape[:3]
        if len(sizes) < 3:
            raise ValueError("zip() argument 2 is shorter than argument 1")
        sel = []
        for i, n in zip(padded, sizes):
            if isinstance(i, int):
                i = slice(i + n, i + n + 1) if -n <= i < 0 else slice(i, i + 1)
            sel.append(i)
        sel = tuple(sel)
        full_num = full_idx = None
        if self.full_kv_num_blocks is not None:
            full_num, full_idx = self.full_kv_num_blocks[sel], self.full_kv_indices[sel]
        new = BlockMask.from_kv_blocks(
            self.kv_num_blocks[sel], self.kv_indices[sel], full_num, full_idx,
            BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=_sliced_mask_mod_error,
            seq_lengths=self.seq_lengths, compute_q_blocks=self.q_indices is not None)
        new.dq_kv_order_spt = self.dq_kv_order_spt
        if self.dq_write_order is not None:
            new.dq_write_order, new.dq_write_order_full = _write_order(
                new, bool(new.dq_kv_order_spt))
        return new

    def _adjust(self, new_q_len, new_kv_len):
        """A copy cropped (or kept) to new sequence lengths: the top-left blocks."""
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Adjusting BlockMask with tensor dq_kv_order is not supported yet. "
                "Construct a new BlockMask with matching precomputed dq_write_order "
                "metadata.")
        rows = (new_q_len + self.BLOCK_SIZE[0] - 1) // self.BLOCK_SIZE[0]
        cols = (new_kv_len + self.BLOCK_SIZE[1] - 1) // self.BLOCK_SIZE[1]
        num, idx = _adjust_num_blocks_and_indices(self.kv_num_blocks, self.kv_indices,
                                                  rows, cols)
        fnum = fidx = None
        if self.full_kv_num_blocks is not None:
            fnum, fidx = _adjust_num_blocks_and_indices(
                self.full_kv_num_blocks, self.full_kv_indices, rows, cols)
        new = self.from_kv_blocks(num, idx, fnum, fidx, BLOCK_SIZE=self.BLOCK_SIZE,
                                  mask_mod=self.mask_mod,
                                  seq_lengths=(new_q_len, new_kv_len),
                                  compute_q_blocks=self.q_indices is not None)
        new.dq_kv_order_spt = self.dq_kv_order_spt
        if self.dq_write_order is not None:
            new.dq_write_order, new.dq_write_order_full = _write_order(
                new, bool(new.dq_kv_order_spt))
        return new

    def numel(self):
        """The number of elements of the mask it stands for, ``prod(shape)`` (sparsity
        not counted).

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> create_block_mask(lambda b, h, q, kv: q >= kv, 2, 1, 4, 6,
            ...                   device='cpu', BLOCK_SIZE=2).numel()
            48
        """
        return functools.reduce(operator.mul, self.shape, 1)

    def sparsity(self):
        """The percentage of the mask's area in blocks that are skipped (listed neither as
        partial nor as full), counted in whole blocks.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 8, 8,
            ...                   device='cpu', BLOCK_SIZE=2).sparsity()
            37.5
        """
        blocks = self.kv_num_blocks.sum().item()
        if self.full_kv_num_blocks is not None:
            blocks += self.full_kv_num_blocks.sum().item()
        return 100 * (1 - blocks * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1] / self.numel())

    def to_dense(self):
        """The block layout as a dense int32 0/1 tensor of shape
        ``(*batch_dims, Q_BLOCKS, KV_BLOCKS)``: 1 where a block is listed, partial or full.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 6, 6,
            ...                   device='cpu', BLOCK_SIZE=2).to_dense()[0, 0]
            tensor([[1, 0, 0],
                    [1, 1, 0],
                    [1, 1, 1]], dtype=torch.int32)
        """
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices,
                                  self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    def to_string(self, grid_size=(20, 20), limit=4):
        """A picture of the block layout, one grid per batch/head entry: ``█`` for a kept
        cell, a space for a skipped one, ``░`` for a cell that is partly kept (when the
        layout is shrunk to fit ``grid_size``).

        Args:
            grid_size (int or tuple[int, int]): the largest grid drawn (rows, cols);
                ``-1`` draws every block. Default: ``(20, 20)``.
            limit (int): how many batch/head entries to draw. Default: 4.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> bm = create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 4, 4,
            ...                        device='cpu', BLOCK_SIZE=2)
            >>> print(bm.to_string())
            (0, 0)
            ██  
            ████
            <BLANKLINE>
        """
        dense = self.to_dense()
        *batch_dims, rows, cols = dense.shape
        if isinstance(grid_size, int) and grid_size == -1:
            max_r, max_c = rows, cols
        elif isinstance(grid_size, int):
            max_r = max_c = grid_size
        else:
            max_r, max_c = grid_size
        r_step = max(1, -(-rows // max_r))
        c_step = max(1, -(-cols // max_c))
        out = []
        for n, bidx in enumerate(itertools.product(*[range(i) for i in batch_dims])):
            if n == limit:
                out += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                        "You can also index (BlockMask[batch, head]) to choose a specific "
                        "batch or head"]
                break
            cur = dense
            for i in bidx:
                cur = cur[i]
            text = f"{bidx}\n"
            for r in range(0, rows, r_step):
                for c in range(0, cols, c_step):
                    frac = cur[r:r + r_step, c:c + c_step].float().mean().item()
                    text += ("█" if frac == 1 else " " if frac == 0 else "░") * 2
                text += "\n"
            out.append(text)
        return "\n".join(out)

    def to(self, device):
        """A BlockMask with every tensor field moved to ``device`` (this one is left
        as it is).

        Args:
            device (str or device): the target device.

        Example::

            >>> from ember.nn.attention.flex_attention import create_block_mask
            >>> bm = create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 4, 4,
            ...                        device='cpu', BLOCK_SIZE=2)
            >>> bm.to('cpu').kv_indices.device
            device(type='cpu')
        """
        moved = {a: (None if getattr(self, a) is None else getattr(self, a).to(device))
                 for a in self._TENSOR_ATTRS}
        return BlockMask(seq_lengths=self.seq_lengths, **moved, BLOCK_SIZE=self.BLOCK_SIZE,
                         mask_mod=self.mask_mod, dq_kv_order_spt=self.dq_kv_order_spt)


def _round_up(x, m):
    return (x + m - 1) // m * m


def _mask_to_blocks(mask, B, H, qb, kb, separate_full):
    """Block layouts (int8 0/1, ``(B, H, Q_BLOCKS, KV_BLOCKS)``) of a bool mask that
    broadcasts to ``(B, H, Lq, Lk)``: (partial, full) with ``separate_full``, else (any
    kept, None). Batch/head dims of size 1 are counted once and expanded after."""
    if mask.dtype is not D.bool:
        raise AssertionError(f"mask.dtype must be torch.bool, got {mask.dtype}")
    while mask.dim() < 4:
        mask = mask.unsqueeze(0)
    b, h = mask.shape[:2]
    Lq, Lk = mask.shape[2:]
    pad_q, pad_k = _round_up(Lq, qb) - Lq, _round_up(Lk, kb) - Lk
    if pad_q or pad_k:
        padded = zeros(b, h, Lq + pad_q, Lk + pad_k, dtype=D.bool, device=mask.device)
        padded[:, :, :Lq, :Lk] = mask
        mask = padded
    nq, nk = mask.shape[2] // qb, mask.shape[3] // kb
    counts = mask.reshape(b, h, nq, qb, nk, kb).sum((3, 5)).expand(B, H, nq, nk)
    if separate_full:
        full = counts == qb * kb
        partial = (counts > 0) & ~full
        return partial.to(D.int8), full.to(D.int8)
    return (counts > 0).to(D.int8), None


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks=True, compute_dq_write_order=False,
                      dq_kv_order=True):
    r"""The :class:`BlockMask` of a ``mask_mod``: the mask is evaluated densely, cut into
    ``BLOCK_SIZE`` tiles, and each tile is listed as full (every position kept), partial
    (some kept) or not at all.

    Args:
        mask_mod (callable): ``(b, h, q_idx, kv_idx) -> bool Tensor``, True where a query
            may attend to a key.
        B (int or None): batch size (``None``: 1, broadcast over the batch).
        H (int or None): number of query heads (``None``: 1, broadcast over heads).
        Q_LEN (int): query length.
        KV_LEN (int): key/value length.
        device (str or device, optional): Default: the current accelerator if any, else
            the CPU.
        BLOCK_SIZE (int or tuple[int, int]): ``Q_BLOCK_SIZE`` and ``KV_BLOCK_SIZE``.
            Default: 128.
        _compile (bool): deprecated, as in PyTorch (warns; the mask is built the same).
        separate_full_blocks (bool): list fully kept tiles as full blocks (else every
            non-empty tile is partial). Default: ``True``.
        compute_dq_write_order (bool): also compute the dQ write-order metadata of
            PyTorch's deterministic FLASH backward. Default: ``False``.
        dq_kv_order (bool): the order for that metadata (descending if True). Default:
            ``True``.

    Example::

        >>> from ember.nn.attention.flex_attention import create_block_mask
        >>> causal = lambda b, h, q, kv: q >= kv
        >>> bm = create_block_mask(causal, None, None, 256, 256, device='cpu')
        >>> bm.kv_num_blocks, bm.full_kv_num_blocks
        (tensor([[[1, 1]]], dtype=torch.int32), tensor([[[0, 1]]], dtype=torch.int32))
    """
    device = _default_device(device)
    if _is_score_mod(mask_mod):
        raise AssertionError(
            f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    B = 1 if B is None else B
    H = 1 if H is None else H
    qb, kb = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    if _compile:
        warnings.warn(
            "_compile flag on create_block_mask was originally added to work around a "
            "torch.compile limitation. That limitation has since been addressed. So, to "
            "compile create_block_mask, we suggest doing "
            "torch.compile(create_block_mask). This still works for now, but will be "
            "removed in the future.", DeprecationWarning, stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    mask = _apply_mod(mask_mod, None, B, H, Q_LEN, KV_LEN, device)
    while mask.dim() < 4:
        mask = mask.unsqueeze(0)
    mask = mask.expand(*mask.shape[:2], Q_LEN, KV_LEN)
    partial, full = _mask_to_blocks(mask, B, H, qb, kb, separate_full_blocks)
    pn, pi = _dense_to_ordered(partial)
    fn_, fi = _dense_to_ordered(full) if full is not None else (None, None)
    bm = BlockMask.from_kv_blocks(pn, pi, fn_, fi, BLOCK_SIZE=(qb, kb), mask_mod=mask_mod,
                                  seq_lengths=(Q_LEN, KV_LEN))
    if compute_dq_write_order:
        bm.dq_write_order, bm.dq_write_order_full = _write_order(bm, dq_kv_order)
        bm.dq_kv_order = None
        bm.dq_kv_order_spt = dq_kv_order
    return bm


# ---------------------------------------------------------------------------------------
# attention


def _is_noop_block_mask(bm):
    return bm.BLOCK_SIZE[0] == _LARGE_SPARSE_BLOCK_SIZE and \
        bm.BLOCK_SIZE[1] == _LARGE_SPARSE_BLOCK_SIZE


def _block_element_mask(bm, B, H, L, S, device):
    """The kept positions of ``bm``: ``(partial blocks & mask_mod) | full blocks``, as a
    bool tensor broadcasting to ``(B, H, L, S)`` (batch or head dims of size 1 where the
    layout and ``mask_mod`` do not vary along them); None when everything is kept."""
    qb, kb = bm.BLOCK_SIZE
    nq, nk = -(-L // qb), -(-S // kb)

    def layout(num, idx):
        """The block layout, bool ``(b, h, nq, nk)``, b and h shrunk to 1 if constant."""
        if num is None:
            return None
        while idx.dim() < 4:
            num, idx = num.unsqueeze(0), idx.unsqueeze(0)
        bb, hh = idx.shape[:2]
        if bb not in (1, B) or hh not in (1, H) or idx.dim() != 4:
            raise ValueError(
                f"block_mask has batch/head dims {tuple(idx.shape[:-2])}, which do not "
                f"broadcast to the query's (B={B}, H={H})")
        cols = max(nk, idx.shape[-1])
        dense = _ordered_to_dense(num, idx, cols)[:, :, :nq, :nk].to(D.bool)
        if dense.shape[2] < nq:              # rows the layout does not list: skipped
            pad = zeros(bb, hh, nq, nk, dtype=D.bool, device=device)
            pad[:, :, :dense.shape[2]] = dense
            dense = pad
        if bb > 1 and bool((dense == dense[:1]).all()):
            dense = dense[:1]
        if hh > 1 and bool((dense == dense[:, :1]).all()):
            dense = dense[:, :1]
        return dense

    def elements(dense):                     # each block repeated over its tile
        b, h = dense.shape[:2]
        return dense.view(b, h, nq, 1, nk, 1).expand(b, h, nq, qb, nk, kb).reshape(
            b, h, nq * qb, nk * kb)[:, :, :L, :S]

    partial = layout(bm.kv_num_blocks, bm.kv_indices)
    full = layout(bm.full_kv_num_blocks, bm.full_kv_indices)
    if full is not None and not bool(full.any()):
        full = None
    mm = None
    if bm.mask_mod is not noop_mask:
        mm = _apply_mod(bm.mask_mod, None, B, H, L, S, device)
        if mm.dtype is not D.bool:           # the error PyTorch's where raises
            where(mm, mm, mm)
    if full is None and bool(partial.all()):
        return mm                            # every block partial: mask_mod decides
    keep = elements(partial)
    if mm is not None:
        keep = keep & mm
    if full is not None:
        keep = keep | elements(full)
    return keep


def _match_layout(out, query):
    """``out`` laid out in memory as ``query`` is (its dims in the same stride order, the
    last dim innermost), as PyTorch lays out the output."""
    strides = query.stride()
    order = sorted(range(4), key=lambda d: (strides[d], -d))    # innermost first (ties: inner)
    if order[0] != 3:
        order.remove(3)
        order = [3] + order
    if order == [3, 2, 1, 0]:
        return out.contiguous()
    perm = list(reversed(order))                                # outermost first
    inv = [perm.index(d) for d in range(4)]
    return out.permute(perm).contiguous().permute(inv)


def _check_kernel_options(opts, want_max):
    opts = {} if opts is None else dict(opts)
    if 'BACKEND' in opts and opts.get('FORCE_USE_FLEX_ATTENTION', False):
        raise RuntimeError(
            "BACKEND cannot be combined with legacy FORCE_USE_FLEX_ATTENTION. BACKEND "
            "supersedes the legacy knob; please drop FORCE_USE_FLEX_ATTENTION and only "
            "specify the desired BACKEND.")
    if 'BACKEND' in opts and opts['BACKEND'] not in _BACKENDS:
        raise ValueError(
            f"Invalid BACKEND value '{opts['BACKEND']}'. Must be one of {_BACKENDS}")
    if 'OUTPUT_LOGSUMEXP' in opts:
        raise AssertionError("OUTPUT_LOGSUMEXP must not be in kernel_options")
    if 'OUTPUT_MAX' in opts:
        raise AssertionError("OUTPUT_MAX must not be in kernel_options")
    if opts.get('BACKEND', 'AUTO') == 'FLASH' and want_max:
        raise NotImplementedError(
            "Returning max scores is not supported with BACKEND='FLASH'. Use "
            "return_aux=AuxRequest(lse=True) or omit max_scores.")


def _check_inputs(query, key, value, block_mask, enable_gqa):
    if any(getattr(t, 'is_nested', False) for t in (query, key, value)):
        raise NotImplementedError(
            "flex_attention does not support NestedTensor inputs. Convert inputs to dense "
            "tensors before calling flex_attention.")
    if query.device != key.device or query.device != value.device:
        raise ValueError(
            f"Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device}, key.device: {key.device}, and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} "
            f"instead.")
    if query.size(-1) != key.size(-1):
        raise ValueError(
            f"Expect query and key/value to have the same embedding dimension but got "
            f"E={query.size(-1)} and E={key.size(-1)}.")
    if query.device.type not in ('cpu', 'cuda'):
        raise ValueError(
            "FlexAttention is only supported on CUDA, CPU, HPU, or MPS devices. Found "
            f"input tensors on {query.device.type} device.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if not enable_gqa and query.size(-3) != key.size(-3):
        raise ValueError(
            f"Expect query and key/value to have the same number of heads but got "
            f"Hq={query.size(-3)} and Hkv={key.size(-3)}. Try setting enable_gqa=True for "
            f"GQA.")
    if enable_gqa and query.size(1) % key.size(1) != 0:
        raise ValueError(
            f"Expect number of query heads to be a multiple of kv heads for GQA but got "
            f"Hq={query.size(1)} and Hkv={key.size(1)}.")
    if query.size(0) != key.size(0):
        if block_mask is None:
            raise ValueError(
                f"Expect query and key/value to have the same batch size, or non-none "
                f"block_mask, but got block_mask=None, Bq={query.size(0)}, and "
                f"Bkv={key.size(0)}.")
        if block_mask.kv_num_blocks.size(0) != query.size(0):
            raise ValueError(
                f"Expect query and key/value to have the same batch size, or block_mask "
                f"and query to have the same batch size, but got Bq={query.size(0)}, "
                f"Bkv={key.size(0)}, B_block_mask={block_mask.kv_num_blocks.size(0)}.")


def _check_lengths(query, key, block_mask):
    bq, bk = block_mask.shape[-2], block_mask.shape[-1]
    lq, lk = query.size(-2), key.size(-2)
    if lq > bq or lk > bk:
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={lq} and kv_len={lk}. As the block mask was created for a smaller "
            f"length than you're using it for, you likely need to create a new block mask.")
    if (lq < bq and lk <= bk) or (lq <= bq and lk < bk):
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={lq} and kv_len={lk}. As the block mask was created for a larger "
            f"length than you're using it for, you can either 1. create a new block mask "
            f"with the correct length, or 2. 'adjust' the existing block mask to the "
            f"correct length by calling block_mask._adjust(q_len, kv_len). This "
            f"essentially 'crops' the block mask to the upper left corner, which does not "
            f"work for all mask_mods!")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    r"""Scaled dot product attention whose scores a function may rewrite and a block-sparse
    mask may restrict (FlexAttention).

    For each batch ``b``, query head ``h``, query ``i`` and key ``j`` the score is
    ``s = scale * (query[b, h, i] · key[b, h // G, j])`` (``G = Hq / Hkv``), then
    ``score_mod(s, b, h, i, j)``; positions the mask excludes get ``-inf``; the output is
    the softmax over ``j`` of those scores applied to ``value``. A query row with nothing
    left to attend to gives zeros (and an lse of ``-inf``). The scores are computed in
    float32 (float64 for float64 queries); the output has the query's dtype.

    Args:
        query (Tensor): :math:`(B, H_q, L, E)`.
        key (Tensor): :math:`(B, H_{kv}, S, E)` (batch 1 broadcasts when a
            ``block_mask`` is given).
        value (Tensor): :math:`(B, H_{kv}, S, E_v)`.
        score_mod (callable, optional): ``(score, b, h, q_idx, kv_idx) -> score``. The
            index arguments are int64 tensors; see the module's docstring for the shapes
            ember passes. Default: no change.
        block_mask (BlockMask, optional): the attended positions. Default: all.
        scale (float, optional): Default: :math:`1/\sqrt{E}`.
        enable_gqa (bool): grouped-query attention: ``H_q`` may be a multiple of
            ``H_kv``, query head ``h`` using key/value head ``h // (H_q / H_kv)``.
            Default: ``False``.
        return_lse (bool): deprecated (``FutureWarning``): also return the log-sum-exp;
            use ``return_aux=AuxRequest(lse=True)``. Default: ``False``.
        kernel_options (FlexKernelOptions, optional): checked, otherwise ignored.
        return_aux (AuxRequest, optional): return ``(output, AuxOutput)`` with the
            requested ``lse`` (natural log) and ``max_scores``.

    Returns:
        ``output`` :math:`(B, H_q, L, E_v)`; ``(output, lse)`` with ``return_lse``;
        ``(output, AuxOutput)`` with ``return_aux``.

    Shape:
        - lse, max_scores: :math:`(B, H_q, L)`, float32 (float64 for float64 queries).

    NOTE: unlike PyTorch, ember supports backward on the CPU (PyTorch raises
    ``NotImplementedError`` for CPU inputs that require grad), returns ``max_scores`` on
    the CPU, does not warn that no compiled kernel is used, and honours the block layout
    of ``block_mask`` as PyTorch's compiled kernels do (see the module's docstring).

    Example::

        >>> import ember
        >>> from ember.nn.attention.flex_attention import flex_attention, create_block_mask
        >>> q = k = v = ember.randn(1, 2, 8, 4)
        >>> causal = lambda b, h, q_idx, kv_idx: q_idx >= kv_idx
        >>> bm = create_block_mask(causal, 1, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
        >>> alibi = lambda score, b, h, q_idx, kv_idx: score - (h + 1) * (q_idx - kv_idx)
        >>> flex_attention(q, k, v, score_mod=alibi, block_mask=bm).shape
        torch.Size([1, 2, 8, 4])
    """
    _check_inputs(query, key, value, block_mask, enable_gqa)
    if block_mask is not None and block_mask.mask_mod is _sliced_mask_mod_error:
        raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")
    if block_mask is not None and not _is_noop_block_mask(block_mask):
        _check_lengths(query, key, block_mask)
    else:
        block_mask = None
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    if block_mask is not None and query.device != block_mask.kv_num_blocks.device:
        raise RuntimeError(
            f"Expect q/k/v and block_mask to be on the same device but got {query.device} "
            f"and {block_mask.kv_num_blocks.device}.")
    if return_lse and return_aux is not None:
        raise ValueError(
            "Cannot specify both return_lse and return_aux. return_lse is deprecated, "
            "please use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        _warn_once('deprecated_return_lse',
                   "return_lse is deprecated and will be removed in v2.10. Please use "
                   "return_aux=AuxRequest(lse=True) instead.", FutureWarning)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    want_max = return_aux is not None and return_aux.max_scores
    _check_kernel_options(kernel_options, want_max)

    from ...amp import autocast_mode as _amp
    dt = query.device.type
    if _amp.is_autocast_enabled(dt):
        # as PyTorch: floating query, key and value (float64 excepted) cast to the
        # autocast dtype, then the computation runs without autocast
        low = _amp.get_autocast_dtype(dt)
        query, key, value = (t.to(low) if t.is_floating_point() and t.dtype is not D.float64
                             else t for t in (query, key, value))
        with _amp.autocast(dt, enabled=False):
            return _attend(query, key, value, score_mod, block_mask, scale, enable_gqa,
                           return_lse, return_aux, want_lse, want_max)
    return _attend(query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse,
                   return_aux, want_lse, want_max)


def _attend(query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse,
            return_aux, want_lse, want_max):
    B, Hq, L, E = query.shape
    Bk, Hkv, S = key.shape[0], key.shape[1], key.shape[2]
    if not (Bk == B or (B > 1 and Bk == 1)):
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={B} and Bkv={Bk}")
    if S == 0:
        raise IndexError("max(): Expected reduction dim 3 to have non-zero size.")
    G = Hq // Hkv
    wp = D.float64 if query.dtype is D.float64 else D.float32
    q, k = query.to(wp), key.to(wp)
    if G == 1:
        scores = q @ k.transpose(-2, -1)
    else:   # query heads grouped by kv head: (B, Hkv, G, L, S), no copy of key
        scores = (q.reshape(B, Hkv, G, L, E) @ k.unsqueeze(2).transpose(-2, -1)
                  ).reshape(B, Hq, L, S)
    scores = scores * scale
    dev = query.device
    post = scores
    if score_mod is not None and score_mod is not _identity:
        post = _apply_mod(score_mod, scores, B, Hq, L, S, dev)
        if tuple(post.shape) != (B, Hq, L, S):
            post = post.expand(B, Hq, L, S)
    modded = post is not scores
    keep = None
    if block_mask is not None:
        keep = _block_element_mask(block_mask, B, Hq, L, S, dev)
        if keep is not None:
            post = where(keep, post, _tensor(-math.inf, dtype=wp, device=dev))
    # rows with nothing to attend to: masked whole, or -inf from score_mod
    dead = None
    if modded:
        dead = (post.detach() == -math.inf).all(-1, keepdim=True)
    elif keep is not None:
        dead = ~keep.any(-1, keepdim=True)
    any_dead = dead is not None and bool(dead.any())
    safe = post.masked_fill(dead, 0.) if any_dead else post
    probs = safe.softmax(-1)
    if any_dead:
        probs = probs.masked_fill(dead, 0.)
    probs = probs.to(query.dtype)
    v = value.to(query.dtype)
    if G == 1:
        out = probs @ v
    else:
        out = (probs.reshape(B, Hkv, G, L, S) @ v.unsqueeze(2)).reshape(B, Hq, L, -1)
    out = _match_layout(out, query)

    lse = mx = None
    if want_lse:
        lse = safe.logsumexp(-1)
        if any_dead:
            lse = lse.masked_fill(dead.squeeze(-1), -math.inf)
    if want_max:
        mx = post.max(-1)[0]
    if return_aux is not None:
        return out, AuxOutput(lse=lse, max_scores=mx)
    if return_lse:
        return out, lse
    return out
