"""``ember.distributed._composable.contract``: how a composable distributed API (a function
that changes a module in place, such as ``checkpoint``) is registered on the modules it is
applied to."""
import collections
import functools

__all__ = ['contract']

_REGISTRY_KEY = '__composable_api_registry'


class RegistryItem:
    """The registry's entry for one API applied to a module."""


class _State:
    """The per-module state object of a composable API (its attributes are the API's)."""


def _get_registry(module):
    """The ordered ``{api name: RegistryItem}`` of the composable APIs applied to
    ``module`` (None when none was).

    Example::

        >>> checkpoint(m)
        >>> list(_get_registry(m))
        ['checkpoint']
    """
    return module.__dict__.get(_REGISTRY_KEY)


def contract(state_cls=_State):
    """Decorate ``func(module, *args, **kwargs) -> module``, a composable API: applying it
    records it in the module's registry (:func:`_get_registry`) and gives the module a
    ``state_cls`` object, read with ``func.state(module)``. An API applies once per module.

    Args:
        state_cls (type): the class of the per-module state.

    Example::

        >>> @contract()
        ... def tag(module):
        ...     tag.state(module).on = True
        ...     return module
    """
    def deco(func):
        name = func.__name__
        key = f'__composable_api_state_{name}_{id(func)}'

        @functools.wraps(func)
        def wrapper(module, *args, **kwargs):
            from ...nn.modules.module import Module
            mods = list(module) if isinstance(module, (list, tuple)) else [module]
            for m in mods:
                if not isinstance(m, Module):
                    raise AssertionError(f"{name} expects nn.Module, got {type(m)}")
                reg = m.__dict__.get(_REGISTRY_KEY) or {}
                if name in reg:
                    raise AssertionError(
                        "Each distinct composable distributed API can only be applied to a "
                        f"module once. {name} has already been applied to the following "
                        f"module:\n{m}")
            for m in mods:
                m.__dict__.setdefault(_REGISTRY_KEY, collections.OrderedDict())[name] = \
                    RegistryItem()
                m.__dict__[key] = state_cls()
            out = func(module, *args, **kwargs)
            if out is None:
                out = module
            return out

        def state(module):
            return module.__dict__.get(key)
        wrapper.state = state
        return wrapper
    return deco
