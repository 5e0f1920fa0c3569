"""``ember.export``: capture a module's forward as a graph of ops, with its state lifted as
inputs (PyTorch's ``torch.export``, built on ``ember.fx``).

Example::

    >>> import ember as torch
    >>> class M(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__(); self.lin = torch.nn.Linear(4, 3)
    ...     def forward(self, x):
    ...         return torch.relu(self.lin(x))
    >>> ep = torch.export.export(M(), (torch.randn(2, 4),))
    >>> print(ep)
    >>> ep.module()(torch.randn(2, 4))

NOTE: unlike PyTorch, the graph is captured by running the module once on the example
inputs (copies of them) with every op recorded; the nodes' targets are ember's functions
rather than ATen overloads, and an ``ExportedProgram`` saved by ``ember.export.save`` is not
PyTorch's ``.pt2`` format (see :func:`save`).
"""
import inspect

from .graph_signature import (ExportBackwardSignature, ExportGraphSignature, InputKind,
                              InputSpec, OutputKind, OutputSpec, TensorArgument,
                              ConstantArgument, SymIntArgument, SymFloatArgument)
from .exported_program import (ExportedProgram, ModuleCallEntry, ModuleCallSignature,
                               CustomDecompTable, default_decompositions)
from .dynamic_shapes import (Constraint, Dim, ShapesCollection, AdditionalInputs, dims)
from ._serialize import save, load
from .unflatten import unflatten, UnflattenedModule, FlatArgsAdapter

__all__ = ['AdditionalInputs', 'Constraint', 'CustomDecompTable', 'default_decompositions',
           'Dim', 'dims', 'draft_export', 'export', 'ExportBackwardSignature',
           'ExportedProgram', 'ExportGraphSignature', 'FlatArgsAdapter', 'load',
           'ModuleCallEntry', 'ModuleCallSignature', 'register_dataclass', 'save',
           'ShapesCollection', 'unflatten', 'UnflattenedModule']


def _user_error(msg, kind='INVALID_INPUT'):
    from .._dynamo.exc import UserError, UserErrorType
    return UserError(getattr(UserErrorType, kind), msg)


