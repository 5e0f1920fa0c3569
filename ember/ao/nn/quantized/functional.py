"""``ember.ao.nn.quantized.functional`` (``nn.quantized.functional``): the functional forms
of the quantized modules, on quantized tensors."""
import ember
from ember import _dtype as D
from ember.nn.modules.utils import _ntuple
from ember._quantized import ops as _qops

__all__ = ['conv1d', 'conv2d', 'conv3d', 'max_pool1d', 'max_pool2d', 'adaptive_avg_pool2d',
           'adaptive_avg_pool3d', 'avg_pool2d', 'avg_pool3d', 'interpolate', 'linear',
           'upsample', 'upsample_bilinear', 'upsample_nearest', 'celu', 'leaky_relu',
           'hardtanh', 'hardswish', 'threshold', 'elu', 'hardsigmoid', 'clamp']

_F = ember.nn.functional


def _need_q(input, name):
    if not getattr(input, 'is_quantized', False):
        raise ValueError(f"Input to 'quantized.{name}' must be quantized!")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    r"""2-d average pooling of a quantized tensor (integers averaged, same scale and zero
    point).

    Args:
        input (Tensor): quantized input :math:`(N, C, H, W)`.
        kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: as
            :func:`ember.nn.functional.avg_pool2d`.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 2, 2), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.avg_pool2d(q, 2).int_repr()
        tensor([[[[10]]]], dtype=torch.uint8)
    """
    _need_q(input, 'avg_pool2d')
    return _F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    r"""3-d average pooling of a quantized tensor.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 2, 2, 2), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.avg_pool3d(q, 2).int_repr().flatten()
        tensor([10], dtype=torch.uint8)
    """
    _need_q(input, 'avg_pool3d')
    return _F.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool2d(input, output_size):
    r"""2-d adaptive average pooling of a quantized tensor.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 4, 4), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.adaptive_avg_pool2d(q, 1).int_repr()
        tensor([[[[10]]]], dtype=torch.uint8)
    """
    _need_q(input, 'functional.adaptive_avg_pool2d')
    return _F.adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool3d(input, output_size):
    r"""3-d adaptive average pooling of a quantized tensor.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 2, 2, 2), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.adaptive_avg_pool3d(q, 1).int_repr().flatten()
        tensor([10], dtype=torch.uint8)
    """
    _need_q(input, 'functional.adaptive_avg_pool3d')
    return _F.adaptive_avg_pool3d(input, output_size)


def _conv(nd, input, weight, bias, stride, padding, dilation, groups, padding_mode, scale,
          zero_point, dtype):
    if padding_mode != 'zeros':
        raise NotImplementedError("Only zero-padding is supported!")
    if input.dtype is not D.quint8:
        raise NotImplementedError("Only torch.quint8 is supported for activation tensor!")
    if weight.dtype is not D.qint8:
        raise NotImplementedError("Only torch.qint8 is supported for weight tensor!")
    if input.dim() != nd + 2:
        raise ValueError(f"Input shape must be `(N, C, {', '.join('DHW'[3 - nd:])})`!")
    tup = _ntuple(nd)
    packed = _qops.OPS[f'conv{nd}d_prepack'](weight, bias, list(tup(stride)),
                                             list(tup(padding)), list(tup(dilation)), groups)
    return _qops.OPS[f'conv{nd}d'](input, packed, scale, zero_point)


def conv1d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode='zeros', scale=1.0, zero_point=0, dtype=D.quint8):
    r"""1-d convolution of a ``quint8`` input with a ``qint8`` weight, quantized with
    ``scale`` and ``zero_point``.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1, 1), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1, 2), 0.5, 0, ember.quint8)
        >>> nn.quantized.functional.conv1d(x, w, None, scale=0.25).int_repr()
        tensor([[[4, 4]]], dtype=torch.uint8)
    """
    return _conv(1, input, weight, bias, stride, padding, dilation, groups, padding_mode,
                 scale, zero_point, dtype)


def conv2d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode='zeros', scale=1.0, zero_point=0, dtype=D.quint8):
    r"""2-d convolution of a ``quint8`` input with a ``qint8`` weight, quantized with
    ``scale`` and ``zero_point``.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1, 1, 2), 0.5, 0, ember.quint8)
        >>> nn.quantized.functional.conv2d(x, w, None, scale=0.25).int_repr()
        tensor([[[[4, 4]]]], dtype=torch.uint8)
    """
    return _conv(2, input, weight, bias, stride, padding, dilation, groups, padding_mode,
                 scale, zero_point, dtype)


def conv3d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode='zeros', scale=1.0, zero_point=0, dtype=D.quint8):
    r"""3-d convolution of a ``quint8`` input with a ``qint8`` weight, quantized with
    ``scale`` and ``zero_point``.

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1, 1), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1, 2), 0.5, 0, ember.quint8)
        >>> nn.quantized.functional.conv3d(x, w, None, scale=0.25).int_repr().flatten()
        tensor([4, 4], dtype=torch.uint8)
    """
    return _conv(3, input, weight, bias, stride, padding, dilation, groups, padding_mode,
                 scale, zero_point, dtype)


