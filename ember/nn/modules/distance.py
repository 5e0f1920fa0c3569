"""Distance layers: ``PairwiseDistance``, ``CosineSimilarity``."""
from .. import functional as F
from .module import Module

__all__ = ['PairwiseDistance', 'CosineSimilarity']


class PairwiseDistance(Module):
    """The p-norm distance between the rows of two inputs: ``||x1 - x2 + eps||_p`` over the
    last dimension.

    Args:
        p (float): the norm degree (may be negative). Default: 2.
        eps (float): added to the difference, avoids division by zero. Default: 1e-6.
        keepdim (bool): keep the reduced dimension. Default: ``False``.

    Shape:
        - Input1: ``(N, D)`` or ``(D)``.
        - Input2: the same shape as Input1 (or broadcastable).
        - Output: ``(N)`` or ``()`` (``(N, 1)`` / ``(1)`` with ``keepdim``).

    Example::

        >>> pdist = nn.PairwiseDistance(p=2)
        >>> pdist(ember.randn(100, 128), ember.randn(100, 128)).shape
        torch.Size([100])
    """
    __constants__ = ['norm', 'eps', 'keepdim']

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity between ``x1`` and ``x2`` along ``dim``:
    ``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))``.

    Args:
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): the smallest norm. Default: 1e-8.

    Shape:
        - Input1: ``(*1, D, *2)`` with D at position ``dim``.
        - Input2: broadcastable with Input1.
        - Output: the broadcast shape without ``dim``.

    Example::

        >>> cos = nn.CosineSimilarity(dim=1, eps=1e-6)
        >>> cos(ember.randn(100, 128), ember.randn(100, 128)).shape
        torch.Size([100])
    """
    __constants__ = ['dim', 'eps']

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
