"""Pytrees: nested containers flattened into a list of leaves and a structure, and back.

A *pytree* is a value built from registered container types (tuple, list, dict,
OrderedDict, defaultdict, deque, namedtuples, ``ember.Size`` and the
``ember.return_types`` result tuples, plus anything registered with
:func:`register_pytree_node`); every other value, ``None`` included, is a *leaf*.
:func:`tree_flatten` turns a pytree into its leaves (depth first, left to right) and a
:class:`TreeSpec` describing the containers; :func:`tree_unflatten` rebuilds it.

This is the counterpart of ``torch.utils._pytree`` (private in torch, but used by many
libraries), and the one pytree implementation of ember: ``ember.func`` (``vmap``, ``grad``,
``jacrev``, ...) flattens its arguments and results with it.

Example::

    >>> from ember.utils import _pytree as pytree
    >>> leaves, spec = pytree.tree_flatten({'a': 1, 'b': (2, [3])})
    >>> leaves
    [1, 2, 3]
    >>> spec
    TreeSpec(dict, ['a', 'b'], [*,
      TreeSpec(tuple, None, [*,
        TreeSpec(list, None, [*])])])
    >>> pytree.tree_unflatten([10, 20, 30], spec)
    {'a': 10, 'b': (20, [30])}
"""
import dataclasses
import enum
import functools
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, NamedTuple

__all__ = [
    'PyTree', 'Context', 'FlattenFunc', 'UnflattenFunc', 'DumpableContext',
    'ToDumpableContextFn', 'FromDumpableContextFn', 'PyTreeSpec', 'TreeSpec', 'LeafSpec',
    'keystr', 'key_get', 'register_pytree_node', 'tree_is_leaf', 'tree_flatten',
    'tree_flatten_with_path', 'tree_unflatten', 'tree_iter', 'tree_leaves',
    'tree_leaves_with_path', 'tree_structure', 'tree_map', 'tree_map_with_path', 'tree_map_',
    'tree_map_only', 'tree_map_only_', 'tree_all', 'tree_any', 'tree_all_only',
    'tree_any_only', 'treespec_dumps', 'treespec_loads', 'treespec_pprint', 'treespec_leaf',
    'treespec_tuple', 'treespec_dict', 'is_namedtuple', 'is_namedtuple_class',
    'is_namedtuple_instance', 'is_structseq', 'is_structseq_class', 'is_structseq_instance',
    'SequenceKey', 'MappingKey', 'GetAttrKey', 'KeyEntry', 'KeyPath', 'map_only',
    'arg_tree_leaves', 'register_dataclass', 'register_constant', 'is_constant_class',
    'ConstantNode', 'SUPPORTED_NODES', 'FlattenFn', 'UnflattenFn',
]

# Type aliases, for annotations (as torch names them).
PyTree = Any
Context = Any
DumpableContext = Any
FlattenFunc = FlattenFn = Any
UnflattenFunc = UnflattenFn = Any
FlattenWithKeysFunc = FlattenWithKeysFn = Any
ToDumpableContextFn = Any
FromDumpableContextFn = Any
KeyPath = tuple
KeyEntry = Any

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
NO_SERIALIZED_TYPE_NAME_FOUND = 'NO_SERIALIZED_TYPE_NAME_FOUND'


class NodeDef(NamedTuple):
    """How a registered container type is taken apart and put back together.

    Args:
        type (type): the container type.
        flatten_fn (callable): ``node -> (children, context)``.
        unflatten_fn (callable): ``(children, context) -> node``.
        flatten_with_keys_fn (callable or None): ``node -> ([(key, child), ...], context)``.

    Example::

        >>> SUPPORTED_NODES[list].flatten_fn([1, 2])
        ([1, 2], None)
    """
    type: Any
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any = None


class _SerializeNodeDef(NamedTuple):
    type: Any
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


_NODE_REGISTRY_LOCK = threading.RLock()
#: The registered container types: ``{type: NodeDef}``. Every namedtuple class is a node
#: through the single key ``collections.namedtuple``.
SUPPORTED_NODES = {}
SUPPORTED_SERIALIZED_TYPES = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE = {}


# ---------------------------------------------------------------------------------------------
# registration

