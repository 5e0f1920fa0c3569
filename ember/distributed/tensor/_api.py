"""``DTensor``: a tensor laid out over a :class:`DeviceMesh` by one placement per mesh
dimension, its redistribution, and ``distribute_tensor`` / ``distribute_module``.

How it works in ember: a DTensor is a ``Tensor`` subclass whose array (``_data``) is this
rank's local shard, while ``shape``/``size()``/``dim()``/``numel()`` are the global ones.
Ops reach ``DTensor.__torch_function__`` through ember's op seam; the sharding rules of
``_sharding.py`` choose the placements the inputs must have (redistributing them, which is
differentiable) and the output's placements, run the op on the local shards, and record one
autograd node per op (``_LocalOp``) whose backward runs the local op's backward and maps the
gradients' placements (a sharded input gets a sharded gradient, a replicated one the sum of
the ranks' contributions). Optimizers update the local shards in place, as in torch.
"""
import math
import warnings

from ... import _tensor as _T
from ...autograd.function import Function
from .placement_types import Placement, Shard, Replicate, Partial

__all__ = ['DTensor', 'distribute_tensor', 'distribute_module']


# ----------------------------------------------------------------------------- layout
def _norm_dim(d, nd):
    return d + nd if d < 0 else d


def _chunk(size, n, c):
    """(length, offset) of chunk ``c`` of ``n`` of a dimension of ``size`` (torch.chunk)."""
    full = -(-size // n) if size else 0
    start = c * full
    length = max(0, min(size, start + full) - start)
    return length, (start if length else size)


class _Spec:
    """Mesh, placements and global shape of a DTensor."""
    __slots__ = ('mesh', 'placements', 'shape')

    def __init__(self, mesh, placements, shape):
        self.mesh = mesh
        self.placements = tuple(placements)
        self.shape = tuple(int(s) for s in shape)

    def local_shape(self):
        return _local_shape_offset(self.shape, self.mesh, self.placements)[0]

    def __repr__(self):
        return f"Spec({self.placements}, {self.shape})"


def _local_shape_offset(global_shape, mesh, placements):
    shape = list(global_shape)
    off = [0] * len(shape)
    coord = mesh.get_coordinate()
    if coord is None:
        return (0,), ()
    for i, p in enumerate(placements):
        if isinstance(p, Shard):
            d = _norm_dim(p.dim, len(shape))
            length, o = _chunk(shape[d], mesh.size(i), coord[i])
            off[d] = off[d] + o if length else global_shape[d]
            shape[d] = length
    return tuple(shape), tuple(off)


def _normalize_placements(placements, mesh, ndim):
    if placements is None:
        return (Replicate(),) * mesh.ndim
    placements = tuple(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! "
                         f"Found placements length: {len(placements)}, and device_mesh.ndim: "
                         f"{mesh.ndim}.")
    out = []
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"placements must be Placement objects, got {type(p).__name__}")
        if isinstance(p, Shard) and p.dim < 0:
            if ndim == 0:
                raise IndexError("Shard of a 0-dim tensor")
            p = type(p)(p.dim + ndim) if type(p) is Shard else p
        out.append(p)
    return tuple(out)


# ----------------------------------------------------------------------------- local pieces
def _plain(dt):
    """A plain tensor sharing ``dt``'s local array and version counter, outside any graph."""
    t = _T._new_tensor(dt._data)
    t._st = dt._storage_obj()
    return t


def _make(local, mesh, placements, shape):
    """A DTensor around the plain tensor ``local`` (sharing its memory; no autograd)."""
    if not _OBSERVING:
        _observe()
    if not local._data.size:    # an empty shard: canonical strides (as its gradient will have)
        local = local.new_empty(local.shape)
    t = _T._new_tensor(local._data, DTensor)
    t._st = local._storage_obj()
    t.__dict__['_spec'] = _Spec(mesh, placements, shape)
    return t


def _group(mesh, i):
    return mesh.get_group(i)


def _redop(op):
    from .. import ReduceOp
    return {'sum': ReduceOp.SUM, 'avg': ReduceOp.AVG, 'max': ReduceOp.MAX,
            'min': ReduceOp.MIN, 'product': ReduceOp.PRODUCT}[op]


