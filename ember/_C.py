"""``ember._C``: the few names of PyTorch's ``torch._C`` that Python code commonly uses.

Example::

    >>> class Plain(ember.Tensor):
    ...     __torch_function__ = ember._C._disabled_torch_function_impl
"""
from ._tensor import _disabled_torch_function_impl  # noqa: F401
from .overrides import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                        _is_torch_function_enabled, _len_torch_function_stack)
from .autograd.grad_mode import is_grad_enabled, set_grad_enabled  # noqa: F401

__all__ = ['DisableTorchFunction', 'DisableTorchFunctionSubclass',
           '_disabled_torch_function_impl']
