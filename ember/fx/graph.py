"""``Graph``: the list of :class:`Node` s of an FX program, and its Python code."""
import builtins
import inspect
import contextlib
import keyword
import re

from .node import Node, map_arg, _qualified_name, _format_arg

__all__ = ['Graph', 'PythonCode', 'CodeGen']

_reflectable = {'add': '{} + {}', 'sub': '{} - {}', 'mul': '{} * {}', 'floordiv': '{} // {}',
                'truediv': '{} / {}', 'div': '{} / {}', 'mod': '{} % {}', 'pow': '{} ** {}',
                'lshift': '{} << {}', 'rshift': '{} >> {}', 'and_': '{} & {}',
                'or_': '{} | {}', 'xor': '{} ^ {}', 'getitem': '{}[{}]', 'matmul': '{} @ {}'}
magic_methods = {'eq': '{} == {}', 'ne': '{} != {}', 'lt': '{} < {}', 'gt': '{} > {}',
                 'le': '{} <= {}', 'ge': '{} >= {}', 'pos': '+{}', 'neg': '-{}',
                 'invert': '~{}', **_reflectable}
reflectable_magic_methods = {k: v for k, v in _reflectable.items() if k != 'getitem'}

_snake = re.compile(r'(?<=[a-z])([A-Z])')
_illegal_char = re.compile('[^0-9a-zA-Z_]+')
_suffix = re.compile(r'(.*)_(\d+)$')


def _snake_case(s):
    return _snake.sub(r'_\1', s).lower()


class _Namespace:
    def __init__(self):
        self._obj_to_name = {}
        self._used = set()
        self._base_count = {}

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = _illegal_char.sub('_', candidate) or '_unnamed'
        if candidate[0].isdigit():
            candidate = f'_{candidate}'
        m = _suffix.match(candidate)
        if m is None:
            base, num = candidate, None
        else:
            base, num = m.group(1), int(m.group(2))
            candidate = f'{base}_{num}'
        if not num:
            num = self._base_count.get(base, 0)
        while candidate in self._used or self._illegal(candidate, obj):
            num += 1
            candidate = f'{base}_{num}'
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[obj] = name

    def _illegal(self, name, obj):
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        if name in ('inf', 'nan', 'NoneType', 'torch', 'ember', 'device', 'fx_pytree',
                    'pytree'):
            return True
        return False


class PythonCode:
    """The Python source of a graph (``src``) and the globals it needs, as
    :meth:`Graph.python_code` returns them.

    Args:
        src (str): the source of the ``forward`` function.
        globals (dict): the names the source refers to (``torch`` is bound to ember).

    Example::

        >>> class AddOne(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x + 1
        >>> code = ember.fx.symbolic_trace(AddOne()).graph.python_code('self')
        >>> print(code.src.strip())
        def forward(self, x):
            add = x + 1;  x = None
            return add
        >>> code.globals['torch'] is ember
        True
    """

    def __init__(self, src, globals, _lineno_map=None):
        self.src = src
        self.globals = globals
        self._lineno_map = _lineno_map


def _is_ember_obj(obj):
    m = getattr(obj, '__module__', None) or ''
    return m == 'ember' or m.startswith('ember.')


