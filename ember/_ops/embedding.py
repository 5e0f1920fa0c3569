"""Embedding lookups: embedding, embedding_bag, one_hot; ``ember.embedding``,
``ember.embedding_bag`` and ``ember.embedding_renorm_`` at the torch level.

The lookups gather rows of the weight; their weight gradients are scatter-adds of the
upstream gradient rows (``index_add``), written in ember ops so that double backward works.
With ``sparse=True`` the weight gradient of ``embedding`` is a sparse COO tensor (as
PyTorch's); ``embedding_bag``'s stays dense.

``__all__`` lists the names ``ember.nn.functional`` re-exports."""
import warnings

import numpy as np

from .._tensor import Tensor, _Mode, _legacy_name
from .. import _dtype as _D
from .._backend import array_module
from . import _args
from ._util import wrap, Node, register, record

__all__ = ['embedding', 'embedding_bag', 'one_hot']

_SUM, _MEAN, _MAX = 0, 1, 2


def _check_indices(indices, argno, fname):
    if indices._data.dtype.kind not in 'iu' or indices._data.dtype.itemsize not in (4, 8) \
            or indices._data.dtype.kind == 'u':
        raise RuntimeError(f"Expected tensor for argument #{argno} 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{_tensor_type(indices)} instead (while checking arguments for "
                           f"{fname})")


def _tensor_type(t):
    return f"torch.{_legacy_name(t.dtype)}Tensor"


def _ints(t):
    """The index array of ``t`` as int64."""
    a = t._data
    return a if a.dtype == np.int64 else a.astype(np.int64)


# ----------------------------------------------------------------------------- embedding
# ``sparse=True`` weight gradients are sparse COO tensors, made by ``ember.sparse`` (a
# higher layer), which sets this hook when it loads: ``fn(indices, values, size)``
_SPARSE_GRAD = None


class EmbeddingBackward0(Node):
    __slots__ = ('idx', 'num', 'padding_idx', 'scale', 'dim', 'sparse')

    def backward(self, g):
        idx = self.idx                      # flat int64 index tensor
        d = g.shape[-1]
        g2 = g.reshape(-1, d)
        if getattr(self, 'sparse', False) and _SPARSE_GRAD is not None:
            if self.scale:
                raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                                   "sparse gradients")
            if self.padding_idx >= 0:       # padding rows get no gradient entry
                keep = (idx != self.padding_idx).nonzero().reshape(-1)
                idx, g2 = idx[keep], g2[keep]
            return _SPARSE_GRAD(idx.reshape(1, -1), g2, (self.num, d))
        w = _row_scale(idx, self.num, self.padding_idx, self.scale, g.dtype)
        if w is not None:
            g2 = g2 * w.unsqueeze(1)
        return g.new_zeros((self.num, d)).index_add(0, idx, g2)


def _row_scale(idx, num, padding_idx, scale, dtype):
    """Per-index factors of the weight gradient: ``1 / count(index)`` with
    ``scale_grad_by_freq``, 0 for ``padding_idx`` (None when all are 1)."""
    if not scale and padding_idx < 0:
        return None
    a = idx._data
    xp = array_module(a)
    f = xp.ones(a.shape, dtype._np)
    if scale:
        counts = xp.bincount(a, minlength=num)
        f = (f / counts[a]).astype(dtype._np)
    if padding_idx >= 0:
        f = xp.where(a == padding_idx, f.dtype.type(0), f)
    return wrap(f)


