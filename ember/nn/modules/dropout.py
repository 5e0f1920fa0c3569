"""Dropout layers: ``Dropout``, ``Dropout1d/2d/3d``, ``AlphaDropout``,
``FeatureAlphaDropout``. Each is the identity in eval mode; in training mode it calls its
functional form (``ember.nn.functional``), which draws PyTorch's masks."""
from .. import functional as F
from .module import Module

__all__ = ['Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout',
           'FeatureAlphaDropout']


class _DropoutNd(Module):
    """Base of the dropout layers: holds ``p`` and ``inplace``.

    Args:
        p (float): drop probability, in ``[0, 1]``. Default: 0.5
        inplace (bool): do the operation in place. Default: ``False``
    """
    __constants__ = ['p', 'inplace']

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f'p={self.p}, inplace={self.inplace}'


class Dropout(_DropoutNd):
    """During training, zeroes each element of the input with probability ``p`` (Bernoulli
    draws, new on every call) and scales the rest by ``1 / (1 - p)``; the identity in eval
    mode.

    Args:
        p (float): probability of an element being zeroed. Default: 0.5
        inplace (bool): do the operation in place. Default: ``False``

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> m = nn.Dropout(p=0.2)
        >>> m(ember.randn(20, 16)).shape
        torch.Size([20, 16])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """During training, zeroes whole channels (the 1-D maps ``input[i, j]``) with
    probability ``p`` and scales the rest by ``1 / (1 - p)``; the identity in eval mode.

    Args:
        p (float): probability of a channel being zeroed. Default: 0.5
        inplace (bool): do the operation in place. Default: ``False``

    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: same shape as the input.

    Example::

        >>> m = nn.Dropout1d(p=0.2)
        >>> m(ember.randn(20, 16, 32)).shape
        torch.Size([20, 16, 32])
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """During training, zeroes whole channels (the 2-D maps ``input[i, j]``) with
    probability ``p`` and scales the rest by ``1 / (1 - p)``; the identity in eval mode.

    As in PyTorch, a 3-D input is taken as ``(N, C, L)`` (1-D channel-wise dropout, with a
    warning), not as an unbatched ``(C, H, W)``.

    Args:
        p (float): probability of a channel being zeroed. Default: 0.5
        inplace (bool): do the operation in place. Default: ``False``

    Shape:
        - Input: ``(N, C, H, W)`` or ``(N, C, L)``.
        - Output: same shape as the input.

    Example::

        >>> m = nn.Dropout2d(p=0.2)
        >>> m(ember.randn(20, 16, 32, 32)).shape
        torch.Size([20, 16, 32, 32])
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """During training, zeroes whole channels (the 3-D maps ``input[i, j]``) with
    probability ``p`` and scales the rest by ``1 / (1 - p)``; the identity in eval mode.

    Args:
        p (float): probability of a channel being zeroed. Default: 0.5
        inplace (bool): do the operation in place. Default: ``False``

    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: same shape as the input.

    Example::

        >>> m = nn.Dropout3d(p=0.2)
        >>> m(ember.randn(2, 4, 3, 3, 3)).shape
        torch.Size([2, 4, 3, 3, 3])
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for self-normalising (SELU) networks: during training each element is,
    with probability ``p``, set to SELU's negative saturation value, and the output is scaled
    and shifted to keep zero mean and unit variance; the identity in eval mode. (``inplace``
    is accepted and ignored, as in PyTorch.)

    Args:
        p (float): probability of an element being dropped. Default: 0.5
        inplace (bool): accepted, unused. Default: ``False``

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> m = nn.AlphaDropout(p=0.2)
        >>> m(ember.randn(20, 16)).shape
        torch.Size([20, 16])
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels: during training each channel ``input[i, j]`` is,
    with probability ``p``, set to SELU's negative saturation value (then scaled and shifted
    as in :class:`AlphaDropout`); the identity in eval mode.

    Args:
        p (float): probability of a channel being dropped. Default: 0.5
        inplace (bool): accepted, unused. Default: ``False``

    Shape:
        - Input: ``(N, C, *)``.
        - Output: same shape as the input.

    Example::

        >>> m = nn.FeatureAlphaDropout(p=0.2)
        >>> m(ember.randn(20, 16, 4, 4)).shape
        torch.Size([20, 16, 4, 4])
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
