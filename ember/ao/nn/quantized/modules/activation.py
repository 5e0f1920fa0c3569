"""Quantized activation modules (``nn.quantized.ReLU6``, ``Hardswish``, ``ELU``,
``LeakyReLU``, ``Sigmoid``, ``Softmax``, ``PReLU``)."""
import ember
from ember import nn as _nn
from ember._quantized import ops as _qops
from .utils import _register_qparams

__all__ = ['ReLU6', 'Hardswish', 'ELU', 'LeakyReLU', 'Sigmoid', 'Softmax', 'PReLU',
           'MultiheadAttention']


class ReLU6(_nn.ReLU):
    r"""ReLU6 on a quantized tensor: ``min(max(0, x), 6)`` on the integers (the scale and
    zero point stay).

    Args:
        inplace (bool): overwrite the input. Default: ``False``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 7.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.ReLU6()(q).int_repr()
        tensor([10, 70], dtype=torch.uint8)
    """

    def __init__(self, inplace=False):
        super().__init__(inplace)
        self.inplace = inplace

    def forward(self, input):
        return _qops.relu6(input, self.inplace)

    def _get_name(self):
        return 'QuantizedReLU6'

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A quantized ReLU6 from a float one."""
        return ReLU6(mod.inplace)


class Hardswish(_nn.Hardswish):
    r"""Hardswish on a quantized tensor, quantized with :attr:`scale` and
    :attr:`zero_point`.

    Args:
        scale (float): output scale.
        zero_point (int): output zero point.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.Hardswish(0.1, 10)(q).int_repr()
        tensor([ 7, 17], dtype=torch.uint8)
    """

    def __init__(self, scale, zero_point, device=None, dtype=None):
        super().__init__()
        _register_qparams(self, scale, zero_point)

    def forward(self, input):
        return _qops.hardswish(input, self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedHardswish'

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A quantized Hardswish from an observed float one."""
        scale, zp = mod.activation_post_process.calculate_qparams()
        return Hardswish(float(scale), int(zp))

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized Hardswish with the given output scale and zero point."""
        return cls(float(scale), int(zero_point))


def _num(v):
    return v.item() if isinstance(v, ember.Tensor) else v




class ELU(_nn.ELU):
    r"""ELU on a quantized tensor, quantized with :attr:`scale` and :attr:`zero_point`.

    Args:
        scale (float): output scale.
        zero_point (int): output zero point.
        alpha (float): the ELU's :math:`\alpha`. Default: 1.0.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.ELU(0.1, 10)(q).int_repr()
        tensor([ 4, 20], dtype=torch.uint8)
    """

    def __init__(self, scale, zero_point, alpha=1.0):
        super().__init__(alpha)
        self.scale = float(_num(scale))
        self.zero_point = int(_num(zero_point))

    def forward(self, input):
        return _qops.elu(input, self.scale, self.zero_point, self.alpha)

    def _get_name(self):
        return 'QuantizedELU'

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A quantized ELU from an observed float one."""
        scale, zp = mod.activation_post_process.calculate_qparams()
        return ELU(float(scale), int(zp), mod.alpha)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized ELU with the given output scale and zero point."""
        return cls(float(scale), int(zero_point), mod.alpha)


class LeakyReLU(_nn.LeakyReLU):
    r"""Leaky ReLU on a quantized tensor, quantized with :attr:`scale` and
    :attr:`zero_point`.

    Args:
        scale (float): output scale.
        zero_point (int): output zero point.
        negative_slope (float): slope below zero. Default: 1e-2.
        inplace (bool): unused by the quantized kernel. Default: ``False``.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.LeakyReLU(0.1, 10, 0.5)(q).int_repr()
        tensor([ 5, 20], dtype=torch.uint8)
    """

    def __init__(self, scale, zero_point, negative_slope=1e-2, inplace=False, device=None,
                 dtype=None):
        super().__init__(negative_slope, inplace)
        _register_qparams(self, scale, zero_point)

    def forward(self, input):
        return _qops.leaky_relu(input, self.negative_slope, self.inplace, self.scale,
                                self.zero_point)

    def _get_name(self):
        return 'QuantizedLeakyReLU'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized LeakyReLU from an observed float one."""
        scale, zp = mod.activation_post_process.calculate_qparams()
        return cls(float(scale), int(zp), mod.negative_slope, mod.inplace)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized LeakyReLU with the given output scale and zero point."""
        return cls(float(scale), int(zero_point), mod.negative_slope, mod.inplace)




class Sigmoid(_nn.Sigmoid):
    r"""Sigmoid on a quantized tensor, quantized with ``output_scale`` and
    ``output_zero_point``.

    Args:
        output_scale (float): output scale.
        output_zero_point (int): output zero point.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([0.0]), 0.1, 10, ember.quint8)
        >>> nn.quantized.Sigmoid(1 / 256, 0)(q).int_repr()
        tensor([128], dtype=torch.uint8)
    """

    def __init__(self, output_scale, output_zero_point):
        super().__init__()
        self.output_scale = float(_num(output_scale))
        self.output_zero_point = int(_num(output_zero_point))

    def forward(self, input):
        return _qops.sigmoid(input, self.output_scale, self.output_zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized Sigmoid from an observed float one."""
        scale, zp = mod.activation_post_process.calculate_qparams()
        return cls(float(scale), int(zp))


