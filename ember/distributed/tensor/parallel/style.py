"""Parallel styles: how ``parallelize_module`` shards a submodule's parameters and lays out
its inputs and outputs."""
from ..placement_types import Shard, Replicate, Placement
from .._api import DTensor, distribute_tensor, distribute_module

__all__ = ['ParallelStyle', 'ColwiseParallel', 'RowwiseParallel', 'SequenceParallel',
           'PrepareModuleInput', 'PrepareModuleOutput', 'PrepareModuleInputOutput']


class ParallelStyle:
    """Base class of the parallel styles; ``_apply(module, device_mesh)`` parallelizes
    ``module`` and returns it.

    Example::

        >>> isinstance(ColwiseParallel(), ParallelStyle)
        True
    """
    src_data_rank = 0

    def _apply(self, module, device_mesh):
        raise NotImplementedError


def _to_dtensor(x, mesh, layout, desired):
    """A forward input laid out as ``desired`` (a plain tensor is this rank's piece of
    ``layout``)."""
    from .... import _tensor as _T
    if layout is None:
        return x
    if not isinstance(x, DTensor):
        if not isinstance(x, _T.Tensor):
            return x
        x = DTensor.from_local(x, mesh, (layout,), run_check=False)
    if desired is not None and x.placements != (desired,):
        x = x.redistribute(mesh, (desired,))
    return x


def _layout_io(module, mesh, inl, want, outl, local):
    """Forward hooks: the first input laid out ``want`` (a plain tensor is this rank's
    piece of ``inl``), the output redistributed to ``outl`` (its local tensor if
    ``local``)."""
    def pre(m, args):
        return (_to_dtensor(args[0], mesh, inl, want),) + tuple(args[1:])

    def post(m, args, out):
        if out.placements != (outl,):
            out = out.redistribute(mesh, (outl,))
        return out.to_local() if local else out
    module.register_forward_pre_hook(pre)
    module.register_forward_hook(post)
    return module


def _param(module, name, mesh, placements, src_data_rank):
    from ....nn.parameter import Parameter
    p = getattr(module, name, None)
    if p is None or isinstance(p, DTensor):
        return
    module.register_parameter(name, Parameter(
        distribute_tensor(p.detach(), mesh, placements, src_data_rank=src_data_rank),
        p.requires_grad))


def _kind(module):
    from ....nn import Linear, Embedding
    if isinstance(module, Linear):
        return 'linear'
    if isinstance(module, Embedding):
        return 'embedding'
    raise NotImplementedError(f"{type(module).__name__}: only nn.Linear and nn.Embedding are "
                              "supported by this style")


class ColwiseParallel(ParallelStyle):
    """Shard an ``nn.Linear`` by output features (weight and bias ``Shard(0)``) or an
    ``nn.Embedding`` by embedding dimension (weight ``Shard(1)``). The input is replicated
    first; the output is sharded along its last dimension.

    Args:
        input_layouts (Placement, optional): the input's layout (default ``Replicate()``).
        output_layouts (Placement, optional): the output's layout (default ``Shard(-1)``).
        use_local_output (bool): return the local tensor instead of a DTensor (default
            True).

    Example::

        >>> parallelize_module(mlp, mesh, {'fc1': ColwiseParallel(), 'fc2': RowwiseParallel()})
    """

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = (input_layouts or Replicate(),)
        self.output_layouts = (output_layouts or Shard(-1),)
        self.desired_input_layouts = (Replicate(),)
        self.use_local_output = use_local_output

    def _apply(self, module, device_mesh):
        kind = _kind(module)
        if kind == 'linear':
            _param(module, 'weight', device_mesh, [Shard(0)], self.src_data_rank)
            _param(module, 'bias', device_mesh, [Shard(0)], self.src_data_rank)
        else:
            _param(module, 'weight', device_mesh, [Shard(1)], self.src_data_rank)
        return _layout_io(module, device_mesh, self.input_layouts[0],
                          self.desired_input_layouts[0], self.output_layouts[0],
                          self.use_local_output)

    def __repr__(self):
        return (f"ColwiseParallel(input_layouts={self.input_layouts[0]}, "
                f"output_layouts={self.output_layouts[0]}, "
                f"use_local_output={self.use_local_output})")


