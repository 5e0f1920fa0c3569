"""Reference quantized Linear and Conv1d/2d/3d: float modules whose weight is quantized
and dequantized with stored qparams on every call (what ``convert_to_reference_fx`` puts
in the graph, as ``torch.ao.nn.quantized.reference``).

These are the fallback used while ``ember.ao.nn.quantized.reference`` is unavailable;
:func:`reference_modules` gives the namespace FX quantization uses (that package when it
imports, else this module); names, state-dict keys and repr are torch's."""
import ember as _em
from ember import nn as _nn
from ember.nn import functional as _F

__all__ = ['Linear', 'Conv1d', 'Conv2d', 'Conv3d', 'reference_modules']


class _ReferenceQuantizedModule:
    """Weight qparams and the quantize-dequantize of the weight."""

    def _init_weight_qparams(self, weight_qparams, device):
        if weight_qparams is None:
            weight_qparams = {"qscheme": _em.per_tensor_affine, "dtype": _em.quint8,
                              "scale": 1.0, "zero_point": 0}
        self.weight_qscheme = weight_qparams["qscheme"]
        self.weight_dtype = weight_qparams["dtype"]
        if self.weight_qscheme not in (None, _em.per_tensor_affine, _em.per_channel_affine,
                                       _em.per_channel_affine_float_qparams):
            raise AssertionError(
                f"qscheme: {self.weight_qscheme} is not support in reference quantized "
                f"{self._get_name()}")
        if self.weight_dtype in (_em.quint8, _em.qint8, _em.quint4x2, _em.qint32):
            scale = weight_qparams["scale"]
            zp = weight_qparams["zero_point"]
            scale = scale.detach().clone().float() if isinstance(scale, _em.Tensor) \
                else _em.tensor(scale, dtype=_em.float)
            zp_dtype = (_em.float if self.weight_qscheme ==
                        _em.per_channel_affine_float_qparams else _em.int)
            zp = zp.detach().clone().to(zp_dtype) if isinstance(zp, _em.Tensor) \
                else _em.tensor(zp, dtype=zp_dtype)
            self.register_buffer("weight_scale", scale)
            self.register_buffer("weight_zero_point", zp)
            axis = weight_qparams.get("axis", 0) if self.weight_qscheme in (
                _em.per_channel_affine, _em.per_channel_affine_float_qparams) else 0
            self.register_buffer("weight_axis", _em.tensor(axis, dtype=_em.int))
        else:
            self.register_buffer("weight_scale", _em.tensor(1.0, dtype=_em.float))
            self.register_buffer("weight_zero_point", _em.tensor(0, dtype=_em.int))
            self.register_buffer("weight_axis", _em.tensor(0, dtype=_em.int))
        self.weight_axis_int = int(self.weight_axis.item())

    def _quantized(self):
        w = self.weight
        if self.weight_qscheme == _em.per_tensor_affine:
            return _em.quantize_per_tensor(w, float(self.weight_scale),
                                           int(self.weight_zero_point), self.weight_dtype)
        return _em.quantize_per_channel(w, self.weight_scale, self.weight_zero_point,
                                        self.weight_axis_int, self.weight_dtype)

    def get_weight(self):
        """The weight quantized and dequantized with the stored qparams."""
        if self.weight_qscheme is None or self.weight_dtype not in (
                _em.quint8, _em.qint8, _em.qint32, _em.quint4x2):
            return self.weight
        return self._quantized().dequantize()

    def get_quantized_weight(self):
        """The weight quantized with the stored qparams."""
        return self._quantized()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight_qscheme"] = self.weight_qscheme
        destination[prefix + "weight_dtype"] = self.weight_dtype

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        self.weight_qscheme = state_dict.pop(prefix + "weight_qscheme", self.weight_qscheme)
        self.weight_dtype = state_dict.pop(prefix + "weight_dtype", self.weight_dtype)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class Linear(_ReferenceQuantizedModule, _nn.Linear):
    """A reference quantized linear layer: ``F.linear`` with the weight quantized and
    dequantized by its qparams.

    Args:
        in_features, out_features, bias: as :class:`ember.nn.Linear`.
        weight_qparams (dict): ``qscheme``, ``dtype``, ``scale``, ``zero_point``
            (``axis`` for per-channel).

    Shape:
        as :class:`ember.nn.Linear`.

    Example::

        >>> qp = {'qscheme': ember.per_tensor_affine, 'dtype': ember.qint8,
        ...       'scale': 0.1, 'zero_point': 0}
        >>> m = Linear(2, 3, weight_qparams=qp)
        >>> m(ember.ones(1, 2)).shape
        torch.Size([1, 3])
    """
    _IS_REFERENCE = True

    def __init__(self, in_features, out_features, bias_=True, device=None, dtype=None,
                 weight_qparams=None):
        _nn.Linear.__init__(self, in_features, out_features, bias_, device=device,
                            dtype=dtype)
        self._init_weight_qparams(weight_qparams, device)

    def _get_name(self):
        return "QuantizedLinear(Reference)"

    def forward(self, x):
        return _F.linear(x, self.get_weight(), self.bias)

    @classmethod
    def from_float(cls, float_linear, weight_qparams):
        """A reference linear layer with ``float_linear``'s weight and bias."""
        m = cls(float_linear.in_features, float_linear.out_features,
                float_linear.bias is not None, weight_qparams=weight_qparams)
        m.weight = _nn.Parameter(float_linear.weight.detach())
        if float_linear.bias is not None:
            m.bias = _nn.Parameter(float_linear.bias.detach())
        return m