class Softmax(_nn.Softmax):
    r"""Softmax on a quantized tensor along ``dim``, quantized with :attr:`scale` and
    :attr:`zero_point`.

    Args:
        dim (int, optional): the dimension. Default: None (PyTorch's implicit choice).
        scale (float): output scale. Default: 1.0.
        zero_point (int): output zero point. Default: 0.

    Example::

        >>> q = ember.quantize_per_tensor(ember.tensor([[0.0, 0.0]]), 0.1, 10, ember.quint8)
        >>> nn.quantized.Softmax(1, 1 / 256, 0)(q).int_repr()
        tensor([[128, 128]], dtype=torch.uint8)
    """

    def __init__(self, dim=None, scale=1.0, zero_point=0):
        super().__init__()
        self.dim = dim
        self.scale = float(scale)
        self.zero_point = int(zero_point)

    def forward(self, input):
        dim = self.dim
        if dim is None:
            stacklevel = 5
            dim = _nn.functional._get_softmax_dim("softmax", input.dim(), stacklevel) if hasattr(
                _nn.functional, '_get_softmax_dim') else (0 if input.dim() in (0, 1, 3) else 1)
        return _qops.softmax(input, dim, self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedSoftmax'

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """A quantized Softmax from an observed float one."""
        scale, zp = mod.activation_post_process.calculate_qparams()
        return Softmax(mod.dim, float(scale), int(zp))

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized Softmax with the given output scale and zero point."""
        return cls(mod.dim, float(scale), int(zero_point))


class PReLU(_nn.Module):
    r"""PReLU on a quantized tensor (``torch.ao.nn.quantized.PReLU``): a ``quint8`` slope
    per channel (or one), the result quantized with :attr:`scale` and :attr:`zero_point`
    (``ember.ops.quantized.prelu``).

    Args:
        output_scale (float): output scale.
        output_zero_point (int): output zero point.
        num_parameters (int): 1, or the number of channels of the input. Default: 1.

    Example::

        >>> m = nn.quantized.PReLU(0.1, 10)
        >>> m.set_weight(ember.quantize_per_tensor(ember.tensor([0.25]), 0.01, 0, ember.quint8))
        >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 1.0]), 0.1, 10, ember.quint8)
        >>> m(q).int_repr()
        tensor([ 8, 20], dtype=torch.uint8)
    """

    def __init__(self, output_scale, output_zero_point, num_parameters=1):
        super().__init__()
        self.num_parameters = num_parameters
        self.scale = output_scale
        self.zero_point = output_zero_point
        w = ember.randn(num_parameters, dtype=ember.float)
        self.set_weight(ember.quantize_per_tensor(w, scale=1.0, zero_point=0,
                                                  dtype=ember.quint8))

    def set_weight(self, w):
        """Set the quantized slopes."""
        self.weight = w

    def forward(self, input):
        return ember.ops.quantized.prelu(input, self.weight, self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedPReLU'

    @classmethod
    def _with_observed_weight(cls, mod, scale, zero_point):
        q = cls(float(scale), int(zero_point), mod.num_parameters)
        float_wt = mod.weight.float()
        observer = mod.qconfig.weight()
        observer(float_wt)
        if observer.dtype is not ember.quint8:
            import warnings
            warnings.warn(f"PReLU's weight observer should have dtype quint8 but got "
                          f"{observer.dtype}", stacklevel=3)
        wt_scale, wt_zp = observer.calculate_qparams()
        q.set_weight(ember.quantize_per_tensor(float_wt, float(wt_scale), int(wt_zp),
                                               ember.quint8))
        return q

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized PReLU from an observed float one: the output parameters from its
        activation observer, the slopes observed by its qconfig's weight observer and
        quantized to ``quint8`` (with a warning if that observer's dtype is not quint8)."""
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return cls._with_observed_weight(mod, scale, zero_point)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        """A quantized PReLU from a reference (float) one and the output parameters."""
        return cls._with_observed_weight(mod, scale, zero_point)


def _quantizable_mha():
    from ember.ao.nn.quantizable.modules.activation import MultiheadAttention
    return MultiheadAttention


class MultiheadAttention(_quantizable_mha()):
    r"""A quantized multi-head attention (``torch.ao.nn.quantized.MultiheadAttention``): an
    observed :class:`ember.ao.nn.quantizable.MultiheadAttention` converted (quantized
    projections, ``bias_k``/``bias_v`` quantized to ``quint8``); made by ``convert`` through
    the custom-module configuration.

    Args:
        as :class:`ember.ao.nn.quantizable.MultiheadAttention`.

    Example::

        >>> nn.quantized.MultiheadAttention(4, 2)._get_name()
        'QuantizedMultiheadAttention'
    """
    _FLOAT_MODULE = _quantizable_mha()

    def _get_name(self):
        return 'QuantizedMultiheadAttention'

    @classmethod
    def from_float(cls, other):
        """Refused: the flow is float -> observed (quantizable) -> quantized."""
        raise NotImplementedError("It looks like you are trying to convert a non-observed MHA "
                                  "module. Please, see the examples on quantizable MHAs.")

    @classmethod
    def from_observed(cls, other):
        """The quantized attention of an observed quantizable one."""
        from ember.ao import quantization as Q
        converted = Q.convert(other, mapping=None, inplace=False, remove_qconfig=True,
                              convert_custom_config_dict=None)
        converted.__class__ = cls
        bias_k = None
        if converted.bias_k is not None:
            bias_k = converted._parameters.pop('bias_k')
            sc, zp = ember._choose_qparams_per_tensor(bias_k, reduce_range=False)
            converted.bias_k = ember.quantize_per_tensor(bias_k, sc, zp, ember.quint8)
        if converted.bias_v is not None:
            bias_v = converted._parameters.pop('bias_v')
            # as PyTorch: bias_v takes the parameters chosen for bias_k
            sc, zp = ember._choose_qparams_per_tensor(bias_k, reduce_range=False)
            converted.bias_v = ember.quantize_per_tensor(bias_v, sc, zp, ember.quint8)
        del converted.in_proj_weight
        del converted.in_proj_bias
        return converted