class RowwiseParallel(ParallelStyle):
    """Shard an ``nn.Linear`` by input features (weight ``Shard(1)``, bias replicated) or an
    ``nn.Embedding`` by rows (weight ``Shard(0)``: a vocabulary-parallel lookup). The
    output (a partial sum) is reduced to ``output_layouts``.

    Args:
        input_layouts (Placement, optional): the input's layout (default ``Shard(-1)``;
            ``Replicate()`` for an embedding).
        output_layouts (Placement, optional): default ``Replicate()``.
        use_local_output (bool): return the local tensor (default True).

    Example::

        >>> parallelize_module(mlp, mesh, {'fc2': RowwiseParallel()})
    """

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = (input_layouts or Shard(-1),)
        self.output_layouts = (output_layouts or Replicate(),)
        self.use_local_output = use_local_output

    def _apply(self, module, device_mesh):
        kind = _kind(module)
        if kind == 'linear':
            _param(module, 'weight', device_mesh, [Shard(1)], self.src_data_rank)
            _param(module, 'bias', device_mesh, [Replicate()], self.src_data_rank)
            want = Shard(-1)
        else:
            _param(module, 'weight', device_mesh, [Shard(0)], self.src_data_rank)
            want = Replicate()
        return _layout_io(module, device_mesh, self.input_layouts[0], want,
                          self.output_layouts[0], self.use_local_output)

    def __repr__(self):
        return (f"RowwiseParallel(input_layouts={self.input_layouts[0]}, "
                f"output_layouts={self.output_layouts[0]}, "
                f"use_local_output={self.use_local_output})")


class SequenceParallel(ParallelStyle):
    """Replicate the parameters of a module that works per position (``LayerNorm``,
    ``RMSNorm``, ``Dropout``) and run it on the input sharded along ``sequence_dim``.

    Args:
        sequence_dim (int): the sequence dimension of the input (default 1).
        use_local_output (bool): return the local tensor (default False: a DTensor).

    Example::

        >>> parallelize_module(block, mesh, {'norm': SequenceParallel()})
    """

    def __init__(self, *, sequence_dim=1, use_local_output=False):
        self.sequence_sharding = (Shard(sequence_dim),)
        self.use_local_output = use_local_output

    def _apply(self, module, device_mesh):
        for name, p in list(module.named_parameters(recurse=False)):
            _param(module, name, device_mesh, [Replicate()], self.src_data_rank)
        sh, local = self.sequence_sharding[0], self.use_local_output

        def pre(m, args):
            return (_to_dtensor(args[0], device_mesh, sh, sh),) + tuple(args[1:])

        def post(m, args, out):
            return out.to_local() if local and isinstance(out, DTensor) else out
        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)
        return module

    def __repr__(self):
        return f"SequenceParallel(sequence_dim={self.sequence_sharding[0].dim})"


def _as_tuple(x):
    if x is None:
        return None
    return (x,) if isinstance(x, Placement) else tuple(x)


