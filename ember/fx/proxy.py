"""``Proxy``: the stand-in value that records operations into a graph while tracing."""
import inspect
import operator

from .graph import Graph, magic_methods, reflectable_magic_methods
from .node import Node, map_aggregate

__all__ = ['TracerBase', 'GraphAppendingTracer', 'TraceError', 'Proxy', 'Attribute',
           'ParameterProxy']


class TraceError(ValueError):
    """Raised when symbolic tracing meets something it cannot record (control flow or
    iteration on a Proxy)."""


class TracerBase:
    """Base of tracers: turns calls on :class:`Proxy` s into graph nodes
    (:meth:`create_proxy`, :meth:`create_arg`), and raises :class:`TraceError` on control
    flow or iteration over a Proxy. :class:`Tracer` and :class:`GraphAppendingTracer`
    derive from it.

    Example::

        >>> from ember.fx.proxy import TracerBase, GraphAppendingTracer
        >>> isinstance(GraphAppendingTracer(ember.fx.Graph()), TracerBase)
        True
    """
    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = 'forward'
    scope = None
    module_stack = None
    node_name_to_scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Insert a node into ``self.graph`` (override to customize the nodes)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        """Wrap ``node`` in a :class:`Proxy`."""
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        """Create a node from a call (its arguments turned into graph arguments by
        :meth:`create_arg`) and return its Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """Turn a value appearing in a call's arguments into a graph argument (Proxies
        become their Nodes; containers are looked into)."""
        import ember
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, '__fx_create_arg__'):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple) and hasattr(a, '_fields'):
            return type(a)(*(self.create_arg(e) for e in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(e) for e in a)
        if isinstance(a, dict):
            r = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f'Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}')
                r[k] = self.create_arg(v)
            return r
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, (ember.Tensor, ember.dtype, ember.device, ember.layout,
                          ember.memory_format)) if hasattr(ember, 'layout') else \
                isinstance(a, (ember.Tensor, ember.dtype, ember.device)):
            return a
        if a is None or a is Ellipsis or isinstance(a, (str, int, float, bool, complex)):
            return a
        if isinstance(a, Node):
            return a
        if callable(a):
            return a
        raise NotImplementedError(f'argument of type: {type(a)}')

    def to_bool(self, obj):
        """Called for ``bool(proxy)`` (control flow): raises TraceError."""
        raise TraceError('symbolically traced variables cannot be used as inputs to control flow')

    def iter(self, obj):
        """Called when a Proxy is iterated: raises TraceError."""
        raise TraceError(
            'Proxy object cannot be iterated. This can be attempted when the Proxy is used '
            'in a loop or as a *args or **kwargs function argument. See the torch.fx docs '
            'on pytorch.org for a more detailed explanation of what types of control flow '
            'can be traced, and check out the Proxy docstring for help troubleshooting '
            'Proxy iteration errors')

    def keys(self, obj):
        """Called for ``**proxy``: records ``proxy.keys()``."""
        return Attribute(obj, 'keys')()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing ``graph`` (to build graphs with Proxies).

    Args:
        graph (Graph): the graph the nodes are appended to.

    Example::

        >>> from ember.fx.proxy import GraphAppendingTracer, Proxy
        >>> graph = ember.fx.Graph()
        >>> x = Proxy(graph.placeholder('x'), GraphAppendingTracer(graph))
        >>> _ = graph.output((x.relu() + 1).node)
        >>> print(graph.python_code('self').src.strip())
        def forward(self, x):
            relu = x.relu();  x = None
            add = relu + 1;  relu = None
            return add
    """

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


def _hold_seam(proxy):
    """Keep ember's observing op bindings installed while ``proxy`` lives (so ember
    functions hand it to ``Proxy.__torch_function__``); given back when it is collected,
    so a program that holds no Proxy keeps the plain, fast bindings."""
    from .._ops import _dispatch
    _dispatch._activate('fx-proxy')
    _dispatch._release_when_collected(proxy, 'fx-proxy')