def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make the container type ``cls`` a pytree node, so that the tree functions look inside
    its instances instead of treating them as leaves.

    Args:
        cls (type): the container type (instances of subclasses are not covered).
        flatten_fn (callable): ``flatten_fn(node) -> (children, context)``: the children (a
            list) and any hashable, comparable data needed to rebuild the node.
        unflatten_fn (callable): ``unflatten_fn(children, context) -> node``.
        serialized_type_name (str, optional): the name written by :func:`treespec_dumps`.
        to_dumpable_context (callable, optional): turns a context into something JSON can
            write; must come together with ``from_dumpable_context``.
        from_dumpable_context (callable, optional): the inverse of ``to_dumpable_context``.
        flatten_with_keys_fn (callable, optional): like ``flatten_fn`` but returns
            ``([(key, child), ...], context)``; needed by :func:`tree_flatten_with_path`.

    Raises:
        ValueError: if ``cls`` is registered already, or only one of the context converters
            is given.

    Example::

        >>> class Pair:
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        >>> register_pytree_node(Pair, lambda p: ([p.a, p.b], None),
        ...                      lambda children, ctx: Pair(*children))
        >>> tree_leaves([Pair(1, 2), 3])
        [1, 2, 3]
    """
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None,
                          maybe_from_str_fn=None, *, serialized_type_name=None,
                          to_dumpable_context=None, from_dumpable_context=None,
                          flatten_with_keys_fn=None):
    """Deprecated spelling of :func:`register_pytree_node` (re-registering only warns).

    Example::

        >>> import warnings
        >>> class Box:
        ...     def __init__(self, v):
        ...         self.v = v
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     _register_pytree_node(Box, lambda b: ([b.v], None), lambda c, _: Box(*c))
    """
    warnings.warn("`ember.utils._pytree._register_pytree_node` is deprecated. Please use "
                  "`ember.utils._pytree.register_pytree_node` instead.", FutureWarning,
                  stacklevel=2)
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None):
    # Registration that overwrites an existing entry (with a warning).
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         "be None or registered.")
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. Overwriting the "
                          "previous registration.", stacklevel=3)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None \
            else serialized_type_name
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _deregister_pytree_node(cls):
    # Undo a registration (used by tests and by code that registers temporarily).
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        ser = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        if SERIALIZED_TYPE_TO_PYTHON_TYPE.get(ser.serialized_type_name) is cls:
            del SERIALIZED_TYPE_TO_PYTHON_TYPE[ser.serialized_type_name]
        CONSTANT_NODES.discard(cls)


def register_dataclass(cls, *, field_names=None, drop_field_names=None,
                       serialized_type_name=None):
    """Register a dataclass (or a class built like one) as a pytree node whose children are
    its fields.

    Args:
        cls (type): the class; its constructor must accept the fields as keywords.
        field_names (list of str, optional): the fields that are children; default: every
            ``init`` field of the dataclass. Fields holding ``None`` are kept in the context
            instead of being leaves.
        drop_field_names (list of str, optional): ``init`` fields deliberately missing from
            ``field_names`` (checked when ``field_names`` is given).
        serialized_type_name (str, optional): the name written by :func:`treespec_dumps`.

    Example::

        >>> import dataclasses
        >>> @dataclasses.dataclass
        ... class Point:
        ...     x: int
        ...     y: int
        >>> register_dataclass(Point)
        >>> tree_map(lambda v: v * 10, Point(1, 2))
        Point(x=10, y=20)
    """
    drop = set(drop_field_names or [])
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
    elif field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    else:
        expected = {f.name for f in dataclasses.fields(cls) if f.init} - drop
        missing, unexpected = expected - set(field_names), set(field_names) - expected
        if missing or unexpected:
            msg = "field_names does not include all dataclass fields.\n"
            if missing:
                msg += (f"Missing fields in `field_names`: {missing}. If you want to include "
                        "these fields in the pytree, please add them to `field_names`, "
                        "otherwise please add them to `drop_field_names`.\n")
            if unexpected:
                msg += (f"Unexpected fields in `field_names`: {unexpected}. Please remove "
                        "these fields, or add them to `drop_field_names`.\n")
            raise ValueError(msg)
    names = list(field_names)

    def flatten(obj):
        # fields holding None are not children: their names go into the context
        kept, nones, values = [], [], []
        for n in names:
            v = getattr(obj, n)
            if v is None:
                nones.append(n)
            else:
                kept.append(n)
                values.append(v)
        return values, [kept, nones]

    def unflatten(values, context):
        kept, nones = context
        kw = dict(zip(kept, values))
        kw.update(dict.fromkeys(nones))
        return cls(**kw)

    def flatten_with_keys(obj):
        values, (kept, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(kept, values)], kept

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


#: The types registered with :func:`register_constant`.
CONSTANT_NODES = set()


@dataclasses.dataclass(frozen=True, slots=True)
class ConstantNode:
    """The context of a constant node (see :func:`register_constant`): the value itself.

    Args:
        value: the constant.

    Example::

        >>> ConstantNode('l2').value
        'l2'
    """
    value: Any


def register_constant(cls):
    """Register ``cls`` as a pytree node without children: its instances are kept whole in
    the :class:`TreeSpec` (as a :class:`ConstantNode` context) instead of being leaves.

    Args:
        cls (type): the class; it needs its own ``__eq__`` and ``__hash__``.

    Raises:
        TypeError: if ``cls`` uses ``object``'s ``__eq__`` or has no ``__hash__``.

    Example::

        >>> import dataclasses
        >>> @dataclasses.dataclass(frozen=True)
        ... class Config:
        ...     norm: str
        >>> register_constant(Config)
        >>> leaves, spec = tree_flatten([Config('l2'), 1])
        >>> leaves, tree_unflatten([5], spec)
        ([1], [Config(norm='l2'), 5])
    """
    if cls.__eq__ is object.__eq__:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default `__eq__` "
                        "implementation.")
    if cls.__hash__ is None:
        raise TypeError("register_constant(cls) expects `cls` to have a non-default "
                        "`__hash__` implementation.")

    def flatten(x):
        return [], ConstantNode(x)

    def unflatten(values, context):
        return context.value

    with _NODE_REGISTRY_LOCK:
        _private_register_pytree_node(cls, flatten, unflatten, flatten_with_keys_fn=flatten)
        CONSTANT_NODES.add(cls)


def is_constant_class(cls):
    """True if ``cls`` was registered with :func:`register_constant`.

    Args:
        cls (type): the class.

    Example::

        >>> is_constant_class(int)
        False
    """
    return isinstance(cls, type) and cls in CONSTANT_NODES


# ---------------------------------------------------------------------------------------------
# key entries (the steps of a key path)

@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """A step into a sequence node by position; prints as ``[idx]``.

    Args:
        idx (int): the position.

    Example::

        >>> k = SequenceKey(1)
        >>> str(k), k.get(['a', 'b'])
        ('[1]', 'b')
    """
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        """The child at this position of ``sequence``."""
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    """A step into a mapping node by key; prints as ``[key]`` (the key's repr).

    Args:
        key: the key.

    Example::

        >>> k = MappingKey('w')
        >>> str(k), k.get({'w': 3})
        ("['w']", 3)
    """
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        """The value of this key in ``mapping``."""
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """A step into a node by attribute name (namedtuple fields); prints as ``.name``.

    Args:
        name (str): the attribute.

    Example::

        >>> import collections
        >>> P = collections.namedtuple('P', 'x y')
        >>> k = GetAttrKey('y')
        >>> str(k), k.get(P(1, 2))
        ('.y', 2)
    """
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        """The attribute ``name`` of ``obj``."""
        return getattr(obj, self.name)


def keystr(kp):
    """A key path written as a string, e.g. ``"['a'][0].x"``.

    Args:
        kp (tuple): a key path (as given by :func:`tree_flatten_with_path`).

    Example::

        >>> keystr((MappingKey('a'), SequenceKey(0)))
        "['a'][0]"
    """
    return ''.join(str(k) for k in kp)


def key_get(obj, kp):
    """The value found in ``obj`` by following the key path ``kp``.

    Args:
        obj: a pytree.
        kp (tuple): a key path.

    Example::

        >>> key_get({'a': [5, 6]}, (MappingKey('a'), SequenceKey(1)))
        6
    """
    for k in kp:
        obj = k.get(obj)
    return obj


# ---------------------------------------------------------------------------------------------
# namedtuple / structseq recognition

def is_namedtuple_class(cls):
    """True if ``cls`` is a class made by ``collections.namedtuple`` / ``typing.NamedTuple``
    (a tuple subclass with ``_fields``, ``_make`` and ``_asdict``).

    Args:
        cls (type): the class to test.

    Example::

        >>> import collections
        >>> is_namedtuple_class(collections.namedtuple('P', 'x y')), is_namedtuple_class(tuple)
        (True, False)
    """
    if not (isinstance(cls, type) and issubclass(cls, tuple)):
        return False
    fields = getattr(cls, '_fields', None)
    return (isinstance(fields, tuple) and all(type(f) is str for f in fields)
            and callable(getattr(cls, '_make', None))
            and callable(getattr(cls, '_asdict', None)))


def is_namedtuple(obj):
    """True if ``obj`` is a namedtuple class or an instance of one.

    Args:
        obj: a class or a value.

    Example::

        >>> import collections
        >>> P = collections.namedtuple('P', 'x')
        >>> is_namedtuple(P), is_namedtuple(P(1)), is_namedtuple((1,))
        (True, True, False)
    """
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj):
    """True if ``obj`` is an instance of a namedtuple class.

    Args:
        obj: the value to test.

    Example::

        >>> import collections
        >>> is_namedtuple_instance(collections.namedtuple('P', 'x')(1))
        True
    """
    return is_namedtuple_class(type(obj))


_Py_TPFLAGS_BASETYPE = 1 << 10


def _is_ember_structseq_class(cls):
    # ember's look-alikes of torch.return_types (see ember/return_types.py)
    return (cls.__module__ == 'ember.return_types' and cls.__bases__ == (tuple,)
            and isinstance(getattr(cls, 'n_fields', None), int))


def is_structseq_class(cls):
    """True if ``cls`` is a C "struct sequence" type (like ``time.struct_time``) or one of
    ember's ``return_types`` result tuples.

    NOTE: unlike PyTorch, where ``torch.return_types`` are C struct sequences, ember's result
    types are Python classes; they are recognised here all the same.

    Args:
        cls (type): the class to test.

    Example::

        >>> import time, ember
        >>> is_structseq_class(time.struct_time), is_structseq_class(ember.return_types.max)
        (True, True)
    """
    if not (isinstance(cls, type) and cls.__bases__ == (tuple,)):
        return False
    if _is_ember_structseq_class(cls):
        return True
    return (isinstance(getattr(cls, 'n_fields', None), int)
            and isinstance(getattr(cls, 'n_sequence_fields', None), int)
            and isinstance(getattr(cls, 'n_unnamed_fields', None), int)
            and not cls.__flags__ & _Py_TPFLAGS_BASETYPE)


def is_structseq(obj):
    """True if ``obj`` is a struct-sequence class or an instance of one (see
    :func:`is_structseq_class`).

    Args:
        obj: a class or a value.

    Example::

        >>> import sys
        >>> is_structseq(sys.float_info)
        True
    """
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj):
    """True if ``obj`` is an instance of a struct-sequence class.

    Args:
        obj: the value to test.

    Example::

        >>> import ember
        >>> is_structseq_instance(ember.tensor([1., 3.]).max(0))
        True
    """
    return is_structseq_class(type(obj))


# ---------------------------------------------------------------------------------------------
# the node lookup

def _classify(cls):
    """The registry key of instances of ``cls``, or None when they are leaves."""
    if cls in SUPPORTED_NODES:
        if cls is not tuple and issubclass(cls, tuple) and is_namedtuple_class(cls):
            return namedtuple
        return cls
    if issubclass(cls, tuple):
        if is_namedtuple_class(cls):
            return namedtuple
        if _is_ember_structseq_class(cls):    # made after this module was imported
            _register_structseq(cls)
            return cls
    return None


# type -> _classify(type), valid while the registry keeps its size (a registration or a
# removal, even one made directly on SUPPORTED_NODES, empties it)
_TYPE_CACHE = {}
_TYPE_CACHE_FOR = [-1]


def _node_type(cls):
    """The registry key of instances of ``cls``, or None when they are leaves (cached)."""
    if len(SUPPORTED_NODES) != _TYPE_CACHE_FOR[0]:
        _TYPE_CACHE.clear()
        _TYPE_CACHE_FOR[0] = len(SUPPORTED_NODES)
    try:
        return _TYPE_CACHE[cls]
    except KeyError:
        pass
    key = _classify(cls)
    if len(_TYPE_CACHE) < 4096:
        _TYPE_CACHE[cls] = key
    return key


def _get_node_type(tree):
    cls = type(tree)
    key = _node_type(cls)
    return cls if key is None else key


def tree_is_leaf(tree, is_leaf=None):
    """True if ``tree`` is a leaf: not an instance of a registered container type (or
    ``is_leaf(tree)`` is true).

    Args:
        tree: the value to test.
        is_leaf (callable, optional): extra predicate; where it returns True the value is a
            leaf whatever its type.

    Example::

        >>> tree_is_leaf(1), tree_is_leaf(None), tree_is_leaf([1])
        (True, True, False)
        >>> tree_is_leaf((1, 2), is_leaf=lambda x: isinstance(x, tuple))
        True
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(type(tree)) is None


# ---------------------------------------------------------------------------------------------
# TreeSpec

class TreeSpec:
    """The structure of a pytree: its root container's type and context (the data needed to
    rebuild it, such as a dict's keys), and one :class:`TreeSpec` per child. Leaves are
    represented by :class:`LeafSpec` (printed ``*``).

    Args:
        type (type): the root's node type (``None`` for a leaf).
        context: the root's context, as returned by its ``flatten_fn``.
        children_specs (list of TreeSpec): the children's structures.

    Attributes:
        num_leaves (int): number of leaves.
        num_nodes (int): number of nodes, leaves included.
        num_children (int): number of children of the root.

    Example::

        >>> spec = tree_structure([1, (2, 3)])
        >>> spec.num_leaves, spec.num_nodes, spec.type, spec.context
        (3, 5, <class 'list'>, None)
        >>> spec == TreeSpec(list, None, [treespec_leaf(), treespec_tuple([treespec_leaf()] * 2)])
        True
    """
    __slots__ = ('type', '_context', '_children', 'num_nodes', 'num_leaves', 'num_children')

    def __init__(self, type, context, children_specs):
        object.__setattr__(self, 'type', type)
        object.__setattr__(self, '_context', context)
        object.__setattr__(self, '_children', children_specs)
        self._count()

    def _count(self):
        if self.type is None:
            if self._context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(self._children) != 0:
                raise AssertionError("leaf node should not have children")
            nodes = leaves = 1
        else:
            nodes, leaves = 1, 0
            for c in self._children:
                nodes += c.num_nodes
                leaves += c.num_leaves
        object.__setattr__(self, 'num_nodes', nodes)
        object.__setattr__(self, 'num_leaves', leaves)
        object.__setattr__(self, 'num_children', len(self._children))

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __delattr__(self, name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field '{name}'")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (TreeSpec, (self.type, self._context, self._children))

    def __repr__(self, indent=0):
        head = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if not self._children:
            return head + '])'
        inner = indent + 2
        parts = [c.__repr__(inner) for c in self._children]
        return head + (',\n' + ' ' * inner).join(parts) + '])'

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self):
        t = self.type
        if t is defaultdict:
            factory, keys = self._context
            ctx = (factory, tuple(keys))
        elif t is dict or t is OrderedDict:
            ctx = tuple(self._context)
        elif t is None or t in _BUILTIN_TYPES:
            ctx = self._context
        elif isinstance(self._context, ConstantNode):
            ctx = self._context.value
        else:
            ctx = None        # a user context may be unhashable: leave it out
        return hash((t, ctx, tuple(self._children)))

    @property
    def context(self):
        """The root's context (e.g. a dict's keys; ``None`` for lists and tuples)."""
        return self._context

    @property
    def children_specs(self):
        """The children's specs (deprecated: use :meth:`children` or :meth:`child`)."""
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` "
                      "to access a single child, or `treespec.children()` to get all "
                      "children.", FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self):
        """True if this spec is a single leaf.

        Example::

            >>> tree_structure(1).is_leaf(), tree_structure([1]).is_leaf()
            (True, False)
        """
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        """A new list of the children's specs.

        Example::

            >>> tree_structure((1, [2])).children()
            [*, TreeSpec(list, None, [*])]
        """
        return list(self._children)

    def child(self, index):
        """The spec of child ``index``.

        Args:
            index (int): which child.

        Example::

            >>> tree_structure((1, [2])).child(1)
            TreeSpec(list, None, [*])
        """
        return self._children[index]

    def flatten_up_to(self, tree):
        """Cut ``tree`` along this structure: the list of its subtrees found where this spec
        has leaves. ``tree`` must have this spec as a prefix.

        Args:
            tree: a pytree.

        Raises:
            ValueError: where ``tree``'s containers differ from this spec's (type, arity,
                keys or context).

        Example::

            >>> tree_structure((0, 0)).flatten_up_to(([1, 2], {'a': 3}))
            [[1, 2], {'a': 3}]
        """
        out = []
        self._cut(tree, out)
        return out

    def _cut(self, node, out):
        if self.type is None:
            out.append(node)
            return
        ntype = _get_node_type(node)
        expected = self.type
        if expected not in _BUILTIN_TYPES:
            if ntype != expected:
                raise ValueError(f"Type mismatch; expected {expected!r}, but got {ntype!r}.")
            children, ctx = SUPPORTED_NODES[ntype].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but "
                                 f"got {len(children)}.")
            if ctx != self._context:
                raise ValueError(f"Node context mismatch for custom node type {expected!r}.")
        else:
            dicts = expected in _DICT_TYPES and ntype in _DICT_TYPES
            if not dicts and ntype != expected:
                raise ValueError(f"Node type mismatch; expected {expected!r}, but got "
                                 f"{ntype!r}.")
            if len(node) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but "
                                 f"got {len(node)}.")
            if dicts:
                keys = self._context[1] if expected is defaultdict else self._context
                want, got = set(keys), set(node)
                if want != got:
                    msg = ''
                    if want - got:
                        msg += f"; missing key(s): {want - got}"
                    if got - want:
                        msg += f"; extra key(s): {got - want}"
                    raise ValueError(f"Node keys mismatch{msg}.")
                children = [node[k] for k in keys]
            else:
                children, ctx = SUPPORTED_NODES[ntype].flatten_fn(node)
                if ntype is not deque and ctx != self._context:
                    raise ValueError(f"Node context mismatch for node type {expected!r}; "
                                     f"expected {self._context!r}, but got {ctx!r}.")
        for sub, spec in zip(children, self._children):
            spec._cut(sub, out)

    def unflatten(self, leaves):
        """Rebuild a pytree of this structure from its leaves.

        Args:
            leaves (iterable): exactly :attr:`num_leaves` values.

        Raises:
            ValueError: if the number of leaves is wrong.

        Example::

            >>> tree_structure({'a': 0, 'b': [0]}).unflatten([1, 2])
            {'a': 1, 'b': [2]}
        """
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        if self.type is None:
            return leaves[0]
        return self._build(iter(leaves))

    def _build(self, it):
        if self.type is None:
            return next(it)
        kids = [c._build(it) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(kids, self._context)


PyTreeSpec = TreeSpec

# the slots' own setters (they bypass the read-only __setattr__): the fast constructor below
_SET_TYPE = TreeSpec.type.__set__
_SET_CONTEXT = TreeSpec._context.__set__
_SET_CHILDREN = TreeSpec._children.__set__
_SET_NODES = TreeSpec.num_nodes.__set__
_SET_LEAVES = TreeSpec.num_leaves.__set__
_SET_NCHILD = TreeSpec.num_children.__set__
_new_spec_object = TreeSpec.__new__


def _new_spec(typ, context, children):
    """A node's TreeSpec without the checks of ``TreeSpec.__init__`` (for tree_flatten)."""
    spec = _new_spec_object(TreeSpec)
    nodes, leaves = 1, 0
    for c in children:
        nodes += c.num_nodes
        leaves += c.num_leaves
    _SET_TYPE(spec, typ)
    _SET_CONTEXT(spec, context)
    _SET_CHILDREN(spec, children)
    _SET_NODES(spec, nodes)
    _SET_LEAVES(spec, leaves)
    _SET_NCHILD(spec, len(children))
    return spec


class LeafSpec(TreeSpec):
    """The structure of a single leaf; prints as ``*``. Construction is deprecated (use
    :func:`treespec_leaf`), as in torch.

    Example::

        >>> treespec_leaf()
        *
        >>> tree_structure(3) == treespec_leaf()
        True
    """
    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        self._init_leaf()

    def _init_leaf(self):
        for name, value in (('type', None), ('_context', None), ('_children', []),
                            ('num_nodes', 1), ('num_leaves', 1), ('num_children', 0)):
            object.__setattr__(self, name, value)

    def __reduce__(self):
        return (treespec_leaf, ())

    def __repr__(self, indent=0):
        return '*'


_LEAF_SPEC = LeafSpec.__new__(LeafSpec)
_LEAF_SPEC._init_leaf()


def treespec_leaf():
    """The spec of a single leaf.

    Example::

        >>> treespec_leaf().num_leaves
        1
    """
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """A tuple spec with the given children.

    Args:
        iterable (iterable of TreeSpec): the children.

    Example::

        >>> treespec_tuple([treespec_leaf(), treespec_leaf()]) == tree_structure((1, 2))
        True
    """
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs):
    """A dict spec with the given keys and children specs.

    Args:
        mapping (mapping or iterable of pairs): key -> child spec.
        **kwargs: more key -> child spec.

    Example::

        >>> treespec_dict(a=treespec_leaf()) == tree_structure({'a': 1})
        True
    """
    d = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in d.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {d!r}.")
    return TreeSpec(dict, list(d), list(d.values()))


# ---------------------------------------------------------------------------------------------
# flatten / unflatten and the maps

def tree_flatten(tree, is_leaf=None):
    """The leaves of ``tree`` (depth first, left to right) and its :class:`TreeSpec`.

    Args:
        tree: a pytree.
        is_leaf (callable, optional): where ``is_leaf(subtree)`` is True, the subtree is
            taken as one leaf.

    Returns:
        ``(leaves, treespec)``; ``tree_unflatten(leaves, treespec)`` rebuilds ``tree``.

    Example::

        >>> tree_flatten([1, {'x': 2, 'y': None}])
        ([1, 2, None], TreeSpec(list, None, [*,
          TreeSpec(dict, ['x', 'y'], [*,
            *])]))
    """
    leaves = []
    nodes = SUPPORTED_NODES
    leaf = _LEAF_SPEC

    def go(node):
        if is_leaf is not None and is_leaf(node):
            leaves.append(node)
            return leaf
        cls = type(node)
        key = _node_type(cls)
        if key is None:
            leaves.append(node)
            return leaf
        children, ctx = nodes[key].flatten_fn(node)
        return _new_spec(key, ctx, [go(c) for c in children])

    spec = go(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """Rebuild the pytree of structure ``treespec`` from ``leaves``: the inverse of
    :func:`tree_flatten`.

    Args:
        leaves (iterable): the leaves, as many as ``treespec.num_leaves``.
        treespec (TreeSpec): the structure (the two arguments may also come swapped).

    Raises:
        TypeError: if neither argument is a :class:`TreeSpec`.
        ValueError: if the number of leaves is wrong.

    Example::

        >>> leaves, spec = tree_flatten((1, [2, 3]))
        >>> tree_unflatten([x * 2 for x in leaves], spec)
        (2, [4, 6])
    """
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item "
                            f"of type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """An iterator over the leaves of ``tree`` (depth first, left to right).

    Args:
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> list(tree_iter({'a': [1, 2], 'b': 3}))
        [1, 2, 3]
    """
    if is_leaf is not None and is_leaf(tree):
        yield tree
        return
    key = _node_type(type(tree))
    if key is None:
        yield tree
        return
    for child in SUPPORTED_NODES[key].flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    """The list of leaves of ``tree``.

    Args:
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_leaves([1, (2, None), {'k': 3}])
        [1, 2, None, 3]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The :class:`TreeSpec` of ``tree``.

    Args:
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_structure((1, 2))
        TreeSpec(tuple, None, [*,
          *])
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A new pytree of ``tree``'s structure whose leaves are ``func(leaf, *others)``, where
    ``others`` are the subtrees of ``rests`` at the same places (``tree`` must be a prefix of
    each of ``rests``).

    Args:
        func (callable): called with ``1 + len(rests)`` arguments per leaf of ``tree``.
        tree: a pytree.
        *rests: more pytrees, each having ``tree``'s structure as a prefix.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Raises:
        ValueError: if a tree in ``rests`` does not have ``tree``'s structure as a prefix.

    Example::

        >>> tree_map(lambda x: x + 1, {'a': 1, 'b': (2, 3)})
        {'a': 2, 'b': (3, 4)}
        >>> tree_map(lambda x, y: [x] + y, [1, 2], [[3], [4, 5]])
        [[1, 3], [2, 4, 5]]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    if not rests:
        return spec.unflatten([func(x) for x in leaves])
    cols = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(*cols)])


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call ``func(leaf, *others)`` on each leaf of ``tree`` for its side effect (e.g. an
    in-place update), and return ``tree`` itself.

    Args:
        func (callable): called with ``1 + len(rests)`` arguments per leaf.
        tree: a pytree.
        *rests: more pytrees having ``tree``'s structure as a prefix.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> seen = []
        >>> tree_map_(seen.append, [1, (2, 3)])
        [1, (2, 3)]
        >>> seen
        [1, 2, 3]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    cols = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for xs in zip(*cols):
        func(*xs)
    return tree


def map_only(type_or_types_or_pred, /):
    """Decorator: wrap a one-argument function so that it applies only to values that are
    instances of the given type(s) (or satisfy the predicate), returning other values
    unchanged.

    Args:
        type_or_types_or_pred (type, tuple of types, union or callable): what to apply to.

    Raises:
        TypeError: if the argument is none of those.

    Example::

        >>> double_ints = map_only(int)(lambda x: 2 * x)
        >>> double_ints(3), double_ints('a')
        (6, 'a')
    """
    sel = type_or_types_or_pred
    if isinstance(sel, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, sel)
    elif callable(sel):
        pred = sel
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """:func:`tree_map` of ``func`` over the leaves of the given type(s) (or satisfying the
    predicate); the other leaves are kept as they are.

    Args:
        type_or_types_or_pred (type, tuple of types or callable): which leaves to map.
        func (callable): applied to those leaves.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_map_only(int, lambda x: -x, [1, 'a', (2.5, 3)])
        [-1, 'a', (2.5, -3)]
    """
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """:func:`tree_map_` of ``func`` over the leaves of the given type(s) (or satisfying the
    predicate); returns ``tree``.

    Args:
        type_or_types_or_pred (type, tuple of types or callable): which leaves to visit.
        func (callable): called on those leaves.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> seen = []
        >>> tree_map_only_(str, seen.append, [1, 'a', ('b', 2)])
        [1, 'a', ('b', 2)]
        >>> seen
        ['a', 'b']
    """
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """True if ``pred`` holds for every leaf of ``tree``.

    Args:
        pred (callable): leaf -> bool.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_all(lambda x: x > 0, [1, (2, 3)]), tree_all(lambda x: x > 1, [1, 2])
        (True, False)
    """
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """True if ``pred`` holds for some leaf of ``tree``.

    Args:
        pred (callable): leaf -> bool.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_any(lambda x: x is None, {'a': 1, 'b': None})
        True
    """
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None):
    """True if ``pred`` holds for every leaf of ``tree`` that is an instance of
    ``type_or_types`` (other leaves are ignored).

    Args:
        type_or_types (type or tuple of types): which leaves to test.
        pred (callable): leaf -> bool.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_all_only(int, lambda x: x > 0, [1, 'a', -0.5])
        True
    """
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None):
    """True if ``pred`` holds for some leaf of ``tree`` that is an instance of
    ``type_or_types``.

    Args:
        type_or_types (type or tuple of types): which leaves to test.
        pred (callable): leaf -> bool.
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_any_only(int, lambda x: x < 0, [1, 'a', -0.5])
        False
    """
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def arg_tree_leaves(*args, **kwargs):
    """The leaves of all positional and keyword arguments, in order (as
    ``tree_leaves((args, kwargs))``).

    Args:
        *args: pytrees.
        **kwargs: pytrees.

    Example::

        >>> arg_tree_leaves(1, [2, 3], k=(4,))
        [1, 2, 3, 4]
    """
    out = []
    for a in args:
        out.extend(tree_iter(a))
    for a in kwargs.values():
        out.extend(tree_iter(a))
    return out


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """Expand the prefix tree ``tree`` to one value per leaf of ``treespec`` (a leaf of
    ``tree`` covers a whole subtree); ``None`` if ``tree`` is not a prefix of it. This is how
    ``vmap`` reads ``in_dims``/``out_dims``."""
    full = treespec.unflatten([0] * treespec.num_leaves)
    out = []

    def add(value, subtree):
        out.extend([value] * tree_structure(subtree, is_leaf).num_leaves)

    try:
        tree_map_(add, tree, full, is_leaf=is_leaf)
    except ValueError:
        return None
    return out


# ---------------------------------------------------------------------------------------------
# key paths

def _key_paths(path, tree, is_leaf):
    if is_leaf is not None and is_leaf(tree):
        yield path, tree
        return
    key = _node_type(type(tree))
    if key is None:
        yield path, tree
        return
    fn = SUPPORTED_NODES[key].flatten_with_keys_fn
    if fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {key}. Please pass "
                         "a flatten_with_keys_fn argument to register_pytree_node.")
    for k, child in fn(tree)[0]:
        yield from _key_paths(path + (k,), child, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """Like :func:`tree_flatten`, with each leaf paired with its key path (a tuple of
    :class:`SequenceKey` / :class:`MappingKey` / :class:`GetAttrKey`).

    Args:
        tree: a pytree (its custom node types need a ``flatten_with_keys_fn``).
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Returns:
        ``([(key_path, leaf), ...], treespec)``.

    Raises:
        ValueError: if a registered node type has no ``flatten_with_keys_fn``.

    Example::

        >>> pairs, spec = tree_flatten_with_path({'a': [1, 2]})
        >>> [(keystr(p), v) for p, v in pairs]
        [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    spec = tree_structure(tree, is_leaf)
    return list(_key_paths((), tree, is_leaf)), spec


def tree_leaves_with_path(tree, is_leaf=None):
    """The ``(key_path, leaf)`` pairs of ``tree`` (see :func:`tree_flatten_with_path`).

    Args:
        tree: a pytree.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> [keystr(p) for p, _ in tree_leaves_with_path((1, {'k': 2}))]
        ['[0]', "[1]['k']"]
    """
    return list(_key_paths((), tree, is_leaf))


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """Like :func:`tree_map`, but ``func`` also receives each leaf's key path first:
    ``func(key_path, leaf, *others)``.

    Args:
        func (callable): called with ``2 + len(rests)`` arguments per leaf.
        tree: a pytree.
        *rests: more pytrees having ``tree``'s structure as a prefix.
        is_leaf (callable, optional): extra leaf predicate, as in :func:`tree_flatten`.

    Example::

        >>> tree_map_with_path(lambda p, x: keystr(p), {'a': 1, 'b': [2]})
        {'a': "['a']", 'b': ["['b'][0]"]}
    """
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    paths = [p for p, _ in pairs]
    cols = [paths, [v for _, v in pairs]] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(*cols)])


# ---------------------------------------------------------------------------------------------
# serialization (torch's JSON protocol 1)

class EnumEncoder(json.JSONEncoder):
    """JSON encoder of spec contexts that also writes ``enum.Enum`` members (as
    ``{"__enum__": true, "fqn": "module:QualName", "name": member}``).

    Example::

        >>> import enum, json
        >>> class Color(enum.Enum):
        ...     RED = 1
        >>> json.dumps(Color.RED, cls=EnumEncoder)
        '{"__enum__": true, "fqn": "ember.utils._pytree:Color", "name": "RED"}'
    """

    def default(self, obj):
        if isinstance(obj, enum.Enum):
            cls = type(obj)
            return {'__enum__': True, 'fqn': f"{cls.__module__}:{cls.__qualname__}",
                    'name': obj.name}
        return super().default(obj)


def enum_object_hook(obj):
    """JSON object hook reading back what :class:`EnumEncoder` wrote (imports the enum's
    module).

    Example::

        >>> import json
        >>> json.loads('{"__enum__": true, "fqn": "enum:Flag", "name": "x"}',
        ...            object_hook=lambda o: sorted(o))
        ['__enum__', 'fqn', 'name']
    """
    if '__enum__' not in obj:
        return obj
    import importlib
    modname, _, qualname = obj['fqn'].partition(':')
    cls = importlib.import_module(modname)
    for part in qualname.split('.'):
        cls = getattr(cls, part)
    return cls[obj['name']]


def _spec_to_json(spec):
    if spec.is_leaf():
        return {'type': None, 'context': None, 'children_spec': []}
    ser = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if ser is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if ser.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if ser.to_dumpable_context is None:
        try:
            ctx = json.dumps(spec._context, cls=EnumEncoder)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        ctx = ser.to_dumpable_context(spec._context)
    return {'type': ser.serialized_type_name, 'context': ctx,
            'children_spec': [_spec_to_json(c) for c in spec._children]}


def _json_to_spec(schema):
    if schema['type'] is None and schema['context'] is None and not schema['children_spec']:
        return _LEAF_SPEC
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE.get(schema['type'])
    if typ is None:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not "
                                  "registered.")
    ser = SUPPORTED_SERIALIZED_TYPES[typ]
    if ser.from_dumpable_context is None:
        try:
            ctx = json.loads(schema['context'], object_hook=enum_object_hook)
        except TypeError as e:
            raise TypeError("Unable to deserialize context. Please make the context json "
                            "load-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    else:
        ctx = ser.from_dumpable_context(schema['context'])
    return TreeSpec(typ, ctx, [_json_to_spec(c) for c in schema['children_spec']])


def treespec_dumps(treespec, protocol=None):
    """The spec written as a JSON string (torch's format, so torch can read it back).

    Args:
        treespec (TreeSpec): the structure.
        protocol (int, optional): the format version; only ``1`` exists.

    Raises:
        NotImplementedError: for a node type registered without ``serialized_type_name``.
        ValueError: for an unknown protocol.

    Example::

        >>> s = treespec_dumps(tree_structure([1]))
        >>> s[:47]
        '[1, {"type": "builtins.list", "context": "null"'
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item "
                        f"of type {type(treespec)}.")
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps((protocol, _spec_to_json(treespec)), cls=EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized):
    """Read a spec written by :func:`treespec_dumps` (or by torch's).

    Args:
        serialized (str): the JSON string.

    Example::

        >>> spec = tree_structure({'a': (1, 2)})
        >>> treespec_loads(treespec_dumps(spec)) == spec
        True
    """
    protocol, schema = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _json_to_spec(schema)


class _Star(str):
    __slots__ = ()

    def __repr__(self):
        return '*'


def treespec_pprint(treespec):
    """The spec shown as the pytree it describes, with ``*`` for each leaf.

    Args:
        treespec (TreeSpec): the structure.

    Example::

        >>> treespec_pprint(tree_structure({'a': [1, (2,)]}))
        "{'a': [*, (*,)]}"
    """
    return repr(treespec.unflatten([_Star('*')] * treespec.num_leaves))


# ---------------------------------------------------------------------------------------------
# the built-in node types

def _seq_keys(values):
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _tuple_flatten(t):
    return list(t), None


def _list_flatten(t):
    return t, None


def _dict_flatten(d):
    return list(d.values()), list(d)


def _namedtuple_flatten(t):
    return list(t), type(t)


def _namedtuple_flatten_with_keys(t):
    return [(GetAttrKey(f), v) for f, v in zip(type(t)._fields, t)], type(t)


def _namedtuple_serialize(cls):
    ser = SUPPORTED_SERIALIZED_TYPES.get(cls)
    if ser is None or ser.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {cls} because we didn't register "
            "a serializated_type_name. Please register using `_register_namedtuple`.")
    return ser.serialized_type_name


def _namedtuple_deserialize(name):
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {name} "
                                  "because we couldn't find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[name]


def _register_namedtuple(cls, *, serialized_type_name):
    """Give the namedtuple class ``cls`` a name, so that specs holding it can be written by
    :func:`treespec_dumps`.

    Example::

        >>> import collections
        >>> P = collections.namedtuple('P', 'x')
        >>> _register_namedtuple(P, serialized_type_name='my.P')
    """
    _private_register_pytree_node(
        cls, _namedtuple_flatten, lambda values, ctx: ctx(*values),
        serialized_type_name=serialized_type_name, to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys)


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d)]


def _defaultdict_serialize(ctx):
    factory, keys = ctx
    return {'default_factory_module': factory.__module__,
            'default_factory_name': factory.__qualname__, 'dict_context': keys}


def _defaultdict_deserialize(data):
    import importlib
    mod = importlib.import_module(data['default_factory_module'])
    return [getattr(mod, data['default_factory_name']), data['dict_context']]


def _tuple_flatten_with_keys(t):
    return _seq_keys(t), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten_with_keys(t):
    return _seq_keys(t), None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d)


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _namedtuple_unflatten(values, context):
    return context(*values)


def _ordereddict_flatten(d):
    return list(d.values()), list(d)


def _ordereddict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d)


def _ordereddict_unflatten(values, context):
    return OrderedDict(zip(context, values))


_odict_flatten = _ordereddict_flatten
_odict_unflatten = _ordereddict_unflatten


def _defaultdict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d)]


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return _seq_keys(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


def _is_leaf(tree, is_leaf=None):
    """Deprecated spelling of :func:`tree_is_leaf` (kept, as in PyTorch, with a
    ``FutureWarning``)."""
    import warnings
    warnings.warn("torch.utils._pytree._is_leaf is private and will be removed in a future "
                  "release. Please use torch.utils._pytree.tree_is_leaf instead.",
                  FutureWarning, stacklevel=2)
    return tree_is_leaf(tree, is_leaf=is_leaf)


def _is_namedtuple_instance(tree):
    return is_namedtuple_instance(tree)


def _is_pytreespec_instance(obj):
    return isinstance(obj, TreeSpec)


def _generate_key_paths(key_path, tree, is_leaf=None):
    """Yield ``(key path, leaf)`` for each leaf of ``tree``, each path prefixed by
    ``key_path``."""
    return _key_paths(tuple(key_path), tree, is_leaf)


_private_register_pytree_node(
    tuple, _tuple_flatten, _tuple_unflatten, serialized_type_name='builtins.tuple',
    flatten_with_keys_fn=_tuple_flatten_with_keys)
_private_register_pytree_node(
    list, _list_flatten, _list_unflatten, serialized_type_name='builtins.list',
    flatten_with_keys_fn=_list_flatten_with_keys)
_private_register_pytree_node(
    dict, _dict_flatten, _dict_unflatten, serialized_type_name='builtins.dict',
    flatten_with_keys_fn=_dict_flatten_with_keys)
_private_register_pytree_node(
    namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
    serialized_type_name='collections.namedtuple', to_dumpable_context=_namedtuple_serialize,
    from_dumpable_context=_namedtuple_deserialize,
    flatten_with_keys_fn=_namedtuple_flatten_with_keys)
_private_register_pytree_node(
    OrderedDict, _ordereddict_flatten, _ordereddict_unflatten,
    serialized_type_name='collections.OrderedDict',
    flatten_with_keys_fn=_ordereddict_flatten_with_keys)
_private_register_pytree_node(
    defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
    serialized_type_name='collections.defaultdict', to_dumpable_context=_defaultdict_serialize,
    from_dumpable_context=_defaultdict_deserialize,
    flatten_with_keys_fn=_defaultdict_flatten_with_keys)
_private_register_pytree_node(
    deque, _deque_flatten, _deque_unflatten, serialized_type_name='collections.deque',
    flatten_with_keys_fn=_deque_flatten_with_keys)

_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
_BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})
STANDARD_DICT_TYPES = _DICT_TYPES
BUILTIN_TYPES = _BUILTIN_TYPES


def _register_structseq(cls):
    # A result tuple (ember.return_types, ember.Size): children are its items, no context.
    def unflatten(values, ctx):
        return cls(values)

    with _NODE_REGISTRY_LOCK:
        if cls not in SUPPORTED_NODES:
            _private_register_pytree_node(
                cls, _tuple_flatten, unflatten,
                flatten_with_keys_fn=lambda t: (_seq_keys(t), None))


def _register_ember_types():
    from .._tensor import Size
    _register_structseq(Size)
    for cls in tuple.__subclasses__():
        if _is_ember_structseq_class(cls):
            _register_structseq(cls)


_register_ember_types()
