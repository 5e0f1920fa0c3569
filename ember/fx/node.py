"""``Node``: one operation of an FX :class:`~ember.fx.Graph`."""
import builtins
import operator
import types

from .immutable_collections import immutable_dict, immutable_list

__all__ = ['Node', 'map_arg', 'map_aggregate', 'has_side_effect']

_side_effectful_functions = set()


def has_side_effect(fn):
    """Mark ``fn`` as having a side effect, so :meth:`Graph.eliminate_dead_code` keeps
    its calls even when their result is unused. Returns ``fn`` (usable as a decorator).

    Example::

        >>> @ember.fx.has_side_effect
        ... def log(x): print(x)
    """
    _side_effectful_functions.add(fn)
    return fn


def _is_namedtuple(a):
    return isinstance(a, tuple) and hasattr(a, '_fields')


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of ``a``, looking into tuples, lists, dicts and
    slices; lists become ``immutable_list`` and dicts ``immutable_dict``.

    Example::

        >>> map_aggregate((1, [2, 3]), lambda x: x * 10)
        (10, [20, 30])
    """
    t = type(a)
    if t is tuple or (isinstance(a, tuple) and not _is_namedtuple(a)):
        return tuple(map_aggregate(e, fn) for e in a)
    if _is_namedtuple(a):
        return t(*(map_aggregate(e, fn) for e in a))
    if isinstance(a, list):
        return immutable_list(map_aggregate(e, fn) for e in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every :class:`Node` inside the argument structure ``a``.

    Example::

        >>> map_arg(node.args, lambda n: n.name)
    """
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(func):
    """``module.name`` of a callable as FX prints it (ember's namespaces print as
    ``torch``, the name the generated code binds ember to)."""
    if getattr(builtins, getattr(func, '__name__', ''), None) is func:
        return f'builtins.{func.__name__}'
    if isinstance(func, (types.MethodDescriptorType, types.WrapperDescriptorType)) and \
            func is getattr(getattr(func, '__objclass__', None), func.__name__, None):
        return f'{func.__objclass__.__module__}.{func.__objclass__.__qualname__}.{func.__name__}'
    if type(func).__name__ in ('OpOverloadPacket', 'OpOverload') and \
            isinstance(getattr(func, '_qualname', None), str):     # ember.ops.<ns>.<op>
        ns, _, op = func._qualname.partition('::')
        suffix = '' if type(func).__name__ == 'OpOverloadPacket' else '.default'
        return f'torch.ops.{ns}.{op}{suffix}'
    name = getattr(func, '__qualname__', None) or func.__name__
    module = getattr(func, '__module__', None) or ''
    if module == '_operator':
        module = 'operator'
    if module.startswith('ember._') and '.' not in name:     # a private home of a public
        import ember                                            # function: its public name
        if ember.__dict__.get(name) is func:
            module = 'ember'
    if module == 'ember' or module.startswith('ember.'):
        module = 'torch' + module[5:]
        if module == 'torch.nn.functional' or module.startswith('torch._ops'):
            pass
    if not module:
        return name
    return f'{module}.{name}'


def _format_arg(arg, max_list_len=float('inf')):
    if hasattr(arg, '_custom_fx_repr_fn'):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, list):
        items = ', '.join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = '' if len(arg) < max_list_len + 1 else f', ...[total_len={len(arg)}]'
        return f'[{items}{maybe_len}]'
    if isinstance(arg, tuple):
        items = ', '.join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = '' if len(arg) < max_list_len + 1 else f', ...[total_len={len(arg)}]'
        maybe_comma = ',' if len(arg) == 1 else ''
        return f'({items}{maybe_comma}{maybe_len})'
    if isinstance(arg, dict):
        items = ', '.join(f'{k}: {_format_arg(v)}' for k, v in arg.items())
        return f'{{{items}}}'
    if isinstance(arg, Node):
        return '%' + str(arg)
    return str(arg)


