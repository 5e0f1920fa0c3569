"""``ember.distributed.fsdp.fully_sharded_data_parallel``: FSDP1, the
``FullyShardedDataParallel`` wrapper.

Each FSDP instance flattens the parameters of its module (those not inside a nested FSDP
instance) into one 1-D ``FlatParameter``, padded to a multiple of the world size; each rank
keeps its contiguous ``1/world`` piece as the parameter ``_fsdp_wrapped_module._flat_param``
(what ``model.parameters()`` and so an optimizer see). The forward all-gathers the flat
parameter (an autograd Function) and sets the module's original parameters as views of it;
its backward reduce-scatters the flat gradient (divided by the world size, as torch divides:
part before the sum, the rest after) into ``_flat_param.grad``. ``NO_SHARD`` keeps the whole
flat parameter on each rank and all-reduces the gradient. With ``use_orig_params`` the
module keeps its original parameters, viewing their parts of the flat piece; the flat
gradient is handed to them after each backward.
"""
import contextlib
import enum

from ...nn.modules.module import Module
from .api import (CPUOffload, FullOptimStateDictConfig, FullStateDictConfig, MixedPrecision,
                  OptimStateDictConfig, ShardingStrategy, StateDictConfig, StateDictSettings,
                  StateDictType, ShardedStateDictConfig, ShardedOptimStateDictConfig,
                  LocalStateDictConfig, LocalOptimStateDictConfig)

__all__ = ['FullyShardedDataParallel', 'OptimStateKeyType']

_WRAPPED = '_fsdp_wrapped_module'
_FLAT = '_flat_param'


class OptimStateKeyType(enum.Enum):
    """How an optimizer state dict is keyed: by parameter names or by parameter indices.

    Example::

        >>> OptimStateKeyType.PARAM_NAME.value
        1
    """
    PARAM_NAME = enum.auto()
    PARAM_ID = enum.auto()


def _clean(name):
    return name.replace(_WRAPPED + '.', '').replace('.' + _WRAPPED, '').replace(_WRAPPED, '')


def _predivide(ws):
    f = 1
    while ws % f == 0 and ws / f > f:
        f *= 2
    return f


def _autograd_fn():
    from ...autograd.function import Function

    class _Unshard(Function):
        """All-gather the flat shard; backward: reduce (scatter) the flat gradient."""

        @staticmethod
        def forward(ctx, flat, fsdp):
            ctx.fsdp = fsdp
            return fsdp._gather(flat.detach())

        @staticmethod
        def backward(ctx, g):
            return ctx.fsdp._reduce_grad(g), None
    return _Unshard


_FN = []


