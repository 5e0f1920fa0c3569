"""Placements of a :class:`~ember.distributed.tensor.DTensor` along one mesh dimension:
``Shard(dim)`` (split along ``dim`` in ``torch.chunk``'s way), ``Replicate()`` (a full copy on
every rank) and ``Partial(reduce_op)`` (every rank holds a part; the value is their
reduction)."""

__all__ = ['Placement', 'Shard', 'Replicate', 'Partial']


class Placement:
    """Base class of the placements of a DTensor along one mesh dimension.

    Example::

        >>> Shard(0).is_shard(), Replicate().is_replicate(), Partial().is_partial()
        (True, True, True)
    """
    __slots__ = ()

    def is_shard(self, dim=None):
        """Whether this is a ``Shard`` (along ``dim`` when given)."""
        return isinstance(self, Shard) and (dim is None or self.dim == dim)

    def is_replicate(self):
        """Whether this is ``Replicate()``."""
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op=None):
        """Whether this is a ``Partial`` (of ``reduce_op`` when given)."""
        return isinstance(self, Partial) and (reduce_op is None or self.reduce_op == reduce_op)


class Shard(Placement):
    """The tensor is split along ``dim`` over the ranks of a mesh dimension, as
    ``torch.chunk`` splits it: every rank but the last ones holds ``ceil(size / n)`` slices
    (trailing ranks may hold fewer, or none).

    Args:
        dim (int): the tensor dimension that is split.

    Example::

        >>> Shard(0)
        Shard(dim=0)
    """
    __slots__ = ('dim',)

    def __init__(self, dim):
        object.__setattr__(self, 'dim', dim)

    def __setattr__(self, k, v):
        raise AttributeError(f"cannot assign to field '{k}'")

    def __eq__(self, other):
        return type(other) is type(self) and other.dim == self.dim

    def __hash__(self):
        return hash((type(self).__name__, self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"

    def __reduce__(self):
        return (type(self), (self.dim,))


class _StridedShard(Shard):
    """A shard of a dimension that was already split ``split_factor`` times by an earlier
    mesh dimension (torch's name for FSDP + TP nested sharding).

    NOTE: unlike PyTorch, ember computes with it as a plain ``Shard(dim)`` (the layout of a
    right-to-left shard), and only names it.

    Example::

        >>> _StridedShard(0, split_factor=2)
        _StridedShard(dim=0, sf=2)
    """
    __slots__ = ('split_factor',)

    def __init__(self, dim, split_factor):
        object.__setattr__(self, 'dim', dim)
        object.__setattr__(self, 'split_factor', split_factor)

    def __eq__(self, other):
        return type(other) is type(self) and (other.dim, other.split_factor) == \
            (self.dim, self.split_factor)

    def __hash__(self):
        return hash(('_StridedShard', self.dim, self.split_factor))

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"

    def __reduce__(self):
        return (type(self), (self.dim, self.split_factor))


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor.

    Example::

        >>> Replicate()
        Replicate()
    """
    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return -2

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


_REDUCE_OPS = ('sum', 'avg', 'max', 'min', 'product')


class Partial(Placement):
    """Every rank of the mesh dimension holds a part; the tensor is the reduction
    (``reduce_op``: 'sum', 'avg', 'max' or 'min') of the parts.

    Args:
        reduce_op (str): default 'sum'.

    Example::

        >>> Partial()
        Partial(sum)
    """
    __slots__ = ('reduce_op',)

    def __init__(self, reduce_op='sum'):
        op = getattr(reduce_op, 'name', reduce_op)
        op = str(op).lower()
        if op not in _REDUCE_OPS:
            raise ValueError(f"Partial: unsupported reduce_op {reduce_op!r}")
        object.__setattr__(self, 'reduce_op', op)

    def __setattr__(self, k, v):
        raise AttributeError(f"cannot assign to field '{k}'")

    def __eq__(self, other):
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(('Partial', self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"

    def __reduce__(self):
        return (type(self), (self.reduce_op,))
