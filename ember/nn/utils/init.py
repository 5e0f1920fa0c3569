"""``skip_init``: build a module without running its parameter initialisation."""
import inspect

__all__ = ['skip_init']


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls`` without initialising its parameters and buffers: their
    values are whatever the freshly allocated memory holds.

    Args:
        module_cls: a class deriving from ``nn.Module`` whose ``__init__`` accepts ``device``.
        args: positional arguments of the constructor.
        kwargs: keyword arguments of the constructor (``device`` included).

    Returns:
        the instantiated module.

    Example::

        >>> m = nn.utils.skip_init(nn.Linear, 5, 1)
        >>> m.weight.shape
        torch.Size([1, 5])
    """
    from ...nn.modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop('device', 'cpu')
    from .. import init as I
    saved = {}
    names = ['uniform_', 'normal_', 'trunc_normal_', 'kaiming_uniform_', 'kaiming_normal_',
             'xavier_uniform_', 'xavier_normal_', 'constant_', 'ones_', 'zeros_', 'orthogonal_']
    for n in names:
        saved[n] = getattr(I, n)
        setattr(I, n, lambda t, *a, **k: t)
    try:
        m = module_cls(*args, device=final_device, **kwargs)
    finally:
        for n, f in saved.items():
            setattr(I, n, f)
    return m
