"""``ember.ao.nn.intrinsic.qat.LinearBn1d``: linear + BatchNorm1d with the batch norm folded
into the fake-quantized weight, for quantization-aware training, as
``torch.ao.nn.intrinsic.qat.LinearBn1d``."""
from ......_ops.creation import zeros, zeros_like
from ......nn import functional as F
from ......nn import init
from ......nn.modules.batchnorm import BatchNorm1d
from ......nn.modules.linear import Linear as _FloatLinear
from ......nn.parameter import Parameter
from ......nn.utils.fusion import fuse_linear_bn_weights
from ....qat.modules._common import _need_qconfig
from ...modules import fused as nni

__all__ = ['LinearBn1d']


class LinearBn1d(_FloatLinear, nni._FusedModule):
    r"""A linear layer fused with a BatchNorm1d, for quantization-aware training: the
    weight is scaled per output feature by ``bn.weight / running_std`` and fake-quantized,
    the output is scaled back, and the batch norm (child ``bn``) runs on it.

    Args:
        in_features (int): size of each input sample.
        out_features (int): size of each output sample.
        bias (bool): the linear layer has a bias. Default: ``True``
        eps (float): the batch norm's epsilon. Default: ``1e-05``
        momentum (float): the batch norm's momentum. Default: ``0.1``
        freeze_bn (bool): start with the batch norm frozen. Default: ``False``
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        freeze_bn (bool): whether the batch norm is frozen.
        weight_fake_quant: the fake-quantize module applied to the folded weight.

    Shape:
        - Input: :math:`(N, H_{in})`
        - Output: :math:`(N, H_{out})`

    Example::

        >>> qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> m = ember.ao.nn.intrinsic.qat.LinearBn1d(4, 3, qconfig=qconfig)
        >>> m(ember.randn(8, 4)).shape
        ember.Size([8, 3])
    """

    def __init__(self, in_features, out_features, bias=True, eps=1e-05, momentum=0.1,
                 freeze_bn=False, qconfig=None):
        _FloatLinear.__init__(self, in_features, out_features, bias)
        _need_qconfig(qconfig)
        self.qconfig = qconfig
        self.freeze_bn = freeze_bn if self.training else True
        self.bn = BatchNorm1d(out_features, eps, momentum, True, True)
        self.weight_fake_quant = self.qconfig.weight()
        if bias:
            self.bias = Parameter(zeros(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_bn_parameters()
        if self.training and not freeze_bn:
            self.update_bn_stats()
        else:
            self.freeze_bn_stats()

    def reset_running_stats(self):
        """Reset the batch norm's running statistics.

        Example::

            >>> m.reset_running_stats()
        """
        self.bn.reset_running_stats()

    def reset_bn_parameters(self):
        """Reset the batch norm (running statistics, ``bn.weight`` drawn uniform in
        [0, 1), ``bn.bias`` zero), as PyTorch does.

        Example::

            >>> m.reset_bn_parameters()
        """
        self.bn.reset_running_stats()
        init.uniform_(self.bn.weight)
        init.zeros_(self.bn.bias)

    def update_bn_stats(self):
        """Let the batch norm use and update batch statistics again; returns ``self``.

        Example::

            >>> m.update_bn_stats()
        """
        self.freeze_bn = False
        self.bn.training = True
        return self

    def freeze_bn_stats(self):
        """Freeze the batch norm (running statistics used, not updated); returns ``self``.

        Example::

            >>> m.freeze_bn_stats()
        """
        self.freeze_bn = True
        self.bn.training = False
        return self

    def forward(self, input):
        """Linear map with the folded, fake-quantized weight, then the batch norm."""
        if self.bn.running_var is None:
            raise AssertionError('self.bn.running_var must not be None')
        nd = self.weight.dim()
        w_shape, b_shape = [-1] + [1] * (nd - 1), [1, -1] + [1] * (nd - 2)
        running_std = (self.bn.running_var + self.bn.eps).sqrt()
        scale_factor = self.bn.weight / running_std
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(w_shape))
        if self.bias is not None:
            zero_bias = zeros_like(self.bias)
        else:
            zero_bias = zeros(self.out_features, device=scaled_weight.device)
        out = F.linear(input, scaled_weight, zero_bias)
        out = out / scale_factor.reshape(b_shape)
        if self.bias is not None:
            out = out + self.bias.reshape(b_shape)
        return self.bn(out)

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

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float ``nn.intrinsic.LinearBn1d`` carrying a
        ``qconfig``; the linear layer's and batch norm's tensors are shared.

        Args:
            mod (nn.intrinsic.LinearBn1d): the fused float module.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> f = ember.ao.nn.intrinsic.LinearBn1d(nn.Linear(4, 3), nn.BatchNorm1d(3))
            >>> f.qconfig = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
            >>> qat = ember.ao.nn.intrinsic.qat.LinearBn1d.from_float(f)
        """
        if type(mod) is not nni.LinearBn1d:
            raise AssertionError(f'qat.{cls.__name__}.from_float only works for '
                                 f'{nni.LinearBn1d.__name__}')
        if not hasattr(mod, 'qconfig'):
            raise AssertionError('Input float module must have qconfig defined')
        if not mod.qconfig:
            raise AssertionError('Input float module must have a valid config')
        linear, bn = mod[0], mod[1]
        qat = cls(linear.in_features, linear.out_features, linear.bias is not None, bn.eps,
                  bn.momentum, False, mod.qconfig)
        qat.weight = linear.weight
        qat.bias = linear.bias
        qat.bn.weight = bn.weight
        qat.bn.bias = bn.bias
        qat.bn.running_mean = bn.running_mean
        qat.bn.running_var = bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def to_float(self):
        """A float :class:`~ember.nn.Linear` with the batch norm folded into its weight and
        bias (running statistics).

        Example::

            >>> lin = qat.to_float()
        """
        linear = _FloatLinear(self.in_features, self.out_features)
        if self.bn.running_var is None or self.bn.running_mean is None:
            raise AssertionError(
                'self.bn.running_var and self.bn.running_mean must not be None')
        linear.weight, linear.bias = fuse_linear_bn_weights(
            self.weight, self.bias, self.bn.running_mean, self.bn.running_var, self.bn.eps,
            self.bn.weight, self.bn.bias)
        return linear
