"""``ember.autograd.Variable``: the pre-0.4 wrapper type, kept as PyTorch keeps it.

Since PyTorch 0.4 every tensor is a "Variable": ``Variable(t)`` just makes a new tensor
that shares ``t``'s data, and ``isinstance(t, Variable)`` is true for every tensor.
"""
import warnings

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Legacy constructor: a new leaf tensor sharing ``data``'s memory.

    Args:
        data (Tensor, optional): the tensor to wrap (an empty float tensor when omitted).
        requires_grad (bool, optional): whether the new tensor requires grad. Default:
            ``False``.
        volatile (bool, optional): removed; a warning says so and it has no effect.

    Example::

        >>> t = ember.ones(2)
        >>> v = ember.autograd.Variable(t, requires_grad=True)
        >>> v.requires_grad, t.requires_grad, isinstance(t, ember.autograd.Variable)
        (True, False, True)
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn('volatile was removed and now has no effect. Use `with '
                          'torch.no_grad():` instead.', UserWarning, stacklevel=2)
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f'Variable data has to be a tensor, but got {type(data).__name__}')
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


def variable(*args, **kwargs):
    """Removed legacy factory: raises ``RuntimeError`` pointing to :func:`ember.tensor`.

    Example::

        >>> ember.autograd.variable([1.0])
        Traceback (most recent call last):
        RuntimeError: torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead
    """
    raise RuntimeError('torch.autograd.variable(...) is deprecated, use torch.tensor(...) '
                       'instead')