class CodeGen:
    """Turns a :class:`Graph` into Python source (subclass to customize, and install
    with :meth:`Graph.set_codegen`).

    NOTE: unlike PyTorch, the generated code calls ember through the global name
    ``torch`` (bound to the ``ember`` module), so its text equals PyTorch's.

    Example::

        >>> class TupleOut(ember.fx.CodeGen):
        ...     def generate_output(self, output_args):
        ...         return f'return ({output_args!r},)'
        >>> class AddOne(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x + 1
        >>> gm = ember.fx.symbolic_trace(AddOne())
        >>> gm.graph.set_codegen(TupleOut())
        >>> _ = gm.recompile()
        >>> gm(ember.ones(1))
        (tensor([2.]),)
    """

    def __init__(self):
        self._body_transformer = None

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        """The ``def forward(...)`` line."""
        if len(free_vars) == 0 or free_vars[0] != 'self':
            free_vars.insert(0, 'self')
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args):
        """The ``return`` statement."""
        return f'return {repr(output_args)}'

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def additional_globals(self):
        return []

    def _gen_python_code(self, nodes, root_module, namespace, *, verbose=False):
        import ember
        globals_ = {'torch': ember, 'inf': float('inf'), 'nan': float('nan'),
                    'NoneType': type(None), 'device': ember.device}
        free_vars = []
        body = []
        wrapped_fns = {}

        def add_global(name_hint, obj):
            if _is_ember_obj(obj) and '.' in name_hint:
                return name_hint
            if getattr(builtins, name_hint, None) is obj:
                return name_hint
            if name_hint in globals_ and globals_[name_hint] is obj:
                return name_hint
            name = namespace.create_name(name_hint, obj)
            globals_[name] = obj
            return name

        def type_repr(o):
            return add_global(getattr(o, '__name__', str(o)), o)

        def _get_repr(arg):
            if isinstance(arg, Node):
                return repr(arg)
            if isinstance(arg, tuple) and hasattr(arg, '_fields'):
                qn = type_repr(type(arg))
                return f"{qn}({', '.join(_get_repr(a) for a in arg)})"
            if isinstance(arg, tuple):
                inner = ', '.join(_get_repr(a) for a in arg)
                return f'({inner},)' if len(arg) == 1 else f'({inner})'
            if isinstance(arg, list):
                return '[' + ', '.join(_get_repr(a) for a in arg) + ']'
            if isinstance(arg, dict):
                return '{' + ', '.join(f'{_get_repr(k)}: {_get_repr(v)}'
                                       for k, v in arg.items()) + '}'
            if isinstance(arg, slice):
                return f'slice({_get_repr(arg.start)}, {_get_repr(arg.stop)}, {_get_repr(arg.step)})'
            if isinstance(arg, type):
                return type_repr(arg)
            if isinstance(arg, ember.device):
                return f"device(type='{arg.type}')" if arg.index is None else \
                    f"device(type='{arg.type}', index={arg.index})"
            if isinstance(arg, ember.dtype):
                return repr(arg)
            if callable(arg) and hasattr(arg, '__name__') and not isinstance(arg, (int, float)):
                return add_global(_qualified_name(arg) if _is_ember_obj(arg) else arg.__name__, arg)
            return repr(arg)

        def fmt_args(args, kwargs):
            parts = [_get_repr(a) for a in args] + [f'{k} = {_get_repr(v)}'
                                                     for k, v in kwargs.items()]
            return ', '.join(parts)

        node_to_last_use = {}
        user_to_last_uses = {}
        for node in reversed(nodes):
            def reg(n, user=node):
                if n not in node_to_last_use:
                    node_to_last_use[n] = user
                    user_to_last_uses.setdefault(user, []).append(n)
            map_arg(node.args, reg)
            map_arg(node.kwargs, reg)

        def delete_unused(user):
            if user.op == 'placeholder':
                return
            if user.op == 'output':
                body.append('\n')
                return
            to_delete = list(user_to_last_uses.get(user, []))
            if len(user.users) == 0:
                to_delete.append(user)
            if to_delete:
                body.append(f";  {' = '.join(repr(n) for n in to_delete)} = None\n")
            else:
                body.append('\n')

        def fmt_target(base, target):
            r = base
            for e in target.split('.'):
                r = f'{r}.{e}' if e.isidentifier() else f'getattr({r}, "{e}")'
            return r

        maybe_ret = ['']
        for node in nodes:
            if node.op == 'placeholder':
                t = node.target
                free_vars.append(f'{t} = {_get_repr(node.args[0])}' if node.args else t)
                raw = t.replace('*', '')
                if raw != repr(node):
                    body.append(f'{repr(node)} = {raw}\n')
                continue
            if node.op == 'call_method':
                body.append(f'{repr(node)} = {_get_repr(node.args[0])}.{node.target}('
                            f'{fmt_args(node.args[1:], node.kwargs)})')
            elif node.op == 'call_function':
                t = node.target
                mod = getattr(t, '__module__', '')
                name = getattr(t, '__name__', '')
                if mod == '_operator' and name in magic_methods and not node.kwargs:
                    body.append(f'{repr(node)} = ' + magic_methods[name].format(
                        *(_get_repr(a) for a in node.args)))
                elif t is getattr and len(node.args) == 2 and isinstance(node.args[1], str) \
                        and node.args[1].isidentifier():
                    body.append(f'{repr(node)} = {_get_repr(node.args[0])}.{node.args[1]}')
                else:
                    if _is_ember_obj(t):
                        hint = _qualified_name(t)
                    else:
                        hint = f"{getattr(t, '__module__', None) or ''}.{getattr(t, '__qualname__', name)}"
                    gname = add_global(hint, t)
                    from ._symbolic_trace import _wrapped_targets
                    if id(t) in _wrapped_targets:
                        wrapped_fns.setdefault(gname)
                    body.append(f'{repr(node)} = {gname}({fmt_args(node.args, node.kwargs)})')
            elif node.op == 'call_module':
                body.append(f'{repr(node)} = {fmt_target("self", node.target)}('
                            f'{fmt_args(node.args, node.kwargs)})')
            elif node.op == 'get_attr':
                body.append(f'{repr(node)} = {fmt_target("self", node.target)}')
            elif node.op == 'output':
                body.append(self.generate_output(node.args[0]))
            delete_unused(node)

        if len(body) == 0:
            body.append('pass\n')
        wrap_stmts = '\n'.join(f'torch.fx._symbolic_trace.wrap("{n}")' for n in wrapped_fns)
        prologue = self.gen_fn_def(free_vars, maybe_ret[0])
        code = ''.join(body).lstrip('\n')
        code = '\n'.join('    ' + line for line in code.split('\n'))
        fn_code = f'\n{wrap_stmts}\n\n{prologue}\n{code}'
        return PythonCode(fn_code, globals_)


