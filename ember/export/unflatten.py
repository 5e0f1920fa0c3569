"""``ember.export.unflatten``: an exported program back as a module with the original
module hierarchy."""
import abc

from ..nn import Module
from ..utils import _pytree as pytree

__all__ = ['unflatten', 'UnflattenedModule', 'FlatArgsAdapter']


class FlatArgsAdapter(abc.ABC):
    """Adapts the flat inputs a caller gives to the flat inputs the exported graph expects
    (when the call's structure differs from the exported one).

    Example::

        >>> class Adapter(ember.export.FlatArgsAdapter):
        ...     def adapt(self, target_spec, input_spec, input_args, metadata=None, obj=None):
        ...         return input_args[:target_spec.num_leaves]
    """

    @abc.abstractmethod
    def adapt(self, target_spec, input_spec, input_args, metadata=None, obj=None):
        """Return the flat inputs for ``target_spec`` from ``input_args`` (flattened with
        ``input_spec``).

        Args:
            target_spec (TreeSpec): the exported input structure.
            input_spec (TreeSpec): the structure of the call.
            input_args (list): the call's flat inputs.
            metadata (dict, optional), obj (optional): extra context.
        """

    def get_flat_arg_paths(self):
        """The key paths of the flat inputs (empty by default)."""
        return []


class UnflattenedModule(Module):
    """The module an exported program unflattens to: the original hierarchy of submodules,
    holding the parameters and buffers under their original names, called with the
    original arguments.

    NOTE: unlike PyTorch, the submodules are containers of state only (they are not each
    given their own graph and cannot be called on their own): the whole program runs as
    one graph (``self.graph``).

    Args:
        export_module (ExportedProgram): the program.
        flat_args_adapter (FlatArgsAdapter, optional): for calls whose input structure
            differs from the exported one.

    Example::

        >>> um = ember.export.unflatten(ep)
        >>> um(x); um.lin.weight
    """

    def __init__(self, export_module, flat_args_adapter=None):
        super().__init__()
        gm = export_module.module()
        self.graph_signature = export_module.graph_signature
        self.module_call_graph = export_module.module_call_graph
        self.flat_args_adapter = flat_args_adapter
        self.adapted = False
        for name, child in gm.named_children():
            if name != '_guards_fn':
                self.add_module(name, child)
        for name, p in gm._parameters.items():
            self.register_parameter(name, p)
        for name, b in gm._buffers.items():
            self.register_buffer(name, b, persistent=name not in gm._non_persistent_buffers_set)
        object.__setattr__(self, '_gm', gm)
        self.training = gm.training

    @property
    def graph(self):
        """The program's graph, state read from this module's attributes."""
        return self._gm.graph

    def forward(self, *args, **kwargs):
        from .exported_program import _check_structure
        spec = self._gm._in_spec
        if self.flat_args_adapter is None:
            flat = _check_structure(spec, args, kwargs)
        else:
            flat, in_spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
            if in_spec != spec:
                flat = self.flat_args_adapter.adapt(target_spec=spec, input_spec=in_spec,
                                                    input_args=flat)
                self.adapted = True
                if len(flat) != spec.num_leaves:
                    raise TypeError(f'Flat args adaption failed, number of args mismatch '
                                    f'Adatped: {len(flat)} \nExported module: '
                                    f'{spec.num_leaves}')
        out = Module.__call__(self._gm, *flat)
        return pytree.tree_unflatten(list(out), self._gm._out_spec)


def unflatten(module, flat_args_adapter=None):
    """An :class:`UnflattenedModule` of an exported program: its parameters and buffers
    in the original hierarchy (``um.lin.weight``), callable with the original arguments.

    Args:
        module (ExportedProgram): the program.
        flat_args_adapter (FlatArgsAdapter, optional): adapts calls whose input structure
            differs from the exported one.

    Returns:
        UnflattenedModule

    Example::

        >>> um = ember.export.unflatten(ember.export.export(model, (x,)))
        >>> um(x)
    """
    return UnflattenedModule(module, flat_args_adapter)
