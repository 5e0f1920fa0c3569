"""Symbolic tracing: ``Tracer``, ``symbolic_trace``, ``wrap``."""
import builtins
import functools
import inspect
import sys

from .graph import Graph
from .node import map_aggregate
from .proxy import Proxy, ParameterProxy, TracerBase, TraceError

__all__ = ['ProxyableClassMeta', 'Tracer', 'symbolic_trace', 'wrap', 'PH',
           'PHBase', 'PHWithMeta']

_wrapped_fns = {}      # (id(globals), name) -> globals dict


class PHBase:
    """The placeholder object of ``concrete_args`` (a non-concrete input)."""

    def __repr__(self):
        return 'PH'


PH = PHBase()


class PHWithMeta(PHBase):
    """A ``PH`` that carries a ``ph_key`` copied into the placeholder's meta."""

    def __init__(self, ph_key=None):
        super().__init__()
        self.ph_key = ph_key


class ProxyableClassMeta(type):
    """A metaclass whose classes are recorded as calls when constructed from Proxies
    during tracing (rather than traced through).

    Example::

        >>> class TensorPair(metaclass=ember.fx.ProxyableClassMeta):
        ...     def __init__(self, l, r): self.l, self.r = l, r
    """
    def __init__(cls, name, bases, attrs):
        _proxyable_classes.setdefault(cls)
        super().__init__(name, bases, attrs)

    def __call__(cls, *args, **kwargs):
        found = []
        map_aggregate(args, lambda a: found.append(a) if isinstance(a, Proxy) else None)
        map_aggregate(kwargs, lambda a: found.append(a) if isinstance(a, Proxy) else None)
        if found:
            return found[0].tracer.create_proxy('call_function', cls, args, kwargs)
        instance = cls.__new__(cls)
        cls.__init__(instance, *args, **kwargs)
        return instance


_proxyable_classes = {}


