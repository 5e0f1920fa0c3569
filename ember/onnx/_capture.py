"""Graph capture for the ONNX exporter: runs the model once on the example inputs while a
``TorchFunctionMode`` records every op applied to values that depend on the inputs into an
``ember.fx.Graph``, keeping the layers that have an ONNX conversion (``leaf_types``) as
single ``call_module`` nodes. The result is an ``ember.fx.GraphModule`` (its ``graph``
is what the converters walk; calling it recomputes the model) whose nodes carry
``meta['val']`` (the value seen while capturing), ``meta['nn_module_stack']`` and, for
``call_module`` / ``get_attr`` nodes, ``meta['module']`` / ``meta['qualname']``.

Tensor methods become ``call_method`` nodes and functions ``call_function`` nodes, as FX's
symbolic tracing records them. Values computed only from constants (parameters, buffers,
tensors made inside forward) are folded into constants, as the TorchScript exporter's
constant folding does; Python numbers read from shapes are recorded with the values of the
example inputs.
"""
import operator
import re
import threading

from ..overrides import TorchFunctionMode
from .._tensor import Tensor

__all__ = []


def _map(obj, fn):
    if isinstance(obj, (list, tuple)) and not hasattr(obj, '_fields'):
        return type(obj)(_map(o, fn) for o in obj)
    if isinstance(obj, tuple):                       # named tuple (return_types)
        return tuple(_map(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    if isinstance(obj, slice):
        return slice(_map(obj.start, fn), _map(obj.stop, fn), _map(obj.step, fn))
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
    elif isinstance(obj, slice):
        _tensors((obj.start, obj.stop, obj.step), acc)
    return acc


def op_key(node):
    """The name of the op a captured (or symbolically traced) node applies: the registered
    op's name for ``call_function`` / ``call_method`` nodes (``'add'``, ``'view'``,
    ``'getitem'``, ...)."""
    if node.op == 'call_function':
        if node.target is operator.getitem:
            return 'getitem'
        name = getattr(node.target, '__name__', str(node.target))
    elif node.op == 'call_method':
        fn = getattr(Tensor, node.target, None)
        name = getattr(fn, '__name__', node.target) if fn is not None else node.target
    else:
        return node.op
    if name.startswith('_dunder_'):              # Tensor.__eq__ / __ne__
        return name[len('_dunder_'):]
    if name.endswith('_method') and name.startswith('_'):   # Tensor.flip / Tensor.where
        return name[1:-len('_method')]
    return name


class _Capture(TorchFunctionMode):
    def __init__(self, model, leaf_types, opset=None):
        super().__init__()
        self.opset = opset
        from ..fx.graph import Graph
        self.graph = Graph()
        self.root = {}           # GraphModule attribute -> module / tensor
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
        self.n_const = 0
        self.stale = {}          # id(base) -> in-place op applied through one of its views
        self.thread = threading.get_ident()   # the patched hooks record this thread only

    def prop(self, attr, fget):
        """A property getter (``Tensor.T`` & co., which do not pass through the op seam)
        that records a ``getattr`` node."""
        cap = self

        def get(t):
            if threading.get_ident() != cap.thread:
                return fget(t)
            cap.inside_leaf += 1
            try:
                res = fget(t)
            finally:
                cap.inside_leaf -= 1
            if not cap.inside_leaf and id(t) in cap.env and isinstance(res, Tensor):
                node = cap.graph.create_node('call_function', getattr, (cap.env[id(t)], attr))
                node.meta['nn_module_stack'] = list(cap.stack)
                cap.record_result(node, res)
            return res
        return get

    def attr_name(self, base):
        """A fresh attribute name of the GraphModule (``base``, ``base_1``, ...)."""
        base = base or 'model'
        name, i = base, 0
        while name in self.root or any(k.startswith(name + '.') or name.startswith(k + '.')
                                       for k in self.root):
            i += 1
            name = f'{base}_{i}'
        return name

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
                if id(a) in self.stale:
                    from .errors import UnsupportedOperatorError
                    raise UnsupportedOperatorError(
                        f'aten::{self.stale[id(a)]}(on a view whose base is read again)',
                        self.opset, None)
                node = self.env.get(id(a))
                if node is None:
                    key = id(a)
                    if a.requires_grad and key not in self.names:
                        self.untracked(a)
                    node = self.consts.get(key)
                    if node is None:
                        qual = self.names.get(key)
                        if qual is None:
                            target = self.attr_name(f'_tensor_constant{self.n_const}')
                            self.n_const += 1
                        else:
                            target = self.attr_name(qual.replace('.', '_'))
                        # a constant is read at its first use (an in-place op may change
                        # it afterwards): keep a copy of that value
                        v = a if qual is not None else a.detach().clone()
                        self.root[target] = v
                        node = self.graph.create_node('get_attr', target, name=target)
                        node.meta['val'] = v
                        node.meta['param'] = qual is not None
                        node.meta['qualname'] = qual
                        self.consts[key] = node
                        self.keep.append(a)
                return node
            return a
        return _map(obj, conv)

    def untracked(self, t):
        """``t`` was computed from the inputs by an op that the capture did not see (an
        op computing on arrays inside an untracked call): its value would be frozen."""
        from .errors import UnsupportedOperatorError
        fn = type(t.grad_fn).__name__ if t.grad_fn is not None else 'unknown'
        name = re.sub(r'Backward\d*$', '', fn)
        where = ''
        if self.stack and self.stack[-1][0]:
            where = f" (in module '{self.stack[-1][0]}' of type {self.stack[-1][1].__name__})"
        err = UnsupportedOperatorError(f'aten::{name.lower()}', self.opset, None)
        err.args = (err.args[0] + where + ': the op was computed outside the recorded '
                    'graph; export the layer that runs it as a module with a conversion',)
        raise err

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
        if self.inside_leaf:
            return func(*args, **kwargs)
        fname = getattr(func, '__name__', '')
        inplace = fname == 'setitem' or (fname.endswith('_') and not fname.startswith('_'))
        dep = self.depends((args, kwargs))
        if dep and inplace:          # map the arguments before the op changes one of them
            margs, mkwargs = self.arg(args), self.arg(kwargs)
        res = func(*args, **kwargs)
        if not dep:
            for t in _tensors((args, kwargs), []):
                if t.requires_grad and id(t) not in self.names:
                    self.untracked(t)
            return res
        if not inplace:
            margs, mkwargs = self.arg(args), self.arg(kwargs)
        qual = getattr(func, '__qualname__', '') or ''
        if inplace and args and isinstance(args[0], Tensor) and args[0]._base is not None:
            # an in-place write through a view changes its base, which the graph would miss
            # if the base is read again
            self.stale[id(args[0]._base)] = fname
        if qual.startswith('Tensor.') and args and isinstance(args[0], Tensor):
            node = self.graph.create_node('call_method', qual[7:], margs, mkwargs,
                                          name=fname)
        else:
            node = self.graph.create_node('call_function', func, margs, mkwargs)
        node.meta['nn_module_stack'] = list(self.stack)
        if fname == 'setitem' and isinstance(args[0], Tensor):
            self.set(args[0], node)          # the tensor's value is now this node's
        else:
            self.record_result(node, res)
        return res

    def call_module(self, module, call, args, kwargs):
        if self.inside_leaf:
            return call(module, *args, **kwargs)
        qual = self.module_names.get(id(module), type(module).__name__)
        if isinstance(module, self.leaf_types) and self.depends((args, kwargs)):
            self.inside_leaf += 1
            try:
                res = call(module, *args, **kwargs)
            finally:
                self.inside_leaf -= 1
            target = qual if self.root.get(qual) is module else \
                self.attr_name(qual or type(module).__name__.lower())
            self.root[target] = module
            node = self.graph.create_node('call_module', target, self.arg(args),
                                          self.arg(kwargs), name=target.replace('.', '_'))
            node.meta['module'] = module
            node.meta['qualname'] = qual
            node.meta['nn_module_stack'] = list(self.stack) + [(qual, type(module))]
            self.record_result(node, res)
            return res
        self.stack.append((qual, type(module)))
        swaps = self.observe_attrs(module)
        try:
            return call(module, *args, **kwargs)
        finally:
            self.stack.pop()
            for k, v in swaps:
                module.__dict__[k] = v

    @staticmethod
    def observe_attrs(module):
        """A module that stored an op function before the capture began (e.g.
        ``self.activation = F.gelu``) holds the unobserved binding: while it runs, hold the
        observed one instead (restored afterwards)."""
        from .._ops import _dispatch
        from ..nn import functional as F
        import ember
        swaps = []
        for k, v in list(module.__dict__.items()):
            if not callable(v) or isinstance(v, type) or not hasattr(v, '__name__'):
                continue
            for ns in (F, ember):
                w = getattr(ns, v.__name__, None)
                if w is not None and w is not v and _dispatch._raw_of.get(id(w)) is v:
                    swaps.append((k, v))
                    module.__dict__[k] = w
                    break
        return swaps


def _recorded_helpers(cap):
    """Internal helpers of the layer library that compute on arrays but whose result the
    exported graph must recompute: ``(module, name, original, replacement)``. The
    transformer layers turn a boolean padding/attention mask into a float one (-inf where
    True) with ``_canonical_mask``; while capturing, a mask that depends on the inputs is
    converted with recorded ops instead."""
    import ember
    from ..nn.modules import transformer
    orig = transformer._canonical_mask

    def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
        res = orig(mask, mask_name, other_type, other_name, target_type, check_other)
        if res is None or res is mask or threading.get_ident() != cap.thread or \
                id(mask) not in cap.env:
            return res
        return ember.zeros_like(mask, dtype=target_type).masked_fill(mask, float('-inf'))
    return [(transformer, '_canonical_mask', orig, canonical_mask)]


def capture(model, args, kwargs, leaf_types, input_names, opset=None):
    """Run ``model(*args, **kwargs)`` recording its graph; return
    ``(graph_module, input_nodes, output_structure)``. Each input node's
    ``meta['onnx_name']`` is its name in the exported model.

    The run is made with gradients on for floating-point inputs (copies of them) and off for
    the parameters, so a value computed from the inputs by an op the capture did not see
    still requires grad, and is reported instead of being frozen into a constant."""
    import ember
    from ..nn.modules.module import Module
    from ..fx.graph_module import GraphModule
    root = model if isinstance(model, Module) else Module()
    cap = _Capture(root, leaf_types, opset)
    inputs = []
    flat = _tensors((args, kwargs), [])
    repl = {}
    with ember.enable_grad():
        for t in flat:
            if id(t) not in repl and (t.is_floating_point() or t.is_complex()):
                repl[id(t)] = t.detach().requires_grad_(True) * 1
    args, kwargs = _map((args, kwargs), lambda a: repl.get(id(a), a) if isinstance(a, Tensor)
                        else a)
    flat = _tensors((args, kwargs), [])
    for i, t in enumerate(flat):
        if id(t) in cap.env:
            continue
        k = len(inputs)
        name = input_names[k] if input_names and k < len(input_names) else \
            (f'input_{k + 1}' if k else 'input')
        node = cap.graph.create_node('placeholder', f'input_{k + 1}' if k else 'input')
        node.meta['onnx_name'] = name
        cap.set(t, node)
        inputs.append(node)
    original = Module.__call__

    def patched(self, *a, **k):
        if threading.get_ident() != cap.thread:
            return original(self, *a, **k)
        return cap.call_module(self, original, a, k)

    params = [p for p in root.parameters() if p.requires_grad]
    helpers = _recorded_helpers(cap)
    props = {a: Tensor.__dict__[a] for a in ('T', 'mT', 'H', 'mH')
             if isinstance(Tensor.__dict__.get(a), property)}
    Module.__call__ = patched
    try:
        for a, pr in props.items():
            setattr(Tensor, a, property(cap.prop(a, pr.fget)))
        for mod, name, orig, repl_fn in helpers:
            setattr(mod, name, repl_fn)
        for p in params:
            p.requires_grad_(False)
        with ember.enable_grad(), cap:
            if isinstance(model, Module):
                out = cap.call_module(model, original, args, kwargs)
            else:
                out = model(*args, **kwargs)
    finally:
        Module.__call__ = original
        for a, pr in props.items():
            setattr(Tensor, a, pr)
        for mod, name, orig, repl_fn in helpers:
            setattr(mod, name, orig)
        for p in params:
            p.requires_grad_(True)
    outs = cap.arg(out)
    cap.graph.create_node('output', 'output', (outs,))
    for n in inputs:
        if not n.users:
            import warnings
            from .errors import OnnxExporterWarning
            warnings.warn(f"ember.onnx.export: input '{n.meta['onnx_name']}' is not used by "
                          "the exported graph (it is unused by the model, or read by an op "
                          "the capture could not record, whose result is then frozen)",
                          OnnxExporterWarning, stacklevel=3)
    name = type(model).__name__ if isinstance(model, Module) else 'GraphModule'
    gm = GraphModule(cap.root, cap.graph, name)
    return gm, inputs, out
