"""Quantized ``LinearReLU`` (a quantized linear layer with ReLU fused) and the
``LinearLeakyReLU`` / ``LinearTanh`` fusions PyTorch runs on oneDNN only."""
from ember._quantized import ops as _qops
from ember.ao.nn.quantized.modules import linear as _linear

__all__ = ['LinearReLU', 'LinearLeakyReLU', 'LinearTanh']


class LinearReLU(_linear.Linear):
    r"""A quantized linear layer followed by ReLU, in one kernel
    (``ember.ops.quantized.linear_relu``).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): weight dtype. Default: ``ember.qint8``.

    Example::

        >>> m = nn.intrinsic.quantized.LinearReLU(4, 2)
        >>> x = ember.quantize_per_tensor(ember.ones(3, 4), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([3, 2])
    """

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        import ember
        super().__init__(in_features, out_features, bias, ember.qint8 if dtype is None
                         else dtype)

    @classmethod
    def _float_modules(cls):
        from ember.ao.nn.intrinsic import LinearReLU as _F
        return (_F,)

    def forward(self, x):
        return _qops.linear_relu(x, self._packed_params._packed_params, self.scale,
                                 self.zero_point)

    def _get_name(self):
        return 'QuantizedLinearReLU'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized LinearReLU from an observed fused float (or QAT) LinearReLU."""
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_linear_relu, output_scale, output_zero_point):
        """From a reference ``(linear, relu)`` pair and the output's qparams."""
        return super().from_reference(ref_linear_relu[0], output_scale, output_zero_point)


def _check_float(mod, cls_name, float_cls):
    import ember
    if type(mod) is not float_cls:
        raise AssertionError(f"Input float module should be {cls_name}")
    if not hasattr(mod, 'qconfig'):
        raise AssertionError("Input float module must have qconfig defined")
    app = mod.activation_post_process
    lin = mod[0]
    wpp = lin.qconfig.weight()
    wpp(lin.weight)
    if wpp.dtype is not ember.qint8:
        raise AssertionError(f"Weight observer must have dtype torch.qint8, got {wpp.dtype}")
    from ember.ao.nn.quantized.modules.utils import _quantize_weight
    return app, lin, _quantize_weight(lin.weight.float(), wpp)


class LinearLeakyReLU(_linear.Linear):
    r"""A quantized linear layer fused with LeakyReLU
    (``torch.ao.nn.intrinsic.quantized.LinearLeakyReLU``), which PyTorch runs on its
    ``onednn`` engine only.

    NOTE: unlike PyTorch, the forward raises ``NotImplementedError`` on the ``onednn``
    engine (the other engines raise PyTorch's ``Didn't find engine`` error, as PyTorch).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        negative_slope (float): LeakyReLU's slope.
        bias (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): weight dtype. Default: ``ember.qint8``.

    Example::

        >>> nn.intrinsic.quantized.LinearLeakyReLU(4, 2, 0.01).negative_slope
        0.01
    """

    def __init__(self, in_features, out_features, negative_slope, bias=True, dtype=None):
        import ember
        super().__init__(in_features, out_features, bias, ember.qint8 if dtype is None
                         else dtype)
        self.negative_slope = negative_slope

    @classmethod
    def _float_modules(cls):
        from ember.ao.nn.intrinsic import LinearLeakyReLU as _F
        return (_F,)

    def forward(self, x):
        import ember
        return ember.ops.quantized.linear_leaky_relu(
            x, self._packed_params._packed_params, self.scale, self.zero_point,
            self.negative_slope)

    def _get_name(self):
        return 'QuantizedLinearLeakyReLU'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """From an observed fused float ``LinearLeakyReLU`` (qint8 weight observer)."""
        app, lin, qweight = _check_float(mod, 'LinearLeakyReLU', cls._float_modules()[0])
        scale, zp = app.calculate_qparams()
        q = cls(lin.in_features, lin.out_features, mod[1].negative_slope, dtype=qweight.dtype)
        q.set_weight_bias(qweight, lin.bias)
        q.scale, q.zero_point = float(scale), int(zp)
        return q

    @classmethod
    def from_reference(cls, ref_mod, output_scale, output_zero_point):
        """From a reference ``(linear, leaky_relu)`` pair and the output's qparams."""
        lin = ref_mod[0]
        q = cls(lin.in_features, lin.out_features, ref_mod[1].negative_slope)
        q.set_weight_bias(lin.get_quantized_weight(), lin.bias)
        q.scale, q.zero_point = float(output_scale), int(output_zero_point)
        return q


class LinearTanh(_linear.Linear):
    r"""A quantized linear layer fused with tanh
    (``torch.ao.nn.intrinsic.quantized.LinearTanh``), which PyTorch runs on its ``onednn``
    engine only.

    NOTE: unlike PyTorch, the forward raises ``NotImplementedError`` on the ``onednn``
    engine (see :class:`LinearLeakyReLU`).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): weight dtype. Default: ``ember.qint8``.

    Example::

        >>> nn.intrinsic.quantized.LinearTanh(4, 2).out_features
        2
    """

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        import ember
        super().__init__(in_features, out_features, bias, ember.qint8 if dtype is None
                         else dtype)

    @classmethod
    def _float_modules(cls):
        from ember.ao.nn.intrinsic import LinearTanh as _F
        return (_F,)

    def forward(self, x):
        import ember
        return ember.ops.quantized.linear_tanh(x, self._packed_params._packed_params,
                                               self.scale, self.zero_point)

    def _get_name(self):
        return 'QuantizedLinearTanh'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """From an observed fused float ``LinearTanh`` (qint8 weight observer)."""
        app, lin, qweight = _check_float(mod, 'LinearTanh', cls._float_modules()[0])
        scale, zp = app.calculate_qparams()
        q = cls(lin.in_features, lin.out_features, dtype=qweight.dtype)
        q.set_weight_bias(qweight, lin.bias)
        q.scale, q.zero_point = float(scale), int(zp)
        return q

    @classmethod
    def from_reference(cls, ref_mod, output_scale, output_zero_point):
        """From a reference ``(linear, tanh)`` pair and the output's qparams."""
        lin = ref_mod[0]
        q = cls(lin.in_features, lin.out_features)
        q.set_weight_bias(lin.get_quantized_weight(), lin.bias)
        q.scale, q.zero_point = float(output_scale), int(output_zero_point)
        return q