class FullyShardedDataParallel(Module):
    """Shard a module's parameters across the ranks of a process group (FSDP1).

    Each instance flattens its module's parameters (those not wrapped by a nested instance)
    into one flat parameter and keeps this rank's piece; the forward gathers the whole flat
    parameter and runs the module on it, the backward reduce-scatters the gradient into the
    piece (averaged over ranks). An optimizer built on ``model.parameters()`` then updates
    only this rank's piece.

    Args:
        module (nn.Module): the module to wrap (its parameters are replaced by views of the
            gathered flat parameter during forward and backward).
        process_group (ProcessGroup, optional): the ranks (default: the world).
        sharding_strategy (ShardingStrategy, optional): ``FULL_SHARD`` (default),
            ``SHARD_GRAD_OP`` or ``NO_SHARD``.
        cpu_offload (CPUOffload, optional): accepted.
        auto_wrap_policy (callable or ModuleWrapPolicy, optional): which submodules get
            their own FSDP instance (see :mod:`~ember.distributed.fsdp.wrap`).
        use_orig_params (bool): expose the original parameters (each a 1-D view of its part
            of this rank's flat piece, whole when unsharded; every parameter starts on a
            16-byte boundary of the flat parameter, as torch's) instead of the flat one.
        backward_prefetch, forward_prefetch, limit_all_gathers, device_id, param_init_fn,
            device_mesh: accepted.
        mixed_precision (MixedPrecision, optional): compute and reduction dtypes.
        ignored_modules (iterable of modules, optional): modules whose parameters are left
            as they are.
        sync_module_states (bool): broadcast rank 0's parameters and buffers first.
        ignored_states (iterable of parameters or modules, optional): left as they are.

    ``FULL_SHARD`` (and ``HYBRID_SHARD``) frees the gathered parameters after the forward:
    what the forward saved for backward from them is rebuilt by gathering again, once per
    instance, when the backward first needs it; ``SHARD_GRAD_OP`` keeps them until the
    backward has used them.

    NOTE: unlike PyTorch, there is no prefetching (``backward_prefetch``,
    ``forward_prefetch``) and an instance whose backward does not use its parameters does
    not gather them again; between forwards, without ``use_orig_params``,
    the module's original parameter attributes are zeros of their shapes broadcast from one
    element (torch's view freed memory): read the parameters with
    :meth:`summon_full_params` or ``state_dict()``; ``HYBRID_SHARD`` needs a 2-D ``device_mesh``
    (replicate, shard) or a ``(shard group, replicate group)`` pair; the
    ``SHARDED_STATE_DICT`` values are ``Shard(0)`` DTensors (torch's are ``ShardedTensor``).

    Example::

        >>> model = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
        >>> opt = ember.optim.Adam(model.parameters(), lr=1e-3)
        >>> model(x).sum().backward(); opt.step()
    """

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None,
                 auto_wrap_policy=None, backward_prefetch=None, mixed_precision=None,
                 ignored_modules=None, param_init_fn=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=True,
                 use_orig_params=False, ignored_states=None, device_mesh=None):
        from ... import distributed as dist
        from ...nn.parameter import Parameter
        if not isinstance(module, Module):
            raise TypeError(f"FSDP expects an nn.Module, got {type(module).__name__}")
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure "
                             "to call init_process_group.")
        strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        if ignored_modules is not None and ignored_states is not None:
            raise ValueError("Cannot pass both ignored_modules and ignored_states at the same "
                             "time. Please just pass ignored_states.")
        super().__init__()
        hybrid = strategy in (ShardingStrategy.HYBRID_SHARD,
                              ShardingStrategy._HYBRID_SHARD_ZERO2)
        rep_pg = None
        if hybrid:
            pg, rep_pg = _hybrid_groups(process_group, device_mesh)
        else:
            pg = device_mesh.get_group() if device_mesh is not None else process_group
        ign_mods, ign_params = [], set()
        for x in (ignored_modules or ignored_states or ()):
            if isinstance(x, Module):
                ign_mods.append(x)
            else:
                ign_params.add(id(x))
        for m in ign_mods:
            ign_params.update(id(p) for p in m.parameters())
        kw = dict(process_group=process_group, sharding_strategy=sharding_strategy,
                  cpu_offload=cpu_offload, backward_prefetch=backward_prefetch,
                  mixed_precision=mixed_precision, ignored_modules=None,
                  param_init_fn=param_init_fn, device_id=device_id,
                  sync_module_states=sync_module_states, forward_prefetch=forward_prefetch,
                  limit_all_gathers=limit_all_gathers, use_orig_params=use_orig_params,
                  device_mesh=device_mesh)
        if auto_wrap_policy is not None:
            from .wrap import _auto_wrap

            def make(m, extra):
                k = dict(kw)
                k.update(extra)
                k['ignored_states'] = [p for p in m.parameters() if id(p) in ign_params] or None
                return type(self)(m, **k)
            _auto_wrap(module, auto_wrap_policy, make, ign_mods, ign_params)
        self._pg = pg                 # the group sharding (HYBRID_SHARD: within a node)
        self._rep_pg = rep_pg         # HYBRID_SHARD: the group replicating (across nodes)
        self._rank = dist.get_rank(pg)
        self._ws = dist.get_world_size(pg)
        self._strategy = strategy
        self._shard_ws = 1 if strategy == ShardingStrategy.NO_SHARD else self._ws
        self._mp = mixed_precision
        self._cpu_offload = cpu_offload or CPUOffload()
        self._is_root = True
        self._sync = True
        self.__dict__['_pending'] = None
        self._summoned = False
        self._sd_type = StateDictType.FULL_STATE_DICT
        self._sd_cfg = FullStateDictConfig()
        self._osd_cfg = FullOptimStateDictConfig()
        self.add_module(_WRAPPED, module)
        nested = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        inside = set()
        for m in nested:
            m._is_root = False
            inside.update(id(x) for x in m.modules())
        # the parameters this instance flattens: (owner, attribute name, fqn in module,
        # shape, numel, offset); shared parameters once (later owners alias it)
        infos, aliases, seen, params = [], [], {}, []
        for mname, m in module.named_modules():
            if id(m) in inside:
                continue
            for pname, p in list(m._parameters.items()):
                if p is None or id(p) in ign_params:
                    continue
                fqn = f"{mname}.{pname}" if mname else pname
                if id(p) in seen:
                    aliases.append((m, pname, seen[id(p)]))
                    continue
                seen[id(p)] = len(infos)
                infos.append([m, pname, fqn, tuple(p.shape), p.numel(), 0])
                params.append(p)
        if sync_module_states:      # rank 0's values of the managed parameters and buffers
            for t in params + list(module.buffers()):
                dist.broadcast(t.detach(), 0, group=pg)
        for p in params:
            if not p.is_floating_point() and not p.is_complex():
                raise ValueError("Cannot flatten integer dtype tensors")
            if p.dtype != params[0].dtype:
                raise ValueError(f"Must flatten tensors with uniform dtype but got "
                                 f"{params[0].dtype} and {p.dtype}")
            if not use_orig_params and p.requires_grad != params[0].requires_grad:
                raise ValueError("Must flatten tensors with uniform `requires_grad` when "
                                 "`use_orig_params=False`")
        align = 0
        if use_orig_params and params:    # each parameter starts on a 16-byte boundary
            cdt = (mixed_precision.param_dtype if mixed_precision is not None and
                   mixed_precision.param_dtype is not None else params[0].dtype)
            align = 16 // cdt.itemsize
        off = 0
        for i in infos:
            if align and off % align:
                off += align - off % align
            i[5] = off
            off += i[4]
        self._infos, self._aliases, self._numel = infos, aliases, off
        self._padded = -(-off // self._shard_ws) * self._shard_ws if off else 0
        self.__dict__['_flat'] = None
        self._orig = bool(use_orig_params)
        self._qs = []
        if params:
            from ..._ops.creation import zeros
            from ...autograd.grad_mode import no_grad
            with no_grad():
                full = zeros(self._padded, dtype=params[0].dtype)
                for i, p in zip(infos, params):
                    full[i[5]:i[5] + i[4]].copy_(p.detach().reshape(-1))
                n = self._padded // self._shard_ws
                r = self._rank if self._shard_ws > 1 else 0
                shard = full[r * n:(r + 1) * n].clone()
            rg = any(p.requires_grad for p in params)
            for i in infos:
                del i[0]._parameters[i[1]]
            for m, name, _ in aliases:
                del m._parameters[name]
            self.__dict__['_flat'] = Parameter(shard, rg)
            if use_orig_params:
                self._make_orig(params)
            else:
                module.register_parameter(_FLAT, self._flat)
                self._set_placeholders()
        if mixed_precision is not None and mixed_precision.buffer_dtype is not None:
            for m in module.modules():
                if id(m) in inside:
                    continue
                for k, b in list(m._buffers.items()):
                    if b is not None and b.is_floating_point():
                        m._buffers[k] = b.to(mixed_precision.buffer_dtype)

    # ------------------------------------------------------------------ original parameters
    def _shard_start(self):
        n = self._padded // self._shard_ws
        return (self._rank * n if self._shard_ws > 1 else 0), n

    def _regions(self):
        """Per flattened parameter: ``(start, stop)`` of its elements held in this rank's
        shard, as offsets into the shard (empty ranges where it holds none)."""
        start, n = self._shard_start()
        out = []
        for *_x, numel, off in self._infos:
            lo, hi = max(off, start), min(off + numel, start + n)
            out.append((lo - start, hi - start) if hi > lo else (0, 0))
        return out

    def _make_orig(self, params):
        """``use_orig_params``: each original parameter becomes a parameter viewing its
        part of this rank's shard (1-D; its whole shape when unsharded); gradients reach them
        from the flat gradient after each backward."""
        from ...nn.parameter import Parameter
        flat = self._flat.detach()
        qs = []
        for (owner, name, _f, shape, numel, off), (a, b), p in zip(self._infos, self._regions(),
                                                                    params):
            data = flat[a:b]
            if self._shard_ws == 1:
                data = data.view(shape)
            q = Parameter(data, p.requires_grad)
            owner._parameters[name] = q
            qs.append(q)
        for owner, name, i in self._aliases:
            owner._parameters[name] = qs[i]
        self._qs = qs
        self._flat.register_post_accumulate_grad_hook(self._orig_grads)

    def _orig_grads(self, flat):
        g = flat.grad
        flat.grad = None
        if g is None:
            return
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for q, (a, b) in zip(self._qs, self._regions()):
                if not q.requires_grad:
                    continue
                piece = g[a:b].view(q.shape)
                q.grad = piece.clone() if q.grad is None else q.grad + piece

    def _restore_orig(self):
        for (owner, name, *_r), q in zip(self._infos, self._qs):
            owner.__dict__.pop(name, None)
            owner._parameters[name] = q
        for owner, name, i in self._aliases:
            owner.__dict__.pop(name, None)
            owner._parameters[name] = self._qs[i]

    # ------------------------------------------------------------------ flat parameter
    def _gather(self, shard, cast=True):
        from ... import distributed as dist
        from ..._ops.creation import empty
        if self._shard_ws == 1:
            full = shard.clone()
        else:
            full = empty(self._padded, dtype=shard.dtype)
            dist.all_gather_into_tensor(full, shard.contiguous(), group=self._pg)
        mp = self._mp
        if cast and mp is not None and mp.param_dtype is not None and \
                full.dtype != mp.param_dtype:
            full = full.to(mp.param_dtype)
        return full

    def _reduce_grad(self, g):
        from ... import distributed as dist
        from ..._ops.creation import empty
        g = g.contiguous()
        if not self._sync:          # no_sync(): accumulate the unsharded gradient, unreduced
            self.__dict__['_pending'] = g if self._pending is None else self._pending + g
            return None
        if self._pending is not None:
            g = g + self._pending
            self.__dict__['_pending'] = None
        dt = self._flat.dtype
        mp = self._mp
        rd = mp.reduce_dtype if mp is not None and mp.reduce_dtype is not None else \
            (mp.param_dtype if mp is not None and mp.param_dtype is not None else g.dtype)
        g = g.to(rd)
        total = self._ws * (dist.get_world_size(self._rep_pg) if self._rep_pg is not None else 1)
        pre = _predivide(total)
        post = total / pre
        if pre > 1:
            g = g / pre
        if self._shard_ws == 1:
            if self._ws > 1:
                g = g.clone()
                dist.all_reduce(g, group=self._pg)
            out = g
        else:
            out = empty(self._padded // self._ws, dtype=g.dtype)
            dist.reduce_scatter_tensor(out, g, group=self._pg)
        if self._rep_pg is not None and dist.get_world_size(self._rep_pg) > 1:
            out = out.clone() if out is g else out
            dist.all_reduce(out, group=self._rep_pg)
        if post > 1:
            out = out / post
        keep_low = mp is not None and mp.keep_low_precision_grads
        return out if keep_low else out.to(dt)

    def _unflatten(self, full, detach=False):
        out = []
        for _m, _n, _fqn, shape, numel, off in self._infos:
            v = full[off:off + numel].view(shape)
            out.append(v.detach() if detach else v)
        return out

    def _reshard_hooks(self, full):
        """FULL_SHARD: tensors the forward saves for backward that view the gathered flat
        parameter are kept as (shape, stride, offset) only; the backward gathers the flat
        parameter again (once) to rebuild them."""
        from ...autograd.graph import saved_tensors_hooks
        from ._fully_shard import _Packed
        st = full._storage_obj()
        cache = {}

        def pack(t):
            if t._storage_obj() is st:
                return _Packed(0, t)
            return t

        def unpack(x):
            if type(x) is not _Packed:
                return x
            if 'full' not in cache:
                from ...autograd.grad_mode import no_grad
                from ...autograd.engine import queue_callback
                with no_grad():
                    cache['full'] = self._gather(self._flat.detach())
                queue_callback(cache.clear)
            return cache['full'].as_strided(x.shape, x.stride, x.offset)
        return saved_tensors_hooks(pack, unpack)

    def _set_placeholders(self):
        """Between forwards the original parameter attributes hold no data: zeros of their
        shapes broadcast from one element (the gathered parameters are freed once the
        backward has used them)."""
        from ..._ops.creation import zeros
        z = zeros((), dtype=self._flat.dtype)
        self._set_views([z.expand(info[3]) for info in self._infos])

    def _set_views(self, views):
        for (m, name, *_), v in zip(self._infos, views):
            m._parameters.pop(name, None)
            m.__dict__[name] = v
        for m, name, i in self._aliases:
            m._parameters.pop(name, None)
            m.__dict__[name] = views[i]

    @property
    def module(self):
        """The wrapped module."""
        return self._modules[_WRAPPED]

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            inner = self.__dict__.get('_modules', {}).get(_WRAPPED)
            if inner is None:
                raise
            return getattr(inner, name)

    def __getitem__(self, key):
        return self._modules[_WRAPPED].__getitem__(key)

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """The FSDP instances in ``module`` (itself included), or only the outermost ones
        with ``root_only``.

        Example::

            >>> len(FSDP.fsdp_modules(model))
            4
        """
        out = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if root_only:
            inner = set()
            for m in out:
                inner.update(id(x) for x in m.modules() if x is not m)
            out = [m for m in out if id(m) not in inner]
        return out

    def check_is_root(self):
        """Whether this instance is not inside another FSDP instance.

        Example::

            >>> model.check_is_root()
            True
        """
        return self._is_root

    def apply(self, fn):
        """Call ``fn`` on every submodule and this module, with this instance's full
        parameters in place (written back to the shards afterwards), so that
        initialisation functions see and change the whole parameters.

        Example::

            >>> model.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear)
            ...             else None)
        """
        with FullyShardedDataParallel.summon_full_params(self, recurse=False, writeback=True):
            return super().apply(fn)

    def _fsdp_instances(self):
        return [m for m in self.modules() if isinstance(m, FullyShardedDataParallel)]

    # ------------------------------------------------------------------ forward
    def forward(self, *args, **kwargs):
        """Gather the flat parameter, run the wrapped module on it; the backward reduces the
        gradient into this rank's piece."""
        from ..._tensor import Tensor
        if self._flat is not None:
            if not _FN:
                _FN.append(_autograd_fn())
            full = _FN[0].apply(self._flat, self)
            self._set_views(self._unflatten(full))
        mp = self._mp
        if mp is not None and mp.param_dtype is not None and (
                mp.cast_forward_inputs or (self._is_root and mp.cast_root_forward_inputs)):
            def cast(a):
                return a.to(mp.param_dtype) if isinstance(a, Tensor) and \
                    a.is_floating_point() else a
            args = tuple(cast(a) for a in args)
            kwargs = {k: cast(v) for k, v in kwargs.items()}
        hooks = None
        if self._flat is not None and self._strategy in (
                ShardingStrategy.FULL_SHARD, ShardingStrategy.HYBRID_SHARD) and \
                self._flat.requires_grad and _grad_enabled():
            hooks = self._reshard_hooks(full)
            hooks.__enter__()
        try:
            return self._modules[_WRAPPED](*args, **kwargs)
        finally:
            if hooks is not None:
                hooks.__exit__(None, None, None)
            if self._flat is not None:
                if self._orig:
                    self._restore_orig()
                else:
                    self._set_placeholders()

    # ------------------------------------------------------------------ gradient sync
    @contextlib.contextmanager
    def no_sync(self):
        """Within this context the backward passes accumulate each rank's unsharded
        gradients without communicating; the first backward after it reduces them together
        with its own.

        NOTE: unlike PyTorch, ``.grad`` is not touched inside the context (the accumulated
        gradient is held until the synchronized backward).

        Example::

            >>> with model.no_sync():
            ...     model(x1).sum().backward()
            >>> model(x2).sum().backward()      # reduces both micro-batches' gradients
        """
        insts = self._fsdp_instances()
        old = [m._sync for m in insts]
        for m in insts:
            m._sync = False
        try:
            yield
        finally:
            for m, s in zip(insts, old):
                m._sync = s

    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Scale the gradients of all the flat parameters (this rank's pieces) so that the
        norm of the whole gradient, over every rank, is at most ``max_norm``.

        Args:
            max_norm (float): the largest norm allowed.
            norm_type (float): the norm's order (``inf`` for the max norm).

        Returns:
            Tensor: the total norm before clipping.

        Example::

            >>> norm = model.clip_grad_norm_(1.0)
        """
        from ... import distributed as dist
        from ..._ops.creation import tensor as _tensor
        from ...autograd.grad_mode import no_grad
        if not self._is_root:
            raise RuntimeError("`clip_grad_norm_()` should only be called on the root FSDP "
                               "instance")
        p = float(norm_type)
        inf = p == float('inf')
        sharded, whole, managed = [], [], set()
        for m in self._fsdp_instances():
            f = m._flat
            if f is None:
                continue
            mine = [q for q in m._qs] if m._orig else [f]
            managed.update(id(q) for q in mine)
            for q in mine:
                if q.grad is not None:
                    (whole if m._shard_ws == 1 else sharded).append(q.grad)
        for q in self.parameters():           # parameters FSDP does not manage
            if q.grad is not None and id(q) not in managed:
                whole.append(q.grad)
        dt = (sharded + whole)[0].dtype if sharded or whole else None

        def part(gs):
            if not gs:
                return 0.0
            if inf:
                return max(float(g.abs().max()) if g.numel() else 0.0 for g in gs)
            return sum(float((g.double().abs() ** p).sum()) for g in gs)
        loc = part(sharded)
        t = _tensor([loc], dtype=_float64())
        if sharded or self._ws > 1:
            dist.all_reduce(t, op=dist.ReduceOp.MAX if inf else dist.ReduceOp.SUM,
                            group=self._pg)
        other = part(whole)
        total = max(float(t[0]), other) if inf else (float(t[0]) + other) ** (1.0 / p)
        coef = float(max_norm) / (total + 1e-6)
        if coef < 1:
            with no_grad():
                for g in sharded + whole:
                    g.mul_(coef)
        from ... import _dtype as D
        return _tensor(total, dtype=dt if dt is not None else D.float32)

    # ------------------------------------------------------------------ full parameters
    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False,
                           offload_to_cpu=False, with_grads=False):
        """Within this context the FSDP instances of ``module`` hold their full original
        parameters (as parameters of their modules; ``named_parameters`` gives their
        original names); with ``writeback`` changes to them are sharded back on exit.

        Args:
            module (nn.Module): an FSDP instance or a module containing some.
            recurse (bool): nested instances too (default True).
            writeback (bool): keep changes made to the parameters (default True).
            rank0_only (bool): only rank 0 sees (and writes back) the full parameters.
            offload_to_cpu (bool): accepted.
            with_grads (bool): also gather the gradients into the parameters' ``.grad``.

        Example::

            >>> with FSDP.summon_full_params(model):
            ...     print(model[0].weight.shape)
        """
        from ...autograd.grad_mode import no_grad
        from ...nn.parameter import Parameter
        if writeback and rank0_only:
            raise NotImplementedError("writeback=True and rank0_only=True is not supported, "
                                      "as model parameter shapes will be different across "
                                      "ranks, and writing to them can lead to inconsistencies "
                                      "across ranks when the context is exited.")
        insts = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if not recurse:
            insts = insts[:1]
        insts = [m for m in insts if not m._summoned]
        done = []
        try:
            with no_grad():
                for m in insts:
                    m._summoned = True
                    done.append(m)
                    if m._flat is None:
                        continue
                    full = m._gather(m._flat.detach(), cast=False)
                    gfull = None
                    if with_grads and m._flat.grad is not None:
                        gfull = m._gather_grad(m._flat.grad)
                    show = not rank0_only or m._rank == 0
                    ps = []
                    views = m._unflatten(full) if show else None
                    gviews = m._unflatten(gfull) if show and gfull is not None else None
                    for k, (owner, name, *_r) in enumerate(m._infos):
                        owner.__dict__.pop(name, None)
                        if show:
                            p = Parameter(views[k].clone(), m._flat.requires_grad)
                            if gviews is not None:
                                p.grad = gviews[k].clone()
                            owner._parameters[name] = p
                            ps.append(p)
                    for owner, name, i in m._aliases:
                        owner.__dict__.pop(name, None)
                        if show:
                            owner._parameters[name] = ps[i]
                    m._modules[_WRAPPED]._parameters.pop(_FLAT, None)
                    m._summon_params = ps
            yield
        finally:
            with no_grad():
                for m in reversed(done):
                    m._summoned = False
                    if m._flat is None:
                        continue
                    ps = getattr(m, '_summon_params', [])
                    if writeback and ps:
                        from ..._ops.creation import zeros
                        full = zeros(m._padded, dtype=m._flat.dtype)
                        for (_o, _n, _f, _s, numel, off), p in zip(m._infos, ps):
                            full[off:off + numel].copy_(p.detach().reshape(-1))
                        n = m._padded // m._shard_ws
                        r = m._rank if m._shard_ws > 1 else 0
                        m._flat.detach().copy_(full[r * n:(r + 1) * n])
                    for owner, name, *_r in m._infos:
                        owner._parameters.pop(name, None)
                    for owner, name, _i in m._aliases:
                        owner._parameters.pop(name, None)
                    m._summon_params = []
                    if m._orig:
                        m._restore_orig()
                        continue
                    m._modules[_WRAPPED]._parameters[_FLAT] = m._flat
                    m._set_placeholders()

    def _gather_grad(self, g):
        from ... import distributed as dist
        from ..._ops.creation import empty
        if self._shard_ws == 1:
            return g.clone()
        full = empty(self._padded, dtype=g.dtype)
        dist.all_gather_into_tensor(full, g.contiguous(), group=self._pg)
        return full

    def named_parameters(self, prefix='', recurse=True, remove_duplicate=True):
        """``(name, parameter)`` pairs; inside :meth:`summon_full_params` the names are the
        original module's (without ``_fsdp_wrapped_module.``)."""
        for n, p in super().named_parameters(prefix, recurse, remove_duplicate):
            yield (_clean(n) if self._summoned else n), p

    # ------------------------------------------------------------------ state dicts
    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None,
                            optim_state_dict_config=None):
        """Set the state-dict type (and configs) of every FSDP instance in ``module``;
        returns the previous :class:`StateDictSettings`.

        Example::

            >>> FSDP.set_state_dict_type(model, StateDictType.SHARDED_STATE_DICT)
        """
        default = {StateDictType.FULL_STATE_DICT: (FullStateDictConfig,
                                                   FullOptimStateDictConfig),
                   StateDictType.SHARDED_STATE_DICT: (ShardedStateDictConfig,
                                                      ShardedOptimStateDictConfig),
                   StateDictType.LOCAL_STATE_DICT: (LocalStateDictConfig,
                                                    LocalOptimStateDictConfig)}
        if state_dict_type not in default:
            raise ValueError(f"Unsupported state_dict_type {state_dict_type}")
        cfg = state_dict_config or default[state_dict_type][0]()
        ocfg = optim_state_dict_config or default[state_dict_type][1]()
        if not isinstance(cfg, default[state_dict_type][0]):
            raise RuntimeError(f"Expected state_dict_config of type "
                               f"{default[state_dict_type][0]} but got {type(cfg)}")
        if not isinstance(ocfg, default[state_dict_type][1]):
            raise RuntimeError(f"Expected optim_state_dict_config of type "
                               f"{default[state_dict_type][1]} but got {type(ocfg)}")
        insts = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        prev = StateDictSettings(insts[0]._sd_type, insts[0]._sd_cfg,
                                 insts[0]._osd_cfg) if insts else None
        for m in insts:
            m._sd_type, m._sd_cfg, m._osd_cfg = state_dict_type, cfg, ocfg
        return prev

    @staticmethod
    def get_state_dict_type(module):
        """The :class:`StateDictSettings` of the FSDP instances in ``module``.

        Example::

            >>> FSDP.get_state_dict_type(model).state_dict_type
            <StateDictType.FULL_STATE_DICT: 1>
        """
        insts = [m for m in module.modules() if isinstance(m, FullyShardedDataParallel)]
        if not insts:
            raise ValueError("No FSDP modules in the model")
        return StateDictSettings(insts[0]._sd_type, insts[0]._sd_cfg, insts[0]._osd_cfg)

    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None,
                        optim_state_dict_config=None):
        """Within this context ``state_dict()``, ``load_state_dict()`` and the optimizer
        state-dict functions of the FSDP instances in ``module`` use ``state_dict_type``:
        ``FULL_STATE_DICT`` (whole tensors; ``FullStateDictConfig(rank0_only=True)``: on
        rank 0 only), ``SHARDED_STATE_DICT`` (each rank's piece of every original
        parameter) or ``LOCAL_STATE_DICT`` (the flat pieces).

        Example::

            >>> cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
            >>> with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
            ...     sd = model.state_dict()
        """
        prev = FullyShardedDataParallel.set_state_dict_type(
            module, state_dict_type, state_dict_config, optim_state_dict_config)
        try:
            yield
        finally:
            if prev is not None:
                FullyShardedDataParallel.set_state_dict_type(
                    module, prev.state_dict_type, prev.state_dict_config,
                    prev.optim_state_dict_config)

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """The state dict of the original module, in this instance's state-dict type (see
        :meth:`state_dict_type`); every rank must call it (it gathers).

        Example::

            >>> sd = model.state_dict()     # FULL_STATE_DICT: whole tensors
        """
        if self._summoned:
            return super().state_dict(*args, destination=destination, prefix=prefix,
                                      keep_vars=keep_vars)
        if self._sd_type == StateDictType.LOCAL_STATE_DICT:
            out = super().state_dict(*args, destination=destination, prefix=prefix,
                                     keep_vars=keep_vars)
            return type(out)((_clean(k), v) for k, v in out.items())
        full = {}
        with FullyShardedDataParallel.summon_full_params(self, writeback=False):
            for k, v in Module.state_dict(self).items():
                full[_clean(k)] = v if keep_vars else v.detach().clone()
        from collections import OrderedDict
        out = OrderedDict() if destination is None else destination
        if self._sd_type == StateDictType.SHARDED_STATE_DICT:
            params = self._managed_fqns()
            for k, v in full.items():
                out[prefix + k] = self._shard_of(v) if k in params else v
        elif not (getattr(self._sd_cfg, 'rank0_only', False) and self._rank != 0):
            for k, v in full.items():
                out[prefix + k] = v
        return out

    def _managed_fqns(self):
        return set(self._fqn_map())

    def _fqn_map(self):
        """``clean fqn -> (FSDP instance, index in its infos)`` of the flattened parameters."""
        out = {}
        for name, m in self.named_modules():
            if isinstance(m, FullyShardedDataParallel):
                pre = _clean(name)
                for i, info in enumerate(m._infos):
                    out[(pre + '.' if pre else '') + _clean(info[2])] = (m, i)
        return out

    def _shard_of(self, v):
        from ..tensor._api import _make, _shard_local, _default_mesh
        from ..tensor.placement_types import Shard, Replicate
        mesh = _default_mesh() if self._pg is None else _mesh_of(self._pg)
        if not v.dim():
            return _make(v, mesh, (Replicate(),), ())
        return _make(_shard_local(v, mesh, 0, 0).contiguous(), mesh, (Shard(0),), v.shape)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Load a state dict of this instance's state-dict type (whole tensors, or DTensor
        pieces for ``SHARDED_STATE_DICT``) into the sharded parameters.

        Example::

            >>> model.load_state_dict(full_sd)
        """
        from ..tensor._api import DTensor
        if self._summoned:
            return super().load_state_dict(state_dict, strict=strict, assign=assign)
        if self._sd_type == StateDictType.LOCAL_STATE_DICT:
            own = {_clean(k): k for k in Module.state_dict(self)}
            return super().load_state_dict({own.get(k, k): v for k, v in state_dict.items()},
                                           strict=strict)
        sd = {k: (v.full_tensor() if isinstance(v, DTensor) else v)
              for k, v in state_dict.items()}
        with FullyShardedDataParallel.summon_full_params(self, writeback=True):
            own = {_clean(k): k for k in Module.state_dict(self)}
            res = Module.load_state_dict(self, {own.get(k, k): v for k, v in sd.items()},
                                         strict=strict)
        return res

    # ------------------------------------------------------------------ optimizer state
    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """The optimizer state keyed by parameter names, whole (the older form of
        :meth:`optim_state_dict` with ``FULL_STATE_DICT``); ``{}`` on ranks other than 0
        with ``rank0_only``.

        Example::

            >>> osd = FSDP.full_optim_state_dict(model, opt)
        """
        return _with_type(model, StateDictType.FULL_STATE_DICT,
                          FullOptimStateDictConfig(rank0_only=rank0_only),
                          lambda: FullyShardedDataParallel.optim_state_dict(model, optim))

    @staticmethod
    def sharded_optim_state_dict(model, optim, group=None):
        """The optimizer state keyed by parameter names, each rank's pieces (the older form of
        :meth:`optim_state_dict` with ``SHARDED_STATE_DICT``).

        Example::

            >>> osd = FSDP.sharded_optim_state_dict(model, opt)
        """
        return _with_type(model, StateDictType.SHARDED_STATE_DICT, ShardedOptimStateDictConfig(),
                          lambda: FullyShardedDataParallel.optim_state_dict(model, optim))

    @staticmethod
    def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
        """This rank's loadable optimizer state from a full one (the older form of
        :meth:`optim_state_dict_to_load`); the parameter order is ``optim``'s, else
        ``optim_input``'s, else ``model.parameters()``.

        Example::

            >>> opt.load_state_dict(FSDP.shard_full_optim_state_dict(full, model, optim=opt))
        """
        return FullyShardedDataParallel.optim_state_dict_to_load(
            model, optim if optim is not None else _Groups(model, optim_input),
            full_optim_state_dict)

    @staticmethod
    def flatten_sharded_optim_state_dict(sharded_optim_state_dict, model, optim):
        """This rank's loadable optimizer state from a sharded one.

        Example::

            >>> opt.load_state_dict(FSDP.flatten_sharded_optim_state_dict(osd, model, opt))
        """
        return FullyShardedDataParallel.optim_state_dict_to_load(model, optim,
                                                                 sharded_optim_state_dict)

    @staticmethod
    def scatter_full_optim_state_dict(full_optim_state_dict, model, optim_input=None,
                                      optim=None, group=None):
        """Rank 0's full optimizer state, sent to every rank, as each rank's loadable state.

        Example::

            >>> osd = FSDP.scatter_full_optim_state_dict(full if rank == 0 else None, model,
            ...                                          optim=opt)
        """
        from ... import distributed as dist
        root = _root(model)
        box = [full_optim_state_dict if root._rank == 0 else None]
        dist.broadcast_object_list(box, src=dist.get_global_rank(root._pg, 0)
                                   if root._pg is not None else 0, group=root._pg)
        return FullyShardedDataParallel.shard_full_optim_state_dict(box[0], model, optim_input,
                                                                    optim)

    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state keyed by the original parameters' names, in the model's
        state-dict type: whole tensors (``FULL_STATE_DICT``; rank 0 only with
        ``FullOptimStateDictConfig(rank0_only=True)``) or each rank's pieces as DTensors
        (``SHARDED_STATE_DICT``). Every rank must call it.

        Args:
            model (nn.Module): the FSDP model the optimizer trains.
            optim (Optimizer): the optimizer (on the flat parameters).
            optim_state_dict (dict, optional): ``optim.state_dict()`` (taken if None).
            group: accepted.

        Example::

            >>> osd = FSDP.optim_state_dict(model, opt)
            >>> osd['state']['0.weight']['exp_avg'].shape
            torch.Size([10, 6])
        """
        from ..._tensor import Tensor
        root = _root(model)
        osd = optim_state_dict if optim_state_dict is not None else optim.state_dict()
        flats = {}
        for m in root._fsdp_instances():
            if m._flat is not None:
                flats[id(m._flat)] = m
        pre = {id(m): _clean(n) for n, m in root.named_modules()
               if isinstance(m, FullyShardedDataParallel)}
        order = [p for g in optim.param_groups for p in g['params']]
        names = {id(p): _clean(n) for n, p in model.named_parameters()}
        sharded = root._sd_type == StateDictType.SHARDED_STATE_DICT
        rank0 = getattr(root._osd_cfg, 'rank0_only', False) and not sharded
        state, groups = {}, []

        def fq(m, info):
            p = pre[id(m)]
            return (p + '.' if p else '') + _clean(info[2])
        orig = {id(q): (m, j) for m in root._fsdp_instances() if m._orig
                for j, q in enumerate(m._qs)}
        index = {id(p): i for i, p in enumerate(order)}
        for m in root._fsdp_instances():      # use_orig_params: per original parameter
            if not m._orig or m._flat is None:
                continue
            sts = [osd['state'].get(index.get(id(q))) for q in m._qs]
            j0 = next((j for j, x in enumerate(sts) if x), None)
            if j0 is None:
                continue
            ref = sts[j0]
            per = [dict() for _ in m._infos]
            for k in ref:
                v0 = ref[k]
                if isinstance(v0, Tensor) and v0.dim() and \
                        tuple(v0.shape) == tuple(m._qs[j0].shape):
                    buf = _zeros(m._padded // m._shard_ws, v0.dtype)
                    for st, (a, b) in zip(sts, m._regions()):
                        if st and b > a:
                            buf[a:b].copy_(st[k].detach().reshape(-1))
                    full = m._gather_grad(buf)
                    for j, view in enumerate(m._unflatten(full)):
                        per[j][k] = root._shard_of(view.clone()) if sharded else view.clone()
                else:
                    for j in range(len(m._infos)):
                        per[j][k] = v0.clone() if isinstance(v0, Tensor) else v0
            for info, d in zip(m._infos, per):
                state[fq(m, info)] = d
        for i, p in enumerate(order):
            st = osd['state'].get(i)
            m = flats.get(id(p))
            if id(p) in orig:
                continue
            if m is None:
                if st is not None:
                    state[names.get(id(p), str(i))] = st
                continue
            if st is None:
                continue
            per = [dict() for _ in m._infos]
            for k, v in st.items():
                if isinstance(v, Tensor) and v.dim() == 1 and v.numel() == p.numel() and \
                        p.numel():
                    full = m._gather_grad(v.detach())
                    for j, view in enumerate(m._unflatten(full)):
                        per[j][k] = root._shard_of(view.clone()) if sharded else view.clone()
                else:
                    for j in range(len(m._infos)):
                        per[j][k] = v.clone() if isinstance(v, Tensor) else v
            for info, d in zip(m._infos, per):
                state[fq(m, info)] = d
        for g, sg in zip(optim.param_groups, osd['param_groups']):
            d = {k: v for k, v in sg.items() if k != 'params'}
            ps = []
            for p in g['params']:
                m = flats.get(id(p))
                if id(p) in orig:
                    ps.append(fq(orig[id(p)][0], orig[id(p)][0]._infos[orig[id(p)][1]]))
                elif m is None:
                    ps.append(names.get(id(p)))
                else:
                    ps.extend(fq(m, info) for info in m._infos)
            d['params'] = ps
            groups.append(d)
        if rank0 and root._rank != 0:
            return {}
        return {'state': state, 'param_groups': groups}

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False,
                                 load_directly=False, group=None):
        """Turn an optimizer state dict from :meth:`optim_state_dict` (keyed by names, whole
        tensors or DTensor pieces) into one ``optim.load_state_dict`` takes for this rank's
        flat pieces; with ``load_directly`` load it too.

        Example::

            >>> osd = FSDP.optim_state_dict_to_load(model, opt, saved)
            >>> opt.load_state_dict(osd)
        """
        from ..._tensor import Tensor
        from ..._ops.creation import zeros
        from ..tensor._api import DTensor
        root = _root(model)
        flats = {id(m._flat): m for m in root._fsdp_instances() if m._flat is not None}
        pre = {id(m): _clean(n) for n, m in root.named_modules()
               if isinstance(m, FullyShardedDataParallel)}
        names = {id(p): _clean(n) for n, p in model.named_parameters()}
        order = [p for g in optim.param_groups for p in g['params']]
        saved = optim_state_dict['state']

        def fq(m, info):
            p = pre[id(m)]
            return (p + '.' if p else '') + _clean(info[2])
        state = {}
        orig = {id(q): (m, j) for m in root._fsdp_instances() if m._orig
                for j, q in enumerate(m._qs)}
        for i, p in enumerate(order):
            m = flats.get(id(p))
            if id(p) in orig:
                m, j = orig[id(p)]
                d = saved.get(fq(m, m._infos[j]))
                if d is None:
                    continue
                a, b = m._regions()[j]
                start, _n = m._shard_start()
                off = m._infos[j][5]
                st = {}
                for k, v in d.items():
                    if isinstance(v, DTensor):
                        v = v.full_tensor()
                    if isinstance(v, Tensor) and v.dim() > 0:
                        flat_v = v.reshape(-1)
                        lo, hi = (start + a - off, start + b - off) if b > a else (0, 0)
                        st[k] = flat_v[lo:hi].clone().view(p.shape)
                    else:
                        st[k] = v
                state[i] = st
                continue
            if m is None:
                if names.get(id(p)) in saved:
                    state[i] = saved[names[id(p)]]
                continue
            per = [saved.get(fq(m, info)) for info in m._infos]
            if all(d is None for d in per):
                continue
            keys = next(d for d in per if d is not None).keys()
            st = {}
            for k in keys:
                vals = [d[k] for d in per]
                v0 = vals[0]
                if isinstance(v0, Tensor) and v0.dim() > 0:     # per-element state
                    full = zeros(m._padded, dtype=v0.dtype)
                    for v, info in zip(vals, m._infos):
                        v = v.full_tensor() if isinstance(v, DTensor) else v
                        full[info[5]:info[5] + info[4]].copy_(v.reshape(-1))
                    n = m._padded // m._shard_ws
                    r = m._rank if m._shard_ws > 1 else 0
                    st[k] = full[r * n:(r + 1) * n].clone()
                else:
                    st[k] = v0.full_tensor() if isinstance(v0, DTensor) else v0
            state[i] = st
        groups = []
        start = 0
        for g, sg in zip(optim.param_groups, optim_state_dict['param_groups']):
            d = {k: v for k, v in sg.items() if k != 'params'}
            d['params'] = list(range(start, start + len(g['params'])))
            start += len(g['params'])
            groups.append(d)
        out = {'state': state, 'param_groups': groups}
        if load_directly:
            optim.load_state_dict(out)
        return out


