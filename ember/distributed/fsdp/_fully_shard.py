"""FSDP2: ``fully_shard`` shards a module's parameters as DTensors (``Shard(0)`` over a 1-D
mesh); each forward all-gathers them (an autograd Function whose backward reduce-scatters,
averaging over ranks, the gradient into the sharded parameter's ``.grad``), and, with
``reshard_after_forward``, frees the gathered tensors after the forward and gathers them
again when the backward needs them (saved-tensor hooks)."""
import dataclasses

from ... import _tensor as _T
from ...autograd.function import Function
from ..tensor._api import (DTensor, _make, _plain, _redistribute_local, _reduce_scatter,
                           _default_mesh)
from ..tensor.placement_types import Shard, Replicate

__all__ = ['fully_shard', 'FSDPModule', 'MixedPrecisionPolicy', 'OffloadPolicy',
           'CPUOffloadPolicy']


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    """Dtypes FSDP uses: ``param_dtype`` for the gathered parameters (forward and backward
    compute), ``reduce_dtype`` for reducing gradients, ``output_dtype`` for the module's
    floating-point outputs; ``cast_forward_inputs`` casts floating-point inputs to
    ``param_dtype``. None keeps the original dtype.

    Example::

        >>> fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=ember.bfloat16))
    """
    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """No offloading (the default policy).

    Example::

        >>> fully_shard(model, offload_policy=OffloadPolicy())
    """


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters and gradients in host memory.

    NOTE: unlike PyTorch, ember's tensors already live in host memory on CPU, so this
    changes nothing.

    Example::

        >>> fully_shard(model, offload_policy=CPUOffloadPolicy())
    """
    pin_memory: bool = True


def _gather(p, dtype=None):
    full = _redistribute_local(_plain(p), p._spec, (Replicate(),))
    if full._data is p._data:
        full = full.clone()
    return full if dtype is None or full.dtype == dtype else full.to(dtype)


class _Unshard(Function):
    """All-gather a sharded parameter; backward: reduce-scatter (mean over ranks) of the
    gradient into a DTensor of the parameter's layout."""

    @staticmethod
    def forward(ctx, p, state):
        ctx.spec = p._spec
        ctx.state = state
        ctx.key = id(p)
        return _gather(p)

    @staticmethod
    def backward(ctx, g):
        spec, st = ctx.spec, ctx.state
        key = ctx.key
        g = g.contiguous()
        if not st.sync:     # set_requires_gradient_sync(False): accumulate, unreduced
            old = st.pending.get(key)
            st.pending[key] = g if old is None else old + g
            return None, None
        old = st.pending.pop(key, None)
        if old is not None:
            g = g + old
        dt = g.dtype
        if st.mp.reduce_dtype is not None and g.dtype != st.mp.reduce_dtype:
            g = g.to(st.mp.reduce_dtype)
        loc = _reduce_scatter(g, spec.mesh, 0, 0, 'avg')
        return _make(loc.to(dt), spec.mesh, spec.placements, spec.shape), None


class _State:
    def __init__(self, mesh, reshard, mp):
        self.mesh = mesh
        self.reshard = reshard
        self.mp = mp
        self.params = []          # (owner module, name, sharded DTensor parameter)
        self.fulls = None
        self.regathered = None
        self.hooks = None
        self.sync = True
        self.pending = {}         # id(param) -> unreduced gradient (no gradient sync)


