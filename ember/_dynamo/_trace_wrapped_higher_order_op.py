"""``ember._dynamo._trace_wrapped_higher_order_op``: ``TransformGetItemToIndex``."""
from ..overrides import TorchFunctionMode

__all__ = ['TransformGetItemToIndex', 'mod_index']


def mod_index(x, indices):
    """``x`` indexed by the tensors ``indices`` (one per leading dimension), as advanced
    indexing (a gather), never as a view.

    Example::

        >>> x = ember.arange(6.).view(2, 3)
        >>> mod_index(x, [ember.tensor(1), ember.tensor(2)])
        tensor(5.)
    """
    from .._ops.indexing import _index_key, _indices_to_key
    return _index_key(x, _indices_to_key(x, list(indices)))


class TransformGetItemToIndex(TorchFunctionMode):
    """A mode under which ``tensor[i]`` with integer or tensor indices is advanced indexing
    with 0-dim index tensors (``mod_index``) instead of a view selected by a Python integer,
    so a function written with scalar-tensor indices (flex attention's ``score_mod``,
    transformers' mask functions) works under ``vmap``.

    Example::

        >>> x = ember.arange(6.).view(2, 3)
        >>> with TransformGetItemToIndex():
        ...     y = x[ember.tensor(1), 2]
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        from .._tensor import Tensor
        if func is Tensor.__getitem__:
            from ..utils._pytree import tree_leaves
            target = args[0]
            if not isinstance(target, Tensor):
                raise AssertionError(f"expected torch.Tensor, got {type(target)}")
            leaves = tree_leaves(args[1])
            if all(isinstance(v, (Tensor, int)) for v in leaves):
                from .._ops.creation import tensor
                from .. import int64
                idx = [tensor(v, dtype=int64, device=target.device) if isinstance(v, int)
                       else v for v in leaves]
                return mod_index(target, idx)
        return func(*args, **(kwargs or {}))
