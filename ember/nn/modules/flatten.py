"""Flatten and Unflatten: reshape a range of dims into one, and one dim into several."""
from .module import Module

__all__ = ['Flatten', 'Unflatten']


class Flatten(Module):
    """Flattens the dims ``start_dim`` to ``end_dim`` of the input into one (a view when the
    layout allows, as :meth:`Tensor.flatten`).

    Args:
        start_dim (int): first dim to flatten. Default: 1
        end_dim (int): last dim to flatten. Default: -1

    Shape:
        - Input: ``(*, S_start, ..., S_end, *)``.
        - Output: ``(*, S_start * ... * S_end, *)``.

    Example::

        >>> m = nn.Flatten()
        >>> m(ember.randn(32, 1, 5, 5)).shape
        torch.Size([32, 25])
    """
    __constants__ = ['start_dim', 'end_dim']

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f'start_dim={self.start_dim}, end_dim={self.end_dim}'


class Unflatten(Module):
    """Expands dim ``dim`` of the input into the shape ``unflattened_size`` (one entry may be
    -1), as :meth:`Tensor.unflatten`.

    Args:
        dim (int): the dim to unflatten.
        unflattened_size (tuple or list of ints): its new shape. (Named-shape tuples such as
            ``(('C', 2), ('H', 5))`` are refused with a TypeError, as in PyTorch 2.13.)

    Shape:
        - Input: ``(*, S_dim, *)``.
        - Output: ``(*, U_1, ..., U_n, *)`` with ``U_1 * ... * U_n == S_dim``.

    Example::

        >>> m = nn.Unflatten(1, (2, 5, 5))
        >>> m(ember.randn(2, 50)).shape
        torch.Size([2, 2, 5, 5])
    """
    __constants__ = ['dim', 'unflattened_size']

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input):
        if isinstance(input, (tuple, list)):
            for i, v in enumerate(input):
                if not isinstance(v, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element "
                                    f"of type {type(v).__name__} at pos {i}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                        f"{type(input).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f'dim={self.dim}, unflattened_size={self.unflattened_size}'
