"""Normalization layers (LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d)."""
import numbers

from ..._ops.creation import empty
from ..._ops.normalization import cross_map_lrn2d as _cross_map_lrn2d
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ['LocalResponseNorm', 'CrossMapLRN2d', 'LayerNorm', 'GroupNorm', 'RMSNorm']


class LocalResponseNorm(Module):
    """Applies local response normalization across channels: each value is divided by
    ``(k + alpha / size * sum of squares over the size neighbouring channels) ** beta``.

    Args:
        size (int): number of neighbouring channels in the sum.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Shape:
        - Input: ``(N, C, *)``
        - Output: same shape as the input.

    Example::

        >>> lrn = nn.LocalResponseNorm(2)
        >>> lrn(ember.randn(32, 5, 24, 24)).shape
        torch.Size([32, 5, 24, 24])
    """
    __constants__ = ['size', 'alpha', 'beta', 'k']

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f'{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}'


class CrossMapLRN2d(Module):
    """Local response normalization across the channels of a 4-d input, in the legacy
    form (Lua Torch's ``SpatialCrossMapLRN``): ``y = x * (k + alpha / size * s) ** -beta``
    with ``s`` a running sum of squares over neighbouring channels.

    NOTE: like PyTorch's, its numbers follow the legacy implementation, whose window
    keeps channel 0's square in every sum past the first ``(size - 1) / 2 + 1`` channels and
    whose backward (``CrossMapLRN2dBackward``) is not the exact derivative of the forward.
    Prefer :class:`LocalResponseNorm`.

    Args:
        size (int): number of neighbouring channels.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Shape:
        - Input: ``(N, C, H, W)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.CrossMapLRN2d(3)
        >>> m(ember.randn(2, 4, 5, 5)).shape
        torch.Size([2, 4, 5, 5])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f'{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}'


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Applies layer normalization over the last ``len(normalized_shape)`` dims of the
    input: ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, with the mean and the
    biased variance of each sample taken over those dims. Unlike batch normalization the
    statistics come from each sample alone, in training and evaluation mode alike.

    Args:
        normalized_shape (int or list or ember.Size): the trailing dims normalized over
            (an int: the last dim).
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): learnable per-element ``weight`` (init 1) and ``bias``
            (init 0). Default: ``True``.
        bias (bool): with ``elementwise_affine``, also learn ``bias``. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(N, *)``
        - Output: same shape as the input.

    Example::

        >>> ln = nn.LayerNorm(10)
        >>> ln(ember.randn(20, 5, 10)).shape
        torch.Size([20, 5, 10])
    """
    __constants__ = ['normalized_shape', 'eps', 'elementwise_affine']

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter('bias', None)
        else:
            self.register_parameter('weight', None)
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1 and bias to 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f'{self.normalized_shape}, eps={self.eps}, '
                f'elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}')


class GroupNorm(Module):
    """Applies group normalization: the ``C`` channels are split into ``num_groups``
    groups, each normalized by the mean and (biased) variance of its channels and spatial
    positions within each sample, then scaled and shifted per channel.

    Args:
        num_groups (int): number of groups; must divide ``num_channels``.
        num_channels (int): ``C``.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): learnable per-channel ``weight`` (init 1) and ``bias`` (init 0).
            Default: ``True``.
        device, dtype: factory arguments of the parameters.
        bias (bool): with ``affine``, also learn ``bias`` (keyword only). Default: ``True``.

    Shape:
        - Input: ``(N, C, *)``
        - Output: same shape as the input.

    Example::

        >>> m = nn.GroupNorm(3, 6)
        >>> m(ember.randn(20, 6, 10, 10)).shape
        torch.Size([20, 6, 10, 10])
    """
    __constants__ = ['num_groups', 'num_channels', 'eps', 'affine']

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter('bias', None)
        else:
            self.register_parameter('weight', None)
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1 and bias to 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f'{self.num_groups}, {self.num_channels}, eps={self.eps}, '
                f'affine={self.affine}, bias={self.bias is not None}')


class RMSNorm(Module):
    """Applies root-mean-square normalization over the last ``len(normalized_shape)``
    dims: ``y = x / sqrt(mean(x ** 2) + eps) * weight``.

    Args:
        normalized_shape (int or list or ember.Size): the trailing dims normalized over.
        eps (float, optional): added to the mean square. Default: ``None``, the machine
            epsilon of the input's (computation) dtype.
        elementwise_affine (bool): learnable per-element ``weight`` (init 1). Default:
            ``True``.
        device, dtype: factory arguments of the parameter.

    Shape:
        - Input: ``(N, *)``
        - Output: same shape as the input.

    Example::

        >>> rms = nn.RMSNorm([2, 3])
        >>> rms(ember.randn(2, 2, 3)).shape
        torch.Size([2, 2, 3])
    """
    __constants__ = ['normalized_shape', 'eps', 'elementwise_affine']

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter('weight', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f'{self.normalized_shape}, eps={self.eps}, '
                f'elementwise_affine={self.elementwise_affine}')
