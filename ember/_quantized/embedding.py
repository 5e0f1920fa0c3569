"""Quantized embedding tables of ``ember.ops.quantized``: 8-bit (and 4-bit) row-wise packed
weights, ``embedding_byte``, ``embedding_bag_byte`` and their prepack/unpack forms."""
import numpy as np

from .. import _dtype as D
from .tensor import (_ember, _ints)
from .ops import (_F32, _check_q, _op)
from .packed import _check_packed

__all__ = []


# ------------------------------------------------------------------ embeddings
class EmbeddingPackedParamsBase:
    """An embedding table of ``quint8`` rows with float scales and zero points
    (``per_channel_affine_float_qparams`` along rows), prepared for the quantized embedding
    lookups (``torch.classes.quantized.EmbeddingPackedParamsBase``).

    Args:
        weight (Tensor): ``quint8`` table ``(num_embeddings, embedding_dim)``.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_prepack(w).bit_rate()
        8
    """

    def __init__(self, weight):
        _check_q(weight, 'quantized::embedding_bag_prepack')
        if weight.dtype is not D.quint8:
            raise NotImplementedError(f"NOTE: unlike PyTorch, ember's quantized embeddings "
                                      f"take quint8 tables only, got {weight.dtype}")
        if len(weight._qp) != 4 or weight._qp[0] is not D.per_channel_affine_float_qparams:
            raise RuntimeError("Expect embedding_bag weights to be quantized using "
                               "kPerChannelAffineFloatQParams")
        if weight.dim() != 2 or weight._qp[3] != 0:
            raise RuntimeError("Expect weight to be 2-D and quantized along dim 0")
        self._weight = weight
        self._ints = _ints(weight).astype(np.float64)
        self._scales = np.asarray(weight._qp[1]._data, _F32)
        self._bias = (-np.asarray(weight._qp[2]._data, _F32)) * self._scales

    def unpack(self):
        """The quantized table."""
        return self._weight

    def bit_rate(self):
        """Bits per element (8)."""
        return 8

    def version(self):
        """The packing format's version (1)."""
        return 1

    def __getstate__(self):
        return self._weight

    def __setstate__(self, state):
        self.__init__(state)

    def __repr__(self):
        return "<torch.ScriptObject object (EmbeddingPackedParamsBase)>"


@_op('embedding_bag_prepack')
def embedding_bag_prepack(weight):
    """``torch.ops.quantized.embedding_bag_prepack``: pack a ``quint8`` table quantized
    per row with float qparams for :func:`embedding_byte` / :func:`embedding_bag_byte`.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_prepack(w).unpack().shape
        torch.Size([3, 2])
    """
    return EmbeddingPackedParamsBase(weight)


@_op('embedding_bag_unpack')
def embedding_bag_unpack(W_prepack):
    """``torch.ops.quantized.embedding_bag_unpack``: the quantized table of packed
    embedding parameters.

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_bag_unpack(ember.ops.quantized.embedding_bag_prepack(w)).shape
        torch.Size([3, 2])
    """
    return W_prepack.unpack()


def _emb_indices(packed, indices, op):
    _check_packed(packed, EmbeddingPackedParamsBase, op)
    idx = np.asarray(indices._data).astype(np.int64)
    n = packed._ints.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"{op}: index out of range in self (num_embeddings {n})")
    return idx


def _emb_rows(packed, idx, wgt=None, acc=None):
    """Rows ``idx`` of the table as float32: ``fma(w * scale, q, acc + w * bias)`` (the
    fused 8-bit row-wise lookup; ``w`` a per-sample weight, ``acc`` a running sum)."""
    s = packed._scales[idx]
    b = packed._bias[idx]
    if wgt is not None:
        s = (s * wgt).astype(_F32)
        b = (b * wgt).astype(_F32)
    base = b[:, None] if acc is None else (acc + b[:, None]).astype(_F32)
    return (packed._ints[idx] * s[:, None].astype(np.float64) + base.astype(np.float64)
            ).astype(_F32)


