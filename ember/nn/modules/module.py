"""``nn.Module``: the base class of all neural network modules."""
import functools
import itertools
import weakref
from collections import OrderedDict, namedtuple

from ..._tensor import Tensor
from ...autograd.graph import RemovableHandle
from ..parameter import Parameter, Buffer, _Uninit

__all__ = ['Module', 'register_module_forward_pre_hook', 'register_module_forward_hook',
           'register_module_full_backward_pre_hook', 'register_module_full_backward_hook',
           'register_module_backward_hook', 'register_module_buffer_registration_hook',
           'register_module_module_registration_hook',
           'register_module_parameter_registration_hook']

_EXTRA_STATE_KEY_SUFFIX = '_extra_state'   # state_dict key of get_extra_state()'s value
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()


def _add(d, hook, *extra):
    h = RemovableHandle(d, *extra)
    d[h.id] = hook
    return h


def register_module_forward_pre_hook(hook):
    """Register a forward pre-hook common to all modules.

    ``hook(module, args) -> None or modified args`` runs before every module's
    ``forward`` (before the module's own pre-hooks); a non-None return replaces the
    positional inputs (a single value is wrapped in a tuple).

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters it.

    Example::

        >>> from ember.nn.modules.module import register_module_forward_pre_hook
        >>> h = register_module_forward_pre_hook(lambda m, args: print(type(m).__name__))
        >>> _ = nn.ReLU()(ember.ones(1))
        ReLU
        >>> h.remove()
    """
    return _add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Register a forward hook common to all modules.

    ``hook(module, args, output) -> None or modified output`` (or ``hook(module, args,
    kwargs, output)`` with ``with_kwargs=True``) runs after every module's ``forward``,
    before the module's own forward hooks; a non-None return replaces the output.

    Args:
        hook (Callable): the hook.
        with_kwargs (bool): pass the keyword arguments of ``forward`` too. Default: False.
        always_call (bool): run the hook even when ``forward`` raises. Default: False.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_forward_hook(lambda m, args, out: out * 2)
        >>> nn.Identity()(ember.ones(1))
        tensor([2.])
        >>> h.remove()
    """
    h = _add(_global_forward_hooks, hook, _global_forward_hooks_always_called,
             _global_forward_hooks_with_kwargs)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[h.id] = True
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


def register_module_full_backward_pre_hook(hook):
    """Register a backward pre-hook common to all modules.

    ``hook(module, grad_output) -> None or new grad_output`` runs each time the
    gradients with respect to a module's outputs have been computed.

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_full_backward_pre_hook(lambda m, go: print(type(m).__name__))
        >>> nn.Linear(2, 2)(ember.ones(1, 2, requires_grad=True)).sum().backward()
        Linear
        >>> h.remove()
    """
    return _add(_global_backward_pre_hooks, hook)


def _check_global_backward_kind(full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_full_backward_hook(hook):
    """Register a backward hook common to all modules.

    ``hook(module, grad_input, grad_output) -> None or new grad_input`` runs each time
    the gradients with respect to a module's inputs have been computed (global hooks
    run before the module's own ones).

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_full_backward_hook(lambda m, gi, go: None)
        >>> h.remove()
    """
    _check_global_backward_kind(True)
    return _add(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """Register a (deprecated, non-full) backward hook common to all modules: it is
    attached to the ``grad_fn`` of each module's output and receives that node's
    gradients. Use :func:`register_module_full_backward_hook` instead.

    Args:
        hook (Callable): ``hook(module, grad_input, grad_output)``.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_backward_hook(lambda m, gi, go: None)
        >>> h.remove()
    """
    _check_global_backward_kind(False)
    return _add(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Register a buffer registration hook common to all modules.

    ``hook(module, name, buffer) -> None or new buffer`` runs whenever a module
    registers a buffer (``register_buffer`` or attribute assignment).

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_buffer_registration_hook(lambda m, n, b: b.double())
        >>> m = nn.Module(); m.register_buffer('x', ember.zeros(1)); m.x.dtype
        torch.float64
        >>> h.remove()
    """
    return _add(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Register a submodule registration hook common to all modules.

    ``hook(module, name, submodule) -> None or new submodule`` runs whenever a module
    registers a child module.

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_module_registration_hook(lambda m, n, sub: print(n))
        >>> s = nn.Sequential(nn.ReLU())
        0
        >>> h.remove()
    """
    return _add(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Register a parameter registration hook common to all modules.

    ``hook(module, name, param) -> None or new parameter`` runs whenever a module
    registers a parameter.

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = register_module_parameter_registration_hook(lambda m, n, p: print(n))
        >>> lin = nn.Linear(1, 1)
        weight
        bias
        >>> h.remove()
    """
    return _add(_global_parameter_registration_hooks, hook)


class _IncompatibleKeys(namedtuple('IncompatibleKeys', ['missing_keys', 'unexpected_keys'])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, n):
    lines = s.split('\n')
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + '\n' + '\n'.join(' ' * n + ln for ln in lines)


def _type_name(v):
    """The type name PyTorch's messages use (``torch.typename``): ``Tensor.type()`` for
    tensors, ``module.QualName`` for other objects (bare for builtins)."""
    if isinstance(v, Tensor):
        return v.type()
    t = v if isinstance(v, type) else type(v)
    mod = getattr(t, '__module__', '') or ''
    if mod in ('', 'builtins'):
        return t.__qualname__
    if mod == __package__.split('.')[0] or mod.startswith(__package__.split('.')[0] + '.'):
        mod = 'torch' + mod[len(__package__.split('.')[0]):]
    return mod + '.' + t.__qualname__


class _WrappedHook:
    def __init__(self, hook, module=None):
        self.hook = hook
        self.module = weakref.ref(module) if module is not None else None

    def __call__(self, *args, **kwargs):
        if self.module is not None:
            m = self.module()
            if m is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(m, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _parse_to(args, kwargs):
    """(device, dtype, memory_format) from the arguments of ``Module.to``: ``(device=None,
    dtype=None, non_blocking=False)``, ``(dtype, non_blocking=False)`` or ``(tensor,
    non_blocking=False)``, plus keyword ``memory_format``."""
    from ..._dtype import dtype as _dt
    from ..._device import device as _dev
    from ..._dtype import _PY2DT      # Python's float/int/bool/complex name dtypes too
    args = tuple(_PY2DT.get(a, a) if a.__class__ is type else a for a in args)
    if kwargs.get('dtype').__class__ is type:
        kwargs = dict(kwargs, dtype=_PY2DT.get(kwargs['dtype'], kwargs['dtype']))
    kw = dict(kwargs)
    memory_format = kw.pop('memory_format', None)
    kw.pop('copy', None)

    def bad():
        got = ', '.join([type(a).__name__ for a in args] +
                        [f'{k}={type(v).__name__}' for k, v in kwargs.items()])
        return TypeError(f"to() received an invalid combination of arguments - got ({got}), but "
                         "expected one of:\n * (torch.device device = None, torch.dtype dtype = "
                         "None, bool non_blocking = False, bool copy = False, *, "
                         "torch.memory_format memory_format = None)\n * (torch.dtype dtype, bool "
                         "non_blocking = False, bool copy = False, *, torch.memory_format "
                         "memory_format = None)\n * (Tensor tensor, bool non_blocking = False, bool "
                         "copy = False, *, torch.memory_format memory_format = None)\n")

    def as_device(d):
        if d is None or isinstance(d, _dev):
            return d
        if isinstance(d, bool) or not isinstance(d, (str, int)):
            raise bad()
        return _dev('cuda', d) if isinstance(d, int) else _dev(d)

    first = args[0] if args else None
    if isinstance(first, Tensor):
        names = ('tensor', 'non_blocking', 'copy')
    elif isinstance(first, _dt):
        names = ('dtype', 'non_blocking', 'copy')
    else:
        names = ('device', 'dtype', 'non_blocking', 'copy')
    if len(args) > len(names):
        raise bad()
    for n, a in zip(names, args):
        if n in kw:
            raise bad()
        kw[n] = a
    unknown = set(kw) - {'tensor', 'device', 'dtype', 'non_blocking', 'copy'}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    for n in ('non_blocking', 'copy'):
        if not isinstance(kw.get(n, False), bool):
            raise bad()
    if 'tensor' in kw:
        return kw['tensor'].device, kw['tensor'].dtype, memory_format
    dtype = kw.get('dtype')
    if dtype is not None and not isinstance(dtype, _dt):
        raise bad()
    return as_device(kw.get('device')), dtype, memory_format


class _PublicHook:
    """Wraps a hook that can't carry the ``_from_public_api`` mark itself."""
    _from_public_api = True

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)


class Module:
    """Base class for all neural network modules. Subclass it, create submodules,
    parameters and buffers in ``__init__`` (after ``super().__init__()``), and define
    ``forward``.

    Example::

        >>> class Model(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.conv1 = nn.Conv2d(1, 20, 5)
        ...     def forward(self, x):
        ...         return F.relu(self.conv1(x))
    """
    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'" if kwargs else
                            f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        sa = object.__setattr__
        sa(self, 'training', True)
        sa(self, '_parameters', {})
        sa(self, '_buffers', {})
        sa(self, '_non_persistent_buffers_set', set())
        sa(self, '_backward_pre_hooks', OrderedDict())
        sa(self, '_backward_hooks', OrderedDict())
        sa(self, '_is_full_backward_hook', None)
        sa(self, '_forward_hooks', OrderedDict())
        sa(self, '_forward_hooks_with_kwargs', OrderedDict())
        sa(self, '_forward_hooks_always_called', OrderedDict())
        sa(self, '_forward_pre_hooks', OrderedDict())
        sa(self, '_forward_pre_hooks_with_kwargs', OrderedDict())
        sa(self, '_state_dict_hooks', OrderedDict())
        sa(self, '_state_dict_pre_hooks', OrderedDict())
        sa(self, '_load_state_dict_pre_hooks', OrderedDict())
        sa(self, '_load_state_dict_post_hooks', OrderedDict())
        sa(self, '_modules', {})

    def forward(self, *input):
        """Define the computation performed at every call; every subclass overrides it.
        Call the module instance (``module(x)``) rather than ``forward`` so that hooks run.

        Args:
            input: whatever the subclass's signature accepts.

        Example::

            >>> class Double(nn.Module):
            ...     def forward(self, x):
            ...         return 2 * x
            >>> Double()(ember.ones(1))
            tensor([2.])
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter, e.g. BatchNorm's ``running_mean``).
        Persistent buffers are part of :meth:`state_dict`; all buffers move with :meth:`to`.

        Args:
            name (str): the buffer's name (no ``.``, not empty, not an existing attribute).
            tensor (Tensor or None): the buffer; ``None`` reserves the name (not in
                ``state_dict``).
            persistent (bool): whether the buffer is part of ``state_dict``. Default: ``True``.

        Example::

            >>> m = nn.Module()
            >>> m.register_buffer('running_mean', ember.zeros(3))
            >>> m.register_buffer('cache', ember.zeros(3), persistent=False)
            >>> list(m.state_dict())
            ['running_mean']
        """
        if '_buffers' not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if '.' in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == '':
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter to the module (same as assigning an ``nn.Parameter`` attribute).

        Args:
            name (str): the parameter's name (no ``.``, not empty, not an existing attribute).
            param (Parameter or None): the parameter; ``None`` reserves the name (not in
                ``parameters()`` nor ``state_dict``).

        Example::

            >>> m = nn.Module()
            >>> m.register_parameter('w', nn.Parameter(ember.zeros(2)))
            >>> [n for n, _ in m.named_parameters()]
            ['w']
        """
        if '_parameters' not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if '.' in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == '':
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module, accessible as an attribute under ``name``.

        Args:
            name (str): the child's name (no ``.``, not empty, not an existing attribute).
            module (Module or None): the child; ``None`` reserves the name.

        Example::

            >>> m = nn.Module(); m.add_module('fc', nn.Linear(2, 2)); m
            Module(
              (fc): Linear(in_features=2, out_features=2, bias=True)
            )
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if '.' in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == '':
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for :meth:`add_module`.

        Args:
            name (str): the child's name.
            module (Module or None): the child.

        Example::

            >>> m = nn.Module(); m.register_module('act', nn.ReLU())
        """
        self.add_module(name, module)

    def get_submodule(self, target):
        """Return the submodule at the dotted path ``target`` (``''`` is the module itself).

        Args:
            target (str): e.g. ``'net_b.linear'``.

        Raises:
            AttributeError: if a step of the path is missing or not a ``Module``.

        Example::

            >>> net = nn.Sequential(nn.Sequential(nn.Linear(2, 2)))
            >>> net.get_submodule('0.0')
            Linear(in_features=2, out_features=2, bias=True)
        """
        if target == '':
            return self
        mod = self
        for item in target.split('.'):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Set the submodule at the dotted path ``target`` (replacing it, or adding it
        when ``strict=False`` and only the last step is missing).

        Args:
            target (str): e.g. ``'net_b.linear'``.
            module (Module): the new submodule.
            strict (bool): if ``True``, the submodule must already exist. Default: ``False``.

        Example::

            >>> net = nn.Sequential(nn.Linear(2, 2))
            >>> net.set_submodule('0', nn.ReLU()); net[0]
            ReLU()
        """
        if target == '':
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split('.')
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent = self.get_submodule('.'.join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """Return the parameter at the dotted path ``target``.

        Args:
            target (str): e.g. ``'net_b.linear.weight'``.

        Example::

            >>> nn.Sequential(nn.Linear(2, 3)).get_parameter('0.bias').shape
            torch.Size([3])
        """
        mod_path, _, name = target.rpartition('.')
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        """Return the buffer at the dotted path ``target``.

        Args:
            target (str): e.g. ``'bn.running_mean'``.

        Example::

            >>> nn.Sequential(nn.BatchNorm1d(3)).get_buffer('0.running_var')
            tensor([1., 1., 1.])
        """
        mod_path, _, name = target.rpartition('.')
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        """Return any extra (picklable) state to include in :meth:`state_dict` under
        ``'_extra_state'``. Override it together with :meth:`set_extra_state`; the base
        implementation is never called.

        Example::

            >>> class M(nn.Module):
            ...     def get_extra_state(self):
            ...         return {'step': 3}
            ...     def set_extra_state(self, state):
            ...         self.step = state['step']
        """
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state):
        """Restore the extra state returned by :meth:`get_extra_state` (called by
        :meth:`load_state_dict`). Override it together with :meth:`get_extra_state`.

        Args:
            state (dict): the extra state from the ``state_dict``.

        Example::

            >>> m = M(); m.load_state_dict({'_extra_state': {'step': 5}}); m.step
            5
        """
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # ------------------------------------------------------------ attribute protocol
    def __getattr__(self, name):
        d = self.__dict__
        if '_parameters' in d:
            p = d['_parameters']
            if name in p:
                return p[name]
        if '_buffers' in d:
            b = d['_buffers']
            if name in b:
                return b[name]
        if '_modules' in d:
            m = d['_modules']
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)
        params = self.__dict__.get('_parameters')
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get('_modules')
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            else:
                buffers = self.__dict__.get('_buffers')
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    if isinstance(value, Buffer):
                        persistent = value.__dict__.get('persistent', True)
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() call")
                    remove_from(self.__dict__, self._parameters, self._modules)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        attrs = dir(self.__class__)
        keys = (attrs + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for k, default in (('_forward_pre_hooks_with_kwargs', OrderedDict),
                           ('_forward_hooks_with_kwargs', OrderedDict),
                           ('_forward_hooks_always_called', OrderedDict),
                           ('_state_dict_pre_hooks', OrderedDict),
                           ('_load_state_dict_post_hooks', OrderedDict),
                           ('_backward_pre_hooks', OrderedDict),
                           ('_non_persistent_buffers_set', set)):
            if k not in self.__dict__:
                self.__dict__[k] = default()

    # ------------------------------------------------------------ traversal
    def _named_members(self, get_members_fn, prefix='', recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ('.' if module_prefix else '') + k, v)

    def parameters(self, recurse=True):
        """Return an iterator over the module's parameters (shared ones once), e.g. to
        pass to an optimizer.

        Args:
            recurse (bool): include the parameters of all submodules. Default: ``True``.

        Example::

            >>> [p.shape for p in nn.Linear(2, 3).parameters()]
            [torch.Size([3, 2]), torch.Size([3])]
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix='', recurse=True, remove_duplicate=True):
        """Return an iterator over ``(name, parameter)`` pairs, in registration order.

        Args:
            prefix (str): prepended to all names. Default: ``''``.
            recurse (bool): include submodules. Default: ``True``.
            remove_duplicate (bool): yield a shared parameter once. Default: ``True``.

        Example::

            >>> [n for n, _ in nn.Sequential(nn.Linear(2, 2)).named_parameters()]
            ['0.weight', '0.bias']
        """
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        """Return an iterator over the module's buffers.

        Args:
            recurse (bool): include submodules. Default: ``True``.

        Example::

            >>> len(list(nn.BatchNorm1d(3).buffers()))
            3
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix='', recurse=True, remove_duplicate=True):
        """Return an iterator over ``(name, buffer)`` pairs (persistent or not).

        Args:
            prefix (str): prepended to all names. Default: ``''``.
            recurse (bool): include submodules. Default: ``True``.
            remove_duplicate (bool): yield a shared buffer once. Default: ``True``.

        Example::

            >>> [n for n, _ in nn.BatchNorm1d(3).named_buffers()]
            ['running_mean', 'running_var', 'num_batches_tracked']
        """
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        """Return an iterator over the immediate child modules (each once).

        Example::

            >>> list(nn.Sequential(nn.ReLU(), nn.Identity()).children())
            [ReLU(), Identity()]
        """
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Return an iterator over ``(name, child)`` pairs of the immediate children.

        Example::

            >>> [n for n, _ in nn.Sequential(nn.ReLU(), nn.Identity()).named_children()]
            ['0', '1']
        """
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """Return an iterator over all modules of the tree, the module itself first
        (depth first; a module reachable twice is yielded once).

        Example::

            >>> l = nn.Linear(2, 2); len(list(nn.Sequential(l, l).modules()))
            2
        """
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        """Return an iterator over ``(dotted name, module)`` pairs of all modules of the
        tree, the module itself first (named ``prefix``).

        Args:
            memo (set, optional): modules already seen (they, and their subtrees, are skipped).
            prefix (str): the name of the module itself, prepended to all names. Default: ``''``.
            remove_duplicate (bool): yield a shared module once. Default: ``True``.

        Example::

            >>> l = nn.Linear(2, 2)
            >>> [n for n, _ in nn.Sequential(l, l).named_modules()]
            ['', '0']
        """
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            pfx, mod = stack.pop()
            if remove_duplicate:
                if mod in memo:
                    continue
                memo.add(mod)
            yield pfx, mod
            kids = [(pfx + ('.' if pfx else '') + n, m) for n, m in mod._modules.items()
                    if m is not None]
            stack.extend(reversed(kids))

    # ------------------------------------------------------------ modes and grads
    def train(self, mode=True):
        """Set the module and all its descendants in training mode (``mode=True``) or
        evaluation mode (affects e.g. Dropout and BatchNorm).

        Args:
            mode (bool): Default: ``True``.

        Returns:
            Module: self.

        Example::

            >>> m = nn.BatchNorm1d(3).train(False); m.training
            False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Set the module and its descendants in evaluation mode (``train(False)``).

        Returns:
            Module: self.

        Example::

            >>> nn.BatchNorm1d(3).eval().training
            False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of all parameters (e.g. to freeze part of a model).

        Args:
            requires_grad (bool): Default: ``True``.

        Returns:
            Module: self.

        Example::

            >>> m = nn.Linear(2, 2).requires_grad_(False); m.weight.requires_grad
            False
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters.

        Args:
            set_to_none (bool): set ``.grad`` to ``None`` (default) instead of zeroing it in place.

        Example::

            >>> m = nn.Linear(2, 1); m(ember.ones(1, 2)).sum().backward(); m.zero_grad()
            >>> m.weight.grad is None
            True
        """
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    if p._grad.grad_fn is not None:
                        p._grad.detach_()
                    else:
                        p._grad.requires_grad_(False)
                    p._grad.zero_()

    def share_memory(self):
        """Move the parameters and buffers to shared memory (for multiprocessing).

        Returns:
            Module: self.

        NOTE: unlike PyTorch, this is a no-op: NumPy memory is not moved to shared memory.

        Example::

            >>> m = nn.Linear(2, 2).share_memory()
        """
        return self

    def apply(self, fn):
        """Apply ``fn`` to every submodule (children first, recursively) and then to the
        module itself; typically used to initialise parameters.

        Args:
            fn (Callable): called as ``fn(module)``.

        Returns:
            Module: self.

        Example::

            >>> def init(m):
            ...     if isinstance(m, nn.Linear):
            ...         nn.init.zeros_(m.weight)
            >>> net = nn.Sequential(nn.Linear(2, 2), nn.ReLU()).apply(init)
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ conversion
    def _apply(self, fn, recurse=True):
        if recurse:
            for m in self.children():
                m._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            from ...autograd.grad_mode import no_grad
            with no_grad():
                new = fn(param)
            # keep the same Parameter object: swap its data
            param._data = new._data
            param._st = new._st
            if param._grad is not None:
                with no_grad():
                    g = fn(param._grad)
                param._grad._data = g._data
                param._grad._st = g._st
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast the parameters and buffers.

        Called as ``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype,
        non_blocking=False)``, ``to(tensor, non_blocking=False)`` or ``to(memory_format=...)``.
        Only floating point and complex tensors change dtype (to ``dtype``); integer buffers
        keep theirs. Parameters stay the same ``Parameter`` objects (their data is replaced),
        so an optimizer built before ``to()`` keeps working.

        Args:
            device (ember.device): the device of the parameters and buffers.
            dtype (ember.dtype): a floating point or complex dtype.
            tensor (Tensor): a tensor whose device and dtype are used.
            non_blocking (bool): accepted for compatibility.
            memory_format (ember.memory_format): for 4-D and 5-D parameters and buffers.

        Returns:
            Module: self.

        Example::

            >>> lin = nn.Linear(2, 2); w = lin.weight
            >>> lin.to(ember.float64).weight is w, w.dtype
            (True, torch.float64)
        """
        from ..._dtype import dtype as _dt
        from ..._device import device as _dev
        device, dtype, memory_format = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")
        if device is not None:
            device = _dev(device)
            if device.type == 'cuda':
                from ..._backend import module_for_device
                module_for_device(device)

        def convert(t):
            kw = {}
            if device is not None:
                kw['device'] = device
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kw['dtype'] = dtype
            r = t.to(**kw) if kw else t
            if memory_format is not None and r.dim() in (4, 5):
                r = r.contiguous(memory_format=memory_format)
            return r
        return self._apply(convert)

    def cpu(self):
        """Move all parameters and buffers to the CPU.

        Returns:
            Module: self.

        Example::

            >>> m = nn.Linear(2, 2).cpu()
        """
        return self.to('cpu')

    def cuda(self, device=None):
        """Move all parameters and buffers to a CUDA device (raises when no GPU is
        available).

        Args:
            device (int or ember.device, optional): the device; the current one by default.

        Returns:
            Module: self.

        Example::

            >>> m = nn.Linear(2, 2).cuda()   # doctest: +SKIP
        """
        return self.to('cuda' if device is None else (f'cuda:{device}' if isinstance(device, int) else device))

    def type(self, dst_type):
        """Cast all parameters and buffers (floating point or not) to ``dst_type``.

        Args:
            dst_type (ember.dtype or str): the target type.

        Returns:
            Module: self.

        Example::

            >>> nn.Linear(2, 2).type(ember.float64).weight.dtype
            torch.float64
        """
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast all floating point parameters and buffers to ``float32``.

        Returns:
            Module: self.

        Example::

            >>> nn.Linear(2, 2).double().float().weight.dtype
            torch.float32
        """
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast all floating point parameters and buffers to ``float64``.

        Returns:
            Module: self.

        Example::

            >>> nn.Linear(2, 2).double().weight.dtype
            torch.float64
        """
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast all floating point parameters and buffers to ``float16``.

        Returns:
            Module: self.

        Example::

            >>> nn.Linear(2, 2).half().weight.dtype
            torch.float16
        """
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast all floating point parameters and buffers to ``bfloat16``.

        Returns:
            Module: self.

        Example::

            >>> nn.Linear(2, 2).bfloat16().weight.dtype
            torch.bfloat16
        """
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        """Move the parameters and buffers to ``device`` without copying their values
        (the new storage is uninitialised), e.g. to allocate a model built on the ``meta``
        device.

        Args:
            device (ember.device): the target device.
            recurse (bool): include submodules. Default: ``True``.

        Returns:
            Module: self.

        NOTE: unlike PyTorch (which creates new ``Parameter`` objects when the device changes),
        the parameters stay the same objects.

        Example::

            >>> lin = nn.Linear(2, 2, device='meta').to_empty(device='cpu')
            >>> lin.reset_parameters()
        """
        from ..._ops.creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    # ------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Register a forward pre-hook, run before every :meth:`forward`:
        ``hook(module, args) -> None or modified args`` (a single returned value is wrapped in a
        tuple), or with ``with_kwargs=True`` ``hook(module, args, kwargs) -> None or (args,
        kwargs)``.

        Args:
            hook (Callable): the hook.
            prepend (bool): run it before the hooks already registered. Default: ``False``.
            with_kwargs (bool): pass the keyword arguments too. Default: ``False``.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> lin = nn.Linear(2, 2)
            >>> h = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
            >>> lin(ember.ones(1, 2)).tolist() == lin.bias.unsqueeze(0).tolist()
            True
        """
        h = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Register a forward hook, run after every :meth:`forward`:
        ``hook(module, args, output) -> None or modified output``, or with ``with_kwargs=True``
        ``hook(module, args, kwargs, output)``.

        Args:
            hook (Callable): the hook.
            prepend (bool): run it before the hooks already registered. Default: ``False``.
            with_kwargs (bool): pass the keyword arguments too. Default: ``False``.
            always_call (bool): run it even if ``forward`` raises (its own errors are then
                turned into warnings). Default: ``False``.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> outs = []
            >>> h = nn.ReLU().register_forward_hook(lambda m, args, out: outs.append(out.shape))
        """
        h = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                            self._forward_hooks_always_called)
        self._forward_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Register a backward pre-hook, run when the gradients with
        respect to the module's outputs have been computed: ``hook(module, grad_output) -> None
        or new grad_output``.

        Args:
            hook (Callable): the hook.
            prepend (bool): run it before the hooks already registered. Default: ``False``.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> lin = nn.Linear(2, 2)
            >>> h = lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        """
        h = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[h.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_full_backward_hook(self, hook, prepend=False):
        """Register a backward hook, run when the gradients with respect
        to the module's inputs have been computed: ``hook(module, grad_input, grad_output) ->
        None or new grad_input``. ``grad_input`` has one entry per positional input (``None``
        for non-tensors; zeros for tensors that don't require grad); when no input requires
        grad the hook still runs, with ``grad_input`` all ``None``.

        Args:
            hook (Callable): the hook.
            prepend (bool): run it before the hooks already registered. Default: ``False``.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> lin = nn.Linear(3, 3)
            >>> h = lin.register_full_backward_hook(lambda m, gi, go: [ember.ones_like(g) * 42. for g in gi])
            >>> x = ember.randn(2, 3, requires_grad=True); lin(x).sum().backward(); x.grad[0]
            tensor([42., 42., 42.])
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(h.id, last=False)
        return h

    def register_backward_hook(self, hook):
        """Register a (deprecated, non-full) backward hook: ``hook(module, grad_input,
        grad_output)`` is attached to the ``grad_fn`` of the module's output and receives
        that single node's gradients. Prefer :meth:`register_full_backward_hook`.

        Args:
            hook (Callable): the hook.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`

        Example::

            >>> h = nn.Linear(2, 2).register_backward_hook(lambda m, gi, go: None)
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        return h

    def register_state_dict_pre_hook(self, hook):
        """Register a pre-hook of :meth:`state_dict`: ``hook(module, prefix,
        keep_vars) -> None``.

        Args:
            hook (Callable): the hook.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> h = nn.Linear(1, 1).register_state_dict_pre_hook(lambda m, prefix, keep_vars: None)
        """
        h = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[h.id] = hook
        return h

    def register_state_dict_post_hook(self, hook):
        """Register a post-hook for :meth:`state_dict`.

        ``hook(module, state_dict, prefix, local_metadata) -> None`` may edit the
        ``state_dict`` in place; returning anything else raises.

        Args:
            hook (Callable): the hook.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`

        Example::

            >>> lin = nn.Linear(2, 2)
            >>> h = lin.register_state_dict_post_hook(lambda m, sd, p, meta: sd.pop(p + 'bias'))
        """
        try:
            hook._from_public_api = True
        except AttributeError:   # e.g. a bound method: mark it through its function
            hook = _PublicHook(hook)
        h = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[h.id] = hook
        return h

    def _register_state_dict_hook(self, hook):
        """Private post-hook for :meth:`state_dict`: ``hook(module, state_dict, prefix,
        local_metadata)`` may return a new dict (respected for the root module only)."""
        if getattr(hook, '_from_public_api', False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        h = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[h.id] = hook
        return h

    def register_load_state_dict_pre_hook(self, hook):
        """Register a pre-hook of :meth:`load_state_dict`, run before this
        module's entries are loaded: ``hook(module, state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs) -> None``; it may edit ``state_dict`` (e.g.
        rename old keys).

        Args:
            hook (Callable): the hook.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> def rename(m, sd, prefix, *rest):
            ...     if prefix + 'W' in sd:
            ...         sd[prefix + 'weight'] = sd.pop(prefix + 'W')
            >>> h = nn.Linear(1, 1).register_load_state_dict_pre_hook(rename)
        """
        h = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[h.id] = _WrappedHook(hook, self)
        return h

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        h = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[h.id] = _WrappedHook(hook, self if with_module else None)
        return h

    def register_load_state_dict_post_hook(self, hook):
        """Register a post-hook of :meth:`load_state_dict`:
        ``hook(module, incompatible_keys) -> None``. It may edit
        ``incompatible_keys.missing_keys`` / ``unexpected_keys`` in place; the ``strict`` check
        sees the edited lists. Returning a value raises.

        Args:
            hook (Callable): the hook.

        Returns:
            :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters the hook.

        Example::

            >>> lin = nn.Linear(1, 1)
            >>> h = lin.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
            >>> lin.load_state_dict({})
            <All keys matched successfully>
        """
        h = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[h.id] = hook
        return h

    def compile(self, *args, **kwargs):
        """Compile this module's call in place with :func:`ember.compile` (arguments are
        passed on); unlike ``ember.compile(module)`` the module and its ``state_dict`` keys
        stay as they are.

        NOTE: unlike PyTorch, nothing is compiled: calls run eagerly.

        Example::

            >>> m = nn.Linear(2, 2)
            >>> m.compile()
            >>> list(m.state_dict())
            ['weight', 'bias']
        """
        from ..._misc import compile as _compile
        self._compiled_call_impl = _compile(self._call_impl, *args, **kwargs)

    # ------------------------------------------------------------ call
    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._hooked_call(args, kwargs)

    __call__ = _call_impl

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        elif _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _hooked_call(self, args, kwargs):
        full_hooks, non_full_hooks = [], []
        if self._backward_hooks or _global_backward_hooks:
            full_hooks, non_full_hooks = self._get_backward_hooks()
        pre_bw = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            pre_bw = list(_global_backward_pre_hooks.values()) + list(self._backward_pre_hooks.values())
        called_always = set()
        result = None
        try:
            for hid, hook in itertools.chain(_global_forward_pre_hooks.items(),
                                             self._forward_pre_hooks.items()):
                if hid in self._forward_pre_hooks_with_kwargs:
                    r = hook(self, args, kwargs)
                    if r is not None:
                        if isinstance(r, tuple) and len(r) == 2:
                            args, kwargs = r
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {r}.")
                else:
                    r = hook(self, args)
                    if r is not None:
                        args = r if isinstance(r, tuple) else (r,)
            bw = None
            if full_hooks or pre_bw:
                from ...utils.hooks import BackwardHook
                bw = BackwardHook(self, full_hooks, pre_bw)
                args = bw.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hid, hook in itertools.chain(_global_forward_hooks.items(),
                                             self._forward_hooks.items()):
                if hid in _global_forward_hooks_always_called or hid in self._forward_hooks_always_called:
                    called_always.add(hid)
                if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                    r = hook(self, args, kwargs, result)
                else:
                    r = hook(self, args, result)
                if r is not None:
                    result = r
            if bw is not None:
                if not isinstance(result, (Tensor, tuple)):
                    import warnings
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=3)
                result = bw.setup_output_hook(result)
            if non_full_hooks:
                var = result
                while not isinstance(var, Tensor):
                    var = (next(v for v in var.values() if isinstance(v, Tensor))
                           if isinstance(var, dict) else var[0])
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
            return result
        except Exception:
            import warnings
            for where, hooks, always in (('global module', _global_forward_hooks,
                                          _global_forward_hooks_always_called),
                                         ('module', self._forward_hooks,
                                          self._forward_hooks_always_called)):
                for hid, hook in hooks.items():
                    if hid not in always or hid in called_always:
                        continue
                    try:
                        if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                            r = hook(self, args, kwargs, result)
                        else:
                            r = hook(self, args, result)
                        if r is not None:
                            result = r
                    except Exception as e:
                        warnings.warn(f"{where} forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised "
                                      f"in forward: {str(e)}", stacklevel=3)
            raise

    # ------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or isinstance(p, _Uninit) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or isinstance(b, _Uninit) else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """Return a dictionary with the whole state of the module: its parameters and
        persistent buffers (``None`` entries left out), then those of each submodule, keyed by
        dotted name, plus ``'_extra_state'`` entries where :meth:`get_extra_state` is defined.

        Args:
            destination (dict, optional): a dict to fill and return. Default: a new
                ``OrderedDict`` (with a ``_metadata`` attribute holding per-module versions).
            prefix (str): prepended to all keys. Default: ``''``.
            keep_vars (bool): keep the tensors attached to autograd (the Parameters themselves)
                instead of detached views. Default: ``False``.

        Returns:
            dict: the state (tensors share memory with the module's).

        Example::

            >>> list(nn.Linear(2, 2).state_dict())
            ['weight', 'bias']
        """
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, '_metadata'):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + '.',
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            r = hook(self, destination, prefix, local_metadata)
            if r is not None:
                if getattr(hook, '_from_public_api', False):
                    raise RuntimeError("state_dict post-hook must return None")
                destination = r
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own parameters and buffers from ``state_dict`` (override to
        customise); records problems in the given lists instead of raising."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        assign = local_metadata.get('assign_to_params_buffers', False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(f'While copying the parameter named "{key}", expected '
                                      'torch.Tensor or Tensor-like object from checkpoint but '
                                      f'received {type(input_param)}')
                    continue
                from ..parameter import is_lazy
                lazy = is_lazy(param)
                if (not lazy and param.dim() == 0 and input_param.dim() == 1
                        and input_param.shape[0] == 1):
                    input_param = input_param[0]
                if not lazy and input_param.shape != param.shape:
                    error_msgs.append(f'size mismatch for {key}: copying a param with shape '
                                      f'{input_param.shape} from checkpoint, the shape in current '
                                      f'model is {param.shape}.')
                    continue
                if (not lazy and param.is_meta and not input_param.is_meta
                        and not assign):
                    import warnings
                    warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint "
                                  "to a meta parameter in the current model, which is a no-op. "
                                  "(Did you mean to pass `assign=True` to assign items in the "
                                  "state dictionary to their corresponding key in the module "
                                  "instead of copying them in place?)", stacklevel=3)
                self.__dict__.setdefault('_pending_loads', []).append((name, param, input_param, assign))
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.__dict__.setdefault('_pending_extra', []).append(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split('.', 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def _commit_loads(self):
        """Second phase of ``load_state_dict``: apply the copies checked in phase one."""
        from ...autograd.grad_mode import no_grad
        from ..parameter import is_lazy
        pend = self.__dict__.pop('_pending_loads', [])
        with no_grad():
            for name, param, input_param, assign in pend:
                if is_lazy(param):
                    param.materialize(input_param.shape)
                if assign:
                    if isinstance(param, Parameter):
                        if not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        else:
                            input_param.requires_grad_(param.requires_grad)
                    setattr(self, name, input_param)
                else:
                    param.copy_(input_param)
        for st in self.__dict__.pop('_pending_extra', []):
            self.set_extra_state(st)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from :attr:`state_dict` into this module and its
        descendants.

        With ``strict=True`` the keys of ``state_dict`` must match the keys returned by
        :meth:`state_dict` exactly.

        Args:
            state_dict (dict): a dict (any mapping) of parameters and persistent buffers.
            strict (bool): whether to require an exact key match. Default: ``True``.
            assign (bool): assign the tensors of the state dict in place of the module's
                own (keeping the module's ``requires_grad``) instead of copying values into
                them. Default: ``False``.

        Returns:
            ``NamedTuple`` with ``missing_keys`` and ``unexpected_keys`` fields.

        NOTE: unlike PyTorch, every key and shape is checked before anything is copied:
        when a size mismatch (or, absent load_state_dict post-hooks, a missing or
        unexpected key) is reported, the module is left unchanged. Load post-hooks run
        after the copies, children before parents, and may edit the key lists in place
        before the ``strict`` check, as in PyTorch.

        Example::

            >>> net = nn.Linear(2, 2)
            >>> net.load_state_dict(nn.Linear(2, 2).state_dict())
            <All keys matched successfully>
        """
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, '_metadata', None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        visited = []   # post-order: children before their parent, as the post hooks run

        def load(module, local_state_dict, prefix=''):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata['assign_to_params_buffers'] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + '.'
                    child_sd = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_sd, child_prefix)
            visited.append(module)

        def discard():
            for m in visited:
                m.__dict__.pop('_pending_loads', None)
                m.__dict__.pop('_pending_extra', None)

        def key_errors():
            msgs = []
            if strict:
                if missing_keys:
                    msgs.append('Missing key(s) in state_dict: {}. '.format(
                        ', '.join(f'"{k}"' for k in missing_keys)))
                if unexpected_keys:
                    msgs.append('Unexpected key(s) in state_dict: {}. '.format(
                        ', '.join(f'"{k}"' for k in unexpected_keys)))
            return msgs

        def fail(msgs):
            raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
                self.__class__.__name__, "\n\t".join(msgs)))

        try:
            load(self, state_dict)
        except BaseException:
            discard()
            raise
        has_post_hooks = any(m._load_state_dict_post_hooks for m in visited)
        if error_msgs or (not has_post_hooks and key_errors()):
            discard()
            fail(key_errors() + error_msgs)
        for m in visited:
            m._commit_loads()
        result = _IncompatibleKeys(missing_keys, unexpected_keys)
        if has_post_hooks:
            for m in visited:
                for hook in m._load_state_dict_post_hooks.values():
                    out = hook(m, result)
                    if out is not None:
                        raise AssertionError(
                            "Hooks registered with ``register_load_state_dict_post_hook`` are "
                            "not expected to return new values, if incompatible_keys need to be "
                            "modified, it should be done inplace.")
            if key_errors():
                fail(key_errors())
        return result

    # ------------------------------------------------------------ repr
    def extra_repr(self):
        """Return the extra information shown in the module's repr; override it in
        subclasses (one line, or several for multi-line output).

        Example::

            >>> nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        return ''

    def _get_name(self):
        return self.__class__.__name__

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split('\n')
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append('(' + key + '): ' + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + '('
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += '\n  ' + '\n  '.join(lines) + '\n'
        return main + ')'

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop('_pending_loads', None)
        return state