class Node:
    """One operation of a :class:`Graph`.

    ``op`` is one of ``placeholder`` (a function input; ``target`` is its name),
    ``get_attr`` (fetch a parameter/buffer/submodule; ``target`` is its qualified name),
    ``call_function`` (``target`` is the callable), ``call_module`` (``target`` is the
    submodule's qualified name), ``call_method`` (``target`` is the method name, called on
    ``args[0]``) and ``output`` (``args[0]`` is the value returned).

    Nodes are created by the graph (:meth:`Graph.create_node` and friends), not directly.

    Example::

        >>> gm = ember.fx.symbolic_trace(model)
        >>> [n.op for n in gm.graph.nodes]
    """

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        self.graph = graph
        self.name = name
        if op not in ('placeholder', 'call_method', 'call_module', 'call_function',
                      'get_attr', 'output', 'root'):
            raise AssertionError(f'Unexpected op {op}')
        if op == 'call_function' and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target).__name__} but a Callable is expected")
        if op in ('call_method', 'call_module', 'get_attr', 'placeholder') and \
                not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target).__name__} but a str is expected")
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self._repr_fn = None
        self.meta = {}
        self._args = ()
        self._kwargs = {}
        self.__update_args_kwargs(args, kwargs)

    # ----------------------------------------------------------- list links
    @property
    def next(self):
        """The next node of the graph's node list."""
        return self._next

    @property
    def prev(self):
        """The previous node of the graph's node list."""
        return self._prev

    def prepend(self, x):
        """Insert node ``x`` before this node in the graph's node list.

        Example::

            >>> node.prepend(other)
        """
        if self is x:
            return   # prepending a node to itself leaves the graph as it is
        if self.graph is not x.graph:
            raise AssertionError('Attempting to move a Node into a different Graph')
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Insert node ``x`` after this node in the graph's node list.

        Example::

            >>> node.append(other)
        """
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    def __gt__(self, other):
        return self.graph._order(self) > self.graph._order(other)

    def __lt__(self, other):
        return self.graph._order(self) < self.graph._order(other)

    # ----------------------------------------------------------- arguments
    @property
    def args(self):
        """The positional arguments (a tuple; assigning updates the use lists)."""
        return self._args

    @args.setter
    def args(self, a):
        self.__update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        """The keyword arguments (a dict; assigning updates the use lists)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self.__update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        """The distinct Nodes among ``args`` and ``kwargs``, in order of appearance."""
        return list(self._input_nodes.keys())

    def update_arg(self, idx, arg):
        """Set ``args[idx]`` to ``arg``."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        """Insert ``arg`` at position ``idx`` of ``args``."""
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key, arg):
        """Set ``kwargs[key]`` to ``arg``."""
        self.kwargs = {**self.kwargs, key: arg}

    def __update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}

        def collect(n):
            if n.graph is not self.graph and self.graph is not None:
                pass
            self._input_nodes.setdefault(n)
            return n
        self._args = map_arg(tuple(new_args) if not isinstance(new_args, tuple)
                             else new_args, collect)
        self._kwargs = map_arg(dict(new_kwargs), collect)
        for n in self._input_nodes:
            n.users.setdefault(self)

    # ----------------------------------------------------------- printing
    def __repr__(self):
        if self._repr_fn:
            return self._repr_fn(self)
        return self.name

    def _pretty_print_target(self, target):
        if isinstance(target, str):
            return target
        if hasattr(target, '__module__'):
            name = getattr(target, '__name__', None)
            if name is None:
                return _qualified_name(target)
            if target.__module__ == 'builtins':
                return f'builtins.{name}'
            if target.__module__ == '_operator':
                return f'operator.{name}'
        return _qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """A human-readable description of this node (as :meth:`Graph.__str__` prints
        it), or None for a placeholder when ``placeholder_names`` is given (the name is
        appended to that list instead)."""
        if self.op == 'placeholder':
            if not isinstance(self.target, str):
                raise AssertionError
            arg_str = self.target
            arg_str += arg_str + f': {self.type}' if self.type else ''
            if placeholder_names is not None:
                placeholder_names.append(arg_str)
                return None
            default_val = '(default=' + str(self.args[0]) + ')' if self.args else ''
            return f'%{self.name} : [num_users={len(self.users)}] = {self.op}[target={self.target}]{default_val}'
        if self.op == 'get_attr':
            return f'%{self.name} : [num_users={len(self.users)}] = {self.op}[target={self._pretty_print_target(self.target)}]'
        if self.op == 'output':
            if self.type and maybe_return_typename is not None:
                maybe_return_typename[0] = f' -> {self.type}'
            return f'return {self.args[0]}'
        return (f'%{self.name} : [num_users={len(self.users)}] = '
                f'{self.op}[target={self._pretty_print_target(self.target)}]('
                f'args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})')

    # ----------------------------------------------------------- rewriting
    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node use ``replace_with`` instead. Returns the list
        of users changed.

        Args:
            replace_with (Node): the node to use instead of this one.
            delete_user_cb (Callable): users for which it returns False keep this node.
            propagate_meta (bool): copy this node's ``meta`` into ``replace_with``'s.

        Example::

            >>> node.replace_all_uses_with(new_node)
        """
        if propagate_meta:
            if len(replace_with.meta) != 0:
                raise AssertionError('Called node.replace_all_uses_with(replace_with, '
                                     'propagate_meta=True), but replace_with already has '
                                     'some metadata.')
            for k, v in self.meta.items():
                replace_with.meta[k] = v
        to_process = list(self.users)
        skipped = []
        for use_node in to_process:
            if not delete_user_cb(use_node):
                skipped.append(use_node)
                continue
            use_node._replace_input(self, replace_with)
        return [n for n in to_process if n not in skipped]

    def _replace_input(self, old, new):
        def maybe(n):
            return new if n is old else n
        self.__update_args_kwargs(map_arg(self._args, maybe), map_arg(self._kwargs, maybe))

    def replace_input_with(self, old_input, new_input):
        """Replace every use of ``old_input`` among this node's arguments by
        ``new_input``.

        Example::

            >>> node.replace_input_with(a, b)
        """
        self._replace_input(old_input, new_input)

    def is_impure(self, impure_random=True):
        """True if this node has side effects (placeholder, output, in-place methods of
        modules with side effects, functions marked by :func:`has_side_effect`), so dead
        code elimination must keep it."""
        if self.op in ('placeholder', 'output'):
            return True
        if self.op == 'call_function':
            return self.target in _side_effectful_functions
        if self.op == 'call_module':
            mod = self.graph.owning_module
            if mod is not None:
                try:
                    sub = mod.get_submodule(self.target)
                except AttributeError:
                    return False
                return getattr(sub, '_is_impure', False)
        return False

    def normalized_arguments(self, root, arg_types=None, kwarg_types=None,
                             normalize_to_only_use_kwargs=False):
        """NOTE: unlike PyTorch, argument normalization is not implemented: returns
        None (PyTorch also returns None when it cannot normalize)."""
        return None

    @property
    def stack_trace(self):
        """The stack trace recorded for this node (``meta['stack_trace']``), if any."""
        return self.meta.get('stack_trace', None)

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta['stack_trace'] = trace


Node.__module__ = 'ember.fx.node'
for _f in (map_arg, map_aggregate, has_side_effect):
    _f.__module__ = 'ember.fx.node'
