"""Graph capture for the ONNX exporter: runs the model once on the example inputs while a
``TorchFunctionMode`` records every op applied to values that depend on the inputs, and
keeps the layers that have an ONNX conversion (``leaf_types``) as single ``call_module``
nodes. The result is an FX-shaped graph (nodes with ``op`` in placeholder / get_attr /
call_function / call_module / output, ``target``, ``args``, ``kwargs``, ``meta['val']``,
``meta['nn_module_stack']``).

Values computed only from constants (parameters, buffers, tensors made inside forward) are
folded into constants, as the TorchScript exporter's constant folding does; Python numbers
read from shapes are recorded with the values of the example inputs.
"""
import operator

from ..overrides import TorchFunctionMode
from .._tensor import Tensor

__all__ = []


class Node:
    """One node of a captured graph (mirrors ``torch.fx.Node``'s fields)."""

    def __init__(self, name, op, target, args=(), kwargs=None, meta=None):
        self.name, self.op, self.target = name, op, target
        self.args, self.kwargs = tuple(args), dict(kwargs or {})
        self.meta = dict(meta or {})

    def __repr__(self):
        return self.name


class Graph:
    """The nodes of a captured graph, in execution order."""

    def __init__(self):
        self.nodes = []
        self._names = {}

    def create_node(self, op, target, args=(), kwargs=None, name=None, meta=None):
        base = name or (getattr(target, '__name__', None) or str(target)).replace('.', '_')
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        node = Node(base if n == 0 else f'{base}_{n}', op, target, args, kwargs, meta)
        self.nodes.append(node)
        return node


def _map(obj, fn):
    if isinstance(obj, (list, tuple)) and not hasattr(obj, '_fields'):
        return type(obj)(_map(o, fn) for o in obj)
    if isinstance(obj, tuple):                       # named tuple (return_types)
        return tuple(_map(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return fn(obj)


def _tensors(obj, acc):
    if isinstance(obj, Tensor):
        acc.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors(o, acc)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors(o, acc)
    return acc


class _Capture(TorchFunctionMode):
    def __init__(self, model, leaf_types):
        super().__init__()
        self.graph = Graph()
        self.env = {}            # id(tensor) -> Node of its latest value
        self.keep = []           # keeps recorded tensors alive (ids stay unique)
        self.leaf_types = tuple(leaf_types)
        self.inside_leaf = 0
        self.stack = []
        self.names = {}
        for n, p in model.named_parameters(remove_duplicate=False):
            self.names.setdefault(id(p), n)
        for n, b in model.named_buffers(remove_duplicate=False):
            self.names.setdefault(id(b), n)
        self.module_names = {}
        for n, m in model.named_modules(remove_duplicate=False):
            self.module_names.setdefault(id(m), n)
        self.consts = {}

    # -- values -------------------------------------------------------------------------
    def set(self, t, node):
        self.env[id(t)] = node
        self.keep.append(t)
        node.meta['val'] = t

    def depends(self, obj):
        return any(id(t) in self.env for t in _tensors(obj, []))

    def arg(self, obj):
        def conv(a):
            if isinstance(a, Tensor):
                node = self.env.get(id(a))
                if node is None:
                    key = id(a)
                    node = self.consts.get(key)
                    if node is None:
                        name = self.names.get(key)
                        node = self.graph.create_node(
                            'get_attr', name or '_tensor_constant', (), name=(
                                name.replace('.', '_') if name else '_tensor_constant'))
                        node.meta['val'] = a
                        node.meta['param'] = name is not None
                        self.consts[key] = node
                        self.keep.append(a)
                return node
            return a
        return _map(obj, conv)

    def record_result(self, node, res):
        if isinstance(res, Tensor):
            self.set(res, node)
        else:
            node.meta['val'] = res
            self.keep.append(res)
            if isinstance(res, (tuple, list)):
                for i, r in enumerate(res):
                    if isinstance(r, (Tensor, tuple, list)):
                        child = self.graph.create_node('call_function', operator.getitem,
                                                       (node, i), name='getitem')
                        child.meta['nn_module_stack'] = node.meta.get('nn_module_stack')
                        self.record_result(child, r)

    # -- ops ----------------------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        res = func(*args, **kwargs)
        if self.inside_leaf or not self.depends((args, kwargs)):
            return res
        node = self.graph.create_node('call_function', func, self.arg(args), self.arg(kwargs))
        node.meta['nn_module_stack'] = list(self.stack)
        self.record_result(node, res)
        return res

    def call_module(self, module, call, args, kwargs):
        if self.inside_leaf:
            return call(module, *args, **kwargs)
        name = self.module_names.get(id(module), type(module).__name__)
        if isinstance(module, self.leaf_types) and self.depends((args, kwargs)):
            self.inside_leaf += 1
            try:
                res = call(module, *args, **kwargs)
            finally:
                self.inside_leaf -= 1
            node = self.graph.create_node('call_module', name, self.arg(args), self.arg(kwargs),
                                          name=name.replace('.', '_') or 'self')
            node.meta['module'] = module
            node.meta['nn_module_stack'] = list(self.stack) + [(name, type(module))]
            self.record_result(node, res)
            return res
        self.stack.append((name, type(module)))
        try:
            return call(module, *args, **kwargs)
        finally:
            self.stack.pop()


def capture(model, args, kwargs, leaf_types, input_names):
    """Run ``model(*args, **kwargs)`` recording an FX-shaped graph; return
    ``(graph, input_nodes, output_structure)``."""
    from ..nn.modules.module import Module
    cap = _Capture(model, leaf_types)
    inputs = []
    flat = _tensors((args, kwargs), [])
    for i, t in enumerate(flat):
        if id(t) in cap.env:
            continue
        name = input_names[i] if input_names and i < len(input_names) else None
        node = cap.graph.create_node('placeholder', name or f'input_{i}', name=name or 'input')
        if name is None:
            node.name = f'input_{len(inputs) + 1}' if inputs else 'input'
        cap.set(t, node)
        inputs.append(node)
    original = Module.__call__

    def patched(self, *a, **k):
        return cap.call_module(self, original, a, k)

    Module.__call__ = patched
    try:
        with cap:
            if isinstance(model, Module):
                out = cap.call_module(model, original, args, kwargs)
            else:
                out = model(*args, **kwargs)
    finally:
        Module.__call__ = original
    outs = cap.arg(out)
    cap.graph.create_node('output', 'output', (outs,), name='output')
    return cap.graph, inputs, out