def _size_at(shape, mesh, placements, i, d):
    """The size of tensor dim ``d`` seen by mesh dim ``i``: after the splits of the mesh
    dims before ``i`` that shard ``d``."""
    size = shape[d]
    coord = mesh.get_coordinate()
    for k in range(i):
        p = placements[k]
        if isinstance(p, Shard) and p.dim == d:
            size = _chunk(size, mesh.size(k), coord[k])[0]
    return size


def _all_gather(x, mesh, i, d, size):
    """Concatenate along ``d`` the (torch.chunk-split) pieces of the ranks of mesh dim ``i``;
    ``size`` is the concatenated size."""
    from ... import empty, cat
    from ..distributed_c10d import all_gather_into_tensor
    n = mesh.size(i)
    if n == 1:
        return x
    full = -(-size // n) if size else 0
    xt = x.movedim(d, 0) if d else x
    if xt.shape[0] < full:
        pad = list(xt.shape)
        pad[0] = full - xt.shape[0]
        xt = cat([xt, xt.new_zeros(pad)], 0)
    xt = xt.contiguous()
    buf = empty((n * full,) + tuple(xt.shape[1:]), dtype=x.dtype)
    all_gather_into_tensor(buf, xt, _group(mesh, i))
    if n * full != size:   # the padding is after the last non-empty piece
        buf = buf.narrow(0, 0, size)
    return buf.movedim(0, d).contiguous() if d else buf


def _reduce_scatter(x, mesh, i, d, op):
    from ... import empty, cat
    from ..distributed_c10d import reduce_scatter_tensor, all_reduce
    n = mesh.size(i)
    c = mesh.get_coordinate()[i]
    size = x.shape[d]
    length, start = _chunk(size, n, c)
    if n == 1:
        return x
    if op in ('max', 'min', 'product'):
        y = x.detach().clone()
        all_reduce(y, _redop(op), _group(mesh, i))
        return y.narrow(d, start if length else 0, length).clone()
    full = -(-size // n) if size else 0
    xt = x.movedim(d, 0) if d else x
    if xt.shape[0] < n * full:
        pad = list(xt.shape)
        pad[0] = n * full - xt.shape[0]
        xt = cat([xt, xt.new_zeros(pad)], 0)
    xt = xt.contiguous()
    out = empty((full,) + tuple(xt.shape[1:]), dtype=x.dtype)
    reduce_scatter_tensor(out, xt, _redop(op), _group(mesh, i))
    out = out.narrow(0, 0, length)
    return (out.movedim(0, d) if d else out).contiguous()


def _all_reduce(x, mesh, i, op):
    from ..distributed_c10d import all_reduce
    y = x.detach().clone()
    all_reduce(y, _redop(op), _group(mesh, i))
    return y


def _shard_local(x, mesh, i, d):
    n = mesh.size(i)
    length, start = _chunk(x.shape[d], n, mesh.get_coordinate()[i])
    return x.narrow(d, start if length else 0, length).clone()


def _to_partial(x, mesh, i, op):
    if op == 'sum' and mesh.get_coordinate()[i] != 0:
        return x.new_zeros(x.shape)
    return x


def _redistribute_local(local, spec, dst):
    """This rank's piece of the tensor of ``spec`` laid out by placements ``dst``."""
    from ...autograd.grad_mode import no_grad
    mesh, src = spec.mesh, list(spec.placements)
    dst = list(dst)
    if src == dst:
        return local
    nd = len(spec.shape)
    todo = {i for i in range(mesh.ndim) if src[i] != dst[i]}
    # shards nest in mesh-dim order: a later mesh dim that shards a tensor dim which an
    # unwound mesh dim shards (before or after) must be unwound too
    changed = True
    while changed:
        changed = False
        for i in list(todo):
            dims = {p.dim for p in (src[i], dst[i]) if isinstance(p, Shard)}
            for j in range(i + 1, mesh.ndim):
                if j not in todo and isinstance(src[j], Shard) and src[j].dim in dims:
                    todo.add(j)
                    changed = True
    cur = list(src)
    x = local
    with no_grad():
        for i in sorted(todo, reverse=True):      # un-shard, innermost mesh dim first
            p = cur[i]
            if isinstance(p, Shard):
                d = _norm_dim(p.dim, nd)
                x = _all_gather(x, mesh, i, d, _size_at(spec.shape, mesh, cur, i, d))
                cur[i] = Replicate()
        for i in sorted(todo):                    # then lay out, outermost first
            p, q = cur[i], dst[i]
            if p == q:
                continue
            if isinstance(p, Partial):
                if isinstance(q, Shard):
                    x = _reduce_scatter(x, mesh, i, _norm_dim(q.dim, nd), p.reduce_op)
                else:
                    x = _all_reduce(x, mesh, i, p.reduce_op)
                    if isinstance(q, Partial):
                        x = _to_partial(x, mesh, i, q.reduce_op)
            elif isinstance(q, Shard):
                x = _shard_local(x, mesh, i, _norm_dim(q.dim, nd))
            elif isinstance(q, Partial):
                x = _to_partial(x, mesh, i, q.reduce_op)
            cur[i] = q
    return x


def _relaxed(placements):
    """The placements a gradient is returned in: Partial inputs get a replicated one."""
    return tuple(Replicate() if isinstance(p, Partial) else p for p in placements)


def _as_dtensor_grad(g, spec):
    """A gradient for a DTensor of ``spec``: plain tensors are its local piece (with
    Partial read as Replicate)."""
    if g is None or isinstance(g, DTensor):
        return g
    return _make(g, spec.mesh, _relaxed(spec.placements), spec.shape)


def _redistribute_nograd(dt, placements):
    loc = _redistribute_local(_plain(dt), dt._spec, placements)
    return _make(loc, dt._spec.mesh, placements, dt._spec.shape)


class _Redistribute(Function):
    @staticmethod
    def forward(ctx, x, placements):
        ctx.spec = x._spec
        loc = _redistribute_local(_plain(x), x._spec, placements)
        if loc._data is x._data:
            loc = _T._new_tensor(loc._data)
            loc._st = x._storage_obj()
        return _make(loc, x._spec.mesh, placements, x._spec.shape)

    @staticmethod
    def backward(ctx, g):
        g = _as_dtensor_grad(g, ctx.spec)
        return _redistribute_nograd(g, _relaxed(ctx.spec.placements)), None


class _ToLocal(Function):
    @staticmethod
    def forward(ctx, x, grad_placements):
        ctx.spec = x._spec
        ctx.gp = grad_placements
        return _plain(x)

    @staticmethod
    def backward(ctx, g):
        s = ctx.spec
        gp = tuple(ctx.gp) if ctx.gp is not None else _relaxed(s.placements)
        dt = _make(g, s.mesh, gp, s.shape)
        if gp != _relaxed(s.placements):
            dt = _redistribute_nograd(dt, _relaxed(s.placements))
        return dt, None


class _FromLocal(Function):
    @staticmethod
    def forward(ctx, local, mesh, placements, shape):
        ctx.spec = _Spec(mesh, placements, shape)
        t = _T._new_tensor(local._data)
        t._st = local._storage_obj()
        return _make(t, mesh, placements, shape)

    @staticmethod
    def backward(ctx, g):
        g = _as_dtensor_grad(g, ctx.spec)
        g = _redistribute_nograd(g, _relaxed(ctx.spec.placements))
        return _plain(g), None, None, None


# ----------------------------------------------------------------------------- DTensor
_GRAD_SLOT = _T.Tensor.__dict__['_grad']


class DTensor(_T.Tensor):
    """A tensor distributed over a :class:`DeviceMesh`: one :class:`Placement` per mesh
    dimension says how this rank's local tensor relates to the global one (``Shard(dim)``:
    a chunk along ``dim``; ``Replicate()``: the whole tensor; ``Partial(op)``: a part, the
    tensor being the reduction of the parts).

    ``shape``, ``size()``, ``dim()`` and ``numel()`` are the global tensor's; ops on
    DTensors compute on the local shards and give DTensors (see the module's docstring);
    autograd works through them, and gradients of DTensor parameters are DTensors of the same
    placements.

    Create one with :func:`distribute_tensor` or :meth:`DTensor.from_local`.

    NOTE: unlike PyTorch, ops reach DTensor through ``__torch_function__`` (ember has no
    dispatcher below autograd), and an op without a sharding rule computes on the full
    tensor on every rank (with a warning) instead of raising.

    Example::

        >>> mesh = init_device_mesh('cpu', (2,))
        >>> d = distribute_tensor(ember.arange(4.), mesh, [Shard(0)])
        >>> d.to_local()          # on rank 1
        tensor([2., 3.])
        >>> (d * 2).full_tensor()
        tensor([0., 2., 4., 6.])
    """
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("DTensor: build it with distribute_tensor() or DTensor.from_local()")

    # -- metadata: the global tensor's
    @property
    def shape(self):
        """The global shape."""
        from ... import Size
        return Size(self._spec.shape)

    def size(self, dim=None):
        """The global size (of ``dim``)."""
        if dim is None:
            return self.shape
        nd = len(self._spec.shape)
        if not -max(nd, 1) <= dim < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-nd}, {nd - 1}], but got {dim})")
        return self._spec.shape[_norm_dim(dim, nd)]

    def dim(self):
        """The number of global dimensions."""
        return len(self._spec.shape)

    ndimension = dim

    @property
    def ndim(self):
        """The number of global dimensions."""
        return len(self._spec.shape)

    def numel(self):
        """The number of elements of the global tensor."""
        return math.prod(self._spec.shape)

    nelement = numel

    def __len__(self):
        if not self._spec.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._spec.shape[0]

    def stride(self, dim=None):
        """The contiguous strides of the global shape."""
        st = _T._contiguous_strides(self._spec.shape)
        return st if dim is None else st[_norm_dim(dim, len(st))]

    @property
    def T(self):
        return self.permute(*reversed(range(self.dim())))

    @property
    def data(self):
        """A DTensor sharing this one's local data, outside the graph."""
        return _make(_plain(self), self._spec.mesh, self._spec.placements, self._spec.shape)

    @data.setter
    def data(self, other):
        if not isinstance(other, DTensor):
            raise RuntimeError("data set to a tensor that is not a DTensor")
        self._data = other._data
        self._st = other._storage_obj()
        self.__dict__['_spec'] = other._spec

    @property
    def device_mesh(self):
        """The :class:`DeviceMesh` the tensor is laid out on."""
        return self._spec.mesh

    @property
    def placements(self):
        """The placements, one per mesh dimension (a tuple)."""
        return self._spec.placements

    @property
    def _local_tensor(self):
        return _plain(self)

    @property
    def _grad(self):
        return _GRAD_SLOT.__get__(self)

    @_grad.setter
    def _grad(self, g):
        # autograd may hand a leaf a plain tensor (e.g. one laid out like the local array):
        # a DTensor's gradient is a DTensor of its layout
        if g is not None and not isinstance(g, DTensor):
            sp = self._spec
            g = _make(g, sp.mesh, sp.placements, sp.shape)
        _GRAD_SLOT.__set__(self, g)

    # -- conversions
    def to_local(self, *, grad_placements=None):
        """This rank's local tensor (sharing memory). Differentiable: the gradient of the
        local tensor comes back as a DTensor of ``grad_placements`` (default: this
        DTensor's placements, Partial read as Replicate).

        Example::

            >>> d.to_local().shape
            ember.Size([2])
        """
        from ...autograd.grad_mode import _Mode
        if _Mode.grad and self._rg:
            return _ToLocal.apply(self, None if grad_placements is None
                                  else tuple(grad_placements))
        return _plain(self)

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False,
                     forward_dtype=None, backward_dtype=None):
        """This DTensor laid out by ``placements`` (communicating as needed: all-gather,
        reduce-scatter, all-reduce, local chunking). Differentiable.

        Args:
            device_mesh (DeviceMesh, optional): must be this DTensor's mesh.
            placements (list[Placement]): the new placements.
            async_op (bool): accepted; the communication completes before returning.

        Example::

            >>> d.redistribute(mesh, [Replicate()]).to_local()
            tensor([0., 1., 2., 3.])
        """
        mesh = device_mesh or self._spec.mesh
        if mesh != self._spec.mesh:
            raise NotImplementedError("Cross device mesh comm not supported yet!")
        if placements is None:
            raise RuntimeError("placements is needed for redistribute!")
        placements = _normalize_placements(placements, mesh, self.dim())
        for p in placements:
            if isinstance(p, Partial) and p not in self._spec.placements:
                if not any(isinstance(q, Partial) for q in self._spec.placements):
                    raise RuntimeError("Can not redistribute to Partial, redistributing to "
                                       "Partial is for internal use only!")
        x = self.to(forward_dtype) if forward_dtype is not None else self
        if placements == x._spec.placements:
            return x
        return _Redistribute.apply(x, placements)

    def full_tensor(self, *, grad_placements=None):
        """The global tensor, gathered on every rank (a plain tensor). Differentiable.

        Example::

            >>> d.full_tensor()
            tensor([0., 1., 2., 3.])
        """
        r = self.redistribute(self._spec.mesh, (Replicate(),) * self._spec.mesh.ndim)
        return r.to_local(grad_placements=grad_placements)

    @staticmethod
    def from_local(local_tensor, device_mesh=None, placements=None, *, run_check=False,
                   shape=None, stride=None, grad_placements=None):
        """A DTensor whose local piece on this rank is ``local_tensor`` (every rank calls
        it with its piece). Differentiable back to ``local_tensor``.

        Args:
            local_tensor (Tensor): this rank's piece (shared, not copied).
            device_mesh (DeviceMesh, optional): the mesh (default: the whole world, 1-D).
            placements (list[Placement], optional): default all ``Replicate()``.
            run_check (bool): broadcast replicated pieces from coordinate 0 (and check the
                metadata) first.
            shape (ember.Size, optional): the global shape; by default computed assuming
                every rank's piece has the same size.
            stride (tuple, optional): accepted (the global strides are contiguous).

        Example::

            >>> d = DTensor.from_local(ember.ones(2), mesh, [Shard(0)])
            >>> d.shape     # on 2 ranks
            ember.Size([4])
        """
        from ..distributed_c10d import broadcast
        mesh = device_mesh or _default_mesh()
        placements = _normalize_placements(placements, mesh, local_tensor.dim())
        if shape is None:
            shp = list(local_tensor.shape)
            for i, p in enumerate(placements):
                if isinstance(p, Shard):
                    shp[p.dim] *= mesh.size(i)
            shape = tuple(shp)
        if run_check:
            from ...autograd.grad_mode import no_grad
            with no_grad():
                for i, p in enumerate(placements):
                    if isinstance(p, Replicate):
                        broadcast(local_tensor, group=mesh.get_group(i), group_src=0)
        return _FromLocal.apply(local_tensor, mesh, tuple(placements), tuple(shape))

    # -- autograd-facing helpers
    def __repr__(self):
        return (f"DTensor(local_tensor={_T.Tensor.__repr__(_plain(self))}, "
                f"device_mesh={self._spec.mesh!r}, placements={self._spec.placements})")

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        loc = _T._new_tensor(self._data.copy())
        r = _make(loc, self._spec.mesh, self._spec.placements, self._spec.shape)
        if isinstance(self, _T.Tensor) and getattr(self, '_is_param', False):
            r = r._as_parameter(self.requires_grad)
        elif self.requires_grad:
            r.requires_grad_(True)
        memo[id(self)] = r
        return r

    def _as_parameter(self, requires_grad=True):
        """``nn.Parameter(dtensor)``: a DTensor that is a Parameter, sharing the data."""
        p = _T._new_tensor(self._data, _DTensorParameter)
        p._st = self._storage_obj()
        p.__dict__['_spec'] = self._spec
        p.__dict__['_is_param'] = True
        if requires_grad:
            if self._data.dtype.kind not in 'fcV':
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            p._rg = True
        return p

    # the real handler is installed below, after the class exists: creating a Tensor
    # subclass with a handler would switch every op to the observing bindings at import
    __torch_function__ = _T._disabled_torch_function_impl


