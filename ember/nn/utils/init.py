"""``skip_init``: build a module without running its parameter initialisation."""
import inspect

__all__ = ['skip_init']


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls`` without initialising its parameters and buffers: the
    module is built on the ``meta`` device (so its initialisation computes nothing and
    draws nothing from the generator), then given uninitialised storage on ``device``.

    Args:
        module_cls: a class deriving from ``nn.Module`` whose ``__init__`` accepts ``device``.
        args: positional arguments of the constructor.
        kwargs: keyword arguments of the constructor (``device`` included).

    Returns:
        the instantiated module, its tensors holding whatever the new memory holds.

    Example::

        >>> lin = nn.utils.skip_init(nn.Linear, 8, 3)
        >>> lin.weight.shape, lin.weight.device
        (torch.Size([3, 8]), device(type='cpu'))
    """
    from ..modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop('device', 'cpu')
    kwargs['device'] = 'meta'
    return module_cls(*args, **kwargs).to_empty(device=final_device)
