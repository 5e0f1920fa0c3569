"""``ember.signal``: signal processing, as ``torch.signal`` (today its ``windows``).

Example::

    >>> import ember.signal
    >>> ember.signal.windows.bartlett(3)
    tensor([0., 1., 0.])
"""
from . import windows

__all__ = ['windows']