class Proxy:
    """The value of a graph node during symbolic tracing: calls, operators, attribute
    and item accesses on it record nodes in the tracer's graph.

    Example::

        >>> g = ember.fx.Graph()
        >>> x = ember.fx.Proxy(g.placeholder('x'))
        >>> y = ember.relu(x) + 1
        >>> _ = g.output(y.node)
    """

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        _hold_seam(self)

    def __repr__(self):
        return f'Proxy({self.node.name})'

    def __getattr__(self, k):
        if k in ('node', 'tracer'):
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        import copy
        new = Proxy.__new__(Proxy)
        new.__dict__ = {k: (copy.deepcopy(v, memo) if k != 'tracer' else v)
                        for k, v in self.__dict__.items()}
        return new

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy('call_method', '__call__', (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        import dis
        insts = list(dis.get_instructions(frame.f_code))
        for i, inst in enumerate(insts):
            if inst.offset == frame.f_lasti:
                break
        else:
            i = None
        if i is not None:
            if insts[i].opname == 'UNPACK_SEQUENCE':
                return (self[k] for k in range(insts[i].argval))
            nxt = insts[i + 1] if i + 1 < len(insts) else None
            if nxt is not None and nxt.opname == 'UNPACK_SEQUENCE':
                return (self[k] for k in range(nxt.argval))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy('call_function', operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you "
                           "want this call to be recorded, please call torch.fx.wrap('len') "
                           "at module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find(a):
            if isinstance(a, Proxy):
                tracers[a.tracer] = None
        map_aggregate(args, find)
        map_aggregate(kwargs, find)
        if len(tracers) > 1:
            raise RuntimeError(f'Found multiple different tracers {list(tracers.keys())} '
                               f'while trying to trace operations {orig_method}')
        tracer = next(iter(tracers))
        qn = getattr(orig_method, '__qualname__', '') or ''
        if qn.startswith('Tensor.'):
            return tracer.create_proxy('call_method', orig_method.__name__, args, kwargs)
        return tracer.create_proxy('call_function', orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method.__name__))


class Attribute(Proxy):
    """A Proxy for ``proxy.attr``: becomes a ``call_method`` when called, else a
    ``getattr`` call when used.

    Args:
        root (Proxy): the proxy whose attribute is read.
        attr (str): the attribute's name.

    Example::

        >>> from ember.fx.proxy import GraphAppendingTracer, Proxy, Attribute
        >>> graph = ember.fx.Graph()
        >>> x = Proxy(graph.placeholder('x'), GraphAppendingTracer(graph))
        >>> isinstance(x.shape, Attribute)
        True
    """

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None
        _hold_seam(self)

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy('call_function', getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy('call_method', self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A Proxy for a parameter of the traced module: its shape queries (``shape``,
    ``size()``, ``dim()``, ``nelement()``, ``numel()``) are answered from the real parameter.
    A :class:`Tracer` made with ``param_shapes_constant=True`` uses it.

    Example::

        >>> class M(ember.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = ember.nn.Parameter(ember.ones(2, 3))
        ...     def forward(self, x):
        ...         return x.new_zeros(self.w.shape)   # a real Size while tracing
        >>> g = ember.fx.Tracer(param_shapes_constant=True).trace(M())
    """

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f'ParameterProxy({self.name})'

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _define_magic(name):
    target = getattr(operator, name)

    def impl(*args, **kwargs):
        tracer = args[0].tracer
        return tracer.create_proxy('call_function', target, args, kwargs)
    impl.__name__ = f'__{name.rstrip("_")}__'
    setattr(Proxy, impl.__name__, impl)


def _define_reflectable(name):
    target = getattr(operator, name)
    mname = f'__r{name.rstrip("_")}__'

    def impl(self, rhs):
        return self.tracer.create_proxy('call_function', target, (rhs, self), {})
    impl.__name__ = mname
    setattr(Proxy, mname, impl)


for _m in magic_methods:
    if _m == 'div':
        continue
    _define_magic(_m)
for _m in reflectable_magic_methods:
    if _m == 'div':
        continue
    _define_reflectable(_m)

for _c in (TraceError, TracerBase, GraphAppendingTracer, Proxy, Attribute, ParameterProxy):
    _c.__module__ = 'ember.fx.proxy'
