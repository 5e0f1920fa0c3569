"""``ExportedProgram.run_decompositions``: the functional form of an exported graph.

Each in-place op on a tensor that is not a view (``buf.add_(1)``, ``x[0] = v``) becomes its
out-of-place op, whose node then stands for the tensor's value in the rest of the graph;
``batch_norm`` in training mode becomes :func:`batch_norm_functional`, which returns the
updated running statistics instead of writing them. The final value of each mutated
buffer, parameter or user input is returned before the user outputs (``BUFFER_MUTATION``,
``PARAMETER_MUTATION``, ``USER_INPUT_MUTATION``), in input order.
"""
import copy
import operator

from .._tensor import Tensor
from .graph_signature import (ExportGraphSignature, InputKind, OutputKind, OutputSpec,
                              TensorArgument)

__all__ = []

# ops whose result shares memory with their first argument: an in-place op on such a
# result also changes the base, so it is left in place
_VIEW_OPS = {'view', 'view_as', 'reshape', 'reshape_as', 'transpose', 'permute', 't',
             'expand', 'expand_as', 'narrow', 'select', 'squeeze', 'unsqueeze', 'flatten',
             'unflatten', 'split', 'chunk', 'unbind', 'diagonal', 'as_strided', 'detach',
             'alias', 'getitem', 'movedim', 'swapaxes', 'swapdims', 'unfold', 'real',
             'imag', 'view_as_real', 'view_as_complex', 'split_with_sizes', 'tensor_split',
             'hsplit', 'vsplit', 'dsplit', 'mT', 'T', 'H', 'mH', 'contiguous'}


def batch_norm_functional(input, running_mean, running_var, weight=None, bias=None,
                          training=False, momentum=0.1, eps=1e-05):
    """``batch_norm`` that returns the updated running statistics rather than writing them:
    ``(output, new_running_mean, new_running_var)`` (the node ``run_decompositions`` makes
    of a training-mode ``batch_norm``; torch's ``_native_batch_norm_legit_functional``).

    Args:
        input, running_mean, running_var, weight, bias, training, momentum, eps: as for
            :func:`ember.nn.functional.batch_norm`.

    Example::

        >>> out, mean, var = batch_norm_functional(x, rm, rv, training=True)
    """
    from ..nn import functional as F
    mean = None if running_mean is None else running_mean.clone()
    var = None if running_var is None else running_var.clone()
    out = F.batch_norm(input, mean, var, weight, bias, training, momentum, eps)
    return out, mean, var


def setitem_functional(input, index, value):
    """``input`` with ``input[index] = value`` applied to a copy (the out-of-place form of
    ``Tensor.__setitem__``).

    Args:
        input (Tensor): the tensor.
        index: the index.
        value (Tensor or Number): the value written.

    Example::

        >>> y = setitem_functional(x, 0, 1.0)     # x is unchanged
    """
    out = input.clone()
    out[index] = value
    return out


def _name(target):
    return getattr(target, '__name__', '')


def _out_of_place(target):
    """The out-of-place function of an in-place ``Tensor`` method, or None."""
    name = _name(target)
    if name == 'setitem':
        return setitem_functional
    if not name.endswith('_') or name.startswith('_'):
        return None
    from .._ops._dispatch import raw_op
    from ._trace import resolve_target
    if raw_op(getattr(Tensor, name, None)) is not raw_op(target):
        return None
    return resolve_target('ember', f'Tensor.{name[:-1]}')


def _is_view(node):
    return node.op == 'call_function' and (
        _name(node.target) in _VIEW_OPS or node.target is operator.getitem or
        (node.target is getattr and node.args[1] in _VIEW_OPS))


_DUNDERS = {operator.add: 'add', operator.sub: 'sub', operator.mul: 'mul',
            operator.truediv: 'truediv', operator.floordiv: 'floordiv', operator.mod: 'mod',
            operator.pow: 'pow', operator.matmul: 'matmul', operator.and_: 'and',
            operator.or_: 'or', operator.xor: 'xor'}
_UNARY = {operator.neg: '__neg__', operator.pos: '__pos__', operator.invert: '__invert__',
          operator.abs: '__abs__'}
