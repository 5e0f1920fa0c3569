"""``GraphDef`` protos for TensorBoard's graph plugin, built from an ``ember.fx`` trace of a
model (``add_graph``) or from an ONNX file (``add_onnx_graph``).

NOTE: unlike PyTorch, which traces the model with TorchScript and lists its ``aten::`` ops
with ``prim::GetAttr`` nodes for every parameter, ember records the model's ``ember.fx``
graph: one node per leaf-module call (op = the module's class name), function call and
method call, scoped by the module path as torch scopes them (``Net/Sequential[seq]/
Linear[0]/...``). The input and output nodes (``input/<argument name>``,
``output/output.1``) and their shapes are torch's, except that TorchScript may suffix an
input's name with ``.N`` when the model reuses it (``nn.Sequential``'s ``input.1``).
"""
import contextlib

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef


def _node(name, op, inputs=(), shape=None, attributes=''):
    attr = {'attr': AttrValue(s=attributes.encode('utf_8'))}
    if shape is not None:
        proto = TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in shape])
        attr['_output_shapes'] = AttrValue(list=AttrValue.ListValue(shape=[proto]))
    return NodeDef(name=name.encode('utf_8'), op=op, input=list(inputs), attr=attr)


@contextlib.contextmanager
def _eval_mode(model):
    training = getattr(model, 'training', None)
    if training is not None:
        model.train(False)
    try:
        yield
    finally:
        if training is not None:
            model.train(training)


def _shape_of(node):
    meta = node.meta.get('tensor_meta')
    return list(meta.shape) if meta is not None and hasattr(meta, 'shape') else None


def _describe(value):
    """A constant argument as text (the names of other nodes are the edges)."""
    return repr(value).replace("'", ' ')


def graph(model, args, verbose=False, use_strict_trace=True):
    """The ``(GraphDef, RunMetadata)`` of ``model`` run on ``args``.

    Args:
        model (ember.nn.Module): the model; traced with :func:`ember.fx.symbolic_trace` in
            eval mode (its mode is restored afterwards).
        args (Tensor or tuple of Tensors): example inputs, used to record each node's
            output shape.
        verbose (bool): print the traced graph. Default: ``False``.
        use_strict_trace (bool): ignored (TorchScript's tracer option).

    Returns:
        tuple: ``(GraphDef, RunMetadata)``
    """
    from ...fx import symbolic_trace
    from ...fx.node import Node
    from ...fx.passes.shape_prop import ShapeProp
    if not isinstance(args, (tuple, list)):
        args = (args,)
    with _eval_mode(model):
        try:
            gm = symbolic_trace(model)
            ShapeProp(gm).propagate(*args)
        except Exception as e:
            print(e)
            print("Error occurs, No graph saved")
            raise
    if verbose:
        print(gm.graph)

    root = type(model).__name__
    modules = dict(model.named_modules())

    def scope_of(path):   # 'seq.0' -> 'Net/Sequential[seq]/Linear[0]'
        parts, prefix = [root], ''
        for attr in path.split('.') if path else []:
            prefix = f'{prefix}.{attr}' if prefix else attr
            mod = modules.get(prefix)
            parts.append(f'{type(mod).__name__}[{attr}]' if mod is not None else attr)
        return '/'.join(parts)

    names, inputs, nodes, outputs = {}, [], [], []
    for n in gm.graph.nodes:
        edges = [names[a.name] for a in _flatten(n.args, n.kwargs) if isinstance(a, Node)]
        consts = [a for a in n.args if not isinstance(a, Node)]
        if n.op == 'placeholder' and not n.users:
            continue   # an input the model does not use (torch leaves it out too)
        if n.op == 'placeholder':
            names[n.name] = f'input/{str(n.target).lstrip("*")}'   # the argument's name
            inputs.append(_node(names[n.name], 'IO Node', shape=_shape_of(n)))
        elif n.op == 'output':
            out = n.args[0]
            if isinstance(out, Node):
                outputs.append(_node('output/output.1', 'IO Node', [names[out.name]],
                                     shape=_shape_of(out)))
            else:
                # a container of results: one node packing them, as TorchScript's
                # prim::TupleConstruct, and one output of no tensor shape ([1], as torch)
                kind = ('prim::DictConstruct' if isinstance(out, dict) else
                        'prim::ListConstruct' if isinstance(out, list) else
                        'prim::TupleConstruct')
                packed = f'{root}/{n.name}'
                nodes.append(_node(packed, kind, edges))
                outputs.append(_node('output/output.1', 'IO Node', [packed], shape=[1]))
        elif n.op == 'get_attr':
            path, _, attr = n.target.rpartition('.')
            names[n.name] = f'{scope_of(path)}/{attr}/{n.name}'
            nodes.append(_node(names[n.name], 'prim::GetAttr', shape=_shape_of(n),
                               attributes=f'{{ name :  {attr} }}'))
        else:
            if n.op == 'call_module':
                scope = scope_of(n.target)
                op = type(modules[n.target]).__name__
                extra = modules[n.target].extra_repr()
            else:
                scope = root
                op = n.target if isinstance(n.target, str) else getattr(
                    n.target, '__name__', str(n.target))
                extra = ', '.join([_describe(c) for c in consts] + [
                    f'{k}={_describe(v)}' for k, v in n.kwargs.items()
                    if not isinstance(v, Node)])
            names[n.name] = f'{scope}/{n.name}'
            nodes.append(_node(names[n.name], op, edges, shape=_shape_of(n),
                               attributes=f'{{{extra}}}'))
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(
        device='/device:CPU:0')]))
    return GraphDef(node=inputs + outputs + nodes, versions=VersionDef(producer=22)), stats


def _flatten(args, kwargs):
    out = []
    stack = list(args) + list(kwargs.values())
    while stack:
        a = stack.pop(0)
        if isinstance(a, (tuple, list)):
            stack[:0] = list(a)
        elif isinstance(a, dict):
            stack[:0] = list(a.values())
        else:
            out.append(a)
    return out


def load_onnx_graph(fname):
    """The ``GraphDef`` of the ONNX model file ``fname``: its inputs and outputs as
    ``Variable`` nodes (element type and shape) and one node per ONNX node, named by its
    first output. Needs the ``onnx`` package."""
    import onnx
    g = onnx.load(fname).graph
    nodes = []
    for v in list(g.input) + list(g.output):
        tt = v.type.tensor_type
        shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d.dim_value)
                                      for d in tt.shape.dim])
        nodes.append(NodeDef(name=v.name.encode('utf_8'), op='Variable', input=[],
                             attr={'dtype': AttrValue(type=tt.elem_type),
                                   'shape': AttrValue(shape=shape)}))
    for n in g.node:
        params = ', '.join(' = '.join(str(f[1]) for f in a.ListFields()) for a in n.attribute)
        nodes.append(NodeDef(name=n.output[0].encode('utf_8'), op=n.op_type,
                             input=list(n.input),
                             attr={'parameters': AttrValue(s=params.encode('utf_8'))}))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


__all__ = ['graph', 'load_onnx_graph']
