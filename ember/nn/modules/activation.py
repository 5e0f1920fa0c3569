"""Activation layers (``nn.ReLU``, ``nn.GELU``, ``nn.Softmax``, ...; ``MultiheadAttention``
is re-exported from ``_multihead``, keeping torch's module path)."""
import warnings

from ..._ops.creation import empty
from .. import functional as F
from .. import init as _init
from ..parameter import Parameter
from .module import Module

__all__ = ['Threshold', 'ReLU', 'RReLU', 'Hardtanh', 'ReLU6', 'Sigmoid', 'Hardsigmoid', 'Tanh',
           'SiLU', 'Mish', 'Hardswish', 'ELU', 'CELU', 'SELU', 'GLU', 'GELU', 'Hardshrink',
           'LeakyReLU', 'LogSigmoid', 'Softplus', 'Softshrink', 'PReLU', 'Softsign',
           'Tanhshrink', 'Softmin', 'Softmax', 'Softmax2d', 'LogSoftmax']


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
        # looked up at call time, so the seam (modes, the profiler) sees the call
        return getattr(F, type(self)._fn)(input, self.dim, _stacklevel=5)

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
    _fn = 'softmax'


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
    _fn = 'softmin'


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
    _fn = 'log_softmax'


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


def _ip(inplace, lead=', '):
    return f'{lead}inplace=True' if inplace else ''


class Threshold(Module):
    """Thresholds each element: ``y = x`` if ``x > threshold`` else ``value``.

    Args:
        threshold (float): the threshold.
        value (float): the value replacing elements at or below the threshold.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Threshold(0.1, 20.)(ember.tensor([0., 1.]))
        tensor([20.,  1.])
    """
    __constants__ = ['threshold', 'value', 'inplace']

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f'threshold={self.threshold}, value={self.value}{_ip(self.inplace)}'


class RReLU(Module):
    """Randomized leaky ReLU: in training mode each negative element is scaled by a slope
    drawn uniformly from ``[lower, upper]`` (PyTorch's CPU random stream: the same seed
    gives the same slopes); in eval mode by ``(lower + upper) / 2``.

    Args:
        lower (float): lower bound of the slope. Default: 1/8.
        upper (float): upper bound of the slope. Default: 1/3.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.RReLU().eval()(ember.tensor([-1., 2.]))
        tensor([-0.2292,  2.0000])
    """
    __constants__ = ['lower', 'upper', 'inplace']

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f'lower={self.lower}, upper={self.upper}{_ip(self.inplace)}'


class Hardtanh(Module):
    """Applies ``HardTanh``: ``x`` clamped to ``[min_val, max_val]``.

    Args:
        min_val (float): lower end of the linear region. Default: -1.
        max_val (float): upper end of the linear region. Default: 1.
        inplace (bool): operate in place. Default: ``False``.
        min_value, max_value: deprecated names of ``min_val`` / ``max_val`` (a
            ``FutureWarning``).

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Hardtanh(-2, 2)(ember.tensor([-3., 1., 3.]))
        tensor([-2.,  1.,  2.])
    """
    __constants__ = ['min_val', 'max_val', 'inplace']

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f'min_val={self.min_val}, max_val={self.max_val}{_ip(self.inplace)}'


class ReLU6(Hardtanh):
    """Applies ``min(max(0, x), 6)`` elementwise.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.ReLU6()(ember.tensor([-1., 3., 7.]))
        tensor([0., 3., 6.])
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _ip(self.inplace, '')


class Sigmoid(Module):
    """Applies the logistic sigmoid ``1 / (1 + exp(-x))`` elementwise.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Sigmoid()(ember.tensor([0.]))
        tensor([0.5000])
    """

    def forward(self, input):
        import ember    # the public binding (observed by __torch_function__ modes)
        return ember.sigmoid(input)


class Hardsigmoid(Module):
    """Applies the hard sigmoid ``relu6(x + 3) / 6`` elementwise.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Hardsigmoid()(ember.tensor([-4., 0.]))
        tensor([0.0000, 0.5000])
    """
    __constants__ = ['inplace']

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Applies the hyperbolic tangent elementwise.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Tanh()(ember.tensor([0.]))
        tensor([0.])
    """

    def forward(self, input):
        import ember
        return ember.tanh(input)


class SiLU(Module):
    """Applies the sigmoid linear unit (swish) ``x * sigmoid(x)`` elementwise.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.SiLU()(ember.tensor([1.]))
        tensor([0.7311])
    """
    __constants__ = ['inplace']

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _ip(self.inplace, '')


class Mish(Module):
    """Applies ``x * tanh(softplus(x))`` elementwise.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Mish()(ember.tensor([1.]))
        tensor([0.8651])
    """
    __constants__ = ['inplace']

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return _ip(self.inplace, '')


