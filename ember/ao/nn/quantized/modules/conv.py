"""Quantized convolutions (``nn.quantized.Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``)."""
import ember
from ember import _dtype as D
from ember import nn as _nn
from ember.nn import Module
from ember.nn.modules.utils import _ntuple, _reverse_repeat_tuple
from ember._quantized import ops as _qops
from .utils import _quantize_weight, _QParamsState

__all__ = ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d',
           'ConvTranspose3d']

_SUPPORTED_PADDING = {'zeros', 'reflect'}


class _ConvNd(_QParamsState, Module):
    _version = 1
    _ND = 2
    _TRANSPOSED = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', device=None,
                 dtype=None, output_padding=0):
        super().__init__()
        tup = _ntuple(self._ND)
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _SUPPORTED_PADDING and not self._TRANSPOSED:
            raise ValueError(f"'padding_mode' {padding_mode} is not supported by quantized "
                             "convolution")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride)
        self.padding = tup(padding)
        self.dilation = tup(dilation)
        self.transposed = self._TRANSPOSED
        self.output_padding = tup(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        if self._TRANSPOSED:
            wshape = [in_channels, out_channels // groups]
        else:
            wshape = [out_channels, in_channels // groups]
        qweight = ember.quantize_per_tensor(ember.zeros(wshape + list(self.kernel_size)), 1.0,
                                            0, D.qint8)
        bias_float = ember.zeros(out_channels, dtype=ember.float32) if bias else None
        self.set_weight_bias(qweight, bias_float)
        self.scale = 1.0
        self.zero_point = 0

    def set_weight_bias(self, w, b):
        """Pack the quantized weight ``w`` and float bias ``b``."""
        nd = self._ND
        if self._TRANSPOSED:
            f = _qops.OPS[f'conv_transpose{nd}d_prepack']
            self._packed_params = f(w, b, list(self.stride), list(self.padding),
                                    list(self.output_padding), list(self.dilation),
                                    self.groups)
        else:
            f = _qops.OPS[f'conv{nd}d_prepack']
            pad = [0] * nd if self.padding_mode != 'zeros' else list(self.padding)
            self._packed_params = f(w, b, list(self.stride), pad, list(self.dilation),
                                    self.groups)

    def _weight_bias(self):
        return self._packed_params._weight, self._packed_params._bias

    def weight(self):
        """The quantized weight."""
        return self._weight_bias()[0]

    def bias(self):
        """The float bias (or None)."""
        return self._weight_bias()[1]

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}, scale={self.scale}, zero_point={self.zero_point}")
        n = len(self.padding)
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias() is None:
            s += ", bias=False"
        return s

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        Module._save_to_state_dict(self, destination, prefix, keep_vars)   # weight first
        w, b = self._weight_bias()
        destination[prefix + 'weight'] = w
        destination[prefix + 'bias'] = b
        self._save_qparams(destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        wb = {}
        for k in ('weight', 'bias'):
            if prefix + k in state_dict:
                wb[k] = state_dict.pop(prefix + k)
            else:
                missing_keys.append(prefix + k)
        w = wb.get('weight')
        if w is not None and (not getattr(w, 'is_quantized', False) or
                              tuple(w.shape) != tuple(self.weight().shape)):
            error_msgs.append(f"size mismatch for {prefix}weight: copying a param with shape "
                              f"{w.shape} from checkpoint, the shape in current model is "
                              f"{self.weight().shape}.")
        self.__dict__['_pending_wb'] = wb
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        wb = self.__dict__.pop('_pending_wb', {})
        if 'weight' in wb and 'bias' in wb:
            self.set_weight_bias(wb['weight'], wb['bias'])

    def _pad_input(self, input):
        if self.padding_mode != 'zeros':
            pad = _reverse_repeat_tuple(self.padding, 2)
            return ember.nn.functional.pad(input, pad, mode=self.padding_mode)
        return input

    def forward(self, input):
        if input.dim() != self._ND + 2:
            raise ValueError(f"Input shape must be `(N, C, {', '.join('DHW'[3 - self._ND:])})`!")
        name = f"conv{'_transpose' if self._TRANSPOSED else ''}{self._ND}d" + (
            '_relu' if self._RELU else '')
        return _qops.OPS[name](self._pad_input(input), self._packed_params, self.scale,
                               self.zero_point)

    _RELU = False

    @classmethod
    def get_qconv(cls, mod, activation_post_process, weight_post_process=None):
        """A quantized convolution from float ``mod``, its activation observer (None or a
        float observer for a weight-only module) and its weight observer."""
        if weight_post_process is None:
            weight_post_process = mod.qconfig.weight()
        weight_post_process(mod.weight)
        if weight_post_process.dtype is not D.qint8:
            raise AssertionError("Weight observer must have a dtype of qint8")
        qweight = _quantize_weight(mod.weight.float(), weight_post_process)
        if cls._TRANSPOSED:
            qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride,
                        mod.padding, mod.output_padding, mod.groups, mod.bias is not None,
                        mod.dilation, mod.padding_mode)
        else:
            qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride,
                        mod.padding, mod.dilation, mod.groups, mod.bias is not None,
                        mod.padding_mode)
        qconv.set_weight_bias(qweight, None if mod.bias is None else mod.bias.detach())
        if activation_post_process is None or activation_post_process.dtype is D.float32:
            return qconv
        act_scale, act_zp = activation_post_process.calculate_qparams()
        qconv.scale = float(act_scale)
        qconv.zero_point = int(act_zp)
        return qconv

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized convolution from an observed float ``mod`` (with ``qconfig`` and
        ``activation_post_process``; a fused ConvReLU's convolution; or a QAT module with
        ``weight_fake_quant``, ConvBn folded first)."""
        if hasattr(mod, 'weight_fake_quant'):
            if type(mod).__name__.startswith('ConvBn') and hasattr(mod, 'bn'):
                from ember.nn.utils.fusion import fuse_conv_bn_weights
                mod.weight, mod.bias = fuse_conv_bn_weights(
                    mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var,
                    mod.bn.eps, mod.bn.weight, mod.bn.bias)
            if not hasattr(mod, 'activation_post_process'):
                raise AssertionError("Input QAT module must have observer attached")
            return cls.get_qconv(mod, mod.activation_post_process, mod.weight_fake_quant)
        floats = cls._float_modules()
        if type(mod) not in floats:
            raise AssertionError(f" nnq.{cls.__name__}.from_float only works for "
                                 f"{floats[0].__name__} but got:{type(mod)}")
        if not hasattr(mod, 'qconfig'):
            raise AssertionError("Input float module must have qconfig defined.")
        app = getattr(mod, 'activation_post_process', None)
        if isinstance(mod, _nn.Sequential):     # a fused ConvReLU: its convolution
            mod = mod[0]
        return cls.get_qconv(mod, app, mod.qconfig.weight())

    @classmethod
    def _float_modules(cls):
        return (cls._FLOAT_MODULE,)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        """A quantized convolution from a reference quantized convolution
        (``get_quantized_weight()``) and the output's scale and zero point."""
        if cls._TRANSPOSED:
            qconv = cls(ref_qconv.in_channels, ref_qconv.out_channels, ref_qconv.kernel_size,
                        ref_qconv.stride, ref_qconv.padding, ref_qconv.output_padding,
                        ref_qconv.groups, ref_qconv.bias is not None, ref_qconv.dilation,
                        ref_qconv.padding_mode)
        else:
            qconv = cls(ref_qconv.in_channels, ref_qconv.out_channels, ref_qconv.kernel_size,
                        ref_qconv.stride, ref_qconv.padding, ref_qconv.dilation,
                        ref_qconv.groups, ref_qconv.bias is not None, ref_qconv.padding_mode)
        qconv.set_weight_bias(ref_qconv.get_quantized_weight(), ref_qconv.bias)
        qconv.scale = float(output_scale)
        qconv.zero_point = int(output_zero_point)
        return qconv


def _conv_class(nd, transposed):
    float_cls = getattr(_nn, f"Conv{'Transpose' if transposed else ''}{nd}d")
    name = f"Conv{'Transpose' if transposed else ''}{nd}d"
    dims = ', '.join('DHW'[3 - nd:])
    if transposed:
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     output_padding=0, groups=1, bias=True, dilation=1,
                     padding_mode='zeros', device=None, dtype=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                             dilation, groups, bias, padding_mode, device, dtype,
                             output_padding)
        sig = ("in_channels, out_channels, kernel_size, stride=1, padding=0, "
               "output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros'")
    else:
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     dilation=1, groups=1, bias=True, padding_mode='zeros', device=None,
                     dtype=None):
            _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                             dilation, groups, bias, padding_mode, device, dtype)
        sig = ("in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, "
               "groups=1, bias=True, padding_mode='zeros'")
    doc = f"""A {'transposed ' if transposed else ''}{nd}-d convolution on quantized tensors:
    ``quint8`` input, ``qint8`` weight (per tensor or per output channel), float bias,
    ``quint8`` output quantized with :attr:`scale` and :attr:`zero_point`
    (``torch.ao.nn.quantized.{name}``).

    Args:
        {sig}: as :class:`ember.nn.{name}`.

    Shape:
        - Input: :math:`(N, C_{{in}}, {dims})` (``quint8``)
        - Output: :math:`(N, C_{{out}}, {dims}_{{out}})` (``quint8``)

    Example::

        >>> m = nn.quantized.{name}(2, 3, 1)
        >>> x = ember.quantize_per_tensor(ember.ones(1, 2{', 4' * nd}), 0.1, 0, ember.quint8)
        >>> m(x).shape
        torch.Size([1, 3{', 4' * nd}])
    """
    cls = type(name, (_ConvNd,), {
        '__init__': __init__, '__doc__': doc, '_ND': nd, '_TRANSPOSED': transposed,
        '_FLOAT_MODULE': float_cls, '__module__': __name__,
        '_get_name': lambda self, _n='Quantized' + name: _n,
    })
    cls.__init__.__qualname__ = f'{name}.__init__'
    return cls


Conv1d = _conv_class(1, False)
Conv2d = _conv_class(2, False)
Conv3d = _conv_class(3, False)
ConvTranspose1d = _conv_class(1, True)
ConvTranspose2d = _conv_class(2, True)
ConvTranspose3d = _conv_class(3, True)
