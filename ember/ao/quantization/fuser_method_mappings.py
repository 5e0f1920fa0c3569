"""``ember.ao.quantization.fuser_method_mappings``: the functions that fuse a run of modules
(conv + batch norm (+ ReLU), linear + batch norm, conv/linear + ReLU...) into one, and the
table that picks the function for a tuple of module types, as
``torch.ao.quantization.fuser_method_mappings``.

For post-training quantization (``is_qat=False``) a batch norm is folded into the layer
before it (:func:`ember.nn.utils.fuse_conv_bn_eval`); for quantization-aware training
(``is_qat=True``) the modules are kept in an ``nn.intrinsic`` container
(``ConvBn2d``...), which ``prepare_qat`` turns into its QAT form.
"""
import itertools

from ...nn.modules.activation import ReLU
from ...nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ...nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                                ConvTranspose3d)
from ...nn.modules.linear import Linear
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from ..nn.intrinsic.modules import fused as nni

__all__ = ['fuse_conv_bn', 'fuse_conv_bn_relu', 'fuse_linear_bn', 'fuse_convtranspose_bn',
           'get_fuser_method', 'get_fuser_method_new']


def _check_bn_for_qat(bn, n_out, what, first, sep):
    if bn.num_features != n_out:
        raise AssertionError(f'{first} must match num_features of {what}{sep}')
    if not bn.affine:
        raise AssertionError(f'Only support fusing {what} with affine set to True')
    if not bn.track_running_stats:
        raise AssertionError(
            f'Only support fusing {what} with tracking_running_stats set to True')