def _conv_class(nd):
    base = getattr(_nn, f'Conv{nd}d')

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', device=None,
                 dtype=None, weight_qparams=None):
        base.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                      dilation, groups, bias, padding_mode, device=device, dtype=dtype)
        self._init_weight_qparams(weight_qparams, device)

    def forward(self, x):
        return self._conv_forward(x, self.get_weight(), self.bias)

    def from_float(cls, float_conv, weight_qparams):
        m = cls(float_conv.in_channels, float_conv.out_channels, float_conv.kernel_size,
                float_conv.stride, float_conv.padding, float_conv.dilation,
                float_conv.groups, float_conv.bias is not None, float_conv.padding_mode,
                weight_qparams=weight_qparams)
        m.weight = _nn.Parameter(float_conv.weight.detach())
        if float_conv.bias is not None:
            m.bias = _nn.Parameter(float_conv.bias.detach())
        return m
    from_float.__doc__ = "A reference convolution with ``float_conv``'s weight and bias."

    doc = f"""A reference quantized {nd}-d convolution: the convolution with the weight
    quantized and dequantized by its qparams.

    Args:
        as :class:`ember.nn.Conv{nd}d`, plus ``weight_qparams`` (dict: ``qscheme``,
        ``dtype``, ``scale``, ``zero_point``, ``axis`` for per-channel).

    Shape:
        as :class:`ember.nn.Conv{nd}d`.

    Example::

        >>> qp = {{'qscheme': ember.per_tensor_affine, 'dtype': ember.qint8,
        ...       'scale': 0.1, 'zero_point': 0}}
        >>> m = Conv{nd}d(1, 1, 1, weight_qparams=qp)
    """
    return type(f'Conv{nd}d', (_ReferenceQuantizedModule, base), {
        '__init__': __init__, 'forward': forward, '__doc__': doc, '__module__': __name__,
        '_IS_REFERENCE': True, 'from_float': classmethod(from_float),
        '_get_name': lambda self, _n=f'QuantizedConv{nd}d(Reference)': _n})


Conv1d = _conv_class(1)
Conv2d = _conv_class(2)
Conv3d = _conv_class(3)


def reference_modules():
    """The namespace of the reference quantized modules (``Linear``, ``Conv1d``-``3d``):
    ``ember.ao.nn.quantized.reference`` when it imports, else this module.

    Example::

        >>> reference_modules().Linear.__name__
        'Linear'
    """
    import sys
    try:
        from ember.ao.nn.quantized import reference as ns
        if all(hasattr(ns, n) for n in ('Linear', 'Conv1d', 'Conv2d', 'Conv3d')):
            return ns
    except ImportError:
        pass
    return sys.modules[__name__]
