"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``."""
import operator
from collections import OrderedDict, abc
from itertools import chain, islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ['Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict']


def _abs_index(idx, n, what='index'):
    idx = operator.index(idx)
    if not (-n <= idx < n):
        raise IndexError(f"{what} {idx} is out of range")
    return idx % n if n else idx


class Sequential(Module):
    """Modules chained in order; ``forward`` feeds each output to the next.

    Args:
        *args: modules, or one ``OrderedDict`` of named modules.

    Example::

        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_abs_index(idx, len(keys))]]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        setattr(self, keys[_abs_index(idx, len(keys))], module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for k in keys[idx]:
                delattr(self, k)
        else:
            delattr(self, keys[_abs_index(idx, len(keys))])
        # like PyTorch, renumber every child '0', '1', ... (named ones too)
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        for layer in other:
            self.append(layer)
        return self

    def __mul__(self, other):
        if not isinstance(other, int) or other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        ret = Sequential()
        for _ in range(other):
            for layer in self:
                ret.append(layer)
        return ret

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        if not isinstance(other, int) or other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        n = len(self)
        mods = list(self)
        for _ in range(other - 1):
            for layer in mods:
                self.add_module(str(n), layer)
                n += 1
        return self

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module):
        """Append ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every module of an iterable."""
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        """Remove and return the module at index ``key``."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """Holds submodules in a list, registered under ``'0'``, ``'1'``, ... so that they are
    visible to all ``Module`` methods. Supports indexing (negative too), slicing (a new
    ModuleList), ``len``, iteration, ``append``, ``extend``, ``insert``, ``pop``, ``del``, ``+``.

    Args:
        modules (iterable, optional): modules to add.

    Example::

        >>> layers = nn.ModuleList([nn.Linear(10, 10) for _ in range(3)])
        >>> len(layers[1:])
        2
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        idx = _abs_index(idx, len(self))
        setattr(self, str(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self))))
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def __repr__(self):
        # runs of consecutive children with the same repr print once: "(0-2): 3 x Linear(...)"
        if not self._modules:
            return self._get_name() + '()'
        from .module import _addindent
        reprs = [repr(m) for m in self]
        lines = []
        i = 0
        while i < len(reprs):
            j = i
            while j + 1 < len(reprs) and reprs[j + 1] == reprs[i]:
                j += 1
            body = _addindent(reprs[i], 2)
            if j > i:
                lines.append(f'({i}-{j}): {j - i + 1} x {body}')
            else:
                lines.append(f'({i}): {body}')
            i = j + 1
        return self._get_name() + '(\n  ' + '\n  '.join(lines) + '\n)'

    def insert(self, index, module):
        """Insert ``module`` before ``index``."""
        n = len(self._modules)
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        """Append ``module``; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        """Append modules from an iterable; returns self."""
        if not isinstance(modules, abc.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " +
                            type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """Holds submodules in an ordered dictionary (insertion order kept, also for a plain
    ``dict`` argument), registered under their keys.

    Args:
        modules (iterable, optional): a mapping (or iterable of ``(key, module)`` pairs).

    Example::

        >>> d = nn.ModuleDict({'conv': nn.Conv2d(1, 2, 3), 'act': nn.ReLU()})
        >>> list(d)
        ['conv', 'act']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Remove all items."""
        self._modules.clear()

    def pop(self, key):
        """Remove ``key`` and return its module."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        """An iterable of the ModuleDict keys."""
        return self._modules.keys()

    def items(self):
        """An iterable of the ModuleDict key/value pairs."""
        return self._modules.items()

    def values(self):
        """An iterable of the ModuleDict values."""
        return self._modules.values()

    def update(self, modules):
        """Add the key/module pairs of a mapping or an iterable of pairs."""
        if not isinstance(modules, abc.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, abc.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, abc.Iterable):
                    raise TypeError("ModuleDict update sequence element #" + str(j) +
                                    " should be Iterable; is" + type(m).__name__)
                if not len(m) == 2:
                    raise ValueError("ModuleDict update sequence element #" + str(j) +
                                     " has length " + str(len(m)) + "; 2 is required")
                self[m[0]] = m[1]


class ParameterList(Module):
    """Holds parameters in a list, registered under ``'0'``, ``'1'``, ...; plain tensors are
    wrapped as :class:`Parameter` (other objects are stored as they are).

    Args:
        values (iterable, optional): the elements to add.

    Example::

        >>> pl = nn.ParameterList([nn.Parameter(ember.randn(2)) for _ in range(3)])
        >>> [n for n, _ in pl.named_parameters()]
        ['0', '1', '2']
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(len(self))[idx]:
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param):
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        return setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value):
        """Append a parameter (or value); returns self."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        """Append values from an iterable; returns self."""
        if not isinstance(values, abc.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " +
                            type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                size_str = 'x'.join(str(s) for s in p.size())
                dev = '' if p.device.type == 'cpu' else f' ({p.device})'
                lines.append(f'  ({k}): Parameter containing: [{p.dtype} of size {size_str}{dev}]')
            else:
                lines.append(f'  ({k}): Object of type: {type(p).__name__}')
        return '\n'.join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Holds parameters in an ordered dictionary (plain tensors are wrapped as
    :class:`Parameter`). A plain ``dict`` argument is added in sorted key order, an
    ``OrderedDict``, ``ParameterDict`` or iterable of pairs in its own order.

    Args:
        parameters (iterable, optional): a mapping or an iterable of ``(key, value)`` pairs.

    Example::

        >>> pd = nn.ParameterDict({'foo': nn.Parameter(ember.randn(3))})
        >>> [n for n, _ in pd.named_parameters()]
        ['foo']
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A shallow copy."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """Return the parameter under ``key``; if absent, insert ``default`` first."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Remove all items."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        """Remove ``key`` and return its parameter."""
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Remove and return the last inserted ``(key, parameter)`` pair."""
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key, default=None):
        """The parameter under ``key``, or ``default`` when absent."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with the given keys, each set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """An iterable of the ParameterDict keys."""
        return self._keys.keys()

    def items(self):
        """An iterable of the ParameterDict key/value pairs."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """An iterable of the ParameterDict values."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add entries from a mapping or an iterable of pairs (a plain dict sorted by key)."""
        if not isinstance(parameters, abc.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, p in parameters.items():
                self[key] = p
        elif isinstance(parameters, abc.Mapping):
            for key, p in sorted(parameters.items()):
                self[key] = p
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, abc.Iterable):
                    raise TypeError("ParameterDict update sequence element #" + str(j) +
                                    " should be Iterable; is" + type(p).__name__)
                if not len(p) == 2:
                    raise ValueError("ParameterDict update sequence element #" + str(j) +
                                     " has length " + str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self):
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                size_str = 'x'.join(str(s) for s in p.size())
                dev = '' if p.device.type == 'cpu' else f' ({p.device})'
                lines.append(f'  ({k}): Parameter containing: [{p.type()} of size {size_str}{dev}]')
            else:
                lines.append(f'  ({k}): Object of type: {type(p).__name__}')
        return '\n'.join(lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        c = self.copy()
        c.update(other)
        return c


class Container(Module):
    """Deprecated: a module holding the modules given as keyword arguments. Subclass
    :class:`Module` instead (constructing one gives PyTorch's FutureWarning).

    Args:
        **kwargs: name -> submodule.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     c = nn.Container(fc=nn.Linear(2, 2))
        >>> list(dict(c.named_children()))
        ['fc']
    """

    def __init__(self, **kwargs):
        import warnings
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