class _Groups:
    """An optimizer's ``param_groups`` stand-in (from ``optim_input`` or the model)."""

    def __init__(self, model, optim_input):
        if optim_input is None:
            self.param_groups = [{'params': list(model.parameters())}]
        else:
            groups = list(optim_input)
            if groups and isinstance(groups[0], dict):
                self.param_groups = [dict(g, params=list(g['params'])) for g in groups]
            else:
                self.param_groups = [{'params': groups}]


def _with_type(model, typ, cfg, fn):
    F = FullyShardedDataParallel
    prev = F.get_state_dict_type(model)
    F.set_state_dict_type(model, typ, None, cfg)
    try:
        return fn()
    finally:
        F.set_state_dict_type(model, prev.state_dict_type, prev.state_dict_config,
                              prev.optim_state_dict_config)


def _hybrid_groups(process_group, device_mesh):
    """(shard group, replicate group) of HYBRID_SHARD."""
    if device_mesh is not None:
        if device_mesh.ndim != 2:
            raise ValueError(f"Expected device_mesh to have ndim=2 but got {device_mesh.ndim}")
        return device_mesh.get_group(1), device_mesh.get_group(0)
    if isinstance(process_group, tuple) and len(process_group) == 2:
        return process_group
    raise NotImplementedError("FSDP in ember: HYBRID_SHARD needs a 2-D device_mesh "
                              "(replicate, shard) or a (shard group, replicate group) pair")


def _grad_enabled():
    from ...autograd.grad_mode import _Mode
    return _Mode.grad


def _zeros(n, dtype):
    from ..._ops.creation import zeros
    return zeros(n, dtype=dtype)


def _root(model):
    for m in model.modules():
        if isinstance(m, FullyShardedDataParallel):
            return m
    raise ValueError("the model has no FullyShardedDataParallel instance")


def _float64():
    from ... import _dtype as D
    return D.float64


def _mesh_of(pg):
    from .._device_mesh import DeviceMesh
    from ... import distributed as dist
    return DeviceMesh('cpu', list(dist.get_process_group_ranks(pg)))
