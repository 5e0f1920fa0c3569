"""Argument helpers of the layers, as ``torch.nn.modules.utils`` has them (user code imports
``_pair`` and friends from there)."""
import collections.abc
from itertools import repeat

__all__ = []


def _ntuple(n, name='parse'):
    """A function turning a value into an ``n``-tuple: an iterable becomes a tuple of its
    items (as PyTorch's layers read ``kernel_size=(3, 5)``), anything else is repeated.

    Example::

        >>> from ember.nn.modules.utils import _ntuple
        >>> _ntuple(2)(3), _ntuple(2)((1, 2))
        ((3, 3), (1, 2))
    """
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, '_single')
_pair = _ntuple(2, '_pair')
_triple = _ntuple(3, '_triple')
_quadruple = _ntuple(4, '_quadruple')


def _reverse_repeat_tuple(t, n):
    """Reverse ``t`` and repeat each element ``n`` times: ``(1, 2), 2 -> (2, 2, 1, 1)``
    (the ``F.pad`` order of a layer's per-dim padding).

    Example::

        >>> from ember.nn.modules.utils import _reverse_repeat_tuple
        >>> _reverse_repeat_tuple((1, 2), 2)
        (2, 2, 1, 1)
    """
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``out_size`` with its None entries taken from the trailing entries of ``defaults``
    (adaptive pooling's output size).

    Example::

        >>> from ember.nn.modules.utils import _list_with_default
        >>> _list_with_default([None, 3], [1, 2, 5, 7])
        [5, 3]
    """
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]
