"""``ember.nn.utils.rnn``: packed variable-length sequences for the recurrent layers.

``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``,
``unpad_sequence``, ``pack_sequence``, ``unpack_sequence``, ``invert_permutation``.
Gradients flow through packing and padding."""
from collections import namedtuple
from collections.abc import Iterable

from ..._tensor import Tensor

__all__ = ['PackedSequence', 'invert_permutation', 'pack_padded_sequence',
           'pad_packed_sequence', 'pad_sequence', 'unpad_sequence', 'pack_sequence',
           'unpack_sequence']


PackedSequence_ = namedtuple('PackedSequence_',
                             ['data', 'batch_sizes', 'sorted_indices', 'unsorted_indices'])


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and the list of ``batch_sizes`` of a packed sequence.

    A named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)``: ``data`` holds
    the time steps one after the other, each with the sequences still running at that step
    (``batch_sizes[t]`` rows); ``sorted_indices`` is the order the batch was sorted into by
    decreasing length (``None`` when it was given sorted), ``unsorted_indices`` its inverse.
    Build instances with :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand.

    Args:
        data (Tensor): ``(sum(batch_sizes), *)``.
        batch_sizes (Tensor): int64, on the CPU.
        sorted_indices (Tensor, optional): the sorting permutation.
        unsorted_indices (Tensor, optional): its inverse (computed when omitted).

    Example::

        >>> from ember.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([ember.tensor([1, 2, 3]), ember.tensor([4, 5])])
        >>> p.data, p.batch_sizes
        (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    """
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_init_args(data, batch_sizes, sorted_indices,
                                                unsorted_indices))

    def pin_memory(self):
        """A copy with ``data`` (and the indices) in pinned memory."""
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``data.to(*args, **kwargs)``; the indices follow ``data``'s device, ``batch_sizes``
        stays on the CPU. Returns ``self`` when ``data`` does not change.

        Example::

            >>> p = nn.utils.rnn.pack_sequence([ember.ones(2), ember.ones(1)])
            >>> p.to(ember.float64).data.dtype
            torch.float64
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get('non_blocking', False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)
        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, call_to),
                          _bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        """``to('cuda', ...)``."""
        kwargs.setdefault('device', 'cuda')
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        """``to('cpu', ...)``."""
        kwargs.setdefault('device', 'cpu')
        return self.to(*args, **kwargs)

    def double(self):
        """``to(dtype=float64)``."""
        return self._cast('float64')

    def float(self):
        """``to(dtype=float32)``."""
        return self._cast('float32')

    def half(self):
        """``to(dtype=float16)``."""
        return self._cast('float16')

    def long(self):
        """``to(dtype=int64)``."""
        return self._cast('int64')

    def int(self):
        """``to(dtype=int32)``."""
        return self._cast('int32')

    def short(self):
        """``to(dtype=int16)``."""
        return self._cast('int16')

    def char(self):
        """``to(dtype=int8)``."""
        return self._cast('int8')

    def byte(self):
        """``to(dtype=uint8)``."""
        return self._cast('uint8')

    def _cast(self, name):
        from ... import _dtype as D
        return self.to(dtype=getattr(D, name))

    @property
    def is_cuda(self):
        """Whether ``data`` is on a CUDA device."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory."""
        return self.data.is_pinned()


def _init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != 'cpu':
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a permutation (``None`` stays ``None``).

    Args:
        permutation (Tensor or None): a 1-D int64 permutation of ``0..n-1``.

    Example::

        >>> nn.utils.rnn.invert_permutation(ember.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    from ..._ops.creation import empty_like, arange
    out = empty_like(permutation)
    out.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return out


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of variable-length sequences.

    Args:
        input (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of ints): the length of each sequence (on the CPU).
        batch_first (bool): layout of ``input``. Default: ``False``.
        enforce_sorted (bool): require ``lengths`` in decreasing order (``True``), or sort
            the batch here and record the permutation (``False``). Default: ``True``.

    Returns:
        PackedSequence.

    NOTE: unlike PyTorch, a length above the input's sequence length raises a
    ``RuntimeError`` (PyTorch reads past the end of the input).

    Example::

        >>> x = ember.tensor([[1, 2, 3], [4, 5, 0]])
        >>> nn.utils.rnn.pack_padded_sequence(x, [3, 2], batch_first=True).data
        tensor([1, 4, 2, 5, 3])
    """
    from ..._ops.creation import as_tensor
    from ..._ops.reduction import sort
    from ... import _dtype as D
    from ..._ops.rnn import _pack_padded_sequence
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=D.int64, device='cpu')
    else:
        lengths = lengths.to(dtype=D.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pad a packed batch of variable-length sequences (the inverse of
    :func:`pack_padded_sequence`).

    Args:
        sequence (PackedSequence): the batch.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``. Default: ``False``.
        padding_value (float): value of the padded elements. Default: ``0.0``.
        total_length (int, optional): pad to this length (at least the longest sequence).

    Returns:
        ``(padded, lengths)``: the padded batch and an int64 tensor of the lengths, in the
        batch's original order.

    Example::

        >>> p = nn.utils.rnn.pack_sequence([ember.tensor([1, 2]), ember.tensor([3])])
        >>> nn.utils.rnn.pad_packed_sequence(p, batch_first=True)
        (tensor([[1, 2],
                [3, 0]]), tensor([2, 1]))
    """
    from ..._ops.rnn import _pad_packed_sequence
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and "
                             f"max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                           padding_value, max_seq_length)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        return (padded.index_select(0 if batch_first else 1, unsorted),
                lengths[unsorted.cpu()])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'):
    """Pad a list of variable-length tensors (``(L_i, *)``) with ``padding_value`` into
    one ``(L_max, B, *)`` tensor (``(B, L_max, *)`` with ``batch_first``).

    Args:
        sequences (list of Tensors): the sequences (a tensor counts as the list of its rows).
        batch_first (bool): batch dimension first. Default: ``False``.
        padding_value (float): value of the padded elements. Default: ``0.0``.
        padding_side (str): ``'right'`` or ``'left'``. Default: ``'right'``.

    Returns:
        Tensor of the first sequence's dtype.

    Example::

        >>> nn.utils.rnn.pad_sequence([ember.ones(2), ember.ones(1)], batch_first=True)
        tensor([[1., 1.],
                [1., 0.]])
    """
    from ..._ops.creation import full
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ('left', 'right'):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for s in sequences:
        if not isinstance(s, Tensor):
            raise TypeError("pad_sequence(): argument 'sequences' must be tuple of Tensors, "
                            f"but found element of type {type(s).__name__}")
        if s.dim() == 0:
            raise RuntimeError("pad_sequence: every sequence needs at least one dimension "
                               "(the sequence length)")
    first = sequences[0]
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(first.shape[1:])
    B = len(sequences)
    shape = (B, max_len) + trailing if batch_first else (max_len, B) + trailing
    out = full(shape, padding_value, dtype=first.dtype, device=first.device)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        sl = slice(0, n) if padding_side == 'right' else slice(max_len - n, max_len)
        if batch_first:
            out[i, sl] = s
        else:
            out[sl, i] = s
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of variable-length tensors.

    As PyTorch's, with ``batch_first=False`` this transposes ``padded_sequences`` in place
    (``transpose_(0, 1)``).

    Args:
        padded_sequences (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor): the length of each sequence.
        batch_first (bool): layout of ``padded_sequences``. Default: ``False``.

    Returns:
        list of Tensors.

    Example::

        >>> x = ember.tensor([[1, 2], [3, 0]])
        >>> nn.utils.rnn.unpad_sequence(x, ember.tensor([2, 1]), batch_first=True)
        [tensor([1, 2]), tensor([3])]
    """
    from ..._ops.creation import arange
    out = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length, device=lengths.device)
    if len(padded_sequences) != len(lengths):
        which = 'shorter' if len(lengths) < len(padded_sequences) else 'longer'
        raise ValueError(f"zip() argument 2 is {which} than argument 1")
    for seq, length in zip(padded_sequences, lengths):
        out.append(seq[idx < length])
    return out


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length tensors (``(L_i, *)``): :func:`pad_sequence` then
    :func:`pack_padded_sequence`.

    Args:
        sequences (list of Tensors): the sequences, by decreasing length unless
            ``enforce_sorted`` is ``False``.
        enforce_sorted (bool): see :func:`pack_padded_sequence`. Default: ``True``.

    Returns:
        PackedSequence.

    Example::

        >>> nn.utils.rnn.pack_sequence([ember.tensor([1, 2, 3]), ember.tensor([4, 5])]).data
        tensor([1, 4, 2, 5, 3])
    """
    from ..._ops.creation import as_tensor
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Unpack a :class:`PackedSequence` into the list of its variable-length tensors.

    Example::

        >>> p = nn.utils.rnn.pack_sequence([ember.tensor([1, 2]), ember.tensor([3])])
        >>> nn.utils.rnn.unpack_sequence(p)
        [tensor([1, 2]), tensor([3])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
