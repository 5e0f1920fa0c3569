"""Activation layers."""
from .. import functional as F
from .module import Module

__all__ = ['ReLU', 'LeakyReLU']


class ReLU(Module):
    """``max(0, x)`` elementwise.

    Args:
        inplace (bool): operate in place.

    Shape:
        - Input: ``(*)``; Output: same shape.

    Example::

        >>> nn.ReLU()(ember.tensor([-1., 1.]))
        tensor([0., 1.])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class LeakyReLU(Module):
    """Applies ``LeakyReLU(x) = max(0, x) + negative_slope * min(0, x)`` elementwise.

    Args:
        negative_slope (float): slope for negative inputs. Default: 1e-2.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.LeakyReLU(0.1)(ember.tensor([-1., 1.]))
        tensor([-0.1000,  1.0000])
    """

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f'negative_slope={self.negative_slope}' + (', inplace=True' if self.inplace else '')


from . import _multihead  # noqa: E402
from ._multihead import *  # noqa: E402,F401,F403
__all__ += _multihead.__all__
