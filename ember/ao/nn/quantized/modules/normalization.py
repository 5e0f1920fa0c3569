"""Quantized ``LayerNorm``, ``GroupNorm`` and ``InstanceNorm1d/2d/3d``: normalization of
the real values, quantized with the module's output scale and zero point."""
from ember import nn as _nn
from ember._quantized import ops as _qops
from .utils import _register_qparams

__all__ = ['LayerNorm', 'GroupNorm', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d']


class _QNorm:
    def _set_qparams(self, weight, bias, scale, zero_point):
        self.weight = weight
        self.bias = bias
        _register_qparams(self, scale, zero_point)


class LayerNorm(_QNorm, _nn.LayerNorm):
    r"""Layer normalization of a quantized tensor, quantized with :attr:`scale` and
    :attr:`zero_point`.

    Args:
        normalized_shape (int or list): the trailing shape normalized over.
        weight (Parameter): affine weight.
        bias (Parameter): affine bias.
        scale (float): output scale.
        zero_point (int): output zero point.
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): Default: ``True``.

    Example::

        >>> w, b = nn.Parameter(ember.ones(2)), nn.Parameter(ember.zeros(2))
        >>> m = nn.quantized.LayerNorm([2], w, b, 0.1, 10)
        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> m(q).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """

    def __init__(self, normalized_shape, weight, bias, scale, zero_point, eps=1e-5,
                 elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)
        self._set_qparams(weight, bias, scale, zero_point)

    def forward(self, input):
        return _qops.layer_norm(input, self.normalized_shape, self.weight, self.bias,
                                self.eps, self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedLayerNorm'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized LayerNorm from an observed float one."""
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return cls(mod.normalized_shape, mod.weight, mod.bias, float(scale), int(zero_point),
                   mod.eps, mod.elementwise_affine)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized LayerNorm from a float one and the output's qparams."""
        return cls(mod.normalized_shape, mod.weight, mod.bias, float(scale), int(zero_point),
                   mod.eps, mod.elementwise_affine)


class GroupNorm(_QNorm, _nn.GroupNorm):
    r"""Group normalization of a quantized tensor, quantized with :attr:`scale` and
    :attr:`zero_point`.

    Args:
        num_groups (int): number of groups.
        num_channels (int): number of channels.
        weight (Parameter): affine weight.
        bias (Parameter): affine bias.
        scale (float): output scale.
        zero_point (int): output zero point.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): Default: ``True``.

    Example::

        >>> w, b = nn.Parameter(ember.ones(2)), nn.Parameter(ember.zeros(2))
        >>> m = nn.quantized.GroupNorm(1, 2, w, b, 0.1, 10)
        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 1.0]]), 0.1, 10, ember.quint8)
        >>> m(q).int_repr()
        tensor([[ 0, 20]], dtype=torch.uint8)
    """
    __constants__ = ['num_groups', 'num_channels', 'eps', 'affine']

    def __init__(self, num_groups, num_channels, weight, bias, scale, zero_point, eps=1e-5,
                 affine=True, device=None, dtype=None):
        super().__init__(num_groups, num_channels, eps, affine)
        self._set_qparams(weight, bias, scale, zero_point)

    def forward(self, input):
        return _qops.group_norm(input, self.num_groups, self.weight, self.bias, self.eps,
                                self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedGroupNorm'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized GroupNorm from an observed float one."""
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return cls(mod.num_groups, mod.num_channels, mod.weight, mod.bias, float(scale),
                   int(zero_point), mod.eps, mod.affine)


def _instance(nd, base):
    name = f'InstanceNorm{nd}d'

    def __init__(self, num_features, weight, bias, scale, zero_point, eps=1e-5, momentum=0.1,
                 affine=False, track_running_stats=False, device=None, dtype=None):
        base.__init__(self, num_features, eps, momentum, affine, track_running_stats)
        self._set_qparams(weight, bias, scale, zero_point)

    def forward(self, input):
        return _qops.instance_norm(input, self.weight, self.bias, self.eps, self.scale,
                                   self.zero_point)

    def from_float(cls, mod, use_precomputed_fake_quant=False):
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return cls(mod.num_features, mod.weight, mod.bias, float(scale), int(zero_point),
                   mod.eps, mod.affine)
    from_float.__doc__ = f"A quantized {name} from an observed float one."
    doc = f"""Instance normalization of a quantized {nd + 2}-d input, quantized with
    :attr:`scale` and :attr:`zero_point`.

    Args:
        num_features (int): number of channels.
        weight (Parameter): affine weight.
        bias (Parameter): affine bias.
        scale (float): output scale.
        zero_point (int): output zero point.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> w, b = nn.Parameter(ember.ones(1)), nn.Parameter(ember.zeros(1))
        >>> m = nn.quantized.{name}(1, w, b, 0.1, 10)
        >>> q = ember.quantize_per_tensor(ember.zeros(1, 1{', 2' * nd}), 0.1, 10, ember.quint8)
        >>> m(q).shape
        torch.Size([1, 1{', 2' * nd}])
    """
    return type(name, (_QNorm, base), {
        '__init__': __init__, 'forward': forward, '__doc__': doc, '__module__': __name__,
        'from_float': classmethod(from_float),
        '_get_name': lambda self, _n='Quantized' + name: _n})


InstanceNorm1d = _instance(1, _nn.InstanceNorm1d)
InstanceNorm2d = _instance(2, _nn.InstanceNorm2d)
InstanceNorm3d = _instance(3, _nn.InstanceNorm3d)