class _NodeList:
    def __init__(self, graph, direction='_next'):
        self._graph = graph
        self._dir = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = getattr(root, self._dir)
        while cur is not root:
            nxt = getattr(cur, self._dir)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self._graph, '_prev' if self._dir == '_next' else '_next'))


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, *a):
        self.graph._insert = self.orig


class Graph:
    """The intermediate representation of FX: a doubly linked list of :class:`Node` s
    (``graph.nodes``) in execution order, turned into Python code by
    :meth:`python_code`.

    Example::

        >>> g = ember.fx.Graph()
        >>> x = g.placeholder('x')
        >>> r = g.call_function(ember.relu, (x,))
        >>> _ = g.output(r)
        >>> print(g)
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, '', 'root', '', (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()
        self._co_fields = {}

    @property
    def owning_module(self):
        """The GraphModule that owns this graph (or None)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        """The nodes of the graph, in order (iterable, reversible, ``len()``)."""
        return _NodeList(self)

    def _order(self, node):
        for i, n in enumerate(self.nodes):
            if n is node:
                return i
        return -1

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes whose ``op`` (and ``target``, when given) match.

        Example::

            >>> g.find_nodes(op='placeholder')
        """
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ----------------------------------------------------------- creation
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Create a node and insert it at the current insert point.

        Args:
            op (str): the opcode (``call_function``, ``call_method``, ...).
            target: the callable or name the node calls/reads.
            args (tuple), kwargs (dict): its arguments (may contain Nodes).
            name (str): the name hint (made unique).
            type_expr: an optional type annotation.
        """
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError('args must be a tuple')
        if not isinstance(kwargs, dict):
            raise AssertionError('kwargs must be a dict')
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def _target_to_str(self, target):
        if callable(target):
            op = target.__name__
        else:
            op = target
            if op.startswith('__') and op.endswith('__'):
                op = op[2:-2]
        return _snake_case(op)

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """Insert a ``placeholder`` (a function input) named ``name``; with a
        ``default_value`` the generated signature has that default."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node('placeholder', name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Insert a ``get_attr`` node reading ``qualified_name`` from the owning module."""
        return self.create_node('get_attr', qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        """Insert a ``call_module`` node calling submodule ``module_name``."""
        return self.create_node('call_module', module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        """Insert a ``call_method`` node calling ``args[0].method_name(*args[1:])``."""
        return self.create_node('call_method', method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        """Insert a ``call_function`` node calling ``the_function``."""
        return self.create_node('call_function', the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        """Insert the ``output`` node returning ``result``."""
        return self.create_node('output', 'output', (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copy ``node`` (of another graph) into this one, mapping its Node arguments
        through ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy every node of ``g`` (but its output) into this graph; ``val_map`` maps
        g's nodes to the copies (filled in). Returns the value g's output refers to."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == 'output':
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return rv if not return_output_node else (rv, node)
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = self._codegen
        if output_vals is not None:
            ov, old_out = output_vals
            new_out = g.output(ov, type_expr=old_out.type)
            new_out.meta = dict(old_out.meta)
        return g

    # ----------------------------------------------------------- insert points
    def inserting_before(self, n=None):
        """Context manager: new nodes go before ``n`` (the start of the graph when
        None)."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """Context manager: new nodes go after ``n`` (the start of the graph when
        None)."""
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    # ----------------------------------------------------------- removal
    def erase_node(self, to_erase):
        """Remove ``to_erase`` (which must have no users) from the graph."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f'Tried to erase Node {to_erase} but it still had '
                               f'{len(to_erase.users)} users in the graph: {to_erase.users}!')
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase.args = ()
        to_erase.kwargs = {}

    def eliminate_dead_code(self, is_impure_node=None):
        """Remove the nodes whose value is unused and that have no side effect. Returns
        True if the graph changed."""
        changed = False
        for node in reversed(list(self.nodes)):
            impure = is_impure_node(node) if is_impure_node else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    # ----------------------------------------------------------- checks, printing
    def lint(self):
        """Check the graph's invariants (each node's arguments defined before it and in
        this graph, unique names, one output at the end); raise RuntimeError if broken."""
        seen = set()
        names = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f'Node {node} does not belong to this Graph!')
            if node.op not in ('placeholder', 'call_method', 'call_module', 'call_function',
                               'get_attr', 'output'):
                raise RuntimeError(f'Node {node} had unknown opcode {node.op}!')
            for a in node._input_nodes:
                if a.graph is not self:
                    raise RuntimeError(f'Argument {a} of Node {node} does not belong to this Graph!')
                if a not in seen:
                    raise RuntimeError(f'Argument {a} of Node {node} was used before it has been defined! Please check that Nodes in the graph are topologically ordered\n{self}')
            if node.name in names:
                raise RuntimeError(f'Node redefined name {node.name}!')
            names.add(node.name)
            seen.add(node)
        if self.owning_module is not None:
            for node in self.nodes:
                if node.op in ('get_attr', 'call_module'):
                    obj = self.owning_module
                    for i, atom in enumerate(node.target.split('.')):
                        if not hasattr(obj, atom):
                            seen_qualname = '.'.join(node.target.split('.')[:i])
                            raise RuntimeError(f'Node {node} target {node.target} references nonexistent attribute {atom} of {seen_qualname}')
                        obj = getattr(obj, atom)

    def __str__(self):
        placeholder_names = []
        ret = [None]
        lines = [n.format_node(None, ret) for n in self.nodes]
        s = 'graph()' + (ret[0] or '') + ':'
        for line in lines:
            if line:
                s += '\n    ' + line
        return s

    def print_tabular(self):
        """Print the nodes as a table (opcode, name, target, args, kwargs).

        NOTE: unlike PyTorch, this does not need the ``tabulate`` package; the columns
        are aligned the same way."""
        rows = [[n.op, n.name, str(n._pretty_print_target(n.target)), str(n.args),
                 str(n.kwargs)] for n in self.nodes]
        head = ['opcode', 'name', 'target', 'args', 'kwargs']
        w = [max([len(head[i])] + [len(r[i]) for r in rows]) for i in range(5)]
        out = ['  '.join(h.ljust(w[i]) for i, h in enumerate(head)).rstrip(),
               '  '.join('-' * w[i] for i in range(5))]
        for r in rows:
            out.append('  '.join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
        print('\n'.join(out))

    def python_code(self, root_module, *, verbose=False, include_stride=False,
                    include_device=False, colored=False):
        """The :class:`PythonCode` (source and globals) of this graph, a function of
        ``root_module`` (usually ``'self'``)."""
        namespace = _Namespace()
        for n in self.nodes:
            namespace.create_name(n.name, n)
            namespace.associate_name_with_obj(n.name, n)
        return self._codegen._gen_python_code(list(self.nodes), root_module, namespace,
                                              verbose=verbose)

    def set_codegen(self, codegen):
        self._codegen = codegen

    def on_generate_code(self, make_transformer):
        return contextlib.nullcontext()


class _NoDefaultT:
    def __repr__(self):
        return 'inspect.Parameter.empty'


_NoDefault = _NoDefaultT()
