"""Fold an eval-mode BatchNorm into the preceding convolution or linear layer:
``fuse_conv_bn_eval``, ``fuse_conv_bn_weights``, ``fuse_linear_bn_eval``,
``fuse_linear_bn_weights``."""
import copy

from ..parameter import Parameter

__all__ = ['fuse_conv_bn_eval', 'fuse_conv_bn_weights', 'fuse_linear_bn_eval',
           'fuse_linear_bn_weights']


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """Return a copy of ``conv`` whose weight and bias absorb the eval-mode ``bn`` that
    follows it: ``fused(x) == bn(conv(x))``.

    Args:
        conv (nn.modules.conv._ConvNd): a convolution in eval mode.
        bn (nn.modules.batchnorm._BatchNorm): a BatchNorm in eval mode with running stats.
        transpose (bool): ``conv`` is a transposed convolution (its output channels are
            weight dim 1). Default: ``False``

    Returns:
        the fused convolution (a new module).

    Example::

        >>> conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
        >>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    """
    if conv.training or bn.training:
        raise AssertionError('Fusion only for eval!')
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError('bn.running_mean and bn.running_var must not be None')
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """Fold BatchNorm statistics and affine parameters into convolution weights.

    ``w' = w * (gamma / sqrt(var + eps))`` per output channel and
    ``b' = (b - mean) * gamma / sqrt(var + eps) + beta``.

    Args:
        conv_w (Tensor): convolution weight.
        conv_b (Tensor or None): convolution bias.
        bn_rm (Tensor): BatchNorm running mean.
        bn_rv (Tensor): BatchNorm running variance.
        bn_eps (float): BatchNorm epsilon.
        bn_w (Tensor or None): BatchNorm weight (gamma).
        bn_b (Tensor or None): BatchNorm bias (beta).
        transpose (bool): the weight belongs to a transposed convolution. Default: ``False``

    Returns:
        tuple[Parameter, Parameter]: the fused weight and bias (dtypes kept).

    Example::

        >>> w, b = nn.utils.fuse_conv_bn_weights(ember.ones(2, 1, 1, 1), None,
        ...     ember.zeros(2), ember.ones(2), 0., None, None)
    """
    from ..._ops.creation import ones_like, zeros_like
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    rsq = (bn_rv + bn_eps).rsqrt()
    nd = len(conv_w.shape)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (nd - 2)
    fused_w = (conv_w * (bn_w * rsq).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsq * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """Return a copy of ``linear`` whose weight and bias absorb the eval-mode ``bn`` that
    follows it. ``bn.num_features`` must equal ``linear.out_features`` or be 1.

    Args:
        linear (nn.Linear): a linear layer in eval mode.
        bn (nn.modules.batchnorm._BatchNorm): a BatchNorm in eval mode with running stats.

    Returns:
        the fused linear layer (a new module).

    Example::

        >>> lin, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
        >>> fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    """
    if linear.training or bn.training:
        raise AssertionError('Fusion only for eval!')
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            'To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got '
            f'linear.out_features={linear.out_features} and bn.num_features={bn.num_features}')
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError('bn.running_mean and bn.running_var must not be None')
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """Fold BatchNorm statistics and affine parameters into linear weights.

    Args:
        linear_w (Tensor): linear weight.
        linear_b (Tensor or None): linear bias.
        bn_rm (Tensor): BatchNorm running mean.
        bn_rv (Tensor): BatchNorm running variance.
        bn_eps (float): BatchNorm epsilon.
        bn_w (Tensor): BatchNorm weight (gamma).
        bn_b (Tensor): BatchNorm bias (beta).

    Returns:
        tuple[Parameter, Parameter]: the fused weight and bias.

    Example::

        >>> w, b = nn.utils.fuse_linear_bn_weights(ember.ones(2, 3), None, ember.zeros(2),
        ...     ember.ones(2), 0., ember.ones(2), ember.zeros(2))
    """
    from ..._ops.creation import zeros_like
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
