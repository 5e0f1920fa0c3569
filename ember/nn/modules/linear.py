"""Linear layers: ``Identity``, ``Linear``, ``Bilinear``, ``LazyLinear``."""
import math

from ... import _ops
from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['Identity', 'Linear', 'Bilinear', 'LazyLinear']


class Identity(Module):
    """A placeholder that returns its input unchanged.

    Args:
        args: any arguments (ignored).
        kwargs: any keyword arguments (ignored).

    Shape:
        - Input: ``(*)``, any shape.
        - Output: ``(*)``, the input itself.

    Example::

        >>> m = nn.Identity(54, unused_argument1=0.1)
        >>> m(ember.randn(128, 20)).size()
        torch.Size([128, 20])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Applies an affine transformation to the incoming data: ``y = x A^T + b``.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(*, H_in)`` where ``H_in = in_features``.
        - Output: ``(*, H_out)`` where ``H_out = out_features``.

    Attributes:
        weight (Parameter): ``(out_features, in_features)``, drawn from
            ``U(-1/sqrt(in_features), 1/sqrt(in_features))``.
        bias (Parameter): ``(out_features)``, drawn from the same distribution.

    Example::

        >>> m = nn.Linear(20, 30)
        >>> m(ember.randn(128, 20)).size()
        torch.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight and bias with the default (Kaiming-uniform) scheme."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f'in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}'


class Bilinear(Module):
    """Applies a bilinear transformation to two inputs: ``y = x1^T A x2 + b``.

    Args:
        in1_features (int): size of each first input sample (must be > 0).
        in2_features (int): size of each second input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input1: ``(*, H_in1)`` where ``H_in1 = in1_features``.
        - Input2: ``(*, H_in2)`` where ``H_in2 = in2_features``, same leading dims.
        - Output: ``(*, H_out)`` where ``H_out = out_features``.

    Attributes:
        weight (Parameter): ``(out_features, in1_features, in2_features)``, drawn from
            ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``.
        bias (Parameter): ``(out_features)``, drawn from the same distribution.

    Example::

        >>> m = nn.Bilinear(20, 30, 40)
        >>> m(ember.randn(128, 20), ember.randn(128, 30)).size()
        torch.Size([128, 40])
    """
    __constants__ = ['in1_features', 'in2_features', 'out_features']

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draw weight and bias from ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got "
                             f"(in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f'in1_features={self.in1_features}, in2_features={self.in2_features}, '
                f'out_features={self.out_features}, bias={self.bias is not None}')


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is inferred from ``input.shape[-1]`` on the first
    call; the module then becomes a :class:`Linear`.

    Args:
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device, dtype: factory arguments of the parameters.

    Shape:
        - Input: ``(*, H_in)``, ``H_in`` inferred on the first call.
        - Output: ``(*, H_out)`` where ``H_out = out_features``.

    Example::

        >>> m = nn.LazyLinear(10)
        >>> m(ember.ones(3, 7)).shape, type(m).__name__, m.weight.shape
        (torch.Size([3, 10]), 'Linear', torch.Size([10, 7]))
    """
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Materialise ``weight`` as ``(out_features, input.shape[-1])`` and initialise it (called by
        the first forward).

        Args:
            input (Tensor): the first input.

        Example::

            >>> m = nn.LazyLinear(2); m.initialize_parameters(ember.ones(1, 3)); m.in_features
            3
        """
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()

