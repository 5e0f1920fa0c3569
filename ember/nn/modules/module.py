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

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()


def _add(d, hook):
    h = RemovableHandle(d)
    d[h.id] = hook
    return h


def register_module_forward_pre_hook(hook):
    """Register ``hook(module, args)`` run before the forward of every module (before the
    module's own pre-hooks). Returns a handle."""
    return _add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Register ``hook(module, args, output)`` run after the forward of every module."""
    h = _add(_global_forward_hooks, hook)
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


def register_module_full_backward_pre_hook(hook):
    """Register ``hook(module, grad_output)`` for every module's backward."""
    return _add(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Register ``hook(module, grad_input, grad_output)`` for every module's backward."""
    return _add(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """Deprecated alias of :func:`register_module_full_backward_hook`.

    NOTE: unlike PyTorch, this behaves as a full backward hook."""
    return _add(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Register ``hook(module, name, buffer)`` run when any module registers a buffer; it
    may return a replacement buffer."""
    return _add(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """Register ``hook(module, name, submodule)`` run when any module registers a
    submodule; it may return a replacement."""
    return _add(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Register ``hook(module, name, param)`` run when any module registers a parameter;
    it may return a replacement."""
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
    if isinstance(v, Tensor):
        return v.type()
    return type(v).__name__


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
        """Defines the computation of the module; subclasses override it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (state that is not a parameter) under ``name``.

        Args:
            name (str): buffer name.
            tensor (Tensor or None): the buffer; ``None`` reserves the name.
            persistent (bool): whether it is part of ``state_dict``.
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
        """Add a parameter under ``name`` (``None`` reserves the name)."""
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
        """Add a child module under ``name``."""
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
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``''`` is self)."""
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
        """Replace (or with ``strict=False`` also add) the submodule at ``target``."""
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
        """The parameter at dotted path ``target``."""
        mod_path, _, name = target.rpartition('.')
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        mod_path, _, name = target.rpartition('.')
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        """Extra state to include in ``state_dict`` (override with ``set_extra_state``)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state):
        """Restore the extra state returned by ``get_extra_state``."""
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
                                        "(torch.Tensor or None expected)")
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
        """Iterator over the module's parameters (shared ones once)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix='', recurse=True, remove_duplicate=True):
        """Iterator over ``(name, parameter)``, in registration order."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        """Iterator over the module's buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix='', recurse=True, remove_duplicate=True):
        """Iterator over ``(name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        """Iterator over the immediate child modules."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Iterator over ``(name, child)`` (each child once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """Iterator over all modules in the tree, self first."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix='', remove_duplicate=True):
        """Iterator over ``(dotted name, module)`` for all modules, self first (name '')."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            pfx, mod = stack.pop()
            if remove_duplicate:
                if id(mod) in memo:
                    continue
                memo.add(id(mod))
            yield pfx, mod
            kids = [(pfx + ('.' if pfx else '') + n, m) for n, m in mod._modules.items()
                    if m is not None]
            stack.extend(reversed(kids))

    # ------------------------------------------------------------ modes and grads
    def train(self, mode=True):
        """Set training mode (recursively); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Set evaluation mode (``train(False)``); returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of all parameters; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default, else zero in place)."""
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
        """No-op for NumPy memory (kept for API compatibility); returns self.

        NOTE: unlike PyTorch, tensors are not moved to shared memory."""
        return self

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule (children first) then self; returns self."""
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
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(tensor)``, ``to(device, dtype, non_blocking)``. Only floating point (and
        complex) tensors change dtype. Parameters stay the same objects."""
        from ..._dtype import dtype as _dt
        from ..._device import device as _dev
        device = kwargs.pop('device', None)
        dtype = kwargs.pop('dtype', None)
        kwargs.pop('non_blocking', None)
        memory_format = kwargs.pop('memory_format', None)
        for a in args:
            if isinstance(a, _dt):
                dtype = a
            elif isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, _dev, int)):
                device = _dev(a) if not isinstance(a, int) else _dev('cuda', a)
            elif isinstance(a, bool) or a is None:
                pass
            else:
                raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
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
        """Move all parameters and buffers to the CPU."""
        return self.to('cpu')

    def cuda(self, device=None):
        """Move all parameters and buffers to a CUDA device (raises without a GPU)."""
        return self.to('cuda' if device is None else (f'cuda:{device}' if isinstance(device, int) else device))

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        """Move parameters and buffers to ``device`` without copying values (fresh,
        uninitialised memory)."""
        from ..._ops.creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    # ------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Register ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with
        ``with_kwargs``) run before ``forward``; a non-None return replaces the inputs."""
        h = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Register ``hook(module, args, output)`` (or ``hook(module, args, kwargs,
        output)``) run after ``forward``; a non-None return replaces the output.
        ``always_call`` runs it even when forward raises."""
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
        """Register ``hook(module, grad_output)`` run when the gradients w.r.t. the
        module's outputs are computed; may return a replacement ``grad_output``."""
        h = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[h.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_full_backward_hook(self, hook, prepend=False):
        """Register ``hook(module, grad_input, grad_output)`` run when the gradients w.r.t.
        the module's inputs are computed; may return a replacement ``grad_input``."""
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
        """Deprecated; use :meth:`register_full_backward_hook`.

        NOTE: unlike PyTorch, this registers a full backward hook."""
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        return h

    def register_state_dict_pre_hook(self, hook):
        """Register ``hook(module, prefix, keep_vars)`` run before ``state_dict``."""
        h = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[h.id] = hook
        return h

    def register_state_dict_post_hook(self, hook):
        """Register ``hook(module, state_dict, prefix, local_metadata)`` run after
        ``state_dict``; may return a replacement dict."""
        h = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[h.id] = hook
        return h

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        """Register ``hook(module, state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)`` run before loading this module's
        entries."""
        h = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[h.id] = _WrappedHook(hook, self)
        return h

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        h = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[h.id] = _WrappedHook(hook, self if with_module else None)
        return h

    def register_load_state_dict_post_hook(self, hook):
        """Register ``hook(module, incompatible_keys)`` run after ``load_state_dict``; it may
        edit the missing/unexpected key lists in place."""
        h = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[h.id] = hook
        return h

    # ------------------------------------------------------------ call
    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._hooked_call(args, kwargs)

    __call__ = _call_impl

    def _hooked_call(self, args, kwargs):
        full_hooks = list(_global_backward_hooks.values()) + list(self._backward_hooks.values())
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
                if hid in self._forward_hooks_with_kwargs:
                    r = hook(self, args, kwargs, result)
                else:
                    r = hook(self, args, result)
                if r is not None:
                    result = r
            if bw is not None:
                result = bw.setup_output_hook(result)
            return result
        except Exception:
            for hid, hook in itertools.chain(_global_forward_hooks.items(),
                                             self._forward_hooks.items()):
                if (hid in _global_forward_hooks_always_called or
                        hid in self._forward_hooks_always_called) and hid not in called_always:
                    try:
                        if hid in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, result)
                        else:
                            hook(self, args, result)
                    except Exception:
                        pass
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
            destination[prefix + '_extra_state'] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """An ``OrderedDict`` of the module's state: for each module (depth first, in
        registration order) its parameters then its persistent buffers, keyed by dotted
        name. Tensors are detached unless ``keep_vars``."""
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
                if not is_lazy(param) and input_param.shape != param.shape:
                    error_msgs.append(f'size mismatch for {key}: copying a param with shape '
                                      f'{input_param.shape} from checkpoint, the shape in current '
                                      f'model is {param.shape}.')
                    continue
                if param.is_meta if hasattr(param, 'is_meta') else False:
                    pass
                self.__dict__.setdefault('_pending_loads', []).append((name, param, input_param, assign))
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + '_extra_state'
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
                        self._parameters[name] = input_param
                    else:
                        self._buffers[name] = input_param
                else:
                    param.copy_(input_param)
        for st in self.__dict__.pop('_pending_extra', []):
            self.set_extra_state(st)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module and its
        descendants. With ``strict`` the keys must match exactly. Every key and shape is
        checked before anything is changed: on error the module is left as it was.

        Returns:
            ``NamedTuple`` with ``missing_keys`` and ``unexpected_keys``.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, '_metadata', None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        visited = []

        def load(module, local_state_dict, prefix=''):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata['assign_to_params_buffers'] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            visited.append(module)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + '.'
                    child_sd = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_sd, child_prefix)
        try:
            load(self, state_dict)
        except Exception:
            for m in visited:
                m.__dict__.pop('_pending_loads', None)
                m.__dict__.pop('_pending_extra', None)
            raise
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, 'Unexpected key(s) in state_dict: {}. '.format(
                    ', '.join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, 'Missing key(s) in state_dict: {}. '.format(
                    ', '.join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            for m in visited:
                m.__dict__.pop('_pending_loads', None)
                m.__dict__.pop('_pending_extra', None)
            raise RuntimeError('Error(s) in loading state_dict for {}:\n\t{}'.format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        for m in visited:
            m._commit_loads()
        result = _IncompatibleKeys(missing_keys, unexpected_keys)
        for m in visited:
            for hook in m._load_state_dict_post_hooks.values():
                out = hook(m, result)
                if out is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                       "are not expected to return new values, if "
                                       "incompatible_keys need to be modified, it should be done "
                                       "inplace.")
        return result

    # ------------------------------------------------------------ repr
    def extra_repr(self):
        """Extra information shown in the module's repr (override in subclasses)."""
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