_COMPARE = {operator.lt: '__lt__', operator.le: '__le__', operator.gt: '__gt__',
            operator.ge: '__ge__', operator.eq: '__eq__', operator.ne: '__ne__'}


def _as_op(target, args):
    """The Tensor method a traced Python operator on tensors applies, with its arguments
    (``operator.mul(2, x)`` -> ``Tensor.__rmul__(x, 2)``)."""
    from ._trace import resolve_target
    is_node = [hasattr(a, 'op') for a in args]
    name = None
    if target in _UNARY and is_node[:1] == [True]:
        name = _UNARY[target]
    elif target in _COMPARE and len(args) == 2 and is_node[0]:
        name = _COMPARE[target]
    elif target in _DUNDERS and len(args) == 2:
        if is_node[0]:
            name = f'__{_DUNDERS[target]}__'
        elif is_node[1]:
            name, args = f'__r{_DUNDERS[target]}__', (args[1], args[0])
    elif target is operator.getitem and is_node[:1] == [True]:
        name = '__getitem__'
    fn = resolve_target('ember', f'Tensor.{name}') if name else None
    return (fn, args) if fn is not None else (target, args)


def _inline(g, fn, args, kwargs, env, meta):
    """Append to ``g`` the ops ``fn(*args, **kwargs)`` applies (traced with
    ``ember.fx.symbolic_trace``, the node arguments as its inputs); return the node of its
    result, or None when it is not a single tensor."""
    from ..fx import symbolic_trace
    leaves = []

    def collect(a):
        if hasattr(a, 'op'):
            leaves.append(a)
            return ('__leaf__', len(leaves) - 1)
        if isinstance(a, (list, tuple)):
            return type(a)(collect(x) for x in a)
        if isinstance(a, dict):
            return {k: collect(v) for k, v in a.items()}
        return a
    targs, tkwargs = collect(tuple(args)), collect(dict(kwargs))

    def fill(a, vals):
        if isinstance(a, tuple) and len(a) == 2 and a[0] == '__leaf__':
            return vals[a[1]]
        if isinstance(a, (list, tuple)):
            return type(a)(fill(x, vals) for x in a)
        if isinstance(a, dict):
            return {k: fill(v, vals) for k, v in a.items()}
        return a
    names = [f'a{i}' for i in range(len(leaves))]
    ns = {'_call': lambda vals: fn(*fill(targs, vals), **fill(tkwargs, vals))}
    exec(f"def f({', '.join(names)}):\n    return _call([{', '.join(names)}])", ns)
    sub = symbolic_trace(ns['f']).graph
    local = {}
    result = None
    phs = iter(leaves)
    for n in sub.nodes:
        if n.op == 'placeholder':
            local[n] = env[next(phs)]
        elif n.op == 'output':
            result = _map(n.args[0], local)
        else:
            a, k = _map(n.args, local), _map(n.kwargs, local)
            if n.op == 'call_method':
                from ._trace import resolve_target
                target = resolve_target('ember', f'Tensor.{n.target}')
                if target is None:
                    raise RuntimeError(f'run_decompositions: the decomposition calls '
                                       f'Tensor.{n.target}, which is not an ember op')
            elif n.op == 'call_function':
                target, a = _as_op(n.target, a)
            else:
                raise RuntimeError(f'run_decompositions: a decomposition may only apply '
                                   f'ops (it made a {n.op} node)')
            new = g.call_function(target, tuple(a), k)
            new.meta = {'stack_trace': meta.get('stack_trace'),
                        'nn_module_stack': meta.get('nn_module_stack'), 'val': None}
            local[n] = new
    if hasattr(result, 'op'):
        result.meta['val'] = meta.get('val')
        return result
    return None


