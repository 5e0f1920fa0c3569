"""Activation layers."""
from .. import functional as F
from .module import Module

__all__ = ['ReLU', 'LeakyReLU', 'Softmax', 'Softmin', 'LogSoftmax', 'Softmax2d']


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


class _SoftmaxBase(Module):
    __constants__ = ['dim']
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, 'dim'):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f'dim={self.dim}'


class Softmax(_SoftmaxBase):
    """Applies ``Softmax(x_i) = exp(x_i) / sum_j exp(x_j)`` along ``dim``: the slices along
    ``dim`` lie in ``[0, 1]`` and sum to 1.

    Args:
        dim (int): the dimension softmax is computed along. Default: None (PyTorch's
            deprecated implicit choice, with a ``UserWarning``).

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Softmax(dim=1)(ember.tensor([[0., 0.]]))
        tensor([[0.5000, 0.5000]])
    """
    _fn = staticmethod(F.softmax)


class Softmin(_SoftmaxBase):
    """Applies ``Softmin(x_i) = exp(-x_i) / sum_j exp(-x_j)`` along ``dim``.

    Args:
        dim (int): the dimension softmin is computed along. Default: None (implicit
            choice, deprecated, with a ``UserWarning``).

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Softmin(dim=0)(ember.tensor([0., 2.]))
        tensor([0.8808, 0.1192])
    """
    _fn = staticmethod(F.softmin)


class LogSoftmax(_SoftmaxBase):
    """Applies ``log(Softmax(x))`` along ``dim``, computed stably.

    Args:
        dim (int): the dimension log-softmax is computed along. Default: None (implicit
            choice, deprecated, with a ``UserWarning``).

    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, same shape as the input, values in ``(-inf, 0]``.

    Example::

        >>> nn.LogSoftmax(dim=0)(ember.tensor([0., 0.]))
        tensor([-0.6931, -0.6931])
    """
    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Applies softmax over the channels (dim ``-3``) at each spatial location.

    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: same shape as the input.

    Example::

        >>> nn.Softmax2d()(ember.zeros(2, 1, 1))
        tensor([[[0.5000]],
        <BLANKLINE>
                [[0.5000]]])
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


from . import _multihead  # noqa: E402
from ._multihead import *  # noqa: E402,F401,F403
__all__ += _multihead.__all__