class FSDPModule:
    """The class ``fully_shard`` mixes into a module's class (``FSDPLinear`` for an
    ``nn.Linear``...): its parameters are sharded DTensors, gathered for each forward.

    Example::

        >>> fully_shard(model)
        >>> isinstance(model, FSDPModule)
        True
    """

    def reshard(self):
        """Free the gathered parameters (they are gathered again when needed)."""
        st = self._fsdp_state
        st.fulls = None
        st.regathered = None

    def unshard(self, async_op=False):
        """Gather the parameters now (the next forward gathers them again).

        NOTE: unlike PyTorch, this gathers and discards: ember's forward always gathers.
        """
        st = self._fsdp_state
        for _, _, p in st.params:
            _gather(p)

    def set_reshard_after_forward(self, reshard_after_forward, recurse=True):
        """Whether to free the gathered parameters after the forward."""
        mods = self.modules() if recurse else [self]
        for m in mods:
            if isinstance(m, FSDPModule):
                m._fsdp_state.reshard = bool(reshard_after_forward)

    def set_requires_gradient_sync(self, requires_gradient_sync, *, recurse=True):
        """Whether the backward reduces gradients across ranks. With False (gradient
        accumulation steps) each rank accumulates its unsharded gradients, unreduced; the
        next backward with sync reduces them together with its own, into ``.grad``.

        NOTE: unlike PyTorch, ``.grad`` is not touched by unsynced backward passes (the
        accumulated gradient is held by the module until the synced one).
        """
        mods = self.modules() if recurse else [self]
        for m in mods:
            if isinstance(m, FSDPModule):
                m._fsdp_state.sync = bool(requires_gradient_sync)


def _pre_forward(module, args, kwargs):
    from ...autograd.grad_mode import _Mode
    from ...autograd.graph import saved_tensors_hooks
    st = module._fsdp_state
    fulls = []
    for owner, name, p in st.params:
        full = _Unshard.apply(p, st)
        if st.mp.param_dtype is not None and full.dtype != st.mp.param_dtype:
            full = full.to(st.mp.param_dtype)
        full._storage_obj()
        owner._parameters[name] = full
        fulls.append(full)
    st.fulls = fulls
    if st.reshard and _Mode.grad:
        st.regathered = None
        st.hooks = saved_tensors_hooks(lambda t: _pack(st, t), lambda x: _unpack(st, x))
        st.hooks.__enter__()
    if st.mp.param_dtype is not None and st.mp.cast_forward_inputs:
        args = tuple(a.to(st.mp.param_dtype) if isinstance(a, _T.Tensor) and
                     a.is_floating_point() else a for a in args)
    return args, kwargs


def _post_forward(module, args, output):
    st = module._fsdp_state
    if st.hooks is not None:
        st.hooks.__exit__(None, None, None)
        st.hooks = None
    for owner, name, p in st.params:
        owner._parameters[name] = p
    if st.reshard:
        st.fulls = None
    if st.mp.output_dtype is not None:
        if isinstance(output, _T.Tensor) and output.is_floating_point():
            output = output.to(st.mp.output_dtype)
    return output


class _Packed:
    __slots__ = ('i', 'shape', 'stride', 'offset')

    def __init__(self, i, t):
        self.i = i
        self.shape = tuple(t.shape)
        self.stride = t.stride()
        self.offset = t.storage_offset()


def _pack(st, t):
    fulls = st.fulls
    if fulls:
        s = t._storage_obj()
        for i, f in enumerate(fulls):
            if f._st is s:
                return _Packed(i, t)     # a gathered parameter (or a view): gather it again
    return t


def _unpack(st, x):
    if not isinstance(x, _Packed):
        return x
    from ...autograd.grad_mode import no_grad
    from ...autograd.engine import queue_callback
    if st.regathered is None:
        with no_grad():
            st.regathered = [_gather(p, st.mp.param_dtype) for _, _, p in st.params]

        def clear():
            st.regathered = None
        queue_callback(clear)
    full = st.regathered[x.i]
    return full.as_strided(x.shape, x.stride, x.offset)


