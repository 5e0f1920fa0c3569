"""Flatten parameters into one vector and back: ``parameters_to_vector``,
``vector_to_parameters``."""
from ..._tensor import Tensor

__all__ = ['parameters_to_vector', 'vector_to_parameters']


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    mod = getattr(obj, '__module__', '') or ''
    qual = getattr(obj, '__qualname__', None) or getattr(obj, '__name__', None)
    if qual is None:
        qual = type(obj).__qualname__
        mod = type(obj).__module__
    if mod in ('', 'builtins'):
        return qual
    return mod + '.' + qual


def _check_param_device(param, old):
    cur = param.get_device() if param.device.type != 'cpu' else -1
    if old is None:
        return cur
    if cur != old:
        raise TypeError('Found two parameters on different devices, this is currently not '
                        'supported.')
    return old


def parameters_to_vector(parameters):
    """Flatten an iterable of parameters into one 1-D tensor (a differentiable
    concatenation of their flattened views).

    Args:
        parameters (Iterable[Tensor]): the parameters of a model.

    Returns:
        Tensor: the parameters, one after the other, as a single vector.

    Example::

        >>> lin = nn.Linear(3, 2)
        >>> nn.utils.parameters_to_vector(lin.parameters()).shape
        torch.Size([8])
    """
    from ..._ops.shape import cat
    device = None
    parts = []
    for p in parameters:
        device = _check_param_device(p, device)
        parts.append(p.view(-1))
    return cat(parts)


def vector_to_parameters(vec, parameters):
    """Copy slices of a vector into the parameters (each parameter's ``.data`` becomes a
    view of ``vec``, in order).

    Args:
        vec (Tensor): a single vector holding the values of all parameters.
        parameters (Iterable[Tensor]): the parameters to overwrite.

    Example::

        >>> lin = nn.Linear(3, 2)
        >>> nn.utils.vector_to_parameters(ember.zeros(8), lin.parameters())
        >>> lin.bias
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f'expected torch.Tensor, but got: {_typename(vec)}')
    device = None
    pointer = 0
    for p in parameters:
        device = _check_param_device(p, device)
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
