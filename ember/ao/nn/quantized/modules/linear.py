"""Quantized ``Linear`` (``nn.quantized.Linear``) and its packed parameters module."""
from collections.abc import Iterable

import ember
from ember import _dtype as D
from ember import nn as _nn
from ember.nn import Module, Linear as _FloatLinear
from ember._quantized import ops as _qops
from .utils import (_quantize_weight, _hide_packed_params_repr, _QParamsState,
                    _float_module_check)

__all__ = ['LinearPackedParams', 'Linear']


class LinearPackedParams(Module):
    """Holds a quantized linear layer's packed weight and bias
    (``torch.ao.nn.quantized.modules.linear.LinearPackedParams``); its state dict
    entries are ``dtype`` and ``_packed_params`` (the ``(weight, bias)`` tuple).

    Args:
        dtype (ember.dtype): ``ember.qint8`` (int8 weights) or ``ember.float16``.

    Example::

        >>> p = nn.quantized.modules.linear.LinearPackedParams()
        >>> p.dtype
        torch.qint8
    """
    _version = 3

    def __init__(self, dtype=D.qint8):
        super().__init__()
        self.dtype = dtype
        if dtype is D.qint8:
            w = ember.quantize_per_tensor(ember.zeros(1, 1), 1.0, 0, D.qint8)
        elif dtype is D.float16:
            w = ember.zeros(1, 1)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        self.set_weight_bias(w, None)

    def set_weight_bias(self, weight, bias):
        """Pack ``weight`` (quantized) and ``bias`` (float or None)."""
        if self.dtype is D.qint8:
            self._packed_params = _qops.linear_prepack(weight, bias)
        else:
            self._packed_params = _qops.linear_prepack_fp16(weight, bias)

    def _weight_bias(self):
        return self._packed_params.unpack()

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + 'dtype'] = self.dtype
        destination[prefix + '_packed_params'] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get('version', None)
        if version is None and prefix + '_packed_params' in state_dict:
            version = self._version        # a state dict without metadata, current keys
        pending = {}
        if version is None or version < 2:
            pending['dtype'] = D.qint8
        elif prefix + 'dtype' in state_dict:
            pending['dtype'] = state_dict.pop(prefix + 'dtype')
        else:
            missing_keys.append(prefix + 'dtype')
        if version is None or version < 3:
            keys = [prefix + 'weight', prefix + 'bias']
            if all(k in state_dict for k in keys):
                pending['wb'] = (state_dict.pop(keys[0]), state_dict.pop(keys[1]))
            else:
                missing_keys.extend(k for k in keys if k not in state_dict)
        elif prefix + '_packed_params' in state_dict:
            wb = state_dict.pop(prefix + '_packed_params')
            if not (isinstance(wb, (tuple, list)) and len(wb) == 2):
                error_msgs.append(f'While loading "{prefix}_packed_params": expected a '
                                  f'(weight, bias) tuple, got {type(wb).__name__}')
            else:
                pending['wb'] = tuple(wb)
        else:
            missing_keys.append(prefix + '_packed_params')
        self.__dict__['_pending_packed'] = pending
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        pending = self.__dict__.pop('_pending_packed', {})
        if 'dtype' in pending:
            self.dtype = pending['dtype']
        if 'wb' in pending:
            self.set_weight_bias(*pending['wb'])

    def __repr__(self):
        return repr(self._weight_bias())


