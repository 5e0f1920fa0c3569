"""Fused float modules (``ember.ao.nn.intrinsic``): sequential containers that mark a run of
layers (conv + batch norm + ReLU, linear + ReLU...) to be quantized as one unit, as
``torch.ao.nn.intrinsic.modules.fused``. They compute exactly as the layers they hold;
``prepare_qat`` swaps them for their ``nn.intrinsic.qat`` forms and ``convert`` for their
``nn.intrinsic.quantized`` forms."""
from .....nn.modules.activation import LeakyReLU, ReLU, Tanh
from .....nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .....nn.modules.container import Sequential
from .....nn.modules.conv import Conv1d, Conv2d, Conv3d
from .....nn.modules.linear import Linear
from .....nn.utils.parametrize import type_before_parametrizations

__all__ = ['ConvReLU1d', 'ConvReLU2d', 'ConvReLU3d', 'LinearReLU', 'ConvBn1d', 'ConvBn2d',
           'ConvBnReLU1d', 'ConvBnReLU2d', 'ConvBn3d', 'ConvBnReLU3d', 'BNReLU2d', 'BNReLU3d',
           'LinearBn1d', 'LinearLeakyReLU', 'LinearTanh', 'ConvAdd2d', 'ConvAddReLU2d']


class _FusedModule(Sequential):
    """Base class of the fused modules: a :class:`~ember.nn.Sequential` that the
    quantization workflow swaps as one unit.

    Example::

        >>> from ember.ao.nn.intrinsic import _FusedModule, LinearReLU
        >>> issubclass(LinearReLU, _FusedModule)
        True
    """


def _check_types(mods, expected, exact=False):
    """Raise torch's AssertionError unless each module's class (before parametrizations)
    is the expected one."""
    kinds = [type(m) if exact else type_before_parametrizations(m) for m in mods]
    if all(k is e for k, e in zip(kinds, expected)):
        return
    names = [k.__name__ for k in kinds]
    listed = (f'{names[0]} and {names[1]}' if len(names) == 2
              else f'{names[0]}, {names[1]}, and {names[2]}')
    raise AssertionError(f'Incorrect types for input modules: {listed}')


class ConvReLU1d(_FusedModule):
    r"""A :class:`~ember.nn.Conv1d` followed by a :class:`~ember.nn.ReLU`, to be quantized
    as one module.

    Args:
        conv (nn.Conv1d): the convolution.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvReLU1d(nn.Conv1d(2, 3, 3), nn.ReLU())
        >>> m(ember.randn(1, 2, 5)).shape
        ember.Size([1, 3, 3])
    """

    def __init__(self, conv, relu):
        _check_types((conv, relu), (Conv1d, ReLU))
        super().__init__(conv, relu)


class ConvReLU2d(_FusedModule):
    r"""A :class:`~ember.nn.Conv2d` followed by a :class:`~ember.nn.ReLU`, to be quantized
    as one module.

    Args:
        conv (nn.Conv2d): the convolution.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvReLU2d(nn.Conv2d(2, 3, 3), nn.ReLU())
        >>> m(ember.randn(1, 2, 5, 5)).shape
        ember.Size([1, 3, 3, 3])
    """

    def __init__(self, conv, relu):
        _check_types((conv, relu), (Conv2d, ReLU))
        super().__init__(conv, relu)


class ConvReLU3d(_FusedModule):
    r"""A :class:`~ember.nn.Conv3d` followed by a :class:`~ember.nn.ReLU`, to be quantized
    as one module.

    Args:
        conv (nn.Conv3d): the convolution.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvReLU3d(nn.Conv3d(2, 3, 3), nn.ReLU())
        >>> m(ember.randn(1, 2, 4, 4, 4)).shape
        ember.Size([1, 3, 2, 2, 2])
    """

    def __init__(self, conv, relu):
        _check_types((conv, relu), (Conv3d, ReLU))
        super().__init__(conv, relu)


class LinearReLU(_FusedModule):
    r"""A :class:`~ember.nn.Linear` followed by a :class:`~ember.nn.ReLU`, to be quantized
    as one module.

    Args:
        linear (nn.Linear): the linear layer.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.LinearReLU(nn.Linear(4, 2), nn.ReLU())
        >>> m(ember.randn(3, 4)).shape
        ember.Size([3, 2])
    """

    def __init__(self, linear, relu):
        _check_types((linear, relu), (Linear, ReLU))
        super().__init__(linear, relu)


