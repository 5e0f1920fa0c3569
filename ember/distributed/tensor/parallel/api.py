"""``parallelize_module``: apply parallel styles to a module's submodules."""
import fnmatch

from .style import ParallelStyle

__all__ = ['parallelize_module']


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """Apply ``parallelize_plan`` to ``module``: a :class:`ParallelStyle` (applied to
    ``module`` itself) or a dict from submodule names (``fnmatch`` patterns per dotted
    component, e.g. ``'layers.*.attn'``) to styles.

    Args:
        module (nn.Module): the module (changed in place, and returned).
        device_mesh (DeviceMesh, optional): a 1-D mesh (default: the whole world).
        parallelize_plan (ParallelStyle or dict): the plan.
        src_data_rank (int or None): where the parameters' values come from (see
            ``distribute_tensor``).

    Example::

        >>> mesh = init_device_mesh('cpu', (2,))
        >>> parallelize_module(mlp, mesh, {'fc1': ColwiseParallel(), 'fc2': RowwiseParallel()})
    """
    from .._api import _default_mesh
    mesh = device_mesh or _default_mesh()
    if mesh.ndim != 1:
        raise ValueError(f"parallelize_module needs a 1-D mesh, got {mesh.ndim} dimensions "
                         "(pass mesh['tp'])")
    if parallelize_plan is None:
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        parallelize_plan.src_data_rank = src_data_rank
        return parallelize_plan._apply(module, mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError("Expect Union[ParallelStyle, Dict[str, ParallelStyle]] for "
                        f"parallelize_plan, {type(parallelize_plan)} found!")
    for path, style in parallelize_plan.items():
        parts = path.split('.')
        found = False
        for name, sub in module.named_modules():
            if not name:
                continue
            nparts = name.split('.')
            if len(nparts) == len(parts) and all(fnmatch.fnmatch(a, b)
                                                   for a, b in zip(nparts, parts)):
                style.src_data_rank = src_data_rank
                style._apply(sub, mesh)
                found = True
        if not found:
            raise ValueError(f"parallelize_module: no submodule matches '{path}'")
    return module
