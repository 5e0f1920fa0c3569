"""Weight normalization by a forward pre-hook (the older API; see
``nn.utils.parametrizations.weight_norm`` for the parametrization form).

``weight = g * v / ||v||``, with the norm taken over every dimension except ``dim``."""
import warnings

from ..parameter import Parameter, UninitializedParameter

__all__ = ['WeightNorm', 'weight_norm', 'remove_weight_norm']


def _norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension except ``dim`` (kept with size, the
    others with size 1); ``dim=-1`` gives the norm of the whole tensor (0-dim)."""
    if dim == -1:
        return v.norm(pow)
    nd = v.dim()
    d = dim + nd if dim < 0 else dim
    dims = [i for i in range(nd) if i != d]
    if not dims:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dim=dims, keepdim=True)


def _weight_norm(v, g, dim=0):
    """``v * (g / ||v||)`` with the norm over every dimension except ``dim``.

    NOTE: unlike PyTorch (whose fused kernel records ``WeightNormInterfaceBackward0``), the
    result is composed of ember ops (its grad_fn is ``MulBackward0``); values and gradients
    agree."""
    return v * (g / _norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: recomputes ``module.<name>`` from
    ``<name>_g`` and ``<name>_v`` before every forward.

    Args:
        name (str): the parameter's name.
        dim (int): the dimension kept by the norm (``None`` means -1, the whole tensor).

    Example::

        >>> m = nn.utils.weight_norm(nn.Linear(3, 2))
        >>> type(list(m._forward_pre_hooks.values())[0]).__name__
        'WeightNorm'
    """

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """Return ``g * v / ||v||`` from the module's ``<name>_g`` and ``<name>_v``.

        Args:
            module (nn.Module): the module.

        Example::

            >>> w = hook.compute_weight(m)
        """
        g = getattr(module, self.name + '_g')
        v = getattr(module, self.name + '_v')
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Reparametrize ``module.<name>`` (deprecated: warns with ``FutureWarning``).

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            dim (int): the dimension kept by the norm.

        Returns:
            WeightNorm: the registered hook.

        Example::

            >>> WeightNorm.apply(nn.Linear(3, 2), 'weight', 0)
        """
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f'Cannot register two weight_norm hooks on the same '
                                   f'parameter {name}')
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + '_g', Parameter(_norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + '_v', Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Turn ``module.<name>`` back into a plain parameter holding the current weight.

        Args:
            module (nn.Module): the module.

        Example::

            >>> hook.remove(m)
        """
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + '_g']
        del module._parameters[self.name + '_v']
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name='weight', dim=0):
    """Apply weight normalization to a parameter of ``module``:
    ``w = g * v / ||v||``. The parameter ``name`` is replaced by ``name_g`` (the magnitude)
    and ``name_v`` (the direction), and a forward pre-hook recomputes ``name`` before every
    forward.

    Deprecated in PyTorch (``FutureWarning``) in favour of
    :func:`nn.utils.parametrizations.weight_norm`.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``
        dim (int, optional): the dimension kept by the norm; ``None`` normalizes the whole
            tensor. Default: 0

    Returns:
        the module, with the hook.

    Example::

        >>> conv = nn.utils.weight_norm(nn.Conv1d(3, 8, 5))
        >>> conv.weight_g.shape, conv.weight_v.shape
        (torch.Size([8, 1, 1]), torch.Size([8, 3, 5]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name='weight'):
    """Remove the weight normalization of ``module.<name>`` (the parameter keeps its current
    value).

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name. Default: ``'weight'``

    Returns:
        the module.

    Example::

        >>> conv = nn.utils.weight_norm(nn.Conv1d(3, 8, 5))
        >>> conv = nn.utils.remove_weight_norm(conv)
        >>> hasattr(conv, 'weight_g')
        False
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
