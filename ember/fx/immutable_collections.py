"""Immutable list and dict types used for the arguments of FX nodes."""

__all__ = ['immutable_list', 'immutable_dict']


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"'{type(self).__name__}' object does not support mutation. "
                    "If you are attempting to modify the kwargs or args of a torch.fx.Node "
                    "object,\ninstead create a new copy of it and assign the copy to the node:\n"
                    "    new_args = ... # copy and mutate args\n    node.args = new_args\n")


class immutable_list(list):
    """A list that refuses mutation (the type of list arguments of an FX node).

    Example::

        >>> l = immutable_list([1, 2])
        >>> l.append(3)
        Traceback (most recent call last):
        TypeError: 'immutable_list' object does not support mutation. ...
    """
    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(self),))


class immutable_dict(dict):
    """A dict that refuses mutation (the type of the kwargs of an FX node).

    Example::

        >>> d = immutable_dict({'a': 1})
        >>> d['b'] = 2
        Traceback (most recent call last):
        TypeError: 'immutable_dict' object does not support mutation. ...
    """
    __delitem__ = __setitem__ = __ior__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))


for _c in (immutable_list, immutable_dict):
    _c.__module__ = 'ember.fx.immutable_collections'


def _register_pytree_nodes():
    """The tree functions of ``ember.utils._pytree`` look inside FX's immutable
    containers (rebuilding the same immutable types), as PyTorch's do."""
    from ..utils import _pytree as pt
    pt._private_register_pytree_node(
        immutable_list, lambda t: (list(t), None), lambda values, ctx: immutable_list(values),
        serialized_type_name='torch.fx.immutable_collections.immutable_list',
        flatten_with_keys_fn=lambda t: ([(pt.SequenceKey(i), v) for i, v in enumerate(t)],
                                        None))
    pt._private_register_pytree_node(
        immutable_dict, lambda d: (list(d.values()), list(d)),
        lambda values, ctx: immutable_dict(zip(ctx, values)),
        serialized_type_name='torch.fx.immutable_collections.immutable_dict',
        flatten_with_keys_fn=lambda d: ([(pt.MappingKey(k), v) for k, v in d.items()],
                                        list(d)))


_register_pytree_nodes()
