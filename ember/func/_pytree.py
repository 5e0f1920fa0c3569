"""A minimal pytree: flatten nested tuples/lists/dicts/namedtuples into leaves and back."""

__all__ = []


class _Leaf:
    __slots__ = ()

    def __repr__(self):
        return '*'


LEAF = _Leaf()


def tree_flatten(tree):
    """``(leaves, spec)``; ``spec`` rebuilds the structure with :func:`tree_unflatten`."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(t, leaves):
    if isinstance(t, tuple) and hasattr(t, '_fields'):
        return ('namedtuple', type(t), [_flatten(x, leaves) for x in t])
    if isinstance(t, (tuple, list)):
        return (type(t), None, [_flatten(x, leaves) for x in t])
    if isinstance(t, dict):
        keys = list(t)
        return (dict, (type(t), keys), [_flatten(t[k], leaves) for k in keys])
    leaves.append(t)
    return LEAF


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    return _unflatten(spec, it)


def _unflatten(spec, it):
    if spec is LEAF:
        return next(it)
    kind, extra, children = spec
    vals = [_unflatten(c, it) for c in children]
    if kind == 'namedtuple':
        return extra(*vals)
    if kind is dict:
        cls, keys = extra
        d = dict(zip(keys, vals))
        return d if cls is dict else cls(d)
    return kind(vals)


def num_leaves(spec):
    if spec is LEAF:
        return 1
    return sum(num_leaves(c) for c in spec[2])


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree, is_leaf_value=lambda x: not isinstance(x, (tuple, list, dict))):
    """Expand ``prefix`` (a value or a structure matching the top of ``tree``) to one value
    per leaf of ``tree``; ``None`` if the structures do not match."""
    out = []

    def go(p, t):
        if is_leaf_value(p):
            n = num_leaves(tree_flatten(t)[1])
            out.extend([p] * n)
            return True
        if isinstance(p, (tuple, list)) and isinstance(t, (tuple, list)) and len(p) == len(t):
            return all(go(a, b) for a, b in zip(p, t))
        if isinstance(p, dict) and isinstance(t, dict) and set(p) == set(t):
            return all(go(p[k], t[k]) for k in t)
        return False

    return out if go(prefix, tree) else None