def fuse_conv_bn(is_qat, conv, bn):
    r"""Fuse a convolution and the batch norm after it.

    Args:
        is_qat (bool): fuse for quantization-aware training (keep both in an
            ``nn.intrinsic.ConvBn{1,2,3}d``) rather than fold the batch norm's running
            statistics into the convolution (post-training).
        conv (nn.Conv1d/2d/3d): the convolution.
        bn (nn.BatchNorm1d/2d/3d): the batch norm; same mode (train/eval) as ``conv``.

    Returns:
        nn.Module: the fused module.

    Example::

        >>> m1 = nn.Conv2d(10, 20, 3).eval()
        >>> b1 = nn.BatchNorm2d(20).eval()
        >>> m2 = ember.ao.quantization.fuse_conv_bn(False, m1, b1)
    """
    if conv.training != bn.training:
        raise AssertionError('Conv and BN both must be in the same mode (train or eval).')
    if not is_qat:
        return fuse_conv_bn_eval(conv, bn)
    _check_bn_for_qat(bn, conv.out_channels, 'BatchNorm2d', 'Output channel of Conv2d', '.')
    fused_cls = {Conv1d: nni.ConvBn1d, Conv2d: nni.ConvBn2d,
                 Conv3d: nni.ConvBn3d}.get(type(conv))
    if fused_cls is None:
        raise NotImplementedError(f'Cannot fuse train modules: {(conv, bn)}')
    return fused_cls(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    r"""Fuse a convolution, the batch norm after it and a ReLU.

    Args:
        is_qat (bool): keep the three in an ``nn.intrinsic.ConvBnReLU{1,2,3}d`` (for
            quantization-aware training) rather than fold the batch norm into the
            convolution and return ``nn.intrinsic.ConvReLU{1,2,3}d`` (post-training).
        conv (nn.Conv1d/2d/3d): the convolution.
        bn (nn.BatchNorm1d/2d/3d): the batch norm.
        relu (nn.ReLU): the activation. The three must be in the same mode.

    Returns:
        nn.Module: the fused module.

    Example::

        >>> m = ember.ao.quantization.fuse_conv_bn_relu(
        ...     False, nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval(), nn.ReLU().eval())
    """
    if not (conv.training == bn.training == relu.training):
        raise AssertionError('Conv and BN both must be in the same mode (train or eval).')
    if is_qat:
        _check_bn_for_qat(bn, conv.out_channels, 'BatchNorm2d', 'Output channel of Conv2d',
                          '')
        fused_cls = {Conv1d: nni.ConvBnReLU1d, Conv2d: nni.ConvBnReLU2d,
                     Conv3d: nni.ConvBnReLU3d}.get(type(conv))
        if fused_cls is None:
            raise NotImplementedError(f'Cannot fuse train modules: {(conv, bn, relu)}')
        return fused_cls(conv, bn, relu)
    fused_cls = {Conv1d: nni.ConvReLU1d, Conv2d: nni.ConvReLU2d,
                 Conv3d: nni.ConvReLU3d}.get(type(conv))
    if fused_cls is None:
        raise NotImplementedError(f'Cannot fuse eval modules: {(conv, bn, relu)}')
    return fused_cls(fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat, linear, bn):
    r"""Fuse a linear layer and the BatchNorm1d after it.

    Args:
        is_qat (bool): keep both in an ``nn.intrinsic.LinearBn1d`` (quantization-aware
            training) rather than fold the batch norm into the linear layer.
        linear (nn.Linear): the linear layer.
        bn (nn.BatchNorm1d): the batch norm; same mode as ``linear``.

    Returns:
        nn.Module: the fused module.

    Example::

        >>> m = ember.ao.quantization.fuse_linear_bn(
        ...     False, nn.Linear(20, 10).eval(), nn.BatchNorm1d(10).eval())
    """
    if linear.training != bn.training:
        raise AssertionError('Linear and BN both must be in the same mode (train or eval).')
    if not is_qat:
        return fuse_linear_bn_eval(linear, bn)
    _check_bn_for_qat(bn, linear.out_features, 'BatchNorm1d', 'Output features of Linear',
                      '')
    return nni.LinearBn1d(linear, bn)


def fuse_convtranspose_bn(is_qat, convt, bn):
    r"""Fold the batch norm after a transposed convolution into it (post-training only).

    Args:
        is_qat (bool): must be ``False``; QAT fusion of these is not supported (raises).
        convt (nn.ConvTranspose1d/2d/3d): the transposed convolution.
        bn (nn.BatchNorm1d/2d/3d): the batch norm; same mode as ``convt``.

    Returns:
        nn.Module: the fused transposed convolution.

    Example::

        >>> m = ember.ao.quantization.fuse_convtranspose_bn(
        ...     False, nn.ConvTranspose2d(10, 20, 3).eval(), nn.BatchNorm2d(20).eval())
    """
    if convt.training != bn.training:
        raise AssertionError(
            'ConvTranspose and BN both must be in the same mode (train or eval).')
    if is_qat:
        raise Exception('Fusing ConvTranspose+BatchNorm not yet supported in QAT.')
    return fuse_conv_bn_eval(convt, bn, transpose=True)


def _pair_fuser(fused_cls):
    """A fuser method that puts two modules in ``fused_cls`` whatever ``is_qat`` is."""
    def fuser_method(is_qat, m1, m2):
        return fused_cls(m1, m2)
    return fuser_method


_DEFAULT_OP_LIST_TO_FUSER_METHOD = {
    (Conv1d, BatchNorm1d): fuse_conv_bn,
    (Conv1d, BatchNorm1d, ReLU): fuse_conv_bn_relu,
    (Conv2d, BatchNorm2d): fuse_conv_bn,
    (Conv2d, BatchNorm2d, ReLU): fuse_conv_bn_relu,
    (Conv3d, BatchNorm3d): fuse_conv_bn,
    (Conv3d, BatchNorm3d, ReLU): fuse_conv_bn_relu,
    (Conv1d, ReLU): _pair_fuser(nni.ConvReLU1d),
    (Conv2d, ReLU): _pair_fuser(nni.ConvReLU2d),
    (Conv3d, ReLU): _pair_fuser(nni.ConvReLU3d),
    (Linear, BatchNorm1d): fuse_linear_bn,
    (Linear, ReLU): _pair_fuser(nni.LinearReLU),
    (BatchNorm2d, ReLU): _pair_fuser(nni.BNReLU2d),
    (BatchNorm3d, ReLU): _pair_fuser(nni.BNReLU3d),
    (ConvTranspose1d, BatchNorm1d): fuse_convtranspose_bn,
    (ConvTranspose2d, BatchNorm2d): fuse_convtranspose_bn,
    (ConvTranspose3d, BatchNorm3d): fuse_convtranspose_bn,
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The fuser method for a tuple of module types.

    Args:
        op_list (tuple[type]): the module types, in order.
        additional_fuser_method_mapping (dict, optional): more ``{types: fuser}`` entries,
            taking precedence over the defaults.

    Returns:
        Callable: ``fuser(is_qat, *modules)``.

    Raises:
        AssertionError: no fuser method is known for ``op_list``.

    Example::

        >>> f = ember.ao.quantization.get_fuser_method((nn.Conv2d, nn.ReLU))
    """
    mapping = dict(_DEFAULT_OP_LIST_TO_FUSER_METHOD)
    mapping.update(additional_fuser_method_mapping or {})
    fuser_method = mapping.get(op_list, None)
    if fuser_method is None:
        raise AssertionError(f'did not find fuser method for: {op_list} ')
    return fuser_method


def _valid_patterns(op_pattern):
    """Every pattern that ``op_pattern`` matches when any of its leaves may be replaced by
    ``MatchAllNode`` (the exact pattern first)."""
    from .utils import MatchAllNode
    if isinstance(op_pattern, (tuple, list)):
        return list(itertools.product(*[_valid_patterns(p) for p in op_pattern]))
    return [op_pattern, MatchAllNode]


def get_fuser_method_new(op_pattern, fuser_method_mapping):
    """The fuser method for an (FX) op pattern, where ``MatchAllNode`` entries of
    ``fuser_method_mapping`` match any op.

    Args:
        op_pattern: a type/function, or a tuple nesting them.
        fuser_method_mapping (dict): ``{pattern: fuser}``.

    Returns:
        Callable: the fuser method of the first matching pattern.

    Raises:
        AssertionError: nothing matches.

    Example::

        >>> f = ember.ao.quantization.get_fuser_method_new(
        ...     (nn.ReLU, nn.Conv2d), {(nn.ReLU, nn.Conv2d): lambda *a: None})
    """
    fuser_method = None
    for pattern in _valid_patterns(op_pattern):
        fuser_method = fuser_method_mapping.get(pattern)
        if fuser_method is not None:
            break
    if fuser_method is None:
        raise AssertionError(f'did not find fuser method for: {pattern} ')
    return fuser_method
