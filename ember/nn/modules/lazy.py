"""``LazyModuleMixin``: modules whose parameter shapes are inferred from the first input."""
from ..parameter import is_lazy

__all__ = ['LazyModuleMixin']


class LazyModuleMixin:
    """Mixin for modules with :class:`UninitializedParameter` s. On the first call,
    ``initialize_parameters(*inputs)`` materialises them from the input's shape, then the
    module turns into ``cls_to_become`` (e.g. ``LazyLinear`` -> ``Linear``).

    Example::

        >>> m = nn.LazyLinear(4); m(ember.ones(2, 3)); type(m).__name__
        'Linear'
    """
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._setup()

    def _setup(self):
        self._lazy_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)
        self._register_load_state_dict_pre_hook(self._lazy_load_hook)

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for name, param in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                param.materialize(state_dict[key].shape)

    def has_uninitialized_params(self):
        """True while some parameter or buffer is still uninitialized."""
        for p in list(self._parameters.values()) + list(self._buffers.values()):
            if p is not None and is_lazy(p):
                return True
        return False

    def initialize_parameters(self, *args, **kwargs):
        """Materialise the uninitialized parameters from the first inputs (subclasses implement
        it; it runs under ``no_grad`` before the first forward).

        Args:
            args: the positional inputs of the first call.
            kwargs: its keyword inputs.

        Example::

            >>> m = nn.LazyLinear(4); m.initialize_parameters(ember.ones(2, 3)); m.weight.shape
            torch.Size([4, 3])
        """
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")


def _infer_parameters(module, args, kwargs=None):
    from ...autograd.grad_mode import no_grad
    with no_grad():
        module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._lazy_hook.remove()
    delattr(module, '_lazy_hook')
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become
    return None