def _input_names(mod, args, kwargs):
    """The forward's parameter name of each positional argument (``args_<i>`` past a
    ``*args``), then the keyword arguments' names."""
    try:
        params = list(inspect.signature(mod.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
    for i in range(len(args)):
        if i < len(pos):
            names.append(pos[i].name)
        else:
            names.append(f'{var.name if var else "args"}_{i - len(pos)}')
    names += list(kwargs)
    return names


def _argument(v):
    """The signature argument of a graph value: a node (tensor, or a number read at run
    time) by its name, anything else as a constant."""
    if hasattr(v, 'op'):
        val = v.meta.get('val')
        if isinstance(val, int) and not isinstance(val, bool):
            return SymIntArgument(v.name)
        if isinstance(val, float):
            return SymFloatArgument(v.name)
        return TensorArgument(v.name)
    return ConstantArgument('', v)


def _leaf_names(names, args, kwargs):
    """A placeholder name per leaf of ``(args, kwargs)``: the argument's name, with the
    path inside it (``xs_0``, ``d_a``)."""
    from ..utils import _pytree as pytree
    out = []
    for name, value in zip(names, list(args) + list(kwargs.values())):
        pairs, _ = pytree.tree_flatten_with_path(value)
        for path, _leaf in pairs:
            parts = [name]
            for k in path:
                key = getattr(k, 'idx', getattr(k, 'key', getattr(k, 'name', None)))
                parts.append(str(key))
            out.append('_'.join(parts))
    return out


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=(), prefer_deferred_runtime_asserts_over_guards=False):
    """Capture ``mod``'s forward on the example inputs as an :class:`ExportedProgram`.

    The graph takes the parameters (placeholders ``p_<name>``), the buffers (``b_<name>``),
    the tensor constants the forward reads (``c_<name>``) and then the user's inputs
    (flattened, named after the forward's arguments); it returns the flat outputs. Ops are
    recorded as they run, in-place ops included (the "training IR"; see
    :meth:`ExportedProgram.run_decompositions` for the functional form). The module's state
    is left unchanged.

    Args:
        mod (Module): the module to export.
        args (tuple): example positional inputs.
        kwargs (dict, optional): example keyword inputs.
        dynamic_shapes (dict, tuple or list, optional): which input dimensions may vary:
            per argument (by name in a dict, or by position), a dict ``{dim: Dim}`` or a
            tuple with an entry per dim (a :class:`Dim`, ``Dim.AUTO``/``Dim.DYNAMIC``,
            ``Dim.STATIC``, an int or None).
        strict (bool): PyTorch's TorchDynamo-based tracing. Default: False
        preserve_module_call_signature (tuple of str): submodules whose call signature is
            kept in :attr:`ExportedProgram.module_call_graph`.
        prefer_deferred_runtime_asserts_over_guards (bool): accepted for compatibility.

    Returns:
        ExportedProgram

    NOTE: unlike PyTorch, the module runs for real on copies of the inputs (no fake tensors;
    ``strict=True`` traces the same way, ember has no TorchDynamo). A dynamic size read in
    Python (``x.shape[0]``, ``x.size(1)``) is a ``sym_size`` node and arithmetic on it is
    recorded; the dynamic dimensions are then checked by capturing again at other sizes in
    their ranges (next to the example's, at the low end, and the top of the range or 4x the
    example's): a program that comes out different (a size baked in, a branch on a size,
    two sizes that must be equal) raises PyTorch's constraint-violation ``UserError``, with
    the interval a guard allows found by bisection (a ``Dim.DYNAMIC``/``Dim.AUTO`` range
    narrows to it, a specialized ``Dim.AUTO`` becomes static); a guard past the sizes tried
    is not seen, and one that is not an interval is reported with a size that differs. ``Tensor.item()`` is recorded; ``numpy()``, ``tolist()`` and
    ``bool``/``int``/``float`` of a captured value raise ``ExportCaptureError`` (a
    ``RuntimeError``), as PyTorch refuses data-dependent values; so does a value computed
    from a floating-point input by code the capture cannot see (NumPy on arrays).

    Example::

        >>> ep = ember.export.export(ember.nn.Linear(4, 3), (ember.randn(2, 4),))
        >>> ep.graph_signature.parameters
        ('weight', 'bias')
    """
    from .._dynamo.exc import UserError
    from .dynamic_shapes import ConstraintViolationError
    try:
        return _export(mod, args, kwargs, dynamic_shapes, preserve_module_call_signature)
    except (UserError, ConstraintViolationError) as e:
        # as PyTorch does, for the errors draft_export would report
        e.args = (str(e) + '\n\n' + _DRAFT_EXPORT_MSG,)
        raise


_DRAFT_EXPORT_MSG = (
    'The error above occurred when calling torch.export.export. If you would like to view '
    'some more information about this error, and get a list of all other errors that may '
    'occur in your export call, you can replace your `export()` call with `draft_export()`.')


def _export(mod, args, kwargs, dynamic_shapes, preserve_module_call_signature):
    from ..nn import Module
    from .._tensor import Tensor
    from ..utils import _pytree as pytree
    from . import _trace, dynamic_shapes as _ds
    if not isinstance(mod, Module):
        raise ValueError(f'Expected `mod` to be an instance of `torch.nn.Module`, got '
                         f'{type(mod)}.')
    if not isinstance(args, tuple):
        raise _user_error(f'Expecting `args` to be a tuple of example positional inputs, '
                          f'got {type(args)}')
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(kwargs, dict):
        raise TypeError(f'inspect.Signature.bind() argument after ** must be a mapping, not '
                        f'{type(kwargs).__name__}')
    try:
        inspect.signature(mod.forward).bind(*args, **kwargs)
    except ValueError:
        pass                        # no signature to check against
    names = _input_names(mod, args, kwargs)
    per_leaf, symbols, srcs = _ds.process(dynamic_shapes, names, args, kwargs)
    flat, in_spec = pytree.tree_flatten((args, dict(kwargs)))
    leaf_names = _leaf_names(names, args, kwargs)

    state = []
    seen = set()
    for fqn, p in mod.named_parameters():
        state.append(('parameter', fqn, p, None))
        seen.add(id(p))
    nonpersistent = set()
    for mname, m in mod.named_modules():
        for b in m._non_persistent_buffers_set:
            nonpersistent.add(f'{mname}.{b}' if mname else b)
    for fqn, b in mod.named_buffers():
        if id(b) not in seen and b is not None:
            state.append(('buffer', fqn, b, fqn not in nonpersistent))
            seen.add(id(b))

    def rebuild(leaves):
        a, k = pytree.tree_unflatten(list(leaves), in_spec)
        return a, k

    def run(leaves, dims):
        return _trace.capture(mod, leaves, leaf_names, rebuild, state, dims,
                              preserve_module_call_signature)

    g, cap, flat_out, out_spec, placeholders = run(flat, per_leaf)
    shapes = {}         # node name -> {dim: symbolic size}, for printing
    if symbols:
        # the program must be the same for other sizes of the dynamic dimensions
        from ._verify import verify
        auto, shapes = verify(lambda leaves: run(leaves, per_leaf)[0], flat, per_leaf,
                              symbols, g, srcs)
        if auto:        # Dim.AUTO dimensions the program specializes become static
            shapes = {}

            def root(s):
                return s if s.fn is None else s.root
            per_leaf = {i: {d: s for d, s in dims.items() if root(s) not in auto}
                        for i, dims in per_leaf.items()}
            per_leaf = {i: dims for i, dims in per_leaf.items() if dims}
            symbols = {s: r for s, r in symbols.items() if root(s) not in auto}
            g, cap, flat_out, out_spec, placeholders = run(flat, per_leaf)

    # signature
    input_specs = []
    for n in placeholders:
        kind, ref = n.meta.pop('_kind')
        name = n.target
        if kind == 'parameter':
            input_specs.append(InputSpec(InputKind.PARAMETER, TensorArgument(name), ref))
        elif kind == 'buffer':
            input_specs.append(InputSpec(InputKind.BUFFER, TensorArgument(name), ref,
                                         persistent=ref not in nonpersistent))
        elif kind == 'constant':
            input_specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(name),
                                         ref))
        else:
            v = flat[ref]
            arg = TensorArgument(name) if isinstance(v, Tensor) else \
                ConstantArgument(name, v)
            input_specs.append(InputSpec(InputKind.USER_INPUT, arg, None))
    out_node = next(n for n in g.nodes if n.op == 'output')
    output_specs = [OutputSpec(OutputKind.USER_OUTPUT, _argument(o), None)
                    for o in out_node.args[0]]
    signature = ExportGraphSignature(input_specs, output_specs)

    state_dict = {}
    constants = {}
    for kind, fqn, t, persistent in state:
        if kind == 'buffer' and not persistent:
            constants[fqn] = t
        else:
            state_dict[fqn] = t
    constants.update(cap.constants)

    # guards checked by the module: every dim of each tensor input
    guards = []
    symbolic = dict(shapes)
    user_ph = [n for n, s in zip(placeholders, input_specs) if s.kind == InputKind.USER_INPUT]
    for i, (v, n) in enumerate(zip(flat, user_ph)):
        where = n.target
        if isinstance(v, Tensor):
            dyn = per_leaf.get(i, {})
            if dyn:
                symbolic[n.target] = dict(dyn)
            for d, size in enumerate(v.shape):
                if d in dyn:
                    s = dyn[d]
                    rng = symbols[s] if s.fn is None else symbols[s.root]
                    guards.append((d, i, where, ('dynamic', s, rng.lower, rng.upper, s.fn)))
                else:
                    guards.append((d, i, where, ('static', size)))
        elif v is None or isinstance(v, (int, float, bool, str)):
            guards.append(('const', i, where, v))

    call_graph = [ModuleCallEntry('', ModuleCallSignature([], [], in_spec, out_spec,
                                                          forward_arg_names=names))]
    for fqn, _ in mod.named_modules():
        if fqn:
            sig = None
            if fqn in cap.call_sigs:
                ins, ispec, outs, ospec = cap.call_sigs[fqn]
                sig = ModuleCallSignature([_argument(v) for v in ins],
                                          [_argument(v) for v in outs], ispec, ospec)
            call_graph.append(ModuleCallEntry(fqn, sig))
    ep = ExportedProgram({}, g, signature, state_dict, symbols, call_graph,
                         (args, dict(kwargs)), constants, _symbolic=symbolic,
                         _guards=guards)
    ep._training = mod.training
    return ep


