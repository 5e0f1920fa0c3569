"""``ember.masked``: reductions and normalizations that skip masked-out elements
(``mask=`` keyword), and :class:`MaskedTensor`, a tensor carrying its own mask, as
``torch.masked``.

Example::

    >>> x = ember.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> m = ember.tensor([[True, False, True], [False, False, False]])
    >>> ember.masked.sum(x, 1, mask=m)
    tensor([4., 0.])
    >>> ember.masked.mean(x, 1, mask=m)
    tensor([2., nan])
"""
from ._ops import (sum, prod, cumsum, cumprod, amax, amin, argmax, argmin, mean,  # noqa: F401
                   median, norm, var, std, softmax, log_softmax, softmin, normalize, logaddexp,
                   logsumexp)
from .maskedtensor import MaskedTensor, masked_tensor, as_masked_tensor, is_masked_tensor  # noqa

__all__ = ['sum', 'prod', 'cumsum', 'cumprod', 'amax', 'amin', 'argmax', 'argmin', 'mean',
           'median', 'norm', 'var', 'std', 'softmax', 'log_softmax', 'softmin', 'normalize',
           'logaddexp', 'logsumexp', 'MaskedTensor', 'masked_tensor', 'as_masked_tensor',
           'is_masked_tensor']
