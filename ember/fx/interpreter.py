"""``Interpreter`` runs a GraphModule node by node; ``Transformer`` builds a new one."""
import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy
from ._symbolic_trace import Tracer

__all__ = ['Interpreter', 'Transformer']


class Interpreter:
    """Execute a :class:`GraphModule` one node at a time; override ``run_node`` or the
    per-opcode methods (``placeholder``, ``get_attr``, ``call_function``,
    ``call_method``, ``call_module``, ``output``) to change what a node does.

    Args:
        module (GraphModule): the module to run.
        garbage_collect_values (bool): drop values after their last use. Default: True
        graph (Graph, optional): run this graph instead of ``module.graph``.

    Example::

        >>> Interpreter(gm).run(x)
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(self.module.named_modules())
        self.graph = graph if graph is not None else self.module.graph
        self.env = {}
        self.name = 'Interpreter'
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if self.garbage_collect_values:
            node_to_last_use = {}
            self.user_to_last_uses = {}
            for node in reversed(self.graph.nodes):
                def reg(n, user=node):
                    if n not in node_to_last_use:
                        node_to_last_use[n] = user
                        self.user_to_last_uses.setdefault(user, []).append(n)
                map_arg(node.args, reg)
                map_arg(node.kwargs, reg)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args`` and return its result."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f'While executing {node.format_node()}'
                    e.args = (((e.args[0] + '\n' + msg) if e.args and isinstance(e.args[0], str)
                               else msg),) + tuple(e.args[1:])
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == 'output':
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        """Run with the inputs given as a list, which is cleared."""
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == 'placeholder':
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n):
        """Run node ``n``: fetch its arguments from the environment and call the method
        named after its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def placeholder(self, target, args, kwargs):
        """The next input (or the placeholder's default)."""
        if target.startswith('*'):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f'Expected positional argument for parameter {target}, '
                               'but one was not passed in!') from si

    def get_attr(self, target, args, kwargs):
        """The module attribute ``target``."""
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        """``target(*args, **kwargs)``."""
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        """``args[0].target(*args[1:], **kwargs)``."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        """Call the submodule ``target``."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        """The graph's result (``args[0]``)."""
        return args[0]

    def fetch_attr(self, target):
        """The attribute at qualified name ``target`` of the module."""
        atoms = target.split('.')
        attr_itr = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n):
        """``n``'s args and kwargs with each Node replaced by its value."""
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n):
        """Replace every Node in ``args`` by its value in the environment."""
        def load_arg(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f'Node {n} referenced nonexistent value {n_arg}! Run '
                                   'Graph.lint() to diagnose such issues')
            return self.env[n_arg]
        return map_arg(args, load_arg)


class Transformer(Interpreter):
    """An :class:`Interpreter` that runs on Proxies, producing a new GraphModule
    (:meth:`transform`); override the per-opcode methods to rewrite nodes.

    Example::

        >>> class NegSigmSwap(Transformer):
        ...     def call_function(self, target, args, kwargs):
        ...         if target == ember.sigmoid:
        ...             return ember.neg(*args, **kwargs)
        ...         return super().call_function(target, args, kwargs)
        >>> new_gm = NegSigmSwap(gm).transform()
    """

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(module.graph._codegen)

        class TransformerTracer(Tracer):
            def __init__(self, graph):
                super().__init__()
                self.graph = graph
                self.tensor_attrs = {}

            def is_leaf_module(self, _, __):
                return True
        self.tracer = TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        """A placeholder of the new graph."""
        import inspect as _i
        default = next(iter(args)) if args else _i.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        """A ``get_attr`` node of the new graph."""
        return self.tracer.create_proxy('get_attr', target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy('call_function', target, args, kwargs)

    def call_method(self, target, args, kwargs):
        return self.tracer.create_proxy('call_method', target, args, kwargs)

    def transform(self):
        """Run the transformation and return the new :class:`GraphModule`."""
        from ..nn import Module
        orig_call = Module.__call__
        tracer = self.tracer

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*a, **k):
                return orig_call(mod, *a, **k)
            return tracer.call_module(mod, forward, args, kwargs)
        Module.__call__ = module_call_wrapper
        try:
            result = super().run(enable_io_processing=False)
        finally:
            Module.__call__ = orig_call
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)


Interpreter.__module__ = 'ember.fx.interpreter'
Transformer.__module__ = 'ember.fx.interpreter'
