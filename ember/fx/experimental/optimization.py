"""FX-based optimizations: ``fuse`` (fold eval-mode BatchNorm into convolutions)."""
import copy

__all__ = ['matches_module_pattern', 'replace_node_module', 'fuse', 'remove_dropout',
           'extract_subgraph']


def _parent_name(target):
    *parent, name = target.rsplit('.', 1)
    return (parent[0] if parent else ''), name


def matches_module_pattern(pattern, node, modules):
    """True if ``node`` and its first input are ``call_module`` s of exactly the module
    types in ``pattern`` (``pattern[0]`` for the input node, ``pattern[1]`` for ``node``).

    Args:
        pattern (tuple of type): two module classes.
        node (Node): the node to test.
        modules (dict): ``dict(graph_module.named_modules())``.

    Example::

        >>> import ember.nn as nn
        >>> from ember.fx.experimental.optimization import matches_module_pattern
        >>> gm = ember.fx.symbolic_trace(nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)))
        >>> bn = [n for n in gm.graph.nodes if n.op == 'call_module'][1]
        >>> matches_module_pattern((nn.Conv2d, nn.BatchNorm2d), bn, dict(gm.named_modules()))
        True
    """
    if len(node.args) == 0:
        return False
    nodes = (node.args[0], node)
    from ..node import Node
    for expected_type, current_node in zip(pattern, nodes):
        if not isinstance(current_node, Node):
            return False
        if current_node.op != 'call_module':
            return False
        if not isinstance(current_node.target, str):
            return False
        if current_node.target not in modules:
            return False
        if type(modules[current_node.target]) is not expected_type:
            return False
    return True


def replace_node_module(node, modules, new_module):
    """Install ``new_module`` in place of the submodule ``node`` calls (in ``modules`` and
    on its parent module).

    Args:
        node (Node): a ``call_module`` node.
        modules (dict): ``dict(graph_module.named_modules())``; updated.
        new_module (Module): the replacement.

    Example::

        >>> import ember.nn as nn
        >>> from ember.fx.experimental.optimization import replace_node_module
        >>> gm = ember.fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2)))
        >>> node = [n for n in gm.graph.nodes if n.op == 'call_module'][0]
        >>> replace_node_module(node, dict(gm.named_modules()), nn.Identity())
        >>> type(gm.get_submodule('0')).__name__
        'Identity'
    """
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


def fuse(model, inplace=False, no_trace=False):
    """Fold each eval-mode BatchNorm that directly follows a convolution (or linear
    layer) into it; returns the fused GraphModule (for inference).

    Example::

        >>> fused = fuse(model.eval())
    """
    import ember.nn as nn
    from ember.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
    from .._symbolic_trace import symbolic_trace
    from ..graph_module import GraphModule
    patterns = [(nn.Conv1d, nn.BatchNorm1d), (nn.Conv2d, nn.BatchNorm2d),
                (nn.Conv3d, nn.BatchNorm3d), (nn.Linear, nn.BatchNorm1d)]
    if not inplace:
        model = copy.deepcopy(model)
    if not no_trace or not isinstance(model, GraphModule):
        fx_model = symbolic_trace(model)
    else:
        fx_model = model
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in patterns:
        for node in new_graph.nodes:
            if matches_module_pattern(pattern, node, modules):
                if len(node.args[0].users) > 1:
                    continue
                first = modules[node.args[0].target]
                bn = modules[node.target]
                if not bn.track_running_stats:
                    continue
                if pattern[0] is nn.Linear:
                    fused = fuse_linear_bn_eval(first, bn)
                else:
                    fused = fuse_conv_bn_eval(first, bn)
                replace_node_module(node.args[0], modules, fused)
                node.replace_all_uses_with(node.args[0])
                new_graph.erase_node(node)
    return GraphModule(fx_model, new_graph)


def remove_dropout(model):
    """Trace ``model`` and remove its :class:`~ember.nn.Dropout` calls (each is replaced by
    its input); returns the traced :class:`GraphModule` (for inference).

    Args:
        model (Module): the model to trace.

    Example::

        >>> import ember.nn as nn
        >>> from ember.fx.experimental.optimization import remove_dropout
        >>> gm = remove_dropout(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5)))
        >>> [n.op for n in gm.graph.nodes]
        ['placeholder', 'call_module', 'output']
    """
    import ember.nn as nn
    from .._symbolic_trace import symbolic_trace
    from .._symbolic_trace import Tracer
    from ..graph_module import GraphModule
    fx_model = symbolic_trace(model)
    for node in list(fx_model.graph.nodes):
        if node.op == 'call_module' and isinstance(fx_model.get_submodule(node.target),
                                                   nn.Dropout):
            node.replace_all_uses_with(node.args[0])
            fx_model.graph.erase_node(node)
    fx_model.recompile()
    return fx_model


def extract_subgraph(orig_module, nodes, inputs, outputs):
    """A GraphModule computing ``outputs`` from ``inputs`` with the given ``nodes`` (copied,
    in order, from ``orig_module``'s graph; ``inputs`` become placeholders and the result
    is a list).

    Args:
        orig_module (GraphModule): the module the nodes' submodules and attributes come from.
        nodes (list of Node): the nodes to copy.
        inputs (list of Node): the nodes to turn into placeholders.
        outputs (list of Node): the nodes to return.

    Example::

        >>> from ember.fx.experimental.optimization import extract_subgraph
        >>> class M(ember.nn.Module):
        ...     def forward(self, x):
        ...         return (x + 1).relu() * 2
        >>> gm = ember.fx.symbolic_trace(M())
        >>> x, add, relu, mul, out = gm.graph.nodes
        >>> sub = extract_subgraph(gm, [relu], [add], [relu])
        >>> sub(ember.tensor([-1., 1.]))
        [tensor([0., 1.])]
    """
    from ..graph import Graph
    from ..graph_module import GraphModule
    new_graph = Graph()
    env = {}
    for input in inputs:
        env[input] = new_graph.placeholder(input.name)
    for node in nodes:
        env[node] = new_graph.node_copy(node, lambda x: env[x])
    new_graph.output([env[o] for o in outputs])
    new_graph.lint()
    return GraphModule(orig_module, new_graph)
