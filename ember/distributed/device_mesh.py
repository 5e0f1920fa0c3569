"""``ember.distributed.device_mesh``: the public module of :class:`DeviceMesh` and
:func:`init_device_mesh` (the same objects as ``ember.distributed.DeviceMesh``)."""
from ._device_mesh import DeviceMesh, init_device_mesh

__all__ = ['init_device_mesh', 'DeviceMesh']
