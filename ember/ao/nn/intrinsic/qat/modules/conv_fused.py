"""Fused convolutions for quantization-aware training (``ember.ao.nn.intrinsic.qat``):
conv + batch norm (+ ReLU) with the batch norm folded into the fake-quantized weight, and
conv + ReLU, as ``torch.ao.nn.intrinsic.qat``."""
import math

from ......_ops.creation import zeros, zeros_like
from ......nn import functional as F
from ......nn import init
from ......nn.modules.activation import ReLU as _ReLU
from ......nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ......nn.modules.conv import _Conv, _ConvNd, Conv1d as _Conv1d, Conv2d as _Conv2d
from ......nn.modules.conv import Conv3d as _Conv3d
from ......nn.parameter import Parameter
from ......nn.utils.fusion import fuse_conv_bn_weights
from ....qat.modules._common import _check_float_qconfig, _need_qconfig
from ....qat.modules.conv import Conv1d as _QATConv1d, Conv2d as _QATConv2d
from ....qat.modules.conv import Conv3d as _QATConv3d
from ...modules import fused as nni

__all__ = ['ConvBn1d', 'ConvBnReLU1d', 'ConvReLU1d', 'ConvBn2d', 'ConvBnReLU2d', 'ConvReLU2d',
           'ConvBn3d', 'ConvBnReLU3d', 'ConvReLU3d', 'update_bn_stats', 'freeze_bn_stats']

_BN_CLASS_MAP = {1: BatchNorm1d, 2: BatchNorm2d, 3: BatchNorm3d}


