"""Dynamically quantized ``Linear``: int8 weight, float input and output."""
from ember import _dtype as D
from ember import nn as _nn
from ember._quantized import ops as _qops
from ember.ao.nn.quantized.modules import linear as _qlinear
from ember.ao.nn.quantized.modules.utils import _quantize_weight

__all__ = ['Linear']


class Linear(_qlinear.Linear):
    r"""A dynamically quantized linear layer: ``qint8`` weight (or ``float16``), float32
    input and output; each input is quantized to ``quint8`` with parameters read from its
    own range (7-bit, ``reduce_range``), as ``torch.ao.nn.quantized.dynamic.Linear``.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias_ (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): ``ember.qint8`` or ``ember.float16``. Default: ``ember.qint8``.

    Shape:
        - Input: :math:`(*, H_{in})` (float32)
        - Output: :math:`(*, H_{out})` (float32)

    Example::

        >>> m = nn.quantized.dynamic.Linear(4, 2)
        >>> m(ember.ones(3, 4)).shape
        torch.Size([3, 2])
    """
    _version = 4

    def __init__(self, in_features, out_features, bias_=True, dtype=D.qint8):
        super().__init__(in_features, out_features, bias_, dtype=dtype)
        self.version = 4

    def forward(self, x):
        packed = self._packed_params._packed_params
        if self._packed_params.dtype is D.qint8:
            if self.version is None or self.version < 4:
                y = _qops.linear_dynamic(x, packed)
            else:
                y = _qops.linear_dynamic(x, packed, reduce_range=True)
        elif self._packed_params.dtype is D.float16:
            y = _qops.linear_dynamic_fp16(x, packed)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        return y.to(x.dtype)

    def _get_name(self):
        return 'DynamicQuantizedLinear'

    def extra_repr(self):
        s = (f"in_features={self.in_features}, out_features={self.out_features}, "
             f"dtype={self._packed_params.dtype}")
        if self._packed_params.dtype is D.qint8:
            s += f", qscheme={self.weight().qscheme()}"
        return s

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.__dict__['_pending_version'] = local_metadata.get('version', None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        if '_pending_version' in self.__dict__:
            self.version = self.__dict__.pop('_pending_version')

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A dynamically quantized linear layer from a float ``mod`` with a ``qconfig``
        (``Linear``, a fused ``LinearReLU``'s linear, or a dynamic QAT ``Linear``); the
        weight is quantized with the qconfig's weight observer (the default dynamic
        qconfig's when it has none)."""
        float_modules = [_nn.Linear]
        names = ['Linear', 'NonDynamicallyQuantizableLinear', 'LinearReLU', 'Linear']
        ok = isinstance(mod, _nn.Linear) or type(mod).__name__ == 'LinearReLU'
        if not ok:
            raise AssertionError("nn.quantized.dynamic.Linear.from_float only works for one "
                                 f"of{names}")
        del float_modules
        if not hasattr(mod, 'qconfig'):
            raise AssertionError("Input float module must have qconfig defined")
        if isinstance(mod, _nn.Sequential):
            mod = mod[0]
        if mod.qconfig is not None and mod.qconfig.weight is not None:
            weight_observer = mod.qconfig.weight()
        else:
            from ember.ao.quantization.qconfig import default_dynamic_qconfig
            weight_observer = default_dynamic_qconfig.weight()
        dtype = weight_observer.dtype
        if dtype not in (D.qint8, D.float16):
            raise AssertionError("The only supported dtypes for dynamic quantized linear are "
                                 f"qint8 and float16 got: {dtype}")
        weight_observer(mod.weight)
        if dtype is D.qint8:
            qweight = _quantize_weight(mod.weight.float(), weight_observer)
        else:
            qweight = mod.weight.detach().float()
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, None if mod.bias is None else mod.bias.detach())
        return qlinear

    @classmethod
    def from_reference(cls, ref_qlinear):
        """A dynamically quantized linear layer from a reference quantized linear."""
        qlinear = cls(ref_qlinear.in_features, ref_qlinear.out_features,
                      dtype=ref_qlinear.weight_dtype)
        qlinear.set_weight_bias(ref_qlinear.get_quantized_weight(), ref_qlinear.bias)
        return qlinear