@_op('embedding_byte')
def embedding_byte(weight, indices, pruned_weights=False):
    """``torch.ops.quantized.embedding_byte``: look up rows of a packed ``quint8`` table
    (dequantized to float32).

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> ember.ops.quantized.embedding_byte(ember.ops.quantized.embedding_bag_prepack(w), ember.tensor([0, 2]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    idx = _emb_indices(weight, indices, 'quantized::embedding_byte')
    flat = idx.reshape(-1)
    rows = _emb_rows(weight, flat)
    return _ember().as_tensor(rows.reshape(idx.shape + (rows.shape[-1],)))


@_op('embedding_bag_byte')
def embedding_bag_byte(weight, indices, offsets=None, scale_grad_by_freq=False, mode=0,
                       pruned_weights=False, per_sample_weights=None,
                       compressed_indices_mapping=None, include_last_offset=False):
    """``torch.ops.quantized.embedding_bag_byte``: sums of rows of a packed ``quint8``
    table over bags (``offsets`` start each bag; a 2-D ``indices`` is one bag per row),
    optionally weighted per sample.

    NOTE: unlike PyTorch, only ``mode=0`` (sum) is provided (PyTorch's quantized
    ``EmbeddingBag`` module always passes it).

    Example::

        >>> w = ember.quantize_per_channel(ember.ones(3, 2), ember.ones(3), ember.zeros(3), 0, ember.quint8)
        >>> p = ember.ops.quantized.embedding_bag_prepack(w)
        >>> ember.ops.quantized.embedding_bag_byte(p, ember.tensor([0, 1, 2]), ember.tensor([0, 1]))
        tensor([[1., 1.],
                [2., 2.]])
    """
    op = 'quantized::embedding_bag_byte'
    if mode != 0:
        raise NotImplementedError("NOTE: unlike PyTorch, ember's quantized embedding_bag_byte "
                                  "computes mode=0 (sum) only")
    idx = _emb_indices(weight, indices, op)
    if idx.ndim == 2:
        n_bags, L = idx.shape
        starts = np.arange(n_bags) * L
        idx = idx.reshape(-1)
    else:
        if offsets is None:
            raise RuntimeError("offsets has to be a 1D Tensor but got null")
        starts = np.asarray(offsets._data).astype(np.int64).reshape(-1)
        if include_last_offset:
            starts = starts[:-1]
    if compressed_indices_mapping is not None:
        idx = np.asarray(compressed_indices_mapping._data).astype(np.int64)[idx]
    ends = np.append(starts[1:], idx.size) if starts.size else starts
    if include_last_offset and offsets is not None:
        ends = np.asarray(offsets._data).astype(np.int64).reshape(-1)[1:]
    psw = None if per_sample_weights is None else np.asarray(
        per_sample_weights.detach()._data, _F32).reshape(-1)
    D_ = weight._ints.shape[1]
    out = np.zeros((starts.size, D_), _F32)
    lengths = ends - starts
    for k in range(int(lengths.max(initial=0))):
        live = np.flatnonzero(lengths > k)
        pos = starts[live] + k
        out[live] = _emb_rows(weight, idx[pos], None if psw is None else psw[pos], out[live])
    return _ember().as_tensor(out)


class _FusedRows(EmbeddingPackedParamsBase):
    """A fused 8-bit row-wise table (``uint8`` rows, then each row's float32 scale and
    bias in its last 8 bytes) read for the embedding-bag kernels."""

    def __init__(self, packed):
        a = np.ascontiguousarray(np.asarray(packed._data))
        if a.dtype != np.uint8 or a.ndim < 2:
            raise RuntimeError("Expected a 2-D uint8 fused 8-bit row-wise table")
        a = a.reshape(-1, a.shape[-1])
        self._ints = a[:, :-8].astype(np.float64)
        self._scales = a[:, -8:-4].copy().view(_F32).reshape(-1)
        self._bias = a[:, -4:].copy().view(_F32).reshape(-1)
        self._weight = packed


@_op('embedding_bag_byte_prepack')
def embedding_bag_byte_prepack(weight):
    """``torch.ops.quantized.embedding_bag_byte_prepack``: a float table quantized per row
    to 8 bits (``scale = (max - min) / 255``, ``bias = min``), as ``uint8`` rows each
    followed by its float32 scale and bias (``embedding_dim + 8`` bytes).

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0]]))
        >>> p.shape, p[0, :2]
        (torch.Size([1, 10]), tensor([  0, 255], dtype=torch.uint8))
    """
    w = np.asarray(weight.detach().float()._data, _F32)
    lo = w.min(axis=-1, keepdims=True)
    hi = w.max(axis=-1, keepdims=True)
    rng = (hi - lo).astype(_F32)
    scale = (rng / _F32(255)).astype(_F32)
    inv = (_F32(255) / (rng + _F32(1e-8))).astype(_F32)
    q = np.clip(np.rint(((w - lo).astype(_F32) * inv).astype(_F32)), 0, 255).astype(np.uint8)
    out = np.concatenate([q, scale.view(np.uint8).reshape(scale.shape[:-1] + (4,)),
                          lo.astype(_F32).view(np.uint8).reshape(lo.shape[:-1] + (4,))],
                         axis=-1)
    return _ember().as_tensor(out)


@_op('embedding_bag_byte_unpack')
def embedding_bag_byte_unpack(weight):
    """``torch.ops.quantized.embedding_bag_byte_unpack``: the float rows of a fused 8-bit
    row-wise table (``q * scale + bias``, one rounding).

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0]]))
        >>> ember.ops.quantized.embedding_bag_byte_unpack(p)
        tensor([[0., 1.]])
    """
    t = _FusedRows(weight)
    rows = (t._ints * t._scales[:, None].astype(np.float64) + t._bias[:, None]).astype(_F32)
    lead = tuple(weight.shape[:-1])
    return _ember().as_tensor(rows.reshape(lead + (rows.shape[-1],)))


@_op('embedding_bag_byte_rowwise_offsets')
def embedding_bag_byte_rowwise_offsets(weight, indices, offsets=None, scale_grad_by_freq=False,
                                       mode=0, pruned_weights=False, per_sample_weights=None,
                                       compressed_indices_mapping=None,
                                       include_last_offset=False):
    """``torch.ops.quantized.embedding_bag_byte_rowwise_offsets``: bag sums over a fused
    8-bit row-wise table (from :func:`embedding_bag_byte_prepack`); arguments as
    :func:`embedding_bag_byte`.

    Example::

        >>> p = ember.ops.quantized.embedding_bag_byte_prepack(ember.tensor([[0.0, 1.0], [1.0, 1.0]]))
        >>> ember.ops.quantized.embedding_bag_byte_rowwise_offsets(p, ember.tensor([0, 1]), ember.tensor([0]))
        tensor([[1., 2.]])
    """
    return embedding_bag_byte(_FusedRows(weight), indices, offsets, scale_grad_by_freq, mode,
                              pruned_weights, per_sample_weights, compressed_indices_mapping,
                              include_last_offset)
