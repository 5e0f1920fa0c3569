"""``ember.distributed.tensor``: :class:`DTensor`, a tensor laid out over a
:class:`DeviceMesh` by placements (``Shard(dim)``, ``Replicate()``, ``Partial(op)``), on
ember's MPI collectives; ``distribute_tensor``, ``distribute_module``, and DTensor
factories. ``ember.distributed.tensor.parallel`` builds tensor parallelism on it.

NOTE: unlike PyTorch, ops reach DTensor through ``__torch_function__`` (ember's op seam),
and an op without a sharding rule computes on the replicated tensor with a warning.
"""
from .._device_mesh import DeviceMesh, init_device_mesh
from .placement_types import Placement, Shard, Replicate, Partial
from ._api import DTensor, distribute_tensor, distribute_module

__all__ = ['DTensor', 'distribute_tensor', 'distribute_module', 'Shard', 'Replicate',
           'Partial', 'Placement', 'ones', 'empty', 'full', 'rand', 'randn', 'zeros',
           'DeviceMesh', 'init_device_mesh']


def _factory(fill, size, device_mesh, placements, dtype, requires_grad):
    from ._api import _default_mesh, _normalize_placements, _make, _Spec
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    mesh = device_mesh or _default_mesh()
    placements = _normalize_placements(placements, mesh, len(size))
    loc = fill(_Spec(mesh, placements, size).local_shape(), dtype)
    out = _make(loc, mesh, placements, tuple(size))
    if requires_grad:
        out.requires_grad_(True)
    return out


def zeros(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of zeros of global shape ``size`` (each rank allocates its piece only).

    Example::

        >>> zeros(4, 2, device_mesh=mesh, placements=[Shard(0)]).to_local().shape  # 2 ranks
        ember.Size([2, 2])
    """
    from ... import zeros as z
    return _factory(lambda s, dt: z(s, dtype=dt), size, device_mesh, placements, dtype,
                    requires_grad)


def ones(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None,
         placements=None):
    """A DTensor of ones of global shape ``size``.

    Example::

        >>> ones(4, device_mesh=mesh, placements=[Shard(0)])
    """
    from ... import ones as o
    return _factory(lambda s, dt: o(s, dtype=dt), size, device_mesh, placements, dtype,
                    requires_grad)


def empty(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None,
          placements=None):
    """An uninitialised DTensor of global shape ``size``.

    Example::

        >>> empty(4, device_mesh=mesh, placements=[Replicate()])
    """
    from ... import empty as e
    return _factory(lambda s, dt: e(s, dtype=dt), size, device_mesh, placements, dtype,
                    requires_grad)


def full(size, fill_value, *, dtype=None, layout=None, requires_grad=False, device_mesh=None,
         placements=None):
    """A DTensor of global shape ``size`` filled with ``fill_value``.

    Example::

        >>> full((4,), 7., device_mesh=mesh, placements=[Shard(0)])
    """
    from ... import full as f
    return _factory(lambda s, dt: f(s, fill_value, dtype=dt), tuple(size), device_mesh,
                    placements, dtype, requires_grad)


def rand(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
         placements=None):
    """A DTensor of uniform random numbers in [0, 1) of global shape ``size``.

    NOTE: unlike PyTorch, each rank draws its piece from its own generator (no offset-based
    global stream), so the values differ from a single-process ``rand``.

    Example::

        >>> rand(4, device_mesh=mesh, placements=[Shard(0)])
    """
    from ... import rand as r
    return _factory(lambda s, dt: r(s, dtype=dt), size, device_mesh, placements, dtype,
                    requires_grad)


def randn(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None,
          placements=None):
    """A DTensor of standard normal random numbers of global shape ``size``.

    NOTE: unlike PyTorch, each rank draws its piece from its own generator.

    Example::

        >>> randn(4, device_mesh=mesh, placements=[Shard(0)])
    """
    from ... import randn as r
    return _factory(lambda s, dt: r(s, dtype=dt), size, device_mesh, placements, dtype,
                    requires_grad)