@register('embedding', method=False)
def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Looks up rows of ``weight`` (``(num_embeddings, embedding_dim)``) at ``indices``: the
    ``torch``-level form behind :func:`ember.nn.functional.embedding` (weight first,
    ``padding_idx=-1`` meaning none).

    Args:
        weight (Tensor): the embedding matrix.
        indices (Tensor): int64 or int32 indices, any shape.
        padding_idx (int): the row whose gradient is kept zero (-1: none). Default: -1
        scale_grad_by_freq (bool): divide gradients by index frequency. Default: False
        sparse (bool): the weight's gradient is a sparse COO tensor (one entry per
            index, padding rows left out). Default: False

    Example::

        >>> ember.embedding(ember.eye(3), ember.tensor([2, 0]))
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    if not isinstance(weight, Tensor):
        _args.tensor(weight, 'embedding', 'weight', 1)
    if not isinstance(indices, Tensor):
        _args.tensor(indices, 'embedding', 'indices', 2)
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, 1, 'embedding')
    w = weight._data
    xp = array_module(w)
    idx = _ints(indices)
    num = w.shape[0]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= num):
        raise IndexError("index out of range in self")
    out = wrap(xp.take(w, idx.reshape(-1), axis=0).reshape(idx.shape + (w.shape[1],)))
    if _Mode.grad and weight._rg:
        node = EmbeddingBackward0()
        node.idx = wrap(idx.reshape(-1))
        node.num = num
        node.padding_idx = int(padding_idx) if padding_idx is not None else -1
        node.scale = bool(scale_grad_by_freq)
        node.sparse = bool(sparse)
        record(out, node, (weight,))
    return out


_embedding.__name__ = _embedding.__qualname__ = 'embedding'