class PrepareModuleInput(ParallelStyle):
    """Lay out a module's inputs before its forward: positional input ``i`` (a plain tensor
    is this rank's piece of ``input_layouts[i]``) becomes a DTensor redistributed to
    ``desired_input_layouts[i]`` (``None`` entries are left alone).

    Args:
        input_layouts (Placement or tuple): the inputs' layouts.
        desired_input_layouts (Placement or tuple): the layouts wanted.
        input_kwarg_layouts, desired_input_kwarg_layouts (dict, optional): the same for
            keyword inputs.
        use_local_output (bool): hand the local tensors to the module (default False).

    Example::

        >>> PrepareModuleInput(input_layouts=Shard(1), desired_input_layouts=Replicate())
    """

    def __init__(self, *, input_layouts=None, desired_input_layouts=None,
                 input_kwarg_layouts=None, desired_input_kwarg_layouts=None,
                 use_local_output=False):
        self.input_layouts = _as_tuple(input_layouts)
        self.desired_input_layouts = _as_tuple(desired_input_layouts)
        self.input_kwarg_layouts = input_kwarg_layouts or {}
        self.desired_input_kwarg_layouts = desired_input_kwarg_layouts or {}
        self.use_local_output = use_local_output
        if self.input_layouts is not None and self.desired_input_layouts is not None and \
                len(self.input_layouts) != len(self.desired_input_layouts):
            raise AssertionError("input_layouts and desired_input_layouts should have same "
                                 "length!")

    def _prepare(self, args, kwargs, mesh):
        out = list(args)
        if self.input_layouts is not None:
            if len(self.input_layouts) != len(args):
                raise ValueError("module inputs and input_layouts should have same length!")
            for i, (lay, want) in enumerate(zip(self.input_layouts,
                                                self.desired_input_layouts or
                                                self.input_layouts)):
                x = _to_dtensor(out[i], mesh, lay, want)
                out[i] = x.to_local() if self.use_local_output and isinstance(x, DTensor) \
                    else x
        kw = dict(kwargs)
        for k, lay in self.input_kwarg_layouts.items():
            if k in kw:
                x = _to_dtensor(kw[k], mesh, lay, self.desired_input_kwarg_layouts.get(k, lay))
                kw[k] = x.to_local() if self.use_local_output and isinstance(x, DTensor) else x
        return tuple(out), kw

    def _apply(self, module, device_mesh):
        def pre(m, args, kwargs):
            return self._prepare(args, kwargs, device_mesh)
        module.register_forward_pre_hook(pre, with_kwargs=True)
        return module


class PrepareModuleOutput(ParallelStyle):
    """Lay out a module's outputs after its forward: output ``i`` (a plain tensor is this
    rank's piece of ``output_layouts[i]``) is redistributed to ``desired_output_layouts[i]``.

    Args:
        output_layouts (Placement or tuple): the outputs' layouts.
        desired_output_layouts (Placement or tuple): the layouts wanted.
        use_local_output (bool): return the local tensors (default True).

    Example::

        >>> PrepareModuleOutput(output_layouts=Replicate(), desired_output_layouts=Shard(0))
    """

    def __init__(self, *, output_layouts, desired_output_layouts, use_local_output=True):
        self.output_layouts = _as_tuple(output_layouts)
        self.desired_output_layouts = _as_tuple(desired_output_layouts)
        self.use_local_output = use_local_output
        if len(self.output_layouts) != len(self.desired_output_layouts):
            raise AssertionError("output_layouts and desired_output_layouts should have same "
                                 "length!")

    def _prepare(self, outputs, mesh):
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if len(outs) != len(self.output_layouts):
            raise ValueError("module outputs and output_layouts should have same length!")
        res = []
        for o, lay, want in zip(outs, self.output_layouts, self.desired_output_layouts):
            if lay is not None:
                o = _to_dtensor(o, mesh, lay, want)
                if self.use_local_output and isinstance(o, DTensor):
                    o = o.to_local()
            res.append(o)
        return res[0] if single else tuple(res)

    def _apply(self, module, device_mesh):
        module.register_forward_hook(lambda m, a, out: self._prepare(out, device_mesh))
        return module


class PrepareModuleInputOutput(ParallelStyle):
    """:class:`PrepareModuleInput` and :class:`PrepareModuleOutput` together.

    Example::

        >>> PrepareModuleInputOutput(input_layouts=Shard(0), desired_input_layouts=Replicate(),
        ...                          output_layouts=Replicate(), desired_output_layouts=Shard(0))
    """

    def __init__(self, *, input_layouts=None, desired_input_layouts=None,
                 input_kwarg_layouts=None, desired_input_kwarg_layouts=None,
                 use_local_input=False, output_layouts, desired_output_layouts,
                 use_local_output=True):
        self.prepare_module_input = PrepareModuleInput(
            input_layouts=input_layouts, desired_input_layouts=desired_input_layouts,
            input_kwarg_layouts=input_kwarg_layouts,
            desired_input_kwarg_layouts=desired_input_kwarg_layouts,
            use_local_output=use_local_input)
        self.prepare_module_output = PrepareModuleOutput(
            output_layouts=output_layouts, desired_output_layouts=desired_output_layouts,
            use_local_output=use_local_output)

    def _apply(self, module, device_mesh):
        self.prepare_module_input._apply(module, device_mesh)
        self.prepare_module_output._apply(module, device_mesh)
        return module