class ConvBn1d(_FusedModule):
    r"""A :class:`~ember.nn.Conv1d` followed by a :class:`~ember.nn.BatchNorm1d`, to be
    quantized as one module (``prepare_qat`` turns it into ``nn.intrinsic.qat.ConvBn1d``).

    Args:
        conv (nn.Conv1d): the convolution.
        bn (nn.BatchNorm1d): the batch norm.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBn1d(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3))
    """

    def __init__(self, conv, bn):
        _check_types((conv, bn), (Conv1d, BatchNorm1d))
        super().__init__(conv, bn)


class ConvBn2d(_FusedModule):
    r"""A :class:`~ember.nn.Conv2d` followed by a :class:`~ember.nn.BatchNorm2d`, to be
    quantized as one module (``prepare_qat`` turns it into ``nn.intrinsic.qat.ConvBn2d``).

    Args:
        conv (nn.Conv2d): the convolution.
        bn (nn.BatchNorm2d): the batch norm.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBn2d(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3))
    """

    def __init__(self, conv, bn):
        _check_types((conv, bn), (Conv2d, BatchNorm2d))
        super().__init__(conv, bn)


class ConvBn3d(_FusedModule):
    r"""A :class:`~ember.nn.Conv3d` followed by a :class:`~ember.nn.BatchNorm3d`, to be
    quantized as one module (``prepare_qat`` turns it into ``nn.intrinsic.qat.ConvBn3d``).

    Args:
        conv (nn.Conv3d): the convolution.
        bn (nn.BatchNorm3d): the batch norm.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBn3d(nn.Conv3d(2, 3, 3), nn.BatchNorm3d(3))
    """

    def __init__(self, conv, bn):
        _check_types((conv, bn), (Conv3d, BatchNorm3d))
        super().__init__(conv, bn)


class ConvBnReLU1d(_FusedModule):
    r"""A :class:`~ember.nn.Conv1d`, a :class:`~ember.nn.BatchNorm1d` and a
    :class:`~ember.nn.ReLU`, to be quantized as one module.

    Args:
        conv (nn.Conv1d): the convolution.
        bn (nn.BatchNorm1d): the batch norm.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBnReLU1d(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3),
        ...                                        nn.ReLU())
    """

    def __init__(self, conv, bn, relu):
        _check_types((conv, bn, relu), (Conv1d, BatchNorm1d, ReLU))
        super().__init__(conv, bn, relu)


class ConvBnReLU2d(_FusedModule):
    r"""A :class:`~ember.nn.Conv2d`, a :class:`~ember.nn.BatchNorm2d` and a
    :class:`~ember.nn.ReLU`, to be quantized as one module.

    Args:
        conv (nn.Conv2d): the convolution.
        bn (nn.BatchNorm2d): the batch norm.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBnReLU2d(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3),
        ...                                        nn.ReLU())
    """

    def __init__(self, conv, bn, relu):
        _check_types((conv, bn, relu), (Conv2d, BatchNorm2d, ReLU))
        super().__init__(conv, bn, relu)


class ConvBnReLU3d(_FusedModule):
    r"""A :class:`~ember.nn.Conv3d`, a :class:`~ember.nn.BatchNorm3d` and a
    :class:`~ember.nn.ReLU`, to be quantized as one module.

    Args:
        conv (nn.Conv3d): the convolution.
        bn (nn.BatchNorm3d): the batch norm.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvBnReLU3d(nn.Conv3d(2, 3, 3), nn.BatchNorm3d(3),
        ...                                        nn.ReLU())
    """

    def __init__(self, conv, bn, relu):
        _check_types((conv, bn, relu), (Conv3d, BatchNorm3d, ReLU))
        super().__init__(conv, bn, relu)


class BNReLU2d(_FusedModule):
    r"""A :class:`~ember.nn.BatchNorm2d` followed by a :class:`~ember.nn.ReLU`, to be
    quantized as one module.

    Args:
        batch_norm (nn.BatchNorm2d): the batch norm.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.BNReLU2d(nn.BatchNorm2d(3), nn.ReLU())
    """

    def __init__(self, batch_norm, relu):
        _check_types((batch_norm, relu), (BatchNorm2d, ReLU))
        super().__init__(batch_norm, relu)


