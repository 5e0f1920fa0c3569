"""``DeviceMesh`` and ``init_device_mesh``: ranks laid out as an n-dimensional array, with a
process group along each dimension (the ranks that differ only in that coordinate)."""
import math

import numpy as np

__all__ = ['DeviceMesh', 'init_device_mesh']


class DeviceMesh:
    """An n-dimensional layout of global ranks with one process group per dimension.

    Args:
        device_type (str): 'cpu' (or 'cuda').
        mesh (list or Tensor): the global ranks, as a nested list / integer tensor.
        mesh_dim_names (tuple[str], optional): a name per dimension.

    Every rank of the default group constructs the same mesh (the groups are created
    collectively).

    Example::

        >>> mesh = DeviceMesh('cpu', [[0, 1], [2, 3]], mesh_dim_names=('dp', 'tp'))
        >>> dist.all_reduce(t, group=mesh.get_group('tp'))
    """

    def __init__(self, device_type, mesh, *, mesh_dim_names=None, backend_override=None,
                 _init_backend=True, _groups=None):
        from .. import Tensor, tensor
        from .distributed_c10d import _world
        arr = np.asarray(mesh.tolist() if isinstance(mesh, Tensor) else mesh, dtype=np.int64)
        if arr.ndim == 0:
            raise ValueError("DeviceMesh: the mesh must have at least one dimension")
        self.device_type = device_type
        self._arr = arr
        self.mesh = tensor(arr.tolist(), dtype=None).long()
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != arr.ndim:
                raise RuntimeError(f"mesh_dim_names {mesh_dim_names} should have the same length "
                                   f"as the mesh's dimensions ({arr.ndim})")
        self.mesh_dim_names = mesh_dim_names
        w = _world()
        self._rank = w.rank()
        if len(set(arr.ravel().tolist())) != arr.size or arr.min() < 0 or arr.max() >= w.size():
            raise RuntimeError(f"DeviceMesh: the mesh {arr.tolist()} must hold distinct ranks "
                               f"below the world size {w.size()}")
        coord = np.argwhere(arr == self._rank)
        self._coord = [int(c) for c in coord[0]] if len(coord) else None
        if _groups is not None:
            self._groups = _groups
        elif _init_backend:
            self._groups = [self._make_group(d, w) for d in range(arr.ndim)]
        else:
            self._groups = [None] * arr.ndim

    def _make_group(self, dim, world):
        from .distributed_c10d import new_subgroups_by_enumeration
        rows = np.moveaxis(self._arr, dim, -1).reshape(-1, self._arr.shape[dim]).tolist()
        if len(rows) == 1 and sorted(rows[0]) == list(range(world.size())) and \
                rows[0] == sorted(rows[0]):
            return world
        cur, _ = new_subgroups_by_enumeration(rows)
        return cur

    def _dim(self, mesh_dim):
        if mesh_dim is None:
            if self._arr.ndim != 1:
                raise RuntimeError("Found the DeviceMesh have "
                                   f"{self._arr.ndim} dimensions. Optional kwarg `mesh_dim` needs "
                                   "to be specified when device_mesh.ndim > 1.")
            return 0
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh "
                               f"dimensions are: mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        return int(mesh_dim)

    @property
    def ndim(self):
        """The number of mesh dimensions."""
        return self._arr.ndim

    @property
    def shape(self):
        """The mesh's shape."""
        return tuple(self._arr.shape)

    def size(self, mesh_dim=None):
        """The number of ranks in the mesh, or along ``mesh_dim``."""
        return int(self._arr.size) if mesh_dim is None else int(self._arr.shape[self._dim(mesh_dim)])

    def get_group(self, mesh_dim=None):
        """The process group along ``mesh_dim`` (an index or a name) that holds this rank."""
        return self._groups[self._dim(mesh_dim)]

    def get_all_groups(self):
        """The process groups of every dimension, in order."""
        return list(self._groups)

    def get_rank(self):
        """This process's global rank."""
        return self._rank

    def get_local_rank(self, mesh_dim=None):
        """This rank's coordinate along ``mesh_dim``."""
        return self._coord[self._dim(mesh_dim)] if self._coord is not None else -1

    def get_coordinate(self):
        """This rank's coordinates in the mesh (None if it is not in the mesh)."""
        return list(self._coord) if self._coord is not None else None

    def __getitem__(self, names):
        """The sub-mesh of the dimensions ``names`` (one name or a tuple) that holds this
        rank (it reuses the groups already made)."""
        names = (names,) if isinstance(names, str) else tuple(names)
        dims = [self._dim(n) for n in names]
        idx = tuple(slice(None) if d in dims else self._coord[d] for d in range(self.ndim))
        sub = np.transpose(self._arr[idx], np.argsort(np.argsort(dims))) if len(dims) > 1 \
            else self._arr[idx]
        return DeviceMesh(self.device_type, sub, mesh_dim_names=names,
                          _groups=[self._groups[d] for d in dims])

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and np.array_equal(self._arr, other._arr) and \
            self.mesh_dim_names == other.mesh_dim_names and self.device_type == other.device_type

    def __hash__(self):
        return hash((self.device_type, self._arr.tobytes(), self._arr.shape, self.mesh_dim_names))

    def __repr__(self):
        s = f"DeviceMesh('{self.device_type}', {self._arr.tolist()}"
        if self.mesh_dim_names:
            s += f", mesh_dim_names={self.mesh_dim_names}"
        return s + ")"


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    """A :class:`DeviceMesh` of shape ``mesh_shape`` over all ranks in order (every rank
    calls it).

    Args:
        device_type (str): 'cpu'.
        mesh_shape (tuple[int]): the mesh's shape; its product is the world size.
        mesh_dim_names (tuple[str], optional): a name per dimension.

    Example::

        >>> mesh = init_device_mesh('cpu', (2, 2), mesh_dim_names=('dp', 'tp'))
    """
    from .distributed_c10d import get_world_size
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError("Each mesh_dim_name must be unique.",
                               f"Found repeated mesh_dim_name in mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length!",
                               f"Found len(mesh_dim_names): {len(mesh_dim_names)} and "
                               f"len(mesh_shape):{len(mesh_shape)}.")
    n = get_world_size()
    if math.prod(mesh_shape) != n:
        raise RuntimeError(f"Mesh should not be bigger than default world size {n}, but found "
                           f"{math.prod(mesh_shape)} ranks!")
    return DeviceMesh(device_type, np.arange(n).reshape(mesh_shape),
                      mesh_dim_names=mesh_dim_names)