@register(method=False)
def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescales, in place, each row of ``input`` (an embedding weight) named in
    ``indices`` whose ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm`` (scale
    ``max_norm / (norm + 1e-7)``). Rows not indexed are left alone. Returns ``input``.

    Args:
        input (Tensor): 2-D weight, modified in place.
        indices (Tensor): int64 or int32 row indices.
        max_norm (float): the largest norm allowed.
        norm_type (float): the p of the p-norm.

    Example::

        >>> w = ember.tensor([[3., 4.], [0.3, 0.4]])
        >>> ember.embedding_renorm_(w, ember.tensor([0, 1]), 1.0, 2.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'embedding_renorm_', 'input', 1)
    if not isinstance(indices, Tensor):
        _args.tensor(indices, 'embedding_renorm_', 'indices', 2)
    _check_indices(indices, 2, 'embedding_renorm_')
    if input._data.ndim != 2:
        raise RuntimeError("embedding_renorm_(): input must be 2-D")
    idx = _ints(indices).reshape(-1)
    xp = array_module(input._data)
    num = input._data.shape[0]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= num):
        bad = int(idx.max()) if int(idx.max()) >= num else int(idx.min())
        raise IndexError(f"select(): index {bad} out of range for tensor of size "
                         f"[{num}, {input._data.shape[1]}] at dimension 0")
    uniq = xp.unique(idx)
    if not uniq.size:
        return input
    from .norms import vector_norm
    rows = wrap(input._data[uniq])
    norms = vector_norm(rows, float(norm_type), dim=1)._data.astype(np.float64)
    big = norms > float(max_norm)
    if not bool(big.any()):
        return input
    scale = (float(max_norm) / (norms[big] + 1e-7)).astype(input._data.dtype)
    new = input._data[uniq[big]] * scale[:, None]
    input.index_copy_(0, wrap(uniq[big]), wrap(new.astype(input._data.dtype)))
    return input


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Looks up the rows of ``weight`` at the indices in ``input``.

    Args:
        input (Tensor): int64/int32 indices, any shape.
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        padding_idx (int, optional): a row (negative counts from the end) that gets no
            gradient. Default: None
        max_norm (float, optional): rows looked up whose norm exceeds this are renormalised
            to it IN PLACE in ``weight`` first. Default: None
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0
        scale_grad_by_freq (bool): divide each row's gradient by how often its index
            occurs in ``input``. Default: False
        sparse (bool): the weight's gradient is a sparse COO tensor. Default: False

    Shape:
        - input: ``(*)``; weight: ``(V, D)``; output: ``(*, D)``.

    Example::

        >>> F.embedding(ember.tensor([[0, 2]]), ember.eye(3))
        tensor([[[1., 0., 0.],
                 [0., 0., 1.]]])
    """
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _renorm_no_grad(weight, input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _renorm_no_grad(weight, input, max_norm, norm_type):
    prev = _Mode.grad
    _Mode.grad = False
    try:
        embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    finally:
        _Mode.grad = prev


# ------------------------------------------------------------------------- embedding_bag
class EmbeddingBagBackward0(Node):
    __slots__ = ('st',)

    def backward(self, g):
        st = self.st
        weight, psw = self.saved_tensors
        need_w, need_p = self.needs[0], self.needs[1] if len(self.needs) > 1 else False
        gw = gp = None
        if st.mode == _MAX:
            if need_w:
                num, d = st.num, g.shape[1]
                flat = st.max_flat        # flat positions in (num * d) of each winner
                gsel = g.reshape(-1).index_select(0, st.max_src)
                gw = g.new_zeros((num * d,)).index_add(0, flat, gsel).view(num, d)
            return gw
        rows_g = g.index_select(0, st.bag_k)                     # (K, D)
        if need_w:
            r = rows_g
            if st.mode == _MEAN:
                r = r / st.size_k.to(g.dtype).unsqueeze(1)
            if psw is not None:
                r = r * psw.index_select(0, st.pos_k).unsqueeze(1)
            if st.freq_k is not None:
                r = r * st.freq_k.to(g.dtype).unsqueeze(1)
            gw = g.new_zeros((st.num, g.shape[1])).index_add(0, st.idx_k, r)
        if need_p and psw is not None:
            dots = (rows_g * weight.index_select(0, st.idx_k)).sum(1)
            gp = g.new_zeros((st.nnz,)).index_add(0, st.pos_k, dots)
        return gw if psw is None else (gw, gp)


class _BagState:
    __slots__ = ('mode', 'num', 'nnz', 'bag_k', 'idx_k', 'pos_k', 'size_k', 'freq_k',
                 'max_flat', 'max_src')


def _bag_checks(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                padding_idx):
    for t, arg, pos in ((weight, 'weight', 1), (indices, 'indices', 2), (offsets, 'offsets', 3)):
        if not isinstance(t, Tensor):
            _args.tensor(t, 'embedding_bag', arg, pos)
    _check_indices(indices, 1, 'embedding_bag')
    if offsets._data.dtype.kind not in 'i' or offsets._data.dtype.itemsize not in (4, 8):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{_tensor_type(offsets)} instead (while checking arguments for "
                           f"embedding_bag)")
    if weight._data.dtype.kind not in 'fV':
        raise RuntimeError(f'"embedding_bag_cpu_out" not implemented for '
                           f"'{_legacy_name(weight.dtype)}'")
    if per_sample_weights is not None:
        if per_sample_weights.dtype != weight.dtype:
            raise RuntimeError(
                f"Expected tensor for argument #1 'weight' to have the same type as tensor for "
                f"argument #1 'per_sample_weights'; but type {_tensor_type(weight)} does not "
                f"equal {_tensor_type(per_sample_weights)} (while checking arguments for "
                f"embedding_bag)")
        if mode != _SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with "
                               "mode='sum'")
    num = weight._data.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                           f"through {num - 1}, but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += num
    return padding_idx


@register('embedding_bag', method=False)
def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the maximum of bags of embedding rows: the ``torch``-level
    form behind :func:`ember.nn.functional.embedding_bag` (weight first, ``mode`` 0 = sum,
    1 = mean, 2 = max). Returns ``(output, offset2bag, bag_size, max_indices)`` as PyTorch's
    CPU kernel does: the bag of each index, the bag sizes, and the winning rows of the max
    mode (for the sum mode without ``padding_idx`` ``offset2bag`` is empty and the other two
    are zeros; for the mean mode ``max_indices`` repeats ``bag_size``).

    NOTE: unlike PyTorch, ``sparse=True`` gives a dense gradient. ``scale_grad_by_freq``
    gives PyTorch's CPU numbers, quirk included: the ``r``-th distinct index (in sorted
    order) is divided by the frequency of the ``r``-th entry of the sorted indices.

    Args:
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        indices (Tensor): 1-D indices of all bags, concatenated.
        offsets (Tensor): 1-D start of each bag in ``indices``.
        scale_grad_by_freq (bool): divide gradients by index frequency. Default: False
        mode (int): 0 sum, 1 mean, 2 max. Default: 0
        sparse (bool): accepted; gradients stay dense. Default: False
        per_sample_weights (Tensor, optional): a weight per index (sum mode). Default: None
        include_last_offset (bool): ``offsets`` ends with the end of the last bag.
            Default: False
        padding_idx (int, optional): a row left out of every bag. Default: None

    Example::

        >>> out = ember.embedding_bag(ember.eye(3), ember.tensor([0, 1, 2]),
        ...                           ember.tensor([0, 2]))[0]
        >>> out
        tensor([[1., 1., 0.],
                [0., 0., 1.]])
    """
    pidx = _bag_checks(weight, indices, offsets, mode, per_sample_weights,
                       include_last_offset, padding_idx)
    w = weight._data
    xp = array_module(w)
    num, d = w.shape
    idx = _ints(indices).reshape(-1)
    offs = _ints(offsets).reshape(-1)
    nnz = idx.size
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= num):
        j = int(xp.nonzero((idx < 0) | (idx >= num))[0][0])
        raise RuntimeError(f"Index {j} of input takes value {int(idx[j])} which is not in the "
                           f"valid range [0, {num})")
    if offs.size and int(offs[0]) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(offs[0])}")
    if offs.size and int(offs[-1]) > nnz:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {nnz} but got "
                           f"offsets[-1] of {int(offs[-1])}")
    if offs.size > 1 and bool((offs[1:] < offs[:-1]).any()):
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")
    if include_last_offset:
        nb = max(offs.size - 1, 0)
        starts, end = offs[:nb], (int(offs[-1]) if offs.size else 0)
    else:
        nb = offs.size
        starts, end = offs, nnz
    idt = indices._data.dtype if indices._data.dtype == offsets._data.dtype else np.int64
    pos = xp.arange(nnz)
    bag = (xp.searchsorted(starts, pos, side='right') - 1) if nb else xp.zeros(nnz, np.int64)
    keep = pos < end
    if pidx >= 0:
        keep &= idx != pidx
    if not nb:
        keep = xp.zeros(nnz, bool)
    pos_k = pos[keep]
    bag_k = bag[keep]
    idx_k = idx[keep]
    size = xp.bincount(bag_k, minlength=nb)[:nb] if nb else xp.zeros(0, np.int64)
    rows = w[idx_k]
    psw = per_sample_weights
    if psw is not None:
        rows = rows * psw._data.reshape(-1)[pos_k][:, None]
    out = xp.zeros((nb, d), w.dtype)
    st = _BagState()
    st.mode, st.num, st.nnz = mode, num, nnz
    if mode == _MAX:
        if rows.shape[0]:
            out_max = xp.full((nb, d), -xp.inf, w.dtype)
            xp.maximum.at(out_max, bag_k, rows)
            hit = rows == out_max[bag_k]
            cand = xp.where(hit, xp.arange(rows.shape[0])[:, None], rows.shape[0])
            first = xp.full((nb, d), rows.shape[0], np.int64)
            xp.minimum.at(first, bag_k, cand)
            filled = size > 0
            out[filled] = out_max[filled]
            win = xp.where(filled[:, None], idx_k[xp.minimum(first, rows.shape[0] - 1)], 0)
        else:
            win = xp.zeros((nb, d), np.int64)
        max_indices = win
        bsel = xp.nonzero(xp.repeat(size > 0, d))[0]
        st.max_src = wrap(bsel)
        st.max_flat = wrap(win.reshape(-1)[bsel] * d + (bsel % d))
    else:
        if rows.shape[0]:
            xp.add.at(out, bag_k, rows)
        if mode == _MEAN:
            nz = size > 0
            out[nz] = out[nz] / size[nz][:, None].astype(w.dtype)
            max_indices = size
        else:
            max_indices = xp.zeros(offs.size, np.int64)   # one per offset, as PyTorch's
    if mode == _SUM and pidx < 0:
        offset2bag = xp.zeros(0, np.int64)
    else:
        offset2bag = bag if nb else xp.zeros(nnz, np.int64)
    bag_size = size if mode != _SUM else xp.zeros(offs.size, np.int64)
    res = wrap(out)
    need_w = _Mode.grad and weight._rg
    need_p = _Mode.grad and psw is not None and psw._rg
    if need_w or need_p:
        st.bag_k, st.idx_k, st.pos_k = wrap(bag_k), wrap(idx_k), wrap(pos_k)
        st.size_k = wrap(size[bag_k]) if mode == _MEAN else None
        st.freq_k = None
        if scale_grad_by_freq:
            # PyTorch's CPU kernel scales the r-th distinct index (sorted) by the count of
            # the r-th entry of the sorted indices (repeats included), not by its own count
            cnt = xp.bincount(idx, minlength=num)
            srt = xp.sort(idx)
            rank = xp.searchsorted(xp.unique(idx), idx_k)
            st.freq_k = wrap((1.0 / cnt[srt[rank]]).astype(w.dtype))
        node = EmbeddingBagBackward0()
        node.st = st
        ins = (weight,) if psw is None else (weight, psw)
        record(res, node, ins, save=(weight if need_p else None, psw))
    cast = (lambda a: a.astype(idt)) if idt != np.int64 else (lambda a: a)
    return (res, wrap(cast(offset2bag)), wrap(cast(bag_size)), wrap(cast(max_indices)))