class Hardswish(Module):
    """Applies the hard swish ``x * relu6(x + 3) / 6`` elementwise.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Hardswish()(ember.tensor([1.]))
        tensor([0.6667])
    """
    __constants__ = ['inplace']

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """Applies the exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)``
    otherwise.

    Args:
        alpha (float): the saturation value of the negative part. Default: 1.0.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.ELU()(ember.tensor([-1., 2.]))
        tensor([-0.6321,  2.0000])
    """
    __constants__ = ['alpha', 'inplace']

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f'alpha={self.alpha}{_ip(self.inplace)}'


class CELU(Module):
    """Applies ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` elementwise.

    Args:
        alpha (float): the ``alpha`` of the formula. Default: 1.0.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.CELU(2.)(ember.tensor([-1., 2.]))
        tensor([-0.7869,  2.0000])
    """
    __constants__ = ['alpha', 'inplace']

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f'alpha={self.alpha}{_ip(self.inplace)}'


class SELU(Module):
    """Applies the scaled ELU ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with
    ``alpha = 1.6732632423543772`` and ``scale = 1.0507009873554805``.

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.SELU()(ember.tensor([-1., 2.]))
        tensor([-1.1113,  2.1014])
    """
    __constants__ = ['inplace']

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _ip(self.inplace, '')


class GLU(Module):
    """The gated linear unit: ``a * sigmoid(b)`` where ``a``, ``b`` are the halves of the
    input along ``dim``.

    Args:
        dim (int): the dimension to split (its size must be even). Default: -1.

    Shape:
        - Input: ``(*1, N, *2)``; Output: ``(*1, M, *2)`` with ``M = N / 2``.

    Example::

        >>> nn.GLU()(ember.tensor([[1., 2., 0., 0.]]))
        tensor([[0.5000, 1.0000]])
    """
    __constants__ = ['dim']

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f'dim={self.dim}'


class GELU(Module):
    """Applies the Gaussian error linear unit ``x * Phi(x)`` (``approximate='tanh'``: its
    tanh approximation) elementwise.

    Args:
        approximate (str): ``'none'`` or ``'tanh'``. Default: ``'none'``.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.GELU()(ember.tensor([1.]))
        tensor([0.8413])
    """
    __constants__ = ['approximate']

    def __init__(self, approximate='none'):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f'approximate={self.approximate!r}'


class Hardshrink(Module):
    """Applies hard shrinkage: ``x`` where ``|x| > lambd``, else 0.

    Args:
        lambd (float): the threshold. Default: 0.5.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Hardshrink()(ember.tensor([-1., 0.2]))
        tensor([-1.,  0.])
    """
    __constants__ = ['lambd']

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f'{self.lambd}'


class LogSigmoid(Module):
    """Applies ``log(sigmoid(x))`` elementwise.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.LogSigmoid()(ember.tensor([0.]))
        tensor([-0.6931])
    """

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """Applies ``log(1 + exp(beta * x)) / beta`` elementwise (linear above
    ``threshold``).

    Args:
        beta (float): the ``beta`` of the formula. Default: 1.
        threshold (float): above ``beta * x > threshold`` the function is the identity.
            Default: 20.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Softplus()(ember.tensor([0.]))
        tensor([0.6931])
    """
    __constants__ = ['beta', 'threshold']

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f'beta={self.beta}, threshold={self.threshold}'


class Softshrink(Module):
    """Applies soft shrinkage: ``x - lambd`` above ``lambd``, ``x + lambd`` below
    ``-lambd``, 0 in between.

    Args:
        lambd (float): the threshold (>= 0). Default: 0.5.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Softshrink()(ember.tensor([-1., 0.2]))
        tensor([-0.5000,  0.0000])
    """
    __constants__ = ['lambd']

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """Applies ``max(0, x) + a * min(0, x)`` with a learnable slope ``a``: one for all
    channels, or one per channel (dim 1 of the input).

    Args:
        num_parameters (int): number of slopes (1, or the number of input channels).
            Default: 1.
        init (float): the initial slope. Default: 0.25.
        device, dtype: factory arguments of the weight.

    Attributes:
        weight (Tensor): the learnable slopes, shape ``(num_parameters,)``.

    Shape:
        - Input: ``(*)``; channels at dim 1 (a 1-d input has one channel).
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.PReLU()(ember.tensor([-1., 2.]))
        tensor([-0.2500,  2.0000], grad_fn=<PreluKernelBackward0>)
    """
    __constants__ = ['num_parameters']

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Set every slope to ``init``."""
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f'num_parameters={self.num_parameters}'


class Softsign(Module):
    """Applies ``x / (1 + |x|)`` elementwise.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Softsign()(ember.tensor([1.]))
        tensor([0.5000])
    """

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Applies ``x - tanh(x)`` elementwise.

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, same shape as the input.

    Example::

        >>> nn.Tanhshrink()(ember.tensor([1.]))
        tensor([0.2384])
    """

    def forward(self, input):
        return F.tanhshrink(input)


from . import _multihead  # noqa: E402
from ._multihead import *  # noqa: E402,F401,F403
__all__ += _multihead.__all__