def fully_shard(module, *, mesh=None, reshard_after_forward=True, shard_placement_fn=None,
                mp_policy=MixedPrecisionPolicy(), offload_policy=OffloadPolicy(),
                ignored_params=None):
    """Shard ``module``'s parameters (those not already managed by a ``fully_shard``-ed
    submodule) over ``mesh``: each becomes a DTensor ``Shard(0)`` parameter holding this
    rank's rows. Forward gathers them; backward reduce-scatters the gradients (their mean
    over ranks) into the sharded parameters' ``.grad``, so an optimizer built on
    ``module.parameters()`` updates only this rank's shard.

    Apply it to submodules (e.g. each transformer block) first, then to the root.

    Args:
        module (nn.Module or list of them): the module (changed in place and returned); its
            class becomes ``FSDP<Class>``, a subclass of :class:`FSDPModule`.
        mesh (DeviceMesh, optional): a 1-D mesh (default: the whole world).
        reshard_after_forward (bool): free the gathered parameters after the forward and
            gather them again in the backward (default True).
        shard_placement_fn (callable, optional): accepted; every parameter uses ``Shard(0)``.
        mp_policy (MixedPrecisionPolicy): dtypes of compute and gradient reduction.
        offload_policy (OffloadPolicy): accepted (CPU tensors live in host memory).
        ignored_params (set, optional): parameters left as they are.

    Returns:
        the module.

    Example::

        >>> for layer in model.layers:
        ...     fully_shard(layer)
        >>> fully_shard(model)
        >>> opt = ember.optim.Adam(model.parameters())
    """
    from ...nn.parameter import Parameter
    if isinstance(module, (list, tuple)):
        return [fully_shard(m, mesh=mesh, reshard_after_forward=reshard_after_forward,
                            mp_policy=mp_policy, offload_policy=offload_policy,
                            ignored_params=ignored_params) for m in module]
    mesh = mesh or _default_mesh()
    if mesh.ndim != 1:
        raise ValueError(f"fully_shard needs a 1-D mesh (HSDP is not supported), got "
                         f"{mesh.ndim} dimensions")
    if isinstance(module, FSDPModule):
        return module
    st = _State(mesh, bool(reshard_after_forward) if reshard_after_forward is not None
                else True, mp_policy)
    ignored = {id(p) for p in (ignored_params or ())}
    managed = set()
    for sub in module.modules():
        if sub is not module and isinstance(sub, FSDPModule):
            managed.update(id(m) for m in sub.modules())
    seen = set()
    for sub in module.modules():
        if id(sub) in managed:
            continue
        for name, p in list(sub._parameters.items()):
            if p is None or id(p) in ignored or isinstance(p, DTensor) or id(p) in seen:
                continue
            seen.add(id(p))
            d = Parameter(_shard(p, mesh), p.requires_grad)
            sub._parameters[name] = d
            st.params.append((sub, name, d))
    module._fsdp_state = st
    cls = module.__class__
    module.__class__ = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {})
    module.register_forward_pre_hook(_pre_forward, prepend=True, with_kwargs=True)
    module.register_forward_hook(_post_forward, always_call=True)
    return module


def _shard(p, mesh):
    from ..tensor._api import _Spec, _shard_local
    from ...autograd.grad_mode import no_grad
    with no_grad():
        loc = _shard_local(p.detach(), mesh, 0, 0) if p.dim() else p.detach().clone()
        if not loc.numel():
            loc = loc.new_empty(loc.shape)
    pl = (Shard(0),) if p.dim() else (Replicate(),)
    return _make(loc.contiguous(), mesh, pl, tuple(p.shape))


def register_fsdp_forward_method(module, method_name):
    """Make ``module.<method_name>`` gather the sharded parameters before it runs and free
    them after, as ``forward`` does (for methods such as ``generate`` that call the
    submodules without going through ``forward``). On a module that is not an
    :class:`FSDPModule` this does nothing.

    Args:
        module (nn.Module): the module whose method is patched (on the instance).
        method_name (str): the method's name.

    Example::

        >>> fully_shard(model)
        >>> register_fsdp_forward_method(model, 'generate')
    """
    if not isinstance(module, FSDPModule):
        return
    if not hasattr(module, method_name):
        raise ValueError(f"{type(module)} does not have a method {method_name}")
    inner = getattr(module, method_name)

    def patched(*args, **kwargs):
        args, kwargs = _pre_forward(module, args, kwargs)
        try:
            out = inner(*args, **kwargs)
        except BaseException:
            _post_forward(module, args, None)
            raise
        return _post_forward(module, args, out)
    patched.__name__ = getattr(inner, '__name__', method_name)
    patched.__doc__ = getattr(inner, '__doc__', None)
    setattr(module, method_name, patched)
