"""``ember.nn.init``: in-place parameter initialisation. Every function runs under
``no_grad`` and returns the tensor it filled."""
import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'trunc_normal_', 'constant_', 'ones_',
           'zeros_', 'eye_', 'dirac_', 'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_',
           'kaiming_normal_', 'orthogonal_', 'sparse_']


def calculate_gain(nonlinearity, param=None):
    """Return the recommended gain value for a nonlinearity: 1 for linear, conv and
    sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + negative_slope^2)) for
    leaky_relu, 3/4 for selu.

    Args:
        nonlinearity (str): the name of the function (``'relu'``, ``'leaky_relu'``, ...).
        param (float, optional): the negative slope of ``'leaky_relu'`` (default 0.01).

    Example::

        >>> nn.init.calculate_gain('leaky_relu', 0.2)
        1.3867504905630728
    """
    linear_fns = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
                  'conv_transpose3d']
    if nonlinearity in linear_fns or nonlinearity == 'sigmoid':
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight: ``size(1) * receptive``, ``size(0) * receptive``."""
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return num_input_fmaps * receptive, num_output_fmaps * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ('fan_in', 'fan_out'):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill the tensor with values drawn from the uniform distribution U(a, b).

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        a (float): the lower bound. Default: 0.
        b (float): the upper bound. Default: 1.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = ember.empty(3, 5)
        >>> nn.init.uniform_(w, -1, 1).shape
        torch.Size([3, 5])
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill the tensor with values drawn from the normal distribution N(mean, std^2).

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        mean (float): the mean. Default: 0.
        std (float): the standard deviation. Default: 1.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.normal_(ember.empty(3, 5), std=0.02)
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill the tensor with values drawn from N(mean, std^2) truncated to ``[a, b]``
    (rejection sampling, as PyTorch: redrawn normals, or accepted uniform proposals on
    ``[a, b]`` when little of the mass lies inside).

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        mean (float): the mean of the normal distribution. Default: 0.
        std (float): its standard deviation. Default: 1.
        a (float): the minimum cutoff value. Default: -2.
        b (float): the maximum cutoff value. Default: 2.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.trunc_normal_(ember.empty(3, 5), std=0.02, a=-0.04, b=0.04)
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    import ember
    if tensor.device.type == 'meta':
        return tensor
    with no_grad():
        # PyTorch's rejection sampling: redraw normals outside [a, b] when the mass
        # inside is > 0.3, otherwise uniform proposals on [a, b] accepted by the density
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = ember.where(
                    mask, ember.empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            candidates = ember.empty_like(tensor)
            accept_buf = ember.empty_like(tensor)
            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = ember.where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = ember.where(
                        pending, accept_buf.uniform_(generator=generator).log_().gt(candidates),
                        pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fill the tensor with the value ``val``.

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        val (float): the value.

    Returns:
        the same ``tensor``.

    Example::

        >>> nn.init.constant_(ember.empty(2), 0.3)
        tensor([0.3000, 0.3000])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill the tensor with ones.

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.

    Returns:
        the same ``tensor``.

    Example::

        >>> nn.init.ones_(ember.empty(2))
        tensor([1., 1.])
    """
    with no_grad():
        return tensor.fill_(1)