def _torch_function(cls, func, types, args=(), kwargs=None):
    """``DTensor.__torch_function__``: every op on a DTensor goes to the sharding rules."""
    from . import _sharding
    return _sharding.dispatch(func, args, kwargs or {})


_OBSERVING = []


def _observe():
    """Ops must reach ``DTensor.__torch_function__`` once a DTensor exists: install the
    observing bindings (once; ``import ember.distributed.tensor`` alone changes nothing)."""
    from ..._ops import _dispatch
    _dispatch._activate('subclass')
    _OBSERVING.append(True)


def _make_param_class():
    from ...nn.parameter import Parameter

    class _DTensorParameter(DTensor, Parameter):
        __slots__ = ()
        __torch_function__ = _T._disabled_torch_function_impl    # replaced below

        def __repr__(self):
            return 'Parameter containing:\n' + DTensor.__repr__(self)

        __deepcopy__ = DTensor.__deepcopy__

        def __reduce_ex__(self, proto):
            raise RuntimeError("pickling a DTensor parameter is not supported yet")
    _DTensorParameter.__name__ = _DTensorParameter.__qualname__ = 'DTensor'
    return _DTensorParameter


_DTensorParameter = _make_param_class()
DTensor.__torch_function__ = classmethod(_torch_function)
del _DTensorParameter.__torch_function__


