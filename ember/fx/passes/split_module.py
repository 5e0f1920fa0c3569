"""``split_module``: split a GraphModule into submodules by a partition function."""
from ..graph import Graph
from ..graph_module import GraphModule
from ..node import map_arg

__all__ = ['Partition', 'split_module']


class Partition:
    """One partition of :func:`split_module`: its name, the names of its nodes, its inputs
    and outputs, the partitions it depends on and those depending on it, and the graph
    being built for its submodule (``submod_<name>``).

    Args:
        name (str): the partition's key, as the split callback returned it.

    Example::

        >>> from ember.fx.passes.split_module import Partition
        >>> Partition('0').submod_name
        'submod_0'
    """

    def __init__(self, name):
        self.name = name
        self.submod_name = f'submod_{name}'
        self.node_names = []
        self.inputs = {}
        self.outputs = {}
        self.dependencies = {}
        self.dependents = {}
        self.graph = Graph()
        self.environment = {}
        self.targets = {}

    def __repr__(self):
        return (f'name: {self.name},\n nodes: {self.node_names},\n inputs: {self.inputs},\n'
                f' outputs: {self.outputs},\n partitions depended on: {self.dependencies},\n'
                f' partition dependents: {self.dependents}')


def split_module(m, root_m, split_callback, qualname_map=None,
                 keep_original_order=False, keep_original_node_name=False,
                 keep_original_input_name=True):
    """Split ``m`` (a GraphModule) into one submodule ``submod_<p>`` per partition
    ``p = split_callback(node)`` of its call nodes, and return a GraphModule calling
    them in dependency order.

    Args:
        m (GraphModule): the module to split.
        root_m (Module): the original root module (unused but for compatibility).
        split_callback (Callable[[Node], int]): the partition of a node.
        qualname_map (dict, optional): filled with new -> old qualified names.

    Example::

        >>> split = split_module(gm, model, lambda n: 0 if n.name < 'm' else 1)
    """
    partitions = {}
    orig_nodes = {}

    def record_cross(def_node, use_node):
        def_p = getattr(def_node, '_fx_partition', None)
        use_p = getattr(use_node, '_fx_partition', None)
        if def_p != use_p:
            if def_p is not None:
                dp = partitions[def_p]
                dp.outputs.setdefault(def_node.name)
                if use_p is not None:
                    dp.dependents.setdefault(use_p)
            if use_p is not None:
                up = partitions[use_p]
                up.inputs.setdefault(def_node.name)
                if def_p is not None:
                    up.dependencies.setdefault(def_p)

    order = []
    for node in m.graph.nodes:
        orig_nodes[node.name] = node
        if node.op in ('placeholder', 'output'):
            continue
        if node.op == 'get_attr':
            node._fx_partition = None
            continue
        p = str(split_callback(node))
        if p not in partitions:
            partitions[p] = Partition(p)
            order.append(p)
        partitions[p].node_names.append(node.name)
        node._fx_partition = p
    for node in m.graph.nodes:
        if node.op == 'placeholder':
            node._fx_partition = None
    for node in m.graph.nodes:
        if node.op == 'output':
            map_arg(node.args[0], lambda n: record_cross(n, node))
        elif node.op not in ('placeholder',):
            map_arg(node.args, lambda d, node=node: record_cross(d, node))
            map_arg(node.kwargs, lambda d, node=node: record_cross(d, node))
    # get_attr nodes stay in the base module; partitions take their values as inputs
    # topological order of partitions
    sorted_p = []
    deps = {k: set(v.dependencies) for k, v in partitions.items()}
    ready = [k for k in order if not deps[k]]
    while ready:
        k = ready.pop(0)
        sorted_p.append(k)
        for d in partitions[k].dependents:
            deps[d].discard(k)
            if not deps[d] and d not in sorted_p and d not in ready:
                ready.append(d)
    if len(sorted_p) != len(partitions):
        raise RuntimeError('cycle exists between partitions!')
    # build each partition's graph
    for p in partitions.values():
        for inp in p.inputs:
            ph = p.graph.placeholder(inp)
            ph.meta = dict(orig_nodes[inp].meta)
            p.environment[orig_nodes[inp]] = ph
    base_mod_attrs = {}
    for node in m.graph.nodes:
        pn = getattr(node, '_fx_partition', None)
        if node.op in ('placeholder', 'output', 'get_attr') or pn is None:
            continue
        p = partitions[pn]

        def get(n, p=p):
            if n in p.environment:
                return p.environment[n]
            if n.op == 'get_attr':
                attr = m.get_submodule('.'.join(n.target.split('.')[:-1])) if '.' in n.target \
                    else m
                obj = getattr(attr, n.target.split('.')[-1])
                key = n.target.replace('.', '_')
                p.targets[key] = obj
                new = p.graph.get_attr(key)
                p.environment[n] = new
                return new
            raise RuntimeError(f'{n} not found in partition environment')
        args = map_arg(node.args, get)
        kwargs = map_arg(node.kwargs, get)
        target = node.target
        if node.op == 'call_module':
            target_atoms = node.target.split('.')
            obj = m
            for a in target_atoms:
                obj = getattr(obj, a)
            target = '_'.join(target_atoms)
            p.targets[target] = obj
            if qualname_map is not None:
                qualname_map[f'{p.submod_name}.{target}'] = node.target
        new = p.graph.create_node(node.op, target, args, kwargs,
                                  name=node.name if keep_original_node_name else None)
        new.meta = dict(node.meta)
        p.environment[node] = new
    # the base graph calls the partitions
    base = Graph()
    base_env = {}
    for node in m.graph.nodes:
        if node.op == 'placeholder':
            default = node.args[0] if node.args else __import__('inspect').Signature.empty
            base_env[node.name] = base.placeholder(node.target, default_value=default)
            base_env[node.name].meta = dict(node.meta)
        elif node.op == 'get_attr':
            base_env[node.name] = base.get_attr(node.target)
            base_mod_attrs[node.target] = _fetch(m, node.target)
    for name in sorted_p:
        p = partitions[name]
        outs = tuple(p.environment[orig_nodes[o]] for o in p.outputs)
        p.graph.output(outs[0] if len(outs) == 1 else outs)
        base_mod_attrs[p.submod_name] = GraphModule(p.targets, p.graph)
        call = base.call_module(p.submod_name, tuple(base_env[i] for i in p.inputs))
        if len(p.outputs) > 1:
            from ..proxy import Proxy
            cp = Proxy(call)
            for i, o in enumerate(p.outputs):
                base_env[o] = cp[i].node
        elif len(p.outputs) == 1:
            base_env[next(iter(p.outputs))] = call
    for node in m.graph.nodes:
        if node.op == 'output':
            base.output(map_arg(node.args[0], lambda n: base_env[n.name]))
    for node in m.graph.nodes:
        if hasattr(node, '_fx_partition'):
            del node._fx_partition
    return GraphModule(base_mod_attrs, base)


def _fetch(m, target):
    obj = m
    for a in target.split('.'):
        obj = getattr(obj, a)
    return obj


Partition.__module__ = 'ember.fx.passes.split_module'
split_module.__module__ = 'ember.fx.passes.split_module'