_embedding_bag.__name__ = _embedding_bag.__qualname__ = 'embedding_bag'


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the maximum of "bags" of embedding rows, without building
    the intermediate ``(n, D)`` lookups.

    Args:
        input (Tensor): 1-D indices of all bags (with ``offsets``), or 2-D ``(B, N)``: ``B``
            bags of ``N`` indices each (then ``offsets`` must be None).
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        offsets (Tensor, optional): 1-D start of each bag in a 1-D ``input``.
        max_norm (float, optional): renormalise looked-up rows of ``weight`` IN PLACE to at
            most this norm. Default: None
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2
        scale_grad_by_freq (bool): divide gradients by index frequency (not with ``max``).
            Default: False
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``
        sparse (bool): NOTE: unlike PyTorch, accepted but the gradient is dense.
            Default: False
        per_sample_weights (Tensor, optional): a weight per index, same shape as ``input``
            (``mode='sum'`` only). Default: None
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last
            bag. Default: False
        padding_idx (int, optional): a row left out of every bag (and of the mean's count).
            Default: None

    Shape:
        - output: ``(B, embedding_dim)``.

    Example::

        >>> F.embedding_bag(ember.tensor([[0, 1], [2, 2]]), ember.eye(3), mode='sum')
        tensor([[1., 1., 0.],
                [0., 0., 2.]])
    """
    if weight.dtype is _D.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {_type_str(offsets)}")
        from .creation import arange
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype,
                         device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == 'sum':
        mode_enum = _SUM
    elif mode == 'mean':
        mode_enum = _MEAN
    elif mode == 'max':
        mode_enum = _MAX
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm_no_grad(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != 'sum':
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                          per_sample_weights, include_last_offset, padding_idx)[0]


def _type_str(v):
    t = type(v)
    if isinstance(v, Tensor):
        return "<class 'torch.Tensor'>" if t is Tensor else str(t)
    return str(t)




# ------------------------------------------------------------------------------- one_hot
def one_hot(tensor, num_classes=-1):
    """One-hot encoding of an int64 tensor of class indices: the result has a last dim of
    size ``num_classes`` (``max + 1`` of the input when -1), 1 at each index, 0 elsewhere.

    Args:
        tensor (LongTensor): class values, any shape.
        num_classes (int): number of classes; -1 infers ``tensor.max() + 1``. Default: -1

    Returns:
        LongTensor: ``(*, num_classes)``.

    Example::

        >>> F.one_hot(ember.arange(0, 5) % 3)
        tensor([[1, 0, 0],
                [0, 1, 0],
                [0, 0, 1],
                [1, 0, 0],
                [0, 1, 0]])
    """
    if not isinstance(tensor, Tensor):
        _args.tensor(tensor, 'one_hot', 'self', 1)
    num_classes = _args.as_int(num_classes, 'one_hot', 'num_classes', 2) \
        if type(num_classes) is not int else num_classes
    if not -9223372036854775808 <= num_classes < 9223372036854775808:
        raise ValueError("Overflow when unpacking long long")
    a = tensor._data
    if a.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = array_module(a)
    if a.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return wrap(xp.zeros(a.shape + (max(num_classes, 0),), np.int64))
    lo, hi = int(a.min()), int(a.max())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap((a[..., None] == xp.arange(num_classes)).astype(np.int64))