def zeros_(tensor):
    """Fill the tensor with zeros.

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.

    Returns:
        the same ``tensor``.

    Example::

        >>> nn.init.zeros_(ember.empty(2))
        tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (preserving the identity of the inputs
    in linear layers).

    Args:
        tensor (Tensor): a 2-dimensional tensor.

    Returns:
        the same ``tensor``.

    Example::

        >>> nn.init.eye_(ember.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        a = np.eye(*tensor.shape, dtype=tensor._data.dtype)
        tensor.copy_(_wrap_np(a))
    return tensor


def _wrap_np(a):
    from .._ops._util import wrap
    return wrap(a)


def dirac_(tensor, groups=1):
    """Fill a {3, 4, 5}-dimensional tensor with the Dirac delta function, so that a
    convolution with it preserves its inputs (per group, as many channels as possible).

    Args:
        tensor (Tensor): a {3, 4, 5}-dimensional tensor.
        groups (int): the number of groups in the conv layer. Default: 1.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.dirac_(ember.empty(3, 16, 5, 5))
    """
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    a = np.zeros(tuple(sizes), dtype=tensor._data.dtype)
    for g in range(groups):
        for d in range(min_dim):
            idx = (g * out_chans_per_grp + d, d) + tuple(s // 2 for s in sizes[2:])
            a[idx] = 1
    with no_grad():
        tensor.copy_(_wrap_np(a))
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Fill the tensor with Glorot (Xavier) uniform values: U(-a, a) with
    ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        gain (float): an optional scaling factor. Default: 1.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.xavier_uniform_(ember.empty(3, 5), gain=nn.init.calculate_gain('relu'))
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Fill the tensor with Glorot (Xavier) normal values: N(0, std^2) with
    ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        gain (float): an optional scaling factor. Default: 1.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.xavier_normal_(ember.empty(3, 5))
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    """Fill the tensor with He (Kaiming) uniform values: U(-bound, bound) with
    ``bound = gain * sqrt(3 / fan_mode)``. Zero-element tensors are left as they are (with a
    warning).

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        a (float): the negative slope of the rectifier used after this layer (only with
            ``'leaky_relu'``). Default: 0.
        mode (str): ``'fan_in'`` (default) preserves the variance of the forward pass,
            ``'fan_out'`` that of the backward pass.
        nonlinearity (str): ``'relu'`` or ``'leaky_relu'`` (default), any name accepted by
            :func:`calculate_gain`.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.kaiming_uniform_(ember.empty(3, 5), mode='fan_in', nonlinearity='relu')
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    """Fill the tensor with He (Kaiming) normal values: N(0, std^2) with
    ``std = gain / sqrt(fan_mode)``. Zero-element tensors are left as they are (with a warning).

    Args:
        tensor (Tensor): an n-dimensional tensor, filled in place.
        a (float): the negative slope of the rectifier used after this layer (only with
            ``'leaky_relu'``). Default: 0.
        mode (str): ``'fan_in'`` (default) or ``'fan_out'``.
        nonlinearity (str): ``'relu'`` or ``'leaky_relu'`` (default), any name accepted by
            :func:`calculate_gain`.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.kaiming_normal_(ember.empty(3, 5), mode='fan_out', nonlinearity='relu')
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill the tensor with a (semi-)orthogonal matrix scaled by ``gain`` (from the QR
    decomposition of a Gaussian matrix); dimensions after the first are flattened.

    Args:
        tensor (Tensor): an n-dimensional tensor, ``n >= 2``.
        gain (float): the scaling factor. Default: 1.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.orthogonal_(ember.empty(3, 5))
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    from .._ops.creation import empty
    flat = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    m = flat._data.astype(np.float64)
    if rows < cols:
        m = m.T
    q, r = np.linalg.qr(m)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view_as(tensor).copy_(_wrap_np((q * gain).reshape(tuple(tensor.shape)).astype(tensor._data.dtype)))
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor as a sparse matrix: values from N(0, std^2), with a fraction
    ``sparsity`` of the elements of each column set to zero.

    Args:
        tensor (Tensor): a 2-dimensional tensor.
        sparsity (float): the fraction of elements in each column to be set to zero.
        std (float): the standard deviation of the non-zero values. Default: 0.01.
        generator (ember.Generator, optional): source of randomness. Default: None.

    Returns:
        the same ``tensor``.

    Example::

        >>> w = nn.init.sparse_(ember.empty(3, 5), sparsity=0.1)
    """
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        from .._ops.random_ops import randperm
        a = tensor._data
        for col_idx in range(cols):
            row_indices = randperm(rows, generator=generator)
            zero_indices = row_indices[:num_zeros]
            a[zero_indices._data, col_idx] = 0
        tensor._bump()
    return tensor


# deprecated aliases without the trailing underscore
def _deprecated(fn):
    def f(*args, **kwargs):
        warnings.warn(f"`nn.init.{fn.__name__[:-1]}` is now deprecated in favor of "
                      f"`nn.init.{fn.__name__}`.", FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    f.__name__ = fn.__name__[:-1]
    f.__doc__ = f"Deprecated alias of :func:`{fn.__name__}`."
    return f


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
sparse = _deprecated(sparse_)
