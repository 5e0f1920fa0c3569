"""FX-based optimizations: ``fuse`` (fold eval-mode BatchNorm into convolutions)."""
import copy

__all__ = ['matches_module_pattern', 'replace_node_module', 'fuse', 'remove_dropout',
           'extract_subgraph']


def _parent_name(target):
    *parent, name = target.rsplit('.', 1)
    return (parent[0] if parent else ''), name


def matches_module_pattern(pattern, node, modules):
    """True if ``node`` and its first inputs are ``call_module`` s of the module types
    in ``pattern`` (last element = ``node``)."""
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
    """Install ``new_module`` in place of the submodule ``node`` calls."""
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
    """Remove the Dropout calls of ``model``'s traced graph."""
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
    """A GraphModule computing ``outputs`` from ``inputs`` with the given ``nodes``."""
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