class BNReLU3d(_FusedModule):
    r"""A :class:`~ember.nn.BatchNorm3d` followed by a :class:`~ember.nn.ReLU`, to be
    quantized as one module.

    Args:
        batch_norm (nn.BatchNorm3d): the batch norm.
        relu (nn.ReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.BNReLU3d(nn.BatchNorm3d(3), nn.ReLU())
    """

    def __init__(self, batch_norm, relu):
        _check_types((batch_norm, relu), (BatchNorm3d, ReLU))
        super().__init__(batch_norm, relu)


class LinearBn1d(_FusedModule):
    r"""A :class:`~ember.nn.Linear` followed by a :class:`~ember.nn.BatchNorm1d`, to be
    quantized as one module (``prepare_qat`` turns it into
    ``nn.intrinsic.qat.LinearBn1d``).

    Args:
        linear (nn.Linear): the linear layer.
        bn (nn.BatchNorm1d): the batch norm.

    Example::

        >>> m = ember.ao.nn.intrinsic.LinearBn1d(nn.Linear(4, 3), nn.BatchNorm1d(3))
    """

    def __init__(self, linear, bn):
        _check_types((linear, bn), (Linear, BatchNorm1d))
        super().__init__(linear, bn)


class LinearLeakyReLU(_FusedModule):
    r"""A :class:`~ember.nn.Linear` followed by a :class:`~ember.nn.LeakyReLU`, to be
    quantized as one module.

    Args:
        linear (nn.Linear): the linear layer.
        leaky_relu (nn.LeakyReLU): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.LinearLeakyReLU(nn.Linear(4, 3), nn.LeakyReLU(0.1))
    """

    def __init__(self, linear, leaky_relu):
        _check_types((linear, leaky_relu), (Linear, LeakyReLU), exact=True)
        super().__init__(linear, leaky_relu)


class LinearTanh(_FusedModule):
    r"""A :class:`~ember.nn.Linear` followed by a :class:`~ember.nn.Tanh`, to be quantized
    as one module.

    Args:
        linear (nn.Linear): the linear layer.
        tanh (nn.Tanh): the activation.

    Example::

        >>> m = ember.ao.nn.intrinsic.LinearTanh(nn.Linear(4, 3), nn.Tanh())
    """

    def __init__(self, linear, tanh):
        _check_types((linear, tanh), (Linear, Tanh), exact=True)
        super().__init__(linear, tanh)


class ConvAdd2d(_FusedModule):
    r"""A :class:`~ember.nn.Conv2d` whose output is added to a second input:
    ``forward(x1, x2) = add(conv(x1), x2)``.

    Args:
        conv (nn.Conv2d): the convolution (child ``0``).
        add (Callable): the addition, kept as attribute ``add``.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvAdd2d(nn.Conv2d(2, 2, 1), ember.add)
        >>> m(ember.randn(1, 2, 3, 3), ember.randn(1, 2, 3, 3)).shape
        ember.Size([1, 2, 3, 3])
    """

    def __init__(self, conv, add):
        super().__init__(conv)
        self.add = add

    def forward(self, x1, x2):
        """Return ``add(conv(x1), x2)``."""
        return self.add(self[0](x1), x2)


class ConvAddReLU2d(_FusedModule):
    r"""A :class:`~ember.nn.Conv2d` whose output is added to a second input, then ReLU:
    ``forward(x1, x2) = relu(add(conv(x1), x2))``.

    Args:
        conv (nn.Conv2d): the convolution (child ``0``).
        add (Callable): the addition, kept as attribute ``add``.
        relu (nn.ReLU): the activation, kept as attribute ``relu``.

    Example::

        >>> m = ember.ao.nn.intrinsic.ConvAddReLU2d(nn.Conv2d(2, 2, 1), ember.add, nn.ReLU())
        >>> m(ember.randn(1, 2, 3, 3), ember.randn(1, 2, 3, 3)).shape
        ember.Size([1, 2, 3, 3])
    """

    def __init__(self, conv, add, relu):
        super().__init__(conv)
        self.add = add
        self.relu = relu

    def forward(self, x1, x2):
        """Return ``relu(add(conv(x1), x2))``."""
        return self.relu(self.add(self[0](x1), x2))