def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    r"""Nearest or bilinear resizing of a quantized tensor (same scale and zero point).

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.interpolate(q, scale_factor=2).shape
        torch.Size([1, 1, 2, 2])
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.interpolate' must be quantized!")
    return _F.interpolate(input, size, scale_factor, mode, align_corners)


def linear(input, weight, bias=None, scale=None, zero_point=None):
    r"""Linear layer on a ``quint8`` input with a ``qint8`` weight, quantized with
    ``scale`` and ``zero_point`` (the input's when None).

    Example::

        >>> w = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.qint8)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2), 0.5, 0, ember.quint8)
        >>> nn.quantized.functional.linear(x, w, scale=0.25, zero_point=0).int_repr()
        tensor([[8]], dtype=torch.uint8)
    """
    if scale is None:
        scale = input.q_scale()
    if zero_point is None:
        zero_point = input.q_zero_point()
    packed = _qops.linear_prepack(weight, bias)
    return _qops.linear(input, packed, scale, zero_point)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""1-d max pooling of a quantized tensor (on the integers).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[[1.0, 2.0]]]), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.max_pool1d(q, 2).int_repr()
        tensor([[[20]]], dtype=torch.uint8)
    """
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    if stride is None:
        stride = []
    return _F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""2-d max pooling of a quantized tensor (on the integers).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[[[1.0, 2.0]]]]), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.max_pool2d(q, (1, 2)).int_repr()
        tensor([[[[20]]]], dtype=torch.uint8)
    """
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    if stride is None:
        stride = []
    return _F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def celu(input, scale, zero_point, alpha=1.0):
    r"""CELU of a quantized tensor, quantized with ``scale`` and ``zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.functional.celu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.celu' must be quantized!")
    return _qops.celu(input, scale, zero_point, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False, scale=None, zero_point=None):
    r"""Leaky ReLU of a quantized tensor, quantized with ``scale`` and ``zero_point`` (the
    input's when both are None).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.functional.leaky_relu(q, 0.5).int_repr()
        tensor([ 5, 20], dtype=torch.uint8)
    """
    if scale is not None and zero_point is not None:
        if inplace:
            raise AssertionError("Cannot rescale with `inplace`")
        return _qops.leaky_relu(input, negative_slope, False, scale, zero_point)
    return _F.leaky_relu(input, negative_slope, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    r"""Hardtanh (clamp) of a quantized tensor, on the integers.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-2.0, 2.0]), 0.1, 30, ember.quint8)
        >>> nn.quantized.functional.hardtanh(q).int_repr()
        tensor([20, 40], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.hardtanh' must be quantized!")
    return _F.hardtanh(input, min_val, max_val, inplace)


def hardswish(input, scale, zero_point):
    r"""Hardswish of a quantized tensor, quantized with ``scale`` and ``zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.functional.hardswish(q, 0.1, 10).int_repr()
        tensor([ 7, 17], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.hardswish' must be quantized!")
    return _qops.hardswish(input, scale, zero_point)


def threshold(input, threshold, value):
    r"""Threshold of a quantized tensor: values at or below ``threshold`` become ``value``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.5, 1.5]), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.threshold(q, 1.0, 0.0).int_repr()
        tensor([ 0, 15], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.threshold' must be quantized!")
    if threshold is None:
        raise ValueError("Input to 'threshold' must be specified!")
    if value is None:
        raise ValueError("Input to 'value' must be specified!")
    return _qops.threshold(input, threshold, value)


def elu(input, scale, zero_point, alpha=1.0):
    r"""ELU of a quantized tensor, quantized with ``scale`` and ``zero_point``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.functional.elu(q, 0.1, 10).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.elu' must be quantized!")
    return _qops.elu(input, scale, zero_point, alpha)


def hardsigmoid(input, inplace=False):
    r"""Hardsigmoid of a quantized tensor (output scale 1/256).

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.functional.hardsigmoid(q).int_repr()
        tensor([128], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.hardsigmoid' must be quantized!")
    return _F.hardsigmoid(input, inplace)


def clamp(input, min_, max_):
    r"""Clamp of a quantized tensor, on the integers.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-2.0, 2.0]), 0.1, 30, ember.quint8)
        >>> nn.quantized.functional.clamp(q, -1.0, 1.0).int_repr()
        tensor([20, 40], dtype=torch.uint8)
    """
    if not getattr(input, 'is_quantized', False):
        raise ValueError("Input to 'quantized.clamp' must be quantized!")
    return ember.clamp(input, min_, max_)


def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    r"""Deprecated name of :func:`interpolate`.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.upsample(q, scale_factor=2).shape
        torch.Size([1, 1, 2, 2])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_bilinear(input, size=None, scale_factor=None):
    r"""Bilinear upsampling (``align_corners=True``) of a quantized tensor.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.upsample_bilinear(q, scale_factor=2).shape
        torch.Size([1, 1, 2, 2])
    """
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)


def upsample_nearest(input, size=None, scale_factor=None):
    r"""Nearest upsampling of a quantized tensor.

    Example::

        >>> q = ember.quantize_per_tensor(ember.ones(1, 1, 1, 1), 0.1, 0, ember.quint8)
        >>> nn.quantized.functional.upsample_nearest(q, scale_factor=2).shape
        torch.Size([1, 1, 2, 2])
    """
    return interpolate(input, size, scale_factor, mode='nearest')