def _default_mesh():
    from .._device_mesh import DeviceMesh
    from ..distributed_c10d import get_world_size
    return DeviceMesh('cpu', list(range(get_world_size())))


# ----------------------------------------------------------------------------- creation
def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """Lay ``tensor`` (the global tensor, given on every rank) out over ``device_mesh``.

    Args:
        tensor (Tensor): the global tensor.
        device_mesh (DeviceMesh, optional): default the whole world as a 1-D mesh.
        placements (list[Placement], optional): default all ``Replicate()``.
        src_data_rank (int or None): the mesh coordinate whose ``tensor`` is used (0,
            broadcast along every mesh dimension); None uses each rank's own ``tensor``.

    Returns:
        DTensor: a leaf, requiring grad when ``tensor`` does.

    Example::

        >>> d = distribute_tensor(ember.randn(4, 4), mesh, [Shard(0)])
    """
    from ..distributed_c10d import broadcast
    from ...autograd.grad_mode import no_grad
    if isinstance(tensor, DTensor):
        raise ValueError("distribute_tensor: the input is already a DTensor; use "
                         "redistribute() to change its placements")
    mesh = device_mesh or _default_mesh()
    placements = _normalize_placements(placements, mesh, tensor.dim())
    for p in placements:
        if isinstance(p, Shard) and not 0 <= p.dim < tensor.dim():
            raise IndexError(f"Shard(dim={p.dim}) of a tensor of {tensor.dim()} dimensions")
    with no_grad():
        full = tensor.detach()
        if src_data_rank is not None:
            full = full.clone()
            for i in range(mesh.ndim):
                broadcast(full, group=mesh.get_group(i), group_src=src_data_rank)
        spec = _Spec(mesh, (Replicate(),) * mesh.ndim, tensor.shape)
        loc = _redistribute_local(full, spec, placements)
        if loc._data is tensor._data:
            loc = loc.clone()
    out = _make(loc.contiguous(), mesh, placements, tensor.shape)
    if tensor.requires_grad:
        out._rg = True
    return out


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None,
                      output_fn=None):
    """Turn ``module``'s parameters and buffers into DTensors: ``partition_fn(name, submodule,
    mesh)`` is called for every submodule and may replace them (with
    ``nn.Parameter(distribute_tensor(...))``); any left as plain tensors are replicated.
    ``input_fn(module, inputs, mesh)`` / ``output_fn(module, outputs, mesh)`` become forward
    pre-/post-hooks.

    Args:
        module (nn.Module): the module (changed in place, and returned).
        device_mesh (DeviceMesh, optional): default the whole world.
        partition_fn, input_fn, output_fn (callable, optional): see above.

    Example::

        >>> distribute_module(nn.Linear(4, 4), mesh)   # every parameter replicated
    """
    from ...nn.parameter import Parameter
    mesh = device_mesh or _default_mesh()
    if getattr(module, '_distribute_module_applied', False):
        raise RuntimeError("distribute_module should only be called once on a module, but it "
                           "has already been called on this module!")

    def replicate_rest(m):
        for key, p in list(m._parameters.items()):
            if p is not None and not isinstance(p, DTensor):
                m.register_parameter(key, Parameter(
                    distribute_tensor(p.data, mesh, [Replicate()] * mesh.ndim),
                    p.requires_grad))
        for key, b in list(m._buffers.items()):
            if b is not None and not isinstance(b, DTensor):
                m._buffers[key] = distribute_tensor(b, mesh, [Replicate()] * mesh.ndim)

    for name, sub in module.named_modules():
        if partition_fn is not None:
            partition_fn(name, sub, mesh)
        replicate_rest(sub)
    if input_fn is not None:
        module.register_forward_pre_hook(lambda m, inputs: input_fn(m, inputs, mesh))
    if output_fn is not None:
        module.register_forward_hook(lambda m, inputs, outputs: output_fn(m, outputs, mesh))
    module._distribute_module_applied = True
    return module


def _warn_fallback(name):
    warnings.warn(f"DTensor: no sharding rule for '{name}': its inputs are replicated and "
                  "every rank computes the full result", UserWarning, stacklevel=4)