def functionalize(ep, decomp_table):
    from ..fx.graph import Graph
    from .exported_program import ExportedProgram
    from ..nn import functional as F
    from .._ops._dispatch import raw_op
    table = {raw_op(k): v for k, v in decomp_table.items()}
    sig = ep.graph_signature
    g = Graph()
    env = {}
    latest = {}          # placeholder (old) -> node of its current value (new graph)
    root_of = {}         # old node -> placeholder it aliases (placeholders themselves)
    for n in ep.graph.nodes:
        if n.op == 'placeholder':
            p = g.placeholder(n.target)
            p.meta = dict(n.meta)
            env[n] = p
            root_of[n] = n
        elif n.op == 'output':
            out_node = n
        else:
            target = n.target
            decomp = table.get(raw_op(target)) if n.op == 'call_function' else None
            if decomp is not None:
                res = _inline(g, decomp, n.args, n.kwargs, env, n.meta)
                if res is not None:
                    env[n] = res
                    continue
                target = decomp       # not a single tensor: the node calls it
            fn = _out_of_place(target) if n.op == 'call_function' else None
            base = n.args[0] if n.args and hasattr(n.args[0], 'op') else None
            if fn is not None and base is not None and not _is_view(base):
                new = g.call_function(fn, tuple(_map(n.args, env)), _map(n.kwargs, env))
                new.meta = dict(n.meta)
                env[n] = new
                env[base] = new
                if base in root_of:
                    latest[root_of[base]] = new
                continue
            if n.op == 'call_function' and raw_op(target) is raw_op(F.batch_norm):
                args = list(n.args) + [None] * (8 - len(n.args))
                names = ['input', 'running_mean', 'running_var', 'weight', 'bias',
                         'training', 'momentum', 'eps']
                defaults = [None, None, None, None, None, False, 0.1, 1e-05]
                vals = [n.kwargs.get(k, a if i < len(n.args) else d)
                        for i, (k, a, d) in enumerate(zip(names, args, defaults))]
                rm, rv = vals[1], vals[2]
                if vals[5] and (hasattr(rm, 'op') or hasattr(rv, 'op')):
                    new = g.call_function(batch_norm_functional, tuple(_map(vals, env)))
                    new.meta = dict(n.meta)
                    out = g.call_function(operator.getitem, (new, 0))
                    out.meta = dict(n.meta)
                    env[n] = out
                    for k, stat in ((1, rm), (2, rv)):
                        if hasattr(stat, 'op'):
                            s = g.call_function(operator.getitem, (new, k))
                            s.meta['val'] = stat.meta.get('val')
                            s.meta['stack_trace'] = n.meta.get('stack_trace')
                            env[stat] = s
                            if stat in root_of:
                                latest[root_of[stat]] = s
                    continue
            new = g.node_copy(n, lambda a: env[a])
            if target is not n.target:
                new.target = target
            env[n] = new
    specs = {s.arg.name: s for s in sig.input_specs}
    outputs, out_specs = [], []
    for ph in [n for n in ep.graph.nodes if n.op == 'placeholder']:
        if ph not in latest:
            continue
        s = specs[ph.target]
        kind = {InputKind.BUFFER: OutputKind.BUFFER_MUTATION,
                InputKind.PARAMETER: OutputKind.PARAMETER_MUTATION,
                InputKind.USER_INPUT: OutputKind.USER_INPUT_MUTATION}.get(s.kind)
        if kind is None:
            continue
        node = latest[ph]
        outputs.append(node)
        out_specs.append(OutputSpec(kind, TensorArgument(node.name),
                                    s.target if s.target is not None else ph.target))
    for o, s in zip(out_node.args[0], sig.output_specs):
        o2 = env[o] if hasattr(o, 'op') else o
        outputs.append(o2)
        s2 = copy.deepcopy(s)
        if hasattr(o2, 'op') and hasattr(s2.arg, 'name'):
            s2.arg.name = o2.name
        out_specs.append(s2)
    g.output(tuple(outputs))
    for n in g.nodes:
        if 'val' not in n.meta:
            n.meta['val'] = None
    new_sig = ExportGraphSignature(copy.deepcopy(sig.input_specs), out_specs)
    res = ExportedProgram({}, g, new_sig, ep.state_dict, ep.range_constraints,
                          copy.deepcopy(ep.module_call_graph), ep.example_inputs,
                          ep.constants, _symbolic=ep._symbolic, _guards=ep._guards)
    res._training = getattr(ep, '_training', True)
    return res


def _map(obj, env):
    if hasattr(obj, 'op'):
        return env[obj]
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(o, env) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(v, env) for k, v in obj.items()}
    if isinstance(obj, slice):
        return slice(_map(obj.start, env), _map(obj.stop, env), _map(obj.step, env))
    return obj
