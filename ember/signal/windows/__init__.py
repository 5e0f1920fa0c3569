"""``ember.signal.windows``: window functions (Hann, Hamming, Kaiser, Gaussian, ...), as
``torch.signal.windows``.

Example::

    >>> ember.signal.windows.hann(4, sym=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""
from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine,
                      general_hamming, hamming, hann, kaiser, nuttall)

__all__ = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine',
           'general_hamming', 'hamming', 'hann', 'kaiser', 'nuttall']
