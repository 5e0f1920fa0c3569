"""Memory formats: ``contiguous_format``, ``channels_last``, ``channels_last_3d``,
``preserve_format``."""

__all__ = ['memory_format', 'contiguous_format', 'channels_last', 'channels_last_3d',
           'preserve_format']


class memory_format:
    """A memory layout tag, like ``torch.memory_format``."""
    __slots__ = ('_name',)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return (_by_name, (self._name,))


def _by_name(n):
    return globals()[n]


contiguous_format = memory_format('contiguous_format')
channels_last = memory_format('channels_last')
channels_last_3d = memory_format('channels_last_3d')
preserve_format = memory_format('preserve_format')

_PERM = {'channels_last': (0, 2, 3, 1), 'channels_last_3d': (0, 2, 3, 4, 1)}


def _perm_for(t, fmt):
    p = _PERM.get(fmt._name)
    nd = 4 if fmt is channels_last else 5
    if t.dim() != nd:
        raise RuntimeError(f"required rank {nd} tensor to use {fmt._name} format")
    return p


def _strides_for(shape, perm):
    """PyTorch's strides of a dense tensor of ``shape`` laid out in ``perm`` order."""
    st = [0] * len(shape)
    acc = 1
    for d in reversed(perm):
        st[d] = acc
        acc *= max(shape[d], 1)
    return tuple(st)


def _is_contiguous_as(t, fmt):
    if fmt is preserve_format:
        raise RuntimeError("Unsupported memory format. Supports only ChannelsLast, "
                           "ChannelsLast3d, Contiguous")
    p = _PERM.get(fmt._name)
    if p is None or t.dim() != len(p):
        return False
    want = _strides_for(t.shape, p)
    have = t.stride()
    return all(w == h for w, h, s in zip(want, have, t.shape) if s != 1)


class layout:
    """The memory layout of a tensor's elements (``ember.strided``: dense, with strides).

    Example::

        >>> ember.ones(2).layout
        torch.strided
    """
    __slots__ = ('_name',)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return 'torch.' + self._name

    def __reduce__(self):
        return (_layout_by_name, (self._name,))


def _layout_by_name(name):
    return {'strided': strided, 'sparse_coo': sparse_coo}[name]


strided = layout('strided')
sparse_coo = layout('sparse_coo')   # the sparse COO layout (ember.sparse)
