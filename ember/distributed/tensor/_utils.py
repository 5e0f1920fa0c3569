"""Helpers libraries use to reason about DTensor layouts without communicating."""
from ._api import _local_shape_offset, _normalize_placements

__all__ = ['compute_local_shape_and_global_offset', 'compute_global_tensor_info',
           'compute_local_shape']


def compute_local_shape_and_global_offset(global_shape, mesh, placements, skip_offset=False):
    """This rank's local shape, and the global index of its first element, for a tensor of
    ``global_shape`` laid out by ``placements`` over ``mesh`` (torch.chunk's split, nested
    in mesh-dimension order). A rank outside the mesh gets ``((0,), ())``.

    Args:
        global_shape (tuple[int]): the global tensor's shape.
        mesh (DeviceMesh): the mesh.
        placements (list[Placement]): one per mesh dimension.
        skip_offset (bool): return an empty offset.

    Returns:
        tuple: ``(local_shape, global_offset)``. An empty shard's offset along its dimension
        is the global size there.

    Example::

        >>> compute_local_shape_and_global_offset((5, 2), mesh, [Shard(0)])   # rank 1 of 2
        ((2, 2), (3, 0))
    """
    placements = _normalize_placements(placements, mesh, len(global_shape))
    shape, off = _local_shape_offset(tuple(global_shape), mesh, placements)
    return tuple(shape), (() if skip_offset else tuple(off))


def compute_local_shape(global_shape, mesh, placements):
    """This rank's local shape (see :func:`compute_local_shape_and_global_offset`).

    Example::

        >>> compute_local_shape((5, 2), mesh, [Shard(0)])   # rank 1 of 2
        (2, 2)
    """
    return compute_local_shape_and_global_offset(global_shape, mesh, placements)[0]


def compute_global_tensor_info(tensor, mesh, placements):
    """The global shape and (contiguous) strides of the tensor whose local piece on this
    rank is ``tensor`` (every rank's piece assumed the same size).

    Example::

        >>> compute_global_tensor_info(ember.ones(2, 3), mesh, [Shard(0)])   # 2 ranks
        ([4, 3], [3, 1])
    """
    from ..._tensor import _contiguous_strides
    from .placement_types import Shard
    shape = list(tensor.shape)
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            shape[p.dim] *= mesh.size(i)
    return shape, list(_contiguous_strides(shape))