class _ConvBnNd(_Conv, nni._FusedModule):
    """Convolution with its batch norm (child ``bn``) folded in for QAT.

    In ``forward`` the weight is scaled per output channel by ``bn.weight / running_std``
    and fake-quantized; the convolution's output is scaled back and the batch norm runs on
    it (with batch statistics while ``bn`` trains), which is PyTorch's approximate
    folding. ``freeze_bn_stats`` stops the running statistics' updates."""
    _version = 2
    _FLOAT_MODULE = None
    _FLOAT_CONV_MODULE = None
    _FLOAT_BN_MODULE = None
    _FLOAT_RELU_MODULE = None

    def _convbn_init(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                     groups, bias, padding_mode, eps, momentum, freeze_bn, qconfig):
        nd = self._nd
        zero = (0,) * nd
        _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                         dilation, False, zero, groups, False, padding_mode)
        _need_qconfig(qconfig)
        self.qconfig = qconfig
        self.freeze_bn = freeze_bn if self.training else True
        self.bn = _BN_CLASS_MAP[nd](out_channels, eps, momentum, True, True)
        self.weight_fake_quant = self.qconfig.weight()
        if bias:
            self.bias = Parameter(zeros(out_channels))
        else:
            self.register_parameter('bias', None)
        self.reset_bn_parameters()
        if self.training and not freeze_bn:
            self.update_bn_stats()
        else:
            self.freeze_bn_stats()
        self._enable_slow_path_for_better_numerical_stability = False

    def reset_running_stats(self):
        """Reset the batch norm's running statistics.

        Example::

            >>> m.reset_running_stats()
        """
        self.bn.reset_running_stats()

    def reset_bn_parameters(self):
        """Reset the batch norm (running statistics, ``bn.weight`` drawn uniform in
        [0, 1), ``bn.bias`` zero) and redraw the convolution's bias, as PyTorch does.

        Example::

            >>> m.reset_bn_parameters()
        """
        self.bn.reset_running_stats()
        init.uniform_(self.bn.weight)
        init.zeros_(self.bn.bias)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def update_bn_stats(self):
        """Let the batch norm use and update batch statistics again; returns ``self``.

        Example::

            >>> m.update_bn_stats()
        """
        self.freeze_bn = False
        self.bn.training = True
        return self

    def freeze_bn_stats(self):
        """Freeze the batch norm: it normalizes with its running statistics and stops
        updating them; returns ``self``.

        Example::

            >>> m.freeze_bn_stats()
        """
        self.freeze_bn = True
        self.bn.training = False
        return self

    def _shapes(self):
        nd = self.weight.dim()
        return [-1] + [1] * (nd - 1), [1, -1] + [1] * (nd - 2)

    def _forward(self, input):
        if self._enable_slow_path_for_better_numerical_stability:
            return self._forward_slow(input)
        return self._forward_approximate(input)

    def _forward_approximate(self, input):
        if self.bn.running_var is None:
            raise AssertionError('self.bn.running_var must not be None')
        w_shape, b_shape = self._shapes()
        running_std = (self.bn.running_var + self.bn.eps).sqrt()
        scale_factor = self.bn.weight / running_std
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(w_shape))
        if self.bias is not None:
            zero_bias = zeros_like(self.bias, dtype=input.dtype)
        else:
            zero_bias = zeros(self.out_channels, device=scaled_weight.device,
                              dtype=input.dtype)
        conv = self._conv_forward(input, scaled_weight, zero_bias)
        conv_orig = conv / scale_factor.reshape(b_shape)
        if self.bias is not None:
            conv_orig = conv_orig + self.bias.reshape(b_shape)
        return self.bn(conv_orig)

    def _forward_slow(self, input):
        # Two passes (arXiv:1806.08342): the batch statistics come from the float
        # convolution; the fake-quantized folded weight is rescaled by running/batch std.
        from ...... import no_grad
        if self.bn.running_var is None:
            raise AssertionError('self.bn.running_var must not be None')
        if self.bn.running_mean is None:
            raise AssertionError('self.bn.running_mean must not be None')
        w_shape, b_shape = self._shapes()
        zero_bias = zeros(self.out_channels, device=self.weight.device, dtype=input.dtype)
        if self.bn.training:
            conv_out = self._conv_forward(input, self.weight, zero_bias)
            with no_grad():
                self.bn(conv_out if self.bias is None
                        else conv_out + self.bias.reshape(b_shape))
            running_std = (self.bn.running_var + self.bn.eps).sqrt()
            scale_factor = self.bn.weight / running_std
            scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(w_shape))
            conv_bn = self._conv_forward(input, scaled_weight, zero_bias)
            dims = [0] + list(range(2, self.weight.dim()))
            batch_mean = conv_out.mean(dims)
            batch_var = (conv_out - batch_mean.reshape(b_shape)).square().mean(dims)
            batch_std = (batch_var + self.bn.eps).sqrt()
            conv_bn = conv_bn * (running_std / batch_std).reshape(b_shape)
            fused_mean, fused_std = batch_mean, batch_std
        else:
            running_std = (self.bn.running_var + self.bn.eps).sqrt()
            scale_factor = self.bn.weight / running_std
            scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(w_shape))
            conv_bn = self._conv_forward(input, scaled_weight, zero_bias)
            fused_mean = self.bn.running_mean - (self.bias if self.bias is not None else 0)
            fused_std = running_std
        fused_bias = self.bn.bias - self.bn.weight * fused_mean / fused_std
        conv_bn = conv_bn + fused_bias.reshape(b_shape)
        if self.bias is not None:     # keeps the bias in the autograd graph (zero gradient)
            conv_bn = conv_bn + (self.bias - self.bias).reshape(b_shape)
        return conv_bn

    def forward(self, input):
        """Convolution with the folded, fake-quantized weight, then the batch norm."""
        return self._forward(input)

    def train(self, mode=True):
        """Set the training mode; a frozen batch norm stays in eval mode.

        Example::

            >>> m.train()
        """
        self.training = mode
        if not self.freeze_bn:
            for module in self.children():
                module.train(mode)
        return self

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get('version', None)
        if version is None or version == 1:
            # version 1 kept the batch norm's tensors under the module itself
            for new, old in (('bn.weight', 'gamma'), ('bn.bias', 'beta'),
                             ('bn.running_mean', 'running_mean'),
                             ('bn.running_var', 'running_var'),
                             ('bn.num_batches_tracked', 'num_batches_tracked')):
                if prefix + old in state_dict:
                    state_dict[prefix + new] = state_dict.pop(prefix + old)
                elif prefix + new not in state_dict and strict:
                    missing_keys.append(prefix + new)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from the fused float module (``nn.intrinsic.ConvBn2d``...)
        carrying a ``qconfig``; the convolution's and batch norm's tensors are shared.

        Args:
            mod (nn.Module): the fused float module of class ``cls._FLOAT_MODULE``.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> f = ember.ao.nn.intrinsic.ConvBn2d(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
            >>> f.qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
            >>> qat = ember.ao.nn.intrinsic.qat.ConvBn2d.from_float(f)
        """
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f'qat.{cls.__name__}.from_float only works for '
                                 f'{cls._FLOAT_MODULE.__name__}')
        _check_float_qconfig(mod)
        conv, bn = mod[0], mod[1]
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                  conv.padding, conv.dilation, conv.groups, conv.bias is not None,
                  conv.padding_mode, bn.eps, bn.momentum, False, mod.qconfig)
        qat.weight = conv.weight
        qat.bias = conv.bias
        qat.bn.weight = bn.weight
        qat.bn.bias = bn.bias
        qat.bn.running_mean = bn.running_mean
        qat.bn.running_var = bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def to_float(self):
        """The float module with the batch norm folded into the convolution's weight and
        bias (running statistics), inside a float conv + ReLU for the ReLU forms.

        Example::

            >>> conv = qat.to_float()
        """
        cls = type(self)
        conv = cls._FLOAT_CONV_MODULE(self.in_channels, self.out_channels, self.kernel_size,
                                      self.stride, self.padding, self.dilation, self.groups,
                                      self.bias is not None, self.padding_mode)
        conv.weight = Parameter(self.weight.detach())
        if self.bias is not None:
            conv.bias = Parameter(self.bias.detach())
        if cls._FLOAT_BN_MODULE:
            if self.bn.running_var is None or self.bn.running_mean is None:
                raise AssertionError(
                    'self.bn.running_var and self.bn.running_mean must not be None')
            conv.weight, conv.bias = fuse_conv_bn_weights(
                conv.weight, conv.bias, self.bn.running_mean, self.bn.running_var,
                self.bn.eps, self.bn.weight, self.bn.bias)
        if cls._FLOAT_RELU_MODULE:
            fused = cls._FUSED_FLOAT_MODULE(conv, cls._FLOAT_RELU_MODULE())
            fused.train(self.training)
            return fused
        conv.train(self.training)
        return conv


_CONV_BN_DOC = r"""A {conv} fused with a {bn}{relu}, for quantization-aware training: the
    batch norm is folded into the convolution's weight, which is fake-quantized in
    ``forward``; the batch norm (child ``bn``) still normalizes with batch statistics while
    training, so training sees the numbers the quantized {q} will produce.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
            padding_mode: as {conv}.
        bias (bool): the convolution has a bias. Default: ``None`` (no bias)
        eps (float): the batch norm's epsilon. Default: ``1e-05``
        momentum (float): the batch norm's momentum. Default: ``0.1``
        freeze_bn (bool): start with the batch norm frozen. Default: ``False``
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        freeze_bn (bool): whether the batch norm is frozen.
        weight_fake_quant: the fake-quantize module applied to the folded weight.

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.intrinsic.qat.{name}(2, 3, 3, qconfig=qconfig)
        >>> y = m(ember.randn({shape}))
    """


def _conv_bn_class(name, nd, float_conv, relu, fused_float):
    """Make ``ConvBn{nd}d`` (``relu=False``) or ``ConvBnReLU{nd}d``."""
    bn = _BN_CLASS_MAP[nd]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=None, padding_mode='zeros', eps=1e-05,
                 momentum=0.1, freeze_bn=False, qconfig=None):
        self._convbn_init(in_channels, out_channels, kernel_size, stride, padding, dilation,
                          groups, bias, padding_mode, eps, momentum, freeze_bn, qconfig)

    ns = {'__init__': __init__, '_FLOAT_MODULE': fused_float, '_FLOAT_CONV_MODULE': float_conv,
          '_FLOAT_BN_MODULE': bn, '_FLOAT_RELU_MODULE': _ReLU if relu else None,
          '__module__': __name__}
    if relu:
        def forward(self, input):
            """Convolution with the folded, fake-quantized weight, batch norm, then ReLU."""
            return F.relu(self._forward(input))
        ns['forward'] = forward
        ns['_FUSED_FLOAT_MODULE'] = getattr(nni, f'ConvReLU{nd}d')
    ns['__doc__'] = _CONV_BN_DOC.format(
        conv=f':class:`~ember.nn.Conv{nd}d`', bn=f':class:`~ember.nn.BatchNorm{nd}d`',
        relu=' and a ReLU' if relu else '', q=f'ConvReLU{nd}d' if relu else f'Conv{nd}d',
        name=name, shape=', '.join(['1', '2'] + ['5'] * nd))
    return type(name, (_ConvBnNd, float_conv), ns)


ConvBn1d = _conv_bn_class('ConvBn1d', 1, _Conv1d, False, nni.ConvBn1d)
ConvBnReLU1d = _conv_bn_class('ConvBnReLU1d', 1, _Conv1d, True, nni.ConvBnReLU1d)
ConvBn2d = _conv_bn_class('ConvBn2d', 2, _Conv2d, False, nni.ConvBn2d)
ConvBnReLU2d = _conv_bn_class('ConvBnReLU2d', 2, _Conv2d, True, nni.ConvBnReLU2d)
ConvBn3d = _conv_bn_class('ConvBn3d', 3, _Conv3d, False, nni.ConvBn3d)
ConvBnReLU3d = _conv_bn_class('ConvBnReLU3d', 3, _Conv3d, True, nni.ConvBnReLU3d)


_CONV_RELU_DOC = r"""A {conv} followed by ReLU whose weight is fake-quantized in
    ``forward``, for quantization-aware training.

    Args:
        in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode: as {conv}.
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.intrinsic.qat.{name}(2, 3, 3, qconfig=qconfig)
        >>> y = m(ember.randn({shape}))
    """


def _conv_relu_class(name, nd, qat_conv, float_conv):
    """Make ``ConvReLU{nd}d``."""
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode='zeros', qconfig=None):
        qat_conv.__init__(self, in_channels, out_channels, kernel_size, stride=stride,
                          padding=padding, dilation=dilation, groups=groups, bias=bias,
                          padding_mode=padding_mode, qconfig=qconfig)

    def forward(self, input):
        """Convolution with the fake-quantized weight, then ReLU."""
        return F.relu(self._conv_forward(input, self.weight_fake_quant(self.weight),
                                         self.bias))

    ns = {'__init__': __init__, 'forward': forward, '__module__': __name__,
          '_FLOAT_MODULE': getattr(nni, name), '_FLOAT_CONV_MODULE': float_conv,
          '_FLOAT_BN_MODULE': None, '_FLOAT_RELU_MODULE': _ReLU,
          '__doc__': _CONV_RELU_DOC.format(conv=f':class:`~ember.nn.Conv{nd}d`', name=name,
                                           shape=', '.join(['1', '2'] + ['5'] * nd))}
    return type(name, (qat_conv, nni._FusedModule), ns)


ConvReLU1d = _conv_relu_class('ConvReLU1d', 1, _QATConv1d, _Conv1d)
ConvReLU2d = _conv_relu_class('ConvReLU2d', 2, _QATConv2d, _Conv2d)
ConvReLU3d = _conv_relu_class('ConvReLU3d', 3, _QATConv3d, _Conv3d)

_BN_FOLDED = (ConvBn1d, ConvBnReLU1d, ConvBn2d, ConvBnReLU2d, ConvBn3d, ConvBnReLU3d)


def update_bn_stats(mod):
    """Let a QAT conv + batch norm module update its batch statistics again; for
    ``model.apply(update_bn_stats)``. Other modules are left alone.

    Args:
        mod (nn.Module): the module.

    Example::

        >>> qat_model.apply(ember.ao.nn.intrinsic.qat.update_bn_stats)
    """
    if type(mod) in _BN_FOLDED:
        mod.update_bn_stats()


def freeze_bn_stats(mod):
    """Freeze the batch norm of a QAT conv + batch norm module (running statistics used and
    no longer updated); for ``model.apply(freeze_bn_stats)``. Other modules are left alone.

    Args:
        mod (nn.Module): the module.

    Example::

        >>> qat_model.apply(ember.ao.nn.intrinsic.qat.freeze_bn_stats)
    """
    if type(mod) in _BN_FOLDED:
        mod.freeze_bn_stats()