class Linear(_QParamsState, Module):
    r"""A linear layer on quantized tensors: ``quint8`` input, ``qint8`` weight (per tensor
    or per output channel), float bias, ``quint8`` output quantized with :attr:`scale`
    and :attr:`zero_point` (``torch.ao.nn.quantized.Linear``).

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias_ (bool): whether the layer has a bias. Default: ``True``.
        dtype (ember.dtype): weight dtype. Default: ``ember.qint8``.

    Shape:
        - Input: :math:`(*, H_{in})` (``quint8``)
        - Output: :math:`(*, H_{out})` (``quint8``)

    Example::

        >>> m = nn.quantized.Linear(4, 2)
        >>> x = ember.quantize_per_tensor(ember.ones(3, 4), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([3, 2])
    """
    _version = 3
    _FLOAT_MODULE = (_FloatLinear, _nn.modules.linear.NonDynamicallyQuantizableLinear)

    def __init__(self, in_features, out_features, bias_=True, dtype=D.qint8):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        bias = ember.zeros(out_features, dtype=ember.float32) if bias_ else None
        if dtype is D.qint8:
            qweight = ember.quantize_per_tensor(ember.zeros(out_features, in_features), 1.0, 0,
                                                D.qint8)
        elif dtype is D.float16:
            qweight = ember.zeros(out_features, in_features, dtype=ember.float32)
        else:
            raise RuntimeError("Unsupported dtype specified for quantized Linear!")
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(qweight, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self):
        return 'QuantizedLinear'

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"scale={self.scale}, zero_point={self.zero_point}, "
                f"qscheme={self.weight().qscheme()}")

    def __repr__(self):
        return _hide_packed_params_repr(self, LinearPackedParams)

    def forward(self, x):
        return _qops.linear(x, self._packed_params._packed_params, self.scale,
                            self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get('version', None)
        if version is None or version == 1:
            # version 1 kept weight and bias at this level
            for k in ('weight', 'bias'):
                if prefix + k in state_dict:
                    state_dict[prefix + '_packed_params.' + k] = state_dict.pop(prefix + k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _weight_bias(self):
        return self._packed_params._weight_bias()

    def weight(self):
        """The quantized weight."""
        return self._weight_bias()[0]

    def bias(self):
        """The float bias (or None)."""
        return self._weight_bias()[1]

    def set_weight_bias(self, w, b):
        """Replace the quantized weight ``w`` and float bias ``b``."""
        self._packed_params.set_weight_bias(w, b)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized linear layer from an observed float ``mod`` (with ``qconfig`` and
        ``activation_post_process``, or a QAT module with ``weight_fake_quant``): its weight
        is quantized with the qconfig's weight observer, the output with the activation
        observer's scale and zero point.

        Args:
            mod (Module): the observed float (or QAT) module.
            use_precomputed_fake_quant (bool): use the weight observer's state as it is
                (do not feed it the weight again). Default: ``False``.
        """
        if hasattr(mod, 'weight_fake_quant'):
            _fuse_linear_bn_qat(mod)
            weight_post_process = mod.weight_fake_quant
            activation_post_process = mod.activation_post_process
        else:
            _float_module_check(cls, mod, cls._float_modules())
            activation_post_process = mod.activation_post_process
            if isinstance(mod, _nn.Sequential):      # a fused LinearReLU: its linear
                mod = mod[0]
            weight_post_process = (mod.qconfig.weight() if not hasattr(mod, 'weight_fake_quant')
                                   else mod.weight_fake_quant)
        if not use_precomputed_fake_quant:
            weight_post_process(mod.weight)
        dtype = weight_post_process.dtype
        act_scale, act_zp = activation_post_process.calculate_qparams()
        if dtype is not D.qint8:
            raise AssertionError("Weight observer must have dtype torch.qint8")
        qweight = _quantize_weight(mod.weight.float(), weight_post_process)
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, None if mod.bias is None else mod.bias.detach())
        qlinear.scale = float(act_scale)
        qlinear.zero_point = int(act_zp)
        return qlinear

    @classmethod
    def _float_modules(cls):
        mods = cls._FLOAT_MODULE
        return tuple(mods) if isinstance(mods, Iterable) else (mods,)

    @classmethod
    def from_reference(cls, ref_qlinear, output_scale, output_zero_point):
        """A quantized linear layer from a reference quantized linear module
        (``get_quantized_weight()``) and the output's scale and zero point."""
        qlinear = cls(ref_qlinear.in_features, ref_qlinear.out_features)
        qweight = ref_qlinear.get_quantized_weight()
        qlinear.set_weight_bias(qweight, ref_qlinear.bias)
        qlinear.scale = float(output_scale)
        qlinear.zero_point = int(output_zero_point)
        return qlinear


def _fuse_linear_bn_qat(mod):
    """A QAT LinearBn1d is folded into its linear weight and bias first (as PyTorch)."""
    if type(mod).__name__ == 'LinearBn1d':
        from ember.nn.utils.fusion import fuse_linear_bn_weights
        mod.weight, mod.bias = fuse_linear_bn_weights(
            mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var, mod.bn.eps,
            mod.bn.weight, mod.bn.bias)
