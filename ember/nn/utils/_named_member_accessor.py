"""Get, set and swap the tensors and submodules of a module by dotted name (used by
``stateless.functional_call``)."""
from ..._tensor import Tensor

_MISSING = object()


def _check_name(name, what):
    if '.' in name:
        raise KeyError(f'{what} name can\'t contain "."')
    if name == '':
        raise KeyError(f'{what} name can\'t be empty string ""')


def _is_module(m):
    from ..modules.module import Module
    return isinstance(m, Module)


def set_tensor(module, name, tensor):
    """Set ``module.<name>`` to ``tensor`` (replacing a parameter or buffer entry as is,
    without the Parameter type check)."""
    if not _is_module(module):
        raise TypeError(f'{module} is not an instance of torch.nn.Module')
    if not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f'{tensor} is not an instance of torch.Tensor')
    _check_name(name, 'tensor')
    if name in module._parameters:
        module._parameters[name] = tensor
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module, name, tensor, allow_missing=False):
    """Set ``module.<name>`` to ``tensor`` (``_MISSING`` deletes it) and return the
    previous value (``_MISSING`` if there was none)."""
    if not _is_module(module):
        raise TypeError(f'{module} is not an instance of torch.nn.Module')
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f'{tensor} is not an instance of torch.Tensor')
    _check_name(name, 'tensor')
    if name in module._parameters:
        orig = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f'{module._get_name()} has no attribute `{name}`')
            orig = _MISSING
        if orig is not _MISSING and not isinstance(orig, Tensor) and orig is not None:
            raise TypeError(f'attribute `{name}`: {orig} is not an instance of torch.Tensor')
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


class NamedMemberAccessor:
    """Access the tensors of ``module`` (and of its submodules) by dotted name.

    Args:
        module (nn.Module): the root module.

    Example::

        >>> acc = NamedMemberAccessor(nn.Sequential(nn.Linear(2, 2)))
        >>> acc.get_tensor('0.bias').shape
        torch.Size([2])
    """

    def __init__(self, module):
        self.module = module
        self.memo = {}

    def get_submodule(self, name):
        """The submodule at the dotted path ``name`` (memoized)."""
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition('.')
        module = self.get_submodule(prefix) if dot else self.module
        try:
            sub = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f'{module._get_name()} has no attribute `{attr}`') from ex
        if not _is_module(sub):
            raise TypeError(f'submodule `{name}`: {sub} is not an instance of torch.nn.Module')
        self.memo[name] = sub
        return sub

    def get_tensor(self, name):
        """The tensor at the dotted path ``name``."""
        prefix, _, attr = name.rpartition('.')
        sub = self.get_submodule(prefix)
        try:
            t = getattr(sub, attr)
        except AttributeError as ex:
            raise AttributeError(f'{sub._get_name()} has no attribute `{name}`') from ex
        if not isinstance(t, Tensor) and t is not None:
            raise TypeError(f'{t} is not an instance of torch.Tensor')
        return t

    def set_tensor(self, name, value):
        """Set the tensor at the dotted path ``name``."""
        prefix, _, attr = name.rpartition('.')
        set_tensor(self.get_submodule(prefix), attr, value)

    def swap_tensor(self, name, value, allow_missing=False):
        """Set the tensor at ``name`` to ``value``; return the previous one."""
        prefix, _, attr = name.rpartition('.')
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors, allow_missing=False):
        """Swap every ``name: tensor`` of the dict in; return ``(previous tensors,
        missing names)``. On an error, everything swapped so far is swapped back."""
        orig = {}
        missing = []
        try:
            for name, tensor in named_tensors.items():
                o = self.swap_tensor(name, tensor, allow_missing=True)
                if o is _MISSING:
                    missing.append(name)
                orig[name] = o
        except Exception:
            for name, o in orig.items():
                self.swap_tensor(name, o, allow_missing=True)
            raise
        if missing and not allow_missing:
            for name, o in orig.items():
                self.swap_tensor(name, o, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
        return orig, missing

    def check_keys(self, keys):
        """``(missing, unexpected)``: the module's tensor names absent from ``keys``, and
        the names in ``keys`` that are not the module's, both sorted."""
        keys = set(keys)
        valid = {n for n, _ in self.named_tensors(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)

    def named_tensors(self, remove_duplicate=True):
        """The module's named parameters, then its named buffers."""
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)