def wrap(fn_or_name):
    """Make the module-level function ``fn_or_name`` (or its name) a leaf of symbolic
    tracing: calls on Proxies are recorded as ``call_function`` nodes instead of being
    traced through. Call it at module scope.

    Example::

        >>> def my_len(x): return len(x)
        >>> ember.fx.wrap('my_len')
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError('Unsupported type for global function! Must be either a callable '
                           'or string name')
    if callable(fn_or_name):
        if isinstance(fn_or_name, str):
            raise AssertionError
        name = fn_or_name.__name__
    else:
        name = fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != '<module>':
        raise NotImplementedError('wrap must be called at the top level of a module')
    g = frame.f_globals
    _wrapped_fns[(id(g), name)] = g
    return fn_or_name


_wrapped_targets = {}   # id(function) -> function, for functions recorded as wrapped


def _make_wrapper(orig, name):
    _wrapped_targets[id(orig)] = orig
    @functools.wraps(orig)
    def wrapped(*args, **kwargs):
        proxies = []
        map_aggregate(args, lambda a: proxies.append(a) if isinstance(a, Proxy) else None)
        map_aggregate(kwargs, lambda a: proxies.append(a) if isinstance(a, Proxy) else None)
        if proxies:
            return proxies[0].tracer.create_proxy('call_function', orig, args, kwargs)
        return orig(*args, **kwargs)
    return wrapped


class Tracer(TracerBase):
    """Turns a module or function into a :class:`Graph` by running it on Proxies.

    Override :meth:`is_leaf_module`, :meth:`call_module`, :meth:`create_proxy`,
    :meth:`create_arg` or :meth:`getattr` to customize.

    Args:
        autowrap_modules (tuple): modules whose functions are wrapped (``math``).
        autowrap_functions (tuple): functions to treat as leaves.
        param_shapes_constant (bool): answer ``param.shape`` from the real parameter.

    Example::

        >>> graph = ember.fx.Tracer().trace(model)
    """

    def __init__(self, autowrap_modules=(), autowrap_functions=(),
                 param_shapes_constant=False):
        super().__init__()
        self._autowrap_functions = tuple(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root_module_name = ''
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}
        self.tensor_attrs = {}

    # ------------------------------------------------------------- arguments
    def create_arg(self, a):
        """As :meth:`TracerBase.create_arg`, plus: parameters of the root become
        ``get_attr`` nodes, other tensors are stored as ``_tensor_constant<N>``
        attributes of the root and read by ``get_attr``."""
        import ember
        from ..nn import Module, Parameter
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node('get_attr', n, (), {})
            raise NameError('parameter is not a member of this module')
        if isinstance(a, Module):
            for n, m in self.root.named_modules():
                if a is m:
                    return self.create_node('get_attr', n, (), {})
            raise NameError('module is not installed as a submodule')
        if isinstance(a, ember.Tensor):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                for n, b in self.root.named_buffers():
                    if b is a:
                        qualname = n
                        break
            if qualname is None:
                i = 0
                while True:
                    qualname = f'_tensor_constant{i}'
                    if not hasattr(self.root, qualname):
                        break
                    i += 1
                self.tensor_attrs[id(a)] = qualname
                setattr(self.root, qualname, a)
            return self.create_node('get_attr', qualname, (), {})
        if type(a) in _proxyable_classes:
            i = 0
            while True:
                qualname = f'_{a.__class__.__name__}_constant_{i}'
                if not hasattr(self.root, qualname):
                    break
                i += 1
            setattr(self.root, qualname, a)
            return self.create_node('get_attr', qualname, (), {})
        return super().create_arg(a)

    # ------------------------------------------------------------- modules
    def is_leaf_module(self, m, module_qualified_name):
        """True for ember.nn's own layers (not ``Sequential``): their calls are recorded
        as ``call_module`` rather than traced through."""
        from ..nn import Sequential
        mod = type(m).__module__ or ''
        return (mod.startswith('ember.nn') or mod.startswith('ember.ao.nn')) and \
            not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of submodule ``mod`` in the root."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError('module is not installed as a submodule')
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError('module is not installed as a submodule')

    def call_module(self, m, forward, args, kwargs):
        """Record a call of submodule ``m`` (a leaf) or trace through its ``forward``."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy('call_module', module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """The value of module attribute ``attr`` during tracing: parameters (and
        buffers) of the root become Proxies of ``get_attr`` nodes."""
        import ember
        from ..nn import Parameter

        def maybe(attr_val, collection):
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        kwargs = {}
                        if 'proxy_factory_fn' in inspect.signature(self.create_proxy).parameters:
                            kwargs['proxy_factory_fn'] = (
                                None if not self.param_shapes_constant else
                                (lambda node: ParameterProxy(self, node, n, attr_val)))
                        parameter_proxy_cache[n] = self.create_proxy('get_attr', n, (), {},
                                                                     **kwargs)
                    return parameter_proxy_cache[n]
            return None
        if isinstance(attr_val, Parameter):
            r = maybe(attr_val, self.root.named_parameters())
            if r is not None:
                return r
        if self.proxy_buffer_attributes and isinstance(attr_val, ember.Tensor):
            r = maybe(attr_val, self.root.named_buffers())
            if r is not None:
                return r
        return attr_val

    # ------------------------------------------------------------- trace
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Create the placeholders for the traced function's parameters."""
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        if is_module:
            params = params[1:]
        args = [self.root] if is_module else []
        concrete_args = concrete_args or {}
        if isinstance(concrete_args, tuple):
            concrete_args = {p.name: v for p, v in zip(params, concrete_args)}
        for p in params:
            if p.kind == p.VAR_POSITIONAL:
                args.append(self._VarArgs(self.create_proxy('placeholder', '*' + p.name,
                                                            (), {})))
                continue
            if p.kind == p.VAR_KEYWORD:
                raise TraceError('**kwargs parameters are not supported by symbolic tracing')
            if p.name in concrete_args and isinstance(concrete_args[p.name], PHBase):
                args.append(self.create_proxy('placeholder', f'{p.name}_1', (), {},
                                              name=f'{p.name}_1'))
                continue
            if p.name in concrete_args:
                val = concrete_args[p.name]
                ph = self.create_proxy('placeholder', f'{p.name}_1', (val,), {},
                                       name=f'{p.name}_1')
                if isinstance(val, (bool, int, float, str)):
                    import ember
                    eq = self.create_proxy('call_function', __import__('operator').eq,
                                           (ph, val), {})
                    self.create_proxy('call_function', ember._assert,
                                      (eq, f'{p.name} has been specialized to have value '
                                           f'{val} but got another value'), {})
                args.append(val)
                continue
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            args.append(self.create_proxy('placeholder', p.name, default, {}, name=p.name))
        return args

    class _VarArgs:
        def __init__(self, proxy):
            self.proxy = proxy

    def trace(self, root, concrete_args=None):
        """Trace ``root`` (a Module or a function) into a new :class:`Graph`.

        Args:
            root (Module or Callable): what to trace.
            concrete_args (dict): values for inputs that are not traced (their
                placeholders keep the value as default).

        Returns:
            Graph: the traced graph (``self.graph``).
        """
        from ..nn import Module
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            self.submodule_paths = {m: n for n, m in root.named_modules()}
        else:
            self.root = Module()
            fn = root
            self.submodule_paths = None
        self.tensor_attrs = {}
        if isinstance(root, Module):
            import ember
            for prefix, sub in root.named_modules():
                for k, v in vars(sub).items():
                    if isinstance(v, ember.Tensor) and id(v) not in self.tensor_attrs:
                        self.tensor_attrs[id(v)] = f'{prefix}.{k}' if prefix else k
        self.graph = Graph(tracer_cls=getattr(self, '__class__', None))
        args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        call_args = []
        for a in args:
            if isinstance(a, Tracer._VarArgs):
                # the function receives the Proxy itself as its *args tuple: run a copy
                # of it whose *args parameter is an ordinary positional one
                co = fn.__code__
                if co.co_kwonlyargcount:
                    raise TraceError('symbolic tracing of *args with keyword-only '
                                     'parameters is not supported')
                import types
                fn = types.FunctionType(
                    co.replace(co_flags=co.co_flags & ~inspect.CO_VARARGS,
                               co_argcount=co.co_argcount + 1),
                    fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
                call_args.append(a.proxy)
            else:
                call_args.append(a)
        parameter_proxy_cache = {}
        tracer = self
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__

        def module_getattr_wrapper(mod, attr):
            attr_val = orig_getattr(mod, attr)
            return tracer.getattr(attr, attr_val, parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            return tracer.call_module(mod, forward, args, kwargs)

        patched = []
        fn_globals = getattr(fn, '__globals__', {})
        for (gid, name), g in list(_wrapped_fns.items()):
            target = g if name in g else None
            if gid == id(fn_globals) or target is None:
                if name in g:
                    patched.append((g, name, g[name]))
                    g[name] = _make_wrapper(g[name], name)
                elif name in builtins.__dict__ and gid == id(fn_globals):
                    patched.append((g, name, _MISSING))
                    g[name] = _make_wrapper(builtins.__dict__[name], name)
        Module.__getattr__ = module_getattr_wrapper
        Module.__call__ = module_call_wrapper
        try:
            result = fn(*call_args)
            self.create_node('output', 'output', (self.create_arg(result),), {})
        finally:
            Module.__getattr__ = orig_getattr
            Module.__call__ = orig_call
            for g, name, old in reversed(patched):
                if old is _MISSING:
                    g.pop(name, None)
                else:
                    g[name] = old
        self.submodule_paths = None
        return self.graph


_MISSING = object()


def _assert(condition, message):
    """Raise AssertionError(message) unless ``condition`` (``torch._assert``; the
    check that generated code makes for a specialized ``concrete_args`` input)."""
    if not condition:
        raise AssertionError(message)


_assert.__module__ = 'ember'
import ember as _ember  # noqa: E402
if '_assert' not in vars(_ember):
    # NOTE: ember has no torch._assert; FX installs it (generated code calls torch._assert)
    _ember._assert = _assert


def symbolic_trace(root, concrete_args=None):
    """Trace ``root`` (a Module or function) and return a
    :class:`~ember.fx.GraphModule` that runs the recorded operations.

    Args:
        root (Module or Callable): the module or function to trace.
        concrete_args (dict, optional): inputs to specialize on (not traced).

    Example::

        >>> class M(ember.nn.Module):
        ...     def forward(self, x): return ember.relu(x) + 1
        >>> gm = ember.fx.symbolic_trace(M())
        >>> print(gm.code)
    """
    from ..nn import Module
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


for _o in (PHBase, PHWithMeta, ProxyableClassMeta, Tracer, wrap, symbolic_trace):
    _o.__module__ = 'ember.fx._symbolic_trace'