def draft_export(mod, args, kwargs=None, *, dynamic_shapes=None,
                 preserve_module_call_signature=(), strict=False,
                 prefer_deferred_runtime_asserts_over_guards=False):
    """Export as :func:`export` does, collecting problems into a report
    (``ep._report``) rather than stopping at the first where it can.

    NOTE: unlike PyTorch, ember's capture has no recoverable problems to collect: this is
    :func:`export` with an empty report.

    Args:
        mod (Module), args (tuple), kwargs (dict, optional), dynamic_shapes,
        preserve_module_call_signature, strict: as for :func:`export`.

    Returns:
        ExportedProgram

    Example::

        >>> ep = ember.export.draft_export(model, (x,))
    """
    ep = export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                preserve_module_call_signature=preserve_module_call_signature)
    ep._report = []
    return ep


def register_dataclass(cls, *, serialized_type_name=None):
    """Register a dataclass as a pytree node, so that its instances can be inputs and
    outputs of exported programs (its fields are flattened).

    Args:
        cls (type): the dataclass.
        serialized_type_name (str, optional): its name in serialized specs.

    Example::

        >>> @dataclasses.dataclass
        ... class Inputs:
        ...     x: ember.Tensor
        >>> ember.export.register_dataclass(Inputs)
    """
    from ..utils import _pytree as pytree
    pytree.register_dataclass(cls, serialized_type_name=serialized_type_name)
