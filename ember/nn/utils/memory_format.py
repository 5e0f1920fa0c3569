"""Convert the weights of convolutions to a memory format (e.g. ``channels_last``):
``convert_conv2d_weight_memory_format``, ``convert_conv3d_weight_memory_format``."""

__all__ = ['convert_conv2d_weight_memory_format', 'convert_conv3d_weight_memory_format']


def _convert(module, memory_format, classes):
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Recursively give the weight of every ``nn.Conv2d`` / ``nn.ConvTranspose2d`` of
    ``module`` the memory format ``memory_format`` (the parameters stay the same objects;
    their strides change).

    Args:
        module (nn.Module): a module or a model.
        memory_format: e.g. ``ember.channels_last`` or ``ember.contiguous_format``.

    Returns:
        the module (modified in place).

    Example::

        >>> m = nn.utils.convert_conv2d_weight_memory_format(nn.Conv2d(3, 8, 3),
        ...                                                  ember.channels_last)
        >>> m.weight.is_contiguous(memory_format=ember.channels_last)
        True
    """
    from ..modules.conv import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Recursively give the weight of every ``nn.Conv3d`` / ``nn.ConvTranspose3d`` of
    ``module`` the memory format ``memory_format``.

    Args:
        module (nn.Module): a module or a model.
        memory_format: e.g. ``ember.channels_last_3d``.

    Returns:
        the module (modified in place).

    Example::

        >>> m = nn.utils.convert_conv3d_weight_memory_format(nn.Conv3d(3, 8, 3),
        ...                                                  ember.channels_last_3d)
    """
    from ..modules.conv import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
